"""Read-outs of composed lattices: β curves of envelopes, ε(δ), refinement to a width.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

from fdp import _validate
from fdp._constants import EXP_SAFE, PLAIN_READBACK_FLOOR, TILT_READBACK_FLOOR
from fdp._types import ArrayLike, FloatArray
from fdp.engine.grid import QUESTION_EPS_FLOOR, reachable_width
from fdp.engine.lattice import PESSIMISTIC, GridBudgetExceeded, Lattice, check_size
from fdp.engine.pipeline import _idle_core

if TYPE_CHECKING:
    from fdp.engine.numeric import Numeric

# When a tilted recomposition tightens the plain bracket near the floor: derivations/engine.md.
DEFAULT_REL_WIDTH = 1e-3
TILT_CHEAP = 2 ** 20
# Lattices from which ``epsilon_plain`` reads several on two threads (a core idle).
READ_THREADS_FROM = 2 ** 18
# Recompositions at smaller tol that ``width=`` may ask for.
REFINE_ROUNDS = 4


def bracket_gap(lo: ArrayLike, hi: ArrayLike) -> FloatArray:
    """hi − lo, 0 where both are the same (inf included: ε = ∞ certified on both sides)."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    same = lo == hi
    return np.where(same, 0.0, hi - np.where(same, 0.0, lo))


def symmetric_curve(num: Numeric, side: str, a: np.ndarray) -> np.ndarray:
    """max{g, g⁻¹} with g(α) = max_{k ≥ 0} (1 − δ(kΔ) − e^{kΔ} α).
    Derivation: docs/derivations/engine.md."""
    cache = num._curves
    if side not in cache:
        step = num.step
        top = max(lat.k0 + lat.q.size for lat in num.pess + num.opt) + 1
        last = min(max(top, 1), math.floor(EXP_SAFE / step))
        check_size(last + 1, "read-back curve")
        k = np.arange(0, last + 1)
        eps = k * step
        if side == PESSIMISTIC:
            D = np.max([lat.delta_grid(k) + lat.slack + lat.readback
                        for lat in num.pess], axis=0)
        else:
            kk = np.append(k, max(top, last))
            D = np.max([np.maximum(lat.delta_grid(kk) - lat.slack - lat.readback, 0.0)
                        for lat in num.opt], axis=0)
            D = np.append(D[:-2], min(D[-2], D[-1]))
        D = np.minimum(D, 1.0)
        x = np.exp(eps)
        al = (D[:-1] - D[1:]) / (x[1:] - x[:-1])        # vertex between lines k, k+1
        be = 1.0 - D[:-1] - x[:-1] * al
        A = np.concatenate([[0.0], al[::-1], [max(1.0 - D[0], 0.0)]])
        B = np.concatenate([[1.0 - D[-1]], be[::-1], [0.0]])
        A = np.maximum.accumulate(np.clip(A, 0.0, 1.0))
        B = np.clip(B, 0.0, 1.0)
        cache[side] = (A, B)
    A, B = cache[side]
    g = np.interp(a, A, B)
    g_inv = np.interp(a, B[::-1], A[::-1])
    # vertices computed from rounded δ can move a chord by ≤ 2 read-back errors
    shift = 2.0 * max(lat.readback for lat in num.pess + num.opt)
    out = np.maximum(g, g_inv) + (-shift if side == PESSIMISTIC else shift)
    return np.clip(out, 0.0, 1.0 - a)


