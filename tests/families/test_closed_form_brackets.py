"""Closed forms are brackets: lo ≤ the real value ≤ hi, and the bracket is a few ulps wide.

Every closed-form family widens its read-outs by the proven rounding error of its
formula (``fdp.families._rounding``, constants in ``fdp._constants``). Over random
(μ, ε, α) across the whole range (μ ∈ [1e-6, 40] log-uniform, ε ∈ [−700, 700], α ∈
[1e-300, 1]) the bracket of β(α) and of δ(ε) must contain the value computed in mpmath
at 50 digits (the independent truth), and be narrow where the value is a normal double.

The width allowed for the Gaussian is 1e-11 relative: the bound charges the documented
peak errors of scipy's ndtr/ndtri/erfcx with margins, times condition numbers that reach
~y² ≈ 1.4e3 where 1 − xM(y) cancels in the small-μ integral (measured: β at most 1.8e-12,
δ at most 9.6e-12 wide over these draws). The elementary families are held to 64 ulps.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

import fdp
from tests._mp_references import laplace_beta

NORMAL = 2.2250738585072014e-308
mus = st.floats(-6.0, math.log10(40.0)).map(lambda t: float(10.0 ** t))
epss = st.one_of(st.floats(-700.0, 700.0), st.floats(-5.0, 5.0),
                 st.floats(-6.0, 2.8).map(lambda t: float(10.0 ** t)))
alphas = st.one_of(st.floats(-300.0, 0.0).map(lambda t: float(10.0 ** t)),
                   st.floats(0.0, 1.0))


def _quantile(a: float) -> mp.mpf:
    """Φ⁻¹(a) in mpmath, by Newton from scipy's value (log scale: the tails keep digits)."""
    a_mp = mp.mpf(a)
    if a < 0.5:
        return mp.findroot(lambda x: mp.log(mp.ncdf(x)) - mp.log(a_mp), float(ndtri(a)))
    b = 1 - a_mp                            # exact: a is a double
    return mp.findroot(lambda x: mp.log(mp.ncdf(-x)) - mp.log(b), -float(ndtri(float(b))))


def gaussian_beta(mu: float, a: float) -> mp.mpf:
    if a == 0.0:
        return mp.mpf(1)
    if a == 1.0:
        return mp.mpf(0)
    return mp.ncdf(-_quantile(a) - mp.mpf(mu))


def gaussian_delta(mu: float, e: float) -> mp.mpf:
    """δ(ε) = Q(L > ε) − e^ε P(L > ε) for every real ε (no atoms)."""
    m, x = mp.mpf(mu), mp.mpf(e)
    return mp.ncdf(-x / m + m / 2) - mp.exp(x) * mp.ncdf(-x / m - m / 2)


def _check(lo, hi, truth, width):
    lo, hi = float(lo), float(hi)
    slack = abs(truth) * mp.mpf(10) ** -40          # mpmath's own rounding at 50 digits
    assert lo <= truth + slack and truth - slack <= hi, (lo, float(truth), hi)
    assert not (math.isnan(lo) or math.isnan(hi))
    if truth > NORMAL:
        assert (hi - lo) <= width * float(truth), ((hi - lo) / float(truth), width)


@settings(max_examples=300)
@given(mus, epss, alphas)
def test_gaussian_brackets_contain_mpmath(mu, eps, alpha):
    mp.mp.dps = 50
    g = fdp.Gaussian(mu)
    lo, hi = g.bounds(alpha)
    _check(lo, hi, gaussian_beta(mu, alpha), 1e-11)
    assert g(alpha) == lo                           # f(α) is the safe (lower) side
    lo, hi = g.delta_bounds(eps)
    truth = gaussian_delta(mu, eps)
    _check(lo, hi, truth, 1e-11)
    assert g.delta(eps) == hi                       # δ(ε) is the safe (upper) side
    assert hi > 0.0                                 # never 0: δ_μ(ε) > 0 at finite ε


@settings(max_examples=200)
@given(st.floats(0.0, 700.0), epss, alphas)
def test_laplace_brackets_contain_mpmath(mu, eps, alpha):
    mp.mp.dps = 50
    f = fdp.Laplace(mu)
    lo, hi = f.bounds(alpha)
    _check(lo, hi, laplace_beta(mu, alpha), 64 * 2.0 ** -52)
    m, x = mp.mpf(mu), mp.mpf(eps)
    truth = (mp.mpf(0) if x >= m else -mp.expm1(x) if x < -m else -mp.expm1((x - m) / 2))
    lo, hi = f.delta_bounds(eps)
    _check(lo, hi, truth, 64 * 2.0 ** -52)


