"""Certified Rényi-DP curves of compositions, and their conversion to (ε, δ).

A mechanism is (λ, ρ)-RDP when D_λ(Q ‖ P) ≤ ρ for its pair (P, Q) (Mironov 2017,
Def 3); RDP composes by adding ρ at each order (Mironov 2017, Prop 1), so the
composition ⊗ f_i^{⊗n_i} of factors with known Rényi curves ρ_i has
ρ(λ) ≤ Σ n_i ρ_i(λ), in the same direction D(Q ‖ P) as the hockey-stick divergence
δ(ε) = E_P[(q/p − e^ε)_+] that the trade-off function reads.

Closed forms of one factor (Mironov 2017, Table II), each evaluated in doubles with a
bound on the rounding added (library calls within 64 ulps), or, where that bound is not
small against ρ (A − 1 cancelling at tiny λμ), in interval arithmetic (mpmath's ``iv``
context, precision raised until the interval is narrow); rounded up either way, so
every ρ returned is an upper bound, rounding included:

* Gaussian G_μ:                 ρ(λ) = λμ²/2;
* Laplace L_μ:                  ρ(λ) = log[λ/(2λ−1) e^{(λ−1)μ} + (λ−1)/(2λ−1) e^{−λμ}]/(λ−1);
* randomized response RR_ε and f_{ε,0}, p = e^ε/(1+e^ε):
                                ρ(λ) = log[p^λ (1−p)^{1−λ} + (1−p)^λ p^{1−λ}]/(λ−1).

Conversions to (ε, δ) at a fixed δ (or ε), minimised over the orders given:

* ``"mironov"`` (Mironov 2017, Prop 3): ε = ρ(λ) + log(1/δ)/(λ − 1), δ = e^{(λ−1)(ρ−ε)};
* ``"improved"`` (Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020, Prop 12):
  ε = ρ(λ) + log(1 − 1/λ) − (log δ + log λ)/(λ − 1), and solved for δ,
  δ = exp((λ − 1)(ρ − ε)) (1 − 1/λ)^{λ−1}/λ. Never worse than Mironov's.

Both are proven at every order, so their minimum over the orders is; each result is
rounded up by its floating-point error, so a certified ρ gives a certified ε or δ.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray, FloatOrArray
from fdp.families.eps_delta import EpsDelta, RandomizedResponse
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.families.laplace import Laplace
from fdp.tradeoff import TradeOff

#: Unit roundoff of doubles.
_U = 2.0 ** -53
_TINY = float(np.nextafter(0.0, 1.0))
#: Rounding allowance of a sum of library results (each within 64 ulps).
_PAD = 128.0 * _U
#: Largest relative rounding bound accepted from the double evaluation.
_FLOAT_RTOL = 1e-11

#: Rényi orders for compositions: close to 1 (huge compositions, whose best order
#: tends to 1 as 1 + √(2 log(1/δ)/Σρ'), then integers to 32, then geometric to 4096
#: (tiny δ).
COMPOSE_ORDERS = np.unique(np.concatenate([
    1.0 + np.geomspace(1e-7, 0.9, 32),
    np.arange(2.0, 33.0),
    np.round(np.geomspace(36.0, 4096.0, 20)),
]))
COMPOSE_ORDERS.setflags(write=False)

CLOSED_FORM_SOURCE = ("closed-form RDP of the factors (Mironov 2017, Table II), summed "
                      "(Prop 1) and converted by Canonne, Kamath & Steinke 2020, Prop 12")


#: The two RDP → (ε, δ) conversions (see ``rdp_to_epsilon``).
Conversion = Literal["improved", "mironov"]


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


def check_orders(orders: ArrayLike) -> FloatArray:
    """The orders as a flat float array, refused unless every λ > 1.

    Parameters
    ----------
    orders : float or array_like
        Rényi orders.

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError
        For an empty list or an order ≤ 1.

    Examples
    --------
    >>> from fdp.operations.rdp_bound import check_orders
    >>> check_orders([2, 3.5]).tolist()
    [2.0, 3.5]
    """
    o = _validate.reals("orders", orders, low=1.0).ravel()
    if o.size == 0:
        raise ValueError("orders must contain at least one order > 1")
    if (o <= 1.0).any():
        raise ValueError(f"orders must be > 1, got {o[o <= 1.0][0]!r}")
    return o


def rdp_to_epsilon(orders: ArrayLike, rdp: ArrayLike, delta: float,
                   conversion: Conversion = "improved") -> RDPEpsilon:
    """Smallest ε over the orders such that (λ, ρ(λ))-RDP ⇒ (ε, δ)-DP.

    conversion="mironov": ε = ρ + log(1/δ)/(λ − 1) (Mironov 2017, Prop 3).
    conversion="improved": ε = ρ + log(1 − 1/λ) − (log δ + log λ)/(λ − 1)
    (Balle et al. 2020, Thm 21; Canonne–Kamath–Steinke 2020, Prop 12).
    ε is floored at 0 and rounded up by its floating-point error.

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
    o = check_orders(orders)
    r = _validate.reals("rdp", rdp, low=0.0, allow_inf=True).ravel()
    if r.shape != o.shape:
        raise ValueError(f"rdp must have one value per order ({o.size}), got {r.size}")
    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    parts: tuple[FloatArray, ...]
    if conversion == "mironov":
        parts = (r, -np.log(d) / (o - 1.0))
    elif conversion == "improved":
        parts = (r, np.log1p(-1.0 / o), -(np.log(d) + np.log(o)) / (o - 1.0))
    else:
        raise ValueError(f"conversion must be 'mironov' or 'improved', got {conversion!r}")
    # rounded up: each part is within a few ulps, so 16 ulps of their absolute sum
    with np.errstate(invalid="ignore"):
        eps = sum(parts) + 16.0 * _U * sum(np.abs(x) for x in parts)
    eps = np.where(np.isnan(eps), np.inf, np.maximum(eps, 0.0))
    best = int(np.argmin(eps))
    return RDPEpsilon(float(eps[best]), float(o[best]))


