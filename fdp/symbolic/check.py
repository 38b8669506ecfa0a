"""Prove or refute the trade-off axioms for a symbolic f (DRS Prop 2.2).

f: [0, 1] → [0, 1] is a trade-off function iff it is convex, continuous,
non-increasing and f(α) ≤ 1 − α. ``check`` reports one verdict per axiom (and
for the range [0, 1]):

The derivation: docs/derivations/symbolic.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from fdp.symbolic import _numeric
from fdp.symbolic._expr import (
    DOMAINS,
    ExprLike,
    Piece,
    PiecesError,
    alpha,
    as_expr,
    bind,
    pieces,
    rational,
    subs,
)
from fdp.symbolic._prove import Domain, Prover, Timeout, domain_of, time_limit

#: The parameter symbols of an expression and their intervals.
Domains = dict[sp.Symbol, Domain]
#: An axiom's outcome: (True proved / None undecided, the reason).
Outcome = tuple[bool | None, str]
#: A screening hit: (what failed, the counterexample's values), or None.
Hit = tuple[str, dict[str, Any]] | None

AXIOMS = ("convex", "continuous", "non_increasing", "below_identity", "range")
_TEXT = {"convex": "convex", "continuous": "continuous on [0, 1]",
         "non_increasing": "non-increasing", "below_identity": "f(α) ≤ 1 − α",
         "range": "values in [0, 1]"}


@dataclass(frozen=True)
class Verdict:
    """One axiom's verdict: "proved", "refuted" or "undecided", with the reason.

    True in a boolean context only when proved.

    Parameters
    ----------
    verdict : str
        "proved", "refuted" or "undecided".
    reason : str
        The proof, the counterexample in words, or what could not be shown.
    counterexample : dict or None, optional
        The confirmed counterexample point (α and any parameter values), if refuted.

    Examples
    --------
    >>> from fdp import symbolic as S
    >>> v = S.check(1 - S.alpha ** 2).convex
    >>> v.verdict, bool(v)
    ('refuted', False)
    """

    verdict: str
    reason: str
    counterexample: dict | None = None

    def __bool__(self) -> bool:
        return self.verdict == "proved"


@dataclass(frozen=True)
class CheckReport:
    """Verdicts of ``check`` for each axiom (Dong, Roth & Su 2022, Prop 2.2) and the range.

    Index by axiom name (``report["convex"]``) or read the fields; ``is_tradeoff`` is
    True when every axiom is proved, False when one is refuted, None otherwise.

    Parameters
    ----------
    expr : sympy.Expr
        The expression checked.
    domain : str
        The domain of α and the parameters, in words.
    convex, continuous, non_increasing, below_identity, range : Verdict
        One verdict per axiom, and for the range [0, 1].
    notes : tuple of str, optional
        Remarks (for example about parameters fixed by number).

    Examples
    --------
    >>> import sympy as sp
    >>> from fdp import symbolic as S
    >>> report = S.check(S.eps_delta(1, sp.Rational(1, 10)))
    >>> report.is_tradeoff, report["below_identity"].verdict
    (True, 'proved')
    """

    expr: sp.Expr
    domain: str
    convex: Verdict
    continuous: Verdict
    non_increasing: Verdict
    below_identity: Verdict
    range: Verdict
    notes: tuple = field(default=())

    def __getitem__(self, name: str) -> Verdict:
        if name not in AXIOMS:
            raise KeyError(f"unknown axiom {name!r}; the axioms are {AXIOMS}")
        return getattr(self, name)

    def items(self) -> list[tuple[str, Verdict]]:
        return [(a, getattr(self, a)) for a in AXIOMS]

    @property
    def is_tradeoff(self) -> bool | None:
        """True if every axiom is proved, False if one is refuted, else None."""
        vs = [v.verdict for _, v in self.items()]
        if all(v == "proved" for v in vs):
            return True
        if any(v == "refuted" for v in vs):
            return False
        return None

    @property
    def proved(self) -> bool:
        return self.is_tradeoff is True

    def __str__(self) -> str:
        lines = [f"check of f(α) = {self.expr}", f"  for {self.domain}"]
        for a, v in self.items():
            lines.append(f"  {_TEXT[a]:<22} {v.verdict:<9} {v.reason}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


# ----------------------------------------------------------------------
def check(expr: ExprLike, /, **params: Any) -> CheckReport:
    """Prove or refute the four axioms of a trade-off function for ``expr``.

    f: [0, 1] → [0, 1] is a trade-off function iff it is convex, continuous,
    non-increasing and f(α) ≤ 1 − α (Dong, Roth & Su 2022, Prop 2.2); the module
    docstring says how each verdict is reached.

    Parameters
    ----------
    expr : sympy expression
        f in ``S.alpha`` (a Piecewise, a Max, or any closed form).
    **params
        A number fixes a parameter; a (low, high) pair gives its range. Other symbols
        range over the domain their sympy assumptions give.

    Returns
    -------
    CheckReport
        One verdict per axiom.

    Examples
    --------
    >>> from fdp import symbolic as S
    >>> S.check(S.gaussian()).is_tradeoff
    True
    >>> S.check(1 - S.alpha ** 2).is_tradeoff
    False
    """
    f, ranges = bind(as_expr(expr), params)
    syms = sorted(f.free_symbols - {alpha}, key=lambda s: s.name)
    doms = {s: domain_of(s, ranges, DOMAINS) for s in syms}
    return _Checker(f, doms).run()


def _describe(doms: Domains) -> str:
    if not doms:
        return "α ∈ [0, 1]"
    parts = []
    for s, (lo, hi, lc, hc) in doms.items():
        parts.append(f"{s} ∈ {'[' if lc else '('}{lo}, {hi}{']' if hc else ')'}")
    return "α ∈ [0, 1], " + ", ".join(parts)


def _zero(x: ExprLike, timeout: float = 5.0) -> bool:
    """x = 0 proved symbolically."""
    x = sp.sympify(x)
    if x == 0:
        return True
    try:
        with time_limit(timeout):
            if sp.simplify(x) == 0:
                return True
            return x.equals(0) is True and sp.nsimplify(x) == 0
    except (Timeout, Exception):
        return False


class _Checker:
    def __init__(self, f: sp.Expr, doms: Domains) -> None:
        self.f = f
        self.doms = doms
        self.prover = Prover(doms)
        self.notes: list[str] = []
        self.pieces: list[Piece] | None = None
        self.max_form = isinstance(f, sp.Max) and f.has(alpha)
        try:
            self.pieces = [(f, sp.S.Zero, sp.S.One)] if self.max_form else \
                pieces(f, alpha, self.prover.le)
        except PiecesError as exc:
            self.notes.append(f"could not split f into pieces: {exc}")

    # --- helpers -------------------------------------------------------
    @property
    def split(self) -> list[Piece]:
        """The pieces; only asked for once an axiom has found that there are some."""
        if self.pieces is None:
            raise PiecesError("f has no pieces")
        return self.pieces

    def on(self, lo: sp.Expr, hi: sp.Expr) -> Prover:
        return self.prover.on(alpha, lo, hi)

    def each_piece(self, test: Callable[[sp.Expr, Prover], bool]) -> bool:
        """True if ``test(expr, prover)`` holds on every piece's interior."""
        return all(test(e, self.on(lo, hi)) for e, lo, hi in self.split)

    def lim(self, e: sp.Expr, point: sp.Expr, side: str) -> sp.Expr | None:
        return self.prover.endpoint(e, alpha, point, side)

    def at_points(self, g: Callable[[sp.Expr, sp.Expr], sp.Expr]) -> bool:
        """g(v, x) ≥ 0 proved for the value v of every piece at both ends x of
        its interval (so at every join, whichever piece owns it, and at 0, 1)."""
        for e, lo, hi in self.split:
            for x in (lo, hi):
                v = subs(e, alpha, x)
                if v is None or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or \
                        not self.prover.nonneg(g(v, x)):
                    return False
        return True

    def value_at(self, point: sp.Expr) -> sp.Expr | None:
        """f(point) for point = 0 or 1 (the end pieces), by substitution."""
        e = self.split[0][0] if point == 0 else self.split[-1][0]
        v = subs(e, alpha, point)
        return None if v is None or v.has(sp.nan, sp.zoo) else v

    # --- the axioms ----------------------------------------------------
    def continuous(self) -> Outcome:
        if self.pieces is None:
            return None, "no pieces"
        if not self.each_piece(lambda e, p: p.defined(e)):
            return None, "could not prove every piece finite and real inside its interval"
        for (e1, _, b), (e2, _, _) in zip(self.pieces[:-1], self.pieces[1:]):
            left, right = self.lim(e1, b, "-"), self.lim(e2, b, "+")
            if left is None or right is None:
                return None, f"could not find the one-sided limits at the join α = {b}"
            v1, v2 = subs(e1, alpha, b), subs(e2, alpha, b)
            if v1 is None or v2 is None or not (
                    _zero(left - right) and _zero(v1 - left) and _zero(v2 - right)):
                return None, f"could not prove equal limits at the join α = {b}"
        for point, side in ((sp.S.Zero, "+"), (sp.S.One, "-")):
            e = self.pieces[0][0] if point == 0 else self.pieces[-1][0]
            lim, v = self.lim(e, point, side), self.value_at(point)
            if lim is None or v is None or not _zero(lim - v):
                return None, f"could not prove f continuous at α = {point}"
        js = [str(p[2]) for p in self.pieces[:-1]]
        how = "pieces defined and continuous inside their intervals"
        if js:
            how += f"; equal one-sided limits at the joins α = {', '.join(js)}"
        return True, how + "; f(0), f(1) equal their one-sided limits"

    def convex(self, cont: bool | None) -> Outcome:
        if self.pieces is None:
            return None, "no pieces"

        def piece(e: sp.Expr, p: Prover) -> bool:
            if isinstance(e, sp.Max):
                return all(piece(a, p) for a in e.args)
            d2 = sp.diff(e, alpha, 2)
            if p.nonneg(d2):
                return True
            try:
                with time_limit(10):
                    d2s = sp.simplify(d2)
            except Timeout:
                return False
            return d2s != d2 and p.nonneg(d2s)

        if not self.each_piece(piece):
            return None, "could not prove f'' ≥ 0 on every piece"
        for (e1, _, b), (e2, _, _) in zip(self.pieces[:-1], self.pieces[1:]):
            s1 = self.lim(sp.diff(e1, alpha), b, "-")
            s2 = self.lim(sp.diff(e2, alpha), b, "+")
            if s1 is None or s2 is None or not self.prover.nonneg(s2 - s1):
                return None, f"could not prove that the slope does not decrease at α = {b}"
        if not cont:
            return None, "convex on each piece, but continuity is not proved"
        why = "max of functions with f'' ≥ 0" if self.max_form else "f'' ≥ 0 on every piece"
        if len(self.pieces) > 1:
            why += "; slopes do not decrease at the joins"
        return True, why + "; f continuous"

    def non_increasing(self, cont: bool | None, convex: bool | None) -> Outcome:
        if self.pieces is None:
            return None, "no pieces"

        def piece(e: sp.Expr, p: Prover) -> bool:
            if isinstance(e, sp.Max):
                return all(piece(a, p) for a in e.args)
            return p.nonpos(sp.diff(e, alpha))

        if cont and self.each_piece(piece):
            return True, "f' ≤ 0 on every piece; f continuous"
        if convex:
            slope = self.lim(sp.diff(self.pieces[-1][0], alpha), sp.S.One, "-")
            if slope is not None and self.prover.nonpos(slope):
                return True, f"f convex with left slope f'(1−) = {slope} ≤ 0"
        return None, "could not prove f' ≤ 0"

    def below_identity(self, cont: bool | None, convex: bool | None) -> Outcome:
        if self.pieces is None:
            return None, "no pieces"
        f0, f1 = self.value_at(0), self.value_at(1)
        if (convex and cont and f0 is not None and f1 is not None
                and self.prover.nonneg(1 - f0) and self.prover.nonpos(f1)):
            return True, (f"1 − α − f is concave with values {sp.simplify(1 - f0)} "
                          f"at 0 and {sp.simplify(-f1)} at 1")

        def piece(e: sp.Expr, p: Prover) -> bool:
            if isinstance(e, sp.Max):
                return all(piece(a, p) for a in e.args)
            return p.nonneg(1 - alpha - e)

        if self.each_piece(piece) and self.at_points(lambda v, x: 1 - x - v):
            return True, "1 − α − f ≥ 0 inside every piece and at the joins and ends"
        return None, "could not prove 1 − α − f ≥ 0"

    def range(self, cont: bool | None, monotone: bool | None) -> Outcome:
        if self.pieces is None:
            return None, "no pieces"
        f0, f1 = self.value_at(0), self.value_at(1)
        if (cont and monotone and f0 is not None and f1 is not None
                and self.prover.nonneg(1 - f0) and self.prover.nonneg(f1)):
            return True, f"f non-increasing from f(0) = {f0} to f(1) = {f1}"

        def piece(e: sp.Expr, p: Prover) -> bool:
            if isinstance(e, sp.Max):
                low = any(p.nonneg(a) for a in e.args)
                return low and all(p.nonneg(1 - a) for a in e.args)
            return p.nonneg(e) and p.nonneg(1 - e)

        if self.each_piece(piece) and self.at_points(lambda v, x: v) and \
                self.at_points(lambda v, x: 1 - v):
            return True, "0 ≤ f ≤ 1 inside every piece and at the joins and ends"
        return None, "could not prove 0 ≤ f ≤ 1"

    # --- driver ----------------------------------------------------------
    def run(self) -> CheckReport:
        res = {}
        c, why = self.continuous()
        res["continuous"] = (c, why)
        cv, why = self.convex(bool(c))
        res["convex"] = (cv, why)
        ni, why = self.non_increasing(bool(c), bool(cv))
        res["non_increasing"] = (ni, why)
        res["below_identity"] = self.below_identity(bool(c), bool(cv))
        res["range"] = self.range(bool(c), bool(ni))
        todo = [a for a in AXIOMS if not res[a][0]]
        found = _Searcher(self.f, self.doms, self.pieces).search(todo) if todo else {}
        verdicts = {}
        for a in AXIOMS:
            ok, why = res[a]
            if ok:
                verdicts[a] = Verdict("proved", why)
            elif a in found:
                reason, cex = found[a]
                verdicts[a] = Verdict("refuted", reason, cex)
            else:
                verdicts[a] = Verdict("undecided", f"{why}; no counterexample found "
                                      "in a numeric search")
        return CheckReport(self.f, _describe(self.doms), notes=tuple(self.notes), **verdicts)


