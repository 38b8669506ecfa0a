"""Certified GDP μ and pure ε of numeric results (brackets lo ≤ truth ≤ hi).

Independent truths:
* pure ε of Laplace / pure-DP compositions: the privacy loss is a sum of the
  factors' losses, each in [−μ_i, μ_i] with atoms at ±μ_i, so ε* = Σ μ_i (closed form);
* Gaussians through the engine: ⊗ G_{μ_i} = G_{√Σμ_i²} (DRS Cor 3.3);
* DP-SGD: μ* = √T·s/σ (the all-sampled component dominates the far tail; see
  ``fdp.engine.summaries``), written out here;
* pure-DP and randomized-response compositions: the exact finite-pair composition
  (``fdp.compose`` on the pairs, piecewise linear, exact vertex formula);
* the GDP profile δ_μ(ε) against mpmath at 50 digits.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.engine import compose_numeric
from fdp.engine.summaries import log_delta_gdp, mu_needed


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath at 50 digits for this module's reference values (restored afterwards)."""
    with mp.workdps(50):
        yield


def exact_log_delta(mu, eps):
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    d = mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2)
    return mp.log(d) if d > 0 else -mp.inf


# ---------------------------------------------------------------- the examples
def test_laplace_square_pure_epsilon_is_one():
    lo, hi = (fdp.Laplace(0.5) ** 2)._pure_epsilon_bounds()
    assert lo <= 1.0 <= hi and hi - lo < 1e-9


def test_dpsgd_gdp_mu_is_finite_and_exact():
    f = fdp.dpsgd(1.1, 256 / 60000, 14060)
    lo, hi = f._gdp_mu_bounds()
    truth = math.sqrt(14060) / 1.1
    assert lo <= truth <= hi and hi - lo <= 1e-12 * truth
    assert f._pure_epsilon_bounds() == (math.inf, math.inf)


def test_laplace_at_gaussian_dominates_gaussian_one():
    h = fdp.Laplace(0.1) @ fdp.Gaussian(0.1)
    lo, hi = h._gdp_mu_bounds()
    assert 0.1 <= lo <= hi < 1.0          # h ≤ G_0.1 (composition only adds loss)
    a = np.concatenate([np.logspace(-12, -1, 30), np.linspace(0.1, 1.0, 50)])
    assert np.all(h.bounds(a)[1] >= fdp.Gaussian(hi)(a) - 1e-12)


def test_gaussians_through_the_engine_contain_sqrt_two():
    r = compose_numeric([(fdp.Gaussian(1.0), 2)])
    lo, hi = r._gdp_mu_bounds()
    assert lo <= math.sqrt(2.0) <= hi and hi - lo < 1e-12
    assert r._pure_epsilon_bounds() == (math.inf, math.inf)


def test_hooks_feed_the_public_summaries_when_present():
    r = fdp.Laplace(0.5) ** 2
    if not hasattr(fdp.TradeOff, "_pure_epsilon_bounds"):
        pytest.skip("TradeOff summary hooks not merged yet")
    assert r.pure_epsilon() == r._pure_epsilon_bounds()[1]
    assert r.gdp_mu() == r._gdp_mu_bounds()[1]


# ---------------------------------------------------------------- exact compositions
def test_pure_dp_composition_against_the_exact_pair():
    eps = [0.1, 0.2, 0.3, 0.4, 0.5]
    r = compose_numeric([(fdp.EpsDelta(e), 1) for e in eps])
    exact = fdp.compose(*[fdp.EpsDelta(e) for e in eps])
    lo, hi = r._pure_epsilon_bounds()
    assert lo <= sum(eps) <= hi and hi - lo < 1e-9
    lo, hi = r._gdp_mu_bounds()
    assert lo <= exact.gdp_mu() <= hi and hi - lo < 1e-4


def test_randomized_response_against_the_exact_pair():
    r = compose_numeric([(fdp.RandomizedResponse(1.0, 3), 3)])
    exact = fdp.compose(*[fdp.RandomizedResponse(1.0, 3)] * 3)
    lo, hi = r._gdp_mu_bounds()
    assert lo <= exact.gdp_mu() <= hi and hi - lo < 1e-3
    lo, hi = r._pure_epsilon_bounds()
    # three steps of pure ε = 1; the exact pair's own read-out may round one ulp up
    assert lo <= 3.0 <= hi and exact.pure_epsilon() == pytest.approx(3.0, rel=1e-15)


