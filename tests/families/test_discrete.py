"""DiscreteGaussian / DiscreteLaplace families (issue 14 item 4, issue 17 item 2).

Independent truths: mpmath sums of e^{−x²/2σ²} at 40 digits, direct numpy
enumeration of the pmfs (a different code path from the Euler–Maclaurin tails),
the closed form P(X = 0) = 1/Z for the advantage at Δ = 1, and the continuous
limits G_{Δ/σ} and L_{Δ/t}.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fdp
from fdp.engine import compose_numeric
from fdp.families.discrete import log_tail
from fdp.law import bin_atoms as _bin_atoms
from fdp.law import interval_masses_of as interval_masses
from fdp.law import loss_range_of as loss_range
from fdp.mechanisms import DiscreteGaussianMechanism, DiscreteLaplaceMechanism

EDGE_ALPHA = np.array([0.0, 1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.3, 0.5, 0.7, 0.99,
                       1 - 1e-10, 1 - 1e-16, 1.0])


def _mp_log_tail(k: int, s: float) -> mp.mpf:
    """log P(X ≥ k), X ~ N_Z(0, σ²), by direct summation (k ≥ 0) at 40 digits."""
    mp.mp.dps = 40
    S = mp.mpf(s)
    n = int(45 * s) + 10
    T = mp.fsum(mp.exp(-mp.mpf(x) ** 2 / (2 * S * S)) for x in range(k, k + n))
    Z = mp.sqrt(2 * mp.pi) * S * mp.jtheta(3, 0, mp.exp(-2 * mp.pi ** 2 * S ** 2))
    return mp.log(T / Z)


@pytest.mark.parametrize("s", [65.0, 150.0, 400.0])
@pytest.mark.slow
def test_log_tail_brackets_mpmath(s):
    ks = [1, 2, 10, int(s), int(3 * s), int(10 * s), int(30 * s)]
    s_lo, s_hi, c_lo, c_hi = log_tail(np.array(ks, dtype=float), s)
    for i, k in enumerate(ks):
        t = _mp_log_tail(k, s)
        assert s_lo[i] <= t <= s_hi[i]
        # the complement side by symmetry: C(1 − k) = S(k)
    c = log_tail(np.array([1.0 - k for k in ks]), s)
    np.testing.assert_array_equal(c[2], s_lo)
    np.testing.assert_array_equal(c[3], s_hi)


def _enumerated(s, d):
    """(x, P, Q) by direct enumeration on |x| ≤ 45σ + Δ, normalised by the pmf's own sum."""
    m = int(45 * s) + d + 2
    x = np.arange(-m, m + 1, dtype=float)
    w = np.exp(-x ** 2 / (2 * s * s))
    wq = np.exp(-(x - d) ** 2 / (2 * s * s))
    return x, w / w.sum(), wq / wq.sum()


@pytest.mark.parametrize("s,d", [(65.0, 1), (90.0, 3), (200.0, 1), (70.0, 400)])
def test_discrete_gaussian_bracket_contains_enumeration(s, d):
    f = fdp.DiscreteGaussian(s, d)
    assert not f.enumerated and not f.is_exact
    x, p, q = _enumerated(s, d)
    truth = fdp.FinitePair.from_atoms(f.loss(x), p, q)
    a = np.concatenate([EDGE_ALPHA, np.linspace(0, 1, 1001)])
    lo, hi = f.bounds(a)
    t_lo, t_hi = truth.bounds(a)          # the enumerated pair's own (few-ulp) bracket
    assert np.all(lo <= t_hi + 1e-15) and np.all(t_lo <= hi + 1e-15)
    assert np.max(hi - lo) < 1e-10
    # (the enumerated pair's own read-back leaves ~1e-235 of round-off at ε ≥ 700,
    # where the true δ is below e^{−7000}; those ε are checked in the property test)
    eps = np.concatenate([np.linspace(-3, 3, 61), [0.5 * d / s, 20.0]])
    dl, dh = f._delta_lower(eps), f.delta(eps)
    dt_lo, dt_hi = truth.delta_bounds(eps)
    assert np.all(dl <= dt_hi * (1 + 1e-12) + 1e-300)
    assert np.all(dt_lo <= dh * (1 + 1e-12) + 1e-300)


@pytest.mark.parametrize("eps", [0.0, 0.01, 0.05])
def test_discrete_gaussian_delta_equals_cks_theorem_7_mpmath(eps):
    # CKS Thm 7 summed at 40 digits for σ = 80, Δ = 2
    s, d = 80.0, 2
    mp.mp.dps = 40
    S = mp.mpf(s)
    w = {y: mp.exp(-mp.mpf(y) ** 2 / (2 * S * S)) for y in range(-4000, 4001)}
    z = mp.fsum(w.values())
    a = mp.mpf(eps) * S * S / d
    p1 = mp.fsum(v for y, v in w.items() if y > a - mp.mpf(d) / 2) / z
    p2 = mp.fsum(v for y, v in w.items() if y > a + mp.mpf(d) / 2) / z
    want = p1 - mp.exp(eps) * p2
    f = fdp.DiscreteGaussian(s, d)
    lo, hi = f._delta_lower(np.array([eps]))[0], f.delta(eps)
    assert lo <= want <= hi
    assert hi - lo < 1e-12


