"""A user's trade-off function, checked against the four axioms (DRS Prop 2.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fdp import _validate
from fdp.tradeoff import TradeOff

#: A user's β: called with an ndarray of α (or, when that fails, with one float at a
#: time) and returning β values of the same shape.
UserFn = Callable[[Any], Any]

_GRID = np.unique(np.concatenate([np.linspace(0.0, 1.0, 4001), np.logspace(-12, -3, 200),
                                  1.0 - np.logspace(-12, -3, 200)]))


class UserFunction(TradeOff):
    """A callable α ↦ β accepted as a trade-off function after ``check_axioms``.

    ``fn``: α ↦ β; ``name``: the name shown by ``repr``.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.from_function(lambda a: (1.0 - a) ** 2, name="sq")
    >>> print(f, f"{f(0.5):.4f}")
    from_function(sq) 0.2500
    """

    __slots__ = ("fn", "name")
    fn: UserFn
    name: str | None

    def __init__(self, fn: UserFn, name: str | None = None) -> None:
        object.__setattr__(self, "fn", fn)
        object.__setattr__(self, "name", name or getattr(fn, "__name__", "f"))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("UserFunction is immutable")

    def __repr__(self) -> str:
        return f"from_function({self.name})"

    def latex(self) -> str:
        return rf"\mathrm{{{self.name}}}"

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        return _evaluate(self.fn, alpha)


def _evaluate(fn: UserFn, alpha: np.ndarray) -> np.ndarray:
    try:
        out = np.asarray(fn(alpha), dtype=float)
        if out.shape != alpha.shape:
            raise ValueError
    except Exception:  # not vectorised: call it point by point
        out = np.array([float(fn(float(a))) for a in alpha.ravel()]).reshape(alpha.shape)
    return out


def check_axioms(fn: UserFn, tol: float = 1e-9) -> None:
    """Raise ValueError naming the first axiom ``fn`` breaks on a fine grid of α.

    Derivation: docs/derivations/families.md.
    """
    a = _GRID
    b = _evaluate(fn, a)
    if not np.all(np.isfinite(b)):
        raise ValueError(f"user function is not finite at alpha={a[~np.isfinite(b)][0]!r}")
    if (b < -tol).any() or (b > 1 + tol).any():
        i = np.flatnonzero((b < -tol) | (b > 1 + tol))[0]
        raise ValueError(f"user function must take values in [0, 1]; f({a[i]!r}) = {b[i]!r}")
    over = b - (1.0 - a)
    if (over > tol).any():
        i = np.argmax(over)
        raise ValueError(f"axiom f(alpha) <= 1 - alpha fails at alpha={a[i]!r}: f = {b[i]!r}")
    rise = np.diff(b)
    if (rise > tol).any():
        i = np.argmax(rise)
        raise ValueError(f"axiom 'non-increasing' fails between alpha={a[i]!r} and {a[i + 1]!r}")
    # Convexity: f(mid) ≤ chord between neighbours, with slack tol.
    a0, a1, a2 = a[:-2], a[1:-1], a[2:]
    chord = b[:-2] + (b[2:] - b[:-2]) * (a1 - a0) / (a2 - a0)
    gap = b[1:-1] - chord
    if (gap > tol).any():
        i = np.argmax(gap)
        raise ValueError(f"axiom 'convex' fails at alpha={a1[i]!r}: "
                         f"f lies {gap[i]:.3g} above its chord")


def from_function(fn: UserFn, *, tol: float = 1e-9, name: str | None = None) -> UserFunction:
    """A callable α ↦ β (scalar or vectorised, never clipped) as a trade-off function, after
    checking the four axioms within ``tol`` (≥ 0); ``name`` is shown by ``repr``.

    ``TypeError`` if ``fn`` is not callable, ``ValueError`` naming the axiom that fails.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.from_function(lambda a: (1.0 - a) ** 2)
    >>> print(f"{f.epsilon(0.1):.4f}")
    0.3130
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    tol = _validate.real("tol", tol, low=0.0)
    check_axioms(fn, tol)
    return UserFunction(fn, name)
