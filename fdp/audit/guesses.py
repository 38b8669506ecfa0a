"""From canary scores to guess counts (r, v): the guess sets a one-run audit may try.

The derivation: docs/derivations/audits.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp._types import ArrayLike

_FAMILIES = ("one_sided", "two_sided")
_CORRECTIONS = ("all", "hull")


@dataclass(frozen=True)
class GuessCounts:
    """Candidate guess sets of a one-run audit as counts.

    Parameters
    ----------
    m : int
        Number of canaries (in and out).
    r, v : tuple of int
        Guesses and correct guesses of each candidate kept.
    n_tests : int
        The Bonferroni divisor K (candidates counted by the correction).
    family : str
        ``"one_sided"`` or ``"two_sided"``.
    correction : str
        ``"all"`` or ``"hull"``.

    Examples
    --------
    >>> from fdp.audit import guess_counts
    >>> g = guess_counts([3.0, 4.0], [1.0, 2.0])
    >>> type(g).__name__, g.n_tests
    ('GuessCounts', 5)
    """

    m: int
    r: tuple[int, ...]
    v: tuple[int, ...]
    n_tests: int
    family: str
    correction: str


def _scores(name: str, values: ArrayLike) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of scores, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must be non-empty")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite numbers (no NaN or inf)")
    return arr


def _upper_hull(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the vertices of the upper concave hull of points sorted by x
    (Andrew's monotone chain; collinear points dropped)."""
    keep: list[int] = []
    for i in range(x.size):
        while len(keep) >= 2:
            a, b = keep[-2], keep[-1]
            cross = (x[b] - x[a]) * (y[i] - y[a]) - (y[b] - y[a]) * (x[i] - x[a])
            if cross >= 0:      # b lies on or below the chord a–i
                keep.pop()
            else:
                break
        keep.append(i)
    return np.asarray(keep, dtype=np.int64)


def guess_counts(in_scores: ArrayLike, out_scores: ArrayLike, *, family: str = "one_sided",
                 correction: str = "all") -> GuessCounts:
    """The candidate guess sets (r, v) for in- and out-canary scores (docs/derivations/audits.md).

    Parameters
    ----------
    in_scores : array_like
        Scores of the included canaries (1-D, finite, non-empty).
    out_scores : array_like
        Scores of the excluded canaries (1-D, finite, non-empty).
    family : {"one_sided", "two_sided"}, optional
        Which guess sets (default ``"one_sided"``).
    correction : {"all", "hull"}, optional
        How the Bonferroni divisor is counted (default ``"all"``; ``"hull"`` only with
        ``"one_sided"``).

    Returns
    -------
    GuessCounts
        The candidates and the divisor.

    Raises
    ------
    ValueError
        For empty, non-1-D or non-finite scores, or an unknown family or correction.

    Examples
    --------
    >>> from fdp.audit import guess_counts
    >>> g = guess_counts([3.0, 4.0], [1.0, 2.0])
    >>> g.r, g.v, g.n_tests
    ((4, 3, 2, 1, 0), (2, 2, 2, 1, 0), 5)
    """
    x_in = _scores("in_scores", in_scores)
    x_out = _scores("out_scores", out_scores)
    if family not in _FAMILIES:
        raise ValueError(f"family must be one of {_FAMILIES}, got {family!r}")
    if correction not in _CORRECTIONS:
        raise ValueError(f"correction must be one of {_CORRECTIONS}, got {correction!r}")
    if correction == "hull" and family != "one_sided":
        raise ValueError("correction='hull' is defined for family='one_sided' only")
    m = x_in.size + x_out.size
    s_in, s_out = np.sort(x_in), np.sort(x_out)
    if family == "one_sided":
        t = np.concatenate([np.union1d(s_in, s_out), [np.inf]])
        fn = np.searchsorted(s_in, t, side="left")     # in-canaries below t
        tn = np.searchsorted(s_out, t, side="left")    # out-canaries below t
        if correction == "hull":
            idx = _upper_hull(fn.astype(float), tn.astype(float))
            fn, tn = fn[idx], tn[idx]
        v = x_in.size - fn
        r = v + (x_out.size - tn)
        return GuessCounts(m, tuple(int(a) for a in r), tuple(int(a) for a in v),
                           int(r.size), family, correction)
    # two-sided: top k "in", bottom k "out"; cuts only between distinct scores
    allv = np.concatenate([x_in, x_out])
    lab = np.concatenate([np.ones(x_in.size, bool), np.zeros(x_out.size, bool)])
    order = np.argsort(allv, kind="stable")
    s, lab = allv[order], lab[order]
    ks = np.arange(0, m // 2 + 1)
    ok_bottom = (ks == 0) | (ks == m) | np.r_[True, s[1:] != s[:-1], True][ks]
    top_cut = m - ks
    ok_top = (ks == 0) | np.r_[True, s[1:] != s[:-1], True][top_cut]
    ks = ks[ok_bottom & ok_top]
    in_cum = np.r_[0, np.cumsum(lab)]        # in-canaries among the lowest j
    out_bottom = ks - in_cum[ks]
    in_top = in_cum[m] - in_cum[m - ks]
    r = 2 * ks
    v = in_top + out_bottom
    return GuessCounts(m, tuple(int(a) for a in r), tuple(int(a) for a in v), int(r.size),
                       family, correction)


__all__ = ["GuessCounts", "guess_counts"]
