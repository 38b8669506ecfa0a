"""Each family against an independent computation (mpmath, quantile forms, enumeration)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

import fdp


def mp_gaussian_tradeoff(mu, alpha, dps=60):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) in mpmath, the quantile found by root finding."""
    with mp.workdps(dps):
        a = mp.mpf(alpha)
        # Φ⁻¹(1 − α) = −Φ⁻¹(α): solve Φ(z) = α for z.
        guess = float(stats.norm.ppf(float(alpha))) if alpha > 1e-300 else -37.0
        z = mp.findroot(lambda t: mp.ncdf(t) - a, mp.mpf(guess))
        return mp.ncdf(-z - mu)


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0, 8.0])
@pytest.mark.parametrize("alpha", [1e-300, 1e-200, 1e-100, 1e-30, 1e-8, 0.01, 0.3, 0.5, 0.9,
                                   1 - 1e-6, 1 - 1e-10, 1 - 2 ** -50])
def test_gaussian_against_mpmath_in_both_tails(mu, alpha):
    ours = fdp.Gaussian(mu)(alpha)
    ref = mp_gaussian_tradeoff(mu, alpha)
    # Relative accuracy where β is tiny (α → 1), absolute near β → 1 (α → 0).
    assert abs(ours - float(ref)) <= 1e-13 * max(float(ref), 1e-300) + 1e-16


def test_gaussian_endpoints_and_repr():
    g = fdp.Gaussian(1.5)
    assert g(0.0) == 1.0 and g(1.0) == 0.0
    assert repr(g) == "Gaussian(mu=1.5)"
    assert isinstance(g(0.2), float)
    assert g(np.array([0.2, 0.3])).shape == (2,)
    assert g(np.zeros((2, 3))).shape == (2, 3)
    assert fdp.Gaussian(1.0) ** 4 == fdp.Gaussian(2.0)


def laplace_by_quantiles(mu, alpha):
    """T(Lap(0,1), Lap(μ,1)) by Neyman–Pearson: the likelihood ratio is monotone in x,
    so the optimal test rejects x > t with t the (1 − α)-quantile of Lap(0,1)."""
    t = stats.laplace.ppf(1.0 - alpha)
    return stats.laplace.cdf(t, loc=mu)


