"""Symbols, the closed-form families as sympy expressions, and piece decomposition.

Every expression is a function of the symbol ``alpha`` (α, the type I error) and
of parameters (symbols or numbers). The families (DRS = Dong, Roth & Su 2022):

* G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (DRS eq. 2.3). With Φ(x) = erfc(−x/√2)/2 and
  Φ⁻¹(1 − α) = √2 erfinv(1 − 2α) this is erfc(μ/√2 − erfinv(1 − 2α))/2: sympy
  differentiates, solves and evaluates (evalf) it. (sympy cannot evalf erfcinv,
  so erfinv is used; ``to_tradeoff`` evaluates erfinv(1 − 2α) as erfcinv(2α),
  which is accurate for tiny α.)
* f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)} (DRS eq. 2.5).
* L_μ (DRS Appendix A): 1 − e^μ α for α < e^{−μ}/2; e^{−μ}/(4α) on
  [e^{−μ}/2, 1/2]; e^{−μ}(1 − α) for α > 1/2.

A family's parameter is a number or a sympy expression free of α (else a TypeError);
a negative or non-finite number, or one out of range, is a ValueError.

``pieces(expr)`` splits a ``Piecewise`` (or a ``Max`` of functions of α) into
explicit pieces on sub-intervals of [0, 1]; the prover and the calculus work
piece by piece.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import sympy as sp

alpha = sp.Symbol("alpha", real=True)

#: What the builders accept for a parameter or an expression: a sympy expression or a number.
ExprLike: TypeAlias = "sp.Basic | float | int"
#: One piece (expression, low, high) of a piecewise trade-off function on [low, high].
Piece = tuple[sp.Expr, sp.Expr, sp.Expr]
#: A decision a ≤ b (True only when proved), as the pieces helpers take it.
LessEqual = Callable[[sp.Expr, sp.Expr], bool]
"""The type I error α, the variable of every symbolic trade-off function."""

mu = sp.Symbol("mu", positive=True)
epsilon = sp.Symbol("epsilon", positive=True)
delta_ = sp.Symbol("delta", nonnegative=True)

# Parameter ranges beyond what sympy's assumptions can say: (low, high, low_closed,
# high_closed). δ of f_{ε,δ} lives in [0, 1) (δ = 1 is the trivial f = 0).
DOMAINS: dict[sp.Symbol, tuple] = {delta_: (sp.S.Zero, sp.S.One, True, False)}


def Phi(x: ExprLike) -> sp.Expr:
    """Standard normal cdf Φ(x) = erfc(−x/√2)/2, as a sympy expression.

    Examples
    --------
    >>> from fdp import symbolic as S
    >>> S.Phi(0)
    1/2
    """
    return sp.erfc(-sp.sympify(x) / sp.sqrt(2)) / 2


def Phi_inv(p: ExprLike) -> sp.Expr:
    """Standard normal quantile Φ⁻¹(p) = √2 erfinv(2p − 1), as a sympy expression.

    Examples
    --------
    >>> import sympy as sp
    >>> from fdp import symbolic as S
    >>> S.Phi_inv(sp.Rational(1, 2))
    0
    """
    return sp.sqrt(2) * sp.erfinv(2 * sp.sympify(p) - 1)


def _param(value: ExprLike | None, name: str, default: sp.Symbol) -> sp.Expr:
    """A parameter: the default symbol, a user's symbol or expression, or a number."""
    if value is None:
        return default
    if isinstance(value, str):
        raise TypeError(f"{name} must be a number or a sympy expression, got a string")
    try:
        v = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError):
        raise TypeError(f"{name} must be a number or a sympy expression, "
                        f"got {type(value).__name__}") from None
    if alpha in v.free_symbols:
        raise ValueError(f"{name} must not depend on alpha")
    if v.is_number:
        if not v.is_extended_real or not v.is_finite:
            raise ValueError(f"{name} must be a finite real number, got {v}")
        if v.is_negative:
            raise ValueError(f"{name} must be >= 0, got {v}")
        v = exact(v)
    return v


