"""Last-iterate privacy by shifted interpolation (Bok, Su & Altschuler, ICML 2024).

Independent truths: the closed form μ√((1+c)/(1−c)·(1−c^t)/(1+c^t)) in mpmath; the
shift-allocation problem min Σu² (module docstring) solved by scipy's SLSQP with the
causal constraints written out step by step; numbers recomputed from the authors' code
(github jinhobok/shifted_interpolation_dp, plot_table_ngd_fdp.py: Tables 7–8 of the
arXiv version); NoisySGD with b = n (C_1(G) = G, a closed form).
"""

from __future__ import annotations

import itertools
import math
import pickle

import mpmath as mp
import numpy as np
import pytest
from scipy.optimize import minimize

import fdp
from fdp.sgd.last_iterate import (
    LastIterate,
    LastIterateGaussian,
    compare_last_iterate,
    contraction,
    cyclic_mu,
    noisy_cgd,
    noisy_gd,
    noisy_sgd,
    strongly_convex_mu,
)
from fdp.status import Status

mp.mp.dps = 40


def _mp_mu(mu: float, c: float, t: int) -> float:
    c_, t_ = mp.mpf(c), t
    return float(mu * mp.sqrt((1 + c_) / (1 - c_) * (1 - c_ ** t_) / (1 + c_ ** t_)))


# ---------------------------------------------------------------------------
# strongly convex closed form
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("c", [0.0, 0.3, 0.9, 0.99, 0.999, 1 - 1e-9])
@pytest.mark.parametrize("t", [1, 2, 7, 100, 10_000])
def test_closed_form_against_mpmath(c, t):
    got = strongly_convex_mu(0.7, c, t)
    want = _mp_mu(0.7, c, t)
    assert want <= got <= want * (1 + 1e-12)


def test_t1_is_one_step_and_c0_never_grows():
    assert strongly_convex_mu(0.37, 0.95, 1) == pytest.approx(0.37, rel=1e-13)
    assert strongly_convex_mu(0.37, 0.95, 1) >= 0.37
    for t in (1, 5, 1000):
        assert strongly_convex_mu(0.37, 0.0, t) == pytest.approx(0.37, rel=1e-13)


def test_limit_in_t_and_c1_is_composition():
    mu, c = 0.1, 0.99
    lim = mu * math.sqrt((1 + c) / (1 - c))
    assert strongly_convex_mu(mu, c, 100_000) == pytest.approx(lim, rel=1e-12)
    assert strongly_convex_mu(mu, 1.0, 400) == pytest.approx(mu * 20, rel=1e-13)


def test_monotone_in_t_and_below_composition():
    mus = [strongly_convex_mu(0.2, 0.97, t) for t in range(1, 400)]
    assert all(b >= a for a, b in itertools.pairwise(mus))
    assert all(m <= 0.2 * math.sqrt(t) * (1 + 1e-12) for t, m in enumerate(mus, 1))


def test_authors_table_strongly_convex():
    # plot_table_ngd_fdp.py, ngd_mu_sc.tex: per-step μ = 0.1, three decimals
    printed = {(10, 0.92): 0.308, (100, 0.92): 0.490, (1000, 0.92): 0.490,
               (10, 0.99): 0.316, (100, 0.99): 0.961, (1000, 0.99): 1.411,
               (100, 0.995): 0.990, (1000, 0.995): 1.984}
    for (t, c), value in printed.items():
        assert round(strongly_convex_mu(0.1, c, t), 3) == value


# ---------------------------------------------------------------------------
# NoisyGD: constants, the shift-allocation problem, constrained case
# ---------------------------------------------------------------------------
def test_contraction():
    assert contraction(0.1, 2.0, 0.5) == pytest.approx(0.95)
    assert contraction(1.0, 1.0, 1.0) == 0.0
    assert contraction(0.5, 1.0) == 1.0
    with pytest.raises(ValueError, match="step_size"):
        contraction(2.5, 1.0)
    with pytest.raises(ValueError, match="strong_convexity"):
        contraction(0.1, 1.0, 2.0)
    with pytest.raises(ValueError, match="smoothness"):
        contraction(0.1, 0.0)


def test_noisy_gd_strongly_convex_is_the_closed_form():
    # a = 2L/(nσ) = 2·1/(50·4) = 0.01; c = 0.95
    f = noisy_gd(4.0, 1.0, 50, 300, 0.1, smoothness=1.0, strong_convexity=0.5)
    assert isinstance(f, LastIterateGaussian) and f.status is Status.EXACT
    assert f.mu == pytest.approx(_mp_mu(0.01, 0.95, 300), rel=1e-12)
    assert f.plain_mu == pytest.approx(0.01 * math.sqrt(300), rel=1e-12)