# ----------------------------------------------------------------------
# Counterexample search: numeric screening, exact confirmation
# ----------------------------------------------------------------------
_TINY = sp.Float("1e-30", 50)


def _samples(doms: Domains, k: int = 4) -> list[dict[sp.Symbol, sp.Expr]]:
    """Up to k parameter assignments (exact rationals) inside the domains."""
    if not doms:
        return [{}]
    per = []
    for s, (lo, hi, _, _) in doms.items():
        if lo.is_finite and hi.is_finite:
            c = [lo + (hi - lo) * sp.Rational(t, 10) for t in (5, 1, 9, 3)]
        elif lo.is_finite:
            c = [lo + t for t in (sp.Integer(1), sp.Rational(1, 2), sp.Integer(3),
                                  sp.Rational(1, 10))]
        elif hi.is_finite:
            c = [hi - t for t in (sp.Integer(1), sp.Rational(1, 2), sp.Integer(3),
                                  sp.Rational(1, 10))]
        else:
            c = [sp.Integer(1), sp.Integer(-1), sp.Rational(1, 2), sp.Integer(3)]
        per.append([(s, v) for v in c])
    combos = [dict(t) for t in zip(*per)][:k]
    return combos


def _fmt(x: float | sp.Expr) -> str:
    return f"{float(x):.10g}"


