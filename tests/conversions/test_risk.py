"""Attack-risk read-outs (fdp.conversions.risk) against independent computations:
closed forms of G_μ and f_{ε,δ} evaluated in mpmath, Bayes risks minimised in mpmath,
the printed reference values, and exact vertex formulas."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

import fdp
from fdp.conversions.risk import (
    Bracket,
    GdpFit,
    advantage_bounds,
    attack_success,
    bayes_risk,
    gdp_fit,
    gdp_shortfall,
    one_direction,
    reconstruction_bound,
    risk_lines,
    tpr_at_fpr,
)
from tests.conftest import pairs


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath at 50 digits for this module's reference values (restored afterwards)."""
    with mp.workdps(50):
        yield


def mp_phi(x):
    return mp.ncdf(x)


def mp_phi_inv(p):
    """Φ⁻¹(p) by Newton's method on log Φ in mpmath (accurate in both tails)."""
    p = mp.mpf(p)
    if p > 0.5:
        return -mp_phi_inv(1 - p)
    x0 = float(ndtri(float(p))) if float(p) > 0 else -38.0
    return mp.findroot(lambda x: mp.log(mp.ncdf(x)) - mp.log(p), mp.mpf(x0))


def mp_gauss_tpr(mu, a):
    """1 − G_μ(α) = Φ(Φ⁻¹(α) + μ), exactly in mpmath (α itself for μ = 0)."""
    if mu == 0:
        return mp.mpf(a)
    return mp_phi(mp_phi_inv(a) + mu)


def mp_gauss_risk(mu, prior):
    """min_t (1 − π)Φ(−t) + π Φ(t − μ): the minimiser solves (1 − π)φ(t) = π φ(t − μ)."""
    p = mp.mpf(prior)
    obj = lambda t: (1 - p) * mp_phi(-t) + p * mp_phi(t - mu)
    if mu == 0:
        return min(p, 1 - p)
    t = (mp.log((1 - p) / p) + mp.mpf(mu) ** 2 / 2) / mu
    return obj(t)


def mp_epsdelta_tpr(eps, delta, a):
    """1 − f_{ε,δ}(α) = min{1, δ + e^ε α, 1 − e^{−ε}(1 − δ − α)}, without cancellation."""
    e = mp.e ** mp.mpf(eps)
    a, d = mp.mpf(a), mp.mpf(delta)
    return min(1, d + e * a, 1 - (1 - d - a) / e)


def mp_epsdelta_beta(eps, delta, a):
    e = mp.e ** mp.mpf(eps)
    a, d = mp.mpf(a), mp.mpf(delta)
    return max(0, 1 - d - e * a, (1 - d - a) / e)


# ----------------------------------------------------------------------
# Reference values (issue: Gaussian σ = √3 composed 3 times is μ = 1)
# ----------------------------------------------------------------------
def test_reference_gaussian_sqrt3_three_times():
    f = fdp.Gaussian(1 / math.sqrt(3)) ** 3
    assert 0.126936 <= f.delta(1.0) < 0.126937          # printed truncated to 6 digits
    t = tpr_at_fpr(f, 0.1)
    assert t.lo <= 0.38914 + 5e-6 and t.hi >= 0.38914 - 5e-6
    truth = mp_gauss_tpr(1, 0.1)
    assert t.lo <= truth <= t.hi and t.hi - t.lo < 1e-12
    fit = gdp_fit(f)
    assert fit.mu_lo <= 1.0 <= fit.mu_hi and fit.mu_hi - fit.mu_lo < 1e-12
    assert fit.gap_lo == 0.0 and fit.gap_hi < 1e-3 and not fit.far_tail
    assert "faithful" in fit.summary()


# ----------------------------------------------------------------------
# TPR at FPR
# ----------------------------------------------------------------------
@pytest.mark.parametrize("mu", [0.1, 1.0, 4.0, 20.0])
@pytest.mark.parametrize("a", [1e-300, 1e-100, 1e-12, 1e-3, 0.3, 0.9, 1 - 1e-9])
def test_tpr_gaussian_matches_mpmath(mu, a):
    t = tpr_at_fpr(fdp.Gaussian(mu), a)
    truth = mp_gauss_tpr(mu, a)
    assert t.lo <= truth <= t.hi
    assert a <= t.lo and t.hi <= 1.0
    # the upper side is accurate relative to the truth even where 1 − f(α) cancels
    assert t.hi <= truth * (1 + 1e-9) + 1e-15


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-5), (0.0, 0.1), (700.0, 1e-300), (5.0, 0.0)])
@pytest.mark.parametrize("a", [0.0, 1e-300, 1e-6, 0.1, 0.5, 1.0])
def test_tpr_eps_delta_closed_form(eps, delta, a):
    t = tpr_at_fpr(fdp.EpsDelta(eps, delta), a)
    truth = mp_epsdelta_tpr(eps, delta, a)
    assert t.lo <= truth <= t.hi
    assert t.hi - truth <= 1e-12 * truth + 1e-15


