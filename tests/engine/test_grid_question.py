"""The question-sized default grid (``fdp.dpsgd`` without tol) and explicit tol.

At the default settings the ε(δ) bracket must contain the truth and be at most
1e-3·max(ε, 0.01) wide, also at large ε; an explicit tol keeps its grid step; ``width=``
still meets its width. Truths: the closed form of G_μ (q = 1: T Gaussian steps are
G_{√T/σ}, DRS Cor 3.3), the exact binomial privacy profile of an (ε, 0)-DP power in
mpmath, and dp_accounting at a 10× finer grid than its default (values recorded
below, recomputed live in the slow test).
"""

from __future__ import annotations

import dataclasses

import mpmath
import numpy as np
import pytest

import fdp
from fdp.engine import compose_numeric
from fdp.engine.grid import (
    DEFAULT_TOL,
    QUESTION_EPS_FLOOR,
    QUESTION_REL_WIDTH,
    QUESTION_TOL,
    choose_step,
)
from fdp.operations.subsample import PoissonAdd

DELTA = 1e-5

# dp_accounting 0.4 PLDAccountant(value_discretization_interval=1e-5), Poisson-sampled
# Gaussian, T steps, ε at δ = 1e-5: its pessimistic estimate (an upper bound on the
# truth up to its own float error; at its default grid 1e-4 it gives 1.97797495,
# 39.88008824, 10.05365875, so the fine grid is within ≈ 2e-5 of the truth).
DPA_FINE = {
    (256 / 60000, 1.1, 10 ** 4): 1.9779031863254277,
    (0.1, 0.8, 10 ** 3): 39.8800869149505,
    (0.01, 0.8, 10 ** 4): 10.053635022497197,
}


def _check_contains(lo, hi, ref, slack):
    """lo ≤ ref (an upper estimate of the truth) and hi ≥ ref − slack."""
    assert lo <= ref
    assert hi >= ref - slack


@pytest.mark.parametrize("case", sorted(DPA_FINE))
def test_default_dpsgd_against_dp_accounting_fine(case):
    q, sigma, steps = case
    ref = DPA_FINE[case]
    f = fdp.dpsgd(sigma, q, steps)
    lo, hi = f.epsilon_bounds(DELTA)
    _check_contains(lo, hi, ref, 3e-5 * max(1.0, ref))
    assert hi - lo <= QUESTION_REL_WIDTH * max(QUESTION_EPS_FLOOR, hi)
    assert f.tol == QUESTION_TOL


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(DPA_FINE))
def test_dp_accounting_fine_values_live(case):
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    pld = pytest.importorskip("dp_accounting.pld.pld_privacy_accountant")
    q, sigma, steps = case
    acc = pld.PLDAccountant(value_discretization_interval=1e-5)
    acc.compose(dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps))
    assert acc.get_epsilon(DELTA) == pytest.approx(DPA_FINE[case], rel=1e-9)


@pytest.mark.parametrize("sigma, steps", [(1.0, 100), (0.5, 100), (0.2, 50)])
def test_default_dpsgd_full_batch_is_gaussian(sigma, steps):
    # q = 1: T full-batch steps compose to G_{√T/σ} exactly (ε up to ~1400)
    truth = fdp.Gaussian(np.sqrt(steps) / sigma).epsilon(DELTA)
    lo, hi = fdp.dpsgd(sigma, 1.0, steps).epsilon_bounds(DELTA)
    assert lo <= truth <= hi
    assert hi - lo <= QUESTION_REL_WIDTH * max(QUESTION_EPS_FLOOR, truth)


def _eps_delta_power_profile(eps0: float, k: int, eps: float) -> mpmath.mpf:
    """δ(ε) of (ε0, 0)-DP composed k times, exactly: the loss is ε0(2j − k) with
    Q-mass C(k, j) p^j (1 − p)^{k−j}, p = e^{ε0}/(1 + e^{ε0}); δ = Σ (q_l − e^ε p_l)₊."""
    mpmath.mp.dps = 50
    e0 = mpmath.mpf(eps0)
    p = mpmath.exp(e0) / (1 + mpmath.exp(e0))
    total = mpmath.mpf(0)
    for j in range(k + 1):
        loss = e0 * (2 * j - k)
        qm = mpmath.binomial(k, j) * p ** j * (1 - p) ** (k - j)
        total += max(qm * (1 - mpmath.exp(mpmath.mpf(eps) - loss)), 0)
    return total


