"""repeat_and_select against Papernot & Steinke (ICLR 2022) recomputed in mpmath and
against dp_accounting's RdpAccountant on the same RepeatAndSelectDpEvent."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import fdp
from fdp.conversions.repeat_select import RepeatSelect, repeat_and_select, tnb_gamma
from fdp.status import NotAGuarantee

SHAPES = [0.0, 0.5, 1.0, 2.0]


def _mp_mean(gamma: mp.mpf, eta: float) -> mp.mpf:
    """E K of the truncated negative binomial (Papernot–Steinke Def 1), from its pmf."""
    if eta == 0:
        return (1 / gamma - 1) / mp.log(1 / gamma)
    # P[K = k] ∝ Γ(k + η)/(Γ(η) k!) (1 − γ)^k, k ≥ 1: summed series
    b = 1 - gamma
    norm = gamma ** -eta - 1                       # Σ_{k≥1} C(k+η−1, k) b^k
    first = eta * b * gamma ** (-eta - 1)          # Σ_{k≥1} k C(k+η−1, k) b^k
    return first / norm


def _mp_gamma(mean: float, eta: float) -> mp.mpf:
    ends = (mp.mpf("1e-12"), 1 - mp.mpf("1e-12"))
    return mp.findroot(lambda g: _mp_mean(g, eta) - mean, ends, solver="anderson")


@pytest.mark.parametrize("eta", SHAPES + [3.7])
@pytest.mark.parametrize("mean", [1.5, 10.0, 1000.0])
def test_tnb_gamma_is_a_lower_bound_on_the_true_gamma(mean, eta):
    mp.mp.dps = 40
    g = tnb_gamma(mean, eta)
    truth = _mp_gamma(mean, eta)
    assert mp.mpf(g) <= truth
    assert float((truth - g) / truth) < 1e-13


def _grid_min_from(values: list) -> list:
    """min_{j ≥ i} values[j] (the Rényi curve is non-decreasing in λ)."""
    out, best = [], mp.inf
    for v in reversed(values):
        best = min(best, v)
        out.append(best)
    return out[::-1]


@pytest.mark.parametrize("eta", SHAPES)
@pytest.mark.parametrize("mu,mean", [(0.5, 10.0), (1.0, 100.0), (0.1, 3.0)])
def test_gaussian_curve_contains_theorem_2(mu, mean, eta):
    """Thm 2 / Cor 4 for a Gaussian run, ρ(λ) = λμ²/2, with the exact γ and the
    continuous optimum over λ̂ (below any grid optimum): fdp's curve is above it (the
    safe side) and within 2 % of it at the orders that matter."""
    mp.mp.dps = 40
    g = repeat_and_select(fdp.Gaussian(mu), mean, eta)
    assert isinstance(g, RepeatSelect) and g.status == fdp.Status.CERTIFIED
    gamma = _mp_gamma(mean, eta)
    L, m2 = mp.log(1 / gamma), mp.mpf(mu) ** 2
    lam_hat = mp.sqrt(2 * L / m2)                 # argmin of (λ̂ − 1)μ²/2 + L/λ̂
    inner = mp.sqrt(2 * L * m2) - m2 / 2 if lam_hat >= 1 else L
    lams = [x for x in g.orders if math.isfinite(x)]
    thm = [lam * m2 / 2 + (1 + eta) * inner + mp.log(mean) / (lam - 1) for lam in lams]
    floor = _grid_min_from(thm)
    for lam, r, lo, t in zip(lams, g.rdp, floor, thm):
        assert r >= lo, (lam, r, lo)
        if 2.0 <= lam <= 64.0:
            assert r <= t * 1.02, (lam, r, t)


def _mp_gauss_delta(mu: float, eps: mp.mpf) -> mp.mpf:
    mu = mp.mpf(mu)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("mu,mean", [(0.5, 10.0), (1.0, 3.0), (0.2, 100.0)])
def test_gaussian_curve_contains_theorem_6_poisson(mu, mean):
    """Thm 6 with δ̂ = δ_{G_μ}(log(λ/(λ − 1))) in mpmath: fdp is above and within 1e-9."""
    mp.mp.dps = 40
    g = repeat_and_select(fdp.Gaussian(mu), mean, math.inf)
    lams = [x for x in g.orders if math.isfinite(x)]
    thm = [lam * mp.mpf(mu) ** 2 / 2 + mean * _mp_gauss_delta(mu, mp.log(lam / (mp.mpf(lam) - 1)))
           + mp.log(mean) / (lam - 1) for lam in lams]
    floor = _grid_min_from(thm)
    for lam, r, lo, t in zip(lams, g.rdp, floor, thm):
        assert r >= lo, (lam, r, lo)
        assert r <= t * (1 + 1e-9) + 1e-300, (lam, r, t)


@pytest.mark.parametrize("eta", SHAPES)
@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_pure_dp_is_two_plus_eta_epsilon(eps, eta):
    """Papernot–Steinke Cor 3 (and dp_accounting's pure-DP test): an ε-DP run gives a
    (2 + η)ε-DP selection; the order ∞ of the curve carries it."""
    g = repeat_and_select(fdp.Laplace(eps), 1000.0, eta)
    assert g.orders[-1] == math.inf
    assert g.rdp[-1] <= (2 + eta) * eps * (1 + 1e-12)
    assert g.rdp[-1] >= (2 + eta) * eps - 0.01          # the grid may shave a little
    assert g.pure_epsilon() <= (2 + eta) * eps + 0.011
    # the curve of the output dominates f_{(2+η)ε, 0}
    a = np.linspace(0.0, 1.0, 201)
    assert np.all(g(a) >= fdp.EpsDelta((2 + eta) * eps * (1 + 1e-9))(a) - 1e-12)


def test_poisson_pure_dp_is_eps_plus_mean_tv():
    """λ → ∞ in Thm 6: ε + μ·δ_f(0), δ_f(0) = tanh(ε/2) for randomized response."""
    eps, mean = 0.5, 4.0
    g = repeat_and_select(fdp.RandomizedResponse(eps), mean, math.inf)
    want = eps + mean * math.tanh(eps / 2)
    assert g.rdp[-1] >= want
    assert g.rdp[-1] <= want * (1 + 1e-9)


def _dpa_epsilon(event, delta: float, orders=None) -> float:
    from dp_accounting import rdp
    acc = rdp.RdpAccountant(orders) if orders is not None else rdp.RdpAccountant()
    acc.compose(event)
    return acc.get_epsilon(delta)


@pytest.mark.parametrize("eta", SHAPES)
@pytest.mark.parametrize("sigma,mean,delta", [(2.0, 10.0, 1e-6), (1.0, 100.0, 1e-5),
                                              (5.0, 3.0, 1e-8)])
def test_against_dp_accounting_negative_binomial(sigma, mean, delta, eta):
    """Same theorem, same event: fdp's ε (certified, optimal RDP → f conversion) is
    within 1 % of dp_accounting's (an upper bound too; its order grid is finer)."""
    dpe = pytest.importorskip("dp_accounting.dp_event")
    ours = float(repeat_and_select(fdp.Gaussian(1.0 / sigma), mean, eta).epsilon(delta))
    theirs = _dpa_epsilon(dpe.RepeatAndSelectDpEvent(dpe.GaussianDpEvent(sigma), mean, eta),
                          delta)
    assert abs(ours / theirs - 1.0) < 0.01, (ours, theirs)


@pytest.mark.parametrize("sigma,mean,delta", [(2.0, 10.0, 1e-6), (1.0, 100.0, 1e-5),
                                              (5.0, 3.0, 1e-8)])
def test_against_dp_accounting_poisson(sigma, mean, delta):
    """Poisson: dp_accounting reads δ̂ from the Rényi curve, fdp from f itself (tight),
    so fdp's ε is never above dp_accounting's and at least 60 % of it."""
    dpe = pytest.importorskip("dp_accounting.dp_event")
    ours = float(repeat_and_select(fdp.Gaussian(1.0 / sigma), mean, math.inf).epsilon(delta))
    theirs = _dpa_epsilon(
        dpe.RepeatAndSelectDpEvent(dpe.GaussianDpEvent(sigma), mean, math.inf), delta)
    assert 0.6 * theirs <= ours <= theirs, (ours, theirs)


def test_against_dp_accounting_laplace_delta():
    """δ(ε) of a Laplace run, geometric K: fdp's δ within a factor 2 of dp_accounting's."""
    dpe = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting import rdp
    g = repeat_and_select(fdp.Laplace(0.5), 20.0, 1.0)
    acc = rdp.RdpAccountant()
    acc.compose(dpe.RepeatAndSelectDpEvent(dpe.LaplaceDpEvent(2.0), 20.0, 1.0))
    for eps in (0.5, 1.0):
        ours, theirs = float(g.delta(eps)), acc.get_delta(eps)
        assert ours <= 2.0 * theirs and theirs <= 2.0 * ours, (eps, ours, theirs)
    # past the pure ε = 3 · 0.5 of Cor 3, δ = 0 (dp_accounting's finite orders give > 0)
    assert float(g.delta(1.51)) == 0.0 < acc.get_delta(1.51)


def test_more_runs_cost_more():
    eps = [float(repeat_and_select(fdp.Gaussian(0.5), m, 1.0).epsilon(1e-6))
           for m in (2.0, 10.0, 100.0)]
    assert eps[0] < eps[1] < eps[2]
    assert eps[0] > float(fdp.Gaussian(0.5).epsilon(1e-6))


def test_mean_one_is_one_run():
    f = fdp.Gaussian(1.0)
    assert repeat_and_select(f, 1.0, 2.0) is f
    g = repeat_and_select(f, 1.0, math.inf)            # Poisson(1): not one run
    assert float(g.epsilon(1e-6)) > float(f.epsilon(1e-6))


def test_repr_states_the_assumptions():
    r = repr(repeat_and_select(fdp.Gaussian(1.0), 10.0, 0.0))
    assert "Gaussian(mu=1.0)" in r and "mean=10" in r and "logarithmic" in r


def test_composed_runs_use_their_certified_curve():
    g = repeat_and_select(fdp.Laplace(0.3) ** 3, 5.0, 1.0)
    assert g.status == fdp.Status.CERTIFIED
    assert float(g.epsilon(1e-6)) > float((fdp.Laplace(0.3) ** 3).epsilon(1e-6))


@pytest.mark.parametrize("kw,match", [
    ({"mean": 0.5, "shape": 1.0}, "mean"),
    ({"mean": math.nan, "shape": 1.0}, "mean"),
    ({"mean": math.inf, "shape": 1.0}, "mean"),
    ({"mean": 10.0, "shape": -1.0}, "shape"),
    ({"mean": 10.0, "shape": math.nan}, "shape"),
])
def test_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        repeat_and_select(fdp.Gaussian(1.0), **kw)


def test_refuses_what_it_cannot_certify():
    with pytest.raises(ValueError, match="Rényi"):
        repeat_and_select(fdp.EpsDelta(1.0, 1e-5), 10.0, 1.0)   # no Rényi curve
    with pytest.raises(NotAGuarantee):
        repeat_and_select(fdp.edgeworth([fdp.Laplace(1.0)] * 3), 10.0, 1.0)
    with pytest.raises(TypeError):
        repeat_and_select("gaussian", 10.0, 1.0)


def test_dpsgd_runs_against_dp_accounting():
    """Tuning DP-SGD (σ = 1, q = 0.01, 1000 steps), geometric K with mean 10: the run's
    certified Rényi curve (Mironov, Talwar & Zhang 2019) goes through the same theorem;
    dp_accounting gives 4.1033 at δ = 1e-5, fdp within 1 %."""
    dpe = pytest.importorskip("dp_accounting.dp_event")
    f = fdp.dpsgd(1.0, 0.01, 1000)
    ours = float(repeat_and_select(f, 10.0, 1.0).epsilon(1e-5))
    event = dpe.RepeatAndSelectDpEvent(dpe.SelfComposedDpEvent(
        dpe.PoissonSampledDpEvent(0.01, dpe.GaussianDpEvent(1.0)), 1000), 10.0, 1.0)
    theirs = _dpa_epsilon(event, 1e-5)
    assert abs(ours / theirs - 1.0) < 0.01, (ours, theirs)
    assert ours > float(f.epsilon(1e-5))
