"""Issue 14 "rough edges": validation rules, signed zeros, f ≤ 1 − α at the edges.

Independent truths: the axioms themselves (0 ≤ f(α) ≤ 1 − α, δ ∈ [0, 1]),
closed forms (L_μ(α) = 1 − e^μ α near 0, Id's δ(ε) = max(0, 1 − e^ε)), and
mpmath for G_μ at μ = 1e-12.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fdp
from fdp import _validate

EDGE_ALPHA = [0.0, 1e-300, 0.05, 0.5, 1 - 1e-16, 1.0]
EDGE_MU = [0.0, 1e-300, 1e-12, 40.0, 1e6]
EDGE_EPS = [0.0, 700.0, 1e4]
EDGE_DELTA = [0.0, 1e-300, 1e-5, 0.5, 1.0]


def _families():
    out = [fdp.Identity()]
    for m in EDGE_MU:
        out += [fdp.Gaussian(m), fdp.Laplace(m)]
    for e in EDGE_EPS:
        out += [fdp.EpsDelta(e, d) for d in EDGE_DELTA]
        out += [fdp.RandomizedResponse(e, k) for k in (2, 7)]
    out += [fdp.DiscreteGaussian(s, d) for s in (1e-300, 0.5, 64.0, 65.0, 1e6, 1e13)
            for d in (1, 1000)]
    out += [fdp.DiscreteLaplace(t, d) for t in (1e-300, 1.0, 1e6, 1e300) for d in (1, 5)]
    return out


FAMILIES = _families()


@given(st.sampled_from(FAMILIES), st.sampled_from(EDGE_ALPHA),
       st.sampled_from([0.0, 1.0, 700.0, 1e4, -1.0, math.inf, -math.inf]))
def test_every_family_inside_the_axioms_at_the_edges(f, a, eps):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no RuntimeWarning may escape
        lo, hi = f.bounds(a)
        # the axioms hold for the real numbers: lo ≤ 1 − α exactly, and hi (a certified
        # upper bound of a value ≤ 1 − α) is at most 1 − α rounded up to a double
        one_minus = Fraction(1) - Fraction(a)
        assert 0.0 <= lo <= hi and Fraction(lo) <= one_minus
        assert hi <= 1.0 - a or Fraction(np.nextafter(hi, 0.0)) < one_minus
        assert f(a) == lo
        d = f.delta(eps)
        assert 0.0 <= d <= 1.0 and not math.copysign(1.0, d) < 0   # no −0.0
        assert 0.0 <= f.advantage() <= 1.0


def test_laplace_huge_mu_no_warning_and_closed_form():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = fdp.Laplace(1e6)
        assert f(0.3) == 0.0 and f(0.0) == 1.0 and f(1e-300) == 0.0
        g = fdp.Laplace(700.0)
        mp.mp.dps = 30
        # below the kink e^{−700}/2: 1 − e^{700} α; above it e^{−700}/(4α) (DRS App. A)
        assert g(1e-305) == pytest.approx(float(1 - mp.exp(700) * mp.mpf("1e-305")), rel=1e-13)
        assert g(1e-300) == pytest.approx(float(mp.exp(-700) / (4 * mp.mpf("1e-300"))),
                                          rel=1e-13)


def test_identity_delta_is_plus_zero():
    d = fdp.Identity().delta(1.0)
    assert d == 0.0 and math.copysign(1.0, d) == 1.0
    np.testing.assert_array_equal(np.signbit(fdp.Identity().delta(np.array([0.0, 5.0]))),
                                  [False, False])


def test_gaussian_zero_mu_is_identity_exactly():
    a = np.array([0.05, 0.3, 0.7, 1 - 1e-16])
    assert np.all(fdp.Gaussian(0.0)(a) <= 1.0 - a)
    assert fdp.Gaussian(0.0)(0.05) == 0.95
    # μ = 1e-12: β = 1 − α − φ(Φ⁻¹(α))μ + O(μ²) (mpmath), never above 1 − α
    mp.mp.dps = 30
    want = mp.ncdf(mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf("0.05")) - mp.mpf("1e-12"))
    assert fdp.Gaussian(1e-12)(0.05) == pytest.approx(float(want), rel=1e-15)


@pytest.mark.parametrize("call", [
    lambda: fdp.Gaussian(1)("0.5"),
    lambda: fdp.Gaussian("1"),
    lambda: fdp.Gaussian(1)([0.1, "0.2"]),
    lambda: fdp.Gaussian(1)(np.array(["0.5"])),
    lambda: fdp.Gaussian(1)(True),
    lambda: fdp.Gaussian(1).delta("1"),
    lambda: fdp.Gaussian(1).epsilon("1e-5"),
    lambda: fdp.EpsDelta("1"),
    lambda: fdp.Gaussian(1).group("2"),
    lambda: fdp.DiscreteGaussian("3"),
])
def test_strings_and_bools_are_type_errors_everywhere(call):
    with pytest.raises(TypeError):
        call()


def test_flag_accepts_only_bools():
    assert _validate.flag("one_sided", True) is True
    assert _validate.flag("one_sided", np.bool_(False)) is False
    for bad in ("yes", 1, 0, None, "False"):
        with pytest.raises(TypeError, match="one_sided must be True or False"):
            _validate.flag("one_sided", bad)


@pytest.mark.parametrize("call,text", [
    (lambda: fdp.Gaussian(1)(np.float64(-0.1)), "got -0.1"),
    (lambda: fdp.Gaussian(np.float64(-0.1)), "got -0.1"),
    (lambda: fdp.Gaussian(1)(np.array([0.2, 1.5])), "got 1.5"),
    (lambda: fdp.Gaussian(1).group(np.float64(2.5)), "got 2.5"),
    (lambda: fdp.Gaussian(1).epsilon(np.float32(2.0)), "got 2.0"),
])
def test_messages_show_plain_numbers(call, text):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert text in msg and "np." not in msg and "float64" not in msg


def test_numeric_inputs_still_accepted():
    from fractions import Fraction
    g = fdp.Gaussian(1)
    want = g(0.5)
    for a in (np.float32(0.5), Fraction(1, 2), np.array(0.5), [0.5], (0.5,)):
        assert float(np.ravel(g(a))[0]) == pytest.approx(want)
    assert fdp.Gaussian(np.int64(2)) == fdp.Gaussian(2.0)


def test_symbolic_bool_options_are_flags():
    from fdp import symbolic as S
    with pytest.raises(TypeError, match="validate must be True or False"):
        S.to_tradeoff(S.gaussian(), mu=1.0, validate="no")
    with pytest.raises(TypeError, match="third must be True or False"):
        S.functionals(S.gaussian(), third=1)
