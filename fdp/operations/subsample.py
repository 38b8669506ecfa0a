"""Privacy amplification by subsampling (DRS §4.2, Bu et al. 2020, ZDW Thm 11).

Derivation: docs/derivations/operations.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp._numerics import ArrayFn, bisect_monotone
from fdp._types import FloatArray
from fdp.families.finite_pair import FinitePair
from fdp.law import SubsampledLaw, WithoutReplacementLaw
from fdp.operations.envelope import envelope
from fdp.operations.inverse import Inverse
from fdp.status import Status
from fdp.tradeoff import TradeOff, math_repr, remark

SAMPLINGS = ("poisson", "without_replacement")
DIRECTIONS = ("both", "add", "remove")


@dataclass(frozen=True)
class _Subsampled(TradeOff):
    """``of`` subsampled at rate ``p``: what ``PoissonAdd`` and ``WithoutReplacement`` share."""

    of: TradeOff
    p: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", _validate.probability("p", self.p))

    @property
    def status(self) -> Status:
        return self.of.status

    def _gaussian_component(self) -> tuple[float, float] | None:
        """(μ, p) for a subsampled G_μ (engine hook; see ``TradeOff``)."""
        inner = self.of._gaussian_component()
        if inner is None or inner[1] != 1.0:
            return None
        return (0.0, 1.0) if self.p == 0.0 or inner[0] == 0.0 else (inner[0], float(self.p))


@dataclass(frozen=True)
class PoissonAdd(_Subsampled):
    """f_p = p f + (1 − p) Id: ONE direction of a subsampled mechanism, not a guarantee.

    Derivation: docs/derivations/operations.md.
    """

    def _beta(self, alpha: FloatArray) -> FloatArray:
        return self.p * self.of._beta(alpha) + (1.0 - self.p) * (1.0 - alpha)

    def _upper(self, alpha: FloatArray) -> FloatArray:
        return self.p * self.of._upper(alpha) + (1.0 - self.p) * (1.0 - alpha)

    def _delta(self, eps: FloatArray) -> FloatArray:
        return self._profile(self.of._delta, eps)

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        return self._profile(self.of._delta_lower, eps)

    def _profile(self, delta_fn: ArrayFn, eps: FloatArray) -> FloatArray:
        e = np.asarray(eps, dtype=float)
        p = self.p
        if p == 0.0:
            return -np.expm1(np.minimum(e, 0.0))
        # log(1 + (e^ε − 1)/p), computed without overflow for large ε.
        with np.errstate(divide="ignore"):
            live = e > np.log1p(-p)
        with np.errstate(divide="ignore", invalid="ignore"):
            big = e + np.log1p(-(1.0 - p) * np.exp(-np.maximum(e, 1.0))) - np.log(p)
            small = np.log1p(np.expm1(np.minimum(e, 1.0)) / p)
        inner = np.where(e > 1.0, big, small)
        with np.errstate(invalid="ignore"):
            amplified = p * delta_fn(np.where(live, inner, 0.0))
        return np.where(live, amplified, -np.expm1(np.minimum(e, 0.0)))

    def _inverse(self) -> TradeOff:
        return PoissonRemove(self)

    def _pair(self) -> FinitePair | None:
        pair = self.of._pair()
        if pair is None:
            return None
        p = self.p
        q_mix = (1.0 - p) * pair.p + p * pair.q
        with np.errstate(divide="ignore", invalid="ignore"):
            L = np.log(q_mix) - np.log(pair.p)
        # an atom with no mass on either side (p = 0: the +∞ atom) is dropped
        return FinitePair.from_atoms(np.nan_to_num(L, nan=0.0, posinf=np.inf, neginf=-np.inf),
                                     pair.p, q_mix)

    @property
    def directions(self) -> str:
        return "one"

    def __repr__(self) -> str:
        return f"PoissonAdd({math_repr(self.of)}, p={self.p!r})" + remark(self)

    def latex(self) -> str:
        return rf"{self.p:g}\,{self.of.latex()} + {1 - self.p:g}\,\mathrm{{Id}}"

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """Pure ε of f_p from f's bracket [ε_lo, ε_hi] (summary hook).

        Derivation: docs/derivations/operations.md.
        """
        p = float(self.p)
        if p == 0.0:
            return 0.0, 0.0
        lo, hi = (float(x) for x in self.of._pure_epsilon_bounds())
        with np.errstate(over="ignore"):
            up = float(np.log1p(p * np.expm1(hi)))
            if self.of.symmetric:
                down = float(np.log1p(p * np.expm1(lo)))
            else:
                down = float(-np.log1p(p * np.expm1(-lo)))
        # expm1, a product and log1p: a few ulps each; moved outwards by a relative 1e-12
        down = max(down * (1.0 - 1e-12), 0.0)
        up = up * (1.0 + 1e-12)
        if down == math.inf:            # f's loss is unbounded (e.g. Gaussian): so is f_p's
            return math.inf, math.inf
        if not np.isfinite(up):
            g_lo, up = super()._pure_epsilon_bounds()
            down = max(down, float(g_lo))
        return down, up

    def law(self) -> SubsampledLaw | None:
        """The law of T(P, (1 − p)P + pQ) from f's law (``fdp.law.SubsampledLaw``)."""
        inner = self.of.law()
        return None if inner is None else SubsampledLaw(inner, self.p)


