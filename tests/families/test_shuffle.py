"""fdp.shuffle_amplification: the clone dominating pair (Feldman, McMillan & Talwar).

Independent truths: exact enumeration of the clone process for n ≤ 6 (every
assignment of the n − 1 other users to {0-clone, 1-clone, other} and of user 1's
bit, mpmath at 40 digits), with δ(ε) = Σ (Q − e^ε P)₊ summed in mpmath; the numeric
reference bracket of the authors' code for n = 10⁵, ε₀ = 4, δ = 1e-6, and their
closed-form bound; randomized response for n = 1.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp


@pytest.fixture(autouse=True)
def _precision():
    """40 digits for this module's mpmath truths, restored afterwards."""
    with mp.workdps(40):
        yield


def _enumerate_clone_pair(eps0, n, stronger=False):
    """{(n0, n1): (P, Q)} by enumerating every report vector of the clone process."""
    e = mp.e ** mp.mpf(eps0)
    p = 2 / (e + 1) if stronger else 1 / e          # clone probability
    q = e / (e + 1)                                   # user 1's bit under P
    out: dict = {}
    for others in itertools.product((0, 1, 2), repeat=n - 1):  # 0-clone, 1-clone, other
        w = mp.mpf(1)
        for o in others:
            w *= p / 2 if o < 2 else 1 - p
        n0, n1 = others.count(0), others.count(1)
        for bit in (0, 1):
            # P: user 1 reports type 1 with probability q; Q: type 0 with probability q
            wp = w * (q if bit == 1 else 1 - q)
            wq = w * (q if bit == 0 else 1 - q)
            key = (n0 + (bit == 0), n1 + (bit == 1))
            a, b = out.get(key, (mp.mpf(0), mp.mpf(0)))
            out[key] = (a + wp, b + wq)
    return list(out.values())


def _mp_delta(pairs, eps):
    y = mp.e ** mp.mpf(eps)
    return mp.fsum(max(mp.mpf(0), qq - y * pp) for pp, qq in pairs)


def _mp_delta_both(pairs, eps):
    """δ(ε) of the pair in its worse order (the pair is symmetric, so either)."""
    return max(_mp_delta(pairs, eps), _mp_delta([(b, a) for a, b in pairs], eps))


@pytest.mark.parametrize("eps0", [0.5, 2.0, 6.0])
@pytest.mark.parametrize("n", [1, 2, 3, 6])
@pytest.mark.parametrize("stronger", [False, True])
def test_small_n_matches_exact_enumeration(eps0, n, stronger):
    pairs = _enumerate_clone_pair(eps0, n, stronger)
    f = fdp.shuffle_amplification(eps0, n, construction="stronger" if stronger else "clones")
    eps = np.array([-1.0, 0.0, 0.1, 0.5, 1.0, 2.0, eps0 - 0.01])
    ours = f.delta(eps)
    for e, d in zip(eps, ours):
        truth = _mp_delta(pairs, e)
        # pessimistic by at most the mass safety factor and the deficit atoms
        assert truth <= d + 1e-300
        assert d <= truth + 3e-11
    # δ(ε₀) = 0: ε₀-LDP survives shuffling exactly (up to the deficit)
    assert f.delta(eps0) <= 3e-11
    assert _mp_delta(pairs, eps0) < mp.mpf(10) ** -35


@pytest.mark.parametrize("m, prob", [(99_999, math.exp(-4.0)), (99_999, 2 / (math.exp(4.0) + 1)),
                                     (10**9 - 1, math.exp(-8.0)), (1831, 0.5)])
def test_binomial_masses_within_the_safety_factor(m, prob):
    """The masses' round-off must stay well inside MASS_REL (mpmath binomials)."""
    from fdp.families.shuffle import MASS_REL, _log_pmf
    mean, sd = m * prob, math.sqrt(m * prob * (1 - prob))
    for z in (-11, -5, -1, 0, 1, 3, 11):
        k = int(mean + z * sd)
        if not 0 <= k <= m:
            continue
        exact = mp.binomial(m, k) * mp.mpf(prob) ** k * (1 - mp.mpf(prob)) ** (m - k)
        ours = mp.e ** mp.mpf(float(_log_pmf(np.array([k]), m, prob)[0]))
        assert abs(ours / exact - 1) <= MASS_REL / 10


