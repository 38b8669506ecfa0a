"""The k-fold composition f_{ε,δ}^{⊗k}, exact at any k, evaluated in log space.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from fdp import _validate
from fdp._constants import EXP_SAFE
from fdp.families.binomial_masses import _U, MAX_K, _Binomial, _down, _up, log_binom_pmf
from fdp.families.eps_delta import EpsDelta
from fdp.families.finite_pair import MAX_ATOMS, FinitePair
from fdp.tradeoff import TradeOff

# Most atoms of the k-fold handed out as a FinitePair by ``EpsDeltaPower._pair``.
PAIR_MAX_ATOMS = 100_000


def search(passes: Callable[[int], bool], lo: int, hi: int, guess: int) -> int:
    """Smallest m in [lo, hi] with ``passes(m)`` (monotone: False then True; ``passes(hi)``
    is taken as True), by galloping out from ``guess`` and then bisecting: O(log of the
    guess's error) calls."""
    guess = min(max(guess, lo), hi)
    if passes(guess):
        right, step = guess, 1
        left = guess - step
        while left >= lo and passes(left):
            right, step = left, 2 * step
            left = right - step
        left = max(left, lo - 1)
    else:
        left, step = guess, 1
        right = guess + step
        while right < hi and not passes(right):
            left, step = right, 2 * step
            right = left + step
        right = min(right, hi)
    while right - left > 1:
        mid = (left + right) // 2
        if passes(mid):
            right = mid
        else:
            left = mid
    return right


def _exact_product(k: int, eps: float) -> tuple[float, float]:
    """(lower, upper) doubles around the real number k·ε."""
    v = k * eps
    if not np.isfinite(v):
        return (float(np.finfo(float).max), np.inf) if v > 0 else (v, v)
    exact = Fraction(k) * Fraction(eps)
    fv = Fraction(v)
    if fv == exact:
        return v, v
    return (v, _up(v)) if fv < exact else (_down(v), v)


# -- The trade-off function
def eps_delta_k_fold(f: EpsDelta, k: int) -> TradeOff:
    """f_{ε,δ}^{⊗k} exactly for 1 ≤ k ≤ 2^53 (Kairouz, Oh & Viswanath 2015, Thm 3.3; DRS
    2022, §3): ``f`` for k = 1, f_{0, 1 − (1 − δ)^k} for ε = 0 or δ = 1, else an
    ``EpsDeltaPower``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.families.eps_delta_power import eps_delta_k_fold
    >>> f = eps_delta_k_fold(fdp.EpsDelta(0.1), 10 ** 6)
    >>> print(f"{f.pure_epsilon():g} {f.epsilon(1e-5):.4f}")
    100000 5420.7838
    """
    k = _validate.positive_int("k", k)
    if k > MAX_K:
        raise ValueError(f"k must be an integer in [1, 2^53], got {k}: the counts of the "
                         "k-fold are handled as exact doubles")
    eps, delta = f.eps, float(f.delta)
    if k == 1:
        return f
    d_k = _delta_k(delta, k)[1]
    if eps == 0.0 or delta == 1.0 or np.isinf(eps):
        return EpsDelta(eps if delta < 1.0 else 0.0, d_k)
    return EpsDeltaPower(eps, delta, k)


def _delta_k(delta: float, k: int) -> tuple[float, float]:
    """(lower, upper) of δ_k = 1 − (1 − δ)^k = −expm1(k log1p(−δ))."""
    if delta == 0.0:
        return 0.0, 0.0
    if delta == 1.0:
        return 1.0, 1.0
    y = k * float(np.log1p(-delta))
    v = float(-np.expm1(y))
    rel = 8.0 * _U * (1.0 + abs(y))
    return max(0.0, v * (1.0 - rel)), min(1.0, v * (1.0 + rel))


def eps_delta_pair(eps: float, delta: float, k: int) -> FinitePair | None:
    """f_{ε,δ}^{⊗k} as an exact ``FinitePair`` (k + 3 atoms), or None past ``MAX_ATOMS``
    (composition then hands the factor to the numeric engine).

    Derivation: docs/derivations/families.md.
    """
    if k + 3 > MAX_ATOMS:
        return None
    j = np.arange(k + 1)
    log_q = -np.logaddexp(0.0, eps)             # q = 1/(1 + e^ε), 1 − q = e^ε/(1 + e^ε)
    log_1mq = -np.logaddexp(0.0, -eps)
    p_mass = np.exp(log_binom_pmf(j, k, log_q, log_1mq))
    q_mass = p_mass[::-1].copy()                # Bin(j; k, 1 − q) = Bin(k − j; k, q)
    L = (2.0 * j - k) * eps
    d_k = -np.expm1(k * np.log1p(-delta)) if delta < 1.0 else 1.0
    keep = 1.0 - d_k
    return FinitePair.from_atoms(
        np.concatenate([[np.inf], L, [-np.inf]]),
        np.concatenate([[0.0], keep * p_mass, [d_k]]),
        np.concatenate([[d_k], keep * q_mass, [0.0]]))


class EpsDeltaPower(TradeOff):
    """f_{ε,δ}^{⊗k}, exact, read out in log space at any k ≤ 2^53 (docs/derivations/families.md).

    ``eps``: ε in (0, ∞); ``delta``: δ in [0, 1); ``k``: number of compositions, 2 ≤ k ≤ 2^53.

    δ(ε'), ε(δ') and β(α) sum only the O(√k) binomial terms that matter, with a geometric
    bound on the rest: brackets about 1e-12 relative wide. The pure ε is kε exactly (δ = 0).

    Examples
    --------
    >>> import fdp
    >>> f = fdp.EpsDelta(0.1) ** 200000
    >>> print(f"{f.epsilon(1e-5):.4f} {f.pure_epsilon():g}")
    1188.6778 20000
    """

    __slots__ = ("_bin", "d", "eps", "k")
    eps: float
    d: float
    k: int
    _bin: _Binomial

    def __init__(self, eps: float, delta: float, k: int):
        eps = _validate.real("eps", eps, low=0.0, low_open=True)
        delta = _validate.real("delta", delta, low=0.0, high=1.0, high_open=True)
        k = _validate.positive_int("k", k, low=2)
        if k > MAX_K:
            raise ValueError(f"k must be an integer in [2, 2^53], got {k}")
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "d", delta)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "_bin", _Binomial(eps, k))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("EpsDeltaPower is immutable")

    def __eq__(self, other: object) -> bool:
        return (type(other) is EpsDeltaPower and self.eps == other.eps and self.d == other.d
                and self.k == other.k)

    def __hash__(self) -> int:
        return hash(("EpsDeltaPower", self.eps, self.d, self.k))

    def __reduce__(self) -> tuple[Any, ...]:
        return EpsDeltaPower, (self.eps, self.d, self.k)

    def __repr__(self) -> str:
        return f"EpsDelta(eps={self.eps!r}, delta={self.d!r}) ** {self.k}"

    def latex(self) -> str:
        return rf"f_{{{self.eps:g},{self.d:g}}}^{{\otimes {self.k}}}"

    @property
    def symmetric(self) -> bool:
        return True

    def _pair(self) -> FinitePair | None:
        """The exact pair while it is small and its losses stay within ±``EXP_SAFE``
        (a ``FinitePair`` reads δ through e^L), else None: the generic read-outs then
        work from this object's certified profile."""
        if self.k + 1 > PAIR_MAX_ATOMS or self.k * self.eps > EXP_SAFE:
            return None
        return eps_delta_pair(self.eps, self.d, self.k)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """kε (as the doubles around the real product) when δ = 0, else ∞ (f(0) < 1)."""
        if self.d > 0.0:
            return np.inf, np.inf
        return _exact_product(self.k, self.eps)

    # -- δ(ε') -----------------------------------------------------------------
    def _log_delta_bracket(self, x: float) -> tuple[float, float]:
        """(lower, upper) log δ(x), δ = δ_k + (1 − δ_k) D (increasing in δ_k and D)."""
        d_lo, d_hi = _delta_k(self.d, self.k)
        D_lo, D_hi = self._bin.log_profile(float(x))
        out = []
        for dk, D, side in ((d_lo, D_lo, -1.0), (d_hi, D_hi, 1.0)):
            with np.errstate(divide="ignore"):
                v = float(np.logaddexp(np.log(dk), np.log1p(-dk) + D))
            v = v + side * 4.0 * _U * (abs(v) + 1.0) if np.isfinite(v) else v
            out.append(min(v, 0.0))
        return out[0], out[1]

    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        return _per_point(self._log_delta_bracket, eps, 1)

    def _log_delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return _per_point(self._log_delta_bracket, eps, 0)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return np.exp(self._log_delta(eps))

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return np.exp(self._log_delta_lower(eps))

    _certified_delta = True

    # -- ε(δ') -----------------------------------------------------------------
    def _epsilon_bracket(self, target: float) -> tuple[float, float]:
        """(lower, upper) of the smallest ε' ≥ 0 with δ(ε') ≤ target."""
        if target >= 1.0:
            return 0.0, 0.0
        d_lo, d_hi = _delta_k(self.d, self.k)
        c_lo, c_hi = _down(1.0 - d_hi), _up(1.0 - d_lo)
        # D ≤ t_hi is necessary (lower side of ε), D ≤ t_lo sufficient (upper side)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_lo = (target - d_hi) / c_hi * (1.0 - 4.0 * _U) if target > d_hi else (
                0.0 if target >= d_hi else -1.0)
            t_hi = (target - d_lo) / c_lo * (1.0 + 4.0 * _U) if target > d_lo else (
                0.0 if target >= d_lo else -1.0)
        return self._solve(t_hi, side=0), self._solve(t_lo, side=1)

    def _solve(self, t: float, side: int) -> float:
        """Smallest ε' ≥ 0 with D_side(ε') ≤ t (side 1: the upper bound of D, the answer
        rounded up; side 0: the lower bound of D, the answer rounded down)."""
        B, k, e = self._bin, self.k, self.eps
        kappa_lo, kappa_hi = _exact_product(k, e)
        if t < 0.0:
            return np.inf
        log_t = np.log(t) if t > 0.0 else -np.inf
        if B.log_profile(0.0)[side] <= log_t:
            return 0.0
        if t == 0.0:                     # D(ε') = 0 exactly iff ε' ≥ kε
            return kappa_hi if side else kappa_lo
        def at(m: int) -> tuple[float, float]:  # log D at the lattice point l_m
            return B.log_profile(float((2.0 * m - k) * e))

        m0 = (k + 1) // 2                # smallest m with l_m ≥ 0
        if at(k)[side] > log_t:          # only the rounding slack at l_k is left
            return kappa_hi if side else kappa_lo
        m = search(lambda m: at(m)[side] <= log_t, m0, k, self._guess(t, m0))
        # on [l_{m−1}, l_m]: D(ε') = A_m − e^{ε'} B_m
        a_lo, a_hi = B.upper_tail("Q", m)
        b_lo, b_hi = B.upper_tail("P", m)
        l_prev, l_here = (2.0 * (m - 1) - k) * e, (2.0 * m - k) * e
        with np.errstate(divide="ignore", invalid="ignore"):
            if side:
                diff = np.exp(a_hi) - t
                x = float(np.log(diff) - b_lo) if diff > 0.0 else l_prev
                x = _up(x + 8.0 * _U * (abs(x) + abs(b_lo) + 1.0))
            else:
                diff = np.exp(a_lo) - t
                x = float(np.log(diff) - b_hi) if diff > 0.0 else l_prev
                x = _down(x - 8.0 * _U * (abs(x) + abs(b_hi) + 1.0))
        # the closed form holds on [l_{m−1}, l_m] (where the term j = m − 1 vanishes):
        # at l_{m−1} it is the exact D, and l_m was checked; both ends are answers
        return max(min(max(x, l_prev), l_here), 0.0)

    def _guess(self, t: float, m0: int) -> int:
        """Approximate smallest m with D(l_m) ≤ t: D(l_m) ≈ A_{m+1}(1 − g), g the mean of
        e^{−2ε(j − m)} over j > m under a locally geometric tail (a guess only)."""
        B, k, e = self._bin, self.k, self.eps
        r_e = np.exp(-2.0 * e)

        def approx(m: int) -> float:
            a = B.approx_upper_tail("Q", m + 1)
            if m + 1 > k:
                return 0.0
            r = (k - m - 1.0) / (m + 2.0) * np.exp(e)   # Q_{m+2}/Q_{m+1}
            g = (1.0 - r) * r_e / (1.0 - r * r_e) if r < 1.0 else r_e
            return a * (1.0 - g)

        lo, hi = m0 - 1, k
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if approx(mid) <= t:
                hi = mid
            else:
                lo = mid
        return hi

    def _epsilon_range(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) ε at δ per point (``_epsilon_bracket``): about 1e-12 relative
        wide around the exact ε; the upper end is inf when δ < 1 − (1 − δ₀)^k."""
        pairs = np.array([self._epsilon_bracket(float(x)) for x in d.ravel()]).reshape(-1, 2)
        return pairs[:, 0].reshape(d.shape), pairs[:, 1].reshape(d.shape)

    # -- β(α) ------------------------------------------------------------------
    def _beta_bracket(self, alpha: float) -> tuple[float, float]:
        """(lower, upper) β at α on the segment of the Neyman–Pearson vertex m.

        Derivation: docs/derivations/families.md.
        """
        B, k, e = self._bin, self.k, self.eps
        d_lo, d_hi = _delta_k(self.d, self.k)
        c_lo, c_hi = _down(1.0 - d_hi), _up(1.0 - d_lo)
        if alpha == 0.0:
            return c_lo, c_hi
        if alpha >= c_hi:
            return 0.0, 0.0
        log_a = np.log(alpha)

        def past(m: int) -> bool:  # α ≥ α_m = c·U_m, certainly
            return log_a >= np.log(c_hi) + B.upper_tail("P", m)[1] + 4.0 * _U * (abs(log_a) + 1.0)

        lo, hi = 0, k + 1                # a guess from the incomplete beta function
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if alpha >= c_lo * B.approx_upper_tail("P", mid):
                hi = mid
            else:
                lo = mid
        m = search(past, 1, k + 1, hi) - 1      # α ≥ α_{m+1}, and α < α_m up to rounding
        grow, shrink = 1.0 + 8.0 * _U, 1.0 - 8.0 * _U
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            lq_lo, lq_hi = B.lower_tail("Q", m)
            top_lo, top_hi = c_lo * np.exp(lq_lo) * shrink, c_hi * np.exp(lq_hi) * grow
            # α − α_{m+1}: (lower, upper)
            u_lo, u_hi = B.upper_tail("P", m + 1)
            g_lo = alpha - c_hi * np.exp(u_hi) * grow
            g_hi = alpha - c_lo * np.exp(u_lo) * shrink
            if alpha >= 0.5:
                r_lo, r_hi = B.lower_tail("P", m)
                g_lo = max(g_lo, (alpha - 1.0) + (d_lo + c_lo * np.exp(r_lo)) * shrink)
                g_hi = min(g_hi, (alpha - 1.0) + (d_hi + c_hi * np.exp(r_hi)) * grow)
            # the segment's own width c·P_m caps the step of the upper side
            pm, pm_slack = B.log_pmf(np.array([float(m)]), "P")
            g_lo = min(g_lo, c_lo * np.exp(pm[0] - pm_slack[0]) * shrink)
            l_m = (2.0 * m - k) * e
            slack = 4.0 * _U * (abs(l_m) + 1.0)

            def times(g: float, side: int) -> float:  # e^{l_m}·g rounded to a side (g > 0)
                x = l_m + np.log(g)
                x = x + side * (slack + 4.0 * _U * abs(x))
                return np.exp(x) * (grow if side > 0 else shrink)

            drop_lo = times(g_lo, -1) if g_lo > 0.0 else 0.0
            drop_hi = times(g_hi, 1) if g_hi > 0.0 else 0.0
            # the same line from the other end: β = c·L_{m−1} + e^{l_m}(α_m − α), which
            # does not cancel where β ≪ c·L_m (the last segments, α near 1)
            b_lo, b_hi = B.lower_tail("Q", m - 1)
            base_lo, base_hi = c_lo * np.exp(b_lo) * shrink, c_hi * np.exp(b_hi) * grow
            w_lo, w_hi = B.upper_tail("P", m)
            h_lo = c_lo * np.exp(w_lo) * shrink - alpha            # α_m − α: (lower, upper)
            h_hi = c_hi * np.exp(w_hi) * grow - alpha
            if alpha >= 0.5:
                r_lo, r_hi = B.lower_tail("P", m - 1)
                h_lo = max(h_lo, (1.0 - alpha) - (d_hi + c_hi * np.exp(r_hi)) * grow)
                h_hi = min(h_hi, (1.0 - alpha) - (d_lo + c_lo * np.exp(r_lo)) * shrink)
            rise_hi = times(h_hi, 1) if h_hi > 0.0 else 0.0
            if h_lo >= 0.0:
                right_lo = base_lo + (times(h_lo, -1) if h_lo > 0.0 else 0.0)
            else:
                right_lo = base_lo - times(-h_lo, 1)
        hi_v = min(float(top_hi - drop_lo) * grow, float(top_hi),
                   float(base_hi + rise_hi) * grow, 1.0 - alpha)
        lo_v = max(float(top_lo - drop_hi), float(right_lo))
        lo_v = max(lo_v * shrink if lo_v > 0.0 else lo_v, 0.0)
        hi_v = max(hi_v, 0.0)
        return min(lo_v, hi_v), hi_v

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        return _per_point(self._beta_bracket, alpha, 0)

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        return _per_point(self._beta_bracket, alpha, 1)


def _per_point(bracket: Callable[[float], tuple[float, float]], x: np.ndarray,
               side: int) -> np.ndarray:
    """One side of a scalar ``bracket`` at every point of x, in x's shape."""
    a = np.asarray(x, dtype=float)
    return np.array([bracket(float(v))[side] for v in a.ravel()]).reshape(a.shape)
