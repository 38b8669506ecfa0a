"""Symbolic checks: witnesses inside [0, 1], exact signs of polynomials.

Independent truths: hand derivatives and discriminants (stated per case), and
every counterexample is re-evaluated here with exact rationals.
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fdp import symbolic as S
from fdp.symbolic._prove import NEG, POS, Prover

a = S.alpha


def _in_unit(cex):
    pts = cex["alpha"]
    pts = pts if isinstance(pts, tuple) else (pts,)
    return all(0 <= sp.Rational(p) <= 1 for p in pts)


def test_issue_reproduction_witness_in_unit_interval_and_monotone_proved():
    f = (1 - a) * (1 - a * (1 - a))
    r = S.check(f)
    # f'' = 4 − 6α < 0 for α > 2/3: truly not convex, with a witness in [0, 1]
    assert r.convex.verdict == "refuted"
    assert _in_unit(r.convex.counterexample)
    x0, xm, x1 = (sp.Rational(p) for p in r.convex.counterexample["alpha"])
    chord = f.subs(a, x0) + (f.subs(a, x1) - f.subs(a, x0)) * (xm - x0) / (x1 - x0)
    assert f.subs(a, xm) > chord
    # f' = −(3α² − 4α + 2), discriminant 16 − 24 < 0: strictly decreasing
    assert sp.discriminant(3 * a ** 2 - 4 * a + 2, a) < 0
    assert r.non_increasing.verdict == "proved"


@pytest.mark.parametrize("expr", [
    (1 - a) ** 2,                     # f'' = 2
    (1 - a) ** 3 * (1 + a),           # f'' = 12α(1 − α) ≥ 0, f' = −(1−α)²(2+4α)
    (1 - a) ** 4,
    1 - 2 * a + a ** 2,               # the same as (1 − α)², expanded
    (1 - a) * (1 - a / 2) ** 2,       # f'' = 5/2 − 3α/2 ≥ 1
])
def test_true_polynomial_tradeoffs_are_proved(expr):
    f2 = sp.diff(expr, a, 2)
    # independent: the minimum of f'' on [0, 1] from its critical points
    crit = [c for c in sp.solve(sp.diff(f2, a), a) if c.is_real and 0 <= c <= 1]
    lowest = min(f2.subs(a, c) for c in [0, 1, *crit])
    if lowest < 0:
        pytest.skip("not convex on [0, 1]")
    r = S.check(expr)
    assert r.is_tradeoff is True, str(r)


@pytest.mark.parametrize("expr,axiom", [
    (1 - a ** 2, "convex"),                    # concave
    (1 - a ** 2, "below_identity"),            # f(1/2) = 3/4 > 1/2
    ((1 - a) * (1 + a - a ** 2), "below_identity"),
    ((1 - 2 * a) ** 2, "non_increasing"),      # rises after α = 1/2
    (a * (1 - a), "non_increasing"),
])
def test_false_tradeoffs_are_refuted_inside_unit_interval(expr, axiom):
    r = S.check(expr)
    v = r[axiom]
    assert v.verdict == "refuted", str(r)
    assert _in_unit(v.counterexample)


def test_polynomial_sign_prover_exact_cases():
    p = Prover({}).on(a, sp.S.Zero, sp.S.One)
    assert p.sign(-(3 * a ** 2 - 4 * a + 2)) == NEG
    assert p.sign(a ** 2 - a + sp.Rational(1, 4)) == frozenset({0, 1})  # (α − 1/2)² ≥ 0
    assert p.sign(a - sp.Rational(1, 2)) == frozenset({-1, 0, 1})
    assert p.sign(a ** 3 - 3 * a + 3) == POS                            # min at α = 1: 1
    # a root exactly at an open end does not make the sign indefinite
    assert p.sign(a * (2 - a)) == POS
    # irrational coefficients: not a QQ polynomial, left to the other rules
    assert p._poly_sign(sp.sqrt(2) * a - 1) is None


@given(st.lists(st.integers(-6, 6), min_size=1, max_size=5),
       st.sampled_from([(0, 1), (0, sp.Rational(1, 2)), (sp.Rational(1, 3), 1)]))
@settings(max_examples=60)
def test_polynomial_sign_is_sound(coeffs, box):
    # soundness: every sign the polynomial takes at exact rational points of the
    # open interval is among the signs the prover allows
    lo, hi = sp.sympify(box[0]), sp.sympify(box[1])
    poly = sum(c * a ** i for i, c in enumerate(coeffs))
    got = Prover({}).on(a, lo, hi).sign(poly)
    for k in range(1, 64):
        t = lo + (hi - lo) * sp.Rational(k, 64)
        v = sp.sympify(poly).subs(a, t)
        assert (1 if v > 0 else -1 if v < 0 else 0) in got
