"""Calibration at the edges: exact δ targets met on the safe side, no hangs, no MemoryError.

Regressions: ``calibrate(epsilon=0, delta=1e-8)`` returned σ with exact δ(0) =
1.0000000047e-8 (over); ``gdp_mu(0, 1e-7)`` hung, so did ``calibrate(..., epsilon=0,
delta=1e-7)``; ``calibrate_dpsgd(sample_rate=0.01, steps=100, mu=1)`` and
``(..., steps=500, mu=0.5)`` raised MemoryError.
"""

from __future__ import annotations

import mpmath as mp
import pytest

import fdp

mp.mp.dps = 50


def _mp_delta0(sigma):
    """Exact δ(0) of the Gaussian mechanism with sensitivity 1: erf(1/(2√2 σ))."""
    return mp.erf(1 / (2 * mp.sqrt(2) * mp.mpf(sigma)))


@pytest.mark.parametrize("delta", [1e-8, 1e-7, 1e-10, 1e-30, 1e-300])
def test_calibrate_eps_zero_is_safe_and_tight(delta):
    c = fdp.calibrate("gaussian", epsilon=0.0, delta=delta)
    exact = _mp_delta0(float(c))
    assert exact <= delta                                   # safe (it was over by 4.7e-10)
    assert exact >= delta * (1 - 1e-11)                     # and tight
    assert c.lower is not None and c.lower < float(c)


def test_calibrate_eps_delta_matches_mpmath_profile():
    c = fdp.calibrate("gaussian", epsilon=1.0, delta=1e-5)
    mu = mp.mpf(1) / mp.mpf(float(c))
    d = mp.ncdf(-1 / mu + mu / 2) - mp.e * mp.ncdf(-1 / mu - mu / 2)
    assert d <= mp.mpf(1e-5) and d >= mp.mpf(1e-5) * (1 - 1e-9)


@pytest.mark.slow
def test_calibrate_dpsgd_mu_targets_answer_without_memory_error():
    c = fdp.calibrate_dpsgd(sample_rate=0.01, steps=100, mu=1.0)
    assert 0.05 < float(c) < 4.0                              # σ = 4 is far more than enough
    assert c.tail_delta <= 1e-9
    g = fdp.dpsgd(float(c), 0.01, 100)
    from fdp.calibration import TailDelta
    assert g.dominates(TailDelta(fdp.Gaussian(1.0), 1e-9))   # the certified statement
    c2 = fdp.calibrate_dpsgd(sample_rate=0.01, steps=500, mu=0.5)
    assert 0.05 < float(c2) < 4.0 and c2.tail_delta <= 1e-9


@pytest.mark.slow
def test_calibrate_dpsgd_accuracy_limited_target_says_so():
    # max_tail far below the engine's certified δ floor: a clear error, not a search
    # that doubles σ until the grid blows up
    with pytest.raises(ValueError, match="max_tail"):
        fdp.calibrate_dpsgd(sample_rate=0.01, steps=100, mu=1.0, max_tail=1e-14)


def test_accountant_eps_zero_budget_terminates():
    acct = fdp.Accountant(epsilon=0.0, delta=1e-10)
    acct.spend(fdp.Gaussian(1e-10))
    # exact: δ(0) of G_{1e-10} is erf(1e-10/(2√2)) ≈ 3.99e-11 ≤ 1e-10
    assert 0.0 < acct.remaining() < 3e-10
