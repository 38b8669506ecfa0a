"""Argument checks shared by every module.

Each check raises ``ValueError`` (or ``TypeError``) naming the parameter and the
allowed range; nothing is ever clipped silently.
"""

from __future__ import annotations

import functools
import numbers
import operator
from collections.abc import Callable, Iterable
from typing import Any, ParamSpec, SupportsIndex, TypeVar

import numpy as np

from ._types import ArrayLike, FloatArray, FloatOrArray

_P = ParamSpec("_P")
_R = TypeVar("_R")


def real(name: str, value: object, *, low: float = -np.inf, high: float = np.inf,
         low_open: bool = False, high_open: bool = False, allow_inf: bool = False) -> float:
    """A finite real scalar in [low, high] (bounds open where asked)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 0:
        raise TypeError(f"{name} must be a scalar, got an array of shape {arr.shape}")
    x = float(arr)
    rng = _range_text(low, high, low_open, high_open)
    if np.isnan(x) or (np.isinf(x) and not allow_inf):
        raise ValueError(f"{name} must be a finite number in {rng}, got {number(x)}")
    if x < low or x > high or (low_open and x == low) or (high_open and x == high):
        raise ValueError(f"{name} must lie in {rng}, got {number(x)}")
    return x


def reals(name: str, value: object, *, low: float = -np.inf, high: float = np.inf,
          allow_inf: bool = False, low_open: bool = False) -> FloatArray:
    """A float array (any shape) with every entry in [low, high] ((low, high] with
    ``low_open``).

    Strings and booleans are refused with TypeError (as ``real`` does): a number
    written as text is a caller's bug, not a value.
    """
    _refuse_text_and_bool(name, value)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be real numbers: {exc}") from None
    rng = _range_text(low, high, low_open, False)
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN; allowed range {rng}")
    if not allow_inf and np.isinf(arr).any():
        bad = arr[np.isinf(arr)].ravel()[0]
        raise ValueError(f"{name} must be finite and lie in {rng}, got {number(bad)}")
    out = (arr < low) | (arr > high) | ((arr == low) & low_open)
    if out.any():
        raise ValueError(f"{name} must lie in {rng}, got {number(arr[out].ravel()[0])}")
    return arr


def _refuse_text_and_bool(name: str, value: object) -> None:
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(f"{name} must be real numbers, got {type(value).__name__}")
    if isinstance(value, np.ndarray):
        kind = value.dtype.kind
    elif isinstance(value, (list, tuple)):
        try:
            kind = np.asarray(value).dtype.kind
        except (TypeError, ValueError):
            kind = "O"
        if kind == "O" and any(isinstance(v, (str, bytes, bool, np.bool_))
                               for v in np.asarray(value, dtype=object).ravel()):
            kind = "U"
    else:
        return
    if kind in "USb":
        what = "bool" if kind == "b" else "str"
        raise TypeError(f"{name} must be real numbers, got an array of {what}")
    if kind == "O" and any(isinstance(v, (str, bytes, bool, np.bool_))
                           for v in np.asarray(value, dtype=object).ravel()):
        raise TypeError(f"{name} must be real numbers, got an array holding str or bool")


def flag(name: str, value: object) -> bool:
    """A boolean option: True or False only (no 'yes', 1 or None)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")


def number(x: object) -> str:
    """A number as a message shows it: plain Python repr, never ``np.float64(…)``."""
    if isinstance(x, (np.generic,)):
        x = x.item()
    if isinstance(x, float):
        return repr(float(x))
    return repr(x)


def alpha(value: object) -> FloatArray:
    """Type I error levels: floats in [0, 1]."""
    return reals("alpha", value, low=0.0, high=1.0)


def probability(name: str, value: object) -> float:
    return real(name, value, low=0.0, high=1.0)


