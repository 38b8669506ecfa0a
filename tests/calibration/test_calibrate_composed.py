"""k-fold calibration (Laplace, discrete Laplace, Gaussian) and the inverse of (ε, δ)
composition, against the optimal composition of pure/approximate DP (Kairouz, Oh &
Viswanath 2015) and an exact enumeration, both in mpmath, and dp_accounting's PLD."""

from __future__ import annotations

import math

import mpmath as mp
import pytest

import fdp
from fdp.calibration.noise import calibrate, epsilon_per_step


def _kov_delta(eps: float, e0: float, k: int, d0: float = 0.0) -> mp.mpf:
    """δ(ε) of f_{ε₀,δ₀}^{⊗k} (KOV 2015, Thm 3.3), exact in mpmath."""
    e0, eps = mp.mpf(e0), mp.mpf(eps)
    s = mp.fsum(mp.binomial(k, l) * max(mp.mpf(0), mp.exp((k - l) * e0) - mp.exp(eps + l * e0))
                for l in range(k + 1))
    pure = s / (1 + mp.exp(e0)) ** k
    return 1 - (1 - mp.mpf(d0)) ** k * (1 - pure)


@pytest.mark.parametrize("k,eps,delta,d0", [(10, 1.0, 1e-5, 0.0), (50, 2.0, 1e-6, 0.0),
                                            (100, 2.0, 1e-5, 1e-8), (3, 0.5, 1e-3, 1e-4)])
def test_epsilon_per_step_is_the_kov_inverse(k, eps, delta, d0):
    mp.mp.dps = 40
    r = epsilon_per_step(k, eps, delta, delta_per_step=d0)
    assert _kov_delta(eps, r.epsilon, k, d0) <= delta                  # meets the target
    assert _kov_delta(eps, r.epsilon * (1 + 1e-7), k, d0) > delta       # and is tight
    assert r.epsilon < r.failed <= r.epsilon * (1 + 1e-8)
    assert r.epsilon > eps / k                                         # beats basic composition


def test_epsilon_per_step_refuses_impossible_delta_per_step():
    with pytest.raises(ValueError, match="delta_per_step"):
        epsilon_per_step(10, 1.0, 1e-5, delta_per_step=2e-6)           # 1 − (1 − δ₀)^10 > δ
    with pytest.raises(ValueError, match="steps"):
        epsilon_per_step(0, 1.0, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        epsilon_per_step(3, 1.0, 0.0)


@pytest.mark.parametrize("k,eps,delta", [(10, 1.0, 1e-5), (4, 0.5, 1e-6)])
def test_discrete_laplace_unit_sensitivity_is_pure_dp_composition(k, eps, delta):
    """DLap(t) with Δ = 1 is exactly f_{1/t,0} (CKS 2020): the k-fold calibration is the
    KOV inverse with ε₀ = 1/t."""
    mp.mp.dps = 40
    t = calibrate("discrete_laplace", epsilon=eps, delta=delta, steps=k, rtol=1e-8)
    assert _kov_delta(eps, 1.0 / float(t), k) <= delta
    assert _kov_delta(eps, 1.0 / (float(t) * (1 - 1e-6)), k) > delta
    assert t.mechanism.sensitivity == 1


def _dlap2_delta(eps: float, t: float, k: int) -> mp.mpf:
    """δ(ε) of k runs of the discrete Laplace with Δ = 2, by exact enumeration: the loss
    log(q/p)(x) = (|x| − |x − 2|)/t takes −2/t (x ≤ 0), 0 (x = 1), 2/t (x ≥ 2)."""
    r = mp.exp(-1 / mp.mpf(t))
    z = (1 + r) / (1 - r)                                  # Σ_x r^|x|
    p_lo = 1 / (1 - r) / z                                 # x ≤ 0
    p_mid = r / z                                          # x = 1
    p_hi = 1 - p_lo - p_mid                                # x ≥ 2
    a = 2 / mp.mpf(t)
    total = mp.mpf(0)
    for i in range(k + 1):                                 # i losses +a, j losses −a
        for j in range(k + 1 - i):
            m = k - i - j
            pr = mp.factorial(k) / (mp.factorial(i) * mp.factorial(j) * mp.factorial(m)) \
                * p_hi ** i * p_lo ** j * p_mid ** m
            loss = (i - j) * a
            total += pr * max(mp.mpf(0), mp.exp(loss) - mp.exp(eps))   # E_P[(e^L − e^ε)₊]
    return total


def test_discrete_laplace_sensitivity_two_against_enumeration():
    mp.mp.dps = 40
    k, eps, delta = 3, 1.0, 1e-4
    t = calibrate("discrete_laplace", sensitivity=2, epsilon=eps, delta=delta, steps=k,
                  rtol=1e-8)
    assert _dlap2_delta(eps, float(t), k) <= delta
    assert _dlap2_delta(eps, float(t) * (1 - 1e-6), k) > delta


def test_gaussian_steps_is_root_k_scaling():
    one = calibrate("gaussian", epsilon=1.0, delta=1e-5)
    many = calibrate("gaussian", epsilon=1.0, delta=1e-5, steps=16)
    assert float(many) == pytest.approx(4.0 * float(one), rel=1e-8)


def test_laplace_k_fold_against_dp_accounting_pld():
    """The certified k-fold Laplace scale: dp_accounting's PLD (pessimistic) accepts
    a scale 0.5 % larger and rejects one 0.5 % smaller."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.dp_event import LaplaceDpEvent, SelfComposedDpEvent
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    k, eps, delta = 10, 1.0, 1e-5
    b = calibrate("laplace", epsilon=eps, delta=delta, steps=k, rtol=1e-5)

    def dpa_delta(scale: float) -> float:
        acc = PLDAccountant(value_discretization_interval=1e-4)
        acc.compose(SelfComposedDpEvent(LaplaceDpEvent(scale), k))
        return acc.get_delta(eps)
    assert dpa_delta(float(b) * 1.005) <= delta < dpa_delta(float(b) * 0.995)
    assert float(b.tradeoff.delta(eps)) <= delta
    assert b.tradeoff.status == fdp.Status.CERTIFIED


def test_calibrate_bad_steps_and_sensitivity():
    with pytest.raises(ValueError, match="steps"):
        calibrate("laplace", epsilon=1.0, delta=1e-5, steps=0)
    with pytest.raises(ValueError, match="sensitivity"):
        calibrate("discrete_laplace", sensitivity=1.5, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="mechanism"):
        calibrate("cauchy", epsilon=1.0, delta=1e-5)
    assert math.isfinite(calibrate("discrete_laplace", mu=1.0))
