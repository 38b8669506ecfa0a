"""The privacy filter: spends compose, a breaking spend raises and changes nothing."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

import fdp
from fdp.accountant import gdp_bound


def test_gaussian_budget_split_exactly():
    acct = fdp.Accountant(budget=fdp.Gaussian(1.0))
    assert acct.spent == fdp.Identity() and acct.remaining() == 1.0
    acct.spend(fdp.Gaussian(0.6))
    assert acct.remaining() == pytest.approx(0.8, rel=1e-12)
    acct.spend(fdp.Gaussian(0.8))              # 0.6² + 0.8² = 1: fits (rounding allowed)
    assert acct.spent.mu == pytest.approx(1.0, rel=1e-15)
    assert acct.remaining() == pytest.approx(0.0, abs=1e-7)
    before = (acct.spent, acct.spends)
    with pytest.raises(fdp.BudgetExceeded) as info:
        acct.spend(fdp.Gaussian(0.01))
    assert (acct.spent, acct.spends) == before          # nothing changed
    assert info.value.requested == fdp.Gaussian(0.01)
    assert acct.fully_adaptive


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 0.7), min_size=1, max_size=12))
def test_gaussian_filter_is_the_sum_of_squares_rule(mus):
    acct = fdp.Accountant(mu=1.0)
    total = 0.0
    for m in mus:
        fits = math.sqrt(total + m * m) <= 1.0 * (1 + 1e-12)
        assert acct.can_spend(fdp.Gaussian(m)) == fits
        if fits:
            acct.spend(fdp.Gaussian(m))
            total += m * m
        else:
            before = acct.spent
            with pytest.raises(fdp.BudgetExceeded):
                acct.spend(fdp.Gaussian(m))
            assert acct.spent == before
    assert acct.spent.mu == pytest.approx(math.sqrt(total), rel=1e-12, abs=1e-300)
    assert acct.remaining() == pytest.approx(math.sqrt(max(0.0, 1.0 - total)), abs=1e-7)


def test_pure_dp_budget_with_basic_spends():
    acct = fdp.Accountant(epsilon=3.0, delta=0.0)
    for _ in range(3):
        acct.spend(fdp.EpsDelta(1.0))
    with pytest.raises(fdp.BudgetExceeded):
        acct.spend(fdp.EpsDelta(0.1))
    assert len(acct.spends) == 3
    assert not acct.fully_adaptive


def _kov_delta(eps0, n, eps):
    """δ(ε) of f_{ε0,0}^{⊗n}: E_Q[(1 − e^{ε−L})₊], L = (2j − n)ε0, j ~ Bin(n, e^{ε0}/(1+e^{ε0}))."""
    mp.mp.dps = 40
    e0 = mp.mpf(eps0)
    p = mp.exp(e0) / (1 + mp.exp(e0))
    tot = mp.mpf(0)
    for j in range(n + 1):
        L = (2 * j - n) * e0
        if L > eps:
            tot += mp.binomial(n, j) * p ** j * (1 - p) ** (n - j) * (1 - mp.exp(eps - L))
    return tot


def test_approximate_dp_budget_admits_exactly_the_kov_count():
    eps, delta, e0 = 2.0, 1e-5, 0.1
    n_max = max(n for n in range(1, 60) if _kov_delta(e0, n, eps) <= delta)
    acct = fdp.Accountant(budget=(eps, delta))
    count = 0
    while acct.can_spend(fdp.EpsDelta(e0)):
        acct.spend(fdp.EpsDelta(e0))
        count += 1
    assert count == n_max == 28
    assert count > 20      # better than basic composition's 20


def test_budget_forms_agree():
    f = fdp.RandomizedResponse(1.0, 3)
    a = fdp.Accountant(budget=fdp.EpsDelta(2.0, 1e-3))
    b = fdp.Accountant(epsilon=2.0, delta=1e-3)
    c = fdp.Accountant(budget=(2.0, 1e-3))
    for acct in (a, b, c):
        acct.spend(f)
        assert acct.can_spend(f) is True
        assert acct.can_spend(fdp.EpsDelta(1.5)) is False
    # attack-risk budgets
    d = fdp.Accountant(advantage=0.5)
    d.spend(fdp.Gaussian(1.0))
    assert d.can_spend(fdp.Gaussian(1.0)) is (fdp.Gaussian(math.sqrt(2)).advantage() <= 0.5)
    e = fdp.Accountant(tpr_at_fpr=(0.2, 0.01))
    mu_max = -ndtri(0.01) - ndtri(0.8)
    assert e.remaining() == pytest.approx(mu_max, rel=1e-9)


@pytest.mark.slow
def test_curve_budget():
    # budget: the hull of points on f_{2,0.01} (including α = 0.99 where it reaches 0)
    al = np.union1d(np.linspace(0, 1, 11), [0.99])
    budget = fdp.from_points(al, fdp.EpsDelta(2.0, 0.01)(al))
    grid = np.union1d(np.linspace(0, 1, 20001), 1 - np.logspace(-8, -1, 200))
    acct = fdp.Accountant(budget=budget)
    spend = fdp.EpsDelta(0.7, 0.002)
    k = 0
    while True:
        composed = spend ** (k + 1)
        fits = bool(np.all(composed(grid) >= budget(grid) - 1e-12))   # independent grid check
        assert acct.can_spend(spend) == fits
        if not fits:
            break
        acct.spend(spend)
        k += 1
    assert k >= 1
    with pytest.raises(fdp.BudgetExceeded):
        acct.spend(spend)
    # a spend that reaches β = 0 before the budget does is refused even if small
    strict = fdp.Accountant(budget=fdp.from_points(al[:-2], fdp.EpsDelta(2.0, 0.0)(al[:-2])))
    assert not strict.can_spend(fdp.EpsDelta(0.1, 0.004))


def test_adaptive_mode_uses_gdp_bounds():
    # gdp_bound(L_m): smallest μ with L_m ≥ G_μ, i.e. δ_L(ε) ≤ δ_G(ε) for ε ≥ 0;
    # independent check with the closed forms (DRS Cor 2.13; Laplace δ, MATH.md §2).
    m = 0.3
    mu = gdp_bound(fdp.Laplace(m))
    mp.mp.dps = 40

    def gauss_delta(mu_, e):
        return mp.ncdf(-e / mu_ + mu_ / 2) - mp.exp(e) * mp.ncdf(-e / mu_ - mu_ / 2)

    eps = np.linspace(0, m, 300)
    lap = [float(-mp.expm1((mp.mpf(e) - m) / 2)) for e in eps]
    assert all(lv <= float(gauss_delta(mp.mpf(mu), e)) * (1 + 1e-9) for lv, e in zip(lap, eps))
    assert any(lv > float(gauss_delta(mp.mpf(mu) * (1 - 1e-6), e)) for lv, e in zip(lap, eps))
    acct = fdp.Accountant(mu=1.0, adaptive=True)
    n = 0
    while acct.can_spend(fdp.Laplace(m)):
        acct.spend(fdp.Laplace(m))
        n += 1
    assert n == math.floor(1.0 / mu ** 2 * (1 + 1e-12))
    assert acct.fully_adaptive and isinstance(acct.spent, fdp.Gaussian)
    # spends with no GDP bound (δ > 0) are refused in adaptive mode
    with pytest.raises(fdp.BudgetExceeded):
        acct.spend(fdp.EpsDelta(0.01, 1e-9))


@pytest.mark.slow
def test_numeric_spends_with_the_engine():
    # Laplace spends compose numerically; the tight count is at least the GDP-ified one.
    tight = fdp.Accountant(mu=1.0, tol=1e-3)
    n = 0
    while True:
        try:
            tight.spend(fdp.Laplace(0.3))
        except fdp.BudgetExceeded:
            break
        n += 1
    adaptive_n = math.floor(1.0 / gdp_bound(fdp.Laplace(0.3)) ** 2)
    assert n >= adaptive_n
    assert len(tight.spends) == n
    # remaining: a further Gaussian of that μ fits, a slightly larger one does not
    r = tight.remaining()
    assert tight.can_spend(fdp.Gaussian(r))
    assert not tight.can_spend(fdp.Gaussian(r * 1.01 + 1e-3))


def test_accountant_bad_input():
    with pytest.raises(ValueError, match="exactly one"):
        fdp.Accountant()
    with pytest.raises(TypeError, match="budget"):
        fdp.Accountant(budget="all of it")
    with pytest.raises(ValueError, match="pair"):
        fdp.Accountant(budget=(1.0, 1e-5, 3))
    with pytest.raises(ValueError, match="mu"):
        fdp.Accountant(mu=-1.0)
    acct = fdp.Accountant(mu=1.0)
    with pytest.raises(TypeError, match="TradeOff"):
        acct.spend(0.5)
    assert "1-GDP" in repr(acct)
