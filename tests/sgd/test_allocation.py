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


def _call(c, s):
    """E[(Z − c)₊] for Z = e^L, L ~ N(−s²/2, s²) (Black–Scholes, mpmath)."""
    if c <= 0:
        return 1 - c
    d1 = (-mp.log(c) + s * s / 2) / s
    return mp.ncdf(d1) - c * mp.ncdf(d1 - s)


def _put(c, s):
    """E[(c − Z)₊] = c − 1 + E[(Z − c)₊] (E Z = 1)."""
    return c - 1 + _call(c, s) if c > 0 else mp.mpf(0)


def _exact_t2(sigma: float, eps: float) -> tuple[float, float]:
    """(δ_add, δ_remove) of one allocation over t = 2 steps, mpmath quadrature."""
    s = mp.mpf(1) / sigma
    half = s * s / 2
    e = mp.e ** mp.mpf(eps)

    def dens(l):
        return mp.npdf(l, -half, s)

    em = mp.e ** mp.mpf(-eps)
    add = mp.quad(lambda l: dens(l) * _call(2 * e - mp.e ** l, s) / 2,
                  _breaks(half, s, mp.log(2 * e)))
    rem = mp.quad(lambda l: dens(l) * _put(2 * em - mp.e ** l, s),
                  _breaks(half, s, mp.log(2 * em))) * e / 2
    return float(add), float(rem)


def _breaks(half, s, kink):
    """Quadrature breakpoints: the density's centre −s²/2 and ±8 sd around it (it is
    narrow at large σ), and the integrand's kink."""
    pts = {-half - 8 * s, -half, -half + 8 * s, kink}
    return [-mp.inf, *sorted(pts), mp.inf]


def _exact_poisson_t2(sigma: float, eps: float) -> tuple[float, float]:
    """(δ_add, δ_remove) of Poisson subsampling at rate q = 1/2 over 2 steps, the same
    quadrature: the likelihood ratio is R = ((1 + Z₁)/2)·((1 + Z₂)/2), so
    (R − e^ε)₊ = ((1 + Z₁)/4)·(Z₂ − c)₊ and (1 − e^ε R)₊ = (e^ε(1 + Z₁)/4)·(c′ − Z₂)₊
    with c = 4e^ε/(1 + Z₁) − 1, c′ = 4e^{−ε}/(1 + Z₁) − 1."""
    s = mp.mpf(1) / sigma
    half = s * s / 2
    e = mp.e ** mp.mpf(eps)
    em = 1 / e

    def dens(l):
        return mp.npdf(l, -half, s)

    def w(l):
        return (1 + mp.e ** l) / 4

    add = mp.quad(lambda l: dens(l) * w(l) * _call(e / w(l) - 1, s),
                  _breaks(half, s, mp.log(4 * e - 1)))
    rem = mp.quad(lambda l: dens(l) * w(l) * _put(em / w(l) - 1, s),
                  _breaks(half, s, mp.log(4 * em - 1) if 4 * em > 1 else -half)) * e
    return float(add), float(rem)


@pytest.mark.parametrize("sigma", [1.0, 2.0])
@pytest.mark.slow
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
    (dict(noise_multiplier=0.02, steps=10), "noise_multiplier=0.02 is too small"),
    (dict(noise_multiplier=1e-300, steps=10), "noise_multiplier=1e-300 is too small"),
    (dict(noise_multiplier=5e-324, steps=10), "too small"),
    (dict(noise_multiplier=1e12, steps=10), "noise_multiplier=1e\\+12 is too large"),
    (dict(noise_multiplier=1.7e308, steps=10), "too large"),
    (dict(noise_multiplier=3.0, steps=10, tol=1e-13), "tol=1e-13 is too small"),
])
def test_bad_input_names_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name) as err:
        random_allocation(**kwargs)
    if "noise_multiplier=" in name:
        assert "must be in [0.6" in str(err.value)        # the allowed range, named


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


@pytest.mark.slow
def test_exact_poisson_t2_matches_the_engine():
    """The quadrature of Poisson subsampling (q = 1/2, 2 steps) lies in fdp.dpsgd's
    certified bracket of the symmetrised δ: the check of the reference used below."""
    f = fdp.dpsgd(1.0, 0.5, 2)
    for eps in (0.0, 2.0, 0.5):
        add, rem = _exact_poisson_t2(1.0, eps)
        lo, hi = f.delta_bounds(eps)
        assert lo <= max(add, rem) <= hi
    assert add > rem > 0            # at ε = 0.5 both directions live, add the larger


