"""fdp.classical: published numbers, independent checks of the RDP formulas, and
"never below the exact composition" for every bound that claims to be an upper bound."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp import classical as C
from fdp.sgd import dpsgd_rdp_epsilon

P_MNIST = 256 / 60000


# ----------------------------------------------------------------------
# Moments accountant numbers of Bu, Dong, Long & Su (2020): dpsgd_rdp_epsilon with
# Mironov's conversion and their order grid; steps = epochs · n / batch (a float, as in
# their code).
# ----------------------------------------------------------------------
def _bu(sigma, q, steps, delta, conversion="mironov"):
    return dpsgd_rdp_epsilon(sigma, q, steps, delta, orders=C.BU_ORDERS,
                             conversion=conversion)


@pytest.mark.parametrize("sigma,epochs,eps,tol", [
    (1.3, 15, 1.1912, 5e-5),   # README, 4 digits
    (1.1, 60, 3.01, 5e-3),     # paper, 2 digits
    (0.7, 45, 7.10, 5e-3),
])
def test_bu_moments_accountant(sigma, epochs, eps, tol):
    r = _bu(sigma, P_MNIST, epochs * 60000 / 256, 1e-5)
    assert r.epsilon == pytest.approx(eps, abs=tol)
    assert r.order in C.BU_ORDERS


def test_bu_readme_improved_conversion():
    """README: "improved by TensorFlow-privacy using the new moments accountant to 0.9545"."""
    r = _bu(1.3, P_MNIST, 15 * 60000 / 256, 1e-5, conversion="improved")
    assert r.epsilon == pytest.approx(0.9545, abs=5e-5)


def test_bu_movielens_moments_accountant():
    r = _bu(0.6, 10000 / 800167, 20 * 800167 / 10000, 1e-6)
    assert r.epsilon == pytest.approx(15.39, abs=5e-3)


@pytest.mark.parametrize("sigma,epochs,eps", [(1.3, 20, 1.34), (0.7, 70, 8.68)])
def test_bu_figure4_moments_accountant(sigma, epochs, eps):
    """Fig. 4 caption: the MA with σ = 1.3 (epoch 20) and 0.7 (epoch 70) gives "the
    same ε" as the CLT curves, 1.34 and 8.68 (read off a plot: 0.01 slack)."""
    r = _bu(sigma, P_MNIST, epochs * 60000 / 256, 1e-5)
    assert r.epsilon == pytest.approx(eps, abs=0.011)


def test_bu_orders_grid():
    o = C.BU_ORDERS
    assert o.size == 99 + 240 + 40
    assert o[0] == pytest.approx(1.1) and o[98] == pytest.approx(10.9)
    assert o[99] == 12.0 and o[-1] == 99.0


# ----------------------------------------------------------------------
# RDP of the (subsampled) Gaussian against direct quadrature
# ----------------------------------------------------------------------
def _log_a_quad(q, sigma, lam):
    """log E_{z∼N(0,σ²)}[((1 − q) + q e^{(2z − 1)/(2σ²)})^λ] by mpmath quadrature."""
    with mpmath.workdps(30):
        s = mpmath.mpf(sigma)

        def f(z):
            ratio = mpmath.exp((2 * z - 1) / (2 * s * s))  # μ1/μ0 at z
            return mpmath.npdf(z, 0, s) * ((1 - q) + q * ratio) ** lam

        z0 = s * s * mpmath.log(1 / mpmath.mpf(q) - 1) + 0.5
        return float(mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, z0, z0 + 10 * s * lam,
                                                mpmath.inf])))


@pytest.mark.parametrize("q,sigma,lam", [
    (0.01, 1.0, 2.0), (0.01, 1.0, 2.5), (0.01, 1.0, 17.3), (0.2, 0.8, 3.7),
    (0.5, 2.0, 1.1), (0.004, 1.3, 12.999999999999996), (0.9, 1.5, 6.0), (0.05, 4.0, 40.4),
])
def test_subsampled_gaussian_rdp_matches_quadrature(q, sigma, lam):
    rdp = C.rdp_subsampled_gaussian([lam], q, sigma)[0]
    assert rdp * (lam - 1) == pytest.approx(_log_a_quad(q, sigma, lam), rel=1e-9, abs=1e-13)


