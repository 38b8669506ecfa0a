"""fdp.law.base, and the acceptance test of the privacy-loss law as the extension point:
a new family written in one file with only ``_beta`` and ``law()`` gets the composition
engine, the CLT functionals, Edgeworth and RDP without any registration."""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass

import mpmath
import numpy as np
import pytest

import fdp
from fdp.classical.rdp import rdp_of
from fdp.law import (
    AtomsLaw,
    EnvelopeLaw,
    MixtureLaw,
    PrivacyLossLaw,
    SubsampledLaw,
    SwappedLaw,
    p_masses,
    split_delta,
)
from fdp.tradeoff import TradeOff

# ----------------------------------------------------------------------
# A toy family, defined here and nowhere else: T(P, Q) for two-point P, Q
# ----------------------------------------------------------------------
P0 = np.array([0.6, 0.4])
Q0 = np.array([0.3, 0.7])
L0 = np.log(Q0 / P0)


@dataclass(frozen=True)
class TwoPoint(TradeOff):
    """T((0.6, 0.4), (0.3, 0.7)) with its exact curve and its law, nothing else."""

    def _beta(self, alpha):
        # reject the atom of larger loss first: vertices (0, 1), (0.4, 0.3), (1, 0)
        return np.interp(alpha, [0.0, 0.4, 1.0], [1.0, 0.3, 0.0])

    def law(self):
        return AtomsLaw(L0, P0, Q0)


@dataclass(frozen=True)
class Mirror(TradeOff):
    """T((0.6, 0.4), (0.4, 0.6)): symmetric, known only through its curve and its law."""

    @property
    def symmetric(self) -> bool:
        return True

    def _beta(self, alpha):
        return np.interp(alpha, [0.0, 0.4, 1.0], [1.0, 0.4, 0.0])

    def law(self):
        return AtomsLaw(np.log(P0[::-1] / P0), P0, P0[::-1].copy())


def _exact_delta(n: int, eps: float) -> float:
    """δ(ε) of the n-fold product by exact enumeration (mpmath, 50 digits)."""
    with mpmath.workdps(50):
        total = mpmath.mpf(0)
        for k in range(n + 1):            # k outcomes of the second point
            q = mpmath.binomial(n, k) * mpmath.mpf(0.7) ** k * mpmath.mpf(0.3) ** (n - k)
            loss = k * mpmath.log(mpmath.mpf(0.7) / mpmath.mpf(0.4)) + (n - k) * mpmath.log(
                mpmath.mpf(0.3) / mpmath.mpf(0.6))
            total += q * max(mpmath.mpf(0), 1 - mpmath.exp(eps - loss))
        return float(total)


def test_new_family_composes_through_its_law_with_a_certified_bracket():
    n = 30
    f = TwoPoint() ** n
    assert not f.is_exact            # the numeric engine did it, from the law alone
    for eps in (0.0, 1.0, 3.0):
        lo, hi = f.delta_bounds(eps)
        exact = _exact_delta(n, eps)
        assert lo - 1e-12 <= exact <= hi + 1e-12
        assert hi - lo < 1e-2        # the engine's default accuracy


def test_new_family_gets_functionals_clt_edgeworth_and_rdp():
    t = TwoPoint()
    fun = fdp.functionals(t)
    assert fun.method == "exact sum" and fun.accuracy == 0.0
    assert fun.kl == pytest.approx(-float(P0 @ L0), rel=1e-14)
    assert fun.kappa2 == pytest.approx(float(P0 @ L0 ** 2), rel=1e-14)
    assert fun.kappa3 == pytest.approx(float(P0 @ np.abs(L0) ** 3), rel=1e-14)
    ew = fdp.edgeworth([t] * 50)
    assert 0.0 < ew(0.1) < 0.9
    # the CLT needs a symmetric factor: the toy's mirror image T(P', P) with P' = (0.4, 0.6)
    sym = Mirror()
    fun = fdp.functionals(sym)
    assert fun.method == "exact sum"
    res = fdp.clt([sym] * 50)
    want = 2.0 * 50 * fun.kl / math.sqrt(50 * fun.kappa2 - 50 * fun.kl ** 2)  # DRS Thm 3.4
    assert res.mu == pytest.approx(want, rel=1e-12)
    # RDP of the pair: D_α(Q ‖ P) = log Σ q^α p^{1−α}/(α − 1), exactly
    for a in (1.5, 2.0, 8.0):
        want = math.log(float(np.sum(Q0 ** a * P0 ** (1 - a)))) / (a - 1)
        assert rdp_of(t, a) == pytest.approx(want, rel=1e-13)



# a pair with δ = 0.05 at ±inf and two finite atoms (losses 1 and log(q2/p2) < 0)
_Q2 = 0.95 - 0.3 * math.e
BASE = AtomsLaw(np.array([np.inf, 1.0, math.log(_Q2 / 0.65), -np.inf]),
                np.array([0.0, 0.3, 0.65, 0.05]), np.array([0.05, 0.3 * math.e, _Q2, 0.0]))


def test_split_delta_is_the_one_rule():
    assert split_delta(0.0, 0.0, rtol=0.0, atol=0.0) == 0.0
    assert split_delta(0.1, 0.1 + 1e-17, rtol=1e-15, atol=0.0) == pytest.approx(0.1)
    assert split_delta(0.1, 0.2, rtol=1e-6, atol=1e-9) is None
    d = split_delta(*BASE.singular_masses(), rtol=1e-15, atol=0.0)
    g = BASE.without_delta(d)
    assert np.all(np.isfinite(g.L)) and g.p.sum() == pytest.approx(1.0)


def test_p_masses_never_overflow():
    # a subnormal Q-mass at loss -710: e^{710} alone overflows, the product does not
    got = p_masses(np.array([1e-310, 0.0]), np.array([-710.0, 5.0]))
    want = float(mpmath.mpf(1e-310) * mpmath.exp(710))
    assert got[0] == pytest.approx(want, rel=1e-9) and got[1] == 0.0


def test_generic_moment_fallback_approximates_a_closed_form():
    class Plain(PrivacyLossLaw):          # the Gaussian law without its closed forms
        def interval_masses(self, edges):
            return fdp.Gaussian(1.0).law().interval_masses(edges)

        def loss_range(self):
            return fdp.Gaussian(1.0).law().loss_range()

    law = Plain()
    assert law.moment_method is None
    assert law.moment(1) == pytest.approx(-0.5, abs=1e-4)
    assert law.moment(2, -0.5) == pytest.approx(1.0, abs=1e-3)
    assert law.renyi([2.0]) is None


def test_laws_pickle():
    for law in (BASE, SwappedLaw(BASE), SubsampledLaw(BASE, 0.2),
                MixtureLaw((1.0,), (BASE,)), EnvelopeLaw((BASE,))):
        back = pickle.loads(pickle.dumps(law))
        assert type(back) is type(law)
        assert back.loss_range() == law.loss_range()
