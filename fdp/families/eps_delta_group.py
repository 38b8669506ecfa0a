"""Group privacy of f_{ε,δ}: the exact k-fold 1 − (1 − f_{ε,δ})^{∘k} (DRS Thm 2.14).

A piecewise-linear trade-off function (``eps_delta_group`` derives it), kept with
its masses as logarithms (``EpsDeltaGroup``) so that kε far beyond 709 neither
overflows nor loses the safe side.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import logsumexp

from fdp import _validate
from fdp._numerics import bisect_monotone
from fdp._types import ArrayLike, FloatOrArray
from fdp.families.eps_delta import EpsDelta
from fdp.families.finite_pair import FinitePair
from fdp.tradeoff import TradeOff

# Most atoms an exact group of f_{ε,δ} hands to exact composition as a FinitePair.
PAIR_MAX_ATOMS = 100_000
# Most atoms an exact group curve is built with (about ten arrays of that length:
# 1e7 atoms ≈ 0.8 GB); k = 1e9 at δ = 0 would need ≈ 80 GB.
GROUP_MAX_ATOMS = 10_000_000


def _log_expm1(x: ArrayLike) -> np.ndarray:
    """log(e^x − 1) for x > 0, without overflow for large x."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(x > 30.0, x + np.log1p(-np.exp(-np.maximum(x, 30.0))),
                        np.log(np.expm1(np.minimum(x, 30.0))))


def _log_geometric(eps: float, a: ArrayLike, b: ArrayLike) -> FloatOrArray:
    """log Σ_{m=a}^{b} e^{mε} (−inf for an empty sum), ε > 0; a, b integers or arrays."""
    a, b = np.asarray(a), np.asarray(b)
    n = np.maximum(b - a + 1, 1)
    # anchored at the largest term: e^{bε}(1 − e^{−nε})/(1 − e^{−ε}); the quotient is
    # formed before its logarithm (a difference of two logarithms cancels at tiny ε)
    out = b * eps + np.log(np.expm1(-n * eps) / np.expm1(-eps))
    out = np.where(b < a, -np.inf, out)
    return float(out) if out.ndim == 0 else out


def eps_delta_group(eps: float, delta: float, k: int) -> TradeOff:
    """1 − (1 − f_{ε,δ})^{∘k} exactly (DRS Thm 2.14 applied to DRS eq. 2.4).

    Derivation: docs/derivations/families.md.
    """
    if delta >= 1.0 or (np.isinf(eps) and delta > 0.0):
        return EpsDelta(0.0, 1.0)                 # f ≡ 0 stays 0 (φ(x) = 1 for x > 0)
    if np.isinf(eps):
        return EpsDelta(eps, 0.0)
    if eps == 0.0:
        return EpsDelta(0.0, min(1.0, k * delta))
    eps = _validate.real("eps", eps, low=0.0, low_open=True)
    delta = _validate.real("delta", delta, low=0.0, high=1.0, high_open=True)
    k = _validate.positive_int("k", k)
    atoms = _log_atoms(eps, delta, k)
    if atoms is None:
        return EpsDelta(0.0, 1.0)                 # the group curve is identically 0
    return EpsDeltaGroup._with_atoms(eps, delta, k, atoms)


