"""dpsgd_clt_mu takes the sensitivity explicitly; defaults as fdp.dpsgd (1 / 2).

Truth: the CLT formulas written out here with σ' = σ/s (Bu et al. 2020 for Poisson,
DRS §5 for sampling without replacement), and Bu et al.'s printed MNIST numbers.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import fdp
from fdp.sgd.clt import compare_dpsgd_clt


def poisson(s, p, T):
    return p * np.sqrt(T) * np.sqrt(np.exp(s ** -2) - 1)


def uniform(s, p, T):
    return p * np.sqrt(2 * T) * np.sqrt(np.exp(s ** -2) * norm.cdf(1.5 / s)
                                        + 3 * norm.cdf(-0.5 / s) - 2)


def test_default_replace_one_uses_twice_the_clipping_norm():
    s, p, T = 1.3, 256 / 60000, 15 * 60000 / 256
    assert fdp.dpsgd_clt_mu(s, p, T, "without_replacement") == pytest.approx(uniform(s / 2, p, T))
    assert fdp.dpsgd_clt_mu(s, p, T, "poisson") == pytest.approx(poisson(s, p, T))


def test_bu_uniform_number_needs_sensitivity_one():
    # Bu et al.'s README: uniform CLT ε = 1.0685 at σ = 1.3, 15 epochs, δ = 1e-5
    T = 15 * 60000 / 256
    mu = fdp.dpsgd_clt_mu(1.3, 256 / 60000, T, "without_replacement", sensitivity=1)
    assert fdp.gdp_epsilon(mu, 1e-5) == pytest.approx(1.0685, abs=5e-5)
    default = fdp.dpsgd_clt_mu(1.3, 256 / 60000, T, "without_replacement")
    assert default > 3 * mu


@settings(max_examples=30)
@given(st.floats(0.3, 5.0), st.floats(0.1, 4.0), st.floats(1e-4, 0.5), st.floats(1.0, 1e5))
def test_formulas_with_sensitivity(sigma, sens, p, T):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_p, want_u = poisson(sigma / sens, p, T), uniform(sigma / sens, p, T)
    got_p = fdp.dpsgd_clt_mu(sigma, p, T, "poisson", sensitivity=sens)
    got_u = fdp.dpsgd_clt_mu(sigma, p, T, "without_replacement", sensitivity=sens)
    if np.isfinite(want_p):
        assert got_p == pytest.approx(want_p, rel=1e-9)
        assert got_u == pytest.approx(want_u, rel=1e-9)
    else:
        assert got_p == np.inf


def test_tiny_noise_gives_infinite_mu_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fdp.dpsgd_clt_mu(0.01, 0.1, 10) == np.inf
        assert fdp.dpsgd_clt_mu(0.01, 0.1, 10, "without_replacement") == np.inf
        assert fdp.dpsgd_clt_mu(0.01, 0.0, 10) == 0.0


def test_bad_sensitivity():
    with pytest.raises(ValueError, match="sensitivity"):
        fdp.dpsgd_clt_mu(1.0, 0.1, 10, sensitivity=0.0)
    with pytest.raises(TypeError, match="sensitivity"):
        fdp.dpsgd_clt_mu(1.0, 0.1, 10, sensitivity="1")


def test_comparison_carries_the_sensitivity():
    c = compare_dpsgd_clt(1.0, 0.05, 20, 1e-5, sampling="without_replacement", tol=1e-3,
                          sensitivity=1)
    assert c.sensitivity == 1.0
    assert c.clt_mu == pytest.approx(uniform(1.0, 0.05, 20))
    assert "sensitivity 1C" in str(c)
    d = compare_dpsgd_clt(1.0, 0.05, 20, 1e-5, sampling="without_replacement", tol=1e-3)
    assert d.sensitivity == 2.0 and d.epsilon_lower > c.epsilon_upper
