"""Summaries at their edges (issue 31): pure ε of subsampled mechanisms, ε(δ) monotone in δ
and within the pure ε, exact pure ε of ε-BR compositions, dominance at a shared kink,
piecewise-linear ε(0), and a certified "no finite μ" read from the law's support.

Every claim is checked against an independent computation: closed forms in mpmath, or
exact enumeration of a composition of finite pairs (numpy outer products of the pmfs).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.engine import compose_numeric
from fdp.families.mixture import RevealedMixture


# ----------------------------------------------------------------------
# Independent references
# ----------------------------------------------------------------------
def mp_subsampled_pure_eps(eps: float, p: float) -> mp.mpf:
    """ε* of an ε-DP pair (symmetric loss support [−ε, ε]) subsampled at rate p.

    The add direction's loss log(1 − p + p e^L) ranges over [log(1 − p + p e^{−ε}),
    log(1 + p(e^ε − 1))]; the modulus is largest at the top. C_p and the Poisson
    envelope have the same ε* (f_{ε,0} is symmetric and convex)."""
    with mp.workdps(60):
        eps, p = mp.mpf(eps), mp.mpf(p)
        top = mp.log(1 + p * mp.expm1(eps))
        bottom = -mp.log(1 - p + p * mp.e ** -eps)
        return +max(top, bottom)


def enumerate_pairs(pairs):
    """Product pmfs (P, Q) of a list of finite pairs (p_i, q_i), by outer products."""
    P, Q = np.ones(1), np.ones(1)
    for p, q in pairs:
        P = np.outer(P, p).ravel()
        Q = np.outer(Q, q).ravel()
    return P, Q


def exact_delta(P, Q, eps: float) -> float:
    """δ(ε) = Σ (q − e^ε p)₊ of the enumerated pair, in mpmath (no cancellation)."""
    y = mp.e ** mp.mpf(eps)
    return float(mp.fsum(max(mp.mpf(q) - y * mp.mpf(p), 0) for p, q in zip(P, Q)))


def exact_pure_eps(P, Q) -> float:
    """max |log(q/p)| over atoms with mass (both positive here)."""
    live = (P > 0) & (Q > 0)
    return float(max(abs(mp.log(mp.mpf(q)) - mp.log(mp.mpf(p))) for p, q in zip(P[live], Q[live])))


# ----------------------------------------------------------------------
# 1. Pure ε of subsampled mechanisms
# ----------------------------------------------------------------------
def test_poisson_subsampled_laplace_pure_epsilon_reproduction():
    f = fdp.Laplace(1.0).subsample(0.2)
    truth = mp.log(1 + mp.mpf("0.2") * (mp.e - 1))          # 0.29539452912…
    lo, hi = f.pure_epsilon_bounds()
    assert lo <= truth <= hi
    assert hi - lo <= 1e-12
    assert f.pure_epsilon() == hi < 0.3
    # consistent with the profile: δ(0.3) = 0 because 0.3 > ε*
    assert f.delta_bounds(0.3)[1] == 0.0


def test_without_replacement_laplace_pure_epsilon_reproduction():
    f = fdp.Laplace(2.0).subsample(0.1, sampling="without_replacement")
    truth = mp_subsampled_pure_eps(2.0, 0.1)
    assert abs(truth - mp.mpf("0.494029")) < 1e-6            # the number
    lo, hi = f.pure_epsilon_bounds()
    assert lo <= truth <= hi and hi - lo <= 3e-12


def test_one_direction_pure_epsilon_and_symmetry():
    for direction in ("add", "remove"):
        f = fdp.Laplace(1.5).subsample(0.3, direction=direction)
        lo, hi = f.pure_epsilon_bounds()
        truth = mp_subsampled_pure_eps(1.5, 0.3)
        assert lo <= truth <= hi and hi - lo <= 3e-12


@settings(max_examples=30)
@given(st.floats(0.01, 6.0), st.floats(1e-4, 1.0),
       st.sampled_from(["poisson", "without_replacement"]))
def test_subsampled_pure_epsilon_contains_the_truth(mu, p, sampling):
    lo, hi = fdp.Laplace(mu).subsample(p, sampling=sampling).pure_epsilon_bounds()
    truth = mp_subsampled_pure_eps(mu, p)
    assert lo <= truth <= hi
    assert hi - lo <= 3e-12 * max(1.0, float(truth))


def test_subsampled_finite_pair_pure_epsilon_against_enumeration():
    # a randomized response: exact vertices, and the subsampled pair is finite too
    rr = fdp.RandomizedResponse(1.3)
    p = 0.25
    P0, Q0 = np.array([1.0, math.e ** 1.3]) / (1 + math.e ** 1.3), None
    Q0 = P0[::-1]
    Pm, Qm = P0, (1 - p) * P0 + p * Q0                      # the add direction's pair
    truth = exact_pure_eps(Pm, Qm)
    lo, hi = rr.subsample(p).pure_epsilon_bounds()
    assert lo <= truth * (1 + 1e-12) and truth <= hi * (1 + 1e-12)
    assert hi - lo <= 1e-9        # the generic lower end carries a rounding margin


# ----------------------------------------------------------------------
# 2. ε(δ): monotone in δ on both sides, within the pure ε
# ----------------------------------------------------------------------
def test_laplace_composition_small_delta_reproduction():
    f = fdp.compose([fdp.Laplace(1.0)] * 3 + [fdp.Laplace(0.5)] * 2)
    pure_lo, pure_hi = f.pure_epsilon_bounds()
    assert pure_lo <= 4.0 <= pure_hi and pure_hi - pure_lo <= 1e-12   # Σ μ_i exactly
    lo9, hi9 = f.epsilon_bounds(1e-9)
    lo14, hi14 = f.epsilon_bounds(1e-14)
    assert hi9 <= pure_hi and hi14 <= pure_hi
    assert lo14 >= lo9 > 3.9                                   # no collapse to 0
    assert hi14 >= hi9 or hi14 == pure_hi
    # the truth: ε(δ) < 4 for δ > 0 and the top atom L = 4 has Q-mass 2^−5, so
    # δ(ε) ≥ 2^−5 (1 − e^{ε−4}) > δ for ε < 4 + log(1 − 32 δ): ε(δ) ≥ that
    for d, lo, hi in ((1e-9, lo9, hi9), (1e-14, lo14, hi14)):
        floor = 4.0 + math.log1p(-32.0 * d)
        assert lo <= 4.0 and hi >= floor


def test_epsilon_array_is_monotone_and_the_delta_beyond_pure_is_zero():
    f = fdp.compose([fdp.Laplace(0.7)] * 4)
    d = np.logspace(-16, -2, 15)
    lo, hi = f.epsilon_bounds(d)
    assert np.all(np.diff(lo) <= 0.0) and np.all(np.diff(hi) <= 0.0)
    pure_hi = f.pure_epsilon_bounds()[1]
    assert np.all(hi <= pure_hi)
    assert f.delta_bounds(pure_hi)[1] == 0.0


@st.composite
def finite_pairs(draw):
    n = draw(st.integers(2, 4))
    w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n)))
    v = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n)))
    return w / w.sum(), v / v.sum()


@settings(max_examples=12)
@given(st.lists(finite_pairs(), min_size=1, max_size=3), st.integers(1, 3),
       st.floats(-13.0, -1.5), st.floats(0.5, 4.0))
@pytest.mark.slow
def test_finite_pair_compositions_epsilon_monotone_and_contains_truth(pairs, reps, log_d, gap):
    """Engine read-outs of ⊗ pairs (forced through the engine) against enumeration."""
    factors = [(fdp.from_pair(p, q), reps) for p, q in pairs]
    num = compose_numeric(factors)
    P, Q = enumerate_pairs([pq for pq in pairs for _ in range(reps)])
    d_small, d_large = 10.0 ** (log_d - gap), 10.0 ** log_d
    lo_s, hi_s = num.epsilon_bounds(d_small)
    lo_l, hi_l = num.epsilon_bounds(d_large)
    assert lo_s >= lo_l and hi_s >= hi_l                       # monotone in δ
    pure = exact_pure_eps(P, Q)
    p_lo, p_hi = num.pure_epsilon_bounds()
    assert p_lo <= pure * (1 + 1e-12) + 1e-12 and pure <= p_hi * (1 + 1e-12) + 1e-12
    assert hi_s <= p_hi
    for d, lo, hi in ((d_small, lo_s, hi_s), (d_large, lo_l, hi_l)):
        # hi is a valid ε at d; lo is not above the smallest valid ε
        assert exact_delta(P, Q, hi) <= d * (1 + 1e-9)
        if lo > 0.0:
            assert exact_delta(P, Q, lo) >= d * (1 - 1e-9)


@settings(max_examples=10)
@given(st.lists(st.floats(0.05, 2.0), min_size=1, max_size=4), st.floats(-14.0, -2.0))
def test_laplace_compositions_epsilon_within_pure_and_monotone(mus, log_d):
    f = compose_numeric([(fdp.Laplace(m), 1) for m in mus])
    truth = math.fsum(mus)          # ε* = Σ μ_i (|L_i| ≤ μ_i, atoms at ±μ_i)
    p_lo, p_hi = f.pure_epsilon_bounds()
    assert p_lo <= truth * (1 + 1e-15) and truth <= p_hi * (1 + 1e-15)
    lo1, hi1 = f.epsilon_bounds(10.0 ** log_d)
    lo2, hi2 = f.epsilon_bounds(10.0 ** (log_d - 1.0))
    assert lo2 >= lo1 and hi2 >= hi1 and hi2 <= p_hi
    # the top atom L = Σ μ_i has Q-mass 2^−k: ε(δ) ≥ Σμ + log(1 − 2^k δ) when 2^k δ < 1
    for d, hi in ((10.0 ** log_d, hi1), (10.0 ** (log_d - 1.0), hi2)):
        k = len(mus)
        if 2.0 ** k * d < 1.0:
            assert hi >= truth + math.log1p(-(2.0 ** k) * d) - 1e-12


# ----------------------------------------------------------------------
# 3. ε-bounded range: exact pure ε of a composition, and δ = 0 beyond it
# ----------------------------------------------------------------------
def test_bounded_range_composition_pure_epsilon_is_exact():
    f = fdp.BoundedRange(1.0) @ fdp.BoundedRange(2.0)
    lo, hi = f.pure_epsilon_bounds()
    assert lo <= 3.0 <= hi and hi - lo <= 1e-12               # |L_1 + L_2| ≤ 1 + 2
    assert f.delta_bounds(3.0)[1] == 0.0
    # below 3 the truth is positive: δ(2.9) ≥ Q(L_1 > 0.95, L_2 > 1.95)(1 − e^{−0.0}) > 0,
    # and the certified lower side sees it
    assert f.delta_bounds(2.9)[0] > 0.0


def test_bounded_range_pure_epsilon_closed_form():
    for eps in (0.0, 0.3, 5.0, 40.0):
        assert tuple(fdp.BoundedRange(eps).pure_epsilon_bounds()) == (eps, eps)


# ----------------------------------------------------------------------
# 4. Dominance at a shared kink
# ----------------------------------------------------------------------
def test_bounded_range_dominates_pure_dp_with_the_same_epsilon():
    assert fdp.BoundedRange(5.0).dominates(fdp.EpsDelta(5.0))
    # independent check: BR_5(α) = (1 − α)/(1 + (e^5 − 1)α) ≥ f_{5,0}(α), in mpmath
    e5 = mp.e ** 5
    for a in [mp.mpf(x) for x in ("1e-12", "0.001", "0.0067", "0.1", "0.5", "0.999999")]:
        br = (1 - a) / (1 + (e5 - 1) * a)
        assert br >= max(0, 1 - e5 * a, (1 - a) / e5)
    # and not a weaker claim: BR_5 has slope −e^5 at 0, steeper than f_{4.9,0}
    assert not fdp.BoundedRange(5.0).dominates(fdp.EpsDelta(4.9))


# ----------------------------------------------------------------------
# 5. ε(0) of a piecewise-linear curve
# ----------------------------------------------------------------------
def test_piecewise_linear_epsilon_at_zero_delta():
    g = np.linspace(0.0, 1.0, 101)
    f = fdp.from_points(g, fdp.Gaussian(0.5)(g))
    eps, d = fdp.tightest_eps_delta(f, delta=0)
    assert d == 0
    # truth: δ(ε) = 0 ⇔ 1 − β_i ≤ e^ε α_i at every vertex; in mpmath from the vertices
    truth = max(mp.log(1 - mp.mpf(b)) - mp.log(mp.mpf(a))
                for a, b in zip(f.alphas, f.betas) if a > 0)
    assert truth <= eps <= truth * (1 + 1e-14)
    assert f.epsilon(1e-300) <= eps
    assert f.delta(eps) == 0.0 and f.delta(float(truth) * (1 - 1e-6)) > 0.0


# ----------------------------------------------------------------------
# 6. No finite μ, read from the support
# ----------------------------------------------------------------------
def test_singular_mass_gives_infinite_mu_and_epsilon():
    # a revealed mixture with a fully non-private member of weight w: Q(L = +∞) = w > 0,
    # so f(0) = 1 − w < 1 while G_μ(0) = f_{ε,0}(0) = 1
    w = 1e-80
    f = RevealedMixture((1.0 - w, w), (fdp.Gaussian(1.0), fdp.EpsDelta(0.0, 1.0)))
    g = f.subsample(0.05, sampling="without_replacement")
    for h in (f, g, compose_numeric([(g, 3)])):
        assert tuple(h.gdp_mu_bounds()) == (math.inf, math.inf)
        assert tuple(h.pure_epsilon_bounds()) == (math.inf, math.inf)


@pytest.mark.slow
def test_with_replacement_dpsgd_has_no_finite_mu():
    f = fdp.dpsgd(1.0, 0.05, 20, sampling="with_replacement", neighbouring="replace_one",
                  dataset_size=1000, tol=1e-3)
    assert f.gdp_mu() == math.inf
