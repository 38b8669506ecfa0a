"""fdp.plot and the fdp.plotting helpers: what is drawn is the function asked for."""

import hashlib

import matplotlib
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from scipy.stats import norm

import fdp
from fdp import plotting as P

matplotlib.use("Agg")


@pytest.fixture
def ax():
    fig, axes = P.new_figure(1, 1)
    return axes[0, 0]


def _lines(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_plot_draws_exact_curves_on_square_axes(ax):
    out = fdp.plot(fdp.Gaussian(1.0), fdp.EpsDelta(1.0, 0.1), labels=["GDP", "(ε,δ)"], ax=ax)
    assert out is ax and isinstance(out, Axes)
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)
    assert ax.get_aspect() == 1.0
    lines = _lines(ax)
    a, b = lines["GDP"].get_data()
    np.testing.assert_allclose(b, norm.cdf(norm.isf(a) - 1.0), atol=1e-12)
    a, b = lines["(ε,δ)"].get_data()
    ref = np.maximum.reduce([np.zeros_like(a), 0.9 - np.e * a, (0.9 - a) / np.e])
    np.testing.assert_allclose(b, ref, atol=1e-12)
    diag = [l for l in ax.get_lines() if "Id" in l.get_label()]
    assert len(diag) == 1
    np.testing.assert_allclose(diag[0].get_ydata(), 1 - np.asarray(diag[0].get_xdata()))
    assert [t.get_text() for t in ax.get_legend().get_texts()][-2:] == ["GDP", "(ε,δ)"]


def test_plot_default_labels_are_latex(ax):
    fdp.plot(fdp.Gaussian(2.0), ax=ax)
    assert "$G_{2}$" in _lines(ax)


def test_point_sets_are_drawn_with_their_lower_convex_hull(ax):
    a = np.array([0.1, 0.2, 0.3, 0.5])
    b = np.array([0.7, 0.6, 0.3, 0.25])   # (0.2, 0.6) lies above the hull
    fdp.plot((a, b), labels=["audit"], ax=ax)
    lines = _lines(ax)
    pts = lines["audit (points)"]
    np.testing.assert_array_equal(pts.get_xdata(), a)
    hx, hy = lines["audit (hull)"].get_data()
    hull = fdp.from_points(a, b)
    np.testing.assert_allclose(hx, hull.alphas)
    np.testing.assert_allclose(hy, hull.betas)
    assert 0.2 not in set(np.round(hx, 12))


def test_piecewise_linear_shows_vertices(ax):
    f = fdp.from_points([0.05, 0.2, 0.5], [0.7, 0.3, 0.1])     # a PiecewiseLinear
    fdp.plot(f, labels=["kov"], ax=ax)
    xs = [l.get_xdata() for l in ax.get_lines() if l.get_marker() == "o"]
    assert len(xs) == 1
    np.testing.assert_allclose(xs[0], f.alphas)


def test_numeric_results_are_drawn_as_a_band(ax):
    f = fdp.compose(fdp.Laplace(1.0), fdp.Gaussian(1.0), tol=1e-2)
    assert not f.is_exact
    fdp.plot(f, labels=["num"], ax=ax)
    band = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert band, "a certified result must be drawn as a band"
    x, lo = _lines(ax)["num (lower side)"].get_data()
    np.testing.assert_allclose(lo, f.bounds(x)[0])


def test_plot_rejects_bad_input(ax):
    with pytest.raises(ValueError, match="labels"):
        fdp.plot(fdp.Gaussian(1.0), labels=["a", "b"], ax=ax)
    with pytest.raises(TypeError, match="TradeOff"):
        fdp.plot("gaussian", ax=ax)


def test_hypothesis_test_shades_type_one_and_two_errors(ax):
    P.hypothesis_test(2.0, 1.0, ax=ax)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(f"{norm.sf(1.0):.3f}" in t and "type I" in t for t in texts)
    assert any(f"{norm.cdf(-1.0):.3f}" in t and "type II" in t for t in texts)
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 2


def test_fdp_region_marks_which_candidates_are_f_dp(ax):
    P.fdp_region(fdp.Gaussian(1.0), [fdp.Gaussian(0.5), fdp.EpsDelta(1.0, 0.1)], ax=ax)
    assert ax.fdp_verdicts == [True, False]
    labels = [l.get_label() for l in ax.get_lines()]
    assert any("not $f$-DP" in s for s in labels)


