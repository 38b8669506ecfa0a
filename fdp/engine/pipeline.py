"""The composition pipeline: discretise each factor, power each group, combine.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from fdp import _validate
from fdp._constants import (
    NEGLIGIBLE_P_MASS,
    POWER_TAU_CAP,
    POWER_TAU_PER_STEP,
    REFLECT_SLACK_CAP,
    TAU,
)
from fdp.engine.convolution import convolve, convolve_tree, crop, power
from fdp.engine.discretise import discretise
from fdp.engine.grid import DEFAULT_TOL, Groups
from fdp.engine.lattice import OPTIMISTIC, Lattice, reflect
from fdp.law import loss_range_of as loss_range
from fdp.progress import Meter
from fdp.tradeoff import TradeOff, math_repr

# one discretised group: (pessimistic lattice, optimistic lattice, count n)
Part = tuple[Lattice, Lattice, int]

# Both sides of a single group on two threads when a core is idle: derivations/engine.md.
CONCURRENT_SIDES = True

# From this many distinct groups on, each side is composed as two halves: derivations/engine.md.
SPLIT_FACTORS = 64


@dataclass(frozen=True)
class Recipe:
    """How to recompute one direction's per-step lattices (plain data, picklable).

    ``groups`` are the (TradeOff, count) factor groups, discretised on ΔZ with
    Δ = ``step``; ``reflected`` gives the inverse pairs T(Q, P) instead
    (``inverse_parts``; DRS Prop 3.2 for composing inverses).
    """

    groups: tuple
    step: float
    reflected: bool = False

    def parts(self, meter: Meter | None = None) -> list[Part]:
        """[(pessimistic, optimistic, n)] per group: discretised, uncropped."""
        parts = discretise_groups(self.groups, self.step, meter)
        return inverse_parts(self.groups, parts) if self.reflected else parts


def discretise_groups(groups: Groups, step: float, meter: Meter | None = None) -> list[Part]:
    """[(pessimistic, optimistic, n)] for groups (f, n): each factor on ΔZ, both sides."""
    parts: list[Part] = []
    for f, n in groups:
        lp, lo = discretise(f, step)
        parts.append((lp, lo, n))
        if meter is not None:
            meter.advance()
    return parts


def inverse_parts(groups: Groups, parts: list[Part], reflect_both: bool = False,
                  ahead: dict[int, Lattice] | None = None) -> list[Part]:
    """[(pessimistic, optimistic, n)] of the inverse pairs f_i⁻¹ = T(Q, P) of groups (f_i, n_i)
    whose own discretised lattices are ``parts``. Derivation: docs/derivations/engine.md."""
    out: list[Part] = []
    for i, ((f, _), (lp, lo, n)) in enumerate(zip(groups, parts)):
        inv = f.inverse()
        if inv is f:                                     # symmetric: its own lattices
            out.append((lp, lo, n))
            continue
        pess = reflect(lp)
        cap = REFLECT_SLACK_CAP / n if reflect_both else NEGLIGIBLE_P_MASS
        opt: Lattice | None
        if pess.q_inf > cap and loss_range(inv) is not None:
            pess, opt = discretise(inv, lp.step)
        else:
            opt = reflect(lo) if reflect_both else None
            if opt is None or opt.slack > REFLECT_SLACK_CAP / n:
                opt = (ahead[i] if ahead is not None and i in ahead
                       else discretise(inv, lp.step, OPTIMISTIC))
        out.append((pess, opt, n))
    return out


def cropped(parts: list[Part], tau: float = TAU) -> list[Part]:
    return [(crop(lp, tau), crop(lo, tau), n) for lp, lo, n in parts]


def power_tau(n: int, tau: float = TAU) -> float:
    """Tail mass allowed out of an n-fold power's window (and cropped after it).
    Derivation: docs/derivations/engine.md."""
    return min(max(tau, POWER_TAU_PER_STEP * n), POWER_TAU_CAP)


# A second core is free below a load of cores − 1 + SELF_LOAD: derivations/engine.md.
SELF_LOAD = 0.5


def _idle_core() -> bool:
    """True when a second core is free: more than one core and a 1-minute load average
    below cores − 1 + SELF_LOAD (this process's own share; on a machine already busy a
    second thread only slows both sides)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return False
    return cores > 1 and load < cores - 1 + SELF_LOAD