def _log_atoms(e: float, d: float, k: int) -> dict | None:
    """The atoms of the k-fold group curve of f_{ε,δ} in log space (see
    ``eps_delta_group``), or None when the curve is identically 0 (no finite atoms)."""
    log_d = np.log(d) if d > 0.0 else -np.inf
    log_r1 = float(np.logaddexp(e, 0.0))                       # log(e^ε + 1)
    log_num = (e + np.log1p((2.0 * d - 1.0) * np.exp(-e)) if e > 30.0
               else np.log(np.expm1(e) + 2.0 * d))             # log(e^ε − 1 + 2δ)
    log_c = log_num - log_r1
    b = log_d + log_r1                                         # log δ(e^ε + 1)
    log_ratio = _log_ratio(e, d, b - log_num)                 # log δ(e^ε + 1)/(e^ε − 1 + 2δ)

    def log_alpha_star(j: int, shift: int = 0) -> float:
        """log(e^{shift·ε} α*_j), the power of e^ε combined first (exact integers):
        α*_j = e^{(1−j)ε}(e^ε − 1 + 2δ)(1 − ratio·e^{(j−1)ε})/(e^{2ε} − 1)."""
        x = log_ratio + (j - 1) * e
        if e < 15.0:          # one quotient: the two logarithms would cancel at tiny ε
            return (1 - j + shift) * e + log_num + np.log(np.expm1(x) / np.expm1(-2.0 * e)
                                                          * np.exp(-2.0 * e))
        return (1 - j + shift) * e + log_num + np.log(-np.expm1(x)) - float(_log_expm1(2.0 * e))

    # j_top: largest j ≤ k with α*_j > 0, i.e. log_ratio + (j − 1)ε < 0
    if d == 0.0:
        top = k
    else:
        reach = 1.0 - log_ratio / e
        top = k if reach >= k + 1 else min(k, int(np.floor(reach)))
        while top > 1 and log_ratio + (top - 1) * e >= 0.0:
            top -= 1
        while top < k and log_ratio + top * e < 0.0:
            top += 1
    bot = k - top
    if top - bot + 1 > GROUP_MAX_ATOMS:
        raise ValueError(
            f"the group curve of f_{{{e:g},{d:g}}} for k={k} has {top - bot + 1} atoms, over "
            f"the {GROUP_MAX_ATOMS:.0e} this exact form holds in memory; "
            "EpsDelta(k·eps, delta·(e^(k·eps) − 1)/(e^eps − 1)) is a valid, looser group "
            "bound (the classical group privacy of (eps, delta)-DP)")
    # 1 − A_top, the mass at loss ±∞
    terms = [np.log(-np.expm1((top - k) * e)) if top < k else -np.inf,
             log_d + np.logaddexp(_log_geometric(e, top - k, 2 * top - k - 1),
                                  _log_geometric(e, top - k, -1))]
    log_inf = float(np.logaddexp(terms[0], terms[1]))
    if 2 * top < k or log_inf >= 0.0:
        return None
    if top == bot:
        j = np.array([top])
        log_p = log_q = np.array([np.log(-np.expm1(log_inf))])
    else:
        j = np.arange(top, bot - 1, -1)                      # decreasing loss
        log_p = -j * e + log_c
        log_q = (j - k) * e + log_c
        log_p[0], log_q[0] = log_alpha_star(top), log_alpha_star(top, 2 * top - k)
        log_p[-1], log_q[-1] = log_q[0], log_p[0]
    loss = (2.0 * j - k) * e
    for arr in (loss, log_p, log_q):
        arr.setflags(write=False)
    # running sums from the top (log Σ_{i<m} p_i, q_i) and tails (log Σ_{i≥m} q_i),
    # each a geometric sum in closed form plus the end atoms (no accumulated rounding)
    n = j.size
    m = np.arange(n + 1)
    if n == 1:
        z = np.array([-np.inf, log_p[0]])
        cum_p, cum_q, tail_q = z, np.array([-np.inf, log_q[0]]), np.array([log_q[0], -np.inf])
    else:
        hi_in = np.clip(top - m + 1, bot + 1, top)    # interior j ∈ [hi_in, top − 1]
        inner_p = log_c + _log_geometric(e, -(top - 1), -hi_in)
        inner_q = log_c + _log_geometric(e, hi_in - k, top - 1 - k)
        first = np.where(m >= 1, 0.0, -np.inf)
        last = np.where(m >= n, 0.0, -np.inf)
        cum_p = np.logaddexp(np.logaddexp(log_p[0] + first, inner_p), log_p[-1] + last)
        cum_q = np.logaddexp(np.logaddexp(log_q[0] + first, inner_q), log_q[-1] + last)
        lo_in = np.minimum(top - m, top - 1)          # interior j ∈ [bot + 1, lo_in]
        t_in = log_c + _log_geometric(e, bot + 1 - k, lo_in - k)
        t_first = np.where(m == 0, 0.0, -np.inf)
        t_last = np.where(m <= n - 1, 0.0, -np.inf)
        tail_q = np.logaddexp(np.logaddexp(log_q[0] + t_first, t_in), log_q[-1] + t_last)
    return {"loss": loss, "log_p": log_p, "log_q": log_q, "log_inf": log_inf,
            "_cum": (cum_p, cum_q, tail_q)}


