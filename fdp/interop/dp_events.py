"""dp_accounting ``DpEvent`` descriptions as trade-off functions.

A ``DpEvent`` (dp_accounting, jax_privacy, TensorFlow Privacy, Flower) says *what
happened* to the data; ``from_dp_event`` says what f-DP guarantee that gives (every
event, its fdp object, status and neighbouring relation: docs/dp-events.md). Events
are read by duck typing (the class name, or the ``class_name`` field of the
``to_named_tuple()`` form, and the documented attributes), so this module neither
imports dp_accounting nor depends on its version; the leaves are mapped in
``fdp.interop.event_leaves``. Composition is ⊗ (DRS Thm 3.2); Poisson-sampled events
are composed in the add direction and symmetrised once, as ``fdp.dpsgd`` does, and
sampling without replacement is C_p(f), p = m/n (DRS Thm 4.2). Subtrees of Poisson,
truncated-Poisson and with-replacement Gaussian steps are handed to ``fdp.dpsgd`` whole,
so an event and the same run given to ``dpsgd`` get bit-identical brackets. Unknown
events and the refused cases raise ``UnsupportedEventError`` saying what to use
instead: nothing is silently approximated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fdp import _validate
from fdp.conversions.repeat_select import repeat_and_select
from fdp.families import Gaussian, Identity
from fdp.interop.event_leaves import (
    _NONE,
    _POISSON,
    Event,
    Sampler,
    Step,
    UnsupportedEventError,
    _Context,
    _discrete_gaussian,
    _discrete_laplace,
    _epsilon_delta,
    _event_name,
    _exponential,
    _field,
    _gaussian,
    _is_identity,
    _laplace,
    _leaf,
    _Mapped,
    _mixture,
    _non_private,
    _nonneg,
    _noop,
    _permute_and_flip,
    _randomized_response,
    _ratio,
    _relation,
    _require,
    _sensitivity,
    _tree,
    _truncated,
    _zcdp,
    no_privacy,
)
from fdp.operations import compose
from fdp.sgd.allocation import random_allocation
from fdp.sgd.certified import SAMPLERS, dpsgd
from fdp.tradeoff import TradeOff

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


@_validate.british_spelling
def from_dp_event(event: Event, neighbouring: str = "add_remove", *,
                  replace_one_sensitivity: float = 2.0) -> TradeOff:
    """The f-DP guarantee of a dp_accounting ``DpEvent`` (see the module docstring).

    Parameters
    ----------
    event : dp_accounting.DpEvent
        Any event (or its ``to_named_tuple()`` form); read by class name and attributes.
    neighbouring : {"add_remove", "replace_one", "replace_special"}
        The relation the guarantee is for (each event's: docs/dp-events.md), or
        dp_accounting's ``NeighboringRelation`` member of that name.
    replace_one_sensitivity : float in (0, 2]
        Under "replace_one", the sensitivity of the noised sum in units of the bound C
        on one record's contribution: 2 (default; replacing a record moves Σ v_i by up
        to 2C) or 1 when the noise multiplier is already relative to the replace-one
        sensitivity (dp_accounting's convention). Ignored under "add_remove".

    Returns a closed form where one exists (``Gaussian``, ``EpsDelta``, ...), otherwise
    a numeric trade-off with a certified bracket.

    Raises
    ------
    UnsupportedEventError
        For an event with no f-DP meaning here, naming what to use instead.

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

    Walks the event without any numeric work (no composition is formed); the
    parameters are those of ``from_dp_event``.

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


# The largest number of steps a DP-SGD-shaped tree with several distinct (σ, q) is
# expanded to per-step arrays for ``fdp.dpsgd`` (beyond it the tree is composed factor
# by factor, certified all the same).
_MAX_EXPANDED_STEPS = 10**7


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
    inner = _gaussian_inside(event, ctx, build, b == 0, "fdp's bound for sampling with "
                             "replacement (k copies of the record shift the Gaussian mean by "
                             "k times the sensitivity) needs a GaussianDpEvent inside")
    if isinstance(inner, _Mapped):
        return inner
    if b > n:
        raise UnsupportedEventError(
            f"{name}: sample_size={b} > source_dataset_size={n}; fdp.dpsgd's "
            "sampling='with_replacement' takes a batch of at most the dataset size")
    sampler = ("with_replacement", n, None, ctx.replace_one_sensitivity)
    return _Mapped(None, steps=((inner, b / n, 1, sampler),))


def _random_allocation(event: Event, ctx: _Context, build: bool) -> _Mapped:
    name = _event_name(event)
    t = _validate.positive_int(f"{name}.num_steps", _field(event, "num_steps"))
    k = _validate.positive_int(f"{name}.num_selected", _field(event, "num_selected"), low=0)
    if k > t:
        raise ValueError(f"{name}.num_selected must lie in [0, num_steps={t}], got {k}")
    _require(event, ctx, "add_remove", "random allocation is analysed for add/remove "
             "neighbours (Chua et al. 2025; Feldman & Shenfeld 2025)")
    sigma = _gaussian_inside(event, ctx, build, k == 0, "fdp.random_allocation accounts "
                             "for Gaussian steps only; use a GaussianDpEvent inside")
    if isinstance(sigma, _Mapped):
        return sigma
    return _Mapped(None, allocation=(sigma, t, k, 1))


def _gaussian_inside(event: Event, ctx: _Context, build: bool, empty: bool,
                     why: str) -> _Mapped | float:
    """The noise multiplier of the Gaussian event inside a sampler, or the sampler's
    mapping when it releases nothing (``empty`` or Id inside) or nothing is private."""
    inner = _map(_field(event, "event"), ctx, build)
    if empty or _is_identity(inner):
        return _leaf(Identity())
    if not inner.private:
        return _NONE
    if inner.sigma is None:
        raise UnsupportedEventError(
            f"{_event_name(event)} of {_event_name(_field(event, 'event'))}: {why}")
    return inner.sigma


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



# What to use instead, for events with no certified mapping here.
_ADVICE = {
    "UnsupportedDpEvent": "the event itself declares that no DP description exists",
}


__all__ = ["UnsupportedEventError", "check_dp_event", "from_dp_event", "no_privacy"]
