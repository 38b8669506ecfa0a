"""Scores to guess sets: counts by exact enumeration, ties never split, the hull count."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fdp
from fdp.audit import guess_counts, one_run


def _enumerate_one_sided(x_in: np.ndarray, x_out: np.ndarray) -> set[tuple[int, int]]:
    out = set()
    for t in list(np.concatenate([x_in, x_out])) + [np.inf]:
        v = int(np.sum(x_in >= t))
        out.add((v + int(np.sum(x_out >= t)), v))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_one_sided_counts_match_enumeration(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x_in = rng.integers(0, 6, size=7).astype(float)       # ties on purpose
    x_out = rng.integers(0, 6, size=9).astype(float)
    g = guess_counts(x_in, x_out)
    assert set(zip(g.r, g.v)) == _enumerate_one_sided(x_in, x_out)
    assert g.n_tests == len(np.unique(np.concatenate([x_in, x_out]))) + 1
    assert g.m == 16


def test_two_sided_counts_and_ties() -> None:
    x_in, x_out = np.array([5.0, 4.0, 2.0]), np.array([1.0, 3.0, 4.0])
    g = guess_counts(x_in, x_out, family="two_sided")
    # sorted: 1o 2i 3o 4i 4o 5i; k = 0, 1, 3 (k = 2 would split the tie at 4)
    assert g.r == (0, 2, 6)
    assert g.v == (0, 2, 4)          # k = 1: 5i in, 1o out; k = 3: 2 in + 2 out correct


def test_hull_keeps_only_roc_vertices() -> None:
    x_in = np.array([3.0, 2.0, 1.5])
    x_out = np.array([0.0, 1.0, 2.5])
    g_all = guess_counts(x_in, x_out)
    g_hull = guess_counts(x_in, x_out, correction="hull")
    assert set(zip(g_hull.r, g_hull.v)) <= set(zip(g_all.r, g_all.v))
    assert g_hull.n_tests < g_all.n_tests
    # brute force: the kept points are the vertices of the upper concave hull of (fn, tn)
    fn = [3 - v for v in g_all.v]
    tn = [3 - (r - v) for r, v in zip(g_all.r, g_all.v)]
    pts = sorted(set(zip(fn, tn)))
    kept = {(3 - v, 3 - (r - v)) for r, v in zip(g_hull.r, g_hull.v)}
    for a, b, c in itertools.combinations(pts, 3):
        cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        if cross >= 0:                 # b on or below the chord a–c: not a vertex
            assert b not in kept


@pytest.mark.parametrize("kwargs,name", [
    ({"in_scores": []}, "in_scores"), ({"out_scores": [[1.0, 2.0]]}, "out_scores"),
    ({"in_scores": [np.nan]}, "in_scores"), ({"family": "both"}, "family"),
    ({"correction": "holm"}, "correction"),
    ({"family": "two_sided", "correction": "hull"}, "hull")])
def test_bad_input(kwargs: dict[str, object], name: str) -> None:
    args: dict[str, object] = {"in_scores": [1.0, 2.0], "out_scores": [0.0]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        guess_counts(**args)  # type: ignore[arg-type]


@pytest.mark.slow
def test_two_sided_front_door_finds_leakage() -> None:
    rng = np.random.default_rng(1)
    incl = rng.random(400) < 0.5
    s = rng.standard_normal(400) + 4.0 * incl
    res = one_run(fdp.Gaussian(0.3), s[incl], s[~incl], family="two_sided")
    assert res.refuted and res.mu_lower_bound > 0.3 and res.epsilon_lower_bound > 0
    assert res.n_tests == len(guess_counts(s[incl], s[~incl], family="two_sided").r)
