"""Privacy auditing: empirical evidence about a mechanism's trade-off curve.

- ``many_runs``: samples of the outputs on two neighbouring inputs (many runs of the
  mechanism) → Clopper–Pearson points above the true curve, and refutation of a claim.
"""

from fdp.audit.many_runs import (
    AuditCheck,
    AuditEstimate,
    Violation,
    check,
    clopper_pearson,
    estimate,
    min_samples,
)

__all__ = ["AuditCheck", "AuditEstimate", "Violation", "check", "clopper_pearson", "estimate",
           "min_samples"]
