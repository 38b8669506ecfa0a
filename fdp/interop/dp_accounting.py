"""dp_accounting ``DpEvent`` descriptions as trade-off functions.

A ``DpEvent`` (dp_accounting, jax_privacy, TensorFlow Privacy, Flower) says *what
happened* to the data; ``from_dp_event`` says what f-DP guarantee that gives, and
``FdpAccountant`` (a dp_accounting ``PrivacyAccountant``) lets dp_accounting's own
tools -- ``calibrate_dp_mechanism``, jax_privacy's event builders -- use it unchanged.

Events are read by duck typing: the class name (or the ``class_name`` field of an
event's ``to_named_tuple()`` form) and the documented attributes, so the mapping
neither imports dp_accounting nor depends on its version.

The mapping (Dong, Roth & Su 2022, "DRS"; each leaf's pair is exact)
---------------------------------------------------------------------
* ``GaussianDpEvent(σ)``: G_{Δ/σ} (DRS Thm 2.7). ``LaplaceDpEvent(b)``: the Laplace
  trade-off L_{Δ/b} (DRS Appendix A). Δ = 1 under add/remove; under replace-one the
  sum Σ v_i with ‖v_i‖ ≤ C moves by up to 2C when one record is replaced, so Δ =
  ``replace_one_sensitivity`` (default 2; pass 1 only if the noise multiplier was
  defined relative to the replace-one sensitivity, as dp_accounting's own accountants
  assume).
* ``DiscreteLaplaceDpEvent(a, C)``: ``fdp.DiscreteLaplace(scale=1/a, sensitivity=Δ·C)``;
  ``DiscreteGaussianDpEvent(σ, s, dimension=1)``: ``fdp.DiscreteGaussian(σ, Δ·s)``
  (Canonne, Kamath & Steinke 2020).
* ``RandomizedResponseDpEvent(p, k)`` (replace-one): k-ary randomized response with
  e^ε = (1 − p + p/k)/(p/k), i.e. ε = log(1 + k(1 − p)/p).
* ``EpsilonDeltaDpEvent(ε, δ)``: f_{ε,δ} (DRS Prop 2.5). ``PermuteAndFlipDpEvent(ε)``:
  f_{ε,0} (McKenna & Sheldon 2020 prove ε-DP). ``ExponentialMechanismDpEvent(ε)``:
  ``fdp.BoundedRange(ε)`` (ε-bounded range, Dong, Durfee & Rogers 2020; tighter than
  f_{ε,0}, which ε-bounded range also implies).
* ``ZCDpEvent(ρ, ξ)``: ``fdp.from_zcdp(ρ, ξ)``.
* ``ComposedDpEvent`` / ``SelfComposedDpEvent``: ⊗ (DRS Thm 3.2); a count of n is n
  compositions, for every event.
* ``PoissonSampledDpEvent(q, E)`` (add/remove): adding a record changes the output law
  from P to (1 − q)P + qQ, so the *add* direction is f_q = q f + (1 − q) Id (Zhu, Dong &
  Wang 2022, Thm 11). As ``fdp.dpsgd`` does (Bu et al. 2020), the add directions of all
  events are composed and the result is symmetrised once, min{F, F⁻¹}**: the remove
  direction of the composition is ⊗ f_i⁻¹ = F⁻¹, and an event valid for both orders
  (f_i) is also valid as f_i⁻¹ (T(Q, P) ≥ f ⇒ T(P, Q) ≥ f⁻¹). This is much tighter
  than symmetrising each step.
* ``SampledWithoutReplacementDpEvent(n, m, E)`` (replace-one): C_p(f) with p = m/n
  (DRS Thm 4.2).
* ``SampledWithReplacementDpEvent(n, b, GaussianDpEvent(σ))`` (replace-one):
  ``fdp.dpsgd(σ, b/n, 1, sampling="with_replacement", dataset_size=n)`` with
  sensitivity Δ (k copies of the record shift the mean by kΔ; derivation in
  ``fdp.sgd.certified``); a batch larger than n, or another inner event, is refused.
* ``TruncatedSubsampledGaussianDpEvent(n, q, B, σ)`` (add/remove; n counts the
  record, as in dp_accounting): ``fdp.dpsgd(σ, q, 1, sampling="truncated_poisson",
  dataset_size=n, batch_cap=min(B, n))`` -- a cap of n never truncates. The event
  split is dp_accounting's; fdp's second part is tighter (``fdp.sgd.certified``).
* ``MixtureOfGaussiansDpEvent(σ, c, p)`` (add/remove): ``fdp.MixtureOfGaussians(σ,
  c, p)`` = T(N(0, σ²), Σ p_i N(c_i, σ²)), the add direction (Choquette-Choo, Ganesh,
  Steinke & Thakurta 2024, §4), symmetrised once like Poisson sampling.
* ``RandomAllocationDpEvent(GaussianDpEvent(σ), k, t)`` (dp_accounting main,
  add/remove): ``fdp.random_allocation(σ, t, k)``; a self-composition of E is
  ``epochs=E`` (Chua et al. 2025; Feldman & Shenfeld 2025).
* ``SingleEpochTreeAggregationDpEvent(σ, T or [T_1, …])`` (replace-special only):
  ``fdp.sgd.matrix_factorization.tree_aggregation(σ, T, single_epoch=True)``, the
  exact G_{√(max depth)/σ} (Kairouz et al. 2021, App. D).
* ``RepeatAndSelectDpEvent(event, mean, shape)``: ``repeat_and_select(f, mean,
  shape)`` of the inner event's guarantee f (Papernot & Steinke 2022, via its
  certified Rényi curve; ``fdp.conversions.repeat_select``). The inner event must be
  built of Gaussian, Laplace, randomized-response, ε-DP and Poisson-sampled Gaussian
  events (those curves fdp certifies); others are refused, in dry runs too.
* Subtrees of Poisson / truncated-Poisson / with-replacement Gaussian steps are handed
  to ``fdp.dpsgd`` whole (one call when they share a sampler); several samplers
  compose group by group, a non-Poisson group as its symmetric ``dpsgd`` curve.
* ``NoOpDpEvent``: Id. ``NonPrivateDpEvent`` (and a zero noise parameter): no privacy,
  the zero trade-off function (ε = ∞).

Neighbouring relations: "add_remove", "replace_one" (sensitivity
``replace_one_sensitivity``) and "replace_special" (one record replaced by a special
record contributing zero, Δ = 1; only tree aggregation, additive Gaussian/Laplace
noise, stated guarantees and their compositions are accepted under it). An event
analysed under another relation than the one asked for raises
``UnsupportedEventError`` naming the relation to use.

Parameters derived by floating-point arithmetic (1/σ, m/n, the randomized-response ε)
are rounded one ulp toward less privacy, so a rounding error never helps the answer.
``UnsupportedDpEvent``, unknown events, and the cases above that are refused raise
``UnsupportedEventError`` saying what is not supported and what to use instead:
nothing is silently approximated.
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
from fdp.operations import compose
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff

#: A dp_accounting ``DpEvent`` (or its named-tuple form), read by duck typing.
Event = Any

NEIGHBOURING = ("add_remove", "replace_one", "replace_special")

# dp_accounting's NeighboringRelation member names -> ours
_RELATION_NAMES = {"ADD_OR_REMOVE_ONE": "add_remove", "REPLACE_ONE": "replace_one",
                   "REPLACE_SPECIAL": "replace_special"}

# The events accounted for under "replace_special" (one record replaced by a special
# record that contributes nothing): tree aggregation, the additive-noise leaves (a
# noised sum moves by one record's contribution, Δ = 1), the leaves that state their
# own guarantee, and structure. Sampling events are analysed for other relations.
_REPLACE_SPECIAL_EVENTS = frozenset({
    "NoOpDpEvent", "NonPrivateDpEvent", "GaussianDpEvent", "LaplaceDpEvent",
    "EpsilonDeltaDpEvent", "ExponentialMechanismDpEvent", "PermuteAndFlipDpEvent",
    "ZCDpEvent", "ComposedDpEvent", "SelfComposedDpEvent",
    "SingleEpochTreeAggregationDpEvent", "RepeatAndSelectDpEvent",
})


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


@_validate.british_spelling
def from_dp_event(event: Event, neighbouring: str = "add_remove", *,
                  replace_one_sensitivity: float = 2.0) -> TradeOff:
    """The f-DP guarantee of a dp_accounting ``DpEvent`` (see the module docstring).

    Parameters
    ----------
    event : dp_accounting.DpEvent
        Any event (or its ``to_named_tuple()`` form); read by class name and attributes.
    neighbouring : {"add_remove", "replace_one", "replace_special"}
        The neighbouring relation the guarantee is for. Poisson sampling needs
        "add_remove"; sampling without replacement and randomized response need
        "replace_one" (DRS Thm 4.2); tree aggregation needs "replace_special".
        dp_accounting's ``NeighboringRelation`` members ``ADD_OR_REMOVE_ONE`` /
        ``REPLACE_ONE`` / ``REPLACE_SPECIAL`` are accepted too.
    replace_one_sensitivity : float in (0, 2]
        Under "replace_one", the sensitivity of the noised sum in units of the bound C
        on one record's contribution: 2 (default; replacing a record moves Σ v_i by up
        to 2C) or 1 when the noise multiplier is already relative to the replace-one
        sensitivity (dp_accounting's convention). Ignored under "add_remove".

    Returns
    -------
    TradeOff
        Closed form where one exists (``Gaussian``, ``EpsDelta``, ...), otherwise a
        numeric trade-off with a certified bracket (``f.epsilon(δ)`` is the certified
        upper ε, ``f.epsilon_bounds(δ)`` both sides).

    Raises
    ------
    UnsupportedEventError
        For an event with no f-DP meaning here; the message names the event and what
        to use instead.
    TypeError
        For the US spelling ``neighboring=`` (the message names ``neighbouring=``).

    References
    ----------
    Dong, Roth & Su, "Gaussian Differential Privacy", JRSS-B 2022 (Thm 2.7, 3.2, 4.2);
    Zhu, Dong & Wang, "Optimal accounting of differential privacy via characteristic
    function", AISTATS 2022 (Thm 11); Bu, Dong, Long & Su, "Deep learning with Gaussian
    differential privacy", HDSR 2020.

    Examples
    --------
    >>> import dp_accounting, fdp
    >>> fdp.from_dp_event(dp_accounting.GaussianDpEvent(2.0))       # σ = 2, sensitivity 1
    Gaussian(mu=0.5)
    >>> step = dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.GaussianDpEvent(3.0))
    >>> f = fdp.from_dp_event(dp_accounting.SelfComposedDpEvent(step, 512))
    >>> lo, hi = f.epsilon_bounds(1e-6)
    >>> print(f"{lo:.4f} <= eps <= {hi:.4f}")
    3.7685 <= eps <= 3.7702
    """
    ctx = _Context(_relation(neighbouring), _sensitivity(replace_one_sensitivity))
    return _finish(_map(event, ctx, build=True))


@_validate.british_spelling
def check_dp_event(event: Event, neighbouring: str = "add_remove", *,
                   replace_one_sensitivity: float = 2.0) -> None:
    """Raise ``UnsupportedEventError`` (or ``ValueError``) if ``from_dp_event`` would.

    Walks the event without any numeric work (no composition is formed).

    Parameters
    ----------
    event : dp_accounting DpEvent
        The event (read by class name and attributes).
    neighbouring : str, optional
        As in ``from_dp_event``.
    replace_one_sensitivity : float, optional
        As in ``from_dp_event``.

    Returns
    -------
    None

    Raises
    ------
    UnsupportedEventError
        For an event with no f-DP meaning here.
    ValueError
        For a parameter out of range.

    Examples
    --------
    >>> import dp_accounting
    >>> from fdp.interop.dp_accounting import check_dp_event
    >>> step = dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.GaussianDpEvent(3.0))
    >>> check_dp_event(dp_accounting.SelfComposedDpEvent(step, 10**6)) is None
    True
    """
    ctx = _Context(_relation(neighbouring), _sensitivity(replace_one_sensitivity))
    _map(event, ctx, build=False)


def __getattr__(name: str) -> type:
    # FdpAccountant subclasses dp_accounting's PrivacyAccountant, so it is defined
    # (and dp_accounting imported) only when asked for.
    if name == "FdpAccountant":
        cls = _accountant_class()
        globals()["FdpAccountant"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _accountant_class() -> type:
    """Define ``FdpAccountant`` on dp_accounting's base class (imported here, on first use)."""
    try:
        from dp_accounting import privacy_accountant as _pa
    except ModuleNotFoundError as exc:
        if exc.name != "dp_accounting":
            raise
        raise ImportError("FdpAccountant needs dp_accounting: pip install "
                          "'fdp[interop]' (or dp-accounting)") from exc
    relation = _pa.NeighboringRelation

    class FdpAccountant(_pa.PrivacyAccountant):
        """A dp_accounting ``PrivacyAccountant`` whose answers are fdp's certified bounds.

        ``get_epsilon(δ)`` is the certified UPPER ε and ``get_delta(ε)`` the certified
        upper δ of the composed trade-off function (``epsilon_bounds(δ)`` gives both
        sides), so ``dp_accounting.calibrate_dp_mechanism`` returns parameters whose
        certified guarantee meets the target. Events map as in ``from_dp_event``; a
        ``SelfComposedDpEvent`` (or ``compose(event, count)``) of n is always n
        compositions.

        Parameters
        ----------
        neighboring_relation : dp_accounting.NeighboringRelation
            ``ADD_OR_REMOVE_ONE`` (default), ``REPLACE_ONE`` or ``REPLACE_SPECIAL``
            (tree aggregation).
        replace_one_sensitivity : float in (0, 2]
            As in ``fdp.from_dp_event`` (default 2: replacing a record moves a sum of
            records with norm ≤ C by up to 2C).

        Examples
        --------
        >>> import dp_accounting
        >>> from fdp.interop.dp_accounting import FdpAccountant
        >>> step = dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.GaussianDpEvent(3.0))
        >>> eps = FdpAccountant().compose(step, 512).get_epsilon(1e-6)   # certified upper ε
        >>> print(f"{eps:.4f}")
        3.7702
        """

        def __init__(self, neighboring_relation: Any = relation.ADD_OR_REMOVE_ONE, *,
                     replace_one_sensitivity: float = 2.0) -> None:
            if not isinstance(neighboring_relation, relation):
                raise TypeError("neighboring_relation must be a dp_accounting NeighboringRelation "
                                f"(ADD_OR_REMOVE_ONE or REPLACE_ONE), got {neighboring_relation!r}")
            self._ctx = _Context(_relation(neighboring_relation),
                                 _sensitivity(replace_one_sensitivity))
            super().__init__(neighboring_relation)
            self._tradeoff: TradeOff | None = None

        # -- PrivacyAccountant -------------------------------------------------
        def _maybe_compose(self, event: Event, count: int, do_compose: bool) -> Any:
            try:
                _validate.positive_int("count", count, low=0)
                _map(event, self._ctx, build=False)
            except (UnsupportedEventError, ValueError, TypeError) as exc:
                return self.CompositionErrorDetails(invalid_event=event, error_message=str(exc))
            if do_compose:
                self._tradeoff = None  # the ledger changed; re-derive on the next query
            return None

        def get_epsilon(self, target_delta: float) -> float:
            """Certified upper ε at δ = ``target_delta`` (inf if no finite ε reaches it)."""
            return float(self.tradeoff.epsilon(_target_delta(target_delta)))

        def get_delta(self, target_epsilon: float) -> float:
            """Certified upper δ at ε = ``target_epsilon``."""
            eps = _validate.real("target_epsilon", target_epsilon, low=0.0, allow_inf=True)
            return float(self.tradeoff.delta(eps))

        # -- extras --------------------------------------------------------------
        def epsilon_bounds(self, target_delta: float) -> tuple[float, float]:
            """(lower, upper) ε at δ: the true ε of the composed events lies inside."""
            lo, hi = self.tradeoff.epsilon_bounds(_target_delta(target_delta))
            return float(lo), float(hi)

        @property
        def tradeoff(self) -> TradeOff:
            """The f-DP guarantee of everything composed so far (``fdp.from_dp_event``)."""
            if self._tradeoff is None:
                t = _finish(_map(self.ledger, self._ctx, build=True))
                require_guarantee(t, "FdpAccountant")
                self._tradeoff = t
            return self._tradeoff

    FdpAccountant.__module__ = __name__
    FdpAccountant.__qualname__ = "FdpAccountant"
    return FdpAccountant


