"""fdp.engine.compose_prefixes: every row certified, the last equal to compose's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fdp
from fdp.engine import compose, compose_prefixes
from fdp.operations.subsample import PoissonAdd


def test_gaussian_prefixes_bracket_the_closed_form():
    """G_1^{⊗n} = G_{√n} (DRS Cor 3.3) inside every row's bracket."""
    rows = compose_prefixes([fdp.Gaussian(1.0)], [[1], [4], [9]], 1e-3)
    a = np.array([1e-3, 0.05, 0.3])
    for n, num in zip((1, 4, 9), rows):
        lo, hi = num.bounds(a)
        exact = fdp.Gaussian(math.sqrt(n))(a)
        assert np.all(lo <= exact) and np.all(exact <= hi) and np.all(hi - lo < 1e-3)


def test_last_row_is_compose_of_the_whole_schedule():
    f = PoissonAdd(fdp.Gaussian(1.0), 0.05)
    *_, last = compose_prefixes([f], [[10], [40]], directions=("f", "inverse"),
                                grid="question")
    ref = compose([(f, 40)], directions=("f", "inverse"), grid="question")
    for x, y in zip(last.pess + last.opt, ref.pess + ref.opt):
        assert x.k0 == y.k0 and x.slack == y.slack and np.array_equal(x.q, y.q)
    assert last.epsilon_bounds(1e-5) == ref.epsilon_bounds(1e-5)


def test_two_factors_and_a_missing_one():
    """Laplace(1) then Gaussian(1): a row without the Gaussian is Laplace alone, whose
    δ(ε) has a closed form."""
    lap, gau = fdp.Laplace(1.0), fdp.Gaussian(1.0)
    only_lap, both = compose_prefixes([lap, gau], [[2, 0], [2, 3]], 1e-3)
    eps = np.array([0.0, 0.5, 1.5])
    lo, hi = only_lap.delta_bounds(eps)
    exact = (lap ** 2).delta(eps)
    assert np.all(lo <= exact + 1e-12) and np.all(exact <= hi + 1e-12)
    ref = compose([(lap, 2), (gau, 3)], 1e-3)
    b, r = both.epsilon_bounds(1e-3), ref.epsilon_bounds(1e-3)
    assert b.lo <= r.hi and r.lo <= b.hi


@pytest.mark.parametrize("counts", [[], [[0]], [[1, 2]], [[-1]]])
def test_bad_counts_are_refused(counts):
    with pytest.raises(ValueError, match="count"):
        compose_prefixes([fdp.Gaussian(1.0)], counts)


def test_bad_grid_and_directions_are_refused():
    with pytest.raises(ValueError, match="grid"):
        compose_prefixes([fdp.Gaussian(1.0)], [[1]], grid="fine")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="directions"):
        compose_prefixes([fdp.Gaussian(1.0)], [[1]], directions=("inverse",))
    with pytest.raises(ValueError, match="labels"):
        compose_prefixes([fdp.Gaussian(1.0)], [[1], [2]], labels=["one"])
