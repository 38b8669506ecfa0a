"""``fdp.dpsgd``'s results carry the call's inputs (``fdp.sgd.run``) and are otherwise the
same objects: the undecorated function (``dpsgd.__wrapped__``) is the independent truth."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import fdp
from fdp.operations.min_certified import MinCertified
from fdp.sgd.run import DpsgdMinCertified, DpsgdNumeric, DpsgdRun

PLAIN = fdp.sgd.certified.dpsgd.__wrapped__     # accepts_epochs(dpsgd), no record


def test_same_curve_repr_and_equality_as_the_undecorated_call():
    f, g = fdp.dpsgd(1.1, 0.01, 200, tol=1e-2), PLAIN(1.1, 0.01, 200, tol=1e-2)
    assert type(g) is MinCertified and isinstance(f, DpsgdMinCertified)
    assert repr(f) == repr(g)
    a = np.array([0.0, 1e-6, 0.01, 0.3, 1.0])
    assert np.array_equal(f.bounds(a), g.bounds(a))
    assert tuple(f.epsilon_bounds(1e-5)) == tuple(g.epsilon_bounds(1e-5))
    assert tuple(f.delta_bounds(1.0)) == tuple(g.delta_bounds(1.0))
    assert f == fdp.dpsgd(1.1, 0.01, 200, tol=1e-2)       # equal configurations
    h = pickle.loads(pickle.dumps(f))
    assert h == f and h.run == f.run and repr(h) == repr(f)


def test_the_record_is_the_call():
    f = fdp.dpsgd(1.1, batch_size=10, dataset_size=1000, epochs=2, tol=1e-2)
    assert f.run == DpsgdRun(1.1, None, None, tol=1e-2, dataset_size=1000, batch_size=10,
                             epochs=2.0)
    assert fdp.dpsgd(**f.run.kwargs()) == f
    # per-step values are kept as runs (value, steps) and replayed exactly
    sigma = np.r_[[1.0] * 3, [2.0] * 2]
    g = fdp.dpsgd(sigma, 0.5, 5, sampling="without_replacement",
                  neighbouring="replace_one", tol=1e-2)
    assert isinstance(g, DpsgdNumeric)
    assert g.run.noise_multiplier == ((1.0, 3), (2.0, 2))
    assert np.array_equal(g.run.kwargs()["noise_multiplier"], sigma)
    assert tuple(fdp.dpsgd(**g.run.kwargs()).epsilon_bounds(1e-5)) == \
        tuple(g.epsilon_bounds(1e-5))


@pytest.mark.parametrize("call", [lambda: fdp.dpsgd(1.0, 0.5, 0),
                                  lambda: fdp.dpsgd(1.0, 0.5, 20, sampling="shuffle")])
def test_other_results_are_returned_unchanged(call):
    f = call()
    assert not hasattr(f, "run")
