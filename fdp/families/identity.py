"""The identity trade-off Id(α) = 1 − α: perfect privacy (DRS §2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp._constants import UNIT_ROUNDOFF
from fdp.families._rounding import one_minus, widen
from fdp.families.finite_pair import FinitePair
from fdp.law import AtomsLaw
from fdp.tradeoff import ProfileBracketed, TradeOff


@dataclass(frozen=True)
class Identity(ProfileBracketed):
    """Id(α) = 1 − α = T(P, P); the neutral element of ⊗ (DRS Prop 3.2).

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.Identity()(0.3):.4f}")
    0.7000
    """

    @property
    def symmetric(self) -> bool:
        return True

    def _gaussian_component(self) -> tuple[float, float] | None:
        return 0.0, 1.0                 # engine hook: Id = G_0

    def _composition_kind(self) -> str:
        return "neutral"

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        """1 − α rounded down (exact where 1 − α is a double: α ≥ 1/2, Sterbenz)."""
        return one_minus(alpha)[0]

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        return one_minus(alpha)[1]

    def _delta_bracket(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """δ(ε) = max(0, 1 − e^ε), widened by 2u (expm1's relative error)."""
        e = np.asarray(eps, dtype=float)
        v = np.maximum(-np.expm1(np.minimum(e, 0.0)), 0.0)   # no −0.0 at ε ≥ 0
        return widen(v, 2.0 * UNIT_ROUNDOFF, low=0.0, high=1.0)

    def _pair(self) -> FinitePair:
        return FinitePair.from_atoms([0.0], [1.0], [1.0])

    def _group(self, k: int) -> TradeOff:
        return self

    def law(self) -> AtomsLaw:
        """L = 0 almost surely under P = Q."""
        return AtomsLaw(np.zeros(1), np.ones(1), np.ones(1), "closed form")

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        return 0.0, 0.0

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        return 0.0, 0.0

    def latex(self) -> str:
        return r"\mathrm{Id}"
