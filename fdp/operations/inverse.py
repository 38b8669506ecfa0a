"""The inverse f⁻¹ of a trade-off function (DRS Lemma A.2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from fdp._constants import DELTA_RESOLUTION, LOGIT_SEARCH
from fdp._numerics import ArrayFn, bisect_monotone, conjugate_delta
from fdp._types import FloatArray
from fdp.law import SwappedLaw
from fdp.status import Status
from fdp.tradeoff import TradeOff, math_repr, remark

REFLECT_MAX = 3.0


@dataclass(frozen=True)
class Inverse(TradeOff):
    """f⁻¹(α) = inf{t ∈ [0, 1] : f(t) ≤ α}; T(Q, P) = T(P, Q)⁻¹.

    Evaluated by bisection in logit(t) over the whole interval (f is non-increasing,
    so the bracket cannot miss); the privacy profile is exact through
    δ_{f⁻¹}(ε) = e^ε δ_f(−ε) + 1 − e^ε (reflection of the graph in the diagonal).
    """

    of: TradeOff

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        f = self.of
        f0 = f._beta(np.zeros(1))[0]
        # logit(t) over LOGIT_SEARCH, to a width of 1e-16 (relative beyond 1): t is then
        # exact to rounding; ``hi`` always satisfies f(t) ≤ α.
        lo = np.full(a.shape, LOGIT_SEARCH[0])
        hi = np.full(a.shape, LOGIT_SEARCH[1])
        _, hi = bisect_monotone(lambda u: f._beta(expit(u)) <= a, lo, hi, rtol=1e-16, atol=1e-16)
        t = expit(hi)
        # f(0) ≤ α gives 0; expit(40) rounds to 1, the right end of the bracket.
        return np.where(f0 <= a, 0.0, t)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return self._reflected(self.of._delta, self.of._beta, eps, 1.0)

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        if self.of.is_exact:
            return self._beta(alpha)
        return Inverse(_UpperView(self.of))._beta(alpha)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return self._reflected(self.of._delta_lower, self.of._upper, eps, -1.0)

    @staticmethod
    def _reflected(delta_fn: ArrayFn, beta_fn: ArrayFn, eps: FloatArray,
                   side: float) -> FloatArray:
        """δ_{f⁻¹}(ε) = 1 − e^ε (1 − δ_f(−ε)) for ε ≤ 3; beyond, e^ε would amplify the
        rounding of 1 − δ_f(−ε), so the reflected conjugate sup_x (1 − x − e^ε f(x))
        of f's own values is taken instead (no inversion needed).

        Derivation: docs/derivations/operations.md.
        """
        e0 = np.asarray(eps, dtype=float)
        e = e0.ravel()                       # flat, so that a 0-d ε can be assigned into
        small = np.minimum(e, REFLECT_MAX)
        y = np.exp(small)
        out = np.array(1.0 - y * (1.0 - delta_fn(-small)), dtype=float)
        out += side * (y + 1.0) * DELTA_RESOLUTION
        big = e > REFLECT_MAX
        if big.any():
            out[big] = conjugate_delta(beta_fn, e[big], reflected=True,
                                       bound="upper" if side > 0 else "lower")
        return np.clip(out, 0.0, 1.0).reshape(e0.shape)

    @property
    def status(self) -> Status:
        return self.of.status

    def _inverse(self) -> TradeOff:
        return self.of

    @property
    def directions(self) -> str:
        return self.of.directions

    def __repr__(self) -> str:
        return f"{math_repr(self.of)}.inverse(){remark(self)}"

    def latex(self) -> str:
        return rf"\left({self.of.latex()}\right)^{{-1}}"

    def law(self) -> SwappedLaw | None:
        """T(Q, P)'s law: L ↦ −L with P and Q exchanged (``fdp.law.SwappedLaw``)."""
        inner = self.of.law()
        return None if inner is None else SwappedLaw(inner)


@dataclass(frozen=True)
class _UpperView(TradeOff):
    """The upper side of a bracketed f, as a function of its own."""

    of: TradeOff

    def _beta(self, alpha: FloatArray) -> FloatArray:
        return self.of._upper(alpha)
