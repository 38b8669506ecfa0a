"""Certified Rényi divergences of closed-form laws: doubles with a rounding bound, and
interval arithmetic where that bound is loose. Derivation: docs/derivations/laws.md."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from fdp._constants import UNIT_ROUNDOFF
from fdp._lazy import LazyModule
from fdp._types import FloatArray

# loaded on first use: `import fdp` stays light
libmp = LazyModule("mpmath.libmp")
ctx_iv = LazyModule("mpmath.ctx_iv")

#: Rounding allowance of a sum of library results (each within 64 ulps).
PAD = 128.0 * UNIT_ROUNDOFF
#: Largest relative rounding bound accepted from the double evaluation; above it the
#: order is evaluated in interval arithmetic.
FLOAT_RTOL = 1e-11

_TINY = float(np.nextafter(0.0, 1.0))

#: (ρ rounded up, its relative rounding bound) at every order, for a parameter.
FloatForm = Callable[[float, FloatArray], tuple[FloatArray, FloatArray]]
#: ρ at one order as an interval of the given mpmath interval context.
IntervalForm = Callable[[float, float, Any], Any]


def certified_renyi(param: float, orders: FloatArray, in_doubles: FloatForm,
                    in_intervals: IntervalForm) -> FloatArray:
    """Upper bounds ρ(λ) ≥ D_λ at orders λ > 1 of a family with parameter ``param``:
    ``in_doubles`` (the closed form with its rounding bound) where that bound is within
    ``FLOAT_RTOL``, the upper end of ``in_intervals`` (interval arithmetic) elsewhere.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law.renyi import certified_renyi
    >>> def doubles(m, o):
    ...     return o * m * m / 2 * (1 + 2 ** -50), np.zeros(o.shape)
    >>> float(certified_renyi(1.0, np.array([2.0]), doubles, None)[0]) >= 1.0
    True
    """
    o = np.asarray(orders, dtype=float).ravel()
    rho, rel = in_doubles(param, o)
    redo = [i for i in range(o.size) if not rel[i] <= FLOAT_RTOL]
    if not redo:
        return rho
    out = rho.copy()
    out[redo] = _interval_upper(in_intervals, param, tuple(float(o[i]) for i in redo))
    return out


@functools.lru_cache(maxsize=256)
def _interval_upper(in_intervals: IntervalForm, param: float,
                    orders: tuple[float, ...]) -> tuple[float, ...]:
    """Upper ends of the interval ρ(λ) at each order, raised in precision until the
    interval is within 1e-15 relative (or 4096 bits)."""
    ctx = ctx_iv.MPIntervalContext()
    out = []
    for lam in orders:
        prec = 128
        while True:
            ctx.prec = prec
            r = in_intervals(param, lam, ctx)
            lo_m, hi_m = r._mpi_
            hi = libmp.to_float(hi_m, rnd=libmp.round_ceiling)
            if hi == 0.0 and libmp.mpf_sign(hi_m) > 0:
                hi = _TINY                 # below the smallest double, not 0
            lo = libmp.to_float(lo_m, rnd=libmp.round_floor)
            if hi - lo <= 1e-15 * abs(hi) or prec >= 4096 or not np.isfinite(hi):
                break
            prec *= 2
        out.append(max(hi, 0.0))            # D_λ ≥ 0
    return tuple(out)


def log_sum_two(w1: FloatArray, e1: FloatArray, w2: FloatArray, e2: FloatArray,
                t1: FloatArray, t2: FloatArray, mag: FloatArray,
                near_on: np.ndarray, lam1: FloatArray) -> tuple[FloatArray, FloatArray]:
    """ρ = log A/(λ − 1) rounded up, with A = w1 e^{a1} + w2 e^{a2} given two ways:
    near (``near_on``) as 1 + s, s = w1·expm1(a1) + w2·expm1(a2) (``e1``, ``e2`` the
    expm1 values; weights summing to 1), which keeps relative accuracy as A → 1; far as
    the log-sum-exp of the logs ``t1``, ``t2`` of the two terms, whose pieces have total
    magnitude ``mag``. Returns (ρ, relative rounding bound)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        s = w1 * e1 + w2 * e2
        err = PAD * (np.abs(w1 * e1) + np.abs(w2 * e2))
        near = np.log1p(s + err) * (1.0 + PAD)
        near_rel = np.where(s > 0, (err + PAD * np.abs(s)) / np.abs(s), np.inf)
        far0 = np.logaddexp(t1, t2)
        pad = PAD * (mag + np.abs(far0))
        far = far0 + pad
        far_rel = np.where(far0 > 0, pad / np.abs(far0), np.inf)
        log_a = np.where(near_on, near, far)
        rel = np.where(near_on, near_rel, far_rel)
        rho = np.maximum(log_a, 0.0) / lam1 * (1.0 + 4.0 * UNIT_ROUNDOFF)
    rho = np.where(np.isnan(rho), np.inf, rho)
    return rho, np.where(np.isnan(rel), np.inf, rel)


__all__ = ["FLOAT_RTOL", "PAD", "certified_renyi", "log_sum_two"]
