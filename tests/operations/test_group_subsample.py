"""Group privacy (DRS Thm 2.14) and subsampling (DRS Thm 4.2, Bu et al., ZDW Thm 11)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

import fdp

A = np.linspace(0, 1, 2001)


def test_gaussian_group_is_closed_form():
    assert fdp.Gaussian(0.5).group(4) == fdp.Gaussian(2.0)
    assert fdp.Gaussian(0.5).group(1) == fdp.Gaussian(0.5)


def test_generic_group_of_a_gaussian_matches_k_mu():
    """1 − (1 − G_μ)^{∘k} = G_{kμ} (DRS Thm 2.14): the generic path gives the closed form."""
    from fdp.operations.group import Group
    np.testing.assert_allclose(Group(fdp.Gaussian(0.7), 3)(A), fdp.Gaussian(2.1)(A), atol=1e-12)


@pytest.mark.parametrize("k, err", [(10, 1.2e-3), (100, 1.2e-5), (1000, 1.2e-7)])
def test_group_privacy_of_pure_dp_tends_to_laplace(k, err):
    """Groups of size k under (1/k, 0)-DP → L_1 with error 1.2e-3, 1.2e-5, 1.2e-7 (MATH.md §5)."""
    a = np.linspace(0, 1, 20001)
    gap = np.max(np.abs(fdp.EpsDelta(1.0 / k).group(k)(a) - fdp.Laplace(1.0)(a)))
    assert gap == pytest.approx(err, rel=0.1)


def test_group_of_eps_delta_is_between_classical_and_base():
    """f-form group privacy is at least as strong as the classical (kε, δΣe^{iε}) bound."""
    e, d, k = 0.5, 1e-4, 3
    g = fdp.EpsDelta(e, d).group(k)
    classical = fdp.EpsDelta(k * e, d * sum(np.exp(i * e) for i in range(k)))
    assert np.all(g(A) >= classical(A) - 1e-12)


def test_poisson_add_direction_is_the_mixture():
    g, p = fdp.Gaussian(1.5), 0.2
    fp = g.subsample(p, direction="add")
    np.testing.assert_allclose(fp(A), p * g(A) + (1 - p) * (1 - A), atol=1e-15)
    assert "not a guarantee" in repr(fp)
    assert "not a guarantee" in repr(g.subsample(p, direction="remove"))


def test_poisson_add_profile_matches_closed_form_integral():
    """Add direction T(P, (1−p)P + pQ) for P=N(0,1), Q=N(μ,1): δ(ε) in closed form."""
    mu, p = 1.0, 0.3
    fp = fdp.Gaussian(mu).subsample(p, direction="add")
    for eps in [-0.5, 0.0, 0.2, 1.0, 2.5]:
        # δ = ∫ ((1−p)φ(x) + pφ(x−μ) − e^ε φ(x))₊: positive for x > x0.
        c = (np.exp(eps) - (1 - p)) / p
        if c <= 0:
            ref = 1 - np.exp(eps)
        else:
            x0 = np.log(c) / mu + mu / 2
            ref = (1 - p) * norm.sf(x0) + p * norm.sf(x0 - mu) - np.exp(eps) * norm.sf(x0)
        assert fp.delta(eps) == pytest.approx(ref, abs=1e-14)


def test_poisson_remove_profile_matches_closed_form_and_vanishes():
    mu, p = 1.0, 0.3
    r = fdp.Gaussian(mu).subsample(p, direction="remove")
    for eps in [-1.0, 0.0, 0.1, 0.3, 0.35]:
        x0 = 0.5 + np.log((np.exp(-eps) - (1 - p)) / p)
        ref = norm.cdf(x0) - np.exp(eps) * ((1 - p) * norm.cdf(x0) + p * norm.cdf(x0 - 1))
        assert r.delta(eps) == pytest.approx(ref, abs=1e-14)
    assert r.delta(-np.log(1 - p) + 1e-9) == 0.0


def test_one_step_poisson_guarantee_is_the_envelope():
    g, p = fdp.Gaussian(1.0), 0.3
    one = g.subsample(p)
    fp = g.subsample(p, direction="add")
    assert np.all(one(A) <= np.minimum(fp(A), fp.inverse()(A)) + 1e-12)


def cp_closed_form(f, p, a):
    """DRS Thm 4.2 closed form of C_p(f) for symmetric f, coded from the theorem."""
    from scipy.optimize import brentq
    x_star = brentq(lambda x: f(x) - x, 0.0, 1.0, xtol=1e-15)
    fp = lambda x: p * f(x) + (1 - p) * (1 - x)
    y = fp(x_star)
    out = []
    for x in a:
        if x <= x_star:
            out.append(fp(x))
        elif x <= y:
            out.append(x_star + y - x)
        else:  # f_p⁻¹(x) by root finding on the decreasing f_p
            out.append(0.0 if fp(1.0) >= x
                       else brentq(lambda t, x=x: fp(t) - x, 0.0, 1.0, xtol=1e-15))
    return np.array(out)


@pytest.mark.parametrize("mu, p", [(1.0, 0.3), (2.0, 0.05), (0.5, 0.9)])
def test_without_replacement_matches_drs_closed_form(mu, p):
    g = fdp.Gaussian(mu)
    c = g.subsample(p, sampling="without_replacement")
    a = np.linspace(0, 1, 201)
    np.testing.assert_allclose(c(a), cp_closed_form(g, p, a), atol=1e-10)
    # ... and the generic envelope min{f_p, f_p⁻¹}** agrees with it.
    env = fdp.envelope(g.subsample(p, direction="add"), g.subsample(p, direction="remove"))
    np.testing.assert_allclose(env(a), c(a), atol=1e-10)


def test_subsampling_with_p_one_and_zero():
    g = fdp.Gaussian(1.0)
    np.testing.assert_allclose(g.subsample(1.0)(A), g(A), atol=1e-10)
    np.testing.assert_allclose(g.subsample(0.0)(A), 1 - A, atol=1e-12)


def test_envelope_and_strongest():
    f, g = fdp.Gaussian(1.0), fdp.EpsDelta(1.0)
    s = fdp.strongest(f, g)
    np.testing.assert_allclose(s(A), np.maximum(f(A), g(A)))
    e = fdp.envelope(f, g)
    assert np.all(e(A) <= np.minimum(f(A), g(A)) + 1e-12)
    # Its profile is the max of the profiles (conjugate of a min).
    eps = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(e.delta(eps), np.maximum(f.delta(eps), g.delta(eps)), atol=1e-15)
    assert fdp.envelope(f) is f and fdp.strongest(f, f) == f


def test_dominates_and_advantage():
    assert fdp.Gaussian(0.5).dominates(fdp.Gaussian(1.0))
    assert not fdp.Gaussian(1.0).dominates(fdp.Gaussian(0.5))
    assert fdp.Gaussian(1.0).dominates(fdp.Gaussian(1.0))
    assert fdp.Laplace(1.0).dominates(fdp.EpsDelta(1.0))
    mu = 1.3
    assert fdp.Gaussian(mu).advantage() == pytest.approx(norm.cdf(mu / 2) - norm.cdf(-mu / 2))
    grid_max = np.max(1 - A - fdp.Laplace(mu)(A))
    assert fdp.Laplace(mu).advantage() == pytest.approx(grid_max, abs=1e-6)


def test_reprs_read_like_the_math():
    assert repr(fdp.strongest(fdp.Gaussian(1.0), fdp.EpsDelta(1.0))) == \
        "strongest(Gaussian(mu=1.0), EpsDelta(eps=1.0, delta=0.0))"
    assert repr(fdp.Gaussian(2.0).group(3)) == "Gaussian(mu=6.0)"
    assert repr(fdp.Laplace(1.0).group(2)) == "Laplace(mu=2.0)"   # closed form L_{kμ}
    assert repr(fdp.from_pair([0.2, 0.8], [0.6, 0.4]).group(2)) == "FinitePair(2 atoms).group(2)"
    assert repr(fdp.Gaussian(1.0).subsample(0.1)).startswith("envelope(PoissonAdd(")


def test_subsampled_gaussian_pure_epsilon_is_infinite_at_once():
    """G_μ's loss is unbounded above, so is log(1 − p + p e^L): ε* = ∞ exactly (the bracket
    of the base is (∞, ∞)); the generic sandwich is not consulted."""
    for p in (1e-6, 0.0064, 0.5, 1.0):
        assert tuple(fdp.Gaussian(1.0).subsample(p, direction="add").pure_epsilon_bounds()) \
            == (math.inf, math.inf)
