"""Classical (ε, δ) composition theorems, for comparison with the f-DP answer.

All functions here take and return (ε, δ) pairs; none of them is needed by the
f-DP machinery, which composes trade-off functions exactly (DRS §3). They exist so
that notebooks and reproductions can put each classical bound beside the f-DP one
(as Dong, Roth & Su 2022, §3.3, do).

Basic (Dwork, McSherry, Nissim, Smith 2006), parallel (McSherry 2009), advanced
(Dwork, Rothblum, Vadhan 2010) and the optimal homogeneous composition (Kairouz, Oh,
Viswanath 2015, Thm 3.3: the exact privacy profile of f_{ε,δ}^{⊗k}, read from
``fdp.EpsDelta(ε, δ) ** k``, so the smallest ε' for a target δ is exact, not restricted
to KOV's lattice; ``kov_lattice_epsilon`` gives the lattice version).

Arguments throughout: ``eps`` ≥ 0 and ``delta`` ∈ [0, 1] of each mechanism (one value,
or one per mechanism where a sequence is taken), ``k`` ≥ 1 compositions (≤ 2^53),
a target ``delta_total`` ∈ [0, 1]; a ValueError names an argument outside its range.
"""

from __future__ import annotations

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray, FloatOrArray
from fdp.families.eps_delta import EpsDelta
from fdp.families.eps_delta_power import MAX_K, eps_delta_k_fold
from fdp.tradeoff import TradeOff


def _eps_list(name: str, values: ArrayLike, *, low: float = 0.0,
              high: float = np.inf) -> FloatArray:
    arr = _validate.reals(name, values, low=low, high=high, allow_inf=(high == np.inf)).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one value")
    return arr


def _broadcast_delta(eps: FloatArray, delta: ArrayLike) -> FloatArray:
    d = _validate.reals("delta", delta, low=0.0, high=1.0).ravel()
    if d.size == 1:
        return np.full(eps.shape, d[0])
    if d.shape != eps.shape:
        raise ValueError(f"delta must be a scalar or have the length of eps ({eps.size}), "
                         f"got {d.size}")
    return d


def basic_composition(eps: ArrayLike, delta: ArrayLike = 0.0) -> tuple[float, float]:
    """(Σ ε_i, min(1, Σ δ_i)): sequential composition (Dwork, McSherry, Nissim & Smith
    2006; Dwork & Roth 2014, Thm 3.16).

    Examples
    --------
    >>> from fdp.classical import basic_composition
    >>> basic_composition([0.5, 0.5, 1.0], 1e-6)
    (2.0, 3e-06)
    """
    e = _eps_list("eps", eps)
    d = _broadcast_delta(e, delta)
    return float(e.sum()), float(min(1.0, d.sum()))


def parallel_composition(eps: ArrayLike, delta: ArrayLike = 0.0) -> tuple[float, float]:
    """(max ε_i, max δ_i): mechanisms applied to disjoint parts of the data
    (McSherry 2009, PINQ, Thm 4); each individual is in one part only.

    Examples
    --------
    >>> from fdp.classical import parallel_composition
    >>> parallel_composition([0.5, 1.0], [1e-6, 1e-5])
    (1.0, 1e-05)
    """
    e = _eps_list("eps", eps)
    d = _broadcast_delta(e, delta)
    return float(e.max()), float(d.max())


