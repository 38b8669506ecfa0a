"""CLT limits of noisy SGD (DP-SGD), and how far they are from the truth.

The derivation: docs/derivations/dpsgd-clt.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from fdp import _validate
from fdp.conversions.gdp import gdp_epsilon
from fdp.sgd.certified import dpsgd, resolve_sensitivity

#: The neighbouring relation each sampling scheme's CLT is proved for.
NEIGHBOURING = {"poisson": "add_remove", "without_replacement": "replace_one"}


def _check_sampling(sampling: str) -> str:
    if sampling not in NEIGHBOURING:
        raise ValueError(f"sampling must be 'poisson' (Bu et al., add/remove) or "
                         f"'without_replacement' (DRS, replace-one), got {sampling!r}")
    return sampling


def dpsgd_clt_mu(noise_multiplier: float, sample_rate: float, steps: float,
                 sampling: str = "poisson",
                 sensitivity: float | None = None) -> float:
    """μ of the CLT limit of T steps of noisy SGD. NOT a bound.

    With σ' = σ/s (s the sensitivity, below):

    sampling="poisson":             μ = p √T √(e^{1/σ'²} − 1)   (Bu et al. 2020)
    sampling="without_replacement": μ = p √(2T) √(e^{1/σ'²}Φ(1.5/σ') + 3Φ(−0.5/σ') − 2)   (DRS §5)

    The parameters are ``fdp.dpsgd``'s ("poisson" or "without_replacement"); ``steps``
    may be fractional (epochs · n / batch, as Bu et al. use, whose numbers take s = 1).
    Returns ``inf`` when e^{1/σ'²} overflows.

    Examples
    --------
    σ = 1.3, p = 256/60000, 15 epochs (Bu, Dong, Long & Su 2020, MNIST):

    >>> import fdp
    >>> print(f"{fdp.dpsgd_clt_mu(1.3, 256 / 60000, 15 * 60000 / 256):.3f}")
    0.227
    """
    s = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    p = _validate.probability("sample_rate", sample_rate)
    t = _validate.real("steps", steps, low=0.0)
    _check_sampling(sampling)
    s = s / resolve_sensitivity(sensitivity, NEIGHBOURING[sampling])
    inv = 1.0 / (s * s)
    if inv > 700.0:
        # e^{1/σ'²} overflows: the per-step loss is unbounded in this limit, μ = ∞
        # (unless nothing is sampled or no step is taken)
        return 0.0 if p == 0.0 or t == 0.0 else float("inf")
    if sampling == "poisson":
        return float(p * np.sqrt(t) * np.sqrt(np.expm1(inv)))
    # e^{1/σ²}Φ(1.5/σ) + 3Φ(−0.5/σ) − 2 (≥ 0; no overflow below the cut above)
    inner = np.exp(inv) * ndtr(1.5 / s) + 3.0 * ndtr(-0.5 / s) - 2.0
    return float(p * np.sqrt(2.0 * t) * np.sqrt(max(inner, 0.0)))


@dataclass(frozen=True)
class DPSGDComparison:
    """The CLT ε of DP-SGD beside the certified ε bracket of the numeric accountant.

    ``under_reports``: the CLT ε is below the certified LOWER ε (the CLT claims more
    privacy than the mechanism has); ``under_report``: (true − CLT)/true against the
    certified lower end (a lower bound on the true relative under-report), else 0.

    The other fields: the run (``noise_multiplier`` … ``sensitivity``), ``clt_mu`` and
    ``clt_epsilon`` (at δ), and the certified ``epsilon_lower``, ``epsilon_upper``.

    Examples
    --------
    >>> from fdp.sgd import compare_dpsgd_clt
    >>> c = compare_dpsgd_clt(1.0, 0.01, 10, 1e-5, tol=1e-2)
    >>> bool(c.epsilon_lower <= c.epsilon_upper)
    True
    """

    noise_multiplier: float
    sample_rate: float
    steps: int
    delta: float
    sampling: str
    neighbouring: str
    sensitivity: float
    clt_mu: float
    clt_epsilon: float
    epsilon_lower: float
    epsilon_upper: float
    under_reports: bool
    under_report: float

    def __str__(self) -> str:
        flag = (f"CLT UNDER-REPORTS eps by at least {100 * self.under_report:.1f}%"
                if self.under_reports else "CLT is not below the certified bracket")
        return (f"DP-SGD sigma={self.noise_multiplier:g}, p={self.sample_rate:.6g}, "
                f"T={self.steps}, delta={self.delta:g}, {self.sampling} "
                f"({self.neighbouring}, sensitivity {self.sensitivity:g}C): "
                f"CLT mu={self.clt_mu:.4g}, CLT eps={self.clt_epsilon:.4f} "
                f"(approximation); certified eps in [{self.epsilon_lower:.4f}, "
                f"{self.epsilon_upper:.4f}]; {flag}")


def compare_dpsgd_clt(noise_multiplier: float, sample_rate: float, steps: int,
                      delta: float = 1e-5, *, sampling: str = "poisson",
                      tol: float | None = None,
                      sensitivity: float | None = None) -> DPSGDComparison:
    """CLT ε of DP-SGD next to the certified ε bracket of ``fdp.dpsgd``.

    The CLT μ (``dpsgd_clt_mu``) is converted exactly to ε at ``delta`` (DRS Cor 2.13);
    the bracket comes from the numeric accountant with the SAME sampling scheme and
    its neighbouring relation (Poisson ↔ add/remove, without replacement ↔
    replace-one). ``tol`` is passed to the accountant, ``sensitivity`` to both; the
    parameters are ``fdp.dpsgd``'s (T ≥ 1), with the target δ ∈ (0, 1).

    Examples
    --------
    The Opacus GDP accountant's formula under-reports ε (σ = 0.7, 1000 steps):

    >>> from fdp.sgd import compare_dpsgd_clt
    >>> c = compare_dpsgd_clt(0.7, 256 / 60000, 1000, 1e-5, tol=1e-2)
    >>> c.under_reports, f"{c.clt_epsilon:.3f}"
    (True, '1.338')
    """
    _check_sampling(sampling)
    sens = resolve_sensitivity(sensitivity, NEIGHBOURING[sampling])
    t = _validate.positive_int("steps", steps)
    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    mu = dpsgd_clt_mu(noise_multiplier, sample_rate, t, sampling, sensitivity=sens)
    eps_clt = float(gdp_epsilon(mu, d))
    kwargs: dict[str, float] = {} if tol is None else {"tol": tol}
    f = dpsgd(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=t,
              sampling=sampling, neighbouring=NEIGHBOURING[sampling], sensitivity=sens,
              **kwargs)
    lo, hi = f.epsilon_bounds(d)
    under = eps_clt < lo
    frac = float((lo - eps_clt) / lo) if under and lo > 0 else 0.0
    return DPSGDComparison(float(noise_multiplier), float(sample_rate), t, d, sampling,
                           NEIGHBOURING[sampling], sens, mu, eps_clt, float(lo), float(hi),
                           bool(under), frac)
