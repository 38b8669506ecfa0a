"""What a reader sees (issue 34, Plots): curves apart, bands inside the trade-off region,
short labels, legends beside the data rather than on it."""

import matplotlib
import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.mathtext import MathTextParser

import fdp
from fdp.plotting import clt_band, hypothesis_test, latex_label, new_figure, subsampling

matplotlib.use("Agg")


def _lines(ax):
    return {l.get_label(): l for l in ax.get_lines()}


def test_clt_band_draws_composition_and_clt_apart_and_clips_the_band():
    fs = [fdp.EpsDelta(0.5)] * 10
    composed, res = fdp.compose(*fs), fdp.clt(fs)
    fig, axes = new_figure()
    ax = clt_band(composed, res.mu, res.gamma, ax=axes[0, 0])
    lines = _lines(ax)
    comp = lines["composition"]
    clt = next(l for k, l in lines.items() if k.startswith("CLT"))
    assert to_rgba(comp.get_color()) != to_rgba(clt.get_color())
    assert clt.get_linestyle() == "--" and clt.get_zorder() > comp.get_zorder()
    band = next(c for c in ax.collections if "Berry" in str(c.get_label()))
    xy = np.concatenate([p.vertices for p in band.get_paths()])
    # every point of the band lies in the trade-off region β ≤ 1 − α (it reached 1 before)
    assert np.all(xy[:, 1] <= 1.0 - xy[:, 0] + 1e-12)
    assert xy[:, 1].max() > 0.5                 # and the band is still drawn
    assert not any("T(P,Q)" in k or "Numeric" in k for k in lines)


@pytest.mark.parametrize("f, expected", [
    (fdp.Laplace(0.1) ** 100, r"$L_{0.1}^{\otimes 100}$"),
    (fdp.Gaussian(1.0) @ fdp.Laplace(1.0), r"$G_{1} \otimes L_{1}$"),
    (fdp.compose(*[fdp.Laplace(m) for m in (0.1, 0.2, 0.3, 0.4, 0.5)]),
     r"$L_{0.1} \otimes \cdots \otimes L_{0.5}$"),
    (fdp.compose(fdp.Laplace(1.0), fdp.Laplace(1.0), fdp.Laplace(2.0)),
     r"$L_{1}^{\otimes 2} \otimes L_{2}$"),
    ((fdp.Laplace(0.3) ** 10).inverse(), r"$\left(L_{0.3}^{\otimes 10}\right)^{-1}$"),
])
def test_numeric_results_are_named_by_what_they_compose(f, expected):
    label = latex_label(f)
    assert label == expected
    MathTextParser("path").parse(label)


def test_no_default_label_says_numeric_or_runs_long():
    fs = [fdp.Laplace(0.1) ** 100, fdp.compose(*[fdp.Laplace(0.1 * k) for k in range(1, 30)]),
          fdp.compose(*[fdp.Laplace(0.1 * k) for k in range(1, 6)]).symmetrize(),
          fdp.dpsgd(1.0, 0.01, 10, tol=1e-2)]
    from matplotlib.font_manager import FontProperties
    for f in fs:
        label = latex_label(f)
        assert "Numeric" not in label, label
        # typeset at 10 pt, the label fits in 3 inches (a legend beside a 5-inch plot)
        width = MathTextParser("path").parse(label, 72, FontProperties(size=10)).width \
            if label.startswith("$") else 6 * len(label)
        assert width < 216, (label, width)


def _axes_width(n_curves):
    fig, axes = new_figure(1, 1, size=5.0)
    curves = [fdp.Gaussian(1.0), fdp.Laplace(1.0), fdp.EpsDelta(1.0, 0.01),
              fdp.Laplace(0.1) ** 100, fdp.Gaussian(1.0) @ fdp.Laplace(1.0)][:n_curves]
    ax = fdp.plot(*curves, ax=axes[0, 0])
    fig.canvas.draw()
    return ax, fig


def test_a_crowded_legend_goes_beside_the_axes_without_squeezing_them():
    alone, _ = _axes_width(1)
    crowded, fig = _axes_width(5)
    box = crowded.get_window_extent()
    assert crowded.get_legend().get_window_extent().x0 >= box.x1 - 1   # beside the data
    assert box.width >= 0.95 * alone.get_window_extent().width         # axes kept their size
    styles = {str(l.get_linestyle()) for l in crowded.get_lines()[1:]}
    assert len(styles) >= 4                                            # told apart in grey


