"""Property sweep (issue 31): random mechanisms against exact enumeration and mpmath.

Every read-out is a bracket; each test asserts lower <= truth <= upper and that no end is NaN.
References are independent of fdp: finite pairs are enumerated exactly with mpmath at 60 digits
(Neyman-Pearson beta(alpha), delta(eps) = sum max(q - e^eps p, 0), eps(delta) by bisection,
pure eps = max |log q/p|), closed forms are evaluated in mpmath.
"""

from __future__ import annotations

import math

import mpmath as mp
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp

FEW = settings(max_examples=6, deadline=None)
DPS = 60

# --- exact reference for a pair of pmfs (mpmath) ---------------------------------------------


def _mp_pair(p, q):
    return [mp.mpf(x) for x in p], [mp.mpf(x) for x in q]


def ref_delta(p, q, eps):
    """delta(eps) = sum_i max(q_i - e^eps p_i, 0); atoms with p_i = 0 count fully."""
    e = mp.exp(mp.mpf(eps))
    return mp.fsum(max(qi - e * pi, 0) for pi, qi in zip(p, q))


def ref_beta(p, q, alpha):
    """Neyman-Pearson beta(alpha) of T(P, Q): reject outcomes in decreasing q/p order; beta is
    summed over the Q-mass kept (never formed as 1 - power, which cancels)."""
    alpha = mp.mpf(alpha)
    order = sorted(range(len(p)), key=lambda i: mp.inf if p[i] == 0 else q[i] / p[i], reverse=True)
    used = mp.mpf(0)
    for k, i in enumerate(order):
        if used + p[i] <= alpha:
            used += p[i]
        else:
            kept = q[i] * (1 - (alpha - used) / p[i])
            return kept + mp.fsum(q[j] for j in order[k + 1:])
    return mp.mpf(0)


def ref_pure_eps(p, q):
    """max |log q/p| over the support; inf when one measure has an atom the other lacks."""
    out = mp.mpf(0)
    for pi, qi in zip(p, q):
        if pi == 0 and qi == 0:
            continue
        if pi == 0 or qi == 0:
            return mp.inf
        out = max(out, abs(mp.log(qi / pi)))
    return out


def ref_eps_interval(delta_fn, delta, hi_eps):
    """[a, b] containing eps(delta) = inf{eps >= 0 : delta_fn(eps) <= delta}; b may be inf."""
    delta = mp.mpf(delta)
    if delta_fn(0) <= delta:
        return mp.mpf(0), mp.mpf(0)
    if hi_eps == mp.inf or delta_fn(hi_eps) > delta:
        if delta_fn(mp.mpf(10) ** 6) > delta:
            return mp.inf, mp.inf
        hi_eps = mp.mpf(10) ** 6
    a, b = mp.mpf(0), mp.mpf(hi_eps)
    for _ in range(200):
        m = (a + b) / 2
        if delta_fn(m) <= delta:
            b = m
        else:
            a = m
    return a, b


# --- strategies -------------------------------------------------------------------------------


@st.composite
def dyadic_pmfs(draw, n):
    """pmf with entries k/64 (exact in binary), zeros allowed."""
    cuts = sorted(draw(st.lists(st.integers(0, 64), min_size=n - 1, max_size=n - 1)))
    edges = [0, *cuts, 64]
    return [(edges[i + 1] - edges[i]) / 64 for i in range(n)]


@st.composite
def finite_pairs(draw):
    n = draw(st.integers(2, 5))
    return draw(dyadic_pmfs(n)), draw(dyadic_pmfs(n))


eps_args = st.one_of(st.floats(0.0, 5.0), st.sampled_from([0.0, 1e-300, 1e-12, 20.0, 300.0, 700.0]))
delta_args = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1e-300, 1e-100, 1e-12, 1.0]))
alpha_args = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1e-300, 1e-100, 1e-12, 1.0]))
rates = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 1e-300, 1e-6]))

