"""The package's one home for generic numerics on trade-off functions.

Derivation: docs/derivations/core.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import expit

from fdp import _validate
from fdp._constants import (
    DELTA_RESOLUTION,
    EPS_CAP,
    EPS_SEARCH,
    GOLDEN,
    LOGIT_SEARCH,
    SYMMETRY_TOL,
)
from fdp._types import ArrayLike, FloatArray

#: A vectorised function of a float array (β(α), δ(ε), an objective ...).
ArrayFn = Callable[[FloatArray], FloatArray]
#: A vectorised monotone predicate (False below a threshold, True above).
Predicate = Callable[[np.ndarray], ArrayLike]

_GOLDEN = GOLDEN


def alpha_grid(n: int = 2001) -> FloatArray:
    """α grid: uniform on [0, 1] plus log-spaced points near both ends."""
    tail = np.logspace(-300, -2, 300)
    return np.unique(np.concatenate([[0.0, 1.0], np.linspace(0, 1, n), tail, 1.0 - tail]))


def golden_max(fun: ArrayFn, lo: ArrayLike, hi: ArrayLike, iters: int = 100) -> FloatArray:
    """Vectorised golden-section search for the argmax of unimodal functions on [lo, hi].

    ``fun(x)`` maps an array shaped like ``lo`` to the objective of each entry.
    """
    a, b = np.array(lo, dtype=float), np.array(hi, dtype=float)
    c = b - _GOLDEN * (b - a)
    d = a + _GOLDEN * (b - a)
    fc, fd = fun(c), fun(d)
    for _ in range(iters):
        left = fc >= fd
        b = np.where(left, d, b)
        a = np.where(left, a, c)
        new = np.where(left, b - _GOLDEN * (b - a), a + _GOLDEN * (b - a))
        fnew = fun(new)
        d, fd, c, fc = (np.where(left, c, new), np.where(left, fc, fnew),
                        np.where(left, new, d), np.where(left, fnew, fd))
        if np.all(b - a <= 1e-15 * np.maximum(1.0, np.abs(a))):
            break
    return np.where(fc >= fd, c, d)


def bisect_monotone(passes: Predicate, lo: ArrayLike, hi: ArrayLike, *, rtol: float = 4e-16,
                    atol: float = 0.0, max_iter: int = 2200, bits: bool = False,
                    integer: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised bisection for monotone predicates; the package's one root finder.

    Returns ``(lo, hi)``: the last failing and the last passing points.

    Derivation: docs/derivations/core.md.

    Parameters
    ----------
    passes : callable
        Monotone predicate on float arrays (False below the threshold, True above).
    lo, hi : float or array_like
        Bracket ends (broadcast together); ``passes(lo)`` False, ``passes(hi)`` True.
    rtol, atol : float, optional
        Stop when hi − lo ≤ max(atol, rtol·|hi|).
    max_iter : int, optional
        Safety cap on the number of steps (also a deliberate budget: a bracket
        returned early is still valid, and can be refined by calling again).
    bits : bool, optional
        Bisect the bit patterns of NON-NEGATIVE doubles instead (the midpoint of the
        int64 views): 64 steps reach adjacent doubles from any bracket in [0, inf].
    integer : bool, optional
        Bisect over the integers instead (``_bisect_integer``): midpoints
        ⌊(lo + hi)/2⌋, stop when hi − lo ≤ 1; rtol and atol are ignored.
    """
    if integer:
        return _bisect_integer(passes, lo, hi, max_iter)
    low, high = np.broadcast_arrays(np.array(lo, dtype=float), np.array(hi, dtype=float))
    low, high = low.copy(), high.copy()
    for _ in range(max_iter):
        width = high - low
        active = width > (np.maximum(atol, rtol * np.abs(high)) if rtol else atol)
        if bits:
            a, b = low.view(np.int64), high.view(np.int64)
            mid = (a + (b - a) // 2).view(np.float64)
        else:
            geo = (low > 0) & (high > 4.0 * low)
            with np.errstate(over="ignore", invalid="ignore"):
                mid = np.where(geo, np.sqrt(low) * np.sqrt(high), low + 0.5 * width)
        active &= (mid > low) & (mid < high)
        if not active.any():
            break
        ok = np.asarray(passes(np.where(active, mid, high)), dtype=bool).reshape(high.shape)
        high = np.where(active & ok, mid, high)
        low = np.where(active & ~ok, mid, low)
    return low, high


def search_grid(lo: float, hi: float) -> FloatArray:
    """A grid on [lo, hi]: 0.05 apart on [−40, 40], coarser (≈3.5 apart) outside."""
    core = np.linspace(max(lo, -40.0), min(hi, 40.0), 1601)
    left = np.linspace(lo, -40.0, 200) if lo < -40 else np.empty(0)
    right = np.linspace(40.0, hi, 200) if hi > 40 else np.empty(0)
    return np.unique(np.concatenate([left, core, right]))


def maximise_unimodal(row_fn: ArrayFn, grid: FloatArray, grid_values: FloatArray) -> FloatArray:
    """Row-wise maximum of unimodal objectives: best grid point, then golden refinement.

    Derivation: docs/derivations/core.md.
    """
    rows = np.arange(grid_values.shape[0])
    j = np.argmax(grid_values, axis=1)
    lo = grid[np.maximum(j - 1, 0)]
    hi = grid[np.minimum(j + 1, grid.size - 1)]
    x = golden_max(row_fn, lo, hi, iters=80)
    return np.maximum(grid_values[rows, j], row_fn(x))


_LOGIT_GRID = search_grid(*LOGIT_SEARCH)
_CHUNK = 4096


def conjugate_delta(beta: ArrayFn, eps: ArrayLike, *, reflected: bool = False,
                    bound: str | None = None) -> FloatArray:
    """δ(ε) = sup_{α∈[0,1]} (1 − β(α) − e^ε α) for a convex β, vectorised in ε.

    Derivation: docs/derivations/core.md.
    """
    eps = np.asarray(eps, dtype=float)
    flat = eps.ravel()
    y = np.exp(np.minimum(flat, EPS_SEARCH))
    u = _LOGIT_GRID
    if reflected:
        def gain(uu: FloatArray) -> FloatArray:
            return expit(-uu)

        def cost(uu: FloatArray) -> FloatArray:
            return beta(expit(uu))
        b0, b1 = float(beta(np.array([0.0]))[0]), float(beta(np.array([1.0]))[0])
        at0 = 1.0 - y * b0                       # x = 0
        at1 = np.where(np.isinf(y), -np.inf, -y * b1)  # x = 1
        limit = 1.0 - _first_zero(beta)          # ε → ∞: 1 − min{x : β(x) = 0}
    else:
        def gain(uu: FloatArray) -> FloatArray:
            return 1.0 - beta(expit(uu))

        def cost(uu: FloatArray) -> FloatArray:
            return expit(uu)
        at0 = np.full(flat.shape, 1.0 - float(beta(np.array([0.0]))[0]))
        at1 = np.where(np.isinf(y), -np.inf, 1.0 - y)
        limit = at0[0] if at0.size else 0.0
    grid_gain, grid_cost = gain(u), cost(u)
    best = np.empty(flat.shape)
    for s in range(0, flat.size, _CHUNK):
        yc = y[s:s + _CHUNK]
        values = grid_gain[None, :] - yc[:, None] * grid_cost[None, :]

        def row(uu: FloatArray, yc: FloatArray = yc) -> FloatArray:
            return gain(uu) - yc * cost(uu)
        best[s:s + _CHUNK] = maximise_unimodal(row, u, values)
    out = np.maximum(np.maximum(best, at0), at1)
    out = np.where(flat == np.inf, limit, out)
    out = np.where(flat == -np.inf, 1.0, out)
    if bound is not None:
        out = out + (DELTA_RESOLUTION if bound == "upper" else -DELTA_RESOLUTION)
    return np.clip(out, 0.0, 1.0).reshape(eps.shape)


def _first_zero(beta: ArrayFn) -> float:
    """min{x ∈ [0, 1] : β(x) = 0} (β is non-increasing); returns the passing end."""
    if float(beta(np.array([0.0]))[0]) <= 0.0:
        return 0.0
    _, hi = bisect_monotone(lambda x: beta(x) <= 0.0, 0.0, 1.0, rtol=0.0, atol=1e-24)
    return float(hi)


def _log(x: ArrayLike) -> FloatArray:
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(x, dtype=float))


