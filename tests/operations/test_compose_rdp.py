"""Compositions the engine answers carry the closed-form RDP bound as a second upper end
(issue 34: ``(Laplace(0.001) ** 10**12).epsilon_bounds(1e-5)`` was (0, 4.78e6)).

Independent references, in mpmath at 50 digits: the Rényi divergence of two Laplace
laws by quadrature of ∫ q^λ p^{1−λ} (and Mironov 2017, Table II in closed form), of
randomized response by its two-atom sum, composed by T·ρ (Mironov 2017, Prop 1) and
converted by Canonne, Kamath & Steinke 2020, Prop 12 written out below; the truth
for Gaussian factors, G_a ⊗ G_b = G_√(a²+b²) (DRS Cor 3.3).
"""

import pickle

import mpmath as mp
import numpy as np
import pytest

import fdp
from fdp.engine import Numeric, compose_numeric
from fdp.operations.min_certified import MinCertified, with_rdp
from fdp.operations.rdp_bound import COMPOSE_ORDERS, RDPBound, factor_rdp

mp.mp.dps = 50


def _laplace_rdp_quad(mu, lam):
    """D_λ(Lap(μ, 1) ‖ Lap(0, 1)) = log ∫ q^λ p^{1−λ} dx / (λ − 1), by quadrature."""
    mu, lam = mp.mpf(mu), mp.mpf(lam)

    def g(x):
        return mp.exp(-lam * abs(x - mu) - (1 - lam) * abs(x)) / 2
    return mp.log(mp.quad(g, [-mp.inf, 0, mu, mp.inf])) / (lam - 1)


def _laplace_rdp(mu, lam):
    """Mironov 2017, Table II."""
    mu, lam = mp.mpf(mu), mp.mpf(lam)
    return mp.log(lam / (2 * lam - 1) * mp.exp((lam - 1) * mu)
                  + (lam - 1) / (2 * lam - 1) * mp.exp(-lam * mu)) / (lam - 1)


def _rr_rdp(eps, lam):
    eps, lam = mp.mpf(eps), mp.mpf(lam)
    p = mp.exp(eps) / (1 + mp.exp(eps))
    return mp.log(p ** lam * (1 - p) ** (1 - lam) + (1 - p) ** lam * p ** (1 - lam)) / (lam - 1)


def _cks_eps(rho, lam, delta):
    lam = mp.mpf(lam)
    return rho + mp.log(1 - 1 / lam) - (mp.log(delta) + mp.log(lam)) / (lam - 1)


def _cks_log_delta(rho, lam, eps):
    lam = mp.mpf(lam)
    return (lam - 1) * (rho - eps) + (lam - 1) * mp.log(1 - 1 / lam) - mp.log(lam)


# -- one factor's curve: an upper bound, tight to 1e-11 --------------------------------
@pytest.mark.parametrize("mu,lam", [(1.0, 2.0), (0.001, 1.0 + 1e-7), (0.001, 1.005),
                                    (0.3, 37.0), (5.0, 4096.0), (1e-9, 3.0), (5.0, 1.0 + 1e-7),
                                    (0.1, 1.5), (30.0, 2.0)])
def test_laplace_curve_bounds_the_divergence(mu, lam):
    ours = factor_rdp(fdp.Laplace(mu), [lam])[0]
    ref = _laplace_rdp(mu, lam)
    if mu >= 1e-3 and lam < 100:
        assert abs(_laplace_rdp_quad(mu, lam) - ref) <= 1e-25 + 1e-20 * ref
    assert ours >= ref
    assert ours <= ref * (1 + 1e-11)


@pytest.mark.parametrize("eps,lam", [(0.1, 2.0), (1.0, 1.0001), (3.0, 500.0), (0.01, 3.0),
                                     (3.0, 1.0 + 1e-7), (0.3, 40.0)])
def test_randomized_response_and_eps_delta_curves(eps, lam):
    ref = _rr_rdp(eps, lam)
    for f in (fdp.RandomizedResponse(eps), fdp.EpsDelta(eps)):
        ours = factor_rdp(f, [lam])[0]
        assert ref <= ours <= ref * (1 + 1e-11)
    assert factor_rdp(fdp.EpsDelta(eps, 1e-6), [lam]) is None


def test_gaussian_curve_and_identity():
    ours = factor_rdp(fdp.Gaussian(0.7), [1.5, 10.0])
    ref = [mp.mpf(1.5) * mp.mpf(0.7) ** 2 / 2, mp.mpf(10) * mp.mpf(0.7) ** 2 / 2]
    assert all(r <= o <= r * (1 + 1e-15) for o, r in zip(ours, ref))
    tiny = factor_rdp(fdp.Gaussian(1e-170), [2.0])[0]       # μ² underflows a double
    assert tiny > 0.0 and tiny >= mp.mpf(1e-170) ** 2
    assert factor_rdp(fdp.Identity(), [2.0])[0] == 0.0


