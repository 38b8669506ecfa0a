"""Rényi DP of mechanisms and of the Poisson-subsampled Gaussian, and the RDP → (ε, δ)
conversions.

RDP (Mironov 2017): M is (λ, ρ)-RDP if D_λ(M(S) ‖ M(S')) ≤ ρ for neighbours; RDP
composes by adding ρ at each order λ.

Two questions, one name each:

* ``rdp_of(f, orders, steps)``: the RDP curve of a mechanism given as a trade-off
  function, ρ(λ) = steps · D_λ(Q ‖ P) for its dominating pair ``f.law()`` (the closed
  forms of Mironov 2017, Table II, live with the families' laws);
* ``rdp_subsampled_gaussian(orders, q, σ, steps)``: the RDP of a *sampler*, the
  Poisson-subsampled Gaussian, add/remove neighbours (Mironov, Talwar, Zhang 2019), a
  proven upper bound at every order, fractional ones included.

The ε of DP-SGD by this accountant is ``fdp.sgd.dpsgd_rdp_epsilon``. The RDP → (ε, δ)
conversions (``rdp_to_epsilon``, ``rdp_to_log_delta``: "improved", Balle et al. 2020,
Thm 21, and "mironov", Mironov 2017, Prop 3; rounded up) live with the certified RDP
bound in ``fdp.operations.rdp_bound``. Derivation: docs/derivations/rdp.md.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, gammasgn, log_ndtr

from fdp import _validate
from fdp._lazy import LazyModule
from fdp._types import ArrayLike, FloatArray, FloatOrArray
from fdp.families import Gaussian
from fdp.law import AtomsLaw, PrivacyLossLaw
from fdp.operations.rdp_bound import (
    Conversion,
    RDPEpsilon,
    check_orders,
    rdp_to_epsilon,
    rdp_to_log_delta,
)
from fdp.tradeoff import TradeOff

#: mpmath, for the few orders whose terms cancel in doubles (``import fdp`` stays free of it)
mpmath = LazyModule("mpmath")

#: The order grid of Bu et al. (2020)'s moments-accountant comparison
#: (their gdp_accountant.py): 1 + x/10 for x = 1..99, then 12 to 59.8 in steps of
#: 0.2, then 60..99.
BU_ORDERS = np.concatenate([1.0 + np.arange(1, 100) / 10.0, np.arange(12.0, 60.0, 0.2),
                            np.arange(60.0, 100.0, 1.0)])
BU_ORDERS.setflags(write=False)

#: A default grid: fine at small orders, geometric up to 1024.
DEFAULT_ORDERS = np.unique(np.concatenate([1.0 + np.arange(1, 100) / 20.0,
                                           np.arange(6.0, 64.0, 0.5),
                                           np.geomspace(64.0, 1024.0, 40)]))
DEFAULT_ORDERS.setflags(write=False)


def rdp_of(f: TradeOff, orders: ArrayLike, steps: float = 1) -> FloatOrArray:
    """RDP of ``steps`` compositions of a trade-off function with a privacy-loss law.

    ρ(λ) = steps · D_λ(Q ‖ P) = steps · log E_Q e^{(λ−1)L} / (λ − 1) for the dominating
    pair (P, Q) of f, read from ``f.law().renyi`` (Mironov 2017, Def 3 and Prop 1), in
    the direction D(Q ‖ P): for an asymmetric f also evaluate ``f.inverse()`` and take
    the larger. Orders λ ≥ 1: λ = 1 is the KL divergence E_Q[L], λ = ∞ is ess sup_Q L
    (``f.pure_epsilon()`` when the law is not finite; van Erven & Harremoës 2014, Thm 5
    and 6); Q-mass at L = +∞ gives ∞ at every order. ValueError when f's law has no
    log-MGF. Derivation: docs/derivations/rdp.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.classical.rdp import rdp_of
    >>> print(f"{rdp_of(fdp.Gaussian(1.0), 4.0):.4f}")
    2.0000
    >>> print(f"{rdp_of(fdp.EpsDelta(1.0), 2.0):.4f}")
    0.7353
    >>> print(rdp_of(fdp.Gaussian(1.0), [1.0, float("inf")]).tolist())
    [0.5, inf]
    """
    if not isinstance(f, TradeOff):
        raise TypeError(f"f must be a TradeOff, got {type(f).__name__}")
    o = _validate.reals("orders", orders, low=1.0, allow_inf=True).ravel()
    if o.size == 0:
        raise ValueError("orders must contain at least one order >= 1")
    if (o < 1.0).any():
        raise ValueError(f"orders must lie in [1, inf], got {_validate.number(o[o < 1.0][0])}")
    t = _validate.real("steps", steps, low=0.0)
    out = np.empty(o.shape)
    inner = (o > 1.0) & np.isfinite(o)
    law = f.law()
    if inner.any():
        rho = None if law is None else law.renyi(o[inner])
        if rho is None:
            raise ValueError(f"f = {f!r} has no privacy-loss law with a known log-MGF "
                             "(f.law() is None or has no log_mgf); RDP needs one")
        out[inner] = np.asarray(rho, dtype=float)
    if (o == 1.0).any():
        if law is None:
            raise ValueError(f"f = {f!r} has no privacy-loss law; order 1 (KL) needs one")
        out[o == 1.0] = _kl(law)
    if np.isinf(o).any():
        out[np.isinf(o)] = _d_inf(f, law)
    out = np.zeros(o.shape) if t == 0.0 else t * out   # no steps: ρ = 0 (not 0 · inf)
    return _validate.like_input(orders, out.reshape(np.shape(orders)))


def _kl(law: PrivacyLossLaw) -> float:
    """D_1(Q ‖ P) = E_Q[L] ≥ 0 (see ``rdp_of``)."""
    p_neginf, q_inf = law.singular_masses()
    if q_inf > 0.0:
        return math.inf
    if p_neginf > 0.0:
        if not isinstance(law, AtomsLaw):
            raise ValueError("order 1 (KL) of a law with P-mass at L = -inf and a "
                             "continuous part is not available; build f from its finite "
                             "pair (fdp.from_pair)")
        L, q = law.atoms()
        live = q > 0.0
        return max(math.fsum((q[live] * L[live]).tolist()), 0.0)
    return max(float(law.moment(1, 0.0, False, "Q")), 0.0)   # KL ≥ 0


def _d_inf(f: TradeOff, law: PrivacyLossLaw | None) -> float:
    """D_∞(Q ‖ P) = ess sup_Q L (see ``rdp_of``)."""
    if isinstance(law, AtomsLaw):
        if law.singular_masses()[1] > 0.0:
            return math.inf
        L, q = law.atoms()
        return max(float(L[q > 0.0].max(initial=0.0)), 0.0)
    return float(f.pure_epsilon())


def rdp_bounded_range(eps: float, orders: ArrayLike) -> FloatOrArray:
    """Rényi DP of an ε-bounded-range mechanism (the exponential mechanism), exact.

    With E = e^ε and u* = λ(E^λ − E)/((λ − 1)(E^λ − 1)) (Cesar & Rogers 2021, ALT, §3;
    Dong, Durfee & Rogers 2020, §3),
    ρ(λ) = [log(E^λ − E) − log(E − 1) − log(λ − 1) − λ log u*] / (λ − 1); λ = 1 gives
    x − 1 − log x with x = ε/(1 − e^{−ε}), λ = ∞ gives ε. Only for mechanisms that are
    ε-bounded range (``fdp.BoundedRange(ε)`` is the curve of any BR_ε-DP mechanism).
    Derivation: docs/derivations/rdp.md.

    Examples
    --------
    >>> from fdp.classical.rdp import rdp_bounded_range
    >>> print(f"{rdp_bounded_range(1.0, 2.0):.6f}")
    0.240229
    """
    e = _validate.real("eps", eps, low=0.0, low_open=True)
    o = _validate.reals("orders", orders, low=1.0, allow_inf=True).ravel()
    if o.size == 0 or (o < 1.0).any():
        raise ValueError("orders must be a non-empty list of orders in [1, inf]")
    out = np.empty(o.shape)
    inner = (o > 1.0) & np.isfinite(o)
    lam = o[inner]
    lm1 = lam - 1.0
    log_em1 = e + np.log1p(-np.exp(-e))                       # log(E − 1)
    log_top = lam * e + np.log1p(-np.exp(-lm1 * e))           # log(E^λ − E)
    log_elam_m1 = lam * e + np.log1p(-np.exp(-lam * e))       # log(E^λ − 1)
    log_u = np.log(lam) + log_top - np.log(lm1) - log_elam_m1
    rho = (log_top - log_em1 - np.log(lm1) - lam * log_u) / lm1
    # the terms are of size λε and cancel to ~λε²/8: where λε is small, recompute with
    # enough digits (mpmath) that the cancellation leaves 16 of them
    small = np.flatnonzero(lam * e < 1.0)
    if small.size:
        for k in small:
            digits = 25 + int(3 * max(-math.log10(lam[k] * e), 0.0))
            with mpmath.workdps(digits):
                big_e, lk = mpmath.exp(mpmath.mpf(e)), mpmath.mpf(float(lam[k]))
                top = big_e ** lk - big_e
                u = lk * top / ((lk - 1) * (big_e ** lk - 1))
                rho[k] = float((mpmath.log(top) - mpmath.log(big_e - 1) - mpmath.log(lk - 1)
                                - lk * mpmath.log(u)) / (lk - 1))
    out[inner] = np.maximum(rho, 0.0)
    if (o == 1.0).any():
        # x − 1 − log x cancels to ~ε²/8 at small ε
        with mpmath.workdps(25 + int(3 * max(-math.log10(e), 0.0))):
            x = mpmath.mpf(e) / -mpmath.expm1(-mpmath.mpf(e))   # e^{t*} = ε/(1 − e^{−ε})
            out[o == 1.0] = max(float(x - 1 - mpmath.log(x)), 0.0)
    out[np.isinf(o)] = e
    return _validate.like_input(orders, out.reshape(np.shape(orders)))


#: Unit roundoff of doubles, and the relative error allowed per library call (see
#: docs/derivations/rdp.md, "Rounding").
_U = 2.0 ** -53
_ULPS = 64.0


def _padded_log_sum(logs: ArrayLike, signs: ArrayLike, magnitude: ArrayLike) -> float:
    """An upper bound on log Σ signs·exp(logs) that counts the rounding (``magnitude``:
    per term, the sum of the absolute values of its pieces; docs/derivations/rdp.md)."""
    logs, signs, magnitude = (np.asarray(v, dtype=float) for v in (logs, signs, magnitude))
    abs_log, _ = _log_sum_exp(logs, np.ones_like(logs))
    err_log, _ = _log_sum_exp(logs + np.log(np.expm1(_ULPS * _U * (magnitude + 1.0))),
                              np.ones_like(logs))
    # numpy's pairwise summation (blocks of at most 128 added in 8 lanes, then halves)
    n_sum = 2.0 * np.log2(logs.size + 2.0) + 160.0
    err_log = float(np.logaddexp(err_log, abs_log + np.log(n_sum * _U)))
    total, sign = _log_sum_exp(np.append(logs, err_log), np.append(signs, 1.0))
    if not sign > 0 or not np.isfinite(total):
        return np.inf
    return float(total) + 4.0 * _U * abs(float(total))


def _log_sum_exp(logs: FloatArray, weights: FloatArray) -> tuple[float, float]:
    """(log |Σ wᵢ e^{lᵢ}|, its sign): the largest log taken out, the rest summed by numpy
    (pairwise: the allowance of ``_padded_log_sum``). Plain numpy: called a few hundred
    times per curve, where ``scipy.special.logsumexp``'s per-call overhead dominates."""
    if logs.size == 0:
        return -np.inf, 0.0
    top = float(np.max(logs))
    if not np.isfinite(top):
        return top, (1.0 if top > 0 else 0.0)
    total = float(np.sum(weights * np.exp(logs - top)))
    if total == 0.0:
        return -np.inf, 0.0
    return top + math.log(abs(total)), math.copysign(1.0, total)