def _target_delta(value: object) -> float:
    return _validate.real("target_delta", value, low=0.0, high=1.0)


# ----------------------------------------------------------------------
# Internals
# ----------------------------------------------------------------------
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

# The largest number of steps a DP-SGD-shaped tree with several distinct (σ, q) is
# expanded to per-step arrays for ``fdp.dpsgd`` (beyond it the tree is composed factor
# by factor, certified all the same).
_MAX_EXPANDED_STEPS = 10**7


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


def _map(event: Event, ctx: _Context, build: bool) -> _Mapped:
    """The guarantee of one event, by its dp_accounting class name (events are read by
    duck typing, so the name is the only type information there is)."""
    name = _event_name(event)
    if ctx.relation == "replace_special" and name not in _REPLACE_SPECIAL_EVENTS:
        raise UnsupportedEventError(
            f"{name} under neighbouring='replace_special': fdp accounts for tree "
            "aggregation, additive Gaussian/Laplace noise, stated (ε, δ)/zCDP/ε-DP "
            "guarantees and their compositions under that relation; "
            f"{name} is analysed under 'add_remove' or 'replace_one'")
    match name:
        case "NoOpDpEvent":
            return _noop(event, ctx, build)
        case "NonPrivateDpEvent":
            return _non_private(event, ctx, build)
        case "GaussianDpEvent":
            return _gaussian(event, ctx, build)
        case "LaplaceDpEvent":
            return _laplace(event, ctx, build)
        case "DiscreteLaplaceDpEvent":
            return _discrete_laplace(event, ctx, build)
        case "DiscreteGaussianDpEvent":
            return _discrete_gaussian(event, ctx, build)
        case "RandomizedResponseDpEvent":
            return _randomized_response(event, ctx, build)
        case "EpsilonDeltaDpEvent":
            return _epsilon_delta(event, ctx, build)
        case "ExponentialMechanismDpEvent":
            return _exponential(event, ctx, build)
        case "PermuteAndFlipDpEvent":
            return _permute_and_flip(event, ctx, build)
        case "ZCDpEvent":
            return _zcdp(event, ctx, build)
        case "SelfComposedDpEvent":
            return _self_composed(event, ctx, build)
        case "ComposedDpEvent":
            return _composed(event, ctx, build)
        case "PoissonSampledDpEvent":
            return _poisson(event, ctx, build)
        case "SampledWithoutReplacementDpEvent":
            return _without_replacement(event, ctx, build)
        case "SampledWithReplacementDpEvent":
            return _with_replacement(event, ctx, build)
        case "TruncatedSubsampledGaussianDpEvent":
            return _truncated(event, ctx, build)
        case "MixtureOfGaussiansDpEvent":
            return _mixture(event, ctx, build)
        case "RandomAllocationDpEvent":
            return _random_allocation(event, ctx, build)
        case "SingleEpochTreeAggregationDpEvent":
            return _tree(event, ctx, build)
        case "RepeatAndSelectDpEvent":
            return _repeat_select(event, ctx, build)
    advice = _ADVICE.get(name)
    if advice is None:
        raise UnsupportedEventError(
            f"{name} is not a DpEvent fdp knows how to account for; supported: "
            f"{', '.join(SUPPORTED_EVENTS)}. Describe the mechanism with those events, or "
            "build its TradeOff directly (fdp.from_pair, fdp.from_privacy_profile)")
    raise UnsupportedEventError(f"{name} is not supported by fdp's DpEvent adapter: {advice}")


