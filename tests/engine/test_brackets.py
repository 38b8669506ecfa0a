"""The certified bracket contains the truth wherever the truth is known exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import norm

import fdp
from fdp.engine import Numeric, compose_numeric
from fdp.operations.subsample import PoissonAdd

ALPHA = np.unique(np.concatenate([np.linspace(0.0, 1.0, 201), np.logspace(-10, -1, 19),
                                  1.0 - np.logspace(-10, -1, 19)]))
EPS = np.concatenate([np.linspace(-4.0, 6.0, 51), [-np.inf, np.inf]])
TINY = 1e-12


def assert_brackets(r: Numeric, truth, alpha=ALPHA, eps=EPS, tol=TINY):
    lo, hi = r.bounds(alpha)
    t = truth(alpha)
    assert np.all(lo <= t + tol), float(np.max(lo - t))
    assert np.all(hi >= t - tol), float(np.max(t - hi))
    d_hi, d_lo = r.delta(eps), r._delta_lower(eps)
    dt = truth.delta(eps)
    assert np.all(d_lo <= dt + tol), float(np.max(d_lo - dt))
    assert np.all(d_hi >= dt - tol), float(np.max(dt - d_hi))


@pytest.mark.parametrize("mu,n", [(1.0, 4), (0.5, 16), (0.02, 10_000)])
def test_gaussian_forced_through_engine(mu, n):
    r = compose_numeric([(fdp.Gaussian(mu), n)], tol=1e-4)
    truth = fdp.Gaussian(mu * np.sqrt(n))
    assert_brackets(r, truth)
    lo, hi = r.epsilon_bounds(1e-5)
    assert lo <= truth.epsilon(1e-5) <= hi
    assert hi - lo < 2e-3


def test_gap_does_not_drift_with_n():
    """Same composed law, 100× more steps: the bracket must not widen like n·Δ."""
    widths = []
    for n in (10, 1000, 100_000):
        r = compose_numeric([(fdp.Gaussian(2.0 / np.sqrt(n)), n)], tol=1e-4)
        lo, hi = r.epsilon_bounds(1e-5)
        widths.append(hi - lo)
    assert widths[-1] < 3 * widths[0]
    assert widths[-1] < 2e-3


def test_eps_delta_power_matches_binomial_form():
    r = compose_numeric([(fdp.EpsDelta(0.5), 10)], tol=1e-4)
    assert_brackets(r, fdp.EpsDelta(0.5) ** 10)
    # MATH.md §4: n = 10, ε = 0.5 gives δ(4.0) = 5.519627e-3 (KOV Thm 3.3)
    assert r._delta_lower(np.array([4.0]))[0] <= 5.519627e-3 + 1e-9 <= r.delta(4.0) + 2e-9


def test_eps_delta_with_delta_power():
    f = fdp.EpsDelta(0.3, 1e-3)
    assert_brackets(compose_numeric([(f, 50)], tol=1e-4), f ** 50)


def test_finite_pairs_vs_exact_product():
    rr = fdp.RandomizedResponse(1.0, k=3)
    e = fdp.EpsDelta(0.7)
    r = compose_numeric([(rr, 3), (e, 2)], tol=1e-4)
    assert_brackets(r, fdp.compose(rr, rr, rr, e, e))


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 4), st.integers(1, 3), st.integers(0, 10_000))
def test_random_finite_pairs(k, n, seed):
    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
    f = fdp.from_pair(p, q)
    g = fdp.RandomizedResponse(0.4)
    r = compose_numeric([(f, n), (g, 1)], tol=1e-3)
    assert_brackets(r, fdp.compose(*([f] * n), g), tol=1e-10)


def test_one_subsampled_gaussian_step():
    f = PoissonAdd(fdp.Gaussian(1.0), 0.1)          # p G + (1 − p) Id
    r = compose_numeric([(f, 1)], tol=1e-5)
    assert_brackets(r, f)
    lo, hi = r.bounds(ALPHA)
    assert np.max(hi - lo) < 1e-5


def _laplace_gaussian_delta(eps):
    """δ of L_1 ⊗ G_1 by quadrature over the Laplace loss law (independent of the engine).

    δ_{A⊗B}(ε) = E_{Q_A}[δ_B(ε − L_A)]: atoms L = ±1 and L = 2x − 1, x ∈ (0, 1),
    with Q-density e^{x−1}/2.
    """
    g = fdp.Gaussian(1.0)

    def dg(e):
        return float(g.delta(e))
    atoms = 0.5 * dg(eps - 1.0) + 0.5 * np.exp(-1.0) * dg(eps + 1.0)
    cont, _ = integrate.quad(lambda x: 0.5 * np.exp(x - 1.0) * dg(eps - (2 * x - 1)), 0, 1,
                             epsabs=1e-13, epsrel=1e-12)
    return atoms + cont


def test_laplace_with_gaussian_by_quadrature():
    r = fdp.compose(fdp.Laplace(1.0), fdp.Gaussian(1.0))
    assert isinstance(r, Numeric)
    assert "Laplace(mu=1.0)" in repr(r) and "Gaussian(mu=1.0)" in repr(r)
    direct = compose_numeric([(fdp.Laplace(1.0), 1), (fdp.Gaussian(1.0), 1)])
    assert repr(direct) == "Numeric(Laplace(mu=1.0) ⊗ Gaussian(mu=1.0), tol=0.0001)"
    for e in (-1.0, 0.0, 0.5, 1.0, 2.0, 3.5):
        t = _laplace_gaussian_delta(e)
        assert r._delta_lower(np.array([e]))[0] - 1e-10 <= t <= r.delta(e) + 1e-10
        assert r.delta(e) - r._delta_lower(np.array([e]))[0] < 2e-3


def test_poisson_subsampled_two_steps_by_quadrature():
    """Add direction of two subsampled Gaussian steps: δ by quadrature of one step."""
    p, mu = 0.2, 1.0
    f = PoissonAdd(fdp.Gaussian(mu), p)
    r = compose_numeric([(f, 2)], tol=1e-5)

    def loss(x):
        return np.log1p(p * np.expm1(mu * x - mu * mu / 2))

    def qdens(x):
        return (1 - p) * norm.pdf(x) + p * norm.pdf(x - mu)
    for e in (0.0, 0.3, 1.0, 2.0):
        t, _ = integrate.quad(lambda x, e=e: qdens(x) * float(f.delta(e - loss(x))), -12, 13,
                              epsabs=1e-13, epsrel=1e-12, limit=200)
        assert r._delta_lower(np.array([e]))[0] - 1e-10 <= t <= r.delta(e) + 1e-10


def test_user_function_through_privacy_profile():
    g = fdp.Gaussian(1.0)
    u = fdp.from_function(lambda a: g(a))
    r = compose_numeric([(u, 3)], tol=1e-3)
    assert_brackets(r, fdp.Gaussian(np.sqrt(3.0)), tol=1e-9)


def test_brackets_shrink_with_tol():
    widths = []
    for tol in (1e-2, 1e-3, 1e-4):
        r = compose_numeric([(fdp.Laplace(0.5), 20), (fdp.Gaussian(0.3), 5)], tol=tol)
        lo, hi = r.epsilon_bounds(1e-5)
        widths.append(hi - lo)
        blo, bhi = r.bounds(ALPHA)
        assert np.all(blo <= bhi)
    assert widths[0] > widths[1] > widths[2]


def test_results_compose_further_and_stay_consistent():
    r1 = compose_numeric([(fdp.Laplace(1.0), 1), (fdp.Gaussian(1.0), 1)], tol=1e-4)
    r2 = compose_numeric([(r1, 2)], tol=1e-4)
    fine = compose_numeric([(fdp.Laplace(1.0), 2), (fdp.Gaussian(np.sqrt(2.0)), 1)], tol=1e-6)
    lo2, hi2 = r2.bounds(ALPHA)
    lof, hif = fine.bounds(ALPHA)
    assert np.all(lo2 <= hif + TINY) and np.all(lof <= hi2 + TINY)
    # and the other generic operations accept it
    inv = r2.inverse()
    assert 0.0 <= inv(0.1) <= 1.0
    s = r2.symmetrize(one_sided=True)
    assert 0.0 <= s(0.2) <= 0.8
