"""Correlated noise: DP-FTRL tree aggregation and matrix-factorisation mechanisms.

The mechanism releases C G + Z (G the per-step clipped gradient sums, A = B C a
factorisation of the workload, Z i.i.d. N(0, σ²)); the learner reads B(C G + Z) = A G
+ B Z, so everything private is a Gaussian mechanism whose sensitivity is the largest
change of C G between neighbours. Tree aggregation (Kairouz et al., ICML 2021):
G_{s √depth(T)/σ}, exact, under replace-with-a-special-record. Amplified banded MF
(Choquette-Choo et al., NeurIPS 2023): DP-SGD with Poisson rate q = B b/m over ⌈n/b⌉
steps and sensitivity the largest column norm. Multi-epoch MF (Choquette-Choo et al.,
ICML 2023): G_{Δ/σ} with Δ² = max_π Σ_{i,j∈π} |M_ij|, M = CᵀC, when a maximiser is
sign-balanced (``mf_sensitivity``). The derivations: docs/derivations/correlated-noise.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fdp import _validate
from fdp._constants import UNIT_ROUNDOFF
from fdp._types import ArrayLike, FloatArray
from fdp.families import Gaussian
from fdp.families.gaussian_range import GaussianRange
from fdp.sgd.certified import dpsgd
from fdp.tradeoff import TradeOff


def tree_depth(steps: int) -> int:
    """Number of released nodes above one leaf of the DP-FTRL tree over T steps:
    ⌈log2(T + 1)⌉ = ⌊log2 T⌋ + 1 for T ≥ 1, 0 for T = 0 (Kairouz et al. 2021, §3).

    Computed exactly as the bit length of T (no floating-point logarithm).

    Examples
    --------
    >>> from fdp.sgd.matrix_factorization import tree_depth
    >>> [tree_depth(t) for t in (0, 1, 2, 3, 4, 1600)]
    [0, 1, 2, 2, 3, 11]
    """
    return _validate.positive_int("steps", steps, low=0).bit_length()


def tree_aggregation(noise_multiplier: float, steps: int | Sequence[int], *,
                     sensitivity: float = 1.0, single_epoch: bool = False) -> Gaussian:
    """Exact trade-off function of DP-FTRL tree aggregation: G_μ with
    μ = s √(Σ_i ⌈log2(T_i + 1)⌉) / σ (Kairouz et al. 2021, §3 and Appendix D).

    The neighbouring relation is REPLACE ONE RECORD WITH A SPECIAL (zero-gradient)
    RECORD, the relation of Kairouz et al. 2021; the curve is not a guarantee for
    add/remove or replace-one neighbours. Derivation: docs/derivations/correlated-noise.md.

    Parameters
    ----------
    noise_multiplier, sensitivity : float
        σ > 0, the noise std per tree node, and s > 0 (default 1), in clipping norms.
    steps : int or sequence of int
        T ≥ 0 steps in one tree, or the step counts T_1, …, T_k (each ≥ 0, at least
        one) of k trees (the tree restarted after each).
    single_epoch : bool, optional
        False (default): a record may be used once in every tree, and the trees
        compose, μ² = Σ_i depth(T_i) s²/σ². True: each record is used at most once
        across all trees (dp_accounting's ``SingleEpochTreeAggregationDpEvent``),
        μ² = max_i depth(T_i) s²/σ².

    Examples
    --------
    >>> import fdp
    >>> from fdp.sgd.matrix_factorization import tree_aggregation
    >>> tree_aggregation(1.0, 3) == fdp.Gaussian(2.0 ** 0.5)
    True
    >>> print(f"{tree_aggregation(2.0, [3, 4]).mu ** 2:.6f}")      # (2 + 3) / 4
    1.250000
    """
    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    s = _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)
    once = _validate.flag("single_epoch", single_epoch)
    if isinstance(steps, (str, bytes)):
        raise TypeError(f"steps must be an integer or a sequence of integers, got "
                        f"{type(steps).__name__}")
    counts: list[Any]
    if np.ndim(steps) == 0:
        counts = [steps]
    else:
        counts = list(np.asarray(steps, dtype=object).ravel())
        if not counts:
            raise ValueError("steps must be an integer >= 0 or a non-empty sequence of "
                             "integers >= 0, got an empty sequence")
    depths = [tree_depth(t) for t in counts]
    total = max(depths) if once else sum(depths)
    mu = s * math.sqrt(total) / sigma
    if not math.isfinite(mu):
        raise ValueError(f"noise_multiplier must be at least sensitivity·√depth / 1.8e308, "
                         f"got {_validate.number(sigma)} (μ would be infinite)")
    return Gaussian(mu)


# -- strategies ------------------------------------------------------------------------
def _strategy(strategy: object, name: str = "strategy") -> FloatArray:
    """A real, finite, square 2-D matrix (rows: released, columns: iterations)."""
    if isinstance(strategy, (str, bytes)):
        raise TypeError(f"{name} must be a square matrix of real numbers, got "
                        f"{type(strategy).__name__}")
    try:
        c = np.array(strategy, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be a square matrix of real numbers") from err
    if c.ndim != 2 or c.shape[0] != c.shape[1] or c.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix (n × n), got shape "
                         f"{c.shape}")
    if not np.isfinite(c).all():
        raise ValueError(f"{name} must have finite entries")
    return c


def column_norm(strategy: ArrayLike) -> float:
    """Largest column norm κ = max_j |C[:, j]|₂ of a strategy, rounded up.

    κ is the sensitivity of C G to one iteration's clipped gradient (in clipping norms);
    the rounding of the squares and of their ``math.fsum`` is charged upwards, so κ ≥ the
    exact norm (equal when the squares are exact, e.g. for small integer entries).

    Examples
    --------
    >>> from fdp.sgd.matrix_factorization import column_norm
    >>> column_norm([[1.0, 0.0], [1.0, 1.0]]) == 2.0 ** 0.5
    True
    """
    c = _strategy(strategy)
    sq = c * c
    exact = _exact_squares(c)
    worst = 0.0
    for j in range(c.shape[1]):
        col = sq[:, j].tolist()
        total = math.fsum(col)                     # the correctly rounded sum
        if exact[:, j].all():
            # exact squares: fsum of the column minus its rounded sum is the exact
            # remainder, so one ulp up is needed only when it is positive
            if math.fsum([*col, -total]) > 0.0:
                total = math.nextafter(total, math.inf)
        else:
            # each square errs by at most u relative, the sum once more
            total = math.nextafter(total * (1.0 + 2.0 * UNIT_ROUNDOFF), math.inf)
        worst = max(worst, total)
    kappa = math.sqrt(worst)
    if Fraction(kappa) ** 2 < Fraction(worst):
        kappa = math.nextafter(kappa, math.inf)
    return kappa


def _exact_squares(c: FloatArray) -> np.ndarray:
    """True where fl(x²) = x²: x with at most 26 significant bits and x² not subnormal."""
    m, _ = np.frexp(c)
    scaled = np.ldexp(m, 26)
    return (scaled == np.round(scaled)) & ((c == 0.0) | (np.abs(c) > 1e-150))


def check_banded(strategy: ArrayLike, bands: int) -> FloatArray:
    """``strategy`` (C, n × n) as a float array, checked lower-triangular and
    ``bands``-banded (C[i, j] = 0 for j > i and for i − j ≥ b ≥ 1); a ValueError names
    the first offending entry.

    Examples
    --------
    >>> from fdp.sgd.matrix_factorization import check_banded
    >>> check_banded([[1.0, 0.0], [0.5, 1.0]], 2).shape
    (2, 2)
    """
    c = _strategy(strategy)
    b = _validate.positive_int("bands", bands)
    i, j = np.indices(c.shape)
    upper = (j > i) & (c != 0.0)
    if upper.any():
        r, k = np.argwhere(upper)[0]
        raise ValueError(f"strategy must be lower-triangular (C[i, j] = 0 for j > i), got "
                         f"C[{r}, {k}] = {_validate.number(c[r, k])}")
    outside = (i - j >= b) & (c != 0.0)
    if outside.any():
        r, k = np.argwhere(outside)[0]
        raise ValueError(f"strategy must be {b}-banded (C[i, j] = 0 for i - j >= bands = "
                         f"{b}), got C[{r}, {k}] = {_validate.number(c[r, k])}")
    return c


def banded_mf(noise_multiplier: float, sample_rate: float, iterations: int, bands: int, *,
              strategy: ArrayLike | None = None, tol: float | None = None) -> TradeOff:
    """Certified trade-off of amplified banded matrix factorisation (BandMF) under cyclic
    Poisson sampling: that of DP-SGD with ⌈n/b⌉ steps (Choquette-Choo et al. 2023, §4).

    Iteration i Poisson-samples group i mod b of b fixed groups at rate q (q = B·b/m,
    not B/m), and the strategy C (n × n, lower-triangular, b-banded) correlates the
    noise; neighbours add/remove one record. The result is a guarantee for BandMF, its
    exact curve when the columns of one group have the largest norm
    (docs/derivations/correlated-noise.md).

    Parameters
    ----------
    noise_multiplier, sample_rate, iterations, bands
        σ > 0 per entry of the noise Z in C G + Z (clipping norms); q ∈ [0, 1]; n ≥ 0;
        b ≥ 1 (b ≥ n: every record is eligible once).
    strategy : array_like, optional
        C (``check_banded``); its largest column norm κ (``column_norm``) > 1 gives
        ``fdp.dpsgd(σ, q, ⌈n/b⌉, sensitivity=κ)``, κ ≤ 1 ``fdp.dpsgd(σ, q, ⌈n/b⌉)``.
    tol : float, optional
        Passed to ``fdp.dpsgd``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.sgd.matrix_factorization import banded_mf
    >>> banded_mf(1.0, 0.1, 10, 4) == fdp.dpsgd(1.0, 0.1, 3)
    True
    """
    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    q = _validate.probability("sample_rate", sample_rate)
    n = _validate.positive_int("iterations", iterations, low=0)
    b = _validate.positive_int("bands", bands)
    steps = -(-n // b)
    if strategy is None:
        return dpsgd(sigma, q, steps, tol=tol)
    c = check_banded(strategy, b)
    if c.shape[0] != n:
        raise ValueError(f"strategy must be iterations × iterations = {n} × {n}, got "
                         f"{c.shape[0]} × {c.shape[1]}")
    kappa = column_norm(c)
    if kappa == 0.0:
        raise ValueError("strategy must have a non-zero column (all columns are zero)")
    if kappa <= 1.0:
        return dpsgd(sigma, q, steps, tol=tol)
    return dpsgd(sigma, q, steps, tol=tol, sensitivity=kappa)


# -- multi-epoch sensitivity -----------------------------------------------------------
#: Enumerate (k, b)-participation patterns when there are at most this many (and their
#: number times n stays below ``_ENUM_CELLS``); beyond, the dynamic-programme bound.
MAX_PATTERNS = 2 ** 17
_ENUM_CELLS = 2 ** 21


@dataclass(frozen=True)
class MFSensitivity:
    """The sensitivity Δ of C G under (k, b)-participation: lower ≤ Δ ≤ upper.

    ``lower`` ≤ Δ = max_π sup_g |C X_π|_F ≤ ``upper``, equal when ``exact`` (every
    pattern enumerated and a maximiser sign-balanced); ``method`` is "enumeration" or
    "dynamic programme"; ``patterns`` counts the (k, b)-participation patterns.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.sgd.matrix_factorization import mf_sensitivity
    >>> s = mf_sensitivity(np.tril(np.ones((4, 4))), 2, 2)   # prefix sums, {0, 2}
    >>> print(s.exact, f"{s.upper ** 2:.12f}")                # 1 + 1 + 4 + 4
    True 10.000000000000
    """

    lower: float
    upper: float
    exact: bool
    method: str
    patterns: int
    k: int
    b: int

    def __repr__(self) -> str:
        what = "exact" if self.exact else f"in [{self.lower!r}, {self.upper!r}]"
        value = repr(self.upper) if self.exact else what
        return (f"MFSensitivity({value}, (k={self.k}, b={self.b})-participation, "
                f"{self.method} of {self.patterns} patterns)")


def count_patterns(iterations: int, k: int, b: int) -> int:
    """Number of non-empty sets of at most k iterations out of n, any two ≥ b apart.

    Σ_{s=1}^{k} C(n − (s − 1)(b − 1), s): remove b − 1 slots after each chosen
    iteration but the last.

    Examples
    --------
    >>> from fdp.sgd.matrix_factorization import count_patterns
    >>> count_patterns(4, 2, 2)          # {0},{1},{2},{3},{0,2},{0,3},{1,3}
    7
    """
    n = _validate.positive_int("iterations", iterations, low=0)
    k = _validate.positive_int("k", k)
    b = _validate.positive_int("b", b)
    total = 0
    for size in range(1, k + 1):
        room = n - (size - 1) * (b - 1)
        if room < size:
            break
        total += math.comb(room, size)
    return total


def _enumerate(weights: FloatArray, k: int, b: int) -> tuple[FloatArray, list]:
    """Values Σ_{i,j∈π} W_ij of every pattern, level by level (vectorised), and the
    patterns themselves as index arrays (one array per size)."""
    n = weights.shape[0]
    diag = np.diag(weights)
    pats = np.arange(n)[:, None]
    vals = diag.copy()
    acc = weights.copy()                      # acc[p] = Σ_{i ∈ π_p} W[i, :]
    all_vals, all_pats = [vals], [pats]
    cols = np.arange(n)
    for _ in range(1, k):
        ok = cols[None, :] >= pats[:, -1:] + b
        p_idx, j_idx = np.nonzero(ok)
        if p_idx.size == 0:
            break
        vals = vals[p_idx] + 2.0 * acc[p_idx, j_idx] + diag[j_idx]
        acc = acc[p_idx] + weights[j_idx]
        pats = np.concatenate([pats[p_idx], j_idx[:, None]], axis=1)
        all_vals.append(vals)
        all_pats.append(pats)
    return np.concatenate(all_vals), all_pats


def _balanced(sub: FloatArray) -> bool:
    """True when signs s exist with s_i s_j M_ij ≥ 0 on the submatrix (2-colouring of
    the graph of its non-zero off-diagonal entries)."""
    m = sub.shape[0]
    sign = np.zeros(m, dtype=int)
    for start in range(m):
        if sign[start]:
            continue
        sign[start] = 1
        stack = [start]
        while stack:
            i = stack.pop()
            for j in range(m):
                if j == i or sub[i, j] == 0.0:
                    continue
                want = sign[i] * (1 if sub[i, j] > 0.0 else -1)
                if sign[j] == 0:
                    sign[j] = want
                    stack.append(j)
                elif sign[j] != want:
                    return False
    return True


def _dp_best(weights: FloatArray, k: int, b: int) -> FloatArray:
    """For each row w of ``weights``, max over b-separated sets π of at most k columns of
    Σ_{j∈π} w_j (w ≥ 0): F[c, j] = max(F[c, j − 1], F[c − 1, j − b] + w_j), vectorised
    over rows."""
    rows, n = weights.shape
    # F[c][:, j + 1]: best with c elements among columns < j + 1 (column 0: none)
    prev = np.zeros((rows, n + 1))            # c − 1 = 0 elements: 0
    best = np.zeros(rows)
    for _ in range(k):
        cur = np.zeros((rows, n + 1))
        for j in range(n):
            take = prev[:, max(j - b + 1, 0)] + weights[:, j]
            cur[:, j + 1] = np.maximum(cur[:, j], take)
        best = np.maximum(best, cur[:, n])
        prev = cur
    return best


def _pairs_lower(lower_abs: FloatArray, b: int) -> float:
    """max over patterns of one or two iterations (gap ≥ b) of M_ii + M_jj + 2|M_ij|,
    from a lower bound on |M|: attained (two vectors can always be aligned with the
    sign of M_ij), so a lower bound on Δ²."""
    d = np.diag(lower_abs)
    best = float(d.max())
    n = d.size
    if n > b:
        # row i, column j ≥ i + b (an n × n temporary, like M itself)
        i, j = np.indices((n, n))
        pair = d[:, None] + d[None, :] + 2.0 * np.maximum(lower_abs, 0.0)
        best = max(best, float(np.max(pair, where=j - i >= b, initial=-np.inf)))
    return best


def _strided_lower(gram: FloatArray, k: int, b: int) -> float:
    """max over the patterns {j, j + b, …} (at most k, inside [0, n)) of u_πᵀ M u_π."""
    n = gram.shape[0]
    best = 0.0
    for j in range(n):
        idx = np.arange(j, min(n, j + k * b), b)
        best = max(best, float(gram[np.ix_(idx, idx)].sum()))
    return best


def mf_sensitivity(strategy: ArrayLike, k: int, b: int, *,
                   max_patterns: int = MAX_PATTERNS) -> MFSensitivity:
    """Sensitivity Δ of a matrix-factorisation strategy C under (k, b)-participation
    (Choquette-Choo et al. 2023, ICML, §2): Δ² = max_π sup_g Σ_{i,j∈π} M_ij ⟨g_i, g_j⟩,
    M = CᵀC, π any set of at most k iterations with gaps ≥ b, |g_i| ≤ 1.

    Exact as max_π Σ_{i,j∈π} |M_ij| when all patterns are enumerated and a maximiser is
    sign-balanced (always for non-negative M and for k ≤ 2); otherwise a proven bracket
    (enumeration or the dynamic-programme bound above, the enumerated or strided
    patterns below), rounded outwards by the error of forming M (Higham 2002 §3.5).
    Derivation: docs/derivations/correlated-noise.md.

    Parameters
    ----------
    strategy : array_like
        C, n × n (any real matrix; rows are released, columns are iterations).
    k, b : int
        k ≥ 1: the most iterations a record takes part in; b ≥ 1: the least separation
        between two of them (b = 1: any iterations).
    max_patterns : int, optional
        Enumerate when there are at most this many patterns (default 2**17).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.sgd.matrix_factorization import mf_sensitivity
    >>> mf_sensitivity(np.eye(6), 3, 2)
    MFSensitivity(1.7320508075688772, (k=3, b=2)-participation, enumeration of 20 patterns)
    """
    c = _strategy(strategy)
    k = _validate.positive_int("k", k)
    b = _validate.positive_int("b", b)
    limit = _validate.positive_int("max_patterns", max_patterns)
    n = c.shape[0]
    gram = c.T @ c
    absc = np.abs(c)
    # |fl(M) − M| ≤ γ_n |C|ᵀ|C| (Higham 2002, §3.5), γ_n = n u/(1 − n u)
    gamma = n * UNIT_ROUNDOFF / (1.0 - n * UNIT_ROUNDOFF)
    err = gamma * (absc.T @ absc)
    absm = np.abs(gram)
    count = count_patterns(n, k, b)
    # summing at most k² terms of a pattern: relative error ≤ γ_{k²}, and the DP's n·k
    slack = 1.0 + 4.0 * (k * k + n * k + 4) * UNIT_ROUNDOFF
    diag_lo = _pairs_lower(absm - err, b) / slack if k >= 2 else (
        float(np.max(np.diag(gram) - np.diag(err))) / slack)
    # the arrays of one enumeration level hold (patterns × n) cells; level one alone is M
    if count <= limit and count * n <= max(_ENUM_CELLS, 2 * n * n):
        vals, pats = _enumerate(absm, k, b)
        top = float(vals.max())
        if _some_maximiser_balanced(gram, vals, pats, top):
            value = math.sqrt(top)
            return MFSensitivity(value, value, True, "enumeration", count, k, b)
        hi = math.sqrt(float(_enumerate(absm + err, k, b)[0].max()) * slack)
        lo_sq = max(float(_enumerate(gram - err, k, b)[0].max()) / slack, diag_lo)
        return MFSensitivity(math.sqrt(max(lo_sq, 0.0)), math.nextafter(hi, math.inf),
                             False, "enumeration", count, k, b)
    t = _dp_best(absm + err, k, b)
    bound = float(_dp_best(t[None, :], k, b)[0]) * slack
    lo_sq = max(_strided_lower(gram - err, k, b) / slack, diag_lo)
    return MFSensitivity(math.sqrt(max(lo_sq, 0.0)), math.nextafter(math.sqrt(bound), math.inf),
                         False, "dynamic programme", count, k, b)


def _some_maximiser_balanced(gram: FloatArray, vals: FloatArray, pats: list,
                             top: float) -> bool:
    """True when one of (at most 64 per size of) the patterns attaining ``top`` has
    sign-balanced Gram entries."""
    start = 0
    for p in pats:
        seg = vals[start:start + p.shape[0]]
        start += p.shape[0]
        for row in p[seg == top][:64]:
            if _balanced(gram[np.ix_(row, row)]):
                return True
    return False


def multi_epoch_mf(noise_multiplier: float, strategy: ArrayLike, k: int, b: int, *,
                   max_patterns: int = MAX_PATTERNS) -> TradeOff:
    """Trade-off function of multi-epoch matrix factorisation without amplification:
    G_{Δ/σ}, Δ the sensitivity of C G under (k, b)-participation (Choquette-Choo,
    McMahan, Rush & Thakurta 2023, ICML, §2; Denisov et al. 2022).

    C G + Z, Z i.i.d. N(0, σ²), is the Gaussian mechanism of sensitivity Δ
    (``mf_sensitivity``; DRS Thm 2.7); neighbours differ in one record's participations
    (add/remove or zero-out of its clipped gradients), and no sampling is assumed.

    Parameters
    ----------
    noise_multiplier : float
        σ > 0: standard deviation of each entry of Z, in clipping norms.
    strategy, k, b, max_patterns
        As in ``mf_sensitivity``.

    Returns
    -------
    Gaussian or GaussianRange
        ``Gaussian(Δ/σ)`` (status exact) when Δ is exact; otherwise
        ``GaussianRange(Δ_lo/σ, Δ_hi/σ)`` (status certified), whose safe side
        G_{Δ_hi/σ} is a guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> import fdp
    >>> from fdp.sgd.matrix_factorization import multi_epoch_mf
    >>> multi_epoch_mf(2.0, np.eye(10), 4, 3) == fdp.Gaussian(2.0 / 2.0)
    True
    """
    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    sens = mf_sensitivity(strategy, k, b, max_patterns=max_patterns)
    if sens.exact:
        mu = sens.upper / sigma
        if not math.isfinite(mu):
            raise ValueError(f"noise_multiplier is too small for this strategy, got "
                             f"{_validate.number(sigma)} (μ would be infinite)")
        return Gaussian(mu)
    hi = math.nextafter(sens.upper / sigma, math.inf)
    lo = math.nextafter(sens.lower / sigma, 0.0) if sens.lower > 0.0 else 0.0
    if not math.isfinite(hi):
        raise ValueError(f"noise_multiplier is too small for this strategy, got "
                         f"{_validate.number(sigma)} (μ would be infinite)")
    why = (f"multi-epoch MF, ({sens.k}, {sens.b})-participation, sensitivity by "
           f"{sens.method}")
    return GaussianRange(lo, hi, why)

__all__ = ["MFSensitivity", "banded_mf", "check_banded", "column_norm",
           "count_patterns", "mf_sensitivity", "multi_epoch_mf", "tree_aggregation",
           "tree_depth"]