def test_curve_at_other_orders_reads_the_next_larger_order():
    b = RDPBound((2.0, 8.0), (1.0, 3.0))
    assert b.at([1.5, 2.0, 5.0, 8.0, 9.0]).tolist() == [1.0, 1.0, 3.0, 3.0, np.inf]


# -- issue 34: Laplace(0.001) ** 10**12 --------------------------------------------------
def test_huge_laplace_composition_upper_end_from_rdp():
    T = 10 ** 12
    b = (fdp.Laplace(0.001) ** T).epsilon_bounds(1e-5)
    ref = min(_cks_eps(T * _laplace_rdp(0.001, lam), lam, mp.mpf(1e-5))
              for lam in COMPOSE_ORDERS)
    assert ref <= b.hi <= ref * (1 + 1e-9)
    assert b.hi < 5.1e5                                     # the engine alone: 4.78e6
    # the truth is at least the mean privacy loss T·KL(P‖Q) = T(μ − 1 + e^{−μ}) for
    # δ < 1/2 ... and at most the upper end
    kl = T * (mp.mpf(0.001) - 1 + mp.exp(-mp.mpf(0.001)))
    assert b.hi > kl
    # the engine's own lower end is 0 (its grid no longer resolves 1e12 steps); the
    # lower end is then the engine's for fewer steps, below the truth (≥ T·KL)
    assert 0.0 < b.lo < kl
    assert b.note.startswith("upper end from the RDP bound")
    assert "lower end 0" in b.note and "overlap" in b.note and "4.77967e+06" in b.note
    assert "the f-DP engine's for 1e+" in b.note


def test_huge_laplace_delta_from_rdp():
    T = 10 ** 12
    f = fdp.Laplace(0.001) ** T
    b = f.delta_bounds(5.1e5)
    ref = min(_cks_log_delta(T * _laplace_rdp(0.001, lam), lam, mp.mpf(5.1e5))
              for lam in COMPOSE_ORDERS)
    assert mp.exp(min(ref, 0)) <= b.hi <= mp.exp(min(ref, 0)) * (1 + 1e-6)
    assert b.hi < 1e-6 and b.lo <= b.hi
    assert "RDP bound" in b.note


# -- the bracket still contains the truth where it is known -----------------------------
@pytest.mark.parametrize("delta", [1e-3, 1e-10, 1e-30, 1e-60])
def test_gaussian_factors_truth_inside_min_bracket(delta):
    items = [(fdp.Gaussian(0.5), 16)]                       # G_0.5^{⊗16} = G_2
    f = with_rdp(compose_numeric(items), RDPBound.of_factors(items))
    assert isinstance(f, MinCertified)
    lo, hi = f.epsilon_bounds(delta)
    truth = fdp.Gaussian(2.0).epsilon(delta)
    assert lo <= truth * (1 + 1e-12) and truth <= hi * (1 + 1e-12)
    # the upper end is no larger than either bound alone
    assert hi <= f.rdp.epsilon(delta)[0][0]


def test_mixed_factors_and_results_with_curves_compose_with_rdp():
    g = fdp.Laplace(0.5) @ fdp.Gaussian(1.0)
    h = g @ fdp.RandomizedResponse(0.3)          # g's curve is read at the new orders
    assert isinstance(g, MinCertified) and isinstance(h, MinCertified)
    lam = 5.0
    i = list(COMPOSE_ORDERS).index(lam)
    ref = _laplace_rdp(0.5, lam) + lam / 2 + _rr_rdp(0.3, lam)
    assert ref <= h.rdp.rdp[i] <= ref * (1 + 1e-11)
    lo, hi = h.epsilon_bounds(1e-6)
    assert 0 < lo <= hi <= h.rdp.epsilon(1e-6)[0][0]
    assert "lower end 0" not in h.epsilon_bounds(1e-6).note


def test_moderate_size_keeps_the_engine_and_says_so():
    f = fdp.Laplace(0.5) ** 20
    b = f.epsilon_bounds(1e-5)
    assert b.note.startswith("upper end from the f-DP engine")
    assert 0 < b.lo <= b.hi < f.rdp.epsilon(1e-5)[0][0]


def test_factors_without_a_curve_stay_plain_engine_results():
    f = fdp.Laplace(0.5) @ fdp.Laplace(0.5).subsample(0.5)
    assert type(f) is Numeric or f.rdp_recipe is None    # a subsampled step has none
    g = fdp.Laplace(0.5) @ fdp.EpsDelta(1.0, 1e-6)            # δ split off, pair kept
    assert not isinstance(g, MinCertified)


def test_pickles_and_compares():
    f = fdp.Laplace(0.2) ** 30
    g = pickle.loads(pickle.dumps(f))
    assert isinstance(g, MinCertified) and g == f and hash(g) == hash(f)
    assert g.epsilon_bounds(1e-5) == f.epsilon_bounds(1e-5)
