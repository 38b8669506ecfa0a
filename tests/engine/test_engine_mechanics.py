"""Mass, axioms, memory limits and argument checks of the engine."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.engine import compose_numeric
from fdp.engine.lattice import MAX_POINTS

A = np.linspace(0.0, 1.0, 2001)


def assert_axioms(f):
    lo, hi = f.bounds(A)
    for b in (lo, hi):
        assert np.all(b >= 0) and np.all(b <= 1 - A + 1e-15)
        assert np.all(np.diff(b) <= 1e-15)                     # non-increasing
    assert np.all(lo <= hi + 1e-15)
    d = np.diff(lo)
    assert np.all(np.diff(d) >= -1e-9)                          # convex (lower side)


def test_mass_and_axioms_after_1e9_compositions():
    n = 10 ** 9
    r = compose_numeric([(fdp.Gaussian(1.0 / np.sqrt(n)), n)], tol=0.1)
    pess, opt = r.mass
    assert abs(pess - 1.0) <= 1e-12
    assert abs(opt - 1.0) <= 1e-12           # crops keep mass, leftovers are given back
    assert_axioms(r)
    truth = fdp.Gaussian(1.0)
    lo, hi = r.bounds(A)
    assert np.all(lo <= truth(A) + 1e-12) and np.all(hi >= truth(A) - 1e-12)


def test_mass_of_laplace_power():
    r = compose_numeric([(fdp.Laplace(0.01), 100_000)], tol=1e-3)
    for m in r.mass:
        assert abs(m - 1.0) <= 1e-12
    assert_axioms(r)


def test_tol_validation():
    for bad in (0.0, -1e-3, float("nan"), 2.0):
        with pytest.raises(ValueError, match="tol"):
            compose_numeric([(fdp.Laplace(1.0), 2)], tol=bad)


def test_factor_validation():
    with pytest.raises(ValueError, match="count"):
        compose_numeric([(fdp.Laplace(1.0), 0)])
    with pytest.raises(ValueError, match="count"):
        compose_numeric([(fdp.Laplace(1.0), -2)])
    with pytest.raises(TypeError):
        compose_numeric([("not a tradeoff", 2)])
    with pytest.raises(ValueError):
        compose_numeric([])


def test_memory_limit_names_tol():
    with pytest.raises(MemoryError, match="tol") as exc:
        compose_numeric([(fdp.Laplace(1.0), 1), (fdp.Gaussian(1.0), 1)], tol=1e-14)
    assert f"{MAX_POINTS:,}" in str(exc.value)


def test_delta_below_what_the_tails_certify_is_a_clear_error():
    r = fdp.dpsgd(1.1, 256 / 60000, 2000)
    # the engine cannot resolve δ = 1e-300: the certified RDP bound of the same run answers
    # the upper end, and the note names the engine's limit (the tails it cuts off)
    b = r.epsilon_bounds(1e-300)
    assert b.lo == 0.0 and np.isfinite(b.hi) and "tails" in b.note
    lo, hi = r.epsilon_bounds(np.array([1e-8, 1e-15]))
    assert np.all(0 < lo) and np.all(lo <= hi) and np.all(hi < np.inf)
    assert hi[1] - lo[1] < 1e-3


@pytest.mark.parametrize("delta", [1e-9, 1e-12, 1e-15])
def test_small_delta_bracket_contains_the_closed_form(delta):
    # 10⁴ Gaussian steps through the engine: the plain read-back's round-off floor
    # is ~1e-11, so these δ go through the tilted recomposition
    n = 10 ** 4
    r = compose_numeric([(fdp.Gaussian(1.0 / np.sqrt(n)), n)])
    lo, hi = r.epsilon_bounds(delta)
    exact = fdp.gdp_epsilon(1.0, delta)
    assert lo <= exact <= hi
    assert hi - lo < 1e-3


def test_small_delta_bracket_contains_the_binomial_form():
    from fdp.operations.compose import eps_delta_power
    n = 10 ** 4
    r = compose_numeric([(fdp.EpsDelta(0.01), n)])
    assert r.delta_floor > 1e-10           # the plain read-back alone could not answer
    exact = eps_delta_power(fdp.EpsDelta(0.01), n)
    for delta in (1e-11, 1e-15):
        lo, hi = r.epsilon_bounds(delta)
        assert lo <= exact.epsilon(delta) <= hi
        assert hi - lo < 1e-5


def test_no_source_means_a_clear_floor_error():
    r = compose_numeric([(fdp.EpsDelta(0.01), 10 ** 4)])
    bare = type(r)(r.pess, r.opt, r.label, r.tol)
    with pytest.raises(ValueError, match="resolution"):
        bare.epsilon_bounds(1e-15)


def test_queries_vectorised_and_scalar():
    r = compose_numeric([(fdp.Laplace(1.0), 3)], tol=1e-3)
    assert isinstance(r(0.3), float)
    assert r(np.array([0.1, 0.2])).shape == (2,)
    assert r.delta(np.array([[0.0, 1.0]])).shape == (1, 2)
    assert not r.is_exact
    lo, hi = r.epsilon_bounds(np.array([1e-3, 1e-5]))
    assert lo.shape == (2,) and np.all(lo <= hi)


def test_delta_outside_the_open_unit_interval_is_refused():
    r = fdp.dpsgd(1.0, 0.01, 100)
    for bad in (0.0, 1.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="delta"):
            r.epsilon_bounds(bad)
    with pytest.raises(ValueError, match="delta"):
        r.epsilon(np.array([1e-5, 0.0]))


def test_progress_meter_counts_every_unit(capsys):
    sig = np.linspace(0.8, 1.4, 30)
    fdp.dpsgd(sig, 0.01, 30, tol=1e-2, progress=True)
    err = capsys.readouterr().err
    total = 30 + 2 * 2 * (2 * 30 - 1)                    # discretise, powers, tree
    assert err.rstrip().endswith(f"{total}/{total}")
    fdp.dpsgd(sig, 0.01, 30, tol=1e-2)                   # auto: not a terminal → silent
    assert capsys.readouterr().err == ""


@settings(max_examples=8, deadline=None)
@given(st.floats(0.002, 0.02), st.sampled_from([1e-9, 1e-12, 1e-14]))
def test_small_delta_bracket_contains_the_binomial_form_property(eps, delta):
    from fdp.operations.compose import eps_delta_power
    n = 5000
    r = compose_numeric([(fdp.EpsDelta(eps), n)], tol=1e-3)
    exact = eps_delta_power(fdp.EpsDelta(eps), n).epsilon(delta)
    lo, hi = r.epsilon_bounds(delta)
    assert lo <= exact <= hi
