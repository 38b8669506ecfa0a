"""Certified Rényi-DP curves of compositions, and their conversion to (ε, δ).

A mechanism is (λ, ρ)-RDP when D_λ(Q ‖ P) ≤ ρ for its pair (P, Q) (Mironov 2017,
Def 3); RDP composes by adding ρ at each order (Mironov 2017, Prop 1), so the
composition ⊗ f_i^{⊗n_i} of factors with known Rényi curves ρ_i has
ρ(λ) ≤ Σ n_i ρ_i(λ), in the same direction D(Q ‖ P) as the hockey-stick divergence
δ(ε) = E_P[(q/p − e^ε)_+] that the trade-off function reads.

One factor's curve (``factor_rdp``): the closed forms of Mironov 2017, Table II, that
its law states as proven upper bounds (``law.renyi_is_upper_bound``), or binary RR_ε's.

Conversions to (ε, δ) at a fixed δ (or ε), minimised over the orders given:

* ``"mironov"`` (Mironov 2017, Prop 3): ε = ρ(λ) + log(1/δ)/(λ − 1), δ = e^{(λ−1)(ρ−ε)};
* ``"improved"`` (Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020, Prop 12):
  ε = ρ(λ) + log(1 − 1/λ) − (log δ + log λ)/(λ − 1), and solved for δ,
  δ = exp((λ − 1)(ρ − ε)) (1 − 1/λ)^{λ−1}/λ. Never worse than Mironov's.

Both are proven at every order, so their minimum over the orders is; each result is
rounded up by its floating-point error, so a certified ρ gives a certified ε or δ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray, FloatOrArray
from fdp.families.eps_delta import EpsDelta, RandomizedResponse, randomized_response_renyi
from fdp.families.identity import Identity
from fdp.tradeoff import TradeOff

#: Unit roundoff of doubles.
_U = 2.0 ** -53

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
    """The smallest ε over the orders at the given δ (``epsilon``) and the order λ attaining it.

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
    """The orders as a flat float array; ``ValueError`` for none or an order λ ≤ 1.

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


def _curve_arrays(orders: ArrayLike, rdp: ArrayLike) -> tuple[FloatArray, FloatArray]:
    o = check_orders(orders)
    r = _validate.reals("rdp", rdp, low=0.0, allow_inf=True).ravel()
    if r.shape != o.shape:
        raise ValueError(f"rdp must have one value per order ({o.size}), got {r.size}")
    return o, r


def rdp_to_epsilon(orders: ArrayLike, rdp: ArrayLike, delta: float,
                   conversion: Conversion = "improved") -> RDPEpsilon:
    """Smallest ε over the orders λ > 1 such that (λ, ρ(λ))-RDP ⇒ (ε, δ)-DP, δ ∈ (0, 1).

    The two conversions are the module docstring's; ε is floored at 0 and rounded up by
    its floating-point error. Returns ``RDPEpsilon(epsilon, order)``.

    Examples
    --------
    >>> from fdp.classical import rdp_to_epsilon
    >>> r = rdp_to_epsilon([2.0, 8.0], [1.0, 4.0], 1e-5, conversion="mironov")
    >>> print(f"{r.epsilon:.4f} {r.order:g}")
    5.6447 8
    """
    o, r = _curve_arrays(orders, rdp)
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
    """(upper log δ(ε), order attaining it) from (λ, ρ(λ))-RDP, minimised over the orders.

    The module docstring's conversions solved for δ, rounded up and capped at log 1 = 0;
    in log space, so a δ below the smallest double is not rounded to 0. ρ may be +inf;
    ε < 0 gives log δ ≤ 0 only. The one answer to "δ at ε from a Rényi curve" in fdp (as
    dp_accounting's ``compute_delta``, rounded up).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.classical.rdp import rdp_to_log_delta
    >>> ld, order = rdp_to_log_delta([2.0, 8.0], [1.0, 4.0], 6.0)
    >>> print(f"{np.exp(ld):.3e} at order {order:g}")
    4.082e-08 at order 8
    """
    o, r = _curve_arrays(orders, rdp)
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
def _pure_rr_eps(f: TradeOff) -> float | None:
    """ε of a factor known to be ε-DP through its family (f_{ε,0}, randomized response
    with any k), whose Rényi curve is bounded by binary RR_ε's; None otherwise."""
    if isinstance(f, RandomizedResponse):
        return float(f.eps)
    if isinstance(f, EpsDelta) and float(f.delta) == 0.0:
        return float(f.eps)              # f_{ε,0} is the trade-off of RR_ε
    return None


def _certified_law(f: TradeOff) -> bool:
    """Whether f's law states its Rényi divergence as a proven upper bound."""
    law = f.law()
    return law is not None and law.renyi_is_upper_bound


def _has_curve(f: TradeOff) -> bool:
    """Whether ``factor_rdp`` knows a certified Rényi curve of f's own pair, one that
    composes (without computing it): a carried curve only where it bounds the object's
    own pair (``MinCertified.renyi_composes``), not the run behind a one-sided
    symmetrisation."""
    return (isinstance(f, Identity) or bool(getattr(f, "renyi_composes", False))
            or _pure_rr_eps(f) is not None or _certified_law(f))


def factor_rdp(f: TradeOff, orders: ArrayLike = COMPOSE_ORDERS) -> FloatArray | None:
    """A certified upper bound on the Rényi curve D_λ(Q ‖ P) of one factor, or None.

    The factor's law where it states a proven upper bound (``renyi_is_upper_bound``:
    Gaussian, Laplace, binary randomized response, rounded up through
    ``fdp.law.renyi.certified_renyi``); RR_ε's curve for an ε-DP family
    (f_{ε,0}, k-ary randomized response); Id has ρ = 0; a result that carries a
    certified curve (``MinCertified.rdp``) is read from it (``RDPBound.at``). Any other
    factor answers None (no certified curve is known). For a one-sided symmetrisation
    (``fdp.dpsgd``) the carried curve bounds both directions of the run, not the pair
    of its symmetrised trade-off function: valid for a mechanism built from the run's
    Rényi curve alone (``repeat_and_select``), but not added up by ``of_factors``.

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
    if getattr(f, "rdp_recipe", None) is not None:
        curve = getattr(f, "rdp", None)
        if isinstance(curve, RDPBound):
            return curve.at(o)
    eps = _pure_rr_eps(f)
    if eps is not None:
        return randomized_response_renyi(eps, o)
    law = f.law()
    if law is not None and law.renyi_is_upper_bound:
        return np.asarray(law.renyi(o), dtype=float)
    return None


@dataclass(frozen=True)
class RDPBound:
    """A certified Rényi curve of a whole mechanism: ``rdp`` ρ(λ) ≥ D_λ at each of
    ``orders``; ``source`` says where it comes from (for notes).

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
        None when a factor has no certified curve of its own pair (``factor_rdp``; a
        one-sided symmetrisation has none: the sum would bound the run's composition,
        not the composition of the symmetrised curves the engine forms) or the sum is
        infinite at every order."""
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
        """The curve itself: an ``RDPBound`` is its own recipe (``RDPRecipe``)."""
        return self

    def at(self, orders: ArrayLike) -> FloatArray:
        """ρ at other orders: at each λ the value at the least order ≥ λ of the curve
        (+inf above its largest). Valid because D_λ is non-decreasing in λ (van Erven
        & Harremoës 2014, Thm 3), so ρ(λ') ≥ D_λ' ≥ D_λ for λ' ≥ λ."""
        o = check_orders(orders)
        mine = np.array(self.orders)
        sort = np.argsort(mine)
        mine, vals = mine[sort], np.array(self.rdp)[sort]
        i = np.searchsorted(mine, o, side="left")
        return np.where(i < mine.size, vals[np.minimum(i, mine.size - 1)], np.inf)

    def log_delta(self, eps: ArrayLike) -> tuple[FloatOrArray, FloatOrArray]:
        """(upper log δ(ε), order attaining it), ``rdp_to_log_delta``."""
        return rdp_to_log_delta(np.array(self.orders), np.array(self.rdp), eps)

    def epsilon(self, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """(upper ε(δ), order attaining it) for δ in (0, 1), elementwise, as arrays of
        at least one dimension."""
        d = np.atleast_1d(np.asarray(delta, dtype=float))
        res = [rdp_to_epsilon(np.array(self.orders), np.array(self.rdp), float(x))
               for x in d.ravel()]
        eps = np.array([r.epsilon for r in res]).reshape(d.shape)
        order = np.array([r.order for r in res]).reshape(d.shape)
        return eps, order


__all__ = ["CLOSED_FORM_SOURCE", "COMPOSE_ORDERS", "RDPBound", "RDPEpsilon", "check_orders",
           "factor_rdp", "rdp_to_epsilon", "rdp_to_log_delta"]
