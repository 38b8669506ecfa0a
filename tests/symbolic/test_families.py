"""Symbolic families against the numeric families and an independent mpmath evaluation."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import fdp
from fdp import symbolic as S

GRID = np.unique(np.concatenate([np.linspace(0.0, 1.0, 1001), np.logspace(-15, -1, 60),
                                 1.0 - np.logspace(-15, -1, 60)]))


def test_phi_and_quantile_match_mpmath():
    mpmath.mp.dps = 30
    for x in ["-6", "-1/2", "0", "7/3"]:
        v = S.Phi(sp.Rational(x)).evalf(30)
        ref = mpmath.ncdf(mpmath.mpf(sp.Rational(x).p) / sp.Rational(x).q)
        assert abs(mpmath.mpf(str(v)) - ref) < mpmath.mpf(10) ** -25
    p = np.linspace(0.01, 0.99, 25)
    q = [float(S.Phi_inv(sp.Rational(str(v))).evalf(30)) for v in p]
    assert np.allclose(q, stats.norm.ppf(p), rtol=1e-12)


@pytest.mark.parametrize("mu", [0.0, 0.3, 1.0, 2.5, 6.0])
def test_gaussian_matches_numeric_family(mu):
    g = S.to_tradeoff(S.gaussian(), mu=mu)
    # the family's certified bracket (its lower side is the rounded-down safe side); the
    # lambdified expression is within 1e-14 of the real value
    lo, hi = fdp.Gaussian(mu).bounds(GRID)
    ref = fdp.Gaussian(mu)(GRID)
    assert np.all(g(GRID) >= lo - 1e-14) and np.all(g(GRID) <= hi + 1e-14)
    # relative accuracy in the tails too (the erfc/erfcinv form avoids cancellation)
    tiny = ref > 1e-290
    assert np.max(np.abs(g(GRID)[tiny] / ref[tiny] - 1)) <= 1e-11


@pytest.mark.parametrize("alpha", ["1/1000", "1/10", "1/2", "9/10"])
def test_gaussian_expression_against_mpmath(alpha):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), with mpmath's own normal quantile."""
    mpmath.mp.dps = 40
    a = mpmath.mpf(sp.Rational(alpha).p) / sp.Rational(alpha).q
    mu = mpmath.mpf(3) / 4
    z = mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * a)  # Φ⁻¹(1 − α)
    ref = mpmath.ncdf(z - mu)
    val = S.gaussian(sp.Rational(3, 4)).subs(S.alpha, sp.Rational(alpha)).evalf(40)
    assert abs(mpmath.mpf(str(val)) - ref) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("mu", [0.0, 0.5, 1.0, 3.0])
def test_laplace_matches_numeric_family(mu):
    f = S.to_tradeoff(S.laplace(mu))
    assert np.max(np.abs(f(GRID) - fdp.Laplace(mu)(GRID))) <= 1e-14


def test_laplace_against_its_definition():
    """L_μ = T(Lap(0,1), Lap(μ,1)) from the Neyman–Pearson test x > t (mpmath)."""
    mpmath.mp.dps = 30
    mu = mpmath.mpf(1)
    cdf = lambda x, m: mpmath.mpf(1) / 2 * mpmath.exp(x - m) if x < m else \
        1 - mpmath.mpf(1) / 2 * mpmath.exp(m - x)
    expr = S.laplace(1)
    for t in [-1.5, -0.2, 0.3, 0.7, 2.0]:
        t = mpmath.mpf(t)
        a = 1 - cdf(t, 0)           # type I error of "reject when x > t"
        b = cdf(t, mu)              # type II error
        val = expr.subs(S.alpha, sp.Float(str(a), 30)).evalf(30)
        assert abs(mpmath.mpf(str(val)) - b) < mpmath.mpf(10) ** -20


