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
from fdp._numerics import bisect_monotone


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
    """(Σ ε_i, min(1, Σ δ_i)): sequential composition (Dwork, McSherry, Nissim & Smith
    2006; Dwork & Roth 2014, Thm 3.16).

    Parameters
    ----------
    eps : sequence of float
        The ε_i ≥ 0 of the composed mechanisms (at least one).
    delta : float or sequence of float, optional
        δ_i in [0, 1]: one value for every mechanism, or one per mechanism (default 0).

    Returns
    -------
    (float, float)
        (ε, δ) of the composition.

    Raises
    ------
    ValueError
        If ``eps`` is empty, a value is out of range, or the lengths differ.

    Examples
    --------
    >>> from fdp.classical import basic_composition
    >>> basic_composition([0.5, 0.5, 1.0], 1e-6)
    (2.0, 3e-06)
    """
    e = _eps_list("eps", eps)
    d = _broadcast_delta(e, delta)
    return float(e.sum()), float(min(1.0, d.sum()))


def parallel_composition(eps, delta=0.0) -> tuple[float, float]:
    """(max ε_i, max δ_i): mechanisms applied to disjoint parts of the data
    (McSherry 2009, PINQ, Thm 4); each individual is in one part only.

    Parameters
    ----------
    eps : sequence of float
        The ε_i ≥ 0 of the mechanisms (at least one).
    delta : float or sequence of float, optional
        δ_i in [0, 1]: one value for every mechanism, or one per mechanism (default 0).

    Returns
    -------
    (float, float)
        (ε, δ) of the parallel composition.

    Raises
    ------
    ValueError
        If ``eps`` is empty, a value is out of range, or the lengths differ.

    Examples
    --------
    >>> from fdp.classical import parallel_composition
    >>> parallel_composition([0.5, 1.0], [1e-6, 1e-5])
    (1.0, 1e-05)
    """
    e = _eps_list("eps", eps)
    d = _broadcast_delta(e, delta)
    return float(e.max()), float(d.max())


def advanced_composition(eps, delta, k, delta_prime) -> tuple[float, float]:
    """k-fold adaptive composition of (ε, δ)-DP mechanisms (Dwork, Rothblum, Vadhan
    2010, Thm III.3; Dwork & Roth 2014, Thm 3.20):

        (ε', kδ + δ')-DP with ε' = √(2k ln(1/δ')) ε + k ε (e^ε − 1).

    Parameters
    ----------
    eps : float
        ε ≥ 0 of each mechanism.
    delta : float
        δ in [0, 1] of each mechanism.
    k : int
        Number of compositions, k ≥ 1.
    delta_prime : float
        The slack δ' in (0, 1) the caller chooses.

    Returns
    -------
    (float, float)
        (ε', min(1, kδ + δ')).

    Raises
    ------
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> from fdp.classical import advanced_composition
    >>> e, d = advanced_composition(0.1, 1e-6, 100, 1e-6)
    >>> print(f"{e:.4f} {d:.3g}")
    6.3082 0.000101
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
    evaluated in log space (valid for k up to ~1e7). This is also the privacy
    profile of ``fdp.EpsDelta(eps, delta) ** k``.

    Parameters
    ----------
    eps : float
        ε ≥ 0 of each mechanism.
    delta : float
        δ in [0, 1] of each mechanism.
    k : int
        Number of compositions, k ≥ 1.
    eps_total : float or array_like
        The ε' at which to read δ (any real, ±inf allowed).

    Returns
    -------
    float or ndarray
        δ(ε'), shaped like ``eps_total``.

    Raises
    ------
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> from fdp.classical import optimal_homogeneous_delta
    >>> print(f"{optimal_homogeneous_delta(0.5, 0.0, 10, 4.0):.6e}")
    5.519627e-03
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
    """Smallest ε' ≥ 0 with δ(ε') ≤ delta_total for k-fold (ε, δ)-DP (Kairouz, Oh &
    Viswanath 2015, Thm 3.3, read on the exact profile).

    δ(ε') is continuous and non-increasing; the bisection on [0, kε] returns the
    upper end of its final bracket, so the answer is never below the exact ε'.

    Parameters
    ----------
    eps : float
        ε ≥ 0 of each mechanism.
    delta : float
        δ in [0, 1] of each mechanism.
    k : int
        Number of compositions, k ≥ 1.
    delta_total : float
        The target δ in [0, 1].

    Returns
    -------
    float
        ε'; inf when even ε' = kε (where δ = 1 − (1 − δ)^k) is not enough.

    Raises
    ------
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> from fdp.classical import kov_lattice_epsilon, optimal_homogeneous_epsilon
    >>> print(f"{optimal_homogeneous_epsilon(0.1, 0.0, 100, 1e-5):.4f}")
    4.3068
    >>> print(f"{kov_lattice_epsilon(0.1, 0.0, 100, 1e-5):.4f}")
    4.4000
    """
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.probability("delta", delta)
    k = _validate.positive_int("k", k)
    target = _validate.probability("delta_total", delta_total)

    def passes(x):
        return np.asarray(optimal_homogeneous_delta(e, d, k, x)) <= target

    if passes(0.0):
        return 0.0
    if not passes(k * e):
        return float("inf")
    _, hi = bisect_monotone(passes, 0.0, k * e, rtol=4e-16, atol=4e-16)
    return float(hi)


def kov_lattice_epsilon(eps, delta, k, delta_total) -> float:
    """Kairouz, Oh & Viswanath (2015), Thm 3.3 read literally, on its lattice of ε'.

    The smallest ε' = (k − 2i)ε, i = 0..⌊k/2⌋, whose δ_i = 1 − (1 − δ)^k (1 − δ̃_i)
    is ≤ delta_total. Never below ``optimal_homogeneous_epsilon``.

    Parameters
    ----------
    eps : float
        ε ≥ 0 of each mechanism.
    delta : float
        δ in [0, 1] of each mechanism.
    k : int
        Number of compositions, k ≥ 1.
    delta_total : float
        The target δ in [0, 1].

    Returns
    -------
    float
        The lattice ε'; inf if no lattice point meets the target.

    Raises
    ------
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> from fdp.classical import kov_lattice_epsilon
    >>> print(f"{kov_lattice_epsilon(0.5, 0.0, 10, 6e-3):.4f}")
    4.0000
    """
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.probability("delta", delta)
    k = _validate.positive_int("k", k)
    target = _validate.probability("delta_total", delta_total)
    lattice = (k - 2.0 * np.arange(k // 2 + 1)) * e
    ok = np.asarray(optimal_homogeneous_delta(e, d, k, lattice)) <= target
    return float(lattice[ok].min()) if ok.any() else float("inf")
