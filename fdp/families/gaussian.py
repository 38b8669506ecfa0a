"""Gaussian trade-off functions G_μ = T(N(0,1), N(μ,1)) (DRS Def 2.7): the curve, its
privacy profile in log space, and its privacy-loss law.

δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for every real ε (DRS Cor 2.13), computed
as log δ in three regimes chosen so that no step cancels:

* ε < 0: G_μ is symmetric, so δ(ε) = 1 − e^ε + e^ε δ(−ε) (DRS Prop 2.12 applied to
  f = f⁻¹); a sum of positive terms, taken with ``logaddexp``.
* ε = 0: δ(0) = 2Φ(μ/2) − 1 = erf(μ/(2√2)), exact down to subnormal μ.
* ε > 0, μ ≥ 0.05: with t₁ = ε/μ − μ/2, t₂ = ε/μ + μ/2, near (t₁ ≤ 1)
  log Φ(−t₁) + log(1 − e^{ε + log Φ(−t₂) − log Φ(−t₁)}); far (t₁ > 1) the scaled
  complementary error function, whose exponents agree exactly (ε − xμ = 0):
  δ = ½ e^{−t₁²/2} [erfcx(t₁/√2) − erfcx(t₂/√2)].
* ε > 0, μ < 0.05: with x = ε/μ fixed, d/dh [Φ(h − x) − e^{2hx} Φ(−x − h)] =
  2 φ(x − h) (1 − x M(x + h)), M the Mills ratio Φ(−y)/φ(y) = √(π/2) erfcx(y/√2), so
  δ = ∫₀^{μ/2} 2 φ(x − s) (1 − x M(x + s)) ds, a positive integrand integrated by
  32-point Gauss–Legendre (ε ≤ 4 and ε/μ ≤ 1e4; beyond, the far form suffices).

The privacy loss of (N(0,1), N(μ,1)) is L = μX − μ²/2: L ~ N(−μ²/2, μ²) under P and
N(μ²/2, μ²) under Q (DRS §3.2), so every moment, cumulant and the log-MGF are closed
forms; D_α(Q ‖ P) = αμ²/2 (Mironov 2017, Table II).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import erf, erfcx, log_ndtr, ndtr, ndtri

from fdp import _validate
from fdp._constants import (
    ERF_RTOL,
    ERFCX_RTOL,
    ERROR_SAFETY,
    GL_RULE_RTOL,
    GL_TRUNCATION_RTOL,
    NDTR_RTOL,
    NDTR_W2_RTOL,
    NDTRI_RTOL,
    NORMAL_TAIL_MASS,
    NORMAL_TAIL_Z,
    TINY,
    UNIT_ROUNDOFF,
)
from fdp._types import ArrayLike
from fdp.families._rounding import ArrayPair, exp_bracket, one_minus, widen
from fdp.law import Masses, PrivacyLossLaw, bin_atoms, mirrored_moment
from fdp.tradeoff import TradeOff

_SQRT2 = np.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(32)
_SMALL_MU = 0.05
_U = UNIT_ROUNDOFF


def _r_ndtr(w: np.ndarray) -> np.ndarray:
    """Bound on the relative error of ndtr(w) and the absolute error of log_ndtr(w)
    (``NDTR_RTOL``, ``NDTR_W2_RTOL``). For w ≥ 0, Φ(w) = 1 − Φ(−w)·(1 + θ) carries the
    tail's error times Φ(−w)/Φ(w) ≤ 2√(π/2)φ(w) ≤ e^{−w²/2} (Mills' ratio at most
    √(π/2)), plus u."""
    wn = np.minimum(w, 0.0)
    tail = NDTR_RTOL + NDTR_W2_RTOL * w * w
    with np.errstate(under="ignore", over="ignore"):
        upper = _U + tail * np.exp(-0.5 * w * w)
    return np.where(w < 0.0, NDTR_RTOL + NDTR_W2_RTOL * wn * wn, np.minimum(tail, upper))


def _mills_sens(w: np.ndarray) -> np.ndarray:
    """Bound on |d log Φ(w)/dw| = φ(w)/Φ(w): below 1 + max(−w, 0) (φ(t)/Φ(−t) ≤ t + 1
    for t ≥ 0, Birnbaum 1942), and below 2φ(w) ≤ e^{−w²/2} for w ≥ 0 (Φ(w) ≥ 1/2)."""
    with np.errstate(under="ignore", over="ignore"):
        return np.where(w < 0.0, 1.0 - np.minimum(w, 0.0), np.exp(-0.5 * w * w))


# 1 − yM(y) = Σ_{k≥1} (−1)^{k+1} (2k − 1)!! y^{−2k}, truncated after _MILLS_TERMS terms:
# for real y the remainder is at most the first omitted term (DLMF 7.12.1–7.12.2),
# (2·20 + 1)!! y^{−42} ≤ 1e-18 of the first term for y ≥ _MILLS_SERIES_Y = 12, and
# consecutive terms shrink by (2k + 1)/y² ≤ 0.28, so the sum is at least 0.7 of its
# first term and Horner's 2 roundings per term stay below 2·20·u/0.7 relative.
_MILLS_TERMS = 20
_MILLS_SERIES_Y = 12.0
_MILLS_COEF = np.array([(-1.0) ** (k + 1) * math.prod(range(1, 2 * k, 2))
                        for k in range(1, _MILLS_TERMS + 1)])


def _log_one_minus_x_mills(x: np.ndarray, y: np.ndarray, gap: np.ndarray,
                           dy: np.ndarray) -> ArrayPair:
    """log(1 − x M(y)) for 0 ≤ x ≤ y = x + gap, M(y) = Φ(−y)/φ(y) (positive: M(y) < 1/y),
    and a bound on its absolute error given the error ``dy`` of y (x errs by u relative)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        m = np.sqrt(np.pi / 2.0) * erfcx(y / _SQRT2)
        xm = x * m
        direct = 1.0 - xm
        # For y ≥ 12: 1 − xM(y) = (1 − yM(y)) + (y − x)M(y), two non-negative terms
        # (no cancellation), the first by its asymptotic series (above).
        r = 1.0 / (y * y)
        acc = np.zeros_like(r)
        for c in _MILLS_COEF[::-1]:
            acc = (acc + c) * r
        series = acc + gap * m
        big = y >= _MILLS_SERIES_Y
        v = np.where(big, series, direct)
        # relative error of m: erfcx's own, its argument's (|d log erfcx/d log u| ≤ 1 for
        # u > 0: erfcx(u) ≥ 2/(√π(u + √(u² + 2))), A&S 7.1.13), √(π/2) and the products
        rel_m = ERFCX_RTOL + dy / y + 5.0 * _U
        # 1 − xm cancels by xm/(1 − xm)
        rel_direct = (xm / direct) * (rel_m + 2.0 * _U) + _U
        # the series: truncation, Horner, r = 1/y² (2u, twice per power: 2k·2u ≤ 80u
        # for the last term) and y's error (relative 2·dy/y per power of r, ≤ 42 dy/y)
        rel_series = 1e-18 + 60.0 * _U + 80.0 * _U + 42.0 * dy / y + rel_m + 3.0 * _U
        rel = np.where(big, rel_series, rel_direct)
        err = np.where(rel < 0.5, -np.log1p(-rel), np.inf)
        lv = np.log(v)
        return lv, err + 2.0 * _U * np.abs(lv)


