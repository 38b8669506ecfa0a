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
# environment: they import this checkout of fdp too (the one the API pages document),
# and draw their figures inline (CI exports MPLBACKEND=Agg, which draws nothing). This
# process itself draws the gallery with Agg (``_ext/fdp_docs.py``).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"


def _encrypt_kernel_transport() -> None:
    """Have the kernel managers that MyST-NB starts provision CurveZMQ keys.

    A kernel reached over plain TCP logs "Kernel is running over TCP without
    encryption" (ipykernel ≥ 7) into the build log. The python3 kernelspec declares
    ``supported_encryption: curve``; the manager's ``transport_encryption = "auto"``
    gives it the keys. MyST-NB creates its managers without a config, so the
    default is set on the trait. Older jupyter_client (no such trait) or a libzmq
    without CurveZMQ: nothing to do (those kernels do not warn or cannot encrypt).
    """
    import zmq
    from jupyter_client.manager import KernelManager
    trait = KernelManager.class_traits().get("transport_encryption")
    if trait is not None and zmq.has("curve"):
        trait.default_value = "auto"


_encrypt_kernel_transport()

import fdp  # noqa: E402

project = "fdp"
author = "The fdp developers"
copyright = "the fdp developers"
release = version = fdp.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax 3 copied into _static/mathjax (mathjax_path points there): maths renders
    # without a network connection; no CDN is referenced
    "sphinx-mathjax-offline",
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

