"""The identity trade-off Id(α) = 1 − α: perfect privacy (DRS §2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp.law import AtomsLaw
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class Identity(TradeOff):
    """Id(α) = 1 − α = T(P, P); the neutral element of ⊗ (DRS Prop 3.2).

    Parameters
    ----------
    None

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.Identity()(0.3):.4f}")
    0.7000
    """

    @property
    def symmetric(self) -> bool:
        return True

    def _gaussian_component(self):
        return 0.0, 1.0                 # engine hook: Id = G_0

    def _composition_kind(self) -> str:
        return "neutral"

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        return 1.0 - alpha

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        """δ(ε) = max(0, 1 − e^ε)."""
        e = np.asarray(eps, dtype=float)
        return np.maximum(-np.expm1(np.minimum(e, 0.0)), 0.0)   # no −0.0 at ε ≥ 0

    def _pair(self):
        from fdp.families.finite_pair import FinitePair
        return FinitePair.from_atoms([0.0], [1.0], [1.0])

    def _group(self, k: int) -> TradeOff:
        return self

    def law(self) -> AtomsLaw:
        """L = 0 almost surely under P = Q."""
        return AtomsLaw(np.zeros(1), np.ones(1), np.ones(1), "closed form")

    _certified_delta = True

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        return 0.0, 0.0

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        return 0.0, 0.0

    def latex(self) -> str:
        return r"\mathrm{Id}"
