"""The optimal adaptive composition of k ε-bounded-range selections (compose_selections).

Independent truths: the generalized randomized response GRR_t (Dong, Durfee & Rogers
2020) enumerated in mpmath — binomial sums for the non-adaptive homogeneous products
GRR_t^{⊗k} (each a strategy of the adversary, so a lower bound of the adaptive
optimum) and explicit adaptive policies over all output paths; the closed form of the
optimal ε-DP composition (Kairouz, Oh & Viswanath 2015), an upper bound since ε-BR
implies ε-DP; the Azuma–Hoeffding bound with the largest mean loss of GRR_t (the
efficiently computable adaptive bound of DDR 2020 §7), an upper bound; the
reference value of issue 17 (EM ε = 1 ten times, δ = 1e-6: below 8.83); and the
previous blocked composition's printed upper ε (it must not get looser).
"""

from __future__ import annotations

import math
import pickle

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
import fdp.operations.selection as selection
from fdp.operations.selection import SelectionComposition, compose_selections
from fdp.operations.selection_recursion import K_MAX, cells_per_eps

mp.mp.dps = 30


# ----------------------------------------------------------------------
# mpmath references
# ----------------------------------------------------------------------
def grr_q(eps, t):
    """P-probability of the output with loss ε − t in GRR_t (the other has loss −t)."""
    eps, t = mp.mpf(eps), mp.mpf(t)
    return -mp.expm1(-t) / -mp.expm1(-eps)


def nonadaptive_delta(eps, k, t, x):
    """δ(x) of GRR_t^{⊗k}: j outputs of loss ε − t, binomial under P."""
    eps, t, x = mp.mpf(eps), mp.mpf(t), mp.mpf(x)
    q = grr_q(eps, t)
    total = mp.mpf(0)
    for j in range(k + 1):
        loss = j * eps - k * t
        if loss > x:
            total += mp.binomial(k, j) * q**j * (1 - q) ** (k - j) * (1 - mp.e ** (x - loss))
    return total


def pure_dp_delta(eps, k, x):
    """δ(x) of f_{ε,0}^{⊗k} (KOV 2015): losses (2j − k)ε, j ~ Bin(k, e^ε/(1 + e^ε))."""
    eps, x = mp.mpf(eps), mp.mpf(x)
    p = mp.e**eps / (1 + mp.e**eps)
    total = mp.mpf(0)
    for j in range(k + 1):
        loss = (2 * j - k) * eps
        if loss > x:
            total += mp.binomial(k, j) * p**j * (1 - p) ** (k - j) * (1 - mp.e ** (x - loss))
    return total


def br_delta(eps, x):
    """δ(x) of BR_ε = sup_t δ(GRR_t)(x): a scan of t, then golden-section search in
    mpmath around the best scan point (t ↦ δ is unimodal between its kinks)."""
    f = lambda t: nonadaptive_delta(eps, 1, t, x)
    n = 400
    grid = [mp.mpf(eps) * j / n for j in range(n + 1)]
    j = max(range(n + 1), key=lambda i: f(grid[i]))
    a, b = grid[max(j - 1, 0)], grid[min(j + 1, n)]
    g = (mp.sqrt(5) - 1) / 2
    for _ in range(80):
        c, d = b - g * (b - a), a + g * (b - a)
        if f(c) >= f(d):
            b = d
        else:
            a = c
    return max(f(grid[j]), f((a + b) / 2))


def azuma_epsilon(eps, k, delta):
    """k·μ* + ε·√(k ln(1/δ)/2), μ* = max_t E_P[loss of GRR_t]
    = ε/(1 − e^{−ε}) − 1 − ln(ε/(1 − e^{−ε})): Azuma–Hoeffding on the loss martingale
    (each step in an interval of length ε), DDR 2020 §7."""
    r = eps / -math.expm1(-eps)
    mu = r - 1.0 - math.log(r)
    return k * mu + eps * math.sqrt(k * math.log(1.0 / delta) / 2.0)


def adaptive_policy_delta(eps, policy, x):
    """δ(x) of an explicit adaptive strategy: ``policy(path)`` gives t after the outputs
    in ``path`` (a tuple of 0/1); all 2^k output paths enumerated in mpmath."""
    eps, x = mp.mpf(eps), mp.mpf(x)
    total = mp.mpf(0)
    k = policy.k

    def walk(path, prob, loss):
        nonlocal total
        if len(path) == k:
            if loss > x:
                total += prob * (1 - mp.e ** (x - loss))
            return
        t = mp.mpf(policy(path))
        q = grr_q(eps, t)
        walk(path + (1,), prob * q, loss + eps - t)
        walk(path + (0,), prob * (1 - q), loss - t)

    walk((), mp.mpf(1), mp.mpf(0))
    return total


