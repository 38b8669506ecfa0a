"""k-of-t random allocation: the k > 1 reduction checked against the exact pair.

The exact pair of one epoch (Gaussian steps, add/remove neighbours) is
P = N(0, σ²I_t) against Q = mean over k-subsets S of N(1_S, σ²I_t). Its
likelihood ratio under P is Y = e_k(Z)/C(t, k), the k-th elementary symmetric
polynomial of the i.i.d. log-normals Z_i = e^{L_i}, L_i ~ N(−1/(2σ²), 1/σ²).
Y is affine in the last coordinate, Y = a + b·Z_t with a = e_k(Z')/C and
b = e_{k−1}(Z')/C (Z' the first t − 1), so

    δ_add(ε)    = E_P[(Y − e^ε)₊]   = E[b · call((e^ε − a)/b)],
    δ_remove(ε) = E_P[(1 − e^ε Y)₊] = E[e^ε b · put((1 − e^ε a)/(e^ε b))],

with the closed-form (Black–Scholes) call/put of one log-normal of mean 1 inside
and a tensor Gauss–Hermite rule over Z' outside. The integrand is smooth, so the
rule converges fast; its error is read as the difference between two orders
(stated and added to the truth before comparing with fdp's upper bound). The
quadrature itself is validated against two independent truths: the t = 2, k = 1
mpmath value of ``test_allocation`` and the closed form k = t (the full batch
Gaussian G_{√t/σ}).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.special import comb, ndtr

import fdp
from fdp.sgd.allocation import random_allocation

from .test_allocation import _exact_t2


def _call(K, s):
    """E[(Z − K)₊] for Z = e^L, L ~ N(−s²/2, s²) (so E Z = 1)."""
    K = np.asarray(K, dtype=float)
    out = 1.0 - K
    pos = K > 0
    lk = np.log(np.where(pos, K, 1.0))
    val = ndtr((-lk + s * s / 2) / s) - K * ndtr((-lk - s * s / 2) / s)
    return np.where(pos, val, out)


def _put(K, s):
    """E[(K − Z)₊] (0 for K ≤ 0)."""
    K = np.asarray(K, dtype=float)
    pos = K > 0
    lk = np.log(np.where(pos, K, 1.0))
    val = K * ndtr((lk + s * s / 2) / s) - ndtr((lk - s * s / 2) / s)
    return np.where(pos, np.maximum(val, 0.0), 0.0)


def _elementary(zs, k):
    """e_k of the coordinates zs (a list of equally shaped arrays)."""
    if k == 0:
        return np.ones_like(zs[0])
    out = np.zeros_like(zs[0])
    for S in itertools.combinations(range(len(zs)), k):
        term = np.ones_like(zs[0])
        for i in S:
            term = term * zs[i]
        out = out + term
    return out


def _legendre_pieces(lo, kink, hi, m):
    """Nodes and weights of Gauss–Legendre (order m) on [lo, kink] and [kink, hi],
    broadcast over the shape of ``kink``."""
    u, w = np.polynomial.legendre.leggauss(m)
    kink = np.clip(kink, lo, hi)[..., None]
    left = (kink - lo) / 2
    right = (hi - kink) / 2
    x = np.concatenate([lo + left * (u + 1), kink + right * (u + 1)], axis=-1)
    wx = np.concatenate([left * w, right * w], axis=-1)
    return x, wx


def exact_deltas(sigma, t, k, eps, order=60, legendre=80):
    """(δ_add, δ_remove) of k-of-t allocation at each ε.

    Z_t in closed form; Z_{t−1} by Gauss–Legendre split at the point where the
    closed form has its kink (a = e^ε for add, a = e^−ε for remove: a is affine in
    Z_{t−1}); Z_1 … Z_{t−2} by a tensor Gauss–Hermite rule of order ``order``."""
    s = 1.0 / sigma
    C = comb(t, k, exact=True)
    lo, hi = -14.0 * sigma, 14.0 * sigma
    u, w = np.polynomial.hermite.hermgauss(order)
    d = t - 2

    def outer(target):
        """Nodes (as Z values, each shaped (..., 1)) and weights over Z_1 … Z_{t−2}.
        One outer coordinate with k = 1: Gauss–Legendre split where the kink of
        the inner integrand leaves the domain (Z_1 = C·target); else Gauss–Hermite."""
        if d == 0:
            return np.ones(()), []
        if d == 1 and k == 1:
            xk = np.array(sigma**2 * math.log(C * target) + 0.5)
            x, wx = _legendre_pieces(lo, xk, hi, legendre)
            wx = wx * np.exp(-x * x / (2 * sigma**2)) / (sigma * math.sqrt(2 * math.pi))
            return wx, [np.exp((x - 0.5) / sigma**2)[..., None]]
        xo = math.sqrt(2.0) * sigma * u
        wo = w / math.sqrt(math.pi)
        grids = np.meshgrid(*([xo] * d), indexing="ij")
        weights = np.ones_like(grids[0])
        for g in np.meshgrid(*([wo] * d), indexing="ij"):
            weights = weights * g
        return weights, [np.exp((g - 0.5) / sigma**2)[..., None] for g in grids]

    def e(j, zs, one):
        if j < 0:
            return 0.0 * one
        return _elementary(zs, j) if zs else (one if j == 0 else 0.0 * one)

    add, rem = [], []
    for eps_i in np.atleast_1d(eps):
        c = math.exp(eps_i)
        out = []
        for target in (c, 1.0 / c):
            weights, zo = outer(target)
            one = np.ones_like(weights)[..., None]
            # Y = a + b·Z_t, a = (e_k(Z'') + Z_{t−1}·e_{k−1}(Z''))/C, b with k − 1
            ek, ek1, ek2 = e(k, zo, one), e(k - 1, zo, one), e(k - 2, zo, one)
            # a(Z_{t−1}) = target (no kink when a does not depend on Z_{t−1})
            zk = np.divide(target * C - ek, ek1, out=np.full_like(ek, -1.0),
                           where=ek1 > 0)
            xk = sigma**2 * np.log(np.where(zk > 0, zk, 1e-300)) + 0.5
            x, wx = _legendre_pieces(lo, xk[..., 0], hi, legendre)
            wx = wx * np.exp(-x * x / (2 * sigma**2)) / (sigma * math.sqrt(2 * math.pi))
            z = np.exp((x - 0.5) / sigma**2)
            a = (ek + z * ek1) / C
            b = (ek1 + z * ek2) / C
            if target == c:
                val = b * _call((c - a) / b, s)
            else:
                val = c * b * _put((1.0 - c * a) / (c * b), s)
            out.append(float(np.sum(weights * np.sum(wx * val, axis=-1))))
        add.append(out[0])
        rem.append(out[1])
    return np.array(add), np.array(rem)


def truth_with_error(sigma, t, k, eps):
    """Exact (δ_add, δ_remove) and a quadrature error bound: ten times the change
    between two Gauss–Hermite orders (plus the Legendre part, checked separately)."""
    lo_order, hi_order = (40, 80) if t <= 3 else (60, 90)
    a1, r1 = exact_deltas(sigma, t, k, eps, lo_order, legendre=60)
    a2, r2 = exact_deltas(sigma, t, k, eps, hi_order, legendre=100)
    err = 10.0 * np.maximum(np.abs(a2 - a1), np.abs(r2 - r1)) + 1e-10
    return a2, r2, err


def _direction_bounds(f, eps):
    """(add upper, remove upper, add lower, remove lower) read from the lattices."""
    e = np.asarray(eps, dtype=float)
    up = [lat.delta_raw(e) + lat.slack + lat.readback for lat in f.pess]
    lo = [np.maximum(lat.delta_raw(e) - lat.slack - lat.readback, 0.0) for lat in f.opt]
    return up[0], up[1], lo[0], lo[1]


EPS = {1.0: np.array([0.0, 0.5, 1.0, 2.0]), 2.0: np.array([0.0, 0.25, 0.5, 1.0])}


# -- the quadrature against independent truths ------------------------------
@pytest.mark.parametrize("sigma", [1.0, 2.0])
@pytest.mark.slow
def test_quadrature_matches_mpmath_t2(sigma):
    add, rem = exact_deltas(sigma, 2, 1, EPS[sigma])
    for e, da, dr in zip(EPS[sigma], add, rem):
        ta, tr = _exact_t2(sigma, float(e))
        assert da == pytest.approx(ta, rel=1e-7, abs=1e-12)
        assert dr == pytest.approx(tr, rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("sigma,t", [(1.0, 2), (2.0, 3)])
def test_quadrature_matches_gaussian_when_k_equals_t(sigma, t):
    g = fdp.Gaussian(math.sqrt(t) / sigma)
    add, rem = exact_deltas(sigma, t, t, EPS[sigma], order=60)
    for e, da, dr in zip(EPS[sigma], add, rem):
        truth = float(g.delta(float(e)))
        assert da == pytest.approx(truth, rel=1e-9, abs=1e-13)
        assert dr == pytest.approx(truth, rel=1e-9, abs=1e-13)


# -- k = 1: the bracket brackets the truth, each direction --------------------
@pytest.mark.parametrize("sigma", [1.0, 2.0])
def test_k1_t3_bracket_contains_exact_each_direction(sigma):
    eps = EPS[sigma]
    add, rem, err = truth_with_error(sigma, 3, 1, eps)
    assert np.all(err < 1e-7)
    f = random_allocation(sigma, 3, 1)
    ua, ur, la, lr = _direction_bounds(f, eps)
    assert np.all(la - err <= add) and np.all(add <= ua + err), (la, add, ua)
    assert np.all(lr - err <= rem) and np.all(rem <= ur + err), (lr, rem, ur)


# -- k > 1: the reduction is an upper bound of the truth, each direction ------
@pytest.mark.parametrize("sigma", [1.0, 2.0])
@pytest.mark.parametrize("t", [3, 4])
@pytest.mark.slow
def test_k2_reduction_upper_bounds_exact_each_direction(sigma, t):
    eps = EPS[sigma]
    add, rem, err = truth_with_error(sigma, t, 2, eps)
    assert np.all(err < 1e-4), err
    f = random_allocation(sigma, t, 2)
    ua, ur, _, _ = _direction_bounds(f, eps)
    assert np.all(add + err <= ua), (add, ua)
    assert np.all(rem + err <= ur), (rem, ur)
    hi = np.asarray(f.delta(eps), dtype=float)
    assert np.all(np.maximum(add, rem) + err <= hi)


@pytest.mark.parametrize("sigma", [1.0, 2.0])
@pytest.mark.parametrize("t", [3, 4])
@pytest.mark.slow
def test_k2_lower_side_is_not_a_lower_bound_of_the_truth(sigma, t):
    """For k > 1 the bracket is that of the reduction: here the exact curve lies
    strictly BELOW its optimistic side (the reduction is loose), so that side must
    never be read as a lower bound of the true allocation's privacy loss."""
    eps = EPS[sigma]
    add, rem, err = truth_with_error(sigma, t, 2, eps)
    f = random_allocation(sigma, t, 2)
    _, _, la, lr = _direction_bounds(f, eps)
    assert np.all(add + err < la) and np.all(rem + err < lr)
    assert "reduction" in repr(f)
    assert "reduction" not in repr(random_allocation(sigma, t, 1))