#: The dp_accounting events ``_map`` accounts for.
SUPPORTED_EVENTS = (
    "ComposedDpEvent", "DiscreteGaussianDpEvent", "DiscreteLaplaceDpEvent",
    "EpsilonDeltaDpEvent", "ExponentialMechanismDpEvent", "GaussianDpEvent", "LaplaceDpEvent",
    "MixtureOfGaussiansDpEvent", "NoOpDpEvent", "NonPrivateDpEvent", "PermuteAndFlipDpEvent",
    "PoissonSampledDpEvent", "RandomAllocationDpEvent", "RandomizedResponseDpEvent",
    "SampledWithReplacementDpEvent", "SampledWithoutReplacementDpEvent",
    "RepeatAndSelectDpEvent", "SelfComposedDpEvent", "SingleEpochTreeAggregationDpEvent",
    "TruncatedSubsampledGaussianDpEvent", "ZCDpEvent",
)


def _finish(m: _Mapped) -> TradeOff:
    """The guarantee of a walk built with ``build=True``."""
    if not m.private:
        return no_privacy()
    if m.steps is not None:
        run = _dpsgd_run(m.steps)
        if run is not None:
            return run
    f = _built(m)
    if m.directional:
        return f.symmetrize(one_sided=True)
    return f


def _dpsgd_run(steps: tuple[Step, ...]) -> TradeOff | None:
    """``fdp.dpsgd`` of subsampled Gaussian steps (σ, q, n, sampler) when they share
    one sampler, or None (several samplers, or too many steps to list per step)."""
    if len({sampler for *_, sampler in steps}) != 1:
        return None
    total = sum(n for _, _, n, _ in steps)
    if len({(s, q) for s, q, _, _ in steps}) == 1:
        return _dpsgd(steps[0][0], steps[0][1], total, steps[0][3])
    if total > _MAX_EXPANDED_STEPS:
        return None
    counts = [n for _, _, n, _ in steps]
    sigma = np.repeat([s for s, _, _, _ in steps], counts)
    rate = np.repeat([q for _, q, _, _ in steps], counts)
    return _dpsgd(sigma, rate, total, steps[0][3])


