"""Conversions between μ-GDP and (ε, δ)-DP (DRS Corollary 2.13).

δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for every real ε.

Everything is computed as log δ, in three regimes chosen so that no step cancels:

* ε < 0: G_μ is symmetric, so δ(ε) = 1 − e^ε + e^ε δ(−ε) (DRS Prop 2.12 applied to
  f = f⁻¹); a sum of positive terms, taken with ``logaddexp``.
* ε = 0: δ(0) = 2Φ(μ/2) − 1 = erf(μ/(2√2)), exact down to subnormal μ.
* ε > 0, μ ≥ 0.05: with t₁ = ε/μ − μ/2, t₂ = ε/μ + μ/2, near (t₁ ≤ 1)
  log Φ(−t₁) + log(1 − e^{ε + log Φ(−t₂) − log Φ(−t₁)}); far (t₁ > 1) the scaled
  complementary error function, whose exponents agree exactly (ε − xμ = 0):
  δ = ½ e^{−t₁²/2} [erfcx(t₁/√2) − erfcx(t₂/√2)]. Accurate down to δ ≈ 1e-300 and
  for μ up to 50 and beyond.
* ε > 0, μ < 0.05: both forms above lose digits (the two terms agree to ~log10(1/μ)
  digits: ``gdp_delta(1e-12, 0)`` was off by −1e-4 relative). With x = ε/μ fixed,
  d/dh [Φ(h − x) − e^{2hx} Φ(−x − h)] = 2 φ(x − h) (1 − x M(x + h)), M the Mills
  ratio Φ(−y)/φ(y) = √(π/2) erfcx(y/√2), so
  δ = ∫₀^{μ/2} 2 φ(x − s) (1 − x M(x + s)) ds, a positive integrand integrated by
  32-point Gauss–Legendre (ε ≤ 4 and ε/μ ≤ 1e4, where the integrand is smooth on
  [0, μ/2]; beyond, δ < e^{−3000} and the far form suffices for its logarithm).

ε(δ) and μ(ε, δ) are found by monotone bisection on log δ (``bisect_monotone``),
returning the verified side.
"""

from __future__ import annotations

import numpy as np
from scipy.special import erf, erfcx, log_ndtr, ndtr

from fdp import _validate
from fdp._constants import EPS_CAP
from fdp._numerics import bisect_monotone, epsilon_for_delta

_SQRT2 = np.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(32)
_SMALL_MU = 0.05


