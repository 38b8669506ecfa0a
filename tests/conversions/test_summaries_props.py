"""Summaries proven, not read off a grid (gdp_mu, pure_epsilon, dominates).

Regression: for ``from_function(lambda a: (1 - a)**2)`` pure_epsilon() was 16.6 and
gdp_mu() 3.16 (truth: both inf, since near α = 1, (1 − α)² lies below e^{−ε}(1 − α)
and below G_μ(α) ~ (1 − α) e^{−μ√(2 log(1/(1−α)))}), and dominates(EpsDelta(16.58))
said True (the curve dips 1e-15 below f_{16.58,0} near α = 1 − 3e-8).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

import fdp


def test_square_curve_reproduction():
    f = fdp.from_function(lambda a: (1 - a) ** 2)
    assert f.pure_epsilon() == math.inf
    assert f.gdp_mu() == math.inf
    assert not f.dominates(fdp.EpsDelta(16.58))
    # independent check of the truth: the dip below f_{16.58,0} exists (closed form)
    t = np.exp(-16.58) / 2            # argmax of e^{−ε} t − t²
    assert np.exp(-16.58) * t - t * t > 0


def test_brackets_contain_the_truth_for_closed_forms_through_the_generic_path():
    # Laplace: the generic sandwich (with its exact privacy profile as supporting lines)
    a = np.concatenate([np.logspace(-12, -1, 20001), np.linspace(0.1, 1 - 1e-12, 20001)])
    truth = np.max(-ndtri(a) - ndtri(fdp.Laplace(1.0)(a)))   # a lower estimate of μ*
    lo, hi = fdp.Laplace(1.0).gdp_mu_bounds()
    assert lo <= hi and truth <= hi and hi - lo < 1e-8
    assert fdp.Laplace(1.0).gdp_mu() == hi


def test_family_hooks_are_closed_forms():
    assert fdp.Gaussian(1.3).gdp_mu_bounds() == (1.3, 1.3)
    assert fdp.Gaussian(1.3).pure_epsilon_bounds() == (math.inf, math.inf)
    assert fdp.EpsDelta(0.7).pure_epsilon_bounds() == (0.7, 0.7)
    assert fdp.Laplace(0.9).pure_epsilon_bounds() == (0.9, 0.9)
    assert fdp.Identity().gdp_mu_bounds() == (0.0, 0.0)
    assert fdp.EpsDelta(1.0, 1e-5).gdp_mu() == math.inf


def test_pure_dp_user_function_is_certified_finite():
    # f_{log 2, 0} written by hand: finite, and at least the true log 2
    f = fdp.from_function(lambda a: np.maximum.reduce([np.zeros_like(a), 1 - 2 * a, (1 - a) / 2]))
    lo, hi = f.pure_epsilon_bounds()
    assert math.log(2) <= hi < math.inf and lo <= hi
    mu_lo, mu_hi = f.gdp_mu_bounds()
    exact = fdp.EpsDelta(math.log(2)).gdp_mu()          # exact at the vertices
    assert mu_lo <= mu_hi and exact <= mu_hi * (1 + 1e-12) and mu_hi < exact + 1e-6


def test_dominates_has_one_meaning():
    assert fdp.Gaussian(0.5).dominates(fdp.Gaussian(1.0))
    assert not fdp.Gaussian(1.0).dominates(fdp.Gaussian(0.5))
    assert fdp.Laplace(1.0).dominates(fdp.EpsDelta(1.0))
    assert not fdp.EpsDelta(1.0).dominates(fdp.Laplace(1.0))
    assert fdp.EpsDelta(0.5).dominates(fdp.Gaussian(1.0))
    assert not fdp.Gaussian(1.0).dominates(fdp.Laplace(1.0))   # bounded vs unbounded loss
    # tol is an absolute allowance on β: the 1e-15 dip of (1 − α)² is within 1e-14
    f = fdp.from_function(lambda a: (1 - a) ** 2)
    assert f.dominates(fdp.EpsDelta(16.58), tol=1e-14)
    with pytest.raises(ValueError, match="tol"):
        f.dominates(fdp.EpsDelta(1.0), tol=-1.0)


@settings(max_examples=25)
@given(st.floats(0.05, 3.0), st.floats(0.0, 0.3))
def test_user_curves_summaries_never_below_truth(mu, shift):
    """A user's copy of G_μ (pointwise only): its summaries are ≥ the true ones."""
    from scipy.stats import norm
    f = fdp.from_function(lambda a: norm.cdf(norm.isf(a) - mu))
    assert f.gdp_mu() >= mu * (1 - 1e-12)           # truth μ, or inf (not certifiable)
    assert f.pure_epsilon() == math.inf             # truth inf
    # points of the same curve: exact at vertices, and f ≥ hull ⇒ μ(hull) ≤ μ
    al = np.linspace(0, 1, 11) * (1 - shift) + shift / 2
    pts = fdp.from_points(al, fdp.Gaussian(mu)(al))
    lo, hi = pts.gdp_mu_bounds()
    brute = np.max(-ndtri(pts.alphas[1:-1]) - ndtri(np.maximum(pts.betas[1:-1], 1e-300)))
    assert lo <= hi and (hi == math.inf or hi >= brute * (1 - 1e-12))


@settings(max_examples=25)
@given(st.floats(0.1, 5.0))
def test_laplace_pure_epsilon_generic_path_matches_closed_form(mu):
    """The generic profile path (what a numeric f uses) agrees with the closed form."""
    from fdp.conversions.summaries import pure_epsilon_bounds
    lo, hi = pure_epsilon_bounds(fdp.Laplace(mu))
    assert lo <= mu <= hi and hi - lo <= 1e-12 * mu


from tests.conftest import ALPHA_GRID, closed_families, point_sets  # noqa: E402


@settings(max_examples=40)
@given(st.one_of(closed_families, point_sets()), st.one_of(closed_families, point_sets()))
def test_dominates_never_claims_a_false_true(f, g):
    """A True is a proof: then f ≥ g at every α of a fine grid (independent check)."""
    if f.dominates(g):
        assert np.all(f(ALPHA_GRID) >= g(ALPHA_GRID) - 1e-12)


@settings(max_examples=40)
@given(st.one_of(closed_families, point_sets()))
def test_summary_brackets_hold_pointwise(f):
    """lo ≤ hi, and at the upper ends the curve is above G_μ and f_{ε,0} on a grid."""
    mu_lo, mu_hi = f.gdp_mu_bounds()
    eps_lo, eps_hi = f.pure_epsilon_bounds()
    assert mu_lo <= mu_hi and eps_lo <= eps_hi
    if np.isfinite(mu_hi):
        assert np.all(f(ALPHA_GRID) >= fdp.Gaussian(mu_hi)(ALPHA_GRID) - 1e-12)
    if np.isfinite(eps_hi):
        assert np.all(f(ALPHA_GRID) >= fdp.EpsDelta(eps_hi)(ALPHA_GRID) - 1e-12)