@pytest.mark.parametrize("mu", [0.2, 1.0, 2.5])
def test_laplace_closed_form_against_quantile_form(mu):
    a = np.linspace(0.001, 0.999, 999)
    np.testing.assert_allclose(fdp.Laplace(mu)(a), laplace_by_quantiles(mu, a),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mu", [0.5, 2.0])
def test_laplace_profile_against_integral(mu):
    """δ(ε) = ∫ (q − e^ε p)₊ dx for the Laplace pair, by mpmath quadrature."""
    f = fdp.Laplace(mu)
    for eps in [-3.0, -0.2, 0.0, 0.3, mu - 0.1, mu, mu + 1]:
        def g(x, eps=eps):
            return max(mp.mpf(0), mp.exp(-abs(x - mu)) / 2 - mp.exp(eps) * mp.exp(-abs(x)) / 2)
        kink = min(max((eps + mu) / 2, 0.0), mu)  # where q = e^ε p
        ref = mp.quad(g, sorted({-mp.inf, 0, kink, mu, mp.inf}))
        assert f.delta(eps) == pytest.approx(float(ref), abs=1e-10)


def test_eps_delta_formula_and_kink():
    e, d = 1.0, 0.05
    f = fdp.EpsDelta(e, d)
    a = np.linspace(0, 1, 1001)
    ref = np.maximum(0, np.maximum(1 - d - np.exp(e) * a, np.exp(-e) * (1 - d - a)))
    np.testing.assert_allclose(f(a), ref, atol=1e-15)
    kink = (1 - d) / (1 + np.exp(e))
    assert f(kink) == pytest.approx(kink, abs=1e-15)  # the kink is the fixed point
    assert repr(f) == "EpsDelta(eps=1.0, delta=0.05)"
    assert fdp.EpsDelta(1.0).delta == 0.0


def test_eps_delta_profile_is_exact():
    """δ_{f_{ε0,δ0}}(ε) by brute force over the 4-atom pair."""
    f = fdp.EpsDelta(0.7, 0.01)
    e0, d0 = mp.mpf(0.7), mp.mpf(0.01)
    hi_p, lo_p = (1 - d0) * mp.exp(e0) / (1 + mp.exp(e0)), (1 - d0) / (1 + mp.exp(e0))
    p, q = [mp.mpf(0), lo_p, hi_p, d0], [d0, hi_p, lo_p, mp.mpf(0)]
    for eps in np.linspace(-3, 3, 25):
        ref = sum(max(qi - mp.exp(mp.mpf(eps)) * pi, 0) for pi, qi in zip(p, q))
        lo, hi = f.delta_bounds(eps)
        assert lo <= ref <= hi and f.delta(eps) == hi
        assert hi - lo <= 32 * 2.0 ** -52 * ref
    assert f.delta_bounds(0.7) == (0.01, 0.01)


def enumerate_tradeoff(p, q, alpha):
    """T(P, Q)(α) by linear programming over randomised tests (independent of sorting)."""
    from scipy.optimize import linprog
    # minimise β = 1 − Σ φ_i q_i subject to Σ φ_i p_i ≤ α, 0 ≤ φ ≤ 1.
    res = linprog(-np.asarray(q), A_ub=[p], b_ub=[alpha], bounds=[(0, 1)] * len(p), method="highs")
    return 1.0 + res.fun


@pytest.mark.parametrize("seed", range(5))
def test_from_pair_against_linear_programming(seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(6))
    q = rng.dirichlet(np.ones(6))
    p[0], q[-1] = 0.0, 0.0  # atoms with infinite losses
    p, q = p / p.sum(), q / q.sum()
    f = fdp.from_pair(p, q)
    for a in np.linspace(0, 1, 23):
        assert f(a) == pytest.approx(enumerate_tradeoff(p, q, a), abs=1e-9)


def test_randomized_response_matches_its_pair():
    e, k = 1.2, 4
    z = np.exp(e) + k - 1
    p = np.array([np.exp(e), 1, 1, 1]) / z  # output law for input x
    q = np.array([1, np.exp(e), 1, 1]) / z  # for input x'
    a = np.linspace(0, 1, 201)
    np.testing.assert_allclose(fdp.RandomizedResponse(e, k)(a), fdp.from_pair(p, q)(a), atol=1e-15)
    np.testing.assert_allclose(fdp.RandomizedResponse(e, 2)(a), fdp.EpsDelta(e)(a), atol=1e-15)


def test_from_points_is_the_lower_convex_hull():
    a = np.array([0.1, 0.2, 0.3, 0.5, 0.25])
    b = np.array([0.6, 0.3, 0.35, 0.1, 0.7])     # (0.25, 0.7): above the hull, below 1 − α
    f = fdp.from_points(a, b)
    # Hull of the points with (0,1),(1,0): (0,1) → (0.1,.6) → (0.2,.3) → (0.5,.1) → (1,0).
    np.testing.assert_allclose(f.alphas, [0, 0.1, 0.2, 0.5, 1])
    np.testing.assert_allclose(f.betas, [1, 0.6, 0.3, 0.1, 0])
    # Every input point lies on or above the hull.
    assert np.all(f(a) <= b + 1e-15)


def test_from_function_accepts_valid_and_names_the_broken_axiom():
    g = fdp.from_function(lambda x: fdp.Gaussian(1.0)(x), name="G1")
    assert g(0.3) == pytest.approx(fdp.Gaussian(1.0)(0.3))
    assert repr(g) == "from_function(G1)"
    with pytest.raises(ValueError, match="convex"):
        fdp.from_function(lambda x: 0.5 * (1 - x ** 2))
    with pytest.raises(ValueError, match="non-increasing"):
        fdp.from_function(lambda x: np.where(x <= 0.4, 0.25 * x, 0.1 * (1 - x) / 0.6))
    with pytest.raises(ValueError, match="1 - alpha"):
        fdp.from_function(lambda x: 1.0 - 0.5 * x)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fdp.from_function(lambda x: 1.0 - 1.5 * x)
    # Scalar-only callables are accepted too.
    s = fdp.from_function(lambda x: max(0.0, 1.0 - 2.0 * x))
    assert s(np.array([0.25]))[0] == pytest.approx(0.5)


def test_identity_is_perfect_privacy():
    i = fdp.Identity()
    assert i(0.3) == pytest.approx(0.7)
    assert i.delta(0.0) == 0.0 and i.epsilon(0.0) == 0.0
    assert i.advantage() == 0.0
