"""fdp.sgd.trajectory: agreement with single-T fdp.dpsgd, closed forms, edges."""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import pytest

import fdp
from fdp.conversions import gdp_epsilon
from fdp.sgd import Trajectory, trajectory

Q = 256 / 60000


def _agree(lo: float, hi: float, ref: fdp.Bracket, rel: float = 1e-9) -> str:
    """'identical', 'nested' (one bracket inside the other, up to a relative ``rel`` of
    round-off: two grids a few ulps apart) or 'overlap'; both are certified, so they
    must overlap in any case."""
    assert lo <= ref.hi and ref.lo <= hi, (lo, hi, ref)
    if lo == ref.lo and hi == ref.hi:
        return "identical"
    r = rel * max(hi, 1e-300)
    inside = (lo >= ref.lo - r and hi <= ref.hi + r) or (ref.lo >= lo - r and ref.hi <= hi + r)
    return "nested" if inside else "overlap"


def test_every_point_agrees_with_fdp_dpsgd_at_that_T():
    tr = trajectory(1.1, 0.01, 400, 1e-5, points=5)
    assert tr.steps.tolist() == [80, 160, 240, 320, 400]
    kinds = [_agree(lo, hi, fdp.dpsgd(1.1, 0.01, int(t)).epsilon_bounds(1e-5))
             for t, lo, hi in zip(tr.steps, tr.lower, tr.upper)]
    # the question-sized grid is the same for every T here (capped by the per-step
    # spread): fdp.dpsgd's own brackets; the last point is fdp.dpsgd's run in any case
    assert set(kinds) <= {"identical", "nested"} and kinds[-1] == "identical"


def test_explicit_tol_overlaps_and_ends_identical():
    """An explicit tol sizes fdp.dpsgd's grid by T, so earlier points are on another
    grid than fdp.dpsgd(T_i)'s: two certified brackets, overlapping."""
    tr = trajectory(0.8, 0.05, 200, 1e-6, points=[1, 7, 50], tol=1e-2)
    assert tr.steps.tolist() == [1, 7, 50, 200]
    kinds = [_agree(lo, hi, fdp.dpsgd(0.8, 0.05, int(t), tol=1e-2).epsilon_bounds(1e-6))
             for t, lo, hi in zip(tr.steps, tr.lower, tr.upper)]
    assert kinds[-1] == "identical"


def test_q_one_is_the_gaussian_composition():
    """q = 1: every step is G_{1/σ}, T steps G_{√T/σ} (DRS Cor 3.3): the closed form
    lies in every bracket."""
    sigma = 2.0
    tr = trajectory(sigma, 1.0, 50, 1e-5, points=5, tol=1e-3)
    for t, lo, hi in zip(tr.steps, tr.lower, tr.upper):
        exact = gdp_epsilon(math.sqrt(t) / sigma, 1e-5)
        assert lo <= exact <= hi
        assert hi - lo < 1e-2 * exact


def test_schedule_prefixes_are_gaussian_compositions():
    """A σ schedule at q = 1: after t steps G_μ with μ² = Σ_{s ≤ t} 1/σ_s²."""
    sigma = np.repeat([1.5, 3.0, 6.0], 10)
    tr = trajectory(sigma, 1.0, 30, 1e-5, points=[5, 10, 15, 20], tol=1e-3)
    for t, lo, hi in zip(tr.steps, tr.lower, tr.upper):
        mu = math.sqrt(float(np.sum(1.0 / sigma[:t] ** 2)))
        assert lo <= gdp_epsilon(mu, 1e-5) <= hi


def test_schedule_agrees_with_fdp_dpsgd_of_the_prefix():
    sigma = np.repeat([0.9, 1.4], 60)
    tr = trajectory(sigma, 0.02, 120, 1e-5, points=3, tol=1e-2)
    for t, lo, hi in zip(tr.steps, tr.lower, tr.upper):
        _agree(lo, hi, fdp.dpsgd(sigma[:t], 0.02, int(t), tol=1e-2).epsilon_bounds(1e-5))


def test_without_replacement_agrees_with_fdp_dpsgd():
    tr = trajectory(1.0, 0.02, 100, 1e-5, points=2, sampling="without_replacement",
                    neighbouring="replace_one", tol=1e-2)
    for t, lo, hi in zip(tr.steps, tr.lower, tr.upper):
        _agree(lo, hi, fdp.dpsgd(1.0, 0.02, int(t), sampling="without_replacement",
                                 neighbouring="replace_one", tol=1e-2).epsilon_bounds(1e-5))


def test_brackets_are_monotone_in_the_steps():
    tr = trajectory(1.1, Q, 2000, 1e-5, points=8, tol=1e-2)
    assert np.all(np.diff(tr.lower) >= 0) and np.all(np.diff(tr.upper) >= 0)
    assert np.all(tr.lower <= tr.upper) and tr.lower[0] > 0


