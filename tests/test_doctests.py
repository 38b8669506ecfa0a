"""The ``>>>`` examples of every docstring in ``fdp`` run and print what they show.

One test per module of the package (``pkgutil.walk_packages``), so that a new module
is covered without being listed. Modules that need an optional library which is not
installed (``fdp.interop``: Opacus, dp_accounting) are skipped, saying which.
The option flags are pytest's ``--doctest-modules`` ones plus NORMALIZE_WHITESPACE, so an
example checked with ``python3 -m pytest --doctest-modules FILE`` passes here too.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
import re

import numpy as np
import pytest

import fdp

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


_IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_][\w]*)", re.M)


def _modules() -> list:
    names = ["fdp"]
    names += [m.name for m in pkgutil.walk_packages(fdp.__path__, prefix="fdp.")]
    return [n for n in sorted(names) if not n.endswith("__main__")]


def _missing_library(test: doctest.DocTest) -> str | None:
    """The first library an example imports that is not installed, if any."""
    for example in test.examples:
        for name in _IMPORT.findall(example.source):
            if importlib.util.find_spec(name) is None:
                return name
    return None


@pytest.mark.parametrize("modname", _modules())
def test_docstring_examples_run(modname, monkeypatch, tmp_path):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)                  # examples that save a figure write here
    try:
        module = importlib.import_module(modname)
    except ImportError as exc:
        pytest.skip(f"{modname} needs {exc.name}, which is not installed")
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = [t for t in finder.find(module, modname)
             if t.examples and _missing_library(t) is None]
    if not tests:
        pytest.skip(f"{modname} has no docstring examples (that run without optional "
                    "libraries)")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    failures: list[str] = []
    saved = np.get_printoptions()
    try:
        for test in tests:
            runner.run(test, out=failures.append)
    finally:
        np.set_printoptions(**saved)
    assert runner.failures == 0, "".join(failures)
