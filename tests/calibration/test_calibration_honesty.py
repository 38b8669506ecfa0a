"""Calibration says what it guarantees, and calibrates DP-SGD on the smaller of two
certified upper bounds (the f-DP engine and the Rényi bound of the same run).

Independent references: the subsampled-Gaussian RDP at integer orders in mpmath
(Mironov, Talwar & Zhang 2019, binomial sum) with the conversion of Canonne, Kamath
& Steinke 2020 (Prop 12) in mpmath.
"""

import pickle

import mpmath as mp
import pytest

import fdp
from fdp.calibration import Calibration, TailDelta, Target, calibrate_dpsgd

mp.mp.dps = 60


def _cks_eps_mp(q, sigma, steps, lam, delta):
    q, s, lam = mp.mpf(q), mp.mpf(sigma), int(lam)
    a = mp.fsum(mp.binomial(lam, k) * q ** k * (1 - q) ** (lam - k)
                * mp.exp(mp.mpf(k * k - k) / (2 * s * s)) for k in range(lam + 1))
    rho = steps * mp.log(a) / (lam - 1)
    return rho + mp.log(1 - mp.mpf(1) / lam) - (mp.log(delta) + mp.log(lam)) / (lam - 1)


def test_tiny_delta_is_calibrated_on_the_rdp_bound():
    # the engine alone cannot certify δ = 1e-100 at any σ (its tails are cut near 1e-25
    # per step); the Rényi bound can, and it is certified
    s = calibrate_dpsgd(sample_rate=0.01, steps=10, epsilon=1.0, delta=1e-100, rtol=1e-3)
    assert s.bound.startswith("the certified RDP bound") and "bound=" in repr(s)
    assert "f-DP engine's upper δ(1)" in s.bound and s.evaluations == 1
    eps, lam = s.tradeoff.rdp.epsilon(1e-100)
    assert eps[0] <= 1.0
    assert float(lam[0]).is_integer()
    # independent: the mpmath RDP at that order certifies the target at σ ...
    assert _cks_eps_mp(0.01, float(s), 10, lam[0], mp.mpf(10) ** -100) <= 1.0 + 1e-12
    # ... and the returned σ is the least the bound certifies (to rtol): not at lower
    assert s.lower is not None and s.lower < float(s)
    below = fdp.dpsgd(s.lower, 0.01, 10).rdp.epsilon(1e-100)[0][0]
    assert below > 1.0
    assert s.tradeoff.epsilon(1e-100) <= 1.0


@pytest.mark.slow
def test_engine_bound_named_when_it_meets_the_target():
    s = calibrate_dpsgd(sample_rate=0.01, steps=10, epsilon=2.0, delta=1e-5, rtol=0.1,
                        tol=1e-2)
    assert s.bound.startswith("the f-DP engine")
    assert s.tradeoff.epsilon(1e-5) <= 2.0


def test_delta_below_the_certifiable_blames_delta_not_noise():
    with pytest.raises(ValueError, match=r"delta=1e-100 is below what the certified "
                                         r"accountant can resolve.*ask for delta ≥"):
        calibrate_dpsgd(sample_rate=0.01, steps=100, epsilon=1.0, delta=1e-100,
                        sampling="without_replacement", neighbouring="replace_one")


@pytest.mark.parametrize("kw", [dict(epsilon=1e6, delta=1e-5), dict(epsilon=1.0, delta=1.0)])
def test_search_floor_is_said_in_the_repr(kw):
    s = calibrate_dpsgd(sample_rate=0.01, steps=100, **kw)
    assert s.at_floor and float(s) == 0.05
    assert "at_floor=True" in repr(s) and "search floor" in repr(s)


@pytest.mark.slow
def test_mu_target_states_its_tail_delta():
    # a numeric guarantee meets G_μ only as G_μ ⊗ f_{0,η}; the result must say so
    g = fdp.Laplace(1.0) @ fdp.Gaussian(1.0)
    s = Calibration(1.0, lower=0.9, target=Target.make(mu=2.0), tradeoff=g, evaluations=1,
                    kind="sigma")
    assert 0.0 < s.tail_delta < 1e-9
    assert g.dominates(TailDelta(fdp.Gaussian(2.0), s.tail_delta))   # what is proven
    tail = f"{s.tail_delta:.2g}"
    assert s.guarantee.startswith("2-GDP up to a tail delta " + tail)
    assert f"guarantee='2-GDP up to a tail delta {tail}" in repr(s)
    # closed forms need no tail
    c = fdp.calibrate("gaussian", mu=0.5)
    assert c.guarantee == "0.5-GDP" and c.tail_delta == 0.0


def test_calibration_pickles_with_its_report():
    s = calibrate_dpsgd(sample_rate=0.01, steps=100, epsilon=1e6, delta=1e-5)
    t = pickle.loads(pickle.dumps(s))
    assert float(t) == float(s) and t.at_floor and t.bound == s.bound
    assert t.guarantee == s.guarantee
