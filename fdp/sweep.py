"""Sweeps: many configurations at once, on this machine or a cluster.

A sweep evaluates one function over many configurations -- a table of certified ε
over σ × q × T × δ for DP-SGD (``dpsgd_table``), or the least noise multiplier for many
targets (``calibrate_many``). Both are built on ``evaluate``, which runs the
configurations serially in this process by default, or on any
``concurrent.futures.Executor`` passed as ``executor=``: a
``ProcessPoolExecutor``, Dask's ``distributed.Client(...).get_executor()``, or any
other object with the same ``submit``.

What travels is plain data. Each task is one configuration: the function (a
module-level function, so that it pickles by name) and one configuration go out,
one result comes back. The results of ``dpsgd_table`` and ``calibrate_many`` are
frozen dataclasses of numbers and strings (``DpsgdRow``, ``CalibrationRow``), so
``pandas.DataFrame(dataclasses.asdict(r) for r in rows)`` builds a table.
Results come back in input order, whatever order the workers finish in; the
numbers do not depend on where they were computed (the same code runs on the same
inputs), so a sweep on a cluster gives the rows of the serial sweep.

Failures. By default (``errors="raise"``) the first configuration, in input
order, that raises stops the sweep: its exception is re-raised (same type and
message, with a note naming the configuration) and the configurations not yet
started are cancelled. With ``errors="record"`` a failing configuration yields a
``Failure`` (``evaluate``) or a row whose ``error`` field holds ``"Type: message"``
(``dpsgd_table``, ``calibrate_many``) and the sweep goes on. A failed row carries
only the trivially safe values -- the ε bracket [0, +∞], the noise multiplier +∞
-- never an unproven number.

Each row states its guarantee as the underlying function certifies it:
``fdp.dpsgd(...).epsilon_bounds(delta)`` (the privacy accounting of DP-SGD, Bu,
Dong, Long & Su 2020; Zhu, Dong & Wang 2021, Thm 11) and ``fdp.calibrate_dpsgd``.
The ``seconds`` field of a row is the wall time of its configuration, for
planning; it takes no part in comparing rows.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike
from fdp.calibration import calibrate_dpsgd
from fdp.progress import Meter
from fdp.sgd.certified import dpsgd
from fdp.status import require_guarantee

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Executor

ERRORS = ("raise", "record")


# ----------------------------------------------------------------------
# The generic sweep
# ----------------------------------------------------------------------
@dataclass(frozen=True)
class Failure:
    """A configuration that raised, recorded by ``evaluate(..., errors="record")``.

    ``index``: its position in the input; ``config``: the configuration as given;
    ``error``: ``"ExceptionType: message"``.

    Examples
    --------
    >>> import math
    >>> from fdp.sweep import evaluate
    >>> evaluate(math.sqrt, [4.0, -1.0], errors="record", progress=False)
    [2.0, Failure(index=1, config=-1.0, error='ValueError: math domain error')]
    """

    index: int
    config: Any
    error: str


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _run(fn: Callable[[Any], Any], config: Any, index: int, record: bool) -> Any:
    """One task, in the worker: ``fn(config)``, or a ``Failure`` when recording."""
    if not record:
        return fn(config)
    try:
        return fn(config)
    except Exception as exc:      # recorded, by request; KeyboardInterrupt still stops
        return Failure(index, config, _error_text(exc))


def _meter(total: int, label: str, progress: bool | None) -> Meter:
    """The engine's meter; on by default when stderr is a terminal (any sweep length)."""
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    else:
        progress = _validate.flag("progress", progress)
    return Meter(total, label, progress)


def _check_errors(errors: str) -> bool:
    if errors not in ERRORS:
        raise ValueError(f"errors must be one of {ERRORS}, got {errors!r}")
    return errors == "record"