class Policy:
    """t_j as a fraction of ε, looked up by the previous outputs (a binary tree)."""

    def __init__(self, eps, k, fractions):
        self.eps, self.k, self.fractions = eps, k, fractions

    def __call__(self, path):
        node = (1 << len(path)) - 1 + sum(b << i for i, b in enumerate(path))
        return self.fractions[node % len(self.fractions)] * self.eps


# ----------------------------------------------------------------------
# k = 1 and the exact recursion's bracket
# ----------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.slow
def test_one_selection_is_br_exactly_and_the_recursion_brackets_it(eps):
    assert compose_selections(eps, 1) == fdp.BoundedRange(eps)
    widths = []
    for M in (20, 40):
        f = SelectionComposition(eps, 1, M=M)
        x = np.array([-0.7, -0.2, 0.0, 0.13, 0.5, 0.9]) * eps
        lo, hi = f._delta_lower(x), f.delta(x)
        truth = np.array([float(br_delta(eps, v)) for v in x])
        assert np.all(lo <= truth * (1 + 1e-9) + 1e-300)
        assert np.all(truth <= hi * (1 + 1e-12))
        widths.append(np.max(hi - lo))
    assert widths[1] < widths[0]


# ----------------------------------------------------------------------
# Lower side: at least every non-adaptive homogeneous strategy (k beyond 32 too)
# ----------------------------------------------------------------------
@pytest.mark.parametrize("eps,k,M", [(1.0, 10, 20), (0.5, 50, 12), (0.2, 100, 8)])
def test_lower_side_at_least_the_nonadaptive_optimum_on_its_grid(eps, k, M):
    # the lower side is the value of the grid strategies, adaptive ones included: at a
    # grid point it is at least max over grid t of δ(GRR_t^{⊗k}) (binomial sums)
    f = SelectionComposition(eps, k, M=M)
    h = eps / M
    mean = k * eps * eps / 8.0
    for xv in (0.0, mean + 1.0 * math.sqrt(k) * eps / 2, mean + 3.0 * math.sqrt(k) * eps / 2):
        i = int(round(xv / h))
        pos = int(np.argmin(np.abs(f._x - i * h)))
        best = max(nonadaptive_delta(eps, k, m * mp.mpf(eps) / M, i * mp.mpf(eps) / M)
                   for m in range(M + 1))
        assert f._lo[pos] >= float(best) * (1 - 1e-9)
        assert f._lo[pos] <= f._up[pos]


@pytest.mark.parametrize("eps,k", [(1.0, 10), (0.5, 40), (0.1, 100)])
@pytest.mark.slow
def test_upper_side_above_every_nonadaptive_strategy(eps, k):
    # any fixed t (a fine grid, off the recursion's grid) is a strategy: its exact
    # δ is below the certified upper δ; and the ε read-outs agree with it
    f = compose_selections(eps, k)
    ts = [mp.mpf(eps) * j / 60 for j in range(61)]
    sd = math.sqrt(k) * eps / 2
    for xv in (0.3 * sd, 2.0 * sd, 4.0 * sd):
        best = max(nonadaptive_delta(eps, k, t, xv) for t in ts)
        assert float(best) <= f.delta(xv) * (1 + 1e-12)
    # at the ε the upper side certifies for δ = 1e-6, no fixed-t product exceeds 1e-6
    hi = f.epsilon_bounds(1e-6)[1]
    assert max(float(nonadaptive_delta(eps, k, t, hi)) for t in ts) <= 1e-6 * (1 + 1e-9)


# ----------------------------------------------------------------------
# Upper side: below the ε-DP optimum and the Azuma bound, never looser than before
# ----------------------------------------------------------------------
@pytest.mark.parametrize("eps,k", [(1.0, 10), (0.5, 60), (2.0, 20)])
@pytest.mark.slow
def test_upper_side_below_optimal_pure_dp_composition(eps, k):
    f = compose_selections(eps, k)
    for xv in np.array([0.2, 0.5, 0.8]) * k * eps * 0.5:
        assert f.delta(xv) <= float(pure_dp_delta(eps, k, xv)) * (1 + 1e-12)
    assert f.epsilon(1e-6) < (fdp.EpsDelta(eps) ** k).epsilon(1e-6)