def _dpsgd(sigma: Any, rate: Any, steps: int, sampler: Sampler) -> TradeOff:
    """``fdp.dpsgd`` with the sampler's relation and options."""
    from fdp.sgd.certified import SAMPLERS, dpsgd
    name, dataset_size, batch_cap, sensitivity = sampler
    return dpsgd(sigma, rate, steps, sampling=name, neighbouring=SAMPLERS[name][0],
                 sensitivity=sensitivity, dataset_size=dataset_size, batch_cap=batch_cap)


def _built(m: _Mapped) -> TradeOff:
    """``m.f``; or, for a subtree kept as a DP-SGD run or a random allocation, the
    trade-off function it stands for.

    A run with several samplers is composed group by group: a Poisson group as its
    add direction (G_{1/σ} subsampled, ``direction="add"``), the others as their
    symmetric ``fdp.dpsgd`` curve (valid for both orders, hence also as the add
    direction); the result is symmetrised once by ``_finish``.
    """
    if m.f is not None:
        return m.f
    if m.allocation is not None:
        from fdp.sgd.allocation import random_allocation
        sigma, t, k, epochs = m.allocation
        return random_allocation(sigma, t, k, epochs)
    if m.steps is None:
        raise RuntimeError("internal: _finish needs a tree mapped with build=True")
    parts = []
    for s, q, n, sampler in m.steps:
        if sampler == _POISSON:
            parts.append(Gaussian(_ratio(1.0, s, up=True)).subsample(q, direction="add") ** n)
        else:
            parts.append(_dpsgd(s, q, n, sampler))
    return parts[0] if len(parts) == 1 else compose(*parts)


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


