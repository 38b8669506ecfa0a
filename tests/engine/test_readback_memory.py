"""Memory of the read-back and of the direct band, with every answer unchanged.

- ``suffix_sums`` works in one buffer: bit for bit the sums of the plain
  implementation it replaced (kept below as the reference), so the round-off bound
  ``suffix_error`` proved for that one still holds.
- A lattice of ``TABLES_KEPT_BELOW`` points or more forgets its read-back tables
  when the read-back ends; answers after that are the answers with the tables kept.
- ``direct_band`` sums per frequency, so its chunk size changes no bit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.signal import lfilter

import fdp
from fdp.engine import direct_band as direct_band_module
from fdp.engine import lattice as lattice_module
from fdp.engine.lattice import (
    PESSIMISTIC,
    TABLES_KEPT_BELOW,
    Lattice,
    _block,
    suffix_sums,
    tables_held_for,
)


def _suffix_sums_reference(q, decay, block=None):
    """``suffix_sums`` as it was before it worked in place (fdp 0.1.0)."""
    n = q.size
    b = _block(n) if block is None else block
    nb = -(-n // b)
    flat = np.zeros(nb * b)
    flat[nb * b - n:] = q
    rev = flat[::-1].reshape(nb, b)
    if decay == 1.0:
        local = np.cumsum(rev, axis=1)
    else:
        local = lfilter([1.0], [1.0, -decay], rev, axis=1)
    tot = local[:, -1]
    if decay == 1.0:
        before = np.concatenate([[0.0], np.cumsum(tot)[:-1]])
    else:
        carry = lfilter([1.0], [1.0, -decay ** b], tot)
        before = np.concatenate([[0.0], carry[:-1]])
    with np.errstate(under="ignore"):
        weight = decay ** (np.arange(b) + 1.0)
    out = local + before[:, None] * weight[None, :]
    return out.ravel()[::-1][nb * b - n:]


DECAYS = [1.0, 1.0 - 1e-12, math.exp(-1e-4), math.exp(-0.01), 0.9, 0.5, 1e-3, 1e-300]
SIZES = [*range(1, 40), 255, 256, 257, 4095, 4097, 65_535, 65_537, 300_007]


@pytest.mark.parametrize("decay", DECAYS)
def test_suffix_sums_are_the_reference_bit_for_bit(decay):
    rng = np.random.default_rng(int(decay * 1000) % 97)
    for n in SIZES:
        q = rng.random(n) ** rng.uniform(1.0, 30.0)        # many orders of magnitude
        if n > 10:
            q[rng.integers(0, n, n // 10)] = 0.0
        for block in (None, 16, 1024):
            got = suffix_sums(q, decay, block)
            want = _suffix_sums_reference(q, decay, block)
            assert got.shape == want.shape
            assert np.array_equal(got, want), (n, decay, block)


def test_suffix_sums_leave_their_input_alone_and_own_their_result():
    q = np.random.default_rng(3).random(5000)
    keep = q.copy()
    out = suffix_sums(q, 0.99)
    np.testing.assert_array_equal(q, keep)
    assert not np.shares_memory(out, q)


def _big_lattice(seed: int = 0, n: int = TABLES_KEPT_BELOW + 12_345) -> Lattice:
    rng = np.random.default_rng(seed)
    x = np.linspace(-6.0, 6.0, n)
    q = np.exp(-0.5 * x * x) * (1.0 + 0.1 * rng.random(n))
    q *= (1.0 - 1e-9) / q.sum()
    return Lattice(1e-4, -n // 3, q, 1e-9, 0.0, PESSIMISTIC)


EPS = np.array([0.0, 1e-3, 0.05, 0.3, 1.0, np.inf])
TARGETS = np.array([1e-8, 1e-5, 1e-3, 0.1])


def test_a_big_lattice_forgets_its_tables_and_answers_the_same():
    lat = _big_lattice()
    with lat.tables_held():                       # the answers with the tables kept
        kept_d = lat.delta_raw(EPS)
        kept_e = lat.epsilon_raw(TARGETS)
        kept_g = lat.delta_grid(np.arange(-10, 2000, 7))
        assert lat._tables_cache is not None
    assert lat._tables_cache is None
    np.testing.assert_array_equal(lat.epsilon_raw(TARGETS), kept_e)
    assert lat._tables_cache is None
    np.testing.assert_array_equal(lat.delta_raw(EPS), kept_d)
    np.testing.assert_array_equal(lat.delta_grid(np.arange(-10, 2000, 7)), kept_g)
    assert lat._tables_cache is None
    # a fresh lattice read once gives the same numbers too
    np.testing.assert_array_equal(_big_lattice().delta_raw(EPS), kept_d)


def test_one_query_forms_the_tables_once(monkeypatch):
    lat = _big_lattice(1)
    calls = []
    real = lattice_module.suffix_sums

    def counted(*args, **kwargs):
        calls.append(args[0].size)
        return real(*args, **kwargs)
    monkeypatch.setattr(lattice_module, "suffix_sums", counted)
    lat.epsilon_raw(TARGETS)                      # a bisection of many δ reads
    assert len(calls) == 2                        # tail_q and tail_r, once
    calls.clear()
    with tables_held_for([lat]):
        lat.delta_raw(EPS)
        lat.delta_raw(EPS)
        lat.delta_grid(np.arange(0, 500))
    assert len(calls) == 2
    assert lat._tables_cache is None


def test_small_lattices_keep_their_tables():
    n = 5000
    q = np.full(n, 1.0 / n)
    lat = Lattice(1e-3, -n // 2, q, 0.0, 0.0, PESSIMISTIC)
    lat.delta_raw(EPS)
    assert lat._tables_cache is not None


def test_nested_holds_keep_the_tables_until_the_outermost_ends():
    lat = _big_lattice(2)
    with lat.tables_held():
        with lat.tables_held():
            lat.delta_raw(EPS)
        assert lat._tables_cache is not None
    assert lat._tables_cache is None and lat._holds == 0


def test_epsilon_bounds_of_a_big_composition_keeps_no_tables():
    f = fdp.dpsgd(1.1, 256 / 60000, 10 ** 5, tol=1e-5)
    lats = f.pess + f.opt
    assert min(lat.q.size for lat in lats) >= TABLES_KEPT_BELOW
    first = f.epsilon_bounds(1e-5)
    assert all(lat._tables_cache is None and lat._holds == 0 for lat in lats)
    assert f.epsilon_bounds(1e-5) == first           # recomputed tables: same answer
    for lat in lats:                                  # whole-lattice tables, held
        lat._tables(0)
    with tables_held_for(lats):
        assert f.epsilon_bounds(1e-5) == first


@pytest.mark.parametrize("use_table", [False, True])
def test_direct_band_chunk_changes_no_bit(monkeypatch, use_table):
    rng = np.random.default_rng(11)
    size = 3001
    q = rng.random(size) ** 4
    q /= q.sum()
    m = 20_000 if use_table else 2 ** 24            # small m: the residue tables
    freqs = np.concatenate([np.arange(0, 40), np.arange(m - 40, m)])
    results = []
    for chunk in (1, size, 5 * size + 7, 2 ** 16, 2 ** 22):
        monkeypatch.setattr(direct_band_module, "_CHUNK", chunk)
        results.append(direct_band_module.direct_band(q, 0.9999, freqs, m, 10 ** 6))
    for X, err, kbar in results[1:]:
        assert kbar == results[0][2]
        assert np.array_equal(X, results[0][0])
        assert np.array_equal(err, results[0][1])


@pytest.mark.parametrize("chunk", [16, 1000, 2 ** 12])
@pytest.mark.slow
def test_suffix_recursion_chunks_do_not_change_a_bit(monkeypatch, chunk):
    # the in-block recursion transposes _RECURSE_CHUNK elements at a time; chunk
    # boundaries (also ones cutting a block table unevenly) give the reference's bits
    from fdp.engine import lattice
    monkeypatch.setattr(lattice, "_RECURSE_CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for n in (17, 4097, 65_537, 300_007):
        q = rng.random(n) ** rng.uniform(1.0, 30.0)
        for decay in (math.exp(-1e-4), 0.5, 1e-300):
            assert np.array_equal(suffix_sums(q, decay), _suffix_sums_reference(q, decay))


def test_suffix_sums_over_one_recursion_chunk_are_the_reference():
    # more than _RECURSE_CHUNK (2^20) elements: several transposed chunks
    q = np.random.default_rng(11).random(2_100_003) ** 4.0
    decay = math.exp(-6e-5)
    assert np.array_equal(suffix_sums(q, decay), _suffix_sums_reference(q, decay))