def _log_ratio(e: float, d: float, direct: float) -> float:
    """log[δ(e^ε + 1)/(e^ε − 1 + 2δ)] = log1p(−(e^ε − 1)(1 − δ)/(e^ε − 1 + 2δ)).

    Derivation: docs/derivations/families.md.
    """
    if e > 30.0:
        return direct
    em1 = np.expm1(e)
    x = em1 * (1.0 - d) / (em1 + 2.0 * d)
    return float(np.log1p(-x)) if x <= 0.5 else direct


class EpsDeltaGroup(TradeOff):
    """1 − (1 − f_{ε,δ})^{∘k} exactly, with masses kept as logarithms (see ``eps_delta_group``).

    β(α), δ(ε') and ε(δ') are computed from the atoms in log space, so that kε far
    beyond 709 (where e^{kε} overflows) neither overflows nor loses the safe side.
    """

    __slots__ = ("_cum", "d", "eps", "k", "log_inf", "log_p", "log_q", "loss")
    eps: float
    d: float
    k: int
    loss: np.ndarray
    log_p: np.ndarray
    log_q: np.ndarray
    log_inf: float
    _cum: tuple

    def __init__(self, eps: float, delta: float, k: int):
        eps = _validate.real("eps", eps, low=0.0, low_open=True)
        delta = _validate.real("delta", delta, low=0.0, high=1.0, high_open=True)
        k = _validate.positive_int("k", k)
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "d", delta)
        object.__setattr__(self, "k", k)
        atoms = _log_atoms(eps, delta, k)
        if atoms is None:
            raise ValueError(f"the group curve of f_{{{eps:g},{delta:g}}} for k={k} is identically "
                             "0; eps_delta_group(eps, delta, k) returns it as EpsDelta(0, 1)")
        self._set(atoms)

    def _set(self, atoms: dict) -> None:
        for name, value in atoms.items():
            object.__setattr__(self, name, value)

    @classmethod
    def _with_atoms(cls, eps: float, delta: float, k: int, atoms: dict) -> EpsDeltaGroup:
        """The group with its atoms already computed (by ``eps_delta_group``)."""
        obj = cls.__new__(cls)
        for name, value in (("eps", eps), ("d", delta), ("k", k)):
            object.__setattr__(obj, name, value)
        obj._set(atoms)
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("EpsDeltaGroup is immutable")

    def __eq__(self, other: object) -> bool:
        return (type(other) is EpsDeltaGroup and self.eps == other.eps and self.d == other.d
                and self.k == other.k)

    def __hash__(self) -> int:
        return hash(("EpsDeltaGroup", self.eps, self.d, self.k))

    def __reduce__(self) -> tuple[Any, ...]:
        return EpsDeltaGroup, (self.eps, self.d, self.k)

    def __repr__(self) -> str:
        return f"EpsDelta(eps={self.eps!r}, delta={self.d!r}).group({self.k})"

    def latex(self) -> str:
        return rf"1-(1-f_{{{self.eps:g},{self.d:g}}})^{{\circ {self.k}}}"

    @property
    def symmetric(self) -> bool:
        return True

    def _group(self, k: int) -> TradeOff:
        return eps_delta_group(self.eps, self.d, self.k * k)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """kε when δ = 0 (the first segment has slope −e^{kε} and the curve lies above
        f_{kε,0}, whose other lines it dominates); ∞ when f(0) < 1."""
        value = self.k * self.eps if self.d == 0.0 else np.inf
        return value, value

    def pure_epsilon(self) -> float:
        return self._pure_epsilon_bounds()[1]

    # -- β ----------------------------------------------------------------
    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        cum_p, _, tail_q = self._cum
        with np.errstate(divide="ignore"):
            la = np.log(a)
        # segment m: cum_p[m] ≤ α < cum_p[m + 1] (atoms in decreasing loss)
        m = np.clip(np.searchsorted(cum_p, la, side="right") - 1, 0, self.loss.size - 1)
        start = np.exp(cum_p[m])
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            gap = np.log(np.maximum(a - start, 0.0))
            drop = np.exp(np.minimum(self.loss[m] + gap, 709.0))
        out = np.exp(tail_q[m]) - np.where(a > start, drop, 0.0)
        past = la >= cum_p[-1]
        out = np.where(a == 0.0, -np.expm1(self.log_inf), out)   # f(0) = 1 − q_∞ exactly
        return np.where(past, 0.0, np.clip(out, 0.0, 1.0 - a))

    def _pair(self) -> FinitePair | None:
        if self.loss.size > PAIR_MAX_ATOMS:
            return None
        inf = np.exp(self.log_inf)
        return FinitePair.from_atoms(
            np.concatenate([[np.inf], self.loss, [-np.inf]]),
            np.concatenate([[0.0], np.exp(self.log_p), [inf]]),
            np.concatenate([[inf], np.exp(self.log_q), [0.0]]))

    # -- δ(ε') and ε(δ') ---------------------------------------------------
    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        """log δ(ε') = log[ e^{log_inf} + Σ_{l_j > ε'} q_j (1 − e^{ε' − l_j}) ].

        Atoms with l_j > ε' + 1 are summed through the running sums
        (Σ q − e^{ε'} Σ p, a difference of at most a factor e apart); the few within
        1 of ε' term by term; every term is non-negative, so nothing cancels.
        """
        e = np.asarray(eps, dtype=float)
        flat = e.ravel()
        cum_p, cum_q, _ = self._cum
        L = self.loss
        out = np.empty(flat.shape)
        for i, x in enumerate(flat):
            if x == np.inf:
                out[i] = self.log_inf
                continue
            if x == -np.inf:
                out[i] = 0.0
                continue
            far = int(np.searchsorted(-L, -(x + 1.0), side="left"))
            near = int(np.searchsorted(-L, -x, side="left"))              # l > x
            parts = [self.log_inf]
            if far > 0:
                lq, lp = cum_q[far], cum_p[far]
                parts.append(lq + np.log(-np.expm1(x + lp - lq)))
            if near > far:
                sl = slice(far, near)
                parts.append(float(logsumexp(self.log_q[sl] + np.log(-np.expm1(x - L[sl])))))
            out[i] = float(logsumexp(parts))
        return np.minimum(out, 0.0).reshape(e.shape)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return np.exp(self._log_delta(eps))

    def _epsilon(self, delta: np.ndarray) -> np.ndarray:
        """Smallest ε' ≥ 0 with δ(ε') ≤ δ': bisection on [0, l_top] in log δ, upper end."""
        d = np.asarray(delta, dtype=float)
        flat = d.ravel()
        out = np.empty(flat.shape)
        top = max(float(self.loss[0]), 0.0)
        with np.errstate(divide="ignore"):
            target = np.log(flat)
        at0 = float(self._log_delta(np.zeros(1))[0])
        for i, t in enumerate(target):
            if at0 <= t and np.exp(at0) <= flat[i]:
                out[i] = 0.0
            elif t < self.log_inf:
                out[i] = np.inf
            else:
                # both forms of δ must pass: e^{log δ} rounds, and ``delta(ε)`` at the
                # answer has to be ≤ the target as computed, not only in logs
                def passes(x: np.ndarray, t: float = t, d: float = flat[i]) -> np.ndarray:
                    log_d = self._log_delta(x)
                    return (log_d <= t) & (np.exp(log_d) <= d)

                _, hi = bisect_monotone(passes, 0.0, top, rtol=0.0, atol=0.0)
                out[i] = float(hi)
        return out.reshape(d.shape)

    def _epsilon_range(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(ε, ε): exact, to the next float above (``_epsilon``)."""
        eps = self._epsilon(d)
        return eps, eps
