"""(ε, δ) ↔ f conversions and GDP conversions against mpmath (DRS §2.4, Cor 2.13)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import fdp


def mp_gdp_delta(mu, eps, dps=80):
    with mp.workdps(dps):
        mu, eps = mp.mpf(mu), mp.mpf(eps)
        return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def mp_gdp_epsilon(mu, delta, dps=80):
    """ε(δ) by mpmath bisection on the decreasing δ_μ(ε)."""
    with mp.workdps(dps):
        lo, hi = mp.mpf(0), mp.mpf(1)
        while mp_gdp_delta(mu, hi, dps) > delta:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if mp_gdp_delta(mu, mid, dps) > delta:
                lo = mid
            else:
                hi = mid
        return hi


@pytest.mark.parametrize("mu, eps", [(0.5, 0.0), (1.0, 1.0), (1.0, 10.0), (8.0, 60.0),
                                     (50.0, 3000.0), (0.1, 3.0), (3.0, -2.0), (20.0, 1e3)])
def test_gdp_delta_against_mpmath_relative(mu, eps):
    ref = mp_gdp_delta(mu, eps)
    assert fdp.gdp_delta(mu, eps) == pytest.approx(float(ref), rel=1e-9)


@pytest.mark.parametrize("mu, delta", [(1.0, 1e-5), (8.0, 1e-12), (0.5, 1e-10), (50.0, 1e-300),
                                       (2.0, 0.3), (0.01, 1e-6)])
def test_gdp_epsilon_against_mpmath_bisection(mu, delta):
    ref = float(mp_gdp_epsilon(mu, delta))
    ours = fdp.gdp_epsilon(mu, delta)
    assert ours == pytest.approx(ref, rel=1e-10)
    assert fdp.gdp_delta(mu, ours) <= delta  # the safe side
    assert fdp.Gaussian(mu).epsilon(delta) == pytest.approx(ours, rel=1e-10)


def test_gdp_epsilon_edge_cases():
    assert fdp.gdp_epsilon(1.0, 0.0) == np.inf
    assert fdp.gdp_epsilon(1.0, 0.99) == 0.0  # δ ≥ δ(0)
    assert fdp.gdp_epsilon(0.0, 1e-9) == 0.0
    out = fdp.gdp_epsilon(1.0, np.array([1e-5, 1e-9]))
    assert out.shape == (2,) and out[1] > out[0]


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-5), (8.0, 1e-5), (0.1, 1e-10), (300.0, 1e-300)])
def test_gdp_mu_inverts_gdp_delta(eps, delta):
    mu = fdp.gdp_mu_for_eps_delta(eps, delta)
    assert fdp.gdp_delta(mu, eps) <= delta
    assert float(mp_gdp_delta(mu * (1 + 1e-9), eps)) > delta  # it is the largest such μ


def test_r_fdp_documented_conversion():
    # R package fdp: gdp_to_epsdelta(mu = 0.5, epsilon = 1.45) gives δ = 0.000544…
    assert fdp.gdp_delta(0.5, 1.45) == pytest.approx(5.4439e-4, rel=1e-4)
    assert fdp.gdp_delta(1.0, 1.0) == pytest.approx(0.126936737506644, rel=1e-12)


def test_generic_epsilon_handles_infinite_and_huge_answers():
    f = fdp.EpsDelta(1.0, 1e-3)
    assert f.epsilon(1e-4) == np.inf  # below δ(∞) = 1 − f(0)
    assert f.epsilon(1e-3) == pytest.approx(1.0, abs=1e-12)
    assert f.epsilon(0.5) == 0.0
    # Laplace: δ = 0 is reached at ε = μ exactly.
    assert fdp.Laplace(2.0).epsilon(0.0) == pytest.approx(2.0, rel=1e-12)
    # A huge ε found without any fixed bracket.
    truth = float(mp_gdp_epsilon(40.0, 1e-200))
    assert fdp.Gaussian(40.0).epsilon(1e-200) == pytest.approx(truth, rel=1e-9)


def test_epsilon_bounds_of_a_closed_form_hold_the_real_number_and_are_tight():
    # Laplace(μ): δ(ε) = 1 − exp((ε − μ)/2) on [0, μ], so ε(δ) = μ + 2 log(1 − δ).
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    truth = 1 + 2 * mpmath.log(1 - mpmath.mpf("0.01"))
    lo, hi = fdp.Laplace(1.0).epsilon_bounds(0.01)
    assert mpmath.mpf(lo) <= truth <= mpmath.mpf(hi)
    assert hi - lo < 1e-14


def test_from_privacy_profile_is_the_sup_of_eps_delta_curves():
    eps = np.array([0.0, 0.5, 1.0])
    d = np.array([0.3, 0.1, 0.01])
    f = fdp.from_privacy_profile(eps, d)
    a = np.linspace(0, 1, 101)
    ref = np.max([fdp.EpsDelta(e, x)(a) for e, x in zip(eps, d)], axis=0)
    np.testing.assert_allclose(f(a), ref, atol=1e-15)


def test_gaussian_profile_round_trip_is_nearly_lossless():
    g = fdp.Gaussian(1.0)
    eps = np.linspace(0, 15, 6001)
    back = fdp.from_privacy_profile(eps, g.delta(eps))
    a = np.linspace(0, 1, 501)
    assert np.all(back(a) <= g(a) + 1e-14)
    assert np.max(g(a) - back(a)) < 1e-5


def test_tightest_eps_delta_rounds_up():
    g = fdp.Gaussian(1.0)
    e, d = fdp.tightest_eps_delta(g, delta=1e-5, digits=3)
    assert e >= g.epsilon(1e-5) and e == pytest.approx(4.38)
    e, d = fdp.tightest_eps_delta(g, eps=1.0, digits=2)
    assert d >= g.delta(1.0) and d == pytest.approx(0.13)