@pytest.mark.slow
def test_poisson_at_rate_k_over_t_is_not_an_upper_bound():
    """Why ``random_allocation`` offers no "Poisson with rate q′ = k/t" curve: at
    σ = 0.7, t = 2 the allocation leaks MORE than Poisson subsampling at q = 1/2
    (independent mpmath quadratures of both: δ(0.5) ≈ 0.3003 against 0.2712), and the
    certified brackets of both separate."""
    sigma, eps = 0.7, 0.5
    alloc = max(_exact_t2(sigma, eps))
    pois = max(_exact_poisson_t2(sigma, eps))
    assert alloc > pois + 0.02
    a_lo, a_hi = random_allocation(sigma, 2).delta_bounds(eps)
    p_lo, p_hi = fdp.dpsgd(sigma, 0.5, 2).delta_bounds(eps)
    assert a_lo <= alloc <= a_hi and p_lo <= pois <= p_hi
    assert a_lo > p_hi


@pytest.mark.parametrize("sigma, t, margin", [(0.8, 10, 5e-3), (1.0, 30, 1e-3)])
@pytest.mark.slow
def test_poisson_rate_counterexample_at_more_steps(sigma, t, margin):
    """The same at t = 10 and 30: somewhere the allocation's certified UPPER trade-off
    value is below Poisson(1/t)'s certified LOWER value (both symmetrised), so
    f_alloc ≥ f_Poisson(1/t) is false."""
    alphas = np.array([0.1, 0.3, 0.5])
    _, a_hi = random_allocation(sigma, t).bounds(alphas)
    p_lo, _ = fdp.dpsgd(sigma, 1.0 / t, t).bounds(alphas)
    assert np.any(a_hi < p_lo - margin), (a_hi, p_lo)


@pytest.mark.parametrize("sigma", [30.0, 1e3, 1e6])
@pytest.mark.slow
def test_offset_grid_t2_contains_mpmath(sigma):
    """Large σ: the y-grid covers only [e^{−s²/2−8.5s}, e^{s²/2+8.5s}] (the offset grid,
    whole blocks flagged outside); each direction's bracket holds the mpmath truth
    and is ≤ 2e-3 relative wide where δ is not negligible."""
    from fdp.sgd.allocation import _coordinate
    assert _coordinate(sigma, 1e-4)[2] > 0                  # the offset grid is used
    f = random_allocation(sigma, 2)
    for x in (0.0, 0.3, 2.0):
        eps = x / sigma
        add, rem = _exact_t2(sigma, eps)
        for lat_p, lat_o, val in ((f.pess[0], f.opt[0], add), (f.pess[1], f.opt[1], rem)):
            up = float(lat_p.delta_raw(np.array(eps))) + lat_p.slack + lat_p.readback
            dn = float(lat_o.delta_raw(np.array(eps))) - lat_o.slack - lat_o.readback
            assert dn <= val <= up, (x, dn, val, up)
            assert up - dn <= 2e-3 * val + 1e-12


def test_offset_grid_agrees_with_the_grid_from_zero(monkeypatch):
    """σ = 100, t = 40: the offset grid's bracket and the grid from 0 (forced) overlap
    at every ε; the offset grid is not wider."""
    from fdp.sgd import allocation
    new = random_allocation(100.0, 40)
    monkeypatch.setattr(allocation, "OFFSET_SD", 50.0)    # lower cut below h: grid from 0
    assert allocation._coordinate(100.0, 1e-4)[2] == 0
    old = random_allocation(100.0, 40)
    for eps in (0.0, 1e-3, 5e-3, 2e-2):
        a, b = new.delta_bounds(eps), old.delta_bounds(eps)
        assert a[0] <= b[1] and b[0] <= a[1], (eps, a, b)
        assert a[1] - a[0] <= 1.5 * (b[1] - b[0]) + 1e-12
    a, b = new.epsilon_bounds(1e-5), old.epsilon_bounds(1e-5)
    assert a[0] <= b[1] and b[0] <= a[1]


@pytest.mark.parametrize("sigma, t, k, e", [(1.0, 1, 1, 1), (0.8, 7, 7, 3), (0.1, 5, 5, 2),
                                            (30.0, 4, 4, 1)])
