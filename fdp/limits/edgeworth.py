"""Degree-2 Edgeworth approximation of a composition (Zheng, Dong, Long, Su 2020,
"Sharp Composition Bounds for Gaussian DP via Edgeworth Expansion", arXiv 2003.04493).

The derivation: docs/derivations/limits.md.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from fdp import _validate
from fdp._types import ArrayLike, FloatArray
from fdp.families import EpsDelta, Identity
from fdp.limits.berry_esseen import _as_list, _grouped
from fdp.limits.functionals import _decompose
from fdp.operations.with_delta import with_delta
from fdp.progress import Meter
from fdp.status import Status
from fdp.tradeoff import TradeOff

_X = np.linspace(-40.0, 40.0, 16001)
_X_LIST: list[float] = _X.tolist()
_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)
#: Regula falsi (Illinois) steps inside a grid cell: superlinear, so a dozen reach
#: round-off.
_ILLINOIS_STEPS = 14
#: Up to this many α at once, the quantile is solved per α in Python floats.
_FEW = 8


def _correction(x: FloatArray, skew: float, exkurt: float) -> FloatArray:
    """φ(x)[K3/(6σ³) He2 + K4/(24σ⁴) He3 + K3²/(72σ⁶) He5] (skew = K3/σ³, exkurt = K4/σ⁴)."""
    x2 = x * x
    poly = (skew / 6.0 * (x2 - 1.0) + exkurt / 24.0 * x * (x2 - 3.0)
            + skew * skew / 72.0 * x * (x2 * x2 - 10.0 * x2 + 15.0))
    return _INV_SQRT_2PI * np.exp(-0.5 * x2) * poly


def _correction_one(x: float, skew: float, exkurt: float) -> float:
    """``_correction`` at one point, in Python floats."""
    x2 = x * x
    poly = (skew / 6.0 * (x2 - 1.0) + exkurt / 24.0 * x * (x2 - 3.0)
            + skew * skew / 72.0 * x * (x2 * x2 - 10.0 * x2 + 15.0))
    return _INV_SQRT_2PI * math.exp(-0.5 * x2) * poly


def _sf_one(x: float, skew: float, exkurt: float) -> float:
    """``edgeworth_sf`` at one point, in Python floats."""
    return float(ndtr(-x)) + _correction_one(x, skew, exkurt)


def _cdf_one(x: float, skew: float, exkurt: float) -> float:
    """``edgeworth_cdf`` at one point, in Python floats."""
    return float(ndtr(x)) - _correction_one(x, skew, exkurt)


def edgeworth_cdf(x: ArrayLike, skew: float, exkurt: float) -> FloatArray:
    """Degree-2 Edgeworth approximation of a standardised CDF (not clipped):
    Φ(x) − φ(x)[K3/(6σ³) He2 + K4/(24σ⁴) He3 + K3²/(72σ⁶) He5] at the standardised
    points ``x``, with ``skew`` = K3/σ³ and ``exkurt`` = K4/σ⁴ of the summed loss.

    Examples
    --------
    >>> from fdp.limits import edgeworth_cdf
    >>> print(f"{float(edgeworth_cdf(0.0, 0.0, 0.0)):.4f}")
    0.5000
    """
    x = np.asarray(x, dtype=float)
    return ndtr(x) - _correction(x, skew, exkurt)


def edgeworth_sf(x: ArrayLike, skew: float, exkurt: float) -> FloatArray:
    """1 − ``edgeworth_cdf`` (same arguments), without cancellation in the upper tail.

    Examples
    --------
    >>> from fdp.limits import edgeworth_sf
    >>> print(f"{float(edgeworth_sf(1.0, 0.1, 0.0)):.4f}")
    0.1589
    """
    x = np.asarray(x, dtype=float)
    return ndtr(-x) + _correction(x, skew, exkurt)


@dataclass(frozen=True)
class EdgeworthApprox(TradeOff):
    """APPROXIMATE trade-off function of a composition by the degree-2 Edgeworth
    expansion (ZDLS 2020); not a privacy bound. Fields: μ_f, σ_P, σ_Q and the
    standardised cumulants K3/σ³, K4/σ⁴ of the summed loss under P and Q.

    Parameters
    ----------
    mu_f : float
        (E_Q T_n − E_P T_n)/σ_P.
    sigma_p, sigma_q : float
        Standard deviations of the summed loss under P and Q.
    skew_p, exkurt_p, skew_q, exkurt_q : float
        Standardised third and fourth cumulants under P and Q.
    n : int
        Number of factors.

    Examples
    --------
    >>> import fdp
    >>> g = fdp.edgeworth([fdp.Laplace(0.3)] * 10)
    >>> print(type(g).__name__, f"{g(0.1):.3f}")
    EdgeworthApprox 0.646
    """

    mu_f: float
    sigma_p: float
    sigma_q: float
    skew_p: float
    exkurt_p: float
    skew_q: float
    exkurt_q: float
    n: int

    def __post_init__(self) -> None:
        for name in ("mu_f", "skew_p", "exkurt_p", "skew_q", "exkurt_q"):
            object.__setattr__(self, name, _validate.real(name, getattr(self, name)))
        for name in ("sigma_p", "sigma_q"):
            object.__setattr__(self, name, _validate.real(name, getattr(self, name), low=0.0,
                                                          low_open=True))

    def __repr__(self) -> str:
        return (f"EdgeworthApprox(mu_f={self.mu_f:.6g}, n={self.n})  # approximation "
                "(degree-2 Edgeworth, ZDLS 2020), not a guarantee")

    @property
    def status(self) -> Status:
        return Status.APPROXIMATION

    def _monotone(self) -> FloatArray:
        """The monotonised survival function under P on the grid, computed once."""
        mono = self.__dict__.get("_mono")
        if mono is None:
            sf = np.clip(edgeworth_sf(_X, self.skew_p, self.exkurt_p), 0.0, 1.0)
            mono = np.minimum.accumulate(sf)  # non-increasing in x
            # reversed (non-decreasing) and contiguous, for searchsorted without a copy
            object.__setattr__(self, "_mono", mono)
            object.__setattr__(self, "_mono_up", np.ascontiguousarray(mono[::-1]))
        return mono

    def _quantile_one(self, a: float) -> float:
        """``_quantile_p`` at one α, in Python floats: the same cell and the same
        Illinois steps, without the cost of numpy calls on one-element arrays (the
        generic maximiser of ``TradeOff._delta`` asks for one α at a time)."""
        mono = self._monotone()
        n = _X.size
        k = n - int(np.searchsorted(self.__dict__["_mono_up"], a, side="right"))
        k = min(max(k, 0), n - 1)
        km = max(k - 1, 0)
        lo, hi = _X_LIST[km], _X_LIST[k]
        f_lo, f_hi = float(mono[km]) - a, float(mono[k]) - a
        skew, exkurt = self.skew_p, self.exkurt_p
        side = 0.0
        for _ in range(_ILLINOIS_STEPS):
            gap = f_lo - f_hi
            mid = lo + (hi - lo) * f_lo / gap if gap > 0 else 0.5 * (lo + hi)
            mid = min(max(mid, lo), hi)
            f_mid = min(max(_sf_one(mid, skew, exkurt), 0.0), 1.0) - a
            if f_mid > 0:
                lo, f_lo = mid, f_mid
                if side > 0:
                    f_hi = 0.5 * f_hi
                side = 1.0
            else:
                hi, f_hi = mid, f_mid
                if side < 0:
                    f_lo = 0.5 * f_lo
                side = -1.0
            if f_hi == 0.0 or hi - lo <= 4e-16 * max(1.0, abs(hi)):
                break
        return hi

    def _quantile_p(self, alpha: FloatArray) -> FloatArray:
        """h with S_P(h) = α, S_P the monotonised Edgeworth survival function under P."""
        if np.size(alpha) <= _FEW:
            flat = np.asarray(alpha, dtype=float).ravel()
            return np.array([self._quantile_one(float(a)) for a in flat]).reshape(
                np.shape(alpha))
        mono = self._monotone()
        a = np.asarray(alpha, dtype=float).ravel()
        # First grid index with mono ≤ α (mono reversed is non-decreasing).
        k = _X.size - np.searchsorted(self.__dict__["_mono_up"], a, side="right")
        k = np.clip(k, 0, _X.size - 1)
        lo = _X[np.maximum(k - 1, 0)]
        hi = _X[k]
        f_lo = mono[np.maximum(k - 1, 0)] - a
        f_hi = mono[k] - a
        # regula falsi with the Illinois step inside the grid cell, keeping the bracket
        # (f_lo > 0 ≥ f_hi); converges superlinearly, so a dozen steps reach round-off.
        # Each α leaves the iteration once converged (the root found exactly, or its
        # cell shrunk to round-off), as in ``_quantile_one``.
        out = hi.copy()
        todo = np.arange(a.size)
        side = np.zeros(a.size)
        for _ in range(_ILLINOIS_STEPS):
            gap = f_lo - f_hi
            step = np.divide((hi - lo) * f_lo, gap, out=np.zeros_like(gap), where=gap > 0)
            mid = np.where(gap > 0, lo + step, 0.5 * (lo + hi))
            mid = np.minimum(np.maximum(mid, lo), hi)
            sf = edgeworth_sf(mid, self.skew_p, self.exkurt_p)
            f_mid = np.minimum(np.maximum(sf, 0.0), 1.0) - a
            above = f_mid > 0
            lo, f_lo = np.where(above, mid, lo), np.where(above, f_mid, f_lo)
            hi, f_hi = np.where(above, hi, mid), np.where(above, f_hi, f_mid)
            # Illinois: halve the stale end's value when the same end moved twice
            f_hi = np.where(above & (side > 0), 0.5 * f_hi, f_hi)
            f_lo = np.where(~above & (side < 0), 0.5 * f_lo, f_lo)
            side = np.where(above, 1.0, -1.0)
            done = (f_hi == 0.0) | (hi - lo <= 4e-16 * np.maximum(1.0, np.abs(hi)))
            if done.any():
                out[todo[done]] = hi[done]
                keep = ~done
                todo, lo, hi, f_lo, f_hi, side, a = (
                    x[keep] for x in (todo, lo, hi, f_lo, f_hi, side, a))
                if not todo.size:
                    break
        out[todo] = hi
        return out.reshape(np.shape(alpha))

    def _beta_one(self, a: float) -> float:
        """``_beta`` at one α, in Python floats."""
        if a <= 0.0:
            return 1.0
        if a >= 1.0:
            return 0.0
        y = (self._quantile_one(a) - self.mu_f) * self.sigma_p / self.sigma_q
        beta = min(max(_cdf_one(y, self.skew_q, self.exkurt_q), 0.0), 1.0)
        return min(beta, 1.0 - a)

    def _beta(self, alpha: FloatArray) -> FloatArray:
        a = np.asarray(alpha, dtype=float)
        if a.size <= _FEW:
            return np.array([self._beta_one(x) for x in a.ravel().tolist()]).reshape(a.shape)
        # the generic δ(ε) asks for β on the same search grid at every ε: keep the last
        cached = self.__dict__.get("_last_beta")
        if cached is not None and cached[0].shape == a.shape and np.array_equal(cached[0], a):
            return cached[1].copy()
        out = self._beta_many(a)
        object.__setattr__(self, "_last_beta", (a.copy(), out))
        return out.copy()

    def _beta_many(self, a: FloatArray) -> FloatArray:
        """``_beta`` on an array (the quantile solved for all α at once)."""
        inner = (a > 0.0) & (a < 1.0)
        h = self._quantile_p(np.where(inner, a, 0.5))
        y = (h - self.mu_f) * self.sigma_p / self.sigma_q
        beta = np.clip(edgeworth_cdf(y, self.skew_q, self.exkurt_q), 0.0, 1.0)
        beta = np.where(a <= 0.0, 1.0, np.where(a >= 1.0, 0.0, beta))
        return np.minimum(beta, 1.0 - a)

    def latex(self) -> str:
        return rf"\mathrm{{EW}}_{{{self.mu_f:g}}}"


def edgeworth(fs: TradeOff | Sequence[TradeOff]) -> TradeOff:
    """Degree-2 Edgeworth approximation of f_1 ⊗ … ⊗ f_n (ZDLS 2020).

    Returns an ``EdgeworthApprox`` (wrapped as g ⊗ f_{0,δ} when the inputs carry δ),
    labelled approximate: it is not a bound. Inputs need not be symmetric. The
    cumulants come from ``fdp.limits.functionals`` (closed forms, exact sums or
    quadrature). ``[f] * n`` is cheap: equal factors are counted.

    Check (ZDLS code): Lap(0,1)^{⊗n} vs Lap(3/√n,1)^{⊗n} gives μ_f = 2.70288 (n = 1),
    2.67161 (3), 2.68900 (5), 2.72922 (10).

    Examples
    --------
    >>> import fdp
    >>> g = fdp.edgeworth([fdp.Laplace(3.0 / 10 ** 0.5)] * 10)
    >>> print(f"{g.mu_f:.5f}")
    2.72922
    """
    items = _grouped(_as_list(fs))
    n_total = sum(n for _, n in items)
    mean_p = var_p = k3_p = k4_p = 0.0
    mean_q = var_q = k3_q = k4_q = 0.0
    log_keep = 0.0
    meter = None
    start = time.monotonic()
    for i, (f, n) in enumerate(items):
        if i == 1:
            # the first distinct factor's time sizes the rest (cumulants by closed form
            # take microseconds, by quadrature seconds): a meter on stderr when the
            # whole is expected to take AUTO_SECONDS or more (``fdp.progress``)
            meter = Meter(len(items), "edgeworth", None,
                          seconds=(time.monotonic() - start) * len(items))
            meter.advance(1)
        dec = _decompose(f)
        mp, vp, cp3, cp4 = dec.law.cumulants("P")
        mq, vq, cq3, cq4 = dec.law.cumulants("Q")
        mean_p += n * mp
        var_p += n * vp
        k3_p += n * cp3
        k4_p += n * cp4
        mean_q += n * mq
        var_q += n * vq
        k3_q += n * cq3
        k4_q += n * cq4
        log_keep += n * np.log1p(-dec.delta) if dec.delta < 1.0 else -np.inf
        if meter is not None:
            meter.advance(1)
    if meter is not None:
        meter.close()
    delta = float(-np.expm1(log_keep)) + 0.0  # + 0.0: no −0.0
    if delta >= 1.0:
        return EpsDelta(0.0, 1.0)
    if var_p <= 0.0 or var_q <= 0.0:
        # Degenerate loss (every factor is Id after the δ split): exact.
        return with_delta(Identity(), delta)
    sp, sq = np.sqrt(var_p), np.sqrt(var_q)
    approx = EdgeworthApprox(mu_f=float((mean_q - mean_p) / sp), sigma_p=float(sp),
                             sigma_q=float(sq), skew_p=float(k3_p / sp ** 3),
                             exkurt_p=float(k4_p / var_p ** 2), skew_q=float(k3_q / sq ** 3),
                             exkurt_q=float(k4_q / var_q ** 2), n=n_total)
    return with_delta(approx, delta)
