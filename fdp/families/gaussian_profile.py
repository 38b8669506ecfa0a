"""The privacy profile of G_μ in log space, with a certified error bound.

δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for every real ε (DRS Cor 2.13), computed
as log δ in regimes chosen so that no step cancels (ε < 0 by symmetry, ε = 0 by erf,
ε > 0 near and far by log Φ and erfcx, small μ by quadrature of the derivative in μ).
Derivation: docs/derivations/families.md (``fdp.families.gaussian``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erf, erfcx, log_ndtr

from fdp._constants import (
    ERF_RTOL,
    ERFCX_RTOL,
    ERROR_SAFETY,
    GL_RULE_RTOL,
    GL_TRUNCATION_RTOL,
    NDTR_RTOL,
    NDTR_W2_RTOL,
    UNIT_ROUNDOFF,
)
from fdp.families._rounding import ArrayPair

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
    """log δ_μ(ε) for 0 < μ < 0.05, 0 < ε ≤ 4 by the integral in the docs/derivations/families.md,
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
    error (each regime's steps with their condition numbers; docs/derivations/families.md)."""
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

    Derivation: docs/derivations/families.md.
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
