"""Does the accounting describe the training loop that was run?

A DP-SGD guarantee is a statement about one mechanism; an accountant computes it from
a few numbers (σ, q, T, the sampler, the neighbouring relation, the sensitivity). A
``Loop`` records the loop as run, in the terms training code uses; ``loop_accounting``
returns the fdp call that accounts exactly that loop, and ``check_loop`` compares it
with the call that was accounted, raising ``LoopMismatch`` (a ``ValueError``) that
names each differing input, the right call and, given δ, both ε.

Poisson micro-batches are ``dpsgd(σ, q, T)`` under add/remove (with k accumulated per
update ``examples_per_user=k``, not Poisson at k·q) and ``dpsgd(σ, q, T,
"without_replacement", "replace_one")`` under replace-one; fixed-size batches without
replacement are the latter; B draws with replacement ``dpsgd(σ, b/n, T,
"with_replacement", "replace_one", dataset_size=n)``, weighted draws the same at n' =
⌊1/max p_i⌋ (weights fixed before training). Shuffled, sequential or weighted
without-replacement batches certify no amplification: ``fdp.Gaussian(mu=s·√(J·E)/σ)``
(``dpsgd(..., sampling="shuffle")`` is a LOWER curve, never this guarantee). Noise
σ_m·C on a mean over b records is σ = σ_m·b on the sum; dividing by a Poisson batch's
realised size, or by ⌊n·q⌋ under add/remove when n ± 1 gives another divisor (Opacus
#571, #819), is refused. Derivation: docs/derivations/dpsgd-samplers.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fdp import _validate
from fdp.families.gaussian import Gaussian
from fdp.sgd.certified import DEFAULT_SENSITIVITY, SAMPLERS, dpsgd
from fdp.status import NotAGuarantee
from fdp.tradeoff import TradeOff

#: The samplers a ``Loop`` describes (the "shuffle" row covers every sampler that puts
#: each record in at most one micro-batch per epoch).
LOOP_SAMPLERS = ("poisson", "shuffle", "without_replacement", "with_replacement", "weighted")
RELATIONS = tuple(DEFAULT_SENSITIVITY)
#: ``dpsgd`` keywords an accounted call may give, with their defaults.
DPSGD_DEFAULTS: dict[str, Any] = {"sampling": "poisson", "neighbouring": "add_remove",
                                  "sensitivity": None, "dataset_size": None,
                                  "examples_per_user": 1}
RTOL = 1e-9


@dataclass(frozen=True)
class Loop:
    """A DP-SGD training loop as it was run.

    Parameters
    ----------
    dataset_size, batch_size
        n ≥ 1 records; B ∈ (0, n] per micro-batch (expected, may be fractional, for
        Poisson; a whole number for the other samplers).
    sampler : str
        One of ``LOOP_SAMPLERS``: "poisson", "shuffle" (each record in at most one
        micro-batch per epoch), "without_replacement" (independent uniform B-subsets),
        "with_replacement" (B uniform draws), "weighted" (B weighted draws with
        replacement; needs ``max_weight_share`` = max_i w_i/Σw ∈ (0, 1]).
    noise_multiplier, updates, accumulation
        σ > 0 (noise std / clipping norm on what ``noise_on`` names, "sum" as Opacus
        or "mean"), T ≥ 0 noisy optimizer updates (what Opacus counts), k ≥ 1
        micro-batches summed into each update.
    mean_divisor : None, float or str
        What the update is divided by: None (nothing), a public constant, "expected"
        (⌊n·q⌋·k, Opacus' ``loss_reduction="mean"``) or "batch" (the realised size).
    batches_per_epoch : int, optional
        Micro-batches per epoch for "shuffle" (default ⌈n/B⌉).

    Examples
    --------
    >>> from fdp.sgd.loop_check import Loop
    >>> Loop(1000, 10, "poisson", noise_multiplier=1.0, updates=100).sample_rate
    0.01
    """

    dataset_size: int
    batch_size: float
    sampler: str
    noise_multiplier: float
    updates: int
    accumulation: int = 1
    neighbouring: str = "add_remove"
    noise_on: str = "sum"
    mean_divisor: float | str | None = None
    max_weight_share: float | None = None
    batches_per_epoch: int | None = None

    def __post_init__(self) -> None:
        n = _validate.positive_int("dataset_size", self.dataset_size)
        b = _validate.real("batch_size", self.batch_size, low=0.0, high=n, low_open=True)
        _choice("sampler", self.sampler, LOOP_SAMPLERS)
        _choice("neighbouring", self.neighbouring, RELATIONS)
        _choice("noise_on", self.noise_on, ("sum", "mean"))
        if self.sampler != "poisson" and not float(b).is_integer():
            raise ValueError(f"batch_size must be a whole number for sampler="
                             f"{self.sampler!r}, got {b:g}")
        _validate.real("noise_multiplier", self.noise_multiplier, low=0.0, low_open=True)
        _validate.positive_int("updates", self.updates, low=0)
        _validate.positive_int("accumulation", self.accumulation)
        d = self.mean_divisor
        if isinstance(d, str):
            _choice("mean_divisor", d, ("expected", "batch"))
        elif d is not None:
            _validate.real("mean_divisor", d, low=0.0, low_open=True)
        elif self.noise_on == "mean":
            raise ValueError("noise_on='mean' needs mean_divisor (the divisor of the mean)")
        if (self.sampler == "weighted") != (self.max_weight_share is not None):
            raise ValueError("max_weight_share is given exactly when sampler='weighted'")
        if self.max_weight_share is not None:
            _validate.real("max_weight_share", self.max_weight_share, low=0.0, high=1.0,
                           low_open=True)
        if self.batches_per_epoch is not None:
            _validate.positive_int("batches_per_epoch", self.batches_per_epoch)

    @property
    def sample_rate(self) -> float:
        """q = B/n of one micro-batch."""
        return float(self.batch_size) / self.dataset_size


@dataclass(frozen=True)
class Accounting:
    """One accounting call: ``fdp.dpsgd(**kwargs)`` or ``fdp.Gaussian(mu=...)``.

    ``kwargs`` holds only the keywords that differ from ``dpsgd``'s defaults, as
    (name, value) pairs; ``note`` says why this call matches the loop.
    """

    function: str
    kwargs: tuple[tuple[str, Any], ...]
    note: str = ""

    @property
    def call(self) -> str:
        """The call as Python text."""
        args = ", ".join(f"{k}={_validate.number(v) if not isinstance(v, str) else repr(v)}"
                         for k, v in self.kwargs)
        return f"fdp.{self.function}({args})"

    def tradeoff(self) -> TradeOff:
        """The trade-off function of the call."""
        kw = dict(self.kwargs)
        return Gaussian(kw["mu"]) if self.function == "Gaussian" else dpsgd(**kw)

    def epsilon(self, delta: float) -> float:
        """ε at δ of the call (certified upper for ``dpsgd``)."""
        return float(self.tradeoff().epsilon(_validate.probability("delta", delta)))

    def __repr__(self) -> str:
        return self.call


class NoMatchingAccounting(ValueError):
    """No fdp call accounts this loop (the message says what to change)."""


class LoopMismatch(ValueError):
    """The accounted call differs from the call that matches the loop.

    Attributes: ``fields`` (the differing inputs), ``accounted`` and ``accounting``
    (the ``Accounting`` claimed and the one matching the loop), ``accounted_epsilon`` and
    ``epsilon`` (their ε at the δ asked, else None).

    Examples
    --------
    >>> from fdp.sgd.loop_check import Loop, LoopMismatch, check_loop
    >>> loop = Loop(1000, 10, "poisson", noise_multiplier=1.0, updates=100)
    >>> try:
    ...     check_loop(loop, {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 200})
    ... except LoopMismatch as err:
    ...     print(err.fields)
    ('steps',)
    """

    def __init__(self, message: str, fields: tuple[str, ...], accounted: Accounting,
                 accounting: Accounting, accounted_epsilon: float | None = None,
                 epsilon: float | None = None) -> None:
        super().__init__(message)
        self.fields = fields
        self.accounted = accounted
        self.accounting = accounting
        self.accounted_epsilon = accounted_epsilon
        self.epsilon = epsilon

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.fields, self.accounted, self.accounting,
                             self.accounted_epsilon, self.epsilon))


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return str(value)


def _dpsgd(note: str, **kwargs: Any) -> Accounting:
    order = ("noise_multiplier", "sample_rate", "steps", *DPSGD_DEFAULTS)
    kept = tuple((k, kwargs[k]) for k in order
                 if k in kwargs and kwargs[k] != DPSGD_DEFAULTS.get(k, object()))
    return Accounting("dpsgd", kept, note)


def _sum_sigma(loop: Loop) -> float:
    """σ on the clipped SUM: the loop's σ, times the divisor when noise is on the mean."""
    if loop.noise_on == "sum":
        return float(loop.noise_multiplier)
    d = loop.mean_divisor
    k = loop.accumulation
    if d == "expected":
        d = math.floor(loop.dataset_size * loop.sample_rate) * k
    elif d == "batch":                   # fixed-size samplers only (Poisson refused)
        b, n = int(loop.batch_size), loop.dataset_size
        m = loop.batches_per_epoch or math.ceil(n / b)
        # a shuffled epoch may end in a partial micro-batch or a short update: the
        # smallest realised update sets the smallest σ on the sum
        d = b * k if loop.sampler != "shuffle" or (n % b == 0 and m % k == 0) else n % b or b
    assert isinstance(d, (int, float))
    return float(loop.noise_multiplier) * float(d)


def _refuse_divisor(loop: Loop) -> None:
    n, q = loop.dataset_size, loop.sample_rate
    if loop.mean_divisor == "batch" and loop.sampler == "poisson":
        raise NoMatchingAccounting(
            "mean_divisor='batch' with Poisson sampling: the mean over the realised batch "
            "moves by up to C (an empty or small batch) and its scale reveals the batch "
            "size (Opacus #420), so no accounting matches; divide by a public constant "
            "(mean_divisor=<number>) or the expected size")
    if loop.mean_divisor == "expected" and loop.neighbouring == "add_remove":
        divisors = {math.floor(m * q) for m in (n - 1, n, n + 1)}
        if len(divisors) > 1:
            raise NoMatchingAccounting(
                f"mean_divisor='expected' is floor(n*q), which is {sorted(divisors)} for "
                f"n = {n} - 1, {n}, {n} + 1 at q = {q:.6g}: an add/remove neighbour divides "
                "by another number and the update's scale reveals n (Opacus #571, #819); "
                "use loss_reduction='sum' and divide by a public constant, or account "
                "neighbouring='replace_one' (n fixed)")
        if not divisors - {0}:
            raise NoMatchingAccounting(f"mean_divisor='expected' is floor(n*q) = 0 at "
                                       f"n = {n}, q = {q:.6g}")


def loop_accounting(loop: Loop) -> Accounting:
    """The fdp accounting call that matches ``loop`` (see the module docstring); else
    ``NoMatchingAccounting``, naming the change to make.

    Examples
    --------
    >>> from fdp.sgd.loop_check import Loop, loop_accounting
    >>> loop = Loop(dataset_size=60000, batch_size=256, sampler="shuffle",
    ...             noise_multiplier=1.0, updates=2344)
    >>> loop_accounting(loop).call
    'fdp.Gaussian(mu=3.1622776601683795)'
    """
    _refuse_divisor(loop)
    n, k, t = loop.dataset_size, loop.accumulation, int(loop.updates)
    sigma, q = _sum_sigma(loop), loop.sample_rate
    relation = loop.neighbouring
    s = DEFAULT_SENSITIVITY[relation]
    if loop.sampler == "poisson":
        if relation == "add_remove":
            return _dpsgd("Poisson micro-batches, add/remove" + (
                f"; {k} summed per update: a record's count is Bin({k}, q)" if k > 1 else ""),
                noise_multiplier=sigma, sample_rate=q, steps=t, examples_per_user=k)
        if k > 1:
            raise NoMatchingAccounting("Poisson micro-batches accumulated (accumulation > 1) "
                                       "are accounted for add/remove neighbours only")
        return _dpsgd("Poisson batch, replace-one: the record's slot is in the batch with "
                      "probability q, C_q(G_{2/σ}) per step (DRS Thm 4.2)",
                      noise_multiplier=sigma, sample_rate=q, steps=t,
                      sampling="without_replacement", neighbouring="replace_one")
    if loop.sampler == "shuffle":
        m = loop.batches_per_epoch or math.ceil(n / loop.batch_size)
        epochs = math.ceil(t * k / m)
        span = 1 if m % k == 0 else math.ceil(k / m) + 1
        mu = s * math.sqrt(span * epochs) / sigma
        return Accounting("Gaussian", (("mu", mu),),
                          f"each record in at most one micro-batch per epoch, {epochs} "
                          f"epochs, no amplification (sensitivity {s:g}C)")
    sampling = "without_replacement" if loop.sampler == "without_replacement" \
        else "with_replacement"
    if relation != SAMPLERS[sampling][0]:
        raise NoMatchingAccounting(
            f"sampler={loop.sampler!r} draws fixed-size batches: fdp accounts it for "
            f"neighbouring={SAMPLERS[sampling][0]!r} (sensitivity "
            f"{DEFAULT_SENSITIVITY[SAMPLERS[sampling][0]]:g}C), not {relation!r}")
    b = int(loop.batch_size) * k
    if loop.sampler == "without_replacement":
        if k > 1:
            raise NoMatchingAccounting("independent without-replacement micro-batches "
                                       "accumulated (accumulation > 1) have no fdp accounting")
        return _dpsgd("fixed-size batches without replacement, replace-one (DRS Thm 4.2)",
                      noise_multiplier=sigma, sample_rate=q, steps=t,
                      sampling="without_replacement", neighbouring="replace_one")
    size = n
    if loop.sampler == "weighted":
        assert loop.max_weight_share is not None
        size = math.floor(1.0 / float(loop.max_weight_share) * (1 + RTOL))
    if b > size:
        raise NoMatchingAccounting(
            f"a batch of {b} draws with replacement, each record drawn with probability up "
            f"to 1/{size}, has no fdp accounting (needs b <= {size})")
    return _dpsgd(f"{b} draws with replacement, per-draw probability 1/{size}, replace-one",
                  noise_multiplier=sigma, sample_rate=b / size, steps=t,
                  sampling="with_replacement", neighbouring="replace_one", dataset_size=size)


def accounted_call(accounted: Mapping[str, Any] | Accounting) -> Accounting:
    """The claimed accounting: an ``Accounting`` or the keywords given to ``fdp.dpsgd``."""
    if isinstance(accounted, Accounting):
        return accounted
    if not isinstance(accounted, Mapping):
        raise TypeError(f"accounted must be a mapping of fdp.dpsgd keywords or an "
                        f"Accounting, got {type(accounted).__name__}")
    allowed = {"noise_multiplier", "sample_rate", "steps", *DPSGD_DEFAULTS}
    unknown = sorted(set(accounted) - allowed)
    missing = sorted({"noise_multiplier", "sample_rate", "steps"} - set(accounted))
    if unknown or missing:
        raise ValueError(f"accounted must give noise_multiplier, sample_rate and steps and "
                         f"only keywords in {sorted(allowed)}; unknown {unknown}, "
                         f"missing {missing}")
    return _dpsgd("as accounted", **accounted)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=RTOL)
    return bool(a == b)