def test_single_step_blocks_bracket_the_gaussian(sigma, t, k, e):
    """Blocks of one step (t = 1, or k = t) are G_{1/σ} exactly: the bracket holds the
    closed form G_{√(k·E)/σ}, is 1e-3-narrow in ε, and has no δ floor beyond the
    engine's round-off (the y-grid left P-mass 1.2e-5 at Y = 0 for σ = 1, t = 1)."""
    f = random_allocation(sigma, t, k, e)
    g = fdp.Gaussian(math.sqrt(k * e) / sigma)
    lo, hi = f.epsilon_bounds(1e-5)
    truth = float(g.epsilon(1e-5))
    assert lo <= truth <= hi and hi - lo <= 1e-3 * max(truth, 1.0)
    eps = np.array([0.0, 1.0, 20.0, 700.0])
    assert np.all(f._delta_lower(eps) <= g.delta(eps) + 1e-15)
    # f's upper δ holds the truth, which is at least the closed form's lower end (both
    # upper ends may sit at the smallest double where the truth underflows)
    assert np.all(g.delta_bounds(eps)[0] <= f.delta(eps))
    assert float(f.delta(700.0)) < float(g.delta(700.0)) + 1e-11


def test_mixed_block_sizes_below_the_full_batch():
    """t = 3, k = 2: one block of one step (the Gaussian lattices) and one of two (the
    y-grid) compose; the result is no leakier than the full batch G_{√2}."""
    f = random_allocation(1.0, 3, 2)
    g = fdp.Gaussian(math.sqrt(2.0))
    eps = np.array([0.0, 1.0, 3.0, 8.0])
    assert np.all(f._delta_lower(eps) <= g.delta(eps) + 1e-12)
    assert f.epsilon_bounds(1e-5)[1] < float(g.epsilon(1e-5))


@pytest.mark.filterwarnings("error")
def test_offset_grid_and_single_steps_at_the_edges():
    """The offset grid (σ = 1e3) and single-step blocks (q = 1 in ``fdp.dpsgd``) over
    ε ∈ {±700, ±inf}, α down to 1e-300, and composed with a closed form afterwards:
    ordered brackets in [0, 1], no NaN, no warning; q = 1 matches the closed form."""
    f = random_allocation(1e3, 50, 1, 2)
    eps = np.array([-np.inf, -700.0, 0.0, 1e-4, 700.0, np.inf])
    a = np.array([0.0, 1e-300, 1e-12, 0.5, 1.0])
    g = fdp.Gaussian(math.sqrt(2) / 1e3)
    for h in (f, f @ fdp.Gaussian(0.5)):
        lo, hi = h._delta_lower(eps), h.delta(eps)
        assert np.all(np.isfinite(hi)) and np.all((0.0 <= lo) & (lo <= hi) & (hi <= 1.0))
        b_lo, b_hi = h.bounds(a)
        assert np.all((0.0 <= b_lo) & (b_lo <= b_hi) & (b_hi <= 1.0 - a + 1e-15))
    assert np.all(f._delta_lower(eps[1:-1]) <= g.delta(eps[1:-1]) + 1e-12)
    one = fdp.dpsgd(0.5, 1.0, 3, sampling="random_allocation")   # q = 1: every step
    full = fdp.Gaussian(math.sqrt(3) / 0.5)
    lo, hi = one.epsilon_bounds(1e-10)
    assert lo <= float(full.epsilon(1e-10)) <= hi
    assert float(one.delta(700.0)) <= float(full.delta(700.0)) + 1e-11


def test_many_epochs_answer_from_the_full_batch_renyi_bound():
    """10⁴ epochs of t = 10 at σ = 1: the engine's grid no longer resolves δ = 1e-5 (it
    raised), but publishing the step that holds the record leaves 10⁴ releases of G_1, whose
    Rényi curve λ/2 per release converts (Canonne, Kamath & Steinke 2020, Prop 12) to
    ε ≤ min_λ 10⁴λ/2 + log(1 − 1/λ) − (log δ + log λ)/(λ − 1), minimised here by scipy."""
    from scipy.optimize import minimize_scalar

    n, delta = 10**4, 1e-5
    f = random_allocation(1.0, 10, epochs=n)
    b = f.epsilon_bounds(delta)

    def cks(lam: float) -> float:
        return (n * lam / 2 + math.log1p(-1 / lam)
                - (math.log(delta) + math.log(lam)) / (lam - 1))
    ref = minimize_scalar(cks, bounds=(1.0 + 1e-9, 50.0), method="bounded",
                          options={"xatol": 1e-12}).fun
    on_grid = min(cks(lam) for lam in f.rdp.orders)      # fdp minimises over its orders
    assert b.lo == 0.0 and "engine cannot resolve" in b.note
    assert on_grid <= b.hi <= on_grid * (1 + 1e-9)
    assert fdp.Gaussian(math.sqrt(n)).epsilon(delta) <= ref <= b.hi <= ref * 1.01
    assert b.note.startswith("upper end from the RDP bound")
