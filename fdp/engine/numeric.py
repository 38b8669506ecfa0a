"""The certified numeric composition: pipeline and result type.

    compose_numeric([(f_1, n_1), …, (f_m, n_m)], tol)
      1. choose the grid step Δ from tol and the spread of each factor's loss;
      2. discretise every factor on ΔZ twice: pessimistic and optimistic
         (``fdp.engine.discretise``);
      3. n_i-fold compositions by raising the transform to the n_i-th power
         (``lattice.power``), then a balanced tree of linear FFT convolutions over
         the distinct factors (``lattice.convolve``), cropping negligible tails to
         the safe side after each step (``lattice.crop``);
      4. return a ``Numeric`` trade-off function: f(α) and δ(ε) read back from the
         two lattices, each corrected by its certified slack.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from fdp import _validate
from fdp.engine.discretise import discretise, profile_range, window
from fdp.engine.lattice import (
    EXP_SAFE,
    LOSS_WINDOW,
    MAX_POINTS,
    OPTIMISTIC,
    PESSIMISTIC,
    Lattice,
    check_size,
    convolve,
    crop,
    power,
    reflect,
)
from fdp.engine.progress import Meter
from fdp.law import atoms_of as atoms
from fdp.law import interval_masses_of as interval_masses
from fdp.law import loss_moments_of as loss_moments
from fdp.law import loss_range_of as loss_range
from fdp.operations.envelope import Envelope
from fdp.tradeoff import TradeOff, math_repr, remark

DEFAULT_TOL = 1e-4
# Near the round-off floor (δ < 1000× it) a tilted recomposition tightens the plain
# bracket. It costs about what the composition cost: it is done by default when the
# composed lattices have at most TILT_CHEAP points, and for larger ones only when the
# plain bracket is wider than DEFAULT_REL_WIDTH·max(1, ε) (``Numeric.epsilon_bounds``).
DEFAULT_REL_WIDTH = 1e-3
TILT_CHEAP = 2 ** 20
# Recompositions at smaller tol that ``width=`` may ask for.
REFINE_ROUNDS = 4
# Tail mass cut (cropped to the safe side, or bounded by Chernoff when it wraps).
TAU = 1e-22
# Δ = STEP_SCALE · sqrt(tol · V / N): V the total variance of the composed loss, N
# the number of compositions. The discretisation changes the variance of each
# step's loss by O(Δ²), so the relative change of the composed law is N·Δ²/V.
STEP_SCALE = 1.3
MAX_STEP = 0.05
# Points of all distinct factors' own lattices together that the default accuracy may
# discretise (many distinct steps: the per-factor work dominates); over it the step
# is coarsened at tol = DEFAULT_TOL like the composed grid (GRID_POINTS).
FACTOR_POINTS = 2 ** 24
# Compose the pessimistic and optimistic sides of a single-group composition in two
# threads when a core is idle (``_idle_core``; the peak memory is then two transforms
# instead of one). The result is identical either way.
CONCURRENT_SIDES = True
# Composed grid points the default accuracy may use: at tol = DEFAULT_TOL (the
# default) a grid over this is coarsened to fit (about GRID_POINTS ·
# lattice.BYTES_PER_POINT bytes at the peak, 0.4 GB; the bracket stays certified, a
# little wider, and ``width=`` refines it); any other tol is taken as asked and
# raises MemoryError over lattice.MAX_POINTS.
GRID_POINTS = 2 ** 22

Directions = Literal["one", "both"]


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

    def parts(self, meter: Meter | None = None) -> list:
        """[(pessimistic, optimistic, n)] per group: discretised, uncropped."""
        parts = discretise_groups(self.groups, self.step, meter)
        return inverse_parts(self.groups, parts) if self.reflected else parts


@dataclass(frozen=True, eq=False)
class Numeric(TradeOff):
    """A certified numeric trade-off function: f(α) is the lower bound, ``bounds`` both.

    ``pess`` and ``opt`` are tuples of lattices: one each for a plain composition,
    two each — add and remove directions — for a one-sided symmetrisation
    min{f, f⁻¹}**, whose privacy profile is the maximum over them (``envelope``).
    Their δ-slacks are already part of every answer. ``tol`` is the accuracy the
    grid was chosen for (see ``compose_numeric``); the bracket itself is always
    certified. ``directions`` is "one" when the result describes one direction of
    add/remove neighbouring only (a composition of ``PoissonAdd`` factors: not a
    guarantee by itself), else "both". ``source`` holds one ``Recipe`` per lattice
    (the factors, for tilted recomposition at small δ and for the inverse), or ()
    when the factors are not kept.
    """

    pess: tuple
    opt: tuple
    label: str
    tol: float
    directions: Directions = "both"
    source: tuple = field(default=(), repr=False)
    # read-back curves of one-sided symmetrisations, filled on first use
    _curves: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.directions not in ("one", "both"):
            raise ValueError(f"directions must be 'one' or 'both', got {self.directions!r}")
        if not self.pess or len(self.pess) != len(self.opt):
            raise ValueError("pess and opt must hold the same number (≥ 1) of lattices")
        if self.source and len(self.source) != len(self.pess):
            raise ValueError("source must hold one Recipe per lattice, or be empty")

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_curves"] = {}
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    # -- identity ---------------------------------------------------------
    def __repr__(self):
        return f"Numeric({self.label}, tol={self.tol:g})" + remark(self)

    def latex(self) -> str:
        return r"\mathrm{Numeric}(" + self.label.replace("⊗", r"\otimes ") + ")"

    @property
    def is_exact(self) -> bool:
        return False

    @property
    def envelope(self) -> bool:
        """True when δ is the maximum over several lattices (add and remove directions)."""
        return len(self.pess) > 1

    @property
    def symmetric(self) -> bool:
        return self.envelope

    @property
    def single(self) -> bool:
        return not self.envelope

    def lattice(self, side: str) -> Lattice:
        return (self.pess if side == PESSIMISTIC else self.opt)[0]

    @property
    def mass(self) -> tuple[float, float]:
        """Total Q-mass of the pessimistic and optimistic lattices (≈ 1)."""
        return self.pess[0].mass, self.opt[0].mass

    @property
    def step(self) -> float:
        return self.pess[0].step

    @property
    def delta_floor(self) -> float:
        """Largest certified slack (round-off included): δ below about this cannot be
        resolved by the plain read-back (``epsilon_bounds`` then tilts)."""
        return max(lat.slack + lat.readback for lat in self.pess + self.opt)

    # -- privacy profile ----------------------------------------------------
    def _delta(self, eps):
        e = np.asarray(eps, dtype=float)
        out = np.max([lat.delta_raw(e) + lat.slack + lat.readback for lat in self.pess],
                     axis=0)
        return np.minimum(out, 1.0)

    def _delta_lower(self, eps):
        e = np.asarray(eps, dtype=float)
        out = np.max([np.maximum(lat.delta_raw(e) - lat.slack - lat.readback, 0.0)
                      for lat in self.opt], axis=0)
        return np.minimum(out, self._delta(e))

    # -- trade-off curve ----------------------------------------------------
    def _beta(self, alpha):
        a = np.asarray(alpha, dtype=float)
        if not self.envelope:
            lat = self.pess[0]
            return np.clip(lat.beta_raw(a) - lat.slack - lat.beta_readback, 0.0, 1.0 - a)
        return self._symmetric_curve(PESSIMISTIC, a)

    def _upper(self, alpha):
        a = np.asarray(alpha, dtype=float)
        if not self.envelope:
            lat = self.opt[0]
            out = np.minimum(lat.beta_raw(a) + lat.slack + lat.beta_readback, 1.0 - a)
        else:
            out = self._symmetric_curve(OPTIMISTIC, a)
        return np.maximum(out, self._beta(a))

    def _symmetric_curve(self, side, a):
        """max{g, g⁻¹} with g(α) = max_{k ≥ 0} (1 − δ(kΔ) − e^{kΔ} α).

        δ is the upper (pessimistic side) or lower (optimistic side) bound on the
        privacy profile, max over the two directions. For a symmetric truth f, its
        supporting lines at α below the fixed point have slopes ≤ −1 (ε ≥ 0), so g
        built from an upper (lower) bound on δ is a lower (upper) bound of f there,
        and f = f⁻¹ transfers it to the rest; max{g, g⁻¹} is therefore a certified
        side. Lattice profiles are linear in e^ε between grid points, so the grid
        k ≥ 0 loses nothing (see ``fdp.engine``).

        Only lines with kΔ ≤ EXP_SAFE are formed (e^{kΔ} must be finite). Dropping
        the steeper ones lowers g: safe for the pessimistic side. On the optimistic
        side the last line kept, k̂, takes δ's value at the lattices' top (where δ
        has reached its +∞ limit): 1 − δ(top) − e^{k̂Δ}α lies above every dropped
        line, so g stays an upper bound.
        """
        cache = self._curves
        if side not in cache:
            step = self.step
            top = max(lat.k0 + lat.q.size for lat in self.pess + self.opt) + 1
            last = min(max(top, 1), math.floor(EXP_SAFE / step))
            check_size(last + 1, "read-back curve")
            k = np.arange(0, last + 1)
            eps = k * step
            if side == PESSIMISTIC:
                D = np.max([lat.delta_grid(k) + lat.slack + lat.readback
                            for lat in self.pess], axis=0)
            else:
                kk = np.append(k, max(top, last))
                D = np.max([np.maximum(lat.delta_grid(kk) - lat.slack - lat.readback, 0.0)
                            for lat in self.opt], axis=0)
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
        shift = 2.0 * max(lat.readback for lat in self.pess + self.opt)
        out = np.maximum(g, g_inv) + (-shift if side == PESSIMISTIC else shift)
        return np.clip(out, 0.0, 1.0 - a)

    # -- accuracy in the user's unit: refinement from the kept factors --------
    def refined(self, tol: float) -> Numeric:
        """The same composition recomposed from its kept factors (``source``) at tol.

        Every Recipe is rediscretised on the step ``choose_step`` gives for tol (the
        same step for all of them, as when the result was built) and recomposed; the
        result is certified like the original (same argument, finer grid). Cached per
        tol. Raises ValueError when the factors were not kept, MemoryError when the
        grid for tol is over ``lattice.MAX_POINTS``.
        """
        tol = check_tol(tol)
        if not self.source:
            raise ValueError("this numeric result does not keep its factors (source=()), "
                             "so it cannot be recomposed at a smaller tol")
        key = ("refined", tol)
        if key not in self._curves:
            step, _ = choose_step(list(self.source[0].groups), tol, coarsen=False)
            recipes = tuple(replace(r, step=step) for r in self.source)
            meter = Meter(2 * len(recipes), f"refining (tol={tol:g})", None,
                          seconds=self._seconds(step))
            pess, opt = [], []
            for recipe in recipes:
                p, o = combine_parts(cropped(recipe.parts()))
                pess.append(p)
                opt.append(o)
                meter.advance(2)
            meter.close()
            self._curves[key] = Numeric(tuple(pess), tuple(opt), self.label, tol,
                                        directions=self.directions, source=recipes)
        return self._curves[key]

    @property
    def effective_tol(self) -> float:
        """The tol whose grid step is this result's step: ``tol``, or larger when the
        step was coarsened to keep the grid within ``GRID_POINTS`` (Δ ∝ √tol)."""
        if not self.source:
            return self.tol
        asked, _ = choose_step(list(self.source[0].groups), self.tol, coarsen=False,
                               check=False)
        return min(1.0, self.tol * max(1.0, (self.step / asked) ** 2))

    def _seconds(self, step: float) -> float:
        """Rough time to recompose on step Δ: the lattices' span in points, two sides."""
        span = sum(lat.q.size * lat.step for lat in self.pess) / step
        return seconds_for(span, 2)

    def _refine(self, answer, width, name: str):
        """(lo, hi) = answer(g) for g = self, then recompositions at smaller tol until
        max(hi − lo) ≤ width; each bracket is certified, so they are intersected.

        tol shrinks by the missing factor (at most 100× per round; the bracket width is
        about proportional to tol). Raises ValueError naming what limits the width: no
        kept factors, the memory budget (``lattice.MAX_POINTS``), or a width the
        discretisation cannot reach (no progress, or REFINE_ROUNDS rounds used).
        """
        w = _validate.real("width", width, low=0.0, low_open=True)
        g = self
        lo, hi = answer(g)
        for _ in range(REFINE_ROUNDS + 1):
            gap = float(np.max(_gap(lo, hi))) if np.size(lo) else 0.0
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
            if g is not self and gap > 0.9 * last_gap:
                break
            last_gap = gap
            tol = g.effective_tol * min(0.5, max(0.01, 0.7 * w / gap))
            try:
                g = self.refined(tol)
            except MemoryError as err:
                raise ValueError(
                    f"width={w:g} cannot be met for {name}: the bracket is {gap:.3g} wide "
                    f"at tol={g.tol:g}, and tol={tol:g} would need a grid over the memory "
                    f"budget ({err})") from None
            n_lo, n_hi = answer(g)
            lo, hi = np.maximum(lo, n_lo), np.minimum(hi, n_hi)
            lo = np.minimum(lo, hi)
        gap = float(np.max(_gap(lo, hi)))
        if gap <= w:
            return lo, hi
        raise ValueError(
            f"width={w:g} cannot be met for {name}: recomposing down to tol={g.tol:g} "
            f"still leaves a bracket {gap:.3g} wide (limited by the floating-point and "
            "tail slack of the composition, not by the grid)")

    def bounds(self, alpha, width=None):
        """(lower, upper) β at α, certified; with ``width``, recomposed at smaller tol
        until upper − lower ≤ width everywhere (or a ValueError naming the limit)."""
        a = _validate.alpha(alpha)
        if width is None:
            lo, hi = self._beta(a), self._upper(a)
        else:
            lo, hi = self._refine(lambda g: (g._beta(a), g._upper(a)), width, "beta(alpha)")
        return _validate.like_input(alpha, lo), _validate.like_input(alpha, hi)

    def delta_bounds(self, eps, width=None):
        """(lower, upper) δ at ε, certified; ``width`` as in ``bounds``."""
        e = _validate.reals("eps", eps, allow_inf=True)
        if width is None:
            lo, hi = self._delta_lower(e), self._delta(e)
        else:
            lo, hi = self._refine(lambda g: (g._delta_lower(e), g._delta(e)), width,
                                  "delta(eps)")
        return _validate.like_input(eps, lo), _validate.like_input(eps, hi)

    # -- (ε, δ): plain read-back above the floor, tilted recomposition below -----
    def epsilon(self, delta):
        return self.epsilon_bounds(delta)[1]

    def epsilon_bounds(self, delta, width=None):
        """(lower, upper) ε at δ, certified.

        Above 10× the round-off floor (``delta_floor``) the composed lattices are
        read directly. Below 10× the floor, and below 1000× the floor when the plain
        bracket is wider than asked (``width``; by default any width for lattices of
        at most TILT_CHEAP points, 1e-3·max(1, ε) for larger ones), the
        factors are recomposed exponentially tilted towards that δ
        (``fdp.engine.tilted``), whose error is relative to δ itself; where both
        apply the intersection is returned (cached per δ). With ``width`` the
        composition is refined (``refined``, smaller tol) until hi − lo ≤ width, or a
        ValueError names what limits it. The answer can be inf where atoms cut off at
        +∞ (tails below ~1e-25 per step, or losses beyond the gridded window
        ``lattice.LOSS_WINDOW``) already exceed δ.
        """
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        if d.size and (np.any(d <= 0.0) or np.any(d >= 1.0)):
            raise ValueError(
                "delta must lie in the open interval (0, 1) for a numeric result: δ = 0 "
                "asks for pure DP, which no discretised bracket certifies (see "
                f"pure_epsilon()), and δ = 1 is trivial; got {delta!r}")
        flat = d.ravel()
        if width is None:
            lo, hi = self._epsilon_bracket(flat, None)
        else:
            w = _validate.real("width", width, low=0.0, low_open=True)
            lo, hi = self._refine(lambda g: g._epsilon_bracket(flat, w), w, "epsilon(delta)")
        return (_validate.like_input(delta, lo.reshape(d.shape)),
                _validate.like_input(delta, hi.reshape(d.shape)))

    def _epsilon_bracket(self, flat, want):
        floor = self.delta_floor
        plain = flat >= 10.0 * floor
        near = (flat < 1000.0 * floor) & bool(self.source)
        if not (plain | near).all():
            raise ValueError(
                f"delta={float(np.min(flat[~plain])):g} is below the certified resolution "
                f"of this numeric result (round-off and tail slack {floor:.2g}; "
                f"need delta ≥ {10 * floor:.2g})")
        lo = np.zeros(flat.shape)
        hi = np.full(flat.shape, np.inf)
        if plain.any():
            lo[plain], hi[plain] = self._epsilon_plain(flat[plain])
        # tilt only where the plain bracket cannot answer, or not within the width
        if want is not None:
            target = np.full(flat.shape, want)
        elif max(lat.q.size for lat in self.pess) <= TILT_CHEAP:
            target = np.zeros(flat.shape)         # cheap: always the tighter bracket
        else:
            target = DEFAULT_REL_WIDTH * np.maximum(hi, 1.0)
        tilted = near & (~plain | ~(_gap(lo, hi) <= target))
        if tilted.any():
            # both brackets are certified, so their intersection is
            for value in np.unique(flat[tilted]):
                at = flat == value
                try:
                    t_lo, t_hi = self._tilted_bracket(float(value))
                except (ArithmeticError, ValueError):
                    # the tilted recomposition could not certify this δ (e.g. per-step
                    # mass at +∞ beyond its range); the plain bracket, where it
                    # applies, is certified on its own
                    if not plain[at].all():
                        raise
                    continue
                lo[at] = np.maximum(lo[at], t_lo)
                hi[at] = np.minimum(hi[at], t_hi)
        return lo, hi

    def _tilted_bracket(self, delta: float) -> tuple[float, float]:
        """The tilted recomposition's (ε_lo, ε_hi) at δ, cached per δ (and the
        per-step lattices it starts from, once per result)."""
        from fdp.engine.tilted import epsilon_bracket
        key = ("tilt", delta)
        if key not in self._curves:
            if "parts" not in self._curves:
                self._curves["parts"] = [recipe.parts() for recipe in self.source]
            directions = self._curves["parts"]
            meter = Meter(4 * len(directions), "tilted recomposition", None,
                          seconds=self._seconds(self.step))
            self._curves[key] = epsilon_bracket(directions, delta, self.step, meter)
            meter.close()
        return self._curves[key]

    def _epsilon_plain(self, d):
        """(ε_lo, ε_hi) from the composed lattices, each solved exactly per lattice.

        δ_upper = max_i (δ_i + η_i) ≤ d ⇔ δ_i ≤ d − η_i for every i, so ε_hi is the
        largest of the lattices' own ε at d − η_i (η_i: slack plus read-back bound);
        likewise ε_lo at d + η_i on the optimistic lattices. Each answer is checked
        against the lattice's δ and nudged up if round-off in the cell formula left
        it short.
        """
        def solve(lats, sign):
            out = np.zeros(d.shape)
            for lat in lats:
                target = d + sign * (lat.slack + lat.readback)
                e = lat.epsilon_raw(target)
                for nudge in (1e-13, 1e-10, 1e-7, lat.step):
                    short = np.isfinite(e) & (lat.delta_raw(e) > target)
                    if not short.any():
                        break
                    e = np.where(short, e + nudge * max(1.0, float(np.max(e[short]))), e)
                out = np.maximum(out, e)
                lat.drop_tables_if_large()
            return out
        hi = solve(self.pess, -1.0)
        lo = solve(self.opt, +1.0)
        return np.minimum(lo, hi), hi

    def _inverse(self) -> TradeOff:
        """(⊗ f_i)⁻¹ = ⊗ f_i⁻¹ (DRS Prop 3.2): recompose the reflected factors.

        Reflection of a factor's lattices is exact (``lattice.reflect``), so the
        inverse is certified like the original; without the factors (or when one
        carries a slack) the generic inversion of ``fdp.operations.inverse`` is used.
        """
        from fdp.operations.inverse import Inverse
        if self.envelope:
            return self
        if not self.source:
            return Inverse(self)
        recipe = replace(self.source[0], reflected=not self.source[0].reflected)
        base = replace(recipe, reflected=False).parts()     # the factors, unreflected
        if any(lat.slack for lp, lo, _ in base for lat in (lp, lo)):
            return Inverse(self)
        parts = inverse_parts(recipe.groups, base) if recipe.reflected else base
        pess, opt = combine_parts(cropped(parts))
        return Numeric((pess,), (opt,), f"({self.label})⁻¹", self.tol,
                       directions=self.directions, source=(recipe,))

    def symmetrize(self, one_sided: bool = False) -> TradeOff:
        """As ``TradeOff.symmetrize``; one-sided: both directions kept as lattices.

        min{f, f⁻¹}** has privacy profile max(δ_f, δ_{f⁻¹}), which is what an
        ``envelope`` result reads (the same form ``fdp.dpsgd`` returns).
        """
        one_sided = _validate.flag("one_sided", one_sided)
        if self.envelope or not one_sided:
            return super().symmetrize(one_sided)
        inv = self.inverse()
        if not isinstance(inv, Numeric):
            return super().symmetrize(one_sided)
        return Numeric((self.pess[0], inv.pess[0]), (self.opt[0], inv.opt[0]),
                       f"symmetrize({self.label})", self.tol, directions="both",
                       source=self.source + inv.source)

    def _gdp_mu_bounds(self):
        """(lo, hi) around the smallest μ with f ≥ G_μ (``fdp.engine.summaries``)."""
        from fdp.engine.summaries import gdp_mu_bounds
        return gdp_mu_bounds(self)

    def _pure_epsilon_bounds(self):
        """(lo, hi) around the smallest ε with f ≥ f_{ε,0} (``fdp.engine.summaries``)."""
        from fdp.engine.summaries import pure_epsilon_bounds
        return pure_epsilon_bounds(self)