def _log_delta_small_mu(mu: float, eps: np.ndarray) -> ArrayPair:
    """log δ_μ(ε) for 0 < μ < 0.05, 0 < ε ≤ 4 by the integral in the module docstring,
    and a bound on its absolute error."""
    x = eps / mu
    dx = _U * x
    h = mu / 2.0
    s = 0.5 * h * (_GL_X + 1.0)                      # nodes on [0, h]
    ds = h * (GL_RULE_RTOL + 4.0 * _U)
    logw = np.log(0.5 * h * _GL_W)
    xx = x[:, None]
    dxx = dx[:, None]
    d = xx - s[None, :]
    dd = dxx + _U * np.abs(d) + ds
    log_phi = -0.5 * d ** 2 - _LOG_SQRT_2PI
    err_phi = np.abs(d) * dd + 2.0 * _U * d * d + 2.0 * _U * (np.abs(log_phi) + 1.0)
    y = xx + s[None, :]
    dy = dxx + ds + _U * y
    lm, err_lm = _log_one_minus_x_mills(xx, y, np.broadcast_to(s[None, :], y.shape), dy)
    # the nodes' error moves the integrand by at most (|x − s| + x)·ds in log
    err_nodes = (np.abs(d) + xx) * ds
    terms = np.log(2.0) + logw[None, :] + log_phi + lm
    err_terms = (err_phi + err_lm + err_nodes + GL_RULE_RTOL + 4.0 * _U * (np.abs(logw)
                                                                             + 1.0)[None, :])
    top = terms.max(axis=1)
    val = top + np.log(np.exp(terms - top[:, None]).sum(axis=1))
    # log-sum-exp: the largest term error, the sum's (n + 4) roundings, the log's
    err = (err_terms.max(axis=1) + (_GL_X.size + 4) * _U + 2.0 * _U * np.abs(val)
           + GL_TRUNCATION_RTOL)
    return val, err


