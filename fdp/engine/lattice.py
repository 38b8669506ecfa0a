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
from dataclasses import dataclass

import numpy as np
from scipy import fft as sfft
from scipy.signal import lfilter

_U = np.finfo(float).eps / 2.0  # unit round-off
# Largest lattice the engine forms: 2^26 points is 0.5 GB per float64 array and
# the transforms need about three such arrays.
MAX_POINTS = 2 ** 25
PESSIMISTIC, OPTIMISTIC = "pessimistic", "optimistic"


def _fft_gamma(m: int) -> float:
    """Per-coefficient error factor of a length-m FFT: |fl(F x) − F x| ≤ γ ‖x‖₁."""
    return 4.0 * (math.log2(max(m, 2)) + 2.0) * _U


def check_size(n: int, what: str = "lattice") -> None:
    if n > MAX_POINTS:
        raise MemoryError(
            f"the {what} would need {n:,} grid points, over the engine limit of "
            f"{MAX_POINTS:,} (about {MAX_POINTS * 8 * 6 / 2**30:.1f} GB of work arrays); "
            "increase tol (a coarser grid) or reduce the number of steps")


NOISE_CROP_CAP = 1e-13  # crops at the noise level remove at most this much mass
TINY = 1e-280   # masses below this are flushed to 0 (subnormals slow every FFT)


def flush(q: np.ndarray) -> tuple[np.ndarray, float]:
    """Zero the masses below TINY; returns the array and the (ℓ1) mass removed."""
    small = (q < TINY) & (q != 0)
    if not small.any():
        return q, 0.0
    removed = float(np.abs(q[small]).sum())
    q = np.where(small, 0.0, q)
    return q, removed


@dataclass(frozen=True, eq=False)
class Lattice:
    """Measure ``q`` on losses (k0 + i)·step, atom ``q_inf`` at +inf, δ-slack ``slack``."""

    step: float
    k0: int
    q: np.ndarray
    q_inf: float
    slack: float
    side: str

    # ------------------------------------------------------------------
    # Basic facts
    # ------------------------------------------------------------------
    @property
    def losses(self) -> np.ndarray:
        return (self.k0 + np.arange(self.q.size)) * self.step

    @property
    def finite_mass(self) -> float:
        fm = self.__dict__.get("_fm")
        if fm is None:
            fm = float(np.sum(self.q))
            object.__setattr__(self, "_fm", fm)
        return fm

    @property
    def mass(self) -> float:
        """Total Q-mass (finite atoms and +inf); 1 up to the documented losses."""
        return self.finite_mass + self.q_inf

    def moments(self) -> tuple[float, float]:
        """Mean and variance of L under Q restricted to finite atoms (normalised)."""
        w = self.q / max(self.finite_mass, 1e-300)
        L = self.losses
        m = float(w @ L)
        return m, float(w @ (L - m) ** 2)

    def log_mgf(self, t: np.ndarray) -> np.ndarray:
        """log Σ_k q_k e^{t·l_k} for each t (finite atoms), overflow-free."""
        live = self.q > 0
        lq = np.log(self.q[live])
        L = self.losses[live]
        z = lq[None, :] + np.asarray(t, dtype=float)[:, None] * L[None, :]
        top = z.max(axis=1, keepdims=True)
        return (top + np.log(np.exp(z - top).sum(axis=1, keepdims=True)))[:, 0]

    # ------------------------------------------------------------------
    # Read-back: δ(ε) and β(α) of the lattice measure (no slack)
    # ------------------------------------------------------------------
    def _tables(self):
        cache = self.__dict__.get("_cache")
        if cache is None:
            q = self.q
            # Q(L ≥ l_j) and R_j = Σ_{i ≥ j} q_i e^{−(l_i − l_j)}: a discounted suffix sum,
            # computed by a first-order linear filter so nothing over/underflows.
            tail_q = np.cumsum(q[::-1])[::-1]
            tail_r = lfilter([1.0], [1.0, -math.exp(-self.step)], q[::-1])[::-1]
            cache = (tail_q, tail_r)
            object.__setattr__(self, "_cache", cache)
        return cache

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

    def beta_raw(self, alpha: np.ndarray) -> np.ndarray:
        """Neyman–Pearson curve of the lattice: reject the largest losses first.

        Vertices (Σ_{l ≥ l_j} p, 1 − q_inf − Σ_{l ≥ l_j} q) with p_k = q_k e^{−l_k};
        β is accumulated from the bottom so that small β keep full precision.
        """
        cache = self.__dict__.get("_np")
        if cache is None:
            L = self.losses[::-1]
            qd = self.q[::-1]
            with np.errstate(over="ignore"):
                p = np.minimum(qd * np.exp(np.minimum(-L, 700.0)), 2.0)
            A = np.concatenate([[0.0], np.cumsum(p)])
            below = np.concatenate([np.cumsum(self.q)[::-1], [0.0]])  # Σ q strictly below
            B = below + (1.0 - self.mass)
            cache = (A, B)
            object.__setattr__(self, "_np", cache)
        A, B = cache
        return np.interp(alpha, A, B)


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
    return float(np.sqrt(w @ (a * a))), float(w @ a)


