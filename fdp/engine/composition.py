"""``compose_numeric``: the engine's entry point (the pipeline, then a ``Numeric``);
``compose_add_remove`` / ``combine_directions``: both directions of add/remove
neighbouring, their four independent compositions on both cores.

Concurrency: the compositions of the two sides and the two directions share nothing
(each is the same deterministic sequence of array operations on its own arrays), so
running them on ``LANES`` threads gives bit-identical lattices; the transforms and
most array work release the GIL. It is done only when a core is idle
(``pipeline._idle_core``): on a busy machine a second thread only competes with the
first. The peak memory is then ``LANES`` transforms instead of one.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from fdp._constants import TAU
from fdp.engine import worker
from fdp.engine.grid import choose_step, expected_seconds, loss_spread
from fdp.engine.lattice import Lattice
from fdp.engine.numeric import Numeric
from fdp.engine.pipeline import (
    SPLIT_FACTORS,
    Recipe,
    _directions,
    _idle_core,
    _label,
    _validate_groups,
    check_tol,
    combine_parts,
    compose_side,
    cropped,
    discretise_groups,
    halves,
    inverse_parts,
    join_halves,
    side_tree,
    work_units,
)
from fdp.progress import Meter
from fdp.status import Status, status_of

# threads for independent compositions when a core is idle (1: always serial)
LANES = 2


def _concurrent() -> bool:
    return LANES > 1 and _idle_core()


def combine_directions(directions, tau: float = TAU, meter: Meter | None = None,
                       pool: ThreadPoolExecutor | None = None) -> list:
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


def compose_add_remove(groups, step: float, meter: Meter | None = None
                       ) -> tuple[tuple[Lattice, Lattice], tuple[Lattice, Lattice]]:
    """((add_p, add_o), (rem_p, rem_o)): ⊗ of groups (f_i, n_i) on ΔZ (the add
    direction) and of their inverse pairs f_i⁻¹ (the remove direction; the
    composition of inverses is the inverse of the composition, DRS Prop 3.2), each
    pessimistic and optimistic, exactly as ``discretise_groups``, ``inverse_parts``
    (with ``reflect_both``: both sides of f_i⁻¹ reflected from f_i's lattices
    where what they add to the group is at most ``REFLECT_SLACK_CAP``) and
    ``combine_parts`` form them.

    From ``pipeline.SPLIT_FACTORS`` groups and ``PROCESS_MIN_POINTS`` per-step lattice
    points on, on a machine with more than one core, the second half of the groups
    (discretised, both directions and sides composed) runs in a worker process
    (``PROCESS_LANE``; the per-factor discretisation holds the GIL, so threads cannot
    share it), and the four products of the halves are formed here. Otherwise, with a
    core idle, the four compositions run on ``LANES`` threads. Either way the
    lattices are bit-identical to the serial computation.

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


def _both_directions(groups, step: float, meter: Meter | None) -> list:
    """[add parts, remove parts], cropped: the per-step lattices both directions of
    ``compose_add_remove`` compose (the remove direction reflected where it may be)."""
    add_parts = discretise_groups(groups, step, meter)
    rem_parts = inverse_parts(groups, add_parts, reflect_both=True)
    return [cropped(add_parts), cropped(rem_parts)]


# The second half of many distinct groups in a worker process (False: never); the
# worker is a fresh interpreter (``fdp.engine.worker``). Unlike the threads it is used
# on a busy machine too: 1000 distinct steps with two busy processes on the two cores
# took 11.8–12.9 s with the worker against 16.2 s without (idle: 5.5 s against 13.3 s;
# measured before the reflected remove direction of ``pipeline.inverse_parts``).
PROCESS_LANE = True
# Per-step lattice points (summed over the groups) from which the worker pays for its
# start (≈ 0.7 s, overlapped): serially ≈ 0.8 µs per point (1000 distinct steps:
# 1.7e7 points, 13.3 s). Measured idle: 200 steps (4e6 points) 1.8 s with the worker,
# 2.3 s without; 70 steps (4e5 points) 2.0 s with, 1.4 s without.
PROCESS_MIN_POINTS = 2.5e6