def rdp_to_log_delta(orders: ArrayLike, rdp: ArrayLike, eps: ArrayLike,
                     conversion: Conversion = "improved") -> tuple[FloatOrArray, FloatOrArray]:
    """Upper bound on log δ(ε) from (λ, ρ(λ))-RDP, minimised over the orders.

    conversion="improved" (Canonne, Kamath & Steinke 2020, Prop 12; Balle et al. 2020,
    Thm 21 solved for δ): δ = exp((λ − 1)(ρ − ε)) (1 − 1/λ)^{λ−1} / λ.
    conversion="mironov" (Mironov 2017, Prop 3): δ = exp((λ − 1)(ρ − ε)).
    Each is a proven (ε, δ) guarantee at every order, so their minimum is one too;
    the result is rounded up by its floating-point error and capped at log 1 = 0.
    Returned in log space, so a δ below the smallest double is not rounded to 0.
    The one answer to "δ at ε from a Rényi curve" in fdp (the same conversion as
    dp_accounting's ``compute_delta``, rounded up; ``RDPBound.log_delta`` calls it).

    Parameters
    ----------
    orders : array_like
        Orders λ > 1.
    rdp : array_like
        ρ(λ) at each order (+inf allowed).
    eps : float or array_like
        ε (real; ε < 0 gives log δ ≤ 0 only, +inf gives −inf unless ρ is infinite
        everywhere).
    conversion : {"improved", "mironov"}, optional
        The RDP → (ε, δ) conversion.

    Returns
    -------
    (log_delta, order) : (float or ndarray, float or ndarray)
        The bound on log δ at each ε and the order attaining it.

    Raises
    ------
    ValueError
        For orders ≤ 1, a negative ρ, a non-real ε or an unknown conversion.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.classical.rdp import rdp_to_log_delta
    >>> ld, order = rdp_to_log_delta([2.0, 8.0], [1.0, 4.0], 6.0)
    >>> print(f"{np.exp(ld):.3e} at order {order:g}")
    4.082e-08 at order 8
    """
    o = check_orders(orders)
    r = _validate.reals("rdp", rdp, low=0.0, allow_inf=True).ravel()
    if r.shape != o.shape:
        raise ValueError(f"rdp must have one value per order ({o.size}), got {r.size}")
    e = _validate.reals("eps", eps, allow_inf=True)
    if conversion not in ("improved", "mironov"):
        raise ValueError(f"conversion must be 'mironov' or 'improved', got {conversion!r}")
    lam = o[:, None]
    rho = r[:, None]
    x = np.atleast_1d(e).ravel()[None, :]
    with np.errstate(invalid="ignore"):
        lin = (lam - 1.0) * (rho - x)
        parts = [lin]
        if conversion == "improved":
            parts += [(lam - 1.0) * np.log1p(-1.0 / lam), -np.log(lam)]
        total = sum(parts)
        # (λ − 1)(ρ − ε): each factor within 2 ulps, the product and sums a few more
        pad = 16.0 * _U * ((lam - 1.0) * (np.abs(rho) + np.abs(x))
                           + sum(np.abs(p) for p in parts[1:]))
        total = np.where(np.isnan(total), np.inf, total + np.nan_to_num(pad, posinf=0.0))
        total = np.where(x < 0.0, 0.0, total)    # the conversions are stated for ε ≥ 0
    best = np.argmin(total, axis=0)
    out = np.minimum(np.take_along_axis(total, best[None, :], axis=0)[0], 0.0)
    order = o[best]
    shape = np.shape(eps)
    if not shape:
        return float(out[0]), float(order[0])
    return out.reshape(shape), order.reshape(shape)


