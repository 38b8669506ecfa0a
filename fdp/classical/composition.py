"""Classical (ε, δ) composition theorems, for comparison with the f-DP answer.

All functions here take and return (ε, δ) pairs; none of them is needed by the
f-DP machinery, which composes trade-off functions exactly (DRS §3). They exist so
that notebooks and reproductions can put each classical bound beside the f-DP one
(as Dong, Roth & Su 2022, §3.3, do).

* Basic composition (Dwork, McSherry, Nissim, Smith 2006): (Σε_i, Σδ_i).
* Parallel composition on disjoint data (McSherry 2009, PINQ): (max ε_i, max δ_i).
* Advanced composition (Dwork, Rothblum, Vadhan 2010, Thm III.3): k-fold (ε, δ)
  is (ε', kδ + δ')-DP with ε' = √(2k ln(1/δ')) ε + k ε (e^ε − 1).
* Optimal homogeneous composition (Kairouz, Oh, Viswanath 2015, Thm 3.3): the exact
  privacy profile of f_{ε,δ}^{⊗k}.  With q = 1/(1 + e^ε), the k-fold f_{ε,0} has
  privacy loss (k − 2ℓ)ε under Q with probability C(k,ℓ) e^{(k−ℓ)ε}/(1 + e^ε)^k, so

      δ̃(ε') = Σ_ℓ C(k,ℓ) (e^{(k−ℓ)ε} − e^{ε' + ℓε})_+ / (1 + e^ε)^k,
      δ(ε')  = 1 − (1 − δ)^k (1 − δ̃(ε')).

  At ε' = (k − 2i)ε this is KOV's δ_i; between those points it is the exact
  (piecewise) profile, so the smallest ε' for a target δ is exact, not restricted
  to KOV's lattice (``kov_lattice_epsilon`` gives the lattice version).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, logsumexp

from fdp import _validate


def _eps_list(name, values, *, low=0.0, high=np.inf):
    arr = _validate.reals(name, values, low=low, high=high, allow_inf=(high == np.inf)).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one value")
    return arr


def _broadcast_delta(eps: np.ndarray, delta) -> np.ndarray:
    d = _validate.reals("delta", delta, low=0.0, high=1.0).ravel()
    if d.size == 1:
        return np.full(eps.shape, d[0])
    if d.shape != eps.shape:
        raise ValueError(f"delta must be a scalar or have the length of eps ({eps.size}), "
                         f"got {d.size}")
    return d


def basic_composition(eps, delta=0.0) -> tuple[float, float]:
    """(Σ ε_i, min(1, Σ δ_i)): sequential composition (Dwork et al. 2006, Thm 3.16 of
    Dwork & Roth 2014). ``eps`` is a list of ε_i ≥ 0; ``delta`` a scalar (used for
    every mechanism) or a list of the same length."""
    e = _eps_list("eps", eps)
    d = _broadcast_delta(e, delta)
    return float(e.sum()), float(min(1.0, d.sum()))


def parallel_composition(eps, delta=0.0) -> tuple[float, float]:
    """(max ε_i, max δ_i): mechanisms applied to disjoint parts of the data
    (McSherry 2009, PINQ); each individual is in one part only."""
    e = _eps_list("eps", eps)
    d = _broadcast_delta(e, delta)
    return float(e.max()), float(d.max())


def advanced_composition(eps, delta, k, delta_prime) -> tuple[float, float]:
    """k-fold adaptive composition of (ε, δ)-DP mechanisms (Dwork, Rothblum, Vadhan
    2010, Thm III.3; Dwork & Roth 2014, Thm 3.20):

        (ε', kδ + δ')-DP with ε' = √(2k ln(1/δ')) ε + k ε (e^ε − 1).

    δ' ∈ (0, 1) is the slack the caller chooses. Returns (ε', min(1, kδ + δ')).
    """
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.probability("delta", delta)
    k = _validate.positive_int("k", k)
    dp = _validate.real("delta_prime", delta_prime, low=0.0, high=1.0, low_open=True,
                        high_open=True)
    eps_total = np.sqrt(2.0 * k * np.log(1.0 / dp)) * e + k * e * np.expm1(e)
    return float(eps_total), float(min(1.0, k * d + dp))


def _kov_log_terms(eps: float, k: int):
    """log C(k,ℓ) − k log(1 + e^ε) and ℓ for ℓ = 0..k (log-space binomial weights)."""
    ell = np.arange(k + 1, dtype=float)
    log_binom = gammaln(k + 1.0) - gammaln(ell + 1.0) - gammaln(k - ell + 1.0)
    return log_binom - k * np.logaddexp(0.0, eps), ell


def optimal_homogeneous_delta(eps, delta, k, eps_total):
    """Exact δ(ε') of k-fold composition of (ε, δ)-DP (Kairouz, Oh & Viswanath 2015, Thm 3.3).

    δ(ε') = 1 − (1 − δ)^k (1 − δ̃(ε')) with
    δ̃(ε') = Σ_ℓ C(k,ℓ) (e^{(k−ℓ)ε} − e^{ε' + ℓε})_+ / (1 + e^ε)^k,
    evaluated in log space (valid for k up to ~1e7). Vectorised in ``eps_total``
    (any real ε'); this is also the privacy profile of ``fdp.EpsDelta(eps, delta)**k``.
    """
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.probability("delta", delta)
    k = _validate.positive_int("k", k)
    et = _validate.reals("eps_total", eps_total, allow_inf=True)
    base, ell = _kov_log_terms(e, k)
    flat = et.ravel()
    # log of (e^{(k−ℓ)ε} − e^{ε'+ℓε})_+ = (k−ℓ)ε + log(1 − e^{ε' + (2ℓ − k)ε}).
    gap = flat[:, None] + (2.0 * ell[None, :] - k) * e
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pos = np.where(gap < 0.0, np.log(-np.expm1(np.minimum(gap, 0.0))), -np.inf)
    logs = base[None, :] + (k - ell[None, :]) * e + log_pos
    logs = np.where(np.isposinf(flat)[:, None], -np.inf, logs)
    with np.errstate(divide="ignore"):
        tilde = np.exp(logsumexp(logs, axis=1))
    tilde = np.where(np.isneginf(flat), 1.0, np.minimum(tilde, 1.0))
    keep = np.exp(k * np.log1p(-d)) if d < 1.0 else 0.0
    out = 1.0 - keep * (1.0 - tilde)
    return _validate.like_input(eps_total, out.reshape(et.shape))


def optimal_homogeneous_epsilon(eps, delta, k, delta_total) -> float:
    """Smallest ε' ≥ 0 with δ(ε') ≤ delta_total for k-fold (ε, δ)-DP (KOV 2015 Thm 3.3,
    exact profile). Returns inf when even ε' = kε (δ = 1 − (1 − δ)^k) is not enough.

    δ(ε') is continuous and non-increasing; bisection on [0, kε] returns the upper
    end of the final bracket, so the answer is never below the exact ε'.
    """
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.probability("delta", delta)
    k = _validate.positive_int("k", k)
    target = _validate.probability("delta_total", delta_total)
    prof = lambda x: optimal_homogeneous_delta(e, d, k, x)
    if prof(0.0) <= target:
        return 0.0
    hi = k * e
    if prof(hi) > target:
        return float("inf")
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if prof(mid) <= target:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 4e-16 * max(hi, 1.0):
            break
    return float(hi)


def kov_lattice_epsilon(eps, delta, k, delta_total) -> float:
    """KOV Thm 3.3 read literally: the smallest ε' = (k − 2i)ε, i = 0..⌊k/2⌋, whose
    δ_i = 1 − (1 − δ)^k (1 − δ̃_i) is ≤ delta_total (inf if none). Never below
    ``optimal_homogeneous_epsilon``."""
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.probability("delta", delta)
    k = _validate.positive_int("k", k)
    target = _validate.probability("delta_total", delta_total)
    lattice = (k - 2.0 * np.arange(k // 2 + 1)) * e
    ok = np.asarray(optimal_homogeneous_delta(e, d, k, lattice)) <= target
    return float(lattice[ok].min()) if ok.any() else float("inf")
