"""Discretise one trade-off function onto the lattice ΔZ, on both sides.

Work with Y = e^L under P (the likelihood ratio). For any pair,
δ(ε) = E_P[(Y − e^ε)₊] + Q(L = +∞), so δ is an increasing convex functional of
the law of Y: if Y' ≤_icx Y (E φ(Y') ≤ E φ(Y) for every increasing convex φ)
then δ' ≤ δ at every ε. Independent products preserve ≤_icx, which is why
each side stays on its side after composition.

Pessimistic (``pessimistic``): "connect the dots" (Doroshenko et al. 2022).
The P-mass of every cell [x_c, x_{c+1}] (x_c = e^{cΔ}) is split between its two
ends so that its mean in Y is kept: a mean-preserving spread, Y ≤_cx Y_pess.
Equivalently δ_pess is the chord interpolation of the convex δ in e^ε, exact at
every grid point. Below the grid, mass moves up to the first point (keeping its
Q-mass); above it, mass goes to L = +∞.

Optimistic (``optimistic``): the mirror image needs a mean-preserving
*contraction* onto the grid. (1) Each cell's mass becomes one atom at its
conditional mean m_c (Jensen). (2a) Half of atom c and half of atom c+1 merge
onto the grid point x_{c+1} between them, in the proportion that keeps their
mean. (2b) "Pair two apart": what is left of atom c and of atom c+2 is merged onto
the two grid points x_{c+1}, x_{c+2} between them with
their joint mean kept — a two-point measure replaced by a measure on the
interval it spans with the same mass and mean is a contraction. (3) What is left
(near atoms and edges, where neighbouring masses differ a lot) is merged with
mass already on a grid point K = 1, 2, 4, … cells away, again onto the grid
point between them with the mean kept. (4) Only the remainder is rounded down
(Y decreases, Q-mass is lost and recorded). Below the grid, mass goes to L = −∞;
above it, mass moves down to the last point keeping its P-mass.
Steps (1)–(3) keep E_P[Y] (the Q-mass) exactly, so the optimistic side loses
Q-mass only in (4) and in the far tails, and its gap to the truth does not grow
like n·Δ under n-fold composition.

Losses beyond ``lattice.EXP_SAFE`` (where e^L would overflow) are handled with
Q-masses only, and each factor grids [−LOSS_WINDOW, LOSS_WINDOW] (see
``fdp.engine``): beyond the window, mass goes to +∞ (pessimistic) or to the edge
(optimistic).

Functions without an exact law (``f.law()``, ``fdp.law``) are discretised through
their privacy profile: the pessimistic side is the chord interpolation of
δ(kΔ) (the same connect-the-dots measure), the optimistic side the finite pair
of chords of f between the tangent points α*(kΔ) (chords of a convex f lie above
it, so T of that pair is ≥ f), then steps (2)–(4).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy.special import expit

from fdp._constants import LOGIT_SEARCH
from fdp._numerics import golden_max
from fdp.engine.lattice import (
    EXP_SAFE,
    LOSS_WINDOW,
    OPTIMISTIC,
    PESSIMISTIC,
    TINY,
    Lattice,
    check_size,
    p_masses,
)
from fdp.law import atoms_of as atoms
from fdp.law import interval_masses_of as interval_masses
from fdp.law import loss_range_of as loss_range

TAIL = 1e-40      # law tails below this Q-mass are not gridded
# ε scanned for the range of a profile-only f; below −20 the chord from (0, 1) takes
# over (safe for the pessimistic side; the optimistic side drops Q-mass ≤ e^{−20})
SCAN = np.linspace(-20.0, 40.0, 601)


# ----------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------
def discretise(f, step: float, side: str | None = None):
    """The ``side`` lattice of f on the grid ΔZ (see the module docstring).

    With ``side=None`` returns both, (pessimistic, optimistic), sharing the work.
    """
    from fdp.engine.numeric import Numeric
    if side is None:
        both = _both(f, step)
        if both is not None:
            return both
        members = _envelope_members(f, step)
        if members is not None:
            return max_of_lattices(members[0], step), max_of_lattices(members[1], step)
        return discretise(f, step, PESSIMISTIC), discretise(f, step, OPTIMISTIC)
    if isinstance(f, Numeric) and f.single:
        return _regrid(f.lattice(side), step)
    members = _envelope_members(f, step)
    if members is not None:
        return max_of_lattices(members[0 if side == PESSIMISTIC else 1], step)
    both = _both(f, step, side)
    if both is not None:
        return both[0] if side == PESSIMISTIC else both[1]
    return _from_profile(f, step, side)


def _both(f, step, side=None):
    """Both lattices from the exact law of f (or one, the other None); None if no law."""
    from fdp.engine.numeric import Numeric
    if isinstance(f, Numeric):
        return None
    rng = loss_range(f)
    if rng is None:
        return None
    kmin, kmax = _grid_range(rng, step)
    edges = np.arange(kmin, kmax + 1) * step
    masses = interval_masses(f, edges)
    if masses is None:
        return None
    kappa, pi, q_inf, p_neginf = masses
    kappa, pi, grid_atoms = _split_grid_atoms(f, kappa, pi, kmin, step)
    # masses far below any reachable δ slow the arithmetic (subnormals): the
    # pessimistic side moves them to +inf, the optimistic side drops them
    # — unless they carry P-mass that the reflected lattice (the inverse pair, the
    # remove direction) needs, and are normal doubles
    small = (kappa < TINY) & ((pi < 1e-30) | (kappa < 1e3 * np.finfo(float).tiny))
    dropped = float(kappa[small].sum())
    p_neginf += float(pi[small].sum())
    kappa, pi = np.where(small, 0.0, kappa), np.where(small, 0.0, pi)
    out = (_spread(kappa, pi, q_inf + dropped, kmin, step, p_neginf)
           if side != OPTIMISTIC else None,
           _contract_masses(kappa, pi, q_inf, kmin, step) if side != PESSIMISTIC else None)
    if grid_atoms is not None:
        at, qa = grid_atoms
        out = tuple(None if lat is None else replace(lat, q=_add_at(lat.q, at, qa))
                    for lat in out)
    return out


def _add_at(q, at, qa):
    q = q.copy()
    np.add.at(q, at, qa)
    return q


def _split_grid_atoms(f, kappa, pi, kmin, step):
    """Take point masses of f that sit on grid points out of their cells.

    An atom on a grid point is already discretised exactly, on both sides; left in
    its cell it would be mixed with the cell's continuous mass, and the optimistic
    contraction would have to move it. Returns the cell masses without those atoms
    and (lattice indices, Q-masses) of the atoms, or None.
    """
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
    edges = (kmin + np.arange(kappa.size - 1)) * step
    cell = np.searchsorted(edges, L, side="right")
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


def window(rng) -> tuple[float, float]:
    """The part of a loss range that is gridded: rng clipped to ±LOSS_WINDOW."""
    lo = min(max(float(rng[0]), -LOSS_WINDOW), LOSS_WINDOW)
    hi = max(min(float(rng[1]), LOSS_WINDOW), lo)
    return lo, hi


def _grid_range(rng, step):
    """Grid indices [kmin, kmax] covering the windowed range with one cell to spare.

    Mass outside goes to the safe side (see ``_spread``, ``_contract_masses``); the
    size is checked before anything is allocated.
    """
    lo, hi = window(rng)
    kmin = math.floor(lo / step) - 1
    kmax = max(math.floor(hi / step) + 2, kmin + 2)   # hi lies strictly inside
    check_size(kmax - kmin + 1, "discretised factor")
    return kmin, kmax


def _cells(kappa, pi, kmin, step):
    """Cell masses, conditional locations m_c ∈ [l_c, l_c + Δ], and which are known.

    m_c = log κ_c − log π_c needs a P-mass with full relative precision: below TINY
    (far in the upper tail, π ≈ κ e^{−l}; subnormal tails of Φ are not accurate to
    the last digit) the location is unknown, m_c is put at the top of the cell (the
    pessimistic side then moves the whole cell up; the optimistic side rounds it
    down in Q-space) and ``known`` is False there.

    A point mass that sits on a grid point up to rounding (m within 1e-9 Δ of the
    cell's top) is moved to the next cell's bottom, where it belongs exactly.
    """
    K = kappa.size - 2
    k, p = kappa[1:-1].copy(), pi[1:-1].copy()
    lc = (kmin + np.arange(K)) * step

    def locate():
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


# ----------------------------------------------------------------------
# Pessimistic: connect the dots (mean-preserving spread in Y)
# ----------------------------------------------------------------------
def _spread(kappa, pi, q_inf, kmin, step, p_neginf=0.0) -> Lattice:
    """Split each cell's Q-mass between its ends keeping the mean of Y under P.

    For a cell [l_c, l_c + Δ) whose mass has conditional location m = log(κ/π),
    the upper end gets Q-mass κ·(1 − e^{l_c − m}) / (1 − e^{−Δ}); the cell's
    P-mass is kept too. The P-mass that ends at L = −∞ (the law's own, what moving
    the low tail up and the high tail to +∞ takes away) is recorded exactly as
    ``p_neginf``, for ``lattice.reflect``.
    """
    K = kappa.size - 2                     # number of cells
    q = np.zeros(K + 1)
    q[0] += kappa[0]                       # below the grid: up to the first point
    k, p, m, lc, _ = _cells(kappa, pi, kmin, step)
    up = k * (-np.expm1(lc - m)) / (-math.expm1(-step))
    up = np.clip(np.where(k > 0, up, 0.0), 0.0, k)
    q[1:] += up
    q[:-1] += k - up
    # P-mass the low tail loses by moving up to the first point (log space: kmin·Δ
    # may be far below −709)
    moved_up = max(float(pi[0]) - float(p_masses(kappa[0], kmin * step)), 0.0)
    return Lattice(step, kmin, q, q_inf + float(kappa[-1]), 0.0, PESSIMISTIC,
                   p_neginf=p_neginf + moved_up + float(pi[-1]))


# ----------------------------------------------------------------------
# Optimistic: mean-preserving contraction onto the grid (in Y under P)
# ----------------------------------------------------------------------
def _contract_masses(kappa, pi, q_inf, kmin, step) -> Lattice:
    """The optimistic lattice of cell masses (see the module docstring).

    Cells below the loss EXP_SAFE whose location is known (``_cells``) are
    contracted in P-space (Y = e^L is representable there). The others — above
    EXP_SAFE, or with a P-mass too small to locate them — and the tail above the
    grid are handled with Q-masses only: each moves down to its cell's lower grid
    point (the tail: to the top point) keeping its Q-mass, which lowers every term
    q (1 − e^{ε−l})₊ of δ — a safe move for this side that costs at most one cell
    in ε (the P-mass it adds is accounted for by ``lattice.reflect``, which
    measures the totals). Below the grid (κ_0): to L = −∞.
    """
    K = kappa.size - 2
    k, p, m, lc, known = _cells(kappa, pi, kmin, step)
    # cells [0, J) lie below EXP_SAFE entirely
    J = int(min(max(math.floor(EXP_SAFE / step) - kmin, 0), K))
    by_q = ~known
    by_q[J:] = True
    q = np.zeros(K + 1)
    if J > 0:
        nu, lost, lowest = contract(m[:J], np.where(by_q[:J], 0.0, p[:J]), kmin, step)
        with np.errstate(under="ignore"):
            q[:J + 1] = nu * np.exp((kmin + np.arange(J + 1)) * step)
        total = math.fsum(lost)
        rest = compensate(q[:J + 1], total, lowest, step)
        if rest > 0.0:
            # what compensation could not give back (no grid mass below the leftovers,
            # e.g. next to a point-like part of the law) is given back where it was
            # lost: Q-mass ρ_c ≤ ℓ_c at x_c raises δ by at most ρ_c below x_c, where the
            # rounding lowered it by ℓ_c, and not at all above; with Σρ_c = rest the
            # total change stays ≤ 0 at every ε (see ``compensate``)
            q[:J] += lost * (rest / total)
    q[:K] += np.where(by_q, k, 0.0)
    q[K] += float(kappa[-1])
    return Lattice(step, kmin, q, q_inf, 0.0, OPTIMISTIC)


def contract(m: np.ndarray, p: np.ndarray, kmin: int, step: float):
    """Contract atoms (P-mass p_c at loss m_c ∈ [l_c, l_c + Δ]) onto grid points.

    Returns the P-masses ν on the K + 1 grid points, the Q-mass lost by the final
    rounding down per cell (ℓ_c = λ_c (e^{m_c} − e^{l_c})) and the lowest cell with
    such a leftover. All merges keep the P-mean of Y = e^L (see the module
    docstring); distances are computed relative to a grid point so that nothing
    overflows.
    """
    K = m.size
    lc = (kmin + np.arange(K)) * step
    h = math.expm1(step)
    nu = np.zeros(K + 1)
    left = np.zeros(K)
    # (0) atoms on a grid point (up to rounding) are already where they belong
    on = (m - lc) <= 1e-12 * step
    nu[:-1] += np.where(on, p, 0.0)
    p = np.where(on, 0.0, p)
    # (2a) adjacent pairs: the right half of atom c and the left half of atom c + 1
    # merge onto the one grid point x_{c+1} between them, in the proportion that
    # puts their mean exactly there (units x_{c+1})
    rest = p.copy()
    if K >= 2:
        a, b = 0.5 * p[:-1], 0.5 * p[1:]
        ga = -np.expm1(m[:-1] - lc[1:])                 # x_{c+1} − m_c
        gb = np.expm1(m[1:] - lc[1:])                   # m_{c+1} − x_{c+1}
        with np.errstate(divide="ignore", invalid="ignore"):
            a2 = np.where(a * ga > b * gb, b * gb / ga, a)
            b2 = np.where(a * ga > b * gb, b, np.where(gb > 0, a * ga / gb, 0.0))
        a2 = np.minimum(np.nan_to_num(a2), a)
        b2 = np.minimum(np.nan_to_num(b2), b)
        nu[1:K] += a2 + b2
        rest[:-1] -= a2
        rest[1:] -= b2
        np.maximum(rest, 0.0, out=rest)
    half = 0.5 * rest
    # (2b) pair cell c with cell c + 2 onto grid points c + 1, c + 2 (units x_{c+1})
    if K >= 3:
        a, b = half[:-2], half[2:]
        gap_a = -np.expm1(m[:-2] - lc[1:-1])                  # m_c below x_{c+1}
        gap_b = math.exp(step) * np.expm1(m[2:] - lc[2:])     # m_{c+2} above x_{c+2}
        with np.errstate(divide="ignore", invalid="ignore"):
            a2 = np.where(a * gap_a <= b * (h + gap_b), a, b * (h + gap_b) / gap_a)
            b2 = np.where(b * gap_b <= a2 * (h + gap_a), b, a2 * (h + gap_a) / gap_b)
            tot = a2 + b2
            M = np.where(tot > 0, (b2 * (h + gap_b) - a2 * gap_a) / tot, 0.0)
        w = np.clip(M / h, 0.0, 1.0)
        nu[1:K - 1] += tot * (1.0 - w)
        nu[2:K] += tot * w
        left[:-2] += a - a2
        left[2:] += b - b2
        left[-2:] += half[-2:]
        left[:2] += half[:2]
    else:
        left += rest
    # (3) merge leftovers: pairwise among themselves, then with the nearest grid mass
    g_down = np.expm1(m - lc)                 # (m_c − x_c)/x_c
    g_up = -np.expm1(m - lc - step)           # (x_{c+1} − m_c)/x_{c+1}
    for offset in (0, 1):
        _merge_leftovers(left, m, nu, lc, g_down, offset)
    for _ in range(3):
        for biggest in (False, True):
            for down in (True, False):
                if left.max(initial=0.0) > 0.0:
                    _merge_with_grid(left, nu, g_down, g_up, step, down, biggest)
    # (4) round the remainder down to x_c
    nu[:-1] += left
    lost = left * (np.exp(lc) * g_down)
    live = np.flatnonzero(left > 0)
    lowest = int(live[0]) if live.size else K
    return nu, lost, lowest


def compensate(q: np.ndarray, lost: float, lowest: int, step: float) -> float:
    """Give back the Q-mass ``lost`` by rounding down, in place; returns what is left.

    Rounding atoms down from m_c to x_c (c ≥ ``lowest``) lowers E(Y − t)₊ by
    exactly ℓ = Σ λ_c (m_c − x_c) for every t ≤ x_lowest, and by no more for any t.
    Moving P-mass θ_j from a grid point x_j to x_{j+1} ≤ x_lowest raises
    E(Y − t)₊ by at most θ_j (x_{j+1} − x_j) for t < x_{j+1} and not at all above.
    Moves with Σ θ_j (x_{j+1} − x_j) ≤ ℓ therefore keep Y ≤_icx (the unrounded
    contraction) ≤_cx Y, and restore E[Y], the Q-mass. In Q-units a fraction φ of
    the Q-mass q_j moved up one cell becomes φ q_j e^Δ: a gain of φ q_j (e^Δ − 1).
    Points are used from x_lowest downwards.
    """
    if not lost > 0.0 or lowest < 1:
        return max(lost, 0.0)
    h = math.expm1(step)
    cap = q[:lowest][::-1] * h                      # gains, from j = lowest − 1 down
    used = np.cumsum(cap)
    full = int(np.searchsorted(used, lost, side="left"))
    take = np.zeros(cap.size)
    take[:full] = 1.0
    if full < cap.size:
        rest = lost - (float(used[full - 1]) if full else 0.0)
        take[full] = min(rest / cap[full], 1.0) if cap[full] > 0 else 0.0
    phi = take[::-1]                                 # back to index order j = 0..lowest−1
    moved = phi * q[:lowest]
    q[:lowest] -= moved
    q[1:lowest + 1] += moved * math.exp(step)
    return max(lost - float(np.sum(moved) * h), 0.0)


def _merge_with_grid(left, nu, g_down, g_up, step, down, biggest=False):
    """Merge each leftover atom with the nearest (or the largest) grid mass below/above.

    Down: the atom λ at m_c and mass t at grid point x_j < x_c land together on
    x_c, with t (x_c − x_j) = λ (m_c − x_c). Up: with grid mass at x_j > x_{c+1},
    landing on x_{c+1}. A grid point chosen by several atoms is shared equally.
    """
    req = np.flatnonzero(left > 0)
    nz = np.flatnonzero(nu > 0)
    if req.size == 0 or nz.size == 0:
        return
    if biggest:
        n = nu.size
        j = np.arange(n)
        if down:   # index of the largest ν_j with j < c
            run = np.maximum.accumulate(np.where(nu == np.maximum.accumulate(nu), j, 0))
            cand = np.where(req >= 1, run[np.maximum(req - 1, 0)], -1)
            ok = (req >= 1) & (nu[np.maximum(cand, 0)] > 0)
        else:      # index of the largest ν_j with j > c + 1
            r = nu[::-1]
            run = np.maximum.accumulate(np.where(r == np.maximum.accumulate(r), j, 0))
            back = n - 1 - run                      # largest at or after position
            nxt = req + 2
            cand = np.where(nxt < n, back[np.minimum(n - 1 - nxt, n - 1)], -1)
            ok = (nxt < n) & (nu[np.maximum(cand, 0)] > 0)
        nz = None
    if down and nz is None:
        req, partner = req[ok], cand[ok]
        land = req
        H = -np.expm1((partner - req) * step)
        g = g_down[req]
    elif nz is None:
        req, partner = req[ok], cand[ok]
        land = req + 1
        H = np.expm1((partner - req - 1) * step)
        g = g_up[req]
    elif down:
        pos = np.searchsorted(nz, req, side="left") - 1
        ok = pos >= 0
        req, partner = req[ok], nz[pos[ok]]
        land = req
        H = -np.expm1((partner - req) * step)
        g = g_down[req]
    else:
        pos = np.searchsorted(nz, req + 1, side="right")
        ok = pos < nz.size
        req, partner = req[ok], nz[pos[ok]]
        land = req + 1
        H = np.expm1((partner - req - 1) * step)
        g = g_up[req]
    if req.size == 0:
        return
    share = np.bincount(partner, minlength=nu.size)[partner]
    cap = nu[partner] / share
    lam = left[req]
    need = lam * g / H
    use_t = np.minimum(need, cap)
    with np.errstate(divide="ignore", invalid="ignore"):
        use_l = np.where(need > cap, cap * H / g, lam)
    use_l = np.minimum(np.nan_to_num(use_l, nan=0.0, posinf=0.0), lam)
    np.subtract.at(nu, partner, use_t)
    np.maximum(nu, 0.0, out=nu)
    np.add.at(nu, land, use_l + use_t)
    left[req] -= use_l


def _merge_leftovers(left, m, nu, lc, g_down, offset):
    """Pair consecutive leftover atoms a < b: b lands on x_b with a share of a.

    The share t of atom a (at m_a < x_b) satisfies t (x_b − m_a) = λ_b (m_b − x_b).
    """
    r = np.flatnonzero(left > 0)[offset:]
    if r.size < 2:
        return
    r = r[: 2 * (r.size // 2)]
    a, b = r[0::2], r[1::2]
    H = -np.expm1(m[a] - lc[b])
    lam = left[b]
    need = lam * g_down[b]
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(H > 0, need / H, np.inf)
    cap = left[a]
    use_t = np.minimum(need, cap)
    with np.errstate(divide="ignore", invalid="ignore"):
        use_l = np.where(need > cap, cap * H / g_down[b], lam)
    use_l = np.minimum(np.nan_to_num(use_l, nan=0.0, posinf=0.0), lam)
    left[a] -= use_t
    np.maximum(left, 0.0, out=left)
    nu[b] += use_l + use_t
    left[b] -= use_l


# ----------------------------------------------------------------------
# Envelopes: δ = max of the members' δ (one-sided symmetrisations, dpsgd results)
# ----------------------------------------------------------------------
def _envelope_members(f, step):
    """([pessimistic member lattices], [optimistic ones]) on ΔZ, or None.

    For min{f_1, …, f_m}** (``Envelope``) whose members all have exact laws (or are
    composed results), and for one-sidedly symmetrised ``Numeric`` results; the
    privacy profile of both is δ = max_i δ_i (DRS Prop 2.12: conjugates of a
    minimum are the maximum of the conjugates).
    """
    from fdp.engine.numeric import Numeric
    from fdp.operations.envelope import Envelope
    if isinstance(f, Numeric) and f.envelope:
        return ([_regrid(lat, step) for lat in f.pess], [_regrid(lat, step) for lat in f.opt])
    if not isinstance(f, Envelope):
        return None
    pess, opt = [], []
    for m in f.members:
        if not (isinstance(m, Numeric) or _both(m, step, PESSIMISTIC) is not None):
            return None
        lp, lo = discretise(m, step)
        pess.append(lp)
        opt.append(lo)
    return pess, opt


SWITCH = 1e-13   # member changes below this are paid for in the slack


def max_of_lattices(lats, step: float) -> Lattice:
    """One lattice whose δ bounds M = max_i δ_i from the lattices' side.

    Both sides take the chord interpolation (in x = e^ε) of M at the grid points,
    anchored at (0, max_i |Q_i|). Each lattice δ_i is linear in x on every cell, so M
    is the maximum of lines there. Pessimistic: M is convex and the chords lie above
    it (connect-the-dots for the envelope). Optimistic: on a cell where the same
    member j is largest at both ends the chord *is* M; where it changes, the chord
    exceeds M by at most b_k = M(x_{k+1}) − δ_j(x_{k+1}) (the chord minus δ_j's
    line is linear and 0 at the left end). Where b_k > ``SWITCH`` the value at
    x_{k+1} is lowered to δ_j(x_{k+1}), so the segment is δ_j's own line (a lower
    start only lowers the next chord); the remaining b_k (round-off-sized, where
    members nearly tie) are added to the slack. Round-off kinks are negative
    atoms: the pessimistic side raises δ to remove them, the optimistic side drops
    them and adds their mass to the slack. Slacks: the largest member slack.
    """
    side = lats[0].side
    # the chords are formed in x = e^ε, so only |ε| ≤ EXP_SAFE: below, the first chord
    # from (0, mass) covers the rest on both sides; above, the pessimistic side keeps
    # δ constant (M is non-increasing) and the optimistic side drops to M(+∞) there
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

    A point strictly above the chord of its two neighbours is not a vertex of the
    lower hull, so all such points are removed at once, round after round, until
    the remaining chain is convex: it is the hull. The end points are kept.
    """
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