def test_tpr_vectorised_and_ends():
    f = fdp.Gaussian(1.0)
    t = tpr_at_fpr(f, np.array([0.0, 0.1, 1.0]))
    assert isinstance(t.lo, np.ndarray) and t.lo.shape == (3,)
    # TPR(0) = 0: the closed form's certified upper end is within a few subnormals of it
    assert t.lo[0] == 0.0 <= t.hi[0] <= 4 * 5e-324 and t.lo[2] == 1.0
    lo, hi = tpr_at_fpr(f, 0.1)            # unpacks as a pair
    assert lo <= hi and isinstance(lo, float)


def test_tpr_asymmetric_uses_worst_order():
    # f = p G_μ + (1 − p) Id (one direction of Poisson subsampling) is asymmetric
    mu, p, a = 2.0, 0.3, 0.05
    f = fdp.Gaussian(mu).subsample(p, direction="add")
    assert one_direction(f) == "add"
    # f(α) and f⁻¹(α) in mpmath: f(α) = pΦ(Φ⁻¹(1−α) − μ) + (1−p)(1−α)
    F = lambda x: p * mp_phi(-mp_phi_inv(x) - mu) + (1 - p) * (1 - x)
    f_a = F(mp.mpf(a))
    finv_a = mp.findroot(lambda x: F(x) - a, (mp.mpf("1e-6"), mp.mpf("0.999")),
                         solver="anderson")
    truth = 1 - min(f_a, finv_a)
    assert abs(finv_a - f_a) > 0.1          # asymmetric: the orders differ
    t = tpr_at_fpr(f, a)
    assert t.lo <= truth <= t.hi and t.hi - t.lo < 1e-9
    assert "one direction" in t.note


# ----------------------------------------------------------------------
# Bayes risk, success, advantage, reconstruction
# ----------------------------------------------------------------------
@pytest.mark.parametrize("mu", [0.0, 0.5, 1.0, 3.0, 30.0])
@pytest.mark.parametrize("prior", [1e-300, 1e-6, 0.1, 0.5, 0.9, 1 - 1e-9])
def test_bayes_risk_gaussian_mpmath(mu, prior):
    r = bayes_risk(fdp.Gaussian(mu), prior)
    truth = mp_gauss_risk(mu, prior)
    assert r.lo <= truth <= r.hi
    assert r.hi <= min(prior, 1 - prior)
    # relative where the risk is large; where it is π(1 − δ) with δ ≈ 1, the certified δ
    # bracket is a few ulps of 1 wide (32 u absolute)
    assert r.hi - r.lo <= 1e-12 * min(prior, 1 - prior) + 32 * 2.0 ** -53
    s = attack_success(fdp.Gaussian(mu), prior)
    assert s.lo <= 1 - truth <= s.hi and s.safe == s.hi


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-5), (3.0, 0.0), (0.0, 0.2)])
@pytest.mark.parametrize("prior", [0.01, 0.5, 0.8])
def test_bayes_risk_eps_delta_vertices(eps, delta, prior):
    # the objective is linear on each piece of f_{ε,δ}: its minimum is at a vertex
    e, d = mp.e ** eps, mp.mpf(delta)
    kink = (1 - d) / (1 + e)
    verts = [(0, 1 - d), (kink, mp_epsdelta_beta(eps, delta, kink)), (1 - d, 0), (1, 0)]
    truth = min((1 - mp.mpf(prior)) * a + prior * b for a, b in verts)
    r = bayes_risk(fdp.EpsDelta(eps, delta), prior)
    assert r.lo <= truth <= r.hi and r.hi - r.lo < 1e-12


