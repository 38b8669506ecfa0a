"""fdp.law.readers: answers through f.law(), None without a law."""

import numpy as np

import fdp


def test_engine_readers_answer_none_without_a_law():
    from fdp.law import atoms_of, interval_masses_of, loss_range_of
    f = fdp.from_function(lambda a: np.maximum(1.0 - 2.0 * a, 0.5 - 0.5 * a))
    assert f.law() is None
    assert interval_masses_of(f, [0.0]) is None and loss_range_of(f) is None
    assert atoms_of(f)[0].size == 0
