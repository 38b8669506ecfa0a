"""One name per RDP question (issue 30, item 4), each checked against an independent
computation written here with mpmath:

* ``rdp_of(f, orders, steps)``: the RDP curve of a mechanism, against the closed forms
  of Mironov (2017), Prop 6 (Laplace), Prop 5 (randomized response) and Table II
  (Gaussian);
* ``rdp_subsampled_gaussian``: the sampler's RDP, against the binomial expansion of
  Mironov, Talwar & Zhang (2019, §3.3) at integer orders;
* ``fdp.sgd.dpsgd_rdp_epsilon``: ε of Poisson DP-SGD, against that expansion and the
  conversions of Balle et al. (2020, Thm 21) and Mironov (2017, Prop 3).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import fdp
from fdp import classical as C
from fdp.sgd import dpsgd_rdp_epsilon

INT_ORDERS = [2.0, 3.0, 4.0, 6.0, 8.0, 11.0, 16.0, 24.0, 32.0, 48.0, 64.0]


def _mtz_rho(q, sigma, lam, steps=1):
    """steps · log A_λ / (λ − 1), A_λ = Σ_k C(λ,k) q^k (1−q)^{λ−k} e^{(k²−k)/(2σ²)}
    (Mironov, Talwar & Zhang 2019, §3.3), in 60-digit arithmetic."""
    with mpmath.workdps(60):
        q, s, lam = mpmath.mpf(q), mpmath.mpf(sigma), int(lam)
        a = mpmath.fsum(mpmath.binomial(lam, k) * q ** k * (1 - q) ** (lam - k)
                        * mpmath.exp(mpmath.mpf(k * k - k) / (2 * s * s))
                        for k in range(lam + 1))
        return steps * mpmath.log(a) / (lam - 1)


def _eps(rho, lam, delta, conversion):
    """The RDP → (ε, δ) conversion at one order, in mpmath."""
    with mpmath.workdps(60):
        lam, d = mpmath.mpf(lam), mpmath.mpf(delta)
        if conversion == "mironov":          # Mironov 2017, Prop 3
            return rho + mpmath.log(1 / d) / (lam - 1)
        # Balle et al. 2020, Thm 21
        return rho + mpmath.log(1 - 1 / lam) - (mpmath.log(d) + mpmath.log(lam)) / (lam - 1)


# ----------------------------------------------------------------------
# rdp_subsampled_gaussian: the sampler's RDP
# ----------------------------------------------------------------------
@pytest.mark.parametrize("q,sigma,steps", [(0.01, 1.1, 1), (0.01, 1.1, 100),
                                           (256 / 60000, 0.7, 1000), (0.2, 2.0, 3),
                                           (0.001, 30.0, 1), (0.5, 0.8, 1)])
def test_subsampled_gaussian_is_the_mtz_binomial_expansion(q, sigma, steps):
    ours = C.rdp_subsampled_gaussian(INT_ORDERS, q, sigma, steps)
    for lam, got in zip(INT_ORDERS, ours):
        want = _mtz_rho(q, sigma, lam, steps)
        assert got >= want                     # an upper bound, rounded up
        # by the padding of each log term (64 ulps of its pieces), not more
        assert float(got) == pytest.approx(float(want), rel=1e-11, abs=0.0)


# ----------------------------------------------------------------------
# dpsgd_rdp_epsilon: ε of Poisson DP-SGD by the Rényi accountant
# ----------------------------------------------------------------------
@pytest.mark.parametrize("conversion", ["improved", "mironov"])
@pytest.mark.parametrize("sigma,q,steps,delta", [(1.1, 0.01, 100, 1e-5),
                                                 (0.7, 256 / 60000, 1000, 1e-5),
                                                 (3.0, 0.05, 50, 1e-7)])
def test_dpsgd_rdp_epsilon_against_mpmath(sigma, q, steps, delta, conversion):
    r = dpsgd_rdp_epsilon(sigma, q, steps, delta, orders=INT_ORDERS, conversion=conversion)
    cands = [(_eps(_mtz_rho(q, sigma, lam, steps), lam, delta, conversion), lam)
             for lam in INT_ORDERS]
    want, lam = min(cands)
    assert r.order == lam
    assert r.epsilon >= want
    assert r.epsilon == pytest.approx(float(want), rel=1e-12)


def test_dpsgd_rdp_epsilon_defaults_are_the_documented_ones():
    """Default: improved conversion on DEFAULT_ORDERS; the improved conversion is never
    above Mironov's on the same orders (here 0.9610 against 1.3086; with Bu et al.'s
    grid and Mironov's conversion the moments accountant gives 1.2984)."""
    r = dpsgd_rdp_epsilon(1.1, 0.01, 100, 1e-5)
    rho = C.rdp_subsampled_gaussian(C.DEFAULT_ORDERS, 0.01, 1.1, 100)
    assert r == C.rdp_to_epsilon(C.DEFAULT_ORDERS, rho, 1e-5, "improved")
    assert r == dpsgd_rdp_epsilon(1.1, 0.01, 100, 1e-5, orders=C.DEFAULT_ORDERS,
                                  conversion="improved")
    mir = dpsgd_rdp_epsilon(1.1, 0.01, 100, 1e-5, conversion="mironov")
    assert r.epsilon < mir.epsilon
    assert r.epsilon == pytest.approx(0.96102, abs=5e-6)
    assert mir.epsilon == pytest.approx(1.30861, abs=5e-6)
    bu = dpsgd_rdp_epsilon(1.1, 0.01, 100, 1e-5, orders=C.BU_ORDERS, conversion="mironov")
    assert bu.epsilon == pytest.approx(1.29839, abs=5e-6)