def _log_delta_pos(mu: float, eps: np.ndarray) -> ArrayPair:
    """log δ_μ(ε) for ε > 0 (finite or +inf) and μ > 0, and a bound on its absolute
    error (each regime's steps with their condition numbers; module docstring)."""
    out = np.empty_like(eps)
    err = np.empty_like(eps)
    with np.errstate(over="ignore"):
        # x = ε/μ ≤ 1e4 too: beyond, δ < e^{−5e7} and the far form gives its log
        small = (mu < _SMALL_MU) & (eps <= 4.0) & (eps <= 1e4 * mu)
    if small.any():
        out[small], err[small] = _log_delta_small_mu(mu, eps[small])
    rest = ~small
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = eps[rest]
        x = e / mu            # +inf for a subnormal μ: the limits below are then exact
        t1 = x - mu / 2.0
        t2 = x + mu / 2.0
        dx = _U * x + _U * mu
        dt1 = dx + _U * np.abs(t1)
        dt2 = dx + _U * t2
        r = np.empty_like(e)
        er = np.empty_like(e)
        far = t1 > 1.0
        # Far tail: the erfcx form, no cancellation between the exponents.
        u1, u2 = t1[far] / _SQRT2, t2[far] / _SQRT2
        x1, x2 = erfcx(u1), erfcx(u2)
        diff = x1 - x2
        # where the difference is lost to rounding (ε/μ ≳ 1e7, δ < e^{−5e13}): the
        # leading term of erfcx(u) ≈ 1/(u√π), i.e. (u2 − u1)/(√π u1 u2)
        asym = (mu / _SQRT2) / (np.sqrt(np.pi) * u1 * u2)
        lost = ~((diff > 0) & np.isfinite(diff))
        # relative error of each erfcx: its own, and its argument's (sensitivity ≤ 1)
        e1 = ERFCX_RTOL + 2.0 * _U + dt1[far] / t1[far]
        e2 = ERFCX_RTOL + 2.0 * _U + dt2[far] / t2[far]
        rel_diff = (e1 * x1 + e2 * x2) / diff + _U
        # the asymptotic difference: the next terms of erfcx's expansion are below
        # 2/u1² of it, and u1, u2, μ enter as products
        rel_asym = 2.0 / (u1 * u1) + e1 + e2 + 6.0 * _U
        # of the two estimates, the one with the smaller proven error
        lost |= ~(rel_diff <= rel_asym)
        rel_d = np.where(lost, rel_asym, rel_diff)
        diff = np.where(lost, asym, diff)
        tf = t1[far]
        r[far] = np.log(0.5) - 0.5 * tf ** 2 + np.log(diff)
        er[far] = (np.where(rel_d < 0.5, -np.log1p(-rel_d), np.inf)
                   + tf * dt1[far] + 2.0 * _U * tf * tf)
        # Near: log of Φ(−t1) (1 − e^{ε + log Φ(−t2) − log Φ(−t1)}).
        near = ~far
        tn1, tn2 = t1[near], t2[near]
        a = log_ndtr(-tn1)
        b = e[near] + log_ndtr(-tn2)
        err_a = 1.01 * _r_ndtr(-tn1) + _mills_sens(-tn1) * dt1[near] + 2.0 * _U * np.abs(a)
        err_b = (1.01 * _r_ndtr(-tn2) + _mills_sens(-tn2) * dt2[near]
                 + 2.0 * _U * np.abs(b))
        dlt = np.minimum(b - a, 0.0)
        one_m = -np.expm1(dlt)
        # d/dd log(1 − e^d) = 1/(e^{−d} − 1): the cancellation of 1 − e^d near d = 0
        amp = 1.0 / np.expm1(-dlt)
        err_1m = amp * (err_a + err_b + _U * np.abs(dlt)) + 2.0 * _U
        r[near] = a + np.log(one_m)
        er[near] = err_a + err_1m
        inf_e = np.isposinf(e)
        r = np.where(inf_e, -np.inf, r)
        er = np.where(inf_e, 0.0, er + 4.0 * _U * (np.abs(np.where(np.isfinite(r), r, 0.0))
                                                   + 1.0))
        out[rest] = r
        err[rest] = np.where(np.isnan(er), np.inf, er)
    return out, err


