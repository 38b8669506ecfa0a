"""The engine's speed paths against independent computations.

* read-back tables formed only above the answer (``Lattice._tables(start)``,
  ``epsilon_raw``) against the whole-lattice tables (bit for bit) and a direct sum;
* the Chernoff window's Newton search on block sums (``_chernoff_end``) against the
  exact tail of an n-fold convolution;
* both directions composed on two threads (``compose_add_remove``) against the serial
  path (bit for bit), exact convolution of the per-step lattices, and the Gaussian
  closed form G_μ^{⊗n} = G_{μ√n} (DRS 2022, Cor 3.3).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.engine import composition, pipeline
from fdp.engine.composition import combine_directions, compose_add_remove
from fdp.engine.convolution import _chernoff_end, _coarse, _newton_end, _tilted_moments
from fdp.engine.lattice import OPTIMISTIC, PESSIMISTIC, Lattice, suffix_sums
from fdp.engine.pipeline import (
    combine_parts,
    cropped,
    discretise_groups,
    inverse_parts,
    work_units,
)
from fdp.operations.subsample import PoissonAdd
from fdp.progress import Meter


def _random_lattice(seed: int, n: int = 50_000, side: str = PESSIMISTIC) -> Lattice:
    rng = np.random.default_rng(seed)
    x = np.linspace(-4.0, 4.0, n)
    q = np.exp(-0.5 * (x - rng.uniform(-1, 1)) ** 2) * rng.uniform(0.5, 1.5, n)
    q /= q.sum()
    return Lattice(1e-3, int(rng.integers(-30_000, -10_000)), q, 0.0, 0.0, side)


def _delta_direct(lat: Lattice, eps: float) -> float:
    """δ(ε) = q_inf + Σ q (1 − e^{ε − l})₊ summed exactly (math.fsum)."""
    L = lat.losses
    above = L > eps
    return lat.q_inf + math.fsum(lat.q[above] * -np.expm1(eps - L[above]))


# ---------------------------------------------------------------------------
# read-back tables above the answer
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_suffix_tables_are_the_whole_tables_bit_for_bit(seed):
    lat = _random_lattice(seed)
    start = int(np.random.default_rng(seed).integers(1, lat.q.size - 1))
    s, tq, tr = lat._tables(start)
    assert s == start
    whole = _random_lattice(seed)
    s0, wq, wr = whole._tables(0)
    assert s0 == 0
    np.testing.assert_array_equal(tq, wq[start:])
    np.testing.assert_array_equal(tr, wr[start:])


def test_suffix_sums_with_a_fixed_block_match_on_a_suffix():
    q = np.random.default_rng(7).random(10_001)
    full = suffix_sums(q, 0.999)
    part = suffix_sums(q[4321:], 0.999, block=128)
    np.testing.assert_array_equal(part, suffix_sums(q, 0.999, block=128)[4321:])
    assert np.max(np.abs(full[4321:] - part) / full[4321:]) < 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_epsilon_from_the_top_equals_the_whole_lattice_answer(seed, monkeypatch):
    targets = np.array([1e-9, 1e-6, 1e-3, 0.1])
    fast = _random_lattice(seed).epsilon_raw(targets)
    monkeypatch.setattr(Lattice, "_search_start", lambda self, t: -1)
    slow = _random_lattice(seed).epsilon_raw(targets)
    np.testing.assert_array_equal(fast, slow)
    lat = _random_lattice(seed)
    for t, e in zip(targets, fast):
        # the answer is the smallest ε with δ(ε) ≤ t: check both sides by a direct sum
        assert _delta_direct(lat, float(e)) <= t * (1 + 1e-9) + 1e-15
        if e > 0:
            assert _delta_direct(lat, float(e) - 1e-6) > t * (1 - 1e-9)


class _Whole(Lattice):
    """A lattice read back from its whole tables (no start hint)."""

    def _search_start(self, t):
        return -1


@settings(max_examples=25)
@given(seed=st.integers(0, 10 ** 6), n=st.integers(20_000, 80_000),
       q_inf=st.sampled_from([0.0, 1e-7, 1e-3]),
       logt=st.lists(st.floats(-14.0, 0.3), min_size=1, max_size=4))
def test_epsilon_from_the_top_is_the_whole_answer_for_any_targets(seed, n, q_inf, logt):
    rng = np.random.default_rng(seed)
    q = rng.random(n) ** rng.uniform(1, 8)
    q *= (1.0 - q_inf) / q.sum()
    k0 = int(rng.integers(-n, n // 4))
    step = float(rng.choice([1e-4, 1e-3, 1e-2]))
    targets = np.array([10.0 ** x for x in logt])
    fast = Lattice(step, k0, q, q_inf, 0.0, PESSIMISTIC).epsilon_raw(targets)
    slow = _Whole(step, k0, q, q_inf, 0.0, PESSIMISTIC).epsilon_raw(targets)
    np.testing.assert_array_equal(fast, slow)


def test_a_wrong_start_hint_falls_back_to_the_whole_lattice(monkeypatch):
    lat = _random_lattice(3)
    right = _random_lattice(3).epsilon_raw(np.array([0.2, 1e-4]))
    # a hint at the very top: δ there is below the targets, so it must be refused
    monkeypatch.setattr(Lattice, "_search_start", lambda self, t: self.q.size - 2)
    np.testing.assert_array_equal(lat.epsilon_raw(np.array([0.2, 1e-4])), right)


def test_read_back_of_a_composition_starts_near_its_answer():
    f = fdp.dpsgd(1.0, 0.01, 1000, tol=1e-4)
    lat = f.pess[0]
    lo, hi = f.epsilon_bounds(1e-6)
    s = lat._tables_cache[0]
    assert 0 < s <= math.floor(hi / lat.step) - lat.k0
    # and the answers agree with a whole-lattice read-back
    g = fdp.dpsgd(1.0, 0.01, 1000, tol=1e-4)
    for x in g.pess + g.opt:
        x._tables(0)
    assert (lo, hi) == g.epsilon_bounds(1e-6)


# ---------------------------------------------------------------------------
# Chernoff window on block sums
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_coarse_chernoff_end_bounds_the_exact_tail(seed):
    rng = np.random.default_rng(seed)
    K = 6000
    L = (np.arange(K) - 2000) * 1e-3
    q = rng.random(K) ** 4
    q /= q.sum()
    n, log_tau = 3, math.log(1e-8)
    s = _chernoff_end(L, q, n, log_tau, 1.0)
    exact = q
    for _ in range(n - 1):
        exact = np.convolve(exact, q)
    Ln = (np.arange(exact.size) - n * 2000) * 1e-3
    assert math.fsum(exact[Ln >= s]) <= 1e-8 * (1 + 1e-9)
    # the coarse measure's log-MGF is an upper bound for t > 0 (what makes it valid)
    Lc, qc = _coarse(L, q, 64)
    for t in (0.1, 1.0, 10.0):
        assert _tilted_moments(Lc, qc, t)[0] >= _tilted_moments(L, q, t)[0] - 1e-12
    # and it is near the full Newton search's bound (the window barely widens)
    fine = _newton_end(L, q, n, log_tau, 1.0)[0]
    assert fine <= s <= fine + 0.01 * (abs(fine) + 1.0)


# ---------------------------------------------------------------------------
# both directions on two threads
# ---------------------------------------------------------------------------
@pytest.fixture
def threads(monkeypatch):
    monkeypatch.setattr(composition, "LANES", 2)
    monkeypatch.setattr(composition, "_idle_core", lambda: True)


@pytest.fixture
def serial(monkeypatch):
    monkeypatch.setattr(composition, "LANES", 1)
    monkeypatch.setattr(pipeline, "CONCURRENT_SIDES", False)


def _same(a: Lattice, b: Lattice) -> None:
    assert (a.k0, a.q_inf, a.slack, a.side) == (b.k0, b.q_inf, b.slack, b.side)
    np.testing.assert_array_equal(a.q, b.q)


GROUPS = [[(PoissonAdd(fdp.Gaussian(1.2), 0.05), 40)],
          [(PoissonAdd(fdp.Gaussian(1.0), 0.1), 7), (PoissonAdd(fdp.Gaussian(0.7), 0.02), 3),
           (fdp.Gaussian(0.3), 2)]]


@pytest.mark.parametrize("groups", GROUPS)
def test_threads_give_the_serial_lattices_bit_for_bit(groups, monkeypatch):
    monkeypatch.setattr(composition, "LANES", 1)
    serial_out = compose_add_remove(groups, 0.01)
    monkeypatch.setattr(composition, "LANES", 2)
    monkeypatch.setattr(composition, "_idle_core", lambda: True)
    thread_out = compose_add_remove(groups, 0.01)
    for (sp, so), (tp, to) in zip(serial_out, thread_out):
        _same(sp, tp)
        _same(so, to)
    # and both are what the pipeline's own functions give
    add = discretise_groups(groups, 0.01)
    rem = inverse_parts(groups, add, reflect_both=True)
    for (p, o), parts in zip(serial_out, (add, rem)):
        rp, ro = combine_parts(cropped(parts))
        _same(p, rp)
        _same(o, ro)


def test_dpsgd_on_threads_answers_as_serial(monkeypatch):
    monkeypatch.setattr(composition, "LANES", 1)
    monkeypatch.setattr(pipeline, "CONCURRENT_SIDES", False)
    a = fdp.dpsgd(1.1, 0.01, 500, tol=1e-3)
    monkeypatch.setattr(composition, "LANES", 2)
    monkeypatch.setattr(composition, "_idle_core", lambda: True)
    b = fdp.dpsgd(1.1, 0.01, 500, tol=1e-3)
    for x, y in zip(a.pess + a.opt, b.pess + b.opt):
        _same(x, y)
    assert a.epsilon_bounds(1e-5) == b.epsilon_bounds(1e-5)


def test_the_meter_counts_every_unit_from_threads(threads):
    groups = GROUPS[1]
    meter = Meter(work_units(len(groups), 2), "test", False)
    compose_add_remove(groups, 0.01, meter)
    assert meter.done == work_units(len(groups), 2)


def _exact_power(lat: Lattice, n: int) -> tuple[np.ndarray, int]:
    out = lat.q
    for _ in range(n - 1):
        out = np.convolve(out, lat.q)
    return out, n * lat.k0


@pytest.mark.parametrize("side", [0, 1])
def test_both_directions_against_exact_convolution(side, threads):
    f = PoissonAdd(fdp.Gaussian(1.0), 0.2)
    n, step = 4, 0.02
    out = compose_add_remove([(f, n)], step)
    add = discretise_groups([(f, n)], step)
    rem = inverse_parts([(f, n)], add, reflect_both=True)
    eps = np.linspace(0.0, 3.0, 13)
    for (lats, parts) in zip(out, (add, rem)):
        got = lats[side]
        q, k0 = _exact_power(parts[0][side], n)
        exact = Lattice(step, k0, q, 1.0 - (1.0 - parts[0][side].q_inf) ** n, 0.0,
                        got.side)
        d_exact = np.array([_delta_direct(exact, float(e)) for e in eps])
        d_got = got.delta_raw(eps)
        # the composed lattice is within its slack of the exact n-fold measure
        assert np.all(np.abs(d_got - d_exact) <= got.slack + got.readback + 1e-12)


def test_gaussian_composition_brackets_the_closed_form(threads):
    # G_1^{⊗4} = G_2 in both directions (a symmetric factor is its own inverse)
    (ap, ao), (rp, ro) = compose_add_remove([(fdp.Gaussian(1.0), 4)], 0.005)
    truth = fdp.Gaussian(2.0)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    d = truth.delta(eps)
    for p, o in ((ap, ao), (rp, ro)):
        assert np.all(p.delta_raw(eps) + p.slack + p.readback >= d - 1e-15)
        assert np.all(o.delta_raw(eps) - o.slack - o.readback <= d + 1e-15)
        assert np.all(p.delta_raw(eps) - o.delta_raw(eps) < 1e-3)


def test_combine_directions_keeps_the_order(threads):
    a = cropped(discretise_groups([(PoissonAdd(fdp.Gaussian(1.0), 0.3), 5)], 0.02))
    b = cropped(discretise_groups([(fdp.Gaussian(0.5), 3)], 0.02))
    (ap, ao), (bp, bo) = combine_directions([a, b])
    (ap2, ao2), = combine_directions([a])
    (bp2, bo2), = combine_directions([b])
    for x, y in ((ap, ap2), (ao, ao2), (bp, bp2), (bo, bo2)):
        _same(x, y)
    assert (ap.side, ao.side) == (PESSIMISTIC, OPTIMISTIC)


def test_threaded_read_back_answers_as_serial(monkeypatch):
    from fdp.engine import readback
    f = fdp.dpsgd(0.9, 0.02, 300, tol=1e-3)
    d = np.array([1e-6, 1e-3, 0.05])
    monkeypatch.setattr(readback, "_idle_core", lambda: False)
    serial_lo, serial_hi = readback.epsilon_plain(f.pess, f.opt, d)
    g = fdp.dpsgd(0.9, 0.02, 300, tol=1e-3)
    monkeypatch.setattr(readback, "_idle_core", lambda: True)
    monkeypatch.setattr(readback, "READ_THREADS_FROM", 0)
    lo, hi = readback.epsilon_plain(g.pess, g.opt, d)
    np.testing.assert_array_equal(lo, serial_lo)
    np.testing.assert_array_equal(hi, serial_hi)
    assert np.all(lo <= hi)
