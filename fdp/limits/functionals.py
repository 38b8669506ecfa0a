"""Functionals of a trade-off function: the moments of its privacy loss.

For f = T(P, Q) let L = log(dQ/dP). Because α ↦ log|f'(α)| pushes the uniform law
on [0, 1] forward to the law of L under P (Neyman–Pearson: the optimal test at level
α rejects when L exceeds its (1 − α)-quantile, and |f'(α)| is the likelihood ratio
there), DRS (§3.2) define

    kl(f)  = −∫₀¹ log|f'(x)| dx        = −E_P L = KL(P ‖ Q),
    κ2(f)  =  ∫₀¹ log²|f'(x)| dx       =  E_P L²,
    κ3(f)  =  ∫₀¹ |log|f'(x)||³ dx     =  E_P |L|³,
    κ̄3(f)  =  ∫₀¹ |log|f'(x)| + kl(f)|³ dx = E_P |L − E_P L|³.

They drive the Berry–Esseen CLT (DRS Thm 3.4) and, with the cumulants of L under
P and Q, the Edgeworth expansion (ZDLS 2020).

Point masses. If P puts mass on {L = −∞} or Q on {L = +∞} the functionals are
infinite. When the two masses are equal (δ), f = g ⊗ f_{0,δ} with
g(x) = f((1 − δ)x)/(1 − δ) (MATH.md §4), and the functionals are those of g, with δ
reported separately: this is how DRS treat f_{ε,δ} (their (ε, δ) CLT composes
⊗ f_{ε_i,0} and ⊗ f_{0,δ_i} separately). Unequal masses cannot be split that way and
raise ValueError.

How each family is handled:
  Gaussian G_μ       L ~ N(−μ²/2, μ²) under P: closed forms (folded-normal |·|³).
  Laplace L_μ        L = −μ (mass ½), +μ (mass e^{−μ}/2), density e^{−(ℓ+μ)/2}/4 on
                     (−μ, μ): closed forms of ∫ (ℓ − c)^k e^{−ℓ/2} dℓ, in mpmath.
  finite pairs       exact sums over the atoms (f_{ε,0}, randomized response, any
  (incl. f_{ε,δ})    ``FinitePair``); closed forms kl = ε tanh(ε/2), κ2 = ε² agree.
  anything else      quadrature: chords of f on a logit-uniform grid define a finite
                     pair (the quantised test statistic); its sums converge to the
                     integrals. ``accuracy`` reports twice the change between grids of
                     N and 2N cells (an estimate, not a certificate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from scipy.special import expit, ndtr

from fdp.tradeoff import TradeOff

#: Points in the logit-uniform grid of the numeric (quadrature) route.
NUMERIC_CELLS = 8000
#: Singular masses that differ by less than this are treated as equal (one δ).
SINGULAR_TOL = 1e-9


@dataclass(frozen=True)
class Functionals:
    """kl, κ2, κ3, κ̄3 of f (DRS §3.2), with the δ part split off.

    ``delta``: the mass split off as f_{0,δ} (0 when there is none).
    ``accuracy``: absolute error estimate of every field; 0.0 for closed forms and
    exact sums (then only rounding remains). ``method``: how they were computed.
    """

    kl: float
    kappa2: float
    kappa3: float
    kappa3_bar: float
    delta: float = 0.0
    accuracy: float = 0.0
    method: str = "closed form"


# ----------------------------------------------------------------------
# Laws of the privacy loss under P and Q
# ----------------------------------------------------------------------
class _Law:
    """The law of L under P and under Q, answering E[(L − c)^k] and E|L − c|^k."""

    def moment_p(self, k: int, c: float = 0.0, absolute: bool = False) -> float:
        raise NotImplementedError

    def moment_q(self, k: int, c: float = 0.0, absolute: bool = False) -> float:
        # Symmetric f: L under Q has the law of −L under P.
        return (1.0 if absolute or k % 2 == 0 else -1.0) * self.moment_p(k, -c, absolute)

    def functionals(self) -> tuple[float, float, float, float]:
        mean = self.moment_p(1)
        return (0.0 - mean + 0.0, self.moment_p(2), self.moment_p(3, absolute=True),
                self.moment_p(3, mean, absolute=True))

    def cumulants(self, under: str) -> tuple[float, float, float, float]:
        """(mean, variance, κ3, κ4) of L under ``under`` ∈ {"P", "Q"}, each computed
        from central moments (no cancellation of raw moments)."""
        mom = self.moment_p if under == "P" else self.moment_q
        mean = mom(1)
        var, c3, c4 = mom(2, mean), mom(3, mean), mom(4, mean)
        return mean, var, c3, c4 - 3.0 * var * var


class _GaussianLaw(_Law):
    """G_μ: L = μX − μ²/2 with X ~ N(0,1) under P, so L ~ N(−μ²/2, μ²)."""

    def __init__(self, mu: float):
        self.mu = mu

    def moment_p(self, k, c=0.0, absolute=False):
        s = self.mu
        d = -s * s / 2.0 - c
        if absolute and k % 2 == 1:
            if k != 3:
                raise NotImplementedError("absolute Gaussian moments of order 3 only")
            if s == 0.0:
                return abs(d) ** 3
            # E|N(d, s²)|³ = s³[(ν³ + 3ν)(1 − 2Φ(−ν)) + √(2/π)(ν² + 2)e^{−ν²/2}], ν = d/s.
            nu = abs(d) / s
            return s ** 3 * ((nu ** 3 + 3 * nu) * (1.0 - 2.0 * ndtr(-nu))
                             + math.sqrt(2.0 / math.pi) * (nu * nu + 2.0) * math.exp(-nu * nu / 2))
        raw = {1: d, 2: d * d + s * s, 3: d ** 3 + 3 * d * s * s,
               4: d ** 4 + 6 * d * d * s * s + 3 * s ** 4}
        return raw[k]


class _LaplaceLaw(_Law):
    """L_m = T(Lap(0,1), Lap(m,1)): under P, L = |x| − |x − m| is −m with mass ½,
    +m with mass e^{−m}/2, and has density e^{−(ℓ+m)/2}/4 on (−m, m)."""

    def __init__(self, m: float):
        self.m = m

    def moment_p(self, k, c=0.0, absolute=False):
        with mpmath.workdps(50):
            m, c_ = mpmath.mpf(self.m), mpmath.mpf(c)

            def g(x):
                v = x - c_
                return abs(v) ** k if absolute else v ** k

            total = g(-m) / 2 + mpmath.exp(-m) * g(m) / 2
            # ∫_{−m}^{m} g(ℓ) e^{−(ℓ+m)/2}/4 dℓ, split where (ℓ − c) changes sign.
            cuts = [-m, m] if not (-m < c_ < m) else [-m, c_, m]
            for a, b in zip(cuts[:-1], cuts[1:]):
                sign = 1
                if absolute and (a + b) / 2 < c_ and k % 2 == 1:
                    sign = -1
                total += sign * mpmath.exp(-m / 2) / 4 * _poly_exp_integral(k, c_, a, b)
            return float(total)


def _poly_exp_integral(k: int, c, a, b):
    """∫_a^b (ℓ − c)^k e^{−ℓ/2} dℓ in closed form (mpmath numbers):
    with u = ℓ − c, the antiderivative of u^k e^{−u/2} is
    −e^{−u/2} Σ_{j=0}^{k} k!/(k−j)! 2^{j+1} u^{k−j}."""

    def anti(u):
        s = sum(mpmath.factorial(k) / mpmath.factorial(k - j) * 2 ** (j + 1) * u ** (k - j)
                for j in range(k + 1))
        return -mpmath.exp(-u / 2) * s

    return mpmath.exp(-c / 2) * (anti(b - c) - anti(a - c))


class _AtomsLaw(_Law):
    """A finite law: losses ``L`` with masses ``p`` (under P) and ``q`` (under Q)."""

    def __init__(self, L, p, q):
        self.L = np.asarray(L, dtype=float)
        self.p = np.asarray(p, dtype=float)
        self.q = np.asarray(q, dtype=float)

    @staticmethod
    def _moment(L, w, k, c, absolute):
        v = L - c
        vals = np.abs(v) ** k if absolute else v ** k
        return float(np.sum(w * vals))

    def moment_p(self, k, c=0.0, absolute=False):
        return self._moment(self.L, self.p, k, c, absolute)

    def moment_q(self, k, c=0.0, absolute=False):
        return self._moment(self.L, self.q, k, c, absolute)


# ----------------------------------------------------------------------
# Dispatch
# ----------------------------------------------------------------------
@dataclass(frozen=True)
class _Decomposed:
    law: _Law
    delta: float
    accuracy: float
    method: str
    law_half: _Law | None = None  # the coarser grid, for the numeric route


def _split_singular(a: float, b: float, what: str) -> float:
    """δ from the P-mass a on L = −∞ and the Q-mass b on L = +∞ (must agree)."""
    if abs(a - b) > max(SINGULAR_TOL, 1e-6 * max(a, b)):
        raise ValueError(
            f"{what}: P puts mass {a:.6g} on L = -inf but Q puts mass {b:.6g} on L = +inf; "
            "only equal masses split off as f_(0,delta) (DRS (eps, delta) CLT). "
            "Symmetrise f first (f.symmetrize()).")
    return max(a, b)


def _decompose(f: TradeOff) -> _Decomposed:
    from fdp.families import Gaussian, Identity, Laplace
    if isinstance(f, Gaussian):
        return _Decomposed(_GaussianLaw(f.mu), 0.0, 0.0, "closed form")
    if isinstance(f, Laplace):
        return _Decomposed(_LaplaceLaw(f.mu), 0.0, 0.0, "closed form")
    if isinstance(f, Identity):
        return _Decomposed(_AtomsLaw([0.0], [1.0], [1.0]), 0.0, 0.0, "closed form")
    pair = f._pair()
    if pair is not None:
        L, p, q = pair.log_ratio, pair.p, pair.q
        a = float(p[np.isneginf(L)].sum())
        b = float(q[np.isposinf(L)].sum())
        delta = _split_singular(a, b, repr(f))
        fin = np.isfinite(L)
        keep = 1.0 - delta
        if keep <= 0.0:
            return _Decomposed(_AtomsLaw([0.0], [1.0], [1.0]), 1.0, 0.0, "exact sum")
        return _Decomposed(_AtomsLaw(L[fin], p[fin] / keep, q[fin] / keep), delta, 0.0,
                           "exact sum")
    return _numeric(f)


def _numeric(f: TradeOff) -> _Decomposed:
    f0 = float(f._beta(np.array([0.0]))[0])
    b = max(0.0, 1.0 - f0)
    # α_z = inf{α : f(α) = 0} by bisection (f is non-increasing).
    lo, hi = 0.0, 1.0
    if f._beta(np.array([1.0 - 1e-15]))[0] > 0.0:
        a = 0.0
    else:
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if f._beta(np.array([mid]))[0] > 0.0:
                lo = mid
            else:
                hi = mid
            if hi - lo < 1e-16:
                break
        a = 1.0 - hi
    delta = _split_singular(a, b, repr(f))
    if delta >= 1.0:
        return _Decomposed(_AtomsLaw([0.0], [1.0], [1.0]), 1.0, 0.0, "quadrature")
    keep = 1.0 - delta

    def g(x):
        return f._beta(np.clip(keep * x, 0.0, 1.0)) / keep

    law = _chord_law(g, NUMERIC_CELLS)
    half = _chord_law(g, NUMERIC_CELLS // 2)
    return _Decomposed(law, delta, np.nan, "quadrature", half)


def _chord_law(g, cells: int) -> _AtomsLaw:
    """The finite pair of the chords of g on a logit-uniform grid of α in
    [expit(−36), expit(36)] plus the end points: cell i has P-mass Δα_i, Q-mass −Δβ_i
    and loss log|slope_i|. Its T is the piecewise-linear interpolant of g."""
    u = np.linspace(-36.0, 36.0, cells - 1)
    x = np.concatenate([[0.0], expit(u), [1.0]])
    y = np.minimum(g(x), 1.0 - x)
    y = np.minimum.accumulate(y)
    dp = np.diff(x)
    dq = -np.diff(y)
    live = dp > 0.0  # near α = 1 neighbouring grid points can round to the same double
    dp, dq = dp[live], dq[live]
    with np.errstate(divide="ignore"):
        L = np.log(dq) - np.log(dp)
    # Cells where g is flat carry no Q-mass: their loss is −inf, but after the δ split
    # they are rounding only; give them the smallest finite loss of the grid.
    finite = np.isfinite(L)
    if not finite.all():
        L = np.where(finite, L, L[finite].min() if finite.any() else 0.0)
    return _AtomsLaw(L, dp, dq / dq.sum())


def functionals(f: TradeOff) -> Functionals:
    """kl, κ2, κ3, κ̄3 of a trade-off function (DRS §3.2; MATH.md §6).

    Closed forms for Gaussian (kl = μ²/2, κ2 = μ² + μ⁴/4, κ̄3 = 2√(2/π) μ³) and
    Laplace, exact sums for finite pairs (f_{ε,0}: kl = ε tanh(ε/2), κ2 = ε², κ3 = ε³),
    and quadrature with an error estimate otherwise (see the module docstring).
    A δ part (equal point masses at L = ±∞) is split off as f_{0,δ} and reported in
    ``delta``; the functionals are then those of g with f = g ⊗ f_{0,δ}.
    """
    if not isinstance(f, TradeOff):
        raise TypeError(f"functionals takes a TradeOff, got {type(f).__name__}")
    dec = _decompose(f)
    vals = dec.law.functionals()
    acc = dec.accuracy
    if dec.law_half is not None:
        coarse = dec.law_half.functionals()
        acc = float(2.0 * max(abs(x - y) for x, y in zip(vals, coarse)))
    return Functionals(*(float(v) for v in vals), delta=dec.delta, accuracy=acc,
                       method=dec.method)
