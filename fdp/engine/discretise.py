"""Discretise one trade-off function onto the lattice ΔZ, on both sides.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

from dataclasses import replace
from typing import overload

import numpy as np

from fdp._constants import NEGLIGIBLE_P_MASS
from fdp.engine.connect_dots import cells, grid_range, spread
from fdp.engine.contraction import contract_masses
from fdp.engine.from_lattices import max_of_lattices, regrid
from fdp.engine.from_profile import from_profile
from fdp.engine.lattice import (
    OPTIMISTIC,
    PESSIMISTIC,
    TINY,
    Lattice,
    p_masses,
)
from fdp.law import atoms_of as atoms
from fdp.law import interval_masses_of as interval_masses
from fdp.law import loss_range_of as loss_range
from fdp.tradeoff import TradeOff

# A law's cell-mass shortfall above this is mass it did not place: derivations/engine.md.
UNPLACED_MASS = 1e-14


@overload
def discretise(f: TradeOff, step: float, side: None = None) -> tuple[Lattice, Lattice]: ...
@overload
def discretise(f: TradeOff, step: float, side: str) -> Lattice: ...


def discretise(f: TradeOff, step: float,
               side: str | None = None) -> Lattice | tuple[Lattice, Lattice]:
    """The ``side`` lattice of f on the grid ΔZ (docs/derivations/engine.md).

    With ``side=None`` returns both, (pessimistic, optimistic), sharing the work.
    """
    if side is None:
        both = _both(f, step)
        if both is not None:
            return both
        members = _envelope_members(f, step)
        if members is not None:
            return max_of_lattices(members[0], step), max_of_lattices(members[1], step)
        return discretise(f, step, PESSIMISTIC), discretise(f, step, OPTIMISTIC)
    lats = f._lattices()
    if lats is not None and len(lats[0]) == 1:        # a composed result: regrid it
        return regrid((lats[0] if side == PESSIMISTIC else lats[1])[0], step)
    members = _envelope_members(f, step)
    if members is not None:
        return max_of_lattices(members[0 if side == PESSIMISTIC else 1], step)
    one = _both(f, step, side)
    if one is not None and (lat := one[0] if side == PESSIMISTIC else one[1]) is not None:
        return lat                                    # formed: ``side`` was asked
    return from_profile(f, step, side)


@overload
def _both(f: TradeOff, step: float, side: None = None) -> tuple[Lattice, Lattice] | None: ...
@overload
def _both(f: TradeOff, step: float,
          side: str) -> tuple[Lattice | None, Lattice | None] | None: ...


def _both(f: TradeOff, step: float,
          side: str | None = None) -> tuple[Lattice | None, Lattice | None] | None:
    """Both lattices from the exact law of f (or one, the other None); None if no law."""
    if f._lattices() is not None:                     # a composed result: no law
        return None
    rng = loss_range(f)
    if rng is None:
        return None
    kmin, kmax = grid_range(rng, step)
    edges = np.arange(kmin, kmax + 1) * step
    masses = interval_masses(f, edges)
    if masses is None:
        return None
    kappa, pi, q_inf, p_neginf = masses
    # mass a law leaves unplaced goes to the safe side (docs/derivations/engine.md)
    q_short = 1.0 - float(np.sum(kappa)) - q_inf
    p_short = 1.0 - float(np.sum(pi)) - p_neginf
    unplaced = q_short if q_short > UNPLACED_MASS else 0.0
    p_neginf += p_short if p_short > UNPLACED_MASS else 0.0
    kappa, pi, grid_atoms = _split_grid_atoms(f, kappa, pi, kmin, step)
    # negligible masses to the safe side, unless the reflection needs their P-mass (idem)
    small = (kappa < TINY) & ((pi < NEGLIGIBLE_P_MASS) | (kappa < 1e3 * np.finfo(float).tiny))
    dropped = float(kappa[small].sum())
    p_neginf += float(pi[small].sum())
    kappa, pi = np.where(small, 0.0, kappa), np.where(small, 0.0, pi)
    located = cells(kappa, pi, kmin, step)              # shared by both sides
    out = (spread(kappa, pi, q_inf + dropped + unplaced, kmin, step, p_neginf, located)
           if side != OPTIMISTIC else None,
           contract_masses(kappa, pi, q_inf, kmin, step, located)
           if side != PESSIMISTIC else None)
    if grid_atoms is not None:
        at, qa = grid_atoms
        lp, lo = (None if lat is None else replace(lat, q=_add_at(lat.q, at, qa)) for lat in out)
        out = (lp, lo)
    return out


def _add_at(q: np.ndarray, at: np.ndarray, qa: np.ndarray) -> np.ndarray:
    q = q.copy()
    np.add.at(q, at, qa)
    return q


def _split_grid_atoms(f: TradeOff, kappa: np.ndarray, pi: np.ndarray, kmin: int, step: float
                      ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """Take point masses of f that sit on grid points out of their cells.
    Derivation: docs/derivations/engine.md."""
    L, q = atoms(f)
    if L.size == 0:
        return kappa, pi, None
    fin = np.isfinite(L) & (q > 0)
    L, q = L[fin], q[fin]
    k = np.round(L / step)
    on = np.abs(L / step - k) <= 1e-9 * np.maximum(1.0, np.abs(k))
    on &= (k >= kmin + 1) & (k <= kmin + kappa.size - 3)
    if not on.any():
        return kappa, pi, None
    L, q, k = L[on], q[on], k[on].astype(np.int64)
    cell = _atom_cells(f, k - kmin, q, kappa, kmin, step)
    kappa, pi = kappa.copy(), pi.copy()
    p = p_masses(q, L)
    np.subtract.at(kappa, cell, q)
    np.subtract.at(pi, cell, p)
    # what is left of a cell is its continuous mass; a round-off residue of the
    # subtraction (relative to the atom) is no mass at all
    tiny = 1e-12
    resid = np.zeros(kappa.size, dtype=bool)
    resid[cell] = True
    kill = resid & ((kappa <= tiny * np.bincount(cell, weights=q, minlength=kappa.size))
                    | (pi <= tiny * np.bincount(cell, weights=p, minlength=kappa.size)))
    kappa = np.where(kill, 0.0, np.maximum(kappa, 0.0))
    pi = np.where(kill, 0.0, np.maximum(pi, 0.0))
    return kappa, pi, (k - kmin, q)


def _atom_cells(f: TradeOff, j: np.ndarray, q: np.ndarray, kappa: np.ndarray, kmin: int,
                step: float) -> np.ndarray:
    """The cell (index into ``kappa``) that holds each atom sitting on grid point j.
    Derivation: docs/derivations/engine.md."""
    cell = np.empty(j.size, dtype=np.int64)
    for n, (jj, qa) in enumerate(zip(j.tolist(), q.tolist())):
        e = (kmin + jj) * step
        eta = max(1e-6, 1e-8 * abs(kmin + jj)) * step
        edges = np.array([e - eta, e + eta, (kmin + jj + 1) * step])
        masses = interval_masses(f, edges)
        assert masses is not None                        # f's law gave its cells (``_both``)
        right = masses[0][2]                             # Q-mass of (e + η, e_{j+1})
        cell[n] = jj + 1 if kappa[jj + 1] - right >= 0.5 * qa else jj
    return cell


def _envelope_members(f: TradeOff,
                      step: float) -> tuple[list[Lattice], list[Lattice]] | None:
    """([pessimistic member lattices], [optimistic ones]) on ΔZ, or None.
    Derivation: docs/derivations/engine.md."""
    lats = f._lattices()
    if lats is not None and len(lats[0]) > 1:          # a two-direction result
        return ([regrid(lat, step) for lat in lats[0]], [regrid(lat, step) for lat in lats[1]])
    members = f._delta_members()
    if members is None:
        return None
    pess, opt = [], []
    for m in members:
        if not (m._lattices() is not None or _both(m, step, PESSIMISTIC) is not None):
            return None
        lp, lo = discretise(m, step)
        pess.append(lp)
        opt.append(lo)
    return pess, opt