# -- structure ------------------------------------------------------------
def _self_composed(event: Event, ctx: _Context, build: bool) -> _Mapped:
    count = _validate.positive_int(f"{_event_name(event)}.count", _field(event, "count"), low=0)
    inner = _map(_field(event, "event"), ctx, build)
    if count == 0:
        return _leaf(Identity())
    if not inner.private:
        return _NONE
    if inner.steps is not None:
        return _Mapped(None, inner.directional,
                       steps=tuple((s, q, n * count, w) for s, q, n, w in inner.steps))
    if inner.allocation is not None:    # E epochs of random allocation
        sigma, t, k, epochs = inner.allocation
        return _Mapped(None, allocation=(sigma, t, k, epochs * count))
    return _Mapped(_built(inner) ** count if build else None, inner.directional)


def _composed(event: Event, ctx: _Context, build: bool) -> _Mapped:
    parts = [_map(e, ctx, build) for e in _field(event, "events")]
    if any(not m.private for m in parts):
        return _NONE
    if not parts:
        return _leaf(Identity())
    directional = any(m.directional for m in parts)
    if not build:
        return _Mapped(None, directional)
    if all(m.steps is not None for m in parts):
        return _Mapped(None, directional, steps=tuple(t for m in parts for t in m.steps or ()))
    fs = [_built(m) for m in parts]
    return _Mapped(fs[0] if len(fs) == 1 else compose(*fs), directional)


