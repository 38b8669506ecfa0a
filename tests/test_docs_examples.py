"""Every code example of the README and of the documentation pages runs.

The ```python blocks (and the ```{code-cell} blocks of executed pages) of ``README.md``
and of the hand-written pages of ``docs/`` are run
in order, one fresh namespace per file (a block may use names an earlier block of the
same file defined), in a scratch directory. A block preceded by the line
``<!-- skip-test: reason -->`` is not run; use it only for a block that needs a network.
A block that imports an optional peer which is not installed (``fdp.repro.PEER_EXTRAS``)
skips the rest of its page, naming the extra that installs it (as on a fresh install
with README's first command).

Also here: the API reference lists every public module (its lists of names are
generated from ``__all__`` by ``docs/_ext/fdp_docs.py``), and every public callable has
a docstring with an ``Examples`` section (run by ``tests/test_doctests.py``).
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import textwrap
from pathlib import Path

import pytest

from fdp.repro import needs_extra

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GENERATED = {DOCS / "gallery.md"}          # written at build time, no examples of its own

# plain python blocks, and the executable cells of MyST-NB pages
_BLOCK = re.compile(r"^[ \t]*```(?:python|\{code-cell\}[ \t]*(?:ipython3|python3?))[^\n]*\n"
                    r"(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
_SKIP = re.compile(r"<!--\s*skip-test:\s*(.+?)\s*-->\s*$")


def _pages() -> list[Path]:
    pages = [ROOT / "README.md"]
    pages += sorted(p for p in DOCS.rglob("*.md")
                    if "_build" not in p.parts and p not in GENERATED
                    and "generated" not in p.parts)
    return pages


def python_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """The ```python blocks of a markdown text: (line number, code, skip reason)."""
    blocks = []
    for m in _BLOCK.finditer(text):
        before = text[:m.start()].rstrip("\n").splitlines()
        skip = _SKIP.search(before[-1]) if before else None
        blocks.append((text.count("\n", 0, m.start()) + 1, textwrap.dedent(m.group(1)),
                       skip.group(1) if skip else None))
    return blocks


def _fdp_docs():
    spec = importlib.util.spec_from_file_location("fdp_docs", DOCS / "_ext" / "fdp_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_block_extraction():
    text = ("intro\n```python\nx = 1\n```\n\n<!-- skip-test: needs opacus -->\n"
            "```python\nimport opacus\n```\n```bash\nls\n```\n")
    assert python_blocks(text) == [(2, "x = 1\n", None), (7, "import opacus\n", "needs opacus")]
    cells = "```{code-cell} ipython3\ny = 2\n```\n- item\n\n  ```python\n  z = 3\n  ```\n"
    assert python_blocks(cells) == [(1, "y = 2\n", None), (6, "z = 3\n", None)]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_code_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    namespace: dict = {"__name__": "__docs_example__"}
    for line, code, skip in blocks:
        if skip:
            continue
        try:
            exec(compile(code, f"{page.name}:{line}", "exec", dont_inherit=True), namespace)
        except ModuleNotFoundError as exc:
            why = needs_extra(exc.name or "")
            if why is None:
                raise AssertionError(f"{page.relative_to(ROOT)}, block at line {line} "
                                     f"fails: {exc}") from exc
            pytest.skip(f"{page.relative_to(ROOT)} from line {line}: {why}")
        except Exception as exc:
            raise AssertionError(f"{page.relative_to(ROOT)}, block at line {line} "
                                 f"fails: {type(exc).__name__}: {exc}") from exc
    import matplotlib.pyplot as plt
    plt.close("all")


def test_the_pages_have_examples():
    counted = {p.name: len(python_blocks(p.read_text(encoding="utf-8"))) for p in _pages()}
    for name, least in (("README.md", 2), ("getting-started.md", 3), ("concepts.md", 3),
                        ("sharp-edges.md", 3)):
        assert counted[name] >= least, (name, counted[name])


def test_api_reference_lists_every_public_module():
    index = (DOCS / "api" / "index.md").read_text(encoding="utf-8")
    for modname in _fdp_docs().PUBLIC_MODULES:
        assert f"generated/{modname}\n" in index, modname


def _public_callables():
    docs = _fdp_docs()
    seen = {}
    for modname in docs.PUBLIC_MODULES:
        mod = importlib.import_module(modname)
        for name in docs.public_names(modname):
            obj = getattr(mod, name)
            # constants (numbers, tuples, symbols) are documented by their module
            if inspect.isclass(obj) or inspect.isroutine(obj) or callable(obj):
                seen.setdefault(id(obj), (f"{modname}.{name}", obj))
    return list(seen.values())


def test_every_public_name_has_an_examples_section():
    missing = []
    for qualname, obj in _public_callables():
        doc = inspect.getdoc(obj) or ""
        if not re.search(r"^Examples\n-{8,}\n", doc, re.M) or ">>>" not in doc:
            missing.append(qualname)
    assert not missing, f"{len(missing)} public names without an Examples section: {missing}"