def gaussian(mu: ExprLike | None = None) -> sp.Expr:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) = erfc(μ/√2 − erfinv(1 − 2α))/2.

    Dong, Roth & Su (2022), Def 2.7.

    Examples
    --------
    >>> from fdp import symbolic as S
    >>> S.gaussian()
    erfc(sqrt(2)*mu/2 - erfinv(1 - 2*alpha))/2
    >>> print(S.gaussian(1).subs(S.alpha, 0.5).evalf(6))
    0.158655
    """
    m = _param(mu, "mu", globals()["mu"])
    return sp.erfc(m / sp.sqrt(2) - sp.erfinv(1 - 2 * alpha)) / 2


def eps_delta(eps: ExprLike | None = None, delta: ExprLike | None = None) -> sp.Expr:
    """f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)}.

    Dong, Roth & Su (2022), Def 2.3 and Prop 2.5; ``delta=0`` gives pure ε-DP.

    Parameters
    ----------
    eps : number, sympy expression or None, optional
        ε ≥ 0; default the positive symbol ``S.epsilon``.
    delta : number, sympy expression or None, optional
        δ in [0, 1); default the symbol ``S.delta_``.

    Returns
    -------
    sympy.Expr
        f_{ε,δ} as a ``Max`` in ``S.alpha``.

    Examples
    --------
    >>> import sympy as sp
    >>> from fdp import symbolic as S
    >>> S.eps_delta(sp.log(2), 0)
    Max(0, 1/2 - alpha/2, 1 - 2*alpha)
    """
    e = _param(eps, "eps", epsilon)
    d = _param(delta, "delta", delta_)
    if d.is_number and d >= 1:
        raise ValueError(f"delta must lie in [0, 1), got {d}")
    return sp.Max(0, 1 - d - sp.exp(e) * alpha, sp.exp(-e) * (1 - d - alpha))


def laplace(mu: ExprLike | None = None) -> sp.Expr:
    """L_μ = T(Lap(0, 1), Lap(μ, 1)) as a Piecewise (Dong, Roth & Su 2022, Appendix A).

        1 − e^μ α        for α < e^{−μ}/2,
        e^{−μ}/(4α)      for e^{−μ}/2 ≤ α ≤ 1/2,
        e^{−μ}(1 − α)    for α > 1/2.

    Examples
    --------
    >>> import sympy as sp
    >>> from fdp import symbolic as S
    >>> S.laplace(1).subs(S.alpha, sp.Rational(3, 4))
    exp(-1)/4
    """
    m = _param(mu, "mu", globals()["mu"])
    k = sp.exp(-m) / 2
    return sp.Piecewise((1 - sp.exp(m) * alpha, alpha < k),
                        (sp.exp(-m) / (4 * alpha), alpha <= sp.Rational(1, 2)),
                        (sp.exp(-m) * (1 - alpha), True))


def identity() -> sp.Expr:
    """Id(α) = 1 − α, perfect privacy.

    Returns
    -------
    sympy.Expr
        1 − α in ``S.alpha``.

    Examples
    --------
    >>> from fdp import symbolic as S
    >>> S.identity()
    1 - alpha
    """
    return 1 - alpha


def rational(x: float) -> sp.Rational:
    """A float as the Rational of its shortest round-trip decimal (0.1 → 1/10)."""
    return sp.Rational(repr(float(x)))


def exact(expr: sp.Expr) -> sp.Expr:
    """Replace every Float by a Rational: the shortest decimal that round-trips
    to the same double (what the user typed: 0.01 → 1/100), so that proofs and
    closed forms are about exact numbers."""
    expr = sp.sympify(expr)
    floats = expr.atoms(sp.Float)
    if not floats:
        return expr
    return expr.xreplace({f: rational(f) for f in floats})


def as_expr(expr: ExprLike, var: sp.Symbol = alpha) -> sp.Expr:
    """sympify a user's expression in α and check its type."""
    if isinstance(expr, str):
        raise TypeError("expr must be a sympy expression in S.alpha, not a string "
                        "(build it from S.alpha, e.g. 1 - S.alpha**2)")
    try:
        e = sp.sympify(expr, strict=True)
    except (sp.SympifyError, TypeError):
        raise TypeError(f"expr must be a sympy expression, got {type(expr).__name__}") from None
    if not isinstance(e, sp.Expr):
        raise TypeError(f"expr must be a sympy expression, got {type(e).__name__}")
    return e


