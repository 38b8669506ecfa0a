"""The composition rule table: pairs built once, an explicit atom limit instead of
MemoryError, the binomial form of f_{ε,δ}^{⊗n} in log space (no scipy.stats on import)."""

from __future__ import annotations

import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.families.finite_pair import MAX_ATOMS, product
from fdp.operations.compose import eps_delta_power, log_binom_pmf


def test_import_does_not_load_scipy_stats():
    code = "import sys, fdp; print(any(m.startswith('scipy.stats') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@settings(max_examples=40)
@given(n=st.integers(1, 10 ** 4), eps=st.floats(1e-6, 900.0), frac=st.floats(0.0, 1.0))
def test_log_binomial_pmf_against_mpmath(n, eps, frac):
    """log Bin(j; n, 1/(1 + e^ε)) to a few ulps of max(1, |log|), including tails far
    below the smallest double (ε up to 900)."""
    j = int(round(frac * n))
    lq, l1q = -np.logaddexp(0.0, eps), -np.logaddexp(0.0, -eps)
    got = float(log_binom_pmf(np.array([j]), n, lq, l1q)[0])
    with mp.workdps(60):
        q = 1 / (1 + mp.e ** mp.mpf(eps))
        ref = mp.log(mp.binomial(n, j)) + j * mp.log(q) + (n - j) * mp.log(1 - q)
    assert abs(got - float(ref)) <= 5e-14 * max(1.0, abs(float(ref)))


def test_eps_delta_power_beyond_double_range():
    """f_{700,0}^{⊗3}: masses e^{−2100}… underflow, the losses and the top atoms stay exact."""
    pair = eps_delta_power(fdp.EpsDelta(700.0), 3)
    assert np.isfinite(pair.log_ratio[np.isfinite(pair.log_ratio)]).all()
    # Q-mass of loss 3ε is (e^ε/(1 + e^ε))³, of loss ε it is 3 e^{−ε}(…)²/(…)
    top = pair.q[np.argmax(pair.log_ratio)]
    assert top == pytest.approx(float((1 / (1 + mp.e ** -700)) ** 3), rel=1e-15)
    assert pair.delta(0.0) == pytest.approx(1.0, rel=1e-15)


def test_eps_delta_power_matches_binomial_closed_form():
    """KOV Thm 3.3 through the exact pair: δ(ε') = Σ_j Bin(j)(1 − e^{ε' − (2j − n)ε})₊ in mpmath."""
    eps, n = 0.3, 40
    f = fdp.EpsDelta(eps) ** n
    for e2 in [0.0, 1.5, 4.0, 9.0]:
        with mp.workdps(50):
            r = mp.e ** mp.mpf(eps)
            want = mp.mpf(0)
            for j in range(n + 1):
                L = (2 * j - n) * mp.mpf(eps)
                if L > e2:
                    qj = mp.binomial(n, j) * r ** j / (1 + r) ** n
                    want += qj * (1 - mp.e ** (mp.mpf(e2) - L))
        assert f.delta(e2) == pytest.approx(float(want), rel=1e-12)


def test_product_checks_its_size_before_allocating():
    ramp = np.linspace(1, 2, 2001)
    a = fdp.from_pair(np.full(2001, 1 / 2001), ramp / ramp.sum())
    assert a.p.size * a.p.size > MAX_ATOMS
    assert product(a, a) is None           # "too large" is a return value, not an exception


def test_composition_falls_back_to_the_engine_when_the_pair_is_too_large():
    ramp = np.linspace(1, 2, 2001)
    a = fdp.from_pair(np.full(2001, 1 / 2001), ramp / ramp.sum())
    f = fdp.compose(a, a, tol=1e-3)
    assert not f.is_exact
    lo, hi = f.bounds(np.array([0.1, 0.5]))
    assert np.all(lo <= hi)


def test_pairs_are_built_once_per_factor():
    calls = []

    class Counting(type(fdp.from_pair([0.5, 0.5], [0.2, 0.8]))):
        def _pair(self):
            calls.append(1)
            return super()._pair()

    base = fdp.from_pair([0.5, 0.5], [0.2, 0.8])
    c = Counting(base.log_ratio, base.p, base.q)
    fdp.compose(c, fdp.EpsDelta(1.0))
    assert len(calls) == 1


def test_identity_pairs_are_neutral():
    """f_{0,0} and T(P, P) are Id: dropped, never sent to the engine (which failed on
    G_{6e-5} ⊗ f_{0,0} and asked for 4e10 grid points for G_1 ⊗ f_{0,0})."""
    assert fdp.Gaussian(6.103515625e-05) @ fdp.EpsDelta(0.0, 0.0) == fdp.Gaussian(6.103515625e-05)
    assert fdp.Gaussian(1.0) @ fdp.EpsDelta(0.0, 0.0) == fdp.Gaussian(1.0)
    assert fdp.Laplace(1.0) @ fdp.from_pair([0.3, 0.7], [0.3, 0.7]) == fdp.Laplace(1.0)