def evaluate(fn: Callable[[Any], Any], configs: Iterable[Any], *,
             executor: Executor | None = None, errors: str = "raise",
             progress: bool | None = None, label: str = "sweep") -> list[Any]:
    """``[fn(c) for c in configs]``, serially or on an executor, in input order.

    Parameters
    ----------
    fn : callable
        Called once per configuration as ``fn(config)``. With a process or cluster
        executor it must pickle: a module-level function (or a picklable callable
        object), not a lambda or a closure.
    configs : iterable
        The configurations; each is one task. With an executor each must pickle
        (numbers, strings, tuples, dicts, frozen dataclasses).
    executor : concurrent.futures.Executor, optional
        Where to run: None (default) runs serially in this process; otherwise each
        configuration is ``executor.submit``-ted (``ProcessPoolExecutor``, Dask's
        ``Client.get_executor()``, ...). The executor is not shut down.
    errors : {"raise", "record"}
        "raise" (default): the first configuration in input order that raises stops
        the sweep, its exception re-raised with a note naming the configuration, the
        tasks not yet started cancelled. "record": its result is a ``Failure``
        (position, configuration, ``"Type: message"``) and the sweep goes on;
        failures of the executor itself (a worker that died, a task that does not
        pickle) are recorded the same way.
    progress : bool, optional
        A meter on stderr, advanced as results arrive. Default: shown when stderr is
        a terminal.
    label : str
        The meter's label.

    Returns
    -------
    list
        One result per configuration, in input order.

    Examples
    --------
    >>> from fdp.sweep import evaluate
    >>> evaluate(abs, [-1, 2, -3], progress=False)
    [1, 2, 3]
    """
    record = _check_errors(errors)
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError("executor must be a concurrent.futures.Executor (an object with "
                        f"submit), got {type(executor).__name__}")
    configs = list(configs)
    meter = _meter(len(configs), label, progress)
    out = []
    try:
        if executor is None:
            for i, c in enumerate(configs):
                out.append(_settle(partial(_run, fn, c, i, record), i, c, record))
                meter.advance()
            return out
        futures = [executor.submit(_run, fn, c, i, record) for i, c in enumerate(configs)]
        try:
            for i, (c, fut) in enumerate(zip(configs, futures)):
                out.append(_settle(fut.result, i, c, record))
                meter.advance()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        return out
    finally:
        meter.close()


def _settle(get: Callable[[], Any], index: int, config: Any, record: bool) -> Any:
    """The result of one task; a failure raised with a note, or recorded."""
    try:
        return get()
    except Exception as exc:
        if record:
            return Failure(index, config, _error_text(exc))
        if hasattr(exc, "add_note"):          # Python ≥ 3.11
            exc.add_note(f"in sweep configuration #{index}: {config!r}")
        raise


# ----------------------------------------------------------------------
# DP-SGD: a table of certified ε over σ × q × T × δ
# ----------------------------------------------------------------------
@dataclass(frozen=True)
class DpsgdRow:
    """One line of ``dpsgd_table``: the certified ε bracket of DP-SGD at one δ.

    ``epsilon_lo ≤ ε(δ) ≤ epsilon_hi`` for ``fdp.dpsgd(noise_multiplier,
    sample_rate, steps, sampling, neighbouring)``; ``epsilon_hi`` is the value to
    report. ``error`` is None, or ``"Type: message"`` for a configuration that
    failed under ``errors="record"`` (its bracket is then the trivial [0, inf]).
    ``seconds``: wall time of the configuration (all its δ; 0 when it failed), not
    compared.

    Parameters
    ----------
    noise_multiplier, sample_rate, steps, delta, sampling, neighbouring
        The configuration and δ.
    epsilon_lo, epsilon_hi : float
        The certified ε bracket.
    error : str, optional
        Why the configuration failed (``errors="record"``).
    seconds : float
        Wall time (not compared).

    Examples
    --------
    >>> from fdp.sweep import dpsgd_table
    >>> row = dpsgd_table(1.0, 0.01, 10, 1e-5, tol=1e-2, progress=False)[0]
    >>> row.error is None and row.epsilon_lo <= row.epsilon_hi
    True
    """

    noise_multiplier: float
    sample_rate: float
    steps: int
    delta: float
    epsilon_lo: float
    epsilon_hi: float
    sampling: str
    neighbouring: str
    error: str | None = None
    seconds: float = field(default=0.0, compare=False)


@dataclass(frozen=True)
class DpsgdConfig:
    """One DP-SGD task of ``dpsgd_table``: one (σ, q, T) with all its δ (plain data).

    Parameters
    ----------
    noise_multiplier, sample_rate, steps
        σ, q and T.
    deltas : tuple of float
        The δ values to read.
    sampling, neighbouring, sensitivity, tol
        As in ``fdp.dpsgd``.
    width : float, optional
        As in ``epsilon_bounds(delta, width=...)``.

    Examples
    --------
    >>> from fdp.sweep import DpsgdConfig
    >>> DpsgdConfig(1.0, 0.01, 10, (1e-5,)).sampling
    'poisson'
    """

    noise_multiplier: float
    sample_rate: float
    steps: int
    deltas: tuple
    sampling: str = "poisson"
    neighbouring: str = "add_remove"
    sensitivity: float | None = None
    tol: float | None = None
    width: float | None = None


