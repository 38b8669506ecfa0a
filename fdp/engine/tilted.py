"""Small δ by exponential tilting: certified ε(δ) far below the FFT round-off.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fdp._constants import LOSS_WINDOW, TAU_TILT, TILT_CROP, TILT_THETA_STEPS
from fdp._numerics import bisect_monotone, epsilon_for_delta
from fdp._types import ArrayLike, FloatArray
from fdp.engine.convolution import _tilted_moments, convolve_tree, power
from fdp.engine.lattice import Lattice, suffix_error, suffix_sums
from fdp.engine.pipeline import Part
from fdp.progress import Meter

# one side of discretised groups: (lattice, count n) per group
Factors = Sequence[tuple[Lattice, int]]

_CROP = TILT_CROP    # tilted tails below this (per side) are cut into the slack
_SCAN = 2 ** 16   # points scanned for the lower ε


def _finite(lat: Lattice) -> tuple[np.ndarray, np.ndarray]:
    live = lat.q > 0
    return lat.losses[live], lat.q[live]


def log_mgf_total(parts: Sequence[tuple[Lattice | tuple[np.ndarray, np.ndarray], int]],
                  theta: float) -> tuple[float, float, float]:
    """(Λ, Λ', Λ'') of the composed finite loss measure, Λ(θ) = Σ n log Σ q e^{θ l}.

    ``parts``: (lattice, n) or, pre-extracted, ((losses, masses), n) of the live atoms.
    """
    tot = [0.0, 0.0, 0.0]
    for lat, n in parts:
        L, q = _finite(lat) if isinstance(lat, Lattice) else lat
        lam, d1, d2 = _tilted_moments(L, q, theta)
        tot[0] += n * lam
        tot[1] += n * d1
        tot[2] += n * d2
    return tot[0], tot[1], tot[2]


def theta_cap(parts: Factors) -> float:
    """Largest tilt used: 30 grid steps per unit of e-folding (θΔ = 30).
    Derivation: docs/derivations/engine.md."""
    return TILT_THETA_STEPS / parts[0][0].step


def saddle_theta(parts: Factors, log_delta: float) -> float:
    """θ > 0 with Λ(θ) − θΛ'(θ) = log δ (a decreasing function of θ); bisection + Newton.
    Derivation: docs/derivations/engine.md."""
    cap = theta_cap(parts)
    live = [(_finite(lat), n) for lat, n in parts]       # extracted once
    lo, hi = 0.0, min(1.0, cap)
    while True:                         # bracket: g(hi) ≤ log δ, or hi at the cap
        lam, d1, _ = log_mgf_total(live, hi)
        if lam - hi * d1 <= log_delta:
            break
        if hi >= cap:
            return cap
        lo, hi = hi, min(2.0 * hi, cap)
    t = 0.5 * (lo + hi)
    for _ in range(40):
        lam, d1, d2 = log_mgf_total(live, t)
        g = lam - t * d1 - log_delta
        if abs(g) <= 1e-3:
            break
        if g > 0:
            lo = t
        else:
            hi = t
        step = g / max(t * d2, 1e-300)          # g' = −θ Λ''
        nxt = t + step
        t = nxt if lo < nxt < hi else 0.5 * (lo + hi)
    return t


def _tilt(lat: Lattice, theta: float) -> tuple[Lattice, float, float, float, float]:
    """(tilted lattice with mass 1 and no +inf atom, c, finite mass F, +inf atom, lost).
    Derivation: docs/derivations/engine.md."""
    live = lat.q > 0
    if not live.any():
        raise ValueError("a factor has no finite privacy-loss mass; tilting needs some")
    with np.errstate(divide="ignore"):
        logw = np.where(live, np.log(np.where(live, lat.q, 1.0)) + theta * lat.losses, -np.inf)
    top = float(np.max(logw))
    with np.errstate(under="ignore"):
        w = np.exp(logw - top)          # largest weight 1: nothing overflows
    s = float(w.sum())                  # in [1, size]
    c = top + math.log(s)
    w /= s
    # an underflowed weight was below 2^-1074 before the division by s ≥ 1
    lost = float(np.count_nonzero((w == 0) & live)) * 5e-324
    out = Lattice(lat.step, lat.k0, w, 0.0, 0.0, lat.side)
    return out, c, lat.finite_mass, lat.q_inf, lost


def _cut(lat: Lattice) -> Lattice:
    """Remove tilted tails of mass ≤ _CROP each, counting them in the slack."""
    q = lat.q
    if q.size < 64:
        return lat
    c = np.cumsum(q)
    lo = int(np.searchsorted(c, _CROP, side="right"))
    r = np.cumsum(q[::-1])
    hi = q.size - int(np.searchsorted(r, _CROP, side="right"))
    if lo >= hi - 1 or (lo == 0 and hi == q.size):
        return lat
    removed = (float(c[lo - 1]) if lo > 0 else 0.0) + (float(r[q.size - hi - 1])
                                                       if hi < q.size else 0.0)
    return Lattice(lat.step, lat.k0 + lo, q[lo:hi].copy(), 0.0, lat.slack + removed, lat.side)


class TiltedProfile:
    """δ(ε) of a composition ⊗ lat_i^{n_i}, read through a tilted computation."""

    def __init__(self, parts: Factors, theta: float) -> None:
        self.theta = theta
        pieces: list[Lattice] = []
        C, log_f, log1p_inf = 0.0, 0.0, 0.0
        for lat, n in parts:
            t, c, F, q_inf, lost = _tilt(lat, theta)
            C += n * c
            log_f += n * math.log(F)
            log1p_inf += n * math.log1p(q_inf / F)
            p = power(t, n, TAU_TILT)
            # the pessimistic power parks the mass it saw past its window at +inf and
            # also counts it in the slack; here only the slack is used
            # underflowed tilted weights: ℓ1 change ≤ lost per factor, n factors
            pieces.append(_cut(Lattice(p.step, p.k0, p.q, 0.0, p.slack + n * lost, p.side)))
        self.lat = convolve_tree(pieces, _cut)
        self.C = C
        # +inf atoms of the composition: |Q|^n − F^n, without cancellation
        self.q_inf = math.exp(log_f) * math.expm1(log1p_inf)
        lat = self.lat
        self._A = suffix_sums(lat.q, math.exp(-theta * lat.step))
        self._R = suffix_sums(lat.q, math.exp(-(theta + 1.0) * lat.step))
        # ℓ1 error of the tilted measure plus the read-back round-off (relative to 1)
        self.error = lat.slack + 3.0 * suffix_error(lat.q.size)

    def _parts(self, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
        lat = self.lat
        e = np.asarray(eps, dtype=float)
        n = lat.q.size
        j = np.clip(np.floor(e / lat.step) - lat.k0 + 1, 0, n).astype(np.int64)
        inside = j < n
        jj = np.minimum(j, n - 1)
        lj = (lat.k0 + jj) * lat.step
        inner = self._A[jj] - np.exp(np.minimum(e - lj, 0.0)) * self._R[jj]
        with np.errstate(divide="ignore", over="ignore", under="ignore"):
            log_val = self.C - self.theta * lj + np.log(np.maximum(inner, 0.0))
            val = np.where(inside & (inner > 0), np.exp(log_val), 0.0)
            slack = np.exp(self.C - self.theta * e) * self.error
        return val, slack

    def upper(self, eps: ArrayLike) -> FloatArray:
        val, slack = self._parts(eps)
        return val + slack + self.q_inf

    def lower(self, eps: ArrayLike) -> FloatArray:
        val, slack = self._parts(eps)
        with np.errstate(invalid="ignore"):
            d = val - slack
        # where both overflowed (inf − inf) nothing is known: 0 is the safe lower side
        return np.where(np.isnan(d), 0.0, np.maximum(d, 0.0)) + self.q_inf


def saddle_thetas(directions: Sequence[list[Part]], delta: float) -> list[float]:
    """One saddle-point θ per direction (parts (lat_pess, lat_opt, n)), from the
    pessimistic lattices; both sides of a direction are tilted by the same θ."""
    return [saddle_theta([(p[0], p[2]) for p in parts], math.log(delta))
            for parts in directions]


def profiles(directions: Sequence[list[Part]], delta: float, side: int,
             thetas: list[float] | None = None,
             meter: Meter | None = None) -> list[TiltedProfile]:
    """One TiltedProfile per direction (parts (lat_pess, lat_opt, n)) for the target δ."""
    if thetas is None:
        thetas = saddle_thetas(directions, delta)
    out = []
    for parts, theta in zip(directions, thetas):
        out.append(TiltedProfile([(p[0] if side == 0 else p[1], p[2]) for p in parts], theta))
        if meter is not None:
            meter.advance(2)
    return out


def epsilon_bracket(directions: Sequence[list[Part]], delta: float, step: float,
                    meter: Meter | None = None) -> tuple[float, float]:
    """Certified (ε_lo, ε_hi) at one small δ, δ(ε) = max over the directions."""
    thetas = saddle_thetas(directions, delta)
    ups = profiles(directions, delta, 0, thetas, meter)
    los = profiles(directions, delta, 1, thetas, meter)

    def upper(e: FloatArray) -> FloatArray:
        return np.max([p.upper(e) for p in ups], axis=0)

    def lower(e: FloatArray) -> FloatArray:
        return np.max([p.lower(e) for p in los], axis=0)
    hi = float(epsilon_for_delta(upper, np.array([delta]))[0])
    if not math.isfinite(hi):
        genuine = max(p.q_inf for p in los)       # the optimistic side cuts nothing to +inf
        if genuine < delta:
            cut = max(p.q_inf for p in ups)
            if 10.0 * cut >= 1.0:
                raise ValueError(
                    f"delta={delta:g} cannot be certified here: {cut:.2g} of the mass sits at "
                    "+inf on the pessimistic side because the privacy loss leaves the "
                    f"gridded window (|L| ≤ {LOSS_WINDOW:g} per factor); the upper ε is "
                    "beyond what the engine grids (epsilon_bounds at a larger delta gives a "
                    "lower end)")
            raise ValueError(
                f"delta={delta:g} is below what this composition can certify: the loss "
                f"tails cut off at +inf by the discretisation carry {cut:.2g} of mass "
                "(tails below ~1e-25 per step are not gridded); use delta ≥ "
                f"{10 * cut:.2g}")
        top = max(p.lat.k0 + p.lat.q.size for p in los) * step
    else:
        top = hi
    # the lower bound: the largest ε with lower(ε) > δ on a scan, then its cell (engine.md)
    width = max(step, (top + step) / _SCAN)
    grid = np.arange(0.0, top + width, width)
    over = np.flatnonzero(lower(grid) > delta)
    if over.size == 0:
        return 0.0, hi
    a = float(grid[over[-1]])
    # lower(a) > δ fails "lower ≤ δ"; bisect to adjacent doubles (a stays failing)
    a_lo, _ = bisect_monotone(lambda e: lower(e) <= delta, a, a + width, rtol=0.0)
    return float(a_lo), hi
