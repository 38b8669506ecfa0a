"""Privacy-loss measures on a lattice (the engine's data type) and their read-back.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from fdp._constants import FLUSH_BELOW
from fdp._numerics import bisect_monotone
from fdp._types import FloatArray
from fdp.law import p_masses

_U = np.finfo(float).eps / 2.0  # unit round-off
# The engine's memory budget in grid points, checked before allocation: derivations/engine.md.
MAX_POINTS = 2 ** 25
BYTES_PER_POINT = 100
PESSIMISTIC, OPTIMISTIC = "pessimistic", "optimistic"


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a_i b_i without BLAS (``np.einsum``'s own loop). Derivation: docs/derivations/engine.md."""
    return float(np.einsum("i,i->", a, b))


class GridBudgetExceeded(MemoryError):
    """A grid over the engine's memory budget was refused BEFORE it was allocated.
    Derivation: docs/derivations/engine.md.

    Examples
    --------
    >>> from fdp.engine import GridBudgetExceeded
    >>> GridBudgetExceeded("grid of 4e9 points refused", points=4_000_000_000).points
    4000000000
    """

    def __init__(self, message: str, points: int = 0) -> None:
        super().__init__(message)
        self.points = points


def check_size(n: int, what: str = "lattice") -> None:
    """Raise GridBudgetExceeded before an array of n grid points (over MAX_POINTS) is formed."""
    if n > MAX_POINTS:
        raise GridBudgetExceeded(
            f"the {what} would need {n:,} grid points, over the engine limit of "
            f"{MAX_POINTS:,} (lattice.MAX_POINTS, about "
            f"{MAX_POINTS * BYTES_PER_POINT / 2**30:.1f} GB of work arrays); "
            "increase tol (a coarser grid) or reduce the number of steps", n)


# Read-back tables stay cached on lattices of fewer points: derivations/engine.md.
TABLES_KEPT_BELOW = 2 ** 18
_HOLDS_LOCK = threading.Lock()     # the hold counts of lattices read on two threads


_T = TypeVar("_T")


def _holding_tables(method: Callable[..., _T]) -> Callable[..., _T]:
    """A read-back method that keeps the tables for its own duration (its inner
    queries share them) and lets a large lattice drop them afterwards."""
    @functools.wraps(method)
    def read(self: Lattice, *args: Any, **kwargs: Any) -> _T:
        with self.tables_held():
            return method(self, *args, **kwargs)
    return read


def tables_held_for(lattices: Iterable[Lattice]) -> ExitStack:
    """``Lattice.tables_held`` of several lattices at once (a context manager)."""
    stack = ExitStack()
    for lat in lattices:
        stack.enter_context(lat.tables_held())
    return stack


# masses below this are flushed to 0 (subnormals slow every FFT; ``fdp._constants``)
TINY = FLUSH_BELOW


def flush(q: np.ndarray) -> tuple[np.ndarray, float]:
    """Zero the masses below TINY; returns the array and the (ℓ1) mass removed."""
    small = (q < TINY) & (q != 0)
    if not small.any():
        return q, 0.0
    removed = float(np.abs(q[small]).sum())
    q[small] = 0.0
    return q, removed


def _block(n: int) -> int:
    """Block length ≈ √n (a power of two, at least 16): balances the two recursions."""
    return max(16, 1 << max(0, round(math.log2(max(n, 1)) / 2)))


