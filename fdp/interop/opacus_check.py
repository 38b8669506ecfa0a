"""Check an Opacus training run against its accounting (needs the ``interop`` extra:
``pip install "fdp[interop]"``, which installs torch and Opacus; ``import fdp`` never
imports this module).

``describe_loop`` reads what Opacus actually runs into a ``fdp.sgd.loop_check.Loop``: the
loader's sampler (``UniformWithReplacementSampler`` is Poisson sampling despite its name;
with ``poisson_sampling=False`` the user's ``BatchSampler`` over a ``RandomSampler``,
``SequentialSampler`` or ``WeightedRandomSampler``), the ``DPOptimizer``'s σ (noise σ·C on
the clipped SUM) and ``loss_reduction`` ("mean" divides by ⌊n·q⌋·k, q = 1/len(loader)),
and the accountant's ``history`` of (σ, q·k, steps), one step per noisy optimizer step.
``check_opacus`` compares the loop with what was accounted (default: Opacus' own claim,
Poisson, add/remove, the history), raising ``LoopMismatch`` for each difference; given
the user's loader (``original_loader``) it also catches ``make_private`` replacing a
non-uniform sampler by Poisson sampling at q = 1/len(loader) (Opacus #813) and, under
add/remove, a rate 1/⌈n/B⌉ that differs at n ± 1 (Opacus #571).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opacus.optimizers import DPOptimizer
from opacus.utils.uniform_sampler import UniformWithReplacementSampler
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    RandomSampler,
    SequentialSampler,
    WeightedRandomSampler,
)

from fdp import _validate
from fdp.sgd.loop_check import (
    Accounting,
    Loop,
    LoopMismatch,
    NoMatchingAccounting,
    accounted_call,
    check_loop,
    loop_accounting,
)


def _history(accountant: Any) -> list[tuple[float, float, int]]:
    history = getattr(accountant, "history", None)
    if history is None:
        raise TypeError(f"accountant must be an Opacus accountant (with .history), got "
                        f"{type(accountant).__name__}")
    return [(float(s), float(q), int(n)) for s, q, n in history]


def opacus_claim(accountant: Any) -> Accounting:
    """What Opacus accounts: ``fdp.dpsgd(σ, q, T)`` of its history (Poisson, add/remove).

    Raises
    ------
    ValueError
        If the history is empty or holds more than one (σ, q).
    """
    pairs = {(s, q) for s, q, _ in _history(accountant)}
    if len(pairs) != 1:
        raise ValueError(f"the accountant's history must hold one (noise_multiplier, "
                         f"sample_rate), got {sorted(pairs)}; pass accounted= explicitly")
    (sigma, q), = pairs
    steps = sum(n for _, _, n in _history(accountant))
    return accounted_call({"noise_multiplier": sigma, "sample_rate": q, "steps": steps})


def _sampler(data_loader: DataLoader) -> tuple[str, float, dict[str, Any]]:
    """(sampler kind, batch size B, extra Loop fields) of a loader."""
    batches = data_loader.batch_sampler
    if isinstance(batches, UniformWithReplacementSampler):
        return "poisson", batches.sample_rate * batches.num_samples, {}
    if not isinstance(batches, BatchSampler):
        raise NoMatchingAccounting(f"data_loader's batch sampler "
                                   f"{type(batches).__name__} is not one fdp can read "
                                   "(UniformWithReplacementSampler or BatchSampler)")
    sampler, b = batches.sampler, batches.batch_size
    per_epoch = {"batches_per_epoch": len(batches)}
    if isinstance(sampler, WeightedRandomSampler):
        if not sampler.replacement:
            return "shuffle", b, per_epoch
        w = sampler.weights.double()
        return "weighted", b, {"max_weight_share": float(w.max() / w.sum())}
    if isinstance(sampler, RandomSampler):
        return ("with_replacement", b, {}) if sampler.replacement else ("shuffle", b, per_epoch)
    if isinstance(sampler, SequentialSampler):
        return "shuffle", b, per_epoch
    raise NoMatchingAccounting(f"sampler {type(sampler).__name__} has no fdp accounting")


def _accumulation(accountant: Any, data_loader: DataLoader) -> int:
    """k from the history: Opacus records q·k with q = 1/len(data_loader)."""
    ks = {q * len(data_loader) for _, q, _ in _history(accountant)}
    if not ks:
        return 1
    if len(ks) > 1 or any(abs(k - round(k)) > 1e-6 * k or round(k) < 1 for k in ks):
        raise ValueError(f"cannot read the micro-batches per step from the history "
                         f"(rates x len(data_loader) = {sorted(ks)}); pass accumulation=")
    return int(round(ks.pop()))


def describe_loop(data_loader: DataLoader, optimizer: DPOptimizer, *, accountant: Any = None,
                  updates: int | None = None, accumulation: int | None = None,
                  neighbouring: str = "add_remove") -> Loop:
    """The ``Loop`` an Opacus data loader and optimizer run.

    ``data_loader`` and ``optimizer`` are what ``make_private`` returned; T ``updates``
    and k micro-batches per update (``accumulation``) are read from the ``accountant``'s
    history unless given; ``neighbouring`` is the relation claimed.
    """
    if not isinstance(optimizer, DPOptimizer):
        raise TypeError(f"optimizer must be an Opacus DPOptimizer, got "
                        f"{type(optimizer).__name__}")
    kind, b, extra = _sampler(data_loader)
    if updates is None:
        if accountant is None:
            raise ValueError("pass updates= or accountant= (whose history counts them)")
        updates = sum(n for _, _, n in _history(accountant))
    if accumulation is None:
        accumulation = 1 if accountant is None else _accumulation(accountant, data_loader)
    reduction = optimizer.loss_reduction
    return Loop(dataset_size=len(data_loader.dataset),  # type: ignore[arg-type]
                batch_size=b, sampler=kind, noise_multiplier=optimizer.noise_multiplier,
                updates=updates, accumulation=accumulation, neighbouring=neighbouring,
                mean_divisor="expected" if reduction == "mean" else None, **extra)


def _replaced_sampler(original: DataLoader, loop: Loop,
                      claim: Accounting, delta: float | None) -> None:
    """Opacus #813: make_private swapped the user's sampler for Poisson at 1/len(loader)."""
    if loop.sampler != "poisson":
        return
    _, b, _ = _sampler(original)
    n = len(original.dataset)  # type: ignore[arg-type]
    if not isinstance(original.sampler, WeightedRandomSampler) and \
            len(original.sampler) == n:  # type: ignore[arg-type]
        return
    kw = dict(claim.kwargs)
    built = accounted_call({**kw, "sample_rate": b / n})
    eps = (None, None) if delta is None else (built.epsilon(delta), claim.epsilon(delta))
    text = (f"make_private replaced the loader's {type(original.sampler).__name__} by "
            f"Poisson sampling at q = 1/len(data_loader) = {loop.sample_rate:.6g} "
            f"(Opacus #813): an expected batch of {loop.batch_size:.6g} of {n} records, "
            f"not {b} (rate {b / n:.6g}), and any weights are dropped. The run is accounted "
            f"by {claim.call}; for batches of {b} build DataLoader(dataset, batch_size={b}) "
            "without the sampler, or pass poisson_sampling=False and account "
            "fdp.sgd.loop_check.loop_accounting(describe_loop(...))")
    if eps[0] is not None:
        text += (f". At delta={delta:g} rate {b / n:.6g} gives epsilon = {eps[0]:.4g}, the "
                 f"run {eps[1]:.4g}")
    raise LoopMismatch(text, ("sample_rate",), built, claim, *eps)


