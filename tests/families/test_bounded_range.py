"""BoundedRange (ε-BR) and the optimal composition of ε-BR selections.

Independent truths: the generalized randomized response pairs GRR_t (Dong, Durfee &
Rogers 2020) enumerated exactly in mpmath at 40 digits, integrals in mpmath, the
closed forms f_{ε,0} and f_{ε/2,0}, and the reference value of issue 17
(EM(ε = 1) ten times at δ = 1e-6: ε-DP composition 10.0, RDP bounded range 8.83).
"""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.operations.selection import SelectionComposition, compose_selections

mp.mp.dps = 40


# ----------------------------------------------------------------------
# mpmath references
# ----------------------------------------------------------------------
def grr(eps, t):
    """(P(1), Q(1)) of GRR_t: losses ε − t at 1 and −t at 0."""
    E, et = mp.e ** mp.mpf(eps), mp.e ** mp.mpf(t)
    p1 = (et - 1) / (E - 1)
    return p1, p1 * E / et


def grr_beta(eps, t, alpha):
    p1, q1 = grr(eps, t)
    a = mp.mpf(alpha)
    E, et = mp.e ** mp.mpf(eps), mp.e ** mp.mpf(t)
    if a <= p1:
        return 1 - a * E / et
    return (1 - q1) - (a - p1) / et


def grr_product_delta(eps, ts, x):
    """δ(x) of GRR_{t_1} × … × GRR_{t_k} by enumerating the 2^k outcomes."""
    ex = mp.e ** mp.mpf(x)
    total = mp.mpf(0)
    masses = [grr(eps, t) for t in ts]
    for bits in itertools.product((0, 1), repeat=len(ts)):
        p = q = mp.mpf(1)
        for b, (p1, q1) in zip(bits, masses):
            p *= p1 if b else 1 - p1
            q *= q1 if b else 1 - q1
        total += max(mp.mpf(0), q - ex * p)
    return total


def grr_pmfs(eps, ts):
    """The product pmfs of GRR_{t_1} × … × GRR_{t_k} as float arrays (2^k outcomes)."""
    masses = [tuple(float(v) for v in grr(eps, t)) for t in ts]
    P, Q = [], []
    for bits in itertools.product((0, 1), repeat=len(ts)):
        p = q = 1.0
        for b, (p1, q1) in zip(bits, masses):
            p *= p1 if b else 1 - p1
            q *= q1 if b else 1 - q1
        P.append(p)
        Q.append(q)
    P, Q = np.array(P), np.array(Q)
    return P / P.sum(), Q / Q.sum()


def grr_power_delta(eps, t, k, x):
    """δ(x) of GRR_t^{⊗k}: binomial counts of the outcome 1."""
    p1, q1 = grr(eps, t)
    ex = mp.e ** mp.mpf(x)
    return mp.fsum(max(mp.mpf(0), mp.binomial(k, j) * (q1 ** j * (1 - q1) ** (k - j)
                                                        - ex * p1 ** j * (1 - p1) ** (k - j)))
                   for j in range(k + 1))


def br_delta_mp(eps, x):
    e, x = mp.mpf(eps), mp.mpf(x)
    if x >= e:
        return mp.mpf(0)
    if x <= -e:
        return 1 - mp.e ** x
    return (mp.e ** (e / 2) - mp.e ** (x / 2)) ** 2 / (mp.e ** e - 1)


# ----------------------------------------------------------------------
# The family
# ----------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 20.0])
def test_curve_is_the_worst_generalized_randomized_response(eps):
    f = fdp.BoundedRange(eps)
    ts = [mp.mpf(eps) * j / 40 for j in range(41)]
    for alpha in (1e-9, 0.01, 0.2, 0.5, 0.8, 0.999):
        # every GRR_t lies above the curve ...
        worst_grid = min(grr_beta(eps, t, alpha) for t in ts)
        # ... and the closed-form argmax t* = log(1 + (e^ε − 1)α) attains it
        t_star = mp.log(1 + (mp.e ** eps - 1) * mp.mpf(alpha))
        attained = grr_beta(eps, t_star, alpha)
        assert float(attained) == pytest.approx(f(alpha), rel=1e-13, abs=1e-300)
        assert f(alpha) <= float(worst_grid) * (1 + 1e-13)