# ----------------------------------------------------------------------
# Grid choice
# ----------------------------------------------------------------------
def _gap(lo, hi) -> np.ndarray:
    """hi − lo, 0 where both are the same (inf included: ε = ∞ certified on both sides)."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    same = lo == hi
    return np.where(same, 0.0, hi - np.where(same, 0.0, lo))


def seconds_for(points: float, transforms: int) -> float:
    """Rough wall time of ``transforms`` FFT-sized passes over ``points`` grid points,
    about 4e-7 s per point each (for the progress meter only)."""
    return 4e-7 * points * transforms


def _spread(f) -> tuple[float, float, float, float, float]:
    """(mean, variance, lo, hi, gridded variance) of the loss of f under Q.

    lo, hi: the gridded (windowed) range. The gridded variance is that of the law as
    the lattices hold it, mass beyond the window counted at the window's edge (where
    the optimistic side puts it); it sizes the composed grid. The variance itself
    (of the whole law, or of a coarse lattice) sets the step.
    """
    if isinstance(f, Numeric) and f.single:
        lat = f.pess[0]
        m, v = lat.moments()
        return (m, v) + window((lat.losses[0], lat.losses[-1])) + (v,)
    rng = loss_range(f)
    known = loss_moments(f)
    clipped = rng is not None and window(rng) != (float(rng[0]), float(rng[1]))
    if rng is not None and known is not None and not clipped:
        return (known[0], known[1]) + window(rng) + (known[1],)
    if rng is None or (interval_masses(f, np.zeros(1)) is None
                       and not isinstance(f, Envelope)):
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


def choose_step(groups, tol: float, coarsen: bool = True,
                check: bool = True) -> tuple[float, list]:
    """Δ = STEP_SCALE·sqrt(tol·V/N)/max(1, V)^{1/4}, capped, at least tol/N, and the
    per-group spreads. At tol = DEFAULT_TOL a composed grid over GRID_POINTS gets a
    coarser step that fits (the grid sized by the budget, not the law: huge T stays
    within memory). Raises MemoryError naming tol before anything is allocated
    when the composed grid would exceed ``lattice.MAX_POINTS``. ``coarsen=False``,
    ``check=False``: the step tol asks for, as it is (``Numeric.refined``,
    ``Numeric.effective_tol``)."""
    spreads = [_spread(f) for f, _ in groups]
    N = sum(n for _, n in groups)
    V = sum(n * s[1] for (_, n), s in zip(groups, spreads))
    # ε grows with the spread of the composed loss and so does its sensitivity to
    # the variance error: shrink Δ by V^{1/4} once V > 1
    step = (STEP_SCALE * math.sqrt(tol * V / N) / max(1.0, V) ** 0.25
            if math.isfinite(V) else MAX_STEP)
    # resolve the narrowest factor, but not below 1% of the typical one: a factor
    # that is nearly a point mass needs no finer grid (its discretisation moves the
    # composed variance by O(Δ²) like any other)
    smallest_sd = min(math.sqrt(s[1]) for s in spreads)
    step = min(step, MAX_STEP, max(smallest_sd, 0.01 * math.sqrt(V / N), 1e-9))
    # a composed law of tiny variance needs no cells finer than tol/N: connect-the-dots
    # moves δ by at most a quarter of a cell's width in e^ε (δ is convex in e^ε with
    # slope in [−1, 0]), so N factors move it by ≲ N·Δ/4 ≤ tol/4 near ε = 0 and far
    # less in the tails — while a grid of steps √(tol·V) would be enormous
    step = max(step, min(tol / N, MAX_STEP))
    step = _snap(groups, step)
    # composed loss width: bulk ± 20 sd (Chernoff windows are ~14–20 sd), never
    # more than the sum of ranges; the transform itself checks its exact window
    width = composed_width(groups, spreads)
    # per-factor lattices: each distinct factor is discretised on its own range
    ranges = sum(s[3] - s[2] for s in spreads)
    if tol == DEFAULT_TOL and coarsen and (width / step > GRID_POINTS
                                           or ranges / step > FACTOR_POINTS):
        # the default accuracy is a target: keep the grids within the budget by a
        # coarser step (every answer stays certified, the bracket a little wider)
        coarse = max(step, width / GRID_POINTS, ranges / FACTOR_POINTS)
        snapped = _snap(groups, coarse)
        # (an atom closer to 0 than the step cannot be snapped without refining the
        # grid again: it is then contracted with its cell like any other mass)
        step = snapped if snapped >= 0.5 * coarse else coarse
    if width / step > MAX_POINTS and check:
        raise MemoryError(
            f"tol={tol:g} needs a grid of about {width / step:,.0f} points for this "
            f"composition, over the engine limit of {MAX_POINTS:,}; increase tol")
    return step, spreads


def composed_width(groups, spreads) -> float:
    """Loss width the composed grid spans: bulk ± 20 sd of the gridded law (Chernoff
    windows are ~14–20 sd), never more than the sum of ranges, plus one factor's range."""
    V_grid = sum(n * s[4] for (_, n), s in zip(groups, spreads))
    return min(sum(n * (s[3] - s[2]) for (_, n), s in zip(groups, spreads)),
               40.0 * math.sqrt(V_grid) + 1.0) + max(s[3] - s[2] for s in spreads)


