"""One-run (ε, δ) audit of Steinke, Nasr & Jagielski (2023): closed forms, an independent
direct evaluation of p(ε, δ), and jax_privacy's published reference values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import scipy.stats
from scipy.special import expit

from fdp.audit import guess_counts, steinke_epsilon, steinke_p_value
from fdp.audit.steinke import epsilon_lower_bounds


def _direct_p(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """p(ε, δ) summed term by term in linear space (independent of the log-space code)."""
    q = expit(eps)
    beta = scipy.stats.binom.sf(v - 1, r, q)
    alpha = max([(scipy.stats.binom.sf(v - i - 1, r, q) - beta) / i
                 for i in range(1, v + 1)], default=0.0)
    return min(beta + 2 * m * delta * alpha, 1.0)


@pytest.mark.parametrize("m,r,v", [(100, 10, 9), (1000, 100, 80), (1000, 500, 300),
                                   (50, 50, 50), (10, 1, 1)])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0])
@pytest.mark.parametrize("delta", [0.0, 1e-6, 1e-2])
def test_p_value_matches_direct_sum(m: int, r: int, v: int, eps: float, delta: float) -> None:
    assert steinke_p_value(m, r, v, eps, delta) == pytest.approx(_direct_p(m, r, v, eps, delta),
                                                                 rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("r", [1, 10, 100, 1000])
@pytest.mark.parametrize("tau", [0.05, 1e-3])
def test_all_correct_closed_form(r: int, tau: float) -> None:
    """All r guesses correct at δ = 0: p = expit(ε)^r, so ε* = max(0, logit(τ^{1/r}))."""
    t = tau ** (1.0 / r)
    assert steinke_epsilon(10 * r, r, r, tau) == pytest.approx(max(0.0, math.log(t / (1 - t))),
                                                               rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("r,v", [(100, 50), (100, 10), (101, 50), (10, 0)])
def test_negative_evidence_is_zero(r: int, v: int) -> None:
    assert steinke_epsilon(1000, r, v, 0.05, 1e-6) == 0.0


def test_bound_is_the_refutation_edge() -> None:
    e = steinke_epsilon(1000, 200, 180, 0.05, 1e-5)
    assert steinke_p_value(1000, 200, 180, e, 1e-5) <= 0.05
    assert steinke_p_value(1000, 200, 180, e * (1 + 1e-6) + 1e-9, 1e-5) > 0.05


@pytest.mark.parametrize("kwargs,name", [({"m": 0}, "m"), ({"r": 20}, "r"), ({"v": 11}, "v"),
                                         ({"significance": 0.0}, "significance"),
                                         ({"significance": 1.0}, "significance"),
                                         ({"delta": 1.5}, "delta")])
def test_bad_input_names_parameter(kwargs: dict, name: str) -> None:
    args: dict[str, Any] = {"m": 10, "r": 10, "v": 10, "significance": 0.05, "delta": 0.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        steinke_epsilon(**args)


def _deterministic_normal(mu: float, n: int) -> np.ndarray:
    return scipy.stats.norm.ppf(np.linspace(0, 1, n, endpoint=False) + 1 / (2 * n)) + mu


@pytest.mark.slow
@pytest.mark.parametrize("shift,expected", [(0, 0.0), (1, 1.13346), (2, 2.311945)])
def test_jax_privacy_reference_values(shift: float, expected: float) -> None:
    """jax_privacy tests/auditing_test.py ``test_epsilon_one_run_close``.

    Their fixture: n = 10 000 in- and 10 000 out-canary scores at the quantiles
    (i + ½)/n of N(shift, 1) and N(0, 1); m = 20 000; one-sided guesses (score ≥ t is
    "in"); significance 0.05 with Bonferroni over the vertices of the ROC hull
    (``correction="hull"``); δ = 1e-6; their tolerance rtol 1e-5.
    """
    g = guess_counts(_deterministic_normal(shift, 10_000), _deterministic_normal(0, 10_000),
                     correction="hull")
    eps = float(epsilon_lower_bounds(g.m, g.r, g.v, 0.05 / g.n_tests, 1e-6).max())
    assert eps == pytest.approx(expected, rel=5e-6, abs=1e-12)
