"""What a privacy report states, computed from a curve: the mechanism and its inputs, and
the certified read-outs (ε at δ, δ at ε, TPR at FPR, Bayes risk, the μ summary).

Every number is one of the package's read-outs (``epsilon_bounds``, ``delta_bounds``,
``tpr_at_fpr``, ``bayes_risk``, ``gdp_fit``, ``gdp_fit_range``), so the report and a
Python session give the same bits. ``describe`` says how the curve can be rebuilt: from
the inputs of ``fdp.dpsgd`` (carried by its result, ``fdp.sgd.run``), from the
parameters of a closed-form family, or not at all (any other certified object).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fdp import families
from fdp.conversions.gdp_fit import gdp_fit_range
from fdp.sgd.certified import dpsgd, resolve_sensitivity
from fdp.sgd.run import RESULTS, DpsgdRun, PerStep
from fdp.sgd.schedule import from_epochs
from fdp.tradeoff import TradeOff

#: The range of false-positive rates the bulk μ is fitted on (``gdp_fit_range``).
BULK_FPR = (1e-3, 0.5)


class Reading(NamedTuple):
    """One read-out: the bracket ``lower ≤ value ≤ upper`` at the query ``at`` (an end
    is None where the read-out is undefined, NaN in the package).

    Examples
    --------
    >>> import fdp
    >>> fdp.Gaussian(1.0).report(fpr=0.05).tpr[0]
    Reading(at=0.05, lower=0.2595..., upper=0.2595...)
    """

    at: float
    lower: float | None
    upper: float | None


def defined(x: Any) -> float | None:
    """``float(x)``, or None for NaN (a report holds no NaN: it would not equal itself)."""
    v = float(x)
    return None if v != v else v


@dataclass(frozen=True)
class MuSummary:
    """The μ-GDP summary and what it means (Dong, Roth & Su 2022, Def 2.7).

    Parameters
    ----------
    lower, upper : float
        Certified bracket on μ* = inf{μ : f ≥ G_μ} (the tail μ, ``gdp_mu_bounds``).
    bulk : float
        The least μ with f ≥ G_μ on FPR ∈ ``BULK_FPR`` only (``gdp_fit_range``): an
        approximation, the μ an auditor testing that range sees.
    gap_lower, gap_upper : float or None
        Bracket on sup_α (f(α) − G_μ*(α)) (``gdp_fit``): how much more private the curve
        is than "μ*-GDP" says (None when μ* is infinite).
    meaning : str
        ``GdpFit.summary()``: the read-out in words.

    Examples
    --------
    >>> import fdp
    >>> mu = fdp.Laplace(1.0).report().mu
    >>> print(f"{mu.upper:.4f}", mu.gap_upper > 0)
    1.0301 True
    """

    lower: float | None
    upper: float | None
    bulk: float | None
    gap_lower: float | None
    gap_upper: float | None
    meaning: str


@dataclass(frozen=True)
class Mechanism:
    """What was accounted and how to rebuild it.

    Parameters
    ----------
    kind : {"dpsgd", "family", "other"}
        Rebuilt by ``fdp.dpsgd(**inputs)``, by ``fdp.<name>(**inputs)`` (a closed-form
        family), or not re-computable.
    name : str
        "dpsgd", the family's class name, or the object's type.
    inputs : tuple of (str, value)
        The arguments (``DpsgdRun`` fields; per-step values as runs (value, steps)).
    description : str
        ``repr`` of the curve.

    Examples
    --------
    >>> import fdp
    >>> m = fdp.Gaussian(2.0).report().mechanism
    >>> m.kind, m.arguments(), m.recomputable
    ('family', {'mu': 2.0}, True)
    """

    kind: str
    name: str
    inputs: tuple[tuple[str, Any], ...]
    description: str

    @property
    def recomputable(self) -> bool:
        """True unless ``kind`` is "other"."""
        return self.kind != "other"

    def arguments(self) -> dict[str, Any]:
        """``inputs`` as a dict."""
        return dict(self.inputs)


def describe(f: TradeOff) -> Mechanism:
    """The ``Mechanism`` of ``f``: a ``fdp.dpsgd`` result with its run, a closed-form
    family that its parameters rebuild, or "other"."""
    if isinstance(f, RESULTS) and f.run is not None:
        run = f.run
        return Mechanism("dpsgd", "dpsgd", tuple((k, getattr(run, k)) for k in
                                                 run.__dataclass_fields__), repr(f))
    name = type(f).__name__
    if getattr(families, name, None) is type(f):
        params = tuple((p, getattr(f, p, None))
                       for p in inspect.signature(type(f)).parameters)
        try:
            same = repr(rebuild(Mechanism("family", name, params, ""))) == repr(f)
        except (TypeError, ValueError):
            same = False
        if same:
            return Mechanism("family", name, params, repr(f))
    return Mechanism("other", name, (), repr(f))


def _plain(x: Any) -> Any:
    return tuple(_plain(v) for v in x) if isinstance(x, (list, tuple)) else x


def rebuild(m: Mechanism) -> TradeOff:
    """The curve of ``m`` recomputed from its inputs.

    Raises
    ------
    ValueError
        When ``m`` is not re-computable or its inputs are refused.
    """
    if m.kind == "dpsgd":
        known = DpsgdRun.__dataclass_fields__
        unknown = [k for k, _ in m.inputs if k not in known]
        if unknown:
            raise ValueError(f"unknown input {unknown[0]!r} of fdp.dpsgd")
        return dpsgd(**DpsgdRun(**{k: _plain(v) for k, v in m.inputs}).kwargs())
    if m.kind == "family":
        cls = getattr(families, m.name, None)
        if not (isinstance(cls, type) and issubclass(cls, TradeOff)):
            raise ValueError(f"{m.name!r} is not a family of fdp")
        return cls(**{k: _plain(v) for k, v in m.inputs})
    raise ValueError(f"a {m.name} cannot be rebuilt from a report (not re-computable)")


@dataclass(frozen=True)
class Accounted:
    """What a DP-SGD run accounted, resolved from its inputs (the claim's own words).

    Parameters
    ----------
    noise_multiplier, sample_rate : float or tuple of (float, int)
        σ and q (runs (value, steps) when per step); q and T from the epochs form by
        ``fdp.sgd.schedule.from_epochs``.
    steps : int
    sampler, neighbouring : str
    sensitivity : float
        In clipping norms (the relation's default when not given).
    examples_per_user : int

    Examples
    --------
    >>> import fdp
    >>> fdp.dpsgd(1.0, batch_size=10, dataset_size=100, epochs=2, tol=1e-2).report().accounted
    Accounted(noise_multiplier=1.0, sample_rate=0.1, steps=20, sampler='poisson', \
neighbouring='add_remove', sensitivity=1.0, examples_per_user=1)
    """

    noise_multiplier: PerStep
    sample_rate: PerStep
    steps: int
    sampler: str
    neighbouring: str
    sensitivity: float
    examples_per_user: int


def accounted(m: Mechanism, unit: str | None) -> tuple[str, Accounted | None]:
    """(privacy unit, ``Accounted``) of ``m``: for a DP-SGD run both follow from its
    inputs; otherwise the caller's ``unit`` (default "one record") and None."""
    if m.kind != "dpsgd":
        return unit or "one record", None
    if unit is not None:
        raise ValueError("unit is set by the run's inputs (examples_per_user) for fdp.dpsgd; "
                         "drop unit=")
    a = m.arguments()
    q, steps = a["sample_rate"], a["steps"]
    if a["epochs"] is not None:
        q, steps = from_epochs(a["batch_size"], a["dataset_size"], a["epochs"])
    sens = (1.0 if a["sampling"] in ("random_allocation", "shuffle")
            else resolve_sensitivity(a["sensitivity"], a["neighbouring"]))
    k = a["examples_per_user"]
    return (("one example" if k == 1 else f"one user ({k} examples)"),
            Accounted(a["noise_multiplier"], q, steps, a["sampling"], a["neighbouring"],
                      sens, k))


def _readings(at: Sequence[float], bracket: Any) -> tuple[Reading, ...]:
    lo, hi = (np.atleast_1d(np.asarray(v, dtype=float)) for v in bracket)
    return tuple(Reading(float(a), defined(x), defined(y)) for a, x, y in zip(at, lo, hi))


def readouts(f: TradeOff, delta: Sequence[float], epsilon: Sequence[float],
             fpr: Sequence[float], prior: float) -> dict[str, Any]:
    """The certified read-outs of ``f`` that a report holds, by field name."""
    fit = f.gdp_fit()
    mu_lo, mu_hi = f.gdp_mu_bounds()
    risk = f.bayes_risk(prior)
    return {
        "epsilon": _readings(delta, f.epsilon_bounds(np.asarray(delta, dtype=float))),
        "delta": _readings(epsilon, f.delta_bounds(np.asarray(epsilon, dtype=float))),
        "tpr": _readings(fpr, f.tpr_at_fpr(np.asarray(fpr, dtype=float))),
        "bayes_risk": Reading(float(prior), defined(risk.lo), defined(risk.hi)),
        "mu": MuSummary(defined(mu_lo), defined(mu_hi), defined(gdp_fit_range(f, *BULK_FPR).mu),
                        defined(fit.gap_lo), defined(fit.gap_hi), fit.summary()),
    }


def _expression(x: Any) -> str:
    if isinstance(x, tuple):       # runs (value, steps) of a per-step value
        return " + ".join(f"[{v!r}] * {n}" for v, n in x)
    return repr(x)


def command(m: Mechanism, delta: Sequence[float], epsilon: Sequence[float],
            fpr: Sequence[float], prior: float) -> str | None:
    """A shell command that recomputes the report and prints its JSON (None when the
    mechanism is not re-computable)."""
    if not m.recomputable:
        return None
    target = "dpsgd" if m.kind == "dpsgd" else m.name
    args = ", ".join(f"{k}={_expression(v)}" for k, v in m.inputs
                     if v is not None or m.kind == "family")
    call = (f"fdp.{target}({args}).report(delta={list(delta)!r}, fpr={list(fpr)!r}, "
            f"prior={prior!r}, epsilon={list(epsilon)!r}).to_json()")
    return f'python -c "import fdp; print({call})"'
