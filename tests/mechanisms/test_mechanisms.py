"""Mechanisms: their exact guarantees, vectorised release, sensitivities, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import fdp
from fdp.mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
    sensitivity,
)


# ----------------------------------------------------------------------
# Guarantees
# ----------------------------------------------------------------------
def test_gaussian_tradeoff_is_G_delta_over_sigma():
    m = GaussianMechanism(sensitivity=1.0, sigma=2.0)
    assert m.tradeoff == fdp.Gaussian(0.5)
    assert GaussianMechanism(3.0, 1.5).tradeoff == fdp.Gaussian(2.0)


def test_laplace_tradeoff_is_L_delta_over_b_and_stronger_than_pure():
    m = LaplaceMechanism(sensitivity=2.0, scale=4.0)
    assert m.tradeoff == fdp.Laplace(0.5)
    assert m.tradeoff_l1 == fdp.EpsDelta(0.5)
    a = np.linspace(0, 1, 1001)
    assert np.all(m.tradeoff(a) >= m.tradeoff_l1(a) - 1e-15)


def test_laplace_tradeoff_matches_the_two_laplace_laws():
    # Independent: T(Lap(0,b), Lap(Δ,b)) by Neyman–Pearson with thresholds on x
    # (the likelihood ratio is monotone in x).
    d, b = 1.3, 0.9
    t = np.linspace(-6, 8, 2001)
    alpha = stats.laplace.sf(t, 0, b)
    beta = stats.laplace.cdf(t, d, b)
    np.testing.assert_allclose(LaplaceMechanism(d, b).tradeoff(alpha), beta, atol=1e-12)


def test_randomized_response_tradeoff_is_the_family():
    m = RandomizedResponseMechanism(eps=1.0, k=4)
    assert m.tradeoff == fdp.RandomizedResponse(1.0, 4)
    # Independent: the pmfs of outputs for inputs 0 and 1.
    z = np.e + 3
    p = np.array([np.e, 1, 1, 1]) / z
    q = np.array([1, np.e, 1, 1]) / z
    a = np.linspace(0, 1, 201)
    np.testing.assert_allclose(m.tradeoff(a), fdp.from_pair(p, q)(a), atol=1e-14)
    assert m.keep_probability == pytest.approx(np.e / z, rel=1e-15)


def test_exponential_guarantee_is_bounded_range_and_pairs_meet_pure_eps():
    m = ExponentialMechanism(None, sensitivity=1.0, eps=1.0)
    assert m.tradeoff == fdp.BoundedRange(1.0)   # ε-BR, stronger than f_{ε,0}
    rng = np.random.default_rng(5)
    for k in (2, 5, 40):
        for _ in range(20):
            u = rng.uniform(-3, 3, k)
            up = u + rng.uniform(-1, 1, k)   # |u − u'|∞ ≤ Δ = 1
            pair = m.pair_tradeoff(u, up)
            assert pair.pure_epsilon() <= 1.0 + 1e-12


def test_exponential_worst_case_approaches_eps_with_many_candidates():
    # u = 0, u' = (+Δ, −Δ, …, −Δ): loss at candidate 0 is log(k e^{ε/2}/(e^{ε/2} + (k−1)e^{−ε/2})).
    eps = 1.0
    m = ExponentialMechanism(None, 1.0, eps)
    for k in (2, 10, 1000, 100000):
        u = np.zeros(k)
        up = -np.ones(k)
        up[0] = 1.0
        exact = np.log(k * np.exp(eps / 2) / (np.exp(eps / 2) + (k - 1) * np.exp(-eps / 2)))
        pair = m.pair_tradeoff(u, up)
        assert pair.log_ratio.max() == pytest.approx(exact, rel=1e-12)
    assert exact > 0.99 * eps


def test_exponential_probabilities_are_the_formula():
    m = ExponentialMechanism(lambda data: np.array([sum(data), len(data), 0.0]), 2.0, 0.7)
    p = m.probabilities([1.0, 2.0])
    w = np.exp(0.7 * np.array([3.0, 2.0, 0.0]) / 4.0)
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-14)
    # extreme scores do not overflow
    p = ExponentialMechanism(None, 1.0, 1.0).probabilities([1e6, 0.0])
    assert p[0] == 1.0 and p[1] == 0.0


# ----------------------------------------------------------------------
# Release: shapes, vectorisation, distributions
# ----------------------------------------------------------------------
def test_release_shapes_and_scalars():
    g = GaussianMechanism(1.0, 1.0)
    assert isinstance(g.release(3.0, rng=0), float)
    assert g.release(np.zeros((3, 4)), rng=0).shape == (3, 4)
    assert isinstance(LaplaceMechanism(1.0, 1.0).release(1, rng=0), float)
    rr = RandomizedResponseMechanism(1.0, 3)
    assert isinstance(rr.release(2, rng=0), int)
    assert rr.release(np.array([[0, 1], [2, 2]]), rng=0).shape == (2, 2)
    em = ExponentialMechanism(None, 1.0, 1.0)
    assert isinstance(em.release([0.0, 1.0], rng=0), int)
    assert em.release(np.zeros((7, 3)), rng=0).shape == (7,)
    em_c = ExponentialMechanism(None, 1.0, 1.0, candidates=("a", "b"))
    assert em_c.release([0.0, 1.0], rng=0) in ("a", "b")


def test_release_is_reproducible_with_a_seed():
    g = GaussianMechanism(1.0, 2.0)
    np.testing.assert_array_equal(g.release(np.zeros(5), rng=11), g.release(np.zeros(5), rng=11))
    gen = np.random.default_rng(3)
    assert g.release(0.0, rng=gen) != g.release(0.0, rng=gen)


def test_gaussian_and_laplace_noise_laws():
    x = GaussianMechanism(1.0, 2.0).release(np.full(20000, 5.0), rng=1)
    assert stats.kstest(x, stats.norm(5.0, 2.0).cdf).pvalue > 1e-3
    y = LaplaceMechanism(1.0, 0.5).release(np.full(20000, -1.0), rng=2)
    assert stats.kstest(y, stats.laplace(-1.0, 0.5).cdf).pvalue > 1e-3


def test_randomized_response_frequencies():
    m = RandomizedResponseMechanism(np.log(3.0), k=3)   # keep 3/5, others 1/5 each
    out = m.release(np.ones(30000, dtype=int), rng=4)
    freq = np.bincount(out, minlength=3) / out.size
    np.testing.assert_allclose(freq, [0.2, 0.6, 0.2], atol=0.015)


def test_exponential_frequencies_vectorised_rows():
    m = ExponentialMechanism(None, 1.0, 2.0)
    scores = np.tile([0.0, 1.0, 2.0], (30000, 1))
    out = m.release(scores, rng=6)
    freq = np.bincount(out, minlength=3) / out.size
    np.testing.assert_allclose(freq, m.probabilities([0.0, 1.0, 2.0]), atol=0.015)
    s = m.sample([0.0, 1.0, 2.0], 30000, rng=7)
    np.testing.assert_allclose(np.bincount(s, minlength=3) / s.size,
                               m.probabilities([0.0, 1.0, 2.0]), atol=0.015)


# ----------------------------------------------------------------------
# Sensitivities
# ----------------------------------------------------------------------
def test_sensitivities_by_relation():
    assert sensitivity.count("add_remove") == 1.0
    assert sensitivity.count("replace_one") == 1.0
    assert sensitivity.bounded_sum(-2.0, 5.0, "add_remove") == 5.0
    assert sensitivity.bounded_sum(-2.0, 5.0, "replace_one") == 7.0
    assert sensitivity.bounded_mean(0.0, 1.0, 100, "replace_one") == pytest.approx(0.01)
    assert sensitivity.bounded_mean(0.0, 1.0, 100, "add_remove") == pytest.approx(1 / 101)
    assert sensitivity.histogram("add_remove", "l1") == 1.0
    assert sensitivity.histogram("replace_one", "l1") == 2.0
    assert sensitivity.histogram("replace_one", "l2") == pytest.approx(np.sqrt(2))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20), st.floats(0.0, 1.0),
       st.integers(0, 19))
def test_bounded_mean_sensitivity_holds_for_replace_and_add(xs, new, i):
    xs = np.array(xs)
    n = xs.size
    i = i % n
    ys = xs.copy()
    ys[i] = new
    assert abs(xs.mean() - ys.mean()) <= sensitivity.bounded_mean(0, 1, n, "replace_one") + 1e-15
    zs = np.append(xs, new)
    assert abs(xs.mean() - zs.mean()) <= sensitivity.bounded_mean(0, 1, n, "add_remove") + 1e-15


def test_histogram_sensitivity_holds():
    rng = np.random.default_rng(0)
    for _ in range(50):
        data = rng.integers(0, 5, 30)
        h = np.bincount(data, minlength=5)
        other = data.copy()
        other[0] = (other[0] + 1 + rng.integers(0, 4)) % 5
        h2 = np.bincount(other, minlength=5)
        assert np.abs(h - h2).sum() <= sensitivity.histogram("replace_one", "l1")
        assert np.linalg.norm(h - h2) <= sensitivity.histogram("replace_one", "l2") + 1e-15
        h3 = np.bincount(data[1:], minlength=5)
        assert np.abs(h - h3).sum() <= sensitivity.histogram("add_remove", "l1")


# ----------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------
@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan])
def test_sensitivity_and_noise_must_be_positive_finite(bad):
    with pytest.raises(ValueError, match="sensitivity"):
        GaussianMechanism(bad, 1.0)
    with pytest.raises(ValueError, match="sigma"):
        GaussianMechanism(1.0, bad)
    with pytest.raises(ValueError, match="scale"):
        LaplaceMechanism(1.0, bad)
    with pytest.raises(ValueError, match="sensitivity"):
        ExponentialMechanism(None, bad, 1.0)


def test_non_finite_values_are_refused():
    with pytest.raises(ValueError, match="finite"):
        GaussianMechanism(1.0, 1.0).release([0.0, np.nan])
    with pytest.raises(ValueError, match="finite"):
        LaplaceMechanism(1.0, 1.0).release(np.inf)
    with pytest.raises(ValueError, match="finite"):
        ExponentialMechanism(None, 1.0, 1.0).release([0.0, np.inf])


def test_wrong_shaped_utilities_are_refused():
    em = ExponentialMechanism(lambda d: 3.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="shape"):
        em.release(None)
    em = ExponentialMechanism(None, 1.0, 1.0, candidates=("a", "b", "c"))
    with pytest.raises(ValueError, match="one score per candidate"):
        em.release([0.0, 1.0])
    with pytest.raises(ValueError, match="shape"):
        ExponentialMechanism(None, 1.0, 1.0).release(np.zeros((2, 0)))
    with pytest.raises(TypeError, match="callable"):
        ExponentialMechanism("not callable", 1.0, 1.0)
    with pytest.raises(ValueError, match="shape"):
        ExponentialMechanism(None, 1.0, 1.0).pair_tradeoff([0.0, 1.0], [0.0, 1.0, 2.0])


def test_bad_categories_and_relations():
    rr = RandomizedResponseMechanism(1.0, 3)
    with pytest.raises(ValueError, match=r"\[0, 2\]"):
        rr.release([0, 3])
    with pytest.raises(ValueError):
        rr.release([0.5])
    with pytest.raises(ValueError, match="k"):
        RandomizedResponseMechanism(1.0, 1)
    with pytest.raises(ValueError, match="neighbouring"):
        sensitivity.count("swap")
    with pytest.raises(ValueError, match="upper"):
        sensitivity.bounded_sum(1.0, 1.0)
    with pytest.raises(TypeError, match="rng"):
        GaussianMechanism(1.0, 1.0).release(0.0, rng="seed")


def test_mechanisms_are_frozen():
    m = GaussianMechanism(1.0, 1.0)
    with pytest.raises(Exception):
        m.sigma = 2.0
