"""The public surface is curated: ``__all__`` and ``dir()`` list the real public names.

``fdp.__all__`` and ``dir(fdp)`` name every public object (those loaded on first use
included) and nothing else (no ``import_module``, no ``annotations``); every
subpackage's ``__all__`` resolves; no module is callable; one parameter name per
concept across the accounting API.
"""

from __future__ import annotations

import importlib
import inspect
import types

import pytest

import fdp

SUBPACKAGES = ("calibration", "conversions", "engine", "families", "limits", "mechanisms",
               "operations", "sgd", "classical")


def test_all_names_resolve_and_are_unique():
    assert len(fdp.__all__) == len(set(fdp.__all__))
    for name in fdp.__all__:
        assert getattr(fdp, name) is not None, name


def test_dir_lists_exactly_the_public_names():
    assert dir(fdp) == sorted([*fdp.__all__, "__version__"])
    for artefact in ("import_module", "annotations", "importlib", "_LAZY"):
        assert artefact not in dir(fdp)
        assert artefact not in fdp.__all__


def test_lazy_names_are_listed():
    for name in ("dpsgd", "clt", "edgeworth", "functionals", "Accountant", "plot",
                 "random_allocation", "shuffle_lower", "compare_samplers", "sgd", "limits"):
        assert name in fdp.__all__ and name in dir(fdp)


def test_no_callable_module():
    for name in fdp.__all__:
        obj = getattr(fdp, name)
        if isinstance(obj, types.ModuleType):
            assert not callable(obj), name
    assert inspect.isfunction(fdp.clt)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_all_resolves(name):
    mod = importlib.import_module(f"fdp.{name}")
    names = getattr(mod, "__all__", None)
    assert names is not None, name
    assert len(names) == len(set(names))
    for attr in names:
        assert hasattr(mod, attr), (name, attr)
        assert attr not in ("annotations", "import_module"), (name, attr)


def test_sgd_is_the_one_home_of_dpsgd_accounting():
    import fdp.sgd as sgd
    assert fdp.dpsgd is sgd.dpsgd and fdp.dpsgd_clt_mu is sgd.dpsgd_clt_mu
    assert fdp.random_allocation is sgd.random_allocation
    assert fdp.shuffle_lower is sgd.shuffle_lower
    assert fdp.compare_samplers is sgd.compare_samplers
    # one name for "ε of Poisson DP-SGD by the RDP accountant"
    assert not hasattr(sgd, "moments_accountant_epsilon")
    assert not hasattr(fdp.classical, "moments_accountant_epsilon")


def test_one_name_per_concept():
    """The noise, the rate, the step count and the sampler have one name each."""
    import fdp.sgd as sgd
    for fn in (sgd.dpsgd, sgd.dpsgd_clt_mu, sgd.compare_dpsgd_clt, sgd.compare_accountants,
               sgd.dpsgd_rdp_epsilon):
        params = inspect.signature(fn).parameters
        assert list(params)[:3] == ["noise_multiplier", "sample_rate", "steps"], fn
    for fn in (sgd.dpsgd, sgd.dpsgd_clt_mu, sgd.compare_dpsgd_clt, sgd.compare_accountants,
               fdp.calibrate_dpsgd):
        assert "sampling" in inspect.signature(fn).parameters, fn
    for fn in (sgd.random_allocation, sgd.shuffle_lower):
        assert list(inspect.signature(fn).parameters)[:2] == ["noise_multiplier", "steps"]
    assert "one_sided" in inspect.signature(fdp.clt).parameters


@pytest.mark.slow
def test_clt_one_sided_is_the_only_name():
    f = fdp.from_pair([0.5, 0.5], [0.2, 0.8])                # asymmetric, both orders
    with pytest.raises(ValueError, match="one_sided"):
        fdp.clt([f] * 3)
    add = fdp.Gaussian(1.0).subsample(0.2, direction="add")   # one direction only
    with pytest.raises(ValueError, match="one order"):
        fdp.clt([add] * 3, one_sided=False)                   # max{f, f^-1}: refused
    assert fdp.clt([f] * 3, one_sided=True).mu >= fdp.clt([f] * 3, one_sided=False).mu
    assert fdp.clt(f, f, f, one_sided=True).mu == fdp.clt([f] * 3, one_sided=True).mu
    with pytest.raises(TypeError):
        fdp.clt([f], one_sided=True, symmetrize="two_sided")