@pytest.mark.parametrize("eps", [0.01, 1.0, 5.0, 40.0])
@pytest.mark.slow
def test_profile_is_the_max_over_t_of_grr_profiles(eps):
    f = fdp.BoundedRange(eps)
    ts = [mp.mpf(eps) * j / 400 for j in range(401)]
    for x in np.linspace(-1.2 * eps, 1.2 * eps, 13):
        grid_max = max(grr_product_delta(eps, [t], x) for t in ts)
        exact = br_delta_mp(eps, x)
        assert f.delta(float(x)) == pytest.approx(float(exact), rel=1e-12, abs=1e-300)
        assert float(grid_max) <= f.delta(float(x)) * (1 + 1e-12) + 1e-300


def test_profile_agrees_with_the_generic_conjugate():
    from fdp._numerics import conjugate_delta
    for eps in (0.5, 2.0, 10.0):
        f = fdp.BoundedRange(eps)
        x = np.linspace(-12, 12, 97)
        np.testing.assert_allclose(f.delta(x), conjugate_delta(f._beta, x), atol=1e-12)


@given(st.floats(0.0, 800.0), st.floats(0.0, 1.0))
def test_between_eps_dp_and_half_eps_dp(eps, alpha):
    f = fdp.BoundedRange(eps)
    b = f(alpha)
    assert fdp.EpsDelta(eps)(alpha) <= b + 1e-15          # BR_ε is at least ε-DP
    assert b <= fdp.EpsDelta(eps / 2)(alpha) + 1e-15      # and at most ε/2-DP
    assert 0.0 <= b <= 1.0 - alpha + 1e-16


def test_touches_half_eps_kink():
    for eps in (0.3, 1.0, 7.0):
        kink = 1.0 / (1.0 + np.exp(eps / 2))
        assert fdp.BoundedRange(eps)(kink) == pytest.approx(kink, rel=1e-14)
    assert fdp.BoundedRange(2.0).pure_epsilon() == 2.0


@given(st.floats(0.0, 750.0))
def test_axioms_and_symmetry(eps):
    f = fdp.BoundedRange(eps)
    a = np.unique(np.concatenate([[0.0, 1e-300, 1e-200], np.linspace(0, 1, 201),
                                  [1 - 1e-12, 1.0]]))
    b = f(a)
    assert b[0] == 1.0 and b[-1] == 0.0
    assert np.all(np.diff(b) <= 1e-15)
    assert np.all(b <= 1.0 - a + 1e-16)
    # convex on the uniform part
    u = f(np.linspace(0, 1, 201))
    assert np.all(u[:-2] + u[2:] - 2 * u[1:-1] >= -1e-12)
    # symmetric: f(f(α)) = α
    mid = np.linspace(0.05, 0.95, 19)
    if eps < 30:
        np.testing.assert_allclose(f(f(mid)), mid, atol=1e-12)
    assert f.symmetric


def test_extreme_eps_in_log_space():
    f = fdp.BoundedRange(700.0)
    # (1 − α)/(1 + (e^700 − 1)α) at α = 1e-300: mpmath
    exact = (1 - mp.mpf("1e-300")) / (1 + (mp.e ** 700 - 1) * mp.mpf("1e-300"))
    assert f(1e-300) == pytest.approx(float(exact), rel=1e-12)
    g = fdp.BoundedRange(1000.0)
    assert g(1e-300) == pytest.approx(float(1 / (1 + (mp.e ** 1000 - 1) * mp.mpf("1e-300"))),
                                      rel=1e-12, abs=1e-300)
    assert g.delta(999.0) == pytest.approx(float(br_delta_mp(1000, 999)), rel=1e-12)
    assert g.epsilon(1e-300) <= 1000.0
    small = fdp.BoundedRange(1e-12)
    assert small.delta(0.0) == pytest.approx(float(br_delta_mp(mp.mpf("1e-12"), 0)), rel=1e-9)
    assert fdp.BoundedRange(0.0)(0.3) == pytest.approx(0.7)


def test_epsilon_at_tiny_delta_is_certified():
    f = fdp.BoundedRange(3.0)
    for d in (1e-6, 1e-100, 1e-300):
        e = f.epsilon(d)
        assert float(br_delta_mp(3.0, e)) <= d * (1 + 1e-9)
        # and not far above the truth: x = ε + 2 log(1 − sqrt(δ(1 − e^{−ε}))) … solve in mpmath
        exact = mp.findroot(lambda x, d=d: br_delta_mp(3.0, x) - d, (mp.mpf(-3), mp.mpf(3)),
                            solver="bisect") if d > 1e-30 else None
        if exact is not None:
            assert e == pytest.approx(float(exact), abs=1e-9)


