"""The grid step of a composition: chosen from tol, the factors' spreads and a budget.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from fdp._constants import LOSS_WINDOW, MAX_STEP, STEP_SCALE
from fdp.engine.connect_dots import window
from fdp.engine.discretise import discretise
from fdp.engine.from_profile import profile_range
from fdp.engine.lattice import MAX_POINTS, PESSIMISTIC, GridBudgetExceeded
from fdp.law import atoms_of as atoms
from fdp.law import interval_masses_of as interval_masses
from fdp.law import loss_moments_of as loss_moments
from fdp.law import loss_range_of as loss_range

if TYPE_CHECKING:
    from fdp.engine.numeric import Numeric
    from fdp.tradeoff import TradeOff

# (mean, variance, lo, hi, gridded variance) of a factor's loss (``loss_spread``)
Spread = tuple[float, float, float, float, float]
# distinct factors with their composition counts
Groups = Sequence[tuple["TradeOff", int]]

DEFAULT_TOL = 1e-4
# The grid of a question-sized default (``fdp.dpsgd`` without tol): derivations/engine.md.
QUESTION_TOL = 1e-3
QUESTION_REL_WIDTH = 1e-3
# Below ε = QUESTION_EPS_FLOOR the question's target is absolute: derivations/engine.md.
QUESTION_EPS_FLOOR = 1e-2
# Points of all factors' own lattices the default accuracy may discretise: derivations/engine.md.
FACTOR_POINTS = 13_000_000
# Composed grid points the default accuracy may use: derivations/engine.md.
GRID_POINTS = 2 ** 22


def seconds_for(points: float, transforms: int) -> float:
    """Rough wall time of ``transforms`` FFT-sized passes over ``points`` grid points,
    about 4e-7 s per point each (for the progress meter only)."""
    return 4e-7 * points * transforms


def loss_spread(f: TradeOff) -> Spread:
    """(mean, variance, lo, hi, gridded variance) of the loss of f under Q.
    Derivation: docs/derivations/engine.md."""
    lats = f._lattices()
    if lats is not None and len(lats[0]) == 1:        # a composed result
        lat = lats[0][0]
        m, v = lat.moments()
        return (m, v) + window((lat.losses[0], lat.losses[-1])) + (v,)
    rng = loss_range(f)
    known = loss_moments(f)
    clipped = rng is not None and window(rng) != (float(rng[0]), float(rng[1]))
    if rng is not None and known is not None and not clipped:
        return (known[0], known[1]) + window(rng) + (known[1],)
    if rng is None or (interval_masses(f, np.zeros(1)) is None
                       and f._delta_members() is None):
        rng = profile_range(f)
    lo, hi = window(rng)
    width = max(hi - lo, 1e-12)
    coarse = max(width / 4000.0, 1e-9)
    lat = discretise(f, coarse, PESSIMISTIC)
    m, v = lat.moments()
    v = max(v, coarse * coarse)
    gridded = v
    F, beyond = lat.finite_mass, lat.q_inf
    if clipped and beyond > 0.0 and F + beyond > 0.0:
        w = beyond / (F + beyond)
        gridded = (1.0 - w) * v + w * (1.0 - w) * (LOSS_WINDOW - m) ** 2
    if known is not None:
        m, v = known
    return m, v, lo, hi, gridded


def choose_step(groups: Groups, tol: float, coarsen: bool = True, check: bool = True,
                budget: bool | None = None) -> tuple[float, list[Spread]]:
    """Δ = STEP_SCALE·sqrt(tol·V/N)/max(1, V)^{1/4}, capped, at least tol/N, and the
    per-group spreads. At tol = DEFAULT_TOL a composed grid over GRID_POINTS gets a
    coarser step that fits (the grid sized by the budget, not the law: huge T stays
    within memory). Raises MemoryError naming tol before anything is allocated
    when the composed grid would exceed ``lattice.MAX_POINTS``. ``coarsen=False``,
    ``check=False``: the step tol asks for, as it is (``Numeric.refined``,
    ``Numeric.effective_tol``). ``budget``: coarsen to GRID_POINTS / FACTOR_POINTS
    (default: only at tol = DEFAULT_TOL; True for a question-sized default)."""
    spreads = [loss_spread(f) for f, _ in groups]
    return step_for(groups, spreads, tol, coarsen, check, budget), spreads


def step_for(groups: Groups, spreads: Sequence[Spread], tol: float, coarsen: bool = True,
             check: bool = True, budget: bool | None = None) -> float:
    """``choose_step``'s Δ from the groups' spreads (``loss_spread``), computed once."""
    N = sum(n for _, n in groups)
    V = sum(n * s[1] for (_, n), s in zip(groups, spreads))
    # ε grows with the spread of the composed loss and so does its sensitivity to
    # the variance error: shrink Δ by V^{1/4} once V > 1
    step = (STEP_SCALE * math.sqrt(tol * V / N) / max(1.0, V) ** 0.25
            if math.isfinite(V) else MAX_STEP)
    # resolve the narrowest factor, not below 1% of the typical one (engine.md)
    smallest_sd = min(math.sqrt(s[1]) for s in spreads)
    step = min(step, MAX_STEP, max(smallest_sd, 0.01 * math.sqrt(V / N), 1e-9))
    # no cells finer than tol/N (idem)
    step = max(step, min(tol / N, MAX_STEP))
    step = _snap(groups, step)
    # composed loss width: bulk ± 20 sd (Chernoff windows are ~14–20 sd), never
    # more than the sum of ranges; the transform itself checks its exact window
    width = composed_width(groups, spreads)
    # per-factor lattices: each distinct factor is discretised on its own range
    ranges = sum(s[3] - s[2] for s in spreads)
    if budget is None:
        budget = tol == DEFAULT_TOL
    if budget and coarsen and (width / step > GRID_POINTS
                                           or ranges / step > FACTOR_POINTS):
        # the default accuracy is a target: keep the grids within the budget by a
        # coarser step (every answer stays certified, the bracket a little wider)
        coarse = max(step, width / GRID_POINTS, ranges / FACTOR_POINTS)
        snapped = _snap(groups, coarse)
        # (an atom closer to 0 than the step cannot be snapped without refining the
        # grid again: it is then contracted with its cell like any other mass)
        step = snapped if snapped >= 0.5 * coarse else coarse
    if width / step > MAX_POINTS and check:
        raise GridBudgetExceeded(
            f"tol={tol:g} needs a grid of about {width / step:,.0f} points for this "
            f"composition, over the engine limit of {MAX_POINTS:,}; increase tol")
    return step


def variance_step(variances: list[float], counts: list[int], tol: float) -> float:
    """``choose_step``'s Δ for factors known only through the variances of their losses
    (``Prebuilt``: no law to window, no atom to snap), capped at ``MAX_STEP`` and at the
    narrowest factor's standard deviation (at least 1e-9).
    The caller's own arrays are checked by the caller (``fdp.sgd.allocation``)."""
    N = sum(counts)
    V = sum(v * c for v, c in zip(variances, counts))
    step = STEP_SCALE * math.sqrt(tol * V / N) / max(1.0, V) ** 0.25
    return min(step, MAX_STEP, max(math.sqrt(min(variances)), 1e-9))


