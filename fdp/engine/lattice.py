"""Privacy-loss measures on a lattice, their composition and their read-back.

A ``Lattice`` is a non-negative measure Q on the losses L = kΔ (k = k0, k0+1, …)
plus an atom at L = +inf. It stands for the pair whose likelihood ratio dQ/dP is
e^L, and it is read through the hockey-stick identity (MATH.md §3)

    δ_Q(ε) = Q(L = +inf) + Σ_k q_k (1 − e^{ε − kΔ})₊ .

Composition adds independent losses, so it convolves the measures (the +inf
atoms combine as Q(A=∞)·|Q_B| + Q(B=∞)·|Q_A,finite|). Convolution of
non-negative measures is monotone in each factor for the order "δ_A ≤ δ_B for
every ε", which is what makes the two-sided bracket survive composition
(see the validity argument in ``fdp.engine``).

Each lattice carries a ``slack`` η ≥ 0: the certified distance, in δ at every ε,
between the computed array and the exact lattice measure it represents (FFT
round-off and wrap-around). A pessimistic lattice certifies δ ≤ δ_Q + η, an
optimistic one δ ≥ δ_Q − η. Slacks compose as η_A + η_B·|Q_A| (one line of
algebra from the identity above).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import fft as sfft
from scipy.signal import lfilter

from fdp.law import p_masses

_U = np.finfo(float).eps / 2.0  # unit round-off
# The engine's memory budget, in grid points: every array it forms (discretised
# factors, transform windows, products, read-back curves) is checked against it
# before allocation (``check_size``). At the peak a transform holds about
# BYTES_PER_POINT bytes per point (measured: the window, its spectrum, the result,
# the read-back tables), so MAX_POINTS = 2^25 is about 3 GB.
MAX_POINTS = 2 ** 25
BYTES_PER_POINT = 100
PESSIMISTIC, OPTIMISTIC = "pessimistic", "optimistic"
# Losses the engine handles in linear space (Y = e^L under P): e^700 ≈ 1e304 is
# finite and e^{−700} a normal double, so a P-mass or a likelihood ratio formed for a
# loss in [−EXP_SAFE, EXP_SAFE] neither overflows nor underflows to nothing. Beyond it
# everything is done with Q-masses and differences of losses only.
EXP_SAFE = 700.0
# Losses a discretised factor grids: [−LOSS_WINDOW, LOSS_WINDOW]. Q-mass above it goes
# to +∞ on the pessimistic side and down to the window's edge (Q-mass kept) on the
# optimistic side; below it, up to the edge (pessimistic) or to −∞ (optimistic). Every
# answer with ε below ≈ LOSS_WINDOW − 40 is unaffected by more than e^{−40} relative;
# larger ε (a step that nearly reveals the record) read as ε = ∞ on the safe side.
LOSS_WINDOW = 1000.0


def _fft_gamma(m: int) -> float:
    """Per-coefficient error factor of a length-m FFT: |fl(F x) − F x| ≤ γ ‖x‖₁."""
    return 4.0 * (math.log2(max(m, 2)) + 2.0) * _U


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a_i b_i without BLAS (``np.einsum``'s own loop).

    ``a @ b`` on 1-D arrays goes to the BLAS dot, which with several BLAS threads on a
    busy machine can take a thousand times longer than the product itself; the hot
    loops (Chernoff windows, tilt searches, round-off bounds) call this instead. Its
    round-off is that of a recursive sum (≤ size·u relative for non-negative terms),
    as the bounds that use it assume.
    """
    return float(np.einsum("i,i->", a, b))


def check_size(n: int, what: str = "lattice") -> None:
    """Raise MemoryError before an array of n grid points (over MAX_POINTS) is formed."""
    if n > MAX_POINTS:
        raise MemoryError(
            f"the {what} would need {n:,} grid points, over the engine limit of "
            f"{MAX_POINTS:,} (lattice.MAX_POINTS, about "
            f"{MAX_POINTS * BYTES_PER_POINT / 2**30:.1f} GB of work arrays); "
            "increase tol (a coarser grid) or reduce the number of steps")


NOISE_CROP_CAP = 1e-13  # crops at the noise level remove at most this much mass
TINY = 1e-280   # masses below this are flushed to 0 (subnormals slow every FFT)


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


