"""The engine's place in the layers: what it imports, and what it asks objects instead.

The independent truth of the import test is the source text itself (parsed with
``ast``, function-local imports included), against the layer order of the package:
fdp.engine may import only fdp._*, fdp.law, fdp.tradeoff and itself.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

import fdp
import fdp.engine
from fdp.engine.pipeline import inverse_parts

ENGINE = pathlib.Path(fdp.engine.__file__).parent
# the four law files are being moved out of the engine (into fdp.law and the families)
MOVING = {"laws.py", "laws_discrete.py", "laws_bounded_range.py", "laws_mixture.py"}
ALLOWED = ("fdp._", "fdp.law", "fdp.tradeoff", "fdp.engine", "fdp.status", "fdp.bracket",
           "fdp.progress")


def _fdp_imports(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line, module) of every import of an fdp module in the file, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "fdp"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:                      # relative: inside the engine
                out.append((node.lineno, "fdp.engine." + (node.module or "")))
            elif node.module and node.module.split(".")[0] == "fdp":
                mod = node.module
                if mod == "fdp":                # ``from fdp import x``: x is the unit
                    out += [(node.lineno, "fdp." + a.name) for a in node.names]
                else:
                    out.append((node.lineno, mod))
    return out


def _allowed(module: str) -> bool:
    return any(module == a or module.startswith(a if a.endswith("_") else a + ".")
               for a in ALLOWED) or module.startswith("fdp._")


@pytest.mark.parametrize("path", sorted(p for p in ENGINE.glob("*.py") if p.name not in MOVING),
                         ids=lambda p: p.name)
def test_engine_imports_nothing_above_its_layer(path):
    bad = [(line, mod) for line, mod in _fdp_imports(path) if not _allowed(mod)]
    assert not bad, f"{path.name} imports above fdp.engine's layer: {bad}"


def test_the_import_checker_sees_function_local_imports(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("import math\n\ndef f():\n    from fdp.operations.envelope import Envelope\n"
                   "    from fdp import families\n    return Envelope, families\n")
    found = [mod for _, mod in _fdp_imports(src)]
    assert found == ["fdp.operations.envelope", "fdp.families"]
    assert not any(_allowed(m) for m in found)
    assert _allowed("fdp._constants") and _allowed("fdp.engine.lattice") and _allowed("fdp.law")


def test_engine_modules_are_of_one_job_size():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines())
             for p in ENGINE.glob("*.py") if p.name not in MOVING}
    assert max(sizes.values()) <= 600, sizes


# ----------------------------------------------------------------------
# The hooks the engine asks instead of isinstance checks on higher classes
# ----------------------------------------------------------------------
def test_hooks_have_safe_defaults_on_a_user_function():
    class Line(fdp.TradeOff):
        def _beta(self, alpha):
            return np.maximum(1.0 - 2.0 * alpha, 0.0)
    f = Line()
    assert f._lattices() is None
    assert f._delta_members() is None
    assert f._gaussian_component() is None
    assert f._exact_vertices() is False


def test_hooks_answer_what_the_isinstance_checks_did():
    g = fdp.Gaussian(1.5)
    assert g._gaussian_component() == (1.5, 1.0)
    assert fdp.Identity()._gaussian_component() == (0.0, 1.0)
    sub = g.subsample(0.1, direction="add")
    assert sub._gaussian_component() == (1.5, 0.1)
    assert g.subsample(0.1, sampling="without_replacement")._gaussian_component() == (1.5, 0.1)
    # a subsampled Laplace is no Gaussian component
    assert fdp.Laplace(1.0).subsample(0.1, direction="add")._gaussian_component() is None
    env = fdp.envelope(sub, sub.inverse())
    assert env._delta_members() == env.members
    assert fdp.Laplace(1.0)._delta_members() is None
    num = fdp.engine.compose_numeric([(fdp.Laplace(1.0), 3)])
    pess, opt = num._lattices()
    assert pess == num.pess and opt == num.opt
    assert fdp.EpsDelta(1.0, 0.0)._exact_vertices()


def test_numeric_inverse_without_factors_is_the_generic_inverse():
    num = fdp.engine.compose_numeric([(fdp.Laplace(1.0).subsample(0.3, direction="add"), 2)])
    bare = type(num)(num.pess, num.opt, num.label, num.tol, directions=num.directions)
    inv = bare.inverse()
    assert type(inv).__name__ == "Inverse"
    a = np.linspace(0.0, 1.0, 11)
    # f⁻¹(f(α)) ≤ α for a convex trade-off function (DRS 2022, Lemma A.2)
    assert np.all(inv(num(a)) <= a + 1e-9)


def test_inverse_parts_of_a_symmetric_factor_are_its_own():
    g = fdp.Gaussian(1.0)
    from fdp.engine.discretise import discretise
    lp, lo = discretise(g, 0.05)
    assert inverse_parts([(g, 2)], [(lp, lo, 2)]) == [(lp, lo, 2)]
