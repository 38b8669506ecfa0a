"""fdp.sweep on Dask's distributed executor (optional ``dask`` extra).

A LocalCluster of two worker processes runs the same tiny grid as the serial path;
the rows must be identical (every float equal), in input order, failures included.
"""

from __future__ import annotations

import importlib

import pytest

from fdp import sweep

distributed = pytest.importorskip("distributed")

TOL = 1e-3


def halve_or_fail(x):
    if x < 0:
        raise ValueError(f"x must be >= 0, got {x}")
    return x / 2


def warm_up():
    importlib.import_module("fdp.sgd.certified")


@pytest.fixture(scope="module")
def dask_executor():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    # the workers import fdp (numpy, scipy) once here, not inside the first test
    client.run(warm_up)
    try:
        yield client.get_executor()
    finally:
        client.close()
        cluster.close()


@pytest.mark.slow
def test_dask_dpsgd_table_rows_identical_to_serial(dask_executor):
    grid = dict(noise_multipliers=[0.8, 2.0], sample_rates=[0.01, 1.0], steps=[0, 20],
                delta=[1e-5, 1e-3], tol=TOL)
    serial = sweep.dpsgd_table(**grid)
    remote = sweep.dpsgd_table(**grid, executor=dask_executor)
    assert remote == serial
    assert [(r.epsilon_lo, r.epsilon_hi) for r in remote] == \
           [(r.epsilon_lo, r.epsilon_hi) for r in serial]


@pytest.mark.slow
def test_dask_calibrate_many_rows_identical_to_serial(dask_executor):
    targets = [{"epsilon": 2.0, "delta": 1e-5}, {"mu": 0.5}]
    opts = dict(sample_rate=1.0, steps=4, tol=TOL, rtol=1e-2)
    assert sweep.calibrate_many(targets, executor=dask_executor, **opts) == \
        sweep.calibrate_many(targets, **opts)


def test_dask_failures_raise_or_are_recorded(dask_executor):
    configs = [4.0, -1.0, 2.0]
    with pytest.raises(ValueError, match="x must be >= 0"):
        sweep.evaluate(halve_or_fail, configs, executor=dask_executor)
    out = sweep.evaluate(halve_or_fail, configs, executor=dask_executor, errors="record")
    assert out == [2.0, sweep.Failure(1, -1.0, "ValueError: x must be >= 0, got -1.0"), 1.0]
    # without replacement the engine alone cannot certify δ = 1e-300 (Poisson now answers
    # it through min(engine, RDP))
    rows = sweep.dpsgd_table(1.0, 0.01, 10, 1e-300, tol=TOL, errors="record",
                             executor=dask_executor, sampling="without_replacement",
                             neighbouring="replace_one")
    assert rows[0].error.startswith("ValueError:") and rows[0].epsilon_hi == float("inf")