class _Searcher:
    def __init__(self, f: sp.Expr, doms: Domains, ps: list[Piece] | None) -> None:
        self.f, self.doms, self.pieces = f, doms, ps

    def search(self, axioms: Sequence[str]) -> dict[str, Any]:
        with np.errstate(all="ignore"):
            return self._search(axioms)

    def _search(self, axioms: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        grid = np.unique(np.concatenate([np.linspace(0, 1, 2001), np.logspace(-8, -1, 57),
                                         1 - np.logspace(-8, -1, 57)]))
        for sub in _samples(self.doms):
            try:
                found.update(self._one_sample(sub, axioms, found, grid))
            except (ValueError, TypeError):  # sympy could not build a value: skip
                continue
            if len(found) == len(axioms):
                break
        return found

    def _one_sample(self, sub: dict[sp.Symbol, sp.Expr], axioms: Sequence[str],
                    found: dict[str, Any], grid: np.ndarray) -> dict[str, Any]:
        """Counterexamples for one assignment of the parameters."""
        out: dict[str, Any] = {}
        fk = self.f.subs(sub)
        params = {str(k): v for k, v in sub.items()}
        pv = "" if not params else " with " + ", ".join(f"{k} = {v}" for k, v in params.items())
        joins = [sp.sympify(p[2]).subs(sub) for p in self.pieces[:-1]] if self.pieces else []
        try:
            x = np.unique(np.concatenate([grid] + [
                np.clip(float(j) + np.array([-1e-6, 0, 1e-6]), 0, 1) for j in joins]))
            y = np.real_if_close(_numeric.vectorised(fk)(x))
        except Exception:  # not evaluable numerically: nothing to screen
            return out
        checks = {"range": self._range, "below_identity": self._below,
                  "non_increasing": self._monotone, "convex": self._convex,
                  "continuous": self._continuous}
        for a in axioms:
            if a in found:
                continue
            hit = checks[a](fk, x, y, joins, sub)
            if hit is not None:
                reason, cex = hit
                cex.update(params)
                out[a] = (reason + pv, cex)
        return out

    # Each screen proposes candidates from floats and confirms them exactly.
    def _range(self, fk: sp.Expr, x: np.ndarray, y: np.ndarray, joins: list[sp.Expr],
           sub: dict[sp.Symbol, sp.Expr]) -> Hit:
        bad = ~np.isfinite(y) | (np.iscomplex(y) if np.iscomplexobj(y) else False)
        for i in np.flatnonzero(bad)[:3]:
            v = _numeric.value(fk, x[i])
            if not (v.is_Number and v.is_extended_real and v.is_finite):
                return (f"f({_fmt(x[i])}) = {v} is not a real number",
                        {"alpha": rational(x[i])})
        y = np.real(y)
        for i in (int(np.nanargmin(y)), int(np.nanargmax(y))):
            v = _numeric.real_value(fk, x[i])
            if v is not None and v < -_TINY:
                return (f"f({_fmt(x[i])}) = {_fmt(v)} < 0", {"alpha": rational(x[i])})
            if v is not None and v > 1 + _TINY:
                return (f"f({_fmt(x[i])}) = 1 + {_fmt(v - 1)} > 1", {"alpha": rational(x[i])})
        return None

    def _below(self, fk: sp.Expr, x: np.ndarray, y: np.ndarray, joins: list[sp.Expr],
           sub: dict[sp.Symbol, sp.Expr]) -> Hit:
        gap = np.real(y) - (1 - x)
        if not np.isfinite(gap).any():
            return None
        i = int(np.nanargmax(gap))
        v = _numeric.real_value(fk, x[i])
        a = rational(x[i])
        if v is not None and v - (1 - a) > _TINY:
            return (f"f({_fmt(a)}) = {_fmt(v)} exceeds 1 − α = {_fmt(1 - a)} by "
                    f"{_fmt(v - (1 - a))}", {"alpha": a})
        return None

    def _monotone(self, fk: sp.Expr, x: np.ndarray, y: np.ndarray, joins: list[sp.Expr],
           sub: dict[sp.Symbol, sp.Expr]) -> Hit:
        rise = np.diff(np.real(y))
        if not np.isfinite(rise).any():
            return None
        for i in np.argsort(-np.nan_to_num(rise, nan=-np.inf))[:3]:
            a, b = rational(x[i]), rational(x[i + 1])
            va, vb = _numeric.real_value(fk, x[i]), _numeric.real_value(fk, x[i + 1])
            if va is not None and vb is not None and vb - va > _TINY:
                return (f"f({_fmt(a)}) = {_fmt(va)} < f({_fmt(b)}) = {_fmt(vb)} "
                        f"(by {_fmt(vb - va)})", {"alpha": (a, b)})
        return None

    def _convex(self, fk: sp.Expr, x: np.ndarray, y: np.ndarray, joins: list[sp.Expr],
           sub: dict[sp.Symbol, sp.Expr]) -> Hit:
        # chords at several scales, coarse first: the report then shows the
        # plainest violation; the fine grid (with points beside every join) last
        fn = _numeric.vectorised(fk)
        for h in (0.25, 0.05, 0.01, None):
            if h is None:
                x0, x1, x2 = x[:-2], x[1:-1], x[2:]
                y0, y1, y2 = np.real(y[:-2]), np.real(y[1:-1]), np.real(y[2:])
            else:
                x1 = np.round(np.arange(h, 1 - h / 2, h / 5), 12)
                x0, x2 = np.round(x1 - h, 12), np.round(x1 + h, 12)
                inside = (x0 >= 0.0) & (x2 <= 1.0)   # witnesses in [0, 1] only
                x0, x1, x2 = x0[inside], x1[inside], x2[inside]
                y0, y1, y2 = (np.real(fn(t)) for t in (x0, x1, x2))
            gap = y1 - (y0 + (y2 - y0) * (x1 - x0) / (x2 - x0))
            if not np.isfinite(gap).any():
                continue
            for i in np.argsort(-np.nan_to_num(gap, nan=-np.inf))[:3]:
                a, m, b = (rational(t) for t in (x0[i], x1[i], x2[i]))
                va, vm, vb = (_numeric.real_value(fk, t) for t in (a, m, b))
                if va is None or vm is None or vb is None:
                    continue
                ch = va + (vb - va) * (m - a) / (b - a)
                if vm - ch > _TINY:
                    return (f"f({_fmt(m)}) = {_fmt(vm)} lies {_fmt(vm - ch)} above the chord "
                            f"from α = {_fmt(a)} to {_fmt(b)} (chord value {_fmt(ch)})",
                            {"alpha": (a, m, b)})
        return None

    def _continuous(self, fk: sp.Expr, x: np.ndarray, y: np.ndarray, joins: list[sp.Expr],
           sub: dict[sp.Symbol, sp.Expr]) -> Hit:
        if not self.pieces:
            return None
        for (e1, _, _), (e2, _, _), j in zip(self.pieces[:-1], self.pieces[1:], joins):
            l = e1.subs(sub).subs(alpha, j).evalf(50)
            r = e2.subs(sub).subs(alpha, j).evalf(50)
            if (l.is_Number and r.is_Number and abs(l - r) > _TINY
                    and _all_smooth(e1) and _all_smooth(e2)):
                return (f"jump of {_fmt(r - l)} at the join α = {j}: left piece "
                        f"gives {_fmt(l)}, right piece {_fmt(r)}", {"alpha": j})
        return None


def _all_smooth(e: sp.Expr) -> bool:
    """Pieces built only from +, ×, powers, exp, log, erf-type functions: each is
    continuous where defined, so its value at a join is its one-sided limit."""
    ok = (sp.exp, sp.log, sp.erf, sp.erfc, sp.erfinv, sp.erfcinv, sp.tanh, sp.atan)
    return all(not n.is_Function or isinstance(n, ok) for n in sp.preorder_traversal(e))


__all__ = ["AXIOMS", "CheckReport", "Verdict", "check"]