def _poisson(event: Event, ctx: _Context, build: bool) -> _Mapped:
    q = _validate.probability(f"{_event_name(event)}.sampling_probability",
                              _field(event, "sampling_probability"))
    if ctx.relation != "add_remove":
        raise UnsupportedEventError(
            f"{_event_name(event)}: Poisson sampling is analysed for add/remove neighbours; "
            "use neighbouring='add_remove' (or SampledWithoutReplacementDpEvent for "
            "replace-one)")
    inner = _map(_field(event, "event"), ctx, build)
    if q == 0.0:
        return _leaf(Identity())
    if q == 1.0 or not inner.private:
        return inner  # every record is sampled (no private event: trivially safe)
    if not build:
        return _Mapped(None, True)
    if inner.sigma is not None:         # a DP-SGD step: composed by fdp.dpsgd at the end
        return _Mapped(None, True, steps=((inner.sigma, q, 1, _POISSON),))
    return _Mapped(_built(inner).subsample(q, sampling="poisson", direction="add"), True)


def _without_replacement(event: Event, ctx: _Context, build: bool) -> _Mapped:
    n = _validate.positive_int(f"{_event_name(event)}.source_dataset_size",
                               _field(event, "source_dataset_size"))
    m = _validate.positive_int(f"{_event_name(event)}.sample_size",
                               _field(event, "sample_size"), low=0)
    if m > n:
        raise ValueError(f"{_event_name(event)}.sample_size must lie in [0, "
                         f"source_dataset_size={n}], got {m}")
    if ctx.relation != "replace_one":
        raise UnsupportedEventError(
            f"{_event_name(event)}: sampling without replacement is analysed for replace-one "
            "neighbours (DRS Thm 4.2); use neighbouring='replace_one' (or "
            "PoissonSampledDpEvent for add/remove)")
    inner = _map(_field(event, "event"), ctx, build)
    if m == 0:
        return _leaf(Identity())
    if not inner.private:
        return _NONE
    if not build:
        return _Mapped(None)
    p = _ratio(m, n, up=True)
    return _Mapped(_built(inner).subsample(p, sampling="without_replacement"))




