"""ε-bounded range (ε-BR) as a trade-off function (Dong, Durfee & Rogers 2020).

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from fdp import _validate
from fdp._constants import TINY
from fdp._constants import UNIT_ROUNDOFF as _U
from fdp._types import ArrayLike
from fdp.families._rounding import ArrayPair, one_minus, widen
from fdp.law import Masses, PrivacyLossLaw, bin_atoms, intervals
from fdp.tradeoff import Bracketed, ProfileBracketed


def log_expm1(eps: ArrayLike) -> np.ndarray:
    """log(e^ε − 1) for ε > 0, without overflow: ε + log1p(−e^{−ε})."""
    e = np.asarray(eps, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(e > 1.0, e + np.log1p(-np.exp(-np.maximum(e, 1.0))),
                        np.log(np.expm1(np.minimum(e, 1.0))))


@dataclass(frozen=True)
class BoundedRange(Bracketed, ProfileBracketed):
    """The trade-off function of ε-bounded-range mechanisms (exact):

    ``eps``: the range ε ≥ 0 of the privacy loss (ε = 0 gives Id; any finite ε).

        BR_ε(α) = (1 − α) / (1 + (e^ε − 1) α)

    = min over t ∈ [0, ε] of T(GRR_t), the generalized randomized response with
    losses ε − t and −t (Dong, Durfee & Rogers 2020, §4; Durfee & Rogers 2019). The
    exponential mechanism P[r] ∝ exp(ε u(r)/(2Δ)) and report-noisy-max
    with Gumbel noise of scale 2Δ/ε are ε-BR, hence BR_ε-DP; this is strictly
    stronger than f_{ε,0} (ε-DP) and at most f_{ε/2,0}.

    ``@``/``fdp.compose`` compose the curve as an f-DP guarantee (valid for anything
    BR_ε-DP); for k adaptively chosen ε-BR mechanisms ``fdp.compose_selections`` is tighter.

    Examples
    --------
    >>> import fdp
    >>> round(fdp.BoundedRange(1.0)(0.2), 6)
    0.59539
    """

    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _validate.real("eps", self.eps, low=0.0))

    @property
    def symmetric(self) -> bool:
        return True

    def _bracket(self, alpha: np.ndarray) -> ArrayPair:
        """(1 − α)·expit(−z), z = log(cα), c = e^ε − 1 (no overflow), with its rounding.

        Derivation: docs/derivations/families.md.
        """
        a = np.asarray(alpha, dtype=float)
        one_lo, one_hi = one_minus(a)
        if self.eps == 0.0:
            return one_lo, one_hi
        log_c = float(log_expm1(self.eps))
        with np.errstate(divide="ignore"):
            log_a = np.log(a)
            z = log_c + log_a
        with np.errstate(invalid="ignore"):
            dz = 4.0 * _U * (abs(log_c) + np.abs(log_a)) + _U * np.abs(z)
            rel = np.where(np.isfinite(dz), dz * expit(z + dz), np.inf) + 8.0 * _U
        e = expit(-z)
        lo, hi = widen(one_lo * e, rel, 2.0 * TINY, low=0.0)
        hi = np.minimum(np.maximum(hi, widen(one_hi * e, rel, 2.0 * TINY, low=0.0)[1]), one_hi)
        lo = np.minimum(lo, one_lo)
        # α = 0: β = 1 exactly
        return np.where(a <= 0.0, 1.0, lo), np.where(a <= 0.0, 1.0, hi)

    def _delta_bracket(self, x: np.ndarray) -> ArrayPair:
        """δ(x) = expm1((x − ε)/2)² / (−expm1(−ε)) on [−ε, ε], bracketed (DDR 2020).

        Derivation: docs/derivations/families.md.
        """
        x = np.asarray(x, dtype=float)
        e = self.eps
        with np.errstate(under="ignore"):
            below = widen(-np.expm1(np.minimum(x, 0.0)), 2.0 * _U, low=0.0, high=1.0)
            if e == 0.0:
                return below
            xc = np.clip(x, -e, e)
            inside = widen(np.expm1((xc - e) / 2.0) ** 2 / (-np.expm1(-e)), 10.0 * _U,
                           2.0 * TINY, low=0.0, high=1.0)
        return tuple(np.where(x >= e, 0.0, np.where(x <= -e, b, i))   # type: ignore[return-value]
                     for b, i in zip(below, inside))

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """Exactly ε: the loss ranges over [−ε, ε] (``BoundedRangeLaw``), and the slopes
        of BR_ε at α = 0 and α = 1 are −e^ε and −e^{−ε}."""
        return self.eps, self.eps

    def law(self) -> BoundedRangeLaw:
        """The privacy-loss law: L = ε − 2 log(1 + cU), U uniform under P."""
        return BoundedRangeLaw(self.eps)

    def latex(self) -> str:
        return rf"\mathrm{{BR}}_{{{self.eps:g}}}"


@dataclass(frozen=True)
class BoundedRangeLaw(PrivacyLossLaw):
    """The privacy-loss law of BR_ε = T(P, Q), P uniform on [0, 1].

    ``eps``: ε ≥ 0.

    Derivation: docs/derivations/families.md.

    Examples
    --------
    >>> import fdp
    >>> kappa, pi, _, _ = fdp.BoundedRange(1.0).law().interval_masses([0.0])
    >>> print(f"{kappa.sum():.4f} {pi.sum():.4f}")
    1.0000 1.0000
    """

    eps: float

    def interval_masses(self, edges: ArrayLike) -> Masses:
        e = self.eps
        if e == 0.0:
            kappa, pi = bin_atoms(edges, np.zeros(1), np.ones(1), np.ones(1))
            return kappa, pi, 0.0, 0.0
        left, right = intervals(edges)
        lo = np.clip(left, -e, e)
        hi = np.clip(right, -e, e)
        log_c = float(log_expm1(e))
        with np.errstate(under="ignore"):
            width = np.expm1((hi - lo) / 2.0)
            pi = np.exp((e - hi) / 2.0 - log_c) * width
            kappa = np.exp((e + lo) / 2.0 - log_c) * width
        return kappa, pi, 0.0, 0.0

    def loss_range(self) -> tuple[float, float]:
        return -self.eps, self.eps

    def loss_moments(self, under: str = "Q") -> tuple[float, float] | None:
        """Mean and variance of L = ε − 2w under Q, w ~ Exp(1) truncated to [0, ε]."""
        if under != "Q":
            return None
        e = self.eps
        if e < 1e-3:   # series: the closed forms cancel catastrophically
            m_w = e / 2.0 - e * e / 12.0
            v_w = e * e / 12.0
        else:
            r = e / np.expm1(e)                       # ε e^{−ε}/(1 − e^{−ε})
            m_w = 1.0 - r
            v_w = 1.0 - r * r * np.exp(e) if e < 700.0 else 1.0
        return float(e - 2.0 * m_w), float(4.0 * max(v_w, e * e * 1e-6))
