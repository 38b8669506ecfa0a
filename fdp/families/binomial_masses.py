"""Binomial masses in log space, certified: the law of f_{ε,δ}^{⊗k}'s privacy loss.

The loss of k compositions of f_{ε,0} is ε(2J − k) with J ~ Bin(k, p) under P
(p = 1/(1 + e^ε)) and Bin(k, 1 − p) under Q (Kairouz, Oh & Viswanath 2015). The pmf
is evaluated by Loader's saddle-point form (``_stirlerr``, ``_bd0``) with bounded
error; ``_Binomial`` sums runs of it with certified slack.
Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from scipy.special import betainc, gammaln, logsumexp

from fdp._types import ArrayLike
from fdp.families._rounding import ArrayPair

_T = TypeVar("_T")

# Unit roundoff of doubles.
_U = 2.0 ** -53
# Relative slack of a computed log Bin(j; k, ·) (docs/derivations/families.md).
LOG_SLACK = 2.0 ** -46
# Relative slack of a sum of positive terms (exp, pairwise summation, log:
# (log₂ n + 3)·u ≤ 2⁻⁴⁶ for n < 2⁶⁰).
SUM_SLACK = 2.0 ** -46
# A walk stops when the geometric bound on what is left is this far below the sum.
_STOP = 50.0 * np.log(2.0)
# Largest k: the counts j and 2j − k must be exact doubles.
MAX_K = 2 ** 53
# Chunks of the walk: the first is small (small k costs little), then doubling.
_CHUNK0, _CHUNK_MAX = 256, 2 ** 18
# Counts between two of Loader's evaluations in ``_Binomial.log_pmf_run``.
_BLOCK = 64
_LN2 = float(np.log(2.0))


# -- log Bin(j; n, p) to full relative precision of the mass (Loader 2000)
def _stirlerr(n: ArrayLike) -> np.ndarray:
    """log n! − [(n + ½) log n − n + ½ log 2π] (Loader 2000), accurate for every n ≥ 1:
    its asymptotic series above 15, gammaln below (each only where it is needed)."""
    n = np.asarray(n, dtype=float)
    big = n > 15.0
    n2 = n * n
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * n2)) / n2) / n2) / n2) / n
    if not np.all(big):
        s = n[~big] if n.ndim else n
        small = gammaln(s + 1.0) - (s + 0.5) * np.log(s) + s - 0.5 * np.log(2.0 * np.pi)
        if n.ndim:
            out[~big] = small
        else:
            out = small
    return out


def _bd0(x: ArrayLike, m: float, log_m: float) -> np.ndarray:
    """x log(x/m) + m − x ≥ 0 without cancellation near x = m (Loader 2000).

    Derivation: docs/derivations/families.md.
    """
    x = np.atleast_1d(np.asarray(x, dtype=float))
    m, log_m = float(m), float(log_m)
    near = np.abs(x - m) < 0.1 * (x + m)
    out = np.empty(x.shape)
    if not np.all(near):
        xf = x[~near]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            far = xf * np.log(xf / m) + m - xf
            if not m > 1e-290:           # m subnormal: its logarithm is the exact one
                far = xf * (np.log(xf) - log_m) + m - xf
        out[~near] = far
    if near.any():
        xn = x[near]
        v = (xn - m) / (xn + m)
        s = (xn - m) * v
        ej = 2.0 * xn * v
        v2 = v * v
        for i in range(1, 40):
            ej = ej * v2
            term = ej / (2 * i + 1)
            s = s + term
            if np.all(np.abs(term) <= 1e-17 * np.abs(s)):
                break
        out[near] = s
    return out


def log_binom_pmf(j: ArrayLike, n: int, log_p: float, log_1mp: float) -> np.ndarray:
    """log Bin(j; n, p) with p = e^{log_p}, 1 − p = e^{log_1mp}, to full relative precision
    of the mass (Loader 2000, "Fast and accurate computation of binomial probabilities":
    Stirling remainders and a deviance term bd0 that does not cancel near the mode);
    tails far below the smallest double stay finite logarithms. ``j``: counts in [0, n]
    (floats holding integers)."""
    j = np.asarray(j, dtype=float)
    k = n - j
    inner = (j > 0) & (k > 0)
    jj, kk = np.where(inner, j, 1.0), np.where(inner, k, 1.0)
    log_n = np.log(float(n))
    lc = (_stirlerr(float(n)) - _stirlerr(jj) - _stirlerr(kk)
          - _bd0(jj, n * np.exp(log_p), log_n + log_p)
          - _bd0(kk, n * np.exp(log_1mp), log_n + log_1mp))
    lf = np.log(2.0 * np.pi) + np.log(jj) + np.log(kk) - log_n
    return np.where(inner, lc - 0.5 * lf, np.where(j == 0, n * log_1mp, n * log_p))


def _log1mexp(x: float | np.ndarray) -> np.ndarray:
    """log(1 − e^x) for x ≤ 0 (−inf at x ≥ 0), accurate on both sides of −log 2."""
    x = np.minimum(np.asarray(x, dtype=float), 0.0)
    with np.errstate(divide="ignore"):
        return np.where(x > -_LN2, np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def _up(x: float) -> float:
    return float(np.nextafter(x, np.inf))


def _down(x: float) -> float:
    return float(np.nextafter(x, -np.inf))


class _Binomial:
    """The two binomial laws of the k-fold f_{ε,0} (P: Bin(k, q), Q: Bin(k, p)) and the
    certified windowed sums of their masses (docs/derivations/families.md)."""

    def __init__(self, eps: float, k: int):
        self.eps, self.k = eps, k
        log_p = -float(np.logaddexp(0.0, -eps))      # p = e^ε/(1 + e^ε)
        log_q = -float(np.logaddexp(0.0, eps))       # q = 1/(1 + e^ε)
        self.logs = {"Q": (log_p, log_q), "P": (log_q, log_p)}
        self.modes = {"Q": min(k, int(np.floor((k + 1) * np.exp(log_p)))),
                      "P": min(k, int(np.floor((k + 1) * np.exp(log_q))))}
        self.log_k = float(np.log(k + 1.0))
        self._memo: dict = {}       # (what, argument) -> bracket; the sums are pure

    def _remember(self, key: tuple[Any, ...], compute: Callable[[], _T]) -> _T:
        if key not in self._memo:
            if len(self._memo) > 4096:
                self._memo.clear()
            self._memo[key] = compute()
        return self._memo[key]

    def log_pmf(self, j: np.ndarray, law: str) -> tuple[np.ndarray, np.ndarray]:
        """(log mass, its rounding slack) at the counts j under law "P" or "Q".

        Derivation: docs/derivations/families.md.
        """
        j = np.asarray(j, dtype=float)
        log_p, log_1mp = self.logs[law]
        k = self.k
        lp = log_binom_pmf(j, k, log_p, log_1mp)
        slack = LOG_SLACK * (np.abs(lp) + self.log_k + 2.0)
        for x, lm in ((j, log_p), (k - j, log_1mp)):
            m = k * np.exp(lm)
            dev = np.abs(x - m)
            with np.errstate(divide="ignore", invalid="ignore"):
                far = np.where(dev >= 0.1 * (x + m),
                               np.nan_to_num(x * np.abs(np.log(x / m))) + x + m, 0.0)
            slack = slack + 4.0 * _U * ((abs(lm) + 3.0) * dev + far)
        return lp, slack

    def log_pmf_run(self, a: int, b: int, law: str) -> tuple[np.ndarray, np.ndarray]:
        """``log_pmf`` at j = a..b: Loader's form at every ``_BLOCK``-th count, the counts
        between by the ratio of consecutive masses, log Bin(i + 1) − log Bin(i) =
        log((k − i)/(i + 1)) ± ε (+ε under Q, −ε under P), cumulated within the block.
        Each step rounds the quotient, its logarithm and two sums once, so a block of
        n steps is off by at most n·u·(4 + 2 max|step| + 2 max|partial sum|), added to
        the slack."""
        n = b - a + 1
        if n <= _BLOCK:
            return self.log_pmf(np.arange(a, b + 1, dtype=float), law)
        rows = -(-n // _BLOCK)
        anchors = a + _BLOCK * np.arange(rows, dtype=float)
        lp_a, slack_a = self.log_pmf(anchors, law)
        i = np.arange(a, a + rows * _BLOCK, dtype=float)
        sign = 1.0 if law == "Q" else -1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.log((self.k - i) / (i + 1.0)) + sign * self.eps   # Bin(i+1)/Bin(i)
        flat = np.zeros(rows * _BLOCK)
        flat[1:n] = step[:n - 1]
        inc = flat.reshape(rows, _BLOCK)
        inc[:, 0] = 0.0
        part = np.cumsum(inc, axis=1)
        with np.errstate(invalid="ignore"):
            err = _BLOCK * _U * (4.0 + 2.0 * np.max(np.abs(inc), axis=1)
                                 + 2.0 * np.max(np.abs(part), axis=1))
        lp = (part + lp_a[:, None]).ravel()[:n]
        slack = (LOG_SLACK * (np.abs(part + lp_a[:, None]) + self.log_k + 2.0)
                 + (slack_a + err)[:, None]).ravel()[:n]
        return lp, slack

    def loss(self, j: np.ndarray) -> np.ndarray:
        return (2.0 * j - self.k) * self.eps

    def sum(self, law: str, lo: int, hi: int,
            factor: Callable[[np.ndarray], ArrayPair] | None = None) -> tuple[float, float]:
        """(lower, upper) of log Σ_{j=lo}^{hi} m_j w_j, m the pmf of ``law`` and w_j ≤ 1
        a log-concave weight given by ``factor(j) -> (log w lower, log w upper)``."""
        lo, hi = max(lo, 0), min(hi, self.k)
        if lo > hi:
            return -np.inf, -np.inf
        start = min(max(self.modes[law], lo), hi)
        los, his = [], []

        def chunk(a: int, b: int) -> ArrayPair:
            j = np.arange(a, b + 1, dtype=float)
            lp, slack = self.log_pmf_run(a, b, law)
            up, dn = lp + slack, lp - slack
            if factor is not None:
                f_lo, f_hi = factor(j)
                up, dn = up + f_hi, dn + f_lo
            his.append(float(logsumexp(up)))
            los.append(float(logsumexp(dn)))
            return lp, slack

        def tail(t_edge: float, t_next: float, s_edge: float, s_next: float) -> float | None:
            """log of the geometric bound past an edge term (None: not decreasing)."""
            log_rho = t_edge - t_next + s_edge + s_next
            if not log_rho < 0.0:
                return None
            return t_edge + s_edge + log_rho - float(_log1mexp(log_rho))

        for direction in (1, -1):
            a, size = (start, _CHUNK0) if direction == 1 else (start - 1, _CHUNK0)
            while lo <= a <= hi:
                if direction == 1:
                    b = min(hi, a + size - 1)
                    lp, s = chunk(a, b)
                    if b in (hi, a):
                        break
                    bound = tail(lp[-1], lp[-2], s[-1], s[-2])
                    a = b + 1
                else:
                    b = max(lo, a - size + 1)
                    lp, s = chunk(b, a)
                    if b in (lo, a):
                        break
                    bound = tail(lp[0], lp[1], s[0], s[1])
                    a = b - 1
                size = min(2 * size, _CHUNK_MAX)
                if bound is not None and bound < float(logsumexp(los)) - _STOP:
                    his.append(bound)
                    break
        return (float(logsumexp(los)) - SUM_SLACK, float(logsumexp(his)) + SUM_SLACK)

    # -- the sums the read-outs need -------------------------------------
    def upper_tail(self, law: str, m: int) -> tuple[float, float]:
        """log Σ_{j≥m} (mass of ``law``), bracketed (``_part``)."""
        return self._remember(("U", law, m), lambda: self._upper_tail(law, m))

    def _upper_tail(self, law: str, m: int) -> tuple[float, float]:
        if m <= 0:
            return 0.0, 0.0
        if m > self.k:
            return -np.inf, -np.inf
        return self._part(law, (m, self.k), (0, m - 1))

    def lower_tail(self, law: str, m: int) -> tuple[float, float]:
        """log Σ_{j≤m} (mass of ``law``), as ``upper_tail``."""
        return self._remember(("L", law, m), lambda: self._lower_tail(law, m))

    def _lower_tail(self, law: str, m: int) -> tuple[float, float]:
        if m < 0:
            return -np.inf, -np.inf
        if m >= self.k:
            return 0.0, 0.0
        return self._part(law, (0, m), (m + 1, self.k))

    def _part(self, law: str, run: tuple[int, int], rest: tuple[int, int]) -> tuple[float, float]:
        """log of the mass on ``run``: the direct sum, intersected with 1 − (the mass on
        ``rest``, the other counts) where the run is the larger part (total mass 1)."""
        lo, hi = self.sum(law, *run)
        if hi > -_LN2:
            r_lo, r_hi = self.sum(law, *rest)
            lo = max(lo, float(_log1mexp(r_hi)))
            hi = min(hi, float(_log1mexp(r_lo)))
        return lo, min(hi, 0.0)

    def log_profile(self, x: float) -> tuple[float, float]:
        """(lower, upper) log D(ε') at ε' = x: Σ_{l_j > x} Q_j (1 − e^{x − l_j})."""
        return self._remember(("D", x), lambda: self._log_profile(x))

    def _log_profile(self, x: float) -> tuple[float, float]:
        if x == np.inf:
            return -np.inf, -np.inf
        if x == -np.inf:
            return 0.0, 0.0
        e, k = self.eps, self.k
        first = int(np.floor((k + x / e) / 2.0)) - 1 if abs(x / e) < 2.0 * k + 4 else (
            k + 1 if x > 0 else 0)
        if first > k:
            return -np.inf, -np.inf

        def factor(j: np.ndarray) -> ArrayPair:
            l = self.loss(j)
            gap = x - l
            slack = 2.0 * _U * (abs(x) + np.abs(l)) + 1e-300
            return _log1mexp(gap + slack), _log1mexp(gap - slack)

        return self.sum("Q", max(first, 0), k, factor)

    # -- locating a segment (approximately; the caller then checks exactly) --
    def approx_upper_tail(self, law: str, m: int) -> float:
        """Σ_{j≥m} mass, by the regularised incomplete beta (not certified: a guess)."""
        if m <= 0:
            return 1.0
        if m > self.k:
            return 0.0
        return float(betainc(float(m), float(self.k - m + 1), np.exp(self.logs[law][0])))
