"""G_μ for a μ known only to an interval: a certified bracket between two Gaussians.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp.families.gaussian import Gaussian
from fdp.law import PrivacyLossLaw
from fdp.status import Status
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class GaussianRange(TradeOff):
    """G_μ for a μ known only to lie in [mu_lo, mu_hi]: the certified bracket
    G_{mu_hi} ≤ G_μ ≤ G_{mu_lo} (G_μ decreases in μ, DRS 2022 §2.3).

    ``mu_lo, mu_hi``: 0 ≤ mu_lo ≤ mu_hi < inf; ``assumptions`` (shown in the repr): the
    mechanism, its neighbouring relation and participation limits the curve is a guarantee
    for. The safe side is G_{mu_hi}, the other G_{mu_lo}, also for the engine.

    Examples
    --------
    >>> from fdp.families import GaussianRange
    >>> f = GaussianRange(1.0, 1.1, "example")
    >>> f.status
    <Status.CERTIFIED: 'certified'>
    >>> lo, hi = f.bounds(0.05)
    >>> print(f"{lo:.4f} {hi:.4f}")
    0.7071 0.7405
    """

    mu_lo: float
    mu_hi: float
    assumptions: str = ""

    def __post_init__(self) -> None:
        lo = _validate.real("mu_lo", self.mu_lo, low=0.0)
        hi = _validate.real("mu_hi", self.mu_hi, low=lo)
        object.__setattr__(self, "mu_lo", lo)
        object.__setattr__(self, "mu_hi", hi)
        if not isinstance(self.assumptions, str):
            raise TypeError(f"assumptions must be a str, got "
                            f"{type(self.assumptions).__name__}")

    @property
    def status(self) -> Status:
        return Status.CERTIFIED

    @property
    def symmetric(self) -> bool:
        return True

    _certified_delta = True

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        return Gaussian(self.mu_hi)._beta(alpha)

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        return Gaussian(self.mu_lo)._upper(alpha)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return Gaussian(self.mu_hi)._delta(eps)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return Gaussian(self.mu_lo)._delta_lower(eps)

    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        return Gaussian(self.mu_hi)._log_delta(eps)

    def _log_delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return Gaussian(self.mu_lo)._log_delta_lower(eps)

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        """The smallest μ with truth ≥ G_μ is the unknown μ itself: in [mu_lo, mu_hi]."""
        return self.mu_lo, self.mu_hi

    def law(self) -> PrivacyLossLaw | None:
        # no single law: the engine reads the certified profile (pessimistic side)
        return None

    def _upper_law(self) -> PrivacyLossLaw | None:
        """The law of G_{mu_lo}, a pair whose trade-off function lies above the truth
        (the engine's optimistic side, ``fdp.engine.from_profile``)."""
        return Gaussian(self.mu_lo).law()

    def __repr__(self) -> str:
        text = f"GaussianRange(mu_lo={self.mu_lo!r}, mu_hi={self.mu_hi!r}"
        return text + (f", {self.assumptions})" if self.assumptions else ")")


__all__ = ["GaussianRange"]