@pytest.mark.parametrize("eps,k", [(1.0, 10), (0.1, 100), (1.0, 300), (2.0, 100)])
@pytest.mark.slow
def test_upper_side_below_the_azuma_bound(eps, k):
    f = compose_selections(eps, k)
    for d in (1e-3, 1e-6, 1e-12):
        lo, hi = f.epsilon_bounds(d)
        assert lo <= hi < azuma_epsilon(eps, k, d)


@pytest.mark.slow
def test_thousand_selections_optimal_and_tighter_than_before():
    # k = 1000 is treated by the recursion itself (no blocks)
    f = compose_selections(1.0, 1000)
    assert isinstance(f, SelectionComposition) and 1000 <= K_MAX
    assert "not optimal" not in repr(f)
    lo, hi = f.epsilon_bounds(1e-6)
    assert lo <= hi < azuma_epsilon(1.0, 1000, 1e-6)
    # the previous release's blocked composition (32-blocks) read 203.37969 here
    assert hi < 203.37969
    assert hi - lo < 0.01 * hi
    # the lower side is at least the non-adaptive homogeneous optimum: the best
    # fixed-t product (binomial sums) falls below 1e-6 only past it
    best = max(nonadaptive_delta(1.0, 1000, mp.mpf(j) / 40, lo - 0.1) for j in range(15, 24))
    assert best > 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("eps,k,old_hi", [(1.0, 100, 35.62208), (1.0, 300, 78.80854),
                                          (0.1, 100, 2.30681), (0.1, 300, 4.29806),
                                          (0.1, 1000, 8.74489)])
def test_never_looser_than_the_previous_blocked_composition(eps, k, old_hi):
    # upper ε(1e-6) of the previous release (f-DP composition of optimal 32-blocks)
    lo, hi = compose_selections(eps, k).epsilon_bounds(1e-6)
    assert lo <= hi < old_hi


@pytest.mark.slow
def test_upper_side_below_blocks_composed_now():
    # f-DP composition of two optimal 12-blocks (their safe pairs) is a valid bound of
    # the 24-fold optimum; the direct bracket's upper side must not be looser
    eps = 0.5
    block = SelectionComposition(eps, 12)
    blocked = fdp.compose(block.pessimistic_pair(), block.pessimistic_pair())
    direct = compose_selections(eps, 24)
    assert direct.epsilon_bounds(1e-6)[1] <= blocked.epsilon_bounds(1e-6)[1]


# ----------------------------------------------------------------------
# The reference value of issue 17
# ----------------------------------------------------------------------
def test_reference_value_em_ten_times():
    f = compose_selections(1.0, 10)
    lo, hi = f.epsilon_bounds(1e-6)
    assert hi < 8.83                      # the RDP bounded-range accountant
    assert 7.716 <= lo <= hi <= 7.728     # inside the previous bracket
    assert hi - lo < 1e-3
    # the best identical-t product still has δ > 1e-6 just below the lower side
    best = max(nonadaptive_delta(1.0, 10, mp.mpf(j) / 200, lo - 0.01) for j in range(201))
    assert best > 1e-6


# ----------------------------------------------------------------------
# Adaptive strategies (exact enumeration of all output paths)
# ----------------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(st.floats(0.05, 4.0), st.integers(2, 4),
       st.lists(st.floats(0.0, 1.0), min_size=15, max_size=15), st.floats(-1.0, 1.0))
def test_property_adaptive_policies_inside_the_bracket(eps, k, fractions, x_frac):
    f = SelectionComposition(eps, k, M=30)
    x = x_frac * k * eps
    exact = float(adaptive_policy_delta(eps, Policy(eps, k, fractions), x))
    assert exact <= f.delta(x) * (1 + 1e-12) + 1e-300
    assert f._delta_lower(np.array([x]))[0] <= f.delta(x)


@settings(max_examples=12, deadline=None)
@given(st.floats(0.05, 4.0), st.integers(2, 8), st.integers(4, 24))
def test_property_bracket_narrows_as_the_grid_refines(eps, k, M):
    # halving the grid step keeps every grid point and every grid t: the lower side
    # (grid strategies) only grows and the upper side only drops at common points
    coarse = SelectionComposition(eps, k, M=M)
    fine = SelectionComposition(eps, k, M=2 * M)
    n = fine._x[0::2].size
    np.testing.assert_allclose(fine._x[0::2], coarse._x[:n], rtol=0, atol=1e-12 * k * eps)
    assert np.all(fine._up[0::2] <= coarse._up[:n] * (1 + 1e-9) + 1e-300)
    assert np.all(fine._lo[0::2] >= coarse._lo[:n] * (1 - 1e-9) - 1e-300)
    lo_c, hi_c = coarse.epsilon_bounds(1e-3)
    lo_f, hi_f = fine.epsilon_bounds(1e-3)
    assert lo_f <= hi_f and hi_f <= hi_c + 1e-9