def bind(expr: sp.Expr, params: dict[str, Any],
         var: sp.Symbol = alpha) -> tuple[sp.Expr, dict[sp.Symbol, tuple[Any, Any, bool, bool]]]:
    """Substitute numeric or symbolic parameter values given by name.

    Returns (expr, ranges) where ranges maps symbols to user-given (low, high)
    ranges. A value that is a 2-tuple is a range, anything else a value.
    Unknown names raise ValueError.
    """
    names = {s.name: s for s in expr.free_symbols if s != var}
    subs, ranges = {}, {}
    for key, value in params.items():
        if key not in names:
            raise ValueError(f"unknown parameter {key!r}; the expression has "
                             f"{sorted(names) or 'no parameters'}")
        s = names[key]
        if isinstance(value, tuple):
            if len(value) != 2:
                raise ValueError(f"range for {key} must be a (low, high) pair")
            lo, hi = (exact(sp.sympify(v)) for v in value)
            if not (lo.is_number and hi.is_number) or not bool(lo < hi):
                raise ValueError(f"range for {key} must be numbers with low < high, got {value}")
            ranges[s] = (lo, hi, True, True)
        else:
            v = exact(sp.sympify(value))
            if v.is_number and not v.is_extended_real:
                raise ValueError(f"{key} must be real, got {value!r}")
            # a positive symbol may be given the boundary value 0 (G_0, L_0, f_{0,δ}):
            # after substitution the expression no longer depends on the assumption
            if v.is_number and s.is_nonnegative and not v.is_nonnegative:
                raise ValueError(f"{key} must be >= 0, got {value!r}")
            subs[s] = v
    return exact(expr.subs(subs)), ranges


# ----------------------------------------------------------------------
# Pieces
# ----------------------------------------------------------------------
class PiecesError(ValueError):
    """The expression cannot be split into pieces with provably ordered joins."""


def _bound_of(cond: sp.Basic, var: sp.Symbol) -> tuple[str, sp.Expr]:
    """(kind, bound) of a condition var < b / var <= b / var > a / var >= a."""
    if isinstance(cond, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan,
                         sp.GreaterThan)):
        lhs, rhs = cond.lhs, cond.rhs
        upper = isinstance(cond, (sp.StrictLessThan, sp.LessThan))
        if lhs == var and var not in rhs.free_symbols:
            return ("upper" if upper else "lower"), rhs
        if rhs == var and var not in lhs.free_symbols:
            return ("lower" if upper else "upper"), lhs
    raise PiecesError(f"cannot read the condition {cond} as a bound on {var}")


def _interval_of(cond: sp.Basic, var: sp.Symbol) -> tuple[sp.Expr | None, sp.Expr | None]:
    """(low, high) of a Piecewise condition; None for an open side."""
    if cond == sp.true:
        return None, None
    lo = hi = None
    parts = cond.args if isinstance(cond, sp.And) else (cond,)
    for c in parts:
        kind, b = _bound_of(c, var)
        if kind == "upper":
            if hi is not None:
                raise PiecesError(f"two upper bounds in {cond}")
            hi = b
        else:
            if lo is not None:
                raise PiecesError(f"two lower bounds in {cond}")
            lo = b
    return lo, hi


