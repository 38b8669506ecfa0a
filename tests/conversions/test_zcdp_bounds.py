"""from_zcdp never worse than the closed zCDP → (ε, δ) conversions (mpmath references).

Bun & Steinke 2016, Prop 1.3: ε ≤ ρ + 2√(ρ log(1/δ)). Canonne, Kamath & Steinke 2020,
Prop 12 (Balle et al. 2020, Thm 21): δ ≤ min_λ exp((λ−1)(ρλ − ε)) (1 − 1/λ)^{λ−1}/λ.
"""

import math

import mpmath as mp
import pytest

import fdp


def _mp_cks_log_delta(rho, eps):
    mp.mp.dps = 40
    rho, eps = mp.mpf(rho), mp.mpf(eps)

    def g(lam):
        return (lam - 1) * (rho * lam - eps + mp.log(1 - 1 / lam)) - mp.log(lam)
    # convex in λ: golden section over a wide log bracket
    lo, hi = mp.mpf(0), mp.log(mp.mpf(10) ** 40)
    for _ in range(300):
        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if g(1 + mp.e ** a) < g(1 + mp.e ** b):
            hi = b
        else:
            lo = a
    return g(1 + mp.e ** lo)


def _mp_cks_eps(rho, delta):
    mp.mp.dps = 40
    rho, ld = mp.mpf(rho), mp.log(mp.mpf(delta))

    def e_of(lam):
        return rho * lam + (-ld + (lam - 1) * mp.log(1 - 1 / lam) - mp.log(lam)) / (lam - 1)
    lo, hi = mp.mpf(-20), mp.mpf(60)
    for _ in range(300):
        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if e_of(1 + mp.e ** a) < e_of(1 + mp.e ** b):
            hi = b
        else:
            lo = a
    return e_of(1 + mp.e ** lo)


@pytest.mark.slow
def test_epsilon_below_the_closed_conversions():
    f = fdp.from_zcdp(1 / 32)
    got = f.epsilon(1e-3)
    cks = float(_mp_cks_eps(1 / 32, 1e-3))
    assert cks == pytest.approx(0.688002, abs=1e-6)         # the value the issue quotes
    assert got <= cks * (1 + 1e-9)
    assert got <= 1 / 32 + 2 * math.sqrt(1 / 32 * math.log(1e3))
    lo, hi = f.epsilon_bounds(1e-3)
    assert lo <= got == hi


@pytest.mark.slow
def test_tiny_rho_delta_is_the_closed_bound_not_a_chord():
    g = fdp.from_zcdp(5e-30)
    got = g.delta(1e-13)
    ref = math.exp(float(_mp_cks_log_delta(5e-30, 1e-13)))
    assert ref == pytest.approx(2.6e-234, rel=0.05)
    # the orders tried are a finite (refined) grid, each a valid bound: the minimum over
    # the continuum is met to 1e-6 relative in δ (1e-9 relative in log δ); it was 1.9e-15
    assert got <= ref * (1 + 1e-6)
    assert got >= g.delta_bounds(1e-13)[0]
