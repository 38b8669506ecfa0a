"""Private selection: run a mechanism a random number of times, publish the best run.

The derivation: docs/derivations/private-selection.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fdp import _validate
from fdp._lazy import LazyModule
from fdp._numerics import bisect_monotone
from fdp._types import ArrayLike, FloatArray
from fdp.conversions.from_rdp import RDPCurve, from_rdp
from fdp.operations.rdp_bound import COMPOSE_ORDERS, factor_rdp, rdp_to_log_delta
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff

mpmath = LazyModule("mpmath")     # interval arithmetic for γ, loaded on first use

_U = 2.0 ** -53
#: Relative padding of a sum of a few non-negative terms, each within a few ulps.
_PAD = 64.0 * _U


@dataclass(frozen=True, eq=False)
class RepeatSelect(RDPCurve):
    """The trade-off function of the best of K runs of ``base``: ``from_rdp`` of the
    Papernot–Steinke Rényi curve (``orders``, ``rdp``; order ∞ the pure ε), certified;
    ``mean`` and ``shape`` as in ``repeat_and_select``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions.repeat_select import repeat_and_select
    >>> repeat_and_select(fdp.Gaussian(1.0), 5.0, 0.0)
    repeat_and_select(Gaussian(mu=1.0), mean=5, shape=0: K logarithmic, Papernot–Steinke 2022 RDP)
    """

    base: TradeOff | None = None
    mean: float = 1.0
    shape: float = 1.0

    def __repr__(self) -> str:
        law = _law_name(self.shape)
        return (f"repeat_and_select({self.base!r}, mean={self.mean:g}, "
                f"shape={self.shape:g}: K {law}, Papernot–Steinke 2022 RDP)")

    def latex(self) -> str:
        return rf"\mathrm{{RS}}_{{{self.mean:g},{self.shape:g}}}"


def _law_name(shape: float) -> str:
    if math.isinf(shape):
        return "Poisson"
    if shape == 0.0:
        return "logarithmic"
    if shape == 1.0:
        return "geometric"
    return "truncated negative binomial"


def _tnb_mean_interval(gamma: float, shape: float) -> Any:  # an mpmath interval
    """E K of D_{η,γ} as an mpmath interval (Papernot–Steinke Def 1 and §3)."""
    iv = mpmath.iv
    iv.prec = 113
    g = iv.mpf(gamma)
    if shape == 0.0:
        return (1 / g - 1) / iv.log(1 / g)
    if shape == 1.0:
        return 1 / g
    eta = iv.mpf(shape)
    # 1 − γ^η = −expm1(η log γ): evaluated at 113 bits, no cancellation problem for
    # γ ≤ 1 − 2^-52 (the interval is still exact-enclosing)
    return eta * (1 / g - 1) / (1 - iv.exp(eta * iv.log(g)))


def tnb_gamma(mean: float, shape: float) -> float:
    """A certified lower bound on the γ of the truncated negative binomial with E K = mean.

    E K is decreasing in γ (Papernot–Steinke 2022, §3): the largest double γ whose mean
    is proven (interval arithmetic) ≥ ``mean`` (≥ 1; ``shape`` η ≥ 0 finite) lies below
    the true γ, the safe side of Theorem 2.

    Examples
    --------
    >>> from fdp.conversions.repeat_select import tnb_gamma
    >>> print(f"{tnb_gamma(10.0, 1.0):.6f}")
    0.100000
    """
    m = _validate.real("mean", mean, low=1.0)
    eta = _validate.real("shape", shape, low=0.0)
    if m == 1.0:
        return 1.0

    def too_big(g: FloatArray) -> np.ndarray:
        # True unless E K(γ) ≥ mean is proven: False below the root, True above
        return np.array([not (_tnb_mean_interval(float(x), eta).a >= m) for x in g])

    lo = np.array([1e-300])
    if too_big(lo)[0]:
        raise ValueError(f"mean must be at most about 1e299 for shape={eta:g}, got {m!r}")
    lo_end, _ = bisect_monotone(too_big, lo, np.array([1.0]), rtol=1e-15)
    return float(lo_end[0])


def _base_curve(f: TradeOff, orders: FloatArray) -> FloatArray:
    """A certified bound on max(D_λ(P‖Q), D_λ(Q‖P)) of f's pair at each order."""
    if isinstance(f, RDPCurve):
        if f.one_sided:
            raise ValueError("f must hold in both directions; got a one-sided RDP curve")
        own, vals = np.array(f.orders), np.array(f.rdp)
        i = np.searchsorted(own, orders, side="left")   # least own order ≥ λ
        return np.where(i < own.size, vals[np.minimum(i, own.size - 1)], np.inf)
    rho = factor_rdp(f, orders)
    if rho is not None and not f.symmetric and getattr(f, "rdp", None) is None:
        back = factor_rdp(f.inverse(), orders)
        rho = None if back is None else np.maximum(rho, back)
    if rho is None:
        raise ValueError(
            f"f = {f!r} has no certified Rényi curve; repeat_and_select needs one "
            "(Gaussian, Laplace, RandomizedResponse, EpsDelta(eps, 0), their "
            "compositions, fdp.dpsgd, or fdp.from_rdp of a known curve)")
    return np.asarray(rho, dtype=float)


def _up(x: ArrayLike) -> FloatArray:
    """A sum of a few non-negative rounded terms, raised by its rounding."""
    return np.asarray(x, dtype=float) * (1.0 + _PAD) + 4.0 * float(np.nextafter(0.0, 1.0))