def _mills(x: FloatArray) -> FloatArray:
    """An upper bound on φ(x)/Φ(x) (2× the computed value, and at least 1e-300)."""
    with np.errstate(over="ignore"):
        r = np.exp(-0.5 * x * x - 0.5 * np.log(2.0 * np.pi) - log_ndtr(x))
    return np.minimum(2.0 * r + 1e-300, np.where(x < 0, 1.0 - x, 1.0))


def _log_a_int(q: float, sigma: float, lam: int) -> float:
    """Upper bound on log A_λ, integer λ ≥ 2, as log1p of the positive sum
    A_λ − 1 = Σ_{k≥2} C(λ,k) q^k (1−q)^{λ−k} expm1((k² − k)/(2σ²))."""
    k = np.arange(2, lam + 1, dtype=float)
    g = (gammaln(lam + 1.0), gammaln(k + 1.0), gammaln(lam - k + 1.0))
    x = (k * k - k) / (2 * sigma ** 2)
    log_em1 = np.where(x > 30.0, x + np.log(-np.expm1(-np.minimum(x, 1e300))),
                       np.log(np.expm1(np.minimum(x, 30.0))))
    pieces = (k * np.log(q), (lam - k) * np.log1p(-q))
    terms = g[0] - g[1] - g[2] + pieces[0] + pieces[1] + log_em1
    magnitude = abs(g[0]) + g[1] + g[2] + np.abs(pieces[0]) + np.abs(pieces[1]) + x \
        + np.abs(log_em1)
    log_excess = _padded_log_sum(terms, np.ones_like(terms), magnitude)
    out = float(np.logaddexp(0.0, log_excess))
    return out + 4.0 * _U * out