def smallest_tol(groups: Groups) -> float:
    """The smallest tol whose composed grid (``choose_step`` without coarsening) fits
    ``lattice.MAX_POINTS``: bisection on log tol over the spreads, computed once; no
    grid is formed. The grid's size falls as tol grows (Δ ∝ √tol, capped)."""
    spreads = [loss_spread(f) for f, _ in groups]
    width = composed_width(groups, spreads)

    def fits(tol: float) -> bool:
        return width / step_for(groups, spreads, tol, coarsen=False, check=False) <= MAX_POINTS
    lo, hi = -30.0, 0.0                                  # log10 tol; fits(1) holds
    if fits(10.0 ** lo):
        return 10.0 ** lo
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if fits(10.0 ** mid) else (mid, hi)
    return 10.0 ** hi


def reachable_width(num: Numeric, gap: float, width: float, name: str) -> None:
    """Refuse at once a ``width`` the memory budget cannot reach (``readback.refine``).
    Derivation: docs/derivations/engine.md."""
    if not num.source or not math.isfinite(gap) or gap <= width:
        return
    tol_min = smallest_tol(list(num.source[0].groups))
    best = gap * tol_min / num.effective_tol
    if best > width:
        raise ValueError(
            f"width={width:g} cannot be met for {name}: the bracket is {gap:.3g} wide at "
            f"tol={num.effective_tol:g}, and its width shrinks about like tol, down to "
            f"tol={tol_min:.2g} within the memory budget (lattice.MAX_POINTS = "
            f"{MAX_POINTS:,} grid points): no width below about {best:.2g} is in reach")


def composed_width(groups: Groups, spreads: Sequence[Spread]) -> float:
    """Loss width the composed grid spans: bulk ± 20 sd of the gridded law (Chernoff
    windows are ~14–20 sd), never more than the sum of ranges, plus one factor's range."""
    V_grid = sum(n * s[4] for (_, n), s in zip(groups, spreads))
    return min(sum(n * (s[3] - s[2]) for (_, n), s in zip(groups, spreads)),
               40.0 * math.sqrt(V_grid) + 1.0) + max(s[3] - s[2] for s in spreads)


def expected_seconds(groups: Groups, spreads: Sequence[Spread], step: float,
                     directions: int = 1) -> float:
    """Rough wall time of composing groups on step Δ (for the progress meter only)."""
    points = composed_width(groups, spreads) / step
    return seconds_for(points, 2 * directions * len(groups))


def _snap(groups: Groups, step: float) -> float:
    """Shrink Δ slightly so the heaviest atom of the most composed factor is on the grid.
    Derivation: docs/derivations/engine.md."""
    best = None
    for f, n in groups:
        L, q = atoms(f)
        live = (np.abs(L) > step) & np.isfinite(L)
        if not live.any():
            continue
        i = int(np.argmax(np.where(live, q, -1.0)))
        if best is None or n > best[0]:
            best = (n, abs(float(L[i])))
    if best is None:
        return step
    return best[1] / math.ceil(best[1] / step)
