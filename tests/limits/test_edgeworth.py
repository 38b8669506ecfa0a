"""fdp.edgeworth: the degree-2 Edgeworth approximation of Zheng, Dong, Long, Su (2020)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import fdp
from fdp.limits import EdgeworthApprox, WithDelta, edgeworth_cdf

# μ_f printed by the authors' code (gdp-edgeworth, expr_laplace.py; MATH.md §6) for
# Lap(0,1)^{⊗n} vs Lap(3/√n,1)^{⊗n}. Their moments come from scipy.integrate.quad with
# default tolerances, so they agree with the exact values to ~1e-8 only.
ZDLS_MU_F = {1: 2.7028840134114045, 3: 2.671608112428377, 5: 2.6890044854067687,
             10: 2.7292239889731054}


def _mu_f_mpmath(n):
    """μ_f = n (E_Q L − E_P L)/√(n Var_P L) by 40-digit quadrature in x (independent)."""
    with mpmath.workdps(40):
        m = 3 / mpmath.sqrt(n)
        L = lambda x: abs(x) - abs(x - m)
        p = lambda x: mpmath.exp(-abs(x)) / 2
        q = lambda x: mpmath.exp(-abs(x - m)) / 2
        pts = [-mpmath.inf, 0, m, mpmath.inf]
        ep = mpmath.quad(lambda x: L(x) * p(x), pts)
        eq = mpmath.quad(lambda x: L(x) * q(x), pts)
        vp = mpmath.quad(lambda x: (L(x) - ep) ** 2 * p(x), pts)
        return float(n * (eq - ep) / mpmath.sqrt(n * vp))


@pytest.mark.parametrize("n", sorted(ZDLS_MU_F))
def test_reproduces_zdls_mu_f(n):
    ew = fdp.edgeworth([fdp.Laplace(3 / np.sqrt(n))] * n)
    assert isinstance(ew, EdgeworthApprox) and ew.n == n
    assert ew.mu_f == pytest.approx(ZDLS_MU_F[n], rel=5e-8)
    assert ew.mu_f == pytest.approx(_mu_f_mpmath(n), rel=1e-12)
    # For symmetric inputs μ_f is the CLT μ of DRS Thm 3.4.
    assert ew.mu_f == pytest.approx(fdp.clt([fdp.Laplace(3 / np.sqrt(n))] * n).mu, rel=1e-12)


def test_labelled_approximate():
    ew = fdp.edgeworth([fdp.Laplace(1.0)] * 3)
    assert "# approximation" in repr(ew) and "not a guarantee" in repr(ew)
    assert ew.status is fdp.Status.APPROXIMATION and not ew.is_exact


def test_gaussian_inputs_reduce_to_gaussian():
    ew = fdp.edgeworth([fdp.Gaussian(0.5)] * 4)
    a = np.linspace(0, 1, 501)
    assert np.max(np.abs(ew(a) - fdp.Gaussian(1.0)(a))) < 1e-12


def test_edgeworth_cdf_is_the_published_series():
    x = np.linspace(-4, 4, 9)
    s, k = 0.3, -0.2
    phi = np.exp(-x * x / 2) / np.sqrt(2 * np.pi)
    from scipy.stats import norm
    manual = norm.cdf(x) - phi * (s / 6 * (x ** 2 - 1) + k / 24 * (x ** 3 - 3 * x)
                                  + s ** 2 / 72 * (x ** 5 - 10 * x ** 3 + 15 * x))
    assert np.allclose(edgeworth_cdf(x, s, k), manual, atol=1e-15)


def test_values_are_clipped_to_valid_range():
    ew = fdp.edgeworth([fdp.Laplace(3.0)])
    a = np.concatenate([[0.0, 1.0], np.logspace(-12, -1, 30), np.linspace(0, 1, 301)])
    b = ew(a)
    assert np.all((b >= 0) & (b <= 1 - a + 1e-15))
    assert ew(0.0) == 1.0 and ew(1.0) == 0.0


def test_delta_inputs():
    ew = fdp.edgeworth([fdp.EpsDelta(0.3, 1e-3)] * 10)
    assert isinstance(ew, WithDelta)
    assert ew.d == pytest.approx(1 - (1 - 1e-3) ** 10, rel=1e-12)
    assert isinstance(ew.base, EdgeworthApprox)


def test_asymmetric_inputs_allowed():
    asym = fdp.from_pair([0.5, 0.5], [0.2, 0.8])
    ew = fdp.edgeworth([asym] * 40)
    # E_Q T − E_P T = n (KL(Q‖P) + KL(P‖Q)), divided by √(n Var_P L).
    p, q = np.array([0.5, 0.5]), np.array([0.2, 0.8])
    L = np.log(q / p)
    mean_p, mean_q = np.sum(p * L), np.sum(q * L)
    var_p = np.sum(p * (L - mean_p) ** 2)
    assert ew.mu_f == pytest.approx(40 * (mean_q - mean_p) / np.sqrt(40 * var_p), rel=1e-12)


def test_closer_than_clt_for_one_laplace():
    """n = 1: the truth is L_3 itself (closed form)."""
    a = np.linspace(0.001, 0.999, 999)
    truth = fdp.Laplace(3.0)(a)
    ew = fdp.edgeworth([fdp.Laplace(3.0)])(a)
    clt = fdp.clt([fdp.Laplace(3.0)]).approx(a)
    assert np.max(np.abs(ew - truth)) < 0.5 * np.max(np.abs(clt - truth))
    assert np.mean(np.abs(ew - truth)) < 0.5 * np.mean(np.abs(clt - truth))


@pytest.mark.parametrize("n", [3, 5, 10])
def test_closer_than_clt_on_laplace_compositions(n):
    """ZDLS Fig. 1 setting; the truth is the engine's certified composition."""
    f = fdp.Laplace(3 / np.sqrt(n))
    truth = fdp.compose(*[f] * n, tol=1e-7)
    a = np.linspace(0.001, 0.999, 999)
    lo, hi = truth.bounds(a)
    ew = fdp.edgeworth([f] * n)(a)
    clt = fdp.clt([f] * n).approx(a)

    def err_up(g):  # certified upper bound on |g − truth|
        return np.maximum(np.abs(g - lo), np.abs(g - hi))

    def err_lo(g):  # certified lower bound on |g − truth|
        return np.maximum(0.0, np.maximum(lo - g, g - hi))

    assert np.max(err_up(ew)) < np.max(err_lo(clt))
    assert np.mean(err_up(ew)) < np.mean(err_lo(clt))
