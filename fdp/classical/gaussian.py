"""Noise calibration of the classical Gaussian mechanism (for comparison plots).

Both return the noise standard deviation σ for a target ``eps`` and ``delta`` ∈ (0, 1)
and an ℓ2 ``sensitivity`` Δ > 0 (default 1); a ValueError names an argument outside its
range.
"""

from __future__ import annotations

import numpy as np

from fdp import _validate
from fdp.conversions.gdp import gdp_mu_for_eps_delta


def classic_gaussian_sigma(eps: float, delta: float, sensitivity: float = 1.0) -> float:
    """σ = Δ √(2 ln(1.25/δ)) / ε (Dwork & Roth 2014, Thm 3.22), valid for ε ∈ (0, 1).

    The classical sufficient condition for (ε, δ)-DP; ``analytic_gaussian_sigma``
    gives the exact (smallest) σ.

    Examples
    --------
    >>> from fdp.classical import classic_gaussian_sigma
    >>> print(f"{classic_gaussian_sigma(0.5, 1e-5):.4f}")
    9.6896
    """
    e = _validate.real("eps", eps, low=0.0, high=1.0, low_open=True, high_open=True)
    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    s = _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)
    return float(s * np.sqrt(2.0 * np.log(1.25 / d)) / e)


def analytic_gaussian_sigma(eps: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest σ for which N(0, σ²) noise gives (ε, δ)-DP (Balle & Wang 2018), any ε ≥ 0.

    σ = Δ/μ with μ the largest μ such that μ-GDP implies (ε, δ)-DP (Dong, Roth & Su
    2022, Cor 2.13; ``fdp.gdp_mu_for_eps_delta``).

    Examples
    --------
    >>> from fdp.classical import analytic_gaussian_sigma, classic_gaussian_sigma
    >>> print(f"{analytic_gaussian_sigma(0.5, 1e-5):.4f}")
    7.0318
    >>> bool(analytic_gaussian_sigma(0.5, 1e-5) < classic_gaussian_sigma(0.5, 1e-5))
    True
    """
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    s = _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)
    return float(s / gdp_mu_for_eps_delta(e, d))
