"""A DP-SGD run described as dp_accounting events and the same run given to ``fdp.dpsgd``
get one answer: the adapter hands DP-SGD-shaped trees to ``dpsgd`` itself."""

import numpy as np
import pytest

import fdp

dpa = pytest.importorskip("dp_accounting")


def _run(q, sigma, steps):
    return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)),
                                   steps)


def test_one_poisson_gaussian_run_is_bit_identical():
    f, g = fdp.from_dp_event(_run(0.01, 1.1, 1000)), fdp.dpsgd(1.1, 0.01, 1000)
    for d in (1e-3, 1e-5, 1e-9):
        assert tuple(f.epsilon_bounds(d)) == tuple(g.epsilon_bounds(d))
    assert tuple(f.delta_bounds(1.0)) == tuple(g.delta_bounds(1.0))
    assert f.status is fdp.Status.CERTIFIED


def test_several_distinct_steps_are_bit_identical():
    ev = dpa.ComposedDpEvent([_run(0.01, 1.1, 300), _run(0.02, 2.0, 200)])
    sigma = np.r_[[1.1] * 300, [2.0] * 200]
    rate = np.r_[[0.01] * 300, [0.02] * 200]
    a = fdp.from_dp_event(ev).epsilon_bounds(1e-5)
    b = fdp.dpsgd(sigma, rate, 500).epsilon_bounds(1e-5)
    assert tuple(a) == tuple(b)


def test_the_accountant_answers_like_dpsgd():
    from fdp.interop.dp_accounting import FdpAccountant
    acc = FdpAccountant().compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1)), 400)
    assert acc.get_epsilon(1e-5) == fdp.dpsgd(1.1, 0.01, 400).epsilon(1e-5)


def test_mixed_trees_are_still_certified():
    # a run and one unsampled Gaussian release: composed factor by factor
    ev = dpa.ComposedDpEvent([_run(0.01, 1.1, 200), dpa.GaussianDpEvent(5.0)])
    lo, hi = fdp.from_dp_event(ev).epsilon_bounds(1e-5)
    run_lo, _ = fdp.dpsgd(1.1, 0.01, 200).epsilon_bounds(1e-5)
    assert run_lo <= hi and lo <= hi
    # the composed curve is less private than the run alone
    assert hi >= run_lo
