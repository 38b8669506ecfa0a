"""Planner for one-run audits: the ceiling (all guesses correct) and the size needed."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

import fdp
from fdp.audit import max_refutable_epsilon, max_refutable_mu, min_canaries
from fdp.audit.fdp_one_run import blow_up_inverse, refutes
from fdp.audit.plan import _first_refuting


@pytest.mark.parametrize("r", [10, 100, 1000])
def test_epsilon_ceiling_closed_form(r: int) -> None:
    t = 0.05 ** (1 / r)
    assert max_refutable_epsilon(10 * r, r) == pytest.approx(math.log(t / (1 - t)), rel=1e-10)


def test_mu_ceiling_grows_with_guesses() -> None:
    mus = [max_refutable_mu(10_000, r) for r in (10, 100, 1000)]
    assert mus[0] < mus[1] < mus[2]


def test_min_canaries_is_the_edge_and_simulation_agrees() -> None:
    """G_1.2 claimed, G_3 true, 5 %: the plan's m refutes with expected counts, m − 1 does
    not, and simulated runs at that size (the pre-registered threshold) refute at
    roughly even odds (expected counts put the refutation near the median)."""
    claim, truth = fdp.Gaussian(1.2), fdp.Gaussian(3.0)
    plan = min_canaries(claim, truth, 0.05)
    assert _first_refuting(claim, truth, plan.m, 0.05) is not None
    assert _first_refuting(claim, truth, plan.m - 1, 0.05) is None
    rng = np.random.default_rng(3)
    runs = 400
    incl = rng.random((runs, plan.m)) < 0.5
    s = rng.standard_normal((runs, plan.m)) + 3.0 * incl
    t = scipy.stats.norm.isf(plan.fpr)
    guess = s >= t
    r, v = guess.sum(axis=1), (guess & incl).sum(axis=1)
    binv = blow_up_inverse(claim)
    rate = np.mean([refutes(binv, plan.m, int(a), int(b), 0.05) for a, b in zip(r, v)])
    assert 0.2 < rate < 0.9


def test_min_canaries_bad_input() -> None:
    with pytest.raises(ValueError, match="significance"):
        min_canaries(fdp.Gaussian(1.0), fdp.Gaussian(2.0), 0.0)
    with pytest.raises(ValueError, match="max_m"):
        min_canaries(fdp.Gaussian(1.0), fdp.Gaussian(1.01), max_m=100)
    with pytest.raises(ValueError, match="r"):
        max_refutable_mu(10, 11)
