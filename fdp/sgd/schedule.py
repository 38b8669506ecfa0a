"""DP-SGD's schedule in the form training code states it: epochs, batch size, dataset size.

The accountants take a sample rate q and a number of steps T; a training loop (Opacus,
the ``fdp dpsgd`` command) states B records per batch from N, for E epochs. With
Poisson sampling at q = B/N an epoch is N/B steps in expectation, so
T = ⌈E·N/B⌉ (a last partial epoch counted whole: more steps is the safe side).
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from typing import Any, TypeVar

from fdp import _validate

_R = TypeVar("_R")


def from_epochs(batch_size: int, dataset_size: int, epochs: float) -> tuple[float, int]:
    """(sample rate, steps) = (B/N, ⌈E·N/B⌉) of E epochs of batches of B from N records.

    1 ≤ B ≤ N; E > 0 may be a fraction of an epoch (the steps are rounded up).

    Examples
    --------
    >>> from fdp.sgd.schedule import from_epochs
    >>> from_epochs(256, 60000, 60)
    (0.004266666666666667, 14063)
    """
    n = _validate.positive_int("dataset_size", dataset_size)
    b = _validate.positive_int("batch_size", batch_size)
    if b > n:
        raise ValueError(f"batch_size must lie in [1, dataset_size={n}], got {b}")
    e = _validate.real("epochs", epochs, low=0.0, low_open=True)
    return b / n, math.ceil(e * n / b - 1e-9)


def _rate_and_steps(name: str, sample_rate: float | None, steps: int | None,
                    batch_size: int | None, epochs: float | None,
                    kwargs: dict[str, Any], sampling: str) -> tuple[float, int]:
    """(q, T) from either form; ``dataset_size`` is left in ``kwargs`` only for the
    samplers that use it (``truncated_poisson``, ``with_replacement``)."""
    if batch_size is None and epochs is None:
        if sample_rate is None or steps is None:
            raise TypeError(f"{name}() needs sample_rate and steps, or batch_size=, "
                            "dataset_size= and epochs=")
        return sample_rate, steps
    if sample_rate is not None or steps is not None:
        raise TypeError(f"{name}() takes either sample_rate and steps, or batch_size=, "
                        "dataset_size= and epochs=, not both")
    if batch_size is None or epochs is None or kwargs.get("dataset_size") is None:
        raise TypeError(f"{name}() with epochs needs batch_size=, dataset_size= and "
                        "epochs=")
    q, t = from_epochs(batch_size, kwargs["dataset_size"], epochs)
    if sampling not in ("truncated_poisson", "with_replacement"):
        kwargs.pop("dataset_size")
    return q, t


def accepts_epochs(func: Callable[..., _R]) -> Callable[..., _R]:
    """Let a function of (sample rate, steps) also be called in the epochs form.

    ``func(noise_multiplier, sample_rate, steps, ...)`` (positional, as ``fdp.dpsgd``)
    or ``func(*, sample_rate=, steps=, ...)`` (keyword-only, as
    ``fdp.calibrate_dpsgd``) may then be called with ``batch_size=B,
    dataset_size=N, epochs=E`` instead of the rate and the steps (``from_epochs``).
    ``dataset_size`` is passed on only to the samplers that use it
    (``truncated_poisson``, ``with_replacement``).

    Examples
    --------
    >>> from fdp.sgd.schedule import accepts_epochs
    >>> @accepts_epochs
    ... def run(*, sample_rate, steps, sampling="poisson"):
    ...     return sample_rate, steps
    >>> run(batch_size=100, dataset_size=1000, epochs=2)
    (0.1, 20)
    """
    params = inspect.signature(func).parameters
    keyword_only = params["sample_rate"].kind is inspect.Parameter.KEYWORD_ONLY

    if keyword_only:
        @functools.wraps(func)
        def by_keyword(*args: Any, sample_rate: float | None = None,
                       steps: int | None = None, batch_size: int | None = None,
                       epochs: float | None = None, **kwargs: Any) -> _R:
            q, t = _rate_and_steps(func.__name__, sample_rate, steps, batch_size, epochs,
                                   kwargs, kwargs.get("sampling", "poisson"))
            return func(*args, sample_rate=q, steps=t, **kwargs)
        return by_keyword

    @functools.wraps(func)
    def by_position(noise_multiplier: Any, sample_rate: float | None = None,
                    steps: int | None = None, *args: Any, batch_size: int | None = None,
                    epochs: float | None = None, **kwargs: Any) -> _R:
        sampling = args[0] if args else kwargs.get("sampling", "poisson")
        q, t = _rate_and_steps(func.__name__, sample_rate, steps, batch_size, epochs,
                               kwargs, sampling)
        return func(noise_multiplier, q, t, *args, **kwargs)
    return by_position
