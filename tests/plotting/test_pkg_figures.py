"""Figures that say what their captions say: every curve visible, families of curves
told apart by line style, the small-α corner on log–log axes, and reproduction texts
that cite papers (not internal notes)."""

from __future__ import annotations

import inspect
import re

import matplotlib
import numpy as np
import pytest

import fdp
import fdp.cli
from fdp import plotting as P
from fdp import repro

matplotlib.use("Agg")


def _visible_fraction(line, ax, margin=0.02) -> float:
    """Share of a line's points drawn inside the axes, away from the frame (in axes
    coordinates, log axes included): a curve that hugs an axis scores near 0."""
    xy = np.column_stack([line.get_xdata(), line.get_ydata()]).astype(float)
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    if ax.get_xscale() == "log":
        xy = xy[xy[:, 0] > 0]
    if ax.get_yscale() == "log":
        xy = xy[xy[:, 1] > 0]
    axes_xy = (ax.transData + ax.transAxes.inverted()).transform(xy)
    inside = np.all((axes_xy > margin) & (axes_xy < 1 - margin), axis=1)
    return float(inside.mean()) if len(inside) else 0.0


def _labelled(ax):
    return [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]


@pytest.fixture(scope="module")
def mnist_panels():
    """Bu et al.'s σ = 0.7, 45-epoch MNIST setting (the MA curve at ε = 7.10)."""
    from fdp.classical import BU_ORDERS
    from fdp.sgd import dpsgd_rdp_epsilon
    q, steps, delta = 256 / 60000, 45 * 60000 // 256, 1e-5
    cert = fdp.dpsgd(0.7, q, steps, tol=1e-2)
    mu = fdp.dpsgd_clt_mu(0.7, q, steps)
    ma = dpsgd_rdp_epsilon(0.7, q, steps, delta, orders=BU_ORDERS,
                           conversion="mironov").epsilon
    fig, axes = P.new_figure(1, 2)
    lin = P.dpsgd_comparison(cert, mu, ma, delta, ax=axes[0, 0])
    roc = P.dpsgd_roc(cert, mu, ma, delta, ax=axes[0, 1])
    return cert, mu, ma, lin, roc


def test_the_ma_curve_hugs_the_linear_axes_but_not_the_roc_axes(mnist_panels):
    _, _, ma, lin, roc = mnist_panels
    ma_lin = next(ln for ln in lin.get_lines() if "RDP/MA" in ln.get_label())
    assert _visible_fraction(ma_lin, lin) < 0.1          # why the ROC panel is needed
    for line in _labelled(roc):
        if "perfect privacy" in line.get_label():    # the diagonal, corner to corner
            continue
        assert _visible_fraction(line, roc) > 0.25, line.get_label()


def test_roc_panel_draws_one_minus_beta(mnist_panels):
    """TPR = 1 − β, checked against the closed forms G_μ and f_{ε,δ}."""
    from scipy.stats import norm
    cert, mu, ma, _, roc = mnist_panels
    lines = {ln.get_label(): ln for ln in roc.get_lines()}
    clt = next(v for k, v in lines.items() if k.startswith("CLT"))
    a = np.asarray(clt.get_xdata())
    np.testing.assert_allclose(clt.get_ydata(), norm.sf(norm.isf(a) - mu), rtol=1e-9)
    rdp = next(v for k, v in lines.items() if k.startswith("RDP"))
    a = np.asarray(rdp.get_xdata())
    expected = np.minimum(1.0, np.minimum(1e-5 + np.exp(ma) * a,      # 1 − f_{ε,δ}(α)
                                          1.0 - np.exp(-ma) * (1 - 1e-5 - a)))
    np.testing.assert_allclose(rdp.get_ydata(), expected, rtol=1e-9, atol=1e-15)
    safe = next(v for k, v in lines.items() if k.startswith("certified"))
    a = np.asarray(safe.get_xdata())
    lo, _ = cert.bounds(a)
    np.testing.assert_allclose(safe.get_ydata(), 1.0 - np.asarray(lo))   # the safe side
    assert roc.get_xscale() == roc.get_yscale() == "log"


def test_the_clt_under_report_shows_at_small_alpha(mnist_panels):
    """What the bu_mnist caption says: at small α the CLT's TPR is below the certified
    band (more privacy claimed), at α = 0.1 its β is below the band (less claimed)."""
    cert, mu, _, _, _ = mnist_panels
    g = fdp.Gaussian(mu)
    lo, hi = cert.bounds(1e-4)
    assert 1 - g(1e-4) < 1 - hi
    lo, hi = cert.bounds(0.1)
    assert g(0.1) < lo


@pytest.mark.parametrize("draw", [
    lambda ax: P.laplace_limit(1.0, ks=(1, 2, 3, 5, 10), ax=ax),
    lambda ax: P.group_privacy(fdp.Gaussian(0.5), ks=(1, 2, 4, 8), ax=ax),
    lambda ax: P.subsampling(fdp.Gaussian(2.0), ps=(0.1, 0.3, 0.6, 1.0), ax=ax),
    lambda ax: P.gdp_family((0.5, 1.0, 2.0, 3.0), ax=ax),
])
@pytest.mark.slow
def test_members_of_a_family_have_distinct_line_styles(draw):
    fig, axes = P.new_figure(1, 1)
    ax = draw(axes[0, 0])
    members = [ln for ln in _labelled(ax) if "Id" not in ln.get_label()
               and "limit" not in ln.get_label()]
    assert len(members) >= 4
    styles = [(ln.get_linestyle(), str(ln.get_dashes() if hasattr(ln, "get_dashes") else ""))
              for ln in members]
    assert len({ln.get_linestyle() for ln in members}) == len(members) or \
        len(set(map(str, (ln._dash_pattern for ln in members)))) == len(members), styles


def test_zoom_inset_magnifies_a_window():
    from fdp.plotting.style import zoom_inset
    fig, axes = P.new_figure(1, 1)
    ax = P.tradeoff_axes(axes[0, 0])
    ins = zoom_inset(ax, (0.1, 0.3), (0.3, 0.5))
    assert ins.get_xlim() == (0.1, 0.3) and ins.get_ylim() == (0.3, 0.5)
    assert ins in ax.child_axes


# ----------------------------------------------------------------------
# texts users read: cite papers, not internal files or notes
# ----------------------------------------------------------------------
INTERNAL = re.compile(r"MATH\.md|MATH §|API\.md|STYLE\.md|\bseed\b|seed notes|seed §|"
                      r"\bissue\s*#?\d+", re.IGNORECASE)


def test_reproduction_texts_cite_papers_not_internal_notes():
    for name in repro.names():
        mod = repro.load(name)
        for text in (mod.__doc__ or "", mod.TITLE, mod.SOURCE, mod.CAPTION):
            assert not INTERNAL.search(text), (name, INTERNAL.search(text).group(0))
    for mod in (repro, P, fdp.cli):
        assert not INTERNAL.search(inspect.getsource(mod)), mod.__name__


def test_gallery_names_every_abbreviation_it_uses():
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "figures" / "README.md").read_text(
        encoding="utf-8")
    for short, full in (("DRS", "Dong, Roth & Su"), ("KOV", "Kairouz, Oh & Viswanath"),
                        ("ZDLS", "Zheng, Dong, Long & Su")):
        if short in text:
            assert full in text, short