@pytest.mark.parametrize("sigma", [1e5, 1e6, 1e9, 1e12])
def test_large_sigma_never_claims_perfect_privacy(sigma):
    # Issue 14 item 4: σ = 1e5 gave one atom and advantage 0. For Δ = 1 the
    # advantage is δ(0) = P(X = 0) = 1/Z, Z = σ√(2π)(1 + 2Σ e^{−2π²σ²n²}) exactly.
    m = DiscreteGaussianMechanism(1, sigma)
    f = m.tradeoff
    truth = 1.0 / (sigma * math.sqrt(2 * math.pi))
    adv = f.advantage()
    lo = f._delta_lower(np.array([0.0]))[0]
    assert lo <= truth * (1 + 1e-15) and truth <= adv * (1 + 1e-15)
    assert adv > 0.0
    if sigma <= 1e9:
        assert adv == pytest.approx(truth, rel=1e-6)
    # never more private than perfect privacy, never below the continuous curve by much
    a = np.linspace(0, 1, 201)
    blo, bhi = f.bounds(a)
    assert np.all(bhi <= 1 - a) and np.all(blo <= bhi)


def test_sigma_1e5_advantage_reference():
    f = fdp.mechanisms.DiscreteGaussianMechanism(1, 1e5).tradeoff
    assert f.advantage() == pytest.approx(3.989422804e-6, rel=1e-8)


@pytest.mark.parametrize("s,d", [(1e3, 1), (1e4, 5), (3e4, 1000)])
def test_discrete_gaussian_tends_to_gdp(s, d):
    # CKS §2.3: N_Z(0, σ²) → N(0, σ²) as σ → ∞; the curves differ by O(σ^{-2})
    f = fdp.DiscreteGaussian(s, d)
    g = fdp.Gaussian(d / s)
    a = np.concatenate([EDGE_ALPHA, np.linspace(0, 1, 501)])
    lo, hi = f.bounds(a)
    assert np.max(np.abs(lo - g(a))) < 50.0 / s ** 2 + 1e-12
    assert f.epsilon(1e-6) == pytest.approx(g.epsilon(1e-6), rel=1e-4, abs=1e-6)


def test_enumerated_and_bracketed_agree_across_the_switch():
    a = np.linspace(0, 1, 401)
    small = fdp.DiscreteGaussian(64.0, 2)
    big = fdp.DiscreteGaussian(64.0 * (1 + 1e-12), 2)
    assert small.is_exact and not big.is_exact
    lo, hi = big.bounds(a)
    assert np.max(np.abs(small(a) - lo)) < 1e-10


@pytest.mark.parametrize("s,d", [(0.3, 1), (1.5, 2), (10.0, 7)])
def test_small_sigma_exact_pair_against_mpmath(s, d):
    mp.mp.dps = 40
    S = mp.mpf(s)
    ys = range(-int(60 * s) - 60, int(60 * s) + 60 + d)
    w = {y: mp.exp(-mp.mpf(y) ** 2 / (2 * S * S)) for y in ys}
    z = mp.fsum(w.values())
    f = fdp.DiscreteGaussian(s, d)
    for eps in (0.0, 0.3, 1.0, 3.0):
        thr = mp.mpf(eps) * S * S / d
        want = (mp.fsum(v for y, v in w.items() if y > thr - mp.mpf(d) / 2)
                - mp.exp(eps) * mp.fsum(v for y, v in w.items() if y > thr + mp.mpf(d) / 2)) / z
        assert float(f.delta(eps)) == pytest.approx(float(want), rel=1e-9, abs=1e-15)


def test_interval_masses_are_lower_bounds_with_deficits_at_infinity():
    for s, d in [(65.0, 1), (1000.0, 7), (5000.0, 1)]:
        f = fdp.DiscreteGaussian(s, d)
        edges = np.linspace(-3, 3, 2001) * d / s
        kappa, pi, q_inf, p_neginf = interval_masses(f, edges)
        x, p, q = _enumerated(s, d)
        ke, pe = _bin_atoms(edges, f.loss(x), p, q)
        assert np.all(kappa <= ke * (1 + 1e-13) + 1e-300)
        assert np.all(pi <= pe * (1 + 1e-13) + 1e-300)
        assert 0 < q_inf < 1e-10 and 0 < p_neginf < 1e-10
        assert math.fsum(kappa) + q_inf >= 1.0 and math.fsum(pi) + p_neginf >= 1.0
        lo, hi = loss_range(f)
        assert lo < 0 < hi


