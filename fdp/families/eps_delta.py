"""(ε, δ)-DP and randomized response as trade-off functions (DRS §2.3)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

from fdp import _validate
from fdp._constants import TINY, UNIT_ROUNDOFF
from fdp._types import ArrayLike, FloatArray, FloatOrArray
from fdp.families._rounding import one_minus, widen
from fdp.families.finite_pair import FinitePair
from fdp.law import AtomsLaw
from fdp.law.renyi import certified_renyi, log_sum_two
from fdp.tradeoff import Bracketed, ProfileBracketed, TradeOff

_U = UNIT_ROUNDOFF


class _DeltaParameter(float):
    """The δ of f_{ε,δ}: a float that, called with ε, gives the privacy profile.

    ``EpsDelta(1, 1e-5).delta == 1e-5`` (the parameter) while
    ``EpsDelta(1, 1e-5).delta(0.5)`` is δ(0.5), as for every TradeOff.
    """

    __slots__ = ("_owner",)
    _owner: TradeOff

    def __new__(cls, value: float, owner: TradeOff) -> _DeltaParameter:
        obj = super().__new__(cls, value)
        obj._owner = owner
        return obj

    def __call__(self, eps: ArrayLike) -> FloatOrArray:
        return TradeOff.delta(self._owner, eps)

    def __repr__(self) -> str:
        return float.__repr__(self)


class EpsDelta(Bracketed, ProfileBracketed):
    """f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)} (DRS eq. 2.4).

    ``eps``: ε ≥ 0 (inf allowed); ``delta``: δ in [0, 1].

    (ε, δ)-DP ⇔ f_{ε,δ}-DP (DRS Prop 2.5). Kink at α = (1 − δ)/(1 + e^ε). Exact pair:
    P = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0), Q the reverse, with losses
    −inf, −ε, ε, +inf; so compositions are exact (Kairouz, Oh & Viswanath 2015).
    ``f.delta`` is the parameter δ and, called as ``f.delta(eps)``, the profile.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.EpsDelta(1.0, 0.01)
    >>> print(f"{f(0.1):.4f} {f.delta:.2f} {f.delta(0.5):.4f}")
    0.7182 0.01 0.2948
    """

    __slots__ = ("_delta_value", "eps")
    _delta_value: float
    eps: float

    def __init__(self, eps: float, delta: float = 0.0):
        object.__setattr__(self, "eps", _validate.real("eps", eps, low=0.0))
        object.__setattr__(self, "_delta_value", _validate.probability("delta", delta))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("EpsDelta is immutable")

    @property
    def delta(self) -> _DeltaParameter:
        return _DeltaParameter(self._delta_value, self)

    def __eq__(self, other: object) -> bool:
        return (type(other) is EpsDelta and self.eps == other.eps
                and self._delta_value == other._delta_value)

    def __hash__(self) -> int:
        return hash(("EpsDelta", self.eps, self._delta_value))

    def __repr__(self) -> str:
        return f"EpsDelta(eps={self.eps!r}, delta={self._delta_value!r})"

    @property
    def symmetric(self) -> bool:
        return True

    def _composition_kind(self) -> str:
        return "neutral" if self.eps == 0.0 and self._delta_value == 0.0 else "eps_delta"

    def _bracket(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)}, each line widened by its rounding.

        Derivation: docs/derivations/families.md.
        """
        e, d = self.eps, self._delta_value
        a = np.asarray(alpha, dtype=float)
        big = np.exp(e) if e < 710.0 else np.inf
        small = np.exp(-e)
        with np.errstate(over="ignore", invalid="ignore"):
            one_d = 1.0 - d
            e_d = _U * one_d if d > 0.0 else 0.0
            ea = np.where(a == 0.0, 0.0, big * a)
            steep = one_d - ea
            err_s = e_d + 3.0 * _U * ea + _U * np.abs(steep)
            inner = one_d - a
            flat = small * inner
            err_f = small * (e_d + _U * np.abs(inner)) + 3.0 * _U * np.abs(flat) + 2.0 * TINY
        s_lo, s_hi = widen(steep, 0.0, np.where(np.isfinite(err_s), err_s, np.inf),
                           low=-np.inf)
        f_lo, f_hi = widen(flat, 0.0, err_f, low=-np.inf)
        s_lo = np.where(np.isfinite(ea), s_lo, -np.inf)
        s_hi = np.where(np.isfinite(ea), s_hi, -np.inf)
        lo = np.maximum(0.0, np.maximum(s_lo, f_lo))
        hi = np.maximum(0.0, np.maximum(s_hi, f_hi))
        om_lo, om_hi = one_minus(a)
        # f ≤ 1 − α; at α = 0 the value is 1 − δ, at α = 1 it is 0, both exact
        hi = np.minimum(hi, om_hi)
        lo = np.minimum(lo, hi)
        exact = np.where(a == 0.0, 1.0 - d, 0.0)
        ends = (a == 0.0) & (d == 0.0) | (a == 1.0)
        return np.where(ends, exact, lo), np.where(ends, exact, hi)

    def _pair(self) -> FinitePair:
        e, d = self.eps, self._delta_value
        hi, lo = (1.0 - d) * expit(e), (1.0 - d) * expit(-e)
        # (1 − δ)·expit(±ε): 1 − δ (u), expit (2u), the product (u)
        return FinitePair.from_atoms([np.inf, e, -e, -np.inf], [0.0, lo, hi, d],
                                     [d, hi, lo, 0.0], mass_rtol=4.0 * _U)

    def _delta_bracket(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """δ(ε') = δ + (1 − δ)·max{(e^ε − e^{ε'})₊/(1 + e^ε), (1 − e^{ε'})₊} (DRS Prop 2.12):
        the order (P, Q) of the randomized-response pair and the other order (ε' < −ε), in
        expm1/expit (relative precision near ε or 0, no overflow).

        Widened by its rounding: expm1 and expit 2u each, the argument
        ε' − ε at most u relative of the value (|t|e^t/(1 − e^t) ≤ 1), the products and
        the sum u each: 9u of (1 − δ)·max{…}, plus u of the result; δ(ε') = δ exactly
        where the max is 0."""
        e = np.asarray(eps, dtype=float)
        d = self._delta_value
        with np.errstate(over="ignore", invalid="ignore"):
            same = np.where(e < self.eps,
                            -np.expm1(np.minimum(e - self.eps, 0.0)) * expit(self.eps), 0.0)
            other = np.where(e < 0.0, -np.expm1(np.minimum(e, 0.0)), 0.0)
        m = (1.0 - d) * np.maximum(np.maximum(same, other), 0.0)
        v = d + m
        lo, hi = widen(v, _U, 9.0 * _U * m, low=0.0, high=1.0)
        return np.where(m == 0.0, d, lo), np.where(m == 0.0, d, hi)

    def _epsilon_range(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        """ε(δ') in closed form: the inverse of δ(ε') = δ + (1 − δ)(e^ε − e^{ε'})/(1 + e^ε)
        on [0, ε] (DRS Prop 2.12), as a certified bracket:

        Derivation: docs/derivations/families.md.
        """
        e0, d0 = self.eps, self._delta_value
        if e0 == np.inf:
            return super()._epsilon_range(d)
        with np.errstate(under="ignore", invalid="ignore", divide="ignore", over="ignore"):
            a = 1.0 - d
            b = np.maximum(d - d0, 0.0) * math.exp(-e0)
            w_lo, w_hi = widen(a - b, _U, _U * a + 4.0 * _U * b + 2.0 * TINY, low=0.0)
            l1p = math.log1p(-d0) if d0 < 1.0 else 0.0
            ends = []
            for w, side in ((w_lo, 0), (w_hi, 1)):
                lw = np.log(w)
                v = e0 + lw - l1p
                fin = np.isfinite(v)
                err = np.where(fin, 3.0 * _U * (np.abs(lw) + abs(l1p)) + _U * e0, 0.0)
                br = widen(np.where(fin, v, 0.0), _U, err, low=0.0, high=e0)[side]
                ends.append(np.where(fin, br, 0.0))       # w = 0: ε(δ') ≤ 0
        lo, hi = ends
        exact = np.where(d < d0, np.inf, np.where(d >= 1.0, 0.0, e0))
        pin = (d < d0) | (d >= 1.0) | (d == d0)
        return np.where(pin, exact, lo), np.where(pin, exact, hi)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        v = self.eps if self._delta_value == 0.0 else np.inf
        return v, v

    def latex(self) -> str:
        return rf"f_{{{self.eps:g},{self._delta_value:g}}}"


@dataclass(frozen=True)
class RandomizedResponse(TradeOff):
    """k-ary randomized response with parameter ε (Warner 1965; Kairouz et al. 2016).

    ``eps``: ε ≥ 0; ``k``: number of values, k ≥ 2.

    Report the true value with probability e^ε/(e^ε + k − 1), each other value with
    1/(e^ε + k − 1). For neighbouring inputs x ≠ x' the output pair has losses
    −ε (output x), +ε (output x') and 0 (the k − 2 others): T(P, Q) is exact and
    piecewise linear; k = 2 gives f_{ε,0}.

    Examples
    --------
    >>> import fdp
    >>> print(f"{fdp.RandomizedResponse(1.0, 4)(0.5):.4f}")
    0.1995
    """

    eps: float
    k: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _validate.real("eps", self.eps, low=0.0))
        object.__setattr__(self, "k", _validate.positive_int("k", self.k, low=2))

    @property
    def symmetric(self) -> bool:
        return True

    def _pair(self) -> FinitePair:
        e, k = self.eps, self.k
        # Normalise in log space: z = e^ε + k − 1.
        log_z = np.logaddexp(e, np.log(k - 1.0))
        big, small = np.exp(e - log_z), np.exp(-log_z)
        rest = (k - 2) * small
        # e^{x − log z}: logaddexp and the subtraction err by u of |log z| and |ε − log z|
        # (each 2u with its rounding), exp by 2u relative; rest adds a product (u)
        rtol = 5.0 * _U + 2.0 * _U * (abs(float(log_z)) + abs(e - float(log_z)))
        return FinitePair.from_atoms([e, 0.0, -e], [small, rest, big], [big, rest, small],
                                     mass_rtol=rtol)

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        return self._pair()._beta(alpha)

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        return self._pair()._upper(alpha)

    _certified_delta = True

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return self._pair()._delta(eps)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return self._pair()._delta_lower(eps)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """ε exactly: the losses are ±ε and 0, each with positive mass under P and Q, so
        sup |L| = ε (DRS eq. 2.4; the masses' rounding does not move the losses)."""
        return self.eps, self.eps

    def law(self) -> AtomsLaw:
        """The three atoms ±ε, 0; binary RR (k = 2) with its Rényi divergence in closed form."""
        pair = self._pair()
        if self.k == 2:
            return BinaryResponseLaw(pair.log_ratio, pair.p, pair.q, eps=self.eps)
        return pair.law()

    def latex(self) -> str:
        return rf"\mathrm{{RR}}_{{{self.eps:g},{self.k}}}"


@dataclass(frozen=True, eq=False)
class BinaryResponseLaw(AtomsLaw):
    """The law of binary randomized response (atoms ±ε), with D_α(Q ‖ P) in closed form:
    log[p^α (1−p)^{1−α} + (1−p)^α p^{1−α}]/(α − 1), p = e^ε/(1 + e^ε) (Mironov 2017,
    Table II).

    ``L, p, q``: the atoms (as ``AtomsLaw``); ``eps``: ε ≥ 0.

    Examples
    --------
    >>> import fdp
    >>> print(f"{float(fdp.RandomizedResponse(1.0).law().renyi([2.0])[0]):.4f}")
    0.7353
    """

    renyi_is_upper_bound = True

    eps: float = 0.0

    def renyi(self, orders: ArrayLike) -> np.ndarray:
        """D_α(Q ‖ P) in closed form, rounded up (``randomized_response_renyi``)."""
        return randomized_response_renyi(self.eps, orders)


def randomized_response_renyi(eps: float, orders: ArrayLike) -> FloatArray:
    """Upper bounds on D_λ of binary randomized response RR_ε (Mironov 2017, Table II):
    ρ(λ) = log[p^λ (1−p)^{1−λ} + (1−p)^λ p^{1−λ}]/(λ − 1), p = e^ε/(1 + e^ε), rounding
    included (``fdp.law.renyi.certified_renyi``). It bounds every ε-DP pair too: the
    trade-off f_{ε,0} of RR_ε lies below that of any ε-DP mechanism (DRS Prop 2.5), and
    Rényi divergences do not increase under post-processing.

    ``eps``: ε ≥ 0; ``orders``: orders λ > 1.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from fdp.families.eps_delta import randomized_response_renyi
    >>> print(f"{randomized_response_renyi(1.0, [2.0])[0]:.4f}")
    0.7353
    """
    o = np.asarray(orders, dtype=float).ravel()
    if float(eps) == 0.0:
        return np.zeros(o.shape)              # P = Q
    return certified_renyi(float(eps), o, _rr_renyi_doubles, _rr_renyi_interval)


def _rr_renyi_doubles(x: float, o: FloatArray) -> tuple[FloatArray, FloatArray]:
    """ρ(λ) of RR_x in doubles with its rounding bound: A = q e^{λx} + p e^{−λx}
    (p = e^x/(1 + e^x), q = 1 − p) as log1p of A − 1 for λx < 1, else a log-sum-exp."""
    lam1 = o - 1.0
    log_p, log_q = -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)
    with np.errstate(over="ignore", invalid="ignore"):
        w1 = np.full(o.shape, float(np.exp(log_q)))
        w2 = np.full(o.shape, float(np.exp(log_p)))
        t1 = o * log_p + (1.0 - o) * log_q
        t2 = o * log_q + (1.0 - o) * log_p
        mag = (o + lam1) * (abs(log_p) + abs(log_q))
        return log_sum_two(w1, np.expm1(o * x), w2, np.expm1(-o * x), t1, t2, mag,
                           o * x < 1.0, lam1)


def _rr_renyi_interval(x: float, lam: float, c: Any) -> Any:
    """ρ(λ) of RR_x as an interval of the mpmath interval context ``c``."""
    lam_i = c.mpf(lam)
    log_p = -c.log(1 + c.exp(-c.mpf(x)))
    log_q = -c.log(1 + c.exp(c.mpf(x)))
    a = (c.exp(lam_i * log_p + (1 - lam_i) * log_q)
         + c.exp(lam_i * log_q + (1 - lam_i) * log_p))
    return c.log(a) / (lam_i - 1)
