"""The Opacus-protocol accountant on its own (no torch, no Opacus needed).

Truths: Opacus' published reference bracket, closed-form GDP (q = 1 makes every step
a Gaussian mechanism, so T steps are G_{√T/σ}), scipy's normal law.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import fdp
from fdp.interop.opacus import FdpAccountant


def test_opacus_reference_case_bracket():
    # Opacus' test case: PRV upper 6.7774 with eps_error 0.01, so the truth is in
    # [6.757, 6.778]; fdp's certified bracket must lie inside and be ≤ 1e-3·ε wide
    # (the default dpsgd question: ε within 1e-3·max(ε, 0.01)).
    acct = FdpAccountant()
    acct.history = [(1.5, 0.04, 2249)]
    lo, hi = acct.get_epsilon_bounds(1e-5)
    assert 6.757 <= lo <= hi <= 6.778
    assert hi - lo <= 1e-3 * hi
    assert acct.get_epsilon(1e-5) == hi
    # keyword arguments Opacus forwards to its own accountants are ignored
    assert acct.get_epsilon(1e-5, eps_error=0.5, alphas=[2, 3], poisson=False) == hi
    assert acct.get_epsilon(delta=1e-5) == hi


def test_step_merges_like_opacus_and_len_counts_steps():
    acct = FdpAccountant()
    for _ in range(3):
        acct.step(noise_multiplier=1.0, sample_rate=0.1)
    acct.step(noise_multiplier=2.0, sample_rate=0.1)
    acct.step(noise_multiplier=2.0, sample_rate=0.1)
    assert acct.history == [(1.0, 0.1, 3), (2.0, 0.1, 2)]
    assert len(acct) == 5
    assert FdpAccountant.mechanism() == "fdp"
    # heterogeneous history == per-step dpsgd
    truth = fdp.dpsgd([1.0, 1.0, 1.0, 2.0, 2.0], 0.1, 5)
    assert acct.get_epsilon_bounds(1e-5) == truth.epsilon_bounds(1e-5)


@pytest.mark.slow
def test_history_written_directly_is_recomputed():
    acct = FdpAccountant()
    acct.history = [(1.0, 0.5, 10)]
    first = acct.get_epsilon(1e-5)
    acct.history = [(2.0, 0.5, 10)]                 # Opacus' calibration does this
    assert acct.get_epsilon(1e-5) < first
    acct.history[0] = (1.0, 0.5, 10)                 # in-place edits are seen too
    assert acct.get_epsilon(1e-5) == first


@pytest.mark.parametrize("sigma,steps", [(1.0, 4), (3.0, 100), (0.7, 1)])
def test_full_batch_is_gdp_closed_form(sigma, steps):
    acct = FdpAccountant()
    acct.history = [(sigma, 1.0, steps)]
    mu = math.sqrt(steps) / sigma
    lo, hi = acct.get_epsilon_bounds(1e-5)
    truth = fdp.gdp_epsilon(mu, 1e-5)
    assert lo - 1e-9 <= truth <= hi + 1e-9
    adv = acct.get_advantage()
    assert adv >= 2 * norm.cdf(mu / 2) - 1 - 1e-12                   # certified upper
    assert adv == pytest.approx(2 * norm.cdf(mu / 2) - 1, abs=1e-3)
    fpr = np.array([1e-3, 0.01, 0.1])
    tpr = acct.get_tpr(fpr)
    truth_tpr = norm.sf(norm.isf(fpr) - mu)                            # 1 − G_μ(fpr)
    assert np.all(tpr >= truth_tpr - 1e-12) and np.allclose(tpr, truth_tpr, atol=1e-3)
    assert isinstance(acct.get_tpr(0.05), float)
    assert isinstance(acct.get_tradeoff(), fdp.Gaussian)                # closed form
    assert mu <= acct.get_mu() <= mu * (1 + 1e-15)


def test_subsampled_read_outs_are_on_the_safe_side():
    acct = FdpAccountant()
    acct.history = [(1.1, 0.05, 200)]
    f = acct.get_tradeoff()
    fpr = np.array([1e-4, 1e-2, 0.2])
    lower, upper = f.bounds(fpr)
    assert np.array_equal(acct.get_tpr(fpr), 1.0 - lower)
    assert np.all(acct.get_tpr(fpr) >= 1.0 - upper)
    assert acct.get_advantage() >= float(np.max(1.0 - fpr - upper))


def test_degenerate_histories():
    acct = FdpAccountant()
    assert acct.get_epsilon(1e-5) == 0.0 and len(acct) == 0
    acct.history = [(1.0, 0.0, 100), (math.inf, 0.3, 5), (1.0, 0.2, 0)]
    assert acct.get_epsilon(1e-5) == 0.0
    acct.history = [(0.0, 0.3, 1)]                    # a noiseless step: no guarantee
    assert acct.get_epsilon(1e-5) == math.inf
    assert acct.get_epsilon_bounds(0.5) == (math.inf, math.inf)


def test_state_dict_round_trip_and_errors():
    acct = FdpAccountant()
    acct.history = [(1.2, 0.01, 50)]
    state = acct.state_dict()
    assert state == {"history": [(1.2, 0.01, 50)], "mechanism": "fdp"}
    other = FdpAccountant()
    other.load_state_dict(state)
    assert other.get_epsilon(1e-5) == acct.get_epsilon(1e-5)
    with pytest.raises(ValueError, match="mechanism 'rdp'"):
        other.load_state_dict({"history": [], "mechanism": "rdp"})
    with pytest.raises(ValueError, match="history"):
        other.load_state_dict({"mechanism": "fdp"})
    with pytest.raises(ValueError, match="empty"):
        other.load_state_dict({})


def test_missing_and_bad_arguments():
    acct = FdpAccountant()
    with pytest.raises(TypeError, match="sample_rate="):
        acct.step(noise_multiplier=1.0)
    with pytest.raises(TypeError, match="noise_multiplier="):
        acct.step(sample_rate=0.1)
    with pytest.raises(TypeError, match="needs delta"):
        acct.get_epsilon()
    with pytest.raises(ValueError, match="sample_rate"):
        acct.step(noise_multiplier=1.0, sample_rate=1.5)
    with pytest.raises(ValueError, match="noise_multiplier"):
        acct.step(noise_multiplier=-1.0, sample_rate=0.5)
    with pytest.raises(ValueError, match="delta"):
        acct.get_epsilon(2.0)
    acct.history = [(1.0, 0.1)]
    with pytest.raises(ValueError, match=r"history\[0\]"):
        acct.get_epsilon(1e-5)
    acct.history = [(1.0, 0.1, -3)]
    with pytest.raises(ValueError, match=r"history\[0\] num_steps"):
        acct.get_epsilon(1e-5)


def test_optimizer_hook_uses_accumulated_iterations():
    class Optim:
        noise_multiplier = 1.3
        accumulated_iterations = 2
    acct = FdpAccountant()
    hook = acct.get_optimizer_hook_fn(sample_rate=0.01)
    hook(Optim())
    hook(Optim())
    assert acct.history == [(1.3, 0.02, 2)]


@settings(max_examples=5)     # each draw composes up to 200 DP-SGD steps; 5 cover the claim
@given(st.floats(0.5, 5.0), st.floats(1e-3, 1.0), st.integers(1, 200))
@pytest.mark.slow
def test_property_more_steps_never_less_epsilon(sigma, q, steps):
    acct = FdpAccountant()
    acct.history = [(sigma, q, steps)]
    lo, hi = acct.get_epsilon_bounds(1e-5)
    assert lo <= hi
    acct.step(noise_multiplier=sigma, sample_rate=q)
    lo2, hi2 = acct.get_epsilon_bounds(1e-5)
    assert hi2 >= lo - 1e-9
    assert 0.0 <= acct.get_advantage() <= 1.0
