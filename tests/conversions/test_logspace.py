"""ε(δ) and δ(ε) at the edges, in log space, against mpmath (independent truth).

Regressions: ``Gaussian(0.1).epsilon(0)`` was 3.84 and ``Gaussian(1).epsilon(0)`` 38.9
(truth inf); ``gdp_delta(1e-9, 0)`` had relative error −1.7e-7 and
``gdp_delta(1e-12, 0)`` −9.8e-5 (unsafe); ``gdp_mu(0, 1e-7)`` hung.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp._numerics import bisect_monotone
from fdp.families.gaussian import gdp_log_delta_upper


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath at 60 digits for this module's reference values (restored afterwards)."""
    with mp.workdps(60):
        yield


def _mp_log_delta(mu, eps):
    """log δ_μ(ε) = log(Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)) at 60 digits (erf at ε = 0)."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    if eps == 0:
        return mp.log(mp.erf(mu / (2 * mp.sqrt(2))))
    d = mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)
    return mp.log(d) if d > 0 else -mp.inf


def _mp_gdp_eps(mu, delta):
    """ε with δ_μ(ε) = delta, by mpmath's root finder on the log."""
    target = mp.log(mp.mpf(delta))
    f = lambda e: _mp_log_delta(mu, e) - target
    lo, hi = mp.mpf(0), mp.mpf(1)
    while f(hi) > 0:
        lo, hi = hi, 2 * hi
    return mp.findroot(f, (lo, hi), solver="anderson")


@pytest.mark.parametrize("mu", [0.1, 1.0, 3.0, 40.0])
def test_epsilon_at_delta_zero_is_inf(mu):
    assert fdp.Gaussian(mu).epsilon(0.0) == math.inf
    assert fdp.Gaussian(mu).epsilon_bounds(0.0) == (math.inf, math.inf)
    assert fdp.gdp_epsilon(mu, 0.0) == math.inf


def test_pure_dp_epsilon_at_delta_zero_is_finite_and_exact():
    assert fdp.EpsDelta(1.5).epsilon(0.0) == pytest.approx(1.5, rel=1e-14)
    assert fdp.EpsDelta(1.5).epsilon(0.0) >= 1.5
    assert fdp.Laplace(2.0).epsilon(0.0) == pytest.approx(2.0, rel=1e-14)
    assert fdp.Identity().epsilon(0.0) == 0.0


@pytest.mark.parametrize("mu,delta", [(40.0, 1e-300), (40.0, 1e-5), (1.0, 1e-300), (0.1, 1e-300),
                                      (50.0, 1e-100), (1e-3, 1e-300)])
def test_gaussian_epsilon_at_tiny_delta_matches_mpmath(mu, delta):
    ours = fdp.Gaussian(mu).epsilon(delta)
    truth = float(_mp_gdp_eps(mu, delta))
    assert ours == pytest.approx(truth, rel=1e-12)
    # safe side: δ at the returned ε does not exceed the target (checked at 60 digits)
    assert _mp_log_delta(mu, ours) <= mp.log(mp.mpf(delta)) + mp.mpf(1e-13)


@pytest.mark.parametrize("mu", [1e-12, 1e-9, 1e-6, 1e-3, 0.04, 0.06, 1.0])
def test_gdp_delta_at_zero_is_erf(mu):
    truth = mp.erf(mp.mpf(mu) / (2 * mp.sqrt(2)))
    rel = float(mp.mpf(fdp.gdp_delta(mu, 0.0)) / truth - 1)
    assert abs(rel) <= 1e-15
    # the decision-side log is a certified upper bound within the documented allowance
    up = float(gdp_log_delta_upper(mu, np.array([0.0]))[0])
    assert float(mp.log(truth)) <= up <= float(mp.log(truth)) + 2e-12


