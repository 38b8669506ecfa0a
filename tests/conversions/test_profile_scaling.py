"""from_privacy_profile through the dual hull: against a brute-force evaluation, and at
the sizes another accountant's δ(ε) grid has (40 001 points)."""

import itertools

import numpy as np
import pytest

import fdp


def _lines(eps, delta, symmetric):
    b, s = [0.0], [0.0]
    for e, d in zip(eps, delta):
        b.append(1.0 - d)
        s.append(np.exp(e))
        if symmetric:
            b.append(np.exp(-e) * (1.0 - d))
            s.append(np.exp(-e))
    return np.array(b), np.array(s)


def _brute_delta(eps, delta, symmetric, t_eps):
    """1 − min_{α∈[0,1]} max_l (b_l + (t − s_l)α): a convex piecewise-linear function of α,
    minimised at 0, 1 or a crossing of two lines (all O(n²) crossings tried)."""
    b, s = _lines(eps, delta, symmetric)
    cands = [0.0, 1.0]
    for j, k in itertools.combinations(range(b.size), 2):
        if s[j] != s[k]:
            a = (b[j] - b[k]) / (s[j] - s[k])
            if 0.0 <= a <= 1.0:
                cands.append(a)
    a = np.array(cands)
    t = np.exp(t_eps)
    vals = np.max(b[:, None] + (t - s[:, None]) * a[None, :], axis=0)
    return 1.0 - vals.min()


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_hull_agrees_with_brute_force(seed, symmetric):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    lo = 0.0 if symmetric else -3.0
    eps = np.sort(rng.uniform(lo, 4.0, n))
    delta = rng.uniform(0.0, 0.3, n) * np.exp(-rng.uniform(0, 8, n))
    if not symmetric:   # a one-sided profile must respect δ(ε) ≥ 1 − e^ε
        delta = np.maximum(delta, -np.expm1(np.minimum(eps, 0.0)))
    f = fdp.from_privacy_profile(eps, delta, symmetric=symmetric)
    queries = np.concatenate([np.linspace(lo - 1.0, 5.0, 41), eps])
    got = f.delta(queries)
    ref = np.array([_brute_delta(eps, delta, symmetric, q) for q in queries])
    assert np.all(got >= ref - 1e-15)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
    # β: the max of every line, clipped at 0
    a = np.concatenate([[0.0, 1e-12], np.linspace(0, 1, 101)])
    b, s = _lines(eps, delta, symmetric)
    beta_ref = np.maximum(0.0, np.max(b[:, None] - s[:, None] * a[None, :], axis=0))
    np.testing.assert_allclose(f(a), beta_ref, rtol=1e-12, atol=1e-15)


def test_forty_thousand_points_of_a_gaussian_profile():
    g = fdp.Gaussian(1.0)
    eps = np.linspace(0.0, 20.0, 40001)
    f = fdp.from_privacy_profile(eps, g.delta(eps))
    # between grid points δ is the chord of the convex profile: above G_1's, and close
    q = np.array([0.25, 1.0, 3.3, 7.77])
    assert np.all(f.delta(q) >= g.delta(q))
    np.testing.assert_allclose(f.delta(q), g.delta(q), rtol=1e-6)
    lo, hi = f.epsilon_bounds(1e-7)
    truth = g.epsilon(1e-7)
    assert hi >= truth and hi == pytest.approx(truth, rel=1e-6)
    a = np.linspace(0.0, 1.0, 201)
    assert np.all(f(a) <= g(a) + 1e-15) and np.max(g(a) - f(a)) < 1e-6
