"""Global sensitivities of common queries, under a stated neighbouring relation.

Δ_p(q) = sup over neighbouring datasets S ~ S' of ‖q(S) − q(S')‖_p (Dwork, McSherry,
Nissim, Smith 2006). It depends on the neighbouring relation, which every helper takes
explicitly (the same relation must be used by the accountant; Dong, Roth & Su 2022,
Sec. 2 and 4.2 define f-DP and subsampling for each relation):

* ``"add_remove"``: S' = S ∪ {x} or S minus one record (unbounded DP);
* ``"replace_one"``: S' = S with one record replaced (bounded DP; the size n is public).

Records are clipped to [lower, upper] *by the caller* before the query; the helpers
state the bound assuming that, they do not clip.
"""

from __future__ import annotations

import numpy as np

from fdp import _validate

RELATIONS = ("add_remove", "replace_one")


def _relation(neighbouring: str) -> str:
    if neighbouring not in RELATIONS:
        raise ValueError(f"neighbouring must be one of {RELATIONS}, got {neighbouring!r}")
    return neighbouring


def _bounds(lower: object, upper: object) -> tuple[float, float]:
    lo = _validate.real("lower", lower)
    hi = _validate.real("upper", upper)
    if not hi > lo:
        raise ValueError(f"upper must be > lower, got lower={lo!r}, upper={hi!r}")
    return lo, hi


def count(neighbouring: str = "add_remove") -> float:
    """Count of records satisfying a predicate: Δ = 1 under both relations.

    add/remove changes the count by at most 1; replace-one too (the replaced record may
    switch between satisfying and not). (The plain size |S| has Δ = 1 under add/remove
    and Δ = 0 under replace-one, where it is public.)
    """
    _relation(neighbouring)
    return 1.0


def bounded_sum(lower: float, upper: float, neighbouring: str = "add_remove") -> float:
    """Sum of records clipped to [lower, upper].

    add/remove: one record enters or leaves, Δ = max(|lower|, |upper|).
    replace-one: one value x becomes x', Δ = upper − lower.
    """
    lo, hi = _bounds(lower, upper)
    if _relation(neighbouring) == "add_remove":
        return float(max(abs(lo), abs(hi)))
    return float(hi - lo)


def bounded_mean(lower: float, upper: float, n: int, neighbouring: str = "replace_one") -> float:
    """Mean of records clipped to [lower, upper].

    replace-one with public size n: Δ = (upper − lower)/n.
    add/remove, where ``n`` is a public lower bound on the size of the smaller of the
    two datasets: the mean of n + 1 records differs from that of n by
    |x − mean_n|/(n + 1) ≤ (upper − lower)/(n + 1).
    (Releasing the size itself is a separate query.)
    """
    lo, hi = _bounds(lower, upper)
    n = _validate.positive_int("n", n)
    if _relation(neighbouring) == "replace_one":
        return float((hi - lo) / n)
    return float((hi - lo) / (n + 1))


def histogram(neighbouring: str = "add_remove", norm: str = "l1") -> float:
    """Histogram (counts over disjoint bins), each record in exactly one bin.

    add/remove: one bin changes by 1: Δ₁ = Δ₂ = 1.
    replace-one: one bin loses 1 and another gains 1: Δ₁ = 2, Δ₂ = √2.
    ``norm``: "l1" (Laplace mechanism) or "l2" (Gaussian mechanism).
    """
    rel = _relation(neighbouring)
    if norm not in ("l1", "l2"):
        raise ValueError(f"norm must be 'l1' or 'l2', got {norm!r}")
    if rel == "add_remove":
        return 1.0
    return 2.0 if norm == "l1" else float(np.sqrt(2.0))
