"""From a privacy profile back to a trade-off function (DRS Prop 2.12, MATH.md §3).

f(α) = sup_ε max{0, 1 − δ(ε) − e^ε α}. For a symmetric profile (ε ≥ 0, each point
meaning (ε, δ)-DP), each point contributes f_{ε,δ} with both of its lines. Taking the
supremum over finitely many points gives a trade-off function below the true f: an
(ε, δ)-curve sampled at some ε converts back to a valid, slightly weaker guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp.tradeoff import TradeOff


@dataclass(frozen=True, eq=False)
class ProfileBound(TradeOff):
    """max over given points of the supporting lines 1 − δ_i − e^{ε_i} α (and, when
    ``symmetric``, e^{−ε_i}(1 − δ_i − α)), clipped below at 0: max{0, …} is part of
    f_{ε,δ}'s definition, not a repair."""

    eps: np.ndarray
    deltas: np.ndarray
    two_sided: bool = True

    @property
    def symmetric(self) -> bool:
        return self.two_sided

    def _beta(self, alpha):
        a = np.asarray(alpha, dtype=float).ravel()
        out = np.zeros(a.shape)
        with np.errstate(over="ignore"):
            y = np.exp(self.eps)      # +inf past ε ≈ 709: the line is then vertical at α = 0
        for s in range(0, y.size, 512):
            ys, ds = y[s:s + 512, None], self.deltas[s:s + 512, None]
            with np.errstate(invalid="ignore", over="ignore"):
                lines = np.where(a[None, :] == 0, 1.0 - ds, 1.0 - ds - ys * a[None, :])
            if self.two_sided:
                lines = np.maximum(lines, (1.0 - ds - a[None, :]) / ys)
            out = np.maximum(out, lines.max(axis=0))
        return out.reshape(np.shape(alpha))

    def __repr__(self):
        kind = "symmetric" if self.two_sided else "one-sided"
        return f"from_privacy_profile({self.eps.size} points, {kind})"


def from_privacy_profile(eps, delta, *, symmetric: bool = True) -> TradeOff:
    """sup over the given points of f_{ε_i,δ_i} (DRS Prop 2.12).

    symmetric=True: each (ε_i ≥ 0, δ_i) is an (ε, δ)-DP statement, contributing
    f_{ε_i,δ_i}. symmetric=False: ε_i ranges over all reals and each point gives
    only the line 1 − δ_i − e^{ε_i} α (a profile of one order of the pair).
    """
    e = _validate.reals("eps", eps, low=0.0 if symmetric else -np.inf).ravel()
    d = _validate.reals("delta", delta, low=0.0, high=1.0).ravel()
    if e.shape != d.shape:
        raise ValueError(f"eps and delta must have the same length, got {e.size} and {d.size}")
    if e.size == 0:
        raise ValueError("from_privacy_profile needs at least one (eps, delta) point")
    return ProfileBound(e, d, symmetric)