# --- assertion helpers -----------------------------------------------------------------------


def _rel(x):
    return mp.mpf(x)


def assert_contains(br, truth, what):
    lo, hi = br
    assert not math.isnan(lo) and not math.isnan(hi), f"{what}: NaN in {br}"
    assert lo <= hi, f"{what}: lo > hi in {br}"
    assert _rel(lo) <= truth <= _rel(hi), f"{what}: {br} excludes {mp.nstr(truth, 20)}"


def assert_contains_interval(br, a, b, what):
    lo, hi = br
    assert not math.isnan(lo) and not math.isnan(hi), f"{what}: NaN in {br}"
    assert lo <= hi, f"{what}: lo > hi in {br}"
    msg = f"{what}: {br} excludes [{mp.nstr(a, 20)}, {mp.nstr(b, 20)}]"
    assert _rel(lo) <= b and a <= _rel(hi), msg


def check_pair_readouts(f, p, q, eps, delta, alpha, symmetric_q=None):
    """All read-outs of f = T(P, Q) against exact enumeration (delta uses max over both
    directions when ``symmetric_q`` is given: the pair (P, Q) and its swap)."""
    if symmetric_q is None:
        def dfn(e):
            return ref_delta(p, q, e)
    else:
        def dfn(e):
            return max(ref_delta(p, q, e), ref_delta(q, p, e))
    assert_contains(f.delta_bounds(eps), dfn(eps), f"delta({eps})")
    a, b = ref_eps_interval(dfn, delta, ref_pure_eps(p, q))
    assert_contains_interval(f.epsilon_bounds(delta), a, b, f"eps({delta})")
    assert_contains(f.pure_epsilon_bounds(), ref_pure_eps(p, q), "pure eps")
    if symmetric_q is None:
        assert_contains(f.bounds(alpha), ref_beta(p, q, alpha), f"beta({alpha})")
    else:  # the symmetrised curve lies below both directions
        lo, hi = f.bounds(alpha)
        assert not math.isnan(lo) and not math.isnan(hi)
        assert _rel(lo) <= min(ref_beta(p, q, alpha), ref_beta(q, p, alpha))
    mlo, mhi = f.gdp_mu_bounds()
    assert not math.isnan(mlo) and not math.isnan(mhi) and 0 <= mlo <= mhi


# --- inverse, group, mixtures -----------------------------------------------------------------


@FEW
@given(finite_pairs(), eps_args, delta_args, alpha_args)
def test_inverse_of_pair_is_the_swapped_pair(pq, eps, delta, alpha):
    mp.mp.dps = DPS
    p, q = _mp_pair(*pq)
    check_pair_readouts(fdp.from_pair(*pq).inverse(), q, p, eps, delta, alpha)


mu_args = st.one_of(st.floats(1e-3, 8.0), st.sampled_from([1e-300, 1e-12, 30.0, 1e3]))


def _gauss_delta(mu, e):
    mu = mp.mpf(mu)
    return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)


# --- minimal failing cases found by the sweep (fdp is wrong here; kept visible) ---------------


def test_failing_case_pair_eps_of_zero_delta_upper_end_below_truth():
    """P = (1/64, 63/64), Q = (0, 1): delta(eps) = max(1 - e^eps 63/64, 0), so eps(0) = log(64/63)
    = 0.0157483569681391686075...; the float 0.015748356968139168 is below it, where delta > 0."""
    mp.mp.dps = DPS
    f = fdp.from_pair([0.015625, 0.984375], [0.0, 1.0])
    truth = mp.log(mp.mpf(64) / 63)
    assert_contains(f.epsilon_bounds(0.0), truth, "eps(0)")
    e = 0.015748356968139168
    truth_delta = ref_delta([mp.mpf(1) / 64, mp.mpf(63) / 64], [0, 1], e)
    assert_contains(f.delta_bounds(e), truth_delta, "delta")