@settings(max_examples=200)
@given(st.floats(0.0, 700.0), st.floats(0.0, 1.0), epss, alphas)
def test_eps_delta_brackets_contain_mpmath(e, d, eps, alpha):
    mp.mp.dps = 50
    f = fdp.EpsDelta(e, d)
    em, dm, a = mp.mpf(e), mp.mpf(d), mp.mpf(alpha)
    truth = max(mp.mpf(0), 1 - dm - mp.exp(em) * a, mp.exp(-em) * (1 - dm - a))
    lo, hi = f.bounds(alpha)
    # the lines cancel near their zero: absolute width there, relative elsewhere
    assert float(lo) <= truth <= float(hi)
    assert hi - lo <= 64 * 2.0 ** -52 * max(float(truth), 1e-300) + 1e-14
    x = mp.mpf(eps)
    same = -mp.expm1(x - em) / (1 + mp.exp(-em)) if x < em else mp.mpf(0)
    other = -mp.expm1(x) if x < 0 else mp.mpf(0)
    truth = dm + (1 - dm) * max(same, other, mp.mpf(0))
    lo, hi = f.delta_bounds(eps)
    _check(lo, hi, truth, 64 * 2.0 ** -52)


@settings(max_examples=100)
@given(alphas, epss)
def test_identity_brackets_are_exact_directed_roundings(alpha, eps):
    mp.mp.dps = 50
    f = fdp.Identity()
    lo, hi = f.bounds(alpha)
    truth = 1 - mp.mpf(alpha)
    assert lo <= truth <= hi
    assert hi == lo or hi == np.nextafter(lo, 2.0)   # adjacent doubles at most
    lo, hi = f.delta_bounds(eps)
    _check(lo, hi, max(mp.mpf(0), -mp.expm1(mp.mpf(eps))), 64 * 2.0 ** -52)


def test_issue_31_gaussian_delta_at_one():
    """The reproduction: δ_1(1) = 0.1269367375066439458… lies strictly inside."""
    mp.mp.dps = 50
    lo, hi = fdp.Gaussian(1.0).delta_bounds(1.0)
    truth = gaussian_delta(1.0, 1.0)
    assert lo < truth < hi
    assert hi - lo < 1e-12 * float(truth)


@pytest.mark.parametrize("mu, eps", [(1.0, 40.0), (0.5, 300.0), (1e-6, 1.0), (40.0, 2400.0)])
def test_underflowing_delta_has_a_positive_upper_end(mu, eps):
    """Where δ underflows the upper end is positive (the truth is), the lower end 0."""
    mp.mp.dps = 50
    truth = gaussian_delta(mu, eps)
    assert 0 < truth < NORMAL
    lo, hi = fdp.Gaussian(mu).delta_bounds(eps)
    assert lo <= truth <= hi and hi > 0.0


def test_exact_zeros_and_composition_identities_survive():
    """Exact values stay exact (pure DP keeps ε(0) finite); parameters are unchanged."""
    assert fdp.Gaussian(1.0) ** 4 == fdp.Gaussian(2.0)
    assert fdp.Laplace(1.0).delta_bounds(1.0) == (0.0, 0.0)
    assert fdp.Laplace(1.0).epsilon_bounds(0.0) == (1.0, 1.0)
    assert fdp.EpsDelta(1.0, 1e-5).epsilon_bounds(1e-5) == (1.0, 1.0)
    assert fdp.Identity().delta_bounds(0.0) == (0.0, 0.0)
    assert fdp.Gaussian(0.0).bounds(0.25) == (0.75, 0.75)
    assert fdp.Gaussian(1.0).is_exact and fdp.Laplace(1.0).is_exact


def _mp_pair_beta(p, q, a):
    """T(P, Q)(α) in mpmath: reject atoms in decreasing q/p (Neyman–Pearson)."""
    if a >= 1.0:
        return mp.mpf(0)          # every atom rejected (the masses' sum is 1 in the reals)
    atoms = sorted(zip(p, q), key=lambda t: -(t[1] / t[0]) if t[0] > 0 else -mp.inf)
    left, kept = mp.mpf(a), []
    for pi, qi in atoms:          # β = the Q-mass not rejected (a sum: no cancellation)
        take = pi if pi == 0 else min(left, pi)
        kept.append(qi * (1 - take / pi) if pi > 0 else mp.mpf(0))
        left -= take
    return mp.fsum(kept)


def _mp_pair_delta(p, q, e):
    """δ(ε) = Σ_i (q_i − e^ε p_i)₊."""
    y = mp.exp(mp.mpf(e))
    return sum(max(qi - y * pi, mp.mpf(0)) for pi, qi in zip(p, q))


