"""fdp.clt: the CLT approximation and the Berry–Esseen band (DRS Thms 3.4–3.6)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.limits import BerryEsseenLower, WithDelta

GRID = np.unique(np.concatenate([np.linspace(0.0, 1.0, 2001), np.logspace(-8, -1, 50),
                                 1 - np.logspace(-8, -1, 50)]))


def assert_tradeoff(f, tol=1e-9):
    """Values in [0, 1], ≤ 1 − α, non-increasing and convex on GRID."""
    b = f(GRID)
    assert np.all((b >= -tol) & (b <= 1 + tol))
    assert np.all(b <= 1 - GRID + tol)
    assert np.all(np.diff(b) <= tol)
    a0, a1, a2 = GRID[:-2], GRID[1:-1], GRID[2:]
    chord = b[:-2] + (b[2:] - b[:-2]) * (a1 - a0) / (a2 - a0)
    assert np.all(b[1:-1] <= chord + tol)


def test_drs_check_values():
    """DRS §3.2: ten f_{0.5,0} give μ = 1.5976 and γ = 0.1936."""
    r = fdp.clt([fdp.EpsDelta(0.5)] * 10)
    # DRS print 4 digits, truncated: μ = 1.597660…, γ = 0.193606…
    assert 1.5976 <= r.mu < 1.5977
    assert 0.1936 <= r.gamma < 0.1937
    assert r.n == 10 and not r.vacuous and r.delta == 0.0
    assert "not a bound" in repr(r)


def test_gaussian_inputs_are_exact():
    mus = [0.3, 1.2, 0.7, 0.7, 2.0]
    r = fdp.clt([fdp.Gaussian(m) for m in mus])
    exact = float(np.sqrt(np.sum(np.square(mus))))
    assert r.mu == pytest.approx(exact, rel=1e-14)
    assert r.approx.of == fdp.Gaussian(r.mu) and r.approx.status is fdp.Status.APPROXIMATION
    truth = fdp.compose(*[fdp.Gaussian(m) for m in mus])
    assert np.max(np.abs(r.approx(GRID) - truth(GRID))) < 1e-12
    assert np.all(r.lower(GRID) <= truth(GRID) + 1e-12)
    assert np.all(truth(GRID) <= r.upper(GRID) + 1e-12)


@pytest.mark.parametrize("eps,n", [(0.5, 10), (0.2, 50), (0.1, 200), (1.0, 5), (0.05, 1000)])
@pytest.mark.slow
def test_band_contains_exact_pure_dp_composition(eps, n):
    r = fdp.clt([fdp.EpsDelta(eps)] * n)
    truth = fdp.EpsDelta(eps) ** n  # exact, binomial (KOV)
    t = truth(GRID)
    assert np.all(r.lower(GRID) <= t + 1e-12)
    assert np.all(t <= r.upper(GRID) + 1e-12)
    assert_tradeoff(r.lower)
    assert_tradeoff(r.upper)
    # The theorem's own inequalities on [γ, 1 − γ].
    inside = GRID[(GRID >= r.gamma) & (GRID <= 1 - r.gamma)]
    g = fdp.Gaussian(r.mu)
    assert np.all(g(np.minimum(inside + r.gamma, 1)) - r.gamma <= truth(inside) + 1e-12)
    assert np.all(truth(inside) <= g(np.maximum(inside - r.gamma, 0)) + r.gamma + 1e-12)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.02, 1.5), st.integers(2, 60))
@pytest.mark.slow
def test_band_property(eps, n):
    r = fdp.clt([fdp.EpsDelta(eps)] * n)
    truth = fdp.EpsDelta(eps) ** n
    t = truth(GRID)
    assert np.all(r.lower(GRID) <= t + 1e-12)
    assert np.all(t <= r.upper(GRID) + 1e-12)
    assert np.all(r.lower(GRID) <= r.upper(GRID) + 1e-12)


def test_lower_is_the_convexified_theorem_bound():
    lo = BerryEsseenLower(1.5, 0.1)
    a = np.linspace(0.1, 0.9, 401)
    g = fdp.Gaussian(1.5)
    raw = np.maximum(0, g(np.minimum(a + 0.1, 1)) - 0.1)
    # against the theorem's curve from G's upper side (closed forms are rounding brackets)
    raw_hi = np.maximum(0, g.bounds(np.minimum(a + 0.1, 1))[1] - 0.1)
    assert np.all(lo(a) <= raw_hi + 1e-15)
    # Beyond the tangent point it is the theorem's curve itself.
    far = a > 0.5
    assert np.allclose(lo(a[far]), raw[far], atol=1e-15)
    assert lo(0.0) == pytest.approx(g(0.2) - 0.1)
    assert_tradeoff(lo)


def test_eps_delta_inputs_split_delta_exactly():
    f = fdp.EpsDelta(0.3, 1e-4)
    n = 20
    r = fdp.clt([f] * n)
    assert r.delta == pytest.approx(1 - (1 - 1e-4) ** n, rel=1e-12)
    # Never smaller than DRS's limit 1 − e^{−Σδ}.
    assert r.delta >= -np.expm1(-n * 1e-4)
    assert isinstance(r.approx.of, WithDelta) and r.approx.status is fdp.Status.APPROXIMATION
    assert r.approx.of.base == fdp.Gaussian(fdp.clt([fdp.EpsDelta(0.3)] * n).mu)
    truth = f ** n
    t = truth(GRID)
    assert np.all(r.lower(GRID) <= t + 1e-12)
    assert np.all(t <= r.upper(GRID) + 1e-12)
    # g ⊗ f_{0,δ} in closed form agrees with the exact finite-pair composition.
    pure = fdp.EpsDelta(0.3) ** n
    combo = WithDelta(pure, r.delta)
    assert np.max(np.abs(combo(GRID) - t)) < 1e-12
    assert np.allclose(combo.delta(np.linspace(-2, 4, 25)),
                       truth.delta(np.linspace(-2, 4, 25)), atol=1e-12)


def test_vacuous_band_is_flagged_not_an_error():
    r = fdp.clt([fdp.EpsDelta(3.0)] * 2)
    assert r.gamma >= 0.5 and r.vacuous
    assert "vacuous" in repr(r)
    assert np.all(r.lower(GRID) == 0.0)
    assert np.allclose(r.upper(GRID), 1 - GRID)


def test_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        fdp.clt([])
    with pytest.raises(TypeError):
        fdp.clt([0.3])
    asym = fdp.from_pair([0.5, 0.5], [0.2, 0.8])
    with pytest.raises(ValueError, match="symmetric"):
        fdp.clt([asym, fdp.Gaussian(1.0)])
    with pytest.raises(TypeError, match="one_sided"):
        fdp.clt([fdp.Gaussian(1.0)], one_sided="both")


def test_explicit_symmetrisation():
    asym = fdp.from_pair([0.5, 0.5], [0.2, 0.8])
    r = fdp.clt([asym] * 30, one_sided=False)
    fn = fdp.functionals(asym.symmetrize())
    assert r.mu == pytest.approx(2 * np.sqrt(30) * fn.kl / np.sqrt(fn.kappa2 - fn.kl ** 2),
                                rel=1e-12)
    assert r.accuracy == fn.accuracy > 0  # the symmetrised f goes the quadrature route
    one = fdp.clt([asym] * 30, one_sided=True)
    assert one.mu >= r.mu  # min{f, f⁻¹}** is less private than max{f, f⁻¹}


def test_identity_only():
    r = fdp.clt([fdp.Identity()] * 3)
    assert r.mu == 0.0 and r.gamma == 0.0
    assert np.allclose(r.approx(GRID), 1 - GRID)


def test_clt_is_a_function_not_a_module():
    import types

    import fdp.limits
    assert not isinstance(fdp.clt, types.ModuleType)
    assert fdp.clt([fdp.Gaussian(1.0)] * 4).mu == pytest.approx(2.0)


def _laplace_truth(c, n, tol=1e-7):
    return fdp.compose(*[fdp.Laplace(c / np.sqrt(n))] * n, tol=tol)


@pytest.mark.parametrize("n", [10, 100, pytest.param(1000, marks=pytest.mark.slow)])
def test_laplace_composition_inside_band(n):
    """The numeric composition (engine, certified bracket) lies in the band."""
    truth = _laplace_truth(1.0, n)
    r = fdp.clt([fdp.Laplace(1.0 / np.sqrt(n))] * n)
    lo_t, up_t = truth.bounds(GRID)
    assert np.all(r.lower(GRID) <= up_t + 1e-9)
    assert np.all(lo_t <= r.upper(GRID) + 1e-9)


def _clt_errors(ns, tol):
    errs, gammas = [], []
    for n in ns:
        lo, hi = _laplace_truth(1.0, n, tol).bounds(GRID)
        r = fdp.clt([fdp.Laplace(1.0 / np.sqrt(n))] * n)
        g = r.approx(GRID)
        # Certified upper and lower bounds on sup|truth − G_μ| from the bracket.
        err_up = np.max(np.maximum(np.abs(g - lo), np.abs(g - hi)))
        err_lo = np.max(np.maximum(0.0, np.maximum(lo - g, g - hi)))
        assert err_lo > 0.8 * err_up
        errs.append(err_up)
        gammas.append(r.gamma)
    return np.array(errs), np.array(gammas)


def _check_rate(ns, errs, gammas):
    # γ√n → const (Laplace(m)'s functionals scale like powers of m only as m → 0).
    assert np.allclose(gammas * np.sqrt(ns), gammas[0] * np.sqrt(ns[0]), rtol=0.05)
    assert np.all(errs <= gammas)
    slope = np.polyfit(np.log(ns), np.log(errs), 1)[0]
    assert slope < -0.45, (errs, slope)


def test_laplace_clt_error_shrinks_at_least_like_inverse_sqrt_n():
    """sup_α |L_{1/√n}^{⊗n} − G_μ| against n. The Berry–Esseen γ is exactly C/√n; the
    observed error falls at least that fast (for these symmetric Laplace factors it
    falls like 1/n: errors 5.5e-3, 2.3e-3, 1.1e-3, 4.1e-4 at n = 10, 20, 40, 100)."""
    ns = np.array([10, 20, 40])
    _check_rate(ns, *_clt_errors(ns, 1e-7))


@pytest.mark.slow
def test_laplace_clt_error_rate_to_n_100():
    ns = np.array([10, 100])
    _check_rate(ns, *_clt_errors(ns, 1e-9))


@settings(max_examples=15, deadline=None)
@given(st.floats(0.05, 1.0), st.integers(3, 5), st.integers(2, 12))
def test_band_contains_kary_randomized_response(eps, k, n):
    """k-ary randomized response composes exactly (finite pairs): the truth is exact."""
    f = fdp.RandomizedResponse(eps, k)
    r = fdp.clt([f] * n)
    t = (f ** n)(GRID)
    assert np.all(r.lower(GRID) <= t + 1e-12)
    assert np.all(t <= r.upper(GRID) + 1e-12)


def test_numeric_inputs_go_through_quadrature():
    """A numeric (engine) factor: functionals by quadrature, accuracy reported."""
    h = fdp.Laplace(0.5) @ fdp.Gaussian(0.5)
    r = fdp.clt([h] * 10)
    assert r.accuracy > 0
    exact = fdp.functionals(fdp.Laplace(0.5))
    g = fdp.functionals(fdp.Gaussian(0.5))
    # kl and the variance of the loss add under composition.
    fn = fdp.functionals(h)
    assert fn.kl == pytest.approx(exact.kl + g.kl, abs=10 * fn.accuracy + 1e-6)
    var = exact.kappa2 - exact.kl ** 2 + g.kappa2 - g.kl ** 2
    assert fn.kappa2 - fn.kl ** 2 == pytest.approx(var, abs=10 * fn.accuracy + 1e-6)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.0, 6.0), st.floats(0.0, 0.499))
def test_band_sides_are_tradeoff_functions(mu, gamma):
    from fdp.limits import berry_esseen_upper
    lo, up = BerryEsseenLower(mu, gamma), berry_esseen_upper(mu, gamma)
    assert_tradeoff(lo, tol=1e-9)
    assert_tradeoff(up, tol=1e-9)
    assert np.all(lo(GRID) <= up(GRID) + 1e-12)
    # Lower: below the theorem's curve on [γ, 1 − γ]. Upper: the convex hull of
    # samples of u (module docstring), so at its sample points it is ≤ u, and it
    # is a valid upper bound because a convex f below u at the samples is below it.
    inside = GRID[(GRID >= gamma) & (GRID <= 1 - gamma)]
    g = fdp.Gaussian(mu)
    assert np.all(lo(inside) <= np.maximum(0, g(np.minimum(inside + gamma, 1)) - gamma) + 1e-12)
    a = np.linspace(0.0, 1.0, 2001)
    u = np.where((a >= gamma) & (a <= 1 - gamma),
                 np.minimum(1 - a, g(np.clip(a - gamma, 0, 1)) + gamma), 1 - a)
    assert np.all(up(a) <= u + 1e-12)
