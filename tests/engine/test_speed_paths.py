"""The fast paths of the engine give the same certified answers.

Truths: closed forms (DP-SGD with q = 1 is G_{√T/σ}, DRS Cor 3.3), dp_accounting's
PLD accountant on a fine grid (skipped when not installed), mpmath at 50 digits for
the direct transform of the live band, and a printed value from the issue for T = 10⁷.
"""

from __future__ import annotations

import io
import math

import mpmath as mp
import numpy as np
import pytest

import fdp
from fdp.engine import direct_band, lattice, pipeline
from fdp.engine.grid import DEFAULT_TOL, GRID_POINTS, choose_step
from fdp.families.gaussian import Gaussian
from fdp.operations.subsample import PoissonAdd
from fdp.progress import Meter


def test_large_epsilon_full_batch_closed_form():
    # q = 1, σ = 0.6, T = 1000: G_{52.7}, ε(1e-5) ≈ 1612.7
    lo, hi = fdp.dpsgd(0.6, 1.0, 1000).epsilon_bounds(1e-5)
    truth = fdp.Gaussian(math.sqrt(1000) / 0.6).epsilon(1e-5)
    assert lo <= truth <= hi
    assert hi - lo <= 1e-3 * truth


def test_large_epsilon_against_dp_accounting_fine_grid():
    pld = pytest.importorskip("dp_accounting.pld.pld_privacy_accountant")
    from dp_accounting import dp_event
    acc = pld.PLDAccountant(value_discretization_interval=1e-3)
    acc.compose(dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(0.6)), 1000))
    ref = acc.get_epsilon(1e-5)              # pessimistic: ≥ the truth, ≈ 78.6486
    lo, hi = fdp.dpsgd(0.6, 0.1, 1000).epsilon_bounds(1e-5)
    assert lo <= ref
    assert hi >= ref - 5e-4                  # its grid error at 1e-3 is ≈ 1e-4
    assert hi - lo <= 1e-3 * hi


@pytest.mark.parametrize("sigma", [0.3, 0.6, 1.1, 2.0])
@pytest.mark.parametrize("q", [256 / 60000, 0.01, 0.1, 1.0])
@pytest.mark.parametrize("steps", [10 ** 7, 10 ** 9])
def test_default_grid_fits_the_budget(sigma, q, steps):
    # no ordinary DP-SGD question raises MemoryError at the default tol: the grid
    # is coarsened to GRID_POINTS (checked before anything is allocated)
    groups = [(PoissonAdd(Gaussian(1.0 / sigma), q), steps)]
    step, spreads = choose_step(groups, DEFAULT_TOL)
    assert step > 0
    # an explicit smaller tol is taken as asked (and may raise MemoryError)
    try:
        fine, _ = choose_step(groups, DEFAULT_TOL / 4)
        assert fine <= step
    except MemoryError as err:
        assert "tol" in str(err)
    assert GRID_POINTS <= lattice.MAX_POINTS


def test_ten_million_steps_default_settings():
    # σ = 1.1, q = 256/60000, T = 10⁷ (issue 15: fdp at tol = 1e-3 certified
    # [180.5002, 180.5086]; dp_accounting 180.5165 with error ≈ +0.01)
    lo, hi = fdp.dpsgd(1.1, 256 / 60000, 10 ** 7).epsilon_bounds(1e-5)
    assert lo <= 180.5086 and hi >= 180.5002
    assert hi - lo <= 1e-3 * hi


def test_a_billion_steps_default_settings():
    lo, hi = fdp.dpsgd(1.1, 256 / 60000, 10 ** 9).epsilon_bounds(1e-5)
    assert 0.0 < lo <= hi < math.inf
    # ε grows with T: certainly above the 10⁷-step value
    assert hi > 180.5


