"""ε(δ) of a lattice (its integer bisection over grid points) against a plain scan.

The independent truth is the hockey-stick sum δ(ε) = q_inf + Σ q_k (1 − e^{ε − l_k})₊
evaluated directly at every grid point and at the answer.
"""

from __future__ import annotations

import numpy as np
import pytest

from fdp._numerics import bisect_monotone
from fdp.engine.lattice import PESSIMISTIC, Lattice


def brute_delta(lat, eps):
    L = lat.losses
    return lat.q_inf + float(np.sum(lat.q * np.maximum(1.0 - np.exp(eps - L), 0.0)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_epsilon_raw_against_a_scan(seed):
    rng = np.random.default_rng(seed)
    q = rng.random(200) ** 4
    q /= q.sum() * 1.0001
    lat = Lattice(0.05, -60, q, 1e-4, 0.0, PESSIMISTIC)
    targets = np.array([0.5, 0.1, 1e-2, 1e-3, 2e-4, 5e-5])
    eps = lat.epsilon_raw(targets)
    for t, e in zip(targets, eps):
        if t < lat.q_inf:
            assert e == np.inf
            continue
        assert brute_delta(lat, e) <= t * (1 + 1e-9) + 1e-15
        # minimal: a little below the answer δ exceeds the target (unless ε = 0)
        if e > 0:
            assert brute_delta(lat, max(e - 1e-6, 0.0)) > t * (1 - 1e-9)


def test_integer_bisection_finds_the_first_passing_index():
    values = np.array([9, 7, 7, 4, 2, 2, 1, 0])            # non-increasing
    thresholds = np.array([8, 7, 3, 0, 10])
    lo, hi = bisect_monotone(lambda j: values[j] <= thresholds, np.full(5, -1),
                             np.full(5, values.size - 1), integer=True)
    # the first index whose value is ≤ the threshold (found by a plain scan)
    assert list(hi) == [1, 1, 4, 7, 0]
    assert np.all(hi - lo == 1)
    assert hi.dtype == np.int64
