"""Numeric evaluation of symbolic expressions: fast (numpy) and exact (sympy evalf)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.special as sc
import sympy as sp

from fdp._types import ArrayLike
from fdp.symbolic._expr import ExprLike, alpha, rational

_Erfc = sp.Function("erfc_")  # erfc that sympy does not rewrite as 2 − erfc(−x)


def stable(expr: sp.Expr) -> sp.Expr:
    """Rewrite for floating point with exact identities: c + k·erfc(y) with c = −2k
    becomes −k·erfc(−y), avoiding the cancellation of sympy's canonical form
    1 − erfc(y)/2 when erfc(y) ≈ 2 (G_μ near α = 1); erfinv(1 − cα) becomes
    erfcinv(cα) (G_μ near α = 0)."""
    def fix(n: sp.Expr) -> sp.Expr:
        consts = [t for t in n.args if t.is_number]
        terms = [t for t in n.args if not t.is_number]
        if len(consts) != 1 or len(terms) != 1:
            return n
        k, m = terms[0].as_coeff_Mul()
        if isinstance(m, sp.erfc) and k.is_number and sp.simplify(consts[0] + 2 * k) == 0:
            return -k * _Erfc(-m.args[0])
        return n
    expr = expr.replace(lambda n: isinstance(n, sp.Add), fix)
    return expr.replace(lambda n: isinstance(n, sp.erfinv), _erfinv_near_one)


def _erfinv_near_one(n: sp.Expr) -> sp.Expr:
    """erfinv(1 − cα) = erfcinv(cα) and erfinv(cα − 1) = −erfcinv(cα): 1 − cα rounds
    away the information for tiny α, cα does not."""
    w = n.args[0]
    for sign, z in ((1, 1 - w), (-1, 1 + w)):
        c = sp.simplify(z / alpha)
        if c.is_number and c.is_positive:
            return sign * sp.erfcinv(z)
    return n


MODULES = [{"erfinv": sc.erfinv, "erfcinv": sc.erfcinv, "erf": sc.erf, "erfc": sc.erfc,
             "erfc_": sc.erfc}, "scipy", "numpy"]


def vectorised(expr: sp.Expr, var: sp.Symbol = alpha) -> Callable[[ArrayLike], np.ndarray]:
    """A numpy function of α (float array in, float array out of the same shape)."""
    fn = sp.lambdify(var, stable(expr), modules=MODULES)

    def call(a: ArrayLike) -> np.ndarray:
        a = np.asarray(a, dtype=float)
        with np.errstate(all="ignore"):
            out = np.asarray(fn(a), dtype=complex if _may_be_complex(expr) else float)
        if out.shape != a.shape:
            out = np.broadcast_to(out, a.shape).copy()
        return out

    return call


def _may_be_complex(expr: sp.Expr) -> bool:
    return expr.has(sp.I)


def value(expr: ExprLike, x: float | sp.Rational, var: sp.Symbol = alpha,
          digits: int = 50) -> sp.Expr:
    """f(x) at the rational x (a float is read as its shortest decimal), to ``digits`` digits."""
    x = x if isinstance(x, sp.Rational) else rational(x)
    return sp.sympify(expr).subs(var, x).evalf(digits)


def real_value(expr: ExprLike, x: float | sp.Rational, var: sp.Symbol = alpha,
               digits: int = 50) -> sp.Float | None:
    """f(x) as a sympy Float, or None if it is not a finite real number."""
    v = value(expr, x, var, digits)
    if not (v.is_Number and v.is_extended_real and v.is_finite):
        return None
    return v