def expected_seconds(groups, spreads, step: float, directions: int = 1) -> float:
    """Rough wall time of composing groups on step Δ (for the progress meter only)."""
    points = composed_width(groups, spreads) / step
    return seconds_for(points, 2 * directions * len(groups))


def _snap(groups, step: float) -> float:
    """Shrink Δ slightly so the heaviest atom of the most composed factor is on the grid.

    Point masses off the grid are the one thing the optimistic side cannot
    contract cheaply; putting the dominant one on the grid removes that cost.
    """
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


# ----------------------------------------------------------------------
# Pipeline
# ----------------------------------------------------------------------
def discretise_groups(groups, step: float, meter: Meter | None = None) -> list:
    """[(pessimistic, optimistic, n)] for groups (f, n): each factor on ΔZ, both sides."""
    parts = []
    for f, n in groups:
        lp, lo = discretise(f, step)
        parts.append((lp, lo, n))
        if meter is not None:
            meter.advance()
    return parts


def inverse_parts(groups, parts) -> list:
    """[(pessimistic, optimistic, n)] of the inverse pairs f_i⁻¹ = T(Q, P) of groups (f_i, n_i)
    whose own discretised lattices are ``parts``.

    Pessimistic: the reflection of f_i's pessimistic lattice, which is exactly the
    connect-the-dots lattice of f_i⁻¹ (``lattice.reflect``) — unless f_i⁻¹ has an
    exact law and the reflection would send P-mass to +∞ (P-mass at losses below
    ≈ −708, where the Q-masses the lattice stores underflow): then f_i⁻¹ is
    discretised directly, with its own Q-masses. Optimistic: f_i⁻¹ discretised
    directly — reflecting an optimistic lattice is not optimistic where its
    rounding lost Q-mass (the reflection then carries a slack of that size,
    ``lattice.reflect``), which happens near point-like parts of a law.
    """
    out = []
    for (f, _), (lp, lo, n) in zip(groups, parts):
        inv = f.inverse()
        if inv is f:                                     # symmetric: its own lattices
            out.append((lp, lo, n))
            continue
        pess = reflect(lp)
        if pess.q_inf > 1e-30 and loss_range(inv) is not None:
            pess, opt = discretise(inv, lp.step)
        else:
            opt = discretise(inv, lp.step, OPTIMISTIC)
        out.append((pess, opt, n))
    return out


