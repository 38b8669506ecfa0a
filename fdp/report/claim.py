"""``PrivacyReport``: a privacy claim as a value that can be published, checked and read.

A report holds what was accounted (the mechanism and its inputs, the unit of privacy,
the neighbouring relation, the sensitivity), the certified read-outs of its curve (the
ε bracket at each δ, the δ bracket at each ε, the TPR bracket of the best membership
test at each FPR, the Bayes risk at a prior, the μ summary with its fit), its status,
the fdp version and a command that recomputes it. ``to_json`` writes the versioned
schema ``privacy-report.schema.json`` (shipped in this package, ``SCHEMA_FILE``);
``from_json`` reads it back into an equal report; ``verify`` recomputes every number
from the recorded inputs (``fdp.report.verify``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fdp import _validate
from fdp._constants import VERSION
from fdp.report import render, verify
from fdp.report.readout import (
    BULK_FPR,
    Accounted,
    Mechanism,
    MuSummary,
    Reading,
    accounted,
    command,
    describe,
    readouts,
)
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff

#: The schema's name and version (a reader refuses other versions).
SCHEMA = "fdp-privacy-report"
SCHEMA_VERSION = 1
SCHEMA_FILE = Path(__file__).with_name("privacy-report.schema.json")

#: Default queries of ``TradeOff.report``.
DEFAULT_FPR = (0.001, 0.01, 0.1)
DEFAULT_EPSILON = (1.0, 8.0)

def _num(x: float | None) -> float | str | None:
    """A number for JSON: finite as is (``repr`` round-trips), ±inf as "inf", "-inf",
    undefined (None) as null."""
    return x if x is None or math.isfinite(x) else str(x)


def _float(x: Any) -> Any:
    if x is None:
        return None
    if isinstance(x, str) and x not in ("inf", "-inf"):
        raise ValueError(f"a number or 'inf', '-inf', got {x!r}")
    return float(x)


def _tuples(x: Any) -> Any:
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


@dataclass(frozen=True)
class PrivacyReport:
    """A certified privacy claim (see the module docstring and docs/privacy-claim.md).

    Parameters
    ----------
    mechanism : Mechanism
        What was accounted and how to rebuild it.
    privacy_unit : str
        Whose privacy: "one example", "one user (k examples)", or the caller's unit.
    accounted : Accounted or None
        For a DP-SGD run: σ, q, T, the sampler, the neighbouring relation, the
        sensitivity and the examples per user, resolved from the inputs; else None.
    status : str
        "exact" or "certified".
    epsilon, delta, tpr : tuple of Reading
        ε bracket at each δ, δ bracket at each ε, TPR bracket at each FPR.
    bayes_risk : Reading
        Bracket of the least Bayes risk of a membership attacker with the prior ``at``.
    mu : MuSummary
        The μ-GDP summary, the bulk fit and the gap.
    fdp_version : str
    command : str or None
        A shell command that recomputes the report (None: not re-computable).
    schema_version : int

    Examples
    --------
    >>> import fdp
    >>> r = fdp.Gaussian(1.0).report(delta=1e-5)
    >>> r.epsilon[0]
    Reading(at=1e-05, lower=4.377178..., upper=4.377178...)
    >>> fdp.PrivacyReport.from_json(r.to_json()) == r
    True
    """

    mechanism: Mechanism
    privacy_unit: str
    accounted: Accounted | None
    status: str
    epsilon: tuple[Reading, ...]
    delta: tuple[Reading, ...]
    tpr: tuple[Reading, ...]
    bayes_risk: Reading
    mu: MuSummary
    fdp_version: str
    command: str | None
    schema_version: int = SCHEMA_VERSION

    def __repr__(self) -> str:
        eps = ", ".join(f"eps <= {render.number(e.upper)} at delta = {e.at:g}"
                        for e in self.epsilon)
        return (f"PrivacyReport({self.mechanism.description}; {self.privacy_unit}; {eps}; "
                f"{self.status})")

    # -- JSON -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON data (the schema ``SCHEMA_FILE``)."""
        m = self.mechanism
        rows: dict[str, Any] = {
            name: [{verify.QUERY[name]: r.at, "lower": _num(r.lower), "upper": _num(r.upper)}
                   for r in getattr(self, name)] for name in ("epsilon", "delta", "tpr")}
        mu = self.mu
        return {
            "schema": SCHEMA, "schema_version": self.schema_version,
            "fdp_version": self.fdp_version,
            "mechanism": {"kind": m.kind, "name": m.name,
                          "inputs": {k: _json_input(v) for k, v in m.inputs},
                          "description": m.description, "recomputable": m.recomputable},
            "privacy_unit": self.privacy_unit,
            "accounted": None if self.accounted is None else
            {k: _json_input(v) for k, v in vars(self.accounted).items()},
            "status": self.status, **rows,
            "bayes_risk": {"prior": self.bayes_risk.at, "lower": _num(self.bayes_risk.lower),
                           "upper": _num(self.bayes_risk.upper)},
            "mu": {"lower": _num(mu.lower), "upper": _num(mu.upper), "bulk": _num(mu.bulk),
                   "bulk_fpr": list(BULK_FPR), "gap_lower": _num(mu.gap_lower),
                   "gap_upper": _num(mu.gap_upper), "meaning": mu.meaning},
            "command": self.command,
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text (``to_dict``; ±inf as "inf", "-inf", undefined as null)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PrivacyReport:
        """Read ``to_dict`` output back.

        Raises
        ------
        ValueError
            Naming the field that is missing or malformed, or for another schema version.
        """
        if not isinstance(d, dict) or d.get("schema") != SCHEMA:
            raise ValueError(f"schema: not an {SCHEMA} document")
        if d.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"schema_version: this fdp reads version {SCHEMA_VERSION}, the "
                             f"file has {d.get('schema_version')!r}")
        where = "the report"
        try:
            where = "mechanism"
            m = d["mechanism"]
            mech = Mechanism(str(m["kind"]), str(m["name"]),
                             tuple((str(k), _tuples(v)) for k, v in m["inputs"].items()),
                             str(m["description"]))
            lists = {}
            for name in ("epsilon", "delta", "tpr"):
                where = name
                lists[name] = tuple(Reading(_float(r[verify.QUERY[name]]), _float(r["lower"]),
                                            _float(r["upper"])) for r in d[name])
            where = "bayes_risk"
            b = d["bayes_risk"]
            where = "mu"
            u = d["mu"]
            mu = MuSummary(_float(u["lower"]), _float(u["upper"]), _float(u["bulk"]),
                           _float(u["gap_lower"]), _float(u["gap_upper"]), str(u["meaning"]))
            where = "accounted"
            a = d["accounted"]
            run = None if a is None else Accounted(**{k: _tuples(v) for k, v in a.items()})
            where = "the report"
            return cls(mech, str(d["privacy_unit"]), run, str(d["status"]),
                       lists["epsilon"], lists["delta"], lists["tpr"],
                       Reading(_float(b["prior"]), _float(b["lower"]), _float(b["upper"])),
                       mu, str(d["fdp_version"]), d["command"], SCHEMA_VERSION)
        except KeyError as exc:
            raise ValueError(f"{where}: missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"{where}: malformed ({exc})") from None

    @classmethod
    def from_json(cls, text: str | Path) -> PrivacyReport:
        """Read a report from JSON text or from a file path (``pathlib.Path``).

        Parameters
        ----------
        text : str or Path
            The ``to_json`` text, or a ``Path`` to a file holding it.

        Returns
        -------
        PrivacyReport
        """
        if isinstance(text, Path):
            text = text.read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON: {exc}") from None
        return cls.from_dict(data)

    # -- reading and checking ---------------------------------------------------------
    def to_markdown(self) -> str:
        """A model-card section (``fdp.report.render.markdown``)."""
        return render.markdown(self)

    def to_text(self) -> str:
        """One paragraph a non-expert can read (``fdp.report.render.text``)."""
        return render.text(self)

    def verify(self, rtol: float = verify.RTOL) -> None:
        """Recompute every number from the recorded inputs (``fdp.report.verify.check``).

        Raises
        ------
        fdp.report.verify.ReportMismatch
            Naming the first field whose recorded value is not what the inputs give.
        """
        verify.check(self, rtol)


def _json_input(v: Any) -> Any:
    return [list(r) for r in v] if isinstance(v, tuple) else v


def _queries(name: str, value: float | Sequence[float], low: float, high: float
             ) -> tuple[float, ...]:
    arr = np.atleast_1d(_validate.reals(name, value, low=low, high=high))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a number or a list of numbers")
    return tuple(float(x) for x in arr)


def make_report(f: TradeOff, delta: float | Sequence[float] = 1e-5,
                fpr: float | Sequence[float] = DEFAULT_FPR, prior: float = 0.5,
                epsilon: float | Sequence[float] = DEFAULT_EPSILON,
                unit: str | None = None) -> PrivacyReport:
    """The ``PrivacyReport`` of the guarantee ``f`` (``TradeOff.report``).

    Parameters
    ----------
    f : TradeOff
        An exact or certified guarantee (anything else is refused).
    delta : float or sequence of float
        δ ∈ [0, 1] at which to state the ε bracket.
    fpr : float or sequence of float
        False-positive rates in [0, 1] for the TPR brackets.
    prior : float
        π ∈ [0, 1], the attacker's prior for the Bayes risk.
    epsilon : float or sequence of float
        ε ≥ 0 at which to state the δ bracket.
    unit : str, optional
        The unit of privacy of a curve that is not a DP-SGD run (default "one record");
        a DP-SGD run's unit follows from its inputs.

    Returns
    -------
    PrivacyReport

    Raises
    ------
    NotAGuarantee
        For a lower bound or an approximation.
    ValueError
        For a query out of range.

    Examples
    --------
    >>> import fdp
    >>> from fdp.report import make_report
    >>> r = make_report(fdp.Gaussian(1.0), delta=1e-5, fpr=0.01)
    >>> "ε ≤ 4.38 at δ = 1e-05" in r.to_text()
    True
    """
    require_guarantee(f, "a privacy report")
    deltas = _queries("delta", delta, 0.0, 1.0)
    eps = _queries("epsilon", epsilon, 0.0, np.inf)
    fprs = _queries("fpr", fpr, 0.0, 1.0)
    pi = _validate.probability("prior", prior)
    m = describe(f)
    who, run = accounted(m, unit)
    r = readouts(f, deltas, eps, fprs, pi)
    return PrivacyReport(m, who, run, f.status.value, r["epsilon"], r["delta"],
                         r["tpr"], r["bayes_risk"], r["mu"], VERSION,
                         command(m, deltas, eps, fprs, pi))
