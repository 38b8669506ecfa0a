"""g ⊗ f_{0,δ} in closed form (DRS 2022, Def 3.1 with the pair of f_{0,δ}).

Derivation: docs/derivations/operations.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp._numerics import ArrayFn
from fdp.status import Status
from fdp.tradeoff import TradeOff, math_repr, remark


@dataclass(frozen=True)
class WithDelta(TradeOff):
    """base ⊗ f_{0,d}: (1 − d)·base(α/(1 − d)) for α ≤ 1 − d, else 0.

    An event of probability d ∈ [0, 1) on which the mechanism is not private (DRS 2022,
    Prop 2.12 and eq. 2.4): δ(ε) = d + (1 − d)·δ_base(ε). The field is ``d``, so that
    ``f.delta(eps)`` stays the privacy profile.

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.with_delta import WithDelta
    >>> f = WithDelta(fdp.Gaussian(1.0), 1e-6)
    >>> print(f"{float(f.delta(1.0)):.6f}")
    0.126938
    """

    base: TradeOff
    d: float

    def __post_init__(self) -> None:
        if not isinstance(self.base, TradeOff):
            raise TypeError(f"base must be a TradeOff, got {type(self.base).__name__}")
        object.__setattr__(self, "d", _validate.real("d", self.d, low=0.0, high=1.0,
                                                     high_open=True))

    @property
    def symmetric(self) -> bool:
        return self.base.symmetric

    @property
    def status(self) -> Status:
        return self.base.status

    def _has_certified_delta(self) -> bool:
        return self.base._has_certified_delta()     # d + (1 − d) δ_base

    def _scaled(self, fn: ArrayFn, alpha: np.ndarray) -> np.ndarray:
        keep = 1.0 - self.d
        x = np.minimum(alpha / keep, 1.0)
        return np.where(alpha >= keep, 0.0, keep * fn(x))

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        return self._scaled(self.base._beta, alpha)

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        return self._scaled(self.base._upper, alpha)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return self.d + (1.0 - self.d) * self.base._delta(eps)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return self.d + (1.0 - self.d) * self.base._delta_lower(eps)

    def _inverse(self) -> TradeOff:
        """f_{0,δ} is symmetric and (f ⊗ g)⁻¹ = f⁻¹ ⊗ g⁻¹ (DRS Prop 3.2): exact."""
        return WithDelta(self.base.inverse(), self.d)

    def __repr__(self) -> str:
        return f"{math_repr(self.base)} ⊗ EpsDelta(eps=0.0, delta={self.d!r})" + remark(self)

    def latex(self) -> str:
        return rf"{self.base.latex()} \otimes f_{{0,{self.d:g}}}"


def with_delta(base: TradeOff, delta: float) -> TradeOff:
    """``WithDelta(base, delta)``; ``base`` itself when δ = 0.

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.with_delta import with_delta
    >>> with_delta(fdp.Gaussian(1.0), 0.0)
    Gaussian(mu=1.0)
    """
    return base if delta == 0.0 else WithDelta(base, delta)