def dpsgd_rows(config: DpsgdConfig) -> tuple:
    """The rows of one configuration: compose once, read every δ (runs in a worker).

    The task function of ``dpsgd_table``; ``evaluate(dpsgd_rows, configs)`` runs any
    list of ``DpsgdConfig`` (a grid that is not a product, say).

    Parameters
    ----------
    config : DpsgdConfig
        One (σ, q, T) with its δ values and engine settings.

    Returns
    -------
    tuple of DpsgdRow
        One row per δ, in the order of ``config.deltas``: the bracket
        ``fdp.dpsgd(...).epsilon_bounds(delta)`` (Bu, Dong, Long & Su 2020).

    Examples
    --------
    >>> from fdp.sweep import DpsgdConfig, dpsgd_rows
    >>> rows = dpsgd_rows(DpsgdConfig(1.0, 0.01, 10, (1e-5,), tol=1e-2))
    >>> print(f"{rows[0].epsilon_hi:.3f}")
    0.380
    """
    start = time.perf_counter()
    f = dpsgd(config.noise_multiplier, config.sample_rate, config.steps,
              sampling=config.sampling, neighbouring=config.neighbouring, tol=config.tol,
              sensitivity=config.sensitivity, progress=False)
    require_guarantee(f, "a sweep row")
    extra = {} if config.width is None else {"width": config.width}
    lo, hi = f.epsilon_bounds(np.asarray(config.deltas, dtype=float), **extra)
    lo, hi = np.broadcast_to(lo, len(config.deltas)), np.broadcast_to(hi, len(config.deltas))
    seconds = time.perf_counter() - start
    return tuple(_dpsgd_row(config, d, float(a), float(b), None, seconds)
                 for d, a, b in zip(config.deltas, lo, hi))


def _dpsgd_row(config: DpsgdConfig, delta: float, lo: float, hi: float, error: str | None,
               seconds: float) -> DpsgdRow:
    return DpsgdRow(config.noise_multiplier, config.sample_rate, config.steps, delta, lo,
                    hi, config.sampling, config.neighbouring, error, seconds)


def _values(name: str, value: ArrayLike, *, low: float, high: float, low_open: bool = False,
            high_open: bool = False) -> list[float]:
    """A number or a sequence of numbers, each checked, as a list of floats."""
    arr = np.atleast_1d(_validate.reals(name, value, low=low, high=high))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a number or a flat sequence, got shape {arr.shape}")
    for x in arr:
        _validate.real(name, float(x), low=low, high=high, low_open=low_open,
                       high_open=high_open)
    return [float(x) for x in arr]


def _ints(name: str, value: object) -> list[int]:
    items = value if isinstance(value, (list, tuple, range, np.ndarray)) else [value]
    return [_validate.positive_int(name, v, low=0)
            for v in np.ravel(np.asarray(items, dtype=object))]


