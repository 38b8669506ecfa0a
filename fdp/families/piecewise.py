"""Piecewise-linear trade-off functions given by their vertices.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike
from fdp.tradeoff import TradeOff

_TINY = float(np.finfo(float).tiny)


class PiecewiseLinear(TradeOff):
    """A convex piecewise-linear trade-off function through vertices (α_i, β_i).

    ``alphas, betas``: the vertices, α strictly increasing from 0 to 1; ``gains``: 1 − β_i
    (default 1 − betas), kept so that finite pairs keep their tail masses to full relative
    precision. f(0) may be below 1 (a vertical drop at α = 0).

    Examples
    --------
    >>> import fdp
    >>> f = fdp.PiecewiseLinear([0.0, 0.2, 1.0], [1.0, 0.3, 0.0])
    >>> print(f"{f(0.1):.4f}")
    0.6500
    """

    __slots__ = ("alphas", "betas", "gains")
    alphas: np.ndarray
    betas: np.ndarray
    gains: np.ndarray

    def __init__(self, alphas: ArrayLike, betas: ArrayLike,
                 gains: ArrayLike | None = None) -> None:
        a = np.ascontiguousarray(alphas, dtype=float)
        b = np.ascontiguousarray(betas, dtype=float)
        g = 1.0 - b if gains is None else np.ascontiguousarray(gains, dtype=float)
        for arr in (a, b, g):
            arr.setflags(write=False)
        object.__setattr__(self, "alphas", a)
        object.__setattr__(self, "betas", b)
        object.__setattr__(self, "gains", g)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and np.array_equal(self.alphas, other.alphas)
                and np.array_equal(self.betas, other.betas))

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.alphas.tobytes(), self.betas.tobytes()))

    def __repr__(self) -> str:
        return f"PiecewiseLinear({len(self.alphas)} vertices)"

    def latex(self) -> str:
        return rf"f_{{\mathrm{{PL}},{len(self.alphas)}}}"

    # --- evaluation -----------------------------------------------------
    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        # f ≤ 1 − α holds exactly; interpolation round-off must not cross it
        return np.minimum(np.interp(alpha, self.alphas, self.betas), 1.0 - alpha)

    # δ(ε) = max_i (1 − β_i − e^ε α_i) is a finite maximum over the vertices, and it is
    # 0 exactly from ε₀ = max_i log((1 − β_i)/α_i) on (``_zero_from``): a computed δ is
    # believed to be 0 only there, so the profile is certified.
    _certified_delta = True

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=float)
        d = vertex_delta(self.alphas, self.gains, e)
        # below ε₀ the truth is positive: a 0 there is rounding, not a proof; ε₀ = inf
        # (f(0) < 1) is never reached, not even at ε = inf, where δ = 1 − f(0)
        z = self._zero_from()
        zero = (e >= z) if np.isfinite(z) else np.full(e.shape, z < 0)
        return np.where(zero, 0.0, np.maximum(d, _TINY))

    def _zero_from(self) -> float:
        """ε₀ = max over vertices with α_i > 0 of log(gain_i/α_i), rounded up (inf if
        f(0) < 1): the smallest ε with δ(ε) = 0, i.e. gain_i ≤ e^ε α_i at every vertex."""
        a, g = self.alphas, self.gains
        if np.any((a <= 0.0) & (g > 0.0)):
            return np.inf
        live = (a > 0.0) & (g > 0.0)
        if not live.any():
            return -np.inf
        with np.errstate(divide="ignore"):
            top = float(np.max(np.log(g[live]) - np.log(a[live])))
        # two logs and a subtraction, each within half an ulp of its operands
        top += 4.0 * np.finfo(float).eps * max(1.0, abs(top))
        return float(np.nextafter(top, np.inf))

    def _inverse(self) -> TradeOff:
        return _from_vertices(self.betas[::-1], self.alphas[::-1])

    def _exact_vertices(self) -> bool:
        return True                     # engine hook: summaries by vertex formulas

    @property
    def symmetric(self) -> bool:
        inv_b = np.interp(self.alphas, self.betas[::-1], self.alphas[::-1])
        return bool(np.allclose(inv_b, self.betas, rtol=0, atol=1e-14))


def vertex_delta(alphas: np.ndarray, gains: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """max_i (gains_i − e^ε α_i) over the vertices of a convex piecewise-linear f.

    Derivation: docs/derivations/families.md.
    """
    e = np.asarray(eps, dtype=float)
    y = np.exp(np.minimum(e, 709.0))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slopes = -np.diff(gains) / np.diff(alphas)
    if np.all(slopes[1:] >= slopes[:-1]):
        j = np.searchsorted(slopes, -y.ravel(), side="left").reshape(y.shape)
        a_j = alphas[j]
        with np.errstate(invalid="ignore"):
            term = np.where(a_j == 0.0, 0.0, y * a_j)
        out = gains[j] - term
    else:
        flat = y.ravel()
        out = np.empty(flat.shape)
        chunk = max(1, 2_000_000 // alphas.size)
        for s in range(0, flat.size, chunk):
            with np.errstate(invalid="ignore", over="ignore"):
                terms = np.where(alphas[None, :] == 0.0, 0.0,
                                 flat[s:s + chunk, None] * alphas[None, :])
            out[s:s + chunk] = np.max(gains[None, :] - terms, axis=1)
        out = out.reshape(y.shape)
    out = np.where(np.isposinf(e), gains[0], out)
    return np.maximum(out, 0.0)


def lower_convex_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower convex hull of points (Andrew's monotone chain), sorted by x.

    Points with equal x keep the lowest y. Collinear middle points are dropped.
    """
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    keep = np.concatenate([[True], np.diff(x) > 0])
    x, y = x[keep], y[keep]
    hx: list[float] = []
    hy: list[float] = []
    for px, py in zip(x.tolist(), y.tolist()):
        while len(hx) >= 2 and (
            (hx[-1] - hx[-2]) * (py - hy[-2]) - (hy[-1] - hy[-2]) * (px - hx[-2]) <= 0.0
        ):
            hx.pop()
            hy.pop()
        hx.append(px)
        hy.append(py)
    return np.array(hx), np.array(hy)


