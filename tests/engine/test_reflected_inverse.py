"""The remove direction from reflections: ``inverse_parts(..., reflect_both=True)``.

Both sides of f⁻¹ are the reflections of f's lattices when what they add is at most
``REFLECT_SLACK_CAP`` per factor: the pessimistic +∞ atom, the optimistic side's
certified slack (``lattice._reflection_cut``, from the long double sums of
``tail_sum_bounds``). Checked here against exact rational sums, high-precision
evaluation of the excess, quadrature of the remove direction's privacy profile, and
the Gaussian closed form under composition; the fallback to direct discretisation
is checked on both branches.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import norm

import fdp
from fdp._constants import REFLECT_SLACK_CAP
from fdp.engine import composition, pipeline
from fdp.engine.composition import compose_add_remove
from fdp.engine.discretise import discretise
from fdp.engine.lattice import OPTIMISTIC, _reflection_cut, reflect, tail_sum_bounds
from fdp.engine.pipeline import discretise_groups, inverse_parts
from fdp.operations.subsample import PoissonAdd

FACTOR = PoissonAdd(fdp.Gaussian(1.0), 256 / 60000)
STEP = 2.5e-4


# ----------------------------------------------------------------------
# tail_sum_bounds: a certified bracket of an exact sum
# ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0, allow_subnormal=False),
                min_size=0, max_size=400),
       st.integers(min_value=-300, max_value=0))
def test_tail_sum_bounds_bracket_the_exact_sum(values, scale):
    x = np.array(values, dtype=float) * 10.0 ** scale
    exact = sum((Fraction(float(v)) for v in x), Fraction(0))
    lo, hi = tail_sum_bounds(x)
    assert Fraction(lo) <= exact <= Fraction(hi)
    # and the bracket is tight: a few hundred long double u of the sum at most
    assert hi - lo <= (2 * x.size + 16) * 2.0 ** -52 * float(exact) + 1e-320


def test_tail_sum_bounds_on_many_terms_is_tight_and_valid():
    x = np.random.default_rng(3).random(20_000) ** 6
    exact = math.fsum(x)                      # correctly rounded
    lo, hi = tail_sum_bounds(x)
    assert lo <= exact * (1 + 2.0 ** -52) and exact * (1 - 2.0 ** -52) <= hi
    assert (hi - lo) / exact < 1e-13


# ----------------------------------------------------------------------
# the reflection's cut and its certified excess
# ----------------------------------------------------------------------
def _mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def _exact_excess(L, q, p, q_inf, j):
    """max(0, P_j − 1 + e^{−l_j} max(0, 1 − Q_j)) at 60 digits (sums exact)."""
    with mpmath.workdps(60):
        P = _mp(sum((Fraction(float(v)) for v in p[j:]), Fraction(0)))
        Q = _mp(sum((Fraction(float(v)) for v in q[j:]), Fraction(0))) + q_inf
        short = max(mpmath.mpf(1) - Q, 0)
        return max(P - 1 + mpmath.e ** (-mpmath.mpf(float(L[j]))) * short, 0)


@pytest.mark.parametrize("f, step", [
    (FACTOR, STEP),
    (PoissonAdd(fdp.Gaussian(2.0), 0.5), 1e-3),
    (PoissonAdd(fdp.Laplace(1.0), 0.3), 1e-3),
    (fdp.Laplace(1.0), 1e-3),
])
def test_reflection_cut_certifies_the_exact_excess(f, step):
    _, lo = discretise(f, step)
    L, q = lo.losses, lo.q
    live = q > 0
    log_p = np.log(np.where(live, q, 1.0)) - L
    p = np.where(live, np.exp(log_p) * (1.0 + 8.0 * 2.0 ** -53 * (np.abs(log_p) + 2)), 0.0)
    j, s = _reflection_cut(L, q, p, lo.q_inf)
    exact = _exact_excess(L, q, p, lo.q_inf, j)
    assert exact <= s                                  # certified
    assert s - exact <= 1e-14                          # and not loose
    # the dropped atoms carry less P-mass than the excess they could save
    assert math.fsum(p[:j]) <= s + 1e-300


def test_reflection_cut_of_a_lattice_without_finite_mass():
    # all Q-mass lost: the reflection's excess is e^{−l_j} − 1 at the cut, 1.718 at
    # j = 0 (l = −1), none from l_j = 0 on; the cut goes to the top, certified
    L = np.linspace(-1.0, 1.0, 5)
    z = np.zeros(5)
    assert _exact_excess(L, z, z, 0.0, 0) > 1.7
    j, s = _reflection_cut(L, z, z, 0.0)
    assert j == 4 and _exact_excess(L, z, z, 0.0, j) <= s <= 1e-14


# ----------------------------------------------------------------------
# inverse_parts(reflect_both=True): which lattices, and what they bound
# ----------------------------------------------------------------------
def test_reflected_parts_are_the_reflections_within_the_cap():
    add = discretise_groups([(FACTOR, 3)], STEP)
    (rp, ro, n), = inverse_parts([(FACTOR, 3)], add, reflect_both=True)
    lp, lo, _ = add[0]
    want_p, want_o = reflect(lp), reflect(lo)
    assert n == 3
    for got, want in ((rp, want_p), (ro, want_o)):
        assert (got.k0, got.q_inf, got.slack) == (want.k0, want.q_inf, want.slack)
        np.testing.assert_array_equal(got.q, want.q)
    # the +∞ atom is the law's P-mass beyond its grid (over NEGLIGIBLE_P_MASS, so the
    # default path discretises f⁻¹ again), the slack a few u: both under the cap
    assert 1e-30 < rp.q_inf <= REFLECT_SLACK_CAP
    assert 0.0 < ro.slack <= REFLECT_SLACK_CAP
    (dp, do, _), = inverse_parts([(FACTOR, 3)], add)
    assert dp.q_inf == 0.0 and do.slack == 0.0


def test_over_the_cap_the_inverse_is_discretised(monkeypatch):
    add = discretise_groups([(FACTOR, 1)], STEP)
    inv = FACTOR.inverse()
    direct_p, direct_o = discretise(inv, STEP)
    # the pessimistic reflection's +∞ atom over the cap: both sides direct
    monkeypatch.setattr(pipeline, "REFLECT_SLACK_CAP", 1e-40)
    (rp, ro, _), = inverse_parts([(FACTOR, 1)], add, reflect_both=True)
    np.testing.assert_array_equal(rp.q, direct_p.q)
    np.testing.assert_array_equal(ro.q, direct_o.q)
    # only the optimistic slack over the cap: the pessimistic side stays reflected
    monkeypatch.setattr(pipeline, "REFLECT_SLACK_CAP", 1e-20)
    (rp, ro, _), = inverse_parts([(FACTOR, 1)], add, reflect_both=True)
    np.testing.assert_array_equal(rp.q, reflect(add[0][0]).q)
    np.testing.assert_array_equal(ro.q, discretise(inv, STEP, OPTIMISTIC).q)
    assert ro.slack == 0.0


def _remove_delta(mu: float, q: float, eps: float) -> float:
    """δ(ε) of the remove direction T((1 − q)N(0,1) + qN(μ,1), N(0,1)) by quadrature:
    ∫ (φ(x) − e^ε((1 − q)φ(x) + qφ(x − μ)))₊ dx, the integrand positive where x < c."""
    a = 1.0 - math.exp(eps) * (1.0 - q)
    if a <= 0.0:
        return 0.0
    # φ(x)·a > e^ε q φ(x − μ)  ⇔  x < c
    c = (math.log(a / (math.exp(eps) * q)) + mu * mu / 2.0) / mu
    val, _ = integrate.quad(lambda x: a * norm.pdf(x) - math.exp(eps) * q * norm.pdf(x - mu),
                            -40.0, c, epsabs=1e-15, epsrel=1e-12, limit=200)
    return max(val, 0.0)


@pytest.mark.parametrize("mu, q", [(1.0, 256 / 60000), (2.0, 0.5), (0.5, 0.1)])
def test_reflected_remove_lattices_bracket_the_remove_profile(mu, q):
    f = PoissonAdd(fdp.Gaussian(mu), q)
    step = 2e-3
    add = discretise_groups([(f, 1)], step)
    (rp, ro, _), = inverse_parts([(f, 1)], add, reflect_both=True)
    assert ro.slack > 0.0                               # the reflected optimistic side
    eps = np.concatenate([np.linspace(-0.5, 3.0, 36), step * np.arange(-40, 41, 9)])
    truth = np.array([_remove_delta(mu, q, float(e)) for e in eps])
    assert np.all(rp.delta_raw(eps) + rp.slack >= truth - 1e-12)
    assert np.all(ro.delta_raw(eps) - ro.slack <= truth + 1e-12)
    assert np.max(rp.delta_raw(eps) - ro.delta_raw(eps)) <= 0.02


def test_composed_reflected_remove_direction_brackets_the_gaussian_closed_form(monkeypatch):
    # PoissonAdd(G_μ, 1) is G_μ as a pair, kept as a one-direction object: its inverse is
    # reflected; ⊗ G_{μ_i} = G_{√Σμ_i²} (DRS 2022, Cor 3.3) in both directions
    monkeypatch.setattr(composition, "PROCESS_LANE", False)
    mus = np.linspace(0.05, 0.3, 40)
    groups = [(PoissonAdd(fdp.Gaussian(float(m)), 1.0), 1) for m in mus]
    assert all(f.inverse() is not f for f, _ in groups)
    (ap, ao), (rp, ro) = compose_add_remove(groups, 2e-3)
    assert ro.slack > 0.0
    g = fdp.Gaussian(float(np.sqrt(np.sum(mus ** 2))))
    eps = np.array([0.0, 0.25, 0.5, 1.0, 2.0, 3.0])
    truth = g.delta(eps)
    for pess, opt in ((ap, ao), (rp, ro)):
        hi = pess.delta_raw(eps) + pess.slack + pess.readback
        lo = opt.delta_raw(eps) - opt.slack - opt.readback
        assert np.all(lo <= truth) and np.all(truth <= hi)
        assert np.max(hi - lo) <= 2e-3


def test_distinct_steps_answer_as_with_direct_inverses(monkeypatch):
    # pessimistic: the reflection is connect-the-dots of f⁻¹ itself (same δ up to
    # round-off); optimistic: the reflected contraction is a different valid one,
    # looser by a relative ~1e-4 of δ at most here — both certified brackets overlap
    monkeypatch.setattr(composition, "PROCESS_LANE", False)
    sigmas = np.linspace(0.8, 1.4, 30)
    groups = [(PoissonAdd(fdp.Gaussian(1.0 / s), 0.02), 5) for s in sigmas]
    (_, _), (rp, ro) = compose_add_remove(groups, 1e-3)
    rem = pipeline.cropped(inverse_parts(groups, discretise_groups(groups, 1e-3)))
    dp, do = pipeline.combine_parts(rem)
    eps = np.linspace(0.0, 4.0, 41)
    hi_r = rp.delta_raw(eps) + rp.slack + rp.readback
    lo_r = np.maximum(ro.delta_raw(eps) - ro.slack - ro.readback, 0.0)
    hi_d = dp.delta_raw(eps) + dp.slack + dp.readback
    lo_d = np.maximum(do.delta_raw(eps) - do.slack - do.readback, 0.0)
    # two certified brackets of the same truth overlap, and agree to the grid's accuracy
    assert np.all(lo_r <= hi_d) and np.all(lo_d <= hi_r)
    np.testing.assert_allclose(hi_r, hi_d, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(lo_r, lo_d, rtol=1e-3, atol=1e-12)


# ----------------------------------------------------------------------
# edges, through the public API (no warning may be raised)
# ----------------------------------------------------------------------
@pytest.mark.filterwarnings("error")
def test_full_sampling_at_tiny_sigma_brackets_the_gaussian_closed_form(monkeypatch):
    # q = 1: every step sees the record, ⊗ G_{1/σ_i} = G_{√Σσ_i⁻²} (DRS 2022, Cor 3.3)
    monkeypatch.setattr(composition, "PROCESS_LANE", False)
    sigmas = np.array([0.3, 0.35, 0.4])
    f = fdp.dpsgd(sigmas, 1.0, sigmas.size)
    g = fdp.Gaussian(float(np.sqrt(np.sum(sigmas ** -2.0))))
    eps = np.array([0.0, 5.0, 20.0, 60.0, 700.0])
    lo, hi = f.delta_bounds(eps)
    g_lo, truth = g.delta_bounds(eps)          # the closed form: a bracket of its rounding
    assert np.all(lo <= truth) and np.all(g_lo <= hi)
    assert np.all(hi - lo <= 1e-3 * np.maximum(truth, 1e-9))
    assert hi[-1] <= 1e-12                     # ε = 700: only the round-off floor left
    e_lo, e_hi = f.epsilon_bounds(1e-5)
    assert e_lo <= float(g.epsilon(1e-5)) <= e_hi


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("sigmas, q", [([0.3, 0.35, 0.4], 0.0), ([200.0, 300.0], 1e-12)])
def test_no_or_negligible_sampling_gives_nearly_perfect_privacy(sigmas, q, monkeypatch):
    # q = 0: the output ignores the record (δ(ε) = 0 for ε ≥ 0); q = 1e-12 at σ = 200:
    # δ(0) ≤ q·TV(G_{1/σ}) per step, ≤ 1e-12 in all
    monkeypatch.setattr(composition, "PROCESS_LANE", False)
    f = fdp.dpsgd(np.array(sigmas), q, len(sigmas))
    lo, hi = f.delta_bounds(np.array([0.0, 1.0, 700.0]))
    assert np.all(lo >= 0.0) and np.all(lo <= hi)
    assert np.all(hi <= 1e-10)
    b_lo, b_hi = f.bounds(np.array([1e-300, 0.5]))
    assert np.all(b_lo <= b_hi) and b_hi[0] <= 1.0 and b_lo[1] >= 0.5 - 1e-10
