"""The optimistic side: a mean-preserving contraction of each law onto ΔZ.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math

import numpy as np

from fdp._constants import EXP_SAFE
from fdp.engine.connect_dots import Cells, cells
from fdp.engine.lattice import OPTIMISTIC, Lattice


def contract_masses(kappa: np.ndarray, pi: np.ndarray, q_inf: float, kmin: int, step: float,
                    located: Cells | None = None) -> Lattice:
    """The optimistic lattice of cell masses (docs/derivations/engine.md).
    Derivation: docs/derivations/engine.md."""
    K = kappa.size - 2
    k, p, m, lc, known = cells(kappa, pi, kmin, step) if located is None else located
    # cells [0, J) lie below EXP_SAFE entirely
    J = int(min(max(math.floor(EXP_SAFE / step) - kmin, 0), K))
    by_q = ~known
    by_q[J:] = True
    q = np.zeros(K + 1)
    if J > 0:
        nu, lost, lowest = contract(m[:J], np.where(by_q[:J], 0.0, p[:J]), kmin, step)
        with np.errstate(under="ignore"):
            q[:J + 1] = nu * np.exp((kmin + np.arange(J + 1)) * step)
        total = math.fsum(lost[lost != 0.0])          # exact; most cells lose nothing
        rest = compensate(q[:J + 1], total, lowest, step)
        if rest > 0.0:
            # what compensation could not give back, where it was lost (engine.md)
            q[:J] += lost * (rest / total)
    q[:K] += np.where(by_q, k, 0.0)
    q[K] += float(kappa[-1])
    return Lattice(step, kmin, q, q_inf, 0.0, OPTIMISTIC)


def contract(m: np.ndarray, p: np.ndarray, kmin: int,
             step: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Contract atoms (P-mass p_c at loss m_c ∈ [l_c, l_c + Δ]) onto grid points.
    Derivation: docs/derivations/engine.md."""
    K = m.size
    lc = (kmin + np.arange(K)) * step
    h = math.expm1(step)
    nu = np.zeros(K + 1)
    left = np.zeros(K)
    # (0) atoms on a grid point (up to rounding) are already where they belong
    on = (m - lc) <= 1e-12 * step
    nu[:-1] += np.where(on, p, 0.0)
    p = np.where(on, 0.0, p)
    # relative distances, each formed once: (m_c − x_c)/x_c and (x_{c+1} − m_c)/x_{c+1}
    g_down = np.expm1(m - lc)
    g_next = -np.expm1(m[:-1] - lc[1:])
    # (2a) adjacent pairs onto x_{c+1}, mean kept (units x_{c+1}; docs/derivations/engine.md)
    rest = p.copy()
    if K >= 2:
        a, b = 0.5 * p[:-1], 0.5 * p[1:]
        ga = g_next                                     # x_{c+1} − m_c
        gb = g_down[1:]                                 # m_{c+1} − x_{c+1}
        wa, wb = a * ga, b * gb
        more = wa > wb
        # every quotient that is kept is finite: where wa > wb ≥ 0, ga > 0; the other
        # is taken only where gb > 0 (the discarded ones are silenced)
        with np.errstate(divide="ignore", invalid="ignore"):
            a2 = np.where(more, wb / ga, a)
            b2 = np.where(more, b, np.where(gb > 0, wa / gb, 0.0))
        np.minimum(a2, a, out=a2)
        np.minimum(b2, b, out=b2)
        nu[1:K] += a2 + b2
        rest[:-1] -= a2
        rest[1:] -= b2
        np.maximum(rest, 0.0, out=rest)
    half = 0.5 * rest
    # (2b) pair cell c with cell c + 2 onto grid points c + 1, c + 2 (units x_{c+1})
    if K >= 3:
        a, b = half[:-2], half[2:]
        gap_a = g_next[:-1]                                   # m_c below x_{c+1}
        gap_b = math.exp(step) * g_down[2:]                   # m_{c+2} above x_{c+2}
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
    Derivation: docs/derivations/engine.md."""
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


def _merge_with_grid(left: np.ndarray, nu: np.ndarray, g_down: np.ndarray, g_up: np.ndarray,
                     step: float, down: bool, biggest: bool = False) -> None:
    """Merge each leftover atom with the nearest (or the largest) grid mass below/above.
    Derivation: docs/derivations/engine.md."""
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
    if down and biggest:
        req, partner = req[ok], cand[ok]
        land = req
        H = -np.expm1((partner - req) * step)
        g = g_down[req]
    elif biggest:
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


def _merge_leftovers(left: np.ndarray, m: np.ndarray, nu: np.ndarray, lc: np.ndarray,
                     g_down: np.ndarray, offset: int) -> None:
    """Pair consecutive leftover atoms a < b: b lands on x_b with a share of a.
    Derivation: docs/derivations/engine.md."""
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
