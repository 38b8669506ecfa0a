"""Engine internals against independent computations.

Covers ``lattice.reflect``, ``lattice.crop``, ``discretise.compensate``,
``lattice._direct_band``, ``lattice._chernoff_end``, atoms on the grid in
``discretise`` and two end-to-end compositions at n = 10⁹. Every reference value
is computed here, independently of the engine: brute-force hockey-stick sums
δ(ε) = q_inf + Σ_k q_k (1 − e^{ε − l_k})₊ (MATH.md §3), closed forms for the
Laplace pair, mpmath (50 digits) transforms, exact pmf convolutions.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

import fdp
from fdp.engine import compose_numeric
from fdp.engine.contraction import compensate
from fdp.engine.convolution import _chernoff_end, crop
from fdp.engine.direct_band import direct_band as _direct_band
from fdp.engine.discretise import discretise
from fdp.engine.lattice import (
    OPTIMISTIC,
    PESSIMISTIC,
    Lattice,
    reflect,
)
from fdp.operations.subsample import PoissonAdd


# ----------------------------------------------------------------------
# Independent helpers
# ----------------------------------------------------------------------
def brute_delta(q, losses, q_inf, eps):
    """δ(ε) = q_inf + Σ_{l_k > ε} q_k (1 − e^{ε − l_k}), one ε at a time (math.fsum)."""
    q = np.asarray(q, dtype=float)
    losses = np.asarray(losses, dtype=float)
    out = np.empty(len(eps))
    for i, e in enumerate(eps):
        above = losses > e
        terms = q[above] * -np.expm1(e - losses[above])
        out[i] = q_inf + math.fsum(terms)
    return out


def lattice_losses(lat):
    return np.array([(lat.k0 + i) * lat.step for i in range(lat.q.size)])


FACTORS = [PoissonAdd(fdp.Gaussian(1.0), 0.1), fdp.Laplace(0.7)]
FACTOR_IDS = ["poisson-gauss", "laplace"]


@pytest.fixture(scope="module", params=list(zip(FACTORS, [2e-3, 1e-3])), ids=FACTOR_IDS)
def discretised(request):
    f, h = request.param
    lp, lo = discretise(f, h)
    assert lp.side == PESSIMISTIC and lo.side == OPTIMISTIC
    assert lp.slack == 0.0 and lo.slack == 0.0
    return f, lp, lo


# ----------------------------------------------------------------------
# 1. reflect
# ----------------------------------------------------------------------
def test_reflect_pessimistic_matches_reflection_formula(discretised):
    """δ_refl(ε) = 1 − e^ε + e^ε δ_orig(−ε), δ_orig by brute force from the masses."""
    f, lp, _ = discretised
    r = reflect(lp)
    eps = np.concatenate([np.linspace(-2.0, 2.0, 401),
                          lp.step * np.arange(-200, 201, 7)])      # grid points too
    orig = brute_delta(lp.q, lattice_losses(lp), lp.q_inf, -eps)
    want = 1.0 - np.exp(eps) + np.exp(eps) * orig
    got = r.delta_raw(eps)
    assert np.max(np.abs(got - want)) <= 1e-12
    # and the reflected lattice's own masses reproduce its δ (losses −l, masses q e^{−l})
    own = brute_delta(r.q, lattice_losses(r), r.q_inf, eps)
    assert np.max(np.abs(got - own)) <= 1e-12
    assert np.allclose(lattice_losses(r), -lattice_losses(lp)[::-1], rtol=0, atol=1e-12)
    assert np.allclose(r.q, lp.q[::-1] * np.exp(-lattice_losses(lp)[::-1]), rtol=1e-13, atol=0)


def test_reflect_brackets_exact_inverse_profile(discretised):
    f, lp, lo = discretised
    inv = f.inverse()
    eps = np.concatenate([np.linspace(-6.0, 6.0, 1201), lp.step * np.arange(-500, 501, 13)])
    truth = inv.delta(eps)
    pess = reflect(lp).delta_raw(eps)
    opt = reflect(lo).delta_raw(eps)
    assert np.all(pess >= truth - 1e-12)
    assert np.all(opt <= truth + 1e-12)
    # the bracket is informative, not trivially wide
    assert np.max(pess - opt) <= 0.05


def test_reflect_twice_is_identity(discretised):
    _, lp, _ = discretised
    rr = reflect(reflect(lp))
    assert rr.k0 == lp.k0 and rr.q.size == lp.q.size
    assert np.allclose(rr.q, lp.q, rtol=1e-12, atol=1e-300)
    assert abs(rr.mass - lp.mass) <= 1e-14


def test_reflect_refuses_slack(discretised):
    _, lp, _ = discretised
    with_slack = Lattice(lp.step, lp.k0, lp.q.copy(), lp.q_inf, 1e-12, lp.side)
    with pytest.raises(ValueError):
        reflect(with_slack)


# ----------------------------------------------------------------------
# 2. crop
# ----------------------------------------------------------------------
def _tailed_lattice(seed, side, q_inf, size=200, tail=1e-25, ntail=3):
    rng = np.random.default_rng(seed)
    q = rng.random(size)
    q[:ntail] = tail
    q[-ntail:] = tail
    q[ntail:-ntail] *= (1.0 - q_inf - 2 * ntail * tail) / q[ntail:-ntail].sum()
    return Lattice(0.05, -80 + seed, q, q_inf, 1e-15, side)


@pytest.mark.parametrize("q_inf", [0.0, 0.01])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_crop_keeps_mass_and_moves_to_safe_side(seed, q_inf):
    eps = np.concatenate([np.linspace(-6.0, 8.0, 1401), 0.05 * np.arange(-90, 130)])
    for side in (PESSIMISTIC, OPTIMISTIC):
        lat = _tailed_lattice(seed, side, q_inf)
        c = crop(lat, 1e-22)
        assert c.q.size < lat.q.size                       # the tiny tails were cut
        assert c.q.size >= lat.q.size - 6
        assert c.side == side
        m0 = math.fsum(lat.q) + lat.q_inf
        m1 = math.fsum(c.q) + c.q_inf
        assert abs(m1 - m0) <= 1e-15
        assert abs(c.mass - lat.mass) <= 1e-15
        d0 = brute_delta(lat.q, lattice_losses(lat), lat.q_inf, eps)
        d1 = brute_delta(c.q, lattice_losses(c), c.q_inf, eps)
        # relative tolerance: at the top of the lattice δ is of the order of the
        # 1e-25 tails, and the fsum-based brute force resolves it
        tol = 1e-13 * d0
        if side == PESSIMISTIC:
            assert c.slack == lat.slack
            assert np.all(d1 >= d0 - tol)
        else:
            extra = c.slack - lat.slack
            assert 0.0 < extra <= 1e-24                     # the low-tail mass
            assert np.all(d1 - extra <= d0 + tol)
        # the engine's own read-back agrees with the brute-force sums
        assert np.max(np.abs(c.delta_raw(eps) - d1)) <= 1e-13


def test_crop_keeps_tails_above_tau():
    lat = _tailed_lattice(0, PESSIMISTIC, 0.0, tail=1e-20, ntail=1)
    c = crop(lat, 1e-22)
    assert c.q.size == lat.q.size and c.k0 == lat.k0


def test_crop_raises_threshold_to_noise():
    """A lattice's own round-off level (``noise``, capped) overrides a smaller τ."""
    lat = _tailed_lattice(3, OPTIMISTIC, 0.0, tail=1e-15, ntail=2)
    object.__setattr__(lat, "noise", 1e-14)
    c = crop(lat, 1e-22)
    assert c.q.size == lat.q.size - 4
    assert abs(c.mass - lat.mass) <= 1e-15
    assert 0.0 < c.slack - lat.slack <= 2.1e-15


