"""Planning a one-run audit: how large must it be, and what can it detect at most.

The derivation: docs/derivations/audits.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp.audit.fdp_one_run import blow_up_inverse, mu_lower_bounds, refutes
from fdp.audit.steinke import check_counts, epsilon_lower_bounds
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff

#: False-positive rates tried by the planner (a fixed grid, log-spaced).
_FPR_GRID = np.geomspace(1e-6, 0.5, 60)


@dataclass(frozen=True)
class AuditPlan:
    """The smallest one-run audit expected to refute a claim if the truth is given.

    Parameters
    ----------
    claim, truth : str
        ``repr`` of the claimed and the assumed true trade-off.
    significance : float
        τ.
    m : int
        Canaries needed.
    r, v : int
        Expected guesses and correct guesses at that size.
    fpr : float
        False-positive rate of the pre-registered threshold under the truth.

    Examples
    --------
    >>> import fdp
    >>> from fdp.audit import min_canaries
    >>> type(min_canaries(fdp.Gaussian(1.2), fdp.Gaussian(3.0))).__name__
    'AuditPlan'
    """

    claim: str
    truth: str
    significance: float
    m: int
    r: int
    v: int
    fpr: float


def _expected_counts(truth: TradeOff, m: int) -> tuple[np.ndarray, np.ndarray]:
    tpr = 1.0 - np.asarray(truth(_FPR_GRID), dtype=float)
    r = np.ceil(m * (_FPR_GRID + tpr) / 2.0).astype(np.int64)
    v = np.floor(m * tpr / 2.0).astype(np.int64)
    return np.minimum(r, m), np.minimum(v, np.minimum(r, m))


def _first_refuting(claim: TradeOff, truth: TradeOff, m: int, tau: float) -> int | None:
    binv = blow_up_inverse(claim)
    r, v = _expected_counts(truth, m)
    for k in np.argsort(-(v / np.maximum(r, 1)), kind="stable"):
        if v[k] > 0 and 2 * v[k] > r[k] and refutes(binv, m, int(r[k]), int(v[k]), tau):
            return int(k)
    return None


def min_canaries(claim: TradeOff, truth: TradeOff, significance: float = 0.05, *,
                 max_m: int = 10**7) -> AuditPlan:
    """Smallest number of canaries with which a one-run audit is expected to refute
    ``claim`` when the mechanism is really ``truth`` (docs/derivations/audits.md).

    Parameters
    ----------
    claim : TradeOff
        The claimed f (a guarantee).
    truth : TradeOff
        The assumed true trade-off (more leakage than the claim).
    significance : float, optional
        τ in (0, 1) (default 0.05).
    max_m : int, optional
        Largest m searched, ≥ 2 (default 10⁷).

    Returns
    -------
    AuditPlan
        m, the expected (r, v) and the threshold's false-positive rate.

    Examples
    --------
    >>> import fdp
    >>> from fdp.audit import min_canaries
    >>> plan = min_canaries(fdp.Gaussian(1.2), fdp.Gaussian(3.0))
    >>> plan.m, plan.r, plan.v
    (272, 94, 93)
    """
    if not isinstance(claim, TradeOff) or not isinstance(truth, TradeOff):
        raise TypeError("claim and truth must be TradeOff objects")
    require_guarantee(claim, "fdp.audit.min_canaries")
    tau = _validate.real("significance", significance, low=0.0, high=1.0, low_open=True,
                         high_open=True)
    max_m = _validate.positive_int("max_m", max_m, low=2)
    hi = 2
    while _first_refuting(claim, truth, hi, tau) is None:
        if hi >= max_m:
            raise ValueError(f"no audit with at most max_m = {max_m} canaries is expected to "
                             f"refute {claim!r} if the truth is {truth!r}; raise max_m or "
                             "assume a stronger truth")
        hi = min(2 * hi, max_m)
    lo = hi // 2
    # bisect (lo, hi] for the first m that refutes: expected counts grow with m, up to
    # the rounding of r and v
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _first_refuting(claim, truth, mid, tau) is None:
            lo = mid
        else:
            hi = mid
    k = _first_refuting(claim, truth, hi, tau)
    assert k is not None
    r, v = _expected_counts(truth, hi)
    return AuditPlan(repr(claim), repr(truth), tau, hi, int(r[k]), int(v[k]),
                     float(_FPR_GRID[k]))


def max_refutable_mu(m: int, r: int, significance: float = 0.05) -> float:
    """The largest μ for which a one-run audit with r guesses on m canaries could refute
    G_μ: all r guesses correct (Mahloujifar, Melis & Chaudhuri 2024 recursion).

    Parameters
    ----------
    m : int
        Canaries, ≥ 1.
    r : int
        Guesses, in [1, m].
    significance : float, optional
        τ in (0, 1) (default 0.05).

    Returns
    -------
    float
        μ_max; no outcome of such an audit refutes G_μ with μ > μ_max.

    Examples
    --------
    >>> from fdp.audit import max_refutable_mu
    >>> max_refutable_mu(1000, 100) > max_refutable_mu(1000, 10)
    True
    """
    m, r, _ = check_counts(m, r, r)
    if r == 0:
        raise ValueError("r (the number of guesses) must be in [1, m]")
    tau = _validate.real("significance", significance, low=0.0, high=1.0, low_open=True,
                         high_open=True)
    return mu_lower_bounds(m, (r,), (r,), tau)


def max_refutable_epsilon(m: int, r: int, significance: float = 0.05,
                          delta: float = 0.0) -> float:
    """The largest ε for which a one-run audit with r guesses on m canaries could refute
    (ε, δ)-DP: all r guesses correct (Steinke, Nasr & Jagielski 2023 test).

    At δ = 0 this is max(0, logit(τ^{1/r})).

    Parameters
    ----------
    m, r, significance
        As in ``max_refutable_mu``.
    delta : float, optional
        δ in [0, 1] (default 0).

    Returns
    -------
    float
        ε_max.

    Examples
    --------
    >>> import math
    >>> from fdp.audit import max_refutable_epsilon
    >>> t = 0.05 ** (1 / 100)
    >>> abs(max_refutable_epsilon(1000, 100) - math.log(t / (1 - t))) < 1e-9
    True
    """
    m, r, _ = check_counts(m, r, r)
    if r == 0:
        raise ValueError("r (the number of guesses) must be in [1, m]")
    tau = _validate.real("significance", significance, low=0.0, high=1.0, low_open=True,
                         high_open=True)
    d = _validate.probability("delta", delta)
    return float(epsilon_lower_bounds(m, r, r, tau, d)[0])


__all__ = ["AuditPlan", "max_refutable_epsilon", "max_refutable_mu", "min_canaries"]
