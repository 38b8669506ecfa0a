"""f-DP in one run (Mahloujifar, Melis & Chaudhuri 2024), for any claimed trade-off f.

The derivation: docs/derivations/audits.md.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.special import expit, ndtr, ndtri

from fdp._constants import LOGIT_BELOW_ONE, LOGIT_SEARCH
from fdp._numerics import bisect_monotone
from fdp.families.eps_delta import EpsDelta
from fdp.families.gaussian import Gaussian
from fdp.tradeoff import TradeOff

#: y ↦ B⁻¹(y) on float arrays.
BlowUpInverse = Callable[[np.ndarray], np.ndarray]

#: Upper end of the μ search: G_40 is Id up to 1e-300 at every α a run can resolve.
MU_MAX = 40.0

#: Points of the logit-α grid on which a generic claim's lower curve is read for B⁻¹
#: (docs/derivations/audits.md): logit spacing (37 + 745)/2^20 = 7.5e-4, one vectorised evaluation
#: (about 0.06 s for a DP-SGD bracket) instead of a bisection per recursion step.
BINV_GRID = 2 ** 20


def blow_up_inverse(claim: TradeOff) -> BlowUpInverse:
    """B⁻¹(y) = f⁻¹(1 − y) for the claim's certified lower curve (docs/derivations/audits.md).

    Parameters
    ----------
    claim : TradeOff
        The claimed f (a guarantee; the caller checks ``require_guarantee``).

    Returns
    -------
    callable
        Vectorised y ↦ B⁻¹(y): exact for G_μ and f_{ε,δ}, otherwise a lower bound (the
        logit-grid read of docs/derivations/audits.md).

    Examples
    --------
    >>> import fdp
    >>> from fdp.audit import blow_up_inverse
    >>> binv = blow_up_inverse(fdp.Identity())       # Id: B⁻¹(y) = y, read from below
    >>> x = float(binv(0.3))
    >>> bool(0.3 - 7.6e-4 * 0.3 * 0.7 <= x <= 0.3)
    True
    """
    if isinstance(claim, Gaussian):
        mu = float(claim.mu)
        return lambda y: ndtr(ndtri(np.asarray(y, dtype=float)) - mu)
    if isinstance(claim, EpsDelta):
        # f_{ε,δ}(x) = max(0, 1 − δ − e^ε x, e^{−ε}(1 − δ − x)) ≤ 1 − y  ⇔
        # x ≥ e^{−ε}(y − δ) and x ≥ 1 − δ − e^ε(1 − y)
        e, d = float(claim.eps), float(claim.delta)
        return lambda y: np.maximum(0.0, np.maximum(
            np.exp(-e) * (np.asarray(y, dtype=float) - d),
            1.0 - d - np.exp(e) * (1.0 - np.asarray(y, dtype=float))))

    x = np.unique(np.concatenate(
        [[0.0], expit(np.linspace(LOGIT_SEARCH[0], LOGIT_BELOW_ONE, BINV_GRID)), [1.0]]))
    values = np.asarray(claim._beta(x), dtype=float)
    # S_i = max_{k ≥ i} f_lo(x_k), non-increasing: the largest i with f_lo(x_i) > t is the
    # number of i with S_i > t, less one
    suffix_max = np.maximum.accumulate(values[::-1])[::-1]

    def binv(y: np.ndarray) -> np.ndarray:
        t = 1.0 - np.asarray(y, dtype=float)
        above = np.searchsorted(-suffix_max, -t, side="left")
        # none above: x* ≥ 0 is all that is known (and f(0) ≤ 1 − y makes it exact)
        return np.where(above > 0, x[np.maximum(above - 1, 0)], 0.0)

    return binv


def refutes(binv: BlowUpInverse, m: int, r: int, v: int, significance: float) -> bool:
    """Whether v correct out of r guesses on m canaries refute the claim behind ``binv``.

    The recursion of Mahloujifar, Melis & Chaudhuri (2024) in docs/derivations/audits.md.

    Parameters
    ----------
    binv : callable
        B⁻¹ of the claim (``blow_up_inverse``).
    m, r, v : int
        Canaries, guesses, correct guesses (0 ≤ v ≤ r ≤ m; validated by the caller).
    significance : float
        τ in (0, 1) for this guess set (after any correction).

    Returns
    -------
    bool
        True when the claim is refuted at level τ.
    """
    if v == 0 or 2 * v <= r:
        return False
    rr = significance * v / m
    h = significance * (r - v) / m
    for i in range(v - 1, -1, -1):
        h_new = max(h, float(binv(np.asarray(rr))))
        if h_new == h:
            break
        rr = min(rr + (i / (r - i)) * (h_new - h), 1.0)
        h = h_new
    return rr + h > r / m


def mu_lower_bounds(m: int, r: tuple[int, ...], v: tuple[int, ...],
                    significance: float) -> float:
    """Largest μ such that G_μ is refuted by some guess set, each tested at τ.

    Candidates are taken in decreasing order of precision v/r; each is first checked
    against the best μ so far (one recursion), and bisected only if it refutes it.

    Parameters
    ----------
    m : int
        Canaries.
    r, v : tuple of int
        Guess counts of the candidates.
    significance : float
        τ per candidate (after the correction).

    Returns
    -------
    float
        μ* ≥ 0 (0 when even G_0 = Id is not refuted).
    """
    best = 0.0
    rv = [(ri, vi) for ri, vi in zip(r, v) if vi > 0 and 2 * vi > ri]
    rv.sort(key=lambda t: -t[1] / t[0])
    for ri, vi in rv:
        if not refutes(blow_up_inverse(Gaussian(best)), m, ri, vi, significance):
            continue

        def not_refuted(mu: np.ndarray, ri: int = ri, vi: int = vi) -> np.ndarray:
            return np.asarray(not refutes(blow_up_inverse(Gaussian(float(mu))), m, ri, vi,
                                          significance))

        lo, _ = bisect_monotone(not_refuted, best, MU_MAX, rtol=1e-10, atol=1e-10)
        best = float(lo)
    return best


def p_value(binv: BlowUpInverse, m: int, r: tuple[int, ...], v: tuple[int, ...],
            n_tests: int) -> float:
    """Bonferroni p-value of the claim behind ``binv``: min(1, K·min_k τ_k*).

    τ_k* is the smallest level at which guess set k refutes the claim; the recursion's
    start values τ·v/m and τ·(r − v)/m grow with τ, and r and h grow with them (as with
    B⁻¹, docs/derivations/audits.md), so refutation is monotone in τ and τ_k* is bisected (in
    log τ, reporting the end where refutation was checked).

    Parameters
    ----------
    binv : callable
        B⁻¹ of the claim.
    m : int
        Canaries.
    r, v : tuple of int
        Guess counts of the candidates.
    n_tests : int
        The Bonferroni divisor K.

    Returns
    -------
    float
        The p-value in (0, 1]; 1 when no candidate refutes the claim at any level < 1.
    """
    best = 1.0
    rv = [(ri, vi) for ri, vi in zip(r, v) if vi > 0 and 2 * vi > ri]
    rv.sort(key=lambda t: -t[1] / t[0])
    for ri, vi in rv:
        if not refutes(binv, m, ri, vi, best * (1 - 1e-12)):
            continue

        def refuted(log_tau: np.ndarray, ri: int = ri, vi: int = vi) -> np.ndarray:
            return np.asarray(refutes(binv, m, ri, vi, float(np.exp(log_tau))))

        lo = np.log(np.finfo(float).tiny)
        if refuted(np.asarray(lo)):
            return min(1.0, n_tests * float(np.finfo(float).tiny))
        _, hi = bisect_monotone(refuted, lo, np.log(best), rtol=0.0, atol=1e-12)
        best = float(np.exp(hi))
    return min(1.0, n_tests * best)


__all__ = ["blow_up_inverse", "mu_lower_bounds", "p_value", "refutes"]