def _step_mu(kw: Mapping[str, Any]) -> float:
    rel = kw.get("neighbouring", "add_remove")
    s = kw.get("sensitivity") or DEFAULT_SENSITIVITY.get(rel, 1.0)
    return float(s) / float(kw["noise_multiplier"])


def _why(field: str, loop: Loop, got: Any, want: Any) -> str:
    hint = _hint(field, loop, got, want)
    return f"{field}: accounted {_show(got)}, the loop needs {_show(want)}{hint}"


def _hint(field: str, loop: Loop, got: Any, want: Any) -> str:
    """Which known mistake a difference in ``field`` looks like ("" if none)."""
    k = loop.accumulation
    hint = ""
    if field == "steps" and got > want > 0 and float(got / want).is_integer():
        hint = (f" ({got // want}x the optimizer updates: micro-batches counted as steps, "
                "jax_privacy #288)")
    elif field == "sample_rate" and k > 1 and _same(got, loop.sample_rate):
        hint = f" (the rate of one micro-batch; an update sums {k})"
    elif field == "sample_rate" and k > 1 and _same(got, k * want):
        hint = (f" (Poisson at {k}q, as Opacus records accumulation: a record in {k} "
                f"Poisson micro-batches is counted Bin({k}, q) times, examples_per_user={k})")
    elif field == "sample_rate" and loop.sampler == "weighted":
        hint = (f" (a weighted draw picks a record with probability up to "
                f"{loop.max_weight_share:.6g}: the rate is batch x max share)")
    elif field == "sampling":
        hint = {"shuffle": " (shuffled batches are not Poisson: Opacus #80; no "
                           "amplification is certified for shuffling)",
                "weighted": " (weighted draws with replacement, Opacus #813)",
                "with_replacement": " (fixed-size draws with replacement)",
                "without_replacement": " (fixed-size batches are not Poisson: Opacus #80)",
                }.get(loop.sampler, "")
    elif field == "sensitivity/noise_multiplier":
        if loop.neighbouring == "replace_one":
            hint = " (replace-one moves the clipped sum by 2C)"
        if loop.noise_on == "mean":
            factor = _sum_sigma(loop) / float(loop.noise_multiplier)
            hint += f" (noise on the mean: sigma on the sum is {factor:g} x sigma)"
    return hint


