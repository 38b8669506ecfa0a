"""The accountant: negligible spends cost negligibly, refusals say what and by how much.

Regressions: ``A = Accountant(mu=1); A.spend(dpsgd(100, 0.001, 10))`` left 3e-5 of
the budget (the spend is worth ε ≈ 6e-6) and the next ``A.spend(Gaussian(0.5))`` was
refused without saying by how much.
"""

from __future__ import annotations

import math

import pytest

import fdp


@pytest.mark.slow
def test_negligible_numeric_spend_leaves_room_for_a_gaussian():
    acct = fdp.Accountant(mu=1.0)
    acct.spend(fdp.dpsgd(100, 0.001, 10))
    assert acct.remaining() > 0.5
    acct.spend(fdp.Gaussian(0.5))                 # fits: 0.5-GDP ⊗ (nearly nothing) ≤ 1-GDP


def test_refusal_of_gaussian_says_by_how_much():
    acct = fdp.Accountant(mu=1.0)
    acct.spend(fdp.Gaussian(0.8))
    with pytest.raises(fdp.BudgetExceeded) as info:
        acct.spend(fdp.Gaussian(0.8))
    msg = str(info.value)
    # √(0.8² + 0.8²) = 1.13137..., over by 0.131
    assert "1.13137" in msg and "0.131" in msg and "nothing was recorded" in msg


def test_refusal_of_eps_delta_budget_says_by_how_much():
    acct = fdp.Accountant(epsilon=1.0, delta=1e-5)
    with pytest.raises(fdp.BudgetExceeded) as info:
        acct.spend(fdp.Gaussian(2.0))
    msg = str(info.value)
    exact = fdp.gdp_delta(2.0, 1.0)                      # δ of G_2 at ε = 1
    assert f"{exact:.6g}" in msg and "exceeds" in msg


def test_adaptive_mode_refusal_names_the_missing_bound():
    acct = fdp.Accountant(mu=3.0, adaptive=True)
    with pytest.raises(fdp.BudgetExceeded, match="GDP bound"):
        acct.spend(fdp.EpsDelta(1.0, 1e-5))               # f(0) < 1: no GDP bound exists
    acct.spend(fdp.Laplace(1.0))                           # finite certified GDP bound
    assert acct.remaining() == pytest.approx(math.sqrt(9 - fdp.Laplace(1.0).gdp_mu() ** 2),
                                             rel=1e-9)