def _qp(a: float, c: float, t: int, tau: int, d_tau: float) -> float:
    """min Σ u_k² over k = τ..t−1 with d_{k+1} = c d_k + a − u_k, 0 ≤ u_k ≤ c d_k + a,
    d_t = 0 (SLSQP); returns √min."""
    m = t - tau

    def dist(u):
        d, out = d_tau, []
        for k in range(m):
            out.append(c * d + a - u[k])      # = d_{k+1} ≥ 0 (shift ≤ gap)
            d = out[-1]
        return np.array(out)

    cons = [{"type": "ineq", "fun": lambda u: dist(u)[:-1]},
            {"type": "eq", "fun": lambda u: dist(u)[-1:]}]
    u0 = np.full(m, (d_tau + a * m) / m)
    res = minimize(lambda u: float(u @ u), u0, jac=lambda u: 2 * u, constraints=cons,
                   bounds=[(0, None)] * m, method="SLSQP",
                   options={"ftol": 1e-15, "maxiter": 500})
    assert res.success
    return math.sqrt(res.fun)


@pytest.mark.parametrize("c, D", [(0.9, math.inf), (0.9, 0.05), (1.0, 0.05),
                                  (0.7, 0.02), (1.0, 0.3)])
def test_noisy_gd_equals_shift_allocation_minimum(c, D):
    # σ = 1, η = 1 (noise units = parameter units), n = 2, L = a: a = 2L/(nσ) = L
    a, t = 0.01, 8
    best = math.inf
    for tau in range(t):
        if tau == 0:
            d = 0.0
        else:
            d = min(D, a * sum(c ** j for j in range(tau)))
        best = min(best, _qp(a, c, t, tau, d))
    m = 0.0 if c == 1.0 else (1 - c)     # strong convexity giving contraction c at η = 1
    f = noisy_gd(1.0, a, 2, t, 1.0, smoothness=1.0, strong_convexity=m, diameter=D)
    assert f.mu == pytest.approx(best, rel=1e-6)
    assert f.mu <= f.plain_mu


def test_authors_table_constrained():
    # plot_table_ngd_fdp.py, ngd_mu_proj.tex (σ = 8, D = 1): the authors' μ* =
    # √(3a/η + a²⌈1/(aη)⌉)/σ with a = their "L/n" = our per-step sensitivity 2L/n.
    sigma = 8.0
    for a, eta in ((0.5, 0.1), (0.25, 0.2), (1.0, 0.05), (0.25, 0.05), (0.3, 0.1)):
        star = math.sqrt(3 * a / eta + a * a * math.ceil(1 / (a * eta))) / sigma
        f = noisy_gd(sigma, a / 2, 1, 100_000, eta, smoothness=1 / eta, diameter=1.0)
        assert f.mu <= star * (1 + 1e-12)
        if (1 / (a * eta)).is_integer():        # the relaxation is tight there
            assert f.mu == pytest.approx(star, rel=1e-12)
    # L/n = 0.5, η = 0.1: μ* = 0.559, reached when composition a√t/σ reaches it,
    # t* = (3a/η + a²⌈1/(aη)⌉)/a² = 80; composition below, constant from there on
    mus = {t: noisy_gd(sigma, 0.25, 1, t, 0.1, smoothness=10.0, diameter=1.0).mu
           for t in (10, 79, 80, 81, 1000, 10**6)}
    for t in (10, 79, 80):
        assert mus[t] == pytest.approx(0.5 * math.sqrt(t) / sigma, rel=1e-12)
    assert round(mus[80], 3) == 0.559
    assert mus[81] == mus[1000] == mus[10**6] == pytest.approx(math.sqrt(20) / 8, rel=1e-12)


def test_noisy_gd_monotone_in_t():
    for kw in ({"strong_convexity": 0.3}, {"diameter": 0.5}, {"strong_convexity": 0.1,
                                                              "diameter": 2.0}):
        mus = [noisy_gd(2.0, 1.0, 10, t, 0.5, smoothness=1.0, **kw).mu for t in range(0, 200)]
        assert mus[0] == 0.0
        assert all(b >= a for a, b in itertools.pairwise(mus))


