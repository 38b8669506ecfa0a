"""The sensitivity DP-SGD assumes is explicit, settable, and defaults to the safe value.

Truth: at sample rate q = 1 every step is the full-batch Gaussian mechanism, so T
steps with noise σC and sensitivity sC are exactly G_{s√T/σ} (C_1(G) = G, and
1·G + 0·Id = G is symmetric); its ε(δ) is solved here from the closed form
δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor 2.13) by mpmath bisection.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.sgd.certified import DEFAULT_SENSITIVITY

mp.mp.dps = 40


def gdp_eps(mu, delta):
    mu = mp.mpf(mu)

    def d(e):
        return mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while d(hi) > delta:
        lo, hi = hi, 2 * hi
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return float(hi)


def test_defaults_follow_the_relation():
    assert DEFAULT_SENSITIVITY == {"add_remove": 1.0, "replace_one": 2.0}


@pytest.mark.parametrize("sens,expected_mu", [(None, 2.0 * math.sqrt(4) / 1.5),
                                              (1.0, math.sqrt(4) / 1.5),
                                              (2.0, 2.0 * math.sqrt(4) / 1.5),
                                              (0.5, 0.5 * math.sqrt(4) / 1.5)])
def test_replace_one_full_batch_is_gaussian_with_the_assumed_sensitivity(sens, expected_mu):
    f = fdp.dpsgd(1.5, 1.0, 4, sampling="without_replacement", neighbouring="replace_one",
                  sensitivity=sens)
    lo, hi = f.epsilon_bounds(1e-5)
    truth = gdp_eps(expected_mu, 1e-5)
    assert lo <= truth <= hi and hi - lo < 1e-2
    shown = 2.0 if sens is None else sens
    assert f"sensitivity={shown:g}C" in repr(f)


@pytest.mark.parametrize("sens", [None, 1.0, 3.0])
def test_poisson_full_batch_is_gaussian_with_the_assumed_sensitivity(sens):
    f = fdp.dpsgd(2.0, 1.0, 9, sensitivity=sens)
    s = 1.0 if sens is None else sens
    lo, hi = f.epsilon_bounds(1e-6)
    truth = gdp_eps(s * 3.0 / 2.0, 1e-6)
    assert lo <= truth <= hi and hi - lo < 1e-2
    assert f"sensitivity={s:g}C" in repr(f)


def test_default_replace_one_is_the_safe_side_of_sensitivity_one():
    safe = fdp.dpsgd(1.0, 0.05, 50, sampling="without_replacement", neighbouring="replace_one")
    loose = fdp.dpsgd(1.0, 0.05, 50, sampling="without_replacement", neighbouring="replace_one",
                      sensitivity=1)
    assert safe.epsilon_bounds(1e-5)[0] > loose.epsilon_bounds(1e-5)[1]
    a = np.linspace(0.0, 1.0, 41)
    assert np.all(safe.bounds(a)[1] <= loose.bounds(a)[0] + 1e-9)


def test_only_the_ratio_matters():
    # per step G_{s/σ}: (σ, s) and (σ/s, 1) are the same mechanism, term by term
    a = fdp.dpsgd(1.2, 0.02, 30, sampling="without_replacement", neighbouring="replace_one",
                  sensitivity=2)
    b = fdp.dpsgd(0.6, 0.02, 30, sampling="without_replacement", neighbouring="replace_one",
                  sensitivity=1)
    assert a.epsilon_bounds(1e-5) == b.epsilon_bounds(1e-5)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_sensitivity_value(bad):
    with pytest.raises(ValueError, match="sensitivity"):
        fdp.dpsgd(1.0, 0.01, 10, sensitivity=bad)


@pytest.mark.parametrize("bad", ["2", True, [2.0]])
def test_bad_sensitivity_type(bad):
    with pytest.raises(TypeError, match="sensitivity"):
        fdp.dpsgd(1.0, 0.01, 10, sensitivity=bad)


@settings(max_examples=12)
@given(st.floats(0.7, 3.0), st.floats(0.25, 4.0), st.integers(1, 6))
def test_full_batch_property(sigma, sens, steps):
    f = fdp.dpsgd(sigma, 1.0, steps, sampling="without_replacement",
                  neighbouring="replace_one", sensitivity=sens, tol=1e-3)
    mu = sens * math.sqrt(steps) / sigma
    lo, hi = f.epsilon_bounds(1e-4)
    assert lo <= gdp_eps(mu, 1e-4) <= hi
