"""Rényi DP of mechanisms and of the Poisson-subsampled Gaussian, and the RDP → (ε, δ)
conversions.

RDP (Mironov 2017): M is (λ, ρ)-RDP if D_λ(M(S) ‖ M(S')) ≤ ρ for neighbours; RDP
composes by adding ρ at each order λ.

Two questions, one name each:

* ``rdp_of(f, orders, steps)``: the RDP curve of a mechanism given as a trade-off
  function, ρ(λ) = steps · D_λ(Q ‖ P) for its dominating pair ``f.law()``. The closed
  forms live with the families' laws (Mironov 2017, Table II), rounded up there
  (``law.renyi_is_upper_bound``) and read by the Rényi accountant of compositions
  (``fdp.operations.rdp_bound.factor_rdp``) from the same place:
  - Gaussian ``fdp.Gaussian(μ)`` (noise multiplier σ = 1/μ): ρ(λ) = λμ²/2;
  - Laplace ``fdp.Laplace(μ)``, μ = Δ/b:
    ρ(λ) = log[λ/(2λ−1) e^{(λ−1)μ} + (λ−1)/(2λ−1) e^{−λμ}] / (λ − 1);
  - binary randomized response ``fdp.RandomizedResponse(ε)``, p = e^ε/(1+e^ε):
    ρ(λ) = log[p^λ (1−p)^{1−λ} + (1−p)^λ p^{1−λ}] / (λ − 1);
  any family whose law has a log-MGF answers through the same call.
* ``rdp_subsampled_gaussian(orders, q, σ, steps)``: the RDP of a *sampler*, the
  Poisson-subsampled Gaussian, add/remove neighbours (Mironov, Talwar, Zhang 2019,
  arXiv 1908.10530). No trade-off family carries this RDP (the subsampled curve is a
  numeric object without a log-MGF), and the value here is a proven upper bound at
  fractional orders too, so it keeps its own name. ρ(λ) = log A_λ / (λ − 1) with
  A_λ = E_{z∼μ0}[((1 − q) + q μ1(z)/μ0(z))^λ], μ0 = N(0, σ²), μ1 = N(1, σ²).
  - Integer λ (MTZ §3.3): binomial expansion,
      A_λ = Σ_{k=0}^{λ} C(λ,k) q^k (1−q)^{λ−k} exp((k² − k)/(2σ²)).
  - Fractional λ (MTZ §3.3): split the integral at z0 = σ² log(1/q − 1) + ½, where
    q μ1/μ0 = 1 − q; expand (a + b)^λ in the convergent direction on each side:
      A_λ = Σ_{i≥0} C(λ,i) [ q^i (1−q)^{λ−i} e^{(i²−i)/(2σ²)} Φ((z0 − i)/σ)
                         + q^{λ−i} (1−q)^i e^{(j²−j)/(2σ²)} Φ((j − z0)/σ) ],  j = λ − i.
    Generalised binomial coefficients change sign for i > λ; terms are summed in
    log space with signs (``logsumexp(..., b=sign)``). Truncated after N > λ terms,
    each series leaves out at most the absolute value of its term N (the Lagrange
    remainder of (1 + x)^λ, 0 ≤ x ≤ 1, is C(λ, N) x^N (1 + ξ)^{λ−N} with
    (1 + ξ)^{λ−N} ≤ 1), which is added: the result is an upper bound at every N.
  - Every value returned is an UPPER bound on ρ(λ): each log term carries its
    floating-point error (library calls within 64 ulps), the sums their rounding,
    and the integer-order sum is taken as A_λ − 1 (all terms positive, see
    ``_log_a_int``), so a ρ far below 1 keeps its relative precision.
  The ε of DP-SGD by this accountant is ``fdp.sgd.dpsgd_rdp_epsilon``.

Conversions to (ε, δ) at a fixed δ (``rdp_to_epsilon``), minimised over the orders:

* ``"improved"`` (the default; Balle et al. 2020, Thm 21; Canonne, Kamath, Steinke
  2020, Prop 12): ε = ρ(λ) + log(1 − 1/λ) − (log δ + log λ)/(λ − 1). Never larger than
  Mironov's at the same λ: the difference is log(1 − 1/λ) − log(λ)/(λ − 1) < 0.
* ``"mironov"`` (Mironov 2017, Prop 3; the original moments accountant of Abadi et al.
  2016 and Bu et al. 2020): ε = ρ(λ) + log(1/δ)/(λ − 1). Kept to reproduce published
  numbers.

Both are upper bounds on the true ε; neither is tight. Solved for δ at a fixed ε
(``rdp_to_log_delta``): δ ≤ exp((λ − 1)(ρ − ε)) (1 − 1/λ)^{λ−1}/λ (Canonne, Kamath &
Steinke 2020, Prop 12), or exp((λ − 1)(ρ − ε)) (Mironov 2017, Prop 3). Both
conversions are rounded up, so a certified ρ gives a certified ε or δ.
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

#: The RDP → (ε, δ) conversions (see the module docstring).

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
    pair (P, Q) of f, read from ``f.law().renyi`` (closed forms for the Gaussian,
    Laplace and binary randomized response, an exact log-sum-exp for finite pairs,
    or any new family's law with a log-MGF; Mironov 2017, Def 3 and Prop 1). This is
    the RDP of the pair that ``law()`` describes, in the direction D(Q ‖ P); for an
    asymmetric f also evaluate ``f.inverse()`` and take the larger. The one way to ask
    for a mechanism's RDP curve: ``rdp_of(fdp.Gaussian(1/σ), λ)`` = λ/(2σ²),
    ``rdp_of(fdp.Laplace(μ), λ)`` and ``rdp_of(fdp.RandomizedResponse(ε), λ)`` are
    Mironov (2017), Table II; a mechanism known only to be ε-DP (permute-and-flip,
    ``fdp.EpsDelta(ε)``) gets the curve of f_{ε,0}, randomized response RR_ε, the
    largest any ε-DP pair has. The two limit orders (van Erven & Harremoës 2014,
    Thm 5 and Thm 6):

    * λ = 1: the Kullback–Leibler divergence D_1(Q ‖ P) = E_Q[L], read from the law's
      first moment (μ²/2 for G_μ, μ − 1 + e^{−μ} for L_μ);
    * λ = ∞: D_∞(Q ‖ P) = ess sup_Q L: for a finite law the largest loss with Q-mass,
      otherwise the pure ε of f (``f.pure_epsilon()``, the larger of the two
      directions: equal to D_∞(Q ‖ P) for symmetric f, an upper bound otherwise).

    Both read the law's atoms at ±∞ first: Q-mass at L = +∞ (Q not absolutely
    continuous with respect to P, as for f_{ε,δ} with δ > 0) makes D_λ(Q ‖ P) = ∞ at
    every order; P-mass at L = −∞ carries no Q-mass and leaves D_λ(Q ‖ P) finite
    (T(P, Q) with P = (¼, ¼, ½), Q = (½, ½, 0): ln 2 at every order, ∞ for the inverse).

    Parameters
    ----------
    f : TradeOff
        A trade-off function whose ``law()`` has a Rényi divergence.
    orders : float or array_like
        Orders λ ≥ 1 (1 is KL, ``inf`` the pure ε).
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
        For an order below 1, or if f has no law, or its law has no known log-MGF.

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
    """D_1(Q ‖ P) = E_Q[L] ≥ 0: ∞ with Q-mass at L = +∞; with P-mass at L = −∞ (no
    Q-mass there) the Q-mean of the finite atoms of a finite law; else the law's
    first Q-moment."""
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
    """D_∞(Q ‖ P) = ess sup_Q L: ∞ with Q-mass at L = +∞; the largest loss with Q-mass
    of a finite law; else ``f.pure_epsilon()`` (both directions: an upper bound, equal
    for symmetric f)."""
    if isinstance(law, AtomsLaw):
        if law.singular_masses()[1] > 0.0:
            return math.inf
        L, q = law.atoms()
        return max(float(L[q > 0.0].max(initial=0.0)), 0.0)
    return float(f.pure_epsilon())


def rdp_bounded_range(eps: float, orders: ArrayLike) -> FloatOrArray:
    """Rényi DP of an ε-bounded-range mechanism (the exponential mechanism), exact.

    Every neighbouring pair of an ε-BR mechanism is a post-processing of a generalized
    randomized response GRR_t, t ∈ [0, ε] (Dong, Durfee & Rogers 2020, §3), with
    P_t(1) = (e^t − 1)/(e^ε − 1), losses ε − t at 1 and −t at 0; the supremum of
    D_λ(Q_t ‖ P_t) over t has the closed form (Cesar & Rogers 2021, "Bounding,
    concentrating, and truncating: unifying privacy loss composition for data
    analytics", ALT 2021, §3): with E = e^ε, A(u) = E_P[(dQ_t/dP_t)^λ] at u = e^t is
    A(u) = u^{−λ}[u(E^λ − 1) + E − E^λ]/(E − 1), whose one critical point in [1, E] is
    u* = λ(E^λ − E)/((λ − 1)(E^λ − 1)), so

        ρ(λ) = [log(E^λ − E) − log(E − 1) − log(λ − 1) − λ log u*] / (λ − 1),

    evaluated in log space (E^λ − E = e^{λε}(1 − e^{−(λ−1)ε})). The limit orders:
    λ = 1, KL(u) = E_Q[L] = ε(E − E/u)/(E − 1) − log u is largest at u = x =
    ε/(1 − e^{−ε}), where D_1 = x − 1 − log x; λ = ∞, D_∞ = sup_t (ε − t) = ε.

    This is the curve of the mechanism, smaller than that of the curve BR_ε's own
    dominating pair (which ``fdp.BoundedRange(ε)`` represents for any BR_ε-DP
    mechanism); use it only for mechanisms that are ε-bounded range (the exponential
    mechanism with the 2Δ calibration, report-noisy-max with Gumbel noise).

    Parameters
    ----------
    eps : float
        ε > 0 of the bounded range.
    orders : float or array_like
        Orders λ ≥ 1 (``inf`` allowed).

    Returns
    -------
    float or ndarray
        ρ(λ) at each order.

    Raises
    ------
    ValueError
        For ε ≤ 0 or not finite, or an order below 1.

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


#: Unit roundoff of doubles.
_U = 2.0 ** -53
#: Relative error allowed for each library call (gammaln, log, log1p, log_ndtr) before the
#: padding below: scipy documents a few ulps; 64 ulps leaves a margin.
_ULPS = 64.0


def _padded_log_sum(logs: ArrayLike, signs: ArrayLike, magnitude: ArrayLike) -> float:
    """An upper bound on log Σ signs·exp(logs) that counts the rounding.

    Term i's log carries an absolute error of at most ``_ULPS``·u·``magnitude[i]`` (the
    sum of the absolute values of the pieces it was added from), so the term is off
    by at most |term|·expm1 of that; the summation (numpy's pairwise sum) adds at most
    (2 log2 n + 160)·u·Σ|terms|. The
    bound is the computed signed sum plus both allowances, with the final log rounded
    up; +inf when the result is not positive.
    """
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
    """Upper bound on log A_λ, integer λ ≥ 2, from the binomial expansion written as
    A_λ − 1 = Σ_{k≥2} C(λ,k) q^k (1−q)^{λ−k} expm1((k² − k)/(2σ²)) (the binomial
    probabilities sum to 1, and k = 0, 1 contribute 0): all terms are positive, so
    A_λ − 1 keeps its relative precision even when it is far below 1 (large σ). The
    sum is rounded up by its floating-point error (``_padded_log_sum``), and
    log A_λ = log1p(A_λ − 1) rounded up."""
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
    """Upper bound on log A_λ, fractional λ: MTZ's two expansions, truncated after N
    terms each, plus a PROVEN bound on what was left out.

    On z ≤ z0, x = q μ1/((1 − q) μ0) ∈ [0, 1] and (1 + x)^λ is its Taylor polynomial of
    degree N − 1 plus the Lagrange remainder C(λ, N) x^N (1 + ξ)^{λ−N}, ξ ∈ [0, x],
    whose absolute value is at most |C(λ, N)| x^N once N > λ; integrated, that is the
    absolute value of the first omitted term of the first series. The same holds on
    z > z0 for (1 + 1/x)^λ. So A_λ ≤ (partial sums) + |t0_N| + |t1_N|, for every
    N > λ, whether the series has converged or not; the sum is extended (N ×4) until
    the remainder is below ``rtol`` of it or N reaches ``max_terms``. The remainder's
    bound is added either way, so ``rtol`` trades only tightness for time: 1e-13 leaves
    log A_λ within 1e-12 (relative) of the 1e-16 value, and at σ = 0.6, q = 0.1 the series
    need 16 times more terms to reach 1e-16.
    """
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
        # an error e in log Φ's argument x moves log Φ by at most e·φ(x)/Φ(x) (the
        # Mills ratio, ≤ 1 − x for x < 0, ≤ 1 for x ≥ 0); e ≲ u·(|z0| + i + λ)/σ
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
    with A_λ from Mironov, Talwar, Zhang (2019), integer and fractional λ (see the
    module docstring). q = 0 gives 0; q = 1 gives the plain Gaussian λ/(2σ²).
    ``steps`` may be fractional (Bu et al. use epochs·n/batch), as RDP scales linearly.
    A sampler, not a family, so it is not asked through ``rdp_of``: the subsampled
    curve has no privacy-loss law with a log-MGF, and this value is a proven upper
    bound at every order, fractional ones included.

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
    # every step above rounds up; the divisions and the product with steps add ≤ 3 ulps
    out = t * out * (1.0 + 8.0 * _U)
    return _validate.like_input(orders, out.reshape(np.shape(orders)))


def gaussian_rdp_epsilon(mu: float, delta: float, *, orders: ArrayLike | None = None,
                         conversion: Conversion = "improved") -> RDPEpsilon:
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
    o = DEFAULT_ORDERS if orders is None else check_orders(orders)
    return rdp_to_epsilon(o, np.asarray(rdp_of(Gaussian(m), o)), delta, conversion)


# The conversions and their result type live with the certified RDP bound
# (fdp.operations.rdp_bound); this module is their classical face.
__all__ = ["BU_ORDERS", "DEFAULT_ORDERS", "Conversion", "RDPEpsilon", "gaussian_rdp_epsilon",
           "rdp_of", "rdp_subsampled_gaussian", "rdp_to_epsilon", "rdp_to_log_delta"]
