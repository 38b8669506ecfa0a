"""Conversions between μ-GDP and (ε, δ)-DP (DRS Corollary 2.13).

δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for every real ε.

The derivation: docs/derivations/gdp-conversion.md.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from fdp import _validate
from fdp._numerics import bisect_monotone, epsilon_for_delta
from fdp._types import ArrayLike, FloatOrArray
from fdp.families.gaussian import (  # noqa: F401  (the closed forms live with the family)
    LOG_DELTA_ALLOWANCE,
    LOG_DELTA_MU_ALLOWANCE,
    LOG_DELTA_RALLOWANCE,
    gdp_beta,
    gdp_log_delta_estimate,
    gdp_log_delta_upper,
)


def gdp_delta(mu: float, eps: ArrayLike) -> FloatOrArray:
    """δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor 2.13); vectorised in ε.

    Computed in log space (see docs/derivations/gdp-conversion.md): relative error below 1e-14
    (1.3e-13 where |log δ| is in the hundreds) for μ ∈ [1e-12, 60], ε up to 700 and
    beyond, until δ underflows. Decisions (``gdp_epsilon``, ``gdp_mu``, calibration)
    compare a certified upper bound that covers this error. ε any real (±inf; negative
    ε describes the other order of the pair); shaped like ``eps``.

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.gdp_delta(1.0, 1.0):.4f}")
    0.1269
    """
    m = _validate.real("mu", mu, low=0.0)
    e = _validate.reals("eps", eps, allow_inf=True)
    return _validate.like_input(eps, np.exp(gdp_log_delta_estimate(m, e)))


def gdp_log_delta(mu: float, eps: ArrayLike) -> FloatOrArray:
    """log δ_μ(ε) (natural log, the estimate as ``gdp_delta``), also below the double
    range (log δ < −745); vectorised in ε; −inf where δ = 0 exactly (μ = 0 and ε ≥ 0,
    or ε = +inf).

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.gdp_log_delta(1.0, 50.0):.1f}")
    -1233.9
    """
    m = _validate.real("mu", mu, low=0.0)
    e = _validate.reals("eps", eps, allow_inf=True)
    return _validate.like_input(eps, gdp_log_delta_estimate(m, e))


def gdp_epsilon(mu: float, delta: ArrayLike) -> FloatOrArray:
    """Smallest ε ≥ 0 with δ_μ(ε) ≤ delta (DRS Cor 2.13 inverted); vectorised in delta.

    δ ≥ δ_μ(0) gives 0; δ = 0 gives inf (for μ > 0). Bisection on log δ_μ(ε)
    (``epsilon_for_delta``), returning the end where δ_μ(ε) ≤ delta holds (certified:
    the compared log δ covers the evaluation error), shaped like ``delta``.

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.gdp_epsilon(1.0, 1e-5):.4f}")
    4.3772
    """
    m = _validate.real("mu", mu, low=0.0)
    d = _validate.reals("delta", delta, low=0.0, high=1.0)
    out = epsilon_for_delta(lambda e: np.exp(gdp_log_delta_estimate(m, e)), d,
                            log_delta_fn=lambda e: gdp_log_delta_upper(m, e))
    return _validate.like_input(delta, out)


def gdp_mu_for_eps_delta(eps: float, delta: float) -> float:
    """The LARGEST μ such that μ-GDP implies (ε, δ)-DP, i.e. δ_μ(ε) ≤ delta (DRS Cor 2.13).

    Direction matters: this converts a target (ε, δ) into a GDP parameter that is
    sufficient for it (any μ' ≤ the returned value also gives (ε, delta)-DP). It is
    NOT ``TradeOff.gdp_mu()``, the smallest μ with f ≥ G_μ of a given curve (the
    opposite question, hence the distinct name).
    delta = 0 gives 0 (every μ > 0 has δ_μ(ε) > 0); delta = 1 gives inf. The answer
    is the verified end of a bisection on log δ_μ(ε) (never above the true root).

    Examples
    --------
    >>> import fdp
    >>> mu = fdp.gdp_mu_for_eps_delta(1.0, 1e-5)
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

    def fails(mu: ArrayLike) -> npt.NDArray[np.bool_]:
        m = np.atleast_1d(mu)
        up = np.array([gdp_log_delta_upper(float(v), np.array([e]))[0] for v in m])
        est = np.array([gdp_log_delta_estimate(float(v), np.array([e]))[0] for v in m])
        return (up > target) | (np.exp(est) > d)   # certified log, and gdp_delta ≤ delta

    # δ_μ(ε) → 1 as μ → ∞ at every finite ε (the true root is ≈ √(2ε) for huge ε, at
    # most ≈ 1.9e154), so the doubling ends; no cap on μ: answering inf past one
    # would say that no noise at all is enough
    hi = 1.0
    while not fails(hi)[0]:
        hi *= 2.0
    lo_end, _ = bisect_monotone(fails, 0.0, hi)
    lo = float(lo_end)
    if e >= 1e3 and d < 0.4:
        # at μ = √(2ε) the Gaussian's δ is 1/2 − e^ε Φ(−√(2ε)) ≥ 1/2 − 1/(2√(πε)) > 0.49
        # for ε ≥ 1e3 (Mills' ratio), above δ, so the root is below √(2ε); for ε beyond
        # ~1e17 the double arithmetic of μ/2 − ε/μ cannot resolve it (at ε = 1e200 the
        # search ended 8e-9 above √(2ε)), and this bound, a few ulps down, is the safe
        # answer
        lo = min(lo, math.sqrt(2.0) * math.sqrt(e) * (1.0 - 8.0 * 2.0 ** -53))
    return lo

