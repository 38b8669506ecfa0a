"""fdp.sgd.matrix_factorization against independent truths.

Tree aggregation: the depth is counted by listing the completed dyadic nodes of the
tree that contain each leaf (independent of the bit-length formula); the ε of G_μ by
an mpmath root of the GDP privacy profile (DRS Cor 2.13); dp_accounting's RDP
(α·max_depth/(2σ²)) for its single-epoch event and its T = 1600 StackOverflow bound.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import fdp
from fdp.families import GaussianRange
from fdp.sgd.matrix_factorization import (
    banded_mf,
    column_norm,
    count_patterns,
    mf_sensitivity,
    multi_epoch_mf,
    tree_aggregation,
    tree_depth,
)

mp.mp.dps = 40


# -- independent helpers -----------------------------------------------------------
def _depth_by_listing(steps: int) -> int:
    """Largest number of released (completed) dyadic nodes [k 2^l, (k+1) 2^l) ⊆ [0, T)
    containing one leaf, by listing the nodes."""
    best = 0
    for leaf in range(steps):
        count = 0
        level = 0
        while 2 ** level <= steps:
            k = leaf // 2 ** level
            if (k + 1) * 2 ** level <= steps:
                count += 1
            level += 1
        best = max(best, count)
    return best


def _gdp_delta(mu, eps):
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def _gdp_epsilon(mu, delta):
    """The ε with δ_μ(ε) = delta by bisection (δ_μ decreases in ε)."""
    lo, hi = mp.mpf(0), mp.mpf(200)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _gdp_delta(mu, mid) > delta else (lo, mid)
    return (lo + hi) / 2


# -- tree aggregation --------------------------------------------------------------
@pytest.mark.parametrize("steps", [*range(0, 70), 127, 128, 129, 255, 256, 1000])
def test_tree_depth_counts_the_released_nodes_above_a_leaf(steps):
    assert tree_depth(steps) == _depth_by_listing(steps)
    if steps:
        assert tree_depth(steps) == math.ceil(math.log2(steps + 1))


@pytest.mark.parametrize("sigma", [0.3, 1.0, 1.13, 2.5, 8.83])
@pytest.mark.parametrize("steps", [1, 2, 3, 7, 8, 100, 1600, 2 ** 20])
def test_tree_is_exactly_the_gaussian_with_depth_sensitivity(sigma, steps):
    depth = _depth_by_listing(steps) if steps <= 1600 else 21
    f = tree_aggregation(sigma, steps)
    assert f == fdp.Gaussian(math.sqrt(depth) / sigma)
    assert type(f) is fdp.Gaussian
    assert f.status is fdp.Status.EXACT


def test_sensitivity_scales_mu():
    f = tree_aggregation(2.0, 7, sensitivity=3.0)       # depth 3
    assert f.mu == pytest.approx(3.0 * math.sqrt(3.0) / 2.0, rel=1e-15)


def test_several_trees_compose_or_take_the_deepest():
    counts = [10, 40, 30, 20]                           # depths 4, 6, 5, 5
    depths = [_depth_by_listing(t) for t in counts]
    assert depths == [4, 6, 5, 5]
    sigma = 1.7
    composed = tree_aggregation(sigma, counts)
    assert composed.mu == pytest.approx(math.sqrt(sum(depths)) / sigma, rel=1e-15)
    # the composition of the separate trees, by the closed-form G ⊗ G rule
    separate = fdp.compose(*[tree_aggregation(sigma, t) for t in counts])
    assert composed.mu == pytest.approx(separate.mu, rel=1e-14)
    once = tree_aggregation(sigma, counts, single_epoch=True)
    assert once == tree_aggregation(sigma, 40)
    # a numpy array and a tuple are sequences of counts too
    assert tree_aggregation(sigma, np.array(counts)) == composed
    assert tree_aggregation(sigma, tuple(counts)) == composed
    # empty trees release nothing
    assert tree_aggregation(sigma, [0, 40]) == tree_aggregation(sigma, 40)


def test_single_epoch_matches_dp_accounting_rdp():
    """dp_accounting charges RDP α·max_depth/(2σ²) under REPLACE_SPECIAL; the RDP of
    G_μ is αμ²/2 (Mironov 2017, Table II)."""
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    pa = pytest.importorskip("dp_accounting.privacy_accountant")
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    orders = [2.0, 8.0, 32.0]
    for sigma, counts in [(1.13, 1600), (0.7, [10, 40, 30, 20]), (3.0, [400] * 4)]:
        acct = rdp.RdpAccountant(orders, pa.NeighboringRelation.REPLACE_SPECIAL)
        acct.compose(dp_event.SingleEpochTreeAggregationDpEvent(sigma, counts))
        mu = tree_aggregation(sigma, counts, single_epoch=True).mu
        np.testing.assert_allclose(acct._rdp, [a * mu * mu / 2 for a in orders],
                                   rtol=1e-13)


@pytest.mark.parametrize("sigma,rdp_eps", [(1.13, 19.74), (8.83, 2.04)])
def test_stackoverflow_setting_beats_the_rdp_bound(sigma, rdp_eps):
    """dp_accounting's test (Kairouz et al. 2021, StackOverflow, T = 1600, δ = 1e-6)
    asserts ε < 19.74 and ε < 2.04 by RDP; the exact GDP ε is below and agrees with
    an mpmath root of the profile."""
    f = tree_aggregation(sigma, 1600)
    lo, hi = f.epsilon_bounds(1e-6)
    truth = _gdp_epsilon(math.sqrt(11) / sigma, mp.mpf("1e-6"))
    assert lo <= truth <= hi
    assert hi < rdp_eps
    assert float(truth) == pytest.approx({1.13: 17.66675076, 8.83: 1.64865884}[sigma],
                                         rel=1e-8)


@pytest.mark.parametrize("kwargs,needle", [
    ({"noise_multiplier": 0.0, "steps": 5}, "noise_multiplier"),
    ({"noise_multiplier": -1.0, "steps": 5}, "noise_multiplier"),
    ({"noise_multiplier": float("nan"), "steps": 5}, "noise_multiplier"),
    ({"noise_multiplier": 1.0, "steps": -1}, "steps"),
    ({"noise_multiplier": 1.0, "steps": 2.5}, "steps"),
    ({"noise_multiplier": 1.0, "steps": []}, "steps"),
    ({"noise_multiplier": 1.0, "steps": [3, -2]}, "steps"),
    ({"noise_multiplier": 1.0, "steps": 5, "sensitivity": 0.0}, "sensitivity"),
    ({"noise_multiplier": 1e-320, "steps": 5}, "noise_multiplier"),
])
def test_bad_input_names_the_parameter(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        tree_aggregation(**kwargs)


def test_bad_types():
    with pytest.raises(TypeError, match="steps"):
        tree_aggregation(1.0, "12")
    with pytest.raises(TypeError, match="single_epoch"):
        tree_aggregation(1.0, 12, single_epoch=1)


# -- amplified banded MF -------------------------------------------------------------
def _band_strategy(n: int, b: int, entry: float = 0.5) -> np.ndarray:
    """C[i, j] = entry for 0 ≤ i − j < b: lower-triangular, b-banded."""
    i, j = np.indices((n, n))
    return np.where((i - j >= 0) & (i - j < b), entry, 0.0)


def _same(f, g):
    alpha = np.linspace(0.0, 1.0, 41)
    lf, hf = f.bounds(alpha)
    lg, hg = g.bounds(alpha)
    assert np.array_equal(lf, lg) and np.array_equal(hf, hg)
    assert tuple(f.epsilon_bounds(1e-5)) == tuple(g.epsilon_bounds(1e-5))
    assert repr(f) == repr(g)


@pytest.mark.parametrize("n,b,steps", [(10, 4, 3), (12, 4, 3), (7, 1, 7), (5, 9, 1),
                                       (16, 16, 1), (17, 16, 2)])
def test_banded_mf_is_dpsgd_with_ceil_n_over_b_steps(n, b, steps):
    assert steps == math.ceil(n / b)
    f = banded_mf(1.1, 0.05, n, b)
    g = fdp.dpsgd(1.1, 0.05, steps)
    assert f == g
    _same(f, g)


def test_banded_mf_with_a_unit_column_strategy():
    # b = 4 entries of 1/2: column norms exactly 1 (the last columns less)
    c = _band_strategy(12, 4)
    assert column_norm(c) == 1.0
    f = banded_mf(0.9, 0.1, 12, 4, strategy=c)
    assert f == fdp.dpsgd(0.9, 0.1, 3)
    _same(f, fdp.dpsgd(0.9, 0.1, 3))
    # smaller columns: still the unit-norm guarantee (a bound), the same object
    assert banded_mf(0.9, 0.1, 12, 4, strategy=0.5 * c) == fdp.dpsgd(0.9, 0.1, 3)


def test_banded_mf_scales_the_sensitivity_by_the_largest_column_norm():
    c = 2.0 * _band_strategy(8, 4)                     # column norms 2
    f = banded_mf(1.0, 0.1, 8, 4, strategy=c)
    assert f == fdp.dpsgd(1.0, 0.1, 2, sensitivity=2.0)
    # G_{2/σ} = G_{1/(σ/2)}: the normalised strategy with half the noise
    lo, hi = f.epsilon_bounds(1e-5)
    lo2, hi2 = fdp.dpsgd(0.5, 0.1, 2).epsilon_bounds(1e-5)
    assert max(lo, lo2) <= min(hi, hi2)


def test_column_norm_is_an_upper_bound_within_ulps_of_mpmath():
    rng = np.random.default_rng(3)
    for _ in range(20):
        c = np.tril(rng.normal(size=(6, 6)))
        c /= np.linalg.norm(c, axis=0)                 # normalised in floating point
        kappa = column_norm(c)
        exact = max(mp.sqrt(mp.fsum(mp.mpf(float(x)) ** 2 for x in c[:, j]))
                    for j in range(6))
        assert kappa >= exact
        assert kappa - exact <= 4 * 2.0 ** -52
    assert column_norm(np.eye(5)) == 1.0
    assert column_norm(np.tril(np.ones((4, 4)))) == 2.0


@pytest.mark.parametrize("strategy,needle", [
    (np.triu(np.ones((4, 4))), "lower-triangular"),
    (np.tril(np.ones((4, 4))), "2-banded"),
    (np.eye(3), "4 × 4"),
    (np.ones((4, 3)), "square"),
    (np.full((4, 4), np.nan), "finite"),
    (np.zeros((4, 4)), "non-zero column"),
])
def test_banded_mf_refuses_bad_strategies(strategy, needle):
    with pytest.raises(ValueError, match=needle):
        banded_mf(1.0, 0.1, 4, 2, strategy=strategy)


@pytest.mark.parametrize("args,needle", [
    ((0.0, 0.1, 4, 2), "noise_multiplier"),
    ((1.0, 1.5, 4, 2), "sample_rate"),
    ((1.0, 0.1, -1, 2), "iterations"),
    ((1.0, 0.1, 4, 0), "bands"),
])
def test_banded_mf_bad_parameters(args, needle):
    with pytest.raises(ValueError, match=needle):
        banded_mf(*args)


# -- multi-epoch MF sensitivity ------------------------------------------------------
def _patterns_brute(n: int, k: int, b: int):
    """Every non-empty set of at most k iterations of range(n), gaps ≥ b."""
    for size in range(1, k + 1):
        for combo in itertools.combinations(range(n), size):
            if all(y - x >= b for x, y in itertools.pairwise(combo)):
                yield combo


def _brute_equal_gradients(c: np.ndarray, k: int, b: int) -> float:
    """max over patterns of |C u_π|² (one unit gradient repeated), by matrix products."""
    n = c.shape[1]
    best = 0.0
    for combo in _patterns_brute(n, k, b):
        u = np.zeros(n)
        u[list(combo)] = 1.0
        v = c @ u
        best = max(best, float(v @ v))
    return best


def _gdp_beta(mu, alpha):
    return mp.ncdf(mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(alpha)) - mu)


@pytest.mark.parametrize("n,k,b", [(6, 1, 1), (6, 3, 1), (7, 3, 2), (8, 2, 3), (8, 4, 2),
                                   (9, 9, 1), (5, 2, 5)])
def test_pattern_count_matches_listing(n, k, b):
    assert count_patterns(n, k, b) == sum(1 for _ in _patterns_brute(n, k, b))


@pytest.mark.parametrize("n,k,b", [(6, 3, 1), (7, 3, 2), (8, 2, 3), (8, 4, 2), (9, 3, 3)])
def test_non_negative_strategies_are_exact_against_brute_force(n, k, b):
    rng = np.random.default_rng(n * 100 + k * 10 + b)
    for _ in range(4):
        c = np.tril(rng.uniform(0.0, 1.0, size=(n, n)))
        s = mf_sensitivity(c, k, b)
        truth = math.sqrt(_brute_equal_gradients(c, k, b))
        assert s.exact and s.method == "enumeration"
        assert s.lower == s.upper == pytest.approx(truth, rel=1e-13)
        assert s.patterns == count_patterns(n, k, b)


@pytest.mark.parametrize("n,k,b", [(10, 4, 3), (10, 10, 1), (16, 3, 5), (7, 2, 7)])
def test_identity_strategy_has_sensitivity_root_k(n, k, b):
    most = min(k, math.ceil(n / b))           # participations that fit in n iterations
    s = mf_sensitivity(np.eye(n), k, b)
    assert s.exact and s.upper == math.sqrt(most)
    sigma = 1.3
    assert multi_epoch_mf(sigma, np.eye(n), k, b) == fdp.Gaussian(math.sqrt(most) / sigma)


@pytest.mark.parametrize("n,k,b", [(12, 3, 4), (12, 2, 6), (10, 5, 2), (9, 1, 1)])
def test_prefix_sum_strategy(n, k, b):
    c = np.tril(np.ones((n, n)))
    s = mf_sensitivity(c, k, b)
    # the earliest pattern {0, b, 2b, …} is the maximiser: Σ_r (participations ≤ r)²
    counts = [sum(1 for p in range(0, min(k * b, n), b) if p <= r) for r in range(n)]
    assert s.exact
    assert s.upper ** 2 == pytest.approx(sum(x * x for x in counts), rel=1e-15)
    assert s.upper ** 2 == pytest.approx(_brute_equal_gradients(c, k, b), rel=1e-15)
    f = multi_epoch_mf(2.0, c, k, b)
    assert f == fdp.Gaussian(s.upper / 2.0) and f.status is fdp.Status.EXACT


def test_two_participations_are_exact_for_any_signs():
    """k = 2: sup over |g_i| ≤ 1 of M_ii + M_jj + 2 M_ij⟨g_i, g_j⟩ is M_ii + M_jj + 2|M_ij|."""
    rng = np.random.default_rng(11)
    n = 7
    for b in (1, 2, 3):
        c = np.tril(rng.normal(size=(n, n)))
        m = c.T @ c
        truth = max([m[i, i] for i in range(n)]
                    + [m[i, i] + m[j, j] + 2 * abs(m[i, j])
                       for i in range(n) for j in range(i + b, n)])
        s = mf_sensitivity(c, 2, b)
        assert s.exact
        assert s.upper == pytest.approx(math.sqrt(truth), rel=1e-13)


def _frustrated_triangle() -> np.ndarray:
    """Three unit columns at 120°: M_ij = −1/2 off the diagonal (unbalanced signs)."""
    r = math.sqrt(3.0) / 2.0
    return np.array([[1.0, -0.5, -0.5], [0.0, r, -r], [0.0, 0.0, 0.0]])


def test_unbalanced_signs_give_a_certified_bracket_around_the_sdp_value():
    """Three participations with M_ii = 1, M_ij = −1/2: Σ M_ij⟨g_i, g_j⟩ =
    Σ|g_i|² − Σ_{i<j}⟨g_i, g_j⟩ ≤ 3 + 3/2 = 4.5 (Σ_{i<j}⟨g_i, g_j⟩ ≥ −3/2 since
    |Σ g_i|² ≥ 0), attained by unit g_i at 120°; the |M| bound is 6."""
    c = _frustrated_triangle()
    s = mf_sensitivity(c, 3, 1)
    assert not s.exact
    assert s.lower <= math.sqrt(4.5) <= s.upper
    assert s.upper == pytest.approx(math.sqrt(6.0), rel=1e-13)   # Σ|M_ij|
    assert s.lower == pytest.approx(math.sqrt(3.0), rel=1e-13)   # a pair, aligned
    # random unit gradients never beat the bracket's upper side
    rng = np.random.default_rng(5)
    m = c.T @ c
    g = rng.normal(size=(20000, 3, 3))
    g /= np.linalg.norm(g, axis=2, keepdims=True)
    vals = np.einsum("ij,sid,sjd->s", m, g, g)
    assert vals.max() <= s.upper ** 2
    assert vals.max() > 4.4                                      # the SDP value is near


def test_multi_epoch_mf_certified_bracket_contains_the_true_gaussian():
    sigma = 1.5
    f = multi_epoch_mf(sigma, _frustrated_triangle(), 3, 1)
    assert isinstance(f, GaussianRange) and f.status is fdp.Status.CERTIFIED
    assert "(3, 1)-participation" in repr(f)
    mu = mp.sqrt(4.5) / sigma
    for a in (1e-6, 0.01, 0.2, 0.5, 0.9):
        lo, hi = f.bounds(a)
        assert lo <= _gdp_beta(mu, a) <= hi
    lo, hi = f.epsilon_bounds(1e-5)
    assert lo <= _gdp_epsilon(mu, mp.mpf("1e-5")) <= hi
    # composed by the engine: still a bracket of the truth G_√(μ² + 1)
    g = f @ fdp.Gaussian(1.0)
    assert g.status is fdp.Status.CERTIFIED
    lo, hi = g.epsilon_bounds(1e-5)
    assert lo <= _gdp_epsilon(mp.sqrt(mu ** 2 + 1), mp.mpf("1e-5")) <= hi


@pytest.mark.parametrize("sign", ["non-negative", "mixed"])
def test_dynamic_programme_bound_brackets_the_enumerated_value(sign):
    rng = np.random.default_rng(7)
    n = 10
    for k, b in [(3, 2), (4, 1), (2, 4)]:
        c = np.tril(rng.uniform(0.0, 1.0, size=(n, n)) if sign == "non-negative"
                    else rng.normal(size=(n, n)))
        full = mf_sensitivity(c, k, b)
        dp = mf_sensitivity(c, k, b, max_patterns=1)
        assert dp.method == "dynamic programme" and not dp.exact
        assert dp.lower <= full.lower and full.upper <= dp.upper
        if sign == "non-negative":
            assert dp.lower <= math.sqrt(_brute_equal_gradients(c, k, b)) <= dp.upper


def test_large_prefix_sum_is_bracketed_tightly():
    n, k, b = 512, 4, 128
    s = mf_sensitivity(np.tril(np.ones((n, n))), k, b)
    assert s.method == "dynamic programme"
    truth = math.sqrt(128 * (1 + 4 + 9 + 16))          # pattern {0, 128, 256, 384}
    assert s.lower <= truth <= s.upper
    assert s.upper - s.lower <= 1e-10 * truth


@pytest.mark.parametrize("args,needle", [
    ((np.eye(3), 0, 1), "k"),
    ((np.eye(3), 1, 0), "b"),
    ((np.ones((2, 3)), 1, 1), "square"),
    ((np.array([[np.inf]]), 1, 1), "finite"),
])
def test_mf_sensitivity_bad_input(args, needle):
    with pytest.raises(ValueError, match=needle):
        mf_sensitivity(*args)
    with pytest.raises(ValueError, match=needle):
        multi_epoch_mf(1.0, *args)


def test_multi_epoch_mf_bad_sigma_and_range():
    with pytest.raises(ValueError, match="noise_multiplier"):
        multi_epoch_mf(0.0, np.eye(3), 1, 1)
    with pytest.raises(ValueError, match="mu_hi"):
        GaussianRange(2.0, 1.0)


def test_gaussian_range_read_outs_bracket_every_gaussian_inside():
    """Every G_μ with μ in [mu_lo, mu_hi] lies inside the bracket, through the
    operations too (closed forms G_{√3 μ} for f ** 3, G_{2μ} for groups of 2)."""
    f = GaussianRange(1.0, 1.2, "test")
    assert f.gdp_mu() == 1.2
    assert tuple(f.gdp_mu_bounds()) == (1.0, 1.2)
    alpha = np.array([1e-4, 0.01, 0.1, 0.5])
    for mu in (1.0, 1.1, 1.2):
        lo, hi = f.bounds(alpha)
        truth = np.array([float(_gdp_beta(mu, a)) for a in alpha])
        assert np.all(lo <= truth) and np.all(truth <= hi)
        lo, hi = (f ** 3).epsilon_bounds(1e-5)
        assert lo <= _gdp_epsilon(math.sqrt(3) * mu, mp.mpf("1e-5")) <= hi
        lo, hi = f.group(2).bounds(0.1)
        assert lo <= _gdp_beta(2 * mu, 0.1) <= hi
    assert (f ** 3).status is fdp.Status.CERTIFIED
    acct = fdp.Accountant(budget=fdp.Gaussian(2.0))
    acct.spend(f)                                  # a guarantee: may be spent


def test_single_participation_is_the_largest_column_norm_even_for_large_n():
    n = 300
    c = np.tril(np.ones((n, n)))
    s = mf_sensitivity(c, 1, 1)
    assert s.exact and s.upper == math.sqrt(n) == column_norm(c)
    # the square root of the prefix-sum matrix (Toeplitz, r_j = C(2j, j)/4^j, Denisov et
    # al. 2022): non-negative, first column the largest
    r = [math.comb(2 * j, j) / 4 ** j for j in range(40)]
    root = np.array([[r[i - j] if i >= j else 0.0 for j in range(40)] for i in range(40)])
    s = mf_sensitivity(root, 1, 1)
    assert s.exact
    assert s.upper == pytest.approx(float(mp.sqrt(mp.fsum(mp.mpf(x) ** 2 for x in r))),
                                    rel=1e-14)
    assert banded_mf(1.0, 0.1, 0, 3) == fdp.Identity()


# -- BandMF attains the DP-SGD curve: an instance computed from C ---------------------
def _lognormal_call(k, mu):
    """E[(W − k)₊] for W = e^{μZ − μ²/2}, Z ~ N(0, 1) (Black–Scholes)."""
    if k <= 0:
        return 1 - k
    d1 = (-mp.log(k) + mu * mu / 2) / mu
    return mp.ncdf(d1) - k * mp.ncdf(d1 - mu)


def _two_block_profile(mu1, mu2, q, eps):
    """max(δ_add, δ_remove) at ε of the pair (N(0, I), Σ_S q^|S| (1−q)^{2−|S|} N(v_S, I))
    whose two shifts are orthogonal with norms μ1, μ2: the likelihood ratio is R1·R2 with
    R_j = 1 − q + q e^{μ_j Z_j − μ_j²/2}; one mpmath quadrature over Z1 of the closed-form
    expectation over Z2."""
    e = mp.exp(eps)

    def r(z, mu):
        return 1 - q + q * mp.exp(mu * z - mu * mu / 2)

    def h(c):                                   # E[(R2 − c)₊]
        return 1 - c if c <= 1 - q else q * _lognormal_call((c - (1 - q)) / q, mu2)

    def add(z):
        r1 = r(z, mu1)
        return mp.npdf(z) * r1 * h(e / r1)

    def rem(z):                                 # E[(1 − a R2)₊] = a (1/a − 1 + h(1/a))
        a = e * r(z, mu1)
        return mp.npdf(z) * a * (1 / a - 1 + h(1 / a))

    return max(mp.quad(add, [-mp.inf, 0, mp.inf]), mp.quad(rem, [-mp.inf, 0, mp.inf]))


def test_banded_strategy_with_unit_columns_attains_the_dpsgd_curve():
    """n = 4, b = 2, a record of group 0 (eligible at iterations 0 and 2), every other
    gradient zero: the release is N(x₀ C[:, 0] + x₂ C[:, 2], σ² I) with x_j ~ Bern(q).
    The two columns of this C have norm 1 and disjoint supports, so the pair is computed
    here from C's columns; its profile lies in the bracket of banded_mf (DP-SGD, 2 steps)."""
    r = math.sqrt(0.5)
    c = np.array([[0.6, 0, 0, 0], [0.8, r, 0, 0], [0, r, 0.6, 0], [0, 0, 0.8, 1.0]])
    check = c[:, 0] @ c[:, 2]
    assert check == 0.0
    sigma, q = 0.8, 0.3
    mu1 = mp.sqrt(mp.fsum(mp.mpf(float(x)) ** 2 for x in c[:, 0])) / mp.mpf(sigma)
    mu2 = mp.sqrt(mp.fsum(mp.mpf(float(x)) ** 2 for x in c[:, 2])) / mp.mpf(sigma)
    f = banded_mf(sigma, q, 4, 2, strategy=c)
    mp.mp.dps = 30
    for eps in (0.0, 0.5, 1.5, 3.0):
        truth = _two_block_profile(mu1, mu2, mp.mpf(q), mp.mpf(eps))
        lo, hi = f.delta_bounds(eps)
        # the stored 0.6, 0.8 make |C[:, j]| = 1 ± 1e-16: within the bracket's slack
        assert lo * (1 - 1e-12) <= truth <= hi * (1 + 1e-12), (eps, lo, float(truth), hi)
    mp.mp.dps = 40
