"""Gaussian trade-off functions G_μ = T(N(0,1), N(μ,1)) (DRS Def 2.7): the curve, its
privacy profile in log space, and its privacy-loss law.

δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for every real ε (DRS Cor 2.13), computed
as log δ in three regimes chosen so that no step cancels:

* ε < 0: G_μ is symmetric, so δ(ε) = 1 − e^ε + e^ε δ(−ε) (DRS Prop 2.12 applied to
  f = f⁻¹); a sum of positive terms, taken with ``logaddexp``.
* ε = 0: δ(0) = 2Φ(μ/2) − 1 = erf(μ/(2√2)), exact down to subnormal μ.
* ε > 0, μ ≥ 0.05: with t₁ = ε/μ − μ/2, t₂ = ε/μ + μ/2, near (t₁ ≤ 1)
  log Φ(−t₁) + log(1 − e^{ε + log Φ(−t₂) − log Φ(−t₁)}); far (t₁ > 1) the scaled
  complementary error function, whose exponents agree exactly (ε − xμ = 0):
  δ = ½ e^{−t₁²/2} [erfcx(t₁/√2) − erfcx(t₂/√2)].
* ε > 0, μ < 0.05: with x = ε/μ fixed, d/dh [Φ(h − x) − e^{2hx} Φ(−x − h)] =
  2 φ(x − h) (1 − x M(x + h)), M the Mills ratio Φ(−y)/φ(y) = √(π/2) erfcx(y/√2), so
  δ = ∫₀^{μ/2} 2 φ(x − s) (1 − x M(x + s)) ds, a positive integrand integrated by
  32-point Gauss–Legendre (ε ≤ 4 and ε/μ ≤ 1e4; beyond, the far form suffices).

The privacy loss of (N(0,1), N(μ,1)) is L = μX − μ²/2: L ~ N(−μ²/2, μ²) under P and
N(μ²/2, μ²) under Q (DRS §3.2), so every moment, cumulant and the log-MGF are closed
forms; D_α(Q ‖ P) = αμ²/2 (Mironov 2017, Table II).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import erf, erfcx, log_ndtr, ndtr, ndtri

from fdp import _validate
from fdp._constants import NORMAL_TAIL_MASS, NORMAL_TAIL_Z
from fdp.law import Masses, PrivacyLossLaw, bin_atoms, mirrored_moment
from fdp.tradeoff import TradeOff

_SQRT2 = np.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_GL_X, _GL_W = np.polynomial.legendre.leggauss(32)
_SMALL_MU = 0.05


def _log_one_minus_x_mills(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log(1 − x M(y)) for 0 ≤ x ≤ y, M(y) = Φ(−y)/φ(y) (positive: M(y) < 1/y)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        m = np.sqrt(np.pi / 2.0) * erfcx(y / _SQRT2)
        direct = 1.0 - x * m
        # For large y: 1 − yM(y) = y⁻² − 3y⁻⁴ + 15y⁻⁶ − 105y⁻⁸ + … (asymptotic series,
        # truncation below 1e-16 relative for y > 100), plus (y − x) M(y).
        r = 1.0 / (y * y)
        series = r * (1.0 - r * (3.0 - r * (15.0 - r * (105.0 - 945.0 * r)))) + (y - x) * m
        return np.log(np.where(y > 100.0, series, direct))


def _log_delta_small_mu(mu: float, eps: np.ndarray) -> np.ndarray:
    """log δ_μ(ε) for 0 < μ < 0.05, 0 < ε ≤ 4 by the integral in the module docstring."""
    x = eps / mu
    h = mu / 2.0
    s = 0.5 * h * (_GL_X + 1.0)                      # nodes on [0, h]
    logw = np.log(0.5 * h * _GL_W)
    xx = x[:, None]
    log_phi = -0.5 * (xx - s[None, :]) ** 2 - _LOG_SQRT_2PI
    terms = np.log(2.0) + logw[None, :] + log_phi + _log_one_minus_x_mills(xx, xx + s[None, :])
    top = terms.max(axis=1)
    return top + np.log(np.exp(terms - top[:, None]).sum(axis=1))


def _log_delta_pos(mu: float, eps: np.ndarray) -> np.ndarray:
    """log δ_μ(ε) for ε > 0 (finite or +inf) and μ > 0."""
    out = np.empty_like(eps)
    with np.errstate(over="ignore"):
        # x = ε/μ ≤ 1e4 too: beyond, δ < e^{−5e7} and the far form gives its log
        small = (mu < _SMALL_MU) & (eps <= 4.0) & (eps <= 1e4 * mu)
    if small.any():
        out[small] = _log_delta_small_mu(mu, eps[small])
    rest = ~small
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = eps[rest]
        x = e / mu            # +inf for a subnormal μ: the limits below are then exact
        t1 = x - mu / 2.0
        t2 = x + mu / 2.0
        r = np.empty_like(e)
        far = t1 > 1.0
        # Far tail: the erfcx form, no cancellation between the exponents.
        u1, u2 = t1[far] / _SQRT2, t2[far] / _SQRT2
        diff = erfcx(u1) - erfcx(u2)
        # where the difference is lost to rounding (ε/μ ≳ 1e7, δ < e^{−5e13}): the
        # leading term of erfcx(u) ≈ 1/(u√π), i.e. (u2 − u1)/(√π u1 u2)
        asym = (mu / _SQRT2) / (np.sqrt(np.pi) * u1 * u2)
        diff = np.where((diff > 0) & np.isfinite(diff), diff, asym)
        r[far] = np.log(0.5) - 0.5 * t1[far] ** 2 + np.log(diff)
        # Near: log of Φ(−t1) (1 − e^{ε + log Φ(−t2) − log Φ(−t1)}).
        near = ~far
        a = log_ndtr(-t1[near])
        b = e[near] + log_ndtr(-t2[near])
        r[near] = a + np.log(-np.expm1(np.minimum(b - a, 0.0)))
        r = np.where(np.isposinf(e), -np.inf, r)
        out[rest] = r
    return out


# Allowance added to the computed log δ where a DECISION is made (ε(δ), μ(ε, δ),
# calibration, the accountant), so that the compared value is an upper bound: the
# evaluation error measured against mpmath (60 digits; μ in [1e-12, 60], ε in [−5,
# 1600]) is below 1.3e-13 absolute and 1.7e-15·|log δ| relative, and grows like
# 2.4e-16·μ for large μ (1.8e-12 at μ = 1e4, 2.4e-11 at μ = 1e5, near ε = μ²/2);
# 1e-12 + 4e-15·|log δ| + 1e-15·μ covers all three. Reported values (``gdp_delta``,
# ``Gaussian.delta``) are the estimate.
LOG_DELTA_ALLOWANCE = 1e-12
LOG_DELTA_RALLOWANCE = 4e-15
LOG_DELTA_MU_ALLOWANCE = 1e-15


def _log_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    """Certified upper bound on log δ_μ(ε) (the estimate plus the allowance above,
    capped at 0), vectorised in ε; −inf exactly where δ = 0 (μ = 0 and ε ≥ 0, or ε = +inf)."""
    est = _log_delta_estimate(mu, eps)
    finite = np.isfinite(est)
    safe = np.where(finite, est, 0.0)
    up = (safe + LOG_DELTA_ALLOWANCE + LOG_DELTA_RALLOWANCE * np.abs(safe)
          + LOG_DELTA_MU_ALLOWANCE * mu)
    return np.where(finite, np.minimum(up, 0.0), est)


def _log_delta_estimate(mu: float, eps: np.ndarray) -> np.ndarray:
    """log δ_μ(ε), vectorised in ε; −inf where δ = 0 (μ = 0 and ε ≥ 0, or ε = +inf).

    δ > 0 for every finite ε when μ > 0: a log that overflowed to −inf (ε/μ ≈ 1e300)
    is reported as the most negative double, never as an exact 0.
    """
    eps = np.asarray(eps, dtype=float)
    shape = eps.shape
    e = eps.ravel()
    # (over: −|ε| + log δ for |ε| near the largest double is −inf, which is right)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if mu == 0.0:
            # G_0 = Id: δ(ε) = max(0, 1 − e^ε).
            return np.where(e >= 0, -np.inf, np.log(-np.expm1(np.minimum(e, 0.0)))).reshape(shape)
        out = np.empty_like(e)
        zero = e == 0.0
        out[zero] = np.log(erf(mu / (2.0 * _SQRT2)))
        pos = np.abs(e) > 0.0
        if pos.any():
            a = np.abs(e[pos])
            la = _log_delta_pos(mu, a)
            neg = e[pos] < 0
            # ε < 0: δ(ε) = 1 − e^ε + e^ε δ(−ε) (symmetry of G_μ).
            one_minus = np.where(neg, np.log(-np.expm1(-a)), -np.inf)
            refl = np.logaddexp(one_minus, -a + la)
            out[pos] = np.where(neg, np.where(np.isinf(a), 0.0, refl), la)
        out = np.where(np.isfinite(e) & (out == -np.inf), -np.finfo(float).max, out)
    return out.reshape(shape)


def gdp_beta(mu: float, alpha: np.ndarray) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), computed without forming 1 − α for small α.

    Capped at 1 − α (G_μ ≤ Id; rounding could put Φ(Φ⁻¹(1 − α)) one ulp above it,
    e.g. G_0(0.05) = 0.9500000000000001); the cap only lowers the value (safe side).
    """
    from scipy.special import ndtri
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        z = np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))
    return np.minimum(ndtr(z - mu), 1.0 - a)


