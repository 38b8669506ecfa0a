"""Gaussian trade-off functions G_μ = T(N(0,1), N(μ,1)) (DRS Def 2.7): the curve, its
privacy profile in log space, and its privacy-loss law.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from fdp import _validate
from fdp._constants import (
    NDTRI_RTOL,
    NORMAL_TAIL_MASS,
    NORMAL_TAIL_Z,
    TINY,
    UNIT_ROUNDOFF,
)
from fdp._types import ArrayLike
from fdp.families._rounding import ArrayPair, exp_bracket, one_minus, widen
from fdp.families.gaussian_profile import (  # noqa: F401  (re-exported: the profile of G_mu)
    _LOG_SQRT_2PI,
    _U,
    LOG_DELTA_ALLOWANCE,
    LOG_DELTA_MU_ALLOWANCE,
    LOG_DELTA_RALLOWANCE,
    _log_delta_and_error,
    _log_delta_low,
    _mills_sens,
    _r_ndtr,
    gdp_log_delta_estimate,
    gdp_log_delta_upper,
)
from fdp.law import Masses, PrivacyLossLaw, bin_atoms, mirrored_moment
from fdp.tradeoff import Bracketed, ProfileBracketed, TradeOff


def _beta_bracket(mu: float, alpha: np.ndarray) -> ArrayPair:
    """(lo, hi) around G_μ(α) = Φ(Φ⁻¹(1 − α) − μ): the computed value widened by its
    error bound, with 1 − α (exact, as adjacent doubles) capping both ends.

    Derivation: docs/derivations/families.md.
    """
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))
        w = z - mu
        v = ndtr(w)
        fin = np.isfinite(w)
        az = np.where(np.isfinite(z), np.abs(z), 0.0)
        wf = np.where(fin, w, 0.0)
        rel = _r_ndtr(wf) + _mills_sens(wf) * (NDTRI_RTOL * az + _U * (np.abs(wf) + az))
        lo, hi = widen(v, rel, 8.0 * TINY)
        # the subnormal tail by Gordon's bounds, in log space
        t = np.where(fin & (w < -37.6), -wf, 40.0)
        log_up = -0.5 * t * t - np.log(t) - _LOG_SQRT_2PI
        err_l = 4.0 * _U * (t * t + 4.0)
        g_lo, _ = exp_bracket(log_up - np.log1p(1.0 / (t * t)), err_l)
        _, g_hi = exp_bracket(log_up, err_l)
    tail = fin & (w < -37.6)
    lo = np.where(tail, g_lo, lo)
    hi = np.where(tail, g_hi, hi)
    om_lo, om_hi = one_minus(a)
    # ends: α = 0 gives 1 exactly, α = 1 gives 0 exactly (z = ±inf)
    lo = np.where(fin, np.minimum(lo, om_lo), v)
    hi = np.where(fin, np.minimum(hi, om_hi), v)
    return np.minimum(lo, hi), hi


def gdp_beta(mu: float, alpha: np.ndarray) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), computed without forming 1 − α for small α.

    Capped at 1 − α (G_μ ≤ Id; rounding could put Φ(Φ⁻¹(1 − α)) one ulp above it,
    e.g. G_0(0.05) = 0.9500000000000001); the cap only lowers the value (safe side).
    """
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        z = np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))
    return np.minimum(ndtr(z - mu), 1.0 - a)


def normal_cells(z: np.ndarray) -> np.ndarray:
    """Standard-normal masses of (−∞, z_0), [z_0, z_1), …, [z_{K−1}, ∞) for sorted z (±inf ok).

    One tail Φ(−|z_i|) per edge, differenced on the side of 0 where it is small, so both
    tails keep full relative precision.

    Examples
    --------
    >>> from fdp.families.gaussian import normal_cells
    >>> print(normal_cells([-1.0, 1.0]).round(4))
    [0.1587 0.6827 0.1587]
    """
    z = np.asarray(z, dtype=float)
    c = ndtr(-np.abs(z))
    neg = z <= 0
    out = np.empty(z.size + 1)
    out[0] = c[0] if neg[0] else 1.0 - c[0]
    out[-1] = c[-1] if not neg[-1] else 1.0 - c[-1]
    a, b = c[:-1], c[1:]
    both_neg, both_pos = neg[:-1] & neg[1:], ~neg[:-1] & ~neg[1:]
    out[1:-1] = np.where(both_neg, b - a, np.where(both_pos, a - b, 1.0 - a - b))
    return np.maximum(out, 0.0)