def _log_a_frac(q: float, sigma: float, lam: float, rtol: float = 1e-13,
                max_terms: int = 1 << 20) -> float:
    """Upper bound on log A_λ, fractional λ: MTZ's two expansions, truncated after N > λ
    terms each, plus the first omitted term of each (a proven remainder bound;
    docs/derivations/rdp.md). N grows ×4 until the remainder is below ``rtol``."""
    log_q, log_1q = np.log(q), np.log1p(-q)
    z0 = sigma ** 2 * (log_1q - log_q) + 0.5
    s2 = 2.0 * sigma ** 2
    n = max(256, 4 * int(np.ceil(lam)))     # N > λ: the remainder bound needs it
    while True:
        i = np.arange(n + 1, dtype=float)
        j = lam - i
        g = (gammaln(lam + 1.0), gammaln(i + 1.0), gammaln(j + 1.0))
        log_binom = g[0] - g[1] - g[2]
        sign = gammasgn(j + 1.0)  # Γ(λ+1), Γ(i+1) > 0: the sign of C(λ, i)
        x0, x1 = (z0 - i) / sigma, (j - z0) / sigma
        n0, n1 = log_ndtr(x0), log_ndtr(x1)
        p0 = (i * log_q, j * log_1q, (i * i - i) / s2)
        p1 = (j * log_q, i * log_1q, (j * j - j) / s2)
        t0 = log_binom + p0[0] + p0[1] + p0[2] + n0
        t1 = log_binom + p1[0] + p1[1] + p1[2] + n1
        common = abs(g[0]) + np.abs(g[1]) + np.abs(g[2])
        # the error of log Φ from its argument's, via the Mills ratio
        arg0 = (abs(z0) + i + lam) / sigma * _mills(x0)
        arg1 = (abs(z0) + i + lam) / sigma * _mills(x1)
        m0 = common + np.abs(p0[0]) + np.abs(p0[1]) + np.abs(p0[2]) + np.abs(n0) + arg0
        m1 = common + np.abs(p1[0]) + np.abs(p1[1]) + np.abs(p1[2]) + np.abs(n1) + arg1
        # the first n terms summed; term n (its absolute value) bounds the remainder
        logs = np.concatenate([t0[:n], t1[:n], [t0[n], t1[n]]])
        signs = np.concatenate([sign[:n], sign[:n], [1.0, 1.0]])
        mags = np.concatenate([m0[:n], m1[:n], [m0[n], m1[n]]])
        # at a pole of Γ(j + 1) the coefficient is exactly 0 (log −inf, sign NaN)
        live = np.isfinite(logs)
        remainder = float(np.logaddexp(t0[n], t1[n]))
        bound = _padded_log_sum(logs[live], signs[live], mags[live])
        if remainder < bound + np.log(rtol) or n >= max_terms:
            return bound
        n *= 4