@settings(max_examples=8, deadline=None)
@given(st.floats(0.001, 0.5), st.floats(0.5, 5.0), st.floats(1.05, 30.0))
def test_subsampled_gaussian_rdp_property(q, sigma, lam):
    rdp = C.rdp_subsampled_gaussian([lam], q, sigma)[0]
    # Between 0 and the unsubsampled Gaussian's λ/(2σ²); matches quadrature.
    assert 0.0 <= rdp <= lam / (2 * sigma ** 2) * (1 + 1e-12)
    assert rdp * (lam - 1) == pytest.approx(_log_a_quad(q, sigma, lam), rel=1e-7, abs=1e-12)


def test_fractional_and_integer_orders_are_continuous():
    a = C.rdp_subsampled_gaussian([3.0, 3.0 + 1e-7], 0.03, 1.1)
    assert a[1] == pytest.approx(a[0], rel=1e-5)


def test_rdp_edge_cases_and_steps():
    assert C.rdp_subsampled_gaussian([2.0], 0.0, 1.0)[0] == 0.0
    assert C.rdp_subsampled_gaussian([2.5], 1.0, 2.0)[0] == pytest.approx(2.5 / 8)
    one = C.rdp_subsampled_gaussian([2.0, 4.5], 0.1, 1.0)
    assert np.allclose(C.rdp_subsampled_gaussian([2.0, 4.5], 0.1, 1.0, steps=7), 7 * one)
    assert C.rdp_of(fdp.Gaussian(0.5), 3.0, steps=5) == pytest.approx(5 * 3 / 8)


def test_gaussian_rdp_is_the_renyi_divergence():
    sigma, lam = 1.7, 3.3
    with mpmath.workdps(30):
        p = lambda z: mpmath.npdf(z, 0, sigma)
        q = lambda z: mpmath.npdf(z, 1, sigma)
        d = mpmath.log(mpmath.quad(lambda z: q(z) ** lam * p(z) ** (1 - lam),
                                   [-mpmath.inf, mpmath.inf])) / (lam - 1)
    assert C.rdp_of(fdp.Gaussian(1 / sigma), lam) == pytest.approx(float(d), rel=1e-12)


# ----------------------------------------------------------------------
# Conversions: improved ≤ Mironov; both ≥ the exact ε
# ----------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 5.0), st.sampled_from([1e-3, 1e-5, 1e-8]))
def test_rdp_conversions_bound_exact_gaussian(mu, delta):
    exact = fdp.gdp_epsilon(mu, delta)
    old = C.gaussian_rdp_epsilon(mu, delta, conversion="mironov").epsilon
    new = C.gaussian_rdp_epsilon(mu, delta, conversion="improved").epsilon
    assert exact <= new + 1e-12
    assert new <= old + 1e-12


def test_improved_conversion_formula():
    lam, rho, d = 5.0, 0.4, 1e-6
    r = C.rdp_to_epsilon([lam], [rho], d, conversion="improved")
    # Canonne–Kamath–Steinke Prop 12: δ = e^{(λ−1)(ρ−ε)} (1 − 1/λ)^{λ−1} / λ.
    back = math.exp((lam - 1) * (rho - r.epsilon)) * (1 - 1 / lam) ** (lam - 1) / lam
    assert back == pytest.approx(d, rel=1e-12)
    with pytest.raises(ValueError, match="conversion"):
        C.rdp_to_epsilon([lam], [rho], d, conversion="new")


@pytest.mark.slow
def test_rdp_epsilon_never_below_certified_dpsgd():
    """RDP ε (Poisson, add/remove) is an upper bound on the certified lower ε."""
    T, q = 200, 0.02
    ma = dpsgd_rdp_epsilon(1.0, q, T, 1e-5).epsilon
    f = fdp.dpsgd(noise_multiplier=1.0, sample_rate=q, steps=T, sampling="poisson",
                  neighbouring="add_remove")
    lo, hi = f.epsilon_bounds(1e-5)
    assert lo <= ma + 1e-9
    assert ma < 1.5 * hi  # and RDP is not absurdly loose here