# ----------------------------------------------------------------------
# 3. compensate
# ----------------------------------------------------------------------
def _call_excess(q, losses, t):
    """E_P (Y − t)₊ for Y = e^L, P-masses q_k e^{−l_k} (brute force)."""
    y = np.exp(losses)
    p = q * np.exp(-losses)
    return math.fsum(p * np.maximum(y - t, 0.0))


@settings(max_examples=25, deadline=None)
@given(size=st.integers(4, 40), seed=st.integers(0, 2 ** 31 - 1),
       step=st.floats(1e-3, 0.5), k0=st.integers(-60, 20),
       frac=st.floats(0.0, 1.5), low_frac=st.floats(0.0, 1.0))
def test_compensate_restores_mass_in_icx_order(size, seed, step, k0, frac, low_frac):
    rng = np.random.default_rng(seed)
    q0 = rng.random(size) ** 2
    q0 /= q0.sum()
    lowest = int(round(low_frac * (size - 1)))
    losses = (k0 + np.arange(size)) * step
    capacity = float(q0[:lowest].sum()) * math.expm1(step)
    lost = frac * capacity if capacity > 0 else frac * 1e-3
    q = q0.copy()
    rem = compensate(q, lost, lowest, step)
    gain = math.fsum(q) - math.fsum(q0)
    assert rem >= 0.0
    assert abs(gain - (lost - rem)) <= 1e-14
    if lost <= capacity * (1 - 1e-12):
        assert rem <= 1e-14 * max(lost, 1e-300) + 1e-16   # enough room: all given back
    assert np.all(q >= 0.0)
    assert np.array_equal(q[lowest + 1:], q0[lowest + 1:])  # only indices ≤ lowest move
    # P-mass is kept (mass moves along the grid in Y, never in or out)
    p0, p1 = q0 * np.exp(-losses), q * np.exp(-losses)
    assert abs(math.fsum(p1) - math.fsum(p0)) <= 1e-13 * math.fsum(p0)
    # increasing convex order: 0 ≤ E(Y−t)₊ after − before ≤ lost, = 0 above x_lowest
    y = np.exp(losses)
    ts = np.concatenate([np.linspace(0.0, y[-1] * 1.1, 300), y, 0.5 * (y[1:] + y[:-1])])
    x_low = math.exp(losses[lowest])
    for t in ts:
        before = _call_excess(q0, losses, t)
        after = _call_excess(q, losses, t)
        change = after - before
        tol = 1e-14 * max(1.0, before)
        assert change <= lost + tol
        assert change >= -tol
        if t >= x_low:
            assert change == 0.0
    # at t below every point the change is the whole Q-mass gain (E[Y] − t·P-mass)
    assert abs((_call_excess(q, losses, 0.0) - _call_excess(q0, losses, 0.0)) - gain) <= 1e-14


