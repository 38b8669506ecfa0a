"""The inputs of a ``fdp.dpsgd`` call, carried by its result.

A privacy claim names what was accounted (noise multiplier, sample rate or epochs,
steps, sampler, neighbouring relation, sensitivity, examples per user), and a check
of the claim recomputes it from exactly those inputs. ``records_run`` wraps
``fdp.dpsgd``: the certified result it returns is the same curve (the same lattices,
bit for bit) as a ``DpsgdNumeric`` or ``DpsgdMinCertified`` whose field ``run`` is the
call's ``DpsgdRun``. Results of other types (the identity at T = 0, the shuffling
LOWER curve) are returned unchanged.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from fdp.engine import Numeric
from fdp.operations.min_certified import MinCertified
from fdp.tradeoff import TradeOff

#: A per-step value: one number, or runs (value, number of steps) in step order.
PerStep = float | tuple[tuple[float, int], ...]

#: Arguments of ``fdp.dpsgd`` that do not change the curve (not recorded).
NOT_INPUTS = ("progress",)


def _per_step(x: Any) -> PerStep | None:
    if x is None:
        return None
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        return float(arr)
    starts = np.flatnonzero(np.r_[True, arr[1:] != arr[:-1]])
    counts = np.diff(np.r_[starts, arr.size])
    return tuple((float(arr[s]), int(c)) for s, c in zip(starts, counts))


def _expand(x: PerStep | None) -> Any:
    if x is None or isinstance(x, float):
        return x
    return np.repeat([v for v, _ in x], [n for _, n in x])


@dataclass(frozen=True)
class DpsgdRun:
    """The arguments of one ``fdp.dpsgd`` call, as given (see ``fdp.dpsgd``): a per-step
    σ or q as runs (value, steps) in step order (``PerStep``); ``sample_rate`` and
    ``steps`` None in the epochs form, ``tol`` and ``sensitivity`` None when not given.

    Examples
    --------
    >>> import fdp
    >>> fdp.dpsgd(1.0, 0.01, 10, tol=1e-2).run.kwargs()["steps"]
    10
    """

    noise_multiplier: PerStep
    sample_rate: PerStep | None = None
    steps: int | None = None
    sampling: str = "poisson"
    neighbouring: str = "add_remove"
    tol: float | None = None
    sensitivity: float | None = None
    dataset_size: int | None = None
    batch_cap: int | None = None
    examples_per_user: int = 1
    batch_size: int | None = None
    epochs: float | None = None

    @classmethod
    def of_call(cls, func: Callable[..., Any], args: tuple, kwargs: dict[str, Any]
                ) -> DpsgdRun:
        """The record of ``func(*args, **kwargs)`` (``func`` as ``fdp.dpsgd``)."""
        extra: dict[str, Any] = {k: kwargs[k] for k in ("batch_size", "epochs") if k in kwargs}
        rest = {k: v for k, v in kwargs.items() if k not in extra}
        bound = inspect.signature(func).bind_partial(*args, **rest)
        given = {k: v for k, v in bound.arguments.items() if k not in NOT_INPUTS}
        given.update(extra)
        for name in ("noise_multiplier", "sample_rate"):
            given[name] = _per_step(given.get(name))
        for name in ("steps", "dataset_size", "batch_cap", "examples_per_user", "batch_size"):
            if given.get(name) is not None:
                given[name] = int(given[name])
        for name in ("tol", "sensitivity", "epochs"):
            if given.get(name) is not None:
                given[name] = float(given[name])
        return cls(**given)

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments that repeat the call: ``fdp.dpsgd(**run.kwargs())``."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["noise_multiplier"] = _expand(self.noise_multiplier)
        out["sample_rate"] = _expand(self.sample_rate)
        return {k: v for k, v in out.items() if v is not None or k == "noise_multiplier"}


@dataclass(frozen=True, eq=False, repr=False)
class DpsgdNumeric(Numeric):
    """A ``Numeric`` result of ``fdp.dpsgd`` with the call's inputs (``run``)."""

    run: DpsgdRun | None = field(default=None, repr=False)


@dataclass(frozen=True, eq=False, repr=False)
class DpsgdMinCertified(MinCertified):
    """A ``MinCertified`` result of ``fdp.dpsgd`` with the call's inputs (``run``)."""

    run: DpsgdRun | None = field(default=None, repr=False)


def _with_run(f: TradeOff, run: DpsgdRun) -> TradeOff:
    # exactly these two types (a subclass may hold more than their fields)
    if type(f) is MinCertified:
        cls: type[DpsgdNumeric] | type[DpsgdMinCertified] = DpsgdMinCertified
    elif type(f) is Numeric:
        cls = DpsgdNumeric
    else:
        return f
    assert isinstance(f, Numeric)
    return cls(**{x.name: getattr(f, x.name) for x in fields(f) if x.init}, run=run)


def records_run(func: Callable[..., TradeOff]) -> Callable[..., TradeOff]:
    """Decorate ``fdp.dpsgd``: its numeric results carry the call as ``run``."""
    @functools.wraps(func)
    def dpsgd(*args: Any, **kwargs: Any) -> TradeOff:
        return _with_run(func(*args, **kwargs), DpsgdRun.of_call(func, args, kwargs))
    return dpsgd


#: The result types that carry a ``run``.
RESULTS = (DpsgdNumeric, DpsgdMinCertified)