#: How far above the line β = 1 − α an observed point may lie and still be taken as
#: rounding (``from_points``): a few hundred ulps of 1.
POINTS_TOL = 1e-13


def from_points(alpha: ArrayLike, beta: ArrayLike) -> PiecewiseLinear:
    """The lower convex hull of {(α_i, β_i)} ∪ {(0, 1), (1, 0)}, as in the R package ``fdp``.

    Coordinates lie in [0, 1] with β ≤ 1 − α (a test's errors); a point above that line by
    at most ``POINTS_TOL`` (rounding, e.g. β = 1 − TPR) is accepted and unused by the hull.
    ``ValueError`` otherwise, or when the lengths differ.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.from_points([0.1, 0.3], [0.5, 0.1])
    >>> print(f"{f(0.1):.4f} {f(0.2):.4f}")
    0.5000 0.3000
    """
    a = _validate.reals("alpha", alpha, low=0.0, high=1.0).ravel()
    b = _validate.reals("beta", beta, low=0.0, high=1.0).ravel()
    if a.shape != b.shape:
        raise ValueError(f"alpha and beta must have the same length, got {a.size} and {b.size}")
    over = b > 1.0 - a + POINTS_TOL
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise ValueError(
            f"beta must lie in [0, 1 - alpha] (a trade-off point has beta <= 1 - alpha, "
            f"up to a rounding tolerance of {POINTS_TOL:g}); got beta={b[i]:g} at "
            f"alpha={a[i]:g} (point {i}), above 1 - alpha = {1.0 - a[i]:g}")
    return _from_vertices(a, b)


def _from_vertices(a: np.ndarray, b: np.ndarray) -> PiecewiseLinear:
    hx, hy = lower_convex_hull(np.concatenate([[0.0, 1.0], a]), np.concatenate([[1.0, 0.0], b]))
    return PiecewiseLinear(hx, hy)