def pieces(expr: sp.Expr, var: sp.Symbol = alpha,
           less_equal: LessEqual | None = None) -> list[Piece]:
    """Split f into [(expression, low, high), ...] covering [0, 1] in order.

    A non-Piecewise expression is one piece; a ``Max`` is split at the crossings of
    its arguments, dropping arguments that are never the largest.

    Parameters
    ----------
    expr : sympy expression
        f in ``var``.
    var : sympy.Symbol, optional
        The variable (default ``S.alpha``).
    less_equal : callable or None, optional
        ``less_equal(a, b)`` returns True when a ≤ b is proved; joins must be provably
        ordered. Default: a numeric comparison of closed numbers.

    Returns
    -------
    list of (sympy.Expr, sympy.Expr, sympy.Expr)
        Each piece with the ends of its interval.

    Raises
    ------
    PiecesError
        (a ValueError) when the order of the joins cannot be established.

    Examples
    --------
    >>> import sympy as sp
    >>> from fdp import symbolic as S
    >>> S.pieces(S.eps_delta(sp.log(2), 0))
    [(1 - 2*alpha, 0, 1/3), (1/2 - alpha/2, 1/3, 1)]
    """
    le = less_equal or _numeric_le
    if isinstance(expr, sp.Max) and expr.has(var):
        return max_pieces(expr, var, le)
    if not isinstance(expr, sp.Piecewise):
        return [(expr, sp.S.Zero, sp.S.One)]
    out = []
    prev_hi = sp.S.Zero
    for e, cond in expr.args:
        lo, hi = _interval_of(cond, var)
        if lo is not None and not le(lo, prev_hi):
            raise PiecesError(f"cannot prove that the piece {e} for {cond} starts where "
                              f"the previous one ends ({prev_hi}); list pieces from "
                              f"alpha = 0 upwards")
        # the part below prev_hi is taken by earlier pieces (Piecewise semantics)
        hi = sp.S.One if hi is None else hi
        if le(sp.S.One, prev_hi):
            break  # [0, 1] already covered
        if le(sp.S.One, hi):
            out.append((e, prev_hi, sp.S.One))
            break
        if le(hi, prev_hi):  # empty on [0, 1] (taken by earlier pieces, or below 0)
            continue
        if not le(prev_hi, hi):
            raise PiecesError(f"cannot prove {prev_hi} <= {hi} (joins of {expr})")
        out.append((e, prev_hi, hi))
        prev_hi = hi
    else:
        raise PiecesError(f"the pieces of {expr} do not cover [0, 1]")
    return out


def max_pieces(expr: sp.Expr, var: sp.Symbol, le: LessEqual) -> list[Piece]:
    """Split Max(g_1, …, g_k) at the crossings g_i = g_j inside [0, 1].

    Between consecutive crossings no two arguments change order, so the largest
    argument at the midpoint is the largest on the whole sub-interval.
    """
    args = list(expr.args)
    points = [sp.S.Zero, sp.S.One]
    for i in range(len(args)):
        for j in range(i + 1, len(args)):
            diff = sp.expand(args[i] - args[j])
            if not diff.has(var):
                continue
            try:
                sols = sp.solve(diff, var)
            except NotImplementedError:
                raise PiecesError(f"cannot solve {args[i]} = {args[j]}") from None
            for s in sols:
                s = sp.simplify(s)
                if le(s, sp.S.Zero) or le(sp.S.One, s):
                    continue
                if not (le(sp.S.Zero, s) and le(s, sp.S.One)):
                    raise PiecesError(f"cannot place the crossing {s} relative to [0, 1]")
                points.append(s)
    # sort with proved comparisons (insertion sort; k is tiny)
    ordered: list = []
    for p in points:
        for k, q in enumerate(ordered):
            if le(p, q):
                if le(q, p):
                    break  # equal: drop
                ordered.insert(k, p)
                break
            if not le(q, p):
                raise PiecesError(f"cannot order {p} and {q}")
        else:
            ordered.append(p)
    out: list[Piece] = []
    for lo, hi in itertools.pairwise(ordered):
        mid = (lo + hi) / 2
        vals = [a.subs(var, mid) for a in args]
        best = None
        for k, v in enumerate(vals):
            if all(le(w, v) for w in vals):
                best = k
                break
        if best is None:
            raise PiecesError(f"cannot decide which argument of {expr} is largest "
                              f"on [{lo}, {hi}]")
        if out and out[-1][0] == args[best]:
            out[-1] = (args[best], out[-1][1], hi)
        else:
            out.append((args[best], lo, hi))
    return out


def _numeric_le(a: sp.Expr, b: sp.Expr) -> bool:
    """a ≤ b for expressions without free symbols (exact comparison)."""
    d = sp.sympify(b - a)
    if d.free_symbols:
        return False
    return bool(d.is_nonnegative) or d == 0


def subs(expr: ExprLike, *args: Any) -> sp.Expr | None:
    """expr.subs(*args), or None when sympy cannot build the result (a Max/Min of
    numbers it cannot compare raises ValueError)."""
    try:
        return sp.sympify(expr).subs(*args)
    except (ValueError, TypeError):
        return None


def joins(ps: Sequence[Piece]) -> list[sp.Expr]:
    """The interior join points of a piece list."""
    return [p[2] for p in ps[:-1]]
