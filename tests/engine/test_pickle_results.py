"""Numeric results are plain data: they pickle, and unpickle to identical answers.

Also: direction-ness is a typed field (``directions``), not a remark parsed out of
a label, and lattices carry only declared fields.
"""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import fdp
from fdp.engine import Numeric, compose_numeric
from fdp.engine.lattice import Lattice
from fdp.engine.numeric import Recipe

ALPHA = np.array([1e-12, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.9])
EPS = np.array([-2.0, 0.0, 0.5, 1.0, 3.0, 8.0])


def _results():
    f_add = fdp.Gaussian(1.0).subsample(0.2, direction="add")
    comp = compose_numeric([(f_add, 3), (fdp.Laplace(0.5), 2)])
    return {
        "composition": fdp.Laplace(1.0) @ fdp.Gaussian(1.0),
        "dpsgd": fdp.dpsgd(1.0, 0.05, 50),
        "dpsgd_without_replacement": fdp.dpsgd(1.0, 0.05, 20, sampling="without_replacement",
                                               neighbouring="replace_one"),
        "inverse": comp.inverse(),
        "one_sided": comp.symmetrize(one_sided=True),
    }


@pytest.fixture(scope="module")
def results():
    return _results()


@pytest.mark.parametrize("name", ["composition", "dpsgd", "dpsgd_without_replacement",
                                  "inverse", "one_sided"])
def test_roundtrip_gives_identical_answers(results, name):
    f = results[name]
    assert isinstance(f, Numeric)
    g = pickle.loads(pickle.dumps(f))
    assert type(g) is type(f) and isinstance(g, Numeric) and repr(g) == repr(f)
    assert g.directions == f.directions
    for a, b in zip(f.bounds(ALPHA), g.bounds(ALPHA)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(f.delta(EPS), g.delta(EPS))
    np.testing.assert_array_equal(f._delta_lower(EPS), g._delta_lower(EPS))
    for d in (1e-2, 1e-6):
        assert f.epsilon_bounds(d) == g.epsilon_bounds(d)
    # far below the round-off floor: the tilted recomposition, rebuilt from `source`
    small = f.delta_floor / 100.0
    if 1e-30 < small and f.source:
        assert f.epsilon_bounds(small) == g.epsilon_bounds(small)


def test_source_is_plain_data(results):
    for f in results.values():
        assert isinstance(f.source, tuple) and f.source
        for recipe in f.source:
            assert isinstance(recipe, Recipe)
            assert not any(callable(v) and not isinstance(v, fdp.TradeOff)
                           for v in dataclasses.asdict(recipe).values())
        assert len(f.source) == len(f.pess)


def test_lattices_have_only_declared_fields(results):
    names = {fl.name for fl in dataclasses.fields(Lattice)}
    for f in results.values():
        for lat in f.pess + f.opt:
            lat.delta_raw(np.array([0.5]))            # fills the caches
            lat.beta_raw(np.array([0.1]))
            assert set(vars(lat)) <= names
    lat = results["composition"].pess[0]
    copy = pickle.loads(pickle.dumps(lat))
    assert copy._tables_cache is None               # caches are not shipped
    np.testing.assert_array_equal(copy.delta_raw(EPS), lat.delta_raw(EPS))


def test_directions_is_a_typed_field():
    f_add = fdp.Gaussian(1.0).subsample(0.2, direction="add")
    assert f_add.directions == "one" and fdp.Gaussian(1.0).directions == "both"
    comp = compose_numeric([(f_add, 3)])
    assert comp.directions == "one"
    assert repr(comp).endswith("# one direction only, not a guarantee")
    assert "#" not in comp.label                   # the label is only the math
    assert comp.inverse().directions == "one"
    sym = comp.symmetrize(one_sided=True)
    assert sym.directions == "both" and sym.envelope and "one direction" not in repr(sym)
    assert fdp.dpsgd(1.0, 0.05, 3).directions == "both"
    assert compose_numeric([(fdp.Laplace(1.0), 2)]).directions == "both"
    env = fdp.envelope(f_add, fdp.Gaussian(2.0))
    assert env.directions == "one" and "one direction" in repr(env)
    assert fdp.envelope(f_add, f_add.inverse()).directions == "both"
    with pytest.raises(ValueError, match="directions"):
        Numeric(comp.pess, comp.opt, comp.label, comp.tol, directions="add")
