"""MixtureOfGaussians: closed forms against mpmath quadrature, special cases, bad input."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fdp
from fdp.families.mixture import RevealedMixture
from fdp.operations.subsample import PoissonAdd

mp.mp.dps = 40


def _mp_delta(sigma, c, p, eps):
    """δ(ε) = ∫ (q(x) − e^ε φ(x))₊ dx by mpmath, split at the threshold L(x) = ε."""
    mu = [mp.mpf(ci) / sigma for ci in c]
    pm = [mp.mpf(pi) for pi in p]

    def L(x):
        return mp.log(sum(pj * mp.exp(m * x - m * m / 2) for pj, m in zip(pm, mu)))
    floor = mp.log(sum(pj for pj, m in zip(pm, mu) if m == 0)) if 0 in c else -mp.inf
    if eps <= floor:
        return 1 - mp.exp(eps)
    lo, hi = mp.mpf(-200), mp.mpf(2000)
    for _ in range(400):                      # L is increasing: plain bisection
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if L(mid) < eps else (lo, mid)
    x = (lo + hi) / 2
    q_tail = sum(pj * mp.ncdf(m - x) for pj, m in zip(pm, mu))
    return q_tail - mp.exp(eps) * mp.ncdf(-x)


def _mp_beta(sigma, c, p, alpha):
    z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(alpha) - 1)  # Φ̄⁻¹(α)
    return sum(mp.mpf(pj) * mp.ncdf(z - mp.mpf(cj) / sigma) for cj, pj in zip(c, p))


CASES = [(1.0, [0.0, 1.0, 2.0], [0.2, 0.6, 0.2]),
         (2.0, [0.0, 2.0, 3.0], [0.33, 0.34, 0.33]),
         (0.5, [0.3, 1.1], [0.5, 0.5]),
         (1.0, [0.0, 4.0], [0.999, 0.001])]


@pytest.mark.parametrize("sigma,c,p", CASES)
def test_delta_matches_mpmath(sigma, c, p):
    f = fdp.MixtureOfGaussians(sigma, c, p)
    for eps in [-0.3, 0.0, 0.5, 2.0, 6.0, 20.0]:
        truth = float(_mp_delta(sigma, c, p, mp.mpf(eps)))
        got = f.delta(eps)
        assert got >= truth * (1 - 1e-9) - 1e-300       # safe side (x rounded down)
        assert got <= truth * (1 + 1e-7) + 1e-300


@pytest.mark.parametrize("sigma,c,p", CASES)
def test_beta_matches_mpmath(sigma, c, p):
    f = fdp.MixtureOfGaussians(sigma, c, p)
    for a in [1e-200, 1e-12, 1e-3, 0.2, 0.5, 0.9]:
        truth = float(_mp_beta(sigma, c, p, a))
        assert f(a) == pytest.approx(truth, rel=1e-9, abs=1e-15)


def test_subsampled_gaussian_is_the_special_case():
    f = fdp.MixtureOfGaussians(0.8, [0.0, 1.0], [0.95, 0.05])
    g = PoissonAdd(fdp.Gaussian(1 / 0.8), 0.05)
    a = np.concatenate([np.logspace(-300, -1, 30), np.linspace(0, 1, 21)])
    np.testing.assert_allclose(f(a), g(a), rtol=1e-12, atol=1e-15)
    eps = np.array([-0.04, 0.0, 0.3, 1.0, 3.0, 8.0])
    np.testing.assert_allclose(f.delta(eps), g.delta(eps), rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(f.inverse().delta(eps), g.inverse().delta(eps),
                               rtol=1e-7, atol=1e-12)


def test_one_component_is_gaussian_and_zero_is_identity():
    f = fdp.MixtureOfGaussians(2.0, [3.0], [1.0])
    assert f.symmetric and f.gdp_mu() == 1.5
    eps = np.array([0.0, 1.0, 5.0, 50.0])
    np.testing.assert_allclose(f.delta(eps), fdp.Gaussian(1.5).delta(eps), rtol=1e-9)
    z = fdp.MixtureOfGaussians(1.0, [0.0, 0.0], [0.5, 0.5])
    assert z.symmetric and z.gdp_mu() == 0.0
    assert z(0.3) == pytest.approx(0.7)


def test_subnormal_and_huge_shifts():
    tiny = fdp.MixtureOfGaussians(1.0, [0.0, 5e-324], [0.5, 0.5])
    # δ(1) > 0 (μ > 0) but far below the doubles: its upper end is the smallest double
    assert tiny.delta(0.0) <= 1e-300 and tiny.delta(1.0) == 5e-324
    assert tiny(0.25) == pytest.approx(0.75)
    big = fdp.MixtureOfGaussians(1e-3, [0.0, 1.0], [0.5, 0.5])    # μ = 1000
    assert big.delta(1000.0) == pytest.approx(0.5 * fdp.Gaussian(1000.0).delta(
        1000.0 + np.log(2.0) + np.log1p(-np.exp(-1000.0 - np.log(2.0)))), rel=1e-6)


def test_gdp_mu_is_the_largest_shift():
    f = fdp.MixtureOfGaussians(0.7, [0.0, 1.0, 2.0], [0.2, 0.6, 0.2])
    mu = f.gdp_mu()
    assert mu >= 2.0 / 0.7 and mu <= np.nextafter(2.0 / 0.7, np.inf)
    a = np.concatenate([np.logspace(-12, -1, 12), np.linspace(0.1, 0.99, 30)])
    assert np.all(f(a) >= fdp.Gaussian(mu)(a) - 1e-15)
    # in the dual: a smaller μ fails in the far tail of the profile (α → 0)
    eps = np.array([20.0, 40.0, 80.0])
    assert np.all(f.delta(eps) > fdp.Gaussian(0.9 * mu).delta(eps))
    assert np.all(f.delta(eps) <= fdp.Gaussian(mu).delta(eps))
    assert f.pure_epsilon() == float("inf")


def test_inverse_profile_at_scalar_eps():
    f = fdp.MixtureOfGaussians(1.0, [0.0, 1.0, 2.0], [0.2, 0.6, 0.2])
    inv = f.inverse()
    # T(Q, P): removing can raise no probability by more than 1/p₀ = 5
    assert inv.delta(5.0) == 0.0 or inv.delta(5.0) < 1e-15
    assert inv.delta(0.5) == pytest.approx(float(inv.delta(np.array([0.5]))[0]))
    assert inv.inverse() == f and "inverse()" in repr(inv)


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 1.0)),
                min_size=1, max_size=8))
def test_canonical_form_round_trips(parts):
    c = [a for a, _ in parts]
    w = np.array([b for _, b in parts]) + 1e-3
    f = fdp.MixtureOfGaussians(1.0, c, w / w.sum())
    assert fdp.MixtureOfGaussians(f.sigma, f.sensitivities, f.probs) == f


def test_canonical_form_and_repr():
    f = fdp.MixtureOfGaussians(1.0, [2.0, 0.0, 2.0, 5.0], [0.25, 0.5, 0.25, 0.0])
    assert f.sensitivities == (0.0, 2.0) and f.probs == (0.5, 0.5)
    assert f == fdp.MixtureOfGaussians(1.0, [0.0, 2.0], [0.5, 0.5])
    assert "one direction only" in repr(f)
    assert "MixtureOfGaussians" in fdp.__all__


def test_huge_eps_and_tiny_delta():
    f = fdp.MixtureOfGaussians(1.0, [0.0, 1.0, 2.0], [0.2, 0.6, 0.2])
    assert f.delta(700.0) == 0.0 or f.delta(700.0) < 1e-300
    assert f.delta(-700.0) == pytest.approx(1.0)
    e = f.epsilon(1e-300)
    assert np.isfinite(e)
    # δ at that ε, from mpmath, is at most 1e-300 (ε is an upper bound)
    assert float(_mp_delta(1.0, [0, 1, 2], [0.2, 0.6, 0.2], mp.mpf(e))) <= 1e-300 * (1 + 1e-6)
    # and the component with the largest shift governs the far tail: G_2's ε is close
    assert e <= fdp.Gaussian(2.0).epsilon(1e-300 / 0.2) + 1e-6


@pytest.mark.parametrize("kwargs,name", [
    (dict(sigma=1.0, sensitivities=[0.0, -1.0], probs=[0.5, 0.5]), "sensitivities"),
    (dict(sigma=1.0, sensitivities=[0.0, 1.0], probs=[0.5, 0.6]), "probs"),
    (dict(sigma=1.0, sensitivities=[0.0, 1.0], probs=[1.0]), "probs"),
    (dict(sigma=0.0, sensitivities=[1.0], probs=[1.0]), "sigma"),
    (dict(sigma=1.0, sensitivities=[], probs=[]), "sensitivities"),
    (dict(sigma=1.0, sensitivities=[np.inf], probs=[1.0]), "sensitivities"),
    (dict(sigma=1.0, sensitivities=[1.0], probs=[1.5]), "probs"),
    (dict(sigma=1.0, sensitivities=[5e-324, 2.0], probs=[0.5, 0.5]), "sensitivities"),
])
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        fdp.MixtureOfGaussians(**kwargs)


def test_revealed_mixture_profile_is_the_weighted_sum():
    g1, g2 = fdp.Gaussian(1.0), fdp.Gaussian(3.0)
    r = RevealedMixture((0.7, 0.3), (g1, g2))
    eps = np.linspace(-1, 6, 15)
    np.testing.assert_allclose(r.delta(eps), 0.7 * g1.delta(eps) + 0.3 * g2.delta(eps),
                               rtol=1e-12)
    # f(α) = inf over splits of α: check against a brute-force infimal convolution
    a = 0.1
    t = np.linspace(0, 1, 200001)
    split = (a - 0.7 * t) / 0.3
    ok = (split >= 0) & (split <= 1)
    brute = np.min(0.7 * g1(t[ok]) + 0.3 * g2(np.clip(split[ok], 0, 1)))
    assert r(a) <= brute + 1e-9 and r(a) >= brute - 1e-6
    with pytest.raises(ValueError, match="weights"):
        RevealedMixture((0.5, 0.6), (g1, g2))


mixtures = st.tuples(
    st.floats(0.2, 5.0),
    st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 6.0)), min_size=1, max_size=4),
    st.integers(0, 10**6))


def _make(params):
    sigma, c, seed = params
    w = np.random.default_rng(seed).random(len(c)) + 0.01
    return fdp.MixtureOfGaussians(sigma, c, w / w.sum())


@given(mixtures)
def test_axioms(params):
    f = _make(params)
    a = np.concatenate([[0.0, 1.0], np.logspace(-30, -1, 15), np.linspace(0.05, 0.95, 19)])
    a = np.sort(a)
    b = f(a)
    assert np.all(b <= 1.0 - a + 1e-15) and np.all(b >= 0)
    assert np.all(np.diff(b) <= 1e-15)
    # the profile is the conjugate of β: δ(ε) ≥ 1 − β(α) − e^ε α for every α
    for eps in [-0.5, 0.0, 1.0, 3.0]:
        d = f.delta(eps)
        assert np.all(1.0 - b - np.exp(eps) * a <= d + 1e-12)
        assert 0.0 <= d <= 1.0


@given(mixtures, st.floats(0.0, 2.0))
def test_more_sensitivity_is_less_private(params, extra):
    """Moving one component to a larger shift never makes the pair more private."""
    f = _make(params)
    c = np.array(f.sensitivities)
    c[-1] += extra
    g = fdp.MixtureOfGaussians(f.sigma, c, f.probs) if c.size == len(f.probs) else f
    eps = np.array([0.0, 0.5, 2.0, 5.0])
    assert np.all(g.delta(eps) >= f.delta(eps) - 1e-12)


def test_revealed_mixture_pure_epsilon_is_the_largest_members():
    """The index is published: the loss is the drawn member's loss, so ε* = max ε*_i (a
    Laplace pair's ε* is its μ; a subsampled Gaussian's is ∞)."""

    r = RevealedMixture([0.25, 0.75], [fdp.Laplace(1.0), fdp.Laplace(2.0)])
    assert tuple(r.pure_epsilon_bounds()) == (2.0, 2.0)
    g = RevealedMixture([0.5, 0.5], [fdp.Laplace(1.0),
                                     fdp.Gaussian(1.0).subsample(0.1, direction="add")])
    assert tuple(g.pure_epsilon_bounds()) == (math.inf, math.inf)
