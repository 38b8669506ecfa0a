"""Edges of the issue-33 accountants: extreme σ, T, q ∈ {0, 1}, ε = 700, α = 1e-300, and
refusal of non-guarantees. Independent values: closed forms of G_μ and L_μ."""

import math

import numpy as np
import pytest

import fdp
from fdp.classical.rdp import rdp_of


def test_tree_aggregation_extreme_sigma_and_steps():
    # μ = √depth/σ ≈ 3e-300: ε(1e-300) is of the order of μ, not NaN
    b = fdp.tree_aggregation(1e300, 1000).epsilon_bounds(1e-300)
    assert 0.0 <= b.lo <= b.hi < 1e-299
    assert fdp.tree_aggregation(1.0, 0) == fdp.Gaussian(0.0)
    # T = 1e18: depth = 60 (bit length), μ = √60
    assert fdp.tree_aggregation(1.0, 10**18).gdp_mu() == pytest.approx(math.sqrt(60), rel=1e-12)
    b = fdp.tree_aggregation(1e-300, 1000).epsilon_bounds(1e-5)
    assert b.hi == math.inf and not np.isnan(b.lo)


def test_banded_mf_sample_rate_zero_and_one():
    assert tuple(fdp.banded_mf(1.0, 0.0, 100, 4).epsilon_bounds(1e-5)) == (0.0, 0.0)
    # q = 1: ⌈100/4⌉ = 25 full Gaussian steps, G_{5}: ε(1e-5) by the closed form
    b = fdp.banded_mf(1.0, 1.0, 100, 4).epsilon_bounds(1e-5)
    assert b.lo <= fdp.Gaussian(5.0).epsilon(1e-5) <= b.hi


def test_repeat_and_select_edges_and_refusal():
    f = fdp.repeat_and_select(fdp.Gaussian(0.5), 10.0, 1.0)
    assert f.status is fdp.Status.CERTIFIED
    lo, hi = f.epsilon_bounds(1e-300)
    assert 0 < lo <= hi < math.inf
    lo, hi = f.delta_bounds(700.0)
    assert 0.0 <= lo <= hi < 1e-300
    with pytest.raises(fdp.NotAGuarantee):
        fdp.repeat_and_select(fdp.edgeworth([fdp.Laplace(1.0)] * 3), 10.0, 1.0)


def test_gaussian_range_at_the_edges():
    g = fdp.GaussianRange(1.0, 1.1)
    lo, hi = g.bounds(1e-300)
    assert lo <= float(fdp.Gaussian(1.05)(1e-300)) <= hi
    lo, hi = g.delta_bounds(700.0)
    assert lo <= fdp.Gaussian(1.05).delta(700.0) <= hi


def test_rdp_of_limit_orders_at_large_mu():
    # KL of L_μ is μ − 1 + e^{−μ}; D_∞ = μ
    r = rdp_of(fdp.Laplace(700.0), [1.0, float("inf")])
    assert r.tolist() == pytest.approx([699.0, 700.0], rel=1e-15)


def test_profile_function_is_an_approximation_unless_certified():
    p = fdp.from_privacy_profile([0.5, 1.0], lambda e: np.exp(-e) * 1e-3)
    with pytest.raises(fdp.NotAGuarantee):
        fdp.Accountant(budget=fdp.Gaussian(5.0)).spend(p)
