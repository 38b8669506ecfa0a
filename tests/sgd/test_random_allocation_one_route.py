"""Random allocation is one computation (issue 30, item 4): the two API contracts
``fdp.random_allocation(σ, t, selected=1, epochs=e)`` and
``fdp.dpsgd(σ, 1/t, T, sampling="random_allocation")`` (each record in exactly one of
the t = 1/q steps of every epoch, ⌈T/t⌉ epochs, a last partial epoch counted whole: it
is a prefix of a full one, i.e. a post-processing of it) give bit-identical brackets,
and the command line prints that same bracket."""

from __future__ import annotations

import numpy as np
import pytest

import fdp
from fdp.cli import main

ALPHA = np.array([0.0, 1e-12, 1e-6, 1e-3, 0.05, 0.3, 0.7, 1.0])


def _same(f, g):
    assert f.status == g.status == fdp.Status.CERTIFIED
    assert tuple(f.epsilon_bounds(1e-5)) == tuple(g.epsilon_bounds(1e-5))
    assert tuple(f.delta_bounds(1.0)) == tuple(g.delta_bounds(1.0))
    flo, fhi = f.bounds(ALPHA)
    glo, ghi = g.bounds(ALPHA)
    assert np.array_equal(flo, glo) and np.array_equal(fhi, ghi)
    assert np.array_equal(f(ALPHA), g(ALPHA))


@pytest.mark.parametrize("sigma,t,steps,epochs,tol", [
    (2.0, 10, 20, 2, 1e-2),      # whole epochs
    (2.0, 10, 19, 2, 1e-2),      # a partial last epoch counts whole
    (2.0, 10, 21, 3, 1e-2),
    (1.5, 4, 4, 1, None),        # the question-sized default grid
    (3.0, 1, 3, 3, 1e-2),        # q = 1: every record in every step
])
def test_dpsgd_random_allocation_is_fdp_random_allocation(sigma, t, steps, epochs, tol):
    via_api = fdp.random_allocation(sigma, t, selected=1, epochs=epochs, tol=tol)
    via_dpsgd = fdp.dpsgd(sigma, 1.0 / t, steps, sampling="random_allocation", tol=tol)
    _same(via_api, via_dpsgd)


def test_the_two_routes_refuse_the_same_way():
    with pytest.raises(ValueError, match="sample_rate"):
        fdp.dpsgd(2.0, 0.3, 10, sampling="random_allocation")     # 1/q not whole
    with pytest.raises(ValueError, match="noise_multiplier"):
        fdp.random_allocation(0.0, 10)
    with pytest.raises(ValueError, match="noise_multiplier"):
        fdp.dpsgd(0.0, 0.1, 10, sampling="random_allocation")


def test_cli_prints_the_same_bracket(capsys):
    code = main(["dpsgd", "--noise-multiplier", "2.0", "--sample-rate", "0.1", "--steps",
                 "19", "--sampling", "random_allocation", "--tol", "1e-2"])
    out = capsys.readouterr().out
    assert code == 0
    lo, hi = fdp.random_allocation(2.0, 10, selected=1, epochs=2, tol=1e-2).epsilon_bounds(1e-5)
    assert f"epsilon in [{lo:.4f}, {hi:.4f}]" in out
    assert "2 epoch(s) accounted" in out
