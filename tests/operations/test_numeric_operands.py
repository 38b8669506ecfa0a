"""Operations on numeric results keep both sides of the bracket.

h is G_√2 forced through the engine. Every operation must give β, δ(ε) and ε(δ) brackets
with lower ≤ truth ≤ upper, where the truth is computed here independently: G_μ by
Φ(Φ⁻¹(1 − α) − μ) (scipy), δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor 2.13),
Poisson subsampling f_p = p G + (1 − p) Id with its profile by direct integration, and
C_p(G) by the formula of DRS Thm 4.2 (fixed point x* = Φ(−μ/2), inverse by brentq).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.special import ndtr, ndtri

import fdp
from fdp.engine import compose_numeric

ALPHA = np.array([1e-8, 1e-4, 1e-2, 0.05, 0.2, 0.4, 0.7, 0.95])
EPS = np.array([-1.0, 0.0, 0.3, 1.0, 2.5, 4.0])


# ----------------------------------------------------------------------
# Independent truths
# ----------------------------------------------------------------------
def g_beta(mu, a):
    return ndtr(-ndtri(np.asarray(a, dtype=float)) - mu)


def g_delta(mu, e):
    e = np.asarray(e, dtype=float)
    return ndtr(-e / mu + mu / 2) - np.exp(e) * ndtr(-e / mu - mu / 2)


def add_beta(mu, p, a):
    return p * g_beta(mu, a) + (1 - p) * (1 - np.asarray(a))


def add_delta(mu, p, e):
    """∫ ((1 − p)φ(x) + pφ(x − μ) − e^ε φ(x))₊ dx, positive for x > x0."""
    out = []
    for eps in np.atleast_1d(e):
        c = (np.exp(eps) - (1 - p)) / p
        if c <= 0:
            out.append(1 - np.exp(eps))
            continue
        x0 = np.log(c) / mu + mu / 2
        out.append((1 - p) * ndtr(-x0) + p * ndtr(mu - x0) - np.exp(eps) * ndtr(-x0))
    return np.array(out)


def inverse_of(beta, a):
    """f⁻¹(α) = inf{t : f(t) ≤ α} for a continuous decreasing f on [0, 1]."""
    out = []
    for x in np.atleast_1d(a):
        if beta(0.0) <= x:
            out.append(0.0)
        else:
            out.append(brentq(lambda t, x=x: beta(t) - x, 0.0, 1.0, xtol=1e-15, rtol=1e-15))
    return np.array(out)


def remove_beta(mu, p, a):
    return inverse_of(lambda t: float(add_beta(mu, p, t)), a)


def remove_delta(mu, p, e):
    e = np.asarray(e, dtype=float)
    return 1 - np.exp(e) + np.exp(e) * add_delta(mu, p, -e)


def cp_beta(mu, p, a):
    """C_p(G_μ) (DRS Thm 4.2): f_p on [0, x*], slope −1 on [x*, f_p(x*)], f_p⁻¹ after."""
    a = np.asarray(a, dtype=float)
    x = ndtr(-mu / 2)
    y = float(add_beta(mu, p, x))
    return np.where(a <= x, add_beta(mu, p, a),
                    np.where(a <= y, x + y - a, remove_beta(mu, p, a)))


def cp_delta(mu, p, e):
    return np.maximum(add_delta(mu, p, e), remove_delta(mu, p, e))


def eps_of(delta_fn, d):
    """Smallest ε ≥ 0 with δ(ε) ≤ d, by bisection on an independent δ."""
    if delta_fn(np.array([0.0]))[0] <= d:
        return 0.0
    lo, hi = 0.0, 1.0
    while delta_fn(np.array([hi]))[0] > d:
        lo, hi = hi, 2 * hi
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if delta_fn(np.array([mid]))[0] <= d else (mid, hi)
    return hi


# ----------------------------------------------------------------------
# The checks
# ----------------------------------------------------------------------
def assert_brackets(f, beta, delta, delta_target=1e-5, eps_truth=None, atol=2e-15):
    assert not f.is_exact
    lo, hi = f.bounds(ALPHA)
    t = beta(ALPHA)
    assert np.all(lo <= t + atol), (lo - t)
    assert np.all(hi >= t - atol), (t - hi)
    td = delta(EPS)
    dl, dh = f._delta_lower(EPS), f.delta(EPS)
    assert np.all(dl <= td + atol), (dl - td)
    assert np.all(dh >= td - atol), (td - dh)
    if eps_truth is None:
        eps_truth = eps_of(delta, delta_target)
    el, eh = f.epsilon_bounds(delta_target)
    assert el <= eps_truth + 1e-9 and eh >= eps_truth - 1e-9, (el, eps_truth, eh)
    return lo, hi


@pytest.fixture(scope="module")
def h():
    return compose_numeric([(fdp.Gaussian(1.0), 2)])


R2 = np.sqrt(2.0)


def test_group_two_of_numeric(h):
    """Was lower = upper, ε lower 3e-4 above the truth: G_√2.group(2) = G_{2√2}."""
    lo, hi = assert_brackets(h.group(2), lambda a: g_beta(2 * R2, a), lambda e: g_delta(2 * R2, e))
    assert np.any(hi > lo)


def test_group_three_of_numeric_is_not_infinite_below(h):
    """Was ε(1e-5) = [∞, ∞]; truth 26.40 (G_{3√2}). The upper side may be ∞: the
    engine's cut tail (mass ~1e-12 at +∞) grows to > 1e-5 in three group steps."""
    f = h.group(3)
    el, eh = f.epsilon_bounds(1e-5)
    truth = eps_of(lambda e: g_delta(3 * R2, e), 1e-5)
    assert truth == pytest.approx(26.4049, abs=1e-3)
    assert np.isfinite(el) and el <= truth <= eh