def test_compensate_nothing_to_do():
    q = np.array([0.2, 0.3, 0.5])
    q0 = q.copy()
    assert compensate(q, 0.0, 2, 0.1) == 0.0
    assert compensate(q, 1e-3, 0, 0.1) == 1e-3          # no point below x_lowest
    assert np.array_equal(q, q0)


# ----------------------------------------------------------------------
# 4. _direct_band
# ----------------------------------------------------------------------
def _dyadic_probabilities(rng, size, total_bits=40):
    """Probabilities that are exact multiples of 2^−40 summing exactly to 1.

    Then float(sum(q)) = Σ q exactly, so F = sum(q) is the true zero-frequency value.
    """
    r = rng.random(size)
    w = np.floor(r / r.sum() * 2.0 ** total_bits)
    w[-1] += 2.0 ** total_bits - w.sum()
    q = w / 2.0 ** total_bits
    assert math.fsum(q) == 1.0 and float(q.sum()) == 1.0
    return q


def _exact_power(q, j, m, n, kbar):
    """(Σ_k q_k e^{−2πi jk/m})^n e^{2πi j n k̄/m} in 50-digit arithmetic."""
    with mp.workdps(50):
        X = mp.fsum(mp.mpf(float(qk)) * mp.expj(-2 * mp.pi * j * k / m)
                    for k, qk in enumerate(q))
        if X == 0:
            return 0j
        val = mp.exp(n * mp.log(X)) * mp.expj(2 * mp.pi * ((j * n * kbar) % m) / m)
        return complex(val)


