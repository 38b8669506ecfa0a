"""Discrete Gaussian and discrete Laplace noise on ℤ as trade-off families.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import erfcx, log_ndtr, logsumexp, ndtri

from fdp import _validate
from fdp._constants import DISCRETE_NORMAL_TAIL_Z, TINY, UNIT_ROUNDOFF
from fdp._types import ArrayLike, FloatArray
from fdp.families._rounding import ArrayPair, widen
from fdp.families.finite_pair import FinitePair
from fdp.law import AtomsLaw, Masses, PrivacyLossLaw
from fdp.status import Status
from fdp.tradeoff import TradeOff

_U = UNIT_ROUNDOFF

SIGMA_ENUM = 64.0           # σ up to this: exact enumeration; above: Euler–Maclaurin
SIGMA_MAX = 1e13            # integers stay exact in doubles up to the tails used
SENSITIVITY_MAX = 2 ** 20   # discrete Laplace enumerates Δ + 1 atoms
FLOAT_REL = 1e-13           # allowance for floating-point error in a log-tail
_BIG = 2.0 ** 50            # largest integer index used (doubles exact far beyond)


# -- Discrete Laplace
@dataclass(frozen=True)
class DiscreteLaplace(TradeOff):
    """T(DLap(0, t), DLap(Δ, t)) on ℤ, exact (CKS Def 25; docs/derivations/families.md).

    ``scale``: t > 0, P(x) ∝ e^{−|x|/t}; ``sensitivity``: Δ, a positive integer ≤ 2^20 (the pair has
    Δ + 1 atoms). For Δ = 1 it equals f_{1/t, 0}, in general it lies above f_{Δ/t, 0}.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.DiscreteLaplace(1.0)
    >>> print(f"{f(0.1):.4f} {f.epsilon(0.0):.4f}")
    0.7282 1.0000
    """

    scale: float
    sensitivity: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", _validate.real("scale", self.scale, low=0.0,
                                                          low_open=True))
        d = _validate.positive_int("sensitivity", self.sensitivity)
        if d > SENSITIVITY_MAX:
            raise ValueError(f"sensitivity must be an integer in [1, {SENSITIVITY_MAX}] "
                             f"(rescale the query), got {d}")
        object.__setattr__(self, "sensitivity", d)

    @property
    def symmetric(self) -> bool:
        return True

    def _pair(self) -> FinitePair:
        return _dlap_pair(self.scale, self.sensitivity)

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        # the interpolation of the vertices may round a hair above 1 − α near α = 1
        a = np.asarray(alpha, dtype=float)
        return np.where(a <= 0.0, 1.0, np.minimum(self._pair()._beta(a), 1.0 - a))

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        # β(0) = 1: P and Q both charge every integer, so no test of size 0 has power (an
        # atom whose P-mass e^{−Δ/t}/(1 + r) underflows is not a Q-only atom)
        a = np.asarray(alpha, dtype=float)
        return np.where(a <= 0.0, 1.0, _dlap_pair(self.scale, self.sensitivity, True)._upper(a))

    _certified_delta = True        # the exact pair's profile (FinitePair)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return self._pair()._delta(eps)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return _dlap_pair(self.scale, self.sensitivity, True)._delta_lower(eps)

    def pure_epsilon(self) -> float:
        """Δ/t: the largest loss (attained with positive mass), safe side of its bracket."""
        return self._pure_epsilon_bounds()[1]

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """Δ/t, the largest |loss| (both masses positive; CKS Def 25), as a bracket of
        the rounded quotient (u relative)."""
        lo, hi = widen(self.sensitivity / self.scale, _U)
        return float(lo), float(hi)

    def _epsilon_range(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The pair's bracket; at δ = 0 the pure ε Δ/t (δ(ε) = 0 exactly for ε ≥ Δ/t
        and > 0 below, the top atom having Q-mass above e^ε times its P-mass)."""
        lo, hi = super()._epsilon_range(d)
        p_lo, p_hi = self._pure_epsilon_bounds()
        return np.where(d == 0.0, p_lo, lo), np.where(d == 0.0, p_hi, hi)

    def latex(self) -> str:
        return rf"\mathrm{{DLap}}_{{{self.scale:g},{self.sensitivity}}}"


