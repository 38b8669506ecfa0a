"""shuffle_amplification below δ ≈ 1e-11: the unenumerated mass sits at losses ±ε₁
(ε₁ = ε₀ + log(1.1/0.9)), not at ±∞, so ε(δ) is finite for every δ and the pair stays
below the true clone pair's curve."""

import math

import numpy as np
import pytest

import fdp
from fdp.families.finite_pair import FinitePair
from fdp.families.shuffle import clone_atoms

E1_PAD = math.log(1.1 / 0.9)


def test_one_user_is_below_randomized_response_and_pure():
    # n = 1: the clone pair IS randomized response with ε₀ (module docstring)
    eps0 = 2.0
    f = fdp.shuffle_amplification(eps0, 1)
    rr = fdp.RandomizedResponse(eps0)
    a = np.concatenate([[0.0, 1e-300, 1e-20, 1e-12], np.linspace(0.0, 1.0, 401)])
    assert np.all(f(a) <= rr(a) + 4e-15)        # both evaluated to a few ulps
    assert np.max(rr(a) - f(a)) < 1e-9
    for d in [1e-12, 1e-20, 1e-300, 0.0]:
        e = f.epsilon(d)
        assert eps0 - 1e-9 <= e <= eps0 + E1_PAD + 1e-12


def test_small_delta_is_finite_and_large_delta_unchanged():
    eps0, n = 4.0, 10_000
    f = fdp.shuffle_amplification(eps0, n)
    # the former construction: deficits at ±inf (an independent assembly of the atoms)
    L, p, q, dp, dq = clone_atoms(eps0, n, math.exp(-eps0), 1e-30)
    old = FinitePair.from_atoms(np.concatenate([L, [-np.inf, np.inf]]),
                                np.concatenate([p, [dp, 0.0]]), np.concatenate([q, [0.0, dq]]))
    assert old.epsilon(1e-12) == math.inf
    for d in [1e-12, 1e-15, 1e-30, 0.0]:
        # (+1e-10: the pair claims δ = 0 only above its largest loss rounded up by the
        # error of log(q/p) and of the masses, a certified upper end)
        assert f.epsilon(d) <= eps0 + E1_PAD + 1e-10
    # moving the deficit from ±inf to ±ε₁ lowers δ(ε), by at most the deficit itself
    eps = np.linspace(0.0, eps0 + 1.0, 41)
    d_new, d_old = f.delta(eps), old.delta(eps)
    assert np.all(d_new <= d_old + 1e-18)
    assert np.all(d_old - d_new <= dq + 1e-18)
    assert 1e-12 < dq < 1e-10
    assert f.epsilon(1e-6) == pytest.approx(old.epsilon(1e-6), rel=1e-7)
    a = np.concatenate([[0.0, 1e-30, 1e-12], np.linspace(0.0, 1.0, 201)])
    assert np.all(f(a) >= old(a) - 1e-15)
    # the two rest atoms carry exactly the deficits, at likelihood ratios e^{±ε₁}
    e1 = eps0 + E1_PAD
    eps = np.array([e1 - 1e-9, e1 + 1e-9])
    assert f.delta(eps)[1] == 0.0 < f.delta(eps)[0]
