"""Privacy amplification by shuffling: the clone dominating pair, as an exact finite pair.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

import math

import numpy as np

from fdp import _validate
from fdp._lazy import LazyModule
from fdp._types import ArrayLike
from fdp.families._rounding import ArrayPair
from fdp.families.finite_pair import FinitePair

stats = LazyModule("scipy.stats")   # loaded on first use: `import fdp` stays light

#: Relative safety factor on every enumerated mass (covers pmf round-off).
MASS_REL = 1e-11
#: Relative error allowed on each enumerated mass before MASS_REL (5x the measured 2e-13).
_PMF_REL = 1e-12
#: Up to this many enumerated atoms the pair is kept exact (equal ratios merged).
MAX_EXACT_ATOMS = 4_000_000
#: Beyond it, losses are rounded UP onto a grid of this many values (pessimistic).
LOSS_BINS = 1 << 18
_CHUNK_ATOMS = 1 << 21


def _window(m: int | np.ndarray, prob: float, tail: float) -> ArrayPair:
    """Integer range [lo, hi] of Bin(m, prob) holding every k with pmf ≥ tail (a
    superset: the quantiles at tail on each side, widened by one)."""
    lo = stats.binom.ppf(tail, m, prob)
    hi = stats.binom.isf(tail, m, prob)
    lo = np.maximum(np.nan_to_num(lo, nan=0.0) - 1.0, 0.0)
    # numpy broadcasts an array nan= (copyto); its stubs allow a float only
    hi = np.minimum(np.nan_to_num(hi, nan=m) + 1.0, m)  # type: ignore[arg-type]
    return lo.astype(np.int64), hi.astype(np.int64)


def _log_pmf(k: ArrayLike, m: ArrayLike, prob: float) -> np.ndarray:
    """log of the binomial pmf through ``binom.pmf`` (Boost's ibeta derivative, relative
    error ≈ 2e-13 at m = 10⁹ against mpmath), not ``binom.logpmf``, whose gammaln
    differences lose 2e-10 at m = 10⁵ and 4e-6 at m = 10⁹. Masses kept are ≥ tail ≥
    1e-290, so the pmf is a normal double."""
    with np.errstate(divide="ignore", under="ignore"):
        return np.log(stats.binom.pmf(k, m, prob))


def _log_ratio(eps0: float, x: ArrayLike, y: ArrayLike) -> ArrayPair:
    """log Q/P = log((y + e^{ε₀} x)/(e^{ε₀} y + x)) and a bound on its rounding error."""
    with np.errstate(divide="ignore"):
        lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    L = np.logaddexp(ly, eps0 + lx) - np.logaddexp(eps0 + ly, lx)
    err = 16 * 2.0 ** -53 * (1.0 + eps0 + np.where(np.isfinite(lx), np.abs(lx), 0.0)
                             + np.where(np.isfinite(ly), np.abs(ly), 0.0))
    return L, err


def _atoms(eps0: float, n: int, c: np.ndarray, log_pc: np.ndarray, a_lo: np.ndarray,
           width: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Enumerated atoms (a, m = c + 1, p, q) for the given c rows, masses lowered."""
    total = int(width.sum())
    rows = np.repeat(np.arange(c.size), width)
    a = a_lo[rows] + (np.arange(total) - np.repeat(np.cumsum(width) - width, width))
    m = c[rows] + 1                                  # x + y
    x, y = a, m - a
    log_b = _log_pmf(a, m, 0.5)
    log_norm = np.logaddexp(0.0, eps0)               # log(e^{ε₀} + 1)
    with np.errstate(divide="ignore"):
        lx, ly = np.log(x.astype(float)), np.log(y.astype(float))
    # P ∝ q y + (1 − q) x, Q ∝ (1 − q) y + q x, q = e^{ε₀}/(e^{ε₀}+1)
    log_p_mix = np.logaddexp(eps0 + ly, lx) - log_norm
    log_q_mix = np.logaddexp(ly, eps0 + lx) - log_norm
    base = log_pc[rows] + log_b + math.log(2.0) - np.log(m.astype(float))
    shrink = math.log1p(-MASS_REL)
    with np.errstate(under="ignore"):
        p = np.exp(base + log_p_mix + shrink)
        q = np.exp(base + log_q_mix + shrink)
    return x, m, p, q