def test_large_t_uses_a_grid_and_stays_valid():
    f = noisy_gd(8.0, 0.15, 1, 10**8, 0.1, smoothness=1.0, diameter=1.0)
    # continuous minimiser ν0 = D/(ηs) = 1/(0.1·0.3) ≈ 33.3: both neighbours are tried
    nu = np.array([33.0, 34.0])
    want = np.min((1 / (0.1 * np.sqrt(nu)) + 0.3 * np.sqrt(nu)) / 8.0)
    assert f.mu == pytest.approx(want, rel=1e-12)


def test_noisy_gd_object():
    f = noisy_gd(4.0, 1.0, 50, 300, 0.1, smoothness=1.0, strong_convexity=0.5)
    assert "NoisyGD" in repr(f) and "m=0.5" in repr(f) and "replace_one" in repr(f)
    g = pickle.loads(pickle.dumps(f))
    assert g == f and repr(g) == repr(f)
    assert (f @ f).mu == pytest.approx(f.mu * math.sqrt(2))
    assert f(0.05) == fdp.Gaussian(f.mu)(0.05)


@pytest.mark.parametrize("kw, name", [({"noise": 0.0}, "noise"), ({"lipschitz": -1.0}, "lipschitz"),
                                      ({"dataset_size": 0}, "dataset_size"),
                                      ({"steps": -1}, "steps"), ({"step_size": 3.0}, "step_size"),
                                      ({"diameter": 0.0}, "diameter")])
def test_noisy_gd_refusals(kw, name):
    args = {"noise": 1.0, "lipschitz": 1.0, "dataset_size": 10, "steps": 5, "step_size": 0.5}
    args.update(kw)
    with pytest.raises(ValueError, match=name):
        noisy_gd(**args, smoothness=1.0)


# ---------------------------------------------------------------------------
# NoisySGD: certified, never worse than DP-SGD composition
# ---------------------------------------------------------------------------
def test_noisy_sgd_certified_and_below_composition():
    f = noisy_sgd(2.0, 100, 10_000, 2_000, 0.5, smoothness=1.0, strong_convexity=0.1,
                  candidates=2, tol=1e-2)
    assert isinstance(f, LastIterate) and f.status is Status.CERTIFIED
    assert f.horizons[-1] == 2_000 and len(f.horizons) == 3
    plain = fdp.dpsgd(2.0, 0.01, 2_000, sampling="without_replacement",
                      neighbouring="replace_one", tol=1e-2)
    lo, hi = f.epsilon_bounds(1e-5)
    assert lo <= hi < plain.epsilon_bounds(1e-5)[1]
    alpha = np.linspace(0.0, 1.0, 41)
    assert np.all(f(alpha) >= plain(alpha))
    assert "NoisySGD" in repr(f) and "without_replacement" in repr(f)
    g = pickle.loads(pickle.dumps(f))
    assert g.epsilon(1e-5) == f.epsilon(1e-5)


def test_noisy_sgd_full_batch_is_the_gaussian_closed_form():
    # b = n: C_1(G) = G, so each horizon is G(√(μ_G² + 2a²ν)) and plain is G(a√t);
    # the certified curve must bracket the best of these, computed here in mpmath.
    sigma, t, c = 4.0, 60, 0.9
    f = noisy_sgd(sigma, 10, 10, t, 1.0, smoothness=1.0, strong_convexity=0.1,
                  candidates=3, tol=1e-3)
    a = mp.mpf(2) / sigma
    cm = mp.mpf(c)

    def mu_nu(nu):
        w1 = (1 - cm ** (t - nu)) / (1 - cm)
        w2 = (1 - cm ** (2 * nu)) / (1 - cm ** 2)
        return mp.sqrt(2 * (cm ** nu * a * w1) ** 2 / w2 + 2 * a * a * nu)

    mus = [mu_nu(nu) for nu in f.horizons[:-1]] + [a * mp.sqrt(t)]
    best = float(min(mus))
    for eps in (0.5, 1.0, 2.0):
        lo, hi = f.delta_bounds(eps)
        want = float(mp.ncdf(-eps / best + best / 2)
                     - mp.e ** eps * mp.ncdf(-eps / best - best / 2))
        assert lo <= want * (1 + 1e-9) and want <= hi * (1 + 1e-9)
    assert best < float(a * mp.sqrt(t))


