"""The one-run (ε, δ) test of Steinke, Nasr & Jagielski (2023).

The derivation: docs/derivations/audits.md.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from scipy.stats import binom

from fdp import _validate
from fdp._numerics import bisect_monotone
from fdp._types import ArrayLike, FloatArray

#: Upper end of the ε search: expit(60) rounds to 1, where every tail is 1.
_EPS_MAX = 60.0


def check_counts(m: int, r: int, v: int) -> tuple[int, int, int]:
    """Validate canary, guess and correct-guess counts: 0 ≤ v ≤ r ≤ m, m ≥ 1."""
    m = _validate.positive_int("m", m, low=1)
    r = _validate.positive_int("r", r, low=0)
    v = _validate.positive_int("v", v, low=0)
    if r > m:
        raise ValueError(f"r (the number of guesses) must be in [0, m] = [0, {m}], got {r}")
    if v > r:
        raise ValueError(f"v (the correct guesses) must be in [0, r] = [0, {r}], got {v}")
    return m, r, v


def _log_partial(r: np.ndarray, v: np.ndarray, q: np.ndarray, i: np.ndarray) -> np.ndarray:
    """log P[v − i ≤ X ≤ v − 1], X ~ Bin(r, q), from two tails (the smaller one)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        s_far, s_near = binom.logsf(v - 1 - i, r, q), binom.logsf(v - 1, r, q)
        c_near, c_far = binom.logcdf(v - 1, r, q), binom.logcdf(v - 1 - i, r, q)
        by_sf = s_far + np.log(-np.expm1(s_near - s_far))
        by_cdf = c_near + np.log(-np.expm1(c_far - c_near))
    return np.where(s_far < np.log(0.5), by_sf, by_cdf)


