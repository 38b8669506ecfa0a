"""DP-SGD's upper δ and ε are the smaller of two certified bounds (engine, Rényi).

Independent references: the subsampled-Gaussian RDP at integer orders in mpmath
(Mironov, Talwar & Zhang 2019, binomial sum), at fractional orders by mpmath
quadrature of A_λ = E_{N(0,σ²)}[(1 − q + q e^{(2z−1)/(2σ²)})^λ], the conversion of
Canonne, Kamath & Steinke 2020 (Prop 12) in mpmath, and the exact δ(ε) of one
Poisson-subsampled Gaussian step (mpmath, closed-form threshold).
"""

import pickle

import mpmath as mp
import numpy as np
import pytest

import fdp
from fdp.classical.rdp import rdp_subsampled_gaussian, rdp_to_epsilon, rdp_to_log_delta
from fdp.engine import GridBudgetExceeded
from fdp.operations.min_certified import MinCertified
from fdp.sgd import dpsgd_rdp_epsilon
from fdp.sgd.min_certified import poisson_gaussian_rdp

mp.mp.dps = 60


def _log_a_mp(q, sigma, lam):
    """log A_λ: the binomial sum for integer λ, quadrature otherwise (mpmath)."""
    q, s = mp.mpf(q), mp.mpf(sigma)
    if float(lam).is_integer():
        lam = int(lam)
        return mp.log(mp.fsum(mp.binomial(lam, k) * q ** k * (1 - q) ** (lam - k)
                              * mp.exp(mp.mpf(k * k - k) / (2 * s * s))
                              for k in range(lam + 1)))
    lam = mp.mpf(lam)

    def f(z):
        return mp.npdf(z, 0, s) * ((1 - q) + q * mp.exp((2 * z - 1) / (2 * s * s))) ** lam
    return mp.log(mp.quad(f, [-mp.inf, -30 * s, 0, mp.mpf(0.5), 30 * s + 1, mp.inf]))


def _rdp_mp(q, sigma, lam, steps):
    return steps * _log_a_mp(q, sigma, lam) / (mp.mpf(lam) - 1)


def _cks_log_delta_mp(rho, lam, eps):
    lam = mp.mpf(lam)
    return (lam - 1) * (rho - eps) + (lam - 1) * mp.log(1 - 1 / lam) - mp.log(lam)


def _cks_eps_mp(rho, lam, delta):
    lam = mp.mpf(lam)
    return rho + mp.log(1 - 1 / lam) - (mp.log(delta) + mp.log(lam)) / (lam - 1)


def _one_step_delta_mp(mu, q, eps):
    """Exact δ(ε ≥ q) of one Poisson-subsampled Gaussian step (add direction; the remove
    direction is 0 there): Q = (1 − q)N(0,1) + qN(μ,1) against P = N(0,1)."""
    mu, q, e = mp.mpf(mu), mp.mpf(q), mp.mpf(eps)
    z = (mp.log((mp.e ** e - 1 + q) / q) + mu ** 2 / 2) / mu

    def sf(x):
        return mp.ncdf(-x)
    return (1 - q) * sf(z) + q * sf(z - mu) - mp.e ** e * sf(z)


# -- the RDP values themselves are upper bounds, and tight ---------------------------
@pytest.mark.parametrize("q,sigma,lam", [
    (0.01, 4.0, 145.0), (0.01, 22000.0, 10.0), (0.01, 22000.0, 2.0), (0.01, 0.05, 2.0),
    (256 / 60000, 1.1, 2.0), (0.9, 0.5, 100.0), (0.3, 2.0, 7.0),
    (256 / 60000, 1.1, 1.01051), (0.01, 1.1, 1.5), (0.1, 0.7, 3.3),
])
def test_rdp_is_an_upper_bound_within_1e_6(q, sigma, lam):
    ours = rdp_subsampled_gaussian([lam], q, sigma, 1000)[0]
    ref = _rdp_mp(q, sigma, lam, 1000)
    assert ours >= ref
    assert ours <= ref * (1 + 1e-6) + mp.mpf(1e-300)


def test_rdp_to_log_delta_is_the_cks_conversion():
    orders = np.array([2.0, 8.0, 40.0])
    rho = np.array([0.3, 1.2, 9.0])
    for eps in (0.5, 3.0, 20.0):
        ld, lam = rdp_to_log_delta(orders, rho, eps)
        ref = min(_cks_log_delta_mp(mp.mpf(r), o, eps) for o, r in zip(orders, rho))
        assert ld >= min(ref, 0)
        assert ld <= min(ref, 0) + 1e-12 * (1 + abs(ref))
    # ε < 0: the conversion is not used (δ ≤ 1 only)
    assert rdp_to_log_delta(orders, rho, -1.0)[0] == 0.0


