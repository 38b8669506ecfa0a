"""f-DP in one run (Mahloujifar, Melis & Chaudhuri 2024) for any claimed curve: the f_{ε,0}
reduction to the binomial test, jax_privacy's reference values, and the false-refutation
rate of a true claim over simulated runs of the exact mechanism."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.special
import scipy.stats

import fdp
from fdp.audit import (
    OneRunAudit,
    blow_up_inverse,
    guess_counts,
    max_refutable_mu,
    one_run,
    steinke_p_value,
)
from fdp.audit.fdp_one_run import mu_lower_bounds, refutes
from fdp.status import NotAGuarantee


@pytest.mark.parametrize("r", [10, 20, 100])
@pytest.mark.parametrize("tau", [0.05, 0.01])
def test_pure_dp_claim_all_correct_matches_binomial_test(r: int, tau: float) -> None:
    """f = f_{ε,0}, v = r: refuted iff expit(ε)^r ≤ τ, i.e. ε ≤ logit(τ^{1/r})."""
    t = tau ** (1.0 / r)
    edge = math.log(t / (1 - t))
    binv_below = blow_up_inverse(fdp.EpsDelta(edge * (1 - 1e-6), 0.0))
    binv_above = blow_up_inverse(fdp.EpsDelta(edge * (1 + 1e-6), 0.0))
    assert refutes(binv_below, 10 * r, r, r, tau)
    assert not refutes(binv_above, 10 * r, r, r, tau)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_generic_blow_up_inverse_matches_gaussian_closed_form(mu: float) -> None:
    """Gaussian closed form B⁻¹(y) = Φ(Φ⁻¹(y) − μ) against scipy; the generic grid path
    against Id (a piecewise-linear object), where B⁻¹(y) = y: never above it (the safe
    side) and at most one logit-grid cell (7.5e-4 in logit) below."""
    y = np.array([1e-6, 1e-3, 0.1, 0.5, 0.9])
    closed = scipy.stats.norm.cdf(scipy.stats.norm.ppf(y) - mu)
    generic = blow_up_inverse(fdp.from_points(np.linspace(0, 1, 3), 1 - np.linspace(0, 1, 3)))
    g = generic(y)
    assert np.all(g <= y) and np.all(y - g <= 7.6e-4 * y * (1 - y))      # Id: B⁻¹(y) = y
    generic_gauss = blow_up_inverse(fdp.Gaussian(mu) @ fdp.Identity())  # forced generic
    assert np.all(generic_gauss(y) <= closed * (1 + 1e-12))
    assert np.allclose(blow_up_inverse(fdp.Gaussian(mu))(y), closed, rtol=1e-12)


def test_max_refutable_mu_is_the_edge() -> None:
    mu = max_refutable_mu(1000, 20, 0.05)
    binv = blow_up_inverse
    assert refutes(binv(fdp.Gaussian(mu)), 1000, 20, 20, 0.05)
    assert not refutes(binv(fdp.Gaussian(mu * (1 + 1e-6))), 1000, 20, 20, 0.05)
    assert max_refutable_mu(1000, 100) > mu


def test_result_is_plain_data_and_refuses_non_guarantees() -> None:
    res = one_run(fdp.Gaussian(0.5), counts=(1000, 20, 20))
    assert isinstance(res, OneRunAudit) and res.refuted
    assert pickle.loads(pickle.dumps(res)) == res
    assert res.claim == "Gaussian(mu=0.5)" and res.n_tests == 1
    with pytest.raises(NotAGuarantee):
        one_run(fdp.edgeworth([fdp.Laplace(1.0)] * 3), counts=(1000, 20, 20))
    with pytest.raises(ValueError, match="significance"):
        one_run(fdp.Gaussian(1.0), counts=(10, 5, 5), significance=1.5)
    with pytest.raises(ValueError, match="v"):
        one_run(fdp.Gaussian(1.0), counts=(10, 5, 6))


def test_negative_evidence_gives_zero() -> None:
    rng = np.random.default_rng(0)
    res = one_run(fdp.Gaussian(1.0), rng.normal(size=200), rng.normal(size=200) + 1.0)
    assert (res.epsilon_lower_bound, res.mu_lower_bound, res.refuted) == (0.0, 0.0, False)


def _deterministic_normal(mu: float, n: int) -> np.ndarray:
    return scipy.stats.norm.ppf(np.linspace(0, 1, n, endpoint=False) + 1 / (2 * n)) + mu


@pytest.mark.parametrize("shift,expected", [(0, 0.0), (1, 2.164749), (2, 4.7218075)])
def test_jax_privacy_reference_values(shift: float, expected: float) -> None:
    """jax_privacy tests/auditing_test.py ``test_epsilon_one_run_close`` (``use_fdp``).

    Their fixture: n = 10 000 in- and 10 000 out-canary scores at the quantiles
    (i + ½)/n of N(shift, 1) and N(0, 1); m = 20 000; one-sided guesses (score ≥ t is
    "in"); significance 0.05 with Bonferroni over the ROC hull vertices
    (``correction="hull"``); δ = 1e-6. Their ε is that of the Gaussian mechanism
    calibrated to the largest refuted μ (``dp_accounting.get_sigma_gaussian``: σ = 1/μ,
    the exact ε(δ) of G_μ). Their tolerance is rtol 1e-5; we agree to 2e-7.
    """
    g = guess_counts(_deterministic_normal(shift, 10_000), _deterministic_normal(0, 10_000),
                     correction="hull")
    mu = mu_lower_bounds(g.m, g.r, g.v, 0.05 / g.n_tests)
    eps = float(fdp.Gaussian(mu).epsilon(1e-6)) if mu > 0 else 0.0
    assert eps == pytest.approx(expected, rel=1e-6, abs=1e-12)


def _simulate_top_k(mu_true: float, runs: int, m: int, k: int, seed: int) -> np.ndarray:
    """Correct guesses among the top-k scores, per run: canaries included w.p. ½, the
    score of an included canary N(μ, 1), of an excluded one N(0, 1) (the exact G_μ
    mechanism, one output per canary)."""
    rng = np.random.default_rng(seed)
    incl = rng.random((runs, m)) < 0.5
    s = rng.standard_normal((runs, m)) + mu_true * incl
    top = np.argsort(-s, axis=1)[:, :k]
    return np.take_along_axis(incl, top, axis=1).sum(axis=1)


def _margin(runs: int, tau: float) -> int:
    """Largest count of false refutations a level-τ test allows, at one-in-a-thousand."""
    return int(scipy.stats.binom.ppf(0.999, runs, tau))


@pytest.mark.parametrize("mu_true,k", [(1.0, 10), (2.0, 20), (3.0, 50)])
def test_true_claim_is_rarely_refuted_false_claim_is(mu_true: float, k: int) -> None:
    runs, m, tau = 400, 1000, 0.05
    v = _simulate_top_k(mu_true, runs, m, k, seed=int(10 * mu_true))
    true_binv = blow_up_inverse(fdp.Gaussian(mu_true))
    false_refutations = sum(refutes(true_binv, m, k, int(x), tau) for x in v)
    assert false_refutations <= _margin(runs, tau)
    if mu_true == 3.0:
        false_binv = blow_up_inverse(fdp.Gaussian(0.5))
        assert sum(refutes(false_binv, m, k, int(x), tau) for x in v) >= 0.9 * runs


def test_true_claim_score_based_with_bonferroni() -> None:
    """The full score-based audit (all one-sided thresholds, Bonferroni over all of them)
    of the true claim G_2 over seeded runs: false refutations within the level."""
    runs, m, tau, mu_true = 200, 200, 0.05, 2.0
    rng = np.random.default_rng(7)
    hits = 0
    binv = blow_up_inverse(fdp.Gaussian(mu_true))
    for _ in range(runs):
        incl = rng.random(m) < 0.5
        s = rng.standard_normal(m) + mu_true * incl
        g = guess_counts(s[incl], s[~incl])
        tau_k = tau / g.n_tests
        hits += any(refutes(binv, g.m, r, v, tau_k) for r, v in zip(g.r, g.v))
    assert hits <= _margin(runs, tau)


def test_randomized_response_true_pure_claim_level() -> None:
    """The exact mechanism of f_{ε,0} (randomised response: each of r guesses correct
    independently w.p. e^ε/(1+e^ε)) over 2000 seeded runs: the f-DP recursion with the
    true claim EpsDelta(ε, 0) refutes at most at the level (+ a binomial margin), and so
    does the binomial test of Steinke et al., which this mechanism makes nearly exact."""
    eps, r, m, runs, tau = 1.0, 100, 1000, 2000, 0.05
    q = math.exp(eps) / (1 + math.exp(eps))
    v = np.random.default_rng(11).binomial(r, q, size=runs)
    binv = blow_up_inverse(fdp.EpsDelta(eps, 0.0))
    # refutation is monotone in v: bisect for the edge v* (then checked on both sides)
    lo, hi = r // 2, r
    assert refutes(binv, m, r, hi, tau)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if refutes(binv, m, r, mid, tau) else (mid, hi)
    v_star = hi
    assert not refutes(binv, m, r, v_star - 1, tau) and refutes(binv, m, r, v_star + 1, tau)
    mmc_rate_hits = int(np.sum(v >= v_star))
    values, counts = np.unique(v, return_counts=True)
    steinke_hits = int(sum(c for x, c in zip(values, counts)
                           if steinke_p_value(m, r, int(x), eps) <= tau))
    assert mmc_rate_hits <= _margin(runs, tau)
    assert steinke_hits <= _margin(runs, tau)
    assert steinke_hits >= mmc_rate_hits        # the recursion is the more cautious here


@pytest.mark.parametrize("eps,delta", [(0.5, 0.0), (1.0, 1e-3), (3.0, 0.1)])
def test_eps_delta_closed_form_matches_generic_path(eps: float, delta: float) -> None:
    """The EpsDelta closed form of B⁻¹ against the generic grid read of the same curve
    built as a piecewise-linear object (vertices (0, 1 − δ), the kink, (1 − δ, 0)): never
    above it, at most one logit-grid cell (7.5e-4 in logit) below."""
    xk = (1 - delta) / (1 + math.exp(eps))
    pw = fdp.from_points([0.0, xk, 1 - delta, 1.0], [1 - delta, math.exp(-eps) * (1 - delta - xk),
                                                     0.0, 0.0])
    y = np.array([1e-6, 1e-3, 0.05, 0.3, 0.7, 0.99])
    closed = blow_up_inverse(fdp.EpsDelta(eps, delta))(y)
    generic = blow_up_inverse(pw)(y)
    assert np.all(generic <= closed * (1 + 1e-12) + 1e-300)
    assert np.all(closed - generic <= 7.6e-4 * closed * (1 - closed) + 1e-15)


@pytest.mark.parametrize("r", [10, 20, 100])
def test_p_value_closed_form_all_correct(r: int) -> None:
    """f_{ε,0}, v = r: refuted iff expit(ε)^r ≤ τ, so the p-value is expit(ε)^r."""
    res = one_run(fdp.EpsDelta(1.0, 0.0), counts=(10 * r, r, r))
    assert res.p_value == pytest.approx(scipy.special.expit(1.0) ** r, rel=1e-9)
    assert res.refuted == (res.p_value <= res.significance)


@pytest.mark.slow
def test_certified_numeric_claim_uses_its_lower_curve() -> None:
    """A certified (bracketed) claim: B⁻¹ is read off the lower side of the bracket, so it
    lies at or below B⁻¹ of the upper side (the curve a refutation must not use)."""
    f = fdp.Laplace(1.0) @ fdp.Gaussian(0.5)
    assert f.status.is_guarantee
    y = np.array([1e-4, 1e-2, 0.1, 0.5, 0.9])
    ours = blow_up_inverse(f)(y)
    grid = np.linspace(0.0, 1.0, 200_001)
    upper = np.asarray(f.bounds(grid).hi)
    from_upper = np.array([grid[np.argmax(upper <= 1 - yy)] for yy in y])
    lower = np.asarray(f.bounds(grid).lo)
    from_lower_grid = np.array([grid[np.argmax(lower <= 1 - yy)] for yy in y])
    assert np.all(ours <= from_upper + 1e-15)
    assert np.all(ours <= from_lower_grid + 1e-15)
    # the resolutions: this test's grid (5e-6) and B⁻¹'s logit grid (7.5e-4 in logit)
    x = from_lower_grid
    assert np.all(ours >= x - 5e-6 - 7.6e-4 * x * (1 - x))
    res = one_run(f, counts=(1000, 40, 40))
    assert res.refuted == (res.p_value <= 0.05)