def _direct_truth(q, F, freqs, m, n, kbar):
    """(F − D)^n, D = Σ q_k (1 − e^{−iω(k − k̄)}): the band's definition with the
    finite mass F as given (the transform at ω = 0 is F exactly)."""
    mp.mp.dps = 50
    out = []
    for j in freqs:
        d = mp.fsum(mp.mpf(float(qk)) * (1 - mp.expj(-2 * mp.pi * int(j) * (k - kbar) / m))
                    for k, qk in enumerate(q))
        out.append(complex((mp.mpf(F) - d) ** n))
    return np.array(out)


@pytest.mark.parametrize("table", [True, False])
def test_direct_band_against_mpmath(table, monkeypatch):
    rng = np.random.default_rng(3)
    q = rng.random(60) * np.exp(-np.linspace(-4, 4, 60) ** 2)
    q /= q.sum()
    m, n = 1000, 5000
    freqs = np.arange(0, 80)                # 80 · 60 > 2m: the residue tables are used
    monkeypatch.setattr(direct_band, "_TABLE_MAX", 2 ** 23 if table else 0)
    F = float(q.sum())
    Xn, err, kbar = direct_band.direct_band(q, F, freqs, m, n)
    truth = _direct_truth(q, F, freqs, m, n, kbar)
    assert np.abs(truth[1]) > 1e-3            # the band is not trivially tiny
    assert np.all(np.abs(Xn - truth) <= err + 1e-300)


def test_dot_is_a_plain_sum():
    a = np.linspace(0.0, 1.0, 1001)
    b = np.linspace(1.0, 2.0, 1001)
    assert lattice._dot(a, b) == pytest.approx(math.fsum(a * b), rel=1e-14)


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_meter_turns_on_for_long_work_only():
    s = _Tty()
    m = Meter(4, "tilted recomposition", None, stream=s, seconds=5.0)
    m.advance(4)
    m.close()
    assert "tilted recomposition" in s.getvalue()
    quiet = _Tty()
    m = Meter(4, "short", None, stream=quiet, seconds=0.1)
    m.advance(4)
    m.close()
    assert quiet.getvalue() == ""
    off = _Tty()
    m = Meter(4, "asked off", False, stream=off, seconds=100.0)
    m.advance(4)
    assert off.getvalue() == ""


def test_tilted_bracket_cached_and_intersected():
    f = fdp.dpsgd(1.1, 256 / 60000, 1000)
    delta = 20.0 * f.delta_floor          # plain applies, and the tilt tightens it
    plain = f._epsilon_plain(np.array([delta]))
    lo, hi = f.epsilon_bounds(delta)
    assert ("tilt", delta) in f._curves
    assert plain[0][0] <= lo <= hi <= plain[1][0]
    assert f.epsilon_bounds(delta) == (lo, hi)


def test_concurrent_sides_give_identical_lattices(monkeypatch):
    monkeypatch.setattr(pipeline, "_idle_core", lambda: False)
    seq = fdp.dpsgd(1.1, 256 / 60000, 2000)
    monkeypatch.setattr(pipeline, "_idle_core", lambda: True)
    par = fdp.dpsgd(1.1, 256 / 60000, 2000)
    for a, b in zip(seq.pess + seq.opt, par.pess + par.opt):
        assert a.k0 == b.k0 and a.slack == b.slack and a.q_inf == b.q_inf
        assert np.array_equal(a.q, b.q)
    assert seq.epsilon_bounds(1e-5) == par.epsilon_bounds(1e-5)


@pytest.mark.parametrize(("cores", "load", "idle"), [
    (2, 0.0, True), (2, 1.2, True),      # a lone session: its own share of the load
    (2, 1.6, False), (2, 2.0, False),    # another busy job besides it
    (1, 0.0, False), (4, 3.4, True), (4, 3.6, False),
])
def test_idle_core_counts_this_process(monkeypatch, cores, load, idle):
    monkeypatch.setattr(pipeline.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(pipeline.os, "getloadavg", lambda: (load, load, load))
    assert pipeline._idle_core() is idle


def test_idle_core_without_load_average(monkeypatch):
    def missing():
        raise OSError("no load average here")
    monkeypatch.setattr(pipeline.os, "getloadavg", missing)
    assert pipeline._idle_core() is False