def test_noisy_sgd_horizon_composed_another_way():
    # strongly convex, p = 0.05: the horizon's curve G(μ_G) ⊗ C_p(G(√2a))^{⊗ν}, with μ_G
    # from mpmath and the ν-fold power of the one-step C_p composed by fdp.compose
    # (not fdp.dpsgd): the two certified δ brackets must overlap, and the result's
    # upper δ may not exceed the other route's upper δ.
    sigma, b, n, t, c = 3.0, 5, 100, 400, 0.8
    f = noisy_sgd(sigma, b, n, t, 1.0, smoothness=1.0, strong_convexity=1 - c,
                  candidates=1, tol=1e-3)
    (nu,) = f.horizons[:-1]
    a, cm = mp.mpf(2) / sigma, mp.mpf(c)
    w1 = (1 - cm ** (t - nu)) / (1 - cm)
    w2 = (1 - cm ** (2 * nu)) / (1 - cm ** 2)
    mu_g = float(mp.sqrt(2) * cm ** nu * a * w1 / mp.sqrt(w2))
    step = fdp.Gaussian(float(mp.sqrt(2) * a)).subsample(b / n, sampling="without_replacement")
    other = fdp.compose(fdp.Gaussian(mu_g), *([step] * nu), tol=1e-3)
    member = f.of.members[1]
    for eps in (0.25, 0.5, 1.0):
        lo, hi = member.delta_bounds(eps)
        olo, ohi = other.delta_bounds(eps)
        assert lo <= ohi and olo <= hi
        assert f.delta_bounds(eps)[1] <= ohi * (1 + 1e-6) + 1e-12


def test_noisy_sgd_refusals():
    with pytest.raises(ValueError, match="batch_size"):
        noisy_sgd(1.0, 20, 10, 5, 0.5, smoothness=1.0)
    with pytest.raises(ValueError, match="candidates"):
        noisy_sgd(1.0, 2, 10, 5, 0.5, smoothness=1.0, candidates=-1)
    with pytest.raises(ValueError, match="noise_multiplier"):
        noisy_sgd(0.0, 2, 10, 5, 0.5, smoothness=1.0)


# ---------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------
def test_compare_last_iterate():
    f = noisy_gd(4.0, 1.0, 50, 1000, 0.1, smoothness=1.0, strong_convexity=0.5)
    r = compare_last_iterate(f, 1e-5)
    assert r.epsilon_last.hi == pytest.approx(fdp.gdp_epsilon(f.mu, 1e-5), rel=1e-9)
    assert r.epsilon_plain.hi == pytest.approx(fdp.gdp_epsilon(f.plain_mu, 1e-5), rel=1e-9)
    assert r.epsilon_last.hi < r.epsilon_plain.hi
    assert r.mu_last.hi == pytest.approx(f.mu) and "NoisyGD" in str(r)
    with pytest.raises(ValueError, match="delta"):
        compare_last_iterate(f, 0.0)
    with pytest.raises(TypeError, match="result"):
        compare_last_iterate(fdp.Gaussian(1.0))


# ---------------------------------------------------------------------------
# NoisyCGD: BSA's closed form against the causal shift-allocation minimum
# ---------------------------------------------------------------------------
def _segments_min(hits, t, c):
    """Exact causal minimum of Σu² (a = 1): every optimum splits into segments between
    zeros of the distance, each compensating a run of consecutive hits with shifts
    ∝ c^{z−1−k} up to the next run; a dynamic programme over runs, keeping feasible
    segments only (the distance may not go negative before a hit)."""
    def w2(n):
        return n if c == 1 else (1 - c ** (2 * n)) / (1 - c * c)

    n = len(hits)
    best = [math.inf] * n + [0.0]
    for i in range(n - 1, -1, -1):
        for j in range(i, n):
            z = hits[j + 1] if j + 1 < n else t
            s = sum(c ** (z - 1 - h) for h in hits[i:j + 1])
            k = s / w2(z - hits[i])
            ok = all(sum(c ** (hits[m] - 1 - h) for h in hits[i:m])
                     >= k * c ** (z - hits[m]) * w2(hits[m] - hits[i]) - 1e-12
                     for m in range(i + 1, j + 1))
            if ok:
                best[i] = min(best[i], s * s / w2(z - hits[i]) + best[j + 1])
    return math.sqrt(best[0])


def _causal_qp(hits, t, c):
    """The same minimum by SLSQP on the step-by-step constraints (a = 1)."""
    e = [1.0 if k in hits else 0.0 for k in range(t)]

    def dist(u):
        d, out = 0.0, []
        for k in range(t):
            out.append(c * d + e[k] - u[k])
            d = out[-1]
        return np.array(out)

    cons = [{"type": "ineq", "fun": lambda u: dist(u)[:-1]},
            {"type": "eq", "fun": lambda u: dist(u)[-1:]}]
    res = minimize(lambda u: float(u @ u), np.array(e), jac=lambda u: 2 * u,
                   constraints=cons, bounds=[(0, None)] * t, method="SLSQP",
                   options={"ftol": 1e-15, "maxiter": 1000})
    return math.sqrt(res.fun)


