"""Conversions between μ-GDP and (ε, δ)-DP (DRS Corollary 2.13).

δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for every real ε.

For large ε/μ both terms are tiny and nearly equal, so they are evaluated with the
scaled complementary error function: with x = ε/μ and Φ(−t) = ½ erfcx(t/√2) e^{−t²/2},
the exponents of the two terms agree exactly (ε − x μ = 0), giving
δ = ½ e^{−(x − μ/2)²/2} [erfcx((x − μ/2)/√2) − erfcx((x + μ/2)/√2)],
accurate down to δ ≈ 1e-300 and for μ up to 50 and beyond. ε(δ) and μ(ε, δ) are
found by monotone root finding on log δ with brackets that grow until they hold.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtr

from fdp import _validate

_SQRT2 = np.sqrt(2.0)


def _log_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    """log δ_μ(ε), vectorised in ε; −inf where δ = 0 (μ = 0 and ε ≥ 0)."""
    eps = np.asarray(eps, dtype=float)
    if mu == 0.0:
        # G_0 = Id: δ(ε) = max(0, 1 − e^ε).
        with np.errstate(divide="ignore"):
            return np.where(eps >= 0, -np.inf, np.log(-np.expm1(np.minimum(eps, 0.0))))
    with np.errstate(over="ignore"):
        x = eps / mu          # ±inf for a subnormal μ: the limits below are then exact
    t1 = x - mu / 2.0
    t2 = x + mu / 2.0
    out = np.empty_like(x)
    far = t1 > 1.0
    # Far tail: the erfcx form, no cancellation between the exponents.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        diff = erfcx(t1[far] / _SQRT2) - erfcx(t2[far] / _SQRT2)
        out[far] = np.log(0.5) - 0.5 * t1[far] ** 2 + np.log(diff)
        # Near: log of Φ(−t1) (1 − e^{ε + log Φ(−t2) − log Φ(−t1)}).
        near = ~far
        a = log_ndtr(-t1[near])
        b = eps[near] + log_ndtr(-t2[near])
        out[near] = a + np.log(-np.expm1(np.minimum(b - a, 0.0)))
    out = np.where(np.isposinf(eps), -np.inf, out)
    out = np.where(np.isneginf(eps), 0.0, out)
    return out


def gdp_delta(mu, eps):
    """δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor 2.13); vectorised in ε."""
    m = _validate.real("mu", mu, low=0.0)
    e = _validate.reals("eps", eps, allow_inf=True)
    return _validate.like_input(eps, np.exp(_log_delta(m, e)))


def gdp_epsilon(mu, delta):
    """Smallest ε ≥ 0 with δ_μ(ε) ≤ delta (DRS Cor 2.13 inverted); vectorised in delta.

    δ ≥ δ_μ(0) gives 0; δ = 0 gives inf (for μ > 0). The bracket on ε doubles until
    it holds, then Brent's method solves log δ_μ(ε) = log δ to relative 1e-14.
    """
    m = _validate.real("mu", mu, low=0.0)
    d = _validate.reals("delta", delta, low=0.0, high=1.0)
    out = np.array([_gdp_epsilon_scalar(m, float(v)) for v in d.ravel()]).reshape(d.shape)
    return _validate.like_input(delta, out)


def _gdp_epsilon_scalar(mu: float, delta: float) -> float:
    if delta == 0.0:
        return 0.0 if mu == 0.0 else np.inf
    target = np.log(delta)
    g = lambda e: float(_log_delta(mu, np.array([e]))[0]) - target  # noqa: E731
    if g(0.0) <= 0.0:
        return 0.0
    hi = max(1.0, mu * mu)
    while g(hi) > 0.0:
        hi *= 2.0
    root = brentq(g, 0.0, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    # Step up to the safe side: δ(root) must not exceed the target.
    while g(root) > 0.0:
        root = np.nextafter(root, np.inf)
    return float(root)


def gdp_mu(eps, delta):
    """Largest μ such that μ-GDP implies (ε, δ)-DP, i.e. δ_μ(ε) = delta (DRS Cor 2.13).

    δ_μ(ε) increases with μ, so any μ' ≤ the returned value gives (ε, delta)-DP; the
    root is stepped down to the safe side. delta = 0 gives 0 (every μ > 0 has
    δ_μ(ε) > 0); delta = 1 gives inf. Scalars in, float out.
    """
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.real("delta", delta, low=0.0, high=1.0)
    if d == 0.0:
        return 0.0
    if d >= 1.0:
        return np.inf
    target = np.log(d)
    g = lambda m: float(_log_delta(m, np.array([e]))[0]) - target  # noqa: E731
    lo, hi = 0.0, 1.0
    while g(hi) <= 0.0:
        lo, hi = hi, hi * 2.0
        if hi > 1e6:
            return np.inf
    root = brentq(g, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    # Step down to the safe side: δ_μ(ε) ≤ delta must hold at the returned μ.
    while g(root) > 0.0:
        root = np.nextafter(root, 0.0)
    return float(root)


def gdp_beta(mu: float, alpha: np.ndarray) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), computed without forming 1 − α for small α."""
    from scipy.special import ndtri
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        z = np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))
    return ndtr(z - mu)
