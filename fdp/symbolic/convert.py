"""From a symbolic expression to a numeric ``fdp.TradeOff``, and to LaTeX."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from fdp import _validate
from fdp.families.user import check_axioms
from fdp.symbolic._expr import ExprLike, alpha, as_expr, bind
from fdp.symbolic._numeric import MODULES, stable
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class SymbolicTradeOff(TradeOff):
    """A numeric trade-off function evaluated from a sympy expression in α.

    The expression is lambdified once (numpy/scipy, vectorised). Values that are not
    finite real numbers raise ValueError: nothing is clipped. Build it with
    ``to_tradeoff``, which also screens the axioms.

    Parameters
    ----------
    expr : sympy.Expr
        f in ``S.alpha``, with no other free symbol.
    name : str, optional
        Name used in messages (default "f").

    Raises
    ------
    ValueError
        If a parameter has no numeric value.

    Examples
    --------
    >>> from fdp import symbolic as S
    >>> f = S.SymbolicTradeOff(S.identity())
    >>> print(f"{f(0.25):.2f}")
    0.75
    """

    expr: sp.Expr
    name: str = "f"
    _fn: Callable[[np.ndarray], Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
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


def to_tradeoff(expr: ExprLike, /, name: str = "f", validate: bool = True,
                **params: Any) -> SymbolicTradeOff:
    """A numeric ``fdp.TradeOff`` from a symbolic f with every parameter given a number.

    Parameters
    ----------
    expr : sympy expression
        f in ``S.alpha``.
    name : str, optional
        Name used in messages (default "f").
    validate : bool, optional
        Screen the four axioms on a fine grid of α with ``fdp.families.user.check_axioms``
        (default True); use ``check`` for a proof.
    **params
        A number for every parameter of ``expr``.

    Returns
    -------
    SymbolicTradeOff
        The numeric trade-off function.

    Examples
    --------
    >>> import fdp
    >>> from fdp import symbolic as S
    >>> f = S.to_tradeoff(S.gaussian(), mu=1.0)
    >>> bool(abs(f(0.3) - fdp.Gaussian(1.0)(0.3)) < 1e-12)
    True
    """
    validate = _validate.flag("validate", validate)
    f, ranges = bind(as_expr(expr), params)
    if ranges:
        raise ValueError(f"to_tradeoff needs numbers, not ranges, for {sorted(map(str, ranges))}")
    out = SymbolicTradeOff(f, name)
    if validate:
        check_axioms(out)
    return out


def latex(expr: ExprLike, /, name: str | None = None) -> str:
    r"""LaTeX of f (``name(α) = …`` when a name is given), without dollar signs.

    Parameters
    ----------
    expr : sympy expression
        f in ``S.alpha``.
    name : str or None, optional
        Function name to put in front.

    Returns
    -------
    str
        The LaTeX text.

    Examples
    --------
    >>> from fdp import symbolic as S
    >>> print(S.latex(S.identity(), name="f"))
    f(\alpha) = 1 - \alpha
    """
    body = sp.latex(as_expr(expr))
    return body if name is None else rf"{name}(\alpha) = {body}"


__all__ = ["SymbolicTradeOff", "latex", "to_tradeoff"]