@pytest.mark.parametrize("c", [0.0, 0.3, 0.7, 0.9, 0.99, 1.0])
@pytest.mark.parametrize("l, E", [(1, 2), (1, 6), (2, 3), (3, 4), (5, 3), (10, 8)])
def test_cyclic_mu_is_the_worst_causal_minimum(c, l, E):
    t = l * E
    worst = max(_segments_min([k for k in range(t) if k % l == j], t, c) for j in range(l))
    got = cyclic_mu(1.0, c, l, E)
    assert worst <= got <= worst * (1 + 1e-10)
    if l == 1:
        assert got == pytest.approx(strongly_convex_mu(1.0, c, E), rel=1e-12)


@pytest.mark.parametrize("c, l, E", [(0.9, 3, 4), (0.7, 5, 3), (0.99, 4, 5)])
def test_causal_minimum_two_ways(c, l, E):
    t = l * E
    for j in range(l):
        hits = [k for k in range(t) if k % l == j]
        assert _segments_min(hits, t, c) == pytest.approx(_causal_qp(hits, t, c), rel=1e-6)


def test_cyclic_limits_and_authors_table():
    # c = 1: μ√(1 + (E−1)/l) (the closed form's limit); E = 1 and c = 0 (l ≥ 2): μ
    assert cyclic_mu(0.3, 1.0, 10, 8) == pytest.approx(0.3 * math.sqrt(1 + 7 / 10), rel=1e-13)
    assert cyclic_mu(0.3, 1 - 1e-9, 10, 8) == pytest.approx(0.3 * math.sqrt(1.7), rel=1e-7)
    assert cyclic_mu(0.3, 0.9, 10, 1) == pytest.approx(0.3, rel=1e-13)
    assert cyclic_mu(0.3, 0.0, 4, 9) == pytest.approx(0.3, rel=1e-13)
    # plot_table_ncgd_fdp.py, ncgd_mu_sc.tex (per-step 0.2), three decimals
    printed = {(0.98, 10, 5): 0.229, (0.98, 10, 50): 0.270, (0.99, 20, 5): 0.215,
               (0.99, 20, 500): 0.237, (0.995, 10, 500): 0.439, (0.995, 40, 50): 0.219}
    for (c, l, E), value in printed.items():
        assert round(cyclic_mu(0.2, c, l, E), 3) == value
    mus = [cyclic_mu(0.2, 0.99, 20, E) for E in range(0, 300)]
    assert all(b >= a for a, b in itertools.pairwise(mus))
    assert all(m <= 0.2 * math.sqrt(E) * (1 + 1e-12) for E, m in enumerate(mus))


def test_noisy_cgd():
    f = noisy_cgd(1.0, 0.1, 100, 10, 100, 0.1, smoothness=1.0, strong_convexity=0.1)
    a = 2 * 0.1 * 10 / 100
    assert f.mu == cyclic_mu(a, contraction(0.1, 1.0, 0.1), 10, 100)
    assert f.plain_mu == pytest.approx(a * 10) and "NoisyCGD" in repr(f)
    assert pickle.loads(pickle.dumps(f)) == f
    with pytest.raises(ValueError, match="multiple of batches"):
        noisy_cgd(1.0, 0.1, 101, 10, 5, 0.1, smoothness=1.0)
    with pytest.raises(ValueError, match="epochs"):
        noisy_cgd(1.0, 0.1, 100, 10, -1, 0.1, smoothness=1.0)


# ---------------------------------------------------------------------------
# NoisyCGD on a bounded set
# ---------------------------------------------------------------------------
def _causal_qp_sizes(times, sizes, t, c):
    """min Σu² with d_{k+1} = c d_k + s_k − u_k ≥ 0 (s_k the size at step k), d_t = 0,
    by SLSQP (scaled to unit largest size)."""
    scale = max(sizes)
    e = [0.0] * t
    for tm, sz in zip(times, sizes, strict=True):
        e[int(tm)] += sz / scale

    def dist(u):
        d, out = 0.0, []
        for k in range(t):
            out.append(c * d + e[k] - u[k])
            d = out[-1]
        return np.array(out)

    cons = [{"type": "ineq", "fun": lambda u: dist(u)[:-1]},
            {"type": "eq", "fun": lambda u: dist(u)[-1:]}]
    res = minimize(lambda u: float(u @ u), np.array(e), jac=lambda u: 2 * u,
                   constraints=cons, bounds=[(0, None)] * t, method="SLSQP",
                   options={"ftol": 1e-15, "maxiter": 2000})
    return scale * math.sqrt(res.fun)


