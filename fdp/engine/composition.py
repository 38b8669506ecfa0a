"""``compose_lattices``: the lattices of the engine's entry (``entry.compose``): the
grid step, then each factor group discretised on both sides and each direction
composed; ``compose_add_remove`` / ``combine_directions``: both directions of add/remove
neighbouring, their four independent compositions on both cores.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, NamedTuple

from fdp import _validate
from fdp._constants import TAU
from fdp.engine import worker
from fdp.engine.convolution import tail_window
from fdp.engine.discretise import discretise
from fdp.engine.grid import (
    QUESTION_REL_WIDTH,
    QUESTION_TOL,
    Groups,
    choose_step,
    expected_seconds,
    loss_spread,
    variance_step,
)
from fdp.engine.lattice import OPTIMISTIC, Lattice, check_size
from fdp.engine.pipeline import (
    SPLIT_FACTORS,
    Part,
    Recipe,
    _idle_core,
    _validate_groups,
    check_tol,
    combine_parts,
    compose_side,
    cropped,
    discretise_groups,
    halves,
    inverse_parts,
    join_halves,
    power_tau,
    side_tree,
    work_units,
)
from fdp.engine.prebuilt import Prebuilt
from fdp.progress import Meter
from fdp.tradeoff import TradeOff

# threads for independent compositions when a core is idle (1: always serial)
LANES = 2


def _concurrent() -> bool:
    return LANES > 1 and _idle_core()


def combine_directions(directions: Sequence[list[Part]], tau: float = TAU,
                       meter: Meter | None = None, pool: ThreadPoolExecutor | None = None
                       ) -> list[tuple[Lattice, Lattice]]:
    """[(pessimistic, optimistic)] per direction: ``pipeline.combine_parts`` of each
    list of (cropped) discretised groups, the 2 × len(directions) compositions run
    on ``LANES`` threads when a core is idle (bit-identical to the serial order).

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine.composition import combine_directions
    >>> from fdp.engine.pipeline import cropped, discretise_groups
    >>> parts = cropped(discretise_groups([(fdp.Gaussian(1.0), 4)], 0.01))
    >>> (p, o), = combine_directions([parts])
    >>> bool(p.step == o.step == 0.01), p.side, o.side
    (True, 'pessimistic', 'optimistic')
    """
    jobs = [(parts, i) for parts in directions for i in (0, 1)]
    if pool is None and not _concurrent():
        out = [compose_side(parts, i, tau, meter) for parts, i in jobs]
    elif pool is None:
        with ThreadPoolExecutor(max_workers=LANES) as own:
            return combine_directions(directions, tau, meter, own)
    else:
        futures = [pool.submit(compose_side, parts, i, tau, meter) for parts, i in jobs]
        out = [f.result() for f in futures]
    return [(out[2 * d], out[2 * d + 1]) for d in range(len(directions))]


def compose_add_remove(groups: Groups, step: float, meter: Meter | None = None
                       ) -> tuple[tuple[Lattice, Lattice], tuple[Lattice, Lattice]]:
    """((add_p, add_o), (rem_p, rem_o)): ⊗ of groups (f_i, n_i) on ΔZ (the add direction)
    and of their inverse pairs f_i⁻¹ (the remove direction, DRS Prop 3.2), both sides, as
    ``discretise_groups``, ``inverse_parts`` (``reflect_both``) and ``combine_parts`` form
    them. Derivation: docs/derivations/engine.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine.composition import compose_add_remove
    >>> from fdp.operations.subsample import PoissonAdd
    >>> f = PoissonAdd(fdp.Gaussian(1.0), 0.1)
    >>> (ap, ao), (rp, ro) = compose_add_remove([(f, 10)], 0.01)
    >>> bool(abs(ap.mass - 1) < 1e-9 and abs(rp.mass - 1) < 1e-9)
    True
    """
    if _process_lane(groups, step):
        return _two_processes(groups, step, meter)
    add, rem = combine_directions(_both_directions(groups, step, meter), meter=meter)
    return add, rem


def _both_directions(groups: Groups, step: float, meter: Meter | None) -> list[list[Part]]:
    """[add parts, remove parts], cropped: the per-step lattices both directions of
    ``compose_add_remove`` compose (the remove direction reflected where it may be).

    With a core idle, the inverse pairs' optimistic lattices that cannot be reflected
    (groups of more than ``AHEAD_MIN_STEPS`` steps) are discretised on a second
    thread while the factors' own are (the same lattices, so the result is identical).
    """
    ahead: dict[int, Lattice] = {}
    if not _concurrent():
        add_parts = discretise_groups(groups, step, meter)
    else:
        with ThreadPoolExecutor(max_workers=1) as pool:
            futures = {i: pool.submit(discretise, inv, step, OPTIMISTIC)
                       for i, (f, n) in enumerate(groups)
                       if n > AHEAD_MIN_STEPS and (inv := f.inverse()) is not f}
            add_parts = discretise_groups(groups, step, meter)
            ahead = {i: fut.result() for i, fut in futures.items()}
    rem_parts = inverse_parts(groups, add_parts, reflect_both=True, ahead=ahead)
    return [cropped(add_parts), cropped(rem_parts)]


# Groups of more steps never take the reflected optimistic lattice: derivations/engine.md.
AHEAD_MIN_STEPS = 25


# The second half of many distinct groups in a worker process: derivations/engine.md.
PROCESS_LANE = True
# Per-step lattice points from which the worker pays for its start: derivations/engine.md.
PROCESS_MIN_POINTS = 2.5e6


def _process_lane(groups: Groups, step: float) -> bool:
    if not (PROCESS_LANE and len(groups) >= SPLIT_FACTORS and (os.cpu_count() or 1) > 1):
        return False
    spans = (s[3] - s[2] for s in (loss_spread(f) for f, _ in groups))
    return sum(spans) / step >= PROCESS_MIN_POINTS


def half_directions(groups: Groups, step: float,
                    meter: Meter | None = None) -> list[Lattice]:
    """[add_p, add_o, rem_p, rem_o]: the half-trees (``pipeline.side_tree``) of
    ``groups``, discretised and composed serially (each process's share of
    ``compose_add_remove``)."""
    return [side_tree(parts, i, meter=meter)
            for parts in _both_directions(groups, step, meter) for i in (0, 1)]


def _two_processes(groups: Groups, step: float, meter: Meter | None
                   ) -> tuple[tuple[Lattice, Lattice], tuple[Lattice, Lattice]]:
    """``compose_add_remove`` with the second half of the groups in a worker process
    (waited for by a thread, so that its start-up overlaps the first half); if no
    worker can run it, it is computed here."""
    first, second = halves(list(groups))
    with ThreadPoolExecutor(max_workers=1) as starter:
        other = starter.submit(worker.run, half_directions, second, step)
        mine = half_directions(first, step, meter)
        theirs = other.result()
    if theirs is None:
        theirs = half_directions(second, step, meter)
    elif meter is not None:
        meter.advance(work_units(len(second), 2))     # its discretisations and trees
    a_p, a_o, r_p, r_o = (join_halves(x, y, meter=meter) for x, y in zip(mine, theirs))
    return (a_p, a_o), (r_p, r_o)


#: Which compositions ``compose`` forms: "f" = ⊗ f_i^{n_i}, "inverse" = ⊗ (f_i⁻¹)^{n_i}.
Direction = Literal["f", "inverse"]
#: How ``compose`` chooses the grid step (see its docstring).
GridPolicy = Literal["tol", "question", "exact"]
#: Factor groups as ``compose`` takes them.
Factors = Sequence["TradeOff | tuple[TradeOff, int]"] | TradeOff


class Composed(NamedTuple):
    """The lattices ``compose_lattices`` formed and how (the fields of a ``Numeric``
    other than its label, status and directions)."""

    pess: tuple[Lattice, ...]
    opt: tuple[Lattice, ...]
    tol: float
    source: tuple[Recipe, ...]
    eps_width: float | None
    groups: list


def compose_lattices(factors: Factors | Sequence[tuple[Prebuilt, int]],
                     tol: float | None = None, *, directions: tuple[Direction, ...] = ("f",),
                     grid: GridPolicy = "tol", progress: bool | None = None,
                     reflect: bool = True) -> Composed:
    """The lattices of ``entry.compose`` (the parameters are documented there): choose
    the step, discretise each group on both sides, compose each direction."""
    if grid not in ("tol", "question", "exact"):
        raise ValueError(f"grid must be 'tol', 'question' or 'exact', got {grid!r}")
    if (not isinstance(directions, tuple) or len(directions) not in (1, 2)
            or any(d not in ("f", "inverse") for d in directions)):
        raise ValueError("directions must be a tuple of one or two of 'f' and 'inverse', "
                         f"got {directions!r}")
    if _prebuilt(factors):
        if grid != "tol":
            raise ValueError(f"Prebuilt factors take grid='tol' only, got {grid!r}")
        # (the guard above established the element type)
        return _compose_prebuilt(list(factors), check_tol(tol), directions)  # type: ignore[arg-type]
    groups = _validate_groups(factors)
    question = grid == "question"
    tol = QUESTION_TOL if question and tol is None else check_tol(tol)
    if grid == "exact":
        step, spreads = choose_step(groups, tol, coarsen=False)
    else:
        step, spreads = choose_step(groups, tol, budget=True if question else None)
    meter = Meter(work_units(len(groups), len(directions)), "composing", progress,
                  seconds=expected_seconds(groups, spreads, step, len(directions)))
    if directions == ("f",):
        pair = combine_parts(cropped(discretise_groups(groups, step, meter)), meter=meter)
        lattices = [pair]
    elif directions == ("f", "inverse") and reflect:
        lattices = list(compose_add_remove(groups, step, meter))
    else:
        parts = discretise_groups(groups, step, meter)
        inverse = inverse_parts(groups, parts, reflect_both=reflect)
        lattices = combine_directions([cropped(parts if d == "f" else inverse)
                                       for d in directions], meter=meter)
    meter.close()
    return Composed(tuple(p for p, _ in lattices), tuple(o for _, o in lattices), tol,
                    tuple(Recipe(tuple(groups), step, d == "inverse") for d in directions),
                    QUESTION_REL_WIDTH if question else None, groups)


def check_powers(parts: list[tuple[Lattice, Lattice, int]]) -> None:
    """Refuse (``GridBudgetExceeded``, with the points) before any transform a group
    whose n-fold power's window (``convolution.power``: Chernoff, all but Q-mass
    ``power_tau(n)`` per tail) is over ``lattice.MAX_POINTS`` — the check the power
    itself makes, done before the other groups and directions are composed."""
    for lp, lo, n in parts:
        for lat in (lp, lo):
            if n > 1:
                a, b = tail_window(lat, n, power_tau(n))
                check_size(b - a + 1)


def _prebuilt(factors: Any) -> bool:
    try:
        items = list(factors)
    except TypeError:
        return False
    return bool(items) and all(isinstance(i, tuple) and len(i) == 2
                               and isinstance(i[0], Prebuilt) for i in items)


def _compose_prebuilt(groups: list[tuple[Prebuilt, int]], tol: float,
                      directions: tuple[Direction, ...]) -> Composed:
    """``compose`` of caller-bounded factors: each gives its own lattices on the step
    its declared variance asks for (``grid.variance_step``)."""
    counts = [_validate.positive_int("count", n) for _, n in groups]
    step = variance_step([f.variance for f, _ in groups], counts, tol)
    per_direction: list[list] = [[] for _ in directions]
    for (f, _), n in zip(groups, counts):
        add, remove = f.lattices(step)
        for out, d in zip(per_direction, directions):
            out.append((*(add if d == "f" else remove), n))
    directions_parts = [cropped(parts) for parts in per_direction]
    for parts in directions_parts:
        check_powers(parts)                 # before any transform
    lattices = combine_directions(directions_parts)
    return Composed(tuple(p for p, _ in lattices), tuple(o for _, o in lattices), tol,
                    (), None, list(groups))


__all__ = ["Composed", "Direction", "GridPolicy", "compose_add_remove", "compose_lattices"]