# ----------------------------------------------------------------------
# Composition theorems
# ----------------------------------------------------------------------
def test_kov_check_value():
    """Kairouz, Oh & Viswanath (2015), Thm 3.3: n = 10, ε = 0.5 gives δ(4.0) = 5.519627e-3."""
    assert C.optimal_homogeneous_delta(0.5, 0.0, 10, 4.0) == pytest.approx(5.519627e-3, rel=1e-6)


def _kov_theorem(eps, delta, k, i):
    """KOV Thm 3.3 as printed: δ_i for ε' = (k − 2i)ε, summed in exact fractions."""
    e = mpmath.e ** mpmath.mpf(eps)
    s = sum(mpmath.binomial(k, l) * (e ** (k - l) - e ** (k - 2 * i + l)) for l in range(i))
    tilde = s / (1 + e) ** k
    return float(1 - (1 - mpmath.mpf(delta)) ** k * (1 - tilde))


@pytest.mark.parametrize("eps,delta,k", [(0.5, 0.0, 10), (0.1, 1e-6, 40), (1.0, 1e-3, 7)])
def test_optimal_homogeneous_matches_kov_formula_and_core(eps, delta, k):
    i = np.arange(k // 2 + 1)
    lattice = (k - 2 * i) * eps
    ours = C.optimal_homogeneous_delta(eps, delta, k, lattice)
    kov = np.array([_kov_theorem(eps, delta, k, int(j)) for j in i])
    assert np.allclose(ours, kov, rtol=1e-10, atol=1e-15)
    grid = np.linspace(-1.0, k * eps + 1, 37)
    core = (fdp.EpsDelta(eps, delta) ** k).delta(grid)
    assert np.allclose(C.optimal_homogeneous_delta(eps, delta, k, grid), core, rtol=1e-9,
                       atol=1e-14)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.01, 2.0), st.sampled_from([0.0, 1e-6, 1e-3]), st.integers(1, 60),
       st.sampled_from([1e-2, 1e-5, 1e-9]))
def test_upper_bounds_never_below_exact(eps, delta, k, delta_total):
    exact = fdp.EpsDelta(eps, delta) ** k
    # Optimal (exact) ε' and the KOV lattice version.
    e_opt = C.optimal_homogeneous_epsilon(eps, delta, k, delta_total)
    e_lat = C.kov_lattice_epsilon(eps, delta, k, delta_total)
    assert e_opt <= e_lat + 1e-12
    if np.isfinite(e_opt):
        assert exact.delta(e_opt) <= delta_total * (1 + 1e-9) + 1e-15
        assert e_opt == pytest.approx(exact.epsilon(delta_total), rel=1e-7, abs=1e-9)
    # Basic composition: (kε, kδ).
    be, bd = C.basic_composition([eps] * k, delta)
    assert exact.delta(be) <= bd + 1e-12
    # Advanced composition: (ε', kδ + δ').
    for dp in (1e-3, 1e-6):
        ae, ad = C.advanced_composition(eps, delta, k, dp)
        assert exact.delta(ae) <= ad + 1e-12


def test_basic_and_parallel():
    assert C.basic_composition([0.1, 0.2, 0.3], [1e-6, 0, 2e-6]) == pytest.approx((0.6, 3e-6))
    assert C.parallel_composition([0.1, 0.5, 0.3], 1e-6) == (0.5, 1e-6)
    assert C.basic_composition([0.5], 0.7)[1] == 0.7
    assert C.basic_composition([0.5, 0.5], 0.7)[1] == 1.0
    with pytest.raises(ValueError):
        C.basic_composition([], 0.0)
    with pytest.raises(ValueError):
        C.basic_composition([-0.1], 0.0)
    with pytest.raises(ValueError):
        C.basic_composition([0.1, 0.2], [0.1, 0.2, 0.3])


def test_advanced_composition_formula():
    e, d, k, dp = 0.1, 1e-7, 100, 1e-5
    eps, delta = C.advanced_composition(e, d, k, dp)
    assert eps == pytest.approx(math.sqrt(2 * k * math.log(1 / dp)) * e + k * e * (math.exp(e) - 1))
    assert delta == pytest.approx(k * d + dp)
    with pytest.raises(ValueError):
        C.advanced_composition(e, d, k, 0.0)
    with pytest.raises(ValueError):
        C.advanced_composition(e, d, 0, dp)