@pytest.mark.parametrize("seed", range(6))
def test_runs_min_with_unequal_sizes_is_the_causal_qp(seed):
    from fdp.sgd.cyclic import _runs_min
    rng = np.random.default_rng(seed)
    t = int(rng.integers(6, 14))
    times = sorted(rng.choice(t, size=int(rng.integers(1, 5)), replace=False).tolist())
    sizes = rng.uniform(0.1, 3.0, len(times)).tolist()
    c = float(rng.choice([0.5, 0.9, 1.0]))
    got = _runs_min([float(x) for x in times], sizes, t, 1.0 - c)
    assert got == pytest.approx(_causal_qp_sizes(times, sizes, t, c), rel=1e-6)


def test_constrained_cyclic_small_against_every_start():
    # σ = η = 1 (noise units), l = 3, E = 5, c = 1 and 0.8, D = 1.5, a = 1:
    # ours lies between the minimum over every start τ and the minimum over the starts
    # at the record's differences (both by SLSQP), worst over the batch position.
    l, E, t = 3, 5, 15
    for c, m in ((1.0, 0.0), (0.8, 0.2)):
        f = noisy_cgd(1.0, 0.5, l, l, E, 1.0, smoothness=1.0, strong_convexity=m,
                      diameter=1.5)
        every, at_hits = 0.0, 0.0
        for j in range(l):
            hits = [k for k in range(t) if k % l == j]
            vals, hit_vals = [], []
            for tau in range(t):
                before = [h for h in hits if h < tau]
                d = 0.0 if tau == 0 else min(1.5, sum(c ** (tau - 1 - h) for h in before))
                times = [tau] + [h for h in hits if h >= tau]
                sizes = [c * d] + [1.0] * (len(times) - 1)
                if len(times) > 1 and times[1] == tau:
                    times, sizes = times[1:], [c * d + 1.0] + sizes[2:]
                v = _causal_qp_sizes(times, sizes, t, c) if max(sizes) > 0 else 0.0
                vals.append(v)
                if tau in hits[1:]:
                    hit_vals.append(v)
            every = max(every, min(vals))
            at_hits = max(at_hits, min(hit_vals + [cyclic_mu(1.0, c, l, E)]))
        assert every * (1 - 1e-6) <= f.mu <= at_hits * (1 + 1e-6)


def test_constrained_cyclic_against_authors_and_limits():
    # plot_table_ncgd_fdp.py (σ = 3, D = 1): μ* = √(3s/(ηl) + s² + s²⌈1/(sη)⌉/l)/σ,
    # s = their L/b = our 2L/b; ours is never above it, nor above composition, and
    # stops growing in E
    sigma = 3.0
    for s_, eta, l in ((0.5, 0.02, 10), (0.25, 0.04, 10), (0.5, 0.02, 20)):
        star = math.sqrt(3 * s_ / (eta * l) + s_ ** 2
                         + s_ ** 2 / l * math.ceil(1 / (s_ * eta))) / sigma
        kw = {"smoothness": 1 / eta, "diameter": 1.0}
        lip = s_ * 1 / 2                        # b = n/l = 1 record per batch
        for E in (5, 50, 500):
            f = noisy_cgd(sigma, lip, l, l, E, eta, **kw)
            assert f.mu <= star * (1 + 1e-12) and f.mu <= f.plain_mu * (1 + 1e-12)
    kw = {"smoothness": 50.0, "diameter": 1.0}
    assert noisy_cgd(sigma, 0.25, 10, 10, 20000, 0.02, **kw).mu == pytest.approx(
        noisy_cgd(sigma, 0.25, 10, 10, 2000, 0.02, **kw).mu, rel=1e-12)
    # a diameter too large to matter gives the unconstrained value
    f = noisy_cgd(1.0, 0.1, 100, 10, 100, 0.1, smoothness=1.0, strong_convexity=0.1)
    g = noisy_cgd(1.0, 0.1, 100, 10, 100, 0.1, smoothness=1.0, strong_convexity=0.1,
                  diameter=1e9)
    assert g.mu == f.mu