# Kept for callers that add an allowance of their own (``fdp.conversions.gdp``): the
# evaluation error measured against mpmath (60 digits; μ in [1e-12, 60], ε in [−5,
# 1600]) is below 1.3e-13 absolute and 1.7e-15·|log δ| relative, and grows like
# 2.4e-16·μ for large μ. The certified bracket does not use them: it carries the
# error bound derived step by step (``_log_delta_and_error``).
LOG_DELTA_ALLOWANCE = 1e-12
LOG_DELTA_RALLOWANCE = 4e-15
LOG_DELTA_MU_ALLOWANCE = 1e-15


def gdp_log_delta_upper(mu: float, eps: np.ndarray) -> np.ndarray:
    """Certified upper bound on log δ_μ(ε) (the estimate plus its derived error bound,
    capped at 0), vectorised in ε; −inf exactly where δ = 0 (μ = 0 and ε ≥ 0, or ε = +inf)."""
    est, err = _log_delta_and_error(mu, eps)
    return _log_side(est, err, +1)


def _log_delta_low(mu: float, eps: np.ndarray) -> np.ndarray:
    """Certified lower bound on log δ_μ(ε) (−inf where nothing better is proven)."""
    est, err = _log_delta_and_error(mu, eps)
    return _log_side(est, err, -1)