def cropped(parts, tau: float = TAU) -> list:
    return [(crop(lp, tau), crop(lo, tau), n) for lp, lo, n in parts]


def power_tau(n: int, tau: float = TAU) -> float:
    """Tail mass allowed out of an n-fold power's window (and cropped after it).

    Whatever is cut or wrapped is paid into the slack (2τ); the transform's own
    round-off slack is at least ~n·1e-14, so τ up to a thousandth of that costs
    nothing visible, and a narrower window is a faster transform. Capped at 1e-12.
    """
    return min(max(tau, 1e-17 * n), 1e-12)


def _idle_core() -> bool:
    """True when a second core is free: more than one core and a load average below
    cores − 1 (on a machine already busy a second thread only slows both sides:
    measured 0.33 s against 0.26 s with the load at 3.5 per core)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return False
    return cores > 1 and load < cores - 1


def combine_parts(parts, tau: float = TAU,
                  meter: Meter | None = None) -> tuple[Lattice, Lattice]:
    """⊗ of discretised groups, both sides: power each group, then a balanced tree."""
    def side(i):
        powers = []
        for part in parts:
            t = power_tau(part[2], tau)
            powers.append(crop(power(part[i], part[2], t), t))
            if meter is not None:
                meter.advance()
        return _tree(powers, tau, meter)
    if CONCURRENT_SIDES and len(parts) == 1 and _idle_core():
        # the two sides are independent: the transforms release the GIL, so the
        # optimistic side runs on a second core (a single n-fold power: the common
        # DP-SGD case, where the peak is one transform per side)
        with ThreadPoolExecutor(max_workers=1) as pool:
            other = pool.submit(side, 1)
            first = side(0)
            return first, other.result()
    return side(0), side(1)


def work_units(groups: int, directions: int = 1) -> int:
    """Steps a Meter counts: discretisations, then per side and direction the powers
    and the tree's convolutions."""
    return groups + 2 * directions * (2 * groups - 1)


