"""Certified accounting of random allocation ("balls in bins") with Gaussian steps.

Each record is in exactly k of the t steps of an epoch, chosen uniformly (Chua et al.,
AISTATS 2025, arXiv 2412.16802; Feldman & Shenfeld 2025, arXiv 2502.08202). For k = 1
the dominating pair is N(0, σ²I_t) against (1/t) Σ_i N(e_i, σ²I_t), whose likelihood
ratio is the mean of t log-normals; ``_block_laws`` brackets its law (a mean-preserving
spread and a contraction on a grid), the engine composes blocks and epochs in each
direction, and the result is symmetrised once. k > 1 is reduced to k single allocations
(Feldman & Shenfeld 2025; concurrent composition, Vadhan & Zhang 2023). The derivation,
what the bracket means for 1 < k < t, and why no "Poisson with rate q′" shortcut is
offered: docs/derivations/random-allocation.md.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy.special import ndtr

from fdp import _validate
from fdp._numerics import bisect_monotone
from fdp.engine import (
    DEFAULT_TOL,
    MAX_POINTS,
    OPTIMISTIC,
    PESSIMISTIC,
    Atoms,
    GridBudgetExceeded,
    Lattice,
    Numeric,
    Prebuilt,
    compose,
    convolve,
)
from fdp.families.finite_pair import binary_power
from fdp.families.gaussian import Gaussian, normal_cells
from fdp.operations.min_certified import MinCertified
from fdp.operations.rdp_bound import RDPBound

_U = np.finfo(float).eps / 2.0
#: A spread block: (P-law, Q-law, n·Q-mass at Y = ∞, steps, flagged P-mass or None).
PessBlock = tuple[Lattice, Lattice, float, int, "float | None"]
#: A quantised block: (A, Q_A, B⁺, B⁻, steps).
OptBlock = tuple[Lattice, Lattice, Lattice, Lattice, int]
#: ``_block_laws``: per direction (y, mass, infinite atom, ℓ1 error) and (y, mass, ℓ1 error).
PessLaws = tuple[tuple[np.ndarray, np.ndarray, float, float],
                 tuple[np.ndarray, np.ndarray, float, float]]
OptLaws = tuple[tuple[np.ndarray, np.ndarray, float], tuple[np.ndarray, np.ndarray, float]]
#: The Z tail beyond exp(s²/2 + Z_SD·s) (s = 1/σ) is flagged: Q-mass Φ(−Z_SD) ≈ 4e-11,
#: added to δ once per block.
Z_SD = 6.5
#: Far upper tails of partial sums whose Q-mass is ≤ SUM_TAIL (read through the FFT
#: noise) are flagged (pessimistic) or dropped (optimistic).
SUM_TAIL = 1e-15
#: Large σ: Z concentrates near 1 and a grid from 0 is mostly empty. The OFFSET grid
#: then covers only [e^{−s²/2 − c·s}, e^{s²/2 + c·s}], c = OFFSET_SD: the P-mass below
#: and above and the Q-mass above are Φ(−c) ≈ 9.5e-18 each per coordinate, and any
#: block with a coordinate (or a partial sum) outside is flagged as a whole.
OFFSET_SD = 8.5
#: Largest y-grid of one coordinate (σ below ≈ 0.62 needs more: refused, see below).
MAX_Y_POINTS = 4_000_000


def _check(noise_multiplier: float, steps: int, selected: int,
           epochs: int) -> tuple[float, int, int, int]:
    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    t = _validate.positive_int("steps", steps)
    k = _validate.positive_int("selected", selected)
    if k > t:
        raise ValueError(f"selected must lie in [1, steps={t}] (each record is allocated "
                         f"to k of the t steps), got {k}")
    e = _validate.positive_int("epochs", epochs)
    return sigma, t, k, e


def _check_grid(sigma: float, t: int, k: int, tol: float) -> None:
    """Refuse, before any convolution, a block whose y-grid sum cannot fit the budget.

    The sum S of n coordinates has P-mean n (E_P Z = 1) and Q-mean n − 1 + e^{s²} ≥ n;
    its arrays start at index n·m (the coordinates' first cell) and are cut only
    where the Q-tail is below SUM_TAIL, above the Q-mean up to a negligible
    SUM_TAIL·n·J. The last convolution of ``_block_laws`` therefore has at least
    n·(1/h − m) points: over ``lattice.MAX_POINTS`` it would be refused after the
    smaller ones had run, so it is refused here, naming the largest steps that could
    fit (a necessary bound: a run just below it may still reach the limit).
    """
    n = -(-t // k)                                   # the largest block
    if n == 1:
        return
    _, h, m, _, _ = _coordinate(sigma, tol)
    per_step = 1.0 / h - m
    if n * per_step <= MAX_POINTS:
        return
    n_max = max(int(MAX_POINTS // per_step), 1)
    raise ValueError(
        f"steps={t} is too many for the certified random-allocation grid at "
        f"noise_multiplier={sigma:g}, tol={tol:g}: a block of {n:,} steps needs at least "
        f"{n * per_step:.3g} grid points, over the engine limit of {MAX_POINTS:,} "
        f"(lattice.MAX_POINTS); steps must be at most {k * n_max:,} at selected={k} "
        "(or use a larger tol or selected)")


def _too_many_blocks(t: int, k: int, e: int, tol: float, points: int) -> str:
    """Why a composition over k·epochs blocks is refused: its grid, the limit, and about
    how many epochs fit (the composed grid grows about like epochs^{3/4}: its width
    like √N, the step like N^{−1/4})."""
    fit = int(e * (MAX_POINTS / max(points, 1)) ** (4.0 / 3.0))
    advice = (f"epochs must be at most about {fit:,}" if fit >= 1
              else "no number of epochs fits")
    return (f"epochs={e} (with steps={t}, selected={k}) is too many for the certified "
            f"random-allocation grid at tol={tol:g}: composing {k * e:,} blocks needs about "
            f"{points:,} grid points, over the engine limit of {MAX_POINTS:,} "
            f"(lattice.MAX_POINTS); {advice} (or use a larger tol)")


def blocks(steps: int, selected: int) -> list[tuple[int, int]]:
    """[(block size, number of blocks)] of the k > 1 reduction
    (docs/derivations/random-allocation.md)."""
    small, big = divmod(steps, selected)
    out = [(small, selected - big)]
    if big:
        out.append((small + 1, big))
    return [(n, c) for n, c in out if c > 0]


# ----------------------------------------------------------------------
# One coordinate: Z = e^L, L ~ N(−s²/2, s²) under P
# ----------------------------------------------------------------------
def _cell_masses(s: float, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P-mass and first moment E_P[Z; cell] of Z on [0, e_1), [e_1, e_2), …, [e_J, ∞)
    for positive edges e_1 < … < e_J (E_P[Z; ·] is the Q-law of L = log Z,
    N(+s²/2, s²)); tail-accurate differences as in the engine
    (``fdp.families.gaussian.normal_cells``)."""
    le = np.log(edges)
    return normal_cells((le + s * s / 2) / s), normal_cells((le - s * s / 2) / s)


def _log_h(s: float, tol: float) -> float:
    """log of the y-grid step h = √tol·sd Z, sd Z = √(e^{s²} − 1), for any s > 0."""
    x = s * s
    if x > 1.0:
        log_var = x + math.log1p(-math.exp(-x))
    elif x > 1e-8:
        log_var = math.log(math.expm1(x))
    else:
        log_var = 2.0 * math.log(s)           # e^{s²} − 1 = s²(1 + s²/2 + …)
    return 0.5 * math.log(tol) + 0.5 * log_var


def _log_y_points(sigma: float, tol: float) -> float:
    """log of the y-grid size of one coordinate (the smaller of the grid from 0,
    z_max/h with z_max = e^{s²/2 + Z_SD·s}, and the offset grid, (z_hi − z_lo)/h), in
    log space: finite for every σ > 0 (inf where s² overflows)."""
    s = 1.0 / sigma
    if not math.isfinite(s * s):
        return math.inf
    log_h = _log_h(s, tol)
    from_zero = s * s / 2 + Z_SD * s - log_h
    span = s * s + 2.0 * OFFSET_SD * s                   # log(z_hi / z_lo)
    offset = s * s / 2 + OFFSET_SD * s + math.log(-math.expm1(-span)) - log_h
    return min(from_zero, offset)


# J(σ) falls as σ grows up to about this σ and then stays flat (the offset grid).
_SIGMA_FEWEST_POINTS = 6.0


def _sigma_range(tol: float) -> tuple[float, float] | None:
    """[σ_lo, σ_hi]: the σ whose y-grid fits ``MAX_Y_POINTS`` at this tol (None: none;
    σ_hi = inf: every σ ≥ σ_lo)."""
    cap = math.log(MAX_Y_POINTS)
    mid = _SIGMA_FEWEST_POINTS
    if _log_y_points(mid, tol) > cap:
        return None
    fits = np.vectorize(lambda x: _log_y_points(float(x), tol) <= cap)
    _, lo = bisect_monotone(fits, 1e-3, mid, rtol=1e-3)
    if fits(1e300):
        return float(lo), math.inf
    over, _ = bisect_monotone(lambda x: ~fits(x), mid, 1e300, rtol=1e-3)
    return float(lo), float(over)


#: Smallest y-grid step: doubles near Z = 1 are 2.2e-16 apart, so a cell edge m·h is
#: then placed to within 2.2e-7 of a cell. Reached only for σ ≥ √tol·1e9 (1e7 at the
#: default tol), where a step's likelihood ratio lies within 1e-6 of 1.
MIN_Y_STEP = 1e-9


def _coordinate(sigma: float, tol: float) -> tuple[float, float, int, int, float]:
    """(s, h, m, J, tail_q): grid step h, cells m … J − 1 (m = 0: the grid from 0;
    m > 0: the offset grid, used where it has under half the points or the grid from
    0 would be too long) and the Q-mass E_P[Z; Z > Jh] of the flagged upper tail."""
    if _log_y_points(sigma, tol) > math.log(MAX_Y_POINTS):
        raise ValueError(_refusal(sigma, tol))
    s = 1.0 / sigma
    var = math.expm1(s * s)
    h = math.sqrt(tol) * math.sqrt(var) if var > 0.0 else math.exp(_log_h(s, tol))
    if h < MIN_Y_STEP:
        raise ValueError(_refusal(sigma, tol))
    J = int(math.ceil(math.exp(s * s / 2 + Z_SD * s) / h))
    m = 0
    lo = int(math.floor(math.exp(-s * s / 2 - OFFSET_SD * s) / h))
    hi = int(math.ceil(math.exp(s * s / 2 + OFFSET_SD * s) / h))
    if lo >= 1 and (2 * (hi - lo) < J or J > MAX_Y_POINTS):
        m, J = lo, hi
    if J - m > MAX_Y_POINTS:
        raise ValueError(_refusal(sigma, tol))
    tail_q = float(ndtr(-(math.log(J * h) - s * s / 2) / s))   # E_P[Z; Z > Jh]
    return s, h, m, J, tail_q


def _sigma_max(tol: float) -> float:
    """The σ above which the y-grid step is below ``MIN_Y_STEP`` (h ≈ √tol/σ there)."""
    return math.sqrt(tol) / MIN_Y_STEP


def _refusal(sigma: float, tol: float) -> str:
    """Why σ is refused, with the σ range that this tol allows."""
    log_points = _log_y_points(sigma, tol)
    points = f"about {math.exp(log_points):.3g}" if log_points < 700.0 else "over 1e304"
    fallback = ("the full-batch bound: one allocation of k steps is at least as private "
                "as Gaussian(sqrt(k)/σ) composed over the epochs")
    span = _sigma_range(tol)
    if span is None:
        return (f"tol={tol:g} is too small for the certified random-allocation grid at any "
                f"noise_multiplier (more than {MAX_Y_POINTS:,} points per step); use a "
                f"larger tol, or {fallback}")
    lo, hi = span
    hi = min(hi, _sigma_max(tol))
    size = "small" if sigma < _SIGMA_FEWEST_POINTS else "large"
    allowed = f"≥ {lo:.3g}" if hi == math.inf else f"in [{lo:.3g}, {hi:.3g}]"
    if size == "large" and sigma > _sigma_max(tol):
        points = (f"a step of {math.exp(_log_h(1.0 / sigma, tol)):.2g} below the "
                  f"resolution {MIN_Y_STEP:g} of doubles near a likelihood ratio of 1")
    else:
        points += f" points per step, limit {MAX_Y_POINTS:,}"
    return (f"noise_multiplier={sigma:g} is too {size} for the certified random-"
            f"allocation grid: {points}; at "
            f"tol={tol:g} noise_multiplier must be {allowed}; use a larger tol, or "
            f"{fallback}")


def _lat(arr: np.ndarray, h: float, side: str, slack: float = 0.0, k0: int = 0) -> Lattice:
    return Lattice(h, k0, arr, 0.0, slack, side)


def _mix(c1: Lattice, w1: float, c2: Lattice, w2: float) -> Lattice:
    """w1·c1 + w2·c2 (non-negative weights summing to 1, the same offset k0), slacks
    and noise mixed."""
    assert c1.k0 == c2.k0
    n = max(c1.q.size, c2.q.size)
    out = np.zeros(n)
    out[:c1.q.size] += w1 * c1.q
    out[:c2.q.size] += w2 * c2.q
    lat = _lat(out, c1.step, c1.side, w1 * c1.slack + w2 * c2.slack, c1.k0)
    object.__setattr__(lat, "noise", w1 * c1.__dict__.get("noise", 0.0)
                       + w2 * c2.__dict__.get("noise", 0.0))
    return lat


def _cut(lat: Lattice, cut: int) -> Lattice:
    return _lat(lat.q[:cut].copy(), lat.step, lat.side, lat.slack, lat.k0)


def _pess_coordinate(s: float, h: float, m: int, J: int, tail_q: float) -> PessBlock:
    """(P-law, Q-law, w, 1, flagged P-mass) of one spread coordinate on hZ (module
    docstring): cells [jh, (j+1)h), m ≤ j < J, each split between its ends keeping its
    mean. The grid from 0 (m = 0) sends the tail's P-mass to Z = 0 (⊥_P, its own
    likelihood ratio) and reports None for the flagged P-mass; the offset grid
    (m > 0) flags a block with a coordinate below mh or above Jh as a whole: that
    P-mass is returned (read at Y = 0 by the remove direction), its Q-mass joins w
    (Y = ∞)."""
    p, mu = _cell_masses(s, np.arange(max(m, 1), J + 1) * h)
    p_tail, p = float(p[-1]), p[:-1]                  # cells [jh, (j+1)h), j < J; the tail
    mu = mu[:-1]
    low_p = low_q = 0.0
    if m > 0:                                          # [0, mh): flagged
        low_p, low_q, p, mu = float(p[0]), float(mu[0]), p[1:], mu[1:]
    j = np.arange(m, J)
    up = np.clip((mu - j * h * p) / h, 0.0, p)       # mean-preserving split of each cell
    a = np.zeros(J - m + 1)
    a[:-1] += p - up
    a[1:] += up
    flagged = None
    if m == 0:
        a[0] += p_tail                                 # ⊥_P: likelihood ratio 0
    else:
        flagged = p_tail + low_p
    qh = a * (np.arange(m, J + 1) * h)                 # Q-law of the finite part
    return (_lat(a, h, PESSIMISTIC, k0=m), _lat(qh, h, PESSIMISTIC, k0=m),
            tail_q + low_q, 1, flagged)


def _opt_coordinate(s: float, h: float, m: int, J: int) -> OptBlock:
    """(A, Q_A, B⁺, B⁻, 1) of one quantised coordinate (docs/derivations/random-allocation.md):
    cells
    [(j − ½)h, (j + ½)h) centred on j·h, m ≤ j < J (the first from 0 when m = 0);
    the mass outside is dropped."""
    if m == 0:
        p, mu = _cell_masses(s, (np.arange(J) + 0.5) * h)
        p, mu = p[:-1], mu[:-1]                         # the tail beyond (J − ½)h
    else:
        p, mu = _cell_masses(s, (np.arange(m, J + 1) - 0.5) * h)
        p, mu = p[1:-1], mu[1:-1]                       # below (m − ½)h and the tail
    g = np.arange(m, J) * h
    b = mu - g * p                                     # E[Z − j h; cell j]
    eb = float(np.sum(2.0 * _U * (mu + g * p))) + 1e-300
    return (_lat(p, h, OPTIMISTIC, k0=m), _lat(g * p, h, OPTIMISTIC, k0=m),
            _lat(np.maximum(b, 0.0), h, OPTIMISTIC, eb, m),
            _lat(np.maximum(-b, 0.0), h, OPTIMISTIC, eb, m), 1)


def _high_cut(lat: Lattice) -> int:
    """Smallest index c whose tail of the Q-law ``lat`` holds at most SUM_TAIL, read
    with values below the transform's round-off level taken as 0.

    Any cut is valid (the pessimistic side flags what it cuts, the optimistic side
    drops it, and the array's distance to the exact measure is in the slack either
    way); reading through the noise only keeps the cut tight."""
    a = lat.q
    thr = lat.__dict__.get("noise", 0.0) / max(a.size, 1)
    tail = np.cumsum(np.maximum(a - thr, 0.0)[::-1])[::-1]
    over = np.flatnonzero(tail > SUM_TAIL)
    return int(over[-1]) + 1 if over.size else 1


def _pess_add(x: PessBlock, y: PessBlock) -> PessBlock:
    """Sum of two independent blocks. The Q-law of S_{a+b}/(a+b) is
    (a/(a+b))·Q_a * P_b + (b/(a+b))·P_a * Q_b (the mixture Q is linear), so both laws
    are convolutions of non-negative arrays with ℓ1 round-off bounds; the add
    direction reads the Q-law, the remove direction the P-law (each error ≤ its ℓ1).

    On the offset grid a block is flagged when either part is (independent events):
    P-mass z_a + z_b − z_a z_b, and n·Q-mass w_a(1 − z_b) + a·z_b + w_b(1 − z_a) + b·z_a
    (under the mixture the b steps of the other part follow P)."""
    (pa, qa, wa, na, za), (pb, qb, wb, nb, zb) = x, y
    n = na + nb
    P = convolve(pa, pb)
    Q = _mix(convolve(qa, pb), na / n, convolve(pa, qb), nb / n)
    cut = min(_high_cut(Q), P.q.size)
    if za is None:
        w, z = wa + wb, None
    else:
        assert zb is not None               # both parts are on the same (offset) grid
        w = wa * (1.0 - zb) + na * zb + wb * (1.0 - za) + nb * za
        z = za + zb - za * zb
    if cut < Q.q.size:
        w += n * float(np.sum(Q.q[cut:]))               # flagged: Q-mass to ⊥_Q (Y = ∞)
        tail = float(np.sum(P.q[cut:]))
        if z is None:                                   # and P-mass to ⊥_P (Y = 0)
            P = _lat(np.concatenate([[P.q[0] + tail], P.q[1:cut]]),
                     P.step, PESSIMISTIC, P.slack)
        else:
            z += tail
            P = _cut(P, cut)
        Q = _cut(Q, cut)
    return P, Q, w, n, z


def _opt_add(x: OptBlock, y: OptBlock) -> OptBlock:
    """Sum of two independent quantised blocks: A, Q_A as ``_pess_add``;
    B = A₁*B₂ + B₁*A₂ (split into its positive and negative parts)."""
    (A1, Q1, P1, M1, n1), (A2, Q2, P2, M2, n2) = x, y
    n = n1 + n2
    A = convolve(A1, A2)
    Q = _mix(convolve(Q1, A2), n1 / n, convolve(A1, Q2), n2 / n)
    Bp = _mix(convolve(A1, P2), 0.5, convolve(P1, A2), 0.5)
    Bm = _mix(convolve(A1, M2), 0.5, convolve(M1, A2), 0.5)
    cut = min(_high_cut(Q), A.q.size)

    def keep(lat: Lattice, scale: float = 1.0) -> Lattice:
        out = _lat(scale * lat.q[:cut], lat.step, OPTIMISTIC, scale * lat.slack, lat.k0)
        return out
    return keep(A), keep(Q), keep(Bp, 2.0), keep(Bm, 2.0), n


def _block_laws(sigma: float, n: int, tol: float) -> tuple[PessLaws, OptLaws]:
    """Certified laws of Y for one single allocation over n steps.

    Returns (pess, opt) with, for each direction, atoms (y, mass) and the ℓ1 error
    η of the masses (δ moves by at most η):
    pess = ((y, Q-mass, q_inf, η_Q), (y, P-mass, p_zero, η_P)) — the add direction
    reads the Q-law (Q-mass q_inf at y = ∞), the remove direction the P-law (P-mass
    p_zero at y = 0);
    opt = ((y, Q-mass, η), (y, P-mass, η)) — atoms at the Jensen positions, moved
    by their round-off bound to the side that lowers that direction's δ.
    """
    s, h, m0, J, tail_q = _coordinate(sigma, tol)
    P, Q, w, _, z = binary_power(_pess_coordinate(s, h, m0, J, tail_q), n, _pess_add)
    y = (Q.k0 + np.arange(Q.q.size)) * (h / n)
    if z is None:                 # the grid from 0: index 0 is y = 0 (⊥_P)
        pess = ((y[1:], Q.q[1:].copy(), w / n, Q.slack),
                (y[1:P.q.size], P.q[1:].copy(), float(P.q[0]), P.slack))
    else:                         # offset grid: y > 0 throughout, flagged P-mass at 0
        pess = ((y, Q.q.copy(), w / n, Q.slack),
                (y[:P.q.size], P.q.copy(), z, P.slack))
    A, QA, Bp, Bm, _ = binary_power(_opt_coordinate(s, h, m0, J), n, _opt_add)
    m = A.q.size
    a = A.q
    b = np.zeros(m)
    b[:min(m, Bp.q.size)] += Bp.q[:m]
    b[:min(m, Bm.q.size)] -= Bm.q[:m]
    qa = np.zeros(m)
    qa[:min(m, QA.q.size)] += QA.q[:m]
    g = (A.k0 + np.arange(m)) * h
    eta_b = Bp.slack + Bm.slack
    live = a > 0
    a, b, g, qa = a[live], b[live], g[live], qa[live]
    # Jensen: the true conditional mean lies within n·h/2 of g (|r_j| ≤ h/2) and
    # within |ΔB(g)|/A(g) ≤ η_B/A(g) (plus rounding) of the computed one
    lo, hi = np.maximum(g - n * h / 2, 0.0), g + n * h / 2
    centre = np.clip(g + b / a, lo, hi)
    # add side: Q-mass of an atom = (g·A + B)/n, its ℓ1 error ≤ η_QA + η_B/n, and
    # δ_add reads Q-masses with weights ≤ 1; remove side (Lipschitz e^ε in y): each
    # atom is moved up by its own bound
    y_add = np.maximum(centre * (1.0 - 1e-13), lo) / n
    q_add = np.maximum(qa + a * (y_add - g / n), 0.0)      # Q_A = g·A/n already
    y_rem = np.minimum(centre * (1.0 + 1e-13) + eta_b / a, hi) / n
    opt = ((y_add, q_add, QA.slack + eta_b / n + 1e-13 + 2 * _U * n),
           (y_rem, a, A.slack))
    return pess, opt


# ----------------------------------------------------------------------
# Onto the loss lattice
# ----------------------------------------------------------------------
def _block(pess: PessLaws, opt: OptLaws, variance: float) -> Prebuilt:
    """One block's law as the engine's ``Prebuilt`` factor: for each direction the
    pessimistic and optimistic atoms, which the engine puts on its loss lattice with
    its own discretisers (connect the dots, contraction).

    Add direction: atoms at losses log y with their Q-masses (P-masses Q/y);
    remove direction, the reflected pair (Q, P): losses −log y, Q-masses = the
    P-masses, P-masses = y·P.
    """
    (y, qm, q_inf, eta_q), (yr, pm, p0, eta_p) = pess
    live = (qm > 0) & (y > 0)
    add_p = Atoms(np.log(y[live]), qm[live], qm[live] / y[live], q_inf, p0, eta_q)
    live = (pm > 0) & (yr > 0)
    rem_p = Atoms(-np.log(yr[live]), pm[live], pm[live] * yr[live], p0, q_inf, eta_p)
    (ya, qa, eta_a), (yo, po, eta_r) = opt
    live = (qa > 0) & (ya > 0)
    add_o = Atoms(np.log(ya[live]), qa[live], qa[live] / ya[live], slack=eta_a)
    live = (po > 0) & (yo > 0)
    rem_o = Atoms(-np.log(yo[live]), po[live], po[live] * yo[live], slack=eta_r)
    return Prebuilt((add_p, add_o), (rem_p, rem_o), variance)


def _loss_variance(pess: PessLaws) -> float:
    y, qm, _, _ = pess[0]
    live = (qm > 0) & (y > 0)
    w = qm[live] / qm[live].sum()
    L = np.log(y[live])
    m = float(w @ L)
    return float(w @ (L - m) ** 2)


# ----------------------------------------------------------------------
# Public
# ----------------------------------------------------------------------
def random_allocation(noise_multiplier: float, steps: int, selected: int = 1, epochs: int = 1,
                      tol: float | None = None) -> Numeric:
    """Certified trade-off function of random allocation with Gaussian steps.

    Every step adds N(0, σ²C²) to the clipped gradient sum; neighbours add or remove
    one record. Both directions are bracketed, composed over the blocks and epochs and
    symmetrised once (the pair and the k > 1 reduction: the module docstring).

    For k = 1 (and k = t) the bracket brackets the true curve. For 1 < k < t it is
    the bracket of the reduction's upper bound: ``f`` and the upper ε are certified
    for the true allocation, but the optimistic side (``bounds()[1]``, the lower ε
    of ``epsilon_bounds``) bounds only the reduction, not the truth; the repr says
    so.

    Parameters
    ----------
    noise_multiplier : float
        σ > 0 (noise standard deviation in units of the clipping norm; add/remove
        sensitivity 1). At the default tol, σ outside about [0.62, 1e7] is refused
        when a block has more than one step (k < t): below, the grid of one step's
        likelihood ratio would be too long; above, its step would be finer than
        doubles resolve near 1 (the error names the range for the tol given).
    steps, selected, epochs : int
        t ≥ 1 steps per epoch, k ∈ [1, t] of them per record, ≥ 1 epochs (independent
        allocations).
    tol : float, optional
        As in ``compose_numeric`` (default 1e-4); the bracket is certified whatever
        its width.

    Examples
    --------
    Each record in 10 of 100 steps: the reduction's ε ≈ 2.4265 (the value of
    dp_accounting's random-allocation pull request, the same reduction), below
    Poisson sampling at q = 0.1 (2.675); only the upper end bounds the truth:

    >>> from fdp.sgd import random_allocation
    >>> f = random_allocation(2.0, 100, selected=10, tol=1e-2)
    >>> lo, hi = f.epsilon_bounds(1e-6)
    >>> bool(lo <= 2.4265 <= hi < 2.675)
    True
    """
    sigma, t, k, e = _check(noise_multiplier, steps, selected, epochs)
    tol = DEFAULT_TOL if tol is None else _validate.real("tol", tol, low=0.0, low_open=True,
                                                         high=1.0)
    _check_grid(sigma, t, k, tol)
    groups = []
    for n, count in blocks(t, k):
        if n == 1:
            # a block of one step is the Gaussian mechanism G_{1/σ} itself (both
            # directions): the engine's own lattices of the closed form, not the y-grid
            block = Prebuilt(Gaussian(1.0 / sigma), None, 1.0 / sigma ** 2)
        else:
            pess, opt = _block_laws(sigma, n, tol)
            block = _block(pess, opt, _loss_variance(pess))
        groups.append((block, count * e))
    label = (f"random_allocation(sigma={sigma:g}, steps={t}, selected={k}, epochs={e})"
             "  # add/remove neighbours")
    if 1 < k < t:
        label += ("; k > 1: bracket of the reduction's upper bound (its lower side "
                  "is not a lower bound of the true allocation)")
    try:
        f = compose(groups, tol, directions=("f", "inverse"), label=label)
    except GridBudgetExceeded as exc:
        # refused before any transform (``fdp.engine``: the n-fold power's window)
        raise ValueError(_too_many_blocks(t, k, e, tol, exc.points)) from exc
    # A second certified upper bound of the same run: publishing which k steps hold the
    # record leaves k Gaussian releases G_{1/σ} per epoch (post-processing), k·E in all,
    # whose Rényi curve λ/(2σ²) per release is exact (Mironov 2017, Prop 7). It decides
    # where the engine's grid no longer resolves δ (many epochs, small δ).
    rdp = RDPBound.of_factors([(Gaussian(1.0 / sigma), k * e)])
    if rdp is None:
        return f
    rdp = replace(rdp, source=f"{k * e} Gaussian releases G_{{1/σ}} (the steps that hold "
                              "the record published), Rényi curve converted by Canonne, "
                              "Kamath & Steinke 2020, Prop 12")
    return MinCertified(f.pess, f.opt, f.label, f.tol, source=f.source,
                        eps_width=f.eps_width, rdp_recipe=rdp)


def epochs_of(sample_rate: float, steps: int, *, partial: str) -> tuple[int, int]:
    """(t, epochs) for DP-SGD's (sample_rate, steps) with one of t = 1/q steps per epoch.

    ``sample_rate`` must be 1/t for an integer t. A last partial epoch is a prefix of a
    full one, i.e. a post-processing of it: ``partial="up"`` counts it as a full epoch
    (valid for an upper bound on the privacy loss), ``partial="down"`` drops it (valid
    for a lower bound).
    """
    q = _validate.real("sample_rate", sample_rate, low=0.0, high=1.0, low_open=True)
    t = round(1.0 / q)
    if t < 1 or abs(t * q - 1.0) > 1e-9:
        raise ValueError(f"sample_rate must be 1/t for a whole number t of steps per epoch "
                         f"(each record is in exactly one of t steps), got {q!r}")
    T = _validate.positive_int("steps", steps)
    e = -(-T // t) if partial == "up" else T // t
    if e < 1:
        raise ValueError(f"steps={T} is less than one epoch of t={t} steps; a lower "
                         "bound needs at least one full epoch")
    return t, e


def from_dpsgd(noise_multiplier: float, sample_rate: float, steps: int,
               tol: float | None = None) -> Numeric:
    """``fdp.dpsgd(σ, q, T, sampling="random_allocation")``: k = 1 of t = 1/q steps per
    epoch, ⌈T/t⌉ epochs (a last partial epoch counted whole)."""
    t, e = epochs_of(sample_rate, steps, partial="up")
    return random_allocation(noise_multiplier, t, 1, e, tol=tol)