def _size_dependent_rate(original: DataLoader, loop: Loop) -> None:
    """Opacus #571: q = 1/len(loader) is computed from n, so a neighbour's may differ."""
    if loop.sampler != "poisson" or loop.neighbouring != "add_remove":
        return
    b, n = original.batch_size, len(original.dataset)  # type: ignore[arg-type]
    if b is None:
        return
    lengths = {m // b if original.drop_last else -(-m // b) for m in (n - 1, n, n + 1)}
    if len(lengths) > 1:
        raise NoMatchingAccounting(
            f"make_private sets q = 1/len(data_loader), which is 1/{sorted(lengths)} for "
            f"n = {n} - 1, {n}, {n} + 1 with batches of {b}: an add/remove neighbour is "
            "sampled at another rate for another number of steps per epoch (Opacus #571); "
            "sample at a public rate or account neighbouring='replace_one' (n fixed)")


def check_opacus(privacy_engine: Any, data_loader: DataLoader, optimizer: DPOptimizer, *,
                 accounted: Mapping[str, Any] | Accounting | None = None,
                 original_loader: DataLoader | None = None, delta: float | None = None,
                 neighbouring: str = "add_remove", updates: int | None = None,
                 accumulation: int | None = None) -> Accounting:
    """Check an Opacus run against its accounting; return the accounting that matches.

    ``privacy_engine``'s accountant history is the default claim and counts the updates;
    ``accounted`` (keywords of ``fdp.dpsgd``) and ``delta`` are as in
    ``fdp.sgd.loop_check.check_loop``, ``original_loader`` the loader passed to
    ``make_private`` (module docstring), the other parameters as in ``describe_loop``.
    """
    if delta is not None:
        delta = _validate.probability("delta", delta)
    acct = privacy_engine.accountant
    loop = describe_loop(data_loader, optimizer, accountant=acct, updates=updates,
                         accumulation=accumulation, neighbouring=neighbouring)
    claim = opacus_claim(acct) if accounted is None else accounted_call(accounted)
    if original_loader is not None:
        _replaced_sampler(original_loader, loop, claim, delta)
        _size_dependent_rate(original_loader, loop)
    return check_loop(loop, claim, delta=delta)


__all__ = ["check_opacus", "describe_loop", "loop_accounting", "opacus_claim"]
