"""from_privacy_profile with δ given as a function: status by assertion, values checked
against the Gaussian profile recomputed in mpmath (DRS 2022, Cor 2.13)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import fdp
from fdp.conversions.profile import from_privacy_profile
from fdp.status import NotAGuarantee, require_guarantee


def _mp_gauss_delta(mu: float, eps: float) -> float:
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return float(mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2))


def test_callable_profile_matches_the_points_and_the_mpmath_profile():
    mp.mp.dps = 30
    grid = np.linspace(0.0, 4.0, 41)
    g = from_privacy_profile(grid, fdp.Gaussian(1.0).delta, certified=True)
    assert g.status == fdp.Status.CERTIFIED
    require_guarantee(g, "test")
    for e in (0.0, 0.5, 1.3, 3.9):
        assert float(g.delta(e)) == pytest.approx(_mp_gauss_delta(1.0, e), rel=1e-9)
    # between grid points the bound is above the true profile (a weaker guarantee)
    for e in (0.05, 1.25, 2.55):
        assert float(g.delta(e)) >= _mp_gauss_delta(1.0, e)
    a = np.linspace(0.0, 1.0, 101)
    assert np.all(g(a) <= fdp.Gaussian(1.0)(a) + 1e-12)


def test_point_by_point_callable():
    """A function of one float only (math.exp fails on arrays) is called per point."""
    def rr_delta(e: float) -> float:      # f_{1,0}: δ(ε) = max(0, 1 − e^{ε−1})·… pure 1-DP
        return max(0.0, (math.e - math.exp(e)) / (1.0 + math.e)) if e < 1.0 else 0.0
    grid = [0.0, 0.25, 0.5, 1.0]
    g = from_privacy_profile(grid, rr_delta, certified=True)
    h = from_privacy_profile(grid, [rr_delta(e) for e in grid])
    a = np.linspace(0.0, 1.0, 51)
    assert np.array_equal(g(a), h(a))
    assert h.status == fdp.Status.EXACT and g.status == fdp.Status.CERTIFIED


def test_unasserted_callable_is_an_approximation():
    g = from_privacy_profile([0.5, 1.0], fdp.Gaussian(1.0).delta)
    assert g.status == fdp.Status.APPROXIMATION
    assert "approximation" in repr(g)
    with pytest.raises(NotAGuarantee):
        require_guarantee(g, "test")
    assert from_privacy_profile([0.5], fdp.Gaussian(1.0).delta, certified=False).status \
        == fdp.Status.APPROXIMATION


def test_bad_callables_and_flags():
    with pytest.raises(ValueError, match="delta"):
        from_privacy_profile([0.5, 1.0], lambda e: np.full(np.shape(e), np.nan), certified=True)
    with pytest.raises(ValueError, match="delta"):
        from_privacy_profile([0.5, 1.0], lambda e: np.full(np.shape(e), 1.5), certified=True)
    with pytest.raises(ValueError, match="certified"):
        from_privacy_profile([0.5], [1e-3], certified=True)
