"""A small sign prover for real expressions on a box of intervals.

The derivation: docs/derivations/symbolic.md.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterable, Iterator
from types import FrameType
from typing import NoReturn

import sympy as sp

from fdp.symbolic._expr import subs

POS = frozenset({1})
NEG = frozenset({-1})
ZERO = frozenset({0})
NONNEG = frozenset({0, 1})
NONPOS = frozenset({-1, 0})
ANY = frozenset({-1, 0, 1})

#: (low, high, low_closed, high_closed): the interval a parameter symbol ranges over.
Domain = tuple[sp.Expr, sp.Expr, bool, bool]

# functions continuous (as maps of the extended reals) wherever defined
_SMOOTH = (sp.exp, sp.erf, sp.erfc, sp.tanh, sp.atan, sp.sinh, sp.cosh)
_ODD_SIGN = (sp.erf, sp.tanh, sp.atan, sp.sinh, sp.erfinv)
_MAX_DEPTH = 3
_BUDGET = 30  # calculus steps (a derivative, two limits) per question ...
_SECONDS = 3.0  # ... and seconds of calculus per question (then: not proved)


class Timeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt a sympy call after ``seconds`` (main thread only; else no limit)."""
    if threading.current_thread() is not threading.main_thread() or seconds is None \
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield  # no limit off the main thread, and none nested in another limit
        return

    def handler(signum: int, frame: FrameType | None) -> NoReturn:
        raise Timeout()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _mul(a: frozenset, b: frozenset) -> frozenset:
    return frozenset(x * y for x in a for y in b)


def _add(signs: Iterable[frozenset]) -> frozenset:
    signs = list(signs)
    if all(s <= NONNEG for s in signs):
        if any(s == POS for s in signs):
            return POS
        return ZERO if all(s == ZERO for s in signs) else NONNEG
    if all(s <= NONPOS for s in signs):
        if any(s == NEG for s in signs):
            return NEG
        return ZERO if all(s == ZERO for s in signs) else NONPOS
    return ANY


def _neg(s: frozenset) -> frozenset:
    return frozenset(-x for x in s)


def domain_of(symbol: sp.Symbol, ranges: dict[sp.Symbol, Domain] | None = None,
              registry: dict[sp.Symbol, Domain] | None = None) -> Domain:
    """(low, high, low_closed, high_closed) of a parameter symbol."""
    if ranges and symbol in ranges:
        return ranges[symbol]
    if registry and symbol in registry:
        return registry[symbol]
    if symbol.is_positive:
        return (sp.S.Zero, sp.oo, False, False)
    if symbol.is_nonnegative:
        return (sp.S.Zero, sp.oo, True, False)
    if symbol.is_negative:
        return (-sp.oo, sp.S.Zero, False, False)
    if symbol.is_nonpositive:
        return (-sp.oo, sp.S.Zero, False, True)
    return (-sp.oo, sp.oo, False, False)