def isf_normal(tail: float) -> float:
    """Φ̄⁻¹(tail): z with P(Z > z) = tail ∈ (0, 1) for a standard normal Z, clipped at 0.

    Examples
    --------
    >>> from fdp.families.gaussian import isf_normal
    >>> print(f"{isf_normal(0.025):.4f}")
    1.9600
    """
    return -float(ndtri(tail)) if tail < 0.5 else 0.0


_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(96)
_GH_W = _GH_W / _GH_W.sum()


def mean_var(values: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """Weighted mean and variance; (inf, inf) for a law beyond doubles."""
    if not np.all(np.isfinite(values)):
        return np.inf, np.inf          # a law beyond doubles: the grid is sized by its window
    m = float(weights @ values)
    return m, float(weights @ (values - m) ** 2)


@dataclass(frozen=True)
class GaussianLaw(PrivacyLossLaw):
    """The privacy loss of G_μ: L = μX − μ²/2, N(∓μ²/2, μ²) under P and Q (DRS §3.2).

    Examples
    --------
    >>> import fdp
    >>> law = fdp.Gaussian(1.0).law()
    >>> print(f"{law.moment(1):.4f} {law.moment(2, -0.5):.4f}")
    -0.5000 1.0000
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
        # L ≤ e ⇔ x ≤ e/μ ∓ μ/2 (Q: x ∼ N(μ, 1) shifted; P: N(0, 1)); written without μ²,
        # which overflows for μ > 1e154, and without inf − inf at infinite edges
        e = np.asarray(edges, dtype=float)
        with np.errstate(over="ignore"):
            z = e / mu
        kappa = normal_cells(z - mu / 2.0)
        pi = normal_cells(z + mu / 2.0)
        return kappa, pi, 0.0, 0.0

    def loss_range(self) -> tuple[float, float]:
        # the bulk of L under Q (around μ²/2) and under P (around −μ²/2): the P side is
        # what the reflected lattice of the inverse pair (remove direction) lives on
        mu = self.mu
        return -mu * mu / 2.0 - NORMAL_TAIL_Z * mu, mu * mu / 2.0 + NORMAL_TAIL_Z * mu

    def loss_moments(self, under: str = "Q") -> tuple[float, float]:
        m = self.mu * self.mu / 2.0
        return (m if under == "Q" else -m), self.mu * self.mu

    def subsampled_loss_range(self, p: float) -> tuple[float, float] | None:
        if self.mu <= 0.0:
            return None
        # Q(L > l) = (1 − p)Φ̄(x) + pΦ̄(x − μ) at the x with L(x) = l: cut where the
        # larger term is NORMAL_TAIL_MASS, as for the plain Gaussian
        # (an inclusion component of mass below 1e-25 in all is left out: the grid's
        # top tail goes to the safe side anyway). Exponents as μ(x − μ/2): finite or
        # ±inf, never inf − inf, however large μ is.
        mu = self.mu
        x_hi = float(isf_normal(NORMAL_TAIL_MASS))
        if NORMAL_TAIL_MASS / p < 0.5:
            x_hi = max(x_hi, mu + float(isf_normal(NORMAL_TAIL_MASS / p)))
        hi = float(np.logaddexp(np.log1p(-p), np.log(p) + mu * (x_hi - mu / 2.0)))
        return float(np.log1p(-p)), hi

    def subsampled_loss_moments(self, p: float, under: str) -> tuple[float, float] | None:
        if self.mu <= 0.0:
            return None
        mu = self.mu

        def loss(x: np.ndarray) -> np.ndarray:
            with np.errstate(over="ignore"):
                return np.logaddexp(np.log1p(-p), np.log(p) + mu * (x - mu / 2.0))
        if under == "P":   # P = N(0, 1)
            return mean_var(loss(_GH_X), _GH_W)
        # under Q = (1 − p)N(0, 1) + pN(μ, 1) (96-point Gauss–Hermite; L is smooth)
        x = np.concatenate([_GH_X, _GH_X + mu])
        w = np.concatenate([(1.0 - p) * _GH_W, p * _GH_W])
        return mean_var(loss(x), w)

    def moment(self, k: int, c: float = 0.0, absolute: bool = False,
               under: str = "P") -> float:
        if under == "Q":
            return mirrored_moment(self, k, c, absolute)
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

    def log_mgf(self, t: float, under: str = "Q") -> float:
        """log E e^{tL} = t·m + t²μ²/2 with m = ±μ²/2 (normal MGF)."""
        m = self.mu * self.mu / 2.0
        return t * (m if under == "Q" else -m) + t * t * self.mu * self.mu / 2.0

    def renyi(self, orders: ArrayLike) -> np.ndarray:
        """D_α(N(μ,1) ‖ N(0,1)) = αμ²/2 (Mironov 2017, Table II), rounded up: three
        products of u each (8u covers them), plus an absolute allowance where they
        underflow."""
        o = np.asarray(orders, dtype=float).ravel()
        if self.mu == 0.0:
            return np.zeros(o.shape)
        with np.errstate(over="ignore"):
            return o * self.mu * self.mu / 2.0 * (1.0 + 8.0 * UNIT_ROUNDOFF) + 4.0 * TINY


@dataclass(frozen=True)
class Gaussian(Bracketed, ProfileBracketed):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (DRS eq. 2.3), μ ≥ 0.

    The Gaussian mechanism θ + N(0, Δ²/μ²) is μ-GDP. Symmetric; G_a ⊗ G_b = G_√(a²+b²)
    (DRS Cor 3.3); μ-GDP gives kμ-GDP for groups of size k (DRS Thm 2.14).
    Evaluated through ``ndtri`` of α (not of 1 − α) near α → 0 for accuracy.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.Gaussian(1.0)
    >>> print(f"{f(0.05):.4f} {f.delta(1.0):.4f}")
    0.7405 0.1269
    """

    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", _validate.real("mu", self.mu, low=0.0))

    @property
    def symmetric(self) -> bool:
        return True

    def _gaussian_component(self) -> tuple[float, float] | None:
        return float(self.mu), 1.0      # engine hook: G_μ itself

    def _composition_kind(self) -> str:
        return "gaussian"

    def _bracket(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.mu == 0.0:
            return one_minus(alpha)           # G_0 = Id: 1 − α, exactly bracketed
        return _beta_bracket(self.mu, alpha)

    def _delta_bracket(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor 2.13), all real ε: the log-space
        closed form plus its derived error bound; positive wherever the truth is."""
        e = np.asarray(eps, dtype=float)
        est, err = _log_delta_and_error(self.mu, e)
        over = est == -np.finfo(float).max
        lo, hi = exp_bracket(np.where(over, -np.inf, est), np.where(over, 0.0, err),
                             positive=np.isfinite(e) & (self.mu > 0.0))
        lo = np.where(over, 0.0, lo)
        hi = np.where(over, np.maximum(hi, TINY), hi)
        # δ(ε) ≥ 1 − e^ε (the line through (0, 1)); δ ≤ 1
        lo = np.maximum(lo, np.nextafter(-np.expm1(np.minimum(e, 0.0)) * (1.0 - 2.0 * _U),
                                         -np.inf))
        return np.clip(lo, 0.0, 1.0), np.minimum(hi, 1.0)

    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        """Certified upper log δ(ε) in closed log-space form (docs/derivations/families.md): ε(δ)
        for δ down to 1e-300 and below, and δ = 0 ⇒ ε = inf (δ_μ(ε) > 0 for every finite
        ε when μ > 0)."""
        return gdp_log_delta_upper(self.mu, np.asarray(eps, dtype=float))

    def _log_delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return _log_delta_low(self.mu, np.asarray(eps, dtype=float))

    def _group(self, k: int) -> TradeOff:
        """G_μ.group(k) = G_{kμ} exactly (DRS Thm 2.14).

        Derivation: docs/derivations/families.md.
        """
        try:
            mu = float(k) * self.mu
        except OverflowError:              # k beyond any double
            mu = math.inf if self.mu > 0 else 0.0
        if not math.isfinite(mu):
            shown = str(k) if k < 10 ** 20 else f"an integer of {len(str(k))} digits"
            raise ValueError(f"k * mu exceeds the largest double (k = {shown}, "
                             f"mu = {self.mu!r}): the group curve is 0 at every α > 0 to "
                             "double precision")
        return Gaussian(mu)

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        return self.mu, self.mu

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """G_μ has slope −∞ at α = 0, so no f_{ε,0} lies below it unless μ = 0."""
        v = 0.0 if self.mu == 0.0 else float("inf")
        return v, v

    def law(self) -> GaussianLaw:
        """The privacy-loss law: L ~ N(−μ²/2, μ²) under P, N(μ²/2, μ²) under Q."""
        return GaussianLaw(self.mu)

    def latex(self) -> str:
        return rf"G_{{{self.mu:g}}}"
