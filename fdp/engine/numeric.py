"""The certified numeric result: a trade-off function read back from two lattices.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray, FloatOrArray
from fdp.bracket import Bracket
from fdp.engine.composition import Direction, compose_lattices
from fdp.engine.grid import DEFAULT_TOL, choose_step, seconds_for
from fdp.engine.lattice import (
    OPTIMISTIC,
    PESSIMISTIC,
    Lattice,
)
from fdp.engine.pipeline import (
    Recipe,
    check_tol,
    combine_parts,
    cropped,
    inverse_parts,
)
from fdp.engine.readback import (
    consistent_epsilon,
    epsilon_plain,
    epsilon_read,
    question_bracket,
    refine,
    symmetric_curve,
)
from fdp.engine.summaries import gdp_mu_bounds, pure_epsilon_bounds
from fdp.engine.tilted import epsilon_bracket
from fdp.progress import Meter
from fdp.status import Status
from fdp.tradeoff import TradeOff, remark

Directions = Literal["one", "both"]


@dataclass(frozen=True, eq=False)
class Numeric(TradeOff):
    """A certified numeric trade-off function: f(α) is the lower bound, ``bounds`` both.

    Returned by ``compose_numeric`` (and by ``f @ g`` when no closed form applies); every
    answer is read from lattices bracketing the truth (``fdp.engine``), every error on the
    safe side. Plain data: results pickle and unpickle to identical answers.

    Parameters
    ----------
    pess, opt : tuple of Lattice
        One lattice each for a plain composition; two each — add and remove
        directions — for a one-sided symmetrisation min{f, f⁻¹}**, whose privacy
        profile is the maximum over them (``envelope``; DRS 2022, Prop 2.12). Their
        δ-slacks are already part of every answer.
    label : str
        The factors, for ``repr``.
    tol : float
        The accuracy the grid was chosen for (``compose_numeric``); the bracket
        itself is always certified.
    directions : {"both", "one"}, optional
        "one" when the result describes one direction of add/remove neighbouring
        only (a composition of ``PoissonAdd`` factors: not a guarantee by itself).
    status : Status, optional
        ``Status.CERTIFIED`` (the default), or the weaker status of the factors it was
        composed from (``fdp.status``: the weakest input wins): the bracket is then
        certified for the factors as given, which are not themselves guarantees.
    source : tuple of Recipe, optional
        One ``Recipe`` per lattice (the factors, for tilted recomposition at small δ,
        for ``refined`` and for the inverse), or () when the factors are not kept.

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine import compose_numeric
    >>> f = compose_numeric([(fdp.Laplace(1.0), 3)])
    >>> f
    Numeric(Laplace(mu=1.0)^3, tol=0.0001)
    >>> lo, hi = f.bounds(0.1)
    >>> print(f"{lo:.4f} {hi:.4f}")
    0.4179 0.4179
    >>> bool(f(0.1) == lo)
    True
    """

    pess: tuple
    opt: tuple
    label: str
    tol: float
    directions: Directions = "both"
    source: tuple = field(default=(), repr=False)
    eps_width: float | None = field(default=None, repr=False)
    status: Status = field(default=Status.CERTIFIED, repr=False)
    # read-back curves of one-sided symmetrisations, filled on first use
    _curves: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.directions not in ("one", "both"):
            raise ValueError(f"directions must be 'one' or 'both', got {self.directions!r}")
        if not self.pess or len(self.pess) != len(self.opt):
            raise ValueError("pess and opt must hold the same number (≥ 1) of lattices")
        if self.source and len(self.source) != len(self.pess):
            raise ValueError("source must hold one Recipe per lattice, or be empty")
        if self.eps_width is not None:
            _validate.real("eps_width", self.eps_width, low=0.0, low_open=True)
        if not isinstance(self.status, Status) or self.status is Status.EXACT:
            raise ValueError("status must be a Status other than EXACT (a numeric result "
                             f"is at best certified), got {self.status!r}")

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_curves"] = {}
        return state

    def __setstate__(self, state: object) -> None:
        assert isinstance(state, dict)     # our ``__getstate__``'s copy of ``__dict__``
        self.__dict__.update(state)

    # -- identity ---------------------------------------------------------
    def __repr__(self) -> str:
        return f"Numeric({self.label}, tol={self.tol:g})" + remark(self)

    def latex(self) -> str:
        return r"\mathrm{Numeric}(" + self.label.replace("⊗", r"\otimes ") + ")"


    @property
    def envelope(self) -> bool:
        """True when δ is the maximum over several lattices (add and remove directions).

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> f = compose_numeric([(fdp.Laplace(1.0).subsample(0.5, direction="add"), 3)])
        >>> f.envelope, f.symmetrize(one_sided=True).envelope
        (False, True)
        """
        return len(self.pess) > 1

    @property
    def symmetric(self) -> bool:
        """True for a one-sided symmetrisation (``envelope``): then f = f⁻¹."""
        return self.envelope

    @property
    def single(self) -> bool:
        """True for a plain composition (one lattice per side)."""
        return not self.envelope

    def _lattices(self) -> tuple[tuple, tuple]:
        return self.pess, self.opt

    def lattice(self, side: str) -> Lattice:
        """The first (for a plain composition the only) ``Lattice`` of ``side``, "pessimistic"
        (δ above the truth) or "optimistic" (below): Q-masses ``q`` on ``losses``, the atom
        ``q_inf`` at +∞ and its certified δ-slack ``slack``.

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> lat = compose_numeric([(fdp.Laplace(1.0), 2)]).lattice("pessimistic")
        >>> print(f"{lat.mass:.6f}")
        1.000000
        """
        return (self.pess if side == PESSIMISTIC else self.opt)[0]

    @property
    def mass(self) -> tuple[float, float]:
        """Total Q-mass of the pessimistic and optimistic lattices (≈ 1).

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> p, o = compose_numeric([(fdp.Laplace(1.0), 2)]).mass
        >>> print(f"{p:.9f} {o:.9f}")
        1.000000000 1.000000000
        """
        return self.pess[0].mass, self.opt[0].mass

    @property
    def step(self) -> float:
        """The grid step Δ of the privacy-loss lattice ΔZ.

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> bool(0.0 < compose_numeric([(fdp.Laplace(1.0), 2)]).step <= 0.05)
        True
        """
        return self.pess[0].step

    @property
    def delta_floor(self) -> float:
        """Largest certified slack (round-off included): δ below about this cannot be
        resolved by the plain read-back (``epsilon_bounds`` then tilts).

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> bool(compose_numeric([(fdp.Laplace(1.0), 2)]).delta_floor < 1e-9)
        True
        """
        return max(lat.slack + lat.readback for lat in self.pess + self.opt)

    # -- privacy profile ----------------------------------------------------
    def _delta(self, eps: FloatArray) -> FloatArray:
        """Upper δ: the pessimistic lattices' δ plus their slack, and 0 from the certified
        pure ε on (f ≥ f_{ε*,0} gives δ(ε) = 0 for ε ≥ ε*, DRS Prop 2.12)."""
        e = np.asarray(eps, dtype=float)
        out = np.max([lat.delta_raw(e) + lat.slack + lat.readback for lat in self.pess],
                     axis=0)
        pure_hi = self._pure_hi()
        zero = (e >= pure_hi) if np.isfinite(pure_hi) else np.zeros(e.shape, dtype=bool)
        return np.where(zero, 0.0, np.minimum(out, 1.0))

    def _pure_hi(self) -> float:
        """The upper end of ``_pure_epsilon_bounds``."""
        return float(self._pure_epsilon_bounds()[1])

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        e = np.asarray(eps, dtype=float)
        out = np.max([np.maximum(lat.delta_raw(e) - lat.slack - lat.readback, 0.0)
                      for lat in self.opt], axis=0)
        return np.minimum(out, Numeric._delta(self, e))

    # -- trade-off curve ----------------------------------------------------
    def _beta(self, alpha: FloatArray) -> FloatArray:
        a = np.asarray(alpha, dtype=float)
        if not self.envelope:
            lat = self.pess[0]
            return np.clip(lat.beta_raw(a) - lat.slack - lat.beta_readback, 0.0, 1.0 - a)
        return symmetric_curve(self, PESSIMISTIC, a)

    def _upper(self, alpha: FloatArray) -> FloatArray:
        a = np.asarray(alpha, dtype=float)
        if not self.envelope:
            lat = self.opt[0]
            out = np.minimum(lat.beta_raw(a) + lat.slack + lat.beta_readback, 1.0 - a)
        else:
            out = symmetric_curve(self, OPTIMISTIC, a)
        return np.maximum(out, self._beta(a))

    # -- accuracy in the user's unit: refinement from the kept factors --------
    def refined(self, tol: float) -> Numeric:
        """The same composition recomposed from its kept factors (``source``) at tol ∈ (0, 1],
        certified on its own; ``ValueError`` when no factors were kept, ``MemoryError`` over
        ``lattice.MAX_POINTS``. Derivation: docs/derivations/engine.md.

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> f = compose_numeric([(fdp.Laplace(1.0), 3)])
        >>> g = f.refined(1e-5)
        >>> g.tol, bool(g.step < f.step)
        (1e-05, True)
        """
        tol = check_tol(tol)
        if not self.source:
            raise ValueError("this numeric result does not keep its factors (source=()), "
                             "so it cannot be recomposed at a smaller tol")
        key = ("refined", tol)
        if key not in self._curves:
            groups = list(self.source[0].groups)
            directions: tuple[Direction, ...] = tuple(
                "inverse" if r.reflected else "f" for r in self.source)
            c = compose_lattices(groups, tol, directions=directions, grid="exact",
                                 reflect=False)
            self._curves[key] = Numeric(c.pess, c.opt, self.label, tol,
                                        directions=self.directions, source=c.source,
                                        status=self.status)
        return self._curves[key]

    @property
    def effective_tol(self) -> float:
        """The tol whose grid step is this result's step: ``tol``, or larger when the
        step was coarsened to keep the grid within ``GRID_POINTS`` (Δ ∝ √tol).

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> f = compose_numeric([(fdp.Laplace(1.0), 3)])
        >>> f.effective_tol
        0.0001
        """
        if not self.source:
            return self.tol
        asked, _ = choose_step(list(self.source[0].groups), self.tol, coarsen=False,
                               check=False)
        return min(1.0, self.tol * max(1.0, (self.step / asked) ** 2))

    def _seconds(self, step: float) -> float:
        """Rough time to recompose on step Δ: the lattices' span in points, two sides."""
        span = sum(lat.q.size * lat.step for lat in self.pess) / step
        return seconds_for(span, 2)

    def bounds(self, alpha: ArrayLike, width: float | None = None) -> Bracket:
        """``TradeOff.bounds``; ``width`` recomposes at smaller tol (``refined``) until met,
        intersecting the brackets of every recomposition (each is certified).

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> f = compose_numeric([(fdp.Laplace(1.0), 3)])
        >>> lo, hi = f.bounds([0.1, 0.5], width=1e-6)
        >>> print(f"{lo[0]:.6f} {hi[0]:.6f}")
        0.417946 0.417946
        """
        a = _validate.alpha(alpha)
        if width is None:
            lo, hi = self._beta(a), self._upper(a)
        else:
            lo, hi = refine(self, lambda g: (g._beta(a), g._upper(a)), width, "beta(alpha)")
        return Bracket(_validate.like_input(alpha, lo), _validate.like_input(alpha, hi),
                       self.status, safe_side="lo")

    def delta_bounds(self, eps: ArrayLike, width: float | None = None) -> Bracket:
        """``TradeOff.delta_bounds``; ``width`` as in ``bounds``.

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> f = compose_numeric([(fdp.Laplace(1.0), 3)])
        >>> lo, hi = f.delta_bounds(1.0)
        >>> print(f"{lo:.4f} {hi:.4f}")
        0.3102 0.3102
        """
        e = _validate.reals("eps", eps, allow_inf=True)
        if width is None:
            lo, hi = self._delta_lower(e), self._delta(e)
        else:
            lo, hi = refine(self, lambda g: (g._delta_lower(e), g._delta(e)), width,
                                  "delta(eps)")
        return Bracket(_validate.like_input(eps, lo), _validate.like_input(eps, hi), self.status)

    # -- (ε, δ): plain read-back above the floor, tilted recomposition below -----
    def epsilon(self, delta: ArrayLike) -> FloatOrArray:
        """The certified (upper) ε at δ ∈ (0, 1): the upper end of ``epsilon_bounds``.

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> f = compose_numeric([(fdp.Laplace(1.0), 3)])
        >>> print(f"{f.epsilon(1e-3):.3f}")
        2.992
        """
        return self.epsilon_bounds(delta)[1]

    def epsilon_bounds(self, delta: ArrayLike, width: float | None = None) -> Bracket:
        """(lower, upper) ε at δ ∈ (0, 1), certified; ``width`` as in ``bounds``.

        ``ValueError`` below the certified resolution of this result or for an unreachable
        width. Derivation (plain, tilted and refined read-backs): docs/derivations/engine.md.

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> f = compose_numeric([(fdp.Laplace(1.0), 3)])
        >>> lo, hi = f.epsilon_bounds(1e-3)
        >>> print(f"{lo:.3f} {hi:.3f}")
        2.992 2.992
        """
        d = _validate.reals("delta", delta)      # the range: the open interval, below
        if d.size and (np.any(d <= 0.0) or np.any(d >= 1.0)):
            raise ValueError(
                "delta must lie in the open interval (0, 1) for a numeric result: δ = 0 "
                "asks for pure DP, which no discretised bracket certifies (see "
                f"pure_epsilon()), and δ = 1 is trivial; got {delta!r}")
        flat = d.ravel()
        if width is None and self.eps_width is not None and self.source:
            lo, hi = question_bracket(self, flat, self.eps_width)
        elif width is None:
            lo, hi = self._epsilon_bracket(flat, None)
        else:
            w = _validate.real("width", width, low=0.0, low_open=True)
            lo, hi = refine(self, lambda g: g._epsilon_bracket(flat, w), w, "epsilon(delta)")
        lo, hi = consistent_epsilon(self, flat, lo, hi, self._pure_hi())
        return Bracket(_validate.like_input(delta, lo.reshape(d.shape)),
                       _validate.like_input(delta, hi.reshape(d.shape)), self.status)

    def _epsilon_bracket(self, flat: FloatArray,
                         want: float | None) -> tuple[FloatArray, FloatArray]:
        return epsilon_read(self, flat, want)

    def _epsilon_plain(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        return epsilon_plain(self.pess, self.opt, d)

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
                       directions=self.directions, source=(recipe,), status=self.status)

    def symmetrize(self, one_sided: bool = False) -> TradeOff:
        """As ``TradeOff.symmetrize``; one-sided, both directions are kept as lattices:
        min{f, f⁻¹}** has profile max(δ_f, δ_{f⁻¹}) (DRS 2022, Thm 4.2; Bu et al. 2020), the
        form ``fdp.dpsgd`` returns.

        Examples
        --------
        >>> import fdp
        >>> from fdp.engine import compose_numeric
        >>> add = fdp.Laplace(1.0).subsample(0.5, direction="add")
        >>> s = compose_numeric([(add, 3)]).symmetrize(one_sided=True)
        >>> s.symmetric, len(s.pess)
        (True, 2)
        """
        one_sided = _validate.flag("one_sided", one_sided)
        if self.envelope or not one_sided:
            return super().symmetrize(one_sided)
        inv = self.inverse()
        if not isinstance(inv, Numeric):
            return super().symmetrize(one_sided)
        return Numeric((self.pess[0], inv.pess[0]), (self.opt[0], inv.opt[0]),
                       f"symmetrize({self.label})", self.tol, directions="both",
                       source=self.source + inv.source, status=self.status)

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        """(lo, hi) around the smallest μ with f ≥ G_μ (``fdp.engine.summaries``)."""
        return gdp_mu_bounds(self)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """(lo, hi) around the smallest ε with f ≥ f_{ε,0} (``fdp.engine.summaries``),
        computed once; (0, inf) while it is being computed, so that its own read-outs
        of δ are the lattices' alone."""
        if "pure" not in self._curves:
            self._curves["pure"] = (0.0, np.inf)
            try:
                self._curves["pure"] = pure_epsilon_bounds(self)
            except BaseException:
                del self._curves["pure"]
                raise
        return self._curves["pure"]


__all__ = ["DEFAULT_TOL", "Numeric", "Recipe"]
