"""Lower convex envelopes min{f, g}** and pointwise maxima max{f, g} (DRS 2022, Prop 2.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fdp._constants import EPS_SEARCH, UNIT_ROUNDOFF
from fdp._numerics import ArrayFn, conjugate_delta, maximise_unimodal
from fdp._numerics import search_grid as _search_grid
from fdp._types import FloatArray
from fdp.law import EnvelopeLaw
from fdp.status import Status, status_of
from fdp.tradeoff import TradeOff, as_factors, math_repr, remark


@dataclass(frozen=True)
class _Combination(TradeOff):
    """A trade-off function made of several members, closed under inversion:
    (max f_i)⁻¹ = max f_i⁻¹ and (min f_i)**⁻¹ = (min f_i⁻¹)** (reflection in the
    diagonal preserves pointwise order and convex hulls)."""

    members: tuple[TradeOff, ...]

    def _has_certified_delta(self) -> bool:
        # max (envelope) and min (strongest) of the members' profiles are 0 exactly
        # where the members' certified profiles say so
        return all(m._has_certified_delta() for m in self.members)

    _name = "combination"

    @property
    def status(self) -> Status:
        return status_of(*self.members)

    @property
    def symmetric(self) -> bool:
        return frozenset(self.members) == frozenset(m.inverse() for m in self.members)

    def _inverse(self) -> TradeOff:
        return type(self)(tuple(m.inverse() for m in self.members))

    @property
    def directions(self) -> str:
        # an envelope of both directions is the guarantee: one-sided only while a
        # member is and the combination is not symmetric
        one = any(m.directions == "one" for m in self.members)
        return "one" if one and not self.symmetric else "both"

    def __repr__(self) -> str:
        # members' remarks describe the members, not the result: one at the end only
        parts = [math_repr(m) for m in self.members]
        return self._name + "(" + ", ".join(parts) + ")" + remark(self)


@dataclass(frozen=True, repr=False)
class Strongest(_Combination):
    """max{f_1, …, f_m}: a mechanism that is f_i-DP for every i is max_i f_i-DP.

    A maximum of convex functions is convex, so this is a trade-off function.
    """

    _name = "strongest"

    def _beta(self, alpha: FloatArray) -> FloatArray:
        return np.max([m._beta(alpha) for m in self.members], axis=0)

    def _upper(self, alpha: FloatArray) -> FloatArray:
        return np.max([m._upper(alpha) for m in self.members], axis=0)

    def _delta(self, eps: FloatArray) -> FloatArray:
        """Upper δ: min{sup_α (1 − max_i f_i(α) − e^ε α) + DELTA_RESOLUTION, min_i δ_i}.

        Derivation: docs/derivations/operations.md.
        """
        own = conjugate_delta(self._beta, eps, bound="upper")
        return np.minimum(own, np.min([m._delta(eps) for m in self.members], axis=0))

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        """Lower δ: the conjugate of the upper sides, less its resolution (a value of
        the objective, not its supremum, is a lower bound)."""
        return np.minimum(conjugate_delta(self._upper, eps, bound="lower"), self._delta(eps))

    def latex(self) -> str:
        return r"\max\{" + ", ".join(m.latex() for m in self.members) + r"\}"


@dataclass(frozen=True, repr=False)
class Envelope(_Combination):
    """min{f_1, …, f_m}**: the largest trade-off function below every f_i.

    Derivation: docs/derivations/operations.md.
    """

    _name = "envelope"

    def _delta(self, eps: FloatArray) -> FloatArray:
        return np.max([m._delta(eps) for m in self.members], axis=0)

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        return np.max([m._delta_lower(eps) for m in self.members], axis=0)

    def _beta(self, alpha: FloatArray) -> FloatArray:
        return _biconjugate(self._delta, alpha, -_LINE_ROUNDING)

    def _upper(self, alpha: FloatArray) -> FloatArray:
        return _biconjugate(self._delta_lower, alpha, _LINE_ROUNDING)

    def _delta_members(self) -> tuple[TradeOff, ...]:
        return self.members             # δ = max_i δ_i exactly (engine hook)

    def latex(self) -> str:
        return r"\min\{" + ", ".join(m.latex() for m in self.members) + r"\}^{**}"

    def law(self) -> EnvelopeLaw:
        """The members' laws (``fdp.law.EnvelopeLaw``: a loss range, not one pair)."""
        return EnvelopeLaw(tuple(m.law() for m in self.members))


