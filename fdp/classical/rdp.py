"""Rényi DP of the Gaussian and the Poisson-subsampled Gaussian mechanisms, and the
RDP → (ε, δ) conversions (the "moments accountant").

RDP (Mironov 2017): M is (λ, ρ)-RDP if D_λ(M(S) ‖ M(S')) ≤ ρ for neighbours; RDP
composes by adding ρ at each order λ.

* Gaussian mechanism with noise N(0, σ²Δ²) (noise multiplier σ): ρ(λ) = λ/(2σ²)
  (Mironov 2017, Table II).
* Laplace mechanism, noise Lap(0, b) and sensitivity Δ, μ = Δ/b (``fdp.Laplace(μ)``):
  ρ(λ) = log[λ/(2λ−1) e^{(λ−1)μ} + (λ−1)/(2λ−1) e^{−λμ}] / (λ − 1) (Mironov 2017,
  Table II).
* Binary randomized response with ε (``fdp.RandomizedResponse(ε)``), p = e^ε/(1+e^ε):
  ρ(λ) = log[p^λ (1−p)^{1−λ} + (1−p)^λ p^{1−λ}] / (λ − 1) (Mironov 2017, Table II).
* Poisson-subsampled Gaussian, sampling rate q, add/remove neighbours (Mironov,
  Talwar, Zhang 2019, arXiv 1908.10530): ρ(λ) = log A_λ / (λ − 1) with
  A_λ = E_{z∼μ0}[((1 − q) + q μ1(z)/μ0(z))^λ], μ0 = N(0, σ²), μ1 = N(1, σ²).
  - Integer λ (MTZ §3.3): binomial expansion,
      A_λ = Σ_{k=0}^{λ} C(λ,k) q^k (1−q)^{λ−k} exp((k² − k)/(2σ²)).
  - Fractional λ (MTZ §3.3): split the integral at z0 = σ² log(1/q − 1) + ½, where
    q μ1/μ0 = 1 − q; expand (a + b)^λ in the convergent direction on each side:
      A_λ = Σ_{i≥0} C(λ,i) [ q^i (1−q)^{λ−i} e^{(i²−i)/(2σ²)} Φ((z0 − i)/σ)
                         + q^{λ−i} (1−q)^i e^{(j²−j)/(2σ²)} Φ((j − z0)/σ) ],  j = λ − i.
    Generalised binomial coefficients change sign for i > λ; terms are summed in
    log space with signs (``logsumexp(..., b=sign)``), and the series is extended
    until the last terms are below 1e-16 of the sum (alternating tail: the error is
    at most the first omitted term).
* Conversions to (ε, δ) at a fixed δ, minimised over the orders given:
  - ``"mironov"`` (Mironov 2017, Prop 3; what the moments accountant and Bu et al.
    used): ε = ρ(λ) + log(1/δ)/(λ − 1).
  - ``"improved"`` (Balle et al. 2020, Thm 21; Canonne, Kamath, Steinke 2020,
    Prop 12): ε = ρ(λ) + log(1 − 1/λ) − (log δ + log λ)/(λ − 1), never worse.
  Both are upper bounds on the true ε; neither is tight.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import gammaln, gammasgn, log_ndtr, logsumexp

from fdp import _validate
from fdp.families import Gaussian, Laplace, RandomizedResponse
from fdp.tradeoff import TradeOff

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


class RDPEpsilon(NamedTuple):
    """ε at the given δ and the order λ that attained the minimum.

    Parameters
    ----------
    epsilon : float
        The smallest ε over the orders.
    order : float
        The order λ attaining it.

    Examples
    --------
    >>> from fdp.classical import gaussian_rdp_epsilon
    >>> r = gaussian_rdp_epsilon(1.0, 1e-5)
    >>> print(f"{r.epsilon:.4f} at order {r.order:g}")
    4.7284 at order 5.45
    """
    epsilon: float
    order: float


def _orders(orders) -> np.ndarray:
    o = _validate.reals("orders", orders, low=1.0).ravel()
    if o.size == 0:
        raise ValueError("orders must contain at least one order > 1")
    if (o <= 1.0).any():
        raise ValueError(f"orders must be > 1, got {o[o <= 1.0][0]!r}")
    return o


def rdp_gaussian(orders, noise_multiplier, steps=1):
    """RDP of ``steps`` compositions of the Gaussian mechanism with noise multiplier σ
    (noise standard deviation σ·Δ): ρ(λ) = steps · λ / (2σ²) (Mironov 2017, Table II),
    the Rényi divergence of the law of G_{1/σ} (``fdp.Gaussian(1/σ).law()``).

    Parameters
    ----------
    orders : float or array_like
        Orders λ > 1.
    noise_multiplier : float
        σ > 0.
    steps : float, optional
        Number of compositions (≥ 0).

    Returns
    -------
    float or ndarray
        ρ at each order.

    Examples
    --------
    >>> from fdp.classical import rdp_gaussian
    >>> print(f"{rdp_gaussian(3.0, 2.0, steps=5):.4f}")
    1.8750
    """
    o = _orders(orders)
    s = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    t = _validate.real("steps", steps, low=0.0)
    out = t * o / (2.0 * s * s)     # = Gaussian(1/σ).law().renyi(o), written in σ
    return _validate.like_input(orders, out.reshape(np.shape(orders)))


def rdp_laplace(orders, mu, steps=1):
    """RDP of ``steps`` Laplace mechanisms with μ = Δ/b (noise Lap(0, b), sensitivity Δ):
    ρ(λ) = steps · log[λ/(2λ−1) e^{(λ−1)μ} + (λ−1)/(2λ−1) e^{−λμ}] / (λ − 1)
    (Mironov 2017, Table II); the Rényi divergence of ``fdp.Laplace(μ).law()``,
    evaluated in log space, so large λμ do not overflow.

    Parameters
    ----------
    orders : float or array_like
        Orders λ > 1.
    mu : float
        μ ≥ 0.
    steps : float, optional
        Number of compositions (≥ 0).

    Returns
    -------
    float or ndarray
        ρ at each order.

    Examples
    --------
    >>> from fdp.classical import rdp_laplace
    >>> print(f"{rdp_laplace(2.0, 1.0):.4f}")
    0.6191
    """
    o = _orders(orders)
    m = _validate.real("mu", mu, low=0.0)
    t = _validate.real("steps", steps, low=0.0)
    out = t * Laplace(m).law().renyi(o)
    return _validate.like_input(orders, out.reshape(np.shape(orders)))


def rdp_randomized_response(orders, eps, steps=1):
    """RDP of ``steps`` binary randomized responses with parameter ε (p = e^ε/(1+e^ε)):
    ρ(λ) = steps · log[p^λ (1−p)^{1−λ} + (1−p)^λ p^{1−λ}] / (λ − 1) (Mironov 2017,
    Table II); the Rényi divergence of ``fdp.RandomizedResponse(ε).law()``.

    Parameters
    ----------
    orders : float or array_like
        Orders λ > 1.
    eps : float
        ε ≥ 0.
    steps : float, optional
        Number of compositions (≥ 0).

    Returns
    -------
    float or ndarray
        ρ at each order.

    Examples
    --------
    >>> from fdp.classical import rdp_randomized_response
    >>> print(f"{rdp_randomized_response(2.0, 1.0):.4f}")
    0.7353
    """
    o = _orders(orders)
    e = _validate.real("eps", eps, low=0.0)
    t = _validate.real("steps", steps, low=0.0)
    out = t * RandomizedResponse(e).law().renyi(o)
    return _validate.like_input(orders, out.reshape(np.shape(orders)))


def rdp_of(f, orders, steps=1):
    """RDP of ``steps`` compositions of a trade-off function with a privacy-loss law.

    ρ(λ) = steps · D_λ(Q ‖ P) = steps · log E_Q e^{(λ−1)L} / (λ − 1) for the dominating
    pair (P, Q) of f, read from ``f.law().renyi`` (closed forms for the Gaussian,
    Laplace and binary randomized response, an exact log-sum-exp for finite pairs,
    or any new family's law with a log-MGF; Mironov 2017, Def 3 and Prop 1). This is
    the RDP of the pair that ``law()`` describes, in the direction D(Q ‖ P); for an
    asymmetric f also evaluate ``f.inverse()`` and take the larger.

    Parameters
    ----------
    f : TradeOff
        A trade-off function whose ``law()`` has a Rényi divergence.
    orders : float or array_like
        Orders λ > 1.
    steps : float, optional
        Number of compositions (≥ 0).

    Returns
    -------
    float or ndarray
        ρ at each order.

    Raises
    ------
    TypeError
        If f is not a TradeOff.
    ValueError
        If f has no law, or its law has no known log-MGF.

    Examples
    --------
    >>> import fdp
    >>> from fdp.classical.rdp import rdp_of
    >>> print(f"{rdp_of(fdp.Gaussian(1.0), 4.0):.4f}")
    2.0000
    >>> print(f"{rdp_of(fdp.EpsDelta(1.0), 2.0):.4f}")
    0.7353
    """
    if not isinstance(f, TradeOff):
        raise TypeError(f"f must be a TradeOff, got {type(f).__name__}")
    o = _orders(orders)
    t = _validate.real("steps", steps, low=0.0)
    law = f.law()
    rho = None if law is None else law.renyi(o)
    if rho is None:
        raise ValueError(f"f = {f!r} has no privacy-loss law with a known log-MGF "
                         "(f.law() is None or has no log_mgf); RDP needs one")
    out = t * np.asarray(rho, dtype=float)
    return _validate.like_input(orders, out.reshape(np.shape(orders)))


def _log_a_int(q: float, sigma: float, lam: int) -> float:
    k = np.arange(lam + 1, dtype=float)
    log_binom = gammaln(lam + 1.0) - gammaln(k + 1.0) - gammaln(lam - k + 1.0)
    terms = log_binom + k * np.log(q) + (lam - k) * np.log1p(-q) + (k * k - k) / (2 * sigma ** 2)
    return float(logsumexp(terms))


def _log_a_frac(q: float, sigma: float, lam: float, rtol: float = 1e-16,
                max_terms: int = 1 << 23) -> float:
    z0 = sigma ** 2 * (np.log1p(-q) - np.log(q)) + 0.5
    log_q, log_1q = np.log(q), np.log1p(-q)
    s2 = 2.0 * sigma ** 2
    n = 256
    while True:
        i = np.arange(n, dtype=float)
        j = lam - i
        log_binom = gammaln(lam + 1.0) - gammaln(i + 1.0) - gammaln(j + 1.0)
        sign = gammasgn(j + 1.0)  # Γ(λ+1), Γ(i+1) > 0: the sign of C(λ, i)
        t0 = log_binom + i * log_q + j * log_1q + (i * i - i) / s2 + log_ndtr((z0 - i) / sigma)
        t1 = log_binom + j * log_q + i * log_1q + (j * j - j) / s2 + log_ndtr((j - z0) / sigma)
        logs = np.concatenate([t0, t1])
        signs = np.concatenate([sign, sign])
        # At a pole of Γ(j + 1) the coefficient is exactly 0 (log −inf, sign NaN).
        live = np.isfinite(logs)
        logs, signs = logs[live], signs[live]
        total, total_sign = logsumexp(logs, b=signs, return_sign=True)
        tail = max(t0[-8:].max(), t1[-8:].max())
        if total_sign > 0 and tail < total + np.log(rtol):
            return float(total)
        if n >= max_terms:
            raise ArithmeticError(
                f"fractional-order RDP series did not converge (q={q}, sigma={sigma}, "
                f"order={lam}); use an integer order")
        n *= 4


def rdp_subsampled_gaussian(orders, sample_rate, noise_multiplier, steps=1):
    """RDP ρ(λ) of ``steps`` compositions of the Poisson-subsampled Gaussian mechanism
    (rate q, noise multiplier σ, add/remove neighbours): steps · log A_λ / (λ − 1)
    with A_λ from Mironov, Talwar, Zhang (2019), integer and fractional λ (see the
    module docstring). q = 0 gives 0; q = 1 gives the plain Gaussian λ/(2σ²).
    ``steps`` may be fractional (Bu et al. use epochs·n/batch), as RDP scales linearly.

    Parameters
    ----------
    orders : float or array_like
        Orders λ > 1.
    sample_rate : float
        q in [0, 1].
    noise_multiplier : float
        σ > 0.
    steps : float, optional
        Number of compositions (≥ 0).

    Returns
    -------
    float or ndarray
        ρ at each order.

    Examples
    --------
    >>> from fdp.classical import rdp_subsampled_gaussian
    >>> print(f"{rdp_subsampled_gaussian(2.0, 1.0, 2.0):.4f}")
    0.2500
    """
    o = _orders(orders)
    q = _validate.probability("sample_rate", sample_rate)
    s = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    t = _validate.real("steps", steps, low=0.0)
    out = np.empty(o.shape)
    for idx, lam in enumerate(o):
        if q == 0.0:
            out[idx] = 0.0
        elif q == 1.0:
            out[idx] = lam / (2.0 * s * s)
        elif float(lam).is_integer():
            out[idx] = _log_a_int(q, s, int(lam)) / (lam - 1.0)
        else:
            out[idx] = _log_a_frac(q, s, float(lam)) / (lam - 1.0)
    return _validate.like_input(orders, (t * out).reshape(np.shape(orders)))


def rdp_to_epsilon(orders, rdp, delta, conversion: str = "improved") -> RDPEpsilon:
    """Smallest ε over the orders such that (λ, ρ(λ))-RDP ⇒ (ε, δ)-DP.

    conversion="mironov": ε = ρ + log(1/δ)/(λ − 1) (Mironov 2017, Prop 3).
    conversion="improved": ε = ρ + log(1 − 1/λ) − (log δ + log λ)/(λ − 1)
    (Balle et al. 2020, Thm 21; Canonne–Kamath–Steinke 2020, Prop 12).
    ε is floored at 0.

    Parameters
    ----------
    orders : array_like
        Orders λ > 1.
    rdp : array_like
        ρ(λ) at each order.
    delta : float
        δ in (0, 1).
    conversion : {"improved", "mironov"}, optional
        The RDP → (ε, δ) conversion.

    Returns
    -------
    RDPEpsilon
        (epsilon, order).

    Raises
    ------
    ValueError
        For orders ≤ 1, δ outside (0, 1) or an unknown conversion.

    Examples
    --------
    >>> from fdp.classical import rdp_to_epsilon
    >>> r = rdp_to_epsilon([2.0, 8.0], [1.0, 4.0], 1e-5, conversion="mironov")
    >>> print(f"{r.epsilon:.4f} {r.order:g}")
    5.6447 8
    """
    o = _orders(orders)
    r = _validate.reals("rdp", rdp, low=0.0, allow_inf=True).ravel()
    if r.shape != o.shape:
        raise ValueError(f"rdp must have one value per order ({o.size}), got {r.size}")
    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    if conversion == "mironov":
        eps = r - np.log(d) / (o - 1.0)
    elif conversion == "improved":
        eps = r + np.log1p(-1.0 / o) - (np.log(d) + np.log(o)) / (o - 1.0)
    else:
        raise ValueError(f"conversion must be 'mironov' or 'improved', got {conversion!r}")
    eps = np.maximum(eps, 0.0)
    best = int(np.argmin(eps))
    return RDPEpsilon(float(eps[best]), float(o[best]))


def moments_accountant_epsilon(noise_multiplier, sample_rate, steps, delta, *,
                               orders=None, conversion: str = "mironov") -> RDPEpsilon:
    """ε of DP-SGD by the moments accountant: RDP of the Poisson-subsampled Gaussian
    (MTZ 2019) composed over ``steps``, converted at δ (add/remove neighbours).

    The defaults reproduce Bu et al. (2020): their order grid ``BU_ORDERS`` and
    Mironov's conversion. Pass ``conversion="improved"`` for the modern conversion.
    This is an upper bound on ε, not tight; the f-DP accountant ``fdp.dpsgd`` is.

    Parameters
    ----------
    noise_multiplier : float
        σ > 0.
    sample_rate : float
        Poisson rate q in [0, 1].
    steps : float
        Number of steps (≥ 0).
    delta : float
        δ in (0, 1).
    orders : array_like, optional
        Orders λ > 1 (default ``BU_ORDERS``).
    conversion : {"mironov", "improved"}, optional
        The RDP → (ε, δ) conversion.

    Returns
    -------
    RDPEpsilon
        (epsilon, order).

    Examples
    --------
    >>> from fdp.classical import moments_accountant_epsilon
    >>> r = moments_accountant_epsilon(1.0, 0.01, 1000, 1e-5)
    >>> print(f"{r.epsilon:.4f} at order {r.order:g}")
    2.5380 at order 7.9
    """
    o = BU_ORDERS if orders is None else _orders(orders)
    rdp = rdp_subsampled_gaussian(o, sample_rate, noise_multiplier, steps)
    return rdp_to_epsilon(o, rdp, delta, conversion)


def gaussian_rdp_epsilon(mu, delta, *, orders=None, conversion: str = "improved") -> RDPEpsilon:
    """(ε, δ) of μ-GDP (the Gaussian mechanism with Δ/σ = μ) through RDP:
    ρ(λ) = λ μ²/2 (the Rényi divergence of ``fdp.Gaussian(μ).law()``). An upper bound,
    for comparison with the exact ``fdp.gdp_epsilon``.

    Parameters
    ----------
    mu : float
        μ > 0.
    delta : float
        δ in (0, 1).
    orders : array_like, optional
        Orders λ > 1 (default ``DEFAULT_ORDERS``).
    conversion : {"improved", "mironov"}, optional
        The RDP → (ε, δ) conversion.

    Returns
    -------
    RDPEpsilon
        (epsilon, order).

    Examples
    --------
    >>> import fdp
    >>> from fdp.classical import gaussian_rdp_epsilon
    >>> bool(gaussian_rdp_epsilon(1.0, 1e-5).epsilon > fdp.gdp_epsilon(1.0, 1e-5))
    True
    """
    m = _validate.real("mu", mu, low=0.0, low_open=True)
    o = DEFAULT_ORDERS if orders is None else _orders(orders)
    return rdp_to_epsilon(o, Gaussian(m).law().renyi(o), delta, conversion)
