"""A tilted recomposition over the memory budget is not an error where the plain
bracket answers, and is a ValueError (never a MemoryError) where it does not.

fdp.dpsgd(1.0, 1e-4, 1000).epsilon_bounds(1e-12) raised GridBudgetExceeded (a
MemoryError) from the tilted refinement of the default bracket, though the plain
read-back had a certified answer.
"""

from __future__ import annotations

import numpy as np
import pytest

import fdp
from fdp._constants import PLAIN_READBACK_FLOOR
from fdp.engine.lattice import GridBudgetExceeded


def _over_budget(self, delta):
    raise GridBudgetExceeded("the lattice would need 4.7e7 grid points (test)")


def test_plain_bracket_is_kept_when_the_tilt_is_over_budget(monkeypatch):
    f = fdp.compose_numeric([(fdp.Gaussian(1.0).subsample(0.1), 50)], tol=1e-3)
    delta = 3.0 * PLAIN_READBACK_FLOOR * f.delta_floor        # plain, near the floor
    plain = f._epsilon_plain(np.array([delta]))
    monkeypatch.setattr(type(f), "_tilted_bracket", _over_budget)
    lo, hi = f.epsilon_bounds(delta)
    assert (lo, hi) == (float(plain[0][0]), float(plain[1][0]))


def test_below_the_plain_floor_the_budget_is_a_value_error(monkeypatch):
    f = fdp.compose_numeric([(fdp.Gaussian(1.0).subsample(0.1), 50)], tol=1e-3)
    delta = 0.1 * PLAIN_READBACK_FLOOR * f.delta_floor
    monkeypatch.setattr(type(f), "_tilted_bracket", _over_budget)
    with pytest.raises(ValueError, match="memory budget"):
        f.epsilon_bounds(delta)


@pytest.mark.slow
def test_newton_window_search_stops_before_overflow():
    # q = 1e-12 at σ = 0.05: the Chernoff search's Newton step ran to t = inf and
    # formed inf·0 (a RuntimeWarning, an error under this suite's filter)
    lo, hi = fdp.dpsgd(0.05, 1e-12, 2).epsilon_bounds(1e-12)
    assert 0.0 < lo <= hi < np.inf
    assert hi - lo <= 1e-3 * hi
