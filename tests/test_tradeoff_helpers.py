"""One of each helper in fdp/tradeoff.py: as_factors, count_factors, is_symmetric."""

import numpy as np
import pytest

import fdp
from fdp._constants import SYMMETRY_TOL
from fdp.tradeoff import as_factors, count_factors, is_symmetric


def test_as_factors_reads_both_forms_the_same():
    g, lap = fdp.Gaussian(1.0), fdp.Laplace(1.0)
    assert as_factors((g, lap), "f") == as_factors(([g, lap],), "f") == as_factors(((g, lap),), "f")
    with pytest.raises(ValueError, match="f needs at least one"):
        as_factors((), "f")
    with pytest.raises(ValueError, match="f needs at least one"):
        as_factors(([],), "f")
    with pytest.raises(TypeError, match="f takes TradeOff objects, got int"):
        as_factors((g, 3), "f")


@pytest.mark.parametrize("fn", [fdp.compose, fdp.envelope, fdp.strongest])
def test_collection_functions_accept_both_forms(fn):
    fs = [fdp.Gaussian(1.0), fdp.EpsDelta(1.0)]
    a, b = fn(*fs), fn(fs)
    x = np.array([0.01, 0.2, 0.7])
    assert np.array_equal(a(x), b(x))


def test_count_factors_groups_equal_objects():
    g = fdp.Gaussian(1.0)
    out = count_factors([g, fdp.Laplace(1.0), fdp.Gaussian(1.0), g])
    assert out == [(g, 3), (fdp.Laplace(1.0), 1)]


def test_is_symmetric_one_meaning():
    assert SYMMETRY_TOL == 1e-9
    assert is_symmetric(fdp.Gaussian(1.0))                    # known
    add = fdp.Gaussian(1.0).subsample(0.3, direction="add")
    assert not is_symmetric(add)
    # numerically symmetric although not declared so: a user function equal to G_1
    g = fdp.Gaussian(1.0)
    h = fdp.from_function(lambda a: g(a))
    assert not h.symmetric and is_symmetric(h)
    # the tolerance is an absolute allowance on β: f vs f⁻¹ differing by ~1e-3 fails
    # at the default and passes when allowed
    gap = float(np.max(np.abs(add(np.linspace(0, 1, 401)) - add.inverse()(np.linspace(0, 1, 401)))))
    assert not is_symmetric(add, tol=gap / 2) and is_symmetric(add, tol=1.0)
    with pytest.raises(ValueError, match="tol"):
        is_symmetric(add, tol=-1.0)