def test_bad_input():
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="eps"):
            fdp.BoundedRange(bad)
    with pytest.raises(TypeError, match="eps"):
        fdp.BoundedRange("1")
    with pytest.raises(ValueError, match="eps"):
        compose_selections(-0.5, 3)
    with pytest.raises(ValueError, match="k"):
        compose_selections(1.0, 0)
    with pytest.raises((TypeError, ValueError), match="k"):
        compose_selections(1.0, 2.5)


# ----------------------------------------------------------------------
# f-DP composition of the curve through the engine (its exact loss law)
# ----------------------------------------------------------------------
def test_engine_law_masses_are_the_integrals():
    from fdp.law import interval_masses_of as interval_masses
    eps = 1.3
    edges = np.array([-2.0, -1.0, -0.2, 0.0, 0.7, 1.25, 3.0])
    kappa, pi, q_inf, p_neginf = interval_masses(fdp.BoundedRange(eps), edges)
    E = mp.e ** mp.mpf(eps)
    c = E - 1
    # L = ε − 2w, w ∈ [0, ε]: P-density e^w / c, Q-density E e^{−w} / c
    ends = np.concatenate([[-np.inf], edges, [np.inf]])
    for i in range(len(ends) - 1):
        lo, hi = max(ends[i], -eps), min(ends[i + 1], eps)
        if hi <= lo:
            assert kappa[i] == 0.0 and pi[i] == 0.0
            continue
        w_lo, w_hi = (eps - hi) / 2, (eps - lo) / 2
        p_ref = mp.quad(lambda w: mp.e ** w / c, [w_lo, w_hi])
        q_ref = mp.quad(lambda w: E * mp.e ** (-w) / c, [w_lo, w_hi])
        assert pi[i] == pytest.approx(float(p_ref), rel=1e-13)
        assert kappa[i] == pytest.approx(float(q_ref), rel=1e-13)
    assert q_inf == 0.0 and p_neginf == 0.0
    assert sum(kappa) == pytest.approx(1.0, rel=1e-14)


def test_two_fold_curve_composition_bracket_contains_mpmath():
    eps = 1.0
    g = fdp.compose(fdp.BoundedRange(eps), fdp.BoundedRange(eps))
    E = mp.e ** mp.mpf(eps)
    for x in (0.0, 0.8, 1.5):
        # δ_{f⊗f}(x) = E_Q[δ_f(x − L)], L = ε − 2w under Q (density E e^{−w}/c)
        ref = mp.quad(lambda w, x=x: E * mp.e ** (-w) / (E - 1)
                      * br_delta_mp(eps, x - (eps - 2 * w)),
                      [0, (eps - x) / 2 if 0 < (eps - x) / 2 < eps else eps / 2, eps])
        lo, hi = float(g._delta_lower(np.array([x]))[0]), float(g.delta(x))
        assert lo - 1e-12 <= float(ref) <= hi + 1e-12


# ----------------------------------------------------------------------
# Optimal composition of adaptively chosen ε-BR selections
# ----------------------------------------------------------------------
def test_one_selection_is_the_curve_and_zero_eps_is_identity():
    assert compose_selections(1.0, 1) == fdp.BoundedRange(1.0)
    assert isinstance(compose_selections(0.0, 5), fdp.Identity)
    # the recursion with k = 1 reproduces the closed-form profile within its bracket
    f = SelectionComposition(1.0, 1, M=100)
    x = np.linspace(-1.5, 1.5, 31)
    truth = np.array([float(br_delta_mp(1.0, v)) for v in x])
    assert np.all(f._delta_lower(x) <= truth + 1e-15)
    assert np.all(truth <= f._delta(x) + 1e-15)


def adaptive_two_step_mp(eps, x, n_t=400):
    """sup_{t_1} [q δ_1(x − ε + t_1) + (1 − q) δ_1(x + t_1)], δ_1 = BR profile, lower bound
    by a fine grid of t_1 (a valid strategy for each)."""
    best = mp.mpf(0)
    for j in range(n_t + 1):
        t = mp.mpf(eps) * j / n_t
        _, q1 = grr(eps, t)
        v = q1 * br_delta_mp(eps, x - eps + t) + (1 - q1) * br_delta_mp(eps, x + t)
        best = max(best, v)
    return best


