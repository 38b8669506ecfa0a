"""fdp.law.derived: the laws built from other laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fdp
from fdp.law import (
    AtomsLaw,
    EnvelopeLaw,
    MixtureLaw,
    SubsampledLaw,
    SwappedLaw,
    WithoutReplacementLaw,
)


# ----------------------------------------------------------------------
# Generic laws
# ----------------------------------------------------------------------
def _sums(law, edges):
    kappa, pi, q_inf, p_neginf = law.interval_masses(np.asarray(edges, dtype=float))
    return kappa.sum() + q_inf, pi.sum() + p_neginf


# a pair with δ = 0.05 at ±inf and two finite atoms (losses 1 and log(q2/p2) < 0)
_Q2 = 0.95 - 0.3 * math.e
BASE = AtomsLaw(np.array([np.inf, 1.0, math.log(_Q2 / 0.65), -np.inf]),
                np.array([0.0, 0.3, 0.65, 0.05]), np.array([0.05, 0.3 * math.e, _Q2, 0.0]))


@pytest.mark.parametrize("law", [
    BASE,
    SwappedLaw(BASE),
    SubsampledLaw(BASE, 0.3),
    SubsampledLaw(SwappedLaw(BASE), 0.7),
    MixtureLaw((0.25, 0.75), (BASE, SwappedLaw(BASE))),
])
def test_generic_laws_sum_to_one_under_p_and_q(law):
    total_q = 1.0
    for edges in ([0.0], np.linspace(-3, 3, 41), [-10.0, -0.5, 1.0, 10.0]):
        q, p = _sums(law, edges)
        assert q == pytest.approx(total_q, abs=1e-15)
        assert p == pytest.approx(1.0, abs=1e-15)


def test_swapped_law_exchanges_p_and_q_and_negates_the_loss():
    law = SwappedLaw(BASE)
    L, q = law.atoms()
    assert np.allclose(L, -BASE.L[1:3])
    assert np.allclose(q, BASE.p[1:3])
    assert law.singular_masses() == pytest.approx((0.05, 0.05))
    assert law.log_mgf(0.5, "Q") == pytest.approx(BASE.log_mgf(-0.5, "P"))


def test_subsampled_law_is_the_mixture_pair():
    p = 0.3
    law = SubsampledLaw(BASE, p)
    # the pair (P, (1 − p)P + pQ), enumerated
    q_mix = (1 - p) * BASE.p + p * BASE.q
    with np.errstate(divide="ignore"):
        L = np.log(q_mix) - np.log(BASE.p)
    edges = np.linspace(-1.0, 2.0, 13)
    want_k, want_p = np.zeros(14), np.zeros(14)
    idx = np.searchsorted(edges, L[np.isfinite(L)], side="right")
    np.add.at(want_k, idx, q_mix[np.isfinite(L)])
    np.add.at(want_p, idx, BASE.p[np.isfinite(L)])
    kappa, pi, q_inf, p_neginf = law.interval_masses(edges)
    assert np.allclose(kappa, want_k, atol=1e-15) and np.allclose(pi, want_p, atol=1e-15)
    assert q_inf == pytest.approx(p * 0.05) and p_neginf == 0.0


def test_without_replacement_law_is_a_law():
    sym = fdp.RandomizedResponse(1.0).law()
    law = WithoutReplacementLaw(SubsampledLaw(sym, 0.4))
    for edges in ([0.0], np.linspace(-2, 2, 9)):
        q, p = _sums(law, edges)
        assert q == pytest.approx(1.0, abs=1e-14) and p == pytest.approx(1.0, abs=1e-14)


def test_envelope_law_is_a_range_only():
    law = EnvelopeLaw((BASE, SwappedLaw(BASE)))
    assert law.interval_masses(np.zeros(1)) is None
    lo, hi = BASE.loss_range()
    assert law.loss_range() == (min(lo, -hi), max(hi, -lo))
    assert EnvelopeLaw((BASE, None)).loss_range() is None

