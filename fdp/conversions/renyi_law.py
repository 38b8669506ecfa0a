"""A finite pair above a Rényi conversion: the optimistic side of its compositions.

A curve f from ``fdp.from_rdp`` / ``fdp.from_zcdp`` is known through a certified
bracket L_i ≤ f(α_i) ≤ U_i on a fixed grid 0 = α_0 < … < α_N = 1 (the grid its
privacy profile is read from). The composition engine needs two lattices of f
(``fdp.engine.discretise``):

Pessimistic (less private than f). The chord interpolation in e^ε of the
certified upper δ(kΔ) at the grid points (``fdp.engine.from_profile``): δ_up is
≥ the true δ, convex in e^ε (the curve's ``_delta`` is the lower convex hull of
its bounds; the engine raises any rounding kink), so its chords lie above it;
a lattice whose δ is ≥ the true δ at every ε is a pair whose likelihood ratio
dominates in the increasing convex order, which tensor products preserve.

Optimistic (more private than f), built here. f_hi = the lower convex hull of the
points (α_i, U_i), with U_0 = an upper value of f(0) and U_N = 0 at α = 1. f is
convex and below every point, so it is below the largest convex function below
the points: f ≤ f_hi. (Equally: any polygon through a subset of points on or
above a convex f, ends included, is made of chords of points above f, so it is
above f; this is why a vertex that rounding drops from the hull, or that the
merging below removes, keeps f ≤ f_hi.) f_hi is convex, non-increasing (it ends
at its minimum 0) and ≤ 1 − α (U_i ≤ 1 − α_i up to one ulp), so it is the
trade-off function of a finite pair (DRS 2022, §2): segment k of the polygon is
an atom with P-mass its width p_k, Q-mass its drop q_k and loss log(q_k/p_k); the
jump 1 − f_hi(0) is the Q-atom at L = +∞, the width where f_hi is 0 the P-atom at
L = −∞. The tensor product is monotone in each factor (f ≤ f' pointwise gives
f ⊗ g ≤ f' ⊗ g: a test of the product pair is a randomised post-processing of
the first factor; DRS 2022, §3.1), so f ⊗ g ≤ f_hi ⊗ g for every g, and the
engine's optimistic lattice of f_hi ⊗ g is above that.

Round-off. The pair's own curve is the Neyman–Pearson curve of its atoms: the
segments sorted by likelihood ratio, cumulated. Widths are rounded up and drops
down (one ulp: each difference of two doubles is exact to half an ulp), which
moves every vertex right and up, raising the curve; segments that the rounding
puts out of likelihood-ratio order are merged (pool adjacent violators), which
drops a vertex (a chord again), so the sorted curve is the polygon itself.
"""

from __future__ import annotations

import numpy as np

from fdp._types import ArrayLike, FloatArray
from fdp.families.piecewise import lower_convex_hull
from fdp.law import AtomsLaw

_U = 2.0 ** -53


def upper_polygon(alpha: ArrayLike, up: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Vertices of the lower convex hull of (α_i, U_i): above every convex f with
    f(α_i) ≤ U_i (module docstring)."""
    a = np.asarray(alpha, dtype=float)
    u = np.clip(np.asarray(up, dtype=float), 0.0, 1.0)
    return lower_convex_hull(a, u)


def polygon_law(xs: FloatArray, ys: FloatArray) -> AtomsLaw:
    """The finite pair whose curve is the convex polygon through (xs, ys) (sorted in
    x from x = 0, non-increasing in y), rounded so that the pair's curve is above
    the polygon: widths up, drops down, segments that rounding puts out of
    likelihood-ratio order merged (module docstring)."""
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
    f(α_i) ≤ U_i (``alpha`` sorted from 0 to 1; module docstring).

    Parameters
    ----------
    alpha : ndarray
        Sorted grid in [0, 1] with both ends.
    up : ndarray
        Certified upper values of f on the grid.

    Returns
    -------
    AtomsLaw
        Finite losses, with the atoms Q(L = +∞) = 1 − U_0 and P(L = −∞) at the
        end where the hull reaches 0.
    """
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
