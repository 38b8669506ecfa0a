"""Argument checks shared by every module.

Each check raises ``ValueError`` (or ``TypeError``) naming the parameter and the
allowed range; nothing is ever clipped silently.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np


def real(name: str, value, *, low=-np.inf, high=np.inf, low_open=False,
         high_open=False, allow_inf=False) -> float:
    """A finite real scalar in [low, high] (bounds open where asked)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 0:
        raise TypeError(f"{name} must be a scalar, got an array of shape {arr.shape}")
    x = float(arr)
    rng = _range_text(low, high, low_open, high_open)
    if np.isnan(x) or (np.isinf(x) and not allow_inf):
        raise ValueError(f"{name} must be a finite number in {rng}, got {x!r}")
    if x < low or x > high or (low_open and x == low) or (high_open and x == high):
        raise ValueError(f"{name} must lie in {rng}, got {x!r}")
    return x


def reals(name: str, value, *, low=-np.inf, high=np.inf, allow_inf=False) -> np.ndarray:
    """A float array (any shape) with every entry in [low, high]."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be real numbers: {exc}") from None
    rng = _range_text(low, high, False, False)
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN; allowed range {rng}")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite and lie in {rng}")
    if (arr < low).any() or (arr > high).any():
        bad = arr[(arr < low) | (arr > high)].ravel()[0]
        raise ValueError(f"{name} must lie in {rng}, got {bad!r}")
    return arr


def alpha(value) -> np.ndarray:
    """Type I error levels: floats in [0, 1]."""
    return reals("alpha", value, low=0.0, high=1.0)


def probability(name: str, value) -> float:
    return real(name, value, low=0.0, high=1.0)


def positive_int(name: str, value, *, low: int = 1) -> int:
    """An integer ≥ low (bools and non-integral floats refused)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer >= {low}, got {value!r}")
    try:
        k = operator.index(value)
    except TypeError:
        if isinstance(value, numbers.Real) and float(value).is_integer():
            k = int(value)
        else:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}") from None
    if k < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {k}")
    return k


def like_input(template, out: np.ndarray):
    """Return a Python float when the caller passed a scalar, else the ndarray."""
    if np.ndim(template) == 0:
        return float(out)
    return out


def _range_text(low, high, low_open, high_open) -> str:
    left = "(" if low_open or low == -np.inf else "["
    right = ")" if high_open or high == np.inf else "]"
    lo = "-inf" if low == -np.inf else f"{low:g}"
    hi = "inf" if high == np.inf else f"{high:g}"
    return f"{left}{lo}, {hi}{right}"