# 1 − δ(ε) − e^ε α is formed with three roundings of numbers ≤ 1: within 4u of the real
# line. Moved by this to its safe side, values within an ulp of 1 no longer round onto
# 1.0 (above the real curve where 1 − f ≈ 1e-19 decides a GDP μ).
_LINE_ROUNDING = 4.0 * UNIT_ROUNDOFF


def _biconjugate(delta_fn: ArrayFn, alpha: FloatArray, margin: float) -> FloatArray:
    """β(α) = sup_ε max{0, 1 − δ(ε) − e^ε α} + margin, vectorised in α, within [0, 1].

    δ is evaluated once on a grid of ε; each α then refines its best grid cell by
    golden section (``maximise_unimodal``).
    """
    a = np.asarray(alpha, dtype=float)
    flat = a.ravel()
    grid = _search_grid(-EPS_SEARCH, EPS_SEARCH)
    grid_gain = 1.0 - delta_fn(grid)
    grid_y = np.exp(grid)
    value = np.empty(flat.shape)
    for s in range(0, flat.size, 4096):
        ac = flat[s:s + 4096]
        with np.errstate(invalid="ignore"):
            values = grid_gain[None, :] - np.where(ac[:, None] == 0, 0.0,
                                                   grid_y[None, :] * ac[:, None])

        def row(e: FloatArray, ac: FloatArray = ac) -> FloatArray:
            return 1.0 - delta_fn(e) - np.exp(e) * ac

        value[s:s + 4096] = maximise_unimodal(row, grid, values)
    # α = 0: the supremum is the limit ε → ∞, 1 − δ(∞).
    at0 = 1.0 - delta_fn(np.array([np.inf]))[0]
    value = np.where(flat == 0.0, np.maximum(value, at0), value)
    return np.clip(value + margin, 0.0, 1.0).reshape(a.shape)


def _flatten(cls: type[_Combination], fs: tuple[Any, ...], name: str) -> tuple[TradeOff, ...]:
    out: list[TradeOff] = []
    for f in as_factors(fs, name):
        out.extend(f.members if isinstance(f, cls) else [f])
    return tuple(dict.fromkeys(out))


def envelope(*fs: TradeOff) -> TradeOff:
    """min{f_1, …}**, the lower convex envelope: the greatest convex function below every f_i.

    A mechanism that is f_i-DP for SOME i (which one unknown, e.g. one per order of a
    neighbouring pair) is min{f_i}**-DP (DRS Prop 2.4 and Thm 4.2; Bu et al. 2020); its
    privacy profile is δ(ε) = max_i δ_{f_i}(ε) (DRS Prop 2.12). ``fs`` as in
    ``fdp.tradeoff.as_factors`` (nested envelopes flattened, repeats dropped; one function
    is returned itself).

    Examples
    --------
    >>> import fdp
    >>> f = fdp.envelope(fdp.Gaussian(1.0), fdp.EpsDelta(1.0))
    >>> bool(f(0.3) <= min(fdp.Gaussian(1.0)(0.3), fdp.EpsDelta(1.0)(0.3)))
    True
    >>> fdp.envelope([fdp.Gaussian(1.0)])
    Gaussian(mu=1.0)
    """
    members = _flatten(Envelope, fs, "envelope")
    return members[0] if len(members) == 1 else Envelope(members)


def strongest(*fs: TradeOff) -> TradeOff:
    """max{f_1, …}: a mechanism f_i-DP for EVERY i is max_i f_i-DP (DRS Prop 2.4); ``fs`` as
    in ``envelope``.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.strongest(fdp.Gaussian(1.0), fdp.EpsDelta(1.0))
    >>> print(f"{float(f(0.3)):.4f}")
    0.3172
    """
    members = _flatten(Strongest, fs, "strongest")
    return members[0] if len(members) == 1 else Strongest(members)