def clone_atoms(eps0: float, n: int, clone_prob: float,
                tail: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """Atoms (log_ratio, p, q) of the clone pair and the deficits (1 − Σp, 1 − Σq): exact
    up to MAX_EXACT_ATOMS, else pessimistically binned (docs/derivations/families.md)."""
    c_lo, c_hi = _window(n - 1, clone_prob, tail)
    c = np.arange(int(c_lo), int(c_hi) + 1, dtype=np.int64)
    log_pc = _log_pmf(c, n - 1, clone_prob)
    keep = log_pc >= math.log(tail) - 1.0
    c, log_pc = c[keep], log_pc[keep]
    a_lo, a_hi = _window(c + 1, 0.5, tail)
    width = a_hi - a_lo + 1
    total = int(width.sum())
    if total <= MAX_EXACT_ATOMS:
        x, m, p, q = _atoms(eps0, n, c, log_pc, a_lo, width)
        # merge equal ratios exactly: the reduced fraction a/(c+1)
        g = np.gcd(x, m)
        key = (x // g) * (int(n) + 2) + (m // g)
        uniq, inv = np.unique(key, return_inverse=True)
        p_m = np.bincount(inv, weights=p)
        q_m = np.asarray(np.bincount(inv, weights=q), dtype=float)
        xr = uniq // (int(n) + 2)
        L, _ = _log_ratio(eps0, xr, (uniq % (int(n) + 2)) - xr)
    else:
        # the loss is monotone in a/(c+1): its range over the windows
        fr_lo = np.min(a_lo / (c + 1.0))
        fr_hi = np.max((a_lo + width - 1) / (c + 1.0))
        lo_L, _ = _log_ratio(eps0, fr_lo, 1.0 - fr_lo)
        hi_L, _ = _log_ratio(eps0, fr_hi, 1.0 - fr_hi)
        span = max(float(hi_L - lo_L), 1e-300)
        step = span / (LOSS_BINS - 4)
        k0 = math.floor(float(lo_L) / step) - 2
        q_m = np.zeros(LOSS_BINS)
        ends = np.concatenate([[0], np.cumsum(width)])
        start = 0
        while start < c.size:
            stop = int(np.searchsorted(ends, ends[start] + _CHUNK_ATOMS, side="right")) - 1
            stop = max(stop, start + 1)
            sl = slice(start, stop)
            x, m, _, q = _atoms(eps0, n, c[sl], log_pc[sl], a_lo[sl], width[sl])
            L, err = _log_ratio(eps0, x, m - x)
            k = np.clip(np.ceil((L + err) / step).astype(np.int64) - k0, 0, LOSS_BINS - 1)
            q_m += np.bincount(k, weights=q, minlength=LOSS_BINS)
            start = stop
        L = (np.arange(LOSS_BINS) + k0) * step               # rounded-up losses
        with np.errstate(under="ignore"):
            p_m = q_m * np.exp(-L) * (1.0 - 16 * 2.0 ** -53 * (1.0 + np.abs(L)))
        live = q_m > 0
        L, p_m, q_m = L[live], p_m[live], q_m[live]
    deficit_p = max(0.0, 1.0 - math.fsum(p_m.tolist()))
    deficit_q = max(0.0, 1.0 - math.fsum(q_m.tolist()))
    return L, p_m, q_m, deficit_p, deficit_q


def shuffle_amplification(eps0: float, n: int, *, construction: str = "clones",
                          tail: float = 1e-30) -> FinitePair:
    """Trade-off function of shuffling n ≥ 1 reports of ε₀-LDP randomizers (ε₀ > 0).

    T(P, Q) of the clone pair, symmetric; n = 1 gives ``RandomizedResponse(eps0)``.
    ``construction="clones"`` (default): clone probability e^{−ε₀} (Feldman, McMillan &
    Talwar, FOCS 2021), valid for every ε₀-LDP randomizer, adaptive ones included;
    ``"stronger"``: 2/(e^{ε₀}+1) (FMT, SODA 2023), tighter but, by the paper's errata, valid
    only for randomizers with its corrected Lemma 3.5 decomposition. ``tail`` ∈ [1e-290,
    1e-6]: binomial atoms below it are not enumerated; the cut mass goes to two atoms at
    ±ε₁, ε₁ = ε₀ + 0.2, so ε(δ) ≤ ε₁ always (``fdp.strongest`` with ``fdp.EpsDelta(eps0)``
    brings it to ε₀).

    Examples
    --------
    >>> import fdp
    >>> f = fdp.shuffle_amplification(4.0, 10_000)
    >>> bool(f.epsilon(1e-6) < 4.0)
    True
    """
    e0 = _validate.real("eps0", eps0, low=0.0, low_open=True)
    k = _validate.positive_int("n", n)
    t = _validate.real("tail", tail, low=1e-290, high=1e-6)
    if not isinstance(construction, str) or construction not in ("clones", "stronger"):
        raise ValueError(f"construction must be 'clones' or 'stronger', got {construction!r}")
    if construction == "clones":
        prob = math.exp(-e0)
    else:
        prob = 2.0 / (math.exp(e0) + 1.0) if e0 < 700 else 2.0 * math.exp(-e0)
    L, p, q, dp, dq = clone_atoms(e0, k, prob, t)
    L_rest, p_rest, q_rest = _rest_atoms(e0, dp, dq)
    return FinitePair.from_atoms(np.concatenate([L, L_rest]), np.concatenate([p, p_rest]),
                                 np.concatenate([q, q_rest]))


def _rest_atoms(eps0: float, dp: float, dq: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mass not enumerated (deficits dp under P, dq under Q) as two atoms at ±ε₁.

    Derivation: docs/derivations/families.md.
    """
    e1 = eps0 + math.log((MASS_REL + _PMF_REL) / (MASS_REL - _PMF_REL))
    w = math.exp(-e1)
    den = -math.expm1(-2.0 * e1)                       # 1 − e^{−2ε₁}
    q_plus = (dq - dp * w) / den                       # Q-mass at +ε₁ (= u e^{ε₁})
    p_minus = (dp - dq * w) / den                      # P-mass at −ε₁ (= v e^{ε₁})
    if q_plus < 0.0 or p_minus < 0.0:
        return np.array([-np.inf, np.inf]), np.array([dp, 0.0]), np.array([0.0, dq])
    return (np.array([-e1, e1]), np.array([p_minus, q_plus * w]),
            np.array([p_minus * w, q_plus]))
