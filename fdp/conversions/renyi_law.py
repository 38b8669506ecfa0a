"""Two finite pairs that sandwich a Rényi conversion, for the composition engine.

A curve from ``fdp.from_rdp`` / ``fdp.from_zcdp`` is known through a certified
bracket L_i ≤ f(α_i) ≤ U_i on a fixed grid 0 = α_0 < … < α_N = 1 (the grid the
privacy profile is read from). From it, two piecewise-linear trade-off functions

    f_lo ≤ f ≤ f_hi

are built; each is the trade-off function of a finite pair (P', Q') (DRS 2022,
§2: the segment k of a convex piecewise-linear curve is an atom with P-mass its
width p_k, Q-mass its drop q_k and loss log(q_k/p_k); the jump 1 − f(0) is the
Q-atom at L = +∞, the width where the curve is 0 the P-atom at L = −∞).

Why the sides are safe. The tensor product is monotone: f_lo ≤ f gives
f_lo ⊗ g ≤ f ⊗ g and f ≤ f_hi gives f ⊗ g ≤ f_hi ⊗ g, for any g (T(P × P₂,
Q × Q₂) is a post-processing-monotone functional of the first factor's trade-off
function; DRS 2022, Lemma C.2 / Prop. D.1). The engine's pessimistic lattice of
the pair of f_lo is less private than f_lo, the optimistic lattice of the pair of
f_hi more private than f_hi (``fdp.engine.discretise``), so the composed bracket
contains f ⊗ g.

f_lo (the pessimistic pair). f is convex and non-increasing, so on a cell
[α_i, α_{i+1}] it lies above two lines: the line through (α_i, L_i) with slope
s_i = (L_i − U_{i−1})/(α_i − α_{i−1}) (a lower bound on the right derivative at
α_i: the chord slope from the left is at most it, and L_i ≤ f(α_i), U_{i−1} ≥
f(α_{i−1})), valid to the right of α_i, and the line through (α_{i+1}, L_{i+1})
with slope c_{i+1} = (U_{i+2} − L_{i+1})/(α_{i+2} − α_{i+1}) (an upper bound on
the left derivative at α_{i+1}; 0 at the last point), valid to its left. The
polygon through (α_i, L_i), (x_i, y_i), (α_{i+1}, L_{i+1}), with x_i where the
lines cross and y_i the smaller of the two lines at x_i less its rounding margin,
is below each line on its side, hence below f. Slopes are rounded outward,
vertices lowered to a running minimum (lower vertices give a lower polygon).
The pair built from the polygon's segments has the likelihood-ratio-sorted
(Neyman–Pearson) curve, which is at most the polygon whatever the order of its
segments, so f_lo ≤ f holds even where rounding bends the polygon.

f_hi (the optimistic pair). The lower convex hull of the points (α_i, U_i): any
polygon through a subset of points on or above a convex f (ends included) is
above f, being made of chords; the hull is convex, so its segments are already
sorted by likelihood ratio (adjacent segments that rounding puts out of order
are merged, which drops a vertex: still a chord).

Round-off. Widths are rounded down and drops up on the pessimistic pair (every
vertex of its curve moves left and down: a lower curve), the other way on the
optimistic pair.
"""

from __future__ import annotations

import numpy as np

from fdp.families.piecewise import lower_convex_hull
from fdp.law import AtomsLaw

_U = 2.0 ** -53


def lower_polygon(alpha, low, up):
    """Vertices (x, y) of a polygon below every convex non-increasing f with
    ``low ≤ f(alpha) ≤ up`` (module docstring); ``alpha`` sorted, from 0 to 1."""
    a, lo, hi = (np.asarray(v, dtype=float) for v in (alpha, low, up))
    n = a.size
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # s_i: lower bound on f'(α_i+), i = 1..n−1 (none at α_0: a vertical drop)
        s = np.full(n, -np.inf)
        s[1:] = (lo[1:] - hi[:-1]) / (a[1:] - a[:-1])
        s = np.minimum(s, 0.0) * (1.0 + 4 * _U)
        # c_i: upper bound on f'(α_i−), i = 1..n−1 (0 at the last point)
        c = np.zeros(n)
        c[1:-1] = (hi[2:] - lo[1:-1]) / (a[2:] - a[1:-1])
        c = np.minimum(c, 0.0) * (1.0 - 4 * _U)
        ai, an, li, ln = a[:-1], a[1:], lo[:-1], lo[1:]
        si, cn = s[:-1], c[1:]
        x = (ln - li + si * ai - cn * an) / (si - cn)
        x = np.where(np.isfinite(x), np.clip(x, ai, an), ai)
        first = np.isinf(si)
        l1 = np.where(first, np.inf, li + si * (x - ai))
        l2 = ln + cn * (x - an)
        y = np.minimum(l1, l2)
        margin = 8 * _U * (1.0 + np.where(first, 0.0, -si * (x - ai)) - cn * (an - x))
        y = np.where(first, ln, y - margin)
    xs = np.empty(2 * n - 1)
    ys = np.empty(2 * n - 1)
    xs[0::2], ys[0::2] = a, lo
    xs[1::2], ys[1::2] = x, y
    ys = np.minimum.accumulate(np.clip(ys, 0.0, 1.0))
    return xs, ys


def upper_polygon(alpha, up):
    """Vertices of the lower convex hull of (α_i, U_i): above every convex f with
    f(α_i) ≤ U_i (module docstring)."""
    a = np.asarray(alpha, dtype=float)
    u = np.clip(np.asarray(up, dtype=float), 0.0, 1.0)
    return lower_convex_hull(a, u)


def polygon_law(xs, ys, side: str) -> AtomsLaw:
    """The finite pair whose curve is the polygon through (xs, ys) (sorted in x,
    non-increasing in y, from x = 0), widths and drops rounded to ``side``
    ("pessimistic": the curve of the pair is below the polygon; "optimistic":
    above it, after merging segments out of likelihood-ratio order)."""
    down = side == "pessimistic"
    p = np.diff(xs)
    q = -np.diff(ys)
    p = np.where(p > 0.0, np.nextafter(p, 0.0 if down else 2.0), 0.0)
    q = np.where(q > 0.0, np.nextafter(q, 2.0 if down else 0.0), 0.0)
    top = 1.0 - float(ys[0])
    q_inf = float(np.nextafter(top, 2.0 if down else 0.0)) if top > 0.0 else 0.0
    keep = (p > 0.0) | (q > 0.0)
    p, q = p[keep], q[keep]
    if not down:
        p, q = _merge_unsorted(p, q)
    with np.errstate(divide="ignore"):
        L = np.log(q) - np.log(p)
    p_neginf = max(0.0, 1.0 - float(np.sum(p)))
    q_inf = max(q_inf, 0.0)
    L = np.concatenate([L, [np.inf, -np.inf]])
    p = np.concatenate([p, [0.0, p_neginf]])
    q = np.concatenate([q, [q_inf, 0.0]])
    live = (p > 0.0) | (q > 0.0)
    return AtomsLaw(L[live], p[live], q[live])


def _merge_unsorted(p, q):
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


def sandwich_laws(alpha, low, up) -> tuple[AtomsLaw, AtomsLaw]:
    """(pessimistic, optimistic) finite laws from a bracket on a grid (module docstring)."""
    xl, yl = lower_polygon(alpha, low, up)
    xu, yu = upper_polygon(alpha, up)
    return polygon_law(xl, yl, "pessimistic"), polygon_law(xu, yu, "optimistic")
