"""Closed forms at parameters where doubles lose precision, against mpmath.

Each case was an answer on the unsafe side (or a crash) before: the group curve of
f_{ε,δ} at tiny ε (cancelling logarithms), tiny-ε finite pairs merged into Id,
Gaussian compositions forming μ² (under/overflow), Laplace with a subnormal e^{−μ},
gdp_mu answering inf past a search cap, and rounding to digits with a float power
of ten.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import fdp
from tests._mp_references import laplace_beta


@pytest.fixture(autouse=True)
def _precision():
    with mp.workdps(80):
        yield


def _eps_delta_group_truth(eps: float, delta: float, k: int, alpha: float) -> mp.mpf:
    """1 − (1 − f_{ε,δ})^{∘k}(α) by iterating φ(x) = min{1, δ + e^ε x,
    1 − e^{−ε}(1 − δ − x)} (DRS Thm 2.14) in mpmath."""
    e, d, x = mp.mpf(eps), mp.mpf(delta), mp.mpf(alpha)
    for _ in range(k):
        x = min(mp.mpf(1), d + mp.e ** e * x, 1 - mp.e ** -e * (1 - d - x))
    return 1 - x


@pytest.mark.parametrize("eps", [1e-300, 1e-15, 1e-12, 1e-9, 1e-6, 1e-3, 0.5])
@pytest.mark.parametrize("delta", [0.01, 0.1, 0.3])
@pytest.mark.parametrize("k", [2, 3, 7])
def test_eps_delta_group_at_tiny_eps(eps, delta, k):
    g = fdp.EpsDelta(eps, delta).group(k)
    for a in (0.0, 1e-12, 0.025, 0.1, 0.3, 0.5, 0.9):
        truth = float(_eps_delta_group_truth(eps, delta, k, a))
        got = float(g(a))
        assert got <= truth + 1e-13 * max(truth, 1e-3)
        assert got >= truth - 1e-12


def test_eps_delta_group_masses_sum_to_one_at_tiny_eps():
    g = fdp.EpsDelta(1e-300, 0.3).group(2)
    total_p = math.fsum(np.exp(g.log_p)) + math.exp(g.log_inf)
    assert abs(total_p - 1.0) < 1e-12


def test_eps_delta_group_beyond_memory_is_refused():
    with pytest.raises(ValueError, match="atoms"):
        fdp.EpsDelta(1e-9, 0.0).group(10 ** 9)


@pytest.mark.parametrize("eps", [1e-10, 1e-9, 1e-6])
def test_tiny_eps_randomized_response_is_not_identity(eps):
    rr = fdp.RandomizedResponse(eps)
    truth = math.tanh(eps / 2)              # δ(0) = (e^ε − 1)/(e^ε + 1)
    assert rr.delta(0.0) >= truth * (1 - 1e-6)
    assert rr.delta(0.0) > 0.0
    sq = fdp.EpsDelta(eps) ** 2
    # (f_{ε,0})^{⊗2}: δ(0) = TV of two binomial laws, ≈ ε/2 for tiny ε (Id would give 0)
    assert float(sq.delta(0.0)) >= 0.4 * eps
    assert sq(0.5) < 0.5


def test_gaussian_composition_without_squares():
    assert (fdp.Gaussian(1e-200) @ fdp.Gaussian(1e-200)).mu == pytest.approx(
        math.sqrt(2) * 1e-200, rel=1e-15)
    assert (fdp.Gaussian(1e-160) ** 3).mu == pytest.approx(math.sqrt(3) * 1e-160, rel=1e-15)
    assert (fdp.Gaussian(1e200) @ fdp.Gaussian(1e200)).mu == pytest.approx(
        math.sqrt(2) * 1e200, rel=1e-15)
    assert (fdp.Gaussian(1e160) ** 1).mu == 1e160
    assert (fdp.Gaussian(1.0) ** 4).mu == 2.0
    assert (fdp.Gaussian(1e-300) ** (10 ** 500)).mu == pytest.approx(1e-50, rel=1e-15)
    with pytest.raises(ValueError, match="largest double"):
        fdp.Gaussian(1.0) ** (10 ** 700)
    with pytest.raises(ValueError, match="largest double"):
        fdp.Gaussian(0.1).group(10 ** 400)


@pytest.mark.parametrize("mu, a", [(745.0, 1e-300), (744.0, 1e-290), (740.0, 1e-300),
                                   (800.0, 1e-320), (100.0, 1.8581779500224074e-44),
                                   (1.0, 0.1), (1.0, 0.7), (2.0, 0.0677)])
def test_laplace_relative_accuracy(mu, a):
    truth = laplace_beta(mu, a)
    lo, hi = fdp.Laplace(mu).bounds(a)
    # the closed form's bracket holds the truth and is a few ulps wide (relative)
    assert lo <= truth <= hi
    assert hi - lo <= 32 * 2.0 ** -52 * truth
    assert fdp.Laplace(mu)(a) == lo


@pytest.mark.parametrize("eps", [1.0, 1e6, 6e23, 7e23, 1e200, 1.7e308])
def test_gdp_mu_is_finite_and_sufficient(eps):
    mu = fdp.gdp_mu_for_eps_delta(eps, 1e-5)
    assert math.isfinite(mu)
    # the root lies below √(2ε) (δ there is over 0.49 for ε ≥ 1e3); far out the answer is that
    # bound rounded down
    assert mu < math.sqrt(2.0) * math.sqrt(eps)
    if eps <= 1e6:
        m = mp.mpf(mu)
        e = mp.mpf(eps)
        d = mp.ncdf(-e / m + m / 2) - mp.e ** e * mp.ncdf(-e / m - m / 2)
        assert d <= 1e-5


@pytest.mark.parametrize("f, eps, digits", [
    (fdp.EpsDelta(1.0, 5e-324), 1.0, 3),
    (fdp.Gaussian(1.0), 38.0, 3),
    (fdp.Gaussian(1.0), 1.0, 400),
    (fdp.Gaussian(1.0), 1.0, 1),
])
def test_tightest_rounds_up_at_any_scale(f, eps, digits):
    _, d = fdp.tightest_eps_delta(f, eps=eps, digits=digits)
    assert d >= f.delta(eps)
    assert d <= f.delta(eps) * (1 + 10.0 ** (1 - digits)) + 5e-324