def _lift(L: np.ndarray, p: np.ndarray, q: np.ndarray,
          lift: bool) -> tuple[np.ndarray, np.ndarray]:
    """(L, p) with each underflowed P-mass of a Q-charged atom raised to the smallest
    double (lift=True), or as is. Every atom of these pairs has both masses positive, so
    a 0 is a mass in (0, TINY): the pair with 0 (a Q-only atom) lies below the real curve
    and has the larger δ, the lifted pair lies above it and has the smaller δ (raising α_k
    moves each vertex right and lowers each q-sum minus e^ε α_k). A lifted atom's loss is
    its own likelihood ratio log q − log TINY (below the real loss), not the real one: a
    pair whose loss disagrees with its masses has no such order. The lower β and upper δ
    come from the first, the upper β and lower δ from the second."""
    raised = lift & (p == 0.0) & (q > 0.0)
    with np.errstate(divide="ignore"):
        return (np.where(raised, np.log(q) - np.log(TINY), L), np.where(raised, TINY, p))


@lru_cache(maxsize=128)
def _dlap_pair(scale: float, d: int, lift: bool = False) -> FinitePair:
    inv_b = 1.0 / scale
    log_r = -inv_b
    log_norm = float(np.logaddexp(0.0, log_r))                        # log(1 + r)
    with np.errstate(divide="ignore"):
        log_c = float(np.log(-np.expm1(log_r))) - log_norm              # log((1 − r)/(1 + r))
    j = np.arange(1, d, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        L = np.concatenate([[-d * inv_b], (2.0 * j - d) * inv_b, [d * inv_b]])
        log_p = np.concatenate([[-log_norm], log_c + j * log_r, [d * log_r - log_norm]])
        log_q = np.concatenate([[d * log_r - log_norm], log_c + (d - j) * log_r, [-log_norm]])
    L = np.where(np.isnan(L), 0.0, L)
    # each log-mass sums at most four rounded terms (1/t, j·log r, log c, log(1 + r)), each
    # within 2u of itself; exp adds 2u and turns an absolute error η of its argument into a
    # relative one of e^η − 1 ≤ 2η (η ≪ 1). Masses that do not underflow have |log| < 746.
    span = min(d * inv_b, 746.0) + abs(log_c if np.isfinite(log_c) else 0.0) + abs(log_norm)
    rtol = 2.0 * _U + 2.0 * (4.0 * _U * (span + 1.0))
    with np.errstate(under="ignore"):
        p, q = np.exp(log_p), np.exp(log_q)
    L, p = _lift(L, p, q, lift)
    return FinitePair.from_atoms(L, p, q, mass_rtol=rtol)


# -- Discrete Gaussian
@dataclass(frozen=True)
class DiscreteGaussian(TradeOff):
    """T(N_Z(0, σ²), N_Z(Δ, σ²)) on ℤ (CKS Def 1, Thm 7; docs/derivations/families.md).

    ``sigma``: σ in (0, 1e13]; P(x) ∝ e^{−x²/(2σ²)}; ``sensitivity``: Δ, a positive integer ≤ 2^40.
    Exact (a finite pair) for σ ≤ 64; above, a certified bracket (relative width ~1e-13).
    Close to, but not exactly, G_{Δ/σ}.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.DiscreteGaussian(2.0)
    >>> print(f"{f(0.1):.4f} {fdp.Gaussian(0.5)(0.1):.4f}")
    0.7818 0.7828
    """

    sigma: float
    sensitivity: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, low=0.0,
                                                          high=SIGMA_MAX, low_open=True))
        d = _validate.positive_int("sensitivity", self.sensitivity)
        if d > 2 ** 40:
            raise ValueError(f"sensitivity must be an integer in [1, 2^40], got {d}")
        object.__setattr__(self, "sensitivity", d)

    @property
    def symmetric(self) -> bool:
        return True

    @property
    def enumerated(self) -> bool:
        """True when the pair is enumerated exactly (σ ≤ 64)."""
        return self.sigma <= SIGMA_ENUM

    @property
    def status(self) -> Status:
        return Status.EXACT if self.enumerated else Status.CERTIFIED

    def _pair(self) -> FinitePair | None:
        return _dgauss_pair(self.sigma, self.sensitivity) if self.enumerated else None

    def loss(self, x: ArrayLike) -> np.ndarray:
        """L(x) = (2xΔ − Δ²)/(2σ²) at integers x."""
        d, s = float(self.sensitivity), self.sigma
        return (2.0 * np.asarray(x, dtype=float) * d - d * d) / (2.0 * s * s)  # σ > 64 here

    # -- evaluation --------------------------------------------------------
    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        pair = self._pair()
        if pair is not None:
            return np.minimum(pair._beta(alpha), 1.0 - np.asarray(alpha, dtype=float))
        return _dg_beta(self.sigma, self.sensitivity, np.asarray(alpha, dtype=float))[0]

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        if self.enumerated:
            return _dgauss_pair(self.sigma, self.sensitivity, True)._upper(alpha)
        return _dg_beta(self.sigma, self.sensitivity, np.asarray(alpha, dtype=float))[1]

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        pair = self._pair()
        if pair is not None:
            return pair._delta(eps)
        return _dg_delta(self.sigma, self.sensitivity, np.asarray(eps, dtype=float))[1]

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        if self.enumerated:
            return _dgauss_pair(self.sigma, self.sensitivity, True)._delta_lower(eps)
        return _dg_delta(self.sigma, self.sensitivity, np.asarray(eps, dtype=float))[0]

    def pure_epsilon(self) -> float:
        """The loss is unbounded on ℤ: no f_{ε,0} lies below the curve."""
        return float("inf")

    def law(self) -> DiscreteGaussianLaw:
        """The privacy-loss law L(x) = (2xΔ − Δ²)/(2σ²) (CKS Thm 7), see ``DiscreteGaussianLaw``."""
        return DiscreteGaussianLaw(self)

    def latex(self) -> str:
        return rf"\mathcal{{N}}_{{\mathbb{{Z}}}}({self.sigma:g},{self.sensitivity})"