def combine_parts(parts: list[Part], tau: float = TAU,
                  meter: Meter | None = None) -> tuple[Lattice, Lattice]:
    """⊗ of discretised groups, both sides: power each group, then a balanced tree."""
    def side(i: int) -> Lattice:
        return compose_side(parts, i, tau, meter)
    if CONCURRENT_SIDES and len(parts) == 1 and _idle_core():
        # the sides are independent and the transforms release the GIL
        with ThreadPoolExecutor(max_workers=1) as pool:
            other = pool.submit(side, 1)
            first = side(0)
            return first, other.result()
    return side(0), side(1)


def compose_side(parts: list[Part], i: int, tau: float = TAU,
                 meter: Meter | None = None) -> Lattice:
    """⊗ of side i (0 pessimistic, 1 optimistic) of discretised groups: powers, then a
    balanced tree; from SPLIT_FACTORS groups on, two halves' trees and their product
    (``halves``, ``join_halves``)."""
    if len(parts) < SPLIT_FACTORS:
        return side_tree(parts, i, tau, meter)
    first, second = halves(parts)
    return join_halves(side_tree(first, i, tau, meter), side_tree(second, i, tau, meter),
                       tau, meter)


def side_tree(parts: list[Part], i: int, tau: float = TAU, meter: Meter | None = None) -> Lattice:
    """⊗ of side i of discretised groups: each group's power, then one balanced tree."""
    powers: list[Lattice] = []
    for part in parts:
        t = power_tau(part[2], tau)
        powers.append(crop(power(part[0] if i == 0 else part[1], part[2], t), t))
        if meter is not None:
            meter.advance()
    return convolve_tree(powers, lambda lat: crop(lat, tau), meter)


# Every SECOND_HALF_SKIP-th odd position stays in the first half: derivations/engine.md.
SECOND_HALF_SKIP = 12
_I = TypeVar("_I")


def halves(items: list[_I]) -> tuple[list[_I], list[_I]]:
    """The groups split alternately, even and odd positions (the split ``compose_side``
    uses), every ``SECOND_HALF_SKIP``-th odd one kept in the first half: per-factor
    work grows with the factor's loss range, and groups often come sorted by it (σ
    increasing over training), so cutting in the middle would give one half twice the
    other's work."""
    first: list[_I] = []
    second: list[_I] = []
    for i, item in enumerate(items):
        odd = i % 2 == 1 and (i // 2) % SECOND_HALF_SKIP != SECOND_HALF_SKIP - 1
        (second if odd else first).append(item)
    return first, second


def join_halves(first: Lattice, second: Lattice, tau: float = TAU,
                meter: Meter | None = None) -> Lattice:
    """The product of two halves' trees, cropped like every product of the tree."""
    out = crop(convolve(first, second), tau)
    if meter is not None:
        meter.advance()
    return out


def work_units(groups: int, directions: int = 1) -> int:
    """Steps a Meter counts: discretisations, then per side and direction the powers
    and the tree's convolutions."""
    return groups + 2 * directions * (2 * groups - 1)


def _validate_groups(factors: Any) -> list[tuple[TradeOff, int]]:
    if isinstance(factors, TradeOff):
        factors = [(factors, 1)]
    groups = []
    try:
        items = list(factors)
    except TypeError:
        raise TypeError("factors must be a list of (TradeOff, count) pairs") from None
    if not items:
        raise ValueError("factors must contain at least one (TradeOff, count) pair")
    for item in items:
        if isinstance(item, TradeOff):
            item = (item, 1)
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], TradeOff)):
            raise TypeError(f"each factor must be a (TradeOff, count) pair, got {item!r}")
        n = _validate.positive_int("count", item[1])
        groups.append((item[0], n))
    return groups


def _label(groups: Groups) -> str:
    """Factors' reprs (without their one-direction remark) joined by ⊗."""
    bare = [math_repr(f) for f, _ in groups[:4]]
    parts = [b if n == 1 else f"{b}^{n}" for b, (_, n) in zip(bare, groups[:4])]
    if len(groups) > 4:
        total = sum(n for _, n in groups)
        parts.append(f"… ({len(groups)} distinct factors, {total} in all)")
    return " ⊗ ".join(parts)


def _directions(groups: Groups) -> Literal["one", "both"]:
    """"one" if any factor covers one direction of add/remove neighbouring only."""
    return "one" if any(f.directions == "one" for f, _ in groups) else "both"


def check_tol(tol: float | None) -> float:
    if tol is None:
        return DEFAULT_TOL
    return _validate.real("tol", tol, low=0.0, low_open=True, high=1.0)
