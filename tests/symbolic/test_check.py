"""S.check: proofs for the families, refutations with confirmed counterexamples."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fdp import symbolic as S

a = S.alpha
c = sp.Symbol("c", positive=True)


def _all_proved(report):
    bad = {k: (v.verdict, v.reason) for k, v in report.items() if v.verdict != "proved"}
    assert not bad, f"{report}"
    assert report.is_tradeoff is True and report.proved


@pytest.mark.parametrize("expr,params", [
    (S.gaussian(), {}),                          # symbolic μ > 0
    (S.gaussian(), {"mu": 1.0}),
    (S.gaussian(sp.Rational(1, 10)), {}),
    (S.gaussian(), {"mu": (0, 10)}),             # a range of μ
    (S.laplace(), {}),
    (S.laplace(2.5), {}),
    (S.eps_delta(1.0, 1e-5), {}),
    (S.eps_delta(2, 0), {}),
    (S.identity(), {}),
    ((1 - a) ** 2, {}),
    (1 - sp.sqrt(1 - (1 - a) ** 2), {}),         # the lower quarter circle
], ids=["G_mu", "G_1.0", "G_0.1", "G_range", "L_mu", "L_2.5", "f_1,1e-5", "f_2,0",
        "Id", "(1-a)^2", "circle"])
def test_proves_tradeoff_functions(expr, params):
    _all_proved(S.check(expr, **params))


def test_proves_symbolic_eps_delta():
    """f_{ε,δ} for all ε > 0 and δ ∈ [0, 1) (a Max of linear functions)."""
    _all_proved(S.check(S.eps_delta()))


@settings(max_examples=6, deadline=None)
@given(st.floats(0.01, 8.0), st.just(0.0) | st.floats(1e-6, 4.0), st.floats(0.0, 0.9))
def test_proves_families_for_random_parameters(mu, eps, delta):
    # (for ε ~ 1e-117 sympy cannot order 1 − e^ε and 0 when building Max: the
    # report is then "undecided", never a wrong verdict -- see the test below)
    _all_proved(S.check(S.gaussian(mu)))
    _all_proved(S.check(S.laplace(mu)))
    _all_proved(S.check(S.eps_delta(eps, delta)))


def _value(expr, x, **sub):
    """f(x) in mpmath at 40 digits, independently of the report."""
    mpmath.mp.dps = 40
    e = expr.subs({sp.Symbol(k, positive=True): v for k, v in sub.items()})
    return mpmath.mpf(str(sp.N(e.subs(a, x), 40)))


def _confirm_chord(expr, cex, **sub):
    x0, x1, x2 = cex["alpha"]
    f0, f1, f2 = (_value(expr, x, **sub) for x in (x0, x1, x2))
    w = mpmath.mpf(str(sp.N((x1 - x0) / (x2 - x0), 40)))
    assert f1 > f0 + (f2 - f0) * w + mpmath.mpf(10) ** -30


def test_refutes_concave_one_minus_alpha_squared():
    f = 1 - a ** 2
    r = S.check(f)
    assert r.convex.verdict == "refuted"
    _confirm_chord(f, r.convex.counterexample)
    assert r.below_identity.verdict == "refuted"
    x = r.below_identity.counterexample["alpha"]
    assert _value(f, x) > 1 - mpmath.mpf(str(sp.N(x, 40)))
    assert r.non_increasing.verdict == "proved" and r.continuous.verdict == "proved"
    assert r.is_tradeoff is False


def test_refutes_unclipped_line():
    r = S.check(1 - 2 * a)
    assert r.range.verdict == "refuted"
    x = r.range.counterexample["alpha"]
    assert _value(1 - 2 * a, x) < 0
    assert r.convex.verdict == "proved" and r.below_identity.verdict == "proved"


def test_refutes_line_clipped_at_the_wrong_level():
    f = sp.Piecewise((1 - 2 * a, a < sp.Rational(1, 2)), (sp.Rational(1, 10), True))
    r = S.check(f)
    assert r.continuous.verdict == "refuted"
    assert r.continuous.counterexample["alpha"] == sp.Rational(1, 2)
    assert r.non_increasing.verdict == "refuted"
    x0, x1 = r.non_increasing.counterexample["alpha"]
    assert _value(f, x0) < _value(f, x1) and x0 < x1
    assert r.convex.verdict == "refuted"
    _confirm_chord(f, r.convex.counterexample)
    assert r.below_identity.verdict == "refuted"   # f(1) = 1/10 > 0
    assert r.range.verdict == "proved"             # values do stay in [0, 1]


def test_refutes_slopes_decreasing_at_a_join():
    f = sp.Piecewise((1 - a / 4, a < sp.Rational(1, 2)), (sp.Rational(7, 4) * (1 - a), True))
    r = S.check(f)
    assert r.continuous.verdict == "proved"       # both pieces give 7/8 at 1/2
    assert r.non_increasing.verdict == "proved"
    assert r.convex.verdict == "refuted"
    _confirm_chord(f, r.convex.counterexample)


def test_refutes_a_non_convex_piece():
    # Laplace-like, but the middle piece is concave
    q = a - sp.Rational(1, 4)
    f = sp.Piecewise((1 - 2 * a, a < sp.Rational(1, 4)),
                     (sp.Rational(1, 2) - 8 * q ** 2 - 2 * q, a <= sp.Rational(1, 2)),
                     (0, True))
    r = S.check(f)
    assert r.convex.verdict == "refuted"
    _confirm_chord(f, r.convex.counterexample)


@pytest.mark.slow
def test_refutes_for_some_symbolic_parameter_value():
    """(1 − α)^c is a trade-off function iff c ≥ 1; for c > 0 the report names a c."""
    f = (1 - a) ** c
    r = S.check(f)
    assert r.convex.verdict == "refuted"
    cex = r.convex.counterexample
    assert cex["c"] < 1
    _confirm_chord(f, cex, c=cex["c"])
    _all_proved(S.check(f, c=(1, 5)))
    _all_proved(S.check(f, c=3))


@pytest.mark.slow
def test_refutes_tiny_violations_exactly():
    """Violations of 1e-20 and 1e-25 are found and confirmed in exact arithmetic."""
    r = S.check((1 - a) ** 2 + sp.Rational(1, 10 ** 20))
    assert r.range.verdict == "refuted" and r.range.counterexample["alpha"] == 0
    assert r.below_identity.verdict == "refuted"
    assert "1e-20" in r.range.reason
    f = sp.Piecewise(((1 - a) ** 2, a < sp.Rational(1, 2)),
                     ((1 - a) ** 2 + sp.Rational(1, 10 ** 25), True))
    r = S.check(f)
    assert r.continuous.verdict == "refuted" and "1e-25" in r.continuous.reason
    assert r.convex.verdict != "proved"


def test_pole_inside_the_interval_is_not_proved():
    f = 1 / (50 * sp.Abs(2 * a - 1))
    r = S.check(f)
    assert r.continuous.verdict != "proved"
    assert r.range.verdict == "refuted"       # f(1/2) is not a real number
    assert r.convex.verdict == "refuted"


@pytest.mark.slow
def test_refutes_gaussian_with_negative_mu():
    r = S.check(S.gaussian(-c))
    assert r.convex.verdict == "refuted" and r.below_identity.verdict == "refuted"


def test_undecided_is_never_a_proof():
    """1 − sin(πα/2) is a trade-off function, but the prover has no rule for sin."""
    r = S.check(1 - sp.sin(sp.pi * a / 2))
    for _, v in r.items():
        assert v.verdict == "undecided"
        assert "could not" in v.reason
    assert r.is_tradeoff is None
    # an unknown function cannot even be evaluated: undecided, not refuted
    r = S.check(1 - a - sp.Function("h")(a) ** 2)
    assert all(v.verdict == "undecided" for _, v in r.items())


@pytest.mark.slow
def test_parameters_sympy_cannot_compare_give_undecided_not_errors():
    r = S.check(S.eps_delta(2.6396950837834958e-117, 0))
    assert all(v.verdict in ("proved", "undecided") for _, v in r.items())


def test_report_interface():
    r = S.check(S.laplace(1))
    assert [k for k, _ in r.items()] == list(S.AXIOMS)
    assert r["convex"] is r.convex and bool(r.convex)
    text = str(r)
    assert "convex" in text and "proved" in text
    with pytest.raises(KeyError):
        r["concave"]


def test_check_input_errors():
    with pytest.raises(ValueError, match="unknown parameter"):
        S.check(S.gaussian(), sigma=1)
    with pytest.raises(TypeError):
        S.check("1 - alpha")
    with pytest.raises(ValueError, match=">= 0"):
        S.check(S.gaussian(), mu=-1)
    with pytest.raises(ValueError, match="low < high"):
        S.check(S.gaussian(), mu=(2, 1))
