"""From a privacy profile back to a trade-off function (DRS Prop 2.12).

f(α) = sup_ε max{0, 1 − δ(ε) − e^ε α} over finitely many points: a trade-off function
below the true f, so a sampled (ε, δ)-curve converts back to a valid, slightly weaker
guarantee. Derivation: docs/derivations/privacy-profile.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray
from fdp.status import Status
from fdp.tradeoff import TradeOff

_U = 2.0 ** -53


def _log_gap(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """log(e^{hi} − e^{lo}) for hi ≥ lo (lo = −inf allowed): no overflow past e^709."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return hi + np.log1p(-np.exp(lo - hi))


def _dual_hull(sig: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower convex hull of the points (s_l = e^{σ_l}, d_l), abscissae given as logs; a
    point in doubt is dropped (docs/derivations/privacy-profile.md, "Rounding")."""
    order = np.lexsort((d, sig))
    sig, d = sig[order], d[order]
    keep = np.concatenate([[True], np.diff(sig) > 0])
    sig, d = sig[keep], d[keep]
    hs: list[float] = []
    hd: list[float] = []
    for sm, dm in zip(sig.tolist(), d.tolist()):
        while len(hs) >= 2:
            sj, dj, sk, dk = hs[-2], hd[-2], hs[-1], hd[-1]
            # test the middle point (sk, dk) against the chord from (sj, dj) to (sm, dm)
            num = sk + math.log1p(-math.exp(sj - sk)) if sj > -math.inf else sk
            den = sm + math.log1p(-math.exp(sj - sm)) if sj > -math.inf else sm
            r = math.exp(num - den)
            chord = dj + r * (dm - dj)
            scale = abs(sk) + abs(sm) + (abs(sj) if sj > -math.inf else 0.0) + 8.0
            err = 16.0 * _U * (scale * r * abs(dm - dj) + abs(dj) + abs(dm))
            if dk < chord - err:
                break
            hs.pop()
            hd.pop()
        hs.append(sm)
        hd.append(dm)
    return np.array(hs), np.array(hd)


@dataclass(frozen=True, eq=False)
class ProfileBound(TradeOff):
    """max over given points of the supporting lines 1 − δ_i − e^{ε_i} α (and, when
    ``symmetric``, e^{−ε_i}(1 − δ_i − α)), clipped below at 0: max{0, …} is part of
    f_{ε,δ}'s definition, not a repair. δ(ε) = min_S [H(S) + (S − e^ε)₊] with H the lower
    convex hull of the lines as dual points (LP duality), rounded up.
    Derivation: docs/derivations/privacy-profile.md.
    """

    eps: FloatArray
    deltas: FloatArray
    two_sided: bool = True
    #: exact for points given as numbers; for a profile given as a function, certified
    #: when the caller asserts its values are upper bounds, an approximation otherwise
    points_status: Status = Status.EXACT

    @property
    def symmetric(self) -> bool:
        return self.two_sided

    @property
    def status(self) -> Status:
        return self.points_status

    _certified_delta = True

    def _lines(self) -> tuple[FloatArray, FloatArray]:
        """The supporting lines as dual points (σ_l = log s_l, d_l = 1 − b_l), the zero
        line (−inf, 1) included; d of the reflected lines rounded up."""
        sig = [np.array([-np.inf]), self.eps]
        d = [np.ones(1), self.deltas]
        if self.two_sided:
            b = np.exp(-self.eps) * (1.0 - self.deltas) * (1.0 - 4.0 * _U)
            sig.append(-self.eps)
            d.append(np.nextafter(1.0 - b, 2.0))
        return np.concatenate(sig), np.minimum(np.concatenate(d), 1.0)

    @cached_property
    def _hull(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(σ, d) of the hull vertices from S₁ to S₀, and the kinks α between them."""
        sig, d = _dual_hull(*self._lines())
        gap = _log_gap(sig[1:], sig[:-1])                 # log(s_{i+1} − s_i)
        with np.errstate(divide="ignore"):
            drop = np.log(np.maximum(d[:-1] - d[1:], 0.0))  # log(d_i − d_{i+1})
        steep = drop > gap                                # slope below −1
        i1 = int(np.argmin(steep)) if not steep.all() else sig.size - 1
        i0 = int(np.argmin(d[i1:])) + i1
        sig, d = sig[i1:i0 + 1], d[i1:i0 + 1]
        with np.errstate(over="ignore"):
            kinks = np.exp(drop[i1:i0] - gap[i1:i0])      # decreasing in i
        return sig, d, kinks

    def _beta(self, alpha: FloatArray) -> FloatArray:
        a = np.asarray(alpha, dtype=float).ravel()
        sig, d, kinks = self._hull
        # vertex i is active for α between kinks[i] and kinks[i−1]
        idx = np.searchsorted(-kinks, -a, side="left")
        out = np.zeros(a.shape)
        for shift in (-1, 0, 1):
            j = np.clip(idx + shift, 0, sig.size - 1)
            with np.errstate(over="ignore", invalid="ignore"):
                line = np.where(a == 0, 1.0 - d[j], 1.0 - d[j] - np.exp(sig[j]) * a)
            out = np.maximum(out, np.where(np.isnan(line), 0.0, line))
        return out.reshape(np.shape(alpha))

    def _delta(self, eps: FloatArray) -> FloatArray:
        """δ(ε) read off the hull (class docstring), rounded up; O(log n) per ε."""
        e = np.asarray(eps, dtype=float)
        flat = e.ravel()
        sig, d, _ = self._hull
        out = np.full(flat.shape, d[-1])                 # ε ≥ σ at S₀ (and ε = +inf)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            before = flat <= sig[0]
            s1 = np.exp(sig[0])
            wall = (d[0] + s1) * (1.0 + 4.0 * _U) - np.exp(flat) * (1.0 - 4.0 * _U)
            out = np.where(before, wall, out)
            mid = (flat > sig[0]) & (flat < sig[-1])
            if mid.any():
                x = flat[mid]
                k = np.clip(np.searchsorted(sig, x, side="right"), 1, sig.size - 1)
                j = k - 1
                sj, sk = sig[j], sig[k]
                logr = _log_gap(x, sj) - _log_gap(sk, sj)
                scale = np.abs(x) + np.abs(sk) + np.where(np.isfinite(sj), np.abs(sj), 0.0) + 8.0
                fall = d[j] >= d[k]
                r = np.exp(logr - np.where(fall, 1.0, -1.0) * 16.0 * _U * scale)
                r = np.clip(np.where(np.isnan(r), 0.0, r), 0.0, 1.0)
                val = d[k] + (1.0 - r) * (d[j] - d[k])
                out[mid] = np.where(x == sj, d[j], val * (1.0 + 8.0 * _U))   # at a vertex: exact
        out = np.where(np.isneginf(flat), np.minimum(d[0] + s1, 1.0), out)
        return np.clip(out, 0.0, 1.0).reshape(e.shape)

    def __repr__(self) -> str:
        kind = "symmetric" if self.two_sided else "one-sided"
        how = {Status.EXACT: "", Status.CERTIFIED: ", delta(eps) asserted upper bounds",
               Status.APPROXIMATION: ", delta(eps) not asserted: approximation"}
        return f"from_privacy_profile({self.eps.size} points, {kind}{how.get(self.status, '')})"


def from_privacy_profile(eps: ArrayLike, delta: ArrayLike | Callable[[FloatArray], ArrayLike],
                         *, symmetric: bool = True,
                         certified: bool | None = None) -> ProfileBound:
    """sup over the given points of f_{ε_i,δ_i} (DRS Prop 2.12).

    symmetric=True: each (ε_i ≥ 0, δ_i) is an (ε, δ)-DP statement, contributing
    f_{ε_i,δ_i}. symmetric=False: ε_i ranges over all reals and each point gives
    only the line 1 − δ_i − e^{ε_i} α (a profile of one order of the pair).

    ``delta`` may be a function ε ↦ δ(ε) (a privacy profile in code, e.g. another
    accountant's ``get_delta``); it is evaluated at the ε_i. Whether its values are
    proven upper bounds fdp cannot know: the result is certified only when the caller
    asserts so (``certified=True``) and an approximation otherwise, which ``spend``,
    ``calibrate`` and the other consumers of guarantees refuse. (A callable is called
    once with the array, or point by point if that fails.) The result is the weakest
    trade-off function implied by all the points.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.from_privacy_profile([0.5, 1.0], [1e-3, 1e-5])
    >>> print(f"{f(0.1):.4f}")
    0.8341
    >>> g = fdp.from_privacy_profile([0.5, 1.0], fdp.Gaussian(0.5).delta, certified=True)
    >>> g.status
    <Status.CERTIFIED: 'certified'>
    """
    e = _validate.reals("eps", eps, low=0.0 if symmetric else -np.inf).ravel()
    status = Status.EXACT
    if callable(delta):
        if certified is not None:
            certified = _validate.flag("certified", certified)
        status = Status.CERTIFIED if certified else Status.APPROXIMATION
        delta = _call_profile(delta, e)
    elif certified is not None:
        raise ValueError("certified applies to a callable delta only; numbers given as "
                         "delta are taken as (eps, delta)-DP statements")
    d = _validate.reals("delta", delta, low=0.0, high=1.0).ravel()
    if e.shape != d.shape:
        raise ValueError(f"eps and delta must have the same length, got {e.size} and {d.size}")
    if e.size == 0:
        raise ValueError("from_privacy_profile needs at least one (eps, delta) point")
    return ProfileBound(e, d, symmetric, status)


def _call_profile(fn: Callable[[FloatArray], ArrayLike], e: FloatArray) -> FloatArray:
    """δ(ε_i) from a user's function: one call on the array, else one call per point."""
    try:
        out = np.asarray(fn(e.copy()), dtype=float)
        if out.shape == e.shape or (out.size == e.size):
            return out.reshape(e.shape)
    except (TypeError, ValueError):
        pass
    return np.array([float(np.asarray(fn(np.float64(x)), dtype=float)) for x in e])