@settings(max_examples=150)
@given(st.floats(0.0, 700.0), st.integers(2, 50), epss, alphas)
def test_randomized_response_brackets_contain_mpmath(e, k, eps, alpha):
    """k-ary randomized response against its masses e^ε/(e^ε + k − 1), 1/(e^ε + k − 1)."""
    mp.mp.dps = 50
    z = mp.exp(mp.mpf(e)) + k - 1
    big, small = mp.exp(mp.mpf(e)) / z, 1 / z
    p = [small, (k - 2) * small, big]
    q = [big, (k - 2) * small, small]
    f = fdp.RandomizedResponse(e, k)
    # the masses e^{x − log z} inherit the rounding of the exponent, u·(ε + log z) absolute
    width = 64 * 2.0 ** -53 * (4.0 + e + math.log(k))
    lo, hi = f.bounds(alpha)
    truth = _mp_pair_beta(p, q, alpha)
    _check(lo, hi, truth, math.inf)
    # relative where β is large; near the curve's zero the vertices' α error (relative to
    # α, from cumulative sums) moves β by up to ρ·α|f'(α)| ≤ ρ(1 − β): absolute there
    assert hi - lo <= width * (float(truth) + 1.0)
    lo, hi = f.delta_bounds(eps)
    # δ(ε') = Σ p_i (e^{L_i} − e^{ε'})₊ over the losses L = ε, 0, −ε (exactly 0 at ε' = ε)
    y = mp.exp(mp.mpf(eps))
    truth = mp.fsum(max(pi * (mp.exp(li) - y), mp.mpf(0))
                    for pi, li in zip(p, [mp.mpf(e), mp.mpf(0), -mp.mpf(e)]))
    _check(lo, hi, truth, math.inf)
    # max_k (1 − β_k − e^ε α_k) cancels: its terms are at most 1 each at the maximiser
    assert hi - lo <= width * (float(truth) + 2.0)


@settings(max_examples=100)
@given(st.lists(st.tuples(st.floats(1e-6, 1.0), st.floats(1e-6, 1.0)), min_size=2, max_size=12),
       alphas, epss)
def test_finite_pair_brackets_contain_mpmath(masses, alpha, eps):
    """T(P, Q) of the stored doubles, against the same pair summed in mpmath."""
    mp.mp.dps = 50
    p = np.array([m[0] for m in masses])
    q = np.array([m[1] for m in masses])
    p, q = p / p.sum(), q / q.sum()
    f = fdp.from_pair(p, q)
    # the pair a FinitePair stands for: its masses, normalised (in mpmath)
    pm, qm = [mp.mpf(x) for x in f.p], [mp.mpf(x) for x in f.q]
    pm, qm = [x / mp.fsum(pm) for x in pm], [x / mp.fsum(qm) for x in qm]
    lo, hi = f.bounds(alpha)
    truth = _mp_pair_beta(pm, qm, alpha)
    _check(lo, hi, truth, math.inf)
    assert hi - lo <= 1e-13 * (float(truth) + 1.0)      # as for randomized response
    lo, hi = f.delta_bounds(eps)
    _check(lo, hi, _mp_pair_delta(pm, qm, eps), math.inf)


@settings(max_examples=200)
@given(st.one_of(st.floats(-300.0, math.log10(700.0)).map(lambda t: float(10.0 ** t)),
                 st.just(0.0)), alphas)
def test_bounded_range_brackets_contain_mpmath(e, alpha):
    """BR_ε(α) = (1 − α)/(1 + (e^ε − 1)α) (Dong, Durfee & Rogers 2020): at α = 1e-300 the
    double 1.0 is above the truth, so the bracket must reach below it; near α = 1 at
    ε = 700 the value is subnormal."""
    mp.mp.dps = 50
    lo, hi = fdp.BoundedRange(e).bounds(alpha)
    a = mp.mpf(alpha)
    truth = (1 - a) / (1 + mp.expm1(mp.mpf(e)) * a)
    # the rounding of log(e^ε − 1) + log α costs up to ~4u(|log c| + |log α|) ≈ 1.3e-12
    _check(lo, hi, truth, 2e-12)
    assert float(hi) <= 1.0 - alpha or mp.mpf(float(np.nextafter(hi, 0.0))) < 1 - a


def test_bounded_range_tiny_alpha_lower_end_below_one():
    # the truth 1 − (1 + c)·1e-300 + … is below 1: the safe side must say so
    lo, hi = fdp.BoundedRange(1.0).bounds(1e-300)
    assert lo < 1.0 and hi == 1.0