def test_rdp_to_epsilon_rounds_up():
    orders = np.array([2.0, 8.0, 40.0])
    rho = np.array([0.3, 1.2, 9.0])
    r = rdp_to_epsilon(orders, rho, 1e-7)
    ref = min(_cks_eps_mp(mp.mpf(x), o, mp.mpf(1e-7)) for o, x in zip(orders, rho))
    assert ref <= r.epsilon <= ref + 1e-13


# -- issue 31: the δ floor near 1e-12 --------------------------------------------------
def test_delta_floor_replaced_by_the_rdp_bound():
    f = fdp.dpsgd(4.0, 0.01, 1000)
    assert isinstance(f, MinCertified)
    b = f.delta_bounds(1.0)
    # independent: the CKS conversion of the mpmath RDP at integer orders 2..256
    ref = min(_cks_log_delta_mp(_rdp_mp(0.01, 4.0, lam, 1000), lam, 1.0)
              for lam in (100, 120, 145, 170, 200))
    assert b.hi <= mp.exp(ref) * (1 + 1e-6)
    _, lam = f.rdp.log_delta(1.0)          # rounded up: not below the mpmath bound there
    assert b.hi >= mp.exp(_cks_log_delta_mp(_rdp_mp(0.01, 4.0, lam, 1000), lam, 1.0))
    assert b.hi < 1e-30                                   # the engine alone: 4.66e-12
    assert b.lo <= b.hi
    assert b.note.startswith("upper end from the RDP bound")
    assert "lower end 0" in b.note
    assert f.delta(1.0) == b.hi
    # ε at a tiny δ the engine's floor cannot reach: the RDP bound answers
    e = f.epsilon_bounds(1e-20)
    assert e.hi <= _cks_eps_mp(_rdp_mp(0.01, 4.0, 64, 1000), 64, mp.mpf(1e-20)) + 1e-9


@pytest.mark.parametrize("sigma,q,eps", [(1.0, 0.01, 5.0), (2.0, 0.01, 1.0)])
def test_one_step_truth_inside_the_bracket_when_rdp_sets_the_upper_end(sigma, q, eps):
    f = fdp.dpsgd(sigma, q, 1)
    b = f.delta_bounds(eps)
    truth = _one_step_delta_mp(1 / sigma, q, eps)
    assert b.note.startswith("upper end from the RDP bound")
    assert b.lo <= truth <= b.hi
    assert b.hi < float(f.engine_delta(np.array([eps]))[0])


# -- issue 34: brackets that said nothing at huge T -------------------------------------
@pytest.mark.parametrize("steps,engine_hi,lam", [(10**10, 1.381e5, 1.01051),
                                                 (10**11, 2.518e6, 1.00328)])
def test_huge_t_upper_end_from_rdp(steps, engine_hi, lam):
    q = 256 / 60000
    b = fdp.dpsgd(1.1, q, steps).epsilon_bounds(1e-5)
    ref = _cks_eps_mp(_rdp_mp(q, 1.1, lam, steps), lam, mp.mpf(1e-5))
    # at least the RDP bound at some order (we round up), and that bound up to 1e-5
    assert b.hi <= ref * (1 + 1e-5)
    assert b.hi < engine_hi
    # no worse than an RDP accountant's (1.31e5 at T = 1e10, 1.309e6 at 1e11)
    assert b.hi < {10**10: 1.31e5, 10**11: 1.309e6}[steps]
    # the engine's own lower end is 0 (its two sides no longer overlap); the lower end
    # is then the engine's for the first 1e9 steps: positive, and no more than the
    # mpmath RDP bound of those 1e9 steps (which is ≥ their ε ≥ ... ≤ ε at T)
    assert "RDP bound" in b.note and "lower end 0" in b.note and "overlap" in b.note
    assert "for 1e+09 of the" in b.note
    kept = _cks_eps_mp(_rdp_mp(q, 1.1, 1.03367, 10**9), 1.03367, mp.mpf(1e-5))
    assert 0.0 < b.lo <= kept <= b.hi


def test_moderate_t_keeps_the_engine_and_says_so():
    # MNIST, 60 epochs: the engine is tighter than RDP; nothing changes
    f = fdp.dpsgd(1.1, 256 / 60000, 14062)
    b = f.epsilon_bounds(1e-5)
    assert 2.38 < b.lo <= b.hi < 2.383
    assert b.note.startswith("upper end from the f-DP engine")
    r_eps, _ = f.rdp.epsilon(1e-5)
    assert r_eps[0] > b.hi


