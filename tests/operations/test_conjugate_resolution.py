"""Numerically maximised conjugates are charged their resolution.

``strongest`` (max_i f_i) and the generic inverse read δ(ε) off a numerical supremum
over evaluated β, which is known only to about 2⁻⁵¹ in absolute terms. Before, the
supremum was used as it came: max{G_√3, G_2} gave ε(1e-20) = 15.50 as an exact answer
(the truth is 17.1976, G_√3's), and the inverse of a composed result read a lower δ
of 1.1e-16 where the truth is 0 (so its lower ε at δ = 1e-20 was inf).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import fdp


def _gauss_delta(mu: float, eps: float) -> mp.mpf:
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2)


def _gauss_epsilon(mu: float, delta: float) -> float:
    lo, hi = mp.mpf(0), mp.mpf(2000)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _gauss_delta(mu, mid) > delta else (lo, mid)
    return float(hi)


@pytest.fixture(autouse=True)
def _precision():
    with mp.workdps(60):
        yield


@pytest.mark.parametrize("delta", [1e-5, 1e-20, 1e-100, 1e-300])
@pytest.mark.slow
def test_strongest_of_gaussians_contains_the_dominant_member(delta):
    s = fdp.strongest(fdp.Gaussian(3 ** 0.5), fdp.Gaussian(2.0))     # = G_√3
    lo, hi = s.epsilon_bounds(delta)
    truth = _gauss_epsilon(3 ** 0.5, delta)
    assert lo <= truth * (1 + 1e-12)
    assert hi >= truth * (1 - 1e-12)
    assert hi <= truth * (1 + 1e-9)            # the member's closed form answers


@pytest.mark.slow
def test_strongest_with_a_numeric_member_contains_the_truth():
    r = fdp.compose_numeric([(fdp.Gaussian(1.0), 3)])                # brackets G_√3
    s = fdp.strongest(r, fdp.Gaussian(2.0))
    for eps in (1.0, 5.0, 25.0):
        lo, hi = s.delta_bounds(eps)
        truth = float(_gauss_delta(3 ** 0.5, eps))
        assert lo <= truth <= hi
    for delta in (1e-5, 1e-30):
        lo, hi = s.epsilon_bounds(delta)
        assert lo <= _gauss_epsilon(3 ** 0.5, delta) <= hi


def _strongest_delta_truth(mu: float, e0: float, eps: float) -> float:
    """sup_α (1 − max{G_μ(α), f_{e0,0}(α)} − e^ε α) in mpmath: a concave objective,
    maximised on a logit grid and then by golden section."""
    def f(a):
        g = mp.ncdf(mp.sqrt(2) * mp.erfinv(1 - 2 * a) - mu) if 0 < a < 1 else (1 - a)
        pure = max(0, 1 - mp.e ** e0 * a, mp.e ** -e0 * (1 - a))
        return 1 - max(g, pure) - mp.e ** eps * a

    us = [mp.mpf(-40) + k * mp.mpf(80) / 4000 for k in range(4001)]
    vals = [f(1 / (1 + mp.e ** -u)) for u in us]
    j = max(range(len(us)), key=lambda i: vals[i])
    a, b = us[max(j - 1, 0)], us[min(j + 1, len(us) - 1)]
    phi = (mp.sqrt(5) - 1) / 2
    for _ in range(120):
        c, d = b - phi * (b - a), a + phi * (b - a)
        if f(1 / (1 + mp.e ** -c)) >= f(1 / (1 + mp.e ** -d)):
            b = d
        else:
            a = c
    return float(max(max(vals), f(1 / (1 + mp.e ** -((a + b) / 2))), 0))


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0])
@pytest.mark.slow
def test_strongest_of_incomparable_members_brackets_its_conjugate(eps):
    g, pure = fdp.Gaussian(1.0), fdp.EpsDelta(1.0, 0.0)
    s = fdp.strongest(g, pure)
    with mp.workdps(30):
        truth = _strongest_delta_truth(1.0, 1.0, eps)
    lo, hi = s.delta_bounds(eps)
    assert lo <= truth + 1e-15
    assert hi >= truth - 1e-15
    assert hi - lo < 1e-9
    assert hi <= min(float(g.delta(eps)), float(pure.delta(eps))) + 1e-15


def test_inverse_of_a_nested_numeric_contains_the_truth():
    r = fdp.compose_numeric([(fdp.Gaussian(1.0), 3)])
    x = r @ fdp.Gaussian(1.0)                 # brackets G_2 (symmetric: G_2⁻¹ = G_2)
    xi = x.inverse()
    for eps in (0.5, 2.0, 5.0, 700.0):
        lo, hi = xi.delta_bounds(eps)
        truth = float(_gauss_delta(2.0, eps))
        assert lo <= truth <= hi
    lo, hi = xi.delta_bounds(700.0)
    assert lo == 0.0
    for delta in (1e-9, 1e-20):
        lo, hi = xi.epsilon_bounds(delta)
        assert lo <= _gauss_epsilon(2.0, delta) <= hi
        assert np.isfinite(lo)
