"""The documentation site renders its maths offline, and its notebook kernels are quiet.

Read from ``docs/conf.py`` without importing it (importing sets the kernel environment
of the docs build); the built pages are checked only when ``docs/_build/html`` exists,
so the default suite needs no docs build.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
BUILT = DOCS / "_build" / "html"
#: <script src=...> and <link href=...> pointing at another host.
EXTERNAL = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)=[\"'](?:https?:)?//[^\"']*[\"']",
                      re.IGNORECASE)


def _conf_assignments() -> dict[str, object]:
    """The literal values ``docs/conf.py`` assigns at module level."""
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    values: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and node.value is not None:
                    with contextlib.suppress(ValueError):     # not a literal
                        values[t.id] = ast.literal_eval(node.value)
    return values


def test_conf_uses_the_bundled_mathjax_and_no_cdn():
    conf = _conf_assignments()
    extensions = conf["extensions"]
    assert isinstance(extensions, list)
    assert "sphinx-mathjax-offline" in extensions
    # an explicit CDN path would override the bundled copy
    assert not str(conf.get("mathjax_path", "")).startswith(("http:", "https:", "//"))


def test_the_offline_package_ships_mathjax():
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        pytest.skip("sphinx-mathjax-offline is not installed (the docs extra)")
    static = Path(spec.origin).parent / "static" / "mathjax"
    assert (static / "tex-chtml.js").is_file()
    assert any((static / "output" / "chtml" / "fonts").rglob("*.woff"))


def test_conf_asks_for_encrypted_kernel_transport():
    # ipykernel warns "Kernel is running over TCP without encryption" into the build log
    # unless the manager provisions CurveZMQ keys
    text = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert re.search(r'default_value\s*=\s*"auto"', text)
    assert re.search(r"^_encrypt_kernel_transport\(\)$", text, re.MULTILINE)


@pytest.mark.skipif(not (BUILT / "index.html").is_file(), reason="docs not built")
def test_built_pages_load_maths_from_the_site_itself():
    pages = sorted(BUILT.rglob("*.html"))
    mathjax_pages = 0
    for page in pages:
        html = page.read_text(encoding="utf-8", errors="replace")
        external = EXTERNAL.findall(html)
        assert not external, f"{page.relative_to(BUILT)} loads {external[:3]}"
        if re.search(r"<script[^>]*src=\"[^\"]*_static/mathjax/tex-chtml\.js\"", html):
            mathjax_pages += 1
    assert mathjax_pages > 0                       # maths pages use the bundled copy
    assert (BUILT / "_static" / "mathjax" / "tex-chtml.js").is_file()
