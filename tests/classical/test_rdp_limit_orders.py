"""Rényi DP at the limit orders 1 (KL) and ∞ (pure ε), of ε-bounded range (the
exponential mechanism), of pure-ε mechanisms (permute-and-flip), and RDP → δ(ε):
each against an independent computation (mpmath closed forms, brute-force
maximisation, numerical integration, dp_accounting)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import fdp
from fdp.classical.rdp import rdp_bounded_range, rdp_of
from fdp.operations.rdp_bound import rdp_to_log_delta

INF = math.inf


def test_kl_gaussian_and_laplace_closed_forms():
    mp.mp.dps = 30
    for mu in (0.1, 1.0, 3.0):
        assert rdp_of(fdp.Gaussian(mu), 1.0) == pytest.approx(mu * mu / 2, rel=1e-12)
        # KL(Lap(μ, 1) ‖ Lap(0, 1)) by numerical integration of q log(q/p)
        def integrand(y, m=mu):
            return mp.exp(-abs(y - m)) / 2 * (abs(y) - abs(y - m))
        kl = mp.quad(integrand, [-mp.inf, 0, mu, mp.inf])
        assert rdp_of(fdp.Laplace(mu), 1.0) == pytest.approx(float(kl), rel=1e-10)


def test_kl_of_randomized_response():
    mp.mp.dps = 30
    eps = 0.7
    p = mp.e ** eps / (1 + mp.e ** eps)
    kl = p * mp.log(p / (1 - p)) + (1 - p) * mp.log((1 - p) / p)
    assert rdp_of(fdp.RandomizedResponse(eps), 1.0) == pytest.approx(float(kl), rel=1e-10)


def test_order_infinity_is_the_pure_epsilon():
    assert rdp_of(fdp.Laplace(1.3), INF) == pytest.approx(1.3, rel=1e-12)
    assert rdp_of(fdp.RandomizedResponse(0.4), INF) == pytest.approx(0.4, rel=1e-12)
    assert rdp_of(fdp.Gaussian(1.0), INF) == INF


@pytest.mark.parametrize("f", [fdp.Laplace(0.8), fdp.RandomizedResponse(1.5), fdp.Gaussian(0.5)])
def test_limit_orders_bracket_the_curve(f):
    lam = np.array([1.0, 1.0 + 1e-6, 1.5, 2.0, 8.0, 64.0, 1024.0, INF])
    r = rdp_of(f, lam)
    assert np.all(np.diff(r) >= -1e-12)            # D_λ non-decreasing in λ
    assert r[1] == pytest.approx(r[0], rel=1e-4)  # continuous at 1


def test_steps_scale_the_limit_orders():
    r1 = rdp_of(fdp.Laplace(0.5), [1.0, INF])
    r3 = rdp_of(fdp.Laplace(0.5), [1.0, INF], steps=3)
    assert np.allclose(r3, 3 * r1, rtol=1e-14)
    assert rdp_of(fdp.Gaussian(1.0), INF, steps=0) == 0.0


@pytest.mark.parametrize("bad", [0.5, -1.0, [2.0, 0.99], math.nan])
def test_orders_below_one_are_refused(bad):
    with pytest.raises(ValueError, match="orders"):
        rdp_of(fdp.Gaussian(1.0), bad)


def _br_brute(eps: float, lam: float) -> mp.mpf:
    """max over t of D_λ(Q_t ‖ P_t), GRR_t of Dong, Durfee & Rogers 2020 (§3):
    golden-section search on the (unimodal) curve in t, then a grid check."""
    big_e = mp.e ** mp.mpf(eps)

    def d(t):
        p = (mp.e ** t - 1) / (big_e - 1)
        if lam == 1:
            return p * mp.e ** (eps - t) * eps - t
        return mp.log(p * mp.e ** (lam * (eps - t)) + (1 - p) * mp.e ** (-lam * t)) / (lam - 1)

    grid = [mp.mpf(eps) * k / 400 for k in range(401)]
    k = max(range(401), key=lambda i: d(grid[i]))
    a, b = grid[max(k - 1, 0)], grid[min(k + 1, 400)]
    g = (mp.sqrt(5) - 1) / 2
    for _ in range(200):
        c, e = b - g * (b - a), a + g * (b - a)
        if d(c) < d(e):
            a = c
        else:
            b = e
    return d((a + b) / 2)


@pytest.mark.parametrize("eps", [1e-3, 0.1, 1.0, 5.0])
@pytest.mark.parametrize("lam", [1.0, 1.5, 2.0, 10.0, 100.0])
def test_bounded_range_against_brute_force(eps, lam):
    mp.mp.dps = 40
    want = _br_brute(eps, lam)
    assert rdp_bounded_range(eps, lam) == pytest.approx(float(want), rel=1e-10, abs=1e-300)


def test_bounded_range_between_rr_half_and_rr_full_and_below_zcdp():
    """t = ε/2 is RR_{ε/2}, and an ε-BR mechanism is ε-DP: RR_{ε/2} ≤ BR ≤ RR_ε order by
    order; and ε-BR is ε²/8-zCDP (Cesar & Rogers 2021): ρ(λ) ≤ λε²/8."""
    lam = np.array([1.0, 1.01, 2.0, 3.5, 20.0, 300.0, INF])
    for eps in (0.05, 0.9, 4.0):
        br = rdp_bounded_range(eps, lam)
        assert np.all(br >= rdp_of(fdp.RandomizedResponse(eps / 2), lam) * (1 - 1e-12))
        assert np.all(br <= rdp_of(fdp.RandomizedResponse(eps), lam) * (1 + 1e-12))
        assert np.all(br[:-1] <= lam[:-1] * eps * eps / 8 * (1 + 1e-12))
        assert br[-1] == eps


def test_bounded_range_bad_input():
    with pytest.raises(ValueError, match="eps"):
        rdp_bounded_range(0.0, 2.0)
    with pytest.raises(ValueError, match="orders"):
        rdp_bounded_range(1.0, 0.5)


def test_permute_and_flip_gets_the_pure_epsilon_curve():
    """permute-and-flip is ε-DP and no better in general: its curve is that of
    f_{ε,0}, randomized response RR_ε (Mironov 2017, Table II), recomputed here."""
    mp.mp.dps = 30
    eps = 1.0
    f = fdp.EpsDelta(eps)
    p = mp.e ** eps / (1 + mp.e ** eps)
    for lam in (2.0, 5.5, 40.0):
        want = mp.log(p ** lam * (1 - p) ** (1 - lam) + (1 - p) ** lam * p ** (1 - lam)) / (lam - 1)
        assert rdp_of(f, lam) == pytest.approx(float(want), rel=1e-12)


def test_rdp_to_log_delta_is_compute_delta():
    """dp_accounting's compute_delta on the same curve: the same conversion (CKS 2020,
    Prop 12); fdp's is rounded up, so never below and within 1e-12."""
    rdp_mod = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    o = np.array([1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 256.0])
    r = o * 0.3 + 0.01 * o ** 2 / 64
    for eps in (0.1, 1.0, 3.0, 8.0):
        theirs, _ = rdp_mod.compute_delta(o, r, eps)
        ours = math.exp(rdp_to_log_delta(o, r, eps)[0])
        assert theirs <= ours <= theirs * (1 + 1e-12)