# ----------------------------------------------------------------------
# Regridding a lattice (a composed result used as a factor)
# ----------------------------------------------------------------------
def _regrid(lat: Lattice, step: float) -> Lattice:
    if lat.step == step:
        return lat
    L = lat.losses
    q = lat.q
    p = p_masses(q, L)
    kmin, kmax = _grid_range((L[0], L[-1]), step)
    edges = np.arange(kmin, kmax + 1) * step
    idx = np.searchsorted(edges, L, side="right")
    kappa = np.bincount(idx, weights=q, minlength=edges.size + 1)
    pi = np.bincount(idx, weights=p, minlength=edges.size + 1)
    if lat.side == PESSIMISTIC:
        out = _spread(kappa, pi, lat.q_inf, kmin, step)
    else:
        out = _contract_masses(kappa, pi, lat.q_inf, kmin, step)
    return Lattice(step, out.k0, out.q, out.q_inf, lat.slack, lat.side)


# ----------------------------------------------------------------------
# Through the privacy profile (any convex f)
# ----------------------------------------------------------------------
_TANGENT_GRID = np.concatenate([np.linspace(LOGIT_SEARCH[0], -40.0, 60, endpoint=False),
                                np.linspace(-40.0, LOGIT_SEARCH[1], 801)])


def _tangent_alpha(beta, eps: np.ndarray) -> np.ndarray:
    """α*(ε) = argmax_α (1 − β(α) − e^ε α), in logit(α): a grid, then golden section.

    The grid comes first because the objective is float-flat (= 1 − β(0)) for tiny α,
    where a plain golden search over the whole logit range would settle.
    """
    y = np.exp(np.minimum(eps, 700.0))
    grid = _TANGENT_GRID
    a_grid = expit(grid)
    b_grid = beta(a_grid)
    best = np.empty(eps.size, dtype=np.int64)
    for s0 in range(0, eps.size, 2048):
        ys = y[s0:s0 + 2048]
        vals = 1.0 - b_grid[None, :] - ys[:, None] * a_grid[None, :]
        best[s0:s0 + 2048] = np.argmax(vals, axis=1)
    lo = grid[np.maximum(best - 1, 0)]
    hi = grid[np.minimum(best + 1, grid.size - 1)]

    def objective(u):
        a = expit(u)
        return 1.0 - beta(a) - y * a
    return expit(golden_max(objective, lo, hi, iters=80))