def test_symmetrize_of_numeric(h):
    for f in (h.symmetrize(), h.symmetrize(one_sided=True)):
        assert_brackets(f, lambda a: g_beta(R2, a), lambda e: g_delta(R2, e))


@pytest.mark.slow
def test_strongest_and_envelope_of_numeric(h):
    assert_brackets(fdp.strongest(h, fdp.Gaussian(3.0)), lambda a: g_beta(R2, a),
                    lambda e: g_delta(R2, e))
    assert_brackets(fdp.envelope(h, fdp.Gaussian(1.0)), lambda a: g_beta(R2, a),
                    lambda e: g_delta(R2, e))


def test_inverse_of_numeric(h):
    assert_brackets(h.inverse(), lambda a: g_beta(R2, a), lambda e: g_delta(R2, e))


def test_without_replacement_of_numeric_is_not_exact(h):
    """Was is_exact=True with lower = upper: C_p(G_√2) by the DRS Thm 4.2 formula."""
    p = 0.3
    f = h.subsample(p, sampling="without_replacement")
    assert f.is_exact is False
    lo, hi = assert_brackets(f, lambda a: cp_beta(R2, p, a), lambda e: cp_delta(R2, p, e))
    assert np.any(hi > lo)
    # the exact input keeps the closed form and says so
    assert fdp.Gaussian(R2).subsample(p, sampling="without_replacement").is_exact


@pytest.mark.parametrize("direction", ["both", "add", "remove"])
def test_poisson_subsampling_of_numeric(h, direction):
    p = 0.3
    beta = {"both": lambda a: cp_beta(R2, p, a), "add": lambda a: add_beta(R2, p, a),
            "remove": lambda a: remove_beta(R2, p, a)}[direction]
    delta = {"both": lambda e: cp_delta(R2, p, e), "add": lambda e: add_delta(R2, p, e),
             "remove": lambda e: remove_delta(R2, p, e)}[direction]
    assert_brackets(h.subsample(p, direction=direction), beta, delta)


def test_with_delta_and_composition_of_numeric(h):
    d = 1e-3
    f = h @ fdp.EpsDelta(0.0, d)
    assert_brackets(f, lambda a: np.where(
        a < 1 - d, (1 - d) * g_beta(R2, np.minimum(a / (1 - d), 1)), 0.0),
                    lambda e: d + (1 - d) * g_delta(R2, e), delta_target=2e-3)
    assert_brackets(h @ fdp.Gaussian(1.0), lambda a: g_beta(np.sqrt(3.0), a),
                    lambda e: g_delta(np.sqrt(3.0), e))


OPS = ["inverse", "sym", "sym1", "strongest", "group2", "cp", "poisson", "add", "remove"]


@settings(max_examples=6)
@given(mu=st.floats(0.5, 1.5), op=st.sampled_from(OPS), p=st.floats(0.05, 0.9))
@pytest.mark.slow
def test_operations_on_numeric_results_bracket_the_truth(mu, op, p):
    """A numeric G_μ (tol = 1e-3, cheap) through one operation: lower ≤ truth ≤ upper."""
    h = compose_numeric([(fdp.Gaussian(mu / np.sqrt(2.0)), 2)], tol=1e-3)
    f, beta, delta = {
        "inverse": (h.inverse(), lambda a: g_beta(mu, a), lambda e: g_delta(mu, e)),
        "sym": (h.symmetrize(), lambda a: g_beta(mu, a), lambda e: g_delta(mu, e)),
        "sym1": (h.symmetrize(one_sided=True), lambda a: g_beta(mu, a), lambda e: g_delta(mu, e)),
        "strongest": (fdp.strongest(h, fdp.Gaussian(2 * mu)), lambda a: g_beta(mu, a),
                      lambda e: g_delta(mu, e)),
        "group2": (h.group(2), lambda a: g_beta(2 * mu, a), lambda e: g_delta(2 * mu, e)),
        "cp": (h.subsample(p, sampling="without_replacement"), lambda a: cp_beta(mu, p, a),
               lambda e: cp_delta(mu, p, e)),
        "poisson": (h.subsample(p), lambda a: cp_beta(mu, p, a), lambda e: cp_delta(mu, p, e)),
        "add": (h.subsample(p, direction="add"), lambda a: add_beta(mu, p, a),
                lambda e: add_delta(mu, p, e)),
        "remove": (h.subsample(p, direction="remove"), lambda a: remove_beta(mu, p, a),
                   lambda e: remove_delta(mu, p, e)),
    }[op]
    assert_brackets(f, beta, delta, delta_target=1e-3)


def test_large_group_of_numeric_by_doubling():
    """A numeric G_0.01 (tol 1e-3) in groups of 300 (the doubling route): G_3 is bracketed."""
    h = compose_numeric([(fdp.Gaussian(0.01 / R2), 2)], tol=1e-3)
    f = h.group(300)
    lo, hi = f.bounds(ALPHA)
    t = g_beta(3.0, ALPHA)
    assert np.all(lo <= t + 2e-15) and np.all(hi >= t - 2e-15)
    e = EPS[EPS >= 0]
    assert np.all(f._delta_lower(e) <= g_delta(3.0, e) + 2e-15)
    assert np.all(f.delta(e) >= g_delta(3.0, e) - 2e-15)
    el, eh = f.epsilon_bounds(1e-5)
    assert el <= eps_of(lambda x: g_delta(3.0, x), 1e-5) <= eh