def _check_band(q, m, n, freqs):
    F = float(q.sum())
    Xn, err, kbar = _direct_band(q, F, freqs, m, n)
    assert isinstance(kbar, int)
    mean = float(np.arange(q.size) @ q) / F
    assert abs(kbar - mean) <= 0.5 + 1e-12
    exact = np.array([_exact_power(q, int(j), m, n, kbar) for j in freqs])
    diff = np.abs(Xn - exact)
    assert np.all(np.isfinite(err))
    assert np.all(diff <= err)
    live = np.abs(exact) > 1e-200
    assert live.sum() >= 3
    assert np.all(err[live] <= 1e-8 * np.maximum(1.0, np.abs(exact[live])))
    return Xn, err, exact, kbar


@pytest.mark.parametrize("n,m", [(10 ** 9, 2 ** 22), (1000, 4096)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_direct_band_against_mpmath(seed, n, m):
    q = _dyadic_probabilities(np.random.default_rng(seed), 20)
    _check_band(q, m, n, np.arange(0, 41, 2))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2 ** 31 - 1), size=st.integers(2, 24),
       n=st.sampled_from([1000, 10 ** 6, 10 ** 9]))
def test_direct_band_property(seed, size, n):
    q = _dyadic_probabilities(np.random.default_rng(seed), size)
    # m large enough that frequencies 0..10 keep |X|ⁿ well above underflow
    m = 4096 if n == 1000 else 2 ** 22
    _check_band(q, m, n, np.arange(0, 11))


def test_direct_band_beats_naive_fft_power():
    """At n = 10⁹ the plain rfft(q, m)**n errs far beyond the direct band's bound."""
    n, m = 10 ** 9, 2 ** 22
    freqs = np.arange(1, 21)
    worst = []
    for seed in range(3):
        q = _dyadic_probabilities(np.random.default_rng(seed), 20)
        Xn, err, exact, kbar = _check_band(q, m, n, freqs)
        turn = np.exp(2j * np.pi * ((freqs.astype(np.int64) * ((n * kbar) % m)) % m) / m)
        naive = np.fft.rfft(q, m)[freqs] ** n * turn
        worst.append(float(np.max(np.abs(naive - exact) / err)))
    # observed ratios are in the hundreds; the round-off of an n-th power is ~n·u
    assert max(worst) >= 10.0


# ----------------------------------------------------------------------
# 5. _chernoff_end
# ----------------------------------------------------------------------
def _exact_sum_pmf(k, q, n):
    """pmf of S_n on integer loss indices, by n direct convolutions."""
    qq = np.zeros(k[-1] - k[0] + 1)
    qq[k - k[0]] = q
    pmf = np.array([1.0])
    for _ in range(n):
        pmf = np.convolve(pmf, qq)
    return n * k[0] + np.arange(pmf.size), pmf


def _chernoff_optimum(L, q, n, log_tau):
    ts = np.geomspace(1e-4, 50.0, 100_001)
    lam = logsumexp(ts[:, None] * L[None, :], b=q[None, :], axis=1)
    return float(np.min((n * lam - log_tau) / ts))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_chernoff_end_is_a_valid_tail_bound(seed):
    rng = np.random.default_rng(seed)
    size, n, step = 15, 50, 0.1
    k = np.sort(rng.choice(np.arange(-20, 30), size, replace=False))
    q = rng.random(size) ** 3
    q /= q.sum()
    L = k * step
    ks, pmf = _exact_sum_pmf(k, q, n)
    tau = 1e-12
    log_tau = math.log(tau)
    mean = float(q @ L)
    sd = math.sqrt(float(q @ (L - mean) ** 2))
    t_engine = math.sqrt(-2.0 * log_tau) / (sd * math.sqrt(n))
    s_opt = _chernoff_optimum(L, q, n, log_tau)
    for t0 in (t_engine, 1e-3, 50.0):
        s = _chernoff_end(L, q, n, log_tau, t0)
        assert math.isfinite(s)
        # Q(S_n ≥ s), counting lattice points within rounding of s as ≥ s (safe side)
        upper = math.fsum(pmf[ks * step >= s - 1e-9])
        assert upper <= tau
        assert n * mean < s <= n * L[-1]
        # every evaluated t is a Chernoff bound, so s is never below the optimum
        assert s >= s_opt - 1e-6 * sd
        if t0 == t_engine:
            assert s <= s_opt + 1e-3 * sd                     # near the optimum
    # the lower tail through the mirror image, as the engine calls it
    s_lo = -_chernoff_end(-L[::-1], q[::-1], n, log_tau, t_engine)
    lower = math.fsum(pmf[ks * step <= s_lo + 1e-9])
    assert lower <= tau
    assert n * L[0] <= s_lo < n * mean


