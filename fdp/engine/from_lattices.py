"""Lattices built from other lattices: a composed result regridded, and maxima.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fdp._constants import ENVELOPE_SWITCH, EXP_SAFE
from fdp.engine.connect_dots import grid_range, spread
from fdp.engine.contraction import contract_masses
from fdp.engine.lattice import OPTIMISTIC, PESSIMISTIC, Lattice, check_size, p_masses


def regrid(lat: Lattice, step: float) -> Lattice:
    """``lat`` (a composed result used as a factor) on the grid of step ``step``.
    Derivation: docs/derivations/engine.md."""
    if lat.step == step:
        return lat
    L = lat.losses
    q = lat.q
    p = p_masses(q, L)
    kmin, kmax = grid_range((L[0], L[-1]), step)
    edges = np.arange(kmin, kmax + 1) * step
    idx = np.searchsorted(edges, L, side="right")
    kappa = np.bincount(idx, weights=q, minlength=edges.size + 1)
    pi = np.bincount(idx, weights=p, minlength=edges.size + 1)
    if lat.side == PESSIMISTIC:
        out = spread(kappa, pi, lat.q_inf, kmin, step)
    else:
        out = contract_masses(kappa, pi, lat.q_inf, kmin, step)
    return Lattice(step, out.k0, out.q, out.q_inf, lat.slack, lat.side)


# member changes below SWITCH are paid for in the slack (``fdp._constants``)
SWITCH = ENVELOPE_SWITCH


def max_of_lattices(lats: Sequence[Lattice], step: float) -> Lattice:
    """One lattice whose δ bounds M = max_i δ_i from the lattices' side.
    Derivation: docs/derivations/engine.md."""
    side = lats[0].side
    # chords in x = e^ε, so only |ε| ≤ EXP_SAFE (docs/derivations/engine.md)
    cap = math.floor(EXP_SAFE / step)
    kmin = max(min(lat.k0 for lat in lats), -cap)
    kmax = min(max(lat.k0 + lat.q.size for lat in lats) + 1, cap)
    kmin = min(kmin, kmax - 1)
    check_size(kmax - kmin + 1, "envelope lattice")
    k = np.arange(kmin, kmax + 1)
    D = np.array([lat.delta_grid(k) for lat in lats])
    masses = np.array([lat.mass for lat in lats])
    x = np.exp(k * step)
    v = D.max(axis=0)
    mass = float(masses.max())
    slack = max(lat.slack for lat in lats)
    if side == OPTIMISTIC:
        j = np.argmax(D, axis=0)
        cols = np.arange(1, k.size)
        excess = v[1:] - D[j[:-1], cols]
        big = excess > SWITCH
        # where the largest member changes by more than round-off, follow the left
        # member's line to the right end of the cell instead of taking the chord
        v[1:] = np.where(big, D[j[:-1], cols], v[1:])
        first = v[0] - D[int(np.argmax(masses)), 0]
        slack += max(float(excess[~big].max(initial=0.0)), float(first), 0.0)
    s = np.empty(k.size + 1)
    s[0] = (v[0] - mass) / x[0]
    s[1:-1] = np.diff(v) / np.diff(x)
    s[-1] = 0.0
    q_inf = float(v[-1])
    if side == PESSIMISTIC:
        s = np.maximum.accumulate(np.minimum(s, 0.0))      # raises δ only
        q = x * np.diff(s)
        deficit = mass - (math.fsum(q) + q_inf)
        if deficit > 0:
            q_inf += deficit                                # more δ: safe
        else:
            q *= 1.0 + deficit / max(math.fsum(q), 1e-300)
            slack -= deficit                                # less mass: paid for
    else:
        # the greatest convex minorant of the points lies below them, hence below M;
        # its atoms sit at its vertices (slopes differenced only there)
        xs = np.concatenate([[0.0], x])
        keep = lower_hull(xs, np.concatenate([[mass], v]))
        ys = np.concatenate([[mass], v])[keep]
        slopes = np.minimum(np.concatenate([np.diff(ys) / np.diff(xs[keep]), [0.0]]), 0.0)
        at = keep[1:] - 1                                   # grid index of each vertex
        q = np.zeros(k.size)
        q[at] = np.maximum(xs[keep[1:]] * np.diff(slopes), 0.0)
        q_inf = min(q_inf, float(ys[-1]))
        # beyond the last grid point M falls to M(+∞) = max_i Q_i(+∞) (if the lattices
        # reach past EXP_SAFE): that Q-mass moves from +∞ down onto the last point
        beyond = max(q_inf - max(lat.q_inf for lat in lats), 0.0)
        q[-1] += beyond
        q_inf -= beyond
        excess = math.fsum(q) + q_inf - mass
        if excess > 0:
            q *= 1.0 - excess / max(math.fsum(q), 1e-300)   # less δ: safe
        else:
            q[at[0]] -= excess                              # ≤ |excess| more δ: paid for
            slack -= excess
    return Lattice(step, kmin, q, q_inf, slack, side)


def lower_hull(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the vertices of the greatest convex minorant of (x_i, y_i), x increasing.
    Derivation: docs/derivations/engine.md."""
    keep = np.arange(x.size)
    for _ in range(x.size):
        if keep.size < 3:
            break
        slope = np.diff(y[keep]) / np.diff(x[keep])
        above = slope[:-1] > slope[1:]
        if not above.any():
            break
        keep = np.concatenate([keep[:1], keep[1:-1][~above], keep[-1:]])
    return keep