def _log_alpha(r: np.ndarray, v: np.ndarray, q: np.ndarray,
               width: int) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds on log α (rows: entries with v ≥ 1).

    The terms i ≤ W are summed exactly from the pmf. Beyond W the partial sums
    S_i = P[v − i ≤ X ≤ v − 1] increase with i, so on a doubling grid i_k = W·2^k,
    max_{i_k ≤ i ≤ i_{k+1}} S_i/i lies between S_{i_k}/i_k and S_{i_{k+1}}/i_k: the
    bounds differ by at most a factor 2 (none once W ≥ v)."""
    i = np.arange(1, min(width, int(v.max())) + 1)[None, :]
    j = v[:, None] - i
    with np.errstate(divide="ignore", invalid="ignore"):
        lpmf = np.where(j >= 0, binom.logpmf(np.maximum(j, 0), r[:, None], q[:, None]),
                        -np.inf)
        low = np.max(np.logaddexp.accumulate(lpmf, axis=1) - np.log(i), axis=1)
    high = low.copy()
    if width >= int(v.max()):
        return low, high
    n_grid = int(np.ceil(np.log2(max(int(v.max()), width) / width))) + 1
    grid = width * 2.0 ** np.arange(n_grid)                      # i_k
    ik = np.minimum(grid[None, :], v[:, None])
    ik1 = np.minimum(2.0 * grid[None, :], v[:, None])
    big = v[:, None] > grid[None, :]
    rr, vv, qq = r[:, None], v[:, None], q[:, None]
    lp_k = _log_partial(rr, vv, qq, ik)
    lp_k1 = _log_partial(rr, vv, qq, ik1)
    low = np.maximum(low, np.max(np.where(big, lp_k - np.log(ik), -np.inf), axis=1))
    high = np.maximum(high, np.max(np.where(big, lp_k1 - np.log(ik), -np.inf), axis=1))
    return low, high


def log_p_value(m: int, r: ArrayLike, v: ArrayLike, eps: ArrayLike,
                delta: float) -> FloatArray:
    """log p(ε, δ) of Steinke et al. (2023), vectorised over (r, v, ε); exact α.

    Parameters
    ----------
    m : int
        Number of canaries (validated by the caller).
    r, v : array_like of int
        Guesses and correct guesses, 0 ≤ v ≤ r ≤ m (validated by the caller).
    eps : array_like
        Claimed ε ≥ 0 (broadcast with r and v).
    delta : float
        The claimed δ in [0, 1].

    Returns
    -------
    ndarray
        log min(β + 2mδ·α, 1) (docs/derivations/audits.md), ≤ 0; 0 where v = 0.
    """
    rr, vv, ee = np.broadcast_arrays(np.asarray(r, dtype=np.int64),
                                     np.asarray(v, dtype=np.int64),
                                     np.asarray(eps, dtype=float))
    q = expit(ee)
    out = np.zeros(rr.shape)
    pos = vv > 0
    out[pos] = np.minimum(binom.logsf(vv[pos] - 1, rr[pos], q[pos]), 0.0)
    if delta == 0.0 or not pos.any():
        return out
    rp, vp, qp = rr[pos], vv[pos], q[pos]
    log_alpha, _ = _log_alpha(rp, vp, qp, int(vp.max()))
    log_p = np.logaddexp(out[pos], np.log(2.0 * m * delta) + log_alpha)
    out[pos] = np.minimum(log_p, 0.0)
    return out


def _refuted(m: int, r: np.ndarray, v: np.ndarray, eps: np.ndarray, delta: float,
             log_tau: float) -> np.ndarray:
    """p(ε, δ) ≤ τ, elementwise, deciding each entry with as few α terms as it needs.

    The exact window starts at 64 terms and grows only for entries whose lower and
    upper bounds on p (``_log_alpha``) fall on both sides of τ; at W ≥ v they agree."""
    q = expit(eps)
    log_beta = binom.logsf(v - 1, r, q)
    result = log_beta <= log_tau
    if delta == 0.0:
        return result
    log_c = np.log(2.0 * m * delta)
    todo = np.flatnonzero(result)      # β > τ already decides "not refuted"
    width = 64
    while todo.size:
        low, high = _log_alpha(r[todo], v[todo], q[todo], width)
        with np.errstate(invalid="ignore"):
            p_low = np.logaddexp(log_beta[todo], log_c + low)
            p_high = np.logaddexp(log_beta[todo], log_c + high)
        result[todo[p_low > log_tau]] = False
        todo = todo[(p_low <= log_tau) & (p_high > log_tau)]
        width = int(v.max()) if todo.size < 8 else width * 8
    return result


def p_value(m: int, r: int, v: int, eps: float, delta: float = 0.0) -> float:
    """The p-value of the claim "(ε, δ)-DP" from a one-run audit (Steinke et al. 2023).

    p(ε, δ) = min(β + 2mδ·α, 1), β = P[Bin(r, e^ε/(1+e^ε)) ≥ v],
    α = max_{1≤i≤v} (P[Bin(r, ·) ≥ v − i] − β)/i (arXiv 2305.08846, main theorem).

    Parameters
    ----------
    m : int
        Number of canaries (each included independently with probability ½), ≥ 1.
    r : int
        Number of guesses, in [0, m].
    v : int
        Number of correct guesses, in [0, r].
    eps : float
        Claimed ε ≥ 0.
    delta : float, optional
        Claimed δ in [0, 1] (default 0).

    Returns
    -------
    float
        The p-value in [0, 1].

    Examples
    --------
    >>> from fdp.audit import steinke_p_value
    >>> print(f"{steinke_p_value(1000, 10, 10, 1.0):.6f}")      # expit(1)**10
    0.043604
    """
    m, r, v = check_counts(m, r, v)
    e = _validate.real("eps", eps, low=0.0)
    d = _validate.probability("delta", delta)
    return float(np.exp(log_p_value(m, r, v, e, d)[()]))


def epsilon_lower_bounds(m: int, r: ArrayLike, v: ArrayLike, significance: float,
                         delta: float) -> FloatArray:
    """Largest ε refuted at ``significance`` for each guess count pair (vectorised in r, v).

    All pairs are bisected at once; pairs that cannot refute even ε = 0 at δ = 0 are
    left out (their bound is 0).

    Parameters
    ----------
    m : int
        Number of canaries.
    r, v : array_like of int
        Guesses and correct guesses (validated by the caller).
    significance : float
        The level τ in (0, 1) at which each pair is tested.
    delta : float
        δ in [0, 1].

    Returns
    -------
    ndarray
        ε* per pair (0 where nothing is refuted).
    """
    rr = np.atleast_1d(np.asarray(r, dtype=np.int64))
    vv = np.atleast_1d(np.asarray(v, dtype=np.int64))
    log_tau = float(np.log(significance))
    out = np.zeros(rr.shape, dtype=float)
    # p(0, 0) ≤ τ is needed for anything to be refuted (p increases with ε and δ)
    useful = (vv > 0) & (2 * vv > rr)
    useful &= binom.logsf(vv - 1, rr, 0.5) <= log_tau
    if not useful.any():
        return out
    ru, vu = rr[useful], vv[useful]

    def not_refuted(e: np.ndarray) -> np.ndarray:
        return ~_refuted(m, ru, vu, e, delta, log_tau)

    lo, _ = bisect_monotone(not_refuted, np.zeros(ru.shape), np.full(ru.shape, _EPS_MAX),
                            rtol=1e-12, atol=1e-12)
    out[useful] = lo
    return out


def epsilon_lower_bound(m: int, r: int, v: int, significance: float = 0.05,
                        delta: float = 0.0) -> float:
    """Empirical lower bound on ε from a one-run audit (Steinke, Nasr & Jagielski 2023).

    The largest ε with p(ε, δ) ≤ τ (``p_value``); 0 when even ε = 0 is not refuted
    (in particular for negative evidence v ≤ r/2).

    Parameters
    ----------
    m : int
        Number of canaries, ≥ 1.
    r : int
        Number of guesses, in [0, m].
    v : int
        Number of correct guesses, in [0, r].
    significance : float, optional
        τ in (0, 1) (default 0.05).
    delta : float, optional
        δ in [0, 1] (default 0).

    Returns
    -------
    float
        ε* ≥ 0.

    Examples
    --------
    All r guesses correct at δ = 0 give the closed form logit(τ^{1/r}):

    >>> import math
    >>> from fdp.audit import steinke_epsilon
    >>> e = steinke_epsilon(1000, 100, 100, 0.05)
    >>> t = 0.05 ** (1 / 100)
    >>> abs(e - math.log(t / (1 - t))) < 1e-9
    True
    >>> steinke_epsilon(1000, 100, 50, 0.05)             # chance level: no leakage
    0.0
    """
    m, r, v = check_counts(m, r, v)
    tau = _validate.real("significance", significance, low=0.0, high=1.0, low_open=True,
                         high_open=True)
    d = _validate.probability("delta", delta)
    return float(epsilon_lower_bounds(m, r, v, tau, d)[0])


__all__ = ["epsilon_lower_bound", "p_value"]
