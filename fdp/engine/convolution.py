"""Composition of lattice measures: linear FFT convolution, n-fold powers, crops.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import fft as sfft

from fdp._constants import NOISE_CROP_CAP
from fdp.engine.direct_band import direct_band
from fdp.engine.lattice import (
    _U,
    PESSIMISTIC,
    Lattice,
    _dot,
    check_size,
    flush,
)
from fdp.progress import Meter


def _fft_gamma(m: int) -> float:
    """Per-coefficient error factor of a length-m FFT: |fl(F x) − F x| ≤ γ ‖x‖₁."""
    return 4.0 * (math.log2(max(m, 2)) + 2.0) * _U


def _clip_negatives(x: np.ndarray, mass: float, side: str) -> tuple[np.ndarray, float]:
    """Clip round-off negatives and restore the exact mass; returns (x, ℓ1 change).
    Derivation: docs/derivations/engine.md."""
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

    Its round-off, bounded a posteriori, is added to the slack (docs/derivations/engine.md).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.engine import Lattice, convolve
    >>> lat = Lattice(0.5, -2, np.array([0.25, 0.5, 0.25]), 0.0, 0.0, "pessimistic")
    >>> c = convolve(lat, lat)
    >>> c.k0, c.q.round(4).tolist()
    (-4, [0.0625, 0.25, 0.375, 0.25, 0.0625])
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
    Derivation: docs/derivations/engine.md."""
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


def _coarse(L: np.ndarray, q: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Block sums of q placed at each block's largest loss (L increasing): for t > 0
    its log-MGF is ≥ that of (L, q), so a Chernoff bound computed from it is valid."""
    nb = -(-L.size // block)
    idx = np.minimum(np.arange(1, nb + 1) * block, L.size) - 1
    qc = np.add.reduceat(q, np.arange(0, L.size, block))
    return L[idx], qc


# points from which the Newton search of ``_chernoff_end`` runs on block sums first
CHERNOFF_COARSE_FROM = 4096


def _chernoff_end(L: np.ndarray, q: np.ndarray, n: int, log_tau: float, t0: float) -> float:
    """min over t > 0 of (n Λ(t) − log τ)/t: a bound s with Q(S_n ≥ s) ≤ τ.
    Derivation: docs/derivations/engine.md."""
    if L.size >= CHERNOFF_COARSE_FROM:
        Lc, qc = _coarse(L, q, max(16, L.size // 1024))
        best, t = _newton_end(Lc, qc, n, log_tau, t0)
        if math.isfinite(t):
            lam = _tilted_moments(L, q, t)[0]
            if lam > -math.inf:
                best = min(best, (n * lam - log_tau) / t)
        return best
    return _newton_end(L, q, n, log_tau, t0)[0]


def _newton_end(L: np.ndarray, q: np.ndarray, n: int, log_tau: float,
                t0: float) -> tuple[float, float]:
    """(best bound, the t giving it) of the safeguarded Newton search (``_chernoff_end``)."""
    c = -log_tau / n
    t, best, t_best = t0, math.inf, math.nan
    lo_t, hi_t = 0.0, math.inf
    for _ in range(10):
        if not (0.0 < t < math.inf):      # a step past every double: stop with the best
            break
        lam, d1, d2 = _tilted_moments(L, q, t)
        if lam == -math.inf:
            break
        bound = (n * lam - log_tau) / t
        if bound < best:
            best, t_best = bound, t
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
    return best, t_best


def tail_window(lat: Lattice, n: int, tau: float) -> tuple[int, int]:
    """Loss-index window [a, b] holding S_n = L_1+…+L_n up to Q-mass τ per tail.
    Derivation: docs/derivations/engine.md."""
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



# When the live band is transformed directly instead of by FFT: derivations/engine.md.
DIRECT_WORK = 2.5e5
DIRECT_MAX = 6e7


def power(lat: Lattice, n: int, tau: float) -> Lattice:
    """n-fold self-convolution by raising the transform to the n-th power.
    Derivation: docs/derivations/engine.md."""
    if n == 1:
        return lat
    a, b = tail_window(lat, n, tau)
    if b < a:
        # Chernoff: the finite part carries at most 2τ, sent to the safe side (engine.md)
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
    # only the frequencies whose (|X| + γ)^{n−1} does not underflow (idem)
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
        X[near], err, kbar = direct_band(lat.q, F, near, m, n)
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
    # the wrapped mass: Chernoff's 2.1τ plus the mass seen past the window (engine.md)
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


def convolve_tree(parts: list, cut: Callable[[Lattice], Lattice],
                  meter: Meter | None = None) -> Lattice:
    """⊗ of lattices by a balanced tree of ``convolve``, smallest first; ``cut`` is
    applied to every product (a crop to the safe side, or a cut paid into the slack).
    Derivation: docs/derivations/engine.md.
    """
    parts = list(parts)
    while len(parts) > 1:
        parts.sort(key=lambda lat: lat.q.size)
        nxt = []
        for i in range(0, len(parts) - 1, 2):
            nxt.append(cut(convolve(parts[i], parts[i + 1])))
            if meter is not None:
                meter.advance()
        if len(parts) % 2:
            nxt.append(parts[-1])
        parts = nxt
    return parts[0]