def suffix_sums(q: np.ndarray, decay: float) -> np.ndarray:
    """S_j = Σ_{i ≥ j} q_i decay^{i−j} for non-negative q, 0 < decay ≤ 1, blocked.

    Suffix recursions inside blocks of B ≈ √n terms (one filter over all blocks),
    then one recursion over the block sums: every sum passes through at most
    B + n/B + 2 roundings, so |computed − exact| ≤ suffix_error(n)·S_j (relative;
    all terms are non-negative) instead of the n·u of a plain running sum.
    """
    n = q.size
    b = _block(n)
    nb = -(-n // b)
    rev = np.zeros(nb * b)
    rev[nb * b - n:] = q                      # padded in front: blocks end where q ends
    rev = rev[::-1].reshape(nb, b)            # row r: the r-th block from the top, reversed
    if decay == 1.0:
        local = np.cumsum(rev, axis=1)
    else:
        local = lfilter([1.0], [1.0, -decay], rev, axis=1)
    tot = local[:, -1]                         # each block's sum at its first element
    if decay == 1.0:
        before = np.concatenate([[0.0], np.cumsum(tot)[:-1]])   # S just above each block
    else:
        carry = lfilter([1.0], [1.0, -decay ** b], tot)
        before = np.concatenate([[0.0], carry[:-1]])
    with np.errstate(under="ignore"):
        weight = decay ** (np.arange(b) + 1.0)               # decay^{distance to the block above}
    out = local + before[:, None] * weight[None, :]
    return out.ravel()[::-1][nb * b - n:]


@dataclass(frozen=True, eq=False)
class Lattice:
    """Measure ``q`` on losses (k0 + i)·step, atom ``q_inf`` at +inf, δ-slack ``slack``.

    Plain data: the defining fields, two facts recorded by whoever built the lattice
    (``noise``: the round-off level of the transform that produced it, used by
    ``crop``; ``p_neginf``: the exact P-mass at L = −∞ of a per-step pessimistic
    lattice, used by ``reflect``), and lazily filled caches (the finite mass, the
    read-back tables) that are not pickled.
    """

    step: float
    k0: int
    q: np.ndarray
    q_inf: float
    slack: float
    side: str
    noise: float = 0.0
    p_neginf: float | None = None
    # read-back tables (suffix sums; Neyman–Pearson vertices), filled on first use
    _tables_cache: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _np_cache: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _mass_cache: float | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.side not in (PESSIMISTIC, OPTIMISTIC):
            raise ValueError(f"side must be {PESSIMISTIC!r} or {OPTIMISTIC!r}, got {self.side!r}")
        if self.q.ndim != 1 or self.q.size == 0:
            raise ValueError("a lattice needs at least one grid point")

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_tables_cache"] = state["_np_cache"] = None    # recomputed on demand
        state["_mass_cache"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ------------------------------------------------------------------
    # Basic facts
    # ------------------------------------------------------------------
    @property
    def losses(self) -> np.ndarray:
        return (self.k0 + np.arange(self.q.size)) * self.step

    @property
    def finite_mass(self) -> float:
        """Σ q (the Q-mass of the finite losses)."""
        if self._mass_cache is None:
            object.__setattr__(self, "_mass_cache", float(np.sum(self.q)))
        return self._mass_cache

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

    # ------------------------------------------------------------------
    # Read-back: δ(ε) and β(α) of the lattice measure (no slack)
    # ------------------------------------------------------------------
    def _tables(self):
        cache = self._tables_cache
        if cache is None:
            # Q(L ≥ l_j) and R_j = Σ_{i ≥ j} q_i e^{−(l_i − l_j)}: blocked suffix sums
            # (nothing over/underflows; round-off bounded by ``readback``)
            cache = (suffix_sums(self.q, 1.0), suffix_sums(self.q, math.exp(-self.step)))
            object.__setattr__(self, "_tables_cache", cache)
        return cache

    def drop_tables_if_large(self, points: int = 2_000_000) -> None:
        """Forget the read-back tables of a huge lattice (two more arrays of its size):
        one-off queries then stay within memory, repeated ones recompute them."""
        if self.q.size > points:
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

    def delta_raw(self, eps: np.ndarray) -> np.ndarray:
        """δ_Q(ε) = q_inf + Σ_{l_k > ε} q_k (1 − e^{ε − l_k}), vectorised in ε."""
        e = np.asarray(eps, dtype=float)
        tail_q, tail_r = self._tables()
        n = self.q.size
        fin = np.isfinite(e)
        ef = np.where(fin, e, 0.0)
        # first array index whose loss exceeds ε (an atom at l = ε adds 0 either way)
        j = np.floor(ef / self.step) - self.k0 + 1
        j = np.clip(j, 0, n).astype(np.int64)
        lj = (self.k0 + j) * self.step
        inside = j < n
        jj = np.minimum(j, n - 1)
        part = tail_q[jj] - np.exp(np.minimum(ef - lj, 0.0)) * tail_r[jj]
        part = np.where(inside, np.maximum(part, 0.0), 0.0)
        out = self.q_inf + part
        out = np.where(e == np.inf, self.q_inf, out)
        out = np.where(e == -np.inf, self.mass, out)
        return out

    def delta_grid(self, k: np.ndarray) -> np.ndarray:
        """δ_Q(kΔ) at integer multiples k of the step (no interpolation, no floor).

        δ(l_j) = q_inf + tail_q[j+1] − e^{−Δ} tail_r[j+1] inside the lattice;
        below it every atom counts: q_inf + tail_q[0] − e^{(k − k0)Δ} tail_r[0].
        """
        tail_q, tail_r = self._tables()
        n = self.q.size
        j = np.asarray(k, dtype=np.int64) - self.k0
        nxt = np.clip(j + 1, 0, n - 1)
        inside = np.maximum(tail_q[nxt] - math.exp(-self.step) * tail_r[nxt], 0.0)
        inside = np.where(j + 1 < n, inside, 0.0)
        with np.errstate(under="ignore"):
            below = np.maximum(
                tail_q[0] - np.exp(np.minimum(j, 0) * self.step) * tail_r[0], 0.0)
        return self.q_inf + np.where(j < 0, below, inside)

    def epsilon_raw(self, target: np.ndarray) -> np.ndarray:
        """Smallest ε ≥ 0 with δ_Q(ε) ≤ target (inf if none), solved cell by cell.

        Between grid points δ(ε) = T_q − e^ε T_p with T_q = q_inf + Σ_{l_i > ε} q_i and
        T_p = Σ_{l_i > ε} q_i e^{−l_i}, so once the cell is located (δ at the grid
        points is non-increasing: integer bisection) ε = l_j + log((T_q − target)/R_j)
        with R_j the discounted suffix sum at l_j. Vectorised in target.
        """
        t = np.asarray(target, dtype=float)
        tail_q, tail_r = self._tables()
        # first grid point with δ(l_j) ≤ t, by integer bisection (δ(l_{n−1}) = q_inf)
        lo = np.full(t.shape, -1, dtype=np.int64)
        hi = np.full(t.shape, self.q.size - 1, dtype=np.int64)
        while np.any(hi - lo > 1):
            mid = (lo + hi) // 2
            ok = self.delta_grid(self.k0 + mid) <= t
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid)
        j = np.maximum(hi, 0)
        jj = np.minimum(j, self.q.size - 1)
        lj = (self.k0 + jj) * self.step
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.maximum(self.q_inf + tail_q[jj] - t, 0.0)
            eps = lj + np.log(gap / tail_r[jj])
        eps = np.where(gap > 0, np.minimum(eps, lj), lj)    # never past the grid point
        eps = np.where(t < self.q_inf, np.inf, eps)
        eps = np.where(t >= float(self.delta_raw(np.zeros(1))[0]), 0.0, np.maximum(eps, 0.0))
        return eps

    def beta_raw(self, alpha: np.ndarray) -> np.ndarray:
        """Neyman–Pearson curve of the lattice: reject the largest losses first.

        Vertices (Σ_{l ≥ l_j} p, 1 − q_inf − Σ_{l ≥ l_j} q) with p_k = q_k e^{−l_k};
        β is accumulated from the bottom so that small β keep full precision.
        """
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

    T(Q, P) = T(P, Q)⁻¹. Pessimistic side: connect-the-dots reflected is exactly
    the connect-the-dots lattice of f⁻¹ (both interpolate
    δ_{f⁻¹}(ε) = 1 − e^ε + e^ε δ_f(−ε) between grid points), so it stays pessimistic.
    The +inf atom of the reflection is the P-mass at L = −∞ (recorded by the
    discretiser as ``p_neginf``, else 1 − Σ p_k).

    Optimistic side: a lattice with totals P = Σ p, Q = Σ q has, for every ε,
    δ_refl(ε) = P − e^ε Q + e^ε δ(−ε) (split the sum at l = −ε), while the pair's
    inverse has 1 − e^ε + e^ε δ_true(−ε). An optimistic lattice has δ ≤ δ_true but
    may have lost Q-mass (rounding down) or gained P-mass (moving mass down in
    Q-space), so its reflection can exceed the truth by (P − 1) + e^ε(1 − Q) — and
    it vanishes for ε above its top loss −l_0. That amount, at the best cut (atoms
    of the lowest losses may be dropped first: dropping an atom only lowers both
    profiles and lowers the top), is the reflection's slack.

    Forming p_k = e^{log q_k − l_k} errs by a relative u(|log q_k − l_k| + 2) at most;
    each p_k is moved by that much to the safe side (up on the pessimistic side,
    down on the optimistic side: δ is increasing in every mass). Only for
    slack-free (per-step) lattices: a slack η at −ε would become e^ε η.
    """
    if lat.slack != 0.0:
        raise ValueError("only a slack-free lattice can be reflected exactly")
    L, q = lat.losses, lat.q
    p = p_masses(q, L)
    with np.errstate(divide="ignore"):
        spread = np.where(q > 0, np.abs(np.log(np.where(q > 0, q, 1.0)) - L), 0.0)
    rel = 4.0 * _U * (spread + 2.0)
    p_up = p * (1.0 + rel)
    slack = 0.0
    if lat.side == OPTIMISTIC:
        q_inf = 0.0
        p = p * (1.0 - rel)
        cut, extra = _reflection_cut(L, q, p_up, lat.mass)   # P totals from above
        q, p, L = q[cut:], p[cut:], L[cut:]
        slack += extra
        k0 = lat.k0 + cut
    else:
        p = p_up
        q_inf = lat.p_neginf if lat.p_neginf is not None else max(0.0, 1.0 - math.fsum(p))
        k0 = lat.k0
    return Lattice(lat.step, -(k0 + q.size - 1), p[::-1].copy(), q_inf, slack, lat.side)


def _reflection_cut(L, q, p, Q_total) -> tuple[int, float]:
    """(j, s): drop atoms [0, j) of an optimistic lattice before reflecting; s is the
    reflection's excess bound max(0, (P_j − 1) + max(0, e^{−l_j}(1 − Q_j))) (totals P_j,
    Q_j of the atoms kept). j minimises s plus the P-mass dropped (what the
    reflection loses in tightness); atoms with no mass are skipped for free."""
    P_rest = math.fsum(p) - np.concatenate([[0.0], np.cumsum(p)[:-1]])
    Q_rest = Q_total - np.concatenate([[0.0], np.cumsum(q)[:-1]])
    short = np.maximum(1.0 - Q_rest, 0.0)
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        grow = np.where(short > 0, np.exp(np.log(np.where(short > 0, short, 1.0)) - L), 0.0)
    # round-off of the totals (fsum of p, running sums of q): a few u each
    s = np.maximum(P_rest - 1.0 + grow, 0.0) + 4.0 * _U * (P_rest + grow + 1.0)
    cost = s + (P_rest[0] - P_rest)
    cost = np.where(np.isfinite(cost), cost, np.inf)
    j = int(np.argmin(cost))
    if not math.isfinite(float(s[j])):
        return 0, math.inf
    return j, float(s[j])


# ----------------------------------------------------------------------
# Composition
# ----------------------------------------------------------------------
def _full_norms(spec: np.ndarray, m: int):
    """(‖X‖₂, ‖X‖₁) of the full length-m spectrum from its rfft half."""
    w = np.full(spec.shape, 2.0)
    w[0] = 1.0
    if m % 2 == 0:
        w[-1] = 1.0
    a = np.abs(spec)
    return math.sqrt(_dot(w, a * a)), _dot(w, a)


def _clip_negatives(x: np.ndarray, mass: float, side: str):
    """Clip round-off negatives and restore the exact mass; returns (x, ℓ1 change).

    Negative entries are round-off (the exact result is a measure). Clipping and
    rescaling the positive part to the known mass move the array by at most
    Σ|negatives| + |Σ clipped − mass| in ℓ1, which is returned so the caller adds
    it to the slack (an ℓ1 change bounds the change of δ at every ε).
    """
    neg = x < 0
    clipped = 0.0
    if neg.any():
        clipped = float(-x[neg].sum())
        x[neg] = 0.0
    total = float(np.sum(x))
    change = abs(total - mass)
    if total > 0 and mass > 0 and change > 0:
        x *= mass / total
    return x, clipped + change


def _combine_inf(a: Lattice, b: Lattice) -> float:
    return a.q_inf * b.mass + b.q_inf * a.finite_mass


def convolve(a: Lattice, b: Lattice) -> Lattice:
    """a ⊗ b by a linear (zero-padded) FFT convolution: no wrap-around.

    Round-off is bounded a posteriori: per coefficient the forward transforms err
    by at most γ‖x‖₁, so in ℓ1 the result errs by at most
    γ(‖A‖₂|b| + ‖B‖₂|a|)(1 + γ) + γ‖A‖₂‖B‖₂ with ‖A‖₂ = √m‖a‖₂ (Parseval),
    which is added to the slack.
    """
    assert a.step == b.step and a.side == b.side
    n = a.q.size + b.q.size - 1
    check_size(n)
    m = sfft.next_fast_len(n, real=True)
    A = sfft.rfft(a.q, m)
    B = sfft.rfft(b.q, m)
    AB = A * B
    out = sfft.irfft(AB, m)[:n]
    g = _fft_gamma(m)
    # Parseval: ‖A‖₂ = √m ‖a‖₂, and ‖AB‖₁ ≤ ‖A‖₂ ‖B‖₂
    na2 = math.sqrt(m * _dot(a.q, a.q))
    nb2 = math.sqrt(m * _dot(b.q, b.q))
    err = g * (na2 * b.finite_mass + nb2 * a.finite_mass) * (1 + g) + g * na2 * nb2
    out, clip_err = _clip_negatives(out, a.finite_mass * b.finite_mass, a.side)
    out, flushed = flush(out)
    clip_err += flushed
    slack = a.slack + b.slack * max(a.mass, 1.0) + err + clip_err
    return Lattice(a.step, a.k0 + b.k0, out, _combine_inf(a, b), slack, a.side,
                   noise=err + clip_err)


def _light_head(q: np.ndarray, tau: float) -> tuple[int, float]:
    """(k, Σ q[:k]) for the largest k with Σ q[:k] ≤ τ; prefixes grow geometrically
    so that a short light tail costs a short running sum."""
    n = q.size
    size = min(n, 4096)
    while True:
        c = np.cumsum(q[:size])
        k = int(np.searchsorted(c, tau, side="right"))
        if k < size or size == n:
            return k, (float(c[k - 1]) if k > 0 else 0.0)
        size = min(n, 4 * size)


def crop(lat: Lattice, tau: float) -> Lattice:
    """Cut tails of Q-mass ≤ τ each, moving them to the safe side; mass is kept.

    The threshold is raised to the lattice's own round-off level (``noise``): FFT
    noise spread over the far tails must not keep them alive, and cropping any
    amount is safe (it only loosens the bound by at most that mass).

    Pessimistic: the low tail moves up to the lowest kept loss (losses only grow,
    so δ only grows), the high tail goes to +inf. Optimistic: the high tail moves
    down to the highest kept loss keeping its Q-mass (δ(ε) = Σ q (1 − e^{ε−l})₊
    only shrinks); the low tail moves up to the lowest kept loss, which raises δ by
    at most its mass s at every ε, so s is added to the slack. Either way the
    Q-mass is unchanged.
    """
    q = lat.q
    tau = max(tau, min(lat.noise, NOISE_CROP_CAP))
    if q.size < 64 or tau <= 0:
        return lat
    lo, low_mass = _light_head(q, tau)                      # q[:lo] has mass ≤ τ
    hi_cut, high_mass = _light_head(q[::-1], tau)            # so do the last hi_cut
    hi = q.size - hi_cut
    if lo >= hi - 1 or (lo == 0 and hi == q.size):
        return lat
    kept = q[lo:hi].copy()
    kept[0] += low_mass
    q_inf, slack = lat.q_inf, lat.slack
    if lat.side == PESSIMISTIC:
        q_inf += high_mass
    else:
        kept[-1] += high_mass
        slack += low_mass
    return Lattice(lat.step, lat.k0 + lo, kept, q_inf, slack, lat.side)


def _tilted_moments(L: np.ndarray, q: np.ndarray, t: float) -> tuple[float, float, float]:
    """(Λ(t), Λ'(t), Λ''(t)) for Λ(t) = log Σ q_k e^{t L_k}, overflow-free."""
    ref = float(L[-1] if t > 0 else L[0])
    w = q * np.exp(t * (L - ref))
    s0 = float(w.sum())
    if not s0 > 0.0:
        return -math.inf, 0.0, 0.0
    m1 = _dot(w, L) / s0
    m2 = _dot(w, (L - m1) ** 2) / s0
    return math.log(s0) + t * ref, m1, m2


def _chernoff_end(L: np.ndarray, q: np.ndarray, n: int, log_tau: float, t0: float) -> float:
    """min over t > 0 of (n Λ(t) − log τ)/t: a bound s with Q(S_n ≥ s) ≤ τ.

    The minimiser solves t Λ'(t) − Λ(t) = −log(τ)/n, whose left side increases
    in t; a few safeguarded Newton steps from t₀ get close, and every evaluated t
    gives a valid bound, so the best one is returned.
    """
    c = -log_tau / n
    t, best = t0, math.inf
    lo_t, hi_t = 0.0, math.inf
    for _ in range(10):
        lam, d1, d2 = _tilted_moments(L, q, t)
        if lam == -math.inf:
            break
        best = min(best, (n * lam - log_tau) / t)
        phi = t * d1 - lam
        if phi < c:
            lo_t = t
        else:
            hi_t = t
        if abs(phi - c) <= 1e-3 * c:
            break
        nxt = t + (c - phi) / max(t * d2, 1e-300)
        if not (lo_t < nxt < hi_t):
            nxt = 0.5 * (lo_t + hi_t) if math.isfinite(hi_t) else 4.0 * t
        t = nxt
    return best


def _tail_window(lat: Lattice, n: int, tau: float) -> tuple[int, int]:
    """Loss-index window [a, b] holding S_n = L_1+…+L_n up to Q-mass τ per tail.

    Chernoff: Q(S_n ≥ s) ≤ exp(n Λ(t) − t s) and Q(S_n ≤ s) ≤ exp(n Λ(−t) + t s),
    Λ the log-MGF of the lattice, for any t > 0 (``_chernoff_end``).
    """
    step = lat.step
    lo_sup = n * lat.k0
    hi_sup = n * (lat.k0 + lat.q.size - 1)
    if n == 1:
        return lo_sup, hi_sup
    live = lat.q > 0
    if not live.any():                  # no finite mass: a one-point window
        return lo_sup, lo_sup
    L = lat.losses[live]
    q = lat.q[live]
    mean, var = lat.moments()
    sd = math.sqrt(max(var, 0.0)) + step
    log_tau = math.log(tau)
    t0 = math.sqrt(-2.0 * log_tau) / (sd * math.sqrt(n))
    s_hi = _chernoff_end(L, q, n, log_tau, t0)
    s_lo = -_chernoff_end(-L[::-1], q[::-1], n, log_tau, t0)
    a = max(lo_sup, math.floor(s_lo / step) - 1) if math.isfinite(s_lo) else lo_sup
    b = min(hi_sup, math.ceil(s_hi / step) + 1) if math.isfinite(s_hi) else hi_sup
    return a, b


# A direct transform of the live band costs (points of the step) × (live frequencies)
# operations; below DIRECT_WORK it is always done, up to DIRECT_MAX when the FFT's
# own round-off bound would be large (above 1e-7: n beyond about 1e7). In between the
# FFT's bound (≤ 1e-7) is what the direct band would roughly give as well at these n
# (measured: slack 1.76e-10 against 1.71e-10 at n = 10⁴) for 5× the time.
DIRECT_WORK = 2.5e5
DIRECT_MAX = 6e7
_CHUNK = 2 ** 22
_TABLE_MAX = 2 ** 23   # residue tables for _direct_band up to this m (2 × 64 MB)


def _direct_band(q: np.ndarray, F: float, freqs: np.ndarray, m: int, n: int):
    """Xⁿ at the given frequencies, centred at an integer k̄, with a relative error bound.

    With θ = 2π((j(k − k̄)) mod m)/m reduced to [−π, π] in exact integer arithmetic,
    X(ω_j) e^{iω_j k̄} = F − D, D = Σ q_k (2 sin²(θ/2) + i sin θ), so every term is
    computed to a few ulps *relative to itself*, and
    log(F − D) = log F + ½ log1p(2 Re z + |z|²) + i atan2(Im z, 1 + Re z), z = −D/F,
    keeps that relative accuracy near ω = 0. The error of n·log X then no longer
    grows like n·u (as |X̂ⁿ − Xⁿ| ≤ nγ|X|^{n−1} does for the FFT) but like
    n·(size·u)·|D|: it stays small where |X|ⁿ is not negligible.
    Returns (Xⁿ e^{i n ω k̄}, bound on |error|, k̄).
    """
    size = q.size
    idx = np.arange(size, dtype=np.int64)
    kbar = int(round(_dot(idx.astype(float), q) / max(float(q.sum()), 1e-300)))
    rel = idx - kbar
    re = np.zeros(freqs.size)
    im = np.zeros(freqs.size)
    mag = np.zeros(freqs.size)
    rows = max(1, _CHUNK // max(size, 1))
    # sin(π t/m) and sin(2π t/m) for every residue t mod m, each from an argument
    # reduced exactly to [0, π/2]-sized ranges (so each entry has the accuracy of one
    # sine of a reduced angle, as if computed per term); a lookup replaces two sines
    # per (frequency, point) when the band is larger than the table
    use_table = m <= _TABLE_MAX and freqs.size * size > 2 * m
    if use_table:
        t = np.arange(m + 1, dtype=np.int64)
        half_tab = np.sin((math.pi / m) * np.minimum(t, m - t))    # sin(π t/m) ≥ 0
        t = t[:m]
        full_tab = np.where(2 * t <= m, half_tab[np.minimum(2 * t, m)],
                            -half_tab[np.minimum(2 * (m - t), m)])  # sin(2π t/m)
        del t
    for s0 in range(0, freqs.size, rows):
        j = freqs[s0:s0 + rows].astype(np.int64)
        r = (j[:, None] * rel[None, :]) % m           # exact residues in [0, m)
        if use_table:
            # θ ≡ 2πr/m: 1 − cos θ = 2 sin²(πr/m) and sin θ = sin(2πr/m) for any
            # representative, so the residue indexes both tables directly
            half = half_tab[r]
            sn = full_tab[r]
        else:
            r = np.where(r > m // 2, r - m, r)
            theta = (2.0 * math.pi / m) * r
            half = np.sin(0.5 * theta)
            sn = np.sin(theta)
        del r
        c = 2.0 * half * half                       # 1 − cos θ, no cancellation
        re[s0:s0 + rows] = np.einsum("ij,j->i", c, q)
        im[s0:s0 + rows] = np.einsum("ij,j->i", sn, q)
        np.abs(sn, out=sn)
        c += sn
        mag[s0:s0 + rows] = np.einsum("ij,j->i", c, q)
    # |computed D − D| ≤ (size + 10) u Σ q_k |term_k| (summation and the terms' own ulps)
    err_d = (size + 10) * _U * mag
    zr, zi = -re / F, -im / F
    w = 2.0 * zr + zr * zr + zi * zi               # |1 + z|² − 1
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        mod2 = np.maximum(1.0 + w, 0.0)
        log_abs = 0.5 * np.log1p(w)
        arg = np.arctan2(zi, 1.0 + zr)
        nl_re = n * (math.log(F) + log_abs)
        Xn = np.exp(nl_re + 1j * (n * arg))
        # error of log(1 + z): from D (through 1/|1 + z|) and from forming w, log1p, atan2
        err_l = (err_d / F) / np.sqrt(mod2) \
            + 4.0 * _U * (2.0 * np.abs(zr) + zr * zr + zi * zi) / mod2 \
            + 2.0 * _U * (np.abs(log_abs) + np.abs(arg))
        # n·error, plus rounding of n·log and of exp (relative 2u|n log X| + 2u)
        e = n * err_l + 2.0 * _U * (np.abs(nl_re) + n * np.abs(arg) + 1.0)
        err = np.abs(Xn) * np.expm1(e)
    bad = ~np.isfinite(Xn) | ~np.isfinite(err)
    Xn[bad] = 0.0
    err[bad] = np.inf
    return Xn, err, kbar


def power(lat: Lattice, n: int, tau: float) -> Lattice:
    """n-fold self-convolution by raising the transform to the n-th power.

    The transform is taken on a cyclic window of m points chosen (Chernoff) to
    hold all but Q-mass τ per tail of the n-fold sum; mass outside the window
    aliases, and its total (the Chernoff bound) is added to the slack. Round-off:
    with per-coefficient forward error ≤ γ, |X̂ⁿ − Xⁿ| ≤ nγ(|X̂| + γ)^{n−1}, so the
    ℓ1 error of the result is ≤ nγ‖(|X̂| + γ)^{n−1}‖₂ + γ‖X̂ⁿ‖₁ (Parseval).
    The zero frequency is pinned to the exact mass so that mass is conserved to
    rounding for any n (10⁹ included).
    """
    if n == 1:
        return lat
    a, b = _tail_window(lat, n, tau)
    if b < a:
        # Chernoff: the finite part of the n-fold sum carries at most 2τ in all (the
        # finite mass is tiny, the rest sits at +∞); the pessimistic side sends it to
        # +∞, the optimistic side drops it (δ only shrinks): nothing to transform
        F, M = lat.finite_mass, lat.mass
        growth = math.exp(max(n - 1, 0) * max(math.log(max(M, 1e-300)), 0.0))
        with np.errstate(under="ignore"):
            Fn = F ** n
        q_inf = M ** n if lat.side == PESSIMISTIC else M ** n - Fn
        return Lattice(lat.step, a, np.zeros(1), max(q_inf, 0.0), n * lat.slack * growth,
                       lat.side)
    width = b - a + 1
    full = (a == n * lat.k0) and (b == n * (lat.k0 + lat.q.size - 1))
    check_size(width)
    m = sfft.next_fast_len(max(width, 2), real=True)
    # fold the step measure onto the cycle Z/m
    q = lat.q
    if q.size > m:
        pad = (-q.size) % m
        q = np.concatenate([q, np.zeros(pad)]).reshape(-1, m).sum(axis=0)
    X = sfft.rfft(q, m)
    F = lat.finite_mass
    if abs(F + lat.q_inf - 1.0) <= 1e-13:
        # a total mass off 1 by rounding only (within the transform error γ already
        # counted in the slack): pin it so that n-th powers cannot drift
        F = 1.0 - lat.q_inf
    X[0] = F
    g = _fft_gamma(m)
    # Only frequencies whose (|X| + γ)^{n−1} does not underflow matter, to the result
    # and to its rounding bound; for large n that is a small low-frequency band.
    # Everything else is kept at the size of that band (memory: huge windows).
    with np.errstate(divide="ignore"):
        log_rg = np.log(np.abs(X) + g * max(F, 1.0))
    live = np.flatnonzero(max(n - 1, 1) * log_rg > -745.0)
    with np.errstate(divide="ignore", under="ignore", invalid="ignore"):
        base = np.exp((n - 1) * log_rg[live])
    del log_rg
    w = np.where((live == 0) | ((m % 2 == 0) & (live == m // 2)), 1.0, 2.0)  # rfft weights
    fft_bound = n * g * math.sqrt(_dot(w, base * base))
    work = float(lat.q.size) * live.size
    kbar = 0
    X_live = X[live]
    X[:] = 0.0                                   # X becomes the n-th power, in place
    if F > 0 and (work <= DIRECT_WORK or (fft_bound > 1e-7 and work <= DIRECT_MAX)):
        # near |X| = 1 (where n amplifies errors) directly; elsewhere the FFT, re-phased
        is_near = np.abs(X_live) >= 0.5 * F
        near, far = live[is_near], live[~is_near]
        X[near], err, kbar = _direct_band(lat.q, F, near, m, n)
        turn = (far.astype(np.int64) * ((kbar * n) % m)) % m
        with np.errstate(divide="ignore", under="ignore", invalid="ignore"):
            X[far] = np.exp(n * np.log(X_live[~is_near]) + 1j * (2.0 * math.pi / m) * turn)
        far_err = n * g * base[~is_near] + 4.0 * _U * np.abs(X[far])
        spectral = math.sqrt(_dot(w[is_near], err * err) + _dot(w[~is_near], far_err * far_err))
        # frequencies left out have |Xⁿ| ≤ (|X̂| + γ)ⁿ < e^{−745}
        spectral += m * 1e-300
    else:
        with np.errstate(divide="ignore", under="ignore", invalid="ignore"):
            X[live] = np.exp(n * np.log(X_live))
        spectral = fft_bound
    Xn_live = X[live]
    bad = ~np.isfinite(Xn_live)
    if bad.any():
        X[live[bad]] = 0.0
    X[0] = F ** n
    rn_sum = _dot(w, np.abs(X[live]))
    res = sfft.irfft(X, m)
    del X
    # cyclic index j holds losses ≡ n·(k0 + k̄) + j (mod m); place them in [a, a + m)
    shift = (n * (lat.k0 + kbar) - a) % m
    if shift:
        res = np.concatenate([res[m - shift:], res[:m - shift]])
    # cyclic positions past the window hold mass of losses outside [a, b] (and
    # noise); the pessimistic side sends it to +inf, the optimistic side drops it
    outside = float(np.clip(res[width:], 0.0, None).sum())
    res = res[:width]
    rounding = spectral + g * rn_sum
    # Chernoff bounds the wrapped mass by 2τ; the mass actually seen past the window
    # is added as well, in case the bound's window was optimistic (large n)
    # (2.1τ: the Chernoff exponent n·Λ(t) is evaluated to a relative ~1e-6 at worst)
    wrap = 0.0 if full else 2.1 * tau + 2.0 * outside
    # the pessimistic side sent `outside` to +inf; the optimistic side keeps the mass
    # on the window (a rescaling whose ℓ1 size is counted in the slack)
    target = F ** n - outside if lat.side == PESSIMISTIC else F ** n
    res, clip_err = _clip_negatives(res, target, lat.side)
    res, flushed = flush(res)
    rounding += clip_err + flushed
    M = lat.mass
    growth = math.exp(max(n - 1, 0) * max(math.log(max(M, 1e-300)), 0.0))
    slack = n * lat.slack * growth + rounding + wrap
    # +inf atom of the n-fold: |Q|^n − F^n, computed without cancellation
    q_inf = F ** n * math.expm1(n * math.log1p(lat.q_inf / F)) if F > 0 else M ** n
    if lat.side == PESSIMISTIC:
        q_inf += outside
    return Lattice(lat.step, a, res, q_inf, slack, lat.side, noise=rounding)