def _log_one_minus_x_mills(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log(1 − x M(y)) for 0 ≤ x ≤ y, M(y) = Φ(−y)/φ(y) (positive: M(y) < 1/y)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        m = np.sqrt(np.pi / 2.0) * erfcx(y / _SQRT2)
        direct = 1.0 - x * m
        # For large y: 1 − yM(y) = y⁻² − 3y⁻⁴ + 15y⁻⁶ − 105y⁻⁸ + … (asymptotic series,
        # truncation below 1e-16 relative for y > 100), plus (y − x) M(y).
        r = 1.0 / (y * y)
        series = r * (1.0 - r * (3.0 - r * (15.0 - r * (105.0 - 945.0 * r)))) + (y - x) * m
        return np.log(np.where(y > 100.0, series, direct))


def _log_delta_small_mu(mu: float, eps: np.ndarray) -> np.ndarray:
    """log δ_μ(ε) for 0 < μ < 0.05, 0 < ε ≤ 4 by the integral in the module docstring."""
    x = eps / mu
    h = mu / 2.0
    s = 0.5 * h * (_GL_X + 1.0)                      # nodes on [0, h]
    logw = np.log(0.5 * h * _GL_W)
    xx = x[:, None]
    log_phi = -0.5 * (xx - s[None, :]) ** 2 - _LOG_SQRT_2PI
    terms = np.log(2.0) + logw[None, :] + log_phi + _log_one_minus_x_mills(xx, xx + s[None, :])
    top = terms.max(axis=1)
    return top + np.log(np.exp(terms - top[:, None]).sum(axis=1))


def _log_delta_pos(mu: float, eps: np.ndarray) -> np.ndarray:
    """log δ_μ(ε) for ε > 0 (finite or +inf) and μ > 0."""
    out = np.empty_like(eps)
    with np.errstate(over="ignore"):
        # x = ε/μ ≤ 1e4 too: beyond, δ < e^{−5e7} and the far form gives its log
        small = (mu < _SMALL_MU) & (eps <= 4.0) & (eps <= 1e4 * mu)
    if small.any():
        out[small] = _log_delta_small_mu(mu, eps[small])
    rest = ~small
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = eps[rest]
        x = e / mu            # +inf for a subnormal μ: the limits below are then exact
        t1 = x - mu / 2.0
        t2 = x + mu / 2.0
        r = np.empty_like(e)
        far = t1 > 1.0
        # Far tail: the erfcx form, no cancellation between the exponents.
        u1, u2 = t1[far] / _SQRT2, t2[far] / _SQRT2
        diff = erfcx(u1) - erfcx(u2)
        # where the difference is lost to rounding (ε/μ ≳ 1e7, δ < e^{−5e13}): the
        # leading term of erfcx(u) ≈ 1/(u√π), i.e. (u2 − u1)/(√π u1 u2)
        asym = (mu / _SQRT2) / (np.sqrt(np.pi) * u1 * u2)
        diff = np.where((diff > 0) & np.isfinite(diff), diff, asym)
        r[far] = np.log(0.5) - 0.5 * t1[far] ** 2 + np.log(diff)
        # Near: log of Φ(−t1) (1 − e^{ε + log Φ(−t2) − log Φ(−t1)}).
        near = ~far
        a = log_ndtr(-t1[near])
        b = e[near] + log_ndtr(-t2[near])
        r[near] = a + np.log(-np.expm1(np.minimum(b - a, 0.0)))
        r = np.where(np.isposinf(e), -np.inf, r)
        out[rest] = r
    return out


# Allowance added to the computed log δ where a DECISION is made (ε(δ), μ(ε, δ),
# calibration, the accountant), so that the compared value is an upper bound: the
# evaluation error measured against mpmath (60 digits; μ in [1e-12, 60], ε in [−5,
# 1600]) is below 1.3e-13 absolute and 1.7e-15·|log δ| relative, and grows like
# 2.4e-16·μ for large μ (1.8e-12 at μ = 1e4, 2.4e-11 at μ = 1e5, near ε = μ²/2);
# 1e-12 + 4e-15·|log δ| + 1e-15·μ covers all three. Reported values (``gdp_delta``,
# ``Gaussian.delta``) are the estimate.
LOG_DELTA_ALLOWANCE = 1e-12
LOG_DELTA_RALLOWANCE = 4e-15
LOG_DELTA_MU_ALLOWANCE = 1e-15


def _log_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    """Certified upper bound on log δ_μ(ε) (the estimate plus the allowance above,
    capped at 0), vectorised in ε; −inf exactly where δ = 0 (μ = 0 and ε ≥ 0, or ε = +inf)."""
    est = _log_delta_estimate(mu, eps)
    finite = np.isfinite(est)
    safe = np.where(finite, est, 0.0)
    up = (safe + LOG_DELTA_ALLOWANCE + LOG_DELTA_RALLOWANCE * np.abs(safe)
          + LOG_DELTA_MU_ALLOWANCE * mu)
    return np.where(finite, np.minimum(up, 0.0), est)


def _log_delta_estimate(mu: float, eps: np.ndarray) -> np.ndarray:
    """log δ_μ(ε), vectorised in ε; −inf where δ = 0 (μ = 0 and ε ≥ 0, or ε = +inf).

    δ > 0 for every finite ε when μ > 0: a log that overflowed to −inf (ε/μ ≈ 1e300)
    is reported as the most negative double, never as an exact 0.
    """
    eps = np.asarray(eps, dtype=float)
    shape = eps.shape
    e = eps.ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        if mu == 0.0:
            # G_0 = Id: δ(ε) = max(0, 1 − e^ε).
            return np.where(e >= 0, -np.inf, np.log(-np.expm1(np.minimum(e, 0.0)))).reshape(shape)
        out = np.empty_like(e)
        zero = e == 0.0
        out[zero] = np.log(erf(mu / (2.0 * _SQRT2)))
        pos = np.abs(e) > 0.0
        if pos.any():
            a = np.abs(e[pos])
            la = _log_delta_pos(mu, a)
            neg = e[pos] < 0
            # ε < 0: δ(ε) = 1 − e^ε + e^ε δ(−ε) (symmetry of G_μ).
            one_minus = np.where(neg, np.log(-np.expm1(-a)), -np.inf)
            refl = np.logaddexp(one_minus, -a + la)
            out[pos] = np.where(neg, np.where(np.isinf(a), 0.0, refl), la)
        out = np.where(np.isfinite(e) & (out == -np.inf), -np.finfo(float).max, out)
    return out.reshape(shape)


def gdp_delta(mu, eps):
    """δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor 2.13); vectorised in ε.

    Computed in log space (see the module docstring): relative error below 1e-14
    (1.3e-13 where |log δ| is in the hundreds) for μ ∈ [1e-12, 60], ε up to 700 and
    beyond, until δ underflows. Decisions (``gdp_epsilon``, ``gdp_mu``, calibration)
    compare a certified upper bound that covers this error.

    Parameters
    ----------
    mu : float
        The GDP parameter μ ≥ 0.
    eps : float or array_like
        ε, any real (±inf allowed); negative ε describes the other order of the pair.

    Returns
    -------
    float or ndarray
        δ_μ(ε), shaped like ``eps``.

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.gdp_delta(1.0, 1.0):.4f}")
    0.1269
    """
    m = _validate.real("mu", mu, low=0.0)
    e = _validate.reals("eps", eps, allow_inf=True)
    return _validate.like_input(eps, np.exp(_log_delta_estimate(m, e)))


def gdp_log_delta(mu, eps):
    """log δ_μ(ε) (natural log, the estimate as ``gdp_delta``), also below the double
    range (log δ < −745); vectorised in ε.

    Parameters
    ----------
    mu : float
        μ ≥ 0.
    eps : float or array_like
        ε, any real (±inf allowed).

    Returns
    -------
    float or ndarray
        log δ_μ(ε) (−inf where δ = 0 exactly: μ = 0 and ε ≥ 0, or ε = +inf).

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.gdp_log_delta(1.0, 50.0):.1f}")
    -1233.9
    """
    m = _validate.real("mu", mu, low=0.0)
    e = _validate.reals("eps", eps, allow_inf=True)
    return _validate.like_input(eps, _log_delta_estimate(m, e))


def gdp_epsilon(mu, delta):
    """Smallest ε ≥ 0 with δ_μ(ε) ≤ delta (DRS Cor 2.13 inverted); vectorised in delta.

    δ ≥ δ_μ(0) gives 0; δ = 0 gives inf (for μ > 0). Bisection on log δ_μ(ε) (the
    package's ``epsilon_for_delta``), returning the end where δ_μ(ε) ≤ delta holds
    (certified: the compared log δ covers the evaluation error).

    Parameters
    ----------
    mu : float
        μ ≥ 0.
    delta : float or array_like
        Target δ in [0, 1], down to 1e-300 and below.

    Returns
    -------
    float or ndarray
        The smallest ε ≥ 0 with δ_μ(ε) ≤ delta (rounded up), shaped like ``delta``.

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.gdp_epsilon(1.0, 1e-5):.4f}")
    4.3772
    """
    m = _validate.real("mu", mu, low=0.0)
    d = _validate.reals("delta", delta, low=0.0, high=1.0)
    out = epsilon_for_delta(lambda e: np.exp(_log_delta_estimate(m, e)), d,
                            log_delta_fn=lambda e: _log_delta(m, e))
    return _validate.like_input(delta, out)


def gdp_mu(eps, delta):
    """The LARGEST μ such that μ-GDP implies (ε, δ)-DP, i.e. δ_μ(ε) ≤ delta (DRS Cor 2.13).

    Direction matters: this converts a target (ε, δ) into a GDP parameter that is
    sufficient for it (any μ' ≤ the returned value also gives (ε, delta)-DP). It is
    NOT ``TradeOff.gdp_mu()``, the smallest μ with f ≥ G_μ of a given curve; the
    unambiguous alias of this function is ``gdp_mu_for_eps_delta``.
    delta = 0 gives 0 (every μ > 0 has δ_μ(ε) > 0); delta = 1 gives inf. The answer
    is the verified end of a bisection on log δ_μ(ε) (never above the true root).

    Parameters
    ----------
    eps : float
        ε ≥ 0 of the (ε, δ) target.
    delta : float
        δ in [0, 1] of the target.

    Returns
    -------
    float
        The largest μ with δ_μ(eps) ≤ delta (rounded down; inf for delta = 1).

    Examples
    --------
    >>> import fdp
    >>> mu = fdp.gdp_mu(1.0, 1e-5)
    >>> bool(fdp.gdp_delta(mu, 1.0) <= 1e-5)
    True
    """
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.real("delta", delta, low=0.0, high=1.0)
    if d == 0.0:
        return 0.0
    if d >= 1.0:
        return np.inf
    target = np.log(d)

    def fails(m):
        m = np.atleast_1d(m)
        up = np.array([_log_delta(float(v), np.array([e]))[0] for v in m])
        est = np.array([_log_delta_estimate(float(v), np.array([e]))[0] for v in m])
        return (up > target) | (np.exp(est) > d)   # certified log, and gdp_delta ≤ delta

    hi = 1.0
    while not fails(hi)[0]:
        hi *= 2.0
        if hi > EPS_CAP:
            return np.inf
    lo, _ = bisect_monotone(fails, 0.0, hi)
    return float(lo)


gdp_mu_for_eps_delta = gdp_mu


def gdp_beta(mu: float, alpha: np.ndarray) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), computed without forming 1 − α for small α.

    Capped at 1 − α (G_μ ≤ Id; rounding could put Φ(Φ⁻¹(1 − α)) one ulp above it,
    e.g. G_0(0.05) = 0.9500000000000001); the cap only lowers the value (safe side).
    """
    from scipy.special import ndtri
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        z = np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))
    return np.minimum(ndtr(z - mu), 1.0 - a)