def test_bayes_risk_asymmetric_both_orders():
    mu, p, prior = 2.0, 0.3, 0.2
    f = fdp.Gaussian(mu).subsample(p, direction="add")
    pr = mp.mpf(prior)

    def risk(pi):   # min_t (1 − π)Φ(−t) + π[pΦ(t − μ) + (1 − p)Φ(t)] by mpmath root finding
        obj = lambda t: (1 - pi) * mp_phi(-t) + pi * (p * mp_phi(t - mu) + (1 - p) * mp_phi(t))
        d = lambda t: -(1 - pi) * mp.npdf(t) + pi * (p * mp.npdf(t - mu) + (1 - p) * mp.npdf(t))
        grid = [mp.mpf(k) / 10 for k in range(-100, 101)]
        t0 = min(grid, key=obj)
        t = mp.findroot(d, t0)        # the stationary point next to the grid minimum
        return min(obj(t), obj(t0), pi, 1 - pi)   # or a limit t → ±∞

    truth = min(risk(pr), risk(1 - pr))
    r = bayes_risk(f, prior)
    assert r.lo <= truth <= r.hi and r.hi - r.lo < 1e-9


def test_bayes_prior_edges():
    assert tuple(bayes_risk(fdp.Gaussian(1.0), 0.0)) == (0.0, 0.0)
    assert tuple(attack_success(fdp.Gaussian(1.0), 1.0)) == (1.0, 1.0)
    assert tuple(bayes_risk(fdp.Identity(), 0.3)) == pytest.approx((0.3, 0.3))


def test_advantage_and_reconstruction_closed_forms():
    mu = 1.5
    adv = advantage_bounds(fdp.Gaussian(mu))
    truth = mp_phi(mu / 2) - mp_phi(-mu / 2)
    assert adv.lo <= truth <= adv.hi
    k = 1e-6
    rec = reconstruction_bound(fdp.Gaussian(mu), k)
    truth = mp_gauss_tpr(mu, k)
    assert k <= rec.lo <= truth <= rec.hi and rec.safe == rec.hi
    assert "reconstruction" in rec.note


def test_numeric_brackets_contain_closed_form():
    # composed numerically: the brackets must contain the exact G_1 values
    f = fdp.compose_numeric([(fdp.Gaussian(0.5), 4)])
    assert not f.is_exact
    t = tpr_at_fpr(f, 0.01)
    assert t.lo <= mp_gauss_tpr(1, 0.01) <= t.hi and t.lo < t.hi
    r = bayes_risk(f, 0.3)
    assert r.lo <= mp_gauss_risk(1, 0.3) <= r.hi
    a = advantage_bounds(f)
    assert a.lo <= mp_phi(0.5) - mp_phi(-0.5) <= a.hi


# ----------------------------------------------------------------------
# GDP μ bracket and fit gap
# ----------------------------------------------------------------------
def test_gdp_fit_pure_dp_exact_vertex():
    # f_{1,0}: μ* is attained at the kink α* = 1/(1 + e): Φ⁻¹(1 − α*) − Φ⁻¹(α*)
    a = 1 / (1 + mp.e)
    truth = -2 * mp_phi_inv(a)
    fit = gdp_fit(fdp.EpsDelta(1.0, 0.0))
    assert isinstance(fit, GdpFit)
    assert fit.mu_lo <= truth <= fit.mu_hi and fit.mu_hi - fit.mu_lo < 1e-9
    # the gap at α = 0: f(0) − G_μ*(0) = 0, at the kink 0; in between it is positive:
    # the gap at α = 0.1 is a lower bound for the sup
    g = mp_epsdelta_beta(1.0, 0.0, 0.1) - mp_phi(-mp_phi_inv(0.1) - truth)
    assert fit.gap_hi >= g and fit.gap_lo <= fit.gap_hi
    assert "μ*" in fit.summary()


def test_gdp_fit_edges():
    # ε = 700 pure DP: the kink α* = 1/(1 + e^700) ≈ 1e-304 sets μ* = −2Φ⁻¹(α*)
    truth = -2 * mp_phi_inv(1 / (1 + mp.e ** 700))
    fit = gdp_fit(fdp.EpsDelta(700.0, 0.0))
    assert fit.mu_lo <= truth <= fit.mu_hi and 0 <= fit.gap_lo <= fit.gap_hi <= 1
    fit = gdp_fit(fdp.Gaussian(50.0))
    assert (fit.mu_lo, fit.mu_hi, fit.gap_hi) == (50.0, 50.0, 0.0)
    fit = gdp_fit(fdp.Identity())
    assert fit.mu_lo == 0.0 and fit.mu_hi == 0.0