def epsilon_for_delta(delta_fn: ArrayFn, delta: ArrayLike, *, log: bool = False,
                      log_delta_fn: ArrayFn | None = None, lower: bool = False) -> FloatArray:
    """Smallest ε ≥ 0 with δ(ε) ≤ delta, for a non-increasing δ(·).

    Derivation: docs/derivations/core.md.
    """
    d = np.asarray(delta, dtype=float)
    flat = d.ravel()
    out = np.zeros(flat.shape)
    lin_fn = None
    if log:
        lfn = delta_fn
    elif log_delta_fn is not None:
        lfn, lin_fn = log_delta_fn, delta_fn
    else:
        def lfn(e: FloatArray) -> FloatArray:
            return _log(delta_fn(e))
    target = _log(flat)
    at0 = lfn(np.zeros(1))[0]
    todo = target < at0
    limit = lfn(np.array([np.inf]))[0]
    out[todo & (target < limit)] = np.inf
    todo &= target >= limit
    if todo.any():
        t = target[todo]
        lo = np.zeros(t.shape)
        hi = np.ones(t.shape)
        over = lfn(hi) > t
        while over.any() and hi.max() < EPS_CAP:
            lo = np.where(over, hi, lo)
            hi = np.where(over, 2.0 * hi, hi)
            over = lfn(hi) > t
        lin = flat[todo]

        def meets(e: FloatArray) -> np.ndarray:
            ok = lfn(e) <= t
            if lin_fn is not None:      # and δ ≤ delta as a user will check it
                ok &= lin_fn(e) <= lin
            return ok
        over |= ~meets(hi)
        failed, hi = bisect_monotone(meets, lo, hi)
        if lower:
            out[todo] = np.where(over, np.inf, failed)
        else:
            out[todo] = np.where(over, np.inf, hi)
    return out.reshape(d.shape)


