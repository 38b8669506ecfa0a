"""The engine's constants in ``fdp._constants`` equal their stated derivations.

Each assertion recomputes the number from first principles (IEEE-754 double
limits via ``numpy.finfo``, the logistic function, exponentials), independently of
the engine code that uses it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from fdp import _constants as C
from fdp.engine import connect_dots, from_profile, lattice


def test_exp_safe_keeps_likelihood_ratios_finite_and_normal():
    fi = np.finfo(float)
    assert math.exp(C.EXP_SAFE) < fi.max and math.isfinite(math.exp(C.EXP_SAFE))
    assert math.exp(-C.EXP_SAFE) > fi.tiny            # a normal double, not subnormal
    assert C.EXP_SAFE < math.log(fi.max) < C.EXP_SAFE + 10.0


def test_loss_window_moves_answers_below_it_by_e_minus_40():
    assert math.exp(-40.0) < 5e-18
    assert C.LOSS_WINDOW - 40.0 > C.EXP_SAFE           # the window lies past EXP_SAFE


def test_flush_threshold_leaves_products_normal():
    fi = np.finfo(float)
    assert C.FLUSH_BELOW * C.FLUSH_BELOW == 0.0 or C.FLUSH_BELOW ** 2 < fi.tiny
    assert C.FLUSH_BELOW / fi.tiny > 1e27
    assert lattice.TINY == C.FLUSH_BELOW


def test_noise_crop_cap_is_the_round_off_of_the_largest_transform():
    u = np.finfo(float).eps / 2.0
    gamma = 4.0 * (math.log2(lattice.MAX_POINTS) + 2.0) * u     # 2^25 points
    assert 0.1 < C.NOISE_CROP_CAP / gamma < 10.0
    assert round(C.NOISE_CROP_CAP / np.finfo(float).eps) == 450


def test_tau_is_a_millionth_of_one_transform_round_off():
    assert math.isclose(C.TAU / 1e-16, 1e-6)
    assert C.TAU_TILT < C.TAU


def test_step_constants():
    # N·Δ²/V at Δ = STEP_SCALE·sqrt(tol·V/N) is STEP_SCALE²·tol ≈ 1.7·tol
    assert round(C.STEP_SCALE ** 2, 1) == 1.7
    # neighbouring grid points differ by ≈ 5% in likelihood ratio at MAX_STEP
    assert round(math.expm1(C.MAX_STEP), 2) == 0.05
    assert C.MAX_STEP / 4 < 0.013


def test_readback_floors():
    assert C.PLAIN_READBACK_FLOOR == 10.0 and C.TILT_READBACK_FLOOR == 1000.0
    # above the tilt floor the relative error η/δ is at most the default width 1e-3
    assert 1.0 / C.TILT_READBACK_FLOOR <= 1e-3


def test_logit_ends():
    # 36.7: the largest logit (to 0.1) whose expit is still below 1 in doubles
    assert expit(C.LOGIT_BELOW_ONE) < 1.0
    assert expit(C.LOGIT_BELOW_ONE + 0.1) == 1.0
    assert math.floor(53 * math.log(2.0) * 10) / 10 == C.LOGIT_BELOW_ONE
    assert 1.0 - expit(C.LOGIT_BELOW_ONE) == np.finfo(float).eps
    # the search range ends past it, where α = 1 is reached; its start at the
    # smallest positive double (e^{−745})
    assert expit(C.LOGIT_SEARCH[1]) == 1.0
    assert math.exp(C.LOGIT_SEARCH[0]) == C.TINY


def test_profile_scan_and_tail():
    assert np.array_equal(from_profile.SCAN, np.linspace(-20.0, 40.0, 601))
    assert np.allclose(np.diff(from_profile.SCAN), 0.1)
    assert math.exp(C.PROFILE_SCAN[0]) < 2.1e-9
    assert C.PROFILE_TAIL < 1e-16


def test_window_uses_the_loss_window():
    assert connect_dots.window((-5e3, 5e3)) == (-C.LOSS_WINDOW, C.LOSS_WINDOW)


def test_power_tau_and_negligible_masses():
    from fdp.engine.pipeline import power_tau
    assert power_tau(1) == C.POWER_TAU_PER_STEP
    assert power_tau(1, tau=1e-15) == 1e-15
    assert power_tau(1000) == C.POWER_TAU_PER_STEP * 1000
    assert power_tau(10 ** 12) == C.POWER_TAU_CAP
    # a thousandth of the ~n·1e-14 round-off of an n-fold power
    assert math.isclose(C.POWER_TAU_PER_STEP / 1e-14, 1e-3)
    assert C.NEGLIGIBLE_P_MASS * 1e5 == 1e-25


def test_tilt_constants():
    u = np.finfo(float).eps / 2.0
    gamma = 4.0 * (20 + 2.0) * u                 # one 2^20-point transform
    assert C.TILT_CROP < 0.1 * gamma
    assert 1e13 < math.exp(C.TILT_THETA_STEPS) < 1.2e13