# ----------------------------------------------------------------------
# One factor's certified Rényi curve
# ----------------------------------------------------------------------
def _rho_interval(kind: str, param: float, lam: float, c: Any) -> Any:
    """ρ(λ) of one factor as an mpmath interval in the context ``c``."""
    lam_i, x = c.mpf(lam), c.mpf(param)
    if kind == "gaussian":
        return lam_i * x * x / 2
    if kind == "laplace":
        a = (lam_i / (2 * lam_i - 1) * c.exp((lam_i - 1) * x)
             + (lam_i - 1) / (2 * lam_i - 1) * c.exp(-lam_i * x))
    else:                                   # randomized response with ε = x
        log_p = -c.log(1 + c.exp(-x))
        log_1p = -c.log(1 + c.exp(x))
        a = (c.exp(lam_i * log_p + (1 - lam_i) * log_1p)
             + c.exp(lam_i * log_1p + (1 - lam_i) * log_p))
    return c.log(a) / (lam_i - 1)


def _float_rdp(kind: str, x: float, o: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(ρ rounded up, its relative padding) in doubles, for every order at once.

    The closed forms are evaluated as ``Law.renyi`` does (log1p of A − 1 for small λx,
    a log-sum-exp otherwise) and raised by a bound on their rounding: each library call
    within 64 ulps (as in ``fdp.classical.rdp``), so a sum of terms is off by at most
    128 u times the sum of their magnitudes; log1p is increasing, so log1p(s + err)
    bounds log1p of the true s. Where A − 1 cancels (tiny λx) the padding is large
    relative to ρ, and the caller recomputes those orders in interval arithmetic."""
    lam1 = o - 1.0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if kind == "gaussian":
            rho = o * x * x / 2.0
            up = rho * (1.0 + 8.0 * _U) + 4.0 * _TINY        # (underflow: absolute)
            return up, np.zeros(o.shape)
        if kind == "laplace":
            e1, e2 = np.expm1(lam1 * x), np.expm1(-o * x)
            w1, w2 = o / (2.0 * o - 1.0), lam1 / (2.0 * o - 1.0)
            near_on = o * x < 1.0
        else:                             # randomized response, A = q e^{λε} + p e^{−λε}
            e1, e2 = np.expm1(o * x), np.expm1(-o * x)
            w1 = np.full(o.shape, float(np.exp(-np.logaddexp(0.0, x))))
            w2 = np.full(o.shape, float(np.exp(-np.logaddexp(0.0, -x))))
            near_on = o * x < 1.0
        s = w1 * e1 + w2 * e2
        err = _PAD * (np.abs(w1 * e1) + np.abs(w2 * e2))
        near = np.log1p(s + err) * (1.0 + _PAD)
        near_rel = np.where(s > 0, (err + _PAD * np.abs(s)) / np.abs(s), np.inf)
        if kind == "laplace":
            t1 = np.log(w1) + lam1 * x
            t2 = np.log(w2) - o * x
            mag = np.abs(np.log(w1)) + np.abs(np.log(w2)) + (lam1 + o) * x
        else:
            log_p, log_q = -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)
            t1 = o * log_p + (1.0 - o) * log_q
            t2 = o * log_q + (1.0 - o) * log_p
            mag = (o + lam1) * (abs(log_p) + abs(log_q))
        far0 = np.logaddexp(t1, t2)
        pad = _PAD * (mag + np.abs(far0))
        far = far0 + pad
        far_rel = np.where(far0 > 0, pad / np.abs(far0), np.inf)
        log_a = np.where(near_on, near, far)
        rel = np.where(near_on, near_rel, far_rel)
        rho = np.maximum(log_a, 0.0) / lam1 * (1.0 + 4.0 * _U)
    rho = np.where(np.isnan(rho), np.inf, rho)
    return rho, np.where(np.isnan(rel), np.inf, rel)


@functools.lru_cache(maxsize=256)
def _closed_form_rdp(kind: str, param: float, orders: tuple[float, ...]) -> tuple[float, ...]:
    """ρ(λ) rounded up at each order: in doubles with a rounding bound where that bound
    is within ``_FLOAT_RTOL`` of ρ, elsewhere the upper end of an interval evaluation
    (mpmath ``iv``), raised in precision until within 1e-15 relative (or 4096 bits)."""
    o = np.array(orders)
    rho, rel = _float_rdp(kind, param, o)
    redo = [i for i in range(o.size) if not rel[i] <= _FLOAT_RTOL]
    if not redo:
        return tuple(float(r) for r in rho)
    exact = _interval_rdp(kind, param, tuple(float(o[i]) for i in redo))
    out = rho.copy()
    out[redo] = exact
    return tuple(float(r) for r in out)


def _interval_rdp(kind: str, param: float, orders: tuple[float, ...]) -> tuple[float, ...]:
    """Upper ends of the interval ρ(λ) at each order, raised in precision until the
    interval is within 1e-15 relative (or 4096 bits)."""
    import mpmath.libmp as libmp  # lazily: `import fdp` stays free of mpmath
    from mpmath.ctx_iv import MPIntervalContext
    ctx = MPIntervalContext()
    out = []
    for lam in orders:
        prec = 128
        while True:
            ctx.prec = prec
            r = _rho_interval(kind, param, lam, ctx)
            lo_m, hi_m = r._mpi_
            hi = libmp.to_float(hi_m, rnd=libmp.round_ceiling)
            if hi == 0.0 and libmp.mpf_sign(hi_m) > 0:
                hi = _TINY                 # below the smallest double, not 0
            lo = libmp.to_float(lo_m, rnd=libmp.round_floor)
            if hi - lo <= 1e-15 * abs(hi) or prec >= 4096 or not np.isfinite(hi):
                break
            prec *= 2
        out.append(max(hi, 0.0))            # D_λ ≥ 0
    return tuple(out)


def _kind_of(f: TradeOff) -> tuple[str, float] | None:
    """(closed form, parameter) of a factor with a Rényi curve in closed form, or None."""
    if isinstance(f, Gaussian):
        return "gaussian", float(f.mu)
    if isinstance(f, Laplace):
        return "laplace", float(f.mu)
    if isinstance(f, RandomizedResponse):
        return "rr", float(f.eps)
    if isinstance(f, EpsDelta) and float(f.delta) == 0.0:
        return "rr", float(f.eps)              # f_{ε,0} is the trade-off of RR_ε
    return None


def _has_curve(f: TradeOff) -> bool:
    """Whether ``factor_rdp`` knows a certified curve of f (without computing it)."""
    return (isinstance(f, Identity) or isinstance(getattr(f, "rdp", None), RDPBound)
            or _kind_of(f) is not None)


def factor_rdp(f: TradeOff, orders: ArrayLike = COMPOSE_ORDERS) -> FloatArray | None:
    """A certified upper bound on the Rényi curve D_λ(Q ‖ P) of one factor, or None.

    Closed forms of the Gaussian, Laplace and randomized response (and f_{ε,0}), see
    the module docstring, in interval arithmetic and rounded up; Id has ρ = 0; a
    result that carries a certified curve (``MinCertified.rdp``) is read from it
    (``RDPBound.at``). Any other factor answers None (no certified curve is known).

    Parameters
    ----------
    f : TradeOff
        One factor.
    orders : array_like, optional
        Orders λ > 1 (default ``COMPOSE_ORDERS``).

    Returns
    -------
    ndarray or None
        ρ(λ) ≥ D_λ(Q ‖ P) at each order.

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.rdp_bound import factor_rdp
    >>> r = factor_rdp(fdp.Laplace(1.0), [2.0])
    >>> print(f"{r[0]:.4f}")
    0.6191
    """
    o = check_orders(orders)
    if isinstance(f, Identity):
        return np.zeros(o.shape)
    curve = getattr(f, "rdp", None)
    if isinstance(curve, RDPBound):
        return curve.at(o)
    kind = _kind_of(f)
    if kind is None:
        return None
    return np.array(_closed_form_rdp(kind[0], kind[1], tuple(float(x) for x in o)))


@dataclass(frozen=True)
class RDPBound:
    """A certified Rényi curve of a whole mechanism: ρ(λ) ≥ D_λ at each order.

    Parameters
    ----------
    orders : tuple of float
        Orders λ > 1.
    rdp : tuple of float
        The composed ρ(λ) at each order (an upper bound).
    source : str
        Where the curve comes from and how it is converted (for notes).

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.rdp_bound import RDPBound
    >>> b = RDPBound.of_factors([(fdp.Laplace(0.1), 1000)])
    >>> eps, order = b.epsilon(1e-5)
    >>> print(f"{eps[0]:.3f} at order {order[0]:g}")
    19.178 at order 3
    """

    orders: tuple[float, ...]
    rdp: tuple[float, ...]
    source: str = CLOSED_FORM_SOURCE

    @classmethod
    def of_factors(cls, items: list[tuple[TradeOff, int]],
                   orders: ArrayLike = COMPOSE_ORDERS) -> RDPBound | None:
        """Σ n_i ρ_i(λ) over counted factors [(f_i, n_i)] (Mironov 2017, Prop 1), or
        None when a factor has no certified curve (``factor_rdp``) or the sum is
        infinite at every order.

        Parameters
        ----------
        items : list of (TradeOff, int)
            The factors with their counts.
        orders : array_like, optional
            Orders λ > 1.

        Returns
        -------
        RDPBound or None
        """
        o = check_orders(orders)
        if not all(_has_curve(f) for f, _ in items):
            return None
        total = np.zeros(o.shape)
        for f, n in items:
            rho = factor_rdp(f, o)
            if rho is None:
                return None
            with np.errstate(over="ignore"):
                total = total + float(n) * rho
        # each product and sum rounds by ≤ u; float(n) too
        total = total * (1.0 + 4.0 * _U * (len(items) + 1))
        if not np.isfinite(total).any():
            return None
        return cls(tuple(float(x) for x in o), tuple(float(x) for x in total))

    def bound(self) -> RDPBound:
        """The curve itself: an ``RDPBound`` is its own recipe
        (``fdp.operations.min_certified.RDPRecipe``).

        Returns
        -------
        RDPBound
        """
        return self

    def at(self, orders: ArrayLike) -> FloatArray:
        """ρ at other orders: at each λ the value at the least order ≥ λ of the curve
        (+inf above its largest). Valid because D_λ is non-decreasing in λ (van Erven
        & Harremoës 2014, Thm 3), so ρ(λ') ≥ D_λ' ≥ D_λ for λ' ≥ λ.

        Parameters
        ----------
        orders : array_like
            Orders λ > 1.

        Returns
        -------
        ndarray
        """
        o = check_orders(orders)
        mine = np.array(self.orders)
        sort = np.argsort(mine)
        mine, vals = mine[sort], np.array(self.rdp)[sort]
        i = np.searchsorted(mine, o, side="left")
        return np.where(i < mine.size, vals[np.minimum(i, mine.size - 1)], np.inf)

    def log_delta(self, eps: ArrayLike) -> tuple[FloatOrArray, FloatOrArray]:
        """(upper log δ(ε), order attaining it), ``rdp_to_log_delta``.

        Parameters
        ----------
        eps : float or array_like
            Real ε.

        Returns
        -------
        (float or ndarray, float or ndarray)
        """
        return rdp_to_log_delta(np.array(self.orders), np.array(self.rdp), eps)

    def epsilon(self, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """(upper ε(δ), order attaining it) for δ in (0, 1), elementwise.

        Parameters
        ----------
        delta : float or array_like
            δ in (0, 1).

        Returns
        -------
        (ndarray, ndarray)
            At least one-dimensional.
        """
        d = np.atleast_1d(np.asarray(delta, dtype=float))
        res = [rdp_to_epsilon(np.array(self.orders), np.array(self.rdp), float(x))
               for x in d.ravel()]
        eps = np.array([r.epsilon for r in res]).reshape(d.shape)
        order = np.array([r.order for r in res]).reshape(d.shape)
        return eps, order


__all__ = ["CLOSED_FORM_SOURCE", "COMPOSE_ORDERS", "RDPBound", "RDPEpsilon", "check_orders",
           "factor_rdp", "rdp_to_epsilon", "rdp_to_log_delta"]