def _log_side(est: np.ndarray, err: np.ndarray, side: int) -> np.ndarray:
    """est ± err (ERROR_SAFETY and the rounding of the sum included), stepped outward."""
    finite = np.isfinite(est) & (est > -np.finfo(float).max)
    safe = np.where(finite, est, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        e = ERROR_SAFETY * err + 4.0 * _U * (1.0 + np.abs(safe))
        v = np.nextafter(safe + side * e, side * np.inf)
    v = np.where(np.isnan(v), side * np.inf, v)
    if side > 0:
        # the most negative double stands for an overflowed log: still an upper bound
        return np.where(finite, np.minimum(v, 0.0), est)
    return np.where(finite, np.minimum(v, 0.0), np.where(est == 0.0, 0.0, -np.inf))


def gdp_log_delta_estimate(mu: float, eps: np.ndarray) -> np.ndarray:
    """log δ_μ(ε), vectorised in ε; −inf where δ = 0 (μ = 0 and ε ≥ 0, or ε = +inf).

    δ > 0 for every finite ε when μ > 0: a log that overflowed to −inf (ε/μ ≈ 1e300)
    is reported as the most negative double, never as an exact 0.
    """
    return _log_delta_and_error(mu, eps)[0]


def _log_delta_and_error(mu: float, eps: np.ndarray) -> ArrayPair:
    """(log δ_μ(ε), a bound on its absolute error), vectorised in ε.

    The bound adds, per regime, the documented accuracy of each special function
    (``fdp._constants``: NDTR_RTOL, NDTR_W2_RTOL, ERFCX_RTOL, ERF_RTOL, the
    Gauss–Legendre terms) and the unit roundoff of each step, each times its
    condition number evaluated at the point.
    """
    eps = np.asarray(eps, dtype=float)
    shape = eps.shape
    e = eps.ravel()
    # (over: −|ε| + log δ for |ε| near the largest double is −inf, which is right)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if mu == 0.0:
            # G_0 = Id: δ(ε) = max(0, 1 − e^ε).
            v = np.where(e >= 0, -np.inf, np.log(-np.expm1(np.minimum(e, 0.0))))
            err = np.where(e >= 0, 0.0, 4.0 * _U * (1.0 + np.abs(np.where(e >= 0, 0.0, v))))
            return v.reshape(shape), err.reshape(shape)
        out = np.empty_like(e)
        err = np.zeros_like(e)
        zero = e == 0.0
        out[zero] = np.log(erf(mu / (2.0 * _SQRT2)))
        # erf's own error, its argument's three roundings (x erf'(x)/erf(x) ≤ 1), the log
        err[zero] = ERF_RTOL + 3.0 * _U + 2.0 * _U * np.abs(out[zero]) + _U
        pos = np.abs(e) > 0.0
        if pos.any():
            a = np.abs(e[pos])
            la, ela = _log_delta_pos(mu, a)
            neg = e[pos] < 0
            # ε < 0: δ(ε) = 1 − e^ε + e^ε δ(−ε) (symmetry of G_μ).
            one_minus_e = np.where(neg, np.log(-np.expm1(-a)), -np.inf)
            second = -a + la
            refl = np.logaddexp(one_minus_e, second)
            e_one = 4.0 * _U * (1.0 + np.abs(np.where(neg, one_minus_e, 0.0)))
            fin2 = np.isfinite(second)
            e_sec = np.where(fin2, ela + _U * np.abs(np.where(fin2, second, 0.0)), 0.0)
            # logaddexp moves by the weighted errors of its terms, w_i = e^{x_i − refl};
            # the second term is at most e^{−|ε|} (δ ≤ 1) whatever its error
            w1 = np.exp(one_minus_e - refl)
            w2 = np.exp(second - refl)
            up = w1 * np.expm1(e_one) + np.minimum(w2 * np.expm1(np.minimum(e_sec, 700.0)),
                                                   np.exp(-a - refl))
            down = w1 * -np.expm1(-e_one) + w2 * -np.expm1(-e_sec)
            e_refl = (np.maximum(np.log1p(up), -np.log1p(-np.minimum(down, 1.0)))
                      + 4.0 * _U * (1.0 + np.abs(refl)))
            out[pos] = np.where(neg, np.where(np.isinf(a), 0.0, refl), la)
            err[pos] = np.where(neg, np.where(np.isinf(a), 0.0, e_refl), ela)
        over = np.isfinite(e) & (out == -np.inf)
        out = np.where(over, -np.finfo(float).max, out)
        err = np.where(over, np.inf, err)
    return out.reshape(shape), err.reshape(shape)


def _beta_bracket(mu: float, alpha: np.ndarray) -> ArrayPair:
    """(lo, hi) around G_μ(α) = Φ(Φ⁻¹(1 − α) − μ): the computed value widened by its
    error bound, with 1 − α (exact, as adjacent doubles) capping both ends.

    With z = Φ⁻¹(1 − α) (−ndtri(α), or ndtri(1 − α) with 1 − α exact for α ≥ 1/2) and
    w = z − μ: ndtri errs by NDTRI_RTOL·|z|, the subtraction by u|w|, and log Φ(w) moves
    by φ(w)/Φ(w) ≤ 1 + max(−w, 0) per unit of w; ndtr itself errs by NDTR_RTOL +
    NDTR_W2_RTOL·w². Where Φ(w) is subnormal (w < −37.6; ndtr returns 0 below −37.68)
    Gordon's inequalities t φ(t)/(t² + 1) ≤ Φ(−t) ≤ φ(t)/t (Gordon 1941) give the bracket.
    """
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))
        w = z - mu
        v = ndtr(w)
        fin = np.isfinite(w)
        az = np.where(np.isfinite(z), np.abs(z), 0.0)
        wf = np.where(fin, w, 0.0)
        rel = _r_ndtr(wf) + _mills_sens(wf) * (NDTRI_RTOL * az + _U * (np.abs(wf) + az))
        lo, hi = widen(v, rel, 8.0 * TINY)
        # the subnormal tail by Gordon's bounds, in log space
        t = np.where(fin & (w < -37.6), -wf, 40.0)
        log_up = -0.5 * t * t - np.log(t) - _LOG_SQRT_2PI
        err_l = 4.0 * _U * (t * t + 4.0)
        g_lo, _ = exp_bracket(log_up - np.log1p(1.0 / (t * t)), err_l)
        _, g_hi = exp_bracket(log_up, err_l)
    tail = fin & (w < -37.6)
    lo = np.where(tail, g_lo, lo)
    hi = np.where(tail, g_hi, hi)
    om_lo, om_hi = one_minus(a)
    # ends: α = 0 gives 1 exactly, α = 1 gives 0 exactly (z = ±inf)
    lo = np.where(fin, np.minimum(lo, om_lo), v)
    hi = np.where(fin, np.minimum(hi, om_hi), v)
    return np.minimum(lo, hi), hi