def test_arrays_take_the_minimum_pointwise():
    f = fdp.dpsgd(4.0, 0.01, 1000)
    eps = np.array([0.1, 1.0, 3.0])
    lo, hi = f.delta_bounds(eps)
    ld, _ = f.rdp.log_delta(eps)
    engine = f.engine_delta(eps)
    assert np.all(hi <= engine) and np.all(hi <= np.exp(ld) * (1 + 1e-15) + 1e-320)
    assert np.all(lo <= hi)
    d = np.array([1e-5, 1e-25])
    lo, hi = f.epsilon_bounds(d)
    assert np.all(lo <= hi) and hi[1] < np.inf


def test_pickles_and_compares():
    f = fdp.dpsgd(1.0, 0.01, 100)
    g = pickle.loads(pickle.dumps(f))
    assert g == f and hash(g) == hash(f)
    assert g.delta_bounds(1.0) == f.delta_bounds(1.0)
    assert fdp.dpsgd(1.0, 0.01, 100) == f
    assert fdp.dpsgd(1.0, 0.01, 101) != f
    assert poisson_gaussian_rdp({(1.0, 0.01): 100}) == f.rdp


def test_other_samplers_are_plain_engine_results():
    f = fdp.dpsgd(1.0, 0.1, 10, sampling="without_replacement", neighbouring="replace_one")
    assert not isinstance(f, MinCertified)
    g = fdp.dpsgd(1.0, 0.01, 10, examples_per_user=2)
    assert not isinstance(g, MinCertified)


# -- issue 34: the μ-GDP summary of DP-SGD says why it is large and what to read -------
def test_opacus_get_mu_says_how_to_read_it():
    from fdp.interop.opacus import FdpAccountant
    acct = FdpAccountant()
    acct.history = [(1.1, 0.05, 200)]
    mu = acct.get_mu()
    clt = fdp.dpsgd_clt_mu(1.1, 0.05, 200)
    assert mu == acct.get_tradeoff().gdp_mu() and mu > clt      # the tail sets it
    assert "heavy tail" in mu.note and "get_epsilon" in mu.note
    assert mu.note in repr(mu)
    doc = " ".join(FdpAccountant.get_mu.__doc__.split())
    assert "heavy tail" in doc and "get_epsilon(delta)" in doc


def test_sampler_table_note_points_to_epsilon_and_clt():
    from fdp.sgd.report import format_table
    text = format_table([])
    assert "heavy" in text and "CLT mu" in text and "approximation, not a bound" in text


# -- issue 30: the Rényi curve is computed only where it can matter ----------------------
@pytest.mark.parametrize("sigma,q,steps", [(1.1, 0.01, 1000), (0.6, 0.1, 1000),
                                           (2.0, 256 / 60000, 10**5)])
def test_tight_engine_brackets_do_not_compute_the_renyi_curve(sigma, q, steps):
    from fdp._constants import RDP_CONSULT_RTOL
    f = fdp.dpsgd(sigma, q, steps)
    b = f.epsilon_bounds(1e-5)
    assert "rdp" not in f.__dict__                      # never computed
    assert "was not computed" in b.note
    assert b.hi - b.lo <= RDP_CONSULT_RTOL * b.hi
    # why skipping loses at most hi − lo: the Rényi ε is above the engine's lower end
    r_eps, _ = f.rdp.epsilon(1e-5)
    assert r_eps[0] >= b.lo
    assert b.hi - min(b.hi, r_eps[0]) <= RDP_CONSULT_RTOL * b.hi
    # the same question asked again, now that the curve exists, has the same answer
    assert tuple(f.epsilon_bounds(1e-5)) == tuple(b)
    assert float(f.delta(2.0)) == float(f.delta_bounds(2.0).hi)


def test_recipe_pickles_and_compares_without_computing():
    import pickle
    f = fdp.dpsgd(1.1, 0.01, 100)
    g = pickle.loads(pickle.dumps(f))
    assert g == f and hash(g) == hash(f)
    assert "rdp" not in f.__dict__ and "rdp" not in g.__dict__
    assert g.rdp == f.rdp                               # computed on demand, equal


def test_at_1e18_steps_the_refusal_names_both_certified_ends():
    # no grid fits 1e18 steps: the refusal says where a certified upper ε (the Rényi
    # accountant) and a certified lower ε (fewer steps) come from, and those two agree
    q = 256 / 60000
    with pytest.raises(GridBudgetExceeded, match="dpsgd_rdp_epsilon") as err:
        fdp.dpsgd(1.1, q, 10**18)
    assert "fewer steps" in str(err.value) and err.value.points > 0
    hi = dpsgd_rdp_epsilon(1.1, q, 10**18, 1e-5).epsilon
    ref = _cks_eps_mp(_rdp_mp(q, 1.1, 1.05, 10**18), 1.05, mp.mpf(1e-5))
    assert ref <= hi <= ref * (1 + 1e-6)          # the fractional-order series, padded
    lo = fdp.dpsgd(1.1, q, 10**8).epsilon_bounds(1e-5).lo
    assert 0.0 < lo < hi
