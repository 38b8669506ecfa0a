"""The registry through which TradeOff's methods reach operations and conversions."""

import ast
import pathlib

import numpy as np
import pytest

import fdp
from fdp import _dispatch
from fdp._dispatch import implementation, implements, registered

ROOT = pathlib.Path(fdp.__file__).parent
HIGHER = ("fdp.operations", "fdp.conversions", "fdp.engine", "fdp.families", "fdp.limits",
          "fdp.sgd", "fdp.calibration", "fdp.classical", "fdp.mechanisms")


def _imported_modules(path):
    """Every module a file imports, at module level and inside functions."""
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_tradeoff_imports_nothing_above_it():
    mods = _imported_modules(ROOT / "tradeoff.py")
    bad = sorted(m for m in mods if m.startswith(HIGHER))
    assert not bad, bad


def test_dispatch_imports_nothing_from_the_package():
    mods = _imported_modules(ROOT / "_dispatch.py")
    assert not any(m == "fdp" or m.startswith("fdp.") for m in mods)


@pytest.mark.parametrize("name", ["_operation_methods.py", "_readout_methods.py"])
def test_method_mixins_stay_at_the_bottom(name):
    mods = _imported_modules(ROOT / name)
    assert all(m in ("fdp", "fdp._validate", "fdp._dispatch", "fdp._dispatch.implementation")
               or not m.startswith("fdp") for m in mods), mods


def test_every_dispatched_name_is_registered():
    names = {"inverse", "envelope", "strongest", "dominates", "gdp_mu_bounds",
             "pure_epsilon_bounds", "tpr_at_fpr", "advantage_bounds", "bayes_risk",
             "attack_success", "reconstruction_bound", "gdp_mu_bracket", "group",
             "subsample", "compose", "power"}
    assert names <= set(registered())
    # every name the base class looks up is one of them
    used = set()
    for name in ("tradeoff.py", "_operation_methods.py", "_readout_methods.py"):
        tree = ast.parse((ROOT / name).read_text())
        for n in ast.walk(tree):
            if (isinstance(n, ast.Call) and getattr(n.func, "id", None) == "implementation"
                    and n.args):
                arg = n.args[0]
                if isinstance(arg, ast.IfExp):      # implementation("a" if c else "b")
                    used |= {arg.body.value, arg.orelse.value}
                elif isinstance(arg, ast.Constant):
                    used.add(arg.value)
    assert used and used <= names


def test_missing_name_is_a_clear_runtime_error():
    with pytest.raises(RuntimeError, match="no implementation registered for 'nothing'"):
        implementation("nothing")


def test_a_second_implementation_is_refused():
    with pytest.raises(RuntimeError, match="two implementations"):
        implements("compose")(lambda *fs: None)
    assert implementation("compose") is fdp.compose
    fn = implementation("compose")
    assert implements("compose")(fn) is fn            # re-registering the same one is fine


def test_registry_is_restored_after_a_temporary_name():
    implements("_test_tmp")(len)
    try:
        assert implementation("_test_tmp")([1, 2]) == 2
    finally:
        del _dispatch._REGISTRY["_test_tmp"]


CLOSED = fdp.Laplace(1.0)
NUMERIC = fdp.compose(fdp.Laplace(1.0), fdp.Gaussian(0.5), tol=1e-3)


@pytest.mark.parametrize("f", [CLOSED, NUMERIC], ids=["closed", "numeric"])
def test_methods_that_dispatch_work_on_closed_and_numeric(f):
    inv = f.inverse()
    assert float(inv(0.3)) >= 0.0
    s = f.symmetrize()
    e = f.symmetrize(one_sided=True)
    assert float(e(0.3)) <= float(s(0.3)) + 1e-12
    assert f.dominates(fdp.EpsDelta(0.0, 1.0))
    assert fdp.Identity().dominates(f)                          # Id dominates everything
    lo, hi = f.gdp_mu_bounds()
    assert lo <= hi
    lo, hi = f.pure_epsilon_bounds()
    assert lo <= hi
    t = f.tpr_at_fpr(0.1)
    assert t.lo <= t.hi
    assert f.advantage_bounds().lo <= f.advantage_bounds().hi
    assert f.bayes_risk(0.5).lo <= f.bayes_risk(0.5).hi
    assert f.attack_success(0.5).lo <= f.attack_success(0.5).hi
    assert f.reconstruction_bound(1e-3).lo <= f.reconstruction_bound(1e-3).hi
    assert f.gdp_mu_bracket().mu_lo <= f.gdp_mu_bracket().mu_hi
    g = f.group(2)
    assert float(g.bounds(0.3)[0]) <= float(f.bounds(0.3)[0]) + 1e-12
    sub = f.subsample(0.1, sampling="poisson")
    assert sub == f.subsample(0.1, scheme="poisson")
    assert float(sub(0.3)) >= float(f(0.3)) - 1e-12


def test_closed_form_answers_through_the_registry():
    g = fdp.Gaussian(1.0)
    assert g @ fdp.Gaussian(1.0) == fdp.Gaussian(float(np.sqrt(2.0)))
    assert g ** 4 == fdp.Gaussian(2.0)
    assert fdp.Laplace(1.0).inverse() == fdp.Laplace(1.0)
    assert g.dominates(fdp.Gaussian(2.0)) and not fdp.Gaussian(2.0).dominates(g)
    assert fdp.EpsDelta(1.0, 1e-6).group(2).pure_epsilon() == np.inf


def test_sampling_and_scheme_are_one_parameter():
    g = fdp.Gaussian(1.0)
    a = g.subsample(0.2, "without_replacement")
    assert a == g.subsample(0.2, sampling="without_replacement")
    assert a == g.subsample(0.2, scheme="without_replacement")
    with pytest.raises(ValueError, match="disagree"):
        g.subsample(0.2, sampling="poisson", scheme="without_replacement")
    with pytest.raises(ValueError, match="sampling must be one of"):
        g.subsample(0.2, sampling="bogus")
