"""Laplace trade-off functions L_μ = T(Lap(0,1), Lap(μ,1)) (DRS Appendix A), and their
privacy-loss law L = |x| − |x − μ| (``LaplaceLaw``)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fdp import _validate
from fdp._constants import TINY, UNIT_ROUNDOFF
from fdp._lazy import LazyModule
from fdp._types import ArrayLike, FloatArray
from fdp.families._rounding import one_minus, widen
from fdp.law import Masses, PrivacyLossLaw, bin_atoms, intervals, mirrored_moment
from fdp.law.renyi import certified_renyi, log_sum_two
from fdp.tradeoff import Bracketed, ProfileBracketed, TradeOff

mpmath = LazyModule("mpmath")   # loaded on first use: `import fdp` stays light

_U = UNIT_ROUNDOFF


@dataclass(frozen=True)
class Laplace(Bracketed, ProfileBracketed):
    """L_μ(α) for μ ≥ 0 (DRS Appendix A):

        1 − e^μ α            for α < e^{−μ}/2,
        e^{−μ} / (4α)        for e^{−μ}/2 ≤ α ≤ 1/2,
        e^{−μ} (1 − α)       for α > 1/2.

    The Laplace mechanism with scale b = Δ/ε is L_ε-DP, which is strictly stronger
    than f_{ε,0}. Symmetric.

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.Laplace(1.0)(0.1):.4f}")
    0.7282
    """

    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", _validate.real("mu", self.mu, low=0.0))

    @property
    def symmetric(self) -> bool:
        return True

    def _bracket(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The three pieces, each a product or quotient of at most four rounded factors
        (e^{−μ/2}: 2u; ×, ÷: u each), so within 8u relative; the first piece 1 − e^μ α
        (e^μ α < 1/2) adds at most that much of e^μ α ≤ 1 − e^μ α; a branch chosen on
        the wrong side of a kink differs by O(u²) (the pieces touch with equal slopes);
        subnormal products add two of the smallest doubles."""
        mu = self.mu
        a = np.asarray(alpha, dtype=float)
        # e^{±μ} as the square of e^{±μ/2}, applied one factor at a time: every product
        # stays a normal double (e^{−μ} alone is subnormal for μ ∈ (708, 745))
        half = math.exp(-mu / 2.0)                             # 0 beyond μ ≈ 1490
        pos = np.where(a > 0.0, a, 0.0)
        with np.errstate(over="ignore", under="ignore"):
            t = (pos / half) / half if half > 0.0 else np.where(a > 0.0, np.inf, 0.0)  # e^μ α
        # the first branch while e^μ α < 1/2 (the kink α = e^{−μ}/2)
        left = (t < 0.5) | (a <= 0.0)
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            first = 1.0 - np.where(left, t, 0.0)
            middle = half * (half / (4.0 * np.where(left, 1.0, a)))
            last = half * (half * (1.0 - a))
        v = np.where(left, first, np.where(a <= 0.5, middle, last))
        if mu == 0.0:
            return one_minus(a)                                # L_0 = Id
        # the axioms 0 ≤ f(α) ≤ 1 − α bound the real value (1 − α rounded up)
        lo, hi = widen(v, 8.0 * _U, 2.0 * TINY, low=0.0, high=one_minus(a)[1])
        # α = 0: β = 1 exactly
        return np.where(a <= 0.0, v, lo), np.where(a <= 0.0, v, hi)

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        """L_0 = Id is 0-GDP; otherwise the generic certified bracket."""
        if self.mu == 0.0:
            return 0.0, 0.0
        return super()._gdp_mu_bounds()

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """L_μ ≥ f_{ε,0} iff ε ≥ μ: δ_L(ε) = 0 exactly for ε ≥ μ (DRS Appendix A)."""
        return self.mu, self.mu

    def _delta_bracket(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """δ(ε) = 1 − e^{(ε−μ)/2} on [−μ, μ], 0 above μ, 1 − e^ε below −μ. −expm1(t) errs
        by 2u relative, and its argument's rounding u|t| moves it by at most u relative
        (|t|e^t/(1 − e^t) ≤ 1 for t ≤ 0); ε ≥ μ gives 0 exactly."""
        e = np.asarray(eps, dtype=float)
        mu = self.mu
        inside = -np.expm1((np.clip(e, -mu, mu) - mu) / 2.0)
        below = -np.expm1(np.minimum(e, 0.0))
        v = np.where(e >= mu, 0.0, np.where(e < -mu, below, inside))
        lo, hi = widen(v, 6.0 * _U, low=0.0, high=1.0)
        return lo, hi

    def _epsilon_range(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        """ε(δ) = max{0, μ + 2 log(1 − δ)}, the inverse of δ(ε) = 1 − e^{(ε−μ)/2} on [0, μ]
        (DRS Appendix A), as a certified bracket.

        log1p errs by 2u relative and the doubling is exact, so the sum errs by
        4u|log1p(−δ)| plus u of itself (absolute: it cancels near ε = 0); δ = 0 gives
        μ exactly, δ ≥ 1 − e^{−μ/2} gives 0.
        """
        with np.errstate(divide="ignore"):
            y = 2.0 * np.log1p(-d)                              # −inf at δ = 1
        mu = self.mu
        v = np.where(d < 1.0, mu + y, 0.0)
        lo, hi = widen(v, _U, 4.0 * _U * np.where(d < 1.0, -y, 0.0), low=0.0, high=mu)
        return np.where(d == 0.0, mu, lo), np.where(d == 0.0, mu, hi)

    def _group(self, k: int) -> TradeOff:
        """L_μ.group(k) = L_{kμ} exactly (DRS Thm 2.14).

        Derivation: docs/derivations/families.md.
        """
        return Laplace(k * self.mu)

    def law(self) -> LaplaceLaw:
        """The privacy-loss law (two atoms ±μ and a density on (−μ, μ))."""
        return LaplaceLaw(self.mu)

    def latex(self) -> str:
        return rf"L_{{{self.mu:g}}}"


@dataclass(frozen=True)
class LaplaceLaw(PrivacyLossLaw):
    """The privacy-loss law of L_μ = T(Lap(0,1), Lap(μ,1)) (DRS Appendix A).

    Under P, L = −μ with mass ½, +μ with mass e^{−μ}/2, density e^{−(ℓ+μ)/2}/4 on
    (−μ, μ); moments are closed forms of ∫ (ℓ − c)^k e^{−ℓ/2} dℓ (evaluated in mpmath
    at 50 digits). D_α(Q ‖ P) = log[α/(2α−1) e^{(α−1)μ} + (α−1)/(2α−1) e^{−αμ}]/(α − 1)
    (Mironov 2017, Table II).

    Examples
    --------
    >>> import fdp
    >>> law = fdp.Laplace(1.0).law()
    >>> print(f"{-law.moment(1):.4f}")
    0.3679
    """

    renyi_is_upper_bound = True

    mu: float

    @property
    def moment_method(self) -> str:
        return "closed form"

    def interval_masses(self, edges: ArrayLike) -> Masses:
        mu = self.mu
        if mu == 0.0:
            kappa, pi = bin_atoms(edges, np.zeros(1), np.ones(1), np.ones(1))
            return kappa, pi, 0.0, 0.0
        left, right = intervals(edges)
        # continuous part: L = 2x − μ for x ∈ (0, μ)
        xa = np.clip((left + mu) / 2.0, 0.0, mu)
        xb = np.clip((right + mu) / 2.0, 0.0, mu)
        d = xb - xa
        # Q-mass ½(e^{xb−μ} − e^{xa−μ}), written without e^{d} (d can exceed 709)
        with np.errstate(under="ignore"):
            kappa = -0.5 * np.exp(xb - mu) * np.expm1(-d)
            pi = -0.5 * np.exp(-xa) * np.expm1(-d)
        k_atoms, p_atoms = bin_atoms(edges, np.array([mu, -mu]),
                                     np.array([0.5 * np.exp(-mu), 0.5]),
                                     np.array([0.5, 0.5 * np.exp(-mu)]))
        return kappa + k_atoms, pi + p_atoms, 0.0, 0.0

    def loss_range(self) -> tuple[float, float]:
        return -self.mu, self.mu

    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array([self.mu, -self.mu]), np.array([0.5, 0.5 * np.exp(-self.mu)])

    def moment(self, k: int, c: float = 0.0, absolute: bool = False,
               under: str = "P") -> float:
        if under == "Q":
            return mirrored_moment(self, k, c, absolute)
        with mpmath.workdps(50):
            m, c_ = mpmath.mpf(self.mu), mpmath.mpf(c)

            def g(x: Any) -> Any:           # mpmath numbers
                v = x - c_
                return abs(v) ** k if absolute else v ** k

            total = g(-m) / 2 + mpmath.exp(-m) * g(m) / 2
            # ∫_{−m}^{m} g(ℓ) e^{−(ℓ+m)/2}/4 dℓ, split where (ℓ − c) changes sign.
            cuts = [-m, m] if not (-m < c_ < m) else [-m, c_, m]
            for a, b in itertools.pairwise(cuts):
                sign = 1
                if absolute and (a + b) / 2 < c_ and k % 2 == 1:
                    sign = -1
                total += sign * mpmath.exp(-m / 2) / 4 * _poly_exp_integral(k, c_, a, b)
            return float(total)

    def renyi(self, orders: ArrayLike) -> np.ndarray:
        """D_α(Q ‖ P) in closed form (Mironov 2017, Table II), rounded up: an upper
        bound at every order, rounding included (``fdp.law.renyi.certified_renyi``)."""
        o = np.asarray(orders, dtype=float).ravel()
        if self.mu == 0.0:
            return np.zeros(o.shape)          # P = Q
        return certified_renyi(self.mu, o, _renyi_doubles, _renyi_interval)


def _renyi_doubles(mu: float, o: FloatArray) -> tuple[FloatArray, FloatArray]:
    """ρ(λ) = log A/(λ − 1), A = λ/(2λ−1) e^{(λ−1)μ} + (λ−1)/(2λ−1) e^{−λμ}, in doubles
    with its rounding bound: log1p of A − 1 for λμ < 1, a log-sum-exp otherwise."""
    lam1 = o - 1.0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        w1, w2 = o / (2.0 * o - 1.0), lam1 / (2.0 * o - 1.0)
        t1, t2 = np.log(w1) + lam1 * mu, np.log(w2) - o * mu
        mag = np.abs(np.log(w1)) + np.abs(np.log(w2)) + (lam1 + o) * mu
        return log_sum_two(w1, np.expm1(lam1 * mu), w2, np.expm1(-o * mu), t1, t2, mag,
                           o * mu < 1.0, lam1)


def _renyi_interval(mu: float, lam: float, c: Any) -> Any:
    """ρ(λ) of L_μ as an interval of the mpmath interval context ``c``."""
    lam_i, x = c.mpf(lam), c.mpf(mu)
    a = (lam_i / (2 * lam_i - 1) * c.exp((lam_i - 1) * x)
         + (lam_i - 1) / (2 * lam_i - 1) * c.exp(-lam_i * x))
    return c.log(a) / (lam_i - 1)


def _poly_exp_integral(k: int, c: Any, a: Any, b: Any) -> Any:
    """∫_a^b (ℓ − c)^k e^{−ℓ/2} dℓ in closed form (mpmath numbers):
    with u = ℓ − c, the antiderivative of u^k e^{−u/2} is
    −e^{−u/2} Σ_{j=0}^{k} k!/(k−j)! 2^{j+1} u^{k−j}."""

    def anti(u: Any) -> Any:
        s = sum(mpmath.factorial(k) / mpmath.factorial(k - j) * 2 ** (j + 1) * u ** (k - j)
                for j in range(k + 1))
        return -mpmath.exp(-u / 2) * s

    return mpmath.exp(-c / 2) * (anti(b - c) - anti(a - c))