def test_positive_delta_makes_both_infinite():
    r = compose_numeric([(fdp.EpsDelta(0.5, 1e-6), 3)])
    assert r._gdp_mu_bounds() == (math.inf, math.inf)
    assert r._pure_epsilon_bounds() == (math.inf, math.inf)


def test_without_replacement_dpsgd_uses_the_assumed_sensitivity():
    f = fdp.dpsgd(1.0, 0.05, 30, sampling="without_replacement", neighbouring="replace_one")
    lo, hi = f._gdp_mu_bounds()
    assert lo <= 2.0 * math.sqrt(30) <= hi and hi - lo < 1e-12


def test_piecewise_linear_power():
    p = fdp.from_points([0.1, 0.3], [0.5, 0.2])
    r = p ** 2
    lo, hi = r._pure_epsilon_bounds()
    assert lo <= 2 * p.pure_epsilon() <= hi           # ±ε atoms add up
    lo, hi = r._gdp_mu_bounds()
    assert lo <= hi <= math.sqrt(2) * p.gdp_mu() * (1 + 1e-12)
    a = np.linspace(0.0, 1.0, 201)
    assert np.all(r.bounds(a)[1] >= fdp.Gaussian(hi)(a) - 1e-12)


@settings(max_examples=4)
@given(st.lists(st.floats(0.05, 1.5), min_size=1, max_size=3))
def test_laplace_compositions_property(mus):
    r = compose_numeric([(fdp.Laplace(m), 1) for m in mus], tol=1e-3)
    lo, hi = r._pure_epsilon_bounds()
    assert lo <= sum(mus) <= hi
    mlo, mhi = r._gdp_mu_bounds()
    assert 0.0 <= mlo <= mhi < math.inf
    # f ≥ G_{μ_hi} is certified: the (upper) curve must lie above it
    a = np.concatenate([np.logspace(-10, -1, 20), np.linspace(0.1, 1.0, 40)])
    assert np.all(r.bounds(a)[1] >= fdp.Gaussian(mhi)(a) - 1e-12)


@settings(max_examples=6)
@given(st.lists(st.floats(0.05, 2.0), min_size=1, max_size=4))
def test_pure_dp_compositions_property(eps):
    r = compose_numeric([(fdp.EpsDelta(e), 1) for e in eps], tol=1e-3)
    exact = fdp.compose(*[fdp.EpsDelta(e) for e in eps]) if len(eps) > 1 else fdp.EpsDelta(eps[0])
    lo, hi = r._pure_epsilon_bounds()
    assert lo <= sum(eps) <= hi
    mlo, mhi = r._gdp_mu_bounds()
    assert mlo <= exact.gdp_mu() <= mhi


# ---------------------------------------------------------------- the GDP profile
@pytest.mark.parametrize("mu,eps", [(1.0, 0.0), (1.0, 5.0), (0.01, 0.001), (1e-6, 1e-7),
                                    (30.0, 700.0), (1.0, 700.0), (200.0, 20000.0),
                                    (0.5, 40.0), (5.0, 1e-300)])
def test_log_delta_gdp_brackets_mpmath(mu, eps):
    truth = exact_log_delta(mu, eps)
    lo = float(log_delta_gdp(mu, eps, -1))
    hi = float(log_delta_gdp(mu, eps, +1))
    assert lo <= truth <= hi
    assert hi - lo < 1e-6 * max(1.0, abs(float(truth)))


@settings(max_examples=40)
@given(st.floats(0.0, 700.0), st.floats(-700.0, -1e-3))
def test_mu_needed_is_on_the_safe_side(eps, log_d):
    up = float(mu_needed(np.array([eps]), log_d, +1)[0])
    down = float(mu_needed(np.array([eps]), log_d, -1)[0])
    assert down <= up
    if math.isfinite(up) and up > 1e-17:
        assert exact_log_delta(up, eps) >= log_d
    if down > 1e-17:
        assert exact_log_delta(down, eps) < log_d


# ---------------------------------------------------------------- documented bracket widths
ALPHAS = np.unique(np.concatenate([np.linspace(0.0, 1.0, 1001), np.logspace(-8, -1, 80)]))
_RNG_EPS = [0.0303, 0.2906, 0.1488, 0.2535, 0.0839, 0.1145, 0.2247, 0.0615, 0.2768, 0.1871,
            0.0467, 0.2012, 0.1333, 0.2641, 0.0974, 0.1719, 0.0212, 0.2377, 0.1566, 0.0711,
            0.2199, 0.1067]

