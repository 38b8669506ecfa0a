"""Every family's privacy-loss law (``f.law()``): a probability law under P and Q,
moments against independent quadrature, RDP against Mironov's closed forms, and
pickling."""

from __future__ import annotations

import math
import pickle

import mpmath
import numpy as np
import pytest

import fdp
from fdp.classical.rdp import rdp_of
from fdp.families.mixture import RevealedMixture
from fdp.operations.envelope import Envelope

FAMILIES = {
    "gaussian": fdp.Gaussian(1.3),
    "gaussian0": fdp.Gaussian(0.0),
    "laplace": fdp.Laplace(0.7),
    "laplace0": fdp.Laplace(0.0),
    "identity": fdp.Identity(),
    "eps_delta": fdp.EpsDelta(1.0, 0.01),
    "rr2": fdp.RandomizedResponse(1.0),
    "rr4": fdp.RandomizedResponse(1.5, 4),
    "from_pair": fdp.from_pair([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]),
    "dgauss_small": fdp.DiscreteGaussian(3.0),
    "dgauss_large": fdp.DiscreteGaussian(100.0, 3),
    "dlaplace": fdp.DiscreteLaplace(2.0),
    "bounded_range": fdp.BoundedRange(1.0),
    "mixture": fdp.MixtureOfGaussians(1.0, [0.0, 1.0, 2.0], [0.5, 0.3, 0.2]),
    "revealed": RevealedMixture((0.4, 0.6), (fdp.Gaussian(1.0), fdp.Laplace(1.0))),
    "shuffle": fdp.shuffle_amplification(1.0, 100),
    "poisson_add": fdp.Gaussian(1.0).subsample(0.1, direction="add"),
    "poisson_remove": fdp.Gaussian(1.0).subsample(0.1, direction="remove"),
    "without_replacement": fdp.Laplace(1.0).subsample(0.2, sampling="without_replacement"),
    "inverse": fdp.MixtureOfGaussians(1.0, [0.0, 1.0], [0.5, 0.5]).inverse(),
}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_law_is_a_probability_law_under_p_and_q(name):
    law = FAMILIES[name].law()
    assert law is not None
    lo, hi = law.loss_range()
    for edges in ([0.0], np.linspace(lo - 1.0, hi + 1.0, 57)):
        kappa, pi, q_inf, p_neginf = law.interval_masses(np.asarray(edges, dtype=float))
        assert np.all(kappa >= 0) and np.all(pi >= 0)
        assert kappa.sum() + q_inf == pytest.approx(1.0, abs=1e-12)
        assert pi.sum() + p_neginf == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_law_pickles_to_the_same_answers(name):
    law = FAMILIES[name].law()
    back = pickle.loads(pickle.dumps(law))
    edges = np.linspace(-2.0, 2.0, 9)
    for a, b in zip(law.interval_masses(edges), back.interval_masses(edges)):
        assert np.array_equal(a, b)
    assert back.loss_range() == law.loss_range()


def test_envelope_law_reads_members():
    f = fdp.Gaussian(1.0).subsample(0.1)          # min{f_p, f_p⁻¹}**
    assert isinstance(f, Envelope)
    law = f.law()
    assert law.interval_masses(np.zeros(1)) is None
    lo, hi = law.loss_range()
    assert lo < 0 < hi


def _gauss_moment(mu, k, c, absolute, under):
    """E[(L − c)^k] by quadrature over x: L = μx − μ²/2, x ~ N(0,1) (P) or N(μ,1) (Q)."""
    shift = 0.0 if under == "P" else mu
    with mpmath.workdps(30):
        def integrand(x):
            v = mu * x - mu * mu / 2 - c
            g = abs(v) ** k if absolute else v ** k
            return g * mpmath.npdf(x, shift, 1)
        return float(mpmath.quad(integrand, [-mpmath.inf, (mu * mu / 2 + c) / mu, mpmath.inf]))


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0])
@pytest.mark.slow
def test_gaussian_moments_against_quadrature(mu):
    law = fdp.Gaussian(mu).law()
    assert law.moment_method == "closed form"
    for under in ("P", "Q"):
        for k, c, absolute in ((1, 0.0, False), (2, 0.3, False), (3, 0.0, True),
                               (3, -0.2, False), (4, 0.1, False)):
            got = law.moment(k, c, absolute, under)
            assert got == pytest.approx(_gauss_moment(mu, k, c, absolute, under), rel=1e-10)
    mean, var, k3, k4 = law.cumulants("Q")
    assert (mean, var) == pytest.approx((mu * mu / 2, mu * mu))
    assert abs(k3) < 1e-10 * mu ** 3 and abs(k4) < 1e-10 * mu ** 4


def _laplace_moment(mu, k, c, absolute, under):
    """E[(L − c)^k], L = |x| − |x − μ|, x ~ Lap(0, 1) (P) or Lap(μ, 1) (Q)."""
    shift = 0.0 if under == "P" else mu
    with mpmath.workdps(30):
        def integrand(x):
            v = abs(x) - abs(x - mu) - c
            g = abs(v) ** k if absolute else v ** k
            return g * mpmath.exp(-abs(x - shift)) / 2
        return float(mpmath.quad(integrand, [-mpmath.inf, 0, mu, mpmath.inf]))


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_laplace_moments_against_quadrature(mu):
    law = fdp.Laplace(mu).law()
    for under in ("P", "Q"):
        for k, c, absolute in ((1, 0.0, False), (2, 0.0, False), (3, 0.0, True),
                               (3, -0.4, True), (4, 0.2, False)):
            got = law.moment(k, c, absolute, under)
            assert got == pytest.approx(_laplace_moment(mu, k, c, absolute, under),
                                        rel=1e-9, abs=1e-14)


@pytest.mark.parametrize("mu", [0.1, 1.0, 4.0])
def test_rdp_of_gaussian_is_alpha_mu_squared_over_two(mu):
    orders = np.array([1.5, 2.0, 10.0, 100.0])
    assert np.allclose(rdp_of(fdp.Gaussian(mu), orders), orders * mu * mu / 2, rtol=1e-15)


@pytest.mark.parametrize("mu", [0.01, 1.0, 5.0])
def test_rdp_of_laplace_against_mironov(mu):
    for a in (1.5, 2.0, 7.0, 40.0):
        with mpmath.workdps(40):
            a_, m = mpmath.mpf(a), mpmath.mpf(mu)
            want = mpmath.log(a_ / (2 * a_ - 1) * mpmath.exp((a_ - 1) * m)
                              + (a_ - 1) / (2 * a_ - 1) * mpmath.exp(-a_ * m)) / (a_ - 1)
        assert rdp_of(fdp.Laplace(mu), a) == pytest.approx(float(want), rel=1e-12)


def test_rdp_of_a_finite_pair_is_the_exact_sum():
    f = fdp.from_pair([0.5, 0.3, 0.2], [0.2, 0.3, 0.5])
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    for a in (1.5, 3.0):
        want = math.log(float(np.sum(q ** a * p ** (1 - a)))) / (a - 1)
        assert rdp_of(f, a) == pytest.approx(want, rel=1e-13)


def test_rdp_of_refuses_functions_without_a_log_mgf():
    with pytest.raises(ValueError, match="law"):
        rdp_of(fdp.BoundedRange(1.0), 2.0)
    with pytest.raises(TypeError):
        rdp_of(1.0, 2.0)
