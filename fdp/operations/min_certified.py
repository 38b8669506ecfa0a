"""The smaller of two certified upper bounds on one mechanism's privacy profile.

If δ(ε) ≤ a(ε) and δ(ε) ≤ b(ε) are both proven, so is δ(ε) ≤ min{a(ε), b(ε)}; the same
holds for ε(δ). Two such bounds exist for many mechanisms: the f-DP engine's pessimistic
lattices (``fdp.engine``; Doroshenko et al. 2022; Zhu, Dong & Wang 2021, Thm 11), tight at
moderate sizes but limited by the grid for huge compositions, and a certified Rényi curve
of the same mechanism (``fdp.operations.rdp_bound``: closed forms of Gaussian, Laplace and
randomized-response factors for ``compose``, the subsampled Gaussian of Poisson DP-SGD
for ``fdp.dpsgd``, Mironov, Talwar & Zhang 2019), converted as that module says.

``MinCertified`` is the engine's ``Numeric`` with a recipe for the Rényi curve
attached: its upper δ and upper ε are the minimum of the two wherever the engine's
bracket is wider than ``RDP_CONSULT_RTOL`` of its upper end, and the engine's elsewhere
(the Rényi bound is ≥ the truth ≥ the engine's lower end, so there it could lower the
upper end by at most hi − lo); the curve is computed on the first read that needs it.
The lower sides are the engine's (a Rényi bound has no lower side); the trade-off curve,
summaries and compositions are the engine's. Each ε or δ bracket says in its ``note``
which bound set the upper end, and why a lower end is 0 when it is.

The Rényi curve bounds the result's own pair only for a plain composition
(``renyi_composes``); for a one-sided symmetrisation it bounds each direction of the run,
not the symmetrised curve composed again. A lower end of 0 at a huge composition is
replaced by the engine's for every count divided by 10^k (k ≤ ``LOWER_FROM_FEWER``).
Derivation of both: docs/derivations/operations.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Literal, Protocol

import numpy as np

from fdp._constants import RDP_CONSULT_RTOL
from fdp._types import ArrayLike, FloatArray
from fdp.bracket import Bracket
from fdp.engine import GridBudgetExceeded, Numeric, compose
from fdp.operations.rdp_bound import RDPBound
from fdp.tradeoff import TradeOff

_TINY = float(np.nextafter(0.0, 1.0))
_NOT_CONSULTED = (f"its bracket is within {RDP_CONSULT_RTOL:g} of its upper end, so the "
                  "RDP bound (never below the lower end) was not computed")
_U = 2.0 ** -53

#: Largest k tried for the lower end from 10^-k of the steps (see the module docstring).
LOWER_FROM_FEWER = 18


def _scalar(x: ArrayLike) -> bool:
    return np.ndim(x) == 0


class RDPRecipe(Protocol):
    """What builds a certified Rényi curve on demand: an ``RDPBound`` (its own recipe)
    or a description such as ``fdp.sgd.min_certified.PoissonGaussianRDP``; compared by
    value and picklable."""

    def bound(self) -> RDPBound:
        """The certified Rényi curve."""
        ...


def _wide(hi: FloatArray, lo: FloatArray) -> FloatArray:
    """Where the engine's bracket [lo, hi] leaves the Rényi bound something to improve
    (``RDP_CONSULT_RTOL``); inf upper ends always do."""
    h, low = np.asarray(hi, dtype=float), np.asarray(lo, dtype=float)
    with np.errstate(invalid="ignore"):
        return ~(np.isfinite(h) & (h - low <= RDP_CONSULT_RTOL * h))


@dataclass(frozen=True, eq=False, repr=False)
class MinCertified(Numeric):
    """A certified numeric result whose upper δ and ε are min(engine, Rényi).

    A ``Numeric`` (see there for the fields) with ``rdp_recipe``, which builds the
    certified Rényi curve of the same mechanism (``rdp``, an ``RDPBound``, computed on
    first use). Two results of the same configuration compare equal (the same recipes,
    grid and Rényi recipe give the same answers); they pickle like any ``Numeric``.
    Built by ``fdp.dpsgd`` (Poisson sampling), ``fdp.random_allocation`` and by
    ``compose`` (factors with a closed-form Rényi curve, ``with_rdp``).

    Examples
    --------
    >>> import fdp
    >>> f = fdp.dpsgd(4.0, 0.01, 1000)
    >>> b = f.delta_bounds(1.0)
    >>> bool(b.hi < 1e-25), b.note.startswith("upper end from the RDP bound")
    (True, True)
    """

    rdp_recipe: RDPRecipe | None = field(default=None, repr=False)
    advice: str = field(default="", repr=False)

    def __repr__(self) -> str:
        text = Numeric.__repr__(self)
        return text + f"  # {self.advice}" if self.advice else text

    @cached_property
    def rdp(self) -> RDPBound | None:
        """The certified Rényi curve (``rdp_recipe.bound()``, computed once), or None."""
        return None if self.rdp_recipe is None else self.rdp_recipe.bound()

    @property
    def renyi_composes(self) -> bool:
        """Whether ``rdp`` bounds D_λ of this object's own pair, so that a composition
        may add it (Mironov 2017, Prop 1): a plain composition (one lattice per side)
        with a recipe. False for a one-sided symmetrisation (see the module docstring).

        Examples
        --------
        >>> import fdp
        >>> fdp.dpsgd(1.0, 0.01, 10).renyi_composes
        False
        >>> (fdp.Laplace(1.0) @ fdp.Gaussian(1.0)).renyi_composes
        True
        """
        return self.rdp_recipe is not None and not self.envelope

    def _curve(self) -> RDPBound:
        """``rdp``, for reads that have checked there is a recipe."""
        curve = self.rdp
        if curve is None:
            raise ValueError("this result carries no Rényi curve (rdp_recipe is None)")
        return curve

    # -- identity: equal configurations are equal objects --------------------
    def _key(self) -> tuple:
        return (self.label, self.tol, self.directions, self.status, self.eps_width,
                self.source, self.rdp_recipe, self.advice)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self) or not self.source:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.label, self.tol, self.rdp_recipe)) if self.source else id(self)

    # -- upper δ: the smaller of the two certified bounds ---------------------
    def engine_delta(self, eps: ArrayLike) -> FloatArray:
        """The f-DP engine's own upper δ(ε) at real ε, without the Rényi bound."""
        return Numeric._delta(self, np.atleast_1d(np.asarray(eps, dtype=float)))

    def _delta(self, eps: ArrayLike) -> FloatArray:
        e = np.asarray(eps, dtype=float)
        base = Numeric._delta(self, e)
        wide = self._wide_delta(e, base)
        if not np.any(wide):
            return base
        ld = np.asarray(self._curve().log_delta(e)[0], dtype=float)
        with np.errstate(under="ignore"):
            r = np.where(np.isneginf(ld), 0.0,
                         np.maximum(np.exp(ld) * (1.0 + 4.0 * _U), _TINY))
        return np.where(wide, np.minimum(base, r), base)

    def _log_delta(self, eps: ArrayLike) -> FloatArray:
        e = np.asarray(eps, dtype=float)
        base = Numeric._log_delta(self, e)
        wide = self._wide_delta(e, Numeric._delta(self, e))
        if not np.any(wide):
            return base
        return np.where(wide, np.minimum(base, np.asarray(self._curve().log_delta(e)[0],
                                                          dtype=float)), base)

    def _delta_lower(self, eps: ArrayLike) -> FloatArray:
        e = np.asarray(eps, dtype=float)
        return np.minimum(Numeric._delta_lower(self, e), self._delta(e))

    def _wide_delta(self, e: FloatArray, hi: FloatArray) -> FloatArray:
        """Where the Rényi bound is consulted for δ(ε): there is a recipe and the
        engine's δ bracket is wider than ``RDP_CONSULT_RTOL`` of its upper end ``hi``."""
        if self.rdp_recipe is None:
            return np.zeros(np.shape(hi), dtype=bool)
        return _wide(hi, Numeric._delta_lower(self, e))

    def delta_bounds(self, eps: ArrayLike, width: float | None = None) -> Bracket:
        """(lower, upper) δ(ε): the engine's lower side; the upper side min(engine,
        Rényi), with a ``note`` saying which set it (see the module docstring); ``width``
        and errors as ``Numeric.delta_bounds``.

        Examples
        --------
        >>> import fdp
        >>> lo, hi = fdp.dpsgd(1.0, 0.01, 100).delta_bounds(1.0)
        >>> bool(lo <= hi < 1e-3)
        True
        """
        b = super().delta_bounds(eps, width)
        if self.rdp_recipe is None or not _scalar(eps):
            return self._advised(b)
        e = np.array([np.asarray(eps, dtype=float).item()])
        engine = float(self.engine_delta(e)[0])
        if not self._wide_delta(e, np.array([engine]))[0]:
            note = "upper end from the f-DP engine; " + _NOT_CONSULTED
        else:
            ld, order = self._curve().log_delta(float(e[0]))
            if ld < np.log(engine) if engine > 0 else False:
                note = (f"upper end from the RDP bound (order λ = {order:.6g}; "
                        f"{self._curve().source}); the f-DP engine's upper end is {engine:.4g}")
            else:
                note = (f"upper end from the f-DP engine; the RDP bound gives "
                        f"{np.exp(ld):.4g} (order λ = {order:.6g})")
        if b.lo == 0.0 and b.hi > 0.0:
            note += "; " + self._why_lower_zero("δ")
        return self._advised(Bracket(b.lo, b.hi, b.status, b.safe_side, note))

    def epsilon_bounds(self, delta: ArrayLike, width: float | None = None) -> Bracket:
        """(lower, upper) ε(δ): the engine's lower side; the upper side min(engine,
        Rényi), with a ``note`` saying which set it and why a lower end is 0. For one δ
        and no ``width``, an engine's lower end of 0 is replaced by the engine's for
        fewer steps where that is above 0 (see the module docstring). ``width`` (met by the
        engine's bracket) and errors as ``Numeric.epsilon_bounds``.

        Examples
        --------
        >>> import fdp
        >>> b = fdp.dpsgd(1.1, 256 / 60000, 10**10).epsilon_bounds(1e-5)
        >>> b.note.startswith("upper end from the RDP bound")
        True
        """
        b = self._epsilon_with_rdp(delta, width)
        if _scalar(delta) and b.lo == 0.0 and float(b.hi) > 0.0 and width is None:
            b = self._lower_from_fewer(float(np.asarray(delta, dtype=float)), b)
        return self._advised(b)

    def _epsilon_with_rdp(self, delta: ArrayLike, width: float | None) -> Bracket:
        """``epsilon_bounds`` before the lower end from fewer steps and the advice."""
        if self.rdp_recipe is None:
            return super().epsilon_bounds(delta, width)
        d = np.asarray(delta, dtype=float)
        unresolved = ""
        try:
            b = super().epsilon_bounds(delta, width)
        except ValueError as err:
            # δ below what the engine resolves (its cut-off tails): the Rényi bound
            # still answers; anything else (a bad δ, an unreachable width) is raised
            if width is not None or d.size == 0 or not np.all((d > 0) & (d < 1)):
                raise
            unresolved = str(err)
            los, his = [], []
            for x in d.ravel():
                try:
                    lo1, hi1 = super().epsilon_bounds(float(x))
                except ValueError:
                    lo1, hi1 = 0.0, np.inf
                los.append(lo1)
                his.append(hi1)
            shape = d.shape
            b = Bracket(np.array(los).reshape(shape) if shape else los[0],
                        np.array(his).reshape(shape) if shape else his[0], self.status)
        wide = _wide(b.hi, b.lo)
        if not np.any(wide):
            if not _scalar(delta):
                return b
            note = "upper end from the f-DP engine; " + _NOT_CONSULTED
            if b.lo == 0.0 and float(b.hi) > 0.0:
                note += "; " + self._why_lower_zero("ε")
            return Bracket(b.lo, b.hi, b.status, b.safe_side, note)
        r_eps, order = self._curve().epsilon(delta)
        engine_hi = np.asarray(b.hi, dtype=float)
        hi = np.where(wide, np.minimum(engine_hi, r_eps.reshape(np.shape(b.hi))), engine_hi)
        if _scalar(delta):
            engine, r, lam = float(b.hi), float(r_eps[0]), float(order[0])
            source = self._curve().source
            if unresolved:
                note = (f"upper end from the RDP bound (order λ = {lam:.6g}; {source}); "
                        f"lower end 0: the f-DP engine cannot resolve this δ ({unresolved})")
                return Bracket(0.0, float(hi), b.status, b.safe_side, note)
            if r < engine:
                note = (f"upper end from the RDP bound (order λ = {lam:.6g}; {source}); "
                        f"the f-DP engine's upper end is {engine:.6g}")
            else:
                note = (f"upper end from the f-DP engine; the RDP bound gives {r:.6g} "
                        f"(order λ = {lam:.6g})")
            if b.lo == 0.0 and float(hi) > 0.0:
                note += "; " + self._why_lower_zero("ε")
            return Bracket(b.lo, float(hi), b.status, b.safe_side, note)
        note = ("upper end: the smaller of the f-DP engine's and the RDP bound where the "
                "engine's bracket is wider than RDP_CONSULT_RTOL, the engine's elsewhere")
        return Bracket(b.lo, hi, b.status, b.safe_side, note)

    def _advised(self, b: Bracket) -> Bracket:
        """``b`` with ``advice`` appended to its note."""
        if not self.advice:
            return b
        note = f"{b.note}; {self.advice}" if b.note else self.advice
        return Bracket(b.lo, b.hi, b.status, b.safe_side, note)

    def _lower_from_fewer(self, delta: float, b: Bracket) -> Bracket:
        """``b`` with its lower end 0 replaced by the engine's lower end for the same
        factors with every count divided by 10^k, the first k ≤ ``LOWER_FROM_FEWER``
        that gives one above 0 (proven a lower end in docs/derivations/operations.md);
        ``b`` itself when there are no factors or no k does."""
        if not self.source:
            return b
        key = ("fewer", delta)
        if key not in self._curves:
            self._curves[key] = self._fewer_lower(delta)
        found = self._curves[key]
        if found is None:
            return b
        lo, kept, total = found
        note = (f"{b.note}; " if b.note else "") + (
            f"instead, the lower end {lo:.6g} is the f-DP engine's for {kept:.3g} of the "
            f"{total:.3g} steps (ε(δ) never decreases with more steps: f ⊗ g ≤ f)")
        return Bracket(lo, b.hi, b.status, b.safe_side, note)

    def _fewer_lower(self, delta: float) -> tuple[float, int, int] | None:
        """(lower ε, steps kept, steps) of the first sub-composition whose engine lower
        end at ``delta`` is above 0, or None."""
        groups = list(self.source[0].groups)
        directions: tuple[Literal["f", "inverse"], ...] = tuple(
            "inverse" if r.reflected else "f" for r in self.source)
        total = sum(n for _, n in groups)
        for k in range(1, LOWER_FROM_FEWER + 1):
            fewer = [(f, n // 10 ** k) for f, n in groups if n // 10 ** k]
            if not fewer:
                return None
            try:
                g = compose(fewer, None, directions=directions, grid="question")
                hi_opt, lo_pess = _loss_ends(g)
                if hi_opt < lo_pess:
                    continue     # still past what the grid resolves: fewer steps
                lo = float(g.epsilon_bounds(delta).lo)
            except (GridBudgetExceeded, ValueError):
                continue         # not composable, or δ not resolved: fewer steps
            if lo > 0.0:
                return lo, sum(n for _, n in fewer), total
        return None

    def _why_lower_zero(self, what: str) -> str:
        """Why the engine's lower end is 0, for notes."""
        hi_opt, lo_pess = _loss_ends(self)
        if hi_opt < lo_pess:
            return (f"lower end 0: at this many compositions the engine's two sides no "
                    f"longer overlap -- each factor's privacy loss is rounded to the grid step "
                    f"Δ = {self.step:.3g} (down on the optimistic side, up on the "
                    f"pessimistic one), and over {self._steps()} of them that rounding "
                    f"outgrows the loss itself (optimistic losses end at {hi_opt:.4g}, "
                    f"pessimistic ones start at {lo_pess:.4g}), so the optimistic side "
                    f"proves no {what} above 0; the upper end stands")
        slack = max(lat.slack + lat.readback for lat in self.opt)
        return (f"lower end 0: the engine's optimistic side does not separate {what} from "
                f"0 here (its certified error: slack {slack:.3g}, grid step "
                f"{self.step:.3g}); a smaller tol (f.refined(tol)) may, memory allowing")

    def _steps(self) -> str:
        """The number of composed factors, for notes."""
        n = sum(n for _, n in self.source[0].groups) if self.source else 0
        return f"{n:.3g}" if n else "the"


def _loss_ends(f: Numeric) -> tuple[float, float]:
    """(largest optimistic loss, smallest pessimistic loss) of f's lattices."""
    return (max(float(lat.losses.max()) for lat in f.opt if lat.losses.size),
            min(float(lat.losses.min()) for lat in f.pess if lat.losses.size))


def with_rdp(result: TradeOff, rdp: RDPRecipe | None, advice: str = "") -> TradeOff:
    """``result`` as a ``MinCertified`` carrying the Rényi curve ``rdp`` of the same
    mechanism and the ``advice`` its notes and repr end with; ``result`` itself when
    there is neither or it is not a plain certified ``Numeric`` of both directions. ``rdp``
    bounds D(Q ‖ P) of ``result``'s own pair; ``advice`` is, for ``compose``, a tighter way
    to the same question.

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine import compose_numeric
    >>> from fdp.operations.min_certified import with_rdp
    >>> from fdp.operations.rdp_bound import RDPBound
    >>> items = [(fdp.Laplace(0.5), 20)]
    >>> f = with_rdp(compose_numeric(items), RDPBound.of_factors(items))
    >>> type(f).__name__
    'MinCertified'
    """
    if (rdp is None and not advice) or type(result) is not Numeric \
            or result.directions != "both":
        return result
    kw = {fl.name: getattr(result, fl.name) for fl in fields(Numeric) if fl.init}
    return MinCertified(**kw, rdp_recipe=rdp, advice=advice)


__all__ = ["LOWER_FROM_FEWER", "MinCertified", "RDPRecipe", "with_rdp"]