# -- issue 41: the limit orders read the law's atoms at ±∞ ---------------------------
def _renyi_enumerated(p, q, lam):
    """D_λ(Q ‖ P) of a finite pair by enumeration in mpmath (λ = 1: KL, inf: max)."""
    p, q = [mp.mpf(x) for x in p], [mp.mpf(x) for x in q]
    if any(qi > 0 and pi == 0 for pi, qi in zip(p, q)):
        return INF
    live = [(pi, qi) for pi, qi in zip(p, q) if qi > 0]
    if lam == 1:
        return float(mp.fsum(qi * mp.log(qi / pi) for pi, qi in live))
    if lam == INF:
        return float(max(mp.log(qi / pi) for pi, qi in live))
    lam = mp.mpf(lam)
    return float(mp.log(mp.fsum(qi * (qi / pi) ** (lam - 1) for pi, qi in live)) / (lam - 1))


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-3), (0.1, 1e-300), (700.0, 0.5)])
def test_eps_delta_with_delta_is_infinite_at_every_order(eps, delta):
    # f_{ε,δ}'s pair puts Q-mass δ where P has none: D_λ(Q ‖ P) = ∞ for every λ ≥ 1
    out = rdp_of(fdp.EpsDelta(eps, delta), [1.0, 1.5, 2.0, INF])
    assert out.tolist() == [INF] * 4


@pytest.mark.parametrize("eps", [1e-6, 0.5, 3.0, 700.0])
def test_pure_eps_kl_is_eps_tanh(eps):
    # KL(Q ‖ P) of RR_ε = ε tanh(ε/2) (mpmath closed form)
    mp.mp.dps = 40
    ref = float(mp.mpf(eps) * mp.tanh(mp.mpf(eps) / 2))
    assert rdp_of(fdp.EpsDelta(eps), 1.0) == pytest.approx(ref, rel=1e-12)
    assert rdp_of(fdp.EpsDelta(eps), INF) == eps


@pytest.mark.parametrize("p,q", [
    ([0.25, 0.25, 0.5], [0.5, 0.5, 0.0]),             # the issue's pair: ln 2 one way
    ([0.1, 0.2, 0.3, 0.4], [0.4, 0.6, 0.0, 0.0]),
    ([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]),               # no atom at ±∞
])
def test_finite_pairs_against_enumeration(p, q):
    mp.mp.dps = 40
    orders = [1.0, 1.5, 2.0, 7.0, INF]
    f = fdp.from_pair(p, q)
    ours = rdp_of(f, orders)
    ref = [_renyi_enumerated(p, q, lam) for lam in orders]
    assert not np.isnan(ours).any()
    assert ours == pytest.approx(ref, rel=1e-12)
    # the other direction, T(Q, P): P-mass where Q has none is ∞ when p has zeros
    back = rdp_of(f.inverse(), orders)
    assert back == pytest.approx([_renyi_enumerated(q, p, lam) for lam in orders], rel=1e-12)


def test_issue_pair_values():
    f = fdp.from_pair([0.25, 0.25, 0.5], [0.5, 0.5, 0.0])
    assert rdp_of(f, [1.0, INF]) == pytest.approx([math.log(2)] * 2, rel=1e-14)
    assert rdp_of(f.inverse(), [1.0, INF]).tolist() == [INF, INF]
    assert rdp_of(f, [1.0, INF], steps=3) == pytest.approx([3 * math.log(2)] * 2, rel=1e-14)
