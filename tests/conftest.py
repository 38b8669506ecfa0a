"""Shared hypothesis strategies: random members of every family; the log of skipped
tests that ``.ci/run`` reruns once the extras are installed."""

from __future__ import annotations

import os

import mpmath
import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st

import fdp


def _log_skip(report) -> None:
    """Append the node id of a skipped test or module to ``$FDP_SKIPPED_LOG`` (one per
    line, in pytest's ``@file`` argument format; xdist workers append too, so a line may
    repeat)."""
    path = os.environ.get("FDP_SKIPPED_LOG")
    if path and report.skipped:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(report.nodeid + "\n")


def pytest_runtest_logreport(report):
    _log_skip(report)


def pytest_collectreport(report):
    _log_skip(report)


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    """A test that sets mpmath's global precision must not change the next test's."""
    dps = mpmath.mp.dps
    yield
    mpmath.mp.dps = dps

# The default run is reproducible (the same examples every time, so CI cannot flake);
# `pytest --hypothesis-profile=explore` draws fresh, more numerous examples.
settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=200)
settings.load_profile("default")

ALPHA_GRID = np.unique(np.concatenate([np.linspace(0.0, 1.0, 401), np.logspace(-12, -1, 40),
                                       1.0 - np.logspace(-12, -1, 40)]))

mus = st.floats(0.0, 5.0)
epss = st.floats(0.0, 3.0)
deltas = st.floats(0.0, 0.2)


@st.composite
def pmfs(draw, n):
    w = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n)))
    if w.sum() <= 1e-6:
        w = np.ones(n)
    return w / w.sum()


@st.composite
def pairs(draw):
    n = draw(st.integers(2, 6))
    return fdp.from_pair(draw(pmfs(n)), draw(pmfs(n)))


@st.composite
def point_sets(draw):
    n = draw(st.integers(1, 8))
    a = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n)))
    u = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n)))
    return fdp.from_points(a, u * (1.0 - a))        # trade-off points: β ≤ 1 − α


closed_families = st.one_of(
    mus.map(fdp.Gaussian),
    st.builds(fdp.EpsDelta, epss, deltas),
    mus.map(fdp.Laplace),
    st.builds(fdp.RandomizedResponse, epss, st.integers(2, 5)),
    st.just(fdp.Identity()),
)

# Every kind of object the foundation produces, asymmetric ones included.
tradeoffs = st.one_of(
    closed_families,
    pairs(),
    point_sets(),
    st.builds(lambda f, p: f.subsample(p, direction="add"), closed_families, st.floats(0.01, 1.0)),
)
