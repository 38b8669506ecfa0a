"""The files a published package carries, and a source distribution whose tests run.

Builds the sdist with setuptools' PEP 517 backend (under a second, in a copy of the
project so the working tree stays clean) and inspects its file list: an unpacked sdist
must hold tests/conftest.py with the tests, and must not ship internal notes.
"""

from __future__ import annotations

import re
import shutil
import tarfile
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
REPOSITORY = PYPROJECT["project"]["urls"]["Repository"]


@pytest.fixture(scope="module")
def sdist_names(tmp_path_factory):
    setuptools = pytest.importorskip("setuptools")
    need = next((r for r in PYPROJECT["build-system"]["requires"]
                 if r.startswith("setuptools")), "setuptools")
    m = re.search(r">=\s*(\d+)", need)
    if m and int(setuptools.__version__.split(".")[0]) < int(m.group(1)):
        pytest.skip(f"building the sdist needs {need} (the build-system requirement); "
                    f"setuptools {setuptools.__version__} is installed")
    from setuptools import build_meta
    src = tmp_path_factory.mktemp("src") / "fdp"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", "__pycache__", "*.egg-info", ".hypothesis", ".pytest_cache", "build", "dist",
        "_build", "generated"))
    # leftovers of a working copy that must not ship
    (src / "tests" / "__pycache__").mkdir(exist_ok=True)
    (src / "tests" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"")
    (src / "notebooks" / ".ipynb_checkpoints").mkdir(exist_ok=True)
    (src / "notebooks" / ".ipynb_checkpoints" / "x-checkpoint.ipynb").write_text("{}")
    # what a documentation build leaves behind
    for leftover in ("docs/_build/html/index.html", "docs/api/generated/fdp.rst",
                     "docs/notebooks/01_x.py", "docs/gallery.md"):
        (src / leftover).parent.mkdir(parents=True, exist_ok=True)
        (src / leftover).write_text("")
    out = tmp_path_factory.mktemp("dist")
    import os
    cwd = os.getcwd()
    os.chdir(src)
    try:
        name = build_meta.build_sdist(str(out))
    finally:
        os.chdir(cwd)
    with tarfile.open(out / name) as tar:
        top = name.removesuffix(".tar.gz")
        return {m.name.removeprefix(top + "/") for m in tar.getmembers()}


def test_sdist_carries_the_tests_with_their_conftest(sdist_names):
    assert "tests/conftest.py" in sdist_names
    local_tests = {str(p.relative_to(ROOT)) for p in ROOT.glob("tests/**/*.py")}
    assert local_tests <= sdist_names, sorted(local_tests - sdist_names)


def test_sdist_carries_the_project_files(sdist_names):
    for name in ("LICENSE", "CHANGELOG.md", "CITATION.cff", "CONTRIBUTING.md", "README.md",
                 "pyproject.toml", "fdp/py.typed", "figures/README.md", "notebooks/README.md"):
        assert name in sdist_names, name


def test_sdist_carries_the_docs_and_notebook_sources(sdist_names):
    sources = {str(p.relative_to(ROOT)) for pattern in ("docs/**/*.md", "docs/**/*.py",
                                                        "docs/**/*.rst", "notebooks/*.py")
               for p in ROOT.glob(pattern)
               if not {"_build", "generated"} & set(p.parts)
               and p.relative_to(ROOT).parts[:2] != ("docs", "notebooks")
               and p.name != "gallery.md"}
    assert {"docs/conf.py", "docs/index.md", "docs/_ext/fdp_docs.py"} <= sources
    assert sources <= sdist_names, sorted(sources - sdist_names)
    built = ("docs/_build/", "docs/api/generated/", "docs/notebooks/", "docs/gallery.md")
    assert not any(n.startswith(built) for n in sdist_names)


def test_sdist_leaves_internal_notes_out(sdist_names):
    assert not any(n.startswith(("notes/", ".ci/", ".git/")) for n in sdist_names)
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in sdist_names)
    assert not any("checkpoint" in n for n in sdist_names)


def test_license_is_the_declared_mit_license():
    assert PYPROJECT["project"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_citation_file_matches_the_package_version():
    import fdp
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", text, re.M)
    assert re.search(rf"^version: {re.escape(fdp.__version__)}$", text, re.M)
    assert PYPROJECT["project"]["version"] == fdp.__version__
    assert f"repository-code: \"{REPOSITORY}\"" in text


def test_changelog_has_an_entry_for_the_current_version():
    import fdp
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text
    assert f"## [{fdp.__version__}]" in text


def test_readme_links_are_absolute_and_point_at_existing_files():
    """A package index renders README.md out of the repository: relative links break."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    prefix = REPOSITORY + "/blob/main/"
    for link in links:
        assert link.startswith(("https://", "http://")), f"relative link {link!r}"
        if link.startswith(prefix):
            assert (ROOT / link.removeprefix(prefix).split("#")[0]).exists(), link