def _process_lane(groups, step: float) -> bool:
    if not (PROCESS_LANE and len(groups) >= SPLIT_FACTORS and (os.cpu_count() or 1) > 1):
        return False
    spans = (s[3] - s[2] for s in (loss_spread(f) for f, _ in groups))
    return sum(spans) / step >= PROCESS_MIN_POINTS


def half_directions(groups, step: float, meter: Meter | None = None) -> list:
    """[add_p, add_o, rem_p, rem_o]: the half-trees (``pipeline.side_tree``) of
    ``groups``, discretised and composed serially (each process's share of
    ``compose_add_remove``)."""
    return [side_tree(parts, i, meter=meter)
            for parts in _both_directions(groups, step, meter) for i in (0, 1)]


def _two_processes(groups, step: float, meter: Meter | None):
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


def compose_numeric(factors, tol: float | None = None, progress: bool | None = None) -> Numeric:
    """Certified numeric composition ⊗_i f_i^{⊗n_i} (DRS 2022, Def 3.1 and Thm 3.2).

    Each factor is discretised on the privacy-loss lattice ΔZ twice — pessimistic
    (connect the dots) and optimistic (a mean-preserving contraction) — and the
    lattices are composed by FFT with every round-off and truncation bounded on the
    safe side (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022; Koskela, Jälkö &
    Honkela 2020 for FFT accounting; Gopi, Lee & Wutschitz 2021 for the tilted
    read-back at small δ).

    ``tol`` (default 1e-4) sets the accuracy the grid is chosen for: the loss grid
    step is Δ ≈ 1.3·sqrt(tol·V/N)/max(1, V)^{1/4} (V the variance of the composed
    privacy loss, N the number of factors). The bracket width in β is then about
    tol/3, in ε about 3–10·tol for DP-SGD-like compositions (the discretisation
    changes the composed law's variance by a relative N·Δ²/V ∝ tol). It is a
    target, not a guarantee; the returned bracket is always certified, whatever its
    width (read it with ``bounds`` / ``epsilon_bounds``).
    ``progress``: a meter on stderr (None: only on a terminal, for ≥ 200 distinct
    factors or an expected time ≥ 2 s; False: never). Smaller tol costs memory and
    time ∝ 1/sqrt(tol). At the default tol a grid over ``GRID_POINTS`` is coarsened
    to fit (certified, wider; refine with ``width=``).

    Parameters
    ----------
    factors : TradeOff or list of (TradeOff, int)
        The factors with their counts (equal factors grouped); a bare ``TradeOff``
        in the list counts once. Any ``TradeOff`` is accepted, including earlier
        ``Numeric`` results.
    tol : float, optional
        Accuracy target in (0, 1] (default ``DEFAULT_TOL`` = 1e-4).
    progress : bool, optional
        A progress meter on stderr (None: only on a terminal for long runs).

    Returns
    -------
    Numeric
        The certified result; it keeps its factors (``source``) for refinement.

    Raises
    ------
    TypeError
        If factors is not a list of (TradeOff, count) pairs.
    ValueError
        If factors is empty, a count is not a positive integer, or tol is not in (0, 1].
    MemoryError
        If an explicit tol needs a grid over the engine's memory limit (the message
        names tol).

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine import compose_numeric
    >>> f = compose_numeric([(fdp.Gaussian(1.0), 4)])      # G_1^{⊗4} = G_2 (DRS Cor 3.3)
    >>> lo, hi = f.bounds(0.1)
    >>> bool(lo <= fdp.Gaussian(2.0)(0.1) <= hi), bool(hi - lo < 1e-3)
    (True, True)
    """
    groups = _validate_groups(factors)
    tol = check_tol(tol)
    step, spreads = choose_step(groups, tol)
    meter = Meter(work_units(len(groups)), "composing", progress,
                  seconds=expected_seconds(groups, spreads, step))
    pess, opt = combine_parts(cropped(discretise_groups(groups, step, meter)), meter=meter)
    meter.close()
    return Numeric((pess,), (opt,), _label(groups), tol, directions=_directions(groups),
                   source=(Recipe(tuple(groups), step),),
                   status=status_of(*(f for f, _ in groups), operation=Status.CERTIFIED))


__all__ = ["compose_numeric"]
