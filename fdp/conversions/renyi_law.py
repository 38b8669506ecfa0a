"""A finite pair above a Rényi conversion: the optimistic side of its compositions.

The derivation: docs/derivations/renyi-conversion.md.
"""

from __future__ import annotations

import numpy as np

from fdp._types import ArrayLike, FloatArray
from fdp.families.piecewise import lower_convex_hull
from fdp.law import AtomsLaw

_U = 2.0 ** -53


def upper_polygon(alpha: ArrayLike, up: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Vertices of the lower convex hull of (α_i, U_i): above every convex f with
    f(α_i) ≤ U_i (docs/derivations/renyi-conversion.md)."""
    a = np.asarray(alpha, dtype=float)
    u = np.clip(np.asarray(up, dtype=float), 0.0, 1.0)
    return lower_convex_hull(a, u)


def polygon_law(xs: FloatArray, ys: FloatArray) -> AtomsLaw:
    """The finite pair whose curve is the convex polygon through (xs, ys) (sorted in
    x from x = 0, non-increasing in y), rounded so that the pair's curve is above
    the polygon: widths up, drops down, segments that rounding puts out of
    likelihood-ratio order merged (docs/derivations/renyi-conversion.md)."""
    p = np.diff(xs)
    q = -np.diff(ys)
    p = np.where(p > 0.0, np.nextafter(p, 2.0), 0.0)
    q = np.where(q > 0.0, np.nextafter(q, 0.0), 0.0)
    top = 1.0 - float(ys[0])
    q_inf = float(np.nextafter(top, 0.0)) if top > 0.0 else 0.0
    keep = (p > 0.0) | (q > 0.0)
    p, q = _merge_unsorted(p[keep], q[keep])
    with np.errstate(divide="ignore"):
        L = np.log(q) - np.log(p)
    p_neginf = max(0.0, 1.0 - float(np.sum(p)))
    L = np.concatenate([L, [np.inf, -np.inf]])
    p = np.concatenate([p, [0.0, p_neginf]])
    q = np.concatenate([q, [q_inf, 0.0]])
    live = (p > 0.0) | (q > 0.0)
    return AtomsLaw(L[live], p[live], q[live])


def upper_law(alpha: ArrayLike, up: ArrayLike) -> AtomsLaw:
    """The law of a finite pair whose trade-off function is ≥ every convex f with
    f(α_i) ≤ U_i (``alpha`` sorted from 0 to 1 with both ends, ``up`` certified upper
    values; docs/derivations/renyi-conversion.md): finite losses, with the atoms
    Q(L = +∞) = 1 − U_0 and P(L = −∞) at the end where the hull reaches 0."""
    return polygon_law(*upper_polygon(alpha, up))


def _merge_unsorted(p: FloatArray, q: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Pool adjacent segments until q/p is non-increasing (pool adjacent violators)."""
    ps: list[float] = []
    qs: list[float] = []
    for pk, qk in zip(p.tolist(), q.tolist()):
        ps.append(pk)
        qs.append(qk)
        # q_{-2}/p_{-2} < q_{-1}/p_{-1}: out of order, merge
        while len(ps) >= 2 and qs[-2] * ps[-1] < qs[-1] * ps[-2]:
            pk, qk = ps.pop(), qs.pop()
            ps[-1] = float(np.nextafter(ps[-1] + pk, 2.0))
            qs[-1] = float(np.nextafter(qs[-1] + qk, 0.0))
    return np.array(ps), np.array(qs)