CONTINUOUS = {      # privacy losses without point masses off the grid: width ≤ tol/3
    "dpsgd": lambda tol: fdp.dpsgd(1.1, 256 / 60000, 14060, tol=tol),
    "dpsgd small sigma": lambda tol: fdp.dpsgd(0.7, 0.01, 1000, tol=tol),
    "dpsgd replace-one": lambda tol: fdp.dpsgd(1.0, 0.01, 500, sampling="without_replacement",
                                               neighbouring="replace_one", tol=tol),
    "gaussians": lambda tol: compose_numeric([(fdp.Gaussian(0.1), 100)], tol=tol),
    "laplace power": lambda tol: compose_numeric([(fdp.Laplace(0.1), 100)], tol=tol),
    "laplace square": lambda tol: compose_numeric([(fdp.Laplace(0.5), 2)], tol=tol),
    "laplace and gaussian": lambda tol: compose_numeric([(fdp.Laplace(1.0), 1),
                                                         (fdp.Gaussian(1.0), 1)], tol=tol),
}
ATOMS = {           # point masses off the grid: width ≤ one grid step Δ ≈ 0.6 √tol
    "two laplaces": lambda tol: compose_numeric([(fdp.Laplace(0.3), 1), (fdp.Laplace(0.7), 1)],
                                                tol=tol),
    "points squared": lambda tol: compose_numeric(
        [(fdp.from_points([0.1, 0.3], [0.5, 0.2]), 2)], tol=tol),
    "points power": lambda tol: compose_numeric(
        [(fdp.from_points([0.1, 0.3], [0.5, 0.2]), 10)], tol=tol),
    "22 distinct eps": lambda tol: compose_numeric([(fdp.EpsDelta(e), 1) for e in _RNG_EPS],
                                                   tol=tol),
    "randomized responses": lambda tol: compose_numeric(
        [(fdp.RandomizedResponse(1.0), 3), (fdp.RandomizedResponse(0.7), 1)], tol=tol),
}


@pytest.mark.parametrize("tol", [1e-3, 1e-4])
@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_beta_bracket_width_continuous_losses(name, tol):
    f = CONTINUOUS[name](tol)
    lo, hi = f.bounds(ALPHAS)
    assert np.all(lo <= hi)
    assert float(np.max(hi - lo)) <= tol / 3


@pytest.mark.parametrize("tol", [1e-3, 1e-4])
@pytest.mark.parametrize("name", sorted(ATOMS))
def test_beta_bracket_width_off_grid_atoms(name, tol):
    f = ATOMS[name](tol)
    lo, hi = f.bounds(ALPHAS)
    assert np.all(lo <= hi)
    width = float(np.max(hi - lo))
    assert width <= f.step and width <= math.sqrt(tol)


def laplace_mu_star(b):
    """sup_α Φ⁻¹(1 − α) − Φ⁻¹(f(α)) for the Laplace curve (DRS Appendix A), mpmath."""
    b = mp.mpf(b)

    def f(a):
        if a <= mp.e ** (-b) / 2:
            return 1 - mp.e ** b * a
        if a <= mp.mpf(1) / 2:
            return mp.e ** (-b) / (4 * a)
        return mp.e ** (-b) * (1 - a)

    def g(t):                                   # α = Φ(−t): Φ⁻¹(1 − α) = t
        a = mp.ncdf(-t)
        return t - mp.sqrt(2) * mp.erfinv(2 * f(a) - 1)
    ts = [mp.mpf(-6) + mp.mpf(12) * k / 600 for k in range(601)]
    t0 = max(ts, key=g)
    lo, hi = t0 - mp.mpf(12) / 600, t0 + mp.mpf(12) / 600
    for _ in range(80):                         # golden section on the concave-enough peak
        m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if g(m1) < g(m2):
            lo = m1
        else:
            hi = m2
    return float(g((lo + hi) / 2))


@pytest.mark.parametrize("b", [0.3, 1.0, 2.5])
@pytest.mark.slow
def test_single_laplace_against_mpmath(b):
    truth = laplace_mu_star(b)
    lo, hi = compose_numeric([(fdp.Laplace(b), 1)])._gdp_mu_bounds()
    assert lo <= truth <= hi and hi - lo < 1e-3 * truth


def test_laplace_power_bracket_is_tight():
    # f = f⁻¹ for a composition of symmetric factors: one direction suffices
    lo, hi = (fdp.Laplace(1.0) ** 50)._gdp_mu_bounds()
    assert 0 < lo <= hi and hi - lo < 1e-4 * hi