class Prover:
    """Signs of expressions for symbols in given intervals (see docs/derivations/symbolic.md)."""

    def __init__(self, domains: dict, var: sp.Symbol | None = None,
                 timeout: float = 2.0) -> None:
        self.dom = {k: (sp.sympify(v[0]), sp.sympify(v[1]), v[2], v[3])
                    for k, v in domains.items()}
        self.var = var
        self.timeout = timeout
        self._memo: dict = {}
        self._budget = [_BUDGET, time.monotonic() + _SECONDS, False]

    def on(self, var: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> Prover:
        """A prover with ``var`` in the open interval (lo, hi)."""
        dom = dict(self.dom)
        dom[var] = (lo, hi, False, False)
        return Prover(dom, var, self.timeout)

    # ------------------------------------------------------------------
    def le(self, a: sp.Expr, b: sp.Expr) -> bool:
        """a ≤ b proved."""
        d = sp.sympify(b) - sp.sympify(a)
        if d == 0:
            return True
        return self.defined(d) and self.sign(d) <= NONNEG

    def lt(self, a: sp.Expr, b: sp.Expr) -> bool:
        d = sp.sympify(b) - sp.sympify(a)
        return self.defined(d) and self.sign(d) <= POS

    def nonneg(self, g: sp.Expr) -> bool:
        return self.defined(g) and self.sign(g) <= NONNEG

    def nonpos(self, g: sp.Expr) -> bool:
        return self.defined(g) and self.sign(g) <= NONPOS

    # ------------------------------------------------------------------
    def defined(self, g: sp.Expr) -> bool:
        """g is finite and real at every point of the box (proved)."""
        g = sp.sympify(g)
        if g.is_Number:
            return bool(g.is_finite and g.is_extended_real)
        if g.is_number:
            v = g.evalf(30)
            return bool(v.is_Number and v.is_finite and v.is_extended_real) and \
                all(self.defined(a) for a in g.args)
        if g.is_Symbol:
            return True
        if isinstance(g, (sp.Add, sp.Mul)):
            return all(self.defined(a) for a in g.args)
        if isinstance(g, sp.Pow):
            b, e = g.args
            if not (self.defined(b) and self.defined(e)):
                return False
            if e.is_Integer:
                return bool(e >= 0) or self.sign(b) in (POS, NEG)
            if e.is_positive and e.is_number:
                return self.sign(b) <= NONNEG
            return self.sign(b) <= POS
        if isinstance(g, (*_SMOOTH, sp.Abs, sp.Max, sp.Min)):
            return all(self.defined(a) for a in g.args)
        if isinstance(g, sp.log):
            return self.defined(g.args[0]) and self.sign(g.args[0]) <= POS
        if isinstance(g, sp.erfinv):
            x = g.args[0]
            return self.defined(x) and self.sign(1 - x) <= POS and self.sign(1 + x) <= POS
        if isinstance(g, sp.erfcinv):
            x = g.args[0]
            return self.defined(x) and self.sign(x) <= POS and self.sign(2 - x) <= POS
        return False

    # ------------------------------------------------------------------
    def sign(self, g: sp.Expr, depth: int = 0) -> frozenset:
        """Signs g can take on the box (a proper subset of {−1,0,1} is a proof)."""
        g = sp.sympify(g)
        key = g
        hit = self._memo.get(key)
        if hit is not None and (hit[0] != ANY or hit[1] <= depth):
            return hit[0]
        top = not self._budget[2]
        if top:  # a fresh budget for every outside question
            self._budget[:] = [_BUDGET, time.monotonic() + _SECONDS, True]
        try:
            s = self._sign(g, depth)
        finally:
            if top:
                self._budget[2] = False
        self._memo[key] = (s, depth)
        return s

    def _sign(self, g: sp.Expr, depth: int) -> frozenset:
        if g.is_number:
            return self._number_sign(g)
        if g.is_Symbol:
            return self._symbol_sign(g)
        lifted = _lift_minmax(g)
        if lifted is not None:
            return self.sign(lifted, depth)
        s = self._structural(g, depth)
        if s != ANY and s != NONNEG and s != NONPOS:
            return s
        exact = self._poly_sign(g)
        if exact is not None:
            return exact
        if depth >= _MAX_DEPTH:
            return s
        if isinstance(g, sp.Add):
            try:
                with time_limit(min(self.timeout, 1.0)):
                    h = sp.factor(sp.together(g))
            except (Timeout, Exception):
                h = g
            if h != g and not isinstance(h, sp.Add):
                s2 = self._structural(h, depth)
                s = s & s2 if s & s2 else s
                if s in (POS, NEG, ZERO):
                    return s
        if isinstance(g, sp.Add):
            s4 = self._log_ratio(g, depth)
            if s4 != ANY:
                return s4
        s3 = self._calculus(g, depth)
        return s & s3 if s & s3 else s

    def _poly_sign(self, g: sp.Expr) -> frozenset | None:
        """Exact signs of a polynomial in one symbol with rational coefficients.

        Square-free factorisation p = c·Π qᵢ^{mᵢ} and Sturm-sequence root counts
        (sympy's ``count_roots``): if a factor of odd multiplicity has a root
        inside the interval, p takes both signs; otherwise p has one sign away
        from its roots, read at a rational point that is no root. None when g is
        not such a polynomial.
        """
        syms = g.free_symbols
        if len(syms) != 1:
            return None
        x = next(iter(syms))
        if x not in self.dom:
            return None
        lo, hi, lc, hc = self.dom[x]
        if not ((lo.is_Rational or lo == -sp.oo) and (hi.is_Rational or hi == sp.oo)):
            return None
        try:
            with time_limit(min(self.timeout, 1.0)):
                P = sp.Poly(g, x, domain="QQ")
                if P.is_zero:
                    return ZERO
                if P.degree() > 60:
                    return None
                c, factors = P.sqf_list()
                a = None if lo == -sp.oo else lo
                b = None if hi == sp.oo else hi
                zero_inside = False
                for q, m in factors:
                    n = q.count_roots(a, b)
                    at_ends = sum(1 for t, closed in ((a, lc), (b, hc))
                                  if t is not None and q.eval(t) == 0)
                    inner = n - at_ends
                    if inner > 0 and m % 2 == 1:
                        return ANY
                    closed_zero = any(t is not None and closed and q.eval(t) == 0
                                      for t, closed in ((a, lc), (b, hc)))
                    zero_inside = zero_inside or inner > 0 or closed_zero
                # one sign away from the roots: read it at a rational non-root
                if a is not None and b is not None:
                    cands = [a + (b - a) * sp.Rational(k, 97) for k in range(1, 97)]
                elif a is not None:
                    cands = [a + sp.Rational(k, 7) for k in range(1, 200)]
                elif b is not None:
                    cands = [b - sp.Rational(k, 7) for k in range(1, 200)]
                else:
                    cands = [sp.Rational(k, 7) for k in range(-100, 100)]
                for t in cands:
                    v = P.eval(t)
                    if v != 0:
                        sgn = POS if v > 0 else NEG
                        return sgn | ZERO if zero_inside else sgn
        except (Timeout, sp.PolynomialError, sp.polys.polyerrors.PolificationFailed,
                sp.polys.polyerrors.CoercionFailed, sp.polys.polyerrors.DomainError,
                NotImplementedError):
            return None
        return None

    def _log_ratio(self, g: sp.Expr, depth: int) -> frozenset:
        """P − N with P, N > 0 (the positive and negative terms) has the sign of
        log P − log N; logs of products of exponentials become sums (e.g.
        e^{−μ/2} − e^{−μ} ↦ μ/2 > 0)."""
        pos, neg = [], []
        for t in g.args:
            st = self.sign(t, depth + 1)
            if st == POS:
                pos.append(t)
            elif st == NEG:
                neg.append(-t)
            else:
                return ANY
        if not pos or not neg:
            return ANY
        h = sp.expand_log(sp.log(sp.Add(*pos)) - sp.log(sp.Add(*neg)), force=True)
        h = sp.expand(h)
        if h.has(sp.zoo, sp.nan) or not self.defined(h):
            return ANY  # a split log of a negative factor: no conclusion
        return self.sign(h, depth + 1)

    def _number_sign(self, g: sp.Expr) -> frozenset:
        if g is sp.oo:
            return POS
        if g is sp.S.NegativeInfinity:
            return NEG
        if g.has(sp.zoo, sp.nan):
            return ANY
        if g.is_zero:
            return ZERO
        if g.is_positive:
            return POS
        if g.is_negative:
            return NEG
        try:  # strict: sympy raises unless 30 correct digits were reached
            v = g.evalf(30, strict=True, maxn=2000)
        except Exception:
            return ANY
        if v.is_Number and v.is_extended_real and v != 0:
            return POS if v > 0 else NEG
        return ANY

    def _symbol_sign(self, x: sp.Symbol) -> frozenset:
        if x in self.dom:
            lo, hi, lc, hc = self.dom[x]
            if lo is not -sp.oo:
                sl = self.sign(lo) if lo.free_symbols else self._number_sign(lo)
                if sl <= POS:
                    return POS
                if sl <= NONNEG:
                    return NONNEG if lc else POS
            if hi is not sp.oo:
                sh = self.sign(hi) if hi.free_symbols else self._number_sign(hi)
                if sh <= NEG:
                    return NEG
                if sh <= NONPOS:
                    return NONPOS if hc else NEG
            return ANY
        if x.is_positive:
            return POS
        if x.is_negative:
            return NEG
        if x.is_nonnegative:
            return NONNEG
        if x.is_nonpositive:
            return NONPOS
        return ANY

    def _structural(self, g: sp.Expr, depth: int) -> frozenset:
        if g.is_number:
            return self._number_sign(g)
        if g.is_Symbol:
            return self._symbol_sign(g)
        if isinstance(g, sp.Add):
            s = _add(self.sign(a, depth) for a in g.args)
            if s != ANY:
                return s
            return _bounded_sum_sign(g)
        if isinstance(g, sp.Mul):
            out = POS
            for a in g.args:
                out = _mul(out, self.sign(a, depth))
                if out == ANY:
                    return ANY
            return out
        if isinstance(g, sp.Pow):
            b, e = g.args
            sb = self.sign(b, depth)
            if e.is_Integer:
                if e == 0:
                    return POS
                if e % 2 == 0:
                    return POS if 0 not in sb else NONNEG
                return sb
            if sb <= NONNEG:
                return POS if sb == POS else NONNEG
            return ANY
        if isinstance(g, (sp.exp, sp.erfc, sp.cosh)):
            return POS
        if isinstance(g, _ODD_SIGN):
            return self.sign(g.args[0], depth)
        if isinstance(g, sp.erfcinv):
            return self.sign(1 - g.args[0], depth)
        if isinstance(g, sp.log):
            return self.sign(g.args[0] - 1, depth)
        if isinstance(g, sp.Abs):
            return POS if 0 not in self.sign(g.args[0], depth) else NONNEG
        if isinstance(g, sp.Max):
            ss = [self.sign(a, depth) for a in g.args]
            if any(s <= POS for s in ss):
                return POS
            if any(s <= NONNEG for s in ss):
                return NONNEG if not all(s <= NONPOS for s in ss) else ZERO
            if all(s <= NEG for s in ss):
                return NEG
            if all(s <= NONPOS for s in ss):
                return NONPOS
            return ANY
        if isinstance(g, sp.Min):
            return _neg(self._structural(sp.Max(*[-a for a in g.args]), depth))
        return ANY

    # ------------------------------------------------------------------
    def _eligible(self, g: sp.Expr) -> list[sp.Symbol]:
        syms = [s for s in g.free_symbols if s in self.dom]
        order = sorted(syms, key=lambda s: (s != self.var, s.name))
        out = []
        for s in order:
            if any(s in self.dom[t][0].free_symbols or s in self.dom[t][1].free_symbols
                   for t in syms if t != s):
                continue
            out.append(s)
        return out

    def _calculus(self, g: sp.Expr, depth: int) -> frozenset:
        for s in self._eligible(g):
            if self._budget[0] <= 0 or time.monotonic() > self._budget[1]:
                return ANY
            self._budget[0] -= 1
            lo, hi, _, _ = self.dom[s]
            try:
                with time_limit(self.timeout):
                    d1 = sp.diff(g, s)
            except Timeout:
                continue
            s1 = self.sign(d1, depth + 1)
            if s1 <= NONNEG or s1 <= NONPOS:
                L = self.endpoint(g, s, lo, "+")
                H = self.endpoint(g, s, hi, "-")
                if L is None or H is None:
                    continue
                if s1 <= NONPOS:
                    L, H = H, L  # decreasing: the infimum is at the upper end
                strict = s1 in (POS, NEG)
                sl = self._without(s).sign(L, depth + 1)
                if sl <= NONNEG:
                    return POS if (strict or sl == POS) else NONNEG
                sh = self._without(s).sign(H, depth + 1)
                if sh <= NONPOS:
                    return NEG if (strict or sh == NEG) else NONPOS
                continue
            try:
                with time_limit(self.timeout):
                    d2 = sp.diff(d1, s)
            except Timeout:
                continue
            s2 = self.sign(d2, depth + 1)
            if s2 <= NONPOS or s2 <= NONNEG:
                L = self.endpoint(g, s, lo, "+")
                H = self.endpoint(g, s, hi, "-")
                if L is None or H is None:
                    continue
                p = self._without(s)
                sl, sh = p.sign(L, depth + 1), p.sign(H, depth + 1)
                if s2 <= NONPOS and sl <= NONNEG and sh <= NONNEG:
                    return POS if POS in (sl, sh) else NONNEG
                if s2 <= NONNEG and sl <= NONPOS and sh <= NONPOS:
                    return NEG if NEG in (sl, sh) else NONPOS
        return ANY

    def _without(self, s: sp.Symbol) -> Prover:
        p = Prover({k: v for k, v in self.dom.items() if k != s},
                   self.var if self.var != s else None, self.timeout)
        p._memo = self._memo  # the sign of an expression free of s is unchanged
        p._budget = self._budget
        return p

    # ------------------------------------------------------------------
    def endpoint(self, g: sp.Expr, s: sp.Symbol, point: sp.Expr, side: str) -> sp.Expr | None:
        """lim_{s → point} g from ``side`` ('+' or '-'), or None if not found.

        Finite points: substitution, accepted when no sub-expression becomes
        complex infinity or NaN and every function met is continuous on the
        extended reals (so the value is the limit); otherwise sympy's limit.
        """
        g = sp.sympify(g)
        if point.is_infinite is not True and _substitution_is_limit(g, s, point):
            v = subs(g, s, point)
            if v is not None and not v.has(sp.nan, sp.zoo):
                return v
        try:
            with time_limit(self.timeout):
                v = sp.limit(g, s, point, side)
        except (Timeout, Exception):
            return None
        if v.has(sp.nan, sp.zoo, sp.AccumBounds, sp.Limit):
            return None
        return v


# open ranges of bounded functions of a real argument
_RANGES = {sp.erfc: (0, 2), sp.erf: (-1, 1), sp.tanh: (-1, 1), sp.exp: (0, sp.oo),
           sp.atan: (-sp.pi / 2, sp.pi / 2), sp.cosh: (1, sp.oo)}


def _bounded_sum_sign(g: sp.Expr) -> frozenset:
    """Sign of c_0 + Σ c_i F_i(x_i) from the open ranges of bounded F_i (erfc ∈ (0, 2), ...)."""
    lo = hi = sp.S.Zero
    for t in g.args:
        if t.is_number:
            lo, hi = lo + t, hi + t
            continue
        c, m = t.as_coeff_Mul()
        r = _RANGES.get(type(m))
        if r is None or not c.is_number:
            return ANY
        a, b = (c * r[0], c * r[1]) if c > 0 else (c * r[1], c * r[0])
        lo, hi = lo + a, hi + b
    # every F_i lies strictly inside its range, so the sum lies strictly inside (lo, hi)
    if lo.is_nonnegative:
        return POS
    if hi.is_nonpositive:
        return NEG
    return ANY


def _lift_minmax(g: sp.Expr) -> sp.Expr | None:
    """rest + c·Max(a_i) = Max(rest + c·a_i) for c > 0 (Min for c < 0), and the
    mirror image for Min: an identity that lets the Max/Min sign rules apply."""
    if not isinstance(g, sp.Add):
        return None
    terms = [t for t in g.args if t.has(sp.Max, sp.Min)]
    if len(terms) != 1:
        return None
    t = terms[0]
    c, m = t.as_coeff_Mul()
    if not isinstance(m, (sp.Max, sp.Min)) or c == 0:
        return None
    rest = g - t
    outer = type(m) if c > 0 else (sp.Min if isinstance(m, sp.Max) else sp.Max)
    return outer(*[rest + c * a for a in m.args], evaluate=False)


def _substitution_is_limit(g: sp.Expr, s: sp.Symbol, point: sp.Expr) -> bool:
    for node in sp.preorder_traversal(g):
        if not node.has(s):
            continue
        if node.is_Function and not isinstance(node, (*_SMOOTH, sp.log, sp.erfinv, sp.erfcinv,
                                                       sp.Max, sp.Min, sp.Abs)):
            return False
        v = subs(node, s, point)
        if v is None or v.has(sp.nan, sp.zoo):
            return False
        if isinstance(node, sp.Pow) and v.has(sp.oo, -sp.oo) and not node.exp.is_Integer:
            return False
    return True
