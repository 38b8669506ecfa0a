"""The mixture-of-Gaussians law in the engine: masses against mpmath, brackets, peers."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.engine import compose_numeric
from fdp.families.mixture import RevealedMixture
from fdp.law import interval_masses_of as interval_masses
from fdp.law import loss_range_of as loss_range

M1 = fdp.MixtureOfGaussians(1.0, [0.0, 1.0, 2.0], [0.2, 0.6, 0.2])
M2 = fdp.MixtureOfGaussians(2.0, [0.0, 2.0, 3.0], [0.33, 0.34, 0.33])


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath at 40 digits for this module's reference values (restored afterwards)."""
    with mp.workdps(40):
        yield


def _mp_root(mu, p, level):
    def L(x):
        return mp.log(sum(mp.mpf(pj) * mp.exp(m * x - m * m / 2) for pj, m in zip(p, mu)))
    lo, hi = mp.mpf(-200), mp.mpf(200)
    for _ in range(300):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if L(mid) < level else (lo, mid)
    return (lo + hi) / 2


def test_interval_masses_match_mpmath():
    f = M1
    mu = [mp.mpf(m) for m in f.mus]
    edges = np.array([-1.0, -0.5, 0.0, 0.7, 1.5, 4.0, 9.0])
    kappa, pi, q_inf, p_neginf = interval_masses(f, edges)
    assert q_inf == 0.0 and p_neginf == 0.0
    xs = [mp.mpf("-inf")] + [_mp_root(mu, f.probs, mp.mpf(e)) if e > f.floor else mp.mpf("-inf")
                             for e in edges] + [mp.mpf("inf")]
    for i in range(len(xs) - 1):
        a, b = xs[i], xs[i + 1]
        p_true = mp.ncdf(b) - mp.ncdf(a)
        k_true = sum(mp.mpf(pj) * (mp.ncdf(b - m) - mp.ncdf(a - m)) for pj, m in zip(f.probs, mu))
        assert pi[i] == pytest.approx(float(p_true), rel=1e-9, abs=1e-300)
        assert kappa[i] == pytest.approx(float(k_true), rel=1e-9, abs=1e-300)
    # conditional locations lie in their cells
    live = (kappa > 0) & (pi > 0)
    loc = np.log(kappa[live]) - np.log(pi[live])
    left = np.concatenate([[-np.inf], edges])[live]
    right = np.concatenate([edges, [np.inf]])[live]
    assert np.all(loc >= left - 1e-9) and np.all(loc <= right + 1e-9)


def test_loss_range_holds_the_q_mass():
    lo, hi = loss_range(M1)
    kappa, pi, _, _ = interval_masses(M1, np.array([lo, hi]))
    assert kappa[0] < 1e-25 and kappa[-1] < 1e-25
    assert lo >= M1.floor


@pytest.mark.slow
def test_dp_accounting_reference_mixture_of_gaussians():
    """dp_accounting test_mixture_of_gaussians_basic: ε(1e-6) = 17.193115 (pessimistic,
    max over its ADD and REMOVE directions; its REMOVE is fdp's T(N(0), mixture))."""
    add = compose_numeric([(M1, 3), (M2, 2)])
    rem = compose_numeric([(M1.inverse(), 3), (M2.inverse(), 2)])
    lo, hi = add.epsilon_bounds(1e-6)
    assert rem.epsilon_bounds(1e-6)[1] < lo           # the add direction decides
    assert lo <= 17.193115 and hi - lo <= 1e-3
    fine = compose_numeric([(M1, 3), (M2, 2)], tol=1e-5)
    lo5, hi5 = fine.epsilon_bounds(1e-6)
    assert lo5 <= 17.193115 <= hi5 and hi5 - lo5 < 5e-5
    # the public route: compose, symmetrise once
    both = fdp.compose(M1, M1, M1, M2, M2).symmetrize(one_sided=True)
    assert both.epsilon_bounds(1e-6)[0] <= 17.193115


def test_engine_matches_subsampled_gaussian():
    g = fdp.Gaussian(1.0).subsample(0.1, direction="add")
    a = compose_numeric([(fdp.MixtureOfGaussians(1.0, [0, 1], [0.9, 0.1]), 100)])
    b = compose_numeric([(g, 100)])
    la, ha = a.epsilon_bounds(1e-6)
    lb, hb = b.epsilon_bounds(1e-6)
    assert max(la, lb) <= min(ha, hb)


mixtures = st.tuples(
    st.floats(0.3, 3.0),
    st.lists(st.one_of(st.just(0.0), st.floats(0.05, 4.0)), min_size=1, max_size=3),
    st.integers(0, 10**6))


@settings(max_examples=15)
@given(mixtures)
@pytest.mark.slow
def test_one_step_bracket_contains_the_closed_form(params):
    sigma, c, seed = params
    w = np.random.default_rng(seed).random(len(c)) + 0.05
    f = fdp.MixtureOfGaussians(sigma, c, w / w.sum())
    if f.trivial:
        return
    eps = np.array([-0.2, 0.0, 0.5, 1.5, 3.0])
    for g in (f, f.inverse()):
        num = compose_numeric([(g, 1)], tol=1e-3)
        truth = g.delta(eps)
        assert np.all(num._delta_lower(eps) <= truth + 1e-9)
        assert np.all(num.delta(eps) >= truth - 1e-9)


def test_revealed_mixture_law_is_the_mixture_of_laws():
    g1 = fdp.Gaussian(1.0).subsample(0.3, direction="add")
    g2 = fdp.Gaussian(2.0).subsample(0.1, direction="add")
    r = RevealedMixture((0.6, 0.4), (g1, g2))
    e = np.linspace(-0.5, 3, 8)
    k, p, _, _ = interval_masses(r, e)
    k1, p1, _, _ = interval_masses(g1, e)
    k2, p2, _, _ = interval_masses(g2, e)
    np.testing.assert_allclose(k, 0.6 * k1 + 0.4 * k2, rtol=1e-14)
    np.testing.assert_allclose(p, 0.6 * p1 + 0.4 * p2, rtol=1e-14)
    num = compose_numeric([(r, 3)])
    lo, hi = num.epsilon_bounds(1e-5)
    assert hi - lo < 1e-3


def _dp_accounting():
    return pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")


@pytest.mark.slow
def test_against_dp_accounting_fine_grid():
    """dp_accounting's pessimistic PLD (grid 1e-4) lies above fdp's exact profile and
    within its own discretisation error; composed, fdp's bracket lies at or below it."""
    pld = _dp_accounting()
    peer = pld.from_mixture_gaussian_mechanism(1.0, [0, 1, 2], [0.2, 0.6, 0.2],
                                               value_discretization_interval=1e-4)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    ours = np.maximum(M1.delta(eps), M1.inverse().delta(eps))
    for e, d_fdp in zip(eps, ours):
        d_peer = peer.get_delta_for_epsilon(float(e))
        assert d_fdp <= d_peer + 1e-12
        assert d_peer - d_fdp <= 1e-4 * max(d_fdp, 1e-6)
    two = peer.self_compose(2)
    ours = compose_numeric([(M1, 2)], tol=1e-5).symmetrize(one_sided=True)
    for d in [1e-3, 1e-6]:
        assert ours.epsilon_bounds(d)[0] <= two.get_epsilon_for_delta(d) + 1e-9
