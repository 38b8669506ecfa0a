"""Computations the memory budget cannot hold are refused before they start: the grid
is estimated first and a ValueError names the parameter and the largest value in reach.

"Before they start" is asserted by making the work itself fail the test (the
convolution, the recomposition), never by timing. That a refusal is never wrong is
checked against the engine itself: with a small budget, the refused configuration run
without the early check does hit the budget (or the width limit) later.
"""

from __future__ import annotations

import math
import re

import pytest

import fdp
from fdp.engine import compose_numeric, grid, lattice, readback
from fdp.engine.numeric import Numeric
from fdp.sgd import allocation


def _no_work(*args, **kwargs):
    raise AssertionError("the work started before the refusal")


# ----------------------------------------------------------------------
# random allocation: the y-grid of one block
# ----------------------------------------------------------------------
def test_random_allocation_over_the_budget_is_refused_before_any_convolution(monkeypatch):
    monkeypatch.setattr(allocation, "convolve", _no_work)
    monkeypatch.setattr(allocation, "binary_power", _no_work)
    with pytest.raises(ValueError) as exc:
        fdp.random_allocation(1.0, 10 ** 7)
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith("steps=10000000 ")
    largest = int(re.search(r"steps must be at most ([\d,]+)", msg).group(1).replace(",", ""))
    # the bound n·(1/h − m) with h = √tol·sd Z, sd Z = √(e^{1/σ²} − 1), m = 0 at σ = 1
    h = math.sqrt(1e-4) * math.sqrt(math.expm1(1.0))
    assert largest == int(lattice.MAX_POINTS * h)
    # selected splits the epoch into blocks: the largest steps scales with it
    with pytest.raises(ValueError, match=f"at most {4 * largest:,} at selected=4"):
        fdp.random_allocation(1.0, 10 ** 7, selected=4)


@pytest.mark.parametrize("sigma, steps", [(1.0, 40), (3.0, 200), (0.8, 25)])
def test_the_estimate_is_a_lower_bound_of_the_largest_convolution(monkeypatch, sigma, steps):
    """n·(1/h − m) never exceeds the largest array the block's sum really forms."""
    seen = []
    real = allocation.convolve

    def recording(a, b):
        seen.append(a.q.size + b.q.size - 1)
        return real(a, b)
    monkeypatch.setattr(allocation, "convolve", recording)
    tol = 1e-2
    allocation._block_laws(sigma, steps, tol)
    _, h, m, _, _ = allocation._coordinate(sigma, tol)
    assert steps * (1.0 / h - m) <= max(seen)


def test_a_refused_allocation_does_hit_the_budget_without_the_check(monkeypatch):
    """With a budget of 2^16 points, the first refused steps really do not fit."""
    small = 2 ** 16
    monkeypatch.setattr(allocation, "MAX_POINTS", small)
    monkeypatch.setattr(lattice, "MAX_POINTS", small)
    sigma, tol = 1.0, 1e-2
    with pytest.raises(ValueError) as exc:
        allocation.random_allocation(sigma, 10 ** 6, tol=tol)
    largest = int(re.search(r"at most ([\d,]+)", str(exc.value)).group(1).replace(",", ""))
    allocation.random_allocation(sigma, largest // 2, tol=tol)   # well inside: fine
    with pytest.raises(ValueError, match="steps="):
        allocation.random_allocation(sigma, largest + 1, tol=tol)
    with pytest.raises(MemoryError):                  # the late failure the check avoids
        allocation._block_laws(sigma, largest + 1, tol)


# ----------------------------------------------------------------------
# width=: the recomposition a width asks for
# ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def run():
    return fdp.dpsgd(1.1, 0.01, 100)


def test_an_unreachable_width_is_refused_before_recomposing(run, monkeypatch):
    monkeypatch.setattr(Numeric, "refined", _no_work)
    with pytest.raises(ValueError) as exc:
        run.epsilon_bounds(1e-5, width=1e-12)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("width=1e-12 cannot be met")
    best = float(re.search(r"no width below about ([0-9.e+-]+) is in reach", msg).group(1))
    assert 1e-12 < best < 1e-6
    with pytest.raises(ValueError, match="is in reach"):
        run.bounds(0.1, width=1e-17)
    with pytest.raises(ValueError, match="is in reach"):
        run.delta_bounds(1.0, width=1e-17)


def test_a_reachable_width_is_still_met(run):
    lo, hi = run.epsilon_bounds(1e-5, width=1e-6)
    assert hi - lo <= 1e-6


def test_smallest_tol_is_where_the_grid_reaches_the_budget(run):
    groups = list(run.source[0].groups)
    tol = grid.smallest_tol(groups)
    grid.choose_step(groups, tol * 1.01, coarsen=False)        # fits
    with pytest.raises(lattice.GridBudgetExceeded):
        grid.choose_step(groups, tol * 0.9, coarsen=False)     # does not


def test_a_refused_width_is_not_met_by_the_refinement_either(monkeypatch):
    """With a budget of 2^17 points, half the narrowest predicted width fails in the
    refinement loop itself (run with the early check switched off)."""
    small = 2 ** 17
    monkeypatch.setattr(grid, "MAX_POINTS", small)
    monkeypatch.setattr(lattice, "MAX_POINTS", small)
    f = compose_numeric([(fdp.Laplace(0.2), 30)], tol=1e-3)
    with pytest.raises(ValueError) as exc:
        f.epsilon_bounds(1e-6, width=1e-14)
    best = float(re.search(r"below about ([0-9.e+-]+)", str(exc.value)).group(1))
    monkeypatch.setattr(readback, "reachable_width", lambda *a: None)
    with pytest.raises(ValueError, match="cannot be met"):
        f.epsilon_bounds(1e-6, width=best / 2)
