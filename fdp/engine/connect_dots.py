"""The grid cells of a loss law on ΔZ, and the pessimistic side: connect the dots.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fdp._constants import LOSS_WINDOW
from fdp.engine.lattice import PESSIMISTIC, TINY, Lattice, check_size, p_masses

# (κ, π, m, l_c, known) per cell, as ``cells`` gives them
Cells = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def window(rng: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """The part of a loss range that is gridded: rng clipped to ±LOSS_WINDOW."""
    lo = min(max(float(rng[0]), -LOSS_WINDOW), LOSS_WINDOW)
    hi = max(min(float(rng[1]), LOSS_WINDOW), lo)
    return lo, hi


def grid_range(rng: Sequence[float] | np.ndarray, step: float) -> tuple[int, int]:
    """Grid indices [kmin, kmax] covering the windowed range with one cell to spare.
    Derivation: docs/derivations/engine.md."""
    lo, hi = window(rng)
    kmin = math.floor(lo / step) - 1
    kmax = max(math.floor(hi / step) + 2, kmin + 2)   # hi lies strictly inside
    check_size(kmax - kmin + 1, "discretised factor")
    return kmin, kmax


def cells(kappa: np.ndarray, pi: np.ndarray, kmin: int, step: float) -> Cells:
    """Cell masses, conditional locations m_c ∈ [l_c, l_c + Δ], and which are known.
    Derivation: docs/derivations/engine.md."""
    K = kappa.size - 2
    k, p = kappa[1:-1].copy(), pi[1:-1].copy()
    lc = (kmin + np.arange(K)) * step

    def locate() -> tuple[np.ndarray, np.ndarray]:
        known = (k > 0) & (p >= TINY)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(known, np.log(k) - np.log(p), lc + step), known
    m, known = locate()
    top = known & (lc + step - m < 1e-9 * step)
    top[-1] = False
    if top.any():
        i = np.flatnonzero(top)
        k[i + 1] += k[i]
        p[i + 1] += p[i]
        k[i] = 0.0
        p[i] = 0.0
        m, known = locate()
    m = np.clip(m, lc, lc + step)
    return k, p, m, lc, known


def spread(kappa: np.ndarray, pi: np.ndarray, q_inf: float, kmin: int, step: float,
           p_neginf: float = 0.0, located: Cells | None = None) -> Lattice:
    """Split each cell's Q-mass between its ends keeping the mean of Y under P.
    Derivation: docs/derivations/engine.md."""
    K = kappa.size - 2                     # number of cells
    q = np.zeros(K + 1)
    q[0] += kappa[0]                       # below the grid: up to the first point
    k, p, m, lc, _ = cells(kappa, pi, kmin, step) if located is None else located
    up = k * (-np.expm1(lc - m)) / (-math.expm1(-step))
    up = np.clip(np.where(k > 0, up, 0.0), 0.0, k)
    q[1:] += up
    q[:-1] += k - up
    # P-mass the low tail loses by moving up to the first point (log space: kmin·Δ
    # may be far below −709)
    # p_masses takes array_like (its docstring); its annotation says ndarray
    moved_up = max(float(pi[0]) - float(p_masses(kappa[0], kmin * step)), 0.0)  # type: ignore[arg-type]
    return Lattice(step, kmin, q, q_inf + float(kappa[-1]), 0.0, PESSIMISTIC,
                   p_neginf=p_neginf + moved_up + float(pi[-1]))