@pytest.mark.parametrize("eps,delta", [(0.0, 0.0), (1.0, 0.0), (1.0, 1e-5), (3.0, 0.2)])
def test_eps_delta_matches_numeric_family(eps, delta):
    f = S.to_tradeoff(S.eps_delta(), epsilon=eps, delta=delta)
    assert np.max(np.abs(f(GRID) - fdp.EpsDelta(eps, delta)(GRID))) <= 1e-14
    f2 = S.to_tradeoff(S.eps_delta(eps, delta))
    assert np.max(np.abs(f2(GRID) - fdp.EpsDelta(eps, delta)(GRID))) <= 1e-14


@settings(max_examples=10, deadline=None)
@given(st.floats(0.0, 5.0), st.floats(0.0, 3.0), st.floats(0.0, 0.5))
def test_families_property(mu, eps, delta):
    a = GRID[::7]
    assert np.allclose(S.to_tradeoff(S.gaussian(mu))(a), fdp.Gaussian(mu)(a), rtol=0, atol=1e-13)
    assert np.allclose(S.to_tradeoff(S.laplace(mu))(a), fdp.Laplace(mu)(a), rtol=0, atol=1e-13)
    assert np.allclose(S.to_tradeoff(S.eps_delta(eps, delta))(a),
                       fdp.EpsDelta(eps, delta)(a), rtol=0, atol=1e-13)


def test_identity():
    f = S.to_tradeoff(S.identity())
    assert np.allclose(f(GRID), fdp.Identity()(GRID), atol=0)


def test_symbols_and_parameters():
    assert S.alpha.is_real
    assert S.gaussian().free_symbols == {S.alpha, S.mu}
    assert S.eps_delta().free_symbols == {S.alpha, S.epsilon, S.delta_}
    nu = sp.Symbol("nu", positive=True)
    assert S.gaussian(2 * nu).free_symbols == {S.alpha, nu}
    # floats are read as the decimal typed: 0.1 -> 1/10
    assert S.eps_delta(1, 0.1).has(sp.Rational(9, 10))


@pytest.mark.parametrize("call,exc", [
    (lambda: S.gaussian(-1.0), ValueError),
    (lambda: S.laplace(-0.5), ValueError),
    (lambda: S.eps_delta(1.0, 1.0), ValueError),
    (lambda: S.eps_delta(1.0, -0.1), ValueError),
    (lambda: S.gaussian("mu"), TypeError),
    (lambda: S.gaussian(S.alpha), ValueError),
    (lambda: S.gaussian(float("inf")), ValueError),
])
def test_bad_parameters(call, exc):
    with pytest.raises(exc):
        call()


def test_to_tradeoff_errors():
    with pytest.raises(ValueError, match="mu"):
        S.to_tradeoff(S.gaussian())
    with pytest.raises(ValueError, match="unknown parameter"):
        S.to_tradeoff(S.gaussian(), sigma=1.0)
    with pytest.raises(ValueError, match="axiom"):
        S.to_tradeoff(1 - S.alpha ** 2)
    with pytest.raises(TypeError):
        S.to_tradeoff("1 - alpha")
    f = S.to_tradeoff(sp.sqrt(sp.Rational(1, 2) - S.alpha), validate=False)
    with pytest.raises(ValueError, match="not a finite real"):
        f(0.9)


def test_to_tradeoff_is_a_tradeoff():
    f = S.to_tradeoff(S.gaussian(), mu=1.0)
    assert isinstance(f, fdp.TradeOff)
    assert isinstance(f(0.3), float)
    assert f(np.array([[0.1, 0.2]])).shape == (1, 2)
    # the generic machinery of the base class works on it
    assert abs(f.delta(1.0) - fdp.Gaussian(1.0).delta(1.0)) < 1e-9
    assert f == S.to_tradeoff(S.gaussian(1.0))
    with pytest.raises(ValueError):
        f(1.5)


def test_latex():
    assert S.latex(S.gaussian()) == sp.latex(S.gaussian())
    assert r"\operatorname{erfc}" in S.latex(S.gaussian())
    assert S.latex(S.laplace(), name="L_\\mu").startswith(r"L_\mu(\alpha) = \begin{cases}")
    assert r"\max" in S.latex(S.eps_delta())
    assert S.to_tradeoff(S.gaussian(1)).latex() == sp.latex(S.gaussian(1))
