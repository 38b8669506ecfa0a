"""k-fold composition of f_{ε,0} at any k (Kairouz, Oh & Viswanath 2015, Thm 3.3): the exact
binomial form in mpmath against fdp's certified read-outs, up to k = 10⁶."""

import math

import mpmath as mp
import pytest

import fdp


def kov_delta(eps0: float, k: int, eps: float) -> mp.mpf:
    """δ(ε) of f_{ε0,0}^{⊗k} = Σ_l C(k, l) [e^{(k−l)ε0} − e^{ε} e^{lε0}]_+ / (1 + e^{ε0})^k:
    the loss of the randomized-response pair is (k − 2l)ε0 with l ~ Bin(k, 1/(1 + e^{ε0}))."""
    with mp.workdps(40):
        e0, e = mp.mpf(eps0), mp.mpf(eps)
        top = int(mp.floor((k * e0 - e) / (2 * e0)))          # terms with (k − 2l)ε0 > ε
        if top < 0:
            return mp.mpf(0)
        logz = k * mp.log1p(mp.exp(e0))
        total = mp.mpf(0)
        for l in range(0, min(top, k) + 1):
            c = mp.loggamma(k + 1) - mp.loggamma(l + 1) - mp.loggamma(k - l + 1)
            total += mp.exp(c + (k - l) * e0 - logz) - mp.exp(c + e + l * e0 - logz)
        return total


@pytest.mark.parametrize("k,eps", [(10, 1.0), (1000, 20.0), (1000, 60.0)])
def test_delta_contains_the_binomial_sum(k, eps):
    f = fdp.EpsDelta(0.1) ** k
    lo, hi = f.delta_bounds(eps)
    truth = kov_delta(0.1, k, eps)
    assert lo <= truth * (1 + mp.mpf(1e-12)) and truth <= hi * (1 + mp.mpf(1e-12))
    assert not math.isnan(hi)


@pytest.mark.slow
def test_issue_values_at_large_k():
    # issue 34: k = 2e5 read 2712.4 for ε(1e-5), truth 1188.68 (log-space binomial sum)
    lo, hi = (fdp.EpsDelta(0.1) ** 200_000).epsilon_bounds(1e-5)
    assert 1188.6 < lo <= hi < 1188.8
    assert kov_delta(0.1, 200_000, hi) <= mp.mpf(1e-5) * (1 + mp.mpf(1e-9))
    assert kov_delta(0.1, 200_000, lo) >= mp.mpf(1e-5) * (1 - mp.mpf(1e-9))
    # k = 1e6 agrees with the randomized-response composition's certified bracket
    f = fdp.EpsDelta(0.1) ** 10**6
    e_lo, e_hi = f.epsilon_bounds(1e-5)
    r_lo, r_hi = (fdp.RandomizedResponse(0.1) ** 10**6).epsilon_bounds(1e-5)
    assert r_lo <= e_hi and e_lo <= r_hi
    # δ(8000) at k = 1e6 was 0.99999999999999, the truth is about 2e-199
    assert 0.0 < f.delta(8000.0) < 1e-190
    # pure ε = kε exactly (was inf at k = 1e5 and 100.043 at k = 1000)
    assert (fdp.EpsDelta(0.1) ** 1000).pure_epsilon() == pytest.approx(100.0, rel=1e-12)
    assert (fdp.EpsDelta(0.1) ** 100_000).pure_epsilon() == pytest.approx(1e4, rel=1e-12)


def test_monotone_in_delta():
    f = fdp.EpsDelta(0.1) ** 200_000
    prev = (math.inf, math.inf)
    for d in (1e-12, 1e-9, 1e-6, 1e-3):
        lo, hi = f.epsilon_bounds(d)
        assert lo <= prev[0] and hi <= prev[1]
        prev = (lo, hi)


def test_optimal_homogeneous_epsilon_is_the_same_computation():
    from fdp.classical import optimal_homogeneous_epsilon
    assert optimal_homogeneous_epsilon(0.1, 0.0, 1000, 1e-5) == (fdp.EpsDelta(0.1) ** 1000
                                                               ).epsilon(1e-5)
    assert optimal_homogeneous_epsilon(0.1, 0.0, 10**6, 1e-5) == (fdp.EpsDelta(0.1) ** 10**6
                                                                ).epsilon(1e-5)