@pytest.mark.parametrize("sens", [0.5, 1.0, 2.0])
def test_dpsgd_rdp_epsilon_sensitivity_scales_the_noise(sens):
    r = dpsgd_rdp_epsilon(1.1, 0.01, 200, 1e-5, sensitivity=sens)
    rho = C.rdp_subsampled_gaussian(C.DEFAULT_ORDERS, 0.01, 1.1 / sens, 200)
    assert r == C.rdp_to_epsilon(C.DEFAULT_ORDERS, rho, 1e-5)


def test_dpsgd_rdp_epsilon_at_q1_and_q0():
    # q = 1 is T Gaussian mechanisms: ρ = T λ / (2σ²) (Mironov 2017, Table II)
    r = dpsgd_rdp_epsilon(2.0, 1.0, 10, 1e-5, orders=INT_ORDERS)
    want = min(_eps(10 * lam / 8.0, lam, 1e-5, "improved") for lam in INT_ORDERS)
    assert r.epsilon == pytest.approx(float(want), rel=1e-12)
    # q = 0: ρ = 0, and the conversion alone leaves ε at its value for ρ = 0 at the
    # largest default order, 1024
    r0 = dpsgd_rdp_epsilon(2.0, 0.0, 10, 1e-5)
    assert r0.order == 1024.0
    assert r0.epsilon == pytest.approx(float(_eps(0, 1024, 1e-5, "improved")), rel=1e-12)


@pytest.mark.parametrize("kwargs,name", [
    (dict(noise_multiplier=0.0), "noise_multiplier"), (dict(sample_rate=1.5), "sample_rate"),
    (dict(steps=-1), "steps"), (dict(delta=0.0), "delta"), (dict(delta=1.0), "delta"),
    (dict(conversion="new"), "conversion"), (dict(sensitivity=-1.0), "sensitivity"),
    (dict(orders=[1.0, 2.0]), "orders"),
])
def test_dpsgd_rdp_epsilon_bad_input_names_the_parameter(kwargs, name):
    args = dict(noise_multiplier=1.0, sample_rate=0.01, steps=10, delta=1e-5)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        dpsgd_rdp_epsilon(**args)


def test_one_name_for_each_rdp_question():
    for gone in ("moments_accountant_epsilon", "rdp_gaussian", "rdp_laplace",
                 "rdp_randomized_response"):
        assert not hasattr(C, gone)
        assert not hasattr(fdp.classical.rdp, gone)
        assert not hasattr(fdp.sgd, gone)
    assert "dpsgd_rdp_epsilon" in fdp.sgd.__all__
    assert {"rdp_of", "rdp_subsampled_gaussian", "rdp_to_epsilon"} <= set(C.__all__)


