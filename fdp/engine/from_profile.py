"""Functions known only through β or δ: their lattices from the privacy profile.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import contextlib
import math
import weakref
from collections.abc import Callable

import numpy as np
from scipy.special import expit

from fdp._constants import LOGIT_SEARCH, PROFILE_SCAN, PROFILE_TAIL
from fdp._numerics import golden_max
from fdp._types import FloatArray
from fdp.engine.connect_dots import grid_range
from fdp.engine.contraction import contract_masses
from fdp.engine.lattice import PESSIMISTIC, Lattice
from fdp.law import PrivacyLossLaw
from fdp.tradeoff import TradeOff

# ε scanned for the range of a profile-only f; below its start the chord from (0, 1)
# takes over (safe for the pessimistic side; the optimistic side drops Q-mass ≤ e^{−20})
SCAN = np.linspace(*PROFILE_SCAN)

_TANGENT_GRID = np.concatenate([np.linspace(LOGIT_SEARCH[0], -40.0, 60, endpoint=False),
                                np.linspace(-40.0, LOGIT_SEARCH[1], 801)])


def _tangent_alpha(beta: Callable[[FloatArray], FloatArray], eps: np.ndarray) -> np.ndarray:
    """α*(ε) = argmax_α (1 − β(α) − e^ε α), in logit(α): a grid, then golden section.
    Derivation: docs/derivations/engine.md."""
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

    def objective(u: FloatArray) -> FloatArray:
        a = expit(u)
        return 1.0 - beta(a) - y * a
    return expit(golden_max(objective, lo, hi, iters=80))


def profile_range(f: TradeOff) -> tuple[float, float]:
    """Losses carrying all but ~PROFILE_TAIL of the mass, read off δ and the tangent points.
    Derivation: docs/derivations/engine.md."""
    try:
        hit = _RANGES.get(f)
    except TypeError:                     # unhashable (a user function holding arrays)
        return _profile_range(f)
    if hit is not None:
        return hit
    value = _profile_range(f)
    with contextlib.suppress(TypeError):  # not weakly referenceable: not cached
        _RANGES[f] = value
    return value


_RANGES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _looks_symmetric(f: TradeOff) -> bool:
    x = np.linspace(0.01, 0.99, 49)
    return bool(np.max(np.abs(f._beta(f._beta(x)) - x)) < 1e-9)


def _profile_range(f: TradeOff) -> tuple[float, float]:
    d = f._delta(SCAN)
    d_inf = float(f._delta(np.array([np.inf]))[0])
    above = np.flatnonzero(d - d_inf > PROFILE_TAIL)
    hi = SCAN[above[-1] + 1] if above.size and above[-1] + 1 < SCAN.size else SCAN[-1]
    # Q(L < ε) read at f⁻¹'s tangent point at −ε, where it keeps its precision (engine.md)
    upper = _upper_law(f)
    if upper is not None:
        q_below = _q_below(upper, SCAN)
    else:
        inv = f if (f.symmetric or _looks_symmetric(f)) else f.inverse()
        q_below = _tangent_alpha(inv._upper, -SCAN)
    low = np.flatnonzero(q_below <= PROFILE_TAIL)
    lo = SCAN[low[-1]] if low.size else SCAN[0]
    if hi <= lo:
        hi = lo + 1.0
    return float(lo), float(hi)


def from_profile(f: TradeOff, step: float, side: str) -> Lattice:
    """The ``side`` lattice of a function known through its privacy profile only.
    Derivation: docs/derivations/engine.md."""
    kmin, kmax = grid_range(profile_range(f), step)
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
    upper = _upper_law(f)
    if upper is not None:
        masses = upper.interval_masses(grid)
        assert masses is not None           # an upper law places its masses (AtomsLaw)
        kappa, pi, q_inf, _ = masses
        return contract_masses(kappa, pi, q_inf, kmin, step)
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
    return contract_masses(kappa, pi, 1.0 - f0, kmin, step)


def _upper_law(f: TradeOff) -> PrivacyLossLaw | None:
    """``f._upper_law()`` when f offers it (docs/derivations/engine.md), else None."""
    hook = getattr(f, "_upper_law", None)
    return None if hook is None else hook()


def _q_below(law: PrivacyLossLaw, eps: np.ndarray) -> np.ndarray:
    """Q(L < ε) of a law, from its interval masses (Q(L < e_0) is the first cell)."""
    masses = law.interval_masses(eps)
    assert masses is not None               # callers pass laws that place their masses
    kappa = masses[0]
    return np.cumsum(kappa)[:-1]
