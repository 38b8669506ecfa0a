"""A Bracket is lo ≤ truth ≤ hi: an inverted one is refused (issue 41)."""

import pickle

import numpy as np
import pytest

from fdp.bracket import Bracket
from fdp.status import Status


def test_inverted_brackets_are_refused():
    with pytest.raises(ValueError, match="lo <= hi"):
        Bracket(1.8271, 1.7253, Status.CERTIFIED)
    with pytest.raises(ValueError, match="at index 1"):
        Bracket(np.array([0.1, 0.3]), np.array([0.2, 0.2]))
    with pytest.raises(ValueError, match="lo <= hi"):
        Bracket(np.inf, 1e308)


def test_ordered_equal_and_unknown_sides_are_accepted():
    b = Bracket(0.5, 0.5)
    assert float(b) == 0.5
    assert Bracket(0.0, np.inf).width == np.inf
    assert Bracket(np.array([0.1, 0.2]), np.array([0.1, 0.3])).hi.tolist() == [0.1, 0.3]
    nan = Bracket(np.nan, 1.0)                 # not ordered, not inverted: kept as given
    assert np.isnan(nan.lo)
    tiny = float(np.nextafter(0.0, 1.0))
    assert Bracket(tiny, tiny * 2).lo == tiny
    c = pickle.loads(pickle.dumps(Bracket(1.0, 2.0, Status.CERTIFIED, "lo", "n")))
    assert c == (1.0, 2.0) and c.note == "n" and c.safe == 1.0
