"""Group privacy (DRS Theorem 2.14, MATH.md §5)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class Group(TradeOff):
    """f-DP for individuals ⇒ [1 − (1 − f)^{∘k}]-DP for groups of size k (DRS Thm 2.14).

    (1 − f)^{∘k} is the k-fold function composition of x ↦ 1 − f(x). The inverse is
    the same construction on f⁻¹ (reflecting in the diagonal commutes with it).
    """

    of: TradeOff
    k: int

    def _beta(self, alpha):
        x = np.asarray(alpha, dtype=float)
        for _ in range(self.k):
            x = 1.0 - self.of._beta(x)
        return 1.0 - x

    def _upper(self, alpha):
        x = np.asarray(alpha, dtype=float)
        for _ in range(self.k):
            x = 1.0 - self.of._upper(x)
        return 1.0 - x

    @property
    def is_exact(self) -> bool:
        return self.of.is_exact

    @property
    def symmetric(self) -> bool:
        return self.of.symmetric

    def _inverse(self) -> TradeOff:
        return Group(self.of.inverse(), self.k)

    def _group(self, k: int) -> TradeOff:
        return Group(self.of, self.k * k)

    def __repr__(self):
        return f"{self.of!r}.group({self.k})"

    def latex(self) -> str:
        return rf"1-(1-{self.of.latex()})^{{\circ {self.k}}}"