# ----------------------------------------------------------------------
# 6. atoms on the grid
# ----------------------------------------------------------------------
def _laplace_cells(mu, h):
    """Exact (Q, P) masses of the continuous part of the Laplace(μ) loss on cells.

    P = Lap(0, 1), Q = Lap(μ, 1): L = 2x − μ on x ∈ (0, μ), with Q-density
    ¼ e^{(L−μ)/2} and P-density ¼ e^{−(L+μ)/2} in L. Cells [ch, (c+1)h], c = −K..K−1.
    """
    K = int(round(mu / h))
    with mp.workdps(40):
        mu_, h_ = mp.mpf(mu), mp.mpf(h)
        cells = []
        for c in range(-K, K):
            a, b = c * h_, (c + 1) * h_
            kap = mp.exp(-mu_ / 2) / 2 * (mp.exp(b / 2) - mp.exp(a / 2))
            pi = mp.exp(-mu_ / 2) / 2 * (mp.exp(-a / 2) - mp.exp(-b / 2))
            cells.append((c, kap, pi))
    return K, cells


def _laplace_loss_moments(mu):
    """E_Q L and Var_Q L for the Laplace(μ) pair (atoms ±μ plus the continuous part)."""
    with mp.workdps(40):
        mu_ = mp.mpf(mu)
        def dens(x):                                    # Q density of x on (0, μ)
            return mp.exp(x - mu_) / 2

        atom_hi, atom_lo = mp.mpf(1) / 2, mp.exp(-mu_) / 2   # Q(L = μ), Q(L = −μ)
        m1 = mu_ * (atom_hi - atom_lo) + mp.quad(lambda x: (2 * x - mu_) * dens(x), [0, mu_])
        m2 = mu_ ** 2 * (atom_hi + atom_lo) \
            + mp.quad(lambda x: (2 * x - mu_) ** 2 * dens(x), [0, mu_])
        cont = mp.quad(dens, [0, mu_])
        total = mp.mpf(1) / 2 + mp.exp(-mu_) / 2 + cont
        assert abs(total - 1) < mp.mpf(10) ** -30
        return float(m1), float(m2 - m1 ** 2), float(cont)


