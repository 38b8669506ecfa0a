"""Edgeworth read-outs (issue 34): β, δ(ε) and ε(δ) of the degree-2 Edgeworth
approximation against an independent mpmath computation of the same expansion (ZDLS
2020): the quantile by mpmath's root finder, δ(ε) = sup_h [S_Q(y(h)) − e^ε S_P(h)]
maximised in mpmath over the test threshold h, y(h) = (h − μ_f)σ_P/σ_Q. The one-α
path (Python floats) and the many-α path (arrays) agree with it and with each other.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import fdp

mp.mp.dps = 30


def _corr(x, skew, exkurt):
    return mp.npdf(x) * (skew / 6 * (x ** 2 - 1) + exkurt / 24 * x * (x ** 2 - 3)
                         + skew ** 2 / 72 * x * (x ** 4 - 10 * x ** 2 + 15))


def _sf(x, skew, exkurt):
    x = mp.mpf(x)
    return mp.ncdf(-x) + _corr(x, skew, exkurt)


def _cdf(x, skew, exkurt):
    x = mp.mpf(x)
    return mp.ncdf(x) - _corr(x, skew, exkurt)


@pytest.fixture(scope="module")
def g():
    f = fdp.edgeworth([fdp.Laplace(0.1)] * 100)
    return getattr(f, "base", f)


def _beta_mp(g, a):
    h = mp.findroot(lambda t: _sf(t, g.skew_p, g.exkurt_p) - a,
                    float(g._quantile_p(np.array([a]))[0]))
    return _cdf((h - g.mu_f) * g.sigma_p / g.sigma_q, g.skew_q, g.exkurt_q)


def test_beta_one_and_many_match_mpmath(g):
    alphas = np.concatenate([np.geomspace(1e-9, 0.5, 12), np.linspace(0.55, 0.999, 9)])
    many = g._beta(alphas)                      # 21 α: the array path
    for a, b in zip(alphas, many):
        one = g._beta(np.array([a]))[0]         # the one-α path
        ref = _beta_mp(g, mp.mpf(a))
        assert abs(b - ref) <= 1e-12 * ref + 1e-300
        assert abs(one - ref) <= 1e-12 * ref + 1e-300


def _delta_mp(g, eps):
    y_of = lambda h: (h - g.mu_f) * g.sigma_p / g.sigma_q

    def d(h):
        return 1 - _cdf(y_of(h), g.skew_q, g.exkurt_q) - mp.e ** eps * _sf(h, g.skew_p, g.exkurt_p)
    grid = [mp.mpf(x) / 20 for x in range(-200, 201)]
    best = max(grid, key=d)
    h = mp.findroot(lambda t: mp.diff(d, t), best)
    return d(h)


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 3.0])
def test_delta_matches_the_mpmath_supremum(g, eps):
    ref = _delta_mp(g, mp.mpf(eps))
    ours = g.delta(eps)
    assert abs(ours - ref) <= 1e-10 * ref


@pytest.mark.slow
def test_epsilon_is_where_the_mpmath_delta_crosses(g):
    for delta in (1e-3, 1e-5):
        e = g.epsilon(delta)
        assert _delta_mp(g, mp.mpf(e)) <= delta * (1 + 1e-9)
        assert _delta_mp(g, mp.mpf(e) * (1 - 1e-6)) > delta
    arr = g.epsilon(np.array([1e-3, 1e-5]))
    assert arr.tolist() == [g.epsilon(1e-3), g.epsilon(1e-5)]
