"""Laplace trade-off functions L_μ = T(Lap(0,1), Lap(μ,1)) (DRS Appendix A)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class Laplace(TradeOff):
    """L_μ(α) for μ ≥ 0 (DRS Appendix A):

        1 − e^μ α            for α < e^{−μ}/2,
        e^{−μ} / (4α)        for e^{−μ}/2 ≤ α ≤ 1/2,
        e^{−μ} (1 − α)       for α > 1/2.

    The Laplace mechanism with scale b = Δ/ε is L_ε-DP, which is strictly stronger
    than f_{ε,0}. Symmetric.
    """

    mu: float

    def __post_init__(self):
        object.__setattr__(self, "mu", _validate.real("mu", self.mu, low=0.0))

    @property
    def symmetric(self) -> bool:
        return True

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        mu = self.mu
        a = np.asarray(alpha, dtype=float)
        kink = 0.5 * np.exp(-mu)
        # each branch only where it applies (e^μ overflows past μ ≈ 709 and e^{−μ}
        # underflows to 0, where every α > 0 is beyond the first kink)
        left = (a < kink) | (a <= 0.0)
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            # 1 − e^{μ + log α}: no inf·0 at α = 0
            first = np.where(a > 0.0, 1.0 - np.exp(mu + np.log(np.where(left, a, 1.0))), 1.0)
            middle = np.exp(-mu) / (4.0 * np.where(left, 1.0, a))
            last = np.exp(-mu) * (1.0 - a)
        return np.where(left, first, np.where(a <= 0.5, middle, last))

    _certified_delta = True

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        """L_0 = Id is 0-GDP; otherwise the generic certified bracket."""
        if self.mu == 0.0:
            return 0.0, 0.0
        return super()._gdp_mu_bounds()

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """L_μ ≥ f_{ε,0} iff ε ≥ μ: δ_L(ε) = 0 exactly for ε ≥ μ (DRS Appendix A)."""
        return self.mu, self.mu

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        """δ(ε) = 1 − e^{(ε−μ)/2} on [−μ, μ], 0 above μ, 1 − e^ε below −μ."""
        e = np.asarray(eps, dtype=float)
        mu = self.mu
        inside = -np.expm1((np.clip(e, -mu, mu) - mu) / 2.0)
        below = -np.expm1(np.minimum(e, 0.0))
        return np.where(e >= mu, 0.0, np.where(e < -mu, below, inside))

    def _group(self, k: int) -> TradeOff:
        """L_μ.group(k) = L_{kμ} exactly (DRS Thm 2.14).

        For a location family P_θ with a log-concave density (monotone likelihood ratio),
        the optimal tests of T(P_0, P_μ) reject above a threshold t, so with S the
        survival function of P_0, α = S(t) and 1 − f(α) = S(S⁻¹(α) − μ). Iterating,
        (1 − f)^{∘k}(α) = S(S⁻¹(α) − kμ) = 1 − T(P_0, P_{kμ})(α). Lap(0, 1) has the
        log-concave density e^{−|x|}/2, so the k-fold is L_{kμ}.
        """
        return Laplace(k * self.mu)

    def latex(self) -> str:
        return rf"L_{{{self.mu:g}}}"