def profile_range(f) -> tuple[float, float]:
    """Losses carrying all but ~1e-20 of the mass, read off δ and the tangent points.

    Only the grid's extent depends on it (tails outside go to the safe side), so a
    plausible range is enough; it is computed once per object.
    """
    hit = _RANGES.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1]
    value = _profile_range(f)
    if len(_RANGES) >= 64:
        _RANGES.pop(next(iter(_RANGES)))
    _RANGES[id(f)] = (f, value)           # the entry holds f, so its id stays its own
    return value


_RANGES: dict = {}


def _looks_symmetric(f) -> bool:
    x = np.linspace(0.01, 0.99, 49)
    return bool(np.max(np.abs(f._beta(f._beta(x)) - x)) < 1e-9)


def _profile_range(f) -> tuple[float, float]:
    d = f._delta(SCAN)
    d_inf = float(f._delta(np.array([np.inf]))[0])
    above = np.flatnonzero(d - d_inf > 1e-20)
    hi = SCAN[above[-1] + 1] if above.size and above[-1] + 1 < SCAN.size else SCAN[-1]
    # Q(L < ε) = P'(L' > −ε) for the inverse pair (Q, P), L' = −L: the tangent point of
    # f⁻¹ at −ε. Read there (small α) it keeps its precision, unlike f(α*(ε)) with
    # α* ≈ 1, where 1 − α has none.
    inv = f if (f.symmetric or _looks_symmetric(f)) else f.inverse()
    q_below = _tangent_alpha(inv._upper, -SCAN)
    low = np.flatnonzero(q_below <= 1e-20)
    lo = SCAN[low[-1]] if low.size else SCAN[0]
    if hi <= lo:
        hi = lo + 1.0
    return float(lo), float(hi)