def dpsgd_table(noise_multipliers: ArrayLike, sample_rates: ArrayLike, steps: object,
                delta: ArrayLike, *, sampling: str = "poisson",
                neighbouring: str = "add_remove", sensitivity: float | None = None,
                tol: float | None = None, width: float | None = None,
                executor: Executor | None = None,
                errors: str = "raise", progress: bool | None = None) -> list[DpsgdRow]:
    """Certified ε of DP-SGD over the grid σ × q × T × δ, one row per point.

    Each (σ, q, T) is one task: ``fdp.dpsgd(σ, q, T, sampling, neighbouring,
    tol=tol, sensitivity=sensitivity)`` composed once (Bu, Dong, Long & Su 2020;
    Zhu, Dong & Wang 2021, Thm 11 for Poisson sampling; DRS Thm 4.2 without
    replacement) and read at every δ with ``epsilon_bounds``.

    Parameters
    ----------
    noise_multipliers : float or sequence of float
        σ > 0.
    sample_rates : float or sequence of float
        q ∈ [0, 1].
    steps : int or sequence of int
        T ≥ 0.
    delta : float or sequence of float
        δ ∈ (0, 1).
    sampling, neighbouring, sensitivity, tol
        As in ``fdp.dpsgd``, the same for every configuration.
    width : float, optional
        Passed to ``epsilon_bounds(delta, width=width)`` (refine until
        ``epsilon_hi − epsilon_lo ≤ width``) when given.
    executor, errors, progress
        As in ``evaluate``. A failed configuration under ``errors="record"`` gives
        one row per δ with the trivial bracket [0, inf] and its ``error``.

    Returns
    -------
    list of DpsgdRow
        In the order of ``itertools.product(noise_multipliers, sample_rates, steps,
        delta)`` (δ varying fastest).

    Examples
    --------
    >>> from fdp.sweep import dpsgd_table
    >>> rows = dpsgd_table([1.0, 2.0], 0.01, [10], 1e-5, tol=1e-2, progress=False)
    >>> [(r.noise_multiplier, f"{r.epsilon_hi:.3f}") for r in rows]
    [(1.0, '0.380'), (2.0, '0.066')]

    As a table: ``pandas.DataFrame(map(dataclasses.asdict, rows))``.
    """
    sigmas = _values("noise_multipliers", noise_multipliers, low=0.0, high=np.inf,
                     low_open=True)
    rates = _values("sample_rates", sample_rates, low=0.0, high=1.0)
    ts = _ints("steps", steps)
    deltas = tuple(_values("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True))
    if width is not None:
        width = _validate.real("width", width, low=0.0, low_open=True)
    _check_errors(errors)
    configs = [DpsgdConfig(s, q, t, deltas, sampling, neighbouring, sensitivity, tol, width)
               for s, q, t in itertools.product(sigmas, rates, ts)]
    results = evaluate(dpsgd_rows, configs, executor=executor, errors=errors,
                       progress=progress, label="dpsgd_table")
    rows = []
    for config, res in zip(configs, results):
        if isinstance(res, Failure):
            res = tuple(_dpsgd_row(config, d, 0.0, math.inf, res.error, 0.0)
                        for d in config.deltas)
        rows.extend(res)
    return rows


# ----------------------------------------------------------------------
# Calibration for many targets
# ----------------------------------------------------------------------
@dataclass(frozen=True)
class CalibrationRow:
    """One line of ``calibrate_many``: the least certified noise multiplier for a target.

    ``noise_multiplier`` meets the target (verified on the certified side of
    ``fdp.dpsgd``); ``lower`` is verified to fail it (NaN when the search reached
    ``min_noise``, then ``at_floor`` is True); ``tolerance`` = (noise − lower)/noise.
    The target is described in ``target`` and by its numbers (``epsilon``/``delta``,
    ``mu``, ``advantage``, ``tpr``/``fpr``; None where not part of it).
    ``tail_delta``: η = δ(+∞) of the guarantee (see ``fdp.calibrate_dpsgd``).
    ``error``: None, or ``"Type: message"`` under ``errors="record"`` (the noise
    multiplier is then the trivially safe +∞). ``seconds``: wall time of the task
    (0 when it failed), not compared.

    Parameters
    ----------
    sample_rate, steps, target
        The task and its target in words.
    epsilon, delta, mu, advantage, tpr, fpr : float or None
        The numbers of the target.
    noise_multiplier, lower, tolerance, evaluations, at_floor, tail_delta
        The result of ``fdp.calibrate_dpsgd``.
    error : str, optional
        Why the task failed.
    seconds : float
        Wall time (not compared).

    Examples
    --------
    >>> from fdp.sweep import calibration_row
    >>> row = calibration_row({"sample_rate": 0.01, "steps": 10, "mu": 1.0,
    ...                        "rtol": 0.1, "tol": 1e-2})
    >>> row.mu, row.error
    (1.0, None)
    """

    sample_rate: float
    steps: int
    target: str
    epsilon: float | None
    delta: float | None
    mu: float | None
    advantage: float | None
    tpr: float | None
    fpr: float | None
    noise_multiplier: float
    lower: float
    tolerance: float
    evaluations: int
    at_floor: bool
    tail_delta: float
    error: str | None = None
    seconds: float = field(default=0.0, compare=False)


_TARGET_KEYS = ("epsilon", "delta", "mu", "advantage", "tpr", "fpr")


def calibration_row(kwargs: Mapping) -> CalibrationRow:
    """``fdp.calibrate_dpsgd(**kwargs)`` as a plain row (runs in a worker).

    The task function of ``calibrate_many``.

    Parameters
    ----------
    kwargs : mapping
        Keyword arguments of ``fdp.calibrate_dpsgd`` (``sample_rate``, ``steps`` and
        one target are required); ``progress`` defaults to False inside a sweep.

    Returns
    -------
    CalibrationRow
        The calibrated noise multiplier and its report, as plain numbers.

    Examples
    --------
    >>> from fdp.sweep import calibration_row
    >>> row = calibration_row({"sample_rate": 0.01, "steps": 10, "epsilon": 2.0,
    ...                        "delta": 1e-5, "rtol": 0.1, "tol": 1e-2})
    >>> row.target, row.epsilon
    ('(2, 1e-05)-DP', 2.0)
    """
    start = time.perf_counter()
    opts = dict(kwargs)
    opts.setdefault("progress", False)
    c = calibrate_dpsgd(**opts)
    t = c.target
    num = {k: None if getattr(t, k) is None else float(getattr(t, k)) for k in _TARGET_KEYS}
    return CalibrationRow(
        float(kwargs["sample_rate"]), int(kwargs["steps"]), t.describe(),
        num["epsilon"], num["delta"], num["mu"], num["advantage"], num["tpr"], num["fpr"],
        noise_multiplier=float(c.noise),
        lower=math.nan if c.lower is None else float(c.lower),
        tolerance=float(c.tolerance), evaluations=int(c.evaluations),
        at_floor=bool(c.at_floor), tail_delta=float(c.tail_delta),
        seconds=time.perf_counter() - start)


def _failed_calibration(kwargs: Mapping, error: str) -> CalibrationRow:
    def num(k: str, conv: Callable[[Any], Any]) -> Any:
        try:
            return conv(kwargs[k])
        except (KeyError, TypeError, ValueError):
            return None
    described = ", ".join(f"{k}={kwargs[k]!r}" for k in
                          ("epsilon", "delta", "mu", "advantage", "tpr_at_fpr", "target")
                          if kwargs.get(k) is not None)
    tpr_fpr = kwargs.get("tpr_at_fpr")
    tpr, fpr = (None, None)
    if isinstance(tpr_fpr, (tuple, list)) and len(tpr_fpr) == 2:
        tpr, fpr = tpr_fpr
    return CalibrationRow(
        num("sample_rate", float), num("steps", int), described,
        num("epsilon", float), num("delta", float), num("mu", float),
        num("advantage", float), tpr, fpr,
        noise_multiplier=math.inf, lower=math.nan, tolerance=math.nan, evaluations=0,
        at_floor=False, tail_delta=math.nan, error=error)


def calibrate_many(targets: Sequence[Mapping[str, Any]], *, executor: Executor | None = None,
                   errors: str = "raise", progress: bool | None = None,
                   **common: Any) -> list[CalibrationRow]:
    """``fdp.calibrate_dpsgd`` for many targets (and settings), one row each.

    Each task is ``fdp.calibrate_dpsgd(**{**common, **target})``: the least noise
    multiplier σ whose certified DP-SGD guarantee meets the target (expanding
    bracket, then bisection on σ; see ``fdp.calibrate_dpsgd``).

    Parameters
    ----------
    targets : sequence of mappings
        Keyword arguments of ``fdp.calibrate_dpsgd`` per task: a target
        (``epsilon`` with ``delta``, ``mu``, ``advantage``, ``tpr_at_fpr`` or
        ``target``), and any setting that differs between tasks (``sample_rate``,
        ``steps``, ``rtol``, ...), e.g. ``[{"epsilon": 1, "delta": 1e-5},
        {"epsilon": 8, "delta": 1e-5}]``.
    executor, errors, progress
        As in ``evaluate``. A failed task under ``errors="record"`` gives a row with
        noise multiplier +inf and its ``error``.
    **common
        Keyword arguments of ``fdp.calibrate_dpsgd`` shared by every task
        (``sample_rate=``, ``steps=``, ``sampling=``, ``rtol=``, ``tol=``, ...).

    Returns
    -------
    list of CalibrationRow
        One per target, in input order.

    Examples
    --------
    >>> from fdp.sweep import calibrate_many
    >>> rows = calibrate_many([{"epsilon": 2.0}, {"epsilon": 4.0}], delta=1e-5,
    ...                       sample_rate=0.01, steps=10, rtol=0.1, tol=1e-2, progress=False)
    >>> bool(rows[0].noise_multiplier > rows[1].noise_multiplier)
    True
    """
    if isinstance(targets, Mapping):
        raise TypeError("targets must be a sequence of mappings (one per task), "
                        "got a single mapping; wrap it in a list")
    tasks = []
    for i, t in enumerate(targets):
        if not isinstance(t, Mapping):
            raise TypeError(f"targets[{i}] must be a mapping of calibrate_dpsgd keyword "
                            f"arguments, got {type(t).__name__}")
        tasks.append({**common, **t})
    results = evaluate(calibration_row, tasks, executor=executor, errors=errors,
                       progress=progress, label="calibrate_many")
    return [_failed_calibration(task, r.error) if isinstance(r, Failure) else r
            for task, r in zip(tasks, results)]


__all__ = ["CalibrationRow", "DpsgdConfig", "DpsgdRow", "Failure", "calibrate_many",
           "calibration_row", "dpsgd_rows", "dpsgd_table", "evaluate"]