def epsilon_plain(pess: Sequence[Lattice], opt: Sequence[Lattice],
                  d: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(ε_lo, ε_hi) from the composed lattices, each solved exactly per lattice.
    Derivation: docs/derivations/engine.md."""
    def one(lat: Lattice, sign: float) -> FloatArray:
        target = d + sign * (lat.slack + lat.readback)
        with lat.tables_held():          # the checks reuse the solve's tables
            e = lat.epsilon_raw(target)
            for nudge in (1e-13, 1e-10, 1e-7, lat.step):
                if sign < 0.0:           # upper end: δ(e) above the target is unsafe
                    wrong = np.isfinite(e) & (lat.delta_raw(e) > target)
                else:                    # lower end: δ(e) below the target is unsafe
                    wrong = np.isfinite(e) & (e > 0.0) & (lat.delta_raw(e) < target)
                if not wrong.any():
                    break
                step = nudge * max(1.0, float(np.max(e[wrong])))
                e = np.where(wrong, e - sign * step, e)
                if sign > 0.0:
                    e = np.maximum(e, 0.0)
        return e
    jobs = [(lat, -1.0) for lat in pess] + [(lat, +1.0) for lat in opt]
    if (len(jobs) > 2 and max(lat.q.size for lat, _ in jobs) >= READ_THREADS_FROM
            and _idle_core()):
        with ThreadPoolExecutor(max_workers=2) as pool:
            eps = list(pool.map(lambda job: one(*job), jobs))
    else:
        eps = [one(lat, sign) for lat, sign in jobs]
    hi = np.zeros(d.shape)
    lo = np.zeros(d.shape)
    for e in eps[:len(pess)]:
        hi = np.maximum(hi, e)
    for e in eps[len(pess):]:
        lo = np.maximum(lo, e)
    return np.minimum(lo, hi), hi


def refine(num: Numeric, answer: Callable[[Numeric], tuple[FloatArray, FloatArray]],
           width: float, name: str, rounds: int = REFINE_ROUNDS
           ) -> tuple[FloatArray, FloatArray]:
    """(lo, hi) = answer(g) for g = num, then recompositions at smaller tol until
    max(hi − lo) ≤ width; each bracket is certified, so they are intersected.
    Derivation: docs/derivations/engine.md."""
    w = _validate.real("width", width, low=0.0, low_open=True)
    g = num
    lo, hi = answer(g)
    # a width out of the memory budget's reach is refused before any recomposition
    reachable_width(num, float(np.max(bracket_gap(lo, hi))) if np.size(lo) else 0.0, w, name)
    last_gap = math.inf
    for _ in range(rounds + 1):
        gap = float(np.max(bracket_gap(lo, hi))) if np.size(lo) else 0.0
        if gap <= w:
            return lo, hi
        if not math.isfinite(gap):
            raise ValueError(
                f"width={w:g} cannot be met for {name}: the bracket is unbounded "
                "(the upper side is inf: mass cut off at +inf by the discretisation, "
                "or beyond the gridded loss window, already exceeds the level asked)")
        if not g.source:
            raise ValueError(
                f"width={w:g} cannot be met for {name}: the bracket is {gap:.3g} wide "
                "and this result does not keep its factors to recompose them")
        if g is not num and gap > 0.9 * last_gap:
            break
        last_gap = gap
        tol = g.effective_tol * min(0.5, max(0.01, 0.7 * w / gap))
        try:
            g = num.refined(tol)
        except GridBudgetExceeded as err:
            raise ValueError(
                f"width={w:g} cannot be met for {name}: the bracket is {gap:.3g} wide "
                f"at tol={g.tol:g}, and tol={tol:g} would need a grid over the memory "
                f"budget ({err})") from None
        n_lo, n_hi = answer(g)
        lo, hi = np.maximum(lo, n_lo), np.minimum(hi, n_hi)
        lo = np.minimum(lo, hi)
    gap = float(np.max(bracket_gap(lo, hi)))
    if gap <= w:
        return lo, hi
    raise ValueError(
        f"width={w:g} cannot be met for {name}: recomposing down to tol={g.tol:g} "
        f"still leaves a bracket {gap:.3g} wide (limited by the floating-point and "
        "tail slack of the composition, not by the grid)")


def epsilon_read(num: Numeric, flat: FloatArray,
                 want: float | None) -> tuple[FloatArray, FloatArray]:
    """(ε_lo, ε_hi) at the δ values ``flat``: the plain read-back above
    PLAIN_READBACK_FLOOR × the round-off floor, intersected with (or, below it,
    replaced by) the tilted recomposition near the floor (``Numeric.epsilon_bounds``);
    ``want`` is the width asked, or None for the default."""
    floor = num.delta_floor
    plain = flat >= PLAIN_READBACK_FLOOR * floor
    near = (flat < TILT_READBACK_FLOOR * floor) & bool(num.source)
    if not (plain | near).all():
        raise ValueError(
            f"delta={float(np.min(flat[~plain])):g} is below the certified resolution "
            f"of this numeric result (round-off and tail slack {floor:.2g}; "
            f"need delta ≥ {PLAIN_READBACK_FLOOR * floor:.2g})")
    lo = np.zeros(flat.shape)
    hi = np.full(flat.shape, np.inf)
    if plain.any():
        lo[plain], hi[plain] = epsilon_plain(num.pess, num.opt, flat[plain])
    # tilt only where the plain bracket cannot answer, or not within the width
    if want is not None:
        target = np.full(flat.shape, want)
    elif max(lat.q.size for lat in num.pess) <= TILT_CHEAP:
        target = np.zeros(flat.shape)         # cheap: always the tighter bracket
    else:
        target = DEFAULT_REL_WIDTH * np.maximum(hi, 1.0)
    tilted = near & (~plain | ~(bracket_gap(lo, hi) <= target))
    if tilted.any():
        # both brackets are certified, so their intersection is
        for value in np.unique(flat[tilted]):
            at = flat == value
            try:
                t_lo, t_hi = num._tilted_bracket(float(value))
            except (ArithmeticError, ValueError, GridBudgetExceeded) as err:
                # not certified by tilting (mass at +∞, budget): the plain bracket stands
                if plain[at].all():
                    continue
                if isinstance(err, GridBudgetExceeded):
                    raise ValueError(
                        f"delta={value:g} needs a tilted recomposition whose grid is over "
                        f"the memory budget ({err}); this result certifies delta ≥ "
                        f"{PLAIN_READBACK_FLOOR * floor:.2g} without it") from None
                raise
            lo[at] = np.maximum(lo[at], t_lo)
            hi[at] = np.minimum(hi[at], t_hi)
    return lo, hi


def consistent_epsilon(num: Numeric, flat: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                       pure_hi: float) -> tuple[np.ndarray, np.ndarray]:
    """(ε_lo, ε_hi) at the δ values ``flat`` made consistent with what else is certified.
    Derivation: docs/derivations/engine.md."""
    lo = np.array(lo, dtype=float)
    hi = np.minimum(np.array(hi, dtype=float), pure_hi)
    ref = PLAIN_READBACK_FLOOR * num.delta_floor
    below = flat < ref
    if below.any() and ref < 1.0:
        ref_lo, _ = epsilon_plain(num.pess, num.opt, np.array([ref]))
        lo[below] = np.maximum(lo[below], ref_lo[0])
    order = np.argsort(flat, kind="stable")
    hi[order] = np.minimum.accumulate(hi[order])              # smaller δ first
    lo[order[::-1]] = np.maximum.accumulate(lo[order[::-1]])  # larger δ first
    return np.minimum(lo, hi), hi


def question_bracket(num: Numeric, flat: np.ndarray, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """(ε_lo, ε_hi) at the δ values ``flat``, at most rel·max(ε, QUESTION_EPS_FLOOR)
    wide: the check of a question-sized grid (``Numeric.epsilon_bounds`` without
    width, ``eps_width``). Derivation: docs/derivations/engine.md."""
    lo, hi = np.zeros(flat.shape), np.full(flat.shape, np.inf)
    plain = flat >= PLAIN_READBACK_FLOOR * num.delta_floor
    if plain.any():
        lo[plain], hi[plain] = num._epsilon_plain(flat[plain])
    want = rel * np.maximum(hi, QUESTION_EPS_FLOOR)
    if not (plain.all() and np.all(bracket_gap(lo, hi) <= want)):
        # near the floor: the tilted recomposition where the plain bracket misses
        lo, hi = num._epsilon_bracket(flat, want)
        want = rel * np.maximum(hi, QUESTION_EPS_FLOOR)
    w = float(np.min(want))
    if not np.all(bracket_gap(lo, hi) <= want) and math.isfinite(w):
        with contextlib.suppress(ValueError):
            lo, hi = refine(num, lambda g: g._epsilon_bracket(flat, want), w,
                            "epsilon(delta)")
    return lo, hi
