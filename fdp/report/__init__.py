"""Privacy claims as artifacts: ``PrivacyReport`` (write, read, render, verify).

``f.report(delta=..., fpr=..., prior=...)`` on an exact or certified curve (for a
``fdp.dpsgd`` result, with the run's inputs) returns a ``PrivacyReport``; ``to_json``
writes the versioned schema shipped as ``privacy-report.schema.json``, ``to_markdown``
a model-card section, ``to_text`` one plain paragraph, and ``verify`` (or
``fdp verify FILE``) recomputes every number from the recorded inputs.
"""

from fdp.report.claim import SCHEMA, SCHEMA_FILE, SCHEMA_VERSION, PrivacyReport, make_report
from fdp.report.readout import Accounted, Mechanism, MuSummary, Reading
from fdp.report.verify import ReportMismatch

__all__ = ["SCHEMA", "SCHEMA_FILE", "SCHEMA_VERSION", "Accounted", "Mechanism", "MuSummary",
           "PrivacyReport", "Reading", "ReportMismatch", "make_report"]