def test_two_selections_bracket_contains_the_adaptive_optimum():
    eps = 1.0
    f = SelectionComposition(eps, 2, M=400)
    for x in (-1.5, -0.5, 0.0, 0.6, 1.2, 1.9):
        strat = float(adaptive_two_step_mp(eps, x))       # a lower bound of the optimum
        lo, hi = float(f._delta_lower(np.array([x]))[0]), float(f.delta(x))
        assert strat <= hi * (1 + 1e-12)
        assert lo <= hi
        assert hi - lo < 0.02
        assert abs(strat - lo) < 0.01


@pytest.mark.parametrize("k", [2, 3, 4])
def test_every_fixed_grr_product_is_below_the_upper_profile(k):
    # Exact enumeration of GRR_{t_1} × … × GRR_{t_k} (non-adaptive choices are
    # adaptive strategies too): their δ never exceeds the certified upper δ.
    eps = 1.0
    f = compose_selections(eps, k)
    ts = [0.0, 0.2, 0.5, 0.8, 1.0]
    for x in (-1.0, 0.0, 0.7, 1.6):
        up = f.delta(x)
        for tt in itertools.product(ts, repeat=k):
            assert float(grr_product_delta(eps, tt, x)) <= up * (1 + 1e-12) + 1e-300


def test_reference_value_em_ten_times():
    # issue 17: ε-DP composition gives 10.0 and the RDP bounded-range accountant 8.83
    f = compose_selections(1.0, 10)
    lo, hi = f.epsilon_bounds(1e-6)
    assert hi < 8.83
    # the truth is at least the non-adaptive optimum max_t of GRR_t^{⊗10} (exact
    # enumeration): at its ε the best identical-t product still has δ ≥ 1e-6 …
    nonadaptive = max(float(grr_power_delta(1.0, mp.mpf(j) / 100, 10, 7.71)) for j in range(101))
    assert nonadaptive > 1e-6          # … so ε_true > 7.71
    assert hi > 7.71 and lo <= hi
    # curve composition (f-DP of BR_1) sits between: valid for any BR_1-DP mechanism
    g = fdp.BoundedRange(1.0) ** 10
    g_lo, g_hi = g.epsilon_bounds(1e-6)
    assert hi < g_lo and g_hi < 8.83
    # the ε-DP composition, for comparison, is above both
    assert (fdp.EpsDelta(1.0) ** 10).epsilon(1e-6) > g_hi


def test_selection_bracket_axioms():
    f = compose_selections(0.7, 6)
    a = np.concatenate([[0.0, 1e-300, 1e-12], np.linspace(0, 1, 101)[1:]])
    lo, hi = f.bounds(a)
    assert np.all(lo <= hi + 1e-16)
    assert np.all(hi <= 1.0 - a + 1e-16)
    assert lo[0] == 1.0 and lo[-1] == 0.0
    assert np.all(np.diff(lo[3:]) <= 1e-15)
    # at least as private as the f-DP composition of the curve (lower side vs its upper)
    g = fdp.BoundedRange(0.7) ** 6
    assert np.all(lo >= g(a) - 2e-3)
    # symmetric by construction: δ bracket
    x = np.linspace(-5, 5, 41)
    assert np.all(f._delta_lower(x) <= f.delta(x))


def test_blocked_selections_and_huge_eps():
    f = compose_selections(0.5, 40)            # one optimal block of 32, then 8
    lo, hi = f.epsilon_bounds(np.array([1e-6, 1e-12]))
    assert np.all(np.isfinite(hi)) and np.all(lo <= hi)
    assert hi[0] < (fdp.BoundedRange(0.5) ** 40).epsilon(1e-6)
    a = np.linspace(0, 1, 51)
    b_lo, b_hi = f.bounds(a)
    assert np.all(b_lo <= b_hi) and np.all(b_lo >= (fdp.BoundedRange(0.5) ** 40)(a) - 1e-3)
    big = compose_selections(700.0, 3)
    assert big.epsilon(1e-300) <= 2100.0 * (1 + 1e-15)   # kε, rounded outwards
    assert big(1e-300) >= 0.0