def positive_int(name: str, value: object, *, low: int = 1) -> int:
    """An integer ≥ low (bools and non-integral floats refused)."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name} must be an integer >= {low}, got {type(value).__name__} "
                        f"{number(value)}")
    if isinstance(value, SupportsIndex):
        k = operator.index(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        k = int(float(value))
    else:
        raise ValueError(f"{name} must be an integer >= {low}, got {number(value)}")
    if k < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {k}")
    return k


def like_input(template: ArrayLike, out: FloatArray) -> FloatOrArray:
    """Return a Python float when the caller passed a scalar, else the ndarray."""
    if np.ndim(template) == 0:
        return float(out)
    return out


def _range_text(low: float, high: float, low_open: bool, high_open: bool) -> str:
    left = "(" if low_open or low == -np.inf else "["
    right = ")" if high_open or high == np.inf else "]"
    lo = "-inf" if low == -np.inf else f"{float(low):g}"
    hi = "inf" if high == np.inf else f"{float(high):g}"
    return f"{left}{lo}, {hi}{right}"


def generator(rng: object) -> np.random.Generator:
    """A numpy Generator from ``rng``: None (fresh OS entropy), an int seed, a SeedSequence
    or a Generator (returned as is); anything else is a TypeError naming ``rng``."""
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (numbers.Integral, np.random.SeedSequence)) and not isinstance(rng, bool):
        return np.random.default_rng(rng if isinstance(rng, np.random.SeedSequence)
                                     else int(rng))
    raise TypeError(f"rng must be None, an int seed or a numpy.random.Generator, "
                    f"got {type(rng).__name__}")


def british_spelling(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a function taking ``neighbouring=``: the US spelling ``neighboring=``
    gets a TypeError that says which keyword was meant (instead of Python's bare
    "unexpected keyword argument").

    Examples
    --------
    >>> from fdp._validate import british_spelling
    >>> @british_spelling
    ... def f(neighbouring="add_remove"):
    ...     return neighbouring
    >>> try:
    ...     f(neighboring="replace_one")
    ... except TypeError as exc:
    ...     print(exc)
    f() got an unexpected keyword argument 'neighboring': did you mean neighbouring=?
    """
    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if "neighboring" in kwargs:
            raise TypeError(f"{func.__name__}() got an unexpected keyword argument "
                            "'neighboring': did you mean neighbouring=?")
        return func(*args, **kwargs)
    return wrapper


def meet_width(f: Any, width: float | None, lo: ArrayLike, hi: ArrayLike,
               what: str) -> None:
    """Raise ``ValueError`` unless every bracket is at most ``width`` wide (None:
    no demand); exact objects meet any width, other generic ones cannot refine.
    """
    if width is None:
        return
    w = real("width", width, low=0.0, low_open=True)
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    same = lo == hi                                   # also inf == inf
    with np.errstate(invalid="ignore"):
        gap = np.where(same, 0.0, hi - lo)
    widest = float(np.max(gap)) if gap.size else 0.0
    if not f.is_exact and widest > w:
        raise ValueError(f"width={w:g} cannot be met for {what}: this {type(f).__name__} "
                         f"gives a certified bracket {widest:.3g} wide and cannot refine it; "
                         "compose it numerically with a smaller tol")


def count_factors(fs: Iterable[Any]) -> list[tuple[Any, int]]:
    """Equal factors of f_1 ⊗ … ⊗ f_n with their multiplicities, in order of first appearance
    (the package's one grouping; unhashable factors stand alone, keyed by identity).

    Examples
    --------
    >>> import fdp
    >>> from fdp.tradeoff import count_factors
    >>> g = fdp.Gaussian(1.0)
    >>> [(f, n) for f, n in count_factors([g, fdp.Laplace(1.0), g])]
    [(Gaussian(mu=1.0), 2), (Laplace(mu=1.0), 1)]
    """
    counts: dict = {}
    for f in fs:
        try:
            key: tuple = ("h", f)
            hash(f)
        except TypeError:
            key = ("id", id(f))
        if key in counts:
            counts[key][1] += 1
        else:
            counts[key] = [f, 1]
    return [(f, n) for f, n in counts.values()]
