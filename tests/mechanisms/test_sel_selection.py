"""Private selection mechanisms: exponential mechanism, report-noisy-max, permute-and-flip.

Independent truths: exact output laws (softmax; permute-and-flip by enumerating all
orders), the generalized randomized response GRR_t in closed form, and the
closed-form limit of permute-and-flip's loss.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import fdp
from fdp import audit
from fdp.mechanisms import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax


def pf_enumerated(u, eps, delta=1.0):
    """Permute-and-flip's law by enumerating every order of the candidates."""
    p = np.exp(eps * (np.asarray(u) - np.max(u)) / (2 * delta))
    k = len(u)
    out = np.zeros(k)
    for perm in itertools.permutations(range(k)):
        stay = 1.0
        for r in perm:
            out[r] += stay * p[r]
            stay *= 1 - p[r]
    return out / math.factorial(k)


def test_exponential_mechanism_pairs_dominate_bounded_range():
    rng = np.random.default_rng(17)
    for eps in (0.5, 1.0, 3.0):
        m = ExponentialMechanism(None, 1.0, eps)
        br = fdp.BoundedRange(eps)
        a = np.linspace(0, 1, 401)
        for k in (2, 5, 30):
            for _ in range(10):
                u = rng.uniform(-3, 3, k)
                up = u + rng.uniform(-1, 1, k)
                pair = m.pair_tradeoff(u, up)
                assert np.all(pair(a) >= br(a) - 1e-12)
                assert np.ptp(pair.log_ratio) <= eps * (1 + 1e-12)   # ε-bounded range


def test_exponential_mechanism_realises_grr_and_touches_the_curve():
    # u ≡ 0, u' = +Δ on a set S of s candidates, −Δ elsewhere: losses ε − t on S and
    # −t off S with e^{−t} = (s e^{ε/2} + (k − s) e^{−ε/2}) / k · e^{−ε/2}; the pair is
    # GRR_t exactly, whose vertex lies on BR_ε.
    eps, k, s = 1.2, 50, 7
    m = ExponentialMechanism(None, 1.0, eps)
    up = -np.ones(k)
    up[:s] = 1.0
    pair = m.pair_tradeoff(np.zeros(k), up)
    assert pair.p.size == 2
    t = -float(pair.log_ratio.min())
    assert float(pair.log_ratio.max()) == pytest.approx(eps - t, rel=1e-12)
    p1 = np.expm1(t) / np.expm1(eps)          # GRR_t's P(1), closed form
    assert s / k == pytest.approx(p1, rel=1e-12)
    assert pair(p1) == pytest.approx(fdp.BoundedRange(eps)(p1), rel=1e-12)


def test_report_noisy_max_gumbel_is_the_exponential_mechanism():
    u = np.array([0.3, -1.2, 2.0, 0.5, 0.5])
    rnm = ReportNoisyMax(None, 1.0, 1.3)
    em = ExponentialMechanism(None, 1.0, 1.3)
    assert rnm.tradeoff == fdp.BoundedRange(1.3) == em.tradeoff
    np.testing.assert_allclose(np.exp(rnm.log_probabilities(u)), em.probabilities(u), rtol=1e-14)
    out = rnm.release(np.tile(u, (60000, 1)), rng=3)
    freq = np.bincount(out, minlength=u.size) / out.size
    np.testing.assert_allclose(freq, em.probabilities(u), atol=0.012)


def test_permute_and_flip_law_and_exponential_noise_equivalence():
    u = np.array([0.3, -1.2, 2.0, 0.5, 0.5, 1.7])
    pf = PermuteAndFlip(None, 2.0, 1.7)
    exact = pf_enumerated(u, 1.7, 2.0)
    np.testing.assert_allclose(pf.probabilities(u), exact, rtol=1e-12)
    for mech, seed in ((pf, 4), (ReportNoisyMax(None, 2.0, 1.7, noise="exponential"), 5)):
        out = mech.release(np.tile(u, (60000, 1)), rng=seed)
        freq = np.bincount(out, minlength=u.size) / out.size
        np.testing.assert_allclose(freq, exact, atol=0.012)
    assert pf.tradeoff == fdp.EpsDelta(1.7)
    assert ReportNoisyMax(None, 2.0, 1.7, noise="exponential").tradeoff == fdp.EpsDelta(1.7)


def test_permute_and_flip_is_not_bounded_range():
    # two candidates, u = (0, 0) against u' = (Δ, −Δ): PF gives (1/2, 1/2) and
    # (1 − e^{−ε}/2, e^{−ε}/2), losses log(2 − e^{−ε}) and −ε: range ε + log(2 − e^{−ε}) > ε
    eps = 1.0
    pf = PermuteAndFlip(None, 1.0, eps)
    p, q = pf.probabilities([0.0, 0.0]), pf.probabilities([1.0, -1.0])
    np.testing.assert_allclose(q, [1 - np.exp(-eps) / 2, np.exp(-eps) / 2], rtol=1e-14)
    losses = np.log(q / p)
    assert np.ptp(losses) == pytest.approx(eps + np.log(2 - np.exp(-eps)), rel=1e-13)
    assert np.ptp(losses) > eps
    # and the ε of ε-DP is approached: u ≡ 0 against u' = (+Δ, −Δ, …, −Δ)
    k = 400
    up = -np.ones(k)
    up[0] = 1.0
    ratio = pf.probabilities(up)[0] / pf.probabilities(np.zeros(k))[0]
    assert ratio == pytest.approx(np.e * (1 - (1 - np.exp(-eps)) ** k), rel=1e-10)
    assert np.log(ratio) > 0.999 * eps


def test_exponential_mechanism_audit_meets_bounded_range():
    u = np.zeros(40)
    up = -np.ones(40)
    up[:4] = 1.0
    res = audit.check(ExponentialMechanism(None, 1.0, 1.0), n=60_000, rng=11, inputs=(u, up))
    assert res.passed, res.summary()


def test_selection_bad_input():
    with pytest.raises(ValueError, match="noise"):
        ReportNoisyMax(None, 1.0, 1.0, noise="laplace")
    with pytest.raises(ValueError, match="sensitivity"):
        PermuteAndFlip(None, 0.0, 1.0)
    with pytest.raises(ValueError, match="eps"):
        ReportNoisyMax(None, 1.0, -1.0)
    with pytest.raises(TypeError, match="utility"):
        PermuteAndFlip("nope", 1.0, 1.0)
    with pytest.raises(ValueError, match="inputs"):
        PermuteAndFlip(None, 1.0, 1.0).audit_inputs()
    with pytest.raises(ValueError, match="gumbel"):
        ReportNoisyMax(None, 1.0, 1.0, noise="exponential").log_probabilities([0.0, 1.0])
    assert isinstance(PermuteAndFlip(None, 1.0, 1.0, candidates=("a", "b")).release(
        [0.0, 1.0], rng=0), str)
