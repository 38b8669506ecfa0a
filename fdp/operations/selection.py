"""Optimal composition of adaptively chosen ε-bounded-range selections.

Derivation: docs/derivations/operations.md.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from fdp import _validate
from fdp._types import ArrayLike, FloatArray, FloatOrArray
from fdp.bracket import Bracket
from fdp.families.bounded_range import BoundedRange
from fdp.families.finite_pair import FinitePair
from fdp.families.identity import Identity
from fdp.operations.compose import compose
from fdp.operations.selection_recursion import (
    EPS_MIN,
    K_MAX,
    ROUND,
    cells_per_eps,
    profile_recursion,
)
from fdp.status import Status
from fdp.tradeoff import TradeOff, meet_width

#: A grid's upper envelope of lines (``_hull``): losses, δ values and breakpoints.
Hull = tuple[FloatArray, FloatArray, FloatArray]

# -- Optimal composition of adaptively chosen ε-BR mechanisms
#: Largest loss range kε of one block of the fallback beyond K_MAX (see there).
BLOCK_RANGE = 500.0


def _hull(x: FloatArray, d: FloatArray) -> Hull:
    """Upper envelope of the lines α ↦ 1 − d_i − e^{x_i} α (x_i ≤ 700), by slope.

    Returns (x, d, breakpoints) of the envelope lines in order of increasing slope
    −e^{x}, i.e. decreasing x: line r is the maximum on [bp_{r−1}, bp_r].
    """
    keep = (x <= 700.0) & (d < 1.0)
    xs, ds = x[keep][::-1], d[keep][::-1]          # slopes −e^x increasing
    X = np.exp(xs)
    hx: list[float] = []
    hd: list[float] = []

    # α where line 1 (steeper) meets line 2
    def cross(i1: float, d1: float, i2: float, d2: float) -> float:
        return (d2 - d1) / (i1 - i2)

    for xi, Xi, di in zip(xs, X, ds):
        while len(hx) >= 2:
            X1, d1 = np.exp(hx[-2]), hd[-2]
            X2, d2 = np.exp(hx[-1]), hd[-1]
            if cross(X1, d1, Xi, di) <= cross(X1, d1, X2, d2):
                hx.pop()
                hd.pop()
            else:
                break
        hx.append(xi)
        hd.append(di)
    ax, ad = np.array(hx), np.array(hd)
    Xh = np.exp(ax)
    bp = (ad[1:] - ad[:-1]) / (Xh[:-1] - Xh[1:])
    return ax, ad, bp


def _pair_from_lines(x: FloatArray, d: FloatArray, *, pessimistic: bool) -> FinitePair:
    """The finite pair whose curve is the upper envelope of 1 − d_i − e^{x_i} α on [0, 1].

    Derivation: docs/derivations/operations.md.
    """
    hx, hd, bp = _hull(x, d)
    if hx.size == 0:   # no usable line: the trivially safe pair on each side
        if pessimistic:
            return FinitePair.from_atoms([np.inf, -np.inf], [0.0, 1.0], [1.0, 0.0])
        return FinitePair.from_atoms([0.0], [1.0], [1.0])
    edges = np.clip(np.concatenate([[0.0], bp, [1.0]]), 0.0, 1.0)
    edges = np.maximum.accumulate(edges)
    pm = np.diff(edges)
    with np.errstate(over="ignore", invalid="ignore"):
        qm = np.where(pm > 0.0, np.exp(hx) * pm, 0.0)
    total = math.fsum(qm)
    if total > 1.0:
        qm = qm / total
    if not pessimistic:
        # The envelope may end above 0 at α = 1 (the cells' upper bound); a trade-off
        # curve ends at 0. Replace its tail by the chord from the vertex minimising
        # β_r/(1 − α_r) to (1, 0): the largest convex curve below the envelope with
        # f(1) = 0, hence still above the truth. In pair terms, merge the atoms from
        # that vertex on into one carrying the rest of both masses.
        a_v = np.concatenate([[0.0], np.cumsum(pm)])
        b_v = np.maximum(1.0 - np.concatenate([[0.0], np.cumsum(qm)]), 0.0)
        live = a_v < 1.0 - 1e-15
        with np.errstate(divide="ignore"):
            ratio = np.where(live, b_v / np.where(live, 1.0 - a_v, 1.0), np.inf)
        r = int(np.argmin(ratio))
        pm = np.append(pm[:r], 1.0 - a_v[r])
        qm = np.append(qm[:r], b_v[r])
        with np.errstate(divide="ignore"):
            hx = np.append(hx[:r], np.log(b_v[r]) - np.log(pm[-1]) if b_v[r] > 0 else -np.inf)
        return FinitePair.from_atoms(hx, pm, qm)
    if pessimistic:
        # Lower every Q-mass by a few ulps and give the deficit to the atom of the
        # largest loss: the curve only drops (at α inside that atom the first
        # slope steepens; beyond it Q(rejected) grows), with no mass at +∞.
        qm = qm * (1.0 - 64 * ROUND)
        top = int(np.flatnonzero(pm > 0.0)[0])
        qm[top] += max(0.0, 1.0 - math.fsum(qm))
    return FinitePair.from_atoms(hx, pm, qm)


class _Blocked(TradeOff):
    """The f-DP composition of optimal blocks: lower side from the blocks' pessimistic
    pairs, upper side from their optimistic pairs (both composed by ``fdp.compose``).

    Safe (f-DP composition holds for adaptively chosen blocks) but not optimal: the
    k-fold optimum lies on or above it, and its repr says so."""

    __slots__ = ("eps", "high", "k", "low")
    eps: float
    k: int
    low: TradeOff
    high: TradeOff

    def __init__(self, eps: float, k: int, low: TradeOff, high: TradeOff) -> None:
        for name, val in (("eps", eps), ("k", k), ("low", low), ("high", high)):
            object.__setattr__(self, name, val)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("the composition is immutable")

    def __repr__(self) -> str:
        return (f"compose_selections(eps={self.eps!r}, k={self.k!r})"
                "  # optimal blocks composed: safe, not optimal")

    @property
    def symmetric(self) -> bool:
        return True

    @property
    def status(self) -> Status:
        return Status.CERTIFIED

    def _beta(self, alpha: FloatArray) -> FloatArray:
        return self.low._beta(alpha)

    def _upper(self, alpha: FloatArray) -> FloatArray:
        return np.maximum(self.high._upper(alpha), self.low._beta(alpha))

    def _delta(self, x: FloatArray) -> FloatArray:
        return self.low._delta(x)

    def _delta_lower(self, x: FloatArray) -> FloatArray:
        return np.minimum(self.high._delta_lower(x), self.low._delta(x))

    def epsilon(self, delta: ArrayLike) -> FloatOrArray:
        """Certified upper ε of the blocked composition (the engine's own read-out)."""
        return self.epsilon_bounds(delta)[1]

    def epsilon_bounds(self, delta: ArrayLike, width: float | None = None) -> Bracket:
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        hi = self.low.epsilon_bounds(d)[1]
        lo = np.minimum(self.high.epsilon_bounds(d)[0], hi)
        meet_width(self, width, lo, hi, "epsilon(delta)")
        return Bracket(_validate.like_input(delta, lo), _validate.like_input(delta, hi),
                       self.status)

    def latex(self) -> str:
        return rf"\mathrm{{BR}}_{{{self.eps:g}}}^{{\circledast {self.k}}}"


class SelectionComposition(TradeOff):
    """k adaptively chosen ε-BR mechanisms, composed optimally (certified bracket).

    Derivation: docs/derivations/operations.md.
    """

    __slots__ = ("_first", "_h", "_hulls", "_lo", "_lo_next", "_up", "_x", "eps", "k")
    eps: float
    k: int
    _x: FloatArray
    _up: FloatArray
    _lo: FloatArray
    _lo_next: FloatArray
    _hulls: dict[int, Hull]
    _h: float
    _first: float

    def __init__(self, eps: float, k: int, M: int | None = None) -> None:
        eps = _validate.real("eps", eps, low=0.0, low_open=True)
        k = _validate.positive_int("k", k)
        if M is not None:
            M = _validate.positive_int("M", M)
        else:
            M = cells_per_eps(k, eps)
        x, up, lo = profile_recursion(eps, k, M)
        lo_next = np.append(lo[1:], 0.0)
        for name, val in (("eps", eps), ("k", k), ("_x", x), ("_up", up), ("_lo", lo),
                          ("_lo_next", lo_next), ("_hulls", {}),
                          ("_h", eps / M), ("_first", float(x[0]))):
            object.__setattr__(self, name, val)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("SelectionComposition is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is SelectionComposition and (self.eps, self.k, self._h) == (
            other.eps, other.k, other._h)

    def __hash__(self) -> int:
        return hash(("SelectionComposition", self.eps, self.k, self._h))

    def __repr__(self) -> str:
        return f"compose_selections(eps={self.eps!r}, k={self.k!r})"

    @property
    def symmetric(self) -> bool:
        return True          # each GRR_t's inverse is GRR_{ε−t}

    @property
    def status(self) -> Status:
        return Status.CERTIFIED

    def _pos(self, x: ArrayLike, side: int) -> npt.NDArray[np.intp]:
        """Grid position at or below (side=-1) / at or above (side=+1) each x."""
        r = (np.asarray(x, dtype=float) - self._first) / self._h
        with np.errstate(invalid="ignore"):
            p = np.floor(r) if side < 0 else np.ceil(r)
        p = np.clip(np.nan_to_num(p, posinf=self._x.size - 1, neginf=0), 0,
                    self._x.size - 1).astype(np.int64)
        # the division rounds, and so does the float grid point i·h against the
        # real one i·ε/M: step to the safe neighbour unless x is clearly past it
        xf = np.nan_to_num(np.asarray(x, dtype=float), posinf=1e300, neginf=-1e300)
        ulps = 8e-16 * np.abs(xf) + 1e-300
        if side < 0:
            return np.where((self._x[p] > xf - ulps) & (p > 0), p - 1, p)
        return np.where((self._x[p] < xf + ulps) & (p < self._x.size - 1), p + 1, p)

    def _profile(self, x: ArrayLike, arr: FloatArray, side: int, extra: float) -> FloatArray:
        x = np.asarray(x, dtype=float)
        # k·ε rounded outwards: δ = 0 only at or above the true range of the loss
        S = float(np.nextafter(self.k * self.eps, np.inf))
        exact = -np.expm1(np.minimum(x, 0.0)) * (1.0 + extra)
        inside = arr[self._pos(x, side)]
        return np.where(x >= S, 0.0, np.where(x <= -S, np.minimum(exact, 1.0), inside))

    def _delta(self, x: FloatArray) -> FloatArray:
        """Upper δ: the chord in e^x between the grid points around x.

        δ(x) = sup_α (1 − f(α) − e^x α) is convex in e^x, so its chord between two
        grid points lies above it, and so does the chord of the upper values.
        """
        x = np.asarray(x, dtype=float)
        step = self._profile(x, self._up, -1, ROUND)
        i = self._pos(x, -1)
        j = np.minimum(i + 1, self._x.size - 1)
        with np.errstate(over="ignore", invalid="ignore"):
            w = np.expm1(x - self._x[i]) / np.expm1(self._h)
        w = np.clip(np.nan_to_num(w, nan=1.0), 0.0, 1.0)
        chord = (1.0 - w) * self._up[i] + w * self._up[j]
        inside = (x > self._x[0]) & (x < self._x[-1])
        return np.where(inside, np.minimum(step, chord * (1.0 + ROUND)), step)

    def _delta_lower(self, x: FloatArray) -> FloatArray:
        """Lower δ: the lower value at the grid point above x, or a convex extrapolation.

        Derivation: docs/derivations/operations.md.
        """
        x = np.asarray(x, dtype=float)
        step = self._profile(x, self._lo, +1, -ROUND)
        size = self._x.size
        i = self._pos(x, -1)
        ok = (i >= 1) & (i + 2 < size) & (x > self._x[0]) & (x < self._x[-1])
        i = np.clip(i, 1, size - 3)
        h = self._h
        # d rounded up: both extrapolations only drop as d grows
        d = (x - self._x[i]) + 2e-15 * (np.abs(x) + np.abs(self._x[i])) + 1e-300
        lo_i, lo_n, up_p, up_nn = self._lo[i], self._lo[i + 1], self._up[i - 1], self._up[i + 2]
        with np.errstate(over="ignore", invalid="ignore"):
            cl = np.expm1(d) / -np.expm1(-h)
            cr = -np.expm1(d - h) / np.expm1(h)
            left = lo_i - (up_p - lo_i) * cl
            right = lo_n + (lo_n - up_nn) * cr
            slack = 1e-15 * (lo_i + lo_n + (up_p + lo_i) * cl + (lo_n + up_nn) * np.abs(cr))
        extra = np.nan_to_num(np.maximum(left, right) - slack, nan=0.0, neginf=0.0, posinf=0.0)
        return np.where(ok, np.maximum(step, np.minimum(extra, 1.0)), step)

    def _read(self, alpha: FloatArray, d: FloatArray) -> FloatArray:
        """max_i (1 − d_i − e^{x_i} α) over the grid lines with x_i ≤ 700, for α ≥ 0.

        Derivation: docs/derivations/operations.md.
        """
        key = id(d)
        hull = self._hulls.get(key)
        if hull is None:
            hull = _hull(self._x, d)
            self._hulls[key] = hull
        xs, ds, bp = hull
        a = np.asarray(alpha, dtype=float)
        if xs.size == 0:      # every line below x = 700 has d = 1 (δ ≈ 1 there): no line
            return np.full(a.shape, np.nan)
        pos = np.searchsorted(bp, a)
        best = np.full(a.shape, -np.inf)
        for shift in (-1, 0, 1):
            j = np.clip(pos + shift, 0, xs.size - 1)
            with np.errstate(over="ignore"):
                val = 1.0 - ds[j] - np.exp(xs[j]) * a
            best = np.maximum(best, val)
        return best

    def _beta(self, alpha: FloatArray) -> FloatArray:
        a = np.asarray(alpha, dtype=float)
        # lower: every grid point's supporting line lies below f (δ ≤ up)
        val = np.nan_to_num(self._read(a, self._up), nan=0.0) - 2.0 * ROUND
        tail = np.exp(-self.k * self.eps) * (1.0 - a)     # the line of x = −S, exact
        val = np.maximum(val, tail * (1.0 - ROUND))
        return np.clip(np.where(a <= 0.0, 1.0, val), 0.0, 1.0 - a)

    def _upper(self, alpha: FloatArray) -> FloatArray:
        a = np.asarray(alpha, dtype=float)
        # upper: on [x_i, x_{i+1}] the line is at most 1 − δ(x_{i+1}) − e^{x_i} α
        val = np.nan_to_num(self._read(a, self._lo_next), nan=1.0) + 2.0 * ROUND
        val = np.where(a < 1e-300, 1.0, val)
        return np.clip(np.where(a <= 0.0, 1.0, val), 0.0, 1.0 - a)

    def latex(self) -> str:
        return rf"\mathrm{{BR}}_{{{self.eps:g}}}^{{\circledast {self.k}}}"

    def pessimistic_pair(self) -> FinitePair:
        """A finite pair whose trade-off curve is at most this one (its safe side)."""
        return _pair_from_lines(self._x, self._up, pessimistic=True)

    def optimistic_pair(self) -> FinitePair:
        """A finite pair whose trade-off curve is at least this one (its upper side)."""
        return _pair_from_lines(self._x, self._lo_next, pessimistic=False)


def compose_selections(eps: float, k: int) -> TradeOff:
    """k adaptively chosen ε-bounded-range selections, composed optimally.

    Derivation: docs/derivations/operations.md. ``eps`` ≥ 0 is each selection's
    bounded-range parameter (the exponential mechanism's in the 2Δ convention), k ≥ 1.

    ``BoundedRange(eps)`` for k = 1 (exact); for 2 ≤ k ≤ K_MAX = 1666 a
    ``SelectionComposition``, the optimal adaptive composition as a certified bracket
    (lower side: an adversary strategy's value; upper side: a proven bound of the optimum).
    For k > K_MAX the f-DP composition of optimal blocks (``_Blocked``): safe (DRS Thm
    3.2) but NOT optimal, as its repr says; for ε < 8e-10 ``BoundedRange(eps) ** k``:
    safe, not optimal (kε < 2e-6).

    Examples
    --------
    >>> import fdp
    >>> f = fdp.compose_selections(1.0, 10)
    >>> lo, hi = f.epsilon_bounds(1e-6)
    >>> hi < 8.83          # the RDP bounded-range accountant gives 8.83
    True
    """
    eps = _validate.real("eps", eps, low=0.0)
    k = _validate.positive_int("k", k)
    if eps == 0.0:
        return Identity()
    if k == 1:
        return BoundedRange(eps)
    if eps < EPS_MIN:
        return BoundedRange(eps) ** k      # kε < 2e-6: no grid resolves it
    if k <= K_MAX:
        return SelectionComposition(eps, k)
    # blocks of loss range at most BLOCK_RANGE: their finite pairs then keep every
    # line of the profile (``_hull`` reads x ≤ 700 only)
    size = max(2, min(K_MAX, int(BLOCK_RANGE / eps)))
    n, r = divmod(k, size)
    blocks = [SelectionComposition(eps, size)] + ([SelectionComposition(eps, r)] if r > 1 else [])
    low: list[TradeOff] = [b.pessimistic_pair() for b in blocks]
    high: list[TradeOff] = [b.optimistic_pair() for b in blocks]
    if r == 1:
        low.append(BoundedRange(eps))
        high.append(BoundedRange(eps))
    counts = [n] + [1] * (len(low) - 1)
    return _Blocked(eps, k, compose(*[f for f, c in zip(low, counts) for _ in range(c)]),
                    compose(*[f for f, c in zip(high, counts) for _ in range(c)]))
