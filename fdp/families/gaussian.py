"""Gaussian trade-off functions G_μ = T(N(0,1), N(μ,1)) (DRS Def 2.7)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp.conversions.gdp import _log_delta, _log_delta_estimate, gdp_beta
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class Gaussian(TradeOff):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (DRS eq. 2.3), μ ≥ 0.

    The Gaussian mechanism θ + N(0, Δ²/μ²) is μ-GDP. Symmetric; G_a ⊗ G_b = G_√(a²+b²)
    (DRS Cor 3.3); μ-GDP gives kμ-GDP for groups of size k (DRS Thm 2.14).
    Evaluated through ``ndtri`` of α (not of 1 − α) near α → 0 for accuracy.
    """

    mu: float

    def __post_init__(self):
        object.__setattr__(self, "mu", _validate.real("mu", self.mu, low=0.0))

    @property
    def symmetric(self) -> bool:
        return True

    def _gaussian_component(self):
        return float(self.mu), 1.0      # engine hook: G_μ itself

    def _composition_kind(self) -> str:
        return "gaussian"

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        # Φ(Φ⁻¹(1 − α) − μ) rounds a hair above 1 − α for μ ≈ 0: G_μ ≤ Id exactly
        return np.minimum(gdp_beta(self.mu, alpha), 1.0 - np.asarray(alpha, dtype=float))

    _certified_delta = True

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor 2.13), all real ε."""
        return np.exp(_log_delta_estimate(self.mu, np.asarray(eps, dtype=float)))

    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        """Certified upper log δ(ε) in closed log-space form (fdp.conversions.gdp): ε(δ)
        for δ down to 1e-300 and below, and δ = 0 ⇒ ε = inf (δ_μ(ε) > 0 for every finite
        ε when μ > 0)."""
        return _log_delta(self.mu, np.asarray(eps, dtype=float))

    def _group(self, k: int) -> TradeOff:
        """G_μ.group(k) = G_{kμ} exactly (DRS Thm 2.14).

        N(θ, 1) is a location family with a log-concave density, so the optimal tests of
        T(N(0,1), N(μ,1)) reject above a threshold: with S = 1 − Φ, α = S(t) and
        1 − G_μ(α) = S(S⁻¹(α) − μ). Iterating, (1 − G_μ)^{∘k}(α) = S(S⁻¹(α) − kμ),
        which is 1 − G_{kμ}(α).
        """
        return Gaussian(k * self.mu)

    def advantage(self) -> float:
        """Φ(μ/2) − Φ(−μ/2) = erf(μ/(2√2)) = δ(0), in the erf form (no cancellation at small μ)."""
        from scipy.special import erf
        return float(erf(self.mu / (2.0 * np.sqrt(2.0))))

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        return self.mu, self.mu

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """G_μ has slope −∞ at α = 0, so no f_{ε,0} lies below it unless μ = 0."""
        v = 0.0 if self.mu == 0.0 else float("inf")
        return v, v

    def latex(self) -> str:
        return rf"G_{{{self.mu:g}}}"
