"""ε over training in one pass: certified ε(δ) brackets of DP-SGD at many step counts.

After T_i of the run's T steps the record's privacy is the composition of the first T_i
per-step pairs, which ``fdp.dpsgd`` composes for one T. Here the per-step pairs are
discretised once, on the grid ``fdp.dpsgd`` chooses for the whole run, and every
prefix is composed from those lattices (``fdp.engine.compose_prefixes``): each
point's bracket is certified on its own (the engine's argument holds on any grid),
the last is ``fdp.dpsgd``'s at T, and the others are read on the whole run's grid
instead of the one ``fdp.dpsgd`` would choose for T_i (finer or the same, as the step
shrinks with T; coarser only where the memory budget coarsened the whole run's).

Composing one more step never makes a mechanism more private: f ⊗ g ≤ f ⊗ Id = f for
every trade-off function g (DRS 2022, Def 3.1: ⊗ is monotone, and Id is its unit),
so ε(δ) is non-decreasing in T. The brackets are therefore tightened to
lower_i = max_{j ≤ i} lower_j and upper_i = min_{j ≥ i} upper_j, still certified.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray
from fdp.engine import compose_prefixes
from fdp.plotting.trajectory import epsilon_trajectory
from fdp.sgd.certified import (
    _label,
    _options,
    _per_step,
    _prefix_counts,
    resolve_sensitivity,
    sampler_entry,
    with_rdp,
)
from fdp.sgd.min_certified import MAX_RDP_GROUPS
from fdp.sgd.schedule import accepts_epochs
from fdp.status import Status, weakest

if TYPE_CHECKING:
    from matplotlib.axes import Axes


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Certified ε(δ) brackets of one DP-SGD run after each of several step counts.

    The certified ε at ``delta`` after ``steps[i]`` (increasing, the last the run's
    length) lies in [``lower[i]``, ``upper[i]``] (upper inf where nothing finite is
    proven); ``label`` names the run, ``status`` is the weakest of the points'.

    Examples
    --------
    >>> import fdp
    >>> tr = fdp.sgd.trajectory(1.0, 0.01, 100, 1e-5, points=4, tol=1e-2)
    >>> tr.steps.tolist()
    [25, 50, 75, 100]
    >>> bool(all(tr.lower <= tr.upper))
    True
    """

    steps: np.ndarray
    lower: FloatArray
    upper: FloatArray
    delta: float
    label: str
    status: Status = Status.CERTIFIED

    def __post_init__(self) -> None:
        steps = np.array(self.steps, dtype=np.int64)
        lo = np.array(self.lower, dtype=float)
        hi = np.array(self.upper, dtype=float)
        if not (steps.ndim == 1 and steps.size and steps.shape == lo.shape == hi.shape):
            raise ValueError("steps, lower and upper must be non-empty 1-d arrays of one "
                             f"length, got shapes {steps.shape}, {lo.shape}, {hi.shape}")
        if np.any(np.diff(steps) <= 0) or steps[0] < 0:
            raise ValueError("steps must be increasing integers >= 0")
        if np.any(~(lo <= hi)):
            raise ValueError("lower must not exceed upper at any point")
        for name, arr in (("steps", steps), ("lower", lo), ("upper", hi)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    def __len__(self) -> int:
        return int(self.steps.size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trajectory):
            return NotImplemented
        return (self.delta == other.delta and self.label == other.label
                and self.status == other.status
                and all(np.array_equal(a, b) for a, b in (
                    (self.steps, other.steps), (self.lower, other.lower),
                    (self.upper, other.upper))))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"Trajectory({self.label}, delta={self.delta:g}: ε ∈ "
                f"[{self.lower[-1]:.4f}, {self.upper[-1]:.4f}] after {self.steps[-1]} steps, "
                f"{len(self)} point{'' if len(self) == 1 else 's'})")

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Draw the brackets against the steps (``fdp.plotting.epsilon_trajectory``)."""
        return epsilon_trajectory(self.steps, self.lower, self.upper, self.delta, ax=ax,
                                  **kwargs)


def _points(points: int | ArrayLike, steps: int) -> np.ndarray:
    """The increasing step counts read: ``points`` evenly spaced ones ending at
    ``steps`` (all of 1..steps when points ≥ steps), or the given ones with ``steps``."""
    if isinstance(points, (int, np.integer)) and not isinstance(points, bool):
        k = _validate.positive_int("points", points)
        if steps == 0:
            return np.zeros(1, dtype=np.int64)
        return np.unique(np.ceil(np.arange(1, k + 1) * (steps / k) - 1e-9).astype(np.int64))
    given = _validate.reals("points", points, low=0.0, high=float(steps))
    if given.ndim != 1 or not given.size or np.any(given != np.round(given)):
        raise ValueError(f"points must be an integer >= 1 or a 1-d array of step counts "
                         f"(integers in [0, steps={steps}])")
    return np.unique(np.append(given.astype(np.int64), steps))


@accepts_epochs
@_validate.british_spelling
def trajectory(noise_multiplier: ArrayLike, sample_rate: ArrayLike, steps: int,
               delta: float, *, points: int | ArrayLike = 100, sampling: str = "poisson",
               neighbouring: str = "add_remove", tol: float | None = None,
               sensitivity: float | None = None, dataset_size: int | None = None,
               batch_cap: int | None = None) -> Trajectory:
    """Certified ε(δ) of DP-SGD after many step counts, from one discretisation
    (module docstring): at every point the bracket of ``fdp.dpsgd`` for that many
    steps, on the grid of the whole run.

    Parameters
    ----------
    noise_multiplier, sample_rate, steps, sampling, neighbouring, tol, sensitivity, ...
        As in ``fdp.dpsgd`` (also ``dataset_size``, ``batch_cap``, the epochs form; a
        schedule's points are its prefixes), for the per-step samplers only.
    delta : float
        δ in (0, 1).
    points : int or array_like of int
        An integer k ≥ 1: k evenly spaced step counts ending at ``steps`` (every
        count from 1 when k ≥ steps); or the step counts themselves (integers in
        [0, steps]; ``steps`` is added). Default 100.

    Examples
    --------
    >>> import fdp
    >>> tr = fdp.sgd.trajectory(1.0, 0.01, 1000, 1e-5, points=[10, 100], tol=1e-2)
    >>> tr.steps.tolist()
    [10, 100, 1000]
    >>> lo, hi = fdp.dpsgd(1.0, 0.01, 1000, tol=1e-2).epsilon_bounds(1e-5)
    >>> bool(lo <= tr.upper[-1] and tr.lower[-1] <= hi)
    True
    """
    steps = _validate.positive_int("steps", steps, low=0)
    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    _, step_pair, both, _ = sampler_entry(sampling, neighbouring)
    opts = _options(sampling, dataset_size, batch_cap, 1)
    if tol is not None:
        tol = _validate.real("tol", tol, low=0.0, low_open=True, high=1.0)
    sens = resolve_sensitivity(sensitivity, neighbouring)
    at = _points(points, steps)
    sigma = _per_step("noise_multiplier", noise_multiplier, max(steps, 1), 0.0, np.inf,
                      low_open=True)
    rate = _per_step("sample_rate", sample_rate, max(steps, 1), 0.0, 1.0)
    label = _label(sigma, rate, steps, sampling, sens, opts)
    live = at[at > 0]
    lower = np.zeros(at.size)
    upper = np.zeros(at.size)
    status = Status.CERTIFIED                   # the weakest of the points' (fdp.status)
    if live.size:
        keys, rows = _prefix_counts(sigma, rate, steps, live)
        nums = compose_prefixes([step_pair(sens / s, q, opts) for s, q in keys], rows, tol,
                                directions=("f", "inverse") if both else ("f",),
                                grid="question" if tol is None else "tol",
                                labels=[_label(sigma[:t], rate[:t], int(t), sampling, sens,
                                               opts) for t in live])
        rdp = both and sampling == "poisson" and len(keys) <= MAX_RDP_GROUPS
        for i, (num, row) in enumerate(zip(nums, rows), start=at.size - live.size):
            if rdp:
                num = with_rdp(num, ((s, q, n) for (s, q), n in zip(keys, row) if n), sens)
            status = weakest(status, num.status)
            lo, hi = (float(v) for v in num.epsilon_bounds(d))
            lower[i] = 0.0 if np.isnan(lo) else lo      # nothing proven: the trivial 0
            upper[i] = np.inf if np.isnan(hi) else hi
    # ε(δ) is non-decreasing in T (module docstring): each end tightened by the others
    lower = np.maximum.accumulate(lower)
    upper = np.minimum.accumulate(upper[::-1])[::-1]
    return Trajectory(at, lower, upper, d, label, status)


__all__ = ["Trajectory", "trajectory"]