def test_numeric_one_direction_extreme_priors():
    f = fdp.compose_numeric([(fdp.Gaussian(1.0).subsample(0.2, direction="add"), 10)])
    assert one_direction(f) is not None
    for prior in (1e-300, 1e-12, 0.5, 1 - 1e-16):
        r = bayes_risk(f, prior)
        assert 0.0 <= r.lo <= r.hi <= min(prior, 1 - prior)
        assert "one direction" in r.note
    t = tpr_at_fpr(f, np.array([0.0, 1e-300, 0.5, 1.0]))
    assert np.all(t.lo <= t.hi) and np.all(t.hi <= 1.0) and t.lo[3] == 1.0
    fit = gdp_fit(f)      # composed add directions of q G_1: μ* = √10
    assert fit.mu_lo <= math.sqrt(10) <= fit.mu_hi


def test_gdp_fit_subsampled_gaussian_tail():
    # q G_μ + (1 − q) Id: μ* = μ (the far tail), although the bulk needs much less
    fit = gdp_fit(fdp.Gaussian(1.0).subsample(0.1, direction="add"))
    assert fit.mu_lo <= 1.0 <= fit.mu_hi and fit.far_tail and fit.bulk_mu < 0.7
    assert "far tail" in fit.summary()


def test_gdp_fit_no_finite_mu():
    fit = gdp_fit(fdp.EpsDelta(1.0, 1e-5))     # f(0) < 1: no G_μ below it
    assert fit.mu_lo == fit.mu_hi == math.inf and math.isnan(fit.gap_lo)
    assert "no finite μ" in fit.summary()
    # a curve whose far tail cannot be certified: a finite lower side, no upper side
    g = fdp.from_function(lambda a: fdp.Gaussian(1.0)(a))
    fit = gdp_fit(g)
    assert fit.mu_lo <= 1.0 and fit.mu_hi == math.inf
    assert "no finite upper bound" in fit.summary()


def test_gdp_shortfall_detects_violation():
    f = fdp.Gaussian(1.0)               # G_1 is 1.2-GDP but not 0.8-GDP
    short, at = gdp_shortfall(f, 0.8)
    assert short > 0.05
    # independent: at that α, G_0.8 − G_1 bounds the shortfall from above
    diff = mp_phi(-mp_phi_inv(mp.mpf(at)) - 0.8) - mp_phi(-mp_phi_inv(mp.mpf(at)) - 1)
    assert 0 < short <= diff
    assert gdp_shortfall(f, 1.0)[0] == 0.0 and gdp_shortfall(f, 1.2)[0] == 0.0


# ----------------------------------------------------------------------
# DP-SGD reference: σ = 9.4, q = 0.328, T = 2000 (gdpnum: μ = 1.5686, regret 0.00102)
# ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def dpsgd_ref():
    return fdp.dpsgd(9.4, 0.328, 2000)


def test_dpsgd_reference_mu(dpsgd_ref):
    f = dpsgd_ref
    fit = gdp_fit(f)
    # the true smallest μ is √T/σ: the all-sampled component (weight q^T) of the
    # composed add direction is G_{√T/σ}, which decides the far tail
    truth = math.sqrt(2000) / 9.4
    assert fit.mu_lo <= truth <= fit.mu_hi and fit.mu_hi - fit.mu_lo < 1e-9
    assert fit.far_tail and fit.gap_lo > 0.5
    # gdpnum's fitted μ = 1.5686 is below μ* and is not a GDP bound of the curve at all:
    # a certified violation where doubles resolve the curve
    assert fit.bulk_mu > 1.5686
    short, at = gdp_shortfall(f, 1.5686)
    assert short > 0
    g = mp_phi(-mp_phi_inv(mp.mpf(at)) - mp.mpf("1.5686"))
    assert g > f.bounds(at)[1]          # G_1.5686(α) above f's certified upper side
    text = "\n".join(risk_lines(f))
    assert "far tail" in text and "TPR at FPR 0.001" in text


