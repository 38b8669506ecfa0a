"""One-run audit of a claimed trade-off curve: the front door and its result.

``one_run`` takes either canary scores (turned into candidate guess sets by
``fdp.audit.guesses``) or guess counts (m, r, v), and reports

* the empirical lower bound on ε at δ (Steinke, Nasr & Jagielski 2023; ``steinke``),
* the empirical lower bound on μ: the largest μ with G_μ refuted (Mahloujifar, Melis &
  Chaudhuri 2024; ``fdp_one_run``),
* whether the claim itself is refuted by the f-DP recursion with the claim's own B⁻¹.

All tests of the K candidate guess sets run at τ/K (Bonferroni), so with probability
≥ 1 − τ nothing true is refuted, provided each canary was included independently with
probability ½ (the assumption both theorems rest on).
"""

from __future__ import annotations

from dataclasses import dataclass

from fdp import _validate
from fdp._types import ArrayLike
from fdp.audit.fdp_one_run import blow_up_inverse, mu_lower_bounds, p_value, refutes
from fdp.audit.guesses import GuessCounts, guess_counts
from fdp.audit.steinke import check_counts, epsilon_lower_bounds
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class OneRunAudit:
    """The outcome of a one-run audit: plain data (pickles, compares, prints).

    Parameters
    ----------
    claim : str
        ``repr`` of the claimed trade-off object.
    refuted : bool
        The claim is refuted at the significance (after the correction).
    p_value : float
        Bonferroni p-value of the claim under the f-DP recursion (Mahloujifar et al.
        2024): K times the smallest level at which some guess set refutes it, capped
        at 1; ``refuted`` is ``p_value ≤ significance``.
    epsilon_lower_bound : float
        Largest ε refuted at ``delta`` (Steinke et al. 2023); 0 for no evidence.
    delta : float
        The δ of that bound.
    mu_lower_bound : float
        Largest μ with G_μ refuted (Mahloujifar et al. 2024); 0 for no evidence.
    significance : float
        Family-wise level τ.
    n_tests : int
        Bonferroni divisor K (guess sets tried).
    correction : str
        How K was counted (``"all"``, ``"hull"``, or ``"none"`` for one count).
    m : int
        Canaries.
    best_r, best_v : int
        Guesses and correct guesses of the guess set that refutes the claim most
        strongly (largest v/r among those refuting it), or of the most precise one.
    assumption : str
        What the statement rests on.

    Examples
    --------
    >>> import fdp
    >>> from fdp.audit import one_run
    >>> res = one_run(fdp.Gaussian(0.5), counts=(1000, 20, 20))
    >>> type(res).__name__, res.refuted
    ('OneRunAudit', True)
    """

    claim: str
    refuted: bool
    p_value: float
    epsilon_lower_bound: float
    delta: float
    mu_lower_bound: float
    significance: float
    n_tests: int
    correction: str
    m: int
    best_r: int
    best_v: int
    assumption: str = "each canary included independently with probability 1/2"


def _counts(in_scores: ArrayLike | None, out_scores: ArrayLike | None,
            counts: tuple[int, int, int] | None, family: str,
            correction: str) -> GuessCounts:
    if counts is not None:
        if in_scores is not None or out_scores is not None:
            raise ValueError("give either counts=(m, r, v) or in_scores and out_scores")
        m, r, v = check_counts(*counts)
        return GuessCounts(m, (r,), (v,), 1, "given", "none")
    if in_scores is None or out_scores is None:
        raise ValueError("in_scores and out_scores are both required (or counts=(m, r, v))")
    return guess_counts(in_scores, out_scores, family=family, correction=correction)


def one_run(claim: TradeOff, in_scores: ArrayLike | None = None,
            out_scores: ArrayLike | None = None, *, counts: tuple[int, int, int] | None = None,
            significance: float = 0.05, delta: float = 1e-6, family: str = "one_sided",
            correction: str = "all") -> OneRunAudit:
    """Audit ``claim`` from one run's canary scores (or guess counts).

    Parameters
    ----------
    claim : TradeOff
        The claimed f; must be a guarantee (exact or certified, both directions).
    in_scores, out_scores : array_like, optional
        Scores of included and excluded canaries (higher: "more likely in").
    counts : (int, int, int), optional
        (m, r, v) instead of scores: one guess set, no correction.
    significance : float, optional
        Family-wise level τ in (0, 1) (default 0.05).
    delta : float, optional
        δ in [0, 1] for the ε lower bound (default 1e-6).
    family, correction : str, optional
        Candidate guess sets and their Bonferroni count (``fdp.audit.guess_counts``).

    Returns
    -------
    OneRunAudit
        The verdict and the bounds.

    Raises
    ------
    ValueError
        For parameters out of range or missing inputs.
    fdp.status.NotAGuarantee
        When the claim is not a guarantee.

    Examples
    --------
    >>> import fdp
    >>> from fdp.audit import one_run
    >>> res = one_run(fdp.Gaussian(0.5), counts=(1000, 20, 20))
    >>> res.refuted, round(res.epsilon_lower_bound, 4), round(res.mu_lower_bound, 4)
    (True, 1.8196, 0.5822)
    """
    if not isinstance(claim, TradeOff):
        raise TypeError(f"claim must be a TradeOff, got {type(claim).__name__}")
    require_guarantee(claim, "fdp.audit.one_run")
    tau = _validate.real("significance", significance, low=0.0, high=1.0, low_open=True,
                         high_open=True)
    d = _validate.probability("delta", delta)
    g = _counts(in_scores, out_scores, counts, family, correction)
    tau_k = tau / g.n_tests
    eps = float(epsilon_lower_bounds(g.m, g.r, g.v, tau_k, d).max(initial=0.0))
    mu = mu_lower_bounds(g.m, g.r, g.v, tau_k)
    binv = blow_up_inverse(claim)
    order = sorted(range(len(g.r)), key=lambda k: -(g.v[k] / g.r[k]) if g.r[k] else 1.0)
    refuted, best = False, order[0]
    for k in order:
        if g.v[k] > 0 and 2 * g.v[k] > g.r[k] and refutes(binv, g.m, g.r[k], g.v[k], tau_k):
            refuted, best = True, k
            break
    p = p_value(binv, g.m, g.r, g.v, g.n_tests)
    return OneRunAudit(claim=repr(claim), refuted=refuted, p_value=p,
                       epsilon_lower_bound=eps, delta=d,
                       mu_lower_bound=mu, significance=tau, n_tests=g.n_tests,
                       correction=g.correction, m=g.m, best_r=g.r[best], best_v=g.v[best])


__all__ = ["OneRunAudit", "one_run"]
