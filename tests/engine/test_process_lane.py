"""Many distinct factors: the split tree (two halves, then their product) and the
second half composed in a worker process when a core is idle.

The worker must give the serial lattices bit for bit, fall back to this process when
it cannot run, and the split tree must bracket the truth like the plain one
(closed forms: Gaussians compose to a Gaussian; dp_accounting at a fine grid for
distinct subsampled Gaussians).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fdp
from fdp.engine import composition, pipeline, worker
from fdp.engine.composition import compose_add_remove, half_directions
from fdp.engine.lattice import Lattice
from fdp.engine.pipeline import (
    SPLIT_FACTORS,
    combine_parts,
    cropped,
    discretise_groups,
    halves,
    inverse_parts,
    join_halves,
    side_tree,
    work_units,
)
from fdp.operations.subsample import PoissonAdd
from fdp.progress import Meter

SIGMAS = np.linspace(0.9, 1.5, SPLIT_FACTORS + 3)
GROUPS = [(PoissonAdd(fdp.Gaussian(1.0 / s), 0.05), 1 + i % 3) for i, s in enumerate(SIGMAS)]
STEP = 0.02


def _same(a: Lattice, b: Lattice) -> None:
    assert (a.k0, a.q_inf, a.slack, a.side) == (b.k0, b.q_inf, b.slack, b.side)
    np.testing.assert_array_equal(a.q, b.q)


def _boom(x):
    raise RuntimeError("worker failure")


@pytest.mark.slow
def test_worker_runs_a_module_function_and_reports_failure_as_none():
    assert worker.run(math.hypot, 3.0, 4.0) == 5.0
    assert worker.run(lambda: 1) is None              # does not pickle by reference
    assert worker.run(_boom, 1) is None                # raises in the worker


@pytest.fixture
def serial(monkeypatch):
    monkeypatch.setattr(composition, "LANES", 1)
    monkeypatch.setattr(composition, "PROCESS_LANE", False)
    monkeypatch.setattr(pipeline, "CONCURRENT_SIDES", False)


@pytest.fixture
def lane(monkeypatch):
    # the worker process whatever the machine (it is used from 2 cores on)
    monkeypatch.setattr(composition, "_process_lane",
                        lambda groups, step: len(groups) >= SPLIT_FACTORS)


@pytest.fixture(scope="module")
def serial_lattices():
    mp = pytest.MonkeyPatch()
    mp.setattr(composition, "LANES", 1)
    mp.setattr(composition, "PROCESS_LANE", False)
    try:
        return compose_add_remove(GROUPS, STEP)
    finally:
        mp.undo()


def test_serial_sides_are_the_split_tree(serial_lattices):
    # from SPLIT_FACTORS groups on, every side is the product of its two halves' trees
    add = discretise_groups(GROUPS, STEP)
    rem = inverse_parts(GROUPS, add, reflect_both=True)
    for (p, o), parts in zip(serial_lattices, (add, rem)):
        first, second = halves(cropped(parts))
        for i, got in enumerate((p, o)):
            _same(got, join_halves(side_tree(first, i), side_tree(second, i)))
        rp, ro = combine_parts(cropped(parts))
        _same(p, rp)
        _same(o, ro)


def test_process_lane_gives_the_serial_lattices_bit_for_bit(serial_lattices, lane,
                                                            monkeypatch):
    calls = []
    real = worker.run

    def counted(func, *args):
        out = real(func, *args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(worker, "run", counted)
    meter = Meter(work_units(len(GROUPS), 2), "test", False)
    out = compose_add_remove(GROUPS, STEP, meter)
    assert calls == [True]                             # the worker ran the second half
    assert meter.done == work_units(len(GROUPS), 2)
    for (sp, so), (p, o) in zip(serial_lattices, out):
        _same(sp, p)
        _same(so, o)


def test_without_a_worker_the_second_half_is_computed_here(serial_lattices, lane,
                                                          monkeypatch):
    monkeypatch.setattr(worker, "run", lambda func, *args: None)
    meter = Meter(work_units(len(GROUPS), 2), "test", False)
    out = compose_add_remove(GROUPS, STEP, meter)
    assert meter.done == work_units(len(GROUPS), 2)
    for (sp, so), (p, o) in zip(serial_lattices, out):
        _same(sp, p)
        _same(so, o)


def test_the_worker_is_used_only_where_it_pays(monkeypatch):
    # few per-step points (GROUPS: ~6e4): starting a worker would cost more than it saves
    monkeypatch.setattr(composition.os, "cpu_count", lambda: 2)
    assert not composition._process_lane(GROUPS, STEP)
    assert composition._process_lane(GROUPS, STEP * 1e-3)         # 1000x the points
    assert not composition._process_lane(GROUPS[:SPLIT_FACTORS - 1], STEP * 1e-3)
    monkeypatch.setattr(composition.os, "cpu_count", lambda: 1)
    assert not composition._process_lane(GROUPS, STEP * 1e-3)


def test_half_directions_are_the_four_half_trees():
    first, _ = halves(GROUPS)
    add = discretise_groups(first, STEP)
    rem = inverse_parts(first, add, reflect_both=True)
    want = [side_tree(cropped(parts), i) for parts in (add, rem) for i in (0, 1)]
    for got, ref in zip(half_directions(first, STEP), want):
        _same(got, ref)


def test_split_tree_brackets_the_gaussian_closed_form(serial):
    # ⊗ G_{μ_i} = G_{sqrt(Σ μ_i²)} (DRS 2022, Cor 3.3), with enough distinct factors
    # for the split tree
    mus = np.linspace(0.05, 0.3, SPLIT_FACTORS + 5)
    r = fdp.compose([fdp.Gaussian(float(m)) for m in mus], tol=1e-3)
    truth = fdp.Gaussian(float(np.sqrt(np.sum(mus ** 2))))
    for d in (1e-2, 1e-5, 1e-9):
        lo, hi = r.epsilon_bounds(d)
        assert lo <= truth.epsilon(d) <= hi
        assert hi - lo < 0.02
    alpha = np.array([1e-6, 1e-3, 0.1, 0.5])
    lo, hi = r.bounds(alpha)
    assert np.all(lo <= truth(alpha) + 1e-12) and np.all(truth(alpha) <= hi + 1e-12)


@pytest.mark.slow
def test_distinct_steps_contain_dp_accounting(lane):
    # the process lane (forced) on distinct Poisson-subsampled Gaussians, against
    # dp_accounting's pessimistic PLD (its default grid, 27 s: it composes the 80
    # distinct events one by one; at a 3x finer grid it moves by 4e-7)
    pld = pytest.importorskip("dp_accounting.pld.pld_privacy_accountant")
    from dp_accounting import dp_event
    sig = np.linspace(0.8, 1.4, SPLIT_FACTORS + 16)
    q, delta = 0.02, 1e-5
    r = fdp.dpsgd(sig, q, sig.size)
    lo, hi = r.epsilon_bounds(delta)
    acc = pld.PLDAccountant(value_discretization_interval=1e-4)
    for s in sig:
        acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(float(s))))
    ref = acc.get_epsilon(delta)
    assert lo <= ref + 1e-6
    assert ref - hi <= 1e-4 * ref              # dp_accounting errs up, by less than this
    assert hi - lo <= 1e-3 * max(hi, 0.01)
