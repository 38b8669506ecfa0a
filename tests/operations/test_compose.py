"""Exact composition: closed forms stay closed, discrete pairs compose exactly (DRS §3)."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from scipy.special import comb

import fdp
from fdp.operations.compose import _classify


def test_gaussian_composition_stays_closed():
    assert fdp.Gaussian(1.0) @ fdp.Gaussian(1.0) == fdp.Gaussian(np.sqrt(2.0))
    assert fdp.compose(fdp.Gaussian(3.0), fdp.Gaussian(4.0)) == fdp.Gaussian(5.0)
    assert fdp.Gaussian(1.0) ** 4 == fdp.Gaussian(2.0)
    assert fdp.Gaussian(0.5) ** 0 == fdp.Identity()
    assert fdp.Gaussian(0.5) @ fdp.Identity() == fdp.Gaussian(0.5)
    assert fdp.compose(fdp.Identity(), fdp.Identity()) == fdp.Identity()


def test_rule_table_routes_by_kind():
    assert _classify(fdp.Identity())[0] == "neutral"
    assert _classify(fdp.Gaussian(1))[0] == "gaussian"
    assert _classify(fdp.EpsDelta(1))[0] == "eps_delta"
    assert _classify(fdp.RandomizedResponse(1, 3))[0] == "pair"
    assert _classify(fdp.Laplace(1))[0] == "numeric"


def kov_delta(n, eps, eps_target):
    """KOV Thm 3.3 / Murtagh–Vadhan form of δ for n-fold ε-DP at a target ε:
    δ = Σ_j C(n,j) max(0, e^{(n−j)ε} − e^{ε_t} e^{jε}) / (1 + e^ε)^n."""
    j = np.arange(n + 1)
    terms = comb(n, j) * np.maximum(0.0, np.exp((n - j) * eps) - np.exp(eps_target + j * eps))
    return terms.sum() / (1 + np.exp(eps)) ** n


def test_kov_printed_value():
    f = fdp.EpsDelta(0.5) ** 10
    assert f.delta(4.0) == pytest.approx(5.519627e-3, rel=1e-6)
    assert f.delta(4.0) == pytest.approx(kov_delta(10, 0.5, 4.0), rel=1e-12)


@pytest.mark.parametrize("n, eps", [(1, 1.0), (7, 0.3), (50, 0.1), (200, 0.05)])
def test_eps_delta_power_against_kov_formula(n, eps):
    f = fdp.EpsDelta(eps) ** n
    for t in np.linspace(0, n * eps, 9):
        assert f.delta(t) == pytest.approx(kov_delta(n, eps, t), rel=1e-9, abs=1e-15)


def test_eps_delta_power_with_delta_part():
    """f_{ε,δ}^{⊗n} = f_{ε,0}^{⊗n} ⊗ f_{0,1−(1−δ)^n}; (g ⊗ f_{0,δ})(α) = (1−δ) g(α/(1−δ))."""
    n, eps, d = 6, 0.4, 0.01
    f = fdp.EpsDelta(eps, d) ** n
    g = fdp.EpsDelta(eps) ** n
    dn = 1 - (1 - d) ** n
    a = np.linspace(0, 1, 301)
    inside = a <= 1 - dn
    ref = np.where(inside, (1 - dn) * g(np.minimum(a / (1 - dn), 1.0)), 0.0)
    np.testing.assert_allclose(f(a), ref, atol=1e-14)


def brute_force_product(pairs):
    """The product pair by explicit enumeration of outcome tuples."""
    ps, qs = [], []
    for combo in itertools.product(*[range(len(p)) for p, _ in pairs]):
        ps.append(np.prod([p[i] for (p, _), i in zip(pairs, combo)]))
        qs.append(np.prod([q[i] for (_, q), i in zip(pairs, combo)]))
    return fdp.from_pair(np.array(ps), np.array(qs))


def test_heterogeneous_pairs_compose_exactly():
    rng = np.random.default_rng(3)
    raw = [(rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))) for _ in range(3)]
    fs = [fdp.from_pair(p, q) for p, q in raw]
    a = np.linspace(0, 1, 401)
    np.testing.assert_allclose(fdp.compose(*fs)(a), brute_force_product(raw)(a), atol=1e-13)


def test_mixed_eps_delta_and_randomized_response_compose_exactly():
    e1, e2 = fdp.EpsDelta(0.3, 0.01), fdp.RandomizedResponse(0.7, 3)
    p1, p2 = e1._pair(), e2._pair()
    ref = brute_force_product([(p1.p, p1.q), (p2.p, p2.q), (p2.p, p2.q)])
    a = np.linspace(0, 1, 401)
    np.testing.assert_allclose((e1 @ e2 @ e2)(a), ref(a), atol=1e-13)


def test_homogeneous_eps_delta_power_is_fast_for_large_n():
    start = time.perf_counter()
    f = fdp.EpsDelta(0.01, 1e-9) ** 100_000
    eps = f.epsilon(1e-3)
    elapsed = time.perf_counter() - start
    assert np.isfinite(eps)
    # Not a timing assertion on the machine: a sanity bound 30× above the measured 0.05 s.
    assert elapsed < 5.0


def test_pair_composition_keeps_mass():
    f = fdp.RandomizedResponse(0.5, 4) ** 60
    pair = f._pair()
    assert abs(pair.p.sum() - 1) < 1e-12 and abs(pair.q.sum() - 1) < 1e-12


def test_power_refuses_bad_exponents():
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(ValueError):
            fdp.EpsDelta(1.0) ** bad


def test_delta_part_is_split_off_exactly():
    """G_μ ⊗ f_{0,δ} = (1−δ) G_μ(α/(1−δ)) (MATH.md §4), no numeric engine involved."""
    from fdp.operations.with_delta import WithDelta
    g, d = fdp.Gaussian(1.2), 1e-3
    r = g @ fdp.EpsDelta(0.0, d)
    assert isinstance(r, WithDelta) and r.d == d and r.is_exact
    a = np.linspace(0, 1, 1001)
    ref = np.where(a >= 1 - d, 0.0, (1 - d) * g(np.minimum(a / (1 - d), 1.0)))
    np.testing.assert_allclose(r(a), ref, atol=1e-15)
    eps = np.linspace(-3, 5, 17)
    np.testing.assert_allclose(r.delta(eps), d + (1 - d) * g.delta(eps), atol=1e-15)
    assert repr(r) == "Gaussian(mu=1.2) ⊗ EpsDelta(eps=0.0, delta=0.001)"


def test_split_agrees_with_the_engine_on_the_whole_pair():
    g, f = fdp.Gaussian(1.0), fdp.EpsDelta(0.5, 1e-4)
    split = g @ f
    whole = fdp.compose_numeric([(g, 1), (f, 1)], None)
    a = np.linspace(0.01, 0.99, 50)
    lo_s, hi_s = split.bounds(a)
    lo_w, hi_w = whole.bounds(a)
    # Both are certified brackets of the same function: they must overlap everywhere.
    assert np.all(lo_s <= hi_w + 1e-12) and np.all(lo_w <= hi_s + 1e-12)


def test_delta_part_of_an_asymmetric_base_inverts_exactly():
    """(g ⊗ f_{0,δ})⁻¹ = g⁻¹ ⊗ f_{0,δ}, checked against the generic numeric inverse."""
    from fdp.operations.inverse import Inverse
    from fdp.operations.with_delta import WithDelta
    g = fdp.Gaussian(1.0).subsample(0.3, direction="add")  # asymmetric
    f = WithDelta(g, 0.01)
    a = np.linspace(0, 1, 41)
    np.testing.assert_allclose(f.inverse()(a), Inverse(f)(a), atol=1e-9)
    assert f.inverse().inverse() == f