# ----------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------
@pytest.mark.parametrize("call,name", [
    (lambda: tpr_at_fpr(fdp.Gaussian(1.0), -0.1), "fpr"),
    (lambda: tpr_at_fpr(fdp.Gaussian(1.0), [0.1, 1.5]), "fpr"),
    (lambda: tpr_at_fpr(fdp.Gaussian(1.0), float("nan")), "fpr"),
    (lambda: bayes_risk(fdp.Gaussian(1.0), 1.2), "prior"),
    (lambda: attack_success(fdp.Gaussian(1.0), -1e-9), "prior"),
    (lambda: reconstruction_bound(fdp.Gaussian(1.0), 2.0), "kappa"),
    (lambda: gdp_shortfall(fdp.Gaussian(1.0), -1.0), "mu"),
])
def test_bad_input_names_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_wrong_types():
    with pytest.raises(TypeError, match="f must be a TradeOff"):
        tpr_at_fpr(0.5, 0.1)
    with pytest.raises(TypeError):
        bayes_risk(fdp.Gaussian(1.0), "0.5")


def test_one_direction_labelled():
    f = fdp.Gaussian(1.0).subsample(0.2, direction="add")
    lines = risk_lines(f, fprs=(0.01,), kappas=())
    assert lines[0].startswith("note: f describes one direction (add)")
    assert one_direction(fdp.Gaussian(1.0)) is None
    assert one_direction(fdp.Gaussian(1.0).subsample(0.2, direction="remove")) == "remove"
    assert "one direction" in bayes_risk(f, 0.5).note


def test_bracket_value_object():
    b = Bracket(0.1, 0.2, safe_side="lo")
    assert b.safe == 0.1 and b.width == pytest.approx(0.1) and "0.1" in repr(b)
    assert b == Bracket(0.1, 0.2, safe_side="lo")


# ----------------------------------------------------------------------
# Properties over the edge ranges
# ----------------------------------------------------------------------
families = st.one_of(
    st.floats(0.0, 50.0).map(fdp.Gaussian),
    st.builds(fdp.EpsDelta, st.floats(0.0, 700.0),
              st.sampled_from([0.0, 1e-300, 1e-12, 1e-5, 0.1, 1.0])),
    st.floats(0.0, 30.0).map(fdp.Laplace),
)
probs = st.one_of(st.sampled_from([0.0, 1e-300, 1e-100, 0.5, 1.0 - 1e-12, 1.0]),
                  st.floats(0.0, 1.0))


@settings(max_examples=60)
@given(families, probs)
def test_property_tpr_in_range(f, a):
    t = tpr_at_fpr(f, a)
    assert a <= t.lo <= t.hi <= 1.0


@settings(max_examples=60)
@given(families, probs)
def test_property_bayes_risk_bounds(f, prior):
    r = bayes_risk(f, prior)
    assert 0.0 <= r.lo <= r.hi <= min(prior, 1.0 - prior)
    s = attack_success(f, prior)
    assert max(prior, 1 - prior) <= s.hi + 1e-15 and s.lo <= s.hi <= 1.0


@settings(max_examples=40)
@given(st.floats(0.0, 40.0), probs)
def test_property_gaussian_tpr_contains_truth(mu, a):
    t = tpr_at_fpr(fdp.Gaussian(mu), a)
    truth = mp_gauss_tpr(mu, a) if 0 < a < 1 else mp.mpf(a)
    truth = max(truth, mp.mpf(a))   # TPR ≥ FPR (f ≤ 1 − α); mpmath loses this for μ ≈ 1e-278
    assert t.lo <= truth <= t.hi


@settings(max_examples=30)
@given(st.floats(0.01, 30.0), st.floats(1e-6, 1 - 1e-6))
def test_property_gaussian_bayes_contains_truth(mu, prior):
    r = bayes_risk(fdp.Gaussian(mu), prior)
    assert r.lo <= mp_gauss_risk(mu, prior) <= r.hi


@settings(max_examples=25)
@given(st.one_of(pairs(), st.floats(0.0, 40.0).map(fdp.Gaussian),
                 st.builds(fdp.EpsDelta, st.floats(0.0, 700.0), st.just(0.0))))
def test_property_gdp_bracket_ordered_and_consistent(f):
    fit = gdp_fit(f)
    assert fit.mu_lo <= fit.mu_hi
    if math.isfinite(fit.mu_hi):
        assert 0.0 <= fit.gap_lo <= fit.gap_hi <= 1.0
        # no violation of G_μ can be found above the certified upper side
        assert gdp_shortfall(f, fit.mu_hi)[0] == 0.0


def test_one_direction_typed_field():
    class Dummy:
        directions = "one"

    class Both:
        directions = "both"

    # read from the typed field only (never from the repr text)
    assert one_direction(Dummy()) == "one"
    assert one_direction(Both()) is None