@dataclass(frozen=True)
class PoissonRemove(Inverse):
    """f_p⁻¹: the remove direction T((1 − p)P + pQ, P) of Poisson subsampling.

    ONE direction only, not a guarantee. Its privacy profile vanishes for
    ε ≥ −log(1 − p): removing a record can raise the probability of any event by
    at most the factor 1/(1 − p) (its absence had probability 1 − p).
    """

    of: PoissonAdd

    @property
    def p(self) -> float:
        """The sampling rate p."""
        return self.of.p

    def _delta(self, eps: FloatArray) -> FloatArray:
        return self._zero_beyond(super()._delta, eps)

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        return self._zero_beyond(super()._delta_lower, eps)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """f⁻¹ ≥ f_{ε,0} ⇔ f ≥ f_{ε,0} (f_{ε,0} is symmetric): f_p's bracket."""
        return self.of._pure_epsilon_bounds()

    def _zero_beyond(self, delta_fn: ArrayFn, eps: FloatArray) -> FloatArray:
        e = np.asarray(eps, dtype=float)
        with np.errstate(divide="ignore"):
            live = e < -np.log1p(-self.of.p)
        out = np.zeros(e.shape)
        if live.any():
            out[live] = delta_fn(e[live])
        return out

    @property
    def directions(self) -> str:
        return "one"

    def __repr__(self) -> str:
        return f"PoissonRemove({math_repr(self.of.of)}, p={self.of.p!r})" + remark(self)


@dataclass(frozen=True)
class WithoutReplacement(_Subsampled):
    """C_p(f) = min{f_p, f_p⁻¹}** (DRS Thm 4.2), replace-one neighbours, p = m/n.

    Derivation: docs/derivations/operations.md.
    """

    @property
    def symmetric(self) -> bool:
        return True

    @property
    def _fixed_point(self) -> float:
        """x* with f(x*) = x*, by bisection on the decreasing f(x) − x over [0, 1]."""
        lo, hi = bisect_monotone(lambda x: self.of._beta(x) <= x, 0.0, 1.0,
                                 rtol=0.0, atol=1e-17)
        return float(0.5 * (lo + hi))

    @property
    def _closed(self) -> bool:
        """The DRS Thm 4.2 closed form needs an exactly known symmetric f."""
        return self.of.is_exact and self.of.symmetric

    def _envelope(self) -> TradeOff:
        fp = PoissonAdd(self.of, self.p)
        return envelope(fp, fp.inverse())

    def _beta(self, alpha: FloatArray) -> FloatArray:
        if not self._closed:
            return self._envelope()._beta(alpha)
        fp = PoissonAdd(self.of, self.p)
        a = np.asarray(alpha, dtype=float)
        x = self._fixed_point
        y = float(fp._beta(np.array([x]))[0])
        left = fp._beta(a)
        right = fp.inverse()._beta(a)
        return np.where(a <= x, left, np.where(a <= y, x + y - a, right))

    def _upper(self, alpha: FloatArray) -> FloatArray:
        if self._closed:
            return self._beta(alpha)
        return np.maximum(self._envelope()._upper(alpha), self._beta(alpha))

    def _delta(self, eps: FloatArray) -> FloatArray:
        return self._envelope()._delta(eps)

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        return self._envelope()._delta_lower(eps)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """C_p(f) = min{f_p, f_p⁻¹}** ≥ f_{ε,0} ⇔ f_p ≥ f_{ε,0}: f_p's bracket."""
        return PoissonAdd(self.of, self.p)._pure_epsilon_bounds()

    def __repr__(self) -> str:
        return (f"{math_repr(self.of)}.subsample({self.p!r}, sampling='without_replacement')"
                + remark(self))

    def latex(self) -> str:
        return rf"C_{{{self.p:g}}}({self.of.latex()})"

    def law(self) -> WithoutReplacementLaw | None:
        """C_p(f)'s law for symmetric f (``fdp.law.WithoutReplacementLaw``), else None."""
        inner = self.of.law() if self.of.symmetric else None
        return None if inner is None else WithoutReplacementLaw(SubsampledLaw(inner, self.p))


def subsample(f: TradeOff, p: float, sampling: str = "poisson",
              direction: str = "both") -> TradeOff:
    """f subsampled at rate p: the implementation of ``TradeOff.subsample`` (its cases).

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.subsample import subsample
    >>> f = subsample(fdp.Gaussian(1.0), 0.5, "without_replacement")
    >>> print(f"{float(f(0.2)):.4f}")
    0.6185
    """
    p = _validate.probability("p", p)
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    if sampling == "without_replacement":
        if direction != "both":
            raise ValueError("direction applies to sampling='poisson' only; "
                             "without replacement uses replace-one neighbours (C_p is symmetric)")
        return WithoutReplacement(f, p)
    fp = PoissonAdd(f, p)
    if direction == "add":
        return fp
    if direction == "remove":
        return fp.inverse()
    return envelope(fp, fp.inverse())