def rdp_subsampled_gaussian(orders: ArrayLike, sample_rate: float, noise_multiplier: float,
                            steps: float = 1) -> FloatOrArray:
    """RDP ρ(λ) of ``steps`` compositions of the Poisson-subsampled Gaussian mechanism
    (rate q, noise multiplier σ, add/remove neighbours): steps · log A_λ / (λ − 1)
    with A_λ from Mironov, Talwar, Zhang (2019), integer and fractional λ > 1; a proven
    upper bound at every order. q = 0 gives 0; q = 1 the plain Gaussian λ/(2σ²);
    ``steps`` may be fractional. Derivation: docs/derivations/rdp.md.

    Examples
    --------
    >>> from fdp.classical import rdp_subsampled_gaussian
    >>> print(f"{rdp_subsampled_gaussian(2.0, 1.0, 2.0):.4f}")
    0.2500
    """
    o = check_orders(orders)
    q = _validate.probability("sample_rate", sample_rate)
    s = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    t = _validate.real("steps", steps, low=0.0)
    out = np.empty(o.shape)
    for idx, lam in enumerate(o):
        if q == 0.0:
            out[idx] = 0.0
        elif s * s == 0.0:
            out[idx] = np.inf     # σ² underflows (σ ≲ 1e-154): inf is the safe upper bound
        elif q == 1.0:
            out[idx] = lam / (2.0 * s * s)
        elif float(lam).is_integer():
            out[idx] = _log_a_int(q, s, int(lam)) / (lam - 1.0)
        else:
            out[idx] = _log_a_frac(q, s, float(lam)) / (lam - 1.0)
    # the divisions and the product with steps add ≤ 3 ulps
    out = t * out * (1.0 + 8.0 * _U)
    return _validate.like_input(orders, out.reshape(np.shape(orders)))


