"""Group privacy at any size (DRS Thm 2.14): closed forms, the exact f_{ε,δ} k-fold in log
space, and the certified generic bracket. Truths: mpmath iteration of the definition
1 − (1 − f)^{∘k}, closed forms G_{kμ}, L_{kμ}, and hand-derived profiles."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr, ndtri

import fdp
from fdp.operations.group import EpsDeltaGroup, Group, eps_delta_group


def _ref_group_beta(eps, delta, k, alpha, dps=60):
    """1 − φ^{∘k}(α) with φ(x) = min{1, δ + e^ε x, 1 − e^{−ε}(1 − δ − x)}: the definition."""
    with mp.workdps(dps):
        r, d, x = mp.e ** mp.mpf(eps), mp.mpf(delta), mp.mpf(alpha)
        for _ in range(k):
            x = min(mp.mpf(1), d + r * x, 1 - (1 - d - x) / r)
        return 1 - x


def _ref_group_delta(eps, delta, k, e2, dps=60):
    """sup_α (1 − f_k(α) − e^{ε'} α) over the kinks of the k-fold, f_k by the definition.

    The kinks of φ^{∘k} lie at preimages of the kinks of φ; they are found here by
    bisection on the definition itself (no closed form of ours is used)."""
    with mp.workdps(dps):
        y = mp.e ** mp.mpf(e2)
        # sample the concave φ^{∘k} densely in log α and take the max: the objective is
        # concave, so a golden refinement around the best sample finds the supremum
        g = lambda a: 1 - _ref_group_beta(eps, delta, k, a, dps) - y * a
        grid = [mp.mpf(0)] + [mp.mpf(10) ** (-s / mp.mpf(8)) for s in range(0, 8 * 40)]
        vals = [g(a) for a in grid]
        i = max(range(len(grid)), key=lambda t: vals[t])
        lo = grid[min(i + 1, len(grid) - 1)]
        hi = grid[max(i - 1, 0)]
        for _ in range(200):
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if g(m1) < g(m2):
                lo = m1
            else:
                hi = m2
        return max(vals[i], g((lo + hi) / 2), mp.mpf(0))


# ----------------------------------------------------------------------
# The reported reproductions
# ----------------------------------------------------------------------
def test_eps_delta_group_100_past_eps_37():
    """Was 37.9; near α = 0 the curve is 1 − e^{kε}α and the top atom has Q-mass
    e^ε/(1 + e^ε), so ε(δ) = kε + log(1 − δ(1 + e^{−ε})) exactly."""
    g = fdp.EpsDelta(0.5).group(100)
    want = 50.0 + np.log1p(-1e-5 * (1.0 + np.exp(-0.5)))
    assert g.epsilon(1e-5) == pytest.approx(want, rel=1e-14)
    assert g.epsilon_bounds(1e-5)[0] == g.epsilon_bounds(1e-5)[1]
    assert g.epsilon(1e-5) >= want


def test_laplace_group_100_delta_at_50():
    """Was 0.0: L_1.group(100) = L_100, δ(50) = 1 − e^{(50 − 100)/2} (DRS Appendix A)."""
    g = fdp.Laplace(1.0).group(100)
    assert g == fdp.Laplace(100.0)
    assert g.delta(50.0) == pytest.approx(-np.expm1(-25.0), rel=1e-15)


@pytest.mark.parametrize("eps, k", [(0.5, 1000), (0.5, 10 ** 6), (700.0, 10 ** 4), (1e-3, 10 ** 6)])
def test_pure_dp_groups_of_any_size(eps, k):
    """Sizes that took 38 s or never finished: exact, and ε(δ) = kε + log(1 − δ(1 + e^{−ε}))
    while that stays on the top atom, even where kε is far beyond 709."""
    g = fdp.EpsDelta(eps).group(k)
    d = 1e-300
    want = k * eps + np.log1p(-d * (1.0 + np.exp(-eps)))
    assert g.epsilon(d) == pytest.approx(want, rel=1e-15)
    assert g.delta(np.inf) == 0.0
    assert g(0.0) == 1.0 and g(1.0) == 0.0


def test_delta_part_of_groups_is_the_classical_sum():
    """1 − f_k(0) = δ(1 + e^ε + … + e^{(k−1)ε}) while below 1 (the issue's near-0 form)."""
    for eps, delta, k in [(0.5, 1e-12, 20), (3.0, 1e-300, 200), (300.0, 1e-300, 2),
                          (1e-3, 1e-9, 1000)]:
        with mp.workdps(40):
            want = mp.mpf(delta) * sum(mp.e ** (i * mp.mpf(eps)) for i in range(k))
        g = fdp.EpsDelta(eps, delta).group(k)
        assert g.delta(np.inf) == pytest.approx(float(want), rel=1e-12)


def test_groups_that_exhaust_privacy_are_the_zero_curve():
    """δ Σ e^{iε} ≥ 1: the group curve is identically 0 (φ^{∘k}(0) = 1)."""
    g = fdp.EpsDelta(0.5, 1e-5).group(100)
    assert float(_ref_group_beta(0.5, 1e-5, 100, 0.0)) == 0.0
    assert np.all(g(np.linspace(0, 1, 11)) == 0.0)
    assert g.epsilon(0.5) == np.inf


@pytest.mark.parametrize("eps, delta, k", [
    (0.5, 0.0, 2), (0.5, 0.0, 5), (0.3, 1e-3, 4), (1.0, 1e-5, 7), (0.7, 0.05, 3),
    (2.0, 0.1, 6), (0.05, 1e-6, 30), (1.0, 0.4, 4), (3.0, 0.3, 5)])
def test_eps_delta_group_matches_the_definition(eps, delta, k):
    g = fdp.EpsDelta(eps, delta).group(k)
    a = np.array([0, 1e-12, 1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 1])
    ref = np.array([float(_ref_group_beta(eps, delta, k, x)) for x in a])
    np.testing.assert_allclose(g(a), ref, rtol=0, atol=2e-15)


@pytest.mark.parametrize("eps, delta, k", [(0.5, 0.0, 3), (1.0, 1e-5, 4), (0.3, 1e-3, 5)])
def test_eps_delta_group_profile_matches_the_definition(eps, delta, k):
    g = fdp.EpsDelta(eps, delta).group(k)
    for e2 in [-1.0, 0.0, 0.4, eps * k / 2, eps * k - 0.05]:
        ref = float(_ref_group_delta(eps, delta, k, e2, dps=30))
        assert g.delta(e2) == pytest.approx(ref, rel=1e-9, abs=1e-300)


def test_eps_delta_group_beyond_double_range_against_mpmath():
    """k = 3 at ε = 400: losses ±1200, ±400 (e^{1200} overflows a double)."""
    eps, k = 400.0, 3
    g = fdp.EpsDelta(eps).group(k)
    with mp.workdps(50):
        r = mp.e ** mp.mpf(eps)
        # atoms (top, next): Q-masses e^ε/(1+e^ε) and (1 − e^{−ε})/(1 + e^ε)·…: from the
        # definition: δ(ε') = sup_α(1 − f(α) − e^{ε'}α) at the first kink α_1 = r^{1−k}/(1+r)
        a1 = r ** (1 - k) / (1 + r)
        for e2 in [1000.0, 1199.0, 500.0]:
            y = mp.e ** mp.mpf(e2)
            want = max(1 - _ref_group_beta(eps, 0, k, a1) - y * a1, 0)
            assert g.delta(e2) == pytest.approx(float(want), rel=1e-12)
    # ε(δ) on the top atom: 3ε + log(1 − δ(1 + e^{−ε}))
    assert g.epsilon(1e-200) == pytest.approx(1200.0 - 1e-200, rel=1e-15)


def test_randomized_response_group_is_eps_delta_group():
    assert fdp.RandomizedResponse(0.7).group(5) == fdp.EpsDelta(0.7).group(5)
    r3 = fdp.RandomizedResponse(0.7, 3).group(2)
    assert isinstance(r3, Group) and not r3.is_exact


def test_group_of_group_multiplies_sizes():
    assert fdp.EpsDelta(0.2, 1e-9).group(3).group(4) == fdp.EpsDelta(0.2, 1e-9).group(12)
    assert fdp.Laplace(0.5).group(3).group(2) == fdp.Laplace(3.0)


def test_eps_delta_group_edge_parameters():
    assert eps_delta_group(0.0, 0.1, 3) == fdp.EpsDelta(0.0, 0.30000000000000004)
    assert eps_delta_group(0.0, 0.4, 3) == fdp.EpsDelta(0.0, 1.0)
    assert eps_delta_group(1.0, 1.0, 3) == fdp.EpsDelta(0.0, 1.0)
    with pytest.raises(ValueError, match="k"):
        fdp.EpsDelta(1.0).group(0)
    with pytest.raises(ValueError, match="eps"):
        EpsDeltaGroup(0.0, 0.1, 2)


# ----------------------------------------------------------------------
# Location families: the closed forms agree with the generic map
# ----------------------------------------------------------------------
@pytest.mark.parametrize("mu, k", [(0.7, 3), (0.2, 5), (1.5, 2)])
def test_laplace_closed_form_is_the_iterated_map(mu, k):
    """(1 − L_μ)^{∘k} iterated pointwise equals 1 − L_{kμ} (the MLR proof in the docstring)."""
    a = np.linspace(0.0, 1.0, 1001)
    x = a.copy()
    lap = fdp.Laplace(mu)
    for _ in range(k):
        x = 1.0 - lap(x)
    np.testing.assert_allclose(1.0 - x, fdp.Laplace(k * mu)(a), atol=1e-14)
    lo, hi = Group(lap, k).bounds(a)
    # the closed form's bracket (a few ulps wide) holds the truth, which lies in both
    c_lo, c_hi = fdp.Laplace(k * mu).bounds(a)
    assert np.all(lo <= c_hi + 1e-15)
    assert np.all(hi >= c_lo - 1e-15)


# ----------------------------------------------------------------------
# Property tests
# ----------------------------------------------------------------------
ALPHAS = np.concatenate([[0.0, 1e-300, 1e-200, 1e-100, 1e-30, 1e-12], np.linspace(0, 1, 41)[1:]])


@settings(max_examples=60)
@given(eps=st.floats(1e-3, 700.0),
       delta=st.one_of(st.just(0.0), st.floats(-300.0, -1.0).map(lambda t: 10.0 ** t)),
       k=st.integers(1, 10 ** 4))
@pytest.mark.slow
def test_eps_delta_group_is_a_tradeoff_function_at_any_size(eps, delta, k):
    g = fdp.EpsDelta(eps, delta).group(k)
    b = g(ALPHAS[np.argsort(ALPHAS)])
    assert np.all(np.isfinite(b)) and np.all(b >= 0.0)
    assert np.all(b <= 1.0 - np.sort(ALPHAS) + 1e-15)
    assert np.all(np.diff(b) <= 1e-15)
    e2 = np.array([-np.inf, -5.0, 0.0, 1.0, 50.0, 700.0, 1e4, 1e7, np.inf])
    d = g.delta(e2)
    assert np.all(np.isfinite(d)) and np.all((d >= 0.0) & (d <= 1.0))
    assert np.all(np.diff(d) <= 1e-15)
    # ε(δ') is the smallest ε with δ(ε) ≤ δ' (exact up to the next float above)
    for target in [1e-300, 1e-10, 1e-3]:
        e = g.epsilon(target)
        if np.isfinite(e):
            assert g.delta(e) <= target
            if e > 0:
                below = e * (1 - 1e-12) - 1e-12
                assert g.delta(max(below, 0.0)) > target * (1 - 1e-12)
        else:
            assert g.delta(np.inf) > target
    # the group of size k + 1 is never more private
    g1 = fdp.EpsDelta(eps, delta).group(k + 1)
    assert np.all(g1(ALPHAS) <= g(ALPHAS) + 1e-15)


@settings(max_examples=25)
@given(eps=st.floats(1e-2, 5.0),
       delta=st.one_of(st.just(0.0), st.floats(-12.0, -1.0).map(lambda t: 10.0 ** t)),
       k=st.integers(1, 6), a=st.floats(0.0, 1.0))
def test_eps_delta_group_against_the_definition(eps, delta, k, a):
    g = fdp.EpsDelta(eps, delta).group(k)
    assert g(a) == pytest.approx(float(_ref_group_beta(eps, delta, k, a)), abs=2e-15)


@settings(max_examples=8)
@given(mu=st.floats(0.01, 3.0), k=st.integers(1, 40))
@pytest.mark.slow
def test_generic_group_brackets_the_gaussian_truth(mu, k):
    """Group(G_μ, k) (the generic route) brackets G_{kμ}: β, δ(ε) and ε(δ)."""
    G, truth = Group(fdp.Gaussian(mu), k), fdp.Gaussian(k * mu)
    assert not G.is_exact
    a = np.concatenate([[0.0, 1e-300, 1e-50, 1e-10], np.linspace(0, 1, 21)[1:]])
    lo, hi = G.bounds(a)
    t = ndtr(-ndtri(a) - k * mu)            # Φ(Φ⁻¹(1 − α) − kμ), independently
    assert np.all(lo <= t + 1e-15) and np.all(hi >= t - 1e-15)
    e = np.array([-2.0, 0.0, 0.5, 2.0, 10.0, 40.0])
    td = truth._delta(e)
    assert np.all(G._delta(e) >= td * (1 - 1e-12)) and np.all(G._delta_lower(e) <= td * (1 + 1e-12))
    for d in [1e-3, 1e-8]:
        el, eh = G.epsilon_bounds(d)
        te = truth.epsilon(d)
        assert el <= te * (1 + 1e-9) + 1e-12 and eh >= te * (1 - 1e-9) - 1e-12


def test_generic_group_large_k_stays_on_the_safe_side():
    """G_1 group 10⁴ (truth G_{10⁴}: β ≈ 0 for α ≥ 1e-300): no unsafe finite ε."""
    G = Group(fdp.Gaussian(1.0), 10 ** 4)
    el, eh = G.epsilon_bounds(1e-5)
    assert eh == np.inf and el <= 5e7
    assert G.delta(1e6) > 0.99


@pytest.mark.slow
def test_generic_group_ten_thousand_small_steps():
    """G_{1e-4} group 10⁴ = G_1 (by doubling): a bracket of width < 2e-5."""
    G = Group(fdp.Gaussian(1e-4), 10 ** 4)
    a = np.linspace(0, 1, 101)
    lo, hi = G.bounds(a)
    t = fdp.Gaussian(1.0)(a)
    assert np.all(lo <= t + 1e-15) and np.all(hi >= t - 1e-15) and np.max(hi - lo) < 2e-5


def test_generic_group_of_a_pair_matches_the_exact_iteration():
    """A 3-ary randomized response (exact pair): generic bracket ∋ pointwise iteration."""
    f = fdp.RandomizedResponse(0.4, 3)
    a = np.linspace(0, 1, 51)
    # x ↦ 1 − f(x) is increasing: iterating it with f's upper (lower) side gives a lower
    # (upper) bound on the k-fold map, so the truth 1 − x lies between the two
    x_lo, x_hi = a.copy(), a.copy()
    for _ in range(6):
        x_lo, x_hi = 1.0 - f.bounds(x_lo)[1], 1.0 - f(x_hi)
    lo, hi = f.group(6).bounds(a)
    assert np.all(lo <= 1.0 - x_lo + 1e-14) and np.all(hi >= 1.0 - x_hi - 1e-14)


def test_pure_epsilon_of_pure_dp_groups():
    """f_{ε,0} in groups of k: f_k ≥ f_{kε,0} (checked on a grid) with slope −e^{kε} at 0."""
    g = fdp.EpsDelta(0.3).group(5)
    assert g.pure_epsilon() == pytest.approx(1.5, rel=1e-15)
    a = np.linspace(0, 1, 2001)
    assert np.all(g(a) >= fdp.EpsDelta(1.5)(a) - 1e-15)
    assert fdp.EpsDelta(0.3, 1e-9).group(5).pure_epsilon() == np.inf