def test_eps_delta_marks_kink_at_fixed_point(ax):
    P.eps_delta(1.0, 0.1, ax=ax)
    kink = next(l for l in ax.get_lines() if l.get_label().startswith("kink"))
    k = 0.9 / (1 + np.e)
    np.testing.assert_allclose(kink.get_data(), [[k], [k]])


@pytest.mark.slow
def test_every_helper_returns_its_axes():
    fig, axes = P.new_figure(3, 4)
    axes = axes.ravel()
    calls = [
        lambda a: P.gdp_family(ax=a),
        lambda a: P.privacy_profile(fdp.Gaussian(1.0), fdp.Laplace(1.0), ax=a),
        lambda a: P.gdp_conversion(1.0, ax=a),
        lambda a: P.group_privacy(fdp.Gaussian(0.5), ax=a),
        lambda a: P.laplace_limit(1.0, ax=a),
        lambda a: P.clt_band(fdp.EpsDelta(0.5) ** 10, 1.5977, 0.1936, ax=a),
        lambda a: P.subsampling(fdp.Gaussian(2.0), show_parts=0.3, ax=a),
        lambda a: P.dpsgd_comparison(None, 1.0, 3.0, 1e-5, ax=a),
        lambda a: P.dpsgd_profile(None, 1.0, ax=a, delta=1e-5),
    ]
    for a, call in zip(axes, calls):
        assert call(a) is a


def test_laplace_limit_draws_the_group_curves():
    fig, axes = P.new_figure(1, 1)
    ax = P.laplace_limit(1.0, (2,), ax=axes[0, 0])
    line = next(l for l in ax.get_lines() if l.get_label().startswith("$k=2"))
    a, b = line.get_data()
    # 1 − (1 − f_{1/2,0})^{∘2}, composed by hand
    f = lambda x: np.maximum.reduce([np.zeros_like(x), 1 - np.exp(0.5) * x,
                                     np.exp(-0.5) * (1 - x)])
    np.testing.assert_allclose(b, 1 - (1 - f(1 - f(a))), atol=1e-12)


def test_helpers_without_ax_use_a_new_pyplot_figure():
    import matplotlib.pyplot as plt
    ax = fdp.plot(fdp.Gaussian(1.0))
    assert isinstance(ax, Axes)
    plt.close(ax.figure)


def test_saved_png_is_deterministic(tmp_path):
    digests = []
    for i in range(2):
        fig, axes = P.new_figure(1, 1)
        P.gdp_family(ax=axes[0, 0])
        path = tmp_path / f"g{i}.png"
        P.save(fig, path)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    assert b"Software" not in (tmp_path / "g0.png").read_bytes()


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), min_size=1, max_size=12))
def test_drawn_hull_is_a_trade_off_function_below_every_point(points):
    a = np.array([p[0] for p in points])
    b = np.array([p[1] for p in points])
    fig, axes = P.new_figure(1, 1)
    ax = fdp.plot((a, b), labels=["pts"], ax=axes[0, 0])
    hx, hy = _lines(ax)["pts (hull)"].get_data()
    hx, hy = np.asarray(hx), np.asarray(hy)
    assert np.all(np.diff(hx) > 0) and np.all(np.diff(hy) <= 1e-12)        # non-increasing
    assert np.all(hy <= 1 - hx + 1e-12)                                    # below 1 − α
    dx, dy = np.diff(hx), np.diff(hy)
    assert np.all(dx[:-1] * dy[1:] - dy[:-1] * dx[1:] >= -1e-12)          # convex (turns left)
    on_hull = np.interp(a, hx, hy)
    assert np.all(on_hull <= np.minimum(b, 1 - a) + 1e-12)                 # below the points


@settings(max_examples=20, deadline=None)
@given(st.floats(0.05, 5.0))
def test_plotted_gaussian_is_g_mu(mu):
    fig, axes = P.new_figure(1, 1)
    ax = fdp.plot(fdp.Gaussian(mu), labels=["g"], ax=axes[0, 0])
    a, b = _lines(ax)["g"].get_data()
    np.testing.assert_allclose(b, norm.cdf(norm.isf(a) - mu), atol=1e-12)