def _with_replacement(event: Event, ctx: _Context, build: bool) -> _Mapped:
    name = _event_name(event)
    n = _validate.positive_int(f"{name}.source_dataset_size", _field(event, "source_dataset_size"))
    b = _validate.positive_int(f"{name}.sample_size", _field(event, "sample_size"), low=0)
    _require(event, ctx, "replace_one", "sampling with replacement is analysed for "
             "replace-one neighbours (fdp.dpsgd, sampling='with_replacement')")
    inner = _map(_field(event, "event"), ctx, build)
    if b == 0 or _is_identity(inner):
        return _leaf(Identity())
    if not inner.private:
        return _NONE
    if inner.sigma is None:
        raise UnsupportedEventError(
            f"{name} of {_event_name(_field(event, 'event'))}: fdp's bound for sampling with "
            "replacement (k copies of the record shift the Gaussian mean by k times the "
            "sensitivity) needs a GaussianDpEvent inside")
    if b > n:
        raise UnsupportedEventError(
            f"{name}: sample_size={b} > source_dataset_size={n}; fdp.dpsgd's "
            "sampling='with_replacement' takes a batch of at most the dataset size")
    sampler = ("with_replacement", n, None, ctx.replace_one_sensitivity)
    return _Mapped(None, steps=((inner.sigma, b / n, 1, sampler),))


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