def normal_cells(z: np.ndarray) -> np.ndarray:
    """Standard-normal masses of (−∞, z_0), [z_0, z_1), …, [z_{K−1}, ∞) for sorted z.

    One tail probability c_i = Φ(−|z_i|) per edge, differenced on the side of 0
    where it is small, so both tails keep full relative precision.

    Parameters
    ----------
    z : array_like
        Sorted edges (±inf allowed).

    Returns
    -------
    ndarray
        The K + 1 cell masses (non-negative).

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
    """z with P(Z > z) = tail for a standard normal Z (0 for tail ≥ 1/2).

    Parameters
    ----------
    tail : float
        Upper-tail probability in (0, 1).

    Returns
    -------
    float
        The upper quantile Φ̄⁻¹(tail), clipped below at 0.

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

    Parameters
    ----------
    mu : float
        μ ≥ 0.

    Examples
    --------
    >>> import fdp
    >>> law = fdp.Gaussian(1.0).law()
    >>> print(f"{law.moment(1):.4f} {law.moment(2, -0.5):.4f}")
    -0.5000 1.0000
    """

    mu: float

    @property
    def moment_method(self) -> str:
        return "closed form"

    def interval_masses(self, edges) -> Masses:
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

        def loss(x):
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

    def renyi(self, orders) -> np.ndarray:
        """D_α(N(μ,1) ‖ N(0,1)) = αμ²/2 (Mironov 2017, Table II)."""
        o = np.asarray(orders, dtype=float).ravel()
        return o * self.mu * self.mu / 2.0


@dataclass(frozen=True)
class Gaussian(TradeOff):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (DRS eq. 2.3), μ ≥ 0.

    The Gaussian mechanism θ + N(0, Δ²/μ²) is μ-GDP. Symmetric; G_a ⊗ G_b = G_√(a²+b²)
    (DRS Cor 3.3); μ-GDP gives kμ-GDP for groups of size k (DRS Thm 2.14).
    Evaluated through ``ndtri`` of α (not of 1 − α) near α → 0 for accuracy.

    Parameters
    ----------
    mu : float
        μ ≥ 0.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.Gaussian(1.0)
    >>> print(f"{f(0.05):.4f} {f.delta(1.0):.4f}")
    0.7405 0.1269
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
        """Certified upper log δ(ε) in closed log-space form (module docstring): ε(δ)
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

    def advantage(self) -> float:
        """Φ(μ/2) − Φ(−μ/2) = erf(μ/(2√2)) = δ(0), in the erf form (no cancellation at small μ)."""
        return float(erf(self.mu / (2.0 * np.sqrt(2.0))))

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