def _bisect_integer(passes: Predicate, lo: ArrayLike, hi: ArrayLike,
                    max_iter: int) -> tuple[np.ndarray, np.ndarray]:
    """``bisect_monotone(..., integer=True)``: the same invariant over int64 arrays
    (``hi`` passed or is the initial ``hi``, ``lo`` failed or is the initial ``lo``),
    closed to adjacent integers, hi − lo ≤ 1."""
    low, high = np.broadcast_arrays(np.array(lo, dtype=np.int64), np.array(hi, dtype=np.int64))
    low, high = low.copy(), high.copy()
    for _ in range(max_iter):
        active = high - low > 1
        if not active.any():
            break
        mid = (low + high) // 2
        ok = np.asarray(passes(np.where(active, mid, high)), dtype=bool).reshape(high.shape)
        high = np.where(active & ok, mid, high)
        low = np.where(active & ~ok, mid, low)
    return low, high


def is_symmetric(f: Any, tol: float = SYMMETRY_TOL) -> bool:
    """True when f = f⁻¹: known (``f.symmetric``) or within absolute ``tol`` on β at
    ``alpha_grid(401)``; then f also bounds T(Q, P) (DRS Lemma A.2, Prop 2.4).

    Examples
    --------
    >>> import fdp
    >>> from fdp.tradeoff import is_symmetric
    >>> add = fdp.Gaussian(1.0).subsample(0.5, direction="add")
    >>> is_symmetric(fdp.Gaussian(1.0)), is_symmetric(add)
    (True, False)
    """
    if f.symmetric:
        return True
    tol = _validate.real("tol", tol, low=0.0)
    a = alpha_grid(401)
    return bool(np.max(np.abs(f(a) - f.inverse()(a))) <= tol)