def advanced_composition(eps: float, delta: float, k: int,
                         delta_prime: float) -> tuple[float, float]:
    """k-fold adaptive composition of (ε, δ)-DP mechanisms (Dwork, Rothblum, Vadhan
    2010, Thm III.3; Dwork & Roth 2014, Thm 3.20):

        (ε', kδ + δ')-DP with ε' = √(2k ln(1/δ')) ε + k ε (e^ε − 1),

    for a slack ``delta_prime`` δ' ∈ (0, 1) the caller chooses; returns (ε', min(1, kδ + δ')).

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


def _k_fold(eps: float, delta: float, k: int) -> TradeOff:
    """f_{ε,δ}^{⊗k} (``fdp.families.eps_delta_power``), after checking the arguments."""
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.probability("delta", delta)
    k = _validate.positive_int("k", k)
    if k > MAX_K:
        raise ValueError(f"k must be an integer in [1, 2^53], got {k}")
    return eps_delta_k_fold(EpsDelta(e, d), k)


def optimal_homogeneous_delta(eps: float, delta: float, k: int,
                              eps_total: ArrayLike) -> FloatOrArray:
    """Exact δ(ε') of k-fold composition of (ε, δ)-DP (Kairouz, Oh & Viswanath 2015, Thm 3.3).

    δ(ε') = 1 − (1 − δ)^k (1 − δ̃(ε')) with
    δ̃(ε') = Σ_ℓ C(k,ℓ) (e^{(k−ℓ)ε} − e^{ε' + ℓε})_+ / (1 + e^ε)^k,
    the upper side of the certified bracket of ``fdp.EpsDelta(eps, delta) ** k``
    (log space, any k ≤ 2^53; the bracket is at rounding level), shaped like ``eps_total``
    (any real ε', ±inf allowed).

    Examples
    --------
    >>> from fdp.classical import optimal_homogeneous_delta
    >>> print(f"{optimal_homogeneous_delta(0.5, 0.0, 10, 4.0):.6e}")
    5.519627e-03
    """
    f = _k_fold(eps, delta, k)
    et = _validate.reals("eps_total", eps_total, allow_inf=True)
    return _validate.like_input(eps_total, np.asarray(f.delta(et), dtype=float))


def optimal_homogeneous_epsilon(eps: float, delta: float, k: int,
                                delta_total: float) -> float:
    """Smallest ε' ≥ 0 with δ(ε') ≤ delta_total for k-fold (ε, δ)-DP (Kairouz, Oh &
    Viswanath 2015, Thm 3.3, read on the exact profile).

    The upper side of ``(fdp.EpsDelta(eps, delta) ** k).epsilon_bounds(delta_total)``:
    never below the exact ε', and above it by rounding only (any k ≤ 2^53); inf when even
    ε' = kε (where δ = 1 − (1 − δ)^k) is not enough.

    Examples
    --------
    >>> from fdp.classical import kov_lattice_epsilon, optimal_homogeneous_epsilon
    >>> print(f"{optimal_homogeneous_epsilon(0.1, 0.0, 100, 1e-5):.4f}")
    4.3068
    >>> print(f"{kov_lattice_epsilon(0.1, 0.0, 100, 1e-5):.4f}")
    4.4000
    """
    f = _k_fold(eps, delta, k)
    target = _validate.probability("delta_total", delta_total)
    return float(f.epsilon(target))


def kov_lattice_epsilon(eps: float, delta: float, k: int, delta_total: float) -> float:
    """Kairouz, Oh & Viswanath (2015), Thm 3.3 read literally, on its lattice of ε'.

    The smallest ε' = (k − 2i)ε, i = 0..⌊k/2⌋, whose δ_i = 1 − (1 − δ)^k (1 − δ̃_i)
    is ≤ delta_total (inf if none is). Never below ``optimal_homogeneous_epsilon``.

    Examples
    --------
    >>> from fdp.classical import kov_lattice_epsilon
    >>> print(f"{kov_lattice_epsilon(0.5, 0.0, 10, 6e-3):.4f}")
    4.0000
    """
    f = _k_fold(eps, delta, k)
    target = _validate.probability("delta_total", delta_total)
    e = float(eps)
    best = float(f.epsilon(target))
    if not np.isfinite(best):
        return best
    if e == 0.0:
        return 0.0
    # δ is non-increasing: the answer is the first lattice point (k − 2i)ε ≥ 0 at or
    # above the exact ε'; step down while the point below still meets the target
    j = min(k, max((k + 1) // 2, int(np.ceil((k + best / e) / 2.0))))
    while j > (k + 1) // 2 and np.asarray(f.delta((2.0 * (j - 1) - k) * e)) <= target:
        j -= 1
    while j < k and np.asarray(f.delta((2.0 * j - k) * e)) > target:
        j += 1
    return float((2.0 * j - k) * e)