def test_gdp_delta_large_eps_in_log_space():
    # δ_40(800): below the double range? no: the far tail is still representable in logs
    for mu, eps in [(40.0, 800.0), (1.0, 700.0), (50.0, 1462.29)]:
        lg = fdp.gdp_log_delta(mu, eps)
        truth = float(_mp_log_delta(mu, eps))
        assert np.isfinite(lg) and abs(lg - truth) <= 2e-15 * abs(truth) + 2e-13
        up = float(gdp_log_delta_upper(mu, np.array([eps]))[0])
        assert truth <= up <= truth + 2e-12 + 1e-14 * abs(truth)


@settings(max_examples=60)
@given(st.floats(-12.0, math.log10(50.0)), st.floats(-3.0, 700.0))
def test_gdp_log_delta_matches_mpmath(log_mu, eps):
    mu = 10.0 ** log_mu
    truth = _mp_log_delta(mu, eps)
    ours = float(gdp_log_delta_upper(mu, np.array([eps]))[0])
    if truth < -740:          # below the double range: only monotone and tiny needed
        assert ours < -700
        return
    # certified upper, within the documented allowance
    assert float(truth) <= ours <= float(truth) + 2e-12 + 1e-14 * abs(float(truth))


@settings(max_examples=40)
@given(st.floats(-12.0, math.log10(50.0)), st.floats(-300.0, -1.0))
def test_gdp_epsilon_round_trip_safe(log_mu, log_delta):
    mu, delta = 10.0 ** log_mu, 10.0 ** log_delta
    eps = fdp.gdp_epsilon(mu, delta)
    if eps == 0.0:
        assert _mp_log_delta(mu, 0) <= mp.log(mp.mpf(delta)) + mp.mpf(1e-12)
        return
    # δ(ε) ≤ δ at the answer, and a slightly smaller ε breaks it (tight)
    assert _mp_log_delta(mu, eps) <= mp.log(mp.mpf(delta)) + mp.mpf(1e-11)
    assert _mp_log_delta(mu, eps * (1 - 1e-9)) > mp.log(mp.mpf(delta)) - mp.mpf(1e-11)


@pytest.mark.parametrize("eps,delta", [(0.0, 1e-7), (0.0, 1e-10), (0.0, 1e-30), (1.0, 1e-5),
                                       (700.0, 1e-300), (0.0, 1e-300)])
def test_gdp_mu_terminates_and_is_safe(eps, delta):
    mu = fdp.gdp_mu_for_eps_delta(eps, delta)
    assert 0 < mu < math.inf
    assert _mp_log_delta(mu, eps) <= mp.log(mp.mpf(delta)) + mp.mpf(1e-12)
    assert _mp_log_delta(mu * (1 + 1e-9), eps) > mp.log(mp.mpf(delta)) - mp.mpf(1e-12)


def test_gdp_mu_names_are_unmistakable():
    # fdp.gdp_mu_for_eps_delta(ε, δ): the LARGEST μ whose GDP implies (ε, δ)
    assert fdp.conversions.gdp_mu_for_eps_delta(1.0, 1e-5) == fdp.gdp_mu_for_eps_delta(1.0, 1e-5)
    # f.gdp_mu(): the SMALLEST μ with f ≥ G_μ
    f = fdp.EpsDelta(1.0, 1e-5)
    assert f.gdp_mu() == math.inf
    assert ("LARGEST" in fdp.gdp_mu_for_eps_delta.__doc__
            and "smallest" in fdp.TradeOff.gdp_mu.__doc__)


def test_identity_delta_has_no_negative_zero():
    assert math.copysign(1.0, fdp.Identity().delta(1.0)) == 1.0


def test_bisect_monotone_terminates_at_one_ulp():
    # A threshold between two adjacent doubles: the loop must stop, not spin.
    x = 1.2345
    lo, hi = bisect_monotone(lambda t: t >= np.nextafter(x, 2.0), 0.0, 2.0)
    assert hi == np.nextafter(x, 2.0) and lo < hi and hi - lo <= 4e-16 * hi
    # geometric steps over a huge bracket, vectorised
    lo, hi = bisect_monotone(lambda t: t >= np.array([1e-200, 3e100]), [0.0, 0.0], [1e300, 1e300])
    assert np.all(hi >= [1e-200, 3e100]) and np.allclose(hi, [1e-200, 3e100], rtol=1e-15)


