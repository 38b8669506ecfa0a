"""fdp._numerics.bisect_monotone: the package's one bisection, both modes."""

import numpy as np

from fdp._numerics import bisect_monotone


def test_arithmetic_and_geometric_modes_keep_the_invariant():
    thr = np.array([1e-200, 0.3, 5.0, 1e100])
    lo, hi = bisect_monotone(lambda x: x >= thr, np.zeros(4), np.full(4, 1e300))
    assert np.all(hi >= thr) and np.all(lo < thr)
    assert np.all(hi - lo <= 4e-16 * hi + 1e-300)


def test_bits_mode_reaches_adjacent_doubles():
    thr = np.array([0.0, 5e-324, 1e-310, 0.1, 3.0, 1e300])
    lo, hi = bisect_monotone(lambda x: x >= thr, np.zeros(6), np.full(6, np.inf),
                             rtol=0.0, atol=0.0, bits=True)
    assert np.all(hi >= thr)
    inner = thr > 0
    assert np.all(lo[inner] < thr[inner])
    # adjacent doubles, i.e. hi is the threshold itself here
    assert np.array_equal(hi[inner], thr[inner])


def test_bits_mode_respects_a_step_budget():
    lo, hi = bisect_monotone(lambda x: x >= 0.1, 0.0, 1.0, rtol=0.0, atol=0.0, bits=True,
                             max_iter=5)
    assert lo < 0.1 <= hi and hi - lo > 1e-3                  # a valid, wider bracket
    lo2, hi2 = bisect_monotone(lambda x: x >= 0.1, lo, hi, rtol=0.0, atol=0.0, bits=True)
    assert np.nextafter(float(lo2), np.inf) == float(hi2) == 0.1
