"""The certified numeric result: a trade-off function read back from two lattices.

``compose_numeric`` runs the pipeline (``fdp.engine.pipeline``) and returns a
``Numeric``: f(α) and δ(ε) read back from the pessimistic and optimistic composed
lattices, each corrected by its certified slack; ε(δ) solved cell by cell, or, far
below the round-off floor, from a tilted recomposition (``fdp.engine.tilted``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from fdp import _validate
from fdp._constants import PLAIN_READBACK_FLOOR, TILT_READBACK_FLOOR
from fdp.engine.grid import DEFAULT_TOL, choose_step, expected_seconds, seconds_for
from fdp.engine.lattice import (
    OPTIMISTIC,
    PESSIMISTIC,
    Lattice,
)
from fdp.engine.pipeline import (
    _directions,
    _label,
    _validate_groups,
    check_tol,
    combine_parts,
    cropped,
    discretise_groups,
    inverse_parts,
    work_units,
)
from fdp.engine.progress import Meter
from fdp.engine.readback import bracket_gap, epsilon_plain, refine, symmetric_curve
from fdp.engine.summaries import gdp_mu_bounds, pure_epsilon_bounds
from fdp.engine.tilted import epsilon_bracket
from fdp.tradeoff import TradeOff, remark

# Near the round-off floor (δ < TILT_READBACK_FLOOR × it) a tilted recomposition
# tightens the plain bracket. It costs about what the composition cost: it is done by
# default when the composed lattices have at most TILT_CHEAP points, and for larger
# ones only when the plain bracket is wider than DEFAULT_REL_WIDTH·max(1, ε)
# (``Numeric.epsilon_bounds``).
DEFAULT_REL_WIDTH = 1e-3
TILT_CHEAP = 2 ** 20

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

    def _lattices(self) -> tuple[tuple, tuple]:
        return self.pess, self.opt

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
        return symmetric_curve(self, PESSIMISTIC, a)

    def _upper(self, alpha):
        a = np.asarray(alpha, dtype=float)
        if not self.envelope:
            lat = self.opt[0]
            out = np.minimum(lat.beta_raw(a) + lat.slack + lat.beta_readback, 1.0 - a)
        else:
            out = symmetric_curve(self, OPTIMISTIC, a)
        return np.maximum(out, self._beta(a))

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

    def bounds(self, alpha, width=None):
        """(lower, upper) β at α, certified; with ``width``, recomposed at smaller tol
        until upper − lower ≤ width everywhere (or a ValueError naming the limit)."""
        a = _validate.alpha(alpha)
        if width is None:
            lo, hi = self._beta(a), self._upper(a)
        else:
            lo, hi = refine(self, lambda g: (g._beta(a), g._upper(a)), width, "beta(alpha)")
        return _validate.like_input(alpha, lo), _validate.like_input(alpha, hi)

    def delta_bounds(self, eps, width=None):
        """(lower, upper) δ at ε, certified; ``width`` as in ``bounds``."""
        e = _validate.reals("eps", eps, allow_inf=True)
        if width is None:
            lo, hi = self._delta_lower(e), self._delta(e)
        else:
            lo, hi = refine(self, lambda g: (g._delta_lower(e), g._delta(e)), width,
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
            lo, hi = refine(self, lambda g: g._epsilon_bracket(flat, w), w, "epsilon(delta)")
        return (_validate.like_input(delta, lo.reshape(d.shape)),
                _validate.like_input(delta, hi.reshape(d.shape)))

    def _epsilon_bracket(self, flat, want):
        floor = self.delta_floor
        plain = flat >= PLAIN_READBACK_FLOOR * floor
        near = (flat < TILT_READBACK_FLOOR * floor) & bool(self.source)
        if not (plain | near).all():
            raise ValueError(
                f"delta={float(np.min(flat[~plain])):g} is below the certified resolution "
                f"of this numeric result (round-off and tail slack {floor:.2g}; "
                f"need delta ≥ {PLAIN_READBACK_FLOOR * floor:.2g})")
        lo = np.zeros(flat.shape)
        hi = np.full(flat.shape, np.inf)
        if plain.any():
            lo[plain], hi[plain] = epsilon_plain(self.pess, self.opt, flat[plain])
        # tilt only where the plain bracket cannot answer, or not within the width
        if want is not None:
            target = np.full(flat.shape, want)
        elif max(lat.q.size for lat in self.pess) <= TILT_CHEAP:
            target = np.zeros(flat.shape)         # cheap: always the tighter bracket
        else:
            target = DEFAULT_REL_WIDTH * np.maximum(hi, 1.0)
        tilted = near & (~plain | ~(bracket_gap(lo, hi) <= target))
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

    def _inverse(self) -> TradeOff:
        """(⊗ f_i)⁻¹ = ⊗ f_i⁻¹ (DRS Prop 3.2): recompose the reflected factors.

        Reflection of a factor's lattices is exact (``lattice.reflect``), so the
        inverse is certified like the original; without the factors (or when one
        carries a slack) the generic inversion of ``fdp.operations.inverse`` is used.
        """
        if self.envelope:
            return self
        if not self.source:
            return super()._inverse()
        recipe = replace(self.source[0], reflected=not self.source[0].reflected)
        base = replace(recipe, reflected=False).parts()     # the factors, unreflected
        if any(lat.slack for lp, lo, _ in base for lat in (lp, lo)):
            return super()._inverse()
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
        return gdp_mu_bounds(self)

    def _pure_epsilon_bounds(self):
        """(lo, hi) around the smallest ε with f ≥ f_{ε,0} (``fdp.engine.summaries``)."""
        return pure_epsilon_bounds(self)


def compose_numeric(factors, tol: float | None = None, progress: bool | None = None) -> Numeric:
    """Certified numeric composition ⊗_i f_i^{⊗n_i} (DRS 2022, Def 3.1 and Thm 3.2).

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


__all__ = ["DEFAULT_TOL", "Numeric", "Recipe", "compose_numeric"]
