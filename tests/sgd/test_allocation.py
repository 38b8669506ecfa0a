"""fdp.random_allocation: brackets against independent truths.

t = 2: δ_add(ε) = E[(Y − e^ε)₊] and δ_remove(ε) = E[(1 − e^ε Y)₊] for the mean Y of
two i.i.d. log-normals reduce to one mpmath quadrature over Z₁ of a closed-form
(Black–Scholes) expectation over Z₂. k = t: every step takes the record, the full
batch G_{√k/σ} (closed form). Reference: dp_accounting's pull-request value.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.sgd.allocation import blocks, random_allocation

mp.mp.dps = 30


def _exact_t2(sigma: float, eps: float) -> tuple[float, float]:
    """(δ_add, δ_remove) of one allocation over t = 2 steps, mpmath quadrature."""
    s = mp.mpf(1) / sigma
    half = s * s / 2

    def call(c):          # E[(Z − c)₊], Z = e^L, L ~ N(−s²/2, s²)
        if c <= 0:
            return 1 - c
        d1 = (-mp.log(c) + half) / s
        return mp.ncdf(d1) - c * mp.ncdf(d1 - s)

    def put(c):           # E[(c − Z)₊]
        return c - 1 + call(c) if c > 0 else mp.mpf(0)

    e = mp.e ** mp.mpf(eps)

    def dens(l):
        return mp.npdf(l, -half, s)

    add = mp.quad(lambda l: dens(l) * call(2 * e - mp.e ** l) / 2,
                  [-mp.inf, -half, mp.log(2 * e), mp.inf])
    em = mp.e ** mp.mpf(-eps)
    rem = mp.quad(lambda l: dens(l) * put(2 * em - mp.e ** l),
                  [-mp.inf, mp.log(2 * em), mp.inf]) * e / 2
    return float(add), float(rem)


@pytest.mark.parametrize("sigma", [1.0, 2.0])
def test_t2_bracket_contains_mpmath(sigma):
    f = random_allocation(sigma, 2)
    for eps in (0.0, 0.3, 1.0, 2.0):
        add, rem = _exact_t2(sigma, eps)
        truth = max(add, rem)
        hi = float(f.delta(eps))
        lo = float(f._delta_lower(np.array(eps)))
        assert lo <= truth <= hi, (eps, lo, truth, hi)
        assert hi - lo <= 1e-3 * truth + 1e-9
        # each direction separately (add first, then remove)
        for lat_p, lat_o, val in ((f.pess[0], f.opt[0], add), (f.pess[1], f.opt[1], rem)):
            up = float(lat_p.delta_raw(np.array(eps))) + lat_p.slack + lat_p.readback
            dn = float(lat_o.delta_raw(np.array(eps))) - lat_o.slack - lat_o.readback
            assert dn <= val <= up


def test_full_allocation_is_the_full_batch_gaussian():
    """k = t: every step takes the record: G_{√t/σ} exactly (closed form)."""
    sigma, t = 2.0, 3
    f = random_allocation(sigma, t, selected=t)
    g = fdp.Gaussian(math.sqrt(t) / sigma)
    lo, hi = f.epsilon_bounds(1e-6)
    e = g.epsilon(1e-6)
    assert lo <= e <= hi and hi - lo < 2e-3


def test_reference_dp_accounting_pull_request():
    """σ = 2, k = 10, t = 100, δ = 1e-6: ≤ 2.42652 (+1e-4) and below Poisson q = 0.1."""
    lo, hi = random_allocation(2.0, 100, selected=10).epsilon_bounds(1e-6)
    assert hi <= 2.4265 + 1e-4
    assert hi - lo <= 1e-3
    assert hi < 2.67504
    plo, _ = fdp.dpsgd(2.0, 0.1, 100).epsilon_bounds(1e-6)
    assert hi < plo


def test_more_steps_per_epoch_amplify():
    a = random_allocation(2.0, 10).epsilon_bounds(1e-5)[1]
    b = random_allocation(2.0, 100).epsilon_bounds(1e-5)[0]
    assert b < a


def test_blocks_reduction_partition():
    assert blocks(100, 10) == [(10, 10)]
    assert blocks(10, 3) == [(3, 2), (4, 1)]
    assert sum(n * c for n, c in blocks(17, 5)) == 17
    assert sum(c for _, c in blocks(17, 5)) == 5


@settings(max_examples=8, deadline=None)
@given(sigma=st.floats(1.0, 8.0), t=st.integers(1, 4), eps=st.floats(-1.0, 4.0))
def test_property_bracket_ordered_and_below_full_batch(sigma, t, eps):
    """lower ≤ upper; the allocation is at least as private as its full-batch
    Gaussian (revealing the chosen step is post-processing in reverse)."""
    f = random_allocation(sigma, t)
    lo = float(f._delta_lower(np.array(eps)))
    hi = float(f.delta(eps))
    assert 0.0 <= lo <= hi <= 1.0
    g = fdp.Gaussian(1.0 / sigma)
    assert lo <= float(g.delta(eps)) + 1e-12


@pytest.mark.parametrize("kwargs, name", [
    (dict(noise_multiplier=0.0, steps=10), "noise_multiplier"),
    (dict(noise_multiplier=-1.0, steps=10), "noise_multiplier"),
    (dict(noise_multiplier=1.0, steps=0), "steps"),
    (dict(noise_multiplier=1.0, steps=10, selected=11), "selected"),
    (dict(noise_multiplier=1.0, steps=10, selected=0), "selected"),
    (dict(noise_multiplier=1.0, steps=10, epochs=0), "epochs"),
    (dict(noise_multiplier=0.1, steps=10), "noise_multiplier"),
])
def test_bad_input_names_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        random_allocation(**kwargs)


@pytest.mark.parametrize("kwargs", [dict(steps=2.5), dict(steps=10, selected=1.5),
                                    dict(steps=10, epochs="2")])
def test_non_integers_refused(kwargs):
    with pytest.raises((TypeError, ValueError)):
        random_allocation(1.0, **kwargs)


def test_exported():
    assert fdp.random_allocation is random_allocation


def _exact_t3(sigma: float, eps: float):
    """(δ_add, δ_remove, quadrature error) for t = 3: a 2-D scipy quadrature over
    (L₁, L₂) of the closed-form expectation over Z₃ (independent of the engine)."""
    from scipy import integrate
    from scipy.special import ndtr
    from scipy.stats import norm
    s = 1.0 / sigma
    half = s * s / 2

    def call(c):
        if c <= 0:
            return 1 - c
        d1 = (-np.log(c) + half) / s
        return ndtr(d1) - c * ndtr(d1 - s)

    def put(c):
        return c - 1 + call(c) if c > 0 else 0.0

    e, em = np.exp(eps), np.exp(-eps)
    lo, hi = -half - 12 * s, -half + 12 * s
    dens = norm(-half, s).pdf
    add = integrate.dblquad(lambda l2, l1: dens(l1) * dens(l2)
                            * call(3 * e - np.exp(l1) - np.exp(l2)) / 3,
                            lo, hi, lo, hi, epsabs=1e-12, epsrel=1e-9)
    rem = integrate.dblquad(lambda l2, l1: dens(l1) * dens(l2)
                            * put(3 * em - np.exp(l1) - np.exp(l2)),
                            lo, hi, lo, hi, epsabs=1e-12, epsrel=1e-9)
    return add[0], rem[0] * e / 3, add[1] + rem[1] * e / 3 + 1e-10


@pytest.mark.slow
def test_t3_bracket_contains_2d_quadrature():
    f = random_allocation(1.5, 3)
    eps = 0.5
    add, rem, err = _exact_t3(1.5, eps)
    for lat_p, lat_o, val in ((f.pess[0], f.opt[0], add), (f.pess[1], f.opt[1], rem)):
        up = float(lat_p.delta_raw(np.array(eps))) + lat_p.slack + lat_p.readback
        dn = float(lat_o.delta_raw(np.array(eps))) - lat_o.slack - lat_o.readback
        assert dn - err <= val <= up + err
        assert up - dn <= 1e-3 * val


@settings(max_examples=6, deadline=None)
@given(sigma=st.floats(0.9, 60.0), t=st.integers(1, 6), k=st.integers(1, 6),
       e=st.integers(1, 3))
def test_property_edges_and_domination(sigma, t, k, e):
    """Over the edge range of ε (±700, ±inf): 0 ≤ lower ≤ upper ≤ 1, δ non-increasing
    in ε, and the allocation no leakier than its full batch G_{√(k·E)/σ}."""
    k = min(k, t)
    f = random_allocation(sigma, t, k, e)
    eps = np.array([-np.inf, -700.0, -3.0, 0.0, 0.7, 3.0, 40.0, 700.0, np.inf])
    hi = f.delta(eps)
    lo = f._delta_lower(eps)
    assert np.all((0.0 <= lo) & (lo <= hi) & (hi <= 1.0))
    assert np.all(np.diff(hi) <= 1e-15) and np.all(np.diff(lo) <= 1e-15)
    g = fdp.Gaussian(math.sqrt(k * e) / sigma)
    assert np.all(lo[1:-1] <= g.delta(eps[1:-1]) + 1e-12)
    a = np.array([0.0, 1e-300, 1e-12, 0.3, 1.0])
    b_lo, b_hi = f.bounds(a)
    assert np.all((0.0 <= b_lo) & (b_lo <= b_hi) & (b_hi <= 1.0 - a + 1e-15))
    assert np.all(b_hi >= g(a) - 1e-12)