def suffix_error(n: int) -> float:
    """Relative round-off bound of ``suffix_sums`` on n terms: (2B + 2⌈n/B⌉ + 6)·u."""
    b = _block(n)
    return (2 * b + 2 * (-(-n // b)) + 6) * _U


# Elements per chunk of ``suffix_sums``'s row-wise passes: derivations/engine.md.
_SUFFIX_CHUNK = 2 ** 16
# Elements transposed at a time by the in-block recursion: derivations/engine.md.
_RECURSE_CHUNK = 2 ** 20


def _recurse_rows(rows: np.ndarray, decay: float) -> None:
    """y_k = x_k + decay·y_{k−1} along every row of ``rows``, in place: one rounding for
    the product and one for the sum per term (the same operations, in the same order,
    as a first-order recursive filter). Rows are taken _RECURSE_CHUNK elements at a
    time and transposed, so each of the b − 1 steps is one contiguous vector operation
    over the chunk's rows."""
    nb, b = rows.shape
    step = max(1, _RECURSE_CHUNK // b)
    for r0 in range(0, nb, step):
        cols = np.ascontiguousarray(rows[r0:r0 + step].T)    # (b, rows of the chunk)
        tmp = np.empty(cols.shape[1])
        for k in range(1, b):
            np.multiply(cols[k - 1], decay, out=tmp)
            cols[k] += tmp
        rows[r0:r0 + step] = cols.T


def _recurse_list(x: np.ndarray, decay: float) -> np.ndarray:
    """y_i = x_i + decay·y_{i−1} along a short vector (the block sums), in doubles."""
    out = x.tolist()
    for i in range(1, len(out)):
        out[i] = out[i] + decay * out[i - 1]
    return np.array(out, dtype=float)


def suffix_sums(q: np.ndarray, decay: float, block: int | None = None) -> np.ndarray:
    """S_j = Σ_{i ≥ j} q_i decay^{i−j} for non-negative q, 0 < decay ≤ 1, blocked.
    Derivation: docs/derivations/engine.md."""
    n = q.size
    b = _block(n) if block is None else block
    nb = -(-n // b)
    # one buffer, worked in place, becomes the result: q reversed and padded at the
    # end, so row r is the r-th block from the top, reversed (blocks end where q ends)
    buf = np.empty(nb * b)
    buf[:n] = q[::-1]
    buf[n:] = 0.0
    rows = buf.reshape(nb, b)
    step = max(1, _SUFFIX_CHUNK // b)             # rows per chunk of the update
    if decay == 1.0:
        np.cumsum(rows, axis=1, out=rows)
    else:
        _recurse_rows(rows, decay)
    tot = rows[:, -1]                         # each block's sum at its first element
    if decay == 1.0:
        before = np.concatenate([[0.0], np.cumsum(tot)[:-1]])   # S just above each block
        rows += before[:, None]               # weight decay^k = 1 exactly
    else:
        carry = _recurse_list(tot, decay ** b)
        before = np.concatenate([[0.0], carry[:-1]])
        with np.errstate(under="ignore"):
            weight = decay ** (np.arange(b) + 1.0)           # decay^{distance to the block above}
        tmp = np.empty((min(step, nb), b))
        for r0 in range(0, nb, step):
            part = rows[r0:r0 + step]
            t = tmp[:part.shape[0]]
            np.multiply(before[r0:r0 + step, None], weight[None, :], out=t)
            part += t
    return buf[::-1][nb * b - n:]


@dataclass(frozen=True, eq=False)
class Lattice:
    """Measure ``q`` on losses (k0 + i)·step, atom ``q_inf`` at +inf, δ-slack ``slack``.
    Derivation: docs/derivations/engine.md.

    Examples
    --------
    >>> import numpy as np, fdp.engine
    >>> fdp.engine.Lattice(0.5, -2, np.array([0.25, 0.5, 0.25]), 0.0, 0.0, "pessimistic").k0
    -2
    """

    step: float
    k0: int
    q: np.ndarray
    q_inf: float
    slack: float
    side: str
    noise: float = 0.0
    p_neginf: float | None = None
    # read-back tables (suffix sums; Neyman–Pearson vertices), filled on first use; the
    # suffix sums of a large lattice only while a read-back holds them (``tables_held``)
    _tables_cache: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _np_cache: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _mass_cache: float | None = field(default=None, init=False, repr=False, compare=False)
    _holds: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.side not in (PESSIMISTIC, OPTIMISTIC):
            raise ValueError(f"side must be {PESSIMISTIC!r} or {OPTIMISTIC!r}, got {self.side!r}")
        if self.q.ndim != 1 or self.q.size == 0:
            raise ValueError("a lattice needs at least one grid point")

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_tables_cache"] = state["_np_cache"] = None    # recomputed on demand
        state["_mass_cache"] = None
        state["_holds"] = 0
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # -- Basic facts
    @property
    def losses(self) -> np.ndarray:
        return (self.k0 + np.arange(self.q.size)) * self.step

    @property
    def finite_mass(self) -> float:
        """Σ q (the Q-mass of the finite losses)."""
        mass = self._mass_cache
        if mass is None:
            mass = float(np.sum(self.q))
            object.__setattr__(self, "_mass_cache", mass)
        return mass

    @property
    def mass(self) -> float:
        """Total Q-mass (finite atoms and +inf); 1 up to the documented losses."""
        return self.finite_mass + self.q_inf

    def moments(self) -> tuple[float, float]:
        """Mean and variance of L under Q restricted to finite atoms (normalised)."""
        w = self.q / max(self.finite_mass, 1e-300)
        L = self.losses
        m = _dot(w, L)
        return m, _dot(w, (L - m) ** 2)

    # -- Read-back: δ(ε) and β(α) of the lattice measure (no slack)
    def _tables(self, start: int = 0) -> tuple[int, np.ndarray, np.ndarray]:
        """(s, tail_q, tail_r) with s ≤ start: Q(L ≥ l_j) and R_j = Σ_{i ≥ j} q_i e^{−(l_i − l_j)}
        for j ≥ s (entry j − s), by blocked suffix sums (nothing over/underflows;
        round-off bounded by ``readback``). Derivation: docs/derivations/engine.md."""
        cache = self._tables_cache
        if cache is None or cache[0] > start:
            s = max(0, min(int(start), self.q.size - 1))
            b = _block(self.q.size)
            part = self.q[s:]
            cache = (s, suffix_sums(part, 1.0, b), suffix_sums(part, math.exp(-self.step), b))
            object.__setattr__(self, "_tables_cache", cache)
        return cache

    def _search_start(self, t: np.ndarray) -> int:
        """An index s ≥ −1 such that (very likely) δ(l_s) > t for every target t, from
        the coarse tail of Q; −1 stands for the whole lattice. Only a hint: the caller
        checks δ(l_s) > t on its tables and falls back to −1.
        Derivation: docs/derivations/engine.md."""
        n = self.q.size
        b = 1024
        tmax = float(np.max(t)) if t.size else 0.0
        if n < 16 * b or not (math.isfinite(tmax) and tmax >= 0.0):
            return -1
        nb = n // b
        off = n - nb * b                                   # blocks aligned at the top
        tail = np.cumsum(self.q[off:].reshape(nb, b).sum(axis=1)[::-1])[::-1]
        ok = np.flatnonzero(0.35 * tail > tmax)
        if not ok.size:
            return -1
        return max(-1, off + int(ok[-1]) * b - math.ceil(0.5 / self.step) - 1)

    @contextmanager
    def tables_held(self) -> Iterator[Lattice]:
        """Keep the read-back tables through a block of several queries (nested blocks
        and the queries' own holds count); when the last block ends, a lattice of
        TABLES_KEPT_BELOW points or more forgets them. Each read-back method holds
        them for its own duration, so one query forms them once."""
        with _HOLDS_LOCK:
            object.__setattr__(self, "_holds", self._holds + 1)
        try:
            yield self
        finally:
            with _HOLDS_LOCK:
                holds = self._holds - 1
                object.__setattr__(self, "_holds", holds)
                if holds == 0 and self.q.size >= TABLES_KEPT_BELOW:
                    object.__setattr__(self, "_tables_cache", None)

    @property
    def readback(self) -> float:
        """Bound on the round-off of δ read from this array (suffix sums and the
        final difference; see ``suffix_sums``), in δ at every ε."""
        return 3.0 * suffix_error(self.q.size) * max(self.finite_mass, 1.0)

    @property
    def beta_readback(self) -> float:
        """Bound on the round-off of β read from the Neyman–Pearson vertices: the
        cumulative masses err by ≤ size·u·mass, and a vertex moved by δA in α moves
        β by at most its slope e^{l}·δA ≤ mass·size·u."""
        return 2.0 * (self.q.size + 4) * _U * max(self.mass, 1.0)

    @_holding_tables
    def delta_raw(self, eps: np.ndarray) -> np.ndarray:
        """δ_Q(ε) = q_inf + Σ_{l_k > ε} q_k (1 − e^{ε − l_k}), vectorised in ε."""
        e = np.asarray(eps, dtype=float)
        n = self.q.size
        fin = np.isfinite(e)
        ef = np.where(fin, e, 0.0)
        # first array index whose loss exceeds ε (an atom at l = ε adds 0 either way)
        j = np.floor(ef / self.step) - self.k0 + 1
        j = np.clip(j, 0, n).astype(np.int64)
        inside = j < n
        used = fin & inside
        s, tail_q, tail_r = self._tables(int(np.min(j[used])) if used.any() else n - 1)
        j = np.where(used, j, n - 1)
        lj = (self.k0 + j) * self.step
        part = tail_q[j - s] - np.exp(np.minimum(ef - lj, 0.0)) * tail_r[j - s]
        part = np.where(inside, np.maximum(part, 0.0), 0.0)
        out = self.q_inf + part
        out = np.where(e == np.inf, self.q_inf, out)
        out = np.where(e == -np.inf, self.mass, out)
        return out

    @_holding_tables
    def delta_grid(self, k: np.ndarray) -> np.ndarray:
        """δ_Q(kΔ) at integer multiples k of the step (no interpolation, no floor).
        Derivation: docs/derivations/engine.md."""
        n = self.q.size
        j = np.asarray(k, dtype=np.int64) - self.k0
        nxt = np.clip(j + 1, 0, n - 1)
        s, tail_q, tail_r = self._tables(0 if np.any(j < 0) else int(np.min(nxt, initial=n - 1)))
        inside = np.maximum(tail_q[nxt - s] - math.exp(-self.step) * tail_r[nxt - s], 0.0)
        inside = np.where(j + 1 < n, inside, 0.0)
        if s == 0:
            with np.errstate(under="ignore"):
                below = np.maximum(
                    tail_q[0] - np.exp(np.minimum(j, 0) * self.step) * tail_r[0], 0.0)
            return self.q_inf + np.where(j < 0, below, inside)
        return self.q_inf + inside

    @_holding_tables
    def epsilon_raw(self, target: np.ndarray) -> np.ndarray:
        """Smallest ε ≥ 0 with δ_Q(ε) ≤ target (inf if none), solved cell by cell.
        Derivation: docs/derivations/engine.md."""
        t = np.asarray(target, dtype=float)
        n = self.q.size
        s = self._search_start(t)
        if s >= 0 and not np.all(self.delta_grid(np.array([self.k0 + s])) > t):
            s = -1
        # first grid point with δ(l_j) ≤ t, by integer bisection (δ(l_{n−1}) = q_inf)
        _, hi = bisect_monotone(lambda j: self.delta_grid(self.k0 + j) <= t,
                                np.full(t.shape, s), np.full(t.shape, n - 1),
                                integer=True)
        j = np.maximum(hi, 0)
        jj = np.minimum(j, n - 1)
        s0, tail_q, tail_r = self._tables(int(np.min(jj, initial=n - 1)))
        lj = (self.k0 + jj) * self.step
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.maximum(self.q_inf + tail_q[jj - s0] - t, 0.0)
            eps = lj + np.log(gap / tail_r[jj - s0])
        eps = np.where(gap > 0, np.minimum(eps, lj), lj)    # never past the grid point
        eps = np.where(t < self.q_inf, np.inf, eps)
        if s >= 0 and (self.k0 + s) >= 0:
            return np.maximum(eps, 0.0)                     # δ(0) ≥ δ(l_s) > t
        eps = np.where(t >= float(self.delta_raw(np.zeros(1))[0]), 0.0, np.maximum(eps, 0.0))
        return eps

    def beta_raw(self, alpha: np.ndarray) -> np.ndarray:
        """Neyman–Pearson curve of the lattice: reject the largest losses first.
        Derivation: docs/derivations/engine.md."""
        cache = self._np_cache
        if cache is None:
            p = p_masses(self.q[::-1], self.losses[::-1])
            A = np.concatenate([[0.0], np.cumsum(p)])
            below = np.concatenate([np.cumsum(self.q)[::-1], [0.0]])  # Σ q strictly below
            B = below + (1.0 - self.mass)
            cache = (A, B)
            object.__setattr__(self, "_np_cache", cache)
        A, B = cache
        return np.interp(alpha, A, B)


def reflect(lat: Lattice) -> Lattice:
    """The lattice of the inverse pair T(Q, P) (losses −l, Q-masses p_k = q_k e^{−l_k}).
    Derivation: docs/derivations/engine.md."""
    if lat.slack != 0.0:
        raise ValueError("only a slack-free lattice can be reflected exactly")
    L, q = lat.losses, lat.q
    # log p_k = log q_k − l_k, formed once (−inf where q_k = 0): p as ``p_masses``
    # forms it, and |log p_k| is the spread of the relative error bound
    with np.errstate(divide="ignore"):
        log_p = np.log(q) - L
    with np.errstate(under="ignore", over="ignore"):
        p = np.exp(log_p)
    rel = 4.0 * _U * (np.where(q > 0, np.abs(log_p), 0.0) + 2.0)
    p_up = p * (1.0 + rel)
    slack = 0.0
    if lat.side == OPTIMISTIC:
        q_inf = 0.0
        p = p * (1.0 - rel)
        cut, extra = _reflection_cut(L, q, p_up, lat.q_inf)   # P totals from above
        q, p, L = q[cut:], p[cut:], L[cut:]
        slack += extra
        k0 = lat.k0 + cut
    else:
        p = p_up
        q_inf = lat.p_neginf if lat.p_neginf is not None else max(0.0, 1.0 - math.fsum(p))
        k0 = lat.k0
    return Lattice(lat.step, -(k0 + q.size - 1), p[::-1].copy(), q_inf, slack, lat.side)


# Unit round-off of the long-double sums of a reflection's slack: derivations/engine.md.
_U_LONG = float(np.finfo(np.longdouble).eps) / 2.0


def tail_sum_bounds(x: np.ndarray) -> tuple[float, float]:
    """(lower, upper) bounds of the exact Σ x for non-negative x.
    Derivation: docs/derivations/engine.md.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.engine.lattice import tail_sum_bounds
    >>> lo, hi = tail_sum_bounds(np.full(10, 0.1))
    >>> bool(lo <= 1.0 <= hi and hi - lo < 1e-15)
    True
    """
    n = x.size
    if n == 0:
        return 0.0, 0.0
    total = float(np.sum(x, dtype=np.longdouble))
    err = (n * _U_LONG + 4.0 * _U) * total
    return max(total - err, 0.0), total + err


# Leading atoms (after those without mass) tried for the reflection's cut.
_CUT_HEAD = 64


def _reflection_cut(L: FloatArray, q: FloatArray, p: FloatArray,
                    q_inf: float) -> tuple[int, float]:
    """(j, s): drop atoms [0, j) of an optimistic lattice before reflecting; s bounds
    the reflection's excess max(0, (P_j − 1) + e^{−l_j}·max(0, 1 − Q_j)) (totals P_j,
    Q_j of the atoms kept, Q_j with the lattice's +inf mass), certified. j minimises
    that excess plus the P-mass dropped (what the reflection loses in tightness).
    Derivation: docs/derivations/engine.md."""
    n = q.size
    live = np.flatnonzero((q > 0) | (p > 0))
    z = int(live[0]) if live.size else 0
    m = min(n, z + _CUT_HEAD + 1)
    P_tot = np.sum(p, dtype=np.longdouble)
    Q_tot = np.sum(q, dtype=np.longdouble)
    P_head = np.concatenate([[0.0], np.cumsum(p[:m], dtype=np.longdouble)])
    Q_head = np.concatenate([[0.0], np.cumsum(q[:m], dtype=np.longdouble)])

    def excess(j: int) -> float:
        err = (n + j + 2) * _U_LONG
        P_hi = float(P_tot - P_head[j]) * (1.0 + 2.0 * _U) + err * float(P_tot)
        Q_lo = max(float(Q_tot - Q_head[j]) * (1.0 - 2.0 * _U) - err * float(Q_tot), 0.0)
        short_hi = max(1.0 - (Q_lo + q_inf), 0.0) * (1.0 + 4.0 * _U)
        grow_hi = 0.0
        if short_hi > 0:
            with np.errstate(over="ignore"):
                grow_hi = float(short_hi * np.exp(-L[j]) * (1.0 + 4.0 * _U))
        return max(P_hi - 1.0 + grow_hi, 0.0) + 4.0 * _U * (P_hi + grow_hi + 1.0)

    s = excess(z)
    if not math.isfinite(s):
        return 0, math.inf
    best = (s, z, s)
    dropped = P_head - P_head[z]                      # P-mass of atoms [z, j)
    for j in range(z + 1, m):
        if float(dropped[j]) >= best[0]:
            break
        sj = excess(j)
        best = min(best, (sj + float(dropped[j]), j, sj))
    return best[1], best[2]