def _tnb_curve(rho: FloatArray, lam: FloatArray, eps_inf: float, mean: float,
               shape: float) -> tuple[FloatArray, float]:
    """Papernot–Steinke Thm 2 at each order and its λ → ∞ limit."""
    gamma = tnb_gamma(mean, shape)
    log_inv_gamma = float(_up(-math.log(gamma)))       # log rounds within an ulp
    with np.errstate(over="ignore", invalid="ignore"):
        inner = (1.0 - 1.0 / lam) * rho + log_inv_gamma / lam
    candidates = [log_inv_gamma, float(np.nanmin(_up(inner)))]   # λ̂ = 1, grid
    if math.isfinite(eps_inf):
        candidates.append(eps_inf)                              # λ̂ = ∞
    c = float(_up((1.0 + shape) * min(candidates)))
    log_mean = float(_up(math.log(mean)))
    with np.errstate(over="ignore", invalid="ignore"):
        out = _up(rho + _up(log_mean / (lam - 1.0)) + c)
    return out, float(_up(eps_inf + c))


def _poisson_curve(f: TradeOff, rho: FloatArray, lam: FloatArray, eps_inf: float,
                   mean: float) -> tuple[FloatArray, float]:
    """Papernot–Steinke Thm 6 at each order and its λ → ∞ limit."""
    # ε̂ = log(λ/(λ − 1)), rounded down: a smaller ε̂ still meets e^ε̂ ≤ 1 + 1/(λ − 1)
    eps_hat = np.nextafter(np.nextafter(np.log1p(1.0 / (lam - 1.0)), 0.0), 0.0)
    eps_hat = np.maximum(eps_hat, 0.0)
    delta_hat = np.minimum(_delta_upper(f, eps_hat),
                           np.exp(rdp_to_log_delta(lam, rho, eps_hat)[0]) * (1.0 + _PAD))
    delta_zero = float(_delta_upper(f, np.array([0.0]))[0])
    log_mean = math.log(mean)
    with np.errstate(over="ignore", invalid="ignore"):
        out = _up(rho + _up(mean * delta_hat) + _up(log_mean / (lam - 1.0)))
    return out, float(_up(eps_inf + _up(mean * delta_zero)))


def _delta_upper(f: TradeOff, eps: FloatArray) -> FloatArray:
    """f's upper δ(ε), raised by the rounding a closed form may carry: two terms of size
    ≤ 1 and ≤ e^ε, each within 64 ulps (δ = E_Q[·] − e^ε E_P[·] cancels)."""
    hi = np.asarray(f.delta_bounds(eps).hi, dtype=float)
    pad = 128.0 * _U * (1.0 + np.exp(eps)) if f.status.value == "exact" else 0.0
    return np.minimum(hi + pad, 1.0)


def repeat_and_select(f: TradeOff, mean: float, shape: float) -> TradeOff:
    """The trade-off function of the best of K runs of an f-DP mechanism.

    K is random with E K = ``mean`` (finite, ≥ 1): truncated negative binomial D_{η,γ}
    with η = ``shape`` (0 logarithmic, 1 geometric) or Poisson (``shape = inf``), as in
    dp_accounting's ``RepeatAndSelectDpEvent``. The selected output's Rényi curve is
    Papernot & Steinke (2022), Thm 2 and Thm 6, from the certified Rényi curve of one
    run (f: Gaussian, Laplace, randomized response, EpsDelta(ε, 0), Identity, their
    compositions, ``fdp.dpsgd``, ``fdp.from_rdp``), converted by ``fdp.from_rdp``.
    Returns f itself when K = 1 surely, else a certified ``RepeatSelect``;
    ``NotAGuarantee`` for a lower bound or approximation.
    Derivation: docs/derivations/private-selection.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions.repeat_select import repeat_and_select
    >>> g = repeat_and_select(fdp.Laplace(1.0), mean=10.0, shape=1.0)
    >>> print(f"order {g.orders[-1]}: {g.rdp[-1]:.6f}")    # pure 3ε (Liu & Talwar 2019)
    order inf: 3.000000
    """
    if not isinstance(f, TradeOff):
        raise TypeError(f"f must be a TradeOff, got {type(f).__name__}")
    m = _validate.real("mean", mean, low=1.0)
    eta = _validate.real("shape", shape, low=0.0, allow_inf=True)
    require_guarantee(f, "repeat_and_select")
    if m == 1.0 and math.isfinite(eta):
        return f                              # K = 1 surely: one run, published
    lam = np.array(COMPOSE_ORDERS)
    eps_inf = float(f.pure_epsilon())
    rho = np.minimum(_base_curve(f, lam), eps_inf)          # D_λ ≤ D_∞
    if math.isinf(eta):
        out, at_inf = _poisson_curve(f, rho, lam, eps_inf, m)
    else:
        out, at_inf = _tnb_curve(rho, lam, eps_inf, m, eta)
    out = np.where(np.isnan(out), np.inf, out)
    orders = lam.tolist()
    if math.isfinite(at_inf):
        orders.append(math.inf)
        out = np.append(out, at_inf)
    # D_λ is non-decreasing in λ: ρ'(λ) ≤ ρ'(λ') for every λ' ≥ λ
    out = np.minimum.accumulate(out[::-1])[::-1]
    curve = from_rdp(orders, out)
    return RepeatSelect(curve.orders, curve.rdp, False, f, m, eta)


__all__ = ["RepeatSelect", "repeat_and_select", "tnb_gamma"]
