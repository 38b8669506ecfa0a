"""Privacy auditing: empirical evidence about a mechanism's trade-off curve.

- ``many_runs``: samples of the outputs on two neighbouring inputs (many runs of the
  mechanism) → Clopper–Pearson points above the true curve, and refutation of a claim.
- ``one_run``: one training run with canaries included w.p. ½ → lower bounds on ε
  (``steinke``) and μ, and refutation of any certified curve (``fdp_one_run``), from
  scores (``guesses``) or guess counts; ``plan`` sizes an audit and states its ceiling.
"""

from fdp.audit.fdp_one_run import blow_up_inverse
from fdp.audit.guesses import GuessCounts, guess_counts
from fdp.audit.many_runs import (
    AuditCheck,
    AuditEstimate,
    Violation,
    check,
    clopper_pearson,
    estimate,
    min_samples,
)
from fdp.audit.one_run import OneRunAudit, one_run
from fdp.audit.plan import AuditPlan, max_refutable_epsilon, max_refutable_mu, min_canaries
from fdp.audit.steinke import epsilon_lower_bound as steinke_epsilon
from fdp.audit.steinke import p_value as steinke_p_value

__all__ = ["AuditCheck", "AuditEstimate", "AuditPlan", "GuessCounts", "OneRunAudit", "Violation",
           "blow_up_inverse", "check", "clopper_pearson", "estimate", "guess_counts",
           "max_refutable_epsilon", "max_refutable_mu", "min_canaries", "min_samples",
           "one_run", "steinke_epsilon", "steinke_p_value"]
