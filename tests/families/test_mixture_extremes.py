"""MixtureOfGaussians over σ from 1e-300 to 1e300: no NaN, δ an upper bound of the truth.

Truths: an mpmath root of L(x) = ε and δ(ε) = Q(X > x) − e^ε P(X > x) (60 digits) for
moderate μ; for μ = c/σ ≥ 1e100 every component is separated from P by more than
1e99 standard deviations, so δ(ε) = 1 − p₀-part to every double (1 − e^{−μ²/8} rounds
to 1), and for μ ≤ 1e-100, δ(ε ≥ 0) < μ.
"""

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

import fdp

CASES = [((1.0, 2.0), (0.5, 0.5)), ((0.0, 1.0), (0.9, 0.1)), ((0.0, 1.0, 3.0), (0.5, 0.3, 0.2))]
SIGMAS = [1e-300, 1e-200, 1e-155, 1e-100, 1e-10, 1.0, 1e10, 1e100, 1e300]


def _mp_delta(sigma, c, p, eps):
    mp.mp.dps = 40
    mus = [mp.mpf(ci) / mp.mpf(sigma) for ci in c]
    ps = [mp.mpf(x) for x in p]
    eps = mp.mpf(eps)
    p0 = sum(pp for m, pp in zip(mus, ps) if m == 0)
    if p0 > 0 and eps <= mp.log(p0):
        return 1 - mp.e ** eps
    live = [(m, pp) for m, pp in zip(mus, ps) if m > 0]

    def loss(x):
        return mp.log(p0 + sum(pp * mp.e ** (m * x - m * m / 2) for m, pp in live))
    t = mp.log(mp.e ** eps - p0)
    hi = min((eps - mp.log(pp)) / m + m / 2 for m, pp in live)
    lo = min((t - mp.log(len(ps)) - mp.log(pp)) / m + m / 2 for m, pp in live)
    for _ in range(160):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if loss(mid) > eps else (mid, hi)
    x = lo

    def sf(z):
        return mp.erfc(z / mp.sqrt(2)) / 2
    return sum(pp * sf(x - m) for m, pp in zip(mus, ps)) - mp.e ** eps * sf(x)


@pytest.mark.parametrize("c, p", CASES)
def test_delta_brackets_the_mpmath_truth_at_moderate_sigma(c, p):
    eps = np.array([-0.5, 0.0, 0.5, 1.0, 3.0])
    for sigma in [0.3, 1.0, 3.0]:
        f = fdp.MixtureOfGaussians(sigma, c, p)
        d = f.delta(eps)
        for e, got in zip(eps, d):
            truth = float(_mp_delta(sigma, c, p, e))
            assert got >= truth
            assert got <= truth * (1 + 1e-9) + 1e-14


@pytest.mark.parametrize("c, p", CASES)
@pytest.mark.slow
def test_no_nan_from_any_read_out_over_sigma(c, p):
    eps = np.array([-0.5, 0.0, 0.5, 1.0, 5.0, 100.0])
    alpha = np.array([0.0, 1e-8, 0.1, 0.5, 1.0])
    p_zero = sum(pj for cj, pj in zip(c, p) if cj == 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for sigma in SIGMAS:
            f = fdp.MixtureOfGaussians(sigma, c, p)
            values = [f.delta(eps), f(alpha), f.inverse().delta(eps), f.advantage(),
                      f.gdp_mu(), f.pure_epsilon(), f.epsilon(1e-3)]
            values += [np.array(f.delta_bounds(1.0)), np.array(f.epsilon_bounds(1e-3)),
                       np.array(f.tpr_at_fpr(0.01)), np.array(f.bounds(0.1))]
            for v in values:
                assert not np.isnan(np.asarray(v, dtype=float)).any(), (sigma, v)
            d = f.delta(eps)
            assert np.all((d >= 0) & (d <= 1))
            mu_min = min(cj for cj in c if cj > 0) / sigma
            if mu_min >= 1e100:
                # every live component perfectly separated: δ(ε) = 1 − p₀ for ε > log p₀
                pos = eps >= 0
                assert np.all(d[pos] == pytest.approx(1.0 - p_zero, rel=1e-12))
                assert f.epsilon(1e-3) == math.inf
                lo, hi = f.tpr_at_fpr(0.01)     # 1 − β(α) = (1 − p₀) + p₀α
                truth = (1.0 - p_zero) + p_zero * 0.01
                assert lo <= truth * (1 + 1e-15) and hi >= truth * (1 - 1e-15)
            if max(c) / sigma <= 1e-100:
                assert np.all(d[eps >= 0] <= 1e-13)
                assert f.epsilon(1e-3) == 0.0


def test_the_reported_case():
    f = fdp.MixtureOfGaussians(1e-200, [1.0, 2.0], [0.5, 0.5])
    assert f.delta(1.0) == 1.0
    # ε(0.01) ≈ μ²/2 ≈ 5e399 is a real number beyond the doubles: certified 1 − δ ≥ 0.99
    # holds until e^ε reaches 1/(smallest double), the lower end of the bracket
    lo, hi = f.epsilon_bounds(0.01)
    assert 709.0 < lo and hi == math.inf
    lo, hi = f.tpr_at_fpr(0.01)
    assert lo <= 1.0 == hi


def test_a_component_beyond_the_doubles_is_an_atom_at_infinite_loss():
    # c/σ = 1e10/1e-300 overflows: that component is perfectly distinguishable
    f = fdp.MixtureOfGaussians(1e-300, [0.0, 1e10], [0.75, 0.25])
    assert f.delta(np.inf) == 0.25
    assert f.delta(1.0) == pytest.approx(0.25, rel=1e-12) and f.delta(1.0) >= 0.25
    assert f.gdp_mu() == math.inf
    assert f.law().loss_moments() is None