def test_grid_atoms_kept_exact():
    h = 1e-3
    mu = 3 * h
    f = fdp.Laplace(mu)
    lp, lo = discretise(f, h)
    K, cells = _laplace_cells(mu, h)
    top_atom, bottom_atom = 0.5, 0.5 * math.exp(-mu)
    mean_true, var_true, cont = _laplace_loss_moments(mu)

    # pessimistic: connect-the-dots of each cell (Y-mean kept) plus the two atoms, exactly
    want = {k: mp.mpf(0) for k in range(-K, K + 1)}
    with mp.workdps(40):
        for c, kap, pi in cells:
            x_c = mp.exp(c * mp.mpf(h))
            up = (kap - pi * x_c) / (1 - mp.exp(-mp.mpf(h)))
            want[c + 1] += up
            want[c] += kap - up
        want[K] += mp.mpf(1) / 2
        want[-K] += mp.exp(-mp.mpf(mu)) / 2
    # Masses to 1e-13 absolute: the atom is taken out of its cell's mass, leaving the
    # continuous part with an absolute error ~u·(atom), and the split divides a
    # difference of size ~κΔ by 1 − e^{−Δ}; observed 3.4e-14 next to the −3h atom.
    # Such a shift between neighbours moves δ only by ~its size × Δ (checked below).
    for k, v in want.items():
        i = k - lp.k0
        assert 0 <= i < lp.q.size
        assert abs(lp.q[i] - float(v)) <= 1e-13
        assert abs(lp.q[i] - float(v)) <= 1e-9 * float(v)
    outside = [i for i in range(lp.q.size) if not -K <= i + lp.k0 <= K]
    assert np.all(lp.q[outside] == 0.0) and lp.q_inf == 0.0

    # optimistic: the atoms sit at ±3h; at most the continuous Q-mass joins them
    i_top, i_bot = K - lo.k0, -K - lo.k0
    assert top_atom * (1 - 1e-14) <= lo.q[i_top] <= top_atom + cont
    assert bottom_atom * (1 - 1e-14) <= lo.q[i_bot] <= bottom_atom + cont
    outside = [i for i in range(lo.q.size) if not -K <= i + lo.k0 <= K]
    assert np.all(lo.q[outside] == 0.0)

    for lat in (lp, lo):
        L = lattice_losses(lat)
        p = lat.q * np.exp(-L)
        # E_P[Y] = Σ p_k e^{l_k}: the true value is the Q-mass, 1
        assert abs(math.fsum(p * np.exp(L)) + lat.q_inf - 1.0) <= 1e-14
        assert math.fsum(p) <= 1.0 + 1e-14
        w = lat.q / math.fsum(lat.q)
        m = math.fsum(w * L)
        var = math.fsum(w * (L - m) ** 2)
        assert abs(var - var_true) <= 0.01 * var_true
        assert abs(m - mean_true) <= 0.01 * abs(mean_true)

    # the profiles bracket the exact one; the pessimistic side is exact on the grid
    eps = np.linspace(-5 * h, 5 * h, 1001)
    truth = f.delta(eps)
    assert np.all(brute_delta(lp.q, lattice_losses(lp), lp.q_inf, eps) >= truth - 1e-15)
    assert np.all(brute_delta(lo.q, lattice_losses(lo), lo.q_inf, eps) <= truth + 1e-15)
    grid = h * np.arange(-4, 5)
    assert np.allclose(brute_delta(lp.q, lattice_losses(lp), lp.q_inf, grid), f.delta(grid),
                       rtol=0, atol=1e-15)


# ----------------------------------------------------------------------
# 7. end to end at n = 10⁹
# ----------------------------------------------------------------------
def test_gaussian_split_into_1e9_steps():
    n = 10 ** 9
    r = compose_numeric([(fdp.Gaussian(1.0 / np.sqrt(n)), n)], tol=1e-2)
    pess, opt = r.mass
    assert abs(pess - 1.0) <= 1e-12 and abs(opt - 1.0) <= 1e-12
    assert r.delta_floor <= 1e-8
    lo, hi = r.epsilon_bounds(1e-3)
    truth = fdp.Gaussian(1.0).epsilon(1e-3)
    assert lo <= truth <= hi
    assert hi - lo <= 0.05


def test_laplace_1e9_brackets_consistent():
    n = 10 ** 9
    coarse = compose_numeric([(fdp.Laplace(3e-5), n)], tol=0.1).epsilon_bounds(1e-3)
    fine = compose_numeric([(fdp.Laplace(3e-5), n)], tol=1e-2).epsilon_bounds(1e-3)
    assert coarse[1] - coarse[0] <= 1e-4
    assert fine[1] - fine[0] <= coarse[1] - coarse[0] + 1e-12
    # two certified brackets of the same number must overlap
    assert fine[0] <= coarse[1] and coarse[0] <= fine[1]
    mid = 0.5 * (fine[0] + fine[1])
    assert coarse[0] <= mid <= coarse[1]