def _random_allocation(event: Event, ctx: _Context, build: bool) -> _Mapped:
    name = _event_name(event)
    t = _validate.positive_int(f"{name}.num_steps", _field(event, "num_steps"))
    k = _validate.positive_int(f"{name}.num_selected", _field(event, "num_selected"), low=0)
    if k > t:
        raise ValueError(f"{name}.num_selected must lie in [0, num_steps={t}], got {k}")
    _require(event, ctx, "add_remove", "random allocation is analysed for add/remove "
             "neighbours (Chua et al. 2025; Feldman & Shenfeld 2025)")
    inner = _map(_field(event, "event"), ctx, build)
    if k == 0 or _is_identity(inner):
        return _leaf(Identity())
    if not inner.private:
        return _NONE
    if inner.sigma is None:
        raise UnsupportedEventError(
            f"{name} of {_event_name(_field(event, 'event'))}: fdp.random_allocation "
            "accounts for Gaussian steps only; use a GaussianDpEvent inside")
    return _Mapped(None, allocation=(inner.sigma, t, k, 1))


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
    from fdp.sgd.matrix_factorization import tree_aggregation
    # single epoch: each record in at most one tree, μ = √(max depth)/σ (exact)
    return _leaf(tree_aggregation(sigma, steps if many else steps[0], single_epoch=True))


def _repeat_select(event: Event, ctx: _Context, build: bool) -> _Mapped:
    name = _event_name(event)
    mean = _validate.real(f"{name}.mean", _field(event, "mean"), low=1.0)
    shape = _nonneg(event, "shape", allow_inf=True)
    inner_event = _field(event, "event")
    inner = _map(inner_event, ctx, build)
    if not inner.private:
        return _NONE
    if _is_identity(inner):
        return _leaf(Identity())
    without = _without_renyi_curve(inner_event)
    if without is not None:
        raise UnsupportedEventError(
            f"{name} of {_event_name(inner_event)}: the selection is accounted for through "
            f"the certified Rényi curve of one run (Papernot & Steinke 2022), which fdp "
            f"has for {', '.join(sorted(_RENYI_LEAVES))}, Poisson-sampled Gaussian steps "
            f"and their compositions, not for {without}")
    if not build:
        return _Mapped(None)
    from fdp.conversions.repeat_select import repeat_and_select
    one_run = _finish(inner)            # the inner event's two-sided guarantee
    try:
        return _leaf(repeat_and_select(one_run, mean, shape))
    except ValueError as exc:           # mean and shape are valid: the run has no
        raise UnsupportedEventError(    # certified Rényi curve to select from
            f"{name} of {_event_name(_field(event, 'event'))}: {exc}") from exc


# Leaves whose fdp guarantee carries a certified Rényi curve (what repeat_and_select
# reads): Gaussian, Laplace, randomized response, pure ε-DP (EpsDelta(ε, 0)), Id.
_RENYI_LEAVES = frozenset({"GaussianDpEvent", "LaplaceDpEvent", "RandomizedResponseDpEvent",
                           "PermuteAndFlipDpEvent", "NoOpDpEvent"})


def _without_renyi_curve(event: Event) -> str | None:
    """The first sub-event (by name) whose guarantee has no certified Rényi curve in
    fdp, or None. The one gate for repeat-and-select, in dry runs and builds alike."""
    name = _event_name(event)
    if name in _RENYI_LEAVES:
        return None
    if name == "EpsilonDeltaDpEvent":
        return None if _field(event, "delta") == 0 else f"{name} with delta > 0"
    if name == "SelfComposedDpEvent":
        return _without_renyi_curve(_field(event, "event"))
    if name == "ComposedDpEvent":
        return next((w for w in map(_without_renyi_curve, _field(event, "events"))
                     if w is not None), None)
    if name == "PoissonSampledDpEvent":
        inner = _field(event, "event")
        if _event_name(inner) == "GaussianDpEvent":
            return None
        return f"{name} of {_event_name(inner)}"
    return name


def _is_identity(m: _Mapped) -> bool:
    """The walked event releases nothing about the record (Id)."""
    return m.private and isinstance(m.f, Identity)


def _require(event: Event, ctx: _Context, relation: str, why: str) -> None:
    """UnsupportedEventError unless the accounting runs under ``relation``."""
    if ctx.relation != relation:
        raise UnsupportedEventError(
            f"{_event_name(event)} under neighbouring={ctx.relation!r}: {why}; use "
            f"neighbouring={relation!r}")


# What to use instead, for events with no certified mapping here.
_ADVICE = {
    "UnsupportedDpEvent": "the event itself declares that no DP description exists",
}


# FdpAccountant is provided by the module __getattr__ above (it imports dp_accounting).
__all__ = ["FdpAccountant", "UnsupportedEventError", "check_dp_event",  # noqa: F822
           "from_dp_event"]