@pytest.mark.parametrize("eps0, k", [(1.0, 200), (0.5, 400)])
def test_default_eps_delta_power_contains_exact(eps0, k):
    lo, hi = compose_numeric([(fdp.EpsDelta(eps0), k)]).epsilon_bounds(DELTA)
    # δ is decreasing in ε: the true ε(δ) is in [lo, hi] iff δ(lo) ≥ δ ≥ δ(hi)
    assert _eps_delta_power_profile(eps0, k, lo) >= DELTA
    assert _eps_delta_power_profile(eps0, k, hi) <= DELTA
    assert hi - lo <= 1e-3 * hi and hi > 20.0


def test_explicit_tol_keeps_its_step():
    # the steps choose_step gave before the question-sized default (recorded)
    for (sigma, q, steps, tol), step in {
            (1.1, 256 / 60000, 10 ** 4, 1e-4): 6.287663683394478e-05,
            (2.0, 0.01, 10 ** 5, 1e-4): 5.336784490047175e-05,
            (0.8, 0.1, 10 ** 3, 1e-3): 0.0031365493581930414,
            (1.1, 256 / 60000, 10 ** 7, 1e-4): 0.00014706268443218486}.items():
        groups = [(PoissonAdd(fdp.Gaussian(1.0 / sigma), q), steps)]
        assert choose_step(groups, tol)[0] == pytest.approx(step, rel=1e-12)
    f = fdp.dpsgd(1.1, 256 / 60000, 10 ** 4, tol=DEFAULT_TOL)
    assert f.step == pytest.approx(6.287663683394478e-05, rel=1e-12)
    assert f.tol == DEFAULT_TOL and f.eps_width is None


def test_default_grid_is_coarser_than_explicit_default_tol():
    default = fdp.dpsgd(2.0, 256 / 60000, 10 ** 4)
    explicit = fdp.dpsgd(2.0, 256 / 60000, 10 ** 4, tol=DEFAULT_TOL)
    assert default.step > 2.0 * explicit.step
    lo, hi = default.epsilon_bounds(DELTA)
    e_lo, e_hi = explicit.epsilon_bounds(DELTA)
    assert max(lo, e_lo) <= min(hi, e_hi)          # both certified: they overlap


def test_default_beta_bracket_is_that_of_question_tol():
    # the documented statement for β at the default: ≤ tol/3 with tol = QUESTION_TOL
    alphas = np.unique(np.concatenate([np.linspace(0.0, 1.0, 501), np.logspace(-8, -1, 40)]))
    f = fdp.dpsgd(1.1, 256 / 60000, 14060)
    lo, hi = f.bounds(alphas)
    assert np.all(lo <= hi)
    assert float(np.max(hi - lo)) <= f.tol / 3 and f.tol == QUESTION_TOL


def test_default_refines_when_the_grid_misses_the_target():
    f = fdp.dpsgd(1.1, 256 / 60000, 10 ** 4)
    lo, hi = f.epsilon_bounds(DELTA)
    strict = dataclasses.replace(f, eps_width=2e-5)   # the same grid, a stricter question
    s_lo, s_hi = strict.epsilon_bounds(DELTA)
    assert s_hi - s_lo <= 2e-5 * max(1.0, s_hi) < hi - lo
    ref = DPA_FINE[(256 / 60000, 1.1, 10 ** 4)]
    _check_contains(s_lo, s_hi, ref, 3e-5)


def test_width_refinement_meets_its_width_from_the_default():
    f = fdp.dpsgd(2.0, 0.01, 1000)
    lo, hi = f.epsilon_bounds([1e-5, 1e-6], width=1e-5)
    assert np.all(hi - lo <= 1e-5)
    d_lo, d_hi = f.epsilon_bounds([1e-5, 1e-6])
    assert np.all(lo <= d_hi) and np.all(d_lo <= hi)


def test_eps_width_validated():
    f = fdp.dpsgd(2.0, 0.01, 100)
    with pytest.raises(ValueError, match="eps_width"):
        dataclasses.replace(f, eps_width=0.0)