def _tree(parts, tau, meter: Meter | None = None):
    while len(parts) > 1:
        parts.sort(key=lambda lat: lat.q.size)
        nxt = []
        for i in range(0, len(parts) - 1, 2):
            nxt.append(crop(convolve(parts[i], parts[i + 1]), tau))
            if meter is not None:
                meter.advance()
        if len(parts) % 2:
            nxt.append(parts[-1])
        parts = nxt
    return parts[0]


def _validate_groups(factors):
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


def _label(groups) -> str:
    """Factors' reprs (without their one-direction remark) joined by ⊗."""
    bare = [math_repr(f) for f, _ in groups[:4]]
    parts = [b if n == 1 else f"{b}^{n}" for b, (_, n) in zip(bare, groups[:4])]
    if len(groups) > 4:
        total = sum(n for _, n in groups)
        parts.append(f"… ({len(groups)} distinct factors, {total} in all)")
    return " ⊗ ".join(parts)


def _directions(groups) -> str:
    """"one" if any factor covers one direction of add/remove neighbouring only."""
    return "one" if any(f.directions == "one" for f, _ in groups) else "both"


def check_tol(tol) -> float:
    if tol is None:
        return DEFAULT_TOL
    return _validate.real("tol", tol, low=0.0, low_open=True, high=1.0)


def compose_numeric(factors, tol: float | None = None, progress: bool | None = None) -> Numeric:
    """Certified numeric composition ⊗_i f_i^{⊗n_i} (DRS Def 3.1; MATH.md §4).

    ``factors`` is a list of ``(TradeOff, count)`` pairs (equal factors grouped);
    any ``TradeOff`` is accepted, including earlier ``Numeric`` results.

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
    to fit (certified, wider; refine with ``width=``); an explicit tol over the
    memory limit raises ``MemoryError`` naming tol.
    """
    groups = _validate_groups(factors)
    tol = check_tol(tol)
    step, spreads = choose_step(groups, tol)
    meter = Meter(work_units(len(groups)), "composing", progress,
                  seconds=expected_seconds(groups, spreads, step))
    pess, opt = combine_parts(cropped(discretise_groups(groups, step, meter)), meter=meter)
    meter.close()
    return Numeric((pess,), (opt,), _label(groups), tol, directions=_directions(groups),
                   source=(Recipe(tuple(groups), step),))