def test_privacy_profile_kink_below_the_smallest_double():
    """sup of f_{800,0} and f_{1,0.1}: its kink sits at α ≈ 0.1 e^{−800} (not a double).

    The exact profile (closed form of the max of lines): δ(ε) = 0.1 (1 − e^{ε−800})·…
    stays ≈ 0.1 up to ε = 800, so ε(0) = 800 (a grid search over doubles said 707.3,
    unsafe) and ε(0.1) = 1 (it said inf).
    """
    f = fdp.from_privacy_profile([800.0, 1.0], [0.0, 0.1])
    assert f.epsilon(0.0) >= 800.0 and f.epsilon(0.0) == pytest.approx(800.0, rel=1e-12)
    assert f.epsilon(0.1) == pytest.approx(1.0, rel=1e-12)
    # independent: at ε ∈ (1, 800) the binding pair is the two steep lines; δ = 0.1(1 − r)
    # with r = (e^ε − e)/(e^800 − e) ≈ e^{ε−800}
    for eps in [5.0, 700.0, 799.0]:
        r = math.exp(eps - 800.0)
        assert f.delta(eps) == pytest.approx(0.1 * (1 - r) + 0.0, rel=1e-12)


def test_pointwise_functions_do_not_read_epsilon_off_rounded_values():
    """A user's copy of G_1 (pointwise only): δ below the resolution of doubles near β = 1
    cannot be resolved from its values; ε(δ) there is inf (safe), never below the truth.
    Before: ε(0) = 8.6 (truth inf) and ε(1e-20) = 8.6 (truth 9.51, by mpmath)."""
    from scipy.stats import norm
    g = fdp.from_function(lambda a: norm.cdf(norm.isf(a) - 1.0))
    assert g.epsilon(0.0) == math.inf
    truth = float(_mp_gdp_eps(1.0, 1e-20))
    assert g.epsilon(1e-20) >= truth
    # where δ is resolved, the generic answer is on the safe side of the closed form
    assert g.epsilon(1e-10) >= float(_mp_gdp_eps(1.0, 1e-10)) * (1 - 1e-12)
    # a computed zero from an uncertified closed-form override is not a proof of δ = 0
    assert fdp.Gaussian(1.0).subsample(0.5).epsilon(0.0) == math.inf


def test_log_delta_is_never_nan_and_monotone_far_out():
    """ε/μ up to 1e300: the erfcx difference rounds to 0 or below; the asymptotic term
    keeps log δ finite, decreasing, and far below the double range (was NaN at
    μ = 7.6e-9, ε = 0.5, which made gdp_epsilon(7.6e-9, 1e-9) return 0.5)."""
    for mu in [1e-300, 1e-12, 7.6e-9, 1e-3, 0.5, 50.0, 1e4]:
        eps = np.concatenate([[0.0], np.logspace(-12, 300, 400)])
        lg = gdp_log_delta_upper(mu, eps)
        assert not np.any(np.isnan(lg))
        assert np.all(np.diff(lg) <= 1e-9 * np.abs(lg[1:]) + 1e-12)
    mu = 10 ** -8.119140625
    ours = fdp.gdp_epsilon(mu, 1e-9)
    assert ours == pytest.approx(float(_mp_gdp_eps(mu, 1e-9)), rel=1e-9)


@pytest.mark.parametrize("mu", [100.0, 1e3, 1e4])
def test_decision_log_delta_covers_large_mu(mu):
    """Near ε = μ²/2 the log-space form loses ~2e-16·μ; the certified upper log covers it."""
    mp.mp.dps = 80
    try:
        for k in (-2.0, 0.0, 2.0):
            eps = mu * mu / 2 + k * mu
            truth = _mp_log_delta(mu, eps)
            assert gdp_log_delta_upper(mu, np.array([eps]))[0] >= truth
    finally:
        mp.mp.dps = 60