@lru_cache(maxsize=128)
def _dgauss_pair(s: float, d: int, lift: bool = False) -> FinitePair:
    """The exact pair on |x| ≤ M and |x − Δ| ≤ M, M = ⌈40σ⌉ + 1 (omitted mass < e^{−800})."""
    m = int(math.ceil(40.0 * s)) + 1
    # P lives on |x| ≤ M and Q on |x − Δ| ≤ M up to e^{−800}; between them (Δ > 2M)
    # both masses underflow, so only the two windows are enumerated
    x = np.unique(np.concatenate([np.arange(-m, m + 1), np.arange(d - m, d + m + 1)]))
    x = x.astype(float)
    wide = np.arange(-m, m + 1, dtype=float)
    with np.errstate(over="ignore", under="ignore"):
        # divide by σ twice: σ² underflows for σ < 1e-154
        v = -0.5 * (wide / s) ** 2
        top = float(v.max())
        log_z = top + float(np.log(np.sum(np.exp(v - top))))
        arg_p = -0.5 * (x / s) ** 2 - log_z
        arg_q = -0.5 * ((x - d) / s) ** 2 - log_z
        p = np.exp(arg_p)
        q = np.exp(arg_q)
        L = ((2.0 * x - d) * (d / s)) / (2.0 * s)
    # the log-masses: (x/s)²/2 = |arg + log Z| errs by 3u of itself; log Z by 20u absolute
    # (each e^v within 2u + 3u|v|, the weighted mean of |v| below 1, pairwise summation of
    # at most 2^13 terms 13u, the log) plus u|log Z|; the difference by u|arg|: in all
    # 4u|arg| + 5u|log Z| + 20u absolute, so e^{arg} is within 2u + 2·that relative
    # (|arg| < 746 where the mass does not underflow; at σ = 0.05 arguments near 200 matter)
    live = np.concatenate([arg_p[p > 0.0], arg_q[q > 0.0]])
    span = min(float(np.max(np.abs(live), initial=0.0)), 746.0)
    rtol = 2.0 * _U + 2.0 * _U * (4.0 * span + 5.0 * abs(log_z) + 20.0)
    L, p = _lift(L, p, q, lift)
    return FinitePair.from_atoms(L, p, q, mass_rtol=rtol)


