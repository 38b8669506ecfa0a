"""Sphinx configuration of the fdp documentation site.

Build (from the repository root; warnings are errors):

    python3 -m sphinx -W --keep-going -b html docs docs/_build/html

The API reference, the notebook pages and the gallery are generated at build time
(``_ext/fdp_docs.py``): the API lists from the ``__all__`` of ``fdp`` and of its public
subpackages, the notebooks from the percent-format sources of ``notebooks/`` (executed by
MyST-NB through jupytext, cached in ``docs/_build/.jupyter_cache``), and the gallery from
the registry of ``fdp repro`` with its check table.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))            # document this checkout of fdp
sys.path.insert(0, str(HERE / "_ext"))
# The kernels that execute the notebooks and the executable pages inherit this process'
# environment: draw their figures inline (CI exports MPLBACKEND=Agg, which draws
# nothing). This process itself draws the gallery with Agg (``_ext/fdp_docs.py``).
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"

import fdp  # noqa: E402

project = "fdp"
author = "The fdp developers"
copyright = "the fdp developers"
release = version = fdp.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "fdp_docs",
]

# Sources: MyST markdown pages and the notebook copies made by fdp_docs (percent format).
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".py": "myst-nb"}
nb_custom_formats = {".py": ["jupytext.reads", {"fmt": "py:percent"}]}
exclude_patterns = ["_build", "_ext", "_templates", "conf.py", "Thumbs.db", ".DS_Store",
                    "**.ipynb_checkpoints"]
templates_path = ["_templates"]
root_doc = "index"

# Notebook execution: cached (re-executed only when a source changes), each cell within
# the timeout, and an error in a notebook fails the build.
nb_execution_mode = "cache"
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference: one page per public name, from the docstrings (numpydoc sections).
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
autodoc_preserve_defaults = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

html_theme = "pydata_sphinx_theme"
html_title = f"fdp {release}"
html_static_path: list[str] = []
html_theme_options = {
    "github_url": "https://github.com/fdp-dev/fdp",
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_show_sourcelink = False

