"""Atoms of a derived law that sit on grid points are taken out of the right cell.

A subsampled law pulls its cell edges back through L ↦ log((e^L − 1 + p)/p); the
rounded edge may land on either side of an atom of the inner law (Laplace's ±μ,
a finite pair's atoms). The discretiser used to subtract such an atom from the cell
on the other side, so it was counted twice: the lattice of
Laplace(1).subsample(0.5, direction="add") had mass 1.338 and its certified β
bracket lay above the truth.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import fdp
from tests._mp_references import laplace_beta


@pytest.mark.parametrize("mu, p", [(1.0, 0.5), (2.0, 0.1), (0.5, 0.9)])
def test_subsampled_laplace_add_direction_brackets_its_closed_form(mu, p):
    f = fdp.Laplace(mu).subsample(p, direction="add")
    r = fdp.compose_numeric([(f, 1)])
    for lat in r.pess + r.opt:
        assert abs(lat.mass - 1.0) < 1e-12
    alphas = np.array([0.01, 0.1, 0.3, 0.5, 0.7, 0.878, 0.95])
    lo, hi = r.bounds(alphas)
    mp.mp.dps = 30
    for a, lo_a, hi_a in zip(alphas, lo, hi):
        # T(P, (1 − p)P + pQ) = p·T(P, Q) + (1 − p)·Id (DRS 2022, Sec. 4)
        truth = float(p * laplace_beta(mu, a) + (1 - p) * (1 - mp.mpf(a)))
        assert lo_a <= truth * (1 + 1e-13) + 1e-15
        assert hi_a >= truth * (1 - 1e-13) - 1e-15


def test_subsampled_laplace_composed_keeps_mass_one():
    f = fdp.Laplace(1.0).subsample(0.5, direction="add")
    r = fdp.compose_numeric([(f, 3)])
    for lat in r.pess + r.opt:
        assert abs(lat.mass - 1.0) < 1e-12


def _exact_delta(A, B, eps: float, k: int) -> float:
    """δ(ε) of T(A, B)^{⊗k} by enumerating all k-tuples: Σ (B − e^ε A)₊."""
    s = math.fsum(max(math.prod(B[i] for i in o) - math.exp(eps) * math.prod(A[i] for i in o),
                      0.0) for o in itertools.product(range(len(A)), repeat=k))
    return s


def test_finite_pair_remove_direction_composed_against_enumeration():
    P, Q = [0.6, 0.3, 0.1], [0.2, 0.3, 0.5]
    rem = fdp.from_pair(P, Q).subsample(1.0, direction="remove")    # T(Q, P)
    r4 = fdp.compose_numeric([(rem, 4)])
    for lat in r4.pess + r4.opt:
        assert abs(lat.mass - 1.0) < 1e-12
    for eps in (0.0, 0.5, 1.0, 2.0):
        truth = _exact_delta(Q, P, eps, 4)
        lo, hi = r4.delta_bounds(eps)
        assert lo <= truth <= hi
        assert hi - lo < 1e-2
    # ε(1e-3) by bisection on the enumerated profile
    a, b = 0.0, 20.0
    for _ in range(80):
        m = 0.5 * (a + b)
        a, b = (m, b) if _exact_delta(Q, P, m, 4) > 1e-3 else (a, m)
    lo, hi = r4.epsilon_bounds(1e-3)
    assert lo <= b and a <= hi
