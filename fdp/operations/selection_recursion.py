"""The certified recursion for the optimal adaptive composition of ε-BR selections.

Derivation: docs/derivations/operations.md.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
from scipy.special import gammaln

from fdp._types import FloatArray

#: Relative round-off allowance per step: a step's values are sums of two products
#: of non-negative terms and the rounding of q_t (each a few ulps, 2.2e-16 each).
ROUND = 1e-15
#: Upper values at or below this are treated as the tail (docs/derivations/operations.md).
TAIL = 1e-305
#: Budget of grid-point × t-cell pairs for one composition.
WORK = 1e8
#: Fewest cells per ε: below it the bracket is too wide to call the result optimal.
M_MIN = 8
#: Most cells per ε (small k): beyond it the bracket is narrower than needed.
M_MAX = 1000
#: Interior values of t (per ε) of the non-adaptive homogeneous strategies added to
#: the lower side; the best t is a smooth function of x, so the loss is O(ε²/T²).
T_NONADAPTIVE = 256
#: Relative error allowance of a binomial tail from log-space masses: gammaln and the
#: log masses are accurate to a few ulps of values below 1e4 in size, and each of the
#: ≤ K_MAX + 1 logaddexp steps adds about one ulp of the running log tail (< 1500 in
#: size where it matters), so the log tail errs by < 1e-9 and the tail by < 1e-9
#: relative; 1e-8 covers both with room.
BINOM_ROUND = 1e-8
#: Smallest grid step h = ε/M: the read-outs need e^{x_i} distinct in doubles.
H_MIN = 1e-10
#: Smallest ε treated by the recursion (M_MIN cells of H_MIN); below it the whole loss
#: range kε is under 2e-6 and the f-DP composition of BR_ε is used instead.
EPS_MIN = M_MIN * H_MIN
#: Largest k treated by one recursion: M(M + 1)k²/2 ≤ WORK with M = M_MIN.
K_MAX = int(math.sqrt(2.0 * WORK / (M_MIN * (M_MIN + 1))))


def cells_per_eps(k: int, eps: float = 1.0) -> int:
    """M for k selections: the largest with M(M + 1)k²/2 ≤ WORK, within [M_MIN, M_MAX],
    and with h = ε/M ≥ H_MIN."""
    m = int((math.sqrt(1.0 + 8.0 * WORK / (k * k)) - 1.0) / 2.0)
    return max(M_MIN, min(M_MAX, m, int(eps / H_MIN)))


def _step(U: FloatArray, L: FloatArray, live: int, q: FloatArray, c: FloatArray,
          coef: tuple[float, float, float]) -> tuple[FloatArray, FloatArray]:
    """Upper and lower values of δ_j at the grid indices i = 0 … live − 1.

    U, L hold δ_{j−1} at i = −M … (position i + M); a t-cell m uses the points
    i − M + m, i + m and their right neighbours. One vectorised pass per cell.
    """
    M = q.size - 1
    E, H, H2p = coef
    dU = np.diff(U)
    # −a = −(ΔB(1 − 1/E) + ΔA/E)/H, divided in turn (no 1/(EH) overflow at tiny ε)
    dUH = dU / H
    nVA, nVB = -(dUH / E), dUH * (1.0 / E - 1.0)
    up = np.zeros(live)
    lo = np.zeros(live)
    for m in range(M + 1):
        Am, Bm = U[m:m + live], U[M + m:M + m + live]
        D0 = Am - Bm
        g = Bm + q[m] * D0
        np.maximum(up, g, out=up)
        La, Lb = L[m:m + live], L[M + m:M + m + live]
        np.maximum(lo, Lb + q[m] * (La - Lb), out=lo)
        if m == M:
            break
        na = nVB[M + m:M + m + live] + nVA[m:m + live]           # −a
        nb = (D0 - (dUH[m:m + live] - dUH[M + m:M + m + live])) * (c[m] / E)   # −b
        # concave (a, b < 0) with the critical point s*² = b/a inside [1, e^{2h}],
        # widened by far more than the rounding of the ratio
        inner = np.flatnonzero((na > 0.0) & (nb >= na * (1.0 - 1e-9))
                               & (nb <= na * (H2p * (1.0 + 1e-9))))
        if inner.size == 0:
            continue
        nas, nbs = na[inner], nb[inner]
        # The excess (√|a| − √|b|)², or its cap |a|H² (valid inside the cell), each
        # with its rounding: a and b come from differences of nearby values, so their
        # absolute errors are a few ulps of η_a = (|ΔA| + |ΔB|)/(EH) and
        # η_b = η_a + |D0|/E; the square then errs by about H(η_a + η_b) (plus
        # ulp²·|a| when h is below the rounding unit, tiny ε) and the cap by H²η_a.
        # (A cell whose computed a, b miss the test has a true |a| of order the
        # rounding, so its excess is below H²·ulp·η_a, far below ROUND.)
        dAs, dBs, D0s = np.abs(dU[m + inner]), np.abs(dU[M + m + inner]), np.abs(D0[inner])
        sq = (np.sqrt(nas) - np.sqrt(nbs)) ** 2 + 1e-14 * (dAs + dBs + D0s * H) / E \
            + 1e-31 * nas
        cap = (nas * H) * H + 1e-14 * ((dAs + dBs) * H) / E
        excess = np.minimum(sq, cap) * (1.0 + 1e-12)
        up[inner] = np.maximum(up[inner], g[inner] + excess)
    return up, lo


def nonadaptive_lower(eps: float, k: int, x: np.ndarray) -> np.ndarray:
    """A lower bound of δ_k at x: the best non-adaptive homogeneous strategy GRR_t^{⊗k}.

    Derivation: docs/derivations/operations.md.
    """
    j = np.arange(k + 1)
    logc = gammaln(k + 1.0) - gammaln(j + 1.0) - gammaln(k - j + 1.0)
    best = np.zeros(x.size)
    use = x <= 700.0
    xs = x[use]
    out = np.zeros(xs.size)
    for t in eps * (np.arange(1, T_NONADAPTIVE) / T_NONADAPTIVE):
        q = -math.expm1(-t) / -math.expm1(-eps)
        qq = q * math.exp(t - eps)                     # Q-probability of the same output
        if not (0.0 < q < 1.0 and 0.0 < qq < 1.0):
            continue
        lp = logc + j * math.log(q) + (k - j) * math.log1p(-q)
        lq = logc + j * math.log(qq) + (k - j) * math.log1p(-qq)
        # log upper tails (no underflow: a Q tail is multiplied by e^x up to e^700)
        tp = np.append(np.logaddexp.accumulate(lp[::-1])[::-1], -np.inf)
        tq = np.append(np.logaddexp.accumulate(lq[::-1])[::-1], -np.inf)
        # first j with jε − kt > x (a tie contributes 0 either way)
        first = np.clip(np.floor((xs + k * t) / eps).astype(np.int64) + 1, 0, k + 1)
        lp_f, lq_f = tp[first], tq[first]
        with np.errstate(invalid="ignore", over="ignore"):
            rho = np.exp(xs + lq_f - lp_f)             # e^x Q(L > x) / P(L > x)
            val = np.exp(lp_f) * ((1.0 - BINOM_ROUND) - rho * (1.0 + BINOM_ROUND))
        # below 1e-300 the exponentials lose their relative accuracy: no claim there
        val = np.where(lp_f > -690.0, np.nan_to_num(val, nan=0.0, neginf=0.0), 0.0)
        np.maximum(out, val, out=out)
    best[use] = out
    return best


def profile_recursion(eps: float, k: int,
                      M: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Certified brackets of the optimal adaptive profile δ_k on the grid x_i = i·ε/M.

    Returns (x, upper, lower) indexed by i = −kM − M … kM + M + 1 (padded by one ε
    each side): upper[i] ≥ δ_k(x_i) ≥ lower[i].
    """
    h = eps / M
    n = k * M
    # working arrays over i = −M … n + M (position p = i + M)
    size = n + 2 * M + 1
    U = np.zeros(size)
    L = np.zeros(size)
    xneg = -np.arange(M, 0, -1) * h               # i = −M … −1
    e_neg = np.exp(xneg)
    one_m = -np.expm1(xneg)
    U[:M] = one_m * (1.0 + ROUND)
    L[:M] = one_m * (1.0 - ROUND)
    tm = np.arange(M + 1) * h
    q = np.minimum(np.expm1(-tm) / np.expm1(-eps), 1.0)
    q[0], q[-1] = 0.0, 1.0
    E, H = -math.expm1(-eps), math.expm1(h)
    coef = (E, H, math.exp(2.0 * h))
    c = np.exp(-tm[:-1])
    cut = 0                                        # first i ≥ 0 of δ_{j−1}'s tail
    tail = 0.0                                     # upper value stored on the tail
    for j in range(1, k + 1):
        live = min(j * M, cut + M)
        new_up, new_lo = _step(U, L, live, q, c, coef)
        U[M:M + live] = np.minimum(new_up * (1.0 + ROUND) + 1e-320, 1.0)
        L[M:M + live] = new_lo * (1.0 - ROUND)
        U[M + live:M + j * M] = tail
        L[M + live:M + j * M] = 0.0
        # reflection onto i = −M … −1: δ(x) = 1 − e^x + e^x δ(−x)
        U[:M] = np.minimum((one_m + e_neg * U[2 * M:M:-1]) * (1.0 + ROUND), 1.0)
        L[:M] = (one_m + e_neg * L[2 * M:M:-1]) * (1.0 - ROUND)
        # the tail: from the first i after which every upper value is ≤ TAIL
        pos = U[M:M + j * M]
        above = np.flatnonzero(pos > TAIL)
        cut = int(above[-1]) + 1 if above.size else 0
        tail = float(pos[cut:].max()) if cut < j * M else 0.0
    # full arrays over i = −n − M … n + M + 1 by the symmetry
    idx = np.arange(-n - M, n + M + 2)
    x = cast(FloatArray, idx * h)      # int64 × float is float64 (numpy's stubs: floating[Any])
    up = np.zeros(idx.size)
    lo = np.zeros(idx.size)
    right = slice(n + M, n + M + n + M + 1)        # i = 0 … n + M
    up[right] = U[M:]
    lo[right] = L[M:]
    neg = idx < 0
    mirror = -idx[neg]                              # 1 … n + M
    xn = x[neg]
    e = np.exp(xn)
    om = -np.expm1(xn)
    up_m = np.where(mirror <= n + M, U[np.minimum(mirror, n + M) + M], 0.0)
    lo_m = np.where(mirror <= n + M, L[np.minimum(mirror, n + M) + M], 0.0)
    up[neg] = np.minimum((om + e * up_m) * (1.0 + ROUND), 1.0)
    lo[neg] = (om + e * lo_m) * (1.0 - ROUND)
    if k > 1:
        lo = np.maximum(lo, nonadaptive_lower(eps, k, x))
    return x, up, lo