def gdp_beta(mu: float, alpha: np.ndarray) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), computed without forming 1 − α for small α.

    Capped at 1 − α (G_μ ≤ Id; rounding could put Φ(Φ⁻¹(1 − α)) one ulp above it,
    e.g. G_0(0.05) = 0.9500000000000001); the cap only lowers the value (safe side).
    """
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        z = np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))
    return np.minimum(ndtr(z - mu), 1.0 - a)


def normal_cells(z: np.ndarray) -> np.ndarray:
    """Standard-normal masses of (−∞, z_0), [z_0, z_1), …, [z_{K−1}, ∞) for sorted z.

    One tail probability c_i = Φ(−|z_i|) per edge, differenced on the side of 0
    where it is small, so both tails keep full relative precision.

    Parameters
    ----------
    z : array_like
        Sorted edges (±inf allowed).

    Returns
    -------
    ndarray
        The K + 1 cell masses (non-negative).

    Examples
    --------
    >>> from fdp.families.gaussian import normal_cells
    >>> print(normal_cells([-1.0, 1.0]).round(4))
    [0.1587 0.6827 0.1587]
    """
    z = np.asarray(z, dtype=float)
    c = ndtr(-np.abs(z))
    neg = z <= 0
    out = np.empty(z.size + 1)
    out[0] = c[0] if neg[0] else 1.0 - c[0]
    out[-1] = c[-1] if not neg[-1] else 1.0 - c[-1]
    a, b = c[:-1], c[1:]
    both_neg, both_pos = neg[:-1] & neg[1:], ~neg[:-1] & ~neg[1:]
    out[1:-1] = np.where(both_neg, b - a, np.where(both_pos, a - b, 1.0 - a - b))
    return np.maximum(out, 0.0)


def isf_normal(tail: float) -> float:
    """z with P(Z > z) = tail for a standard normal Z (0 for tail ≥ 1/2).

    Parameters
    ----------
    tail : float
        Upper-tail probability in (0, 1).

    Returns
    -------
    float
        The upper quantile Φ̄⁻¹(tail), clipped below at 0.

    Examples
    --------
    >>> from fdp.families.gaussian import isf_normal
    >>> print(f"{isf_normal(0.025):.4f}")
    1.9600
    """
    return -float(ndtri(tail)) if tail < 0.5 else 0.0


_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(96)
_GH_W = _GH_W / _GH_W.sum()


def mean_var(values: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """Weighted mean and variance; (inf, inf) for a law beyond doubles."""
    if not np.all(np.isfinite(values)):
        return np.inf, np.inf          # a law beyond doubles: the grid is sized by its window
    m = float(weights @ values)
    return m, float(weights @ (values - m) ** 2)


@dataclass(frozen=True)
class GaussianLaw(PrivacyLossLaw):
    """The privacy loss of G_μ: L = μX − μ²/2, N(∓μ²/2, μ²) under P and Q (DRS §3.2).

    Parameters
    ----------
    mu : float
        μ ≥ 0.

    Examples
    --------
    >>> import fdp
    >>> law = fdp.Gaussian(1.0).law()
    >>> print(f"{law.moment(1):.4f} {law.moment(2, -0.5):.4f}")
    -0.5000 1.0000
    """

    renyi_is_upper_bound = True

    mu: float

    @property
    def moment_method(self) -> str:
        return "closed form"

    def interval_masses(self, edges: ArrayLike) -> Masses:
        mu = self.mu
        if mu == 0.0:
            kappa, pi = bin_atoms(edges, np.zeros(1), np.ones(1), np.ones(1))
            return kappa, pi, 0.0, 0.0
        # L ≤ e ⇔ x ≤ e/μ ∓ μ/2 (Q: x ∼ N(μ, 1) shifted; P: N(0, 1)); written without μ²,
        # which overflows for μ > 1e154, and without inf − inf at infinite edges
        e = np.asarray(edges, dtype=float)
        with np.errstate(over="ignore"):
            z = e / mu
        kappa = normal_cells(z - mu / 2.0)
        pi = normal_cells(z + mu / 2.0)
        return kappa, pi, 0.0, 0.0

    def loss_range(self) -> tuple[float, float]:
        # the bulk of L under Q (around μ²/2) and under P (around −μ²/2): the P side is
        # what the reflected lattice of the inverse pair (remove direction) lives on
        mu = self.mu
        return -mu * mu / 2.0 - NORMAL_TAIL_Z * mu, mu * mu / 2.0 + NORMAL_TAIL_Z * mu

    def loss_moments(self, under: str = "Q") -> tuple[float, float]:
        m = self.mu * self.mu / 2.0
        return (m if under == "Q" else -m), self.mu * self.mu

    def subsampled_loss_range(self, p: float) -> tuple[float, float] | None:
        if self.mu <= 0.0:
            return None
        # Q(L > l) = (1 − p)Φ̄(x) + pΦ̄(x − μ) at the x with L(x) = l: cut where the
        # larger term is NORMAL_TAIL_MASS, as for the plain Gaussian
        # (an inclusion component of mass below 1e-25 in all is left out: the grid's
        # top tail goes to the safe side anyway). Exponents as μ(x − μ/2): finite or
        # ±inf, never inf − inf, however large μ is.
        mu = self.mu
        x_hi = float(isf_normal(NORMAL_TAIL_MASS))
        if NORMAL_TAIL_MASS / p < 0.5:
            x_hi = max(x_hi, mu + float(isf_normal(NORMAL_TAIL_MASS / p)))
        hi = float(np.logaddexp(np.log1p(-p), np.log(p) + mu * (x_hi - mu / 2.0)))
        return float(np.log1p(-p)), hi

    def subsampled_loss_moments(self, p: float, under: str) -> tuple[float, float] | None:
        if self.mu <= 0.0:
            return None
        mu = self.mu

        def loss(x: np.ndarray) -> np.ndarray:
            with np.errstate(over="ignore"):
                return np.logaddexp(np.log1p(-p), np.log(p) + mu * (x - mu / 2.0))
        if under == "P":   # P = N(0, 1)
            return mean_var(loss(_GH_X), _GH_W)
        # under Q = (1 − p)N(0, 1) + pN(μ, 1) (96-point Gauss–Hermite; L is smooth)
        x = np.concatenate([_GH_X, _GH_X + mu])
        w = np.concatenate([(1.0 - p) * _GH_W, p * _GH_W])
        return mean_var(loss(x), w)

    def moment(self, k: int, c: float = 0.0, absolute: bool = False,
               under: str = "P") -> float:
        if under == "Q":
            return mirrored_moment(self, k, c, absolute)
        s = self.mu
        d = -s * s / 2.0 - c
        if absolute and k % 2 == 1:
            if k != 3:
                raise NotImplementedError("absolute Gaussian moments of order 3 only")
            if s == 0.0:
                return abs(d) ** 3
            # E|N(d, s²)|³ = s³[(ν³ + 3ν)(1 − 2Φ(−ν)) + √(2/π)(ν² + 2)e^{−ν²/2}], ν = d/s.
            nu = abs(d) / s
            return s ** 3 * ((nu ** 3 + 3 * nu) * (1.0 - 2.0 * ndtr(-nu))
                             + math.sqrt(2.0 / math.pi) * (nu * nu + 2.0) * math.exp(-nu * nu / 2))
        raw = {1: d, 2: d * d + s * s, 3: d ** 3 + 3 * d * s * s,
               4: d ** 4 + 6 * d * d * s * s + 3 * s ** 4}
        return raw[k]

    def log_mgf(self, t: float, under: str = "Q") -> float:
        """log E e^{tL} = t·m + t²μ²/2 with m = ±μ²/2 (normal MGF)."""
        m = self.mu * self.mu / 2.0
        return t * (m if under == "Q" else -m) + t * t * self.mu * self.mu / 2.0

    def renyi(self, orders: ArrayLike) -> np.ndarray:
        """D_α(N(μ,1) ‖ N(0,1)) = αμ²/2 (Mironov 2017, Table II), rounded up: three
        products of u each (8u covers them), plus an absolute allowance where they
        underflow."""
        o = np.asarray(orders, dtype=float).ravel()
        if self.mu == 0.0:
            return np.zeros(o.shape)
        with np.errstate(over="ignore"):
            return o * self.mu * self.mu / 2.0 * (1.0 + 8.0 * UNIT_ROUNDOFF) + 4.0 * TINY


@dataclass(frozen=True)
class Gaussian(TradeOff):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (DRS eq. 2.3), μ ≥ 0.

    The Gaussian mechanism θ + N(0, Δ²/μ²) is μ-GDP. Symmetric; G_a ⊗ G_b = G_√(a²+b²)
    (DRS Cor 3.3); μ-GDP gives kμ-GDP for groups of size k (DRS Thm 2.14).
    Evaluated through ``ndtri`` of α (not of 1 − α) near α → 0 for accuracy.

    Parameters
    ----------
    mu : float
        μ ≥ 0.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.Gaussian(1.0)
    >>> print(f"{f(0.05):.4f} {f.delta(1.0):.4f}")
    0.7405 0.1269
    """

    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", _validate.real("mu", self.mu, low=0.0))

    @property
    def symmetric(self) -> bool:
        return True

    def _gaussian_component(self) -> tuple[float, float] | None:
        return float(self.mu), 1.0      # engine hook: G_μ itself

    def _composition_kind(self) -> str:
        return "gaussian"

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        """Certified lower bound on G_μ(α) (``_beta_bracket``): the safe side."""
        return self._bracket(alpha)[0]

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        """Certified upper bound on G_μ(α)."""
        return self._bracket(alpha)[1]

    def _bracket(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.mu == 0.0:
            return one_minus(alpha)           # G_0 = Id: 1 − α, exactly bracketed
        return _beta_bracket(self.mu, alpha)

    _certified_delta = True

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        """Certified upper bound on δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor
        2.13), all real ε: the log-space closed form plus its derived error bound;
        positive (at least the smallest double) wherever the truth is."""
        return self._delta_bracket(eps)[1]

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        """Certified lower bound on δ(ε)."""
        return self._delta_bracket(eps)[0]

    def _delta_bracket(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = np.asarray(eps, dtype=float)
        est, err = _log_delta_and_error(self.mu, e)
        over = est == -np.finfo(float).max
        lo, hi = exp_bracket(np.where(over, -np.inf, est), np.where(over, 0.0, err),
                             positive=np.isfinite(e) & (self.mu > 0.0))
        lo = np.where(over, 0.0, lo)
        hi = np.where(over, np.maximum(hi, TINY), hi)
        # δ(ε) ≥ 1 − e^ε (the line through (0, 1)); δ ≤ 1
        lo = np.maximum(lo, np.nextafter(-np.expm1(np.minimum(e, 0.0)) * (1.0 - 2.0 * _U),
                                         -np.inf))
        return np.clip(lo, 0.0, 1.0), np.minimum(hi, 1.0)

    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        """Certified upper log δ(ε) in closed log-space form (module docstring): ε(δ)
        for δ down to 1e-300 and below, and δ = 0 ⇒ ε = inf (δ_μ(ε) > 0 for every finite
        ε when μ > 0)."""
        return gdp_log_delta_upper(self.mu, np.asarray(eps, dtype=float))

    def _log_delta_lower(self, eps: np.ndarray) -> np.ndarray:
        """Certified lower log δ(ε), the lower end of ε(δ)."""
        return _log_delta_low(self.mu, np.asarray(eps, dtype=float))

    def _group(self, k: int) -> TradeOff:
        """G_μ.group(k) = G_{kμ} exactly (DRS Thm 2.14).

        N(θ, 1) is a location family with a log-concave density, so the optimal tests of
        T(N(0,1), N(μ,1)) reject above a threshold: with S = 1 − Φ, α = S(t) and
        1 − G_μ(α) = S(S⁻¹(α) − μ). Iterating, (1 − G_μ)^{∘k}(α) = S(S⁻¹(α) − kμ),
        which is 1 − G_{kμ}(α).
        """
        try:
            mu = float(k) * self.mu
        except OverflowError:              # k beyond any double
            mu = math.inf if self.mu > 0 else 0.0
        if not math.isfinite(mu):
            shown = str(k) if k < 10 ** 20 else f"an integer of {len(str(k))} digits"
            raise ValueError(f"k * mu exceeds the largest double (k = {shown}, "
                             f"mu = {self.mu!r}): the group curve is 0 at every α > 0 to "
                             "double precision")
        return Gaussian(mu)

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        return self.mu, self.mu

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """G_μ has slope −∞ at α = 0, so no f_{ε,0} lies below it unless μ = 0."""
        v = 0.0 if self.mu == 0.0 else float("inf")
        return v, v

    def law(self) -> GaussianLaw:
        """The privacy-loss law: L ~ N(−μ²/2, μ²) under P, N(μ²/2, μ²) under Q."""
        return GaussianLaw(self.mu)

    def latex(self) -> str:
        return rf"G_{{{self.mu:g}}}"
