"""Exact trade-off functions of pairs of finite distributions.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, overload

import numpy as np

from fdp import _validate
from fdp._constants import UNIT_ROUNDOFF
from fdp._types import ArrayLike
from fdp.families._rounding import one_minus
from fdp.families.piecewise import PiecewiseLinear, vertex_delta
from fdp.law import AtomsLaw

# Losses closer than this, relative to the largest finite |L| of the pair, are one
# atom: sums of the same losses in a different order differ by rounding only (k terms:
# at most about k·2⁻⁵³ of that scale, so up to ~10⁴ terms). Merging is post-processing
# (the unsafe direction), so only rounding is merged.
MERGE_RTOL = 1e-12
# Largest product the exact composition forms before handing over to the engine.
MAX_ATOMS = 4_000_000
_U = UNIT_ROUNDOFF
_T = TypeVar("_T")


class FinitePair(PiecewiseLinear):
    """T(P, Q) for finite pmfs, exact (Neyman–Pearson); atoms ``log_ratio``, ``p``, ``q``.

    ``log_ratio``: losses L_i = log(q_i/p_i), sorted decreasing (±inf allowed); ``p, q``: P- and
    Q-masses of the atoms.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.FinitePair.from_atoms([1.0, -1.0], [0.25, 0.75], [0.75, 0.25])
    >>> print(f"{f(0.25):.4f}")
    0.2500
    """

    __slots__ = ("log_ratio", "mass_rtol", "p", "q")
    log_ratio: np.ndarray
    p: np.ndarray
    q: np.ndarray
    mass_rtol: float

    # δ(ε) = Σ_i q_i (1 − e^{ε − L_i})₊ + Q(L = +∞): a 0 is a real 0 (to the losses' rounding)
    _certified_delta = True

    def _rho(self) -> float:
        """ρ, the relative error of every vertex (derivation: docs/derivations/families.md)."""
        return 2.0 * (self.mass_rtol + (self.p.size + 2) * _U)

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        rho = self._rho()
        v = _interp_right(self.alphas, self.betas, np.minimum(a * (1.0 + rho + 2.0 * _U), 1.0))
        lo = np.nextafter(v * (1.0 - rho - 10.0 * _U), -np.inf)
        return np.clip(np.minimum(lo, one_minus(a)[0]), 0.0, 1.0)

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        rho = self._rho()
        v = _interp_right(self.alphas, self.betas, a / (1.0 + rho + 2.0 * _U))
        hi = np.nextafter(v * (1.0 + 2.0 * rho + 10.0 * _U), np.inf)
        return np.clip(np.minimum(hi, one_minus(a)[1]), 0.0, 1.0)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        """Certified upper δ(ε) = max_k (1 − β_k − e^ε α_k) over the vertices."""
        return self._delta_side(eps, +1)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return self._delta_side(eps, -1)

    def _delta_side(self, eps: np.ndarray, side: int) -> np.ndarray:
        e = np.asarray(eps, dtype=float)
        # ρ for the vertices, 4u for e^ε α_k (exp 2u, the product u) and the difference
        r = self._rho() + 4.0 * _U
        d = _vertex_max(self.alphas * (1.0 - side * r), self.gains * (1.0 + side * r), e)
        d = np.nextafter(d * (1.0 + side * 2.0 * _U), side * np.inf)
        d = np.clip(np.where(np.isneginf(e), 1.0, d), 0.0, 1.0)
        L, q = self.log_ratio, self.q
        if q[L == np.inf].sum() > 0.0:
            return d
        live = q > 0.0
        top = float(L[live].max()) if live.any() else -np.inf
        if side > 0 and np.isfinite(top):
            # δ = 0 is claimed only above the largest TRUE loss: the stored log-ratio is a
            # rounded log(q/p) (≤ 2 ulps of the ratio, 1 of the log) of masses known to a
            # relative ρ, which moves the loss by at most 2.5ρ
            top = float(np.nextafter(top + 2.5 * self._rho() + 4.0 * _U * max(1.0, abs(top)),
                                     np.inf))
        return np.where(e >= top, 0.0, d)

    def __init__(self, log_ratio: ArrayLike, p: ArrayLike, q: ArrayLike,
                 mass_rtol: float = 0.0) -> None:
        L = np.asarray(log_ratio, dtype=float)
        p = np.asarray(p, dtype=float)
        q = np.asarray(q, dtype=float)
        for arr in (L, p, q):
            arr.setflags(write=False)
        # Vertex k rejects the k atoms of largest loss: α_k = Σ_{i<k} p_i, and both
        # 1 − β_k = Σ_{i<k} q_i (head sums, accurate where β is near 1) and
        # β_k = Σ_{i≥k} q_i (tail sums, accurate where β is near 0) are kept.
        alphas = np.concatenate([[0.0], np.cumsum(p)])
        gains = np.concatenate([[0.0], np.cumsum(q)])
        tails = np.concatenate([np.cumsum(q[::-1])[::-1], [0.0]])
        betas = np.where(gains <= 0.5, 1.0 - gains, tails)
        # Of vertices with equal α (atoms with p = 0) keep the last: the lowest β.
        keep = np.concatenate([alphas[1:] > alphas[:-1], [True]])
        alphas, gains, betas = alphas[keep], gains[keep], betas[keep]
        # Masses sum to one up to rounding (checked by the constructors): pin the ends.
        # The pair stands for its normalised masses: their distance from the stored ones
        # joins the masses' error bound.
        total = max(abs(float(alphas[-1]) - 1.0), abs(float(gains[-1]) - 1.0))
        mass_rtol = float(mass_rtol) + 2.0 * total
        alphas[-1] = 1.0
        gains = np.minimum(gains, 1.0)
        betas = np.minimum(betas, 1.0)
        super().__init__(alphas, betas, gains)
        object.__setattr__(self, "log_ratio", L)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "mass_rtol", float(mass_rtol))

    @classmethod
    def from_atoms(cls, log_ratio: ArrayLike, p: ArrayLike, q: ArrayLike,
                   mass_rtol: float = 0.0) -> FinitePair:
        """Sort atoms by decreasing loss, merge equal losses, drop empty atoms.

        ``mass_rtol`` bounds the relative error of each given mass against the real pair
        it stands for (0: the given doubles are the pair); merged sums add theirs."""
        L = np.asarray(log_ratio, dtype=float).ravel()
        p = np.asarray(p, dtype=float).ravel()
        q = np.asarray(q, dtype=float).ravel()
        live = (p > 0) | (q > 0)
        L, p, q = L[live], p[live], q[live]
        order = np.argsort(-L, kind="stable")
        L, p, q = L[order], p[order], q[order]
        finite = np.isfinite(L)
        Lf = np.where(finite, L, 0.0)
        scale = float(np.max(np.abs(Lf), initial=0.0))
        close = (finite[1:] & finite[:-1]
                 & (np.abs(np.diff(Lf)) <= MERGE_RTOL * scale))
        same_inf = ~finite[1:] & (L[1:] == L[:-1])
        step = ~(close | same_inf)
        starts = np.concatenate([[0], np.flatnonzero(step) + 1]) if L.size else np.array([], int)
        p_m = np.add.reduceat(p, starts) if L.size else p
        q_m = np.add.reduceat(q, starts) if L.size else q
        # a merged atom's loss is its likelihood ratio; a lone atom keeps the loss it
        # came with (log q − log p of nearly equal masses would cancel)
        sizes = np.diff(np.append(starts, L.size)) if L.size else starts
        with np.errstate(divide="ignore"):
            L_m = np.where(np.isfinite(L[starts]) & (sizes > 1),
                           np.log(q_m) - np.log(p_m), L[starts])
        merged = float(np.max(sizes, initial=1)) - 1.0
        return cls(L_m, p_m, q_m, mass_rtol + merged * _U)

    def __repr__(self) -> str:
        return f"FinitePair({self.p.size} atoms)"

    def latex(self) -> str:
        return rf"T(P,Q)_{{{self.p.size}}}"

    def _pair(self) -> FinitePair:
        return self

    def law(self) -> AtomsLaw:
        """The finite law of the atoms (losses, P-masses, Q-masses)."""
        return AtomsLaw(self.log_ratio, self.p, self.q)

    def _inverse(self) -> FinitePair:
        """T(Q, P): swap the pmfs, negate the losses."""
        return FinitePair.from_atoms(-self.log_ratio, self.q, self.p, self.mass_rtol)

    @property
    def symmetric(self) -> bool:
        inv = self._inverse()
        if inv.p.size != self.p.size:
            return False
        return bool(np.allclose(inv.p, self.p, rtol=1e-12, atol=1e-15)
                    and np.allclose(inv.q, self.q, rtol=1e-12, atol=1e-15))


def _interp_right(alphas: np.ndarray, betas: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The chords through (α_k, β_k) at x ∈ [0, 1], each from its right end:
    β_{k+1} + (β_k − β_{k+1})(α_{k+1} − x)/(α_{k+1} − α_k), non-negative terms only."""
    x = np.asarray(x, dtype=float)
    n = alphas.size
    if n < 2:
        return np.full(x.shape, betas[0] if n else 0.0)
    j = np.clip(np.searchsorted(alphas, x, side="left"), 1, n - 1)
    a0, a1, b0, b1 = alphas[j - 1], alphas[j], betas[j - 1], betas[j]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.clip((a1 - x) / (a1 - a0), 0.0, 1.0)
        v = b1 + np.maximum(b0 - b1, 0.0) * t
    v = np.where(x <= alphas[0], betas[0], v)
    return np.where(np.isnan(v), b1, v)


