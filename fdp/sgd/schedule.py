"""DP-SGD's schedule in the form training code states it: epochs, batch size, dataset size.

The accountants take a sample rate q and a number of steps T; a training loop (Opacus,
the ``fdp dpsgd`` command) states B records per batch from N, for E epochs. With
Poisson sampling at q = B/N an epoch is N/B steps in expectation, so
T = ⌈E·N/B⌉ (a last partial epoch counted whole: more steps is the safe side).
"""

from __future__ import annotations

import functools
import math

from fdp import _validate


def from_epochs(batch_size, dataset_size, epochs) -> tuple[float, int]:
    """(sample rate, steps) = (B/N, ⌈E·N/B⌉) of E epochs of batches of B from N records.

    Parameters
    ----------
    batch_size : int
        B ≥ 1, the (expected) batch size, at most ``dataset_size``.
    dataset_size : int
        N ≥ 1, the number of records.
    epochs : float
        E > 0 (a fraction of an epoch is allowed; the steps are rounded up).

    Returns
    -------
    (float, int)
        The sample rate q = B/N and the number of steps T.

    Raises
    ------
    ValueError
        If a count is below 1, B > N, or E is not a finite number > 0.

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


def accepts_epochs(func):
    """Let ``func(noise_multiplier, sample_rate, steps, ...)`` also be called as
    ``func(noise_multiplier, batch_size=B, dataset_size=N, epochs=E, ...)``
    (``from_epochs``). ``dataset_size`` is passed on only to the samplers that use it
    (``truncated_poisson``, ``with_replacement``)."""
    @functools.wraps(func)
    def wrapper(noise_multiplier, sample_rate=None, steps=None, *args, batch_size=None,
                epochs=None, **kwargs):
        name = func.__name__
        if batch_size is None and epochs is None:
            if sample_rate is None or steps is None:
                raise TypeError(f"{name}() needs sample_rate and steps, or batch_size=, "
                                "dataset_size= and epochs=")
            return func(noise_multiplier, sample_rate, steps, *args, **kwargs)
        if sample_rate is not None or steps is not None:
            raise TypeError(f"{name}() takes either sample_rate and steps, or batch_size=, "
                            "dataset_size= and epochs=, not both")
        if batch_size is None or epochs is None or kwargs.get("dataset_size") is None:
            raise TypeError(f"{name}() with epochs needs batch_size=, dataset_size= and "
                            "epochs=")
        q, steps = from_epochs(batch_size, kwargs["dataset_size"], epochs)
        sampling = args[0] if args else kwargs.get("sampling", "poisson")
        if sampling not in ("truncated_poisson", "with_replacement"):
            kwargs.pop("dataset_size")
        return func(noise_multiplier, q, steps, *args, **kwargs)
    return wrapper