def test_composition_bracket_contains_exact_convolution():
    # DG(σ)⊗DG(σ): the loss depends on x1 + x2 only, so the exact pair is the
    # convolution of the pmfs (computed here directly)
    s, d = 100.0, 1
    x, p, q = _enumerated(s, d)
    p2, q2 = np.convolve(p, p), np.convolve(q, q)
    x2 = np.arange(p2.size, dtype=float) + 2 * x[0]
    L2 = (2.0 * x2 * d - 2.0 * d * d) / (2 * s * s)
    truth = fdp.FinitePair.from_atoms(L2, p2, q2)
    h = compose_numeric([(fdp.DiscreteGaussian(s, d), 2)], tol=1e-4)
    eps = np.array([0.0, 0.005, 0.01, 0.03, 0.05])
    assert np.all(h.delta(eps) >= truth.delta(eps) - 1e-12)
    assert np.all(h._delta_lower(eps) <= truth.delta(eps) + 1e-12)
    lo, hi = h.epsilon_bounds(1e-5)
    assert lo <= truth.epsilon(1e-5) + 1e-9 and truth.epsilon(1e-5) <= hi + 1e-9


# ----------------------------------------------------------------------
# Discrete Laplace
# ----------------------------------------------------------------------
@pytest.mark.parametrize("t,d", [(0.5, 1), (1.25, 3), (7.0, 10)])
def test_discrete_laplace_against_mpmath_pmfs(t, d):
    mp.mp.dps = 40
    r = mp.exp(-1 / mp.mpf(t))
    zs = range(-int(200 * t) - 50, int(200 * t) + 50 + d)
    norm = (1 - r) / (1 + r)
    p = np.array([float(norm * r ** abs(z)) for z in zs])
    q = np.array([float(norm * r ** abs(z - d)) for z in zs])
    truth = fdp.from_pair(p, q)
    f = fdp.DiscreteLaplace(t, d)
    a = np.concatenate([EDGE_ALPHA, np.linspace(0, 1, 1001)])
    np.testing.assert_allclose(f(a), truth(a), atol=1e-13)
    assert f.pure_epsilon() == pytest.approx(d / t, rel=1e-12)
    assert f.is_exact and f.symmetric


def test_discrete_laplace_unit_sensitivity_is_randomized_response():
    a = np.linspace(0, 1, 501)
    np.testing.assert_allclose(fdp.DiscreteLaplace(2.0)(a), fdp.EpsDelta(0.5)(a), atol=1e-14)


def test_discrete_laplace_tends_to_laplace():
    # Δ/t = 1 fixed, t → ∞: DLap → Lap (CKS §2.4); error O(1/t)
    a = np.linspace(0, 1, 501)
    for t in (50.0, 500.0):
        f = fdp.DiscreteLaplace(t, int(t))
        assert np.max(np.abs(f(a) - fdp.Laplace(1.0)(a))) < 2.0 / t


def test_discrete_laplace_extreme_scales():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny = fdp.DiscreteLaplace(1e-300, 2)     # the pair is (almost) disjoint
        # true β(α) ≤ max(0, 1 − e^{2e300} α): zero for every double α > 0
        assert tiny(0.5) == 0.0 and tiny(1e-300) == 0.0 and tiny(0.0) <= 1.0
        huge = fdp.DiscreteLaplace(1e300, 2)      # (almost) perfect privacy
        assert huge(0.3) == pytest.approx(0.7)
    assert DiscreteLaplaceMechanism(2, 3).tradeoff == fdp.DiscreteLaplace(3.0, 2)


@pytest.mark.parametrize("bad,exc", [
    (dict(sigma=0.0), ValueError), (dict(sigma=-1.0), ValueError),
    (dict(sigma=float("inf")), ValueError), (dict(sigma=1e14), ValueError),
    (dict(sigma=1.0, sensitivity=0), ValueError), (dict(sigma=1.0, sensitivity=1.5), ValueError),
    (dict(sigma="1"), TypeError), (dict(sigma=1.0, sensitivity=True), TypeError),
])
def test_discrete_gaussian_bad_input(bad, exc):
    with pytest.raises(exc, match=r"sigma|sensitivity"):
        fdp.DiscreteGaussian(**bad)


def test_discrete_laplace_bad_input():
    with pytest.raises(ValueError, match="scale"):
        fdp.DiscreteLaplace(0.0)
    with pytest.raises(ValueError, match="sensitivity"):
        fdp.DiscreteLaplace(1.0, 2 ** 21)


@given(st.floats(65.0, 1e13), st.integers(1, 10 ** 6),
       st.sampled_from(list(EDGE_ALPHA)), st.floats(-50.0, 800.0))
def test_discrete_gaussian_bracket_properties(s, d, a, eps):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = fdp.DiscreteGaussian(s, d)
        lo, hi = f.bounds(a)
        assert 0.0 <= lo <= hi <= 1.0 - a or (a == 0.0 and lo == hi == 1.0)
        dl, dh = f._delta_lower(np.array([eps]))[0], f.delta(eps)
        assert 0.0 <= dl <= dh <= 1.0
        # never more private than the trivially safe bound: δ(ε) ≥ 0 and
        # G_{Δ/σ} within the discretisation error O(σ^{-2}) + O(Δ/σ³)
        if s > 1e3 and d / s < 1.0:
            g = fdp.Gaussian(d / s)(a)
            assert lo <= g + 100.0 / s ** 2 + 1e-12