# -- Certified tails of N_Z(0, σ²) for σ > 64 (Euler–Maclaurin)
def _log_tail_pos(k: np.ndarray, s: float) -> ArrayPair:
    """(lo, hi) of log S(k) = log P(X ≥ k) for integers k ≥ 1 (finite), σ > 64."""
    z = k / s
    log_phibar = log_ndtr(-z)
    with np.errstate(under="ignore", over="ignore"):
        # g(k)/I = φ(z)/(σ Φ̄(z)) and the inverse Mills ratio h = φ(z)/Φ̄(z)
        h = math.sqrt(2.0 / math.pi) / erfcx(z / math.sqrt(2.0))
        rho = h / s
        he3 = z ** 3 - 3.0 * z
        he5 = z ** 5 - 10.0 * z ** 3 + 15.0 * z
        corr = rho * (0.5 + z / (12.0 * s) - he3 / (720.0 * s ** 3) + he5 / (30240.0 * s ** 5))
        # ∫_z^∞ t^i e^{−t²/2} / ∫_z^∞ e^{−t²/2}: m_i = z^{i−1} h + (i − 1) m_{i−2}
        m2 = z * h + 1.0
        m4 = z ** 3 * h + 3.0 * m2
        m6 = z ** 5 * h + 5.0 * m4
        # |He₆(t)| ≤ t⁶ + 15t⁴ + 45t² + 15 for t ≥ 0; factor 2 for the rounding of this bound
        rem = 2.0 * (m6 + 15.0 * m4 + 45.0 * m2 + 15.0) / (30240.0 * s ** 6)
    # T = I (1 + corr + R/I) with |R|/I ≤ rem: relative to I (1 + corr) the error
    # is rem/(1 + corr), more than rem where the correction is negative (z ≫ σ)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = (rem + FLOAT_REL) / np.minimum(1.0, 1.0 + corr)
    rel = np.where(1.0 + corr > 0.0, rel, np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        mid = log_phibar + np.log1p(np.maximum(corr, -1.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(rel < 0.5, mid + np.log1p(-np.minimum(rel, 0.5)), -np.inf)
    hi = mid + np.log1p(rel)
    bad = ~np.isfinite(mid) | ~np.isfinite(rel)   # no usable expansion: trivial bounds
    lo = np.where(bad, -np.inf, lo)
    hi = np.where(bad, 0.0, hi)
    return lo, np.minimum(hi, 0.0)


def log_tail(k: ArrayLike, s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Certified (lo, hi) of log S(k) and of log C(k) = log(1 − S(k)), integer k (±inf ok).

    S(k) = P(X ≥ k), X ~ N_Z(0, σ²), σ > 64; C(k) = P(X < k) = S(1 − k).
    Returns (logS_lo, logS_hi, logC_lo, logC_hi).
    """
    k = np.asarray(k, dtype=float)
    kc = np.clip(k, -_BIG, _BIG)
    pos = kc >= 1
    arg = np.where(pos, kc, 1.0 - kc)               # ≥ 1: the small tail
    t_lo, t_hi = _log_tail_pos(arg, s)
    with np.errstate(under="ignore"):
        big_lo = np.log1p(-np.exp(t_hi))            # log(1 − small) bounds
        big_hi = np.log1p(-np.exp(t_lo))
    s_lo = np.where(pos, t_lo, big_lo)
    s_hi = np.where(pos, t_hi, big_hi)
    c_lo = np.where(pos, big_lo, t_lo)
    c_hi = np.where(pos, big_hi, t_hi)
    # exact ends
    s_lo = np.where(k == -np.inf, 0.0, np.where(k == np.inf, -np.inf, s_lo))
    s_hi = np.where(k == -np.inf, 0.0, np.where(k == np.inf, -np.inf, s_hi))
    c_lo = np.where(k == np.inf, 0.0, np.where(k == -np.inf, -np.inf, c_lo))
    c_hi = np.where(k == np.inf, 0.0, np.where(k == -np.inf, -np.inf, c_hi))
    # beyond ±2^50 only the monotone bound is kept
    s_lo = np.where(k > _BIG, -np.inf, s_lo)
    c_hi = np.where(k > _BIG, 0.0, c_hi)
    s_hi = np.where(k < -_BIG, 0.0, s_hi)
    c_lo = np.where(k < -_BIG, -np.inf, c_lo)
    return s_lo, s_hi, c_lo, c_hi


def _dg_delta(s: float, d: int, eps: np.ndarray) -> ArrayPair:
    """(lower, upper) of δ(ε) (CKS Thm 7 with certified tails)."""
    e = np.asarray(eps, dtype=float)
    shape = e.shape
    e = e.ravel()
    fin = np.isfinite(e)
    ef = np.where(fin, e, 0.0)
    with np.errstate(over="ignore"):
        x0 = np.floor(ef * (s * s / d) + d / 2.0) + 1.0
    high, low = x0 > _BIG, x0 < -_BIG
    x0 = np.clip(x0, -_BIG, _BIG)
    lo = np.zeros(e.size)
    hi = np.zeros(e.size)
    for off in (-1.0, 0.0, 1.0):
        x = x0 + off
        sp_lo, sp_hi, _, _ = log_tail(x, s)
        sq_lo, sq_hi, _, _ = log_tail(x - d, s)
        hi = np.maximum(hi, _diff(sq_hi, ef + sp_lo))
        lo = np.maximum(lo, _diff(sq_lo, ef + sp_hi))
    # ε beyond the index range: δ ≤ Q(X ≥ 2^50) resp. the trivial 1
    cap_hi = np.exp(log_tail(np.full(e.size, _BIG - d), s)[1])
    hi = np.where(high, cap_hi, np.where(low, 1.0, hi))
    lo = np.where(high, 0.0, lo)
    hi = np.where(e == np.inf, 0.0, np.where(e == -np.inf, 1.0, hi))
    lo = np.where(e == np.inf, 0.0, np.where(e == -np.inf, 1.0, lo))
    hi = np.minimum(hi, 1.0)
    lo = np.minimum(np.maximum(lo, 0.0), hi)
    return lo.reshape(shape), hi.reshape(shape)


def _diff(log_a: np.ndarray, log_b: np.ndarray) -> np.ndarray:
    """max(0, e^{log_a} − e^{log_b}) without overflow; 0 where a = 0."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        gap = np.minimum(log_b - log_a, 0.0)
        out = np.exp(log_a) * -np.expm1(gap)
    return np.where(np.isfinite(log_a) & ~np.isnan(out), out, 0.0)


def _dg_beta(s: float, d: int, alpha: np.ndarray) -> ArrayPair:
    """(lower, upper) of β(α): supporting lines at the vertices next to α."""
    a = np.asarray(alpha, dtype=float)
    shape = a.shape
    a = a.ravel()
    lo = np.zeros(a.size)
    hi = 1.0 - a
    inner = (a > 0.0) & (a < 1.0)
    lo = np.where(a == 0.0, 1.0, lo)
    hi = np.where(a == 0.0, 1.0, hi)
    idx = np.flatnonzero(inner)
    if idx.size:
        ai = a[idx]
        with np.errstate(over="ignore"):
            khat = np.floor(np.clip(-ndtri(ai) * s + 0.5, -_BIG, _BIG))
        l_in, h_in = np.zeros(idx.size), 1.0 - ai
        todo = np.ones(idx.size, dtype=bool)
        for w in (3, 24, 192):
            if not todo.any():
                break
            sel = np.flatnonzero(todo)
            l_w, h_w, ok = _window(s, d, ai[sel], khat[sel], w)
            l_in[sel] = np.maximum(l_in[sel], l_w)
            h_in[sel] = np.minimum(h_in[sel], h_w)
            todo[sel[ok]] = False
        lo[idx], hi[idx] = l_in, h_in
    hi = np.minimum(hi, 1.0 - a)
    lo = np.clip(lo, 0.0, None)
    lo = np.minimum(lo, hi)
    return lo.reshape(shape), hi.reshape(shape)


def _window(s: float, d: int, a: np.ndarray, khat: np.ndarray,
            w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bracket from the lines k ∈ [k̂ − w, k̂ + w]; ok where the true vertex is inside."""
    off = np.arange(-w, w + 2, dtype=float)
    j = khat[:, None] + off[None, :]                 # vertex indices k̂−w … k̂+w+1
    s_lo, s_hi, c_lo, c_hi = log_tail(j, s)          # α_j = S(j), 1 − α_j = C(j)
    _, _, b_lo, b_hi = log_tail(j - d, s)            # β_j = C(j − Δ)
    A = a[:, None]
    small = A <= 0.5
    one_minus = 1.0 - A                              # exact for α ≥ 1/2
    with np.errstate(under="ignore"):
        # u = α − α_j, from the side that does not cancel
        u_lo = np.where(small, A - np.exp(s_hi), np.exp(c_lo) - one_minus)
        u_hi = np.where(small, A - np.exp(s_lo), np.exp(c_hi) - one_minus)
        beta_lo, beta_hi = np.exp(b_lo), np.exp(b_hi)
    with np.errstate(over="ignore", invalid="ignore"):
        slope = np.exp((2.0 * (j - 1.0) * d - float(d) * d) / (2.0 * s * s))  # e^{L(j−1)}
        line_lo = beta_lo - slope * u_hi
        line_hi = beta_hi - slope * u_lo
    line_lo = np.where(np.isnan(line_lo), -np.inf, line_lo)[:, 1:]
    line_hi = line_hi[:, 1:]
    lower = np.max(line_lo, axis=1)
    # the true vertex index k* = max{k : S(k) ≥ α} lies in [k̂ − w, k̂ + w]:
    log_a = np.log(a)
    log_1ma = np.log1p(-a)
    left_ok = np.where(a <= 0.5, s_lo[:, 0] >= log_a, c_hi[:, 0] <= log_1ma)
    right_ok = np.where(a <= 0.5, s_hi[:, -1] < log_a, c_lo[:, -1] > log_1ma)
    finite = np.all(np.isfinite(line_hi), axis=1)
    ok = left_ok & right_ok & finite
    upper = np.where(ok, np.max(np.where(np.isfinite(line_hi), line_hi, np.inf), axis=1), 1.0 - a)
    # staircase: f(α) ≤ f(α_j) = β_j for the last vertex when α_j ≤ α
    upper = np.where(right_ok, np.minimum(upper, beta_hi[:, -1]), upper)
    # outward rounding of the few operations above (relative)
    lower = lower - 4e-16 * np.abs(lower)
    upper = upper + 4e-16 * np.abs(upper)
    return lower, upper, ok


# -- The privacy-loss law (σ > 64 without enumerating ℤ)
SHORT = 64          # ranges up to this many integers are summed term by term
_CHUNK = 8192


def _short_sums(lo: np.ndarray, n: np.ndarray, s: float) -> np.ndarray:
    """Σ_{x=lo}^{lo+n−1} P(x), n ≤ SHORT, P(x) = e^{−x²/2σ²}/(σ√2π) (σ > 64)."""
    out = np.zeros(lo.size)
    j = np.arange(SHORT, dtype=float)
    log_norm = math.log(s) + 0.5 * math.log(2.0 * math.pi)
    for start in range(0, lo.size, _CHUNK):
        sl = slice(start, start + _CHUNK)
        x = lo[sl, None] + j[None, :]
        v = np.where(j[None, :] < n[sl, None], -x * x / (2.0 * s * s), -np.inf)
        with np.errstate(under="ignore"):
            out[sl] = np.exp(logsumexp(v, axis=1) - log_norm)
    return out


def range_mass_lower(lo: ArrayLike, hi: ArrayLike, s: float) -> np.ndarray:
    """Certified lower bounds on P(lo ≤ X ≤ hi), X ~ N_Z(0, σ²), σ > 64.

    ``lo`` and ``hi`` are integer-valued float arrays (−inf and +inf allowed).
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    out = np.zeros(lo.size)
    n = hi - lo + 1.0
    live = n > 0
    short = live & (n <= SHORT)
    if short.any():
        # each term and the log-sum-exp carry a few ulps; FLOAT_REL covers them
        # (the normaliser's Poisson correction is below e^{−80000})
        out[short] = _short_sums(lo[short], n[short], s) * (1.0 - FLOAT_REL)
    long_ = live & ~short
    if long_.any():
        a, b = lo[long_], hi[long_] + 1.0                # mass = S(a) − S(b)
        sa_lo, sa_hi, ca_lo, ca_hi = log_tail(a, s)
        sb_lo, sb_hi, cb_lo, cb_hi = log_tail(b, s)
        with np.errstate(under="ignore", over="ignore"):
            right = np.exp(sa_lo) - np.exp(sb_hi)        # both tails on the right
            left = np.exp(cb_lo) - np.exp(ca_hi)         # both on the left: C(b) − C(a)
            span = 1.0 - np.exp(sb_hi) - np.exp(ca_hi)   # across 0
        m = np.where(a >= 1, right, np.where(b <= 1, left, span))
        m = np.where(a == -np.inf, np.where(b == np.inf, 1.0, np.exp(cb_lo)),
                     np.where(b == np.inf, np.exp(sa_lo), m))
        # the three differences round by a few ulps of their larger term
        big = np.where(a >= 1, np.exp(sa_hi), np.where(b <= 1, np.exp(cb_hi), 1.0))
        m = m - 4e-16 * np.where(np.isfinite(big), big, 1.0)
        out[long_] = np.maximum(m, 0.0)
    return out


def cell_starts(f: DiscreteGaussian, edges: ArrayLike) -> np.ndarray:
    """a_i = min{x ∈ ℤ : L(x) ≥ e_i}, with L evaluated as the engine bins atoms."""
    d, s = float(f.sensitivity), f.sigma
    e = np.asarray(edges, dtype=float)
    x = np.ceil(e * (s * s / d) + d / 2.0)
    for _ in range(2):   # fix the rounding of the inversion against L itself
        x = np.where(f.loss(x) < e, x + 1.0, x)
        x = np.where(f.loss(x - 1.0) >= e, x - 1.0, x)
    return x


@dataclass(frozen=True)
class DiscreteGaussianLaw(PrivacyLossLaw):
    """The privacy-loss law of the discrete Gaussian pair.

    Derivation: docs/derivations/families.md.

    Examples
    --------
    >>> import fdp
    >>> law = fdp.DiscreteGaussian(100.0).law()
    >>> kappa, pi, q_inf, p_neginf = law.interval_masses([0.0])
    >>> print(f"{kappa.sum() + q_inf:.4f}")
    1.0000
    """

    f: DiscreteGaussian

    def _finite(self) -> AtomsLaw | None:
        pair = self.f._pair()
        return None if pair is None else AtomsLaw(pair.log_ratio, pair.p, pair.q)

    def interval_masses(self, edges: ArrayLike) -> Masses:
        f = self.f
        finite = self._finite()
        if finite is not None:
            return finite.interval_masses(edges)
        s, d = f.sigma, float(f.sensitivity)
        a = cell_starts(f, edges)
        lo = np.concatenate([[-np.inf], a])
        hi = np.concatenate([a - 1.0, [np.inf]])
        pi = range_mass_lower(lo, hi, s)
        kappa = range_mass_lower(lo - d, hi - d, s)
        # fsum is correctly rounded: one more ulp keeps the deficits at least the true ones
        q_inf = max(0.0, 1.0 - math.fsum(kappa)) + 2.3e-16
        p_neginf = max(0.0, 1.0 - math.fsum(pi)) + 2.3e-16
        return kappa, pi, q_inf, p_neginf

    def loss_range(self) -> tuple[float, float]:
        f = self.f
        s = f.sigma
        x_lo = -math.ceil(DISCRETE_NORMAL_TAIL_Z * s)
        x_hi = f.sensitivity + math.ceil(DISCRETE_NORMAL_TAIL_Z * s)
        return float(f.loss(x_lo)), float(f.loss(x_hi))

    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        finite = self._finite()
        return (np.zeros(0), np.zeros(0)) if finite is None else finite.atoms()
