"""From a symbolic expression to a numeric ``fdp.TradeOff``, and to LaTeX."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from fdp import _validate
from fdp.symbolic._expr import alpha, as_expr, bind
from fdp.symbolic._numeric import MODULES, stable
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class SymbolicTradeOff(TradeOff):
    """A numeric trade-off function evaluated from a sympy expression in α.

    The expression is lambdified once (numpy/scipy, vectorised). Values that are
    not finite real numbers raise ValueError: nothing is clipped.
    """

    expr: sp.Expr
    name: str = "f"
    _fn: Callable[[np.ndarray], Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        free = self.expr.free_symbols - {alpha}
        if free:
            raise ValueError(f"every parameter needs a numeric value; missing "
                             f"{sorted(s.name for s in free)}")
        fn = sp.lambdify(alpha, stable(self.expr), modules=MODULES)
        object.__setattr__(self, "_fn", fn)

    def _beta(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = np.asarray(self._fn(a))
        if out.shape != a.shape:
            out = np.broadcast_to(out, a.shape)
        if np.iscomplexobj(out) or not np.isfinite(out).all():
            bad = ~np.isfinite(out) | (np.imag(out) != 0 if np.iscomplexobj(out) else False)
            raise ValueError(f"f({a[bad].ravel()[0]!r}) is not a finite real number "
                             f"for f = {self.expr}")
        return np.asarray(out, dtype=float)

    def latex(self) -> str:
        return sp.latex(self.expr)


def to_tradeoff(expr, /, name: str = "f", validate: bool = True, **params) -> SymbolicTradeOff:
    """A numeric ``fdp.TradeOff`` from a symbolic f with every parameter given a number.

    ``validate=True`` screens the four axioms on a fine grid of α with
    ``fdp.families.user.check_axioms`` (ValueError naming the axiom that fails); use
    ``check`` for a proof.
    """
    validate = _validate.flag("validate", validate)
    f, ranges = bind(as_expr(expr), params)
    if ranges:
        raise ValueError(f"to_tradeoff needs numbers, not ranges, for {sorted(map(str, ranges))}")
    out = SymbolicTradeOff(f, name)
    if validate:
        from fdp.families.user import check_axioms
        check_axioms(out)
    return out


def latex(expr, /, name: str | None = None) -> str:
    """LaTeX of f (``name(\\alpha) = …`` when a name is given), without dollar signs."""
    body = sp.latex(as_expr(expr))
    return body if name is None else rf"{name}(\alpha) = {body}"


__all__ = ["SymbolicTradeOff", "latex", "to_tradeoff"]
