"""Accuracy in the user's unit: ``width=`` on ``bounds``, ``delta_bounds`` and
``epsilon_bounds`` of a numeric result refines it from its kept factors.

Truth: closed forms. G_μ^{⊗k} = G_{μ√k} (DRS Cor 3.3), whose ε(δ), δ(ε) and β(α)
are exact (``fdp.Gaussian``); DP-SGD with q = 1 is the same composition.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.engine import compose_numeric
from fdp.engine.numeric import Numeric


@pytest.fixture(scope="module")
def coarse():
    # G_{0.3}^{100} = G_3, composed on a coarse grid (tol = 1e-2)
    return compose_numeric([(fdp.Gaussian(0.3), 100)], tol=1e-2)


TRUTH = fdp.Gaussian(3.0)


def test_epsilon_width_is_met_and_contains_the_truth(coarse):
    lo0, hi0 = coarse.epsilon_bounds(1e-5)
    assert hi0 - lo0 > 2e-4                      # the coarse bracket is wider than asked
    lo, hi = coarse.epsilon_bounds(1e-5, width=2e-4)
    truth = TRUTH.epsilon(1e-5)
    assert hi - lo <= 2e-4
    assert lo <= truth <= hi
    # the refined bracket lies inside the coarse one (an intersection of certified ones)
    assert lo0 <= lo and hi <= hi0


def test_beta_and_delta_width(coarse):
    alpha = np.array([1e-6, 1e-3, 0.1, 0.5])
    lo, hi = coarse.bounds(alpha, width=1e-5)
    assert np.max(hi - lo) <= 1e-5
    truth = TRUTH(alpha)
    assert np.all(lo <= truth) and np.all(truth <= hi)
    eps = np.array([0.0, 1.0, 5.0])
    dlo, dhi = coarse.delta_bounds(eps, width=1e-6)
    assert np.max(dhi - dlo) <= 1e-6
    dtruth = TRUTH.delta(eps)
    assert np.all(dlo <= dtruth) and np.all(dtruth <= dhi)


def test_delta_bounds_without_width(coarse):
    eps = np.linspace(0.0, 8.0, 9)
    lo, hi = coarse.delta_bounds(eps)
    truth = TRUTH.delta(eps)
    assert np.all(lo <= truth) and np.all(truth <= hi)
    assert isinstance(coarse.delta_bounds(1.0)[0], float)


def test_refined_is_cached_and_certified(coarse):
    r = coarse.refined(1e-3)
    assert r is coarse.refined(1e-3)
    assert isinstance(r, Numeric) and r.step < coarse.step
    lo, hi = r.epsilon_bounds(1e-5)
    assert lo <= TRUTH.epsilon(1e-5) <= hi


def test_dpsgd_width_with_full_batch_closed_form():
    # q = 1: every step is G_{1/σ}, T steps are G_{√T/σ} (both directions symmetric)
    f = fdp.dpsgd(1.0, 1.0, 16, tol=1e-2)
    lo, hi = f.epsilon_bounds(1e-6, width=1e-4)
    truth = fdp.Gaussian(4.0).epsilon(1e-6)
    assert hi - lo <= 1e-4 and lo <= truth <= hi


def test_width_errors_name_the_limit(coarse):
    with pytest.raises(ValueError, match="width"):
        coarse.epsilon_bounds(1e-5, width=0.0)
    with pytest.raises(ValueError, match="width"):
        coarse.bounds(0.1, width=-1.0)
    with pytest.raises(TypeError):
        coarse.delta_bounds(1.0, width="small")
    # no kept factors: nothing to recompose
    bare = Numeric(coarse.pess, coarse.opt, "bare", coarse.tol)
    with pytest.raises(ValueError, match="does not keep its factors"):
        bare.epsilon_bounds(1e-5, width=1e-9)
    # far below what doubles can resolve: the error says what limits it
    with pytest.raises(ValueError, match="cannot be met"):
        coarse.bounds(0.1, width=1e-17)


@settings(max_examples=6)
@given(k=st.integers(2, 60), mu=st.floats(0.05, 1.0), delta=st.sampled_from([1e-3, 1e-6, 1e-9]))
def test_width_property(k, mu, delta):
    f = compose_numeric([(fdp.Gaussian(mu), k)], tol=1e-2)
    truth = fdp.Gaussian(mu * math.sqrt(k)).epsilon(delta)
    w = 1e-3 * max(truth, 1.0)
    lo, hi = f.epsilon_bounds(delta, width=w)
    assert hi - lo <= w
    assert lo <= truth <= hi
