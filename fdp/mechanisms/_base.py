"""What every mechanism in ``fdp.mechanisms`` answers.

A mechanism is an immutable value object (a frozen dataclass) with

* ``tradeoff`` -- its f-DP guarantee as an ``fdp.TradeOff`` (exact where known);
* ``release(value, rng=None)`` -- a noisy answer, vectorised over an array of queries;
* ``sample(value, n, rng=None)`` -- n independent releases on the same input (auditing);
* ``audit_inputs()`` -- a worst-case neighbouring pair (value, value') for auditing;
* ``audit_scores(outputs, value, value')`` -- a real score per output whose large
  values favour value' (the log-likelihood ratio where the mechanism knows it), so
  that threshold tests on the score are Neyman–Pearson tests.

``fdp.audit.check(mechanism, ...)`` uses only these five names, so a user's own
mechanism can be audited by providing them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatOrArray, Seed


def finite_values(name: str, value: object) -> np.ndarray:
    """A float array with every entry finite (NaN and ±inf refused)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be real numbers: {exc}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def positive(name: str, x: object) -> float:
    """A finite real > 0."""
    return _validate.real(name, x, low=0.0, low_open=True)


def like(value: ArrayLike, out: np.ndarray) -> FloatOrArray:
    """Return a Python scalar when the caller passed a scalar."""
    if np.ndim(value) == 0 and np.ndim(out) == 0:
        return out.item() if hasattr(out, "item") else out
    return out


class Mechanism:
    """Base of the mechanisms: the default ``sample`` repeats the input n times.

    A subclass is a frozen dataclass whose fields are its parameters; it defines
    ``tradeoff`` and ``release`` (see the module docstring for the five names that
    ``fdp.audit`` uses).

    Examples
    --------
    >>> from fdp.mechanisms import GaussianMechanism, Mechanism
    >>> m = GaussianMechanism(1.0, 1.0)
    >>> isinstance(m, Mechanism), m.sample(0.0, 3, rng=0).shape
    (True, (3,))
    """

    __slots__ = ()

    def release(self, value: Any, rng: Seed = None) -> Any:
        """A noisy answer for ``value`` (each mechanism defines it)."""
        raise NotImplementedError

    def sample(self, value: Any, n: int, rng: Seed = None) -> np.ndarray:
        """n independent releases of the mechanism on the same input ``value``."""
        n = _validate.positive_int("n", n)
        arr = np.asarray(value)
        batch = np.broadcast_to(arr, (n,) + arr.shape)
        return np.asarray(self.release(batch, rng=_validate.generator(rng)))

    def audit_scores(self, outputs: ArrayLike, value: Any, value_prime: Any) -> np.ndarray:
        """Scores for threshold tests; by default the (scalar) outputs themselves."""
        return np.asarray(outputs, dtype=float)
