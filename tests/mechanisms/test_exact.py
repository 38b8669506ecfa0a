"""Exact discrete samplers (Canonne, Kamath & Steinke 2020) and the integer mechanisms."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

import fdp
from fdp.mechanisms import exact
from fdp.mechanisms.exact import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    RandomBits,
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
)


def _chi2_pvalue(samples, support, pmf):
    """Chi-square goodness of fit on the given support, the rest pooled into one cell."""
    samples = np.asarray(samples)
    obs = np.array([(samples == z).sum() for z in support] + [0])
    obs[-1] = samples.size - obs[:-1].sum()
    exp_p = np.append(pmf, max(0.0, 1.0 - pmf.sum()))
    keep = exp_p * samples.size >= 5
    o = np.append(obs[keep], obs[~keep].sum())
    e = np.append(exp_p[keep], exp_p[~keep].sum()) * samples.size
    if e[-1] == 0:
        o, e = o[:-1], e[:-1]
    return stats.chisquare(o, e * o.sum() / e.sum()).pvalue


def test_random_bits_are_uniform_and_exact():
    src = RandomBits(1)
    x = np.array([src.below(6) for _ in range(12000)])
    assert set(np.unique(x)) == set(range(6))
    assert stats.chisquare(np.bincount(x)).pvalue > 1e-3
    big = 3 ** 50
    assert all(0 <= src.below(big) < big for _ in range(100))
    assert 0 <= RandomBits().bits(100) < 2 ** 100   # OS CSPRNG path


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_mean(gamma):
    src = RandomBits(2)
    n = 20000
    hits = sum(bernoulli_exp(gamma, src) for _ in range(n))
    p = float(mp.exp(-mp.mpf(gamma.numerator) / gamma.denominator))
    # 5-sigma band of the binomial
    assert abs(hits / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12


def test_discrete_laplace_distribution():
    scale = Fraction(3, 2)
    src = RandomBits(3)
    s = [discrete_laplace(scale, src) for _ in range(20000)]
    r = np.exp(-1 / 1.5)
    z = np.arange(-15, 16)
    pmf = (1 - r) / (1 + r) * r ** np.abs(z)
    assert _chi2_pvalue(s, z, pmf) > 1e-3
    assert np.var(s) == pytest.approx(2 * r / (1 - r) ** 2, rel=0.05)


def test_discrete_gaussian_distribution():
    sigma2 = Fraction(9, 4)
    src = RandomBits(4)
    s = [discrete_gaussian(sigma2, src) for _ in range(20000)]
    z = np.arange(-12, 13)
    w = np.exp(-np.arange(-60, 61) ** 2 / (2 * 2.25))
    pmf = np.exp(-z ** 2 / (2 * 2.25)) / w.sum()
    assert _chi2_pvalue(s, z, pmf) > 1e-3


def test_discrete_laplace_mechanism_tradeoff_unit_sensitivity_is_pure_dp():
    # Δ = 1: the pair is (1/(1+r), r/(1+r)) and its reverse, i.e. exactly f_{1/b,0}.
    m = DiscreteLaplaceMechanism(1, Fraction(2))
    a = np.linspace(0, 1, 501)
    np.testing.assert_allclose(m.tradeoff(a), fdp.EpsDelta(0.5)(a), atol=1e-14)


def test_discrete_laplace_mechanism_tradeoff_against_direct_pmfs():
    # Independent: pmfs on a wide window, Neyman–Pearson via from_pair.
    d, b = 3, 1.25
    z = np.arange(-80, 84)
    r = np.exp(-1 / b)
    p = (1 - r) / (1 + r) * r ** np.abs(z)
    q = (1 - r) / (1 + r) * r ** np.abs(z - d)
    direct = fdp.from_pair(p / p.sum(), q / q.sum())
    m = DiscreteLaplaceMechanism(d, b)
    a = np.linspace(0, 1, 1001)
    np.testing.assert_allclose(m.tradeoff(a), direct(a), atol=1e-12)
    assert m.tradeoff.pure_epsilon() == pytest.approx(d / b, rel=1e-12)


def _cks_delta(sigma2, d, eps, tail=400):
    """CKS Thm 7 with mpmath: P[Y > εσ²/Δ − Δ/2] − e^ε P[Y > εσ²/Δ + Δ/2], Y ~ N_Z(0, σ²)."""
    mp.mp.dps = 40
    ys = range(-tail, tail + 1)
    w = {y: mp.exp(-mp.mpf(y) ** 2 / (2 * sigma2)) for y in ys}
    z = mp.fsum(w.values())
    a = mp.mpf(eps) * sigma2 / d
    p1 = mp.fsum(w[y] for y in ys if y > a - mp.mpf(d) / 2) / z
    p2 = mp.fsum(w[y] for y in ys if y > a + mp.mpf(d) / 2) / z
    return float(p1 - mp.exp(eps) * p2)


@pytest.mark.parametrize("sigma,d", [(Fraction(3, 2), 1), (Fraction(2), 3), (Fraction(1, 2), 1)])
def test_discrete_gaussian_profile_equals_cks_theorem_7(sigma, d):
    m = DiscreteGaussianMechanism(d, sigma)
    f = m.tradeoff
    for eps in (0.0, 0.5, 1.0, 2.0, 4.0):
        want = _cks_delta(sigma ** 2, d, eps)
        got = float(f.delta(eps))
        assert got == pytest.approx(want, rel=1e-9, abs=1e-15)


def test_discrete_gaussian_is_close_to_gdp():
    m = DiscreteGaussianMechanism(1, Fraction(5))
    g = fdp.Gaussian(0.2)
    a = np.linspace(0.001, 0.999, 999)
    assert np.max(np.abs(m.tradeoff(a) - g(a))) < 1e-3


def test_integer_mechanisms_release():
    m = DiscreteGaussianMechanism(1, 2)
    out = m.release(np.array([10, 20, 30]), rng=5)
    assert out.dtype == np.int64 and out.shape == (3,)
    assert isinstance(m.release(7, rng=5), int)
    lap = DiscreteLaplaceMechanism(2, Fraction(1, 2))
    s = lap.sample(100, 4000, rng=6)
    assert abs(np.mean(s) - 100) < 0.2
    # reproducible with a seed
    np.testing.assert_array_equal(m.release([0, 0, 0], rng=9), m.release([0, 0, 0], rng=9))


def test_exact_bad_input():
    with pytest.raises(TypeError, match="integers"):
        DiscreteGaussianMechanism(1, 1).release([0.5])
    with pytest.raises(ValueError, match="sensitivity"):
        DiscreteLaplaceMechanism(0, 1)
    with pytest.raises(ValueError, match="sensitivity"):
        DiscreteLaplaceMechanism(1.5, 1)
    with pytest.raises(ValueError, match="scale"):
        DiscreteLaplaceMechanism(1, -2)
    with pytest.raises(ValueError, match="finite"):
        DiscreteGaussianMechanism(1, float("inf"))
    with pytest.raises(ValueError, match="gamma"):
        bernoulli_exp(-1)
    with pytest.raises(TypeError, match="rng"):
        RandomBits("os")
    assert exact.to_fraction("x", "1/3") == Fraction(1, 3)
    assert exact.to_fraction("x", 0.1) == Fraction(0.1)   # exact binary value
