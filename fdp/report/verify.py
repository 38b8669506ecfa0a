"""Checking a privacy report: every number recomputed from the recorded inputs.

``check(report)`` rebuilds the curve from ``report.mechanism`` (``fdp.dpsgd`` with the
run's inputs, or the family's parameters; the engine accuracy ``tol`` is one of the
inputs), recomputes each read-out at the recorded queries and compares, field by
field, in a fixed order: the unit, relation and sensitivity, the status, the ε, δ and
TPR brackets, the Bayes risk, the μ summary, the description of the curve and the
command. A number passes when it is the recomputed one to the relative tolerance
``rtol`` (default ``RTOL``): JSON keeps a double exactly and the computation is
deterministic, so a report written by this fdp matches bit for bit and any edit of a
number, or of an input that changes it, is caught; a larger ``rtol`` admits a file
written by another fdp version whose engine rounds differently. The first mismatch is
raised as ``ReportMismatch``, one line naming the field, e.g.
``epsilon[delta=1e-05].upper: file says 1.2, recomputed 1.51554``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from fdp._constants import VERSION
from fdp.report.readout import Reading, accounted, command, readouts, rebuild

if TYPE_CHECKING:
    from fdp.report.claim import PrivacyReport

#: Default relative tolerance of a recorded number against its recomputation.
RTOL = 1e-9

#: The query name of each list of readings, for the field names of messages.
QUERY = {"epsilon": "delta", "delta": "epsilon", "tpr": "fpr", "bayes_risk": "prior"}


class ReportMismatch(ValueError):
    """A number or statement of a report is not what its recorded inputs give.

    Attributes
    ----------
    field : str
        The field, e.g. ``"epsilon[delta=1e-05].upper"``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.report import PrivacyReport, ReportMismatch
    >>> d = fdp.Gaussian(1.0).report(delta=1e-5).to_dict()
    >>> d["epsilon"][0]["upper"] = 3.0
    >>> try:
    ...     PrivacyReport.from_dict(d).verify()
    ... except ReportMismatch as err:
    ...     print(err)
    epsilon[delta=1e-05].upper: file says 3, recomputed 4.37718
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _same(a: Any, b: Any, rtol: float) -> bool:
    if isinstance(a, float) and isinstance(b, float):     # (a report holds no NaN)
        return a == b or (math.isfinite(b) and abs(a - b) <= rtol * abs(b))
    return bool(a == b)


def _show(x: Any) -> str:
    return f"{x:.6g}" if isinstance(x, float) else repr(x)


def _compare(field: str, recorded: Any, recomputed: Any, rtol: float, version: str) -> None:
    if not _same(recorded, recomputed, rtol):
        note = "" if version == VERSION else f" (file from fdp {version}, this is fdp {VERSION})"
        raise ReportMismatch(field, f"file says {_show(recorded)}, recomputed "
                                    f"{_show(recomputed)}{note}")


def check(report: PrivacyReport, rtol: float = RTOL) -> None:
    """Recompute ``report`` from its recorded inputs (see the module docstring).

    Parameters
    ----------
    report : PrivacyReport
    rtol : float
        Relative tolerance per number (default ``RTOL``).

    Raises
    ------
    ReportMismatch
        At the first field whose recorded value is not implied by the inputs, or when the
        report cannot be recomputed (``mechanism``).
    """
    m = report.mechanism
    if not m.recomputable:
        raise ReportMismatch("mechanism", f"a {m.name} is not re-computable from a report "
                                          "(only fdp.dpsgd runs and closed-form families are)")
    try:
        f = rebuild(m)
    except (TypeError, ValueError) as exc:
        raise ReportMismatch("mechanism.inputs", f"refused by fdp.{m.name}: {exc}") from None
    v = report.fdp_version
    unit, run = accounted(m, None if m.kind == "dpsgd" else report.privacy_unit)
    if (run is None) != (report.accounted is None):
        raise ReportMismatch("accounted", "file and inputs disagree on whether this is a "
                                          "DP-SGD run")
    if run is not None and report.accounted is not None:
        for name, want in vars(run).items():
            _compare(f"accounted.{name}", getattr(report.accounted, name), want, rtol, v)
    _compare("privacy_unit", report.privacy_unit, unit, rtol, v)
    _compare("status", report.status, f.status.value, rtol, v)
    queries = ([r.at for r in report.epsilon], [r.at for r in report.delta],
               [r.at for r in report.tpr], report.bayes_risk.at)
    fresh = readouts(f, *queries)
    for name in ("epsilon", "delta", "tpr", "bayes_risk"):
        mine: Any = getattr(report, name)
        theirs: Any = fresh[name]
        rows = (mine,) if isinstance(mine, Reading) else mine
        new = (theirs,) if isinstance(theirs, Reading) else theirs
        for r, n in zip(rows, new):
            for side in ("lower", "upper"):
                _compare(f"{name}[{QUERY[name]}={r.at:g}].{side}", getattr(r, side),
                         getattr(n, side), rtol, v)
    for side in ("lower", "upper", "bulk", "gap_lower", "gap_upper", "meaning"):
        _compare(f"mu.{side}", getattr(report.mu, side), getattr(fresh["mu"], side), rtol, v)
    _compare("mechanism.description", m.description, repr(f), rtol, v)
    _compare("command", report.command, command(m, *queries), rtol, v)