def test_gaussian_calibration():
    s_classic = C.classic_gaussian_sigma(0.5, 1e-5)
    assert s_classic == pytest.approx(math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5)
    s_exact = C.analytic_gaussian_sigma(0.5, 1e-5)
    assert s_exact <= s_classic
    assert fdp.gdp_delta(1 / s_exact, 0.5) == pytest.approx(1e-5, rel=1e-9)
    with pytest.raises(ValueError):
        C.classic_gaussian_sigma(1.5, 1e-5)


def test_bad_orders():
    with pytest.raises(ValueError):
        C.rdp_of(fdp.Gaussian(1.0), [0.5, 2.0])   # order 1 is KL, allowed
    with pytest.raises(ValueError):
        C.rdp_subsampled_gaussian([2.0], 1.2, 1.0)
    with pytest.raises(ValueError):
        C.rdp_to_epsilon([2.0, 3.0], [0.1], 1e-5)


def _renyi_laplace(lam, mu):
    """D_λ(Lap(0,1) ‖ Lap(μ,1)) by mpmath quadrature, split at the kinks 0 and μ."""
    lam, mu = mpmath.mpf(lam), mpmath.mpf(mu)

    def integrand(x):
        p = mpmath.exp(-abs(x)) / 2
        q = mpmath.exp(-abs(x - mu)) / 2
        return p ** lam * q ** (1 - lam)
    total = mpmath.quad(integrand, [-mpmath.inf, 0, mu, mpmath.inf])
    return float(mpmath.log(total) / (lam - 1))


@pytest.mark.parametrize("lam, mu", [(1.5, 0.3), (2.0, 1.0), (7.3, 0.5), (40.0, 0.05),
                                     (1.02, 1e-5), (3.0, 2e-7)])
def test_laplace_rdp_is_the_renyi_divergence(lam, mu):
    mpmath.mp.dps = 30
    assert math.isclose(C.rdp_of(fdp.Laplace(mu), lam), _renyi_laplace(lam, mu),
                        rel_tol=1e-10)
    assert math.isclose(C.rdp_of(fdp.Laplace(mu), lam, steps=3), 3 * _renyi_laplace(lam, mu),
                        rel_tol=1e-10)


@settings(max_examples=20, deadline=None)
@given(st.floats(1.01, 200.0), st.floats(0.0, 5.0))
def test_randomized_response_rdp_is_the_renyi_divergence(lam, eps):
    # the pair of fdp.RandomizedResponse(ε): D_λ = log Σ p^λ q^{1−λ} / (λ − 1), exactly
    pair = fdp.RandomizedResponse(eps)._pair()
    mpmath.mp.dps = 40
    p = [mpmath.mpf(float(x)) for x in pair.p]
    q = [mpmath.mpf(float(x)) for x in pair.q]
    lam_m = mpmath.mpf(lam)
    exact = float(mpmath.log(mpmath.fsum(a ** lam_m * b ** (1 - lam_m) for a, b in zip(p, q)
                                         if a > 0)) / (lam_m - 1))
    assert math.isclose(C.rdp_of(fdp.RandomizedResponse(eps), lam), exact, rel_tol=1e-9,
                        abs_tol=1e-15)


def test_laplace_and_rr_rdp_limits_and_bad_input():
    # λ → ∞ tends to the pure-DP ε; large λμ must not overflow
    assert math.isclose(C.rdp_of(fdp.Laplace(1.0), 1e6), 1.0, rel_tol=1e-5)
    assert math.isclose(C.rdp_of(fdp.RandomizedResponse(2.0), 1e6), 2.0, rel_tol=1e-5)
    assert np.isfinite(C.rdp_of(fdp.Laplace(50.0), 1e4))
    assert C.rdp_of(fdp.Laplace(0.0), np.array([2.0, 3.0])).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="orders"):
        C.rdp_of(fdp.Laplace(1.0), 0.999)   # order 1 is KL, allowed
    with pytest.raises(ValueError, match="steps"):
        C.rdp_of(fdp.Laplace(1.0), 2.0, steps=-1.0)
    with pytest.raises(TypeError, match="TradeOff"):
        C.rdp_of(1.0, 2.0)