# ----------------------------------------------------------------------
# rdp_of: the RDP curve of a mechanism, from its law
# ----------------------------------------------------------------------
def _laplace_prop6(lam, mu):
    """Mironov (2017), Prop 6, Laplace mechanism with sensitivity/scale μ:
    D_λ = log[λ/(2λ−1) e^{(λ−1)μ} + (λ−1)/(2λ−1) e^{−λμ}] / (λ − 1)."""
    with mpmath.workdps(50):
        lam, mu = mpmath.mpf(lam), mpmath.mpf(mu)
        return mpmath.log(lam / (2 * lam - 1) * mpmath.exp((lam - 1) * mu)
                          + (lam - 1) / (2 * lam - 1) * mpmath.exp(-lam * mu)) / (lam - 1)


def _rr_prop5(lam, eps):
    """Mironov (2017), Prop 5, randomized response with p = e^ε/(1 + e^ε):
    D_λ = log[p^λ (1−p)^{1−λ} + (1−p)^λ p^{1−λ}] / (λ − 1)."""
    with mpmath.workdps(50):
        lam, eps = mpmath.mpf(lam), mpmath.mpf(eps)
        p = mpmath.exp(eps) / (1 + mpmath.exp(eps))
        return mpmath.log(p ** lam * (1 - p) ** (1 - lam)
                          + (1 - p) ** lam * p ** (1 - lam)) / (lam - 1)


@pytest.mark.parametrize("mu", [1e-6, 0.1, 1.0, 3.0, 20.0])
def test_rdp_of_laplace_is_mironov_prop6(mu):
    orders = np.array([1.001, 1.5, 2.0, 3.7, 10.0, 64.0, 500.0])
    got = C.rdp_of(fdp.Laplace(mu), orders, steps=7)
    for lam, g in zip(orders, got):
        assert g == pytest.approx(7 * float(_laplace_prop6(lam, mu)), rel=1e-11)


@pytest.mark.parametrize("eps", [1e-4, 0.5, 2.0, 8.0])
def test_rdp_of_randomized_response_is_mironov_prop5(eps):
    orders = np.array([1.01, 2.0, 5.5, 40.0])
    got = C.rdp_of(fdp.RandomizedResponse(eps), orders)
    for lam, g in zip(orders, got):
        assert g == pytest.approx(float(_rr_prop5(lam, eps)), rel=1e-10)


def test_rdp_of_gaussian_is_mironov_table2():
    orders = np.array([1.5, 2.0, 10.0, 1000.0])
    sigma = 1.7                                   # noise multiplier; μ = 1/σ
    assert C.rdp_of(fdp.Gaussian(1 / sigma), orders, steps=3) == pytest.approx(
        3 * orders / (2 * sigma * sigma), rel=1e-14)
    # a scalar order gives a float, an array an array of its shape
    assert isinstance(C.rdp_of(fdp.Gaussian(1.0), 2.0), float)
    assert C.rdp_of(fdp.Gaussian(1.0), [[2.0, 3.0]]).shape == (1, 2)


def test_the_sampler_is_not_a_second_route_through_rdp_of():
    """``rdp_subsampled_gaussian`` keeps its own name because ``rdp_of`` cannot answer its
    question: the subsampled Gaussian's law has no log-MGF. If it gains one, the two
    become one question and this test says so."""
    sub = fdp.Gaussian(1.0).subsample(0.01)
    with pytest.raises(ValueError, match="log-MGF"):
        C.rdp_of(sub, [2.0, 3.0])
    # the sampler's own answer, against the MTZ expansion
    got = C.rdp_subsampled_gaussian([2.0, 3.0], 0.01, 1.0)
    assert got == pytest.approx([float(_mtz_rho(0.01, 1.0, 2)), float(_mtz_rho(0.01, 1.0, 3))],
                                rel=1e-11)