def test_hypothesis_test_legend_does_not_cover_the_densities():
    fig, axes = new_figure(1, 1, size=5.0)
    ax = hypothesis_test(2.0, ax=axes[0, 0])
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1 - 1


def test_sampler_figure_names_relations_and_draws_lower_bounds_dashed(tmp_path):
    from fdp.sgd.report import plot_samplers
    from fdp.sgd.shuffle import shuffle_lower
    curves = {"Poisson": fdp.dpsgd(1.0, 0.05, 20, tol=1e-2),
              "without replacement": fdp.dpsgd(1.0, 0.05, 20, sampling="without_replacement",
                                               neighbouring="replace_one", tol=1e-2),
              "shuffle": shuffle_lower(1.0, 20, 1, tol=1e-2)}
    fig = plot_samplers(curves, tmp_path / "s.png", title="t")
    ax = fig.axes[0]
    leg = ax.get_legend()
    texts = [t.get_text() for t in leg.get_texts()]
    assert any(t.startswith("Poisson, add/remove") for t in texts)
    assert any(t.startswith("without replacement, replace-one") for t in texts)
    assert "not comparable" in leg.get_title().get_text()
    shuffle = next(l for l in ax.get_lines() if l.get_label().startswith("shuffle"))
    assert shuffle.get_linestyle() == "--" and "not a guarantee" in shuffle.get_label()
    assert not any(str(c.get_label()).startswith("shuffle") for c in ax.collections
                   if isinstance(c, PolyCollection))
    # one relation only: no warning in the legend
    fig = plot_samplers({"Poisson": curves["Poisson"]}, tmp_path / "p.png")
    assert fig.axes[0].get_legend().get_title().get_text() == ""


@pytest.mark.parametrize("sampling, relation", [("poisson", "add/remove"),
                                                ("without_replacement", "replace-one")])
def test_subsampling_names_its_neighbouring_relation(sampling, relation):
    fig, axes = new_figure()
    ax = subsampling(fdp.Gaussian(2.0), ps=(0.3,), sampling=sampling, show_parts=0.3,
                     ax=axes[0, 0])
    assert relation in ax.get_legend().get_title().get_text()
    # f_p is not drawn in the dotted style of the perfect-privacy line Id(α)
    lines = _lines(ax)
    diagonal = next(l for k, l in lines.items() if k.startswith(r"$\mathrm{Id}"))
    f_p = next(l for k, l in lines.items() if k.startswith("$f_p="))
    assert f_p.get_linestyle() != diagonal.get_linestyle()
    with pytest.raises(ValueError, match="sampling"):
        subsampling(fdp.Gaussian(2.0), sampling="shuffle", ax=axes[0, 0])


def _colours_by_label(ax):
    return {l.get_label(): to_rgba(l.get_color()) for l in ax.get_lines()
            if not l.get_label().startswith("_")}


@pytest.mark.parametrize("name", ["ddr_selection", "samplers_compare"])
@pytest.mark.slow
def test_repro_figures_keep_one_colour_per_curve_across_panels(name, tmp_path, monkeypatch):
    """A curve drawn in both panels (trade-off and ROC) has one colour and one label."""
    from fdp import repro

    drawn = {}
    mod = repro.load(name)
    monkeypatch.setattr(mod, "write", lambda fig, out, n: drawn.setdefault(n, fig))
    mod.run(tmp_path, fast=True)
    ax, ax_roc = drawn[name].axes[:2]
    left, right = _colours_by_label(ax), _colours_by_label(ax_roc)
    shared = {k.replace(" (lower side)", "").replace(" (safe side)", "")
              for k in right} & {k.replace(" (lower side)", "") for k in left}
    assert len(shared) >= 3
    for k in shared:
        lk = next(v for key, v in left.items() if key.startswith(k))
        rk = next(v for key, v in right.items() if key.startswith(k))
        assert lk == rk, k
    assert ax.get_xlim() == (0.0, 1.0) and ax_roc.get_xscale() == "log"