# ----------------------------------------------------------------------
# The grid, the fallbacks, pickling, bad input
# ----------------------------------------------------------------------
def test_cells_follow_the_work_budget():
    ms = [cells_per_eps(k) for k in (2, 10, 32, 100, 300, 1000, K_MAX)]
    assert ms == sorted(ms, reverse=True) and ms[-1] >= 8
    assert cells_per_eps(10, eps=1e-8) == 100          # h ≥ 1e-10


def test_beyond_the_limit_blocks_say_they_are_not_optimal(monkeypatch):
    monkeypatch.setattr(selection, "K_MAX", 4)
    f = compose_selections(0.5, 9)                        # two 4-blocks and one BR
    assert "not optimal" in repr(f)
    lo, hi = f.epsilon_bounds(1e-6)
    # safe: never below the optimum's certified lower side
    opt_lo = SelectionComposition(0.5, 9).epsilon_bounds(1e-6)[0]
    assert opt_lo <= hi and lo <= hi
    assert "not optimal" in (selection.compose_selections.__doc__ or "").replace("NOT", "not")


def test_tiny_eps_falls_back_to_the_curve_composition():
    f = compose_selections(1e-12, 3)
    assert "compose_selections" not in repr(f)
    lo, hi = f.epsilon_bounds(1e-6)
    assert 0.0 <= lo <= hi <= 3e-12 * (1 + 1e-9)
    g = compose_selections(1e-8, 3)                      # smallest grids still resolve it
    assert isinstance(g, SelectionComposition)
    assert g.epsilon_bounds(1e-6)[1] <= 3e-8 * (1 + 1e-9)


def test_pickling_round_trip():
    for f in (compose_selections(0.7, 6), compose_selections(1.0, 1)):
        g = pickle.loads(pickle.dumps(f))
        assert g == f and repr(g) == repr(f)
        assert g.epsilon_bounds(1e-6) == f.epsilon_bounds(1e-6)


def test_bad_input_names_the_parameter():
    for bad in (-0.5, -1e-300, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="eps"):
            compose_selections(bad, 3)
    with pytest.raises(TypeError, match="eps"):
        compose_selections("1", 3)
    for bad in (0, -2, 2.5):
        with pytest.raises(ValueError, match="k"):
            compose_selections(1.0, bad)
    with pytest.raises(ValueError, match="M"):
        SelectionComposition(1.0, 3, M=0)


@pytest.mark.parametrize("eps,k", [pytest.param(1.0, 120, marks=pytest.mark.slow), (1.0, 50),
                                   (0.3, 30), (4.0, 12)])
def test_nonadaptive_lower_side_matches_binomial_sums(eps, k):
    # the homogeneous strategies added to the lower side, against mpmath binomial sums
    # over the same t grid, down to δ ≈ 1e-280 (x = 0.92kε reaches below 1e-100)
    from fdp.operations.selection_recursion import T_NONADAPTIVE, nonadaptive_lower
    ts = [mp.mpf(eps) * j / T_NONADAPTIVE for j in range(1, T_NONADAPTIVE)]
    xs = np.array([-0.3, 0.1, 0.5, 0.92]) * k * eps
    got = nonadaptive_lower(eps, k, xs)
    for xv, g in zip(xs, got):
        exact = max(nonadaptive_delta(eps, k, t, xv) for t in ts[::5])
        finest = max(nonadaptive_delta(eps, k, t, xv) for t in ts)
        assert g <= float(finest) * (1 + 1e-12)
        if exact > mp.mpf("1e-280"):
            assert g >= float(exact) * (1 - 1e-6)


def test_beyond_the_limit_blocks_stay_between_the_bounds():
    # k = 2000 > K_MAX at ε = 1: blocks of range ≤ 500 composed by f-DP composition.
    # Safe: at its upper ε the best non-adaptive homogeneous strategy (a lower bound
    # of the optimum, checked against binomial sums above) has δ ≤ 1e-6; and below the
    # Azuma bound
    from fdp.operations.selection_recursion import nonadaptive_lower
    f = compose_selections(1.0, 2000)
    assert "not optimal" in repr(f)
    lo, hi = f.epsilon_bounds(1e-6)
    assert lo <= hi < azuma_epsilon(1.0, 2000, 1e-6)
    assert nonadaptive_lower(1.0, 2000, np.array([hi]))[0] <= 1e-6
    assert nonadaptive_lower(1.0, 2000, np.array([hi - 10.0]))[0] > 1e-6
