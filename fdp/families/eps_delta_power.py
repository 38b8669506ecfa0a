"""The k-fold composition f_{ε,δ}^{⊗k}, exact at any k, evaluated in log space.

The pair (KOV 2015, Thm 3.3; DRS 2022, §3). f_{ε,δ} = f_{ε,0} ⊗ f_{0,δ}, and the
k-fold f_{ε,0} is T(P, Q) for the counts j of the loss +ε: under P, j ~ Bin(k, q),
under Q, j ~ Bin(k, p), with q = 1/(1 + e^ε), p = 1 − q. The atom j has privacy loss
l_j = (2j − k)ε and masses P_j = Bin(j; k, q), Q_j = Bin(j; k, p) = P_j e^{l_j}. The δ
parts compose to f_{0,δ_k}, δ_k = 1 − (1 − δ)^k, which adds an atom of loss +∞
(Q-mass δ_k) and one of loss −∞ (P-mass δ_k) and scales the others by c = 1 − δ_k.

The read-outs. With D(ε') = Σ_{l_j > ε'} Q_j (1 − e^{ε' − l_j}) (the profile of the
k-fold f_{ε,0}, DRS Prop 2.12 on the pair):

    δ(ε') = 1 − (1 − δ)^k (1 − D(ε')) = δ_k + c·D(ε');
    on ε' ∈ [l_{m−1}, l_m]:  D(ε') = A_m − e^{ε'} B_m,  A_m = Σ_{j≥m} Q_j, B_m = Σ_{j≥m} P_j,
    so ε(δ') = log(A_m − t) − log B_m with t = (δ' − δ_k)/c on the segment where D
    crosses t;
    β(α) = c·L_m − e^{l_m}(α − c·U_{m+1}) for c·U_{m+1} ≤ α ≤ c·U_m (Neyman–Pearson:
    atoms rejected in decreasing loss), U_m = Σ_{j≥m} P_j, L_m = Σ_{j≤m} Q_j;
    pure ε = kε when δ = 0 (the steepest segment has slope −e^{kε}), else ∞.

Only the terms that matter are summed. Every sum above is Σ_{j∈[a,b]} e^{t_j} with
t_j concave in j (log Bin(j; k, ·) is concave, and so is log(1 − e^{ε' − 2jε})), so its
terms rise to one maximum and fall. ``_Binomial.sum`` starts at the mode, walks out
in chunks, and stops once the rest is bounded by a geometric series: past the last
term b of a decreasing run, t_{b+i} − t_b ≤ i (t_b − t_{b−1}) by concavity, so the
rest is at most e^{t_b} ρ/(1 − ρ), ρ = e^{t_b − t_{b−1}} (the bound, from the pmf
alone, is added to the upper side). The walk stops when that bound is 2⁻⁵⁰ of the
sum: about 8.3 standard deviations each side, O(√k) terms in O(1) memory.

Rounding (the upper side rounded up, the lower side down). log Bin(j; k, ·) is
Loader's (2000) saddle-point form: a few terms, each bounded by |log Bin| + log k and
each computed to a few ulps, widened by ``LOG_SLACK``·(|log Bin| + log(k + 1) + 2),
LOG_SLACK = 2⁻⁴⁶, plus the error its deviance terms bd0(x, m) inherit from the mean
m = k·p (relative error (|log p| + 3)u, u = 2⁻⁵³, times |∂bd0/∂m| = |x − m|/m); the
slack is ≥ 10 times the error measured against mpmath over k ∈ [2, 3·10¹⁵]. Between
two of Loader's evaluations (every 64 counts) the masses follow by the ratio of
consecutive terms, with the accumulated rounding added. The exponent ε' − l_j is
widened by 2u(|ε'| + |l_j|) (the product (2j − k)·ε and the difference each round
once), sums of positive terms by ``SUM_SLACK`` = 2⁻⁴⁶ relative. The two sides
therefore bracket the exact value for the double parameters; the bracket is about
1e-13 relative wide at small k, growing like u·√k (the bd0 term) to about 1e-8 at
k = 10¹².

References: Kairouz, Oh & Viswanath (2015), "The composition theorem for
differential privacy", ICML, Thm 3.3; Dong, Roth & Su (2022), "Gaussian differential
privacy", JRSS-B, §3 and Prop 2.12; Loader (2000), "Fast and accurate computation
of binomial probabilities".
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
from scipy.special import betainc, gammaln, logsumexp

from fdp import _validate
from fdp._constants import EXP_SAFE
from fdp._types import ArrayLike
from fdp.families._rounding import ArrayPair
from fdp.families.eps_delta import EpsDelta
from fdp.families.finite_pair import MAX_ATOMS, FinitePair
from fdp.tradeoff import TradeOff

_T = TypeVar("_T")

# Unit roundoff of doubles.
_U = 2.0 ** -53
# Relative slack of a computed log Bin(j; k, ·) (see the module docstring).
LOG_SLACK = 2.0 ** -46
# Relative slack of a sum of positive terms (exp, pairwise summation, log:
# (log₂ n + 3)·u ≤ 2⁻⁴⁶ for n < 2⁶⁰).
SUM_SLACK = 2.0 ** -46
# A walk stops when the geometric bound on what is left is this far below the sum.
_STOP = 50.0 * np.log(2.0)
# Largest k: the counts j and 2j − k must be exact doubles.
MAX_K = 2 ** 53
# Most atoms of the k-fold handed out as a FinitePair by ``EpsDeltaPower._pair``.
PAIR_MAX_ATOMS = 100_000
# Chunks of the walk: the first is small (small k costs little), then doubling.
_CHUNK0, _CHUNK_MAX = 256, 2 ** 18
# Counts between two of Loader's evaluations in ``_Binomial.log_pmf_run``.
_BLOCK = 64
_LN2 = float(np.log(2.0))


# ----------------------------------------------------------------------
# log Bin(j; n, p) to full relative precision of the mass (Loader 2000)
# ----------------------------------------------------------------------
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

    Near m (|x − m| < 0.1 (x + m)) the series 2x Σ v^{2i+1}/(2i+1) − (x − m) v with
    v = (x − m)/(x + m), summed until its terms stop changing the double (|v| < 0.1, so
    at most 16 terms; a few near the mode of a large binomial); elsewhere directly, the
    quotient x/m formed before its logarithm."""
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
    tails far below the smallest double stay finite logarithms.

    Parameters
    ----------
    j : array_like
        Counts in [0, n] (floats holding integers).
    n : int
        Number of trials.
    log_p, log_1mp : float
        log p and log(1 − p).

    Returns
    -------
    ndarray
        log Bin(j; n, p).
    """
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
    certified windowed sums of their masses (see the module docstring)."""

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

        The slack: ``LOG_SLACK``·(|log Bin| + log(k + 1) + 2) for the rounding of
        Loader's terms, plus the error of bd0(x, m) from its mean m = k·e^{log p}
        (relative error ≤ (|log p| + 3)u, and |∂bd0/∂m| = |x − m|/m), plus, where bd0
        is formed directly (|x − m| ≥ 0.1 (x + m)), the rounding of x log(x/m), m, x."""
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
        """log Σ_{j≥m} (mass of ``law``): the direct sum, intersected with 1 − (the rest)
        where the tail is the larger part (total mass 1 exactly)."""
        return self._remember(("U", law, m), lambda: self._upper_tail(law, m))

    def _upper_tail(self, law: str, m: int) -> tuple[float, float]:
        if m <= 0:
            return 0.0, 0.0
        if m > self.k:
            return -np.inf, -np.inf
        lo, hi = self.sum(law, m, self.k)
        if hi > -_LN2:
            r_lo, r_hi = self.sum(law, 0, m - 1)
            lo = max(lo, float(_log1mexp(r_hi)))
            hi = min(hi, float(_log1mexp(r_lo)))
        return lo, min(hi, 0.0)

    def lower_tail(self, law: str, m: int) -> tuple[float, float]:
        """log Σ_{j≤m} (mass of ``law``), as ``upper_tail``."""
        return self._remember(("L", law, m), lambda: self._lower_tail(law, m))

    def _lower_tail(self, law: str, m: int) -> tuple[float, float]:
        if m < 0:
            return -np.inf, -np.inf
        if m >= self.k:
            return 0.0, 0.0
        lo, hi = self.sum(law, 0, m)
        if hi > -_LN2:
            r_lo, r_hi = self.sum(law, m + 1, self.k)
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


def search(passes: Callable[[int], bool], lo: int, hi: int, guess: int) -> int:
    """Smallest m in [lo, hi] with ``passes(m)`` (monotone: False then True; ``passes(hi)``
    is taken as True), by galloping out from ``guess`` and then bisecting: O(log of the
    guess's error) calls."""
    guess = min(max(guess, lo), hi)
    if passes(guess):
        right, step = guess, 1
        left = guess - step
        while left >= lo and passes(left):
            right, step = left, 2 * step
            left = right - step
        left = max(left, lo - 1)
    else:
        left, step = guess, 1
        right = guess + step
        while right < hi and not passes(right):
            left, step = right, 2 * step
            right = left + step
        right = min(right, hi)
    while right - left > 1:
        mid = (left + right) // 2
        if passes(mid):
            right = mid
        else:
            left = mid
    return right


def _exact_product(k: int, eps: float) -> tuple[float, float]:
    """(lower, upper) doubles around the real number k·ε."""
    v = k * eps
    if not np.isfinite(v):
        return (float(np.finfo(float).max), np.inf) if v > 0 else (v, v)
    exact = Fraction(k) * Fraction(eps)
    fv = Fraction(v)
    if fv == exact:
        return v, v
    return (v, _up(v)) if fv < exact else (_down(v), v)


# ----------------------------------------------------------------------
# The trade-off function
# ----------------------------------------------------------------------
def eps_delta_k_fold(f: EpsDelta, k: int) -> TradeOff:
    """f_{ε,δ}^{⊗k} exactly (Kairouz, Oh & Viswanath 2015, Thm 3.3; DRS 2022, §3).

    Parameters
    ----------
    f : EpsDelta
        f_{ε,δ}.
    k : int
        Number of compositions, 1 ≤ k ≤ 2^53.

    Returns
    -------
    TradeOff
        ``f`` for k = 1; f_{0, 1 − (1 − δ)^k} for ε = 0 (or δ = 1); otherwise an
        ``EpsDeltaPower``, evaluated in log space at any k.

    Raises
    ------
    ValueError
        For k outside [1, 2^53].

    Examples
    --------
    >>> import fdp
    >>> from fdp.families.eps_delta_power import eps_delta_k_fold
    >>> f = eps_delta_k_fold(fdp.EpsDelta(0.1), 10 ** 6)
    >>> print(f"{f.pure_epsilon():g} {f.epsilon(1e-5):.4f}")
    100000 5420.7838
    """
    k = _validate.positive_int("k", k)
    if k > MAX_K:
        raise ValueError(f"k must be an integer in [1, 2^53], got {k}: the counts of the "
                         "k-fold are handled as exact doubles")
    eps, delta = f.eps, float(f.delta)
    if k == 1:
        return f
    d_k = _delta_k(delta, k)[1]
    if eps == 0.0 or delta == 1.0 or np.isinf(eps):
        return EpsDelta(eps if delta < 1.0 else 0.0, d_k)
    return EpsDeltaPower(eps, delta, k)


def _delta_k(delta: float, k: int) -> tuple[float, float]:
    """(lower, upper) of δ_k = 1 − (1 − δ)^k = −expm1(k log1p(−δ))."""
    if delta == 0.0:
        return 0.0, 0.0
    if delta == 1.0:
        return 1.0, 1.0
    y = k * float(np.log1p(-delta))
    v = float(-np.expm1(y))
    rel = 8.0 * _U * (1.0 + abs(y))
    return max(0.0, v * (1.0 - rel)), min(1.0, v * (1.0 + rel))


def eps_delta_pair(eps: float, delta: float, k: int) -> FinitePair | None:
    """f_{ε,δ}^{⊗k} as an exact ``FinitePair`` (k + 3 atoms), or None past ``MAX_ATOMS``
    (composition then hands the factor to the numeric engine).

    The k-fold f_{ε,0} is the pair of Bin(k, q) and Bin(k, 1 − q) counts of the loss
    +ε, q = 1/(1 + e^ε): loss (2j − k)ε with P-mass Bin(j; k, q), Q-mass
    Bin(j; k, 1 − q); the δ part composes to f_{0, 1 − (1 − δ)^k}, an atom of loss +inf
    (Q-mass δ_k) and one of −inf (P-mass δ_k) (KOV 2015, Thm 3.3, in pair form).
    """
    if k + 3 > MAX_ATOMS:
        return None
    j = np.arange(k + 1)
    log_q = -np.logaddexp(0.0, eps)             # q = 1/(1 + e^ε), 1 − q = e^ε/(1 + e^ε)
    log_1mq = -np.logaddexp(0.0, -eps)
    p_mass = np.exp(log_binom_pmf(j, k, log_q, log_1mq))
    q_mass = p_mass[::-1].copy()                # Bin(j; k, 1 − q) = Bin(k − j; k, q)
    L = (2.0 * j - k) * eps
    d_k = -np.expm1(k * np.log1p(-delta)) if delta < 1.0 else 1.0
    keep = 1.0 - d_k
    return FinitePair.from_atoms(
        np.concatenate([[np.inf], L, [-np.inf]]),
        np.concatenate([[0.0], keep * p_mass, [d_k]]),
        np.concatenate([[d_k], keep * q_mass, [0.0]]))


class EpsDeltaPower(TradeOff):
    """f_{ε,δ}^{⊗k}, exact, read out in log space at any k ≤ 2^53 (see the module docstring).

    δ(ε'), ε(δ') and β(α) sum only the O(√k) binomial terms that matter, with a
    geometric bound on the rest; ``delta_bounds``, ``epsilon_bounds`` and ``bounds``
    bracket the exact value (about 1e-12 relative wide), ``delta`` and ``epsilon`` give
    the upper side, ``f(α)`` the lower side. The pure ε is kε exactly (δ = 0).

    Parameters
    ----------
    eps : float
        ε in (0, ∞).
    delta : float
        δ in [0, 1).
    k : int
        Number of compositions, 2 ≤ k ≤ 2^53.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.EpsDelta(0.1) ** 200000
    >>> print(f"{f.epsilon(1e-5):.4f} {f.pure_epsilon():g}")
    1188.6778 20000
    """

    __slots__ = ("_bin", "d", "eps", "k")
    eps: float
    d: float
    k: int
    _bin: _Binomial

    def __init__(self, eps: float, delta: float, k: int):
        eps = _validate.real("eps", eps, low=0.0, low_open=True)
        delta = _validate.real("delta", delta, low=0.0, high=1.0, high_open=True)
        k = _validate.positive_int("k", k, low=2)
        if k > MAX_K:
            raise ValueError(f"k must be an integer in [2, 2^53], got {k}")
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "d", delta)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "_bin", _Binomial(eps, k))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("EpsDeltaPower is immutable")

    def __eq__(self, other: object) -> bool:
        return (type(other) is EpsDeltaPower and self.eps == other.eps and self.d == other.d
                and self.k == other.k)

    def __hash__(self) -> int:
        return hash(("EpsDeltaPower", self.eps, self.d, self.k))

    def __reduce__(self) -> tuple[Any, ...]:
        return EpsDeltaPower, (self.eps, self.d, self.k)

    def __repr__(self) -> str:
        return f"EpsDelta(eps={self.eps!r}, delta={self.d!r}) ** {self.k}"

    def latex(self) -> str:
        return rf"f_{{{self.eps:g},{self.d:g}}}^{{\otimes {self.k}}}"

    @property
    def symmetric(self) -> bool:
        return True

    def _pair(self) -> FinitePair | None:
        """The exact pair while it is small and its losses stay within ±``EXP_SAFE``
        (a ``FinitePair`` reads δ through e^L), else None: the generic read-outs then
        work from this object's certified profile."""
        if self.k + 1 > PAIR_MAX_ATOMS or self.k * self.eps > EXP_SAFE:
            return None
        return eps_delta_pair(self.eps, self.d, self.k)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """kε (as the doubles around the real product) when δ = 0, else ∞ (f(0) < 1)."""
        if self.d > 0.0:
            return np.inf, np.inf
        return _exact_product(self.k, self.eps)

    # -- δ(ε') -----------------------------------------------------------------
    def _log_delta_bracket(self, x: float) -> tuple[float, float]:
        """(lower, upper) log δ(x), δ = δ_k + (1 − δ_k) D (increasing in δ_k and D)."""
        d_lo, d_hi = _delta_k(self.d, self.k)
        D_lo, D_hi = self._bin.log_profile(float(x))
        out = []
        for dk, D, side in ((d_lo, D_lo, -1.0), (d_hi, D_hi, 1.0)):
            with np.errstate(divide="ignore"):
                v = float(np.logaddexp(np.log(dk), np.log1p(-dk) + D))
            v = v + side * 4.0 * _U * (abs(v) + 1.0) if np.isfinite(v) else v
            out.append(min(v, 0.0))
        return out[0], out[1]

    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=float)
        return np.array([self._log_delta_bracket(x)[1] for x in e.ravel()]).reshape(e.shape)

    def _log_delta_lower(self, eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=float)
        return np.array([self._log_delta_bracket(x)[0] for x in e.ravel()]).reshape(e.shape)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return np.exp(self._log_delta(eps))

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return np.exp(self._log_delta_lower(eps))

    _certified_delta = True

    # -- ε(δ') -----------------------------------------------------------------
    def _epsilon_bracket(self, target: float) -> tuple[float, float]:
        """(lower, upper) of the smallest ε' ≥ 0 with δ(ε') ≤ target."""
        if target >= 1.0:
            return 0.0, 0.0
        d_lo, d_hi = _delta_k(self.d, self.k)
        c_lo, c_hi = _down(1.0 - d_hi), _up(1.0 - d_lo)
        # D ≤ t_hi is necessary (lower side of ε), D ≤ t_lo sufficient (upper side)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_lo = (target - d_hi) / c_hi * (1.0 - 4.0 * _U) if target > d_hi else (
                0.0 if target >= d_hi else -1.0)
            t_hi = (target - d_lo) / c_lo * (1.0 + 4.0 * _U) if target > d_lo else (
                0.0 if target >= d_lo else -1.0)
        return self._solve(t_hi, side=0), self._solve(t_lo, side=1)

    def _solve(self, t: float, side: int) -> float:
        """Smallest ε' ≥ 0 with D_side(ε') ≤ t (side 1: the upper bound of D, the answer
        rounded up; side 0: the lower bound of D, the answer rounded down)."""
        B, k, e = self._bin, self.k, self.eps
        kappa_lo, kappa_hi = _exact_product(k, e)
        if t < 0.0:
            return np.inf
        log_t = np.log(t) if t > 0.0 else -np.inf
        if B.log_profile(0.0)[side] <= log_t:
            return 0.0
        if t == 0.0:                     # D(ε') = 0 exactly iff ε' ≥ kε
            return kappa_hi if side else kappa_lo
        def at(m: int) -> tuple[float, float]:  # log D at the lattice point l_m
            return B.log_profile(float((2.0 * m - k) * e))

        m0 = (k + 1) // 2                # smallest m with l_m ≥ 0
        if at(k)[side] > log_t:          # only the rounding slack at l_k is left
            return kappa_hi if side else kappa_lo
        m = search(lambda m: at(m)[side] <= log_t, m0, k, self._guess(t, m0))
        # on [l_{m−1}, l_m]: D(ε') = A_m − e^{ε'} B_m
        a_lo, a_hi = B.upper_tail("Q", m)
        b_lo, b_hi = B.upper_tail("P", m)
        l_prev, l_here = (2.0 * (m - 1) - k) * e, (2.0 * m - k) * e
        with np.errstate(divide="ignore", invalid="ignore"):
            if side:
                diff = np.exp(a_hi) - t
                x = float(np.log(diff) - b_lo) if diff > 0.0 else l_prev
                x = _up(x + 8.0 * _U * (abs(x) + abs(b_lo) + 1.0))
            else:
                diff = np.exp(a_lo) - t
                x = float(np.log(diff) - b_hi) if diff > 0.0 else l_prev
                x = _down(x - 8.0 * _U * (abs(x) + abs(b_hi) + 1.0))
        # the closed form holds on [l_{m−1}, l_m] (where the term j = m − 1 vanishes):
        # at l_{m−1} it is the exact D, and l_m was checked; both ends are answers
        return max(min(max(x, l_prev), l_here), 0.0)

    def _guess(self, t: float, m0: int) -> int:
        """Approximate smallest m with D(l_m) ≤ t: D(l_m) ≈ A_{m+1}(1 − g), g the mean of
        e^{−2ε(j − m)} over j > m under a locally geometric tail (a guess only)."""
        B, k, e = self._bin, self.k, self.eps
        r_e = np.exp(-2.0 * e)

        def approx(m: int) -> float:
            a = B.approx_upper_tail("Q", m + 1)
            if m + 1 > k:
                return 0.0
            r = (k - m - 1.0) / (m + 2.0) * np.exp(e)   # Q_{m+2}/Q_{m+1}
            g = (1.0 - r) * r_e / (1.0 - r * r_e) if r < 1.0 else r_e
            return a * (1.0 - g)

        lo, hi = m0 - 1, k
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if approx(mid) <= t:
                hi = mid
            else:
                lo = mid
        return hi

    def _epsilon_range(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) ε at δ per point (``_epsilon_bracket``): about 1e-12 relative
        wide around the exact ε; the upper end is inf when δ < 1 − (1 − δ₀)^k."""
        pairs = np.array([self._epsilon_bracket(float(x)) for x in d.ravel()]).reshape(-1, 2)
        return pairs[:, 0].reshape(d.shape), pairs[:, 1].reshape(d.shape)

    # -- β(α) ------------------------------------------------------------------
    def _beta_bracket(self, alpha: float) -> tuple[float, float]:
        """(lower, upper) β at α on the segment of the Neyman–Pearson vertex m.

        Segment m (α_{m+1} ≤ α ≤ α_m, α_m = c·U_m): β = c·L_m − e^{l_m}(α − α_{m+1}).
        Its line lies below the convex curve everywhere, so the lower side needs no
        certainty about m; the upper side uses the line at α only up to α_m (beyond, it
        would leave the curve). α − α_{m+1} is formed directly, or, when U_{m+1} is
        near 1, as α − 1 + δ_k + c·Σ_{j≤m} P_j, which keeps the digits 1 − α has."""
        B, k, e = self._bin, self.k, self.eps
        d_lo, d_hi = _delta_k(self.d, self.k)
        c_lo, c_hi = _down(1.0 - d_hi), _up(1.0 - d_lo)
        if alpha == 0.0:
            return c_lo, c_hi
        if alpha >= c_hi:
            return 0.0, 0.0
        log_a = np.log(alpha)

        def past(m: int) -> bool:  # α ≥ α_m = c·U_m, certainly
            return log_a >= np.log(c_hi) + B.upper_tail("P", m)[1] + 4.0 * _U * (abs(log_a) + 1.0)

        lo, hi = 0, k + 1                # a guess from the incomplete beta function
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if alpha >= c_lo * B.approx_upper_tail("P", mid):
                hi = mid
            else:
                lo = mid
        m = search(past, 1, k + 1, hi) - 1      # α ≥ α_{m+1}, and α < α_m up to rounding
        grow, shrink = 1.0 + 8.0 * _U, 1.0 - 8.0 * _U
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            lq_lo, lq_hi = B.lower_tail("Q", m)
            top_lo, top_hi = c_lo * np.exp(lq_lo) * shrink, c_hi * np.exp(lq_hi) * grow
            # α − α_{m+1}: (lower, upper)
            u_lo, u_hi = B.upper_tail("P", m + 1)
            g_lo = alpha - c_hi * np.exp(u_hi) * grow
            g_hi = alpha - c_lo * np.exp(u_lo) * shrink
            if alpha >= 0.5:
                r_lo, r_hi = B.lower_tail("P", m)
                g_lo = max(g_lo, (alpha - 1.0) + (d_lo + c_lo * np.exp(r_lo)) * shrink)
                g_hi = min(g_hi, (alpha - 1.0) + (d_hi + c_hi * np.exp(r_hi)) * grow)
            # the segment's own width c·P_m caps the step of the upper side
            pm, pm_slack = B.log_pmf(np.array([float(m)]), "P")
            g_lo = min(g_lo, c_lo * np.exp(pm[0] - pm_slack[0]) * shrink)
            l_m = (2.0 * m - k) * e
            slack = 4.0 * _U * (abs(l_m) + 1.0)

            def times(g: float, side: int) -> float:  # e^{l_m}·g rounded to a side (g > 0)
                x = l_m + np.log(g)
                x = x + side * (slack + 4.0 * _U * abs(x))
                return np.exp(x) * (grow if side > 0 else shrink)

            drop_lo = times(g_lo, -1) if g_lo > 0.0 else 0.0
            drop_hi = times(g_hi, 1) if g_hi > 0.0 else 0.0
            # the same line from the other end: β = c·L_{m−1} + e^{l_m}(α_m − α), which
            # does not cancel where β ≪ c·L_m (the last segments, α near 1)
            b_lo, b_hi = B.lower_tail("Q", m - 1)
            base_lo, base_hi = c_lo * np.exp(b_lo) * shrink, c_hi * np.exp(b_hi) * grow
            w_lo, w_hi = B.upper_tail("P", m)
            h_lo = c_lo * np.exp(w_lo) * shrink - alpha            # α_m − α: (lower, upper)
            h_hi = c_hi * np.exp(w_hi) * grow - alpha
            if alpha >= 0.5:
                r_lo, r_hi = B.lower_tail("P", m - 1)
                h_lo = max(h_lo, (1.0 - alpha) - (d_hi + c_hi * np.exp(r_hi)) * grow)
                h_hi = min(h_hi, (1.0 - alpha) - (d_lo + c_lo * np.exp(r_lo)) * shrink)
            rise_hi = times(h_hi, 1) if h_hi > 0.0 else 0.0
            if h_lo >= 0.0:
                right_lo = base_lo + (times(h_lo, -1) if h_lo > 0.0 else 0.0)
            else:
                right_lo = base_lo - times(-h_lo, 1)
        hi_v = min(float(top_hi - drop_lo) * grow, float(top_hi),
                   float(base_hi + rise_hi) * grow, 1.0 - alpha)
        lo_v = max(float(top_lo - drop_hi), float(right_lo))
        lo_v = max(lo_v * shrink if lo_v > 0.0 else lo_v, 0.0)
        hi_v = max(hi_v, 0.0)
        return min(lo_v, hi_v), hi_v

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        return np.array([self._beta_bracket(float(x))[0] for x in a.ravel()]).reshape(a.shape)

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        return np.array([self._beta_bracket(float(x))[1] for x in a.ravel()]).reshape(a.shape)
