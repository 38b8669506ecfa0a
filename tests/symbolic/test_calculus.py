"""Closed forms of S.functionals, S.delta and S.inverse against independent computations."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import fdp
from fdp import symbolic as S

a = S.alpha
EPS = np.array([-3.0, -1.0, -0.2, 0.0, 0.3, 1.0, 2.0, 5.0])


def _same(x, y):
    return sp.simplify((x - y).rewrite(sp.erf)) == 0


# ---------------------------------------------------------------------------
# functionals: closed forms (DRS §3.2) and mpmath quadrature of E_P L, E_P L²
# ---------------------------------------------------------------------------
def test_functionals_gaussian_closed_form():
    r = S.functionals(S.gaussian())
    mu = S.mu
    assert _same(r.kl, mu ** 2 / 2) and _same(r.kappa2, mu ** 2 + mu ** 4 / 4)
    # κ̄3 = E|μX|³ = 2√2 μ³/√π for X ~ N(0, 1)
    assert _same(r.kappa3_bar, 2 * sp.sqrt(2) * mu ** 3 / sp.sqrt(sp.pi))
    mpmath.mp.dps = 30
    for m in (0.4, 1.0, 2.5):
        k3 = mpmath.quad(lambda x, m=m: mpmath.npdf(x) * abs(m * x - m * m / 2) ** 3,
                         [-mpmath.inf, m / 2, mpmath.inf])
        assert abs(float(r.kappa3.subs(mu, m)) - float(k3)) < 1e-13
        assert abs(float(r.kappa3.subs(mu, m)) - fdp.functionals(fdp.Gaussian(m)).kappa3) < 1e-9


def test_functionals_pure_dp_closed_form():
    r = S.functionals(S.eps_delta(None, 0))
    e = S.epsilon
    assert _same(r.kl, e * sp.tanh(e / 2)) and _same(r.kappa2, e ** 2)
    assert _same(r.kappa3, e ** 3)
    # exact discrete: L = ±ε with P-masses e^ε/(1+e^ε), 1/(1+e^ε)
    for x in (0.3, 1.0, 2.0):
        p = mpmath.e ** x / (1 + mpmath.e ** x)
        mean = -x * p + x * (1 - p)
        k3b = p * abs(-x - mean) ** 3 + (1 - p) * abs(x - mean) ** 3
        assert abs(float(r.kappa3_bar.subs(e, x)) - float(k3b)) < 1e-14


def test_functionals_with_positive_delta_are_infinite():
    r = S.functionals(S.eps_delta(1, sp.Rational(1, 100)))
    assert r.kl == sp.oo and r.kappa2 == sp.oo and r.kappa3 == sp.oo
    r = S.functionals(S.eps_delta(), third=False)   # symbolic δ ∈ [0, 1): ∞ iff δ > 0
    assert r.kl.subs(S.delta_, sp.Rational(1, 10)) == sp.oo
    assert _same(r.kl.subs(S.delta_, 0), S.epsilon * sp.tanh(S.epsilon / 2))


def _laplace_quadrature(mu):
    """E_P[−L], E_P[L²], E_P|L|³, E_P|L − E_P L|³ for P = Lap(0,1), L = |x| − |x − μ|."""
    mpmath.mp.dps = 30
    m = mpmath.mpf(mu)
    dens = lambda x: mpmath.exp(-abs(x)) / 2
    loss = lambda x: abs(x) - abs(x - m)
    pts = [-mpmath.inf, 0, m, mpmath.inf]
    kl = -mpmath.quad(lambda x: dens(x) * loss(x), pts)
    k2 = mpmath.quad(lambda x: dens(x) * loss(x) ** 2, pts)
    # on (0, μ), L = 2x − μ: split at its zero and at its crossing of −kl (the kinks)
    k3 = mpmath.quad(lambda x: dens(x) * abs(loss(x)) ** 3, pts[:2] + [m / 2] + pts[2:])
    k3b = mpmath.quad(lambda x: dens(x) * abs(loss(x) + kl) ** 3,
                      pts[:2] + [(m - kl) / 2] + pts[2:])
    return [float(v) for v in (kl, k2, k3, k3b)]


def test_functionals_laplace_against_quadrature():
    """kl = KL(Lap(0,1) ‖ Lap(μ,1)) = μ − 1 + e^{−μ}, κ2 = E_P L²."""
    r = S.functionals(S.laplace(), third=False)
    assert _same(r.kl, S.mu - 1 + sp.exp(-S.mu))
    for mu in (0.5, 1.0, 3.0):
        kl, k2, _, _ = _laplace_quadrature(mu)
        assert abs(float(r.kl.subs(S.mu, mu)) - kl) < 1e-14
        assert abs(float(r.kappa2.subs(S.mu, mu)) - k2) < 1e-14
        assert abs(fdp.functionals(fdp.Laplace(mu)).kappa2 - k2) < 1e-12


@pytest.mark.slow
def test_functionals_laplace_third_moments():
    r = S.functionals(S.laplace())
    for mu in ("0.5", "1", "3"):
        _, _, k3, k3b = _laplace_quadrature(float(mu))
        m = sp.Rational(mu)   # exact evaluation: the closed forms cancel heavily in floats
        assert abs(float(r.kappa3.subs(S.mu, m).evalf(30)) - k3) < 1e-14
        assert abs(float(r.kappa3_bar.subs(S.mu, m).evalf(30)) - k3b) < 1e-14
        num = fdp.functionals(fdp.Laplace(float(mu)))
        assert abs(num.kappa3 - k3) < 1e-10 and abs(num.kappa3_bar - k3b) < 1e-10


def test_functionals_user_expression_against_quadrature():
    f = (1 - a) ** 2          # |f'| = 2(1 − α)
    r = S.functionals(f, third=False)
    mpmath.mp.dps = 30
    kl = -mpmath.quad(lambda x: mpmath.log(2 * (1 - x)), [0, 1])
    k2 = mpmath.quad(lambda x: mpmath.log(2 * (1 - x)) ** 2, [0, 1])
    assert abs(float(r.kl) - float(kl)) < 1e-15
    assert abs(float(r.kappa2) - float(k2)) < 1e-15


def test_functionals_numeric_parameters_against_quadrature():
    r = S.functionals(S.gaussian(), mu=1.5, third=False)
    mpmath.mp.dps = 30
    # log|G'| at α = Φ(−x) is μx − μ²/2 with x ~ N(0, 1) (DRS §3.2)
    m = mpmath.mpf(1.5)
    k2 = mpmath.quad(lambda x: mpmath.npdf(x) * (m * x - m ** 2 / 2) ** 2,
                     [-mpmath.inf, mpmath.inf])
    assert abs(float(r.kl) - 1.125) < 1e-15
    assert abs(float(r.kappa2) - float(k2)) < 1e-14


# ---------------------------------------------------------------------------
# δ(ε) = sup_α (1 − f(α) − e^ε α)
# ---------------------------------------------------------------------------
def test_delta_gaussian_closed_form():
    """DRS Cor 2.13: δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)."""
    d = S.delta(S.gaussian())
    mu, e = S.mu, S.varepsilon
    ref = S.Phi(-e / mu + mu / 2) - sp.exp(e) * S.Phi(-e / mu - mu / 2)
    for m in (0.5, 1.0, 2.0):
        diff = (d - ref).subs(mu, m)
        for x in (-2, 0, 1, 3):
            assert abs(sp.N(diff.subs(e, x), 30)) < 1e-25
        got = np.array([float(d.subs({mu: m, e: x}).evalf(30)) for x in EPS])
        assert np.allclose(got, fdp.Gaussian(m).delta(EPS), rtol=1e-12, atol=0)


@pytest.mark.parametrize("eps0,delta0", [
    (1.0, 0.0),
    pytest.param(0.5, 1e-3, marks=pytest.mark.slow),
    pytest.param(2.0, 0.1, marks=pytest.mark.slow)])
def test_delta_eps_delta_against_family(eps0, delta0):
    d = S.delta(S.eps_delta(), epsilon=eps0, delta=delta0)
    got = np.array([float(d.subs(S.varepsilon, x)) for x in EPS])
    assert np.allclose(got, fdp.EpsDelta(eps0, delta0).delta(EPS), rtol=0, atol=1e-14)


def test_delta_eps_delta_symbolic_parameters():
    d = S.delta(S.eps_delta())
    for eps0, delta0 in [(1.0, 0.0), (2.0, 0.05)]:
        dd = d.subs({S.epsilon: eps0, S.delta_: delta0})
        got = np.array([float(dd.subs(S.varepsilon, x)) for x in EPS])
        assert np.allclose(got, fdp.EpsDelta(eps0, delta0).delta(EPS), rtol=0, atol=1e-14)


@pytest.mark.slow
def test_delta_laplace_against_family():
    d = S.delta(S.laplace(2.0))
    got = np.array([float(d.subs(S.varepsilon, x)) for x in EPS])
    assert np.allclose(got, fdp.Laplace(2.0).delta(EPS), rtol=0, atol=1e-14)


@pytest.mark.slow
def test_delta_laplace_symbolic_mu():
    """δ(ε) of L_μ for symbolic μ: 1 − e^{(ε−μ)/2} on [−μ, μ], 0 above, 1 − e^ε below."""
    d = S.delta(S.laplace())
    for mu in (0.3, 1.0, 4.0):
        got = np.array([float(d.subs({S.mu: mu, S.varepsilon: x})) for x in EPS])
        assert np.allclose(got, fdp.Laplace(mu).delta(EPS), rtol=0, atol=1e-14)


def test_delta_at_a_number_and_user_expression():
    # f = (1 − α)²: stationary point α = 1 − e^ε/2 for ε < log 2, so δ = (1 − e^ε/2)²
    d = S.delta((1 - a) ** 2, eps=0)
    assert _same(d, sp.Rational(1, 4))
    f = S.to_tradeoff((1 - a) ** 2)
    expr = S.delta((1 - a) ** 2)
    got = np.array([float(expr.subs(S.varepsilon, x)) for x in EPS])
    assert np.allclose(got, f.delta(EPS), rtol=0, atol=1e-9)   # numeric conjugate


# ---------------------------------------------------------------------------
# inverse
# ---------------------------------------------------------------------------
GRID = np.linspace(0, 1, 101)


def test_inverse_of_symmetric_families():
    assert _same(S.inverse(S.gaussian()), S.gaussian())
    for f, ref in [(S.eps_delta(1, sp.Rational(1, 100)), fdp.EpsDelta(1.0, 0.01)),
                   (S.laplace(1), fdp.Laplace(1.0))]:
        inv = S.to_tradeoff(S.inverse(f))
        assert np.max(np.abs(inv(GRID) - ref.inverse()(GRID))) < 1e-14


def test_inverse_of_asymmetric_function():
    f = (1 - a) ** 2
    inv = S.inverse(f)
    assert _same(inv, 1 - sp.sqrt(a))
    g = S.to_tradeoff(inv)
    assert np.allclose(g(S.to_tradeoff(f)(GRID)), GRID, atol=1e-15)


def test_inverse_where_f0_is_below_one():
    f = sp.Rational(1, 2) * (1 - a)          # f⁻¹ = 1 − 2α below 1/2, 0 above
    inv = S.to_tradeoff(S.inverse(f))
    assert np.allclose(inv(GRID), np.maximum(1 - 2 * GRID, 0), atol=1e-15)