def gaussian_rdp_epsilon(mu: float, delta: float, *, orders: ArrayLike | None = None,
                         conversion: Conversion = "improved") -> RDPEpsilon:
    """(ε, δ) of μ-GDP (the Gaussian mechanism with Δ/σ = μ) through RDP:
    ρ(λ) = λ μ²/2 on ``orders`` (default ``DEFAULT_ORDERS``), converted by
    ``rdp_to_epsilon``. An upper bound, for comparison with the exact ``fdp.gdp_epsilon``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.classical import gaussian_rdp_epsilon
    >>> bool(gaussian_rdp_epsilon(1.0, 1e-5).epsilon > fdp.gdp_epsilon(1.0, 1e-5))
    True
    """
    m = _validate.real("mu", mu, low=0.0, low_open=True)
    o = DEFAULT_ORDERS if orders is None else check_orders(orders)
    return rdp_to_epsilon(o, np.asarray(rdp_of(Gaussian(m), o)), delta, conversion)


# The conversions and their result type live with the certified RDP bound
# (fdp.operations.rdp_bound); this module is their classical face.
__all__ = ["BU_ORDERS", "DEFAULT_ORDERS", "Conversion", "RDPEpsilon", "gaussian_rdp_epsilon",
           "rdp_of", "rdp_subsampled_gaussian", "rdp_to_epsilon", "rdp_to_log_delta"]