def test_epochs_form_is_the_rate_and_steps_form():
    a = trajectory(1.1, batch_size=100, dataset_size=1000, epochs=3, delta=1e-5, points=3,
                   tol=1e-2)
    b = trajectory(1.1, 0.1, 30, 1e-5, points=3, tol=1e-2)
    assert a == b and a.steps.tolist() == [10, 20, 30]


@pytest.mark.parametrize("q", [0.0, 1e-300])
def test_nothing_sampled_is_perfectly_private(q):
    tr = trajectory(1.0, q, 10, 1e-5, points=3, tol=1e-2)
    assert np.all(tr.lower == 0.0) and np.all(tr.upper <= 1e-12)


def test_zero_and_one_step():
    tr = trajectory(1.0, 0.5, 0, 1e-5)
    assert tr.steps.tolist() == [0] and tr.lower.tolist() == tr.upper.tolist() == [0.0]
    one = trajectory(1.0, 1.0, 1, 1e-5, tol=1e-3)
    assert one.steps.tolist() == [1]
    assert one.lower[0] <= gdp_epsilon(1.0, 1e-5) <= one.upper[0]
    with_zero = trajectory(1.0, 1.0, 4, 1e-5, points=[0, 2], tol=1e-2)
    assert with_zero.steps.tolist() == [0, 2, 4] and with_zero.upper[0] == 0.0


def test_more_points_than_steps_gives_every_step():
    tr = trajectory(1.0, 0.1, 4, 1e-5, points=50, tol=1e-2)
    assert tr.steps.tolist() == [1, 2, 3, 4]


def test_tiny_delta_is_certified():
    """δ = 1e-12 lies below the plain read-back's floor at this size: the tilted
    recomposition answers; q = 1 again has the closed form G_{√T/σ}."""
    tr = trajectory(1.5, 1.0, 20, 1e-12, points=2, tol=1e-2)
    for t, lo, hi in zip(tr.steps, tr.lower, tr.upper):
        assert lo <= gdp_epsilon(math.sqrt(t) / 1.5, 1e-12) <= hi


def test_result_is_frozen_pickles_and_reads_like_the_run():
    tr = trajectory(1.0, 0.01, 20, 1e-5, points=2, tol=1e-2)
    assert pickle.loads(pickle.dumps(tr)) == tr
    assert repr(tr).startswith("Trajectory(dpsgd(sigma=1, q=0.01, steps=20, poisson")
    assert "after 20 steps, 2 points" in repr(tr)
    assert tr.status is fdp.Status.CERTIFIED and len(tr) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        tr.delta = 0.1  # type: ignore[misc]
    with pytest.raises(ValueError):
        tr.upper[0] = 0.0


def test_plot_returns_its_axes():
    pytest.importorskip("matplotlib")
    from fdp.plotting import new_figure
    tr = trajectory(1.0, 0.01, 20, 1e-5, points=3, tol=1e-2)
    fig, axes = new_figure()
    assert tr.plot(ax=axes[0, 0]) is axes[0, 0]
    line = axes[0, 0].get_lines()[0]
    assert line.get_xdata().tolist() == tr.steps.tolist()


@pytest.mark.parametrize("kwargs, match", [
    ({"delta": 0.0}, "delta"), ({"delta": 1.0}, "delta"),
    ({"points": 0}, "points"), ({"points": [3.5]}, "points"), ({"points": [50]}, "points"),
    ({"sampling": "shuffle"}, "sampling"), ({"tol": 2.0}, "tol"),
    ({"sampling": "poisson", "neighbouring": "replace_one"}, "neighbouring"),
])
def test_bad_input_names_the_parameter(kwargs, match):
    args = {"delta": 1e-5, **kwargs}
    with pytest.raises(ValueError, match=match):
        trajectory(1.0, 0.1, 20, **args)


def test_us_spelling_and_bad_schedules_are_refused():
    with pytest.raises(TypeError, match="neighbouring"):
        trajectory(1.0, 0.1, 20, 1e-5, neighboring="add_remove")
    with pytest.raises(ValueError, match="noise_multiplier"):
        trajectory([1.0, 2.0], 0.1, 20, 1e-5)
    with pytest.raises(ValueError, match="lower"):
        Trajectory(np.array([1]), np.array([2.0]), np.array([1.0]), 1e-5, "x")


@pytest.mark.slow
def test_long_run_agrees_at_several_points():
    tr = trajectory(1.1, Q, 100_000, 1e-5, points=100)
    assert tr.steps.size == 100 and tr.steps[-1] == 100_000
    kinds = [_agree(tr.lower[i], tr.upper[i],
                    fdp.dpsgd(1.1, Q, int(tr.steps[i])).epsilon_bounds(1e-5))
             for i in (0, 37, 60, 99)]
    # the grid of T = 1e5 is finer than fdp.dpsgd(T_i)'s (measured: the trajectory's
    # bracket inside fdp.dpsgd's at every 7th point)
    assert set(kinds) <= {"identical", "nested"} and kinds[-1] == "identical"
