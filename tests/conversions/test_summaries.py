"""gdp_mu(), pure_epsilon(), tightest_eps_delta: exact where f is piecewise linear."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri

import fdp


def test_gdp_mu_of_closed_forms():
    assert fdp.Gaussian(1.7).gdp_mu() == 1.7
    assert fdp.Identity().gdp_mu() == 0.0
    assert fdp.EpsDelta(1.0, 1e-6).gdp_mu() == np.inf  # f(0) < 1


def test_gdp_mu_of_pure_dp_is_the_vertex_value():
    """f_{ε,0} ≥ G_μ iff G_μ passes below the kink α* = 1/(1+e^ε) (the only inner vertex)."""
    e = 1.0
    kink = 1 / (1 + np.exp(e))
    ref = -ndtri(kink) - ndtri(kink)
    assert fdp.EpsDelta(e).gdp_mu() == pytest.approx(ref, rel=1e-14)
    assert fdp.EpsDelta(e).gdp_mu() >= ref


def test_gdp_mu_of_generic_f_is_certified_and_tight():
    """Laplace: the true μ is max_α Φ⁻¹(1−α) − Φ⁻¹(L_1(α)), found here on a fine grid."""
    a = np.concatenate([np.logspace(-9, -1, 20001), np.linspace(0.1, 1 - 1e-9, 20001)])
    truth = np.max(-ndtri(a) - ndtri(fdp.Laplace(1.0)(a)))
    ours = fdp.Laplace(1.0).gdp_mu()
    assert truth <= ours <= truth + 1e-6
    assert np.all(fdp.Laplace(1.0)(a) >= fdp.Gaussian(ours)(a) - 1e-15)


def test_pure_epsilon():
    assert fdp.EpsDelta(0.7).pure_epsilon() == 0.7
    assert fdp.Laplace(1.3).pure_epsilon() == pytest.approx(1.3, rel=1e-12)
    assert fdp.Gaussian(0.1).pure_epsilon() == np.inf
    assert (fdp.EpsDelta(0.5) ** 3).pure_epsilon() == pytest.approx(1.5, rel=1e-12)
    assert fdp.RandomizedResponse(0.8, 5).pure_epsilon() == pytest.approx(0.8, rel=1e-12)


def test_pure_epsilon_of_r_fdp_documented_point_set():
    """R fdp: G_0.5 sampled on a 0.01 grid at δ = 0 gives ε = 1.45 (R rounds up to 0.01)."""
    a = np.linspace(0, 1, 101)
    f = fdp.from_points(a, fdp.Gaussian(0.5)(a))
    eps = f.pure_epsilon()
    # Exact: the binding vertex is α = 0.99: ε = −log(β/(1−α)).
    assert eps == pytest.approx(-np.log(fdp.Gaussian(0.5)(0.99) / 0.01), rel=1e-12)
    assert np.ceil(eps * 100) / 100 == pytest.approx(1.45)
    assert np.all(f(a) >= fdp.EpsDelta(eps)(a) - 1e-15)
    assert np.any(f(a) < fdp.EpsDelta(1.44)(a))
