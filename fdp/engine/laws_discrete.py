"""The privacy-loss law of the discrete Gaussian, for the composition engine.

``DiscreteLaplace`` and the enumerated ``DiscreteGaussian`` (σ ≤ 64) are exact finite
pairs and use the generic ``_pair`` route of ``fdp.engine.laws``. For σ > 64 this
module answers ``interval_masses`` and ``loss_range`` without enumerating ℤ.

The loss L(x) = (2xΔ − Δ²)/(2σ²) is increasing and affine in the integer x
(Canonne, Kamath & Steinke 2020, Thm 7), so a loss interval [e_i, e_{i+1}) is the
integer range [a_i, a_{i+1} − 1], a_i = min{x : L(x) ≥ e_i}. Its P-mass is
S(a_i) − S(a_{i+1}) and its Q-mass the same range shifted by −Δ (S(k) = P(X ≥ k),
X ~ N_Z(0, σ²)). Ranges of at most 64 integers are summed term by term; longer
ones are differenced from the certified Euler–Maclaurin tails of
``fdp.families.discrete`` on the side where they do not cancel. Both give
certified LOWER bounds κ_lo ≤ κ, π_lo ≤ π on every cell, and the deficits
1 − Σκ_lo and 1 − Σπ_lo are put at L = +∞ (Q) and L = −∞ (P). That pair is
pessimistic: the true pair is a post-processing of it (send the +∞ outcome to
cell c with probability (κ_c − κ_lo,c)/(1 − Σκ_lo), distributed inside the cell as
Q is, and the −∞ outcome likewise with the P-errors), so its trade-off curve is
below the truth and everything the engine composes from it stays safe.

The engine's optimistic side is built from the same masses; it differs from an
optimistic discretisation of the exact law by at most the deficit (ℓ1 ≲ 1e-12
in total, relative errors ~1e-13 per cell), which is far below the engine's own
round-off slack. The cost is O(number of cells), independent of σ.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from fdp.engine.laws import interval_masses, loss_range
from fdp.families.discrete import FLOAT_REL, DiscreteGaussian, log_tail

SHORT = 64          # ranges up to this many integers are summed term by term
Z_TAIL = 10.6       # N_Z(0, σ²) beyond ±10.6σ has mass below 1e-25
_CHUNK = 8192


def _short_sums(lo: np.ndarray, n: np.ndarray, s: float) -> np.ndarray:
    """Σ_{x=lo}^{lo+n−1} P(x), n ≤ SHORT, P(x) = e^{−x²/2σ²}/(σ√2π) (σ > 64)."""
    out = np.zeros(lo.size)
    j = np.arange(SHORT, dtype=float)
    log_norm = math.log(s) + 0.5 * math.log(2.0 * math.pi)
    for start in range(0, lo.size, _CHUNK):
        sl = slice(start, start + _CHUNK)
        x = lo[sl, None] + j[None, :]
        v = np.where(j[None, :] < n[sl, None], -x * x / (2.0 * s * s), -np.inf)
        with np.errstate(under="ignore"):
            out[sl] = np.exp(logsumexp(v, axis=1) - log_norm)
    return out


def range_mass_lower(lo, hi, s: float) -> np.ndarray:
    """Certified lower bounds on P(lo ≤ X ≤ hi), X ~ N_Z(0, σ²), σ > 64.

    ``lo`` and ``hi`` are integer-valued float arrays (−inf and +inf allowed).
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    out = np.zeros(lo.size)
    n = hi - lo + 1.0
    live = n > 0
    short = live & (n <= SHORT)
    if short.any():
        # each term and the log-sum-exp carry a few ulps; FLOAT_REL covers them
        # (the normaliser's Poisson correction is below e^{−80000})
        out[short] = _short_sums(lo[short], n[short], s) * (1.0 - FLOAT_REL)
    long_ = live & ~short
    if long_.any():
        a, b = lo[long_], hi[long_] + 1.0                # mass = S(a) − S(b)
        sa_lo, sa_hi, ca_lo, ca_hi = log_tail(a, s)
        sb_lo, sb_hi, cb_lo, cb_hi = log_tail(b, s)
        with np.errstate(under="ignore", over="ignore"):
            right = np.exp(sa_lo) - np.exp(sb_hi)        # both tails on the right
            left = np.exp(cb_lo) - np.exp(ca_hi)         # both on the left: C(b) − C(a)
            span = 1.0 - np.exp(sb_hi) - np.exp(ca_hi)   # across 0
        m = np.where(a >= 1, right, np.where(b <= 1, left, span))
        m = np.where(a == -np.inf, np.where(b == np.inf, 1.0, np.exp(cb_lo)),
                     np.where(b == np.inf, np.exp(sa_lo), m))
        # the three differences round by a few ulps of their larger term
        big = np.where(a >= 1, np.exp(sa_hi), np.where(b <= 1, np.exp(cb_hi), 1.0))
        m = m - 4e-16 * np.where(np.isfinite(big), big, 1.0)
        out[long_] = np.maximum(m, 0.0)
    return out


def cell_starts(f: DiscreteGaussian, edges: np.ndarray) -> np.ndarray:
    """a_i = min{x ∈ ℤ : L(x) ≥ e_i}, with L evaluated as the engine bins atoms."""
    d, s = float(f.sensitivity), f.sigma
    e = np.asarray(edges, dtype=float)
    x = np.ceil(e * (s * s / d) + d / 2.0)
    for _ in range(2):   # fix the rounding of the inversion against L itself
        x = np.where(f.loss(x) < e, x + 1.0, x)
        x = np.where(f.loss(x - 1.0) >= e, x - 1.0, x)
    return x


@interval_masses.register
def _(f: DiscreteGaussian, edges):
    if f.enumerated:
        from fdp.engine.laws import _pair_masses
        return _pair_masses(f._pair(), edges)
    s, d = f.sigma, float(f.sensitivity)
    a = cell_starts(f, edges)
    lo = np.concatenate([[-np.inf], a])
    hi = np.concatenate([a - 1.0, [np.inf]])
    pi = range_mass_lower(lo, hi, s)
    kappa = range_mass_lower(lo - d, hi - d, s)
    # fsum is correctly rounded: one more ulp keeps the deficits at least the true ones
    q_inf = max(0.0, 1.0 - math.fsum(kappa)) + 2.3e-16
    p_neginf = max(0.0, 1.0 - math.fsum(pi)) + 2.3e-16
    return kappa, pi, q_inf, p_neginf


@loss_range.register
def _(f: DiscreteGaussian):
    s = f.sigma
    x_lo = -math.ceil(Z_TAIL * s)
    x_hi = f.sensitivity + math.ceil(Z_TAIL * s)
    return float(f.loss(x_lo)), float(f.loss(x_hi))