def _clip_negatives(x: np.ndarray, mass: float, side: str):
    """Clip round-off negatives and restore the exact mass; returns (x, ℓ1 change).

    Negative entries are round-off (the exact result is a measure). Clipping moves
    the array towards the exact one; rescaling the positive part to the known
    mass changes it by at most the clipped amount more, which is returned so the
    caller adds it to the slack (for the optimistic side scaling down is also
    safe by itself).
    """
    neg = x < 0
    if not neg.any():
        return x, 0.0
    x = np.where(neg, 0.0, x)
    total = float(np.sum(x))
    change = abs(total - mass)
    if total > 0 and mass > 0:
        x *= mass / total
    return x, 2.0 * change


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
    na2 = math.sqrt(m) * float(np.linalg.norm(a.q))
    nb2 = math.sqrt(m) * float(np.linalg.norm(b.q))
    err = g * (na2 * b.finite_mass + nb2 * a.finite_mass) * (1 + g) + g * na2 * nb2
    out, clip_err = _clip_negatives(out, a.finite_mass * b.finite_mass, a.side)
    out, flushed = flush(out)
    clip_err += flushed
    slack = a.slack + b.slack * max(a.mass, 1.0) + err + clip_err
    lat = Lattice(a.step, a.k0 + b.k0, out, _combine_inf(a, b), slack, a.side)
    object.__setattr__(lat, "noise", err + clip_err)
    return lat


def crop(lat: Lattice, tau: float) -> Lattice:
    """Cut tails of Q-mass ≤ τ each, moving them to the safe side (exact, no slack).

    The threshold is raised to the lattice's own round-off level (``noise``): FFT
    noise spread over the far tails must not keep them alive, and cropping any
    amount is safe (it only loosens the bound by at most that mass).

    Pessimistic: the low tail moves up to the lowest kept loss (losses only grow),
    the high tail goes to +inf. Optimistic: the low tail goes to −inf (dropped),
    the high tail moves down to the highest kept loss keeping its P-mass
    (Q-mass q e^{l_top − l}), i.e. the likelihood ratio only shrinks.
    """
    q = lat.q
    tau = max(tau, min(lat.__dict__.get("noise", 0.0), NOISE_CROP_CAP))
    if q.size < 64 or tau <= 0:
        return lat
    c = np.cumsum(q)
    lo = int(np.searchsorted(c, tau, side="right"))          # q[:lo] has mass ≤ τ
    r = np.cumsum(q[::-1])
    hi_cut = int(np.searchsorted(r, tau, side="right"))      # last hi_cut entries ≤ τ
    hi = q.size - hi_cut
    if lo >= hi - 1 or (lo == 0 and hi == q.size):
        return lat
    kept = q[lo:hi].copy()
    low_mass = float(c[lo - 1]) if lo > 0 else 0.0
    high = q[hi:]
    q_inf = lat.q_inf
    if lat.side == PESSIMISTIC:
        kept[0] += low_mass
        q_inf += math.fsum(high)
    else:
        d = (np.arange(high.size) + 1) * lat.step
        kept[-1] += float(high @ np.exp(-d))
    return Lattice(lat.step, lat.k0 + lo, kept, q_inf, lat.slack, lat.side)


def _tilted_moments(L: np.ndarray, q: np.ndarray, t: float) -> tuple[float, float, float]:
    """(Λ(t), Λ'(t), Λ''(t)) for Λ(t) = log Σ q_k e^{t L_k}, overflow-free."""
    ref = float(L[-1] if t > 0 else L[0])
    w = q * np.exp(t * (L - ref))
    s0 = float(w.sum())
    if not s0 > 0.0:
        return -math.inf, 0.0, 0.0
    m1 = float(w @ L) / s0
    m2 = float(w @ (L - m1) ** 2) / s0
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
    r = np.abs(X)
    # Only frequencies whose (|X| + γ)^{n−1} does not underflow matter, to the result
    # and to its rounding bound; for large n that is a small low-frequency band
    with np.errstate(divide="ignore"):
        log_rg = np.log(r + g * max(F, 1.0))
    live = np.flatnonzero(max(n - 1, 1) * log_rg > -745.0)
    Xn = np.zeros_like(X)
    base = np.zeros_like(r)
    with np.errstate(divide="ignore", under="ignore", invalid="ignore"):
        Xn[live] = np.exp(n * np.log(X[live]))
        base[live] = np.exp((n - 1) * log_rg[live])
    Xn[~np.isfinite(Xn)] = 0.0
    Xn[0] = F ** n
    rn = np.abs(Xn)
    res = sfft.irfft(Xn, m)
    # cyclic index j holds losses ≡ n·k0 + j (mod m); place them in [a, a + m)
    shift = (n * lat.k0 - a) % m
    res = np.roll(res, shift)
    # cyclic positions past the window hold mass of losses outside [a, b] (and
    # noise); the pessimistic side sends it to +inf, the optimistic side drops it
    outside = float(np.clip(res[width:], 0.0, None).sum())
    res = res[:width]
    w = np.full(X.shape, 2.0)
    w[0] = 1.0
    if m % 2 == 0:
        w[-1] = 1.0
    rounding = n * g * float(np.sqrt(w @ (base * base))) + g * float(w @ rn)
    # Chernoff bounds the wrapped mass by 2τ; the mass actually seen past the window
    # is added as well, in case the bound's window was optimistic (large n)
    wrap = 0.0 if full else 2.0 * tau + 2.0 * outside
    res, clip_err = _clip_negatives(res, F ** n - outside, lat.side)
    res, flushed = flush(res)
    rounding += clip_err + flushed
    M = lat.mass
    growth = math.exp(max(n - 1, 0) * max(math.log(max(M, 1e-300)), 0.0))
    slack = n * lat.slack * growth + rounding + wrap
    # +inf atom of the n-fold: |Q|^n − F^n, computed without cancellation
    q_inf = F ** n * math.expm1(n * math.log1p(lat.q_inf / F)) if F > 0 else M ** n
    if lat.side == PESSIMISTIC:
        q_inf += outside
    out = Lattice(lat.step, a, res, q_inf, slack, lat.side)
    object.__setattr__(out, "noise", rounding)
    return out