def _from_profile(f, step: float, side: str) -> Lattice:
    kmin, kmax = _grid_range(profile_range(f), step)
    grid = np.arange(kmin, kmax + 1) * step
    x = np.exp(grid)
    if side == PESSIMISTIC:
        D = f._delta(grid)
        # slopes of the chord interpolation of δ in x = e^ε, through (0, 1)
        s = np.empty(grid.size + 1)
        s[0] = (D[0] - 1.0) / x[0]
        s[1:-1] = np.diff(D) / np.diff(x)
        s[-1] = 0.0
        # (δ(l_0) − 1)/x_0 may round to 0 far left; the next chord slope is then a safe
        # (higher-δ) start for the interpolation below x_0
        if s.size > 2:
            s[0] = min(s[0], s[1])
        s = np.maximum.accumulate(np.minimum(s, 0.0))   # convexity, raising δ only
        q = x * np.diff(s)
        q_inf = max(float(D[-1]), 1.0 - math.fsum(q))
        return Lattice(step, kmin, q, q_inf, 0.0, PESSIMISTIC)
    beta = f._upper
    a = np.minimum.accumulate(_tangent_alpha(beta, grid))   # decreasing in ε
    fa = beta(a)
    f0 = float(beta(np.zeros(1))[0])
    f1 = float(beta(np.ones(1))[0])
    A = np.concatenate([[1.0], a, [0.0]])[::-1]              # increasing α
    B = np.concatenate([[f1], fa, [f0]])[::-1]               # f at those α
    B = np.maximum.accumulate(B[::-1])[::-1]                 # non-increasing
    P = np.diff(A)
    Q = -np.diff(B)
    live = (P > 0) & (Q > 0)
    P, Q = P[live], Q[live]
    loc = np.log(Q) - np.log(P)
    edges = grid
    idx = np.searchsorted(edges, loc, side="right")
    kappa = np.bincount(idx, weights=Q, minlength=edges.size + 1)
    pi = np.bincount(idx, weights=P, minlength=edges.size + 1)
    return _contract_masses(kappa, pi, 1.0 - f0, kmin, step)