def _vertex_max(alphas: np.ndarray, gains: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """max_k (gains_k − e^ε α_k): ``vertex_delta``'s vertex and its two neighbours (the
    slopes' rounding can move the argmax by one vertex)."""
    e = np.asarray(eps, dtype=float)
    d = vertex_delta(alphas, gains, e)
    y = np.exp(np.minimum(e, 709.0))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slopes = -np.diff(gains) / np.diff(alphas)
    if alphas.size < 2 or not np.all(slopes[1:] >= slopes[:-1]):
        return d                       # vertex_delta took the maximum over all vertices
    j = np.searchsorted(slopes, -y.ravel(), side="left").reshape(y.shape)
    for k in (j - 1, j + 1):
        k = np.clip(k, 0, alphas.size - 1)
        a_k = alphas[k]
        with np.errstate(invalid="ignore", over="ignore"):
            term = np.where(a_k == 0.0, 0.0, y * a_k)
        d = np.maximum(d, np.where(np.isposinf(e), d, gains[k] - term))
    return np.maximum(d, 0.0)


def from_pair(p_probs: ArrayLike, q_probs: ArrayLike) -> FinitePair:
    """Exact T(P, Q) of two pmfs on the same finite outcomes (Neyman–Pearson).

    Each pmf is non-negative and sums to 1 within 1e-9 (not renormalised); ``ValueError``
    otherwise or when the lengths differ.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.from_pair([0.5, 0.5], [0.2, 0.8])
    >>> print(f"{f(0.5):.4f}")
    0.2000
    """
    p = _validate.reals("p_probs", p_probs, low=0.0, high=1.0).ravel()
    q = _validate.reals("q_probs", q_probs, low=0.0, high=1.0).ravel()
    if p.shape != q.shape:
        raise ValueError("p_probs and q_probs must have the same length, "
                         f"got {p.size} and {q.size}")
    for name, v in (("p_probs", p), ("q_probs", q)):
        if abs(v.sum() - 1.0) > 1e-9:
            raise ValueError(f"{name} must sum to 1 (within 1e-9), got {v.sum()!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.log(q) - np.log(p)
    return FinitePair.from_atoms(L, p, q)


def product(a: FinitePair, b: FinitePair) -> FinitePair | None:
    """The pair (P × P', Q × Q'): T of it is T(P,Q) ⊗ T(P',Q') (DRS Def 3.1).

    None when it would have more than ``MAX_ATOMS`` atoms (checked before allocating):
    ``fdp.compose`` then uses the numeric engine."""
    if a.p.size * b.p.size > MAX_ATOMS:
        return None
    with np.errstate(invalid="ignore"):
        L = (a.log_ratio[:, None] + b.log_ratio[None, :]).ravel()
    p = (a.p[:, None] * b.p[None, :]).ravel()
    q = (a.q[:, None] * b.q[None, :]).ravel()
    # +inf + −inf has p = q = 0 and is dropped by from_atoms.
    L = np.where(np.isnan(L), 0.0, L)
    # each product mass: both factors' errors and one rounding
    return FinitePair.from_atoms(L, p, q, a.mass_rtol + b.mass_rtol + _U)


@overload
def binary_power(x: _T, n: int, combine: Callable[[_T, _T], _T]) -> _T: ...
@overload
def binary_power(x: _T, n: int, combine: Callable[[_T, _T], _T | None]) -> _T | None: ...
def binary_power(x: _T, n: int, combine: Callable[[_T, _T], _T | None]) -> _T | None:
    """x ⊕ … ⊕ x (n ≥ 1 times) by repeated squaring, for an associative ``combine``:
    about 2·log₂ n combinations instead of n − 1. A ``combine`` returning None (a
    result too large to form) makes the answer None."""
    result: _T | None = None
    while n:
        if n & 1:
            result = x if result is None else combine(result, x)
            if result is None:
                return None
        n >>= 1
        if n:
            square = combine(x, x)
            if square is None:
                return None
            x = square
    return result


def power(f: FinitePair, n: int) -> FinitePair | None:
    """n-fold product by repeated squaring, merging equal losses at every step (None
    when a product on the way would exceed ``MAX_ATOMS`` atoms)."""
    return binary_power(f, n, product)
