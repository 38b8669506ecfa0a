"""Empirical auditing: every mechanism meets its own guarantee; broken claims are caught.

Also the summaries of point sets (R package fdp's documented value).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import fdp
from fdp import audit
from fdp.mechanisms import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
)

EM_U = np.zeros(60)
EM_UP = -np.ones(60)
EM_UP[0] = 1.0   # worst case: one candidate up by Δ, all others down by Δ


@pytest.mark.parametrize("mech,n,inputs", [
    (GaussianMechanism(1.0, 1.0), 100_000, None),
    (GaussianMechanism(2.0, 0.8), 100_000, None),
    (LaplaceMechanism(1.0, 1.0), 100_000, None),
    (LaplaceMechanism(0.5, 0.25), 100_000, None),
    (RandomizedResponseMechanism(1.0, 2), 100_000, None),
    (RandomizedResponseMechanism(1.5, 5), 100_000, None),
    (ExponentialMechanism(None, 1.0, 1.0), 100_000, (EM_U, EM_UP)),
    (DiscreteLaplaceMechanism(2, Fraction(3, 2)), 20_000, None),
    (DiscreteGaussianMechanism(1, Fraction(1)), 20_000, None),
], ids=lambda x: type(x).__name__ if not isinstance(x, (int, tuple)) else None)
def test_every_mechanism_meets_its_own_guarantee(mech, n, inputs):
    res = audit.check(mech, n=n, rng=2024, inputs=inputs)
    assert res.passed, res.summary()
    assert bool(res)
    # and the audit is informative: the conservative hull is away from Id
    assert res.estimate.tradeoff.advantage() > 0.01


def test_gaussian_with_too_little_noise_is_caught():
    # σ = 0.5 for Δ = 1 is 2-GDP; claiming G_1 (noise "too small for the claim").
    broken = GaussianMechanism(1.0, 0.5)
    res = audit.check(broken, fdp.Gaussian(1.0), n=100_000, rng=7)
    assert not res.passed
    assert len(res.violations) > 0
    a = res.alphas
    assert np.all((a > 0) & (a < 1))
    # each reported violation is real: the true curve G_2 is below the claim there
    for v in res.violations:
        true_beta = fdp.Gaussian(2.0)(v.alpha)
        assert true_beta <= v.beta_upper
        assert v.claimed > v.beta_upper
    assert "violated" in res.summary()


def test_mild_overclaims_are_caught():
    # true μ = 1.3, claimed 1.0
    res = audit.check(GaussianMechanism(1.0, 1 / 1.3), fdp.Gaussian(1.0), n=100_000, rng=8)
    assert not res.passed
    # Laplace L_1 claimed as f_{0.5,0}
    res = audit.check(LaplaceMechanism(1.0, 1.0), fdp.EpsDelta(0.5), n=100_000, rng=9)
    assert not res.passed
    # exponential mechanism at ε = 1 claimed as ε = 0.5
    res = audit.check(ExponentialMechanism(None, 1.0, 1.0), fdp.EpsDelta(0.5), n=100_000,
                      rng=10, inputs=(EM_U, EM_UP))
    assert not res.passed


def test_false_alarm_rate_is_controlled():
    # 40 audits of a correct claim at 90% confidence: at most 10% should fail on average.
    m = GaussianMechanism(1.0, 1.0)
    fails = sum(not audit.check(m, n=3000, rng=s, confidence=0.9, n_thresholds=20).passed
                for s in range(40))
    assert fails <= 8   # Binomial(40, 0.1) exceeds 8 with probability < 0.05


def test_conservative_hull_lies_above_the_true_curve():
    m = GaussianMechanism(1.0, 1.0)
    rng = np.random.default_rng(1)
    x, y = m.sample(0.0, 50_000, rng), m.sample(1.0, 50_000, rng)
    est = audit.estimate(x, y, confidence=0.95)
    a = np.linspace(0, 1, 2001)
    assert np.all(est.tradeoff(a) >= fdp.Gaussian(1.0)(a) - 1e-12)
    # point estimates are close to the truth
    ok = est.orientation == 1
    err = np.abs(est.beta[ok] - fdp.Gaussian(1.0)(est.alpha[ok]))
    assert np.max(err) < 0.02
    # intervals contain the point estimates
    assert np.all(est.alpha_lower <= est.alpha) and np.all(est.alpha <= est.alpha_upper)
    assert np.all(est.beta_lower <= est.beta) and np.all(est.beta <= est.beta_upper)
    assert 0.9 < est.mu_lower_bound() <= 1.0


def test_clopper_pearson_matches_the_definition():
    # Upper limit u solves P[Bin(n, u) <= k] = γ/2; lower l solves P[Bin(n, l) >= k] = γ/2.
    n, gamma = 50, 0.05
    for k in (0, 3, 25, 50):
        lo, hi = audit.clopper_pearson(k, n, gamma)
        if k < n:
            assert stats.binom.cdf(k, n, float(hi)) == pytest.approx(gamma / 2, rel=1e-8)
        else:
            assert hi == 1.0
        if k > 0:
            assert stats.binom.sf(k - 1, n, float(lo)) == pytest.approx(gamma / 2, rel=1e-8)
        else:
            assert lo == 0.0


def _laplace_log_ratio(o):
    # rounded to 1e-9: the float rounding pattern of log q − log p must not act as a score
    lr = np.log(stats.laplace.pdf(o, 1, 1)) - np.log(stats.laplace.pdf(o, 0, 1))
    return np.round(lr, 9)


def test_likelihood_ratio_tests_from_densities():
    rng = np.random.default_rng(3)
    x = rng.laplace(0.0, 1.0, 60_000)
    y = 1.0 + rng.laplace(0.0, 1.0, 60_000)
    dens = (lambda o: stats.laplace.pdf(o, 0, 1), lambda o: stats.laplace.pdf(o, 1, 1))
    res = audit.check((x, y), fdp.Laplace(1.0), log_ratio=_laplace_log_ratio)
    assert res.passed, res.summary()
    assert np.all(res.estimate.orientation == 1)   # Neyman–Pearson direction only
    # Laplace loss takes values in [−1, 1]: ε lower bound at δ = 0 must not exceed 1
    eps_lb = res.estimate.epsilon_lower_bound()
    assert 0.7 < eps_lb <= 1.0
    res = audit.check((x, y), fdp.EpsDelta(0.5), densities=dens)
    assert not res.passed


def test_floating_point_laplace_leaks_through_low_order_bits():
    """Mironov (2012) in miniature: the float program is not L_1-DP.

    Outputs 0 + Z and 1 + Z (Z a double-precision Laplace sample) have different
    low-order bit patterns, and the *unrounded* float log-likelihood ratio picks them
    up: on the atom {o ≥ 1} (true loss exactly 1) the tests split the atom by rounding
    pattern, and some part has Q/P ratio far above e. The audit refutes L_1 for the
    floating-point program, although the real-valued mechanism is exactly L_1-DP.
    """
    m = LaplaceMechanism(1.0, 1.0)
    rng = np.random.default_rng(3)
    x, y = m.sample(0.0, 100_000, rng), m.sample(1.0, 100_000, rng)

    def float_log_ratio(o):
        return np.log(stats.laplace.pdf(o, 1, 1)) - np.log(stats.laplace.pdf(o, 0, 1))

    assert not audit.check((x, y), fdp.Laplace(1.0), log_ratio=float_log_ratio).passed
    assert audit.check((x, y), fdp.Laplace(1.0), log_ratio=_laplace_log_ratio).passed


def test_samples_with_explicit_thresholds_use_every_sample():
    rng = np.random.default_rng(4)
    x, y = rng.normal(0, 1, 5000), rng.normal(1, 1, 5000)
    est = audit.estimate(x, y, thresholds=np.linspace(-2, 3, 11))
    assert est.n_d == 5000 and est.n_tests == 22


def test_too_few_samples_names_the_number_needed():
    # 100 thresholds, 2 orientations: K = 200, γ = 0.05/400 → need > log2(2/γ) ≈ 13.97.
    need = audit.min_samples(0.95, 200)
    assert need == math.floor(math.log2(2 / (0.05 / 400))) + 1 == 14
    with pytest.raises(ValueError, match=r"at least \d+ per side"):
        audit.estimate(np.arange(5.0), np.arange(5.0), thresholds=np.linspace(0, 4, 100))
    with pytest.raises(ValueError, match="at least"):
        audit.estimate(np.zeros(30), np.ones(30), confidence=1 - 1e-12,
                       thresholds=np.linspace(0, 1, 50))
    # just enough works
    x = np.arange(need, dtype=float)
    audit.estimate(x, x + 1, thresholds=np.linspace(0, need, 100))


def test_min_samples_rule_is_the_informative_threshold():
    # with n = need, zero errors give a point below Id; with need − 1 they cannot
    c, k = 0.95, 10
    need = audit.min_samples(c, k)
    gamma = (1 - c) / (2 * k)
    u = lambda n: 1 - (gamma / 2) ** (1 / n)
    assert 2 * u(need) < 1 <= 2 * u(need - 1)


def test_audit_bad_input():
    with pytest.raises(ValueError, match="confidence"):
        audit.estimate(np.zeros(100), np.ones(100), confidence=1.0)
    with pytest.raises(ValueError, match="NaN"):
        audit.estimate(np.array([0.0, np.nan] * 50), np.ones(100))
    with pytest.raises(ValueError, match="1-D"):
        audit.estimate(np.zeros((10, 10)), np.zeros((10, 10)))
    with pytest.raises(ValueError, match="claimed_f"):
        audit.check((np.zeros(100), np.ones(100)))
    with pytest.raises(TypeError, match="mechanism"):
        audit.check(42, fdp.Gaussian(1.0))
    with pytest.raises(ValueError, match="at most one"):
        audit.estimate(np.zeros(100), np.ones(100), log_ratio=lambda o: o,
                       densities=(np.exp, np.exp))


# ----------------------------------------------------------------------
# Summaries of point sets (R package fdp, est_epsdelta documentation)
# ----------------------------------------------------------------------
def test_r_fdp_documented_pure_epsilon_of_gaussian_points():
    """G_0.5 on the grid 0, 0.01, …, 1, δ = 0: R's est_epsdelta prints ε = 1.45.

    R (louisaslett/fdp, R/est_epsdelta.R) compares f_{ε,0}(α_i) ≤ β_i at the 101 points,
    finds the root with uniroot, rounds UP to dp = 2 decimals and steps by 0.01 while a
    point is violated. The binding point is α = 0.99 on the flat branch:
    ε = −log(G_0.5(0.99)/0.01) = 1.44642444498466 exactly, which rounds up to 1.45.
    """
    a = np.linspace(0.0, 1.0, 101)
    f = fdp.from_points(a, fdp.Gaussian(0.5)(a))
    eps = f.pure_epsilon()
    mp.mp.dps = 30
    al = mp.mpf("0.99")
    z = mp.sqrt(2) * mp.erfinv(2 * (1 - al) - 1)
    exact = -mp.log(mp.ncdf(z - mp.mpf("0.5")) / (1 - al))
    assert eps == pytest.approx(float(exact), rel=1e-12)
    assert math.ceil(eps * 100) / 100 == 1.45
    # R's loop: f_{ε,0} ≤ points at 1.45, violated at 1.44
    b = fdp.Gaussian(0.5)(a)
    assert np.all(fdp.EpsDelta(1.45)(a) <= b + np.finfo(float).eps)
    assert np.any(fdp.EpsDelta(1.44)(a) > b + np.finfo(float).eps)
    # the exact GDP conversion at ε = 1.45 (DRS Cor 2.13), as the R docs state
    assert fdp.gdp_delta(0.5, 1.45) == pytest.approx(0.000544, abs=5e-7)
    # gdp_mu of the points: G_0.5 itself at the vertices
    assert f.gdp_mu() == pytest.approx(0.5, rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(200, 2000), st.floats(0.0, 3.0), st.integers(0, 2 ** 31),
       st.floats(0.5, 0.99))
def test_estimate_hull_is_a_tradeoff_function(n, shift, seed, confidence):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(0, 1, n), rng.normal(shift, 1, n)
    est = audit.estimate(x, y, confidence=confidence, n_thresholds=20)
    a = np.linspace(0, 1, 501)
    b = est.tradeoff(a)
    assert np.all(b <= 1 - a + 1e-15)              # below Id
    assert np.all(np.diff(b) <= 1e-15)             # non-increasing
    assert np.all(b[:-2] + b[2:] - 2 * b[1:-1] >= -1e-12)   # convex
    # every conservative point lies on or above the hull
    assert np.all(est.beta_upper >= est.tradeoff(est.alpha_upper) - 1e-12)