def test_n_equal_one_is_randomized_response():
    for eps0 in (0.1, 1.0, 4.0):
        f = fdp.shuffle_amplification(eps0, 1)
        a = np.linspace(0.0, 1.0, 101)
        rr_lo, rr_hi = fdp.RandomizedResponse(eps0).bounds(a)
        assert np.all(f(a) <= rr_hi + 1e-15) and np.all(f(a) >= rr_lo - 1e-10)


@pytest.mark.slow
def test_reference_bracket_n_1e5():
    """Feldman–McMillan–Talwar's reference code (numericalanalysis, n = 10⁵, ε₀ = 4,
    δ = 1e-6) brackets ε in [0.16754, 0.17279]; their closed form gives 0.53780."""
    f = fdp.shuffle_amplification(4.0, 100_000)
    assert f.p.size < 1_000_000                     # measured 816,827 merged atoms
    lo, hi = f.epsilon_bounds(1e-6)
    assert 0.16754 <= lo <= hi <= 0.17279
    assert hi < 0.53780
    # the closed form of the reference code, recomputed
    n, e0, d = 100_000, 4.0, 1e-6
    a = 8 * math.sqrt(math.exp(e0) * math.log(4 / d)) / math.sqrt(n)
    c = 8 * math.exp(e0) / n
    closed = math.log(1 + (1 - math.exp(-e0)) / (1 + math.exp(-e0 - math.log(1 + a + c))) * (a + c))
    assert closed == pytest.approx(0.53780, abs=5e-6)


def test_stronger_clone_is_tighter_but_opt_in():
    f = fdp.shuffle_amplification(3.0, 2000)
    g = fdp.shuffle_amplification(3.0, 2000, construction="stronger")
    assert g.epsilon(1e-6) < f.epsilon(1e-6)
    # The exact stronger pair dominates the exact clone pair; the safe-side pairs both cut
    # ~1e-11 of tail mass to +inf (different amounts), so dominance holds up to that cut
    assert g.dominates(f, tol=1e-10) and not f.dominates(g, tol=1e-10)


def test_composition_over_rounds():
    # exact: small pairs compose as finite pairs; checked against mpmath products
    pairs = _enumerate_clone_pair(1.5, 4)
    two = [(a1 * a2, b1 * b2) for a1, b1 in pairs for a2, b2 in pairs]
    f = fdp.shuffle_amplification(1.5, 4)
    ff = f @ f
    assert isinstance(ff, fdp.FinitePair)
    for e in (0.0, 0.5, 1.0, 2.0):
        truth = _mp_delta(two, e)
        assert truth <= ff.delta(e) + 1e-300 and ff.delta(e) <= truth + 1e-10
    # large pairs go through the certified engine (the exact product is too big)
    g = fdp.shuffle_amplification(4.0, 10_000)
    gg = fdp.compose(g, g, tol=1e-3)
    lo, hi = gg.epsilon_bounds(1e-6)
    one = g.epsilon(1e-6)
    assert one < lo <= hi <= 2 * one + 1e-9          # worse than one round, better than basic


def test_binned_route_is_pessimistic_and_close(monkeypatch):
    """Large n rounds losses up onto a grid: never more private than the exact pair."""
    import fdp.families.shuffle as shuffle
    exact = fdp.shuffle_amplification(4.0, 20_000)
    monkeypatch.setattr(shuffle, "MAX_EXACT_ATOMS", 1000)
    binned = fdp.shuffle_amplification(4.0, 20_000)
    eps = np.array([-0.2, 0.0, 0.05, 0.1, 0.2, 0.4])
    assert np.all(binned.delta(eps) >= exact.delta(eps))
    assert np.all(binned.delta(eps) <= exact.delta(eps) + 1e-4)
    e_exact, e_binned = exact.epsilon(1e-6), binned.epsilon(1e-6)
    assert e_exact <= e_binned <= e_exact + 1e-4


