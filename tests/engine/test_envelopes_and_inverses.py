"""Envelopes through the engine, exact inverses and symmetrisations of numeric results,
and the blocked suffix sums of the read-back, against independent computations."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.engine import DEFAULT_TOL, compose_numeric
from fdp.engine.discretise import discretise
from fdp.engine.lattice import suffix_error, suffix_sums
from fdp.operations.subsample import PoissonAdd

A = np.linspace(0.0, 1.0, 401)
EPS = np.linspace(-6.0, 6.0, 1201)


def _pair_of_piecewise(f):
    """The finite pair of a piecewise-linear trade-off function, from its vertices."""
    a, b = np.asarray(f.alphas), np.asarray(f.betas)
    p = np.concatenate([[0.0], np.diff(a)])              # first atom: Q-mass 1 − f(0), P = 0
    q = np.concatenate([[1.0 - b[0]], -np.diff(b)])
    if a[-1] < 1.0:                                        # f = 0 after its last vertex
        p = np.concatenate([p, [1.0 - a[-1]]])
        q = np.concatenate([q, [0.0]])
    keep = (p > 0) | (q > 0)
    return fdp.from_pair(p[keep], q[keep])


def _random_pair(rng, k=4):
    p = rng.random(k) + 0.05
    q = rng.random(k) + 0.05
    return fdp.from_pair(p / p.sum(), q / q.sum())


# ----------------------------------------------------------------------
# Read-back sums
# ----------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5000), st.sampled_from([1.0, math.exp(-1e-4), math.exp(-0.7)]),
       st.integers(0, 2 ** 31))
def test_suffix_sums_within_their_error_bound(n, decay, seed):
    rng = np.random.default_rng(seed)
    q = rng.random(n) ** 8
    got = suffix_sums(q, decay)
    ref = np.zeros(n, dtype=np.longdouble)
    acc = np.longdouble(0.0)
    for i in range(n - 1, -1, -1):
        acc = np.longdouble(q[i]) + np.longdouble(decay) * acc
        ref[i] = acc
    err = np.abs(got.astype(np.longdouble) - ref)
    assert np.all(err <= suffix_error(n) * ref + 1e-300)


# ----------------------------------------------------------------------
# Envelopes (min{f, g}**) discretised from their members
# ----------------------------------------------------------------------
def _vertices(pair):
    """Neyman–Pearson vertices of a finite pair (atoms sorted by likelihood ratio)."""
    p, q = np.asarray(pair.p), np.asarray(pair.q)
    return (np.clip(np.concatenate([[0.0], np.cumsum(p)]), 0.0, 1.0),
            np.clip(np.concatenate([[1.0], 1.0 - np.cumsum(q)]), 0.0, 1.0))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 31))
def test_envelope_of_finite_pairs_composes_to_the_exact_product(seed):
    # min{f, g}** of two piecewise-linear functions is the lower convex hull of their
    # vertices (an exact piecewise-linear function), whose pair composes exactly
    rng = np.random.default_rng(seed)
    f, g = _random_pair(rng), _random_pair(rng)
    (fa, fb), (ga, gb) = _vertices(f), _vertices(g)
    hull = fdp.from_points(np.concatenate([fa, ga]), np.clip(np.concatenate([fb, gb]), 0, 1))
    exact_pair = _pair_of_piecewise(hull)
    env = fdp.envelope(f, g)
    assert np.max(np.abs(env(A) - hull(A))) < 1e-12
    for n in (1, 3):
        r = compose_numeric([(env, n)], tol=1e-6)
        truth = exact_pair ** n
        lo, hi = r.bounds(A)
        t = truth(A)
        assert np.all(lo <= t + 1e-12) and np.all(t <= hi + 1e-12)
        d = truth.delta(EPS)
        assert np.all(r._delta_lower(EPS) <= d + 1e-12)
        assert np.all(d <= r._delta(EPS) + 1e-12)
        assert np.max(hi - lo) < 1e-3


def test_envelope_delta_bracket_one_step_and_composed():
    # the one-step lattices bracket the exact profile max(δ_add, δ_remove); the
    # composition's bracket is consistent across tolerances and shrinks
    f = fdp.Gaussian(1.0).subsample(0.05)
    for step in (1e-3, 3.2e-3):
        lp, lo = discretise(f, step)
        truth = f.delta(EPS)
        assert np.all(lp.delta_raw(EPS) + lp.slack >= truth - 1e-12)
        assert np.all(lo.delta_raw(EPS) - lo.slack <= truth + 1e-12)
        for lat in (lp, lo):
            assert abs(lat.mass - 1.0) <= 1e-12
    brackets = [compose_numeric([(f, 20)], tol=tol).epsilon_bounds(1e-5)
                for tol in (1e-3, 1e-5)]
    (lo1, hi1), (lo2, hi2) = brackets
    assert lo1 <= hi2 and lo2 <= hi1                        # both certified: they overlap
    assert hi2 - lo2 < hi1 - lo1


def test_envelope_of_ordered_gaussians_is_the_weaker_one():
    # G_0.5 ≤ G_0.3 everywhere, so min{G_0.5, G_0.3}** = G_0.5 and four of them G_1
    env = fdp.envelope(fdp.Gaussian(0.5), fdp.Gaussian(0.3))
    r = compose_numeric([(env, 4)], tol=1e-5)
    lo, hi = r.bounds(A)
    g = fdp.Gaussian(1.0)(A)
    assert np.all(lo <= g + 1e-12) and np.all(g <= hi + 1e-12)
    assert np.max(hi - lo) < 1e-4


# ----------------------------------------------------------------------
# Inverse and one-sided symmetrisation of numeric results
# ----------------------------------------------------------------------
def test_numeric_inverse_brackets_the_exact_inverse():
    rng = np.random.default_rng(11)
    pair = _random_pair(rng, 5)
    r = compose_numeric([(pair, 6)], tol=1e-6)
    inv = r.inverse()
    assert type(inv).__name__ == "Numeric"
    exact = (pair ** 6).inverse()                          # exact pair arithmetic
    lo, hi = inv.bounds(A)
    truth = exact(A)
    assert np.all(lo <= truth + 1e-12) and np.all(truth <= hi + 1e-12)
    d = exact.delta(EPS)
    assert np.all(inv._delta_lower(EPS) <= d + 1e-12) and np.all(d <= inv._delta(EPS) + 1e-12)


def test_numeric_inverse_is_an_involution_on_the_curve():
    r = compose_numeric([(PoissonAdd(fdp.Gaussian(1.0), 0.2), 30)], tol=1e-5)
    inv = r.inverse()
    x = np.linspace(0.02, 0.98, 49)
    assert np.max(np.abs(inv(r(x)) - x)) < 1e-6


def test_one_sided_symmetrisation_matches_dpsgd():
    sigma, q, steps = 1.0, 0.05, 200
    f_add = PoissonAdd(fdp.Gaussian(1.0 / sigma), q) ** steps
    sym = f_add.symmetrize(one_sided=True)
    ref = fdp.dpsgd(sigma, q, steps, tol=DEFAULT_TOL)     # the grid ** uses
    assert sym.symmetric
    lo, hi = sym.epsilon_bounds(1e-5)
    r_lo, r_hi = ref.epsilon_bounds(1e-5)
    assert lo <= r_hi and r_lo <= hi
    assert abs(lo - r_lo) < 1e-9 and abs(hi - r_hi) < 1e-9
    # and it is much weaker than symmetrising each step (envelope per step, composed)
    per_step = fdp.Gaussian(1.0 / sigma).subsample(q) ** steps
    assert per_step.epsilon_bounds(1e-5)[0] > hi


def test_normal_cells_match_mpmath_in_both_tails():
    import mpmath as mp

    from fdp.families.gaussian import normal_cells
    mp.mp.dps = 40
    z = np.unique(np.concatenate([np.linspace(-12.0, 12.0, 49), [0.0, 1e-3, -1e-3, 30.0]]))
    got = normal_cells(z)
    edges = [-mp.inf] + [mp.mpf(float(v)) for v in z] + [mp.inf]
    ref = np.array([float(mp.ncdf(b) - mp.ncdf(a)) for a, b in itertools.pairwise(edges)])
    live = ref > 1e-300
    # adjacent tail values are differenced: relative error ≤ u·|c_i|/|c_i − c_{i+1}|
    assert np.allclose(got[live], ref[live], rtol=1e-8, atol=0.0)
    assert np.all(got >= 0.0) and abs(got.sum() - 1.0) < 1e-15


# ----------------------------------------------------------------------
# Operands known only through their curve (privacy-profile discretisation)
# ----------------------------------------------------------------------
def test_user_function_composition_brackets_the_closed_form():
    g = fdp.Gaussian(0.6)
    u = fdp.from_function(lambda a: g(a))
    r = compose_numeric([(u, 5)], tol=1e-3)
    exact = fdp.Gaussian(0.6 * math.sqrt(5.0))
    lo, hi = r.bounds(A)
    t = exact(A)
    assert np.all(lo <= t + 1e-9) and np.all(t <= hi + 1e-9)
    assert np.max(hi - lo) < 5e-3                      # both sides informative
    e_lo, e_hi = r.epsilon_bounds(1e-5)
    assert e_lo <= exact.epsilon(1e-5) <= e_hi and e_hi - e_lo < 0.05


def test_piecewise_composition_brackets_the_exact_product():
    x = np.linspace(0.0, 1.0, 41)
    pl = fdp.from_points(x, fdp.Laplace(0.8)(x))
    exact = _pair_of_piecewise(pl) ** 4                   # exact pair arithmetic
    r = compose_numeric([(pl, 4)], tol=1e-5)
    lo, hi = r.bounds(A)
    t = exact(A)
    assert np.all(lo <= t + 1e-9) and np.all(t <= hi + 1e-9)
    assert np.max(hi - lo) < 5e-3
    d = exact.delta(EPS)
    assert np.all(r._delta_lower(EPS) <= d + 1e-9) and np.all(d <= r._delta(EPS) + 1e-9)


def test_reprs_say_one_direction_only_where_it_is_so():
    f_add = PoissonAdd(fdp.Gaussian(1.0), 0.05)
    sym = fdp.Gaussian(1.0).subsample(0.05)                 # both directions: a guarantee
    assert "one direction" not in repr(sym)
    assert repr(f_add ** 3).endswith("# one direction only, not a guarantee")
    assert repr(f_add ** 3).count("#") == 1
    assert "one direction" not in repr((f_add ** 3).symmetrize(one_sided=True))
    assert "one direction" in repr(fdp.envelope(f_add, fdp.Gaussian(2.0)))
