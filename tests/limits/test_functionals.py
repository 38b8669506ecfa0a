"""fdp.functionals against independent computations (quadrature of the densities,
exact sums written out by hand, closed forms from the definitions)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.limits.functionals import Functionals
from tests.conftest import pmfs


def _gauss_quad(mu):
    """E_P g(L) for L = μX − μ²/2, X ~ N(0,1), by mpmath quadrature."""
    with mpmath.workdps(30):
        dens = lambda x: mpmath.npdf(x)
        L = lambda x: mu * x - mu * mu / 2
        m1 = mpmath.quad(lambda x: L(x) * dens(x), [-mpmath.inf, mpmath.inf])
        m2 = mpmath.quad(lambda x: L(x) ** 2 * dens(x), [-mpmath.inf, mpmath.inf])
        zero = mu / 2
        a3 = mpmath.quad(lambda x: abs(L(x)) ** 3 * dens(x), [-mpmath.inf, zero, mpmath.inf])
        c3 = mpmath.quad(lambda x: abs(L(x) - m1) ** 3 * dens(x), [-mpmath.inf, 0, mpmath.inf])
        return float(-m1), float(m2), float(a3), float(c3)


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.5])
def test_gaussian_closed_forms_match_quadrature(mu):
    fn = fdp.functionals(fdp.Gaussian(mu))
    kl, k2, k3, k3b = _gauss_quad(mu)
    assert fn.kl == pytest.approx(mu * mu / 2, rel=1e-14)
    assert fn.kappa2 == pytest.approx(mu * mu + mu ** 4 / 4, rel=1e-14)
    assert fn.kappa3_bar == pytest.approx(2 * math.sqrt(2 / math.pi) * mu ** 3, rel=1e-13)
    assert (fn.kl, fn.kappa2, fn.kappa3, fn.kappa3_bar) == pytest.approx((kl, k2, k3, k3b),
                                                                         rel=1e-12)
    assert fn.delta == 0.0 and fn.accuracy == 0.0 and fn.method == "closed form"


def _laplace_quad(m):
    """Moments of L = |x| − |x − m| under Lap(0,1), by mpmath quadrature in x."""
    with mpmath.workdps(30):
        dens = lambda x: mpmath.exp(-abs(x)) / 2
        L = lambda x: abs(x) - abs(x - m)
        pts = [-mpmath.inf, 0, m / 2, m, mpmath.inf]
        m1 = mpmath.quad(lambda x: L(x) * dens(x), pts)
        m2 = mpmath.quad(lambda x: L(x) ** 2 * dens(x), pts)
        a3 = mpmath.quad(lambda x: abs(L(x)) ** 3 * dens(x), pts)
        xc = (m + m1) / 2  # where L = m1
        c3 = mpmath.quad(lambda x: abs(L(x) - m1) ** 3 * dens(x), sorted(pts[:-1] + [xc])
                         + [mpmath.inf])
        return float(-m1), float(m2), float(a3), float(c3)


@pytest.mark.parametrize("m", [0.05, 0.3, 1.0, 3.0, 8.0])
def test_laplace_closed_forms_match_quadrature(m):
    fn = fdp.functionals(fdp.Laplace(m))
    assert fn.kl == pytest.approx(m - 1 + math.exp(-m), rel=1e-13)  # KL of two Laplaces
    assert fn.kappa2 == pytest.approx(m * m - 2 * m + 4 - (2 * m + 4) * math.exp(-m), rel=1e-9)
    assert (fn.kl, fn.kappa2, fn.kappa3, fn.kappa3_bar) == pytest.approx(_laplace_quad(m),
                                                                         rel=1e-10)


@pytest.mark.parametrize("eps", [0.01, 0.5, 1.0, 4.0])
def test_pure_dp_closed_forms(eps):
    fn = fdp.functionals(fdp.EpsDelta(eps))
    t = math.tanh(eps / 2)
    assert fn.kl == pytest.approx(eps * t, rel=1e-13)
    assert fn.kappa2 == pytest.approx(eps ** 2, rel=1e-13)
    assert fn.kappa3 == pytest.approx(eps ** 3, rel=1e-13)
    # L − E L is ε(1 + t) w.p. (1 − t)/2 and −ε(1 − t) w.p. (1 + t)/2.
    assert fn.kappa3_bar == pytest.approx(eps ** 3 * (1 - t * t) * (1 + t * t), rel=1e-12)
    # Randomized response with k = 2 is the same function.
    assert fdp.functionals(fdp.RandomizedResponse(eps, 2)).kl == pytest.approx(fn.kl, rel=1e-13)


def test_delta_part_is_split_off():
    a = fdp.functionals(fdp.EpsDelta(0.7, 1e-3))
    b = fdp.functionals(fdp.EpsDelta(0.7))
    assert a.delta == pytest.approx(1e-3, rel=1e-12)
    assert (a.kl, a.kappa2, a.kappa3, a.kappa3_bar) == pytest.approx(
        (b.kl, b.kappa2, b.kappa3, b.kappa3_bar), rel=1e-12)


def test_kary_randomized_response_by_hand():
    eps, k = 1.3, 4
    z = math.exp(eps) + k - 1
    # Neighbouring inputs x, x': P(out = x) = e^ε/z, P(out = x') = 1/z, others 1/z.
    p = np.array([math.exp(eps) / z, 1 / z] + [1 / z] * (k - 2))
    q = np.array([1 / z, math.exp(eps) / z] + [1 / z] * (k - 2))
    L = np.log(q / p)
    fn = fdp.functionals(fdp.RandomizedResponse(eps, k))
    assert fn.kl == pytest.approx(float(np.sum(p * np.log(p / q))), rel=1e-13)
    assert fn.kappa2 == pytest.approx(float(np.sum(p * L ** 2)), rel=1e-13)
    assert fn.kappa3_bar == pytest.approx(float(np.sum(p * np.abs(L - np.sum(p * L)) ** 3)),
                                          rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(pmfs(n), pmfs(n))))
def test_finite_pairs_exact_sums(pq):
    p, q = pq
    f = fdp.from_pair(p, q)
    both = (p > 0) & (q > 0)
    a, b = p[(q == 0) & (p > 0)].sum(), q[(p == 0) & (q > 0)].sum()
    if abs(a - b) > 1e-9:
        with pytest.raises(ValueError, match="mass"):
            fdp.functionals(f)
        return
    fn = fdp.functionals(f)
    keep = 1 - max(a, b)
    pp, qq = p[both] / keep, q[both] / keep
    L = np.log(qq) - np.log(pp)
    assert fn.kl == pytest.approx(float(np.sum(pp * -L)), rel=1e-10, abs=1e-12)
    assert fn.kappa2 == pytest.approx(float(np.sum(pp * L * L)), rel=1e-10, abs=1e-12)
    # Moment inequalities: variance ≥ 0 and Lyapunov κ3 ≥ κ2^{3/2}.
    assert fn.kappa2 >= fn.kl ** 2 - 1e-12
    assert fn.kappa3 >= fn.kappa2 ** 1.5 * (1 - 1e-9) - 1e-15


def test_unequal_singular_masses_refused():
    f = fdp.from_pair([0.1, 0.9, 0.0], [0.0, 0.7, 0.3])
    with pytest.raises(ValueError, match="Symmetrise"):
        fdp.functionals(f)


@pytest.mark.parametrize("g", [fdp.Gaussian(1.0), fdp.Laplace(0.8)], ids=["gauss", "laplace"])
def test_numeric_route_within_its_stated_accuracy(g):
    exact = fdp.functionals(g)
    num = fdp.functionals(fdp.from_function(lambda a: g(a), name="copy"))
    assert num.method == "quadrature"
    assert 0.0 < num.accuracy < 1e-3
    for field in ("kl", "kappa2", "kappa3", "kappa3_bar"):
        assert abs(getattr(num, field) - getattr(exact, field)) <= num.accuracy


def test_numeric_route_splits_delta():
    f = fdp.EpsDelta(1.0, 0.02)
    num = fdp.functionals(fdp.from_function(lambda a: f(a), name="copy"))
    exact = fdp.functionals(f)
    assert num.delta == pytest.approx(0.02, abs=1e-9)
    assert num.kl == pytest.approx(exact.kl, abs=max(num.accuracy, 1e-6))
    assert num.kappa2 == pytest.approx(exact.kappa2, abs=max(num.accuracy, 1e-6))


def test_identity_and_types():
    fn = fdp.functionals(fdp.Identity())
    assert fn == Functionals(0.0, 0.0, 0.0, 0.0)
    with pytest.raises(TypeError):
        fdp.functionals(0.5)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.0, 6.0))
def test_laplace_between_pure_dp_and_gaussian_facts(m):
    """L_m is f_{m,0}-DP-dominating: its KL is at most that of f_{m,0} (data
    processing: f_{m,0} ≤ L_m means P, Q of L_m are no further apart)."""
    lap = fdp.functionals(fdp.Laplace(m))
    pure = fdp.functionals(fdp.EpsDelta(m))
    assert 0.0 <= lap.kl <= pure.kl + 1e-12
    assert lap.kappa2 >= lap.kl ** 2 - 1e-12
