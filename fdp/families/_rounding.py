"""Outward rounding of closed forms: the bracket [lo, hi] of a computed value.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

import numpy as np

from fdp._constants import ERROR_SAFETY, TINY, UNIT_ROUNDOFF
from fdp._types import ArrayLike

_U = UNIT_ROUNDOFF

#: A (lower, upper) pair of float arrays, the shape every bracket helper returns.
ArrayPair = tuple[np.ndarray, np.ndarray]


def widen(v: ArrayLike, rel: ArrayLike, abs_: ArrayLike = 0.0, *, low: ArrayLike = 0.0,
          high: ArrayLike = np.inf) -> ArrayPair:
    """(lo, hi) containing every t with |v − t| ≤ rel·|v| + abs_ (bounds ≥ 0, inf: none),
    clipped to the [low, high] the true value is known to lie in."""
    v = np.asarray(v, dtype=float)
    rel_e = ERROR_SAFETY * np.asarray(rel, dtype=float) + 4.0 * _U
    with np.errstate(invalid="ignore", over="ignore"):
        slack = rel_e * np.abs(v) + ERROR_SAFETY * np.asarray(abs_, dtype=float)
        slack = np.where(np.isnan(slack), np.inf, slack)
        # a zero slack (v = 0 with no absolute error) is an exact value: kept
        lo = np.where(slack > 0.0, np.nextafter(v - slack, -np.inf), v)
        hi = np.where(slack > 0.0, np.nextafter(v + slack, np.inf), v)
    return np.clip(lo, low, high), np.clip(hi, low, high)


def exp_bracket(log_v: ArrayLike, err: ArrayLike, *, positive: bool = True) -> ArrayPair:
    """(lo, hi), lo ≥ 0, containing t when |log v − log t| ≤ err (log_v = −inf: t = 0; err =
    inf: nothing known). Where ``positive`` (t > 0 known), an upper end that underflows is
    the smallest positive double instead of 0."""
    lv = np.asarray(log_v, dtype=float)
    e = ERROR_SAFETY * np.asarray(err, dtype=float) + 4.0 * _U * (1.0 + np.abs(np.where(
        np.isfinite(lv), lv, 0.0)))
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        up = np.where(np.isneginf(lv), -np.inf, lv + e)
        dn = np.where(np.isneginf(lv), -np.inf, lv - e)
        hi = np.nextafter(np.exp(up) * (1.0 + 2.0 * _U), np.inf)
        lo = np.nextafter(np.exp(dn) * (1.0 - 2.0 * _U), -np.inf)
    lo = np.where(np.isnan(lo), 0.0, np.maximum(lo, 0.0))
    hi = np.where(np.isnan(hi), np.inf, hi)
    pos = np.asarray(positive, dtype=bool) & ~np.isneginf(lv)
    # exp of a subnormal result errs by up to half a subnormal ulp: one TINY more
    hi = np.where(hi < 2.2250738585072014e-308, hi + TINY, hi)
    hi = np.where(pos, np.maximum(hi, TINY), hi)
    return lo, hi


def one_minus(a: ArrayLike) -> ArrayPair:
    """1 − a as (lo, hi), adjacent doubles or equal when 1 − a is a double (|a| ≤ 1).

    Fast2Sum (Dekker 1971): with s = fl(1 − a), z = fl(s − 1) and e = fl(−a − z),
    1 − a = s + e exactly (|1| ≥ |a|).
    """
    a = np.asarray(a, dtype=float)
    s = 1.0 - a
    e = -a - (s - 1.0)
    lo = np.where(e < 0.0, np.nextafter(s, -np.inf), s)
    hi = np.where(e > 0.0, np.nextafter(s, np.inf), s)
    return lo, hi