def test_bad_input():
    with pytest.raises(ValueError, match="eps0"):
        fdp.shuffle_amplification(0.0, 10)
    with pytest.raises(ValueError, match="eps0"):
        fdp.shuffle_amplification(-1.0, 10)
    with pytest.raises(ValueError, match="eps0"):
        fdp.shuffle_amplification(np.inf, 10)
    with pytest.raises(ValueError, match="n"):
        fdp.shuffle_amplification(1.0, 0)
    with pytest.raises(ValueError, match="n"):
        fdp.shuffle_amplification(1.0, 2.5)
    with pytest.raises(TypeError, match="n"):
        fdp.shuffle_amplification(1.0, "10")
    with pytest.raises(TypeError, match="eps0"):
        fdp.shuffle_amplification("1", 10)
    with pytest.raises(ValueError, match="construction"):
        fdp.shuffle_amplification(1.0, 10, construction="blanket")
    with pytest.raises(ValueError, match="tail"):
        fdp.shuffle_amplification(1.0, 10, tail=0.0)
    with pytest.raises(ValueError, match="tail"):
        fdp.shuffle_amplification(1.0, 10, tail=1e-300)
    with pytest.raises(ValueError, match="tail"):
        fdp.shuffle_amplification(1.0, 10, tail=0.5)


def test_edges():
    # huge ε₀: clones vanish, the pair is randomized response with ε₀ (no warnings)
    f = fdp.shuffle_amplification(700.0, 1000)
    assert f(0.0) <= 1.0 and f(0.5) == pytest.approx(0.0, abs=1e-300)
    assert fdp.shuffle_amplification(1e-9, 50).advantage() <= 1e-9


@pytest.mark.slow
def test_huge_n_goes_through_the_binned_route():
    big = fdp.shuffle_amplification(8.0, 10**9, tail=1e-12)     # 3e7 enumerated atoms
    assert big.p.size <= (1 << 18) + 2
    assert 0.0 < big.epsilon(1e-6) < 0.02                          # measured 0.01114


@settings(max_examples=20)
@given(eps0=st.floats(0.05, 10.0), n=st.integers(1, 3000))
def test_axioms_and_never_worse_than_local(eps0, n):
    f = fdp.shuffle_amplification(eps0, n)
    a = np.concatenate([[0.0, 1e-300, 1e-12], np.linspace(0.0, 1.0, 41), [1.0]])
    b = f(a)
    assert np.all((b >= 0.0) & (b <= 1.0 - a + 1e-15))
    assert np.all(np.diff(f(np.sort(a))) <= 1e-15)
    # shuffling never hurts: the pair is a post-processing of user 1's randomized response
    assert np.all(b >= fdp.RandomizedResponse(eps0)(a) - 1e-10)
    # symmetric pair: δ in both orders agree (up to the deficit atoms)
    eps = np.array([0.0, 0.3, 1.0])
    assert np.allclose(f.delta(eps), f.inverse().delta(eps), atol=1e-10)


@pytest.mark.slow
def test_below_the_deficit_the_envelope_with_pure_dp_answers():
    # the deficit atoms (≈ 1e-11, at losses ±ε₁, ε₁ = ε₀ + log(1.1/0.9)) leave ε(δ)
    # between ε₀ and ε₁ below them; the shuffled mechanism is ε₀-DP, and the
    # documented envelope recovers ε₀
    f = fdp.shuffle_amplification(4.0, 1000)
    assert 4.0 < f.epsilon(1e-13) <= 4.0 + math.log(1.1 / 0.9) + 1e-12
    h = fdp.strongest([f, fdp.EpsDelta(4.0, 0.0)])
    assert h.epsilon(1e-13) <= 4.0 and h.epsilon(1e-300) <= 4.0
    # the certified lower side of 1 − e^4·1e-300 (which is not a double): within 8 ulps
    lo, hi = h.bounds(1e-300)
    assert 1.0 - 8 * 2.0 ** -53 <= h(1e-300) == lo < 1.0 and hi == 1.0
    # where the pair is tighter, the envelope keeps it
    assert h.epsilon(1e-6) <= f.epsilon(1e-6) + 1e-9 < 4.0
    # and it stays a lower bound on the exact pair (n = 1: randomized response)
    g = fdp.strongest([fdp.shuffle_amplification(4.0, 1), fdp.EpsDelta(4.0, 0.0)])
    a = np.array([1e-300, 1e-12, 1e-3, 0.1, 0.5])
    assert np.all(g(a) <= fdp.RandomizedResponse(4.0).bounds(a)[1] + 1e-15)