def _show(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else repr(v)


def _claimed_epsilon(claim: Accounting, delta: float) -> float:
    """The ε the claim reports; for a LOWER curve (``sampling="shuffle"``) its lower end."""
    try:
        return claim.epsilon(delta)
    except NotAGuarantee:
        return float(claim.tradeoff().epsilon_bounds(delta)[0])


def check_loop(loop: Loop, accounted: Mapping[str, Any] | Accounting, *,
               delta: float | None = None) -> Accounting:
    """Check that ``accounted`` accounts ``loop``; return the matching ``Accounting``.

    ``accounted`` is the claim: the keywords given to ``fdp.dpsgd``
    (``noise_multiplier``, ``sample_rate``, ``steps`` and any of ``DPSGD_DEFAULTS``) or an
    ``Accounting``; given ``delta``, a mismatch also reports both ε at it. Raises
    ``LoopMismatch`` naming every differing input and the matching call, or
    ``NoMatchingAccounting`` if no fdp call accounts the loop.

    Examples
    --------
    >>> from fdp.sgd.loop_check import Loop, check_loop
    >>> loop = Loop(dataset_size=1000, batch_size=10, sampler="poisson",
    ...             noise_multiplier=1.0, updates=100)
    >>> check_loop(loop, {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 100})
    fdp.dpsgd(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    """
    right = loop_accounting(loop)
    claim = accounted_call(accounted)
    fields: list[str] = []
    if claim.function != right.function:
        hint = _hint("sampling", loop, None, None)
        fields.append(f"call: accounted {claim.call}, the loop needs fdp.{right.function}{hint}")
    elif right.function == "Gaussian":
        if not _same(dict(claim.kwargs)["mu"], dict(right.kwargs)["mu"]):
            fields.append(_why("mu", loop, dict(claim.kwargs)["mu"], dict(right.kwargs)["mu"]))
    else:
        got, want = {**DPSGD_DEFAULTS, **dict(claim.kwargs)}, \
            {**DPSGD_DEFAULTS, **dict(right.kwargs)}
        for name in ("sampling", "neighbouring", "sample_rate", "steps", "dataset_size",
                     "examples_per_user"):
            if not _same(got[name], want[name]):
                fields.append(_why(name, loop, got[name], want[name]))
        if not _same(_step_mu(got), _step_mu(want)):
            fields.append(_why("sensitivity/noise_multiplier", loop, _step_mu(got),
                               _step_mu(want)))
    if not fields:
        return right
    eps = (None, None) if delta is None else (_claimed_epsilon(claim, delta),
                                              right.epsilon(delta))
    text = ("the accounting does not describe the training loop: " + "; ".join(fields)
            + f". The matching call: {right.call} ({right.note})")
    if eps[0] is not None:
        side = "understates" if eps[0] < eps[1] else "overstates"
        text += (f". At delta={delta:g} the accounted call reports epsilon = {eps[0]:.4g}, "
                 f"the matching call {eps[1]:.4g} (the claim {side} the loss)")
    return_fields = tuple(f.split(":", 1)[0] for f in fields)
    raise LoopMismatch(text, return_fields, claim, right, *eps)


__all__ = ["Accounting", "Loop", "LoopMismatch", "NoMatchingAccounting", "accounted_call",
           "check_loop", "loop_accounting"]