@pytest.mark.slow
@pytest.mark.parametrize("eps,k", [(0.05, 1000), (0.01, 10_000)])
def test_many_selections_without_overflow(eps, k):
    f = compose_selections(eps, k)
    lo, hi = f.epsilon_bounds(np.array([1e-6, 1e-12]))
    assert np.all(np.isfinite(hi)) and np.all(lo <= hi)
    g_hi = (fdp.BoundedRange(eps) ** k).epsilon(1e-6)
    assert hi[0] < g_hi


@settings(max_examples=12)
@given(st.floats(0.05, 6.0), st.integers(2, 3), st.lists(st.floats(0.0, 1.0), min_size=3,
                                                          max_size=3), st.floats(-1.0, 1.0))
def test_property_grr_products_inside_the_bracket(eps, k, fractions, x_frac):
    # any fixed choice of t_1..t_k is an adaptive strategy: its exact δ (enumerated in
    # mpmath) is at most the certified upper δ; and the bracket is ordered
    f = SelectionComposition(eps, k, M=40)
    x = x_frac * k * eps
    ts = [fr * eps for fr in fractions[:k]]
    exact = float(grr_product_delta(eps, ts, x))
    assert exact <= float(f.delta(x)) * (1 + 1e-12) + 1e-300
    assert f._delta_lower(np.array([x]))[0] <= f.delta(x)
    a = np.linspace(0, 1, 21)
    lo, hi = f.bounds(a)
    assert np.all(lo <= hi) and np.all(np.diff(lo) <= 1e-15)
    # the safe side is below the curve of every fixed-t product (exact pair) ...
    assert np.all(lo <= fdp.from_pair(*grr_pmfs(eps, ts))(a) + 1e-12)
    # ... and the finite pairs sit on their sides (to rounding)
    assert np.all(f.pessimistic_pair()(a) <= lo + 4e-15)
    # (a pair's read-out is its certified bracket: its upper side is what lies above)
    assert np.all(f.optimistic_pair().bounds(a)[1] >= lo - 1e-15)


def pure_dp_power_delta(eps, k, x):
    """δ(x) of f_{ε,0}^{⊗k} in closed form: losses (2j − k)ε, binomial masses (KOV)."""
    from scipy.stats import binom
    j = np.arange(k + 1)
    w = 1.0 / (1.0 + np.exp(eps))
    q_mass = binom.pmf(j, k, 1.0 - w)
    p_mass = binom.pmf(j, k, w)
    return float(np.sum(np.maximum(q_mass - np.exp(x) * p_mass, 0.0)))


@pytest.mark.parametrize("eps,k", [(0.3, 200), (0.01, 10_000)])
def test_curve_composition_between_pure_dp_compositions(eps, k):
    # BR_ε ≥ f_{ε,0} and BR_ε ≤ f_{ε/2,0} pointwise, and ⊗ preserves the order, so the
    # certified δ bracket of BR_ε^{⊗k} lies between the two binomial profiles.
    g = fdp.BoundedRange(eps) ** k
    for x in np.array([0.5, 1.0, 2.0]) * np.sqrt(k) * eps:
        up = float(g.delta(x))
        lo = float(g._delta_lower(np.array([x]))[0])
        assert up <= pure_dp_power_delta(eps, k, x) * (1 + 1e-9) + 1e-15
        assert lo >= pure_dp_power_delta(eps / 2, k, x) * (1 - 1e-9) - 1e-15
        assert lo <= up


def test_selections_compose_with_other_factors():
    f = compose_selections(1.0, 10)
    g = f @ fdp.Gaussian(0.5)
    lo, hi = g.epsilon_bounds(1e-6)
    assert lo <= hi < 8.8
    # tighter than composing the BR_1 curve ten times with the same Gaussian
    assert hi < (fdp.BoundedRange(1.0) ** 10 @ fdp.Gaussian(0.5)).epsilon_bounds(1e-6)[0]
    # and never below the exact composition of a fixed-t product with it (a strategy)
    pair = fdp.from_pair(*grr_pmfs(1.0, [0.5] * 10))
    assert hi >= (pair @ fdp.Gaussian(0.5)).epsilon(1e-6) - 1e-9


def test_epsilon_at_zero_delta_is_the_loss_range_rounded_outwards():
    # δ(x) > 0 for every x below k·ε (all k outputs at their top loss ε − t, t → 0)
    for eps, k in ((1.0, 4), (0.3, 7)):
        assert SelectionComposition(eps, k, M=60).epsilon(0.0) >= mp.mpf(eps) * k
    assert fdp.BoundedRange(0.3).epsilon(0.0) >= mp.mpf(0.3)
