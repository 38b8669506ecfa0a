"""The leaves of a dp_accounting ``DpEvent`` tree as trade-off functions.

Each mechanism event (Gaussian, Laplace, discrete, randomized response, stated
guarantees, truncated Poisson, mixtures, tree aggregation) maps to its exact or
certified curve; the walk over the tree, the structure events and the public entry
points are in ``fdp.interop.dp_events``, the table of every event in docs/dp-events.md.
Events are read by duck typing (class name and documented attributes), so nothing here
imports dp_accounting. Parameters derived by floating-point arithmetic (1/σ, m/n, the
randomized-response ε) are rounded one ulp toward less privacy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fdp import _validate
from fdp.conversions.from_rdp import from_zcdp
from fdp.families import (
    BoundedRange,
    DiscreteGaussian,
    DiscreteLaplace,
    EpsDelta,
    Gaussian,
    Identity,
    Laplace,
    MixtureOfGaussians,
    RandomizedResponse,
)
from fdp.families.mixture import PROB_SUM_TOL
from fdp.sgd.matrix_factorization import tree_aggregation
from fdp.tradeoff import TradeOff

#: A dp_accounting ``DpEvent`` (or its named-tuple form), read by duck typing.
Event = Any

NEIGHBOURING = ("add_remove", "replace_one", "replace_special")

# dp_accounting's NeighboringRelation member names -> ours
_RELATION_NAMES = {"ADD_OR_REMOVE_ONE": "add_remove", "REPLACE_ONE": "replace_one",
                   "REPLACE_SPECIAL": "replace_special"}


class UnsupportedEventError(ValueError):
    """A DpEvent that fdp cannot turn into a certified trade-off function.

    A ``ValueError``; the message names the event and what to use instead.

    Examples
    --------
    >>> import dp_accounting
    >>> from fdp.interop.dp_accounting import UnsupportedEventError, check_dp_event
    >>> try:
    ...     check_dp_event(dp_accounting.UnsupportedDpEvent())
    ... except UnsupportedEventError as err:
    ...     print("UnsupportedDpEvent" in str(err))
    True
    """


def no_privacy() -> TradeOff:
    """The zero trade-off function f ≡ 0 (f_{0,1}): a mechanism with no guarantee."""
    return EpsDelta(0.0, 1.0)


@dataclass(frozen=True)
class _Context:
    relation: str
    replace_one_sensitivity: float

    @property
    def sensitivity(self) -> float:
        """Δ of a noised sum of records with ‖v_i‖ ≤ 1 under this relation (a special
        record contributes the zero vector, so replacing a record by it moves the sum
        by one record's contribution)."""
        return self.replace_one_sensitivity if self.relation == "replace_one" else 1.0


@dataclass(frozen=True)
class _Mapped:
    """An event's guarantee while walking the tree.

    ``f`` bounds T(M(S), M(S ∪ {x})) only when ``directional`` (Poisson sampling
    inside); otherwise it bounds both orders of every neighbouring pair. ``private``
    False: no guarantee at all. ``f`` is None in a dry run (``build=False``), and also
    while the subtree is a DP-SGD run: ``steps`` then holds its subsampled Gaussian
    steps as (noise multiplier, rate, count, sampler), composed only at the end by
    ``fdp.dpsgd`` itself, so that an event and the same run given to ``dpsgd`` get
    bit-identical brackets; or while it is random allocation: ``allocation`` holds
    (σ, steps, selected, epochs) for ``fdp.random_allocation``. ``sigma`` marks a
    bare Gaussian leaf (its noise multiplier).
    """

    f: TradeOff | None
    directional: bool = False
    private: bool = True
    steps: tuple[Step, ...] | None = None
    sigma: float | None = None
    allocation: tuple[float, int, int, int] | None = None


#: A batch sampler of ``fdp.dpsgd`` with its options: (sampling, dataset_size,
#: batch_cap, sensitivity); None is dpsgd's default.
Sampler = tuple[str, int | None, int | None, float | None]
#: One group of DP-SGD steps: (noise multiplier, rate, count, sampler).
Step = tuple[float, float, int, Sampler]

_POISSON: Sampler = ("poisson", None, None, None)
_NONE = _Mapped(None, private=False)


def _relation(neighbouring: Any) -> str:
    name = getattr(neighbouring, "name", neighbouring)
    name = _RELATION_NAMES.get(name, name)
    if name not in NEIGHBOURING:
        raise ValueError(f"neighbouring must be one of {NEIGHBOURING} (or dp_accounting's "
                         f"NeighboringRelation.ADD_OR_REMOVE_ONE / REPLACE_ONE / "
                         f"REPLACE_SPECIAL), got {neighbouring!r}")
    return name


def _sensitivity(value: object) -> float:
    return _validate.real("replace_one_sensitivity", value, low=0.0, high=2.0, low_open=True)


def _up(x: float) -> float:
    """x rounded one ulp up (a derived parameter on the less-private side)."""
    return float(np.nextafter(x, np.inf))


def _ratio(a: float | Fraction, b: float, *, up: bool) -> float:
    """a/b rounded to a float on the requested side (exact when a/b is a float)."""
    exact = Fraction(a) / Fraction(b)
    try:
        x = float(exact)
    except OverflowError:
        return math.inf
    if up and Fraction(x) < exact:
        return _up(x)
    if not up and Fraction(x) > exact:
        return float(np.nextafter(x, 0.0))
    return x


def _event_name(event: Event) -> str:
    """The DpEvent class name; works for events and their ``to_named_tuple()`` form."""
    if hasattr(event, "_fields") and hasattr(event, "class_name"):
        return str(event.class_name)
    return type(event).__name__


def _field(event: Event, name: str) -> Any:
    try:
        return getattr(event, name)
    except AttributeError:
        raise UnsupportedEventError(
            f"{_event_name(event)} has no attribute {name!r}: not the dp_accounting event "
            f"of that name this adapter reads ({event!r})") from None


def _nonneg(event: Event, name: str, *, allow_inf: bool = False) -> float:
    return _validate.real(f"{_event_name(event)}.{name}", _field(event, name), low=0.0,
                          allow_inf=allow_inf)


def _leaf(f: TradeOff) -> _Mapped:
    return _Mapped(f)


def _is_identity(m: _Mapped) -> bool:
    """The walked event releases nothing about the record (Id)."""
    return m.private and isinstance(m.f, Identity)


def _require(event: Event, ctx: _Context, relation: str, why: str) -> None:
    """UnsupportedEventError unless the accounting runs under ``relation``."""
    if ctx.relation != relation:
        raise UnsupportedEventError(
            f"{_event_name(event)} under neighbouring={ctx.relation!r}: {why}; use "
            f"neighbouring={relation!r}")


# -- leaves ----------------------------------------------------------------
def _noop(event: Event, ctx: _Context, build: bool) -> _Mapped:
    return _leaf(Identity())


def _non_private(event: Event, ctx: _Context, build: bool) -> _Mapped:
    return _NONE


def _gaussian(event: Event, ctx: _Context, build: bool) -> _Mapped:
    sigma = _nonneg(event, "noise_multiplier", allow_inf=True)
    m = _additive(Gaussian, ctx.sensitivity, sigma)
    if m.private and 0.0 < sigma < math.inf:
        return _Mapped(m.f, sigma=sigma)   # a Gaussian step a sampler can hand to dpsgd
    return m


def _laplace(event: Event, ctx: _Context, build: bool) -> _Mapped:
    b = _nonneg(event, "noise_multiplier", allow_inf=True)
    return _additive(Laplace, ctx.sensitivity, b)


def _additive(family: Callable[[float], TradeOff], sensitivity: float,
              scale: float) -> _Mapped:
    """family(μ) with μ = Δ/scale rounded up; scale 0 (or μ overflowing) is no privacy."""
    if scale == 0.0:
        return _NONE
    if scale == math.inf:
        return _leaf(Identity())
    mu = _ratio(sensitivity, scale, up=True)
    if not math.isfinite(mu):
        return _NONE
    return _leaf(family(mu))


def _discrete_laplace(event: Event, ctx: _Context, build: bool) -> _Mapped:
    a = _nonneg(event, "noise_parameter", allow_inf=True)
    c = _nonneg(event, "sensitivity")
    if c == 0.0 or a == math.inf:
        return _leaf(Identity())
    if a == 0.0:
        return _NONE
    # P(z) ∝ e^{−a|z|}: scale 1/a, rounded down (less noise, less privacy)
    return _leaf(DiscreteLaplace(_ratio(1.0, a, up=False), sensitivity=_scaled(event, ctx, c)))


def _discrete_gaussian(event: Event, ctx: _Context, build: bool) -> _Mapped:
    sigma = _nonneg(event, "sigma", allow_inf=True)
    s = _nonneg(event, "sensitivity") if hasattr(event, "sensitivity") else 1.0
    dimension = getattr(event, "dimension", None)
    if s == 0.0 or sigma == math.inf:
        return _leaf(Identity())
    if sigma == 0.0:
        return _NONE
    if dimension != 1:
        raise UnsupportedEventError(
            f"{_event_name(event)} with dimension={dimension!r}: fdp accounts for the "
            "univariate discrete Gaussian only (dimension=1); the multivariate one is not "
            "the product of univariate ones (Canonne, Kamath & Steinke 2020, §4). Use "
            "dimension=1 per coordinate query, or a GaussianDpEvent only if the noise is "
            "continuous")
    return _leaf(DiscreteGaussian(sigma, sensitivity=_scaled(event, ctx, s)))


def _scaled(event: Event, ctx: _Context, c: float) -> int:
    """Δ·c as the integer sensitivity a discrete mechanism needs (or a clear error)."""
    delta = ctx.sensitivity * c
    if not float(delta).is_integer():
        raise UnsupportedEventError(
            f"{_event_name(event)}: the sensitivity {delta:g} (= {c:g} × "
            f"{ctx.sensitivity:g} under {ctx.relation}) is not an integer; the discrete "
            "mechanisms need an integer sensitivity")
    return int(delta)


def _randomized_response(event: Event, ctx: _Context, build: bool) -> _Mapped:
    p = _validate.probability(f"{_event_name(event)}.noise_parameter",
                              _field(event, "noise_parameter"))
    k = _validate.positive_int(f"{_event_name(event)}.num_buckets", _field(event, "num_buckets"))
    if ctx.relation != "replace_one":
        raise UnsupportedEventError(
            f"{_event_name(event)} randomizes one record's value, a replace-one neighbouring "
            "relation; use neighbouring='replace_one'")
    if k == 1 or p == 1.0:
        return _leaf(Identity())
    if p == 0.0:
        return _NONE
    # true bucket with probability 1 − p + p/k, each other bucket p/k
    # ε = log(1 + k(1 − p)/p): the ratio rounded up exactly, then one ulp for log1p
    eps = _up(math.log1p(_ratio(k * (1 - Fraction(p)), p, up=True)))
    return _leaf(RandomizedResponse(eps, k))


def _epsilon_delta(event: Event, ctx: _Context, build: bool) -> _Mapped:
    eps = _nonneg(event, "epsilon", allow_inf=True)
    delta = _validate.probability(f"{_event_name(event)}.delta", _field(event, "delta"))
    if eps == math.inf or delta == 1.0:
        return _NONE
    if eps == 0.0 and delta == 0.0:
        return _leaf(Identity())  # f_{0,0} = Id, kept closed for composition
    return _leaf(EpsDelta(eps, delta))


def _pure(event: Event, family: Callable[[float], TradeOff]) -> _Mapped:
    """An ε-DP event: family(ε); ε = 0 is Id and ε = ∞ no privacy."""
    eps = _nonneg(event, "epsilon", allow_inf=True)
    if eps == math.inf:
        return _NONE
    return _leaf(Identity() if eps == 0.0 else family(eps))


def _exponential(event: Event, ctx: _Context, build: bool) -> _Mapped:
    return _pure(event, BoundedRange)


def _permute_and_flip(event: Event, ctx: _Context, build: bool) -> _Mapped:
    return _pure(event, EpsDelta)


def _zcdp(event: Event, ctx: _Context, build: bool) -> _Mapped:
    rho = _nonneg(event, "rho", allow_inf=True)
    xi = _nonneg(event, "xi", allow_inf=True) if hasattr(event, "xi") else 0.0
    if math.isinf(rho) or math.isinf(xi):
        return _NONE
    return _leaf(from_zcdp(rho, xi=xi))


def _truncated(event: Event, ctx: _Context, build: bool) -> _Mapped:
    name = _event_name(event)
    n = _validate.positive_int(f"{name}.dataset_size", _field(event, "dataset_size"), low=0)
    q = _validate.probability(f"{name}.sampling_probability",
                              _field(event, "sampling_probability"))
    cap = _validate.positive_int(f"{name}.truncated_batch_size",
                                 _field(event, "truncated_batch_size"), low=0)
    sigma = _nonneg(event, "noise_multiplier", allow_inf=True)
    _require(event, ctx, "add_remove", "fdp analyses truncated Poisson sampling for "
             "add/remove neighbours (fdp.dpsgd, sampling='truncated_poisson')")
    if q == 0.0 or cap == 0 or n == 0 or sigma == math.inf:
        return _leaf(Identity())       # nothing is released about anyone
    if sigma == 0.0:
        return _NONE
    # a cap of n or more never truncates (at most n − 1 other records are drawn), and
    # fdp.dpsgd takes batch_cap ≤ dataset_size: min(B, n) is the same mechanism
    sampler = ("truncated_poisson", n, min(cap, n), None)
    return _Mapped(None, True, steps=((sigma, q, 1, sampler),))


def _mixture(event: Event, ctx: _Context, build: bool) -> _Mapped:
    name = _event_name(event)
    sigma = _nonneg(event, "standard_deviation", allow_inf=True)
    c = _validate.reals(f"{name}.sensitivities", list(_field(event, "sensitivities")),
                        low=0.0)
    p = _validate.reals(f"{name}.sampling_probs", list(_field(event, "sampling_probs")),
                        low=0.0, high=1.0)
    if c.ndim != 1 or c.size == 0 or p.shape != c.shape:
        raise ValueError(f"{name}: sensitivities and sampling_probs must be non-empty "
                         f"and of one length, got {c.size} and {p.size}")
    if abs(float(np.sum(p)) - 1.0) > PROB_SUM_TOL:
        raise ValueError(f"{name}.sampling_probs must sum to 1 (within {PROB_SUM_TOL:g}), "
                         f"got {float(np.sum(p))!r}")
    _require(event, ctx, "add_remove", "the mixture N(0, σ²) vs Σ p_i N(c_i, σ²) is one "
             "order of an add/remove pair (Choquette-Choo et al. 2024)")
    if sigma == math.inf or not np.any(c[p > 0] > 0):
        return _leaf(Identity())
    if sigma == 0.0:
        return _NONE
    # constructed in a dry run too: its checks (probabilities summing to 1, the span
    # of the sensitivities) are the ones from_dp_event would raise
    f = MixtureOfGaussians(sigma, tuple(c.tolist()), tuple(p.tolist()))
    return _Mapped(f if build else None, not f.symmetric)


def _tree(event: Event, ctx: _Context, build: bool) -> _Mapped:
    name = _event_name(event)
    sigma = _nonneg(event, "noise_multiplier", allow_inf=True)
    counts = _field(event, "step_counts")
    many = isinstance(counts, (list, tuple)) or (hasattr(counts, "__len__")
                                                 and not isinstance(counts, str))
    steps = [_validate.positive_int(f"{name}.step_counts", c, low=0)
             for c in (counts if many else [counts])]
    if not steps:
        raise ValueError(f"{name}.step_counts must be an integer ≥ 0 or a non-empty "
                         "list of them, got []")
    _require(event, ctx, "replace_special", "tree aggregation (DP-FTRL) is analysed for "
             "replacing one record with a special zero-gradient record (Kairouz et al. "
             "2021); pass neighbouring='replace_special' (dp_accounting's REPLACE_SPECIAL) "
             "if that is the relation you need")
    if max(steps) == 0 or sigma == math.inf:
        return _leaf(Identity())
    if sigma == 0.0:
        return _NONE
    # single epoch: each record in at most one tree, μ = √(max depth)/σ (exact)
    return _leaf(tree_aggregation(sigma, steps if many else steps[0], single_epoch=True))
