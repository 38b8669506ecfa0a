"""Pages of the fdp documentation that are generated at build time.

* ``api/generated/``: one page per public module, listing every name of its ``__all__``
  (autosummary then writes one page per name from its docstring), so a name added to an
  ``__all__`` cannot be left out of the reference;
* ``notebooks/NN_*.py``: copies of the percent-format notebook sources of ``notebooks/``,
  which MyST-NB executes (through jupytext) and renders with their outputs;
* ``gallery.md``: every figure of ``fdp repro`` with its caption, its source script and its
  check table, produced by running the reproductions in fast mode (about 15 s).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]          # docs/
ROOT = HERE.parent

#: The public modules of the reference, in the order of the API index.
PUBLIC_MODULES = ("fdp", "fdp.sgd", "fdp.limits", "fdp.engine", "fdp.mechanisms",
                  "fdp.audit", "fdp.symbolic", "fdp.plotting", "fdp.classical",
                  "fdp.calibration", "fdp.interop", "fdp.sweep", "fdp.report")


def public_names(modname: str) -> list[str]:
    """The public names of ``modname`` that get a reference page.

    ``__all__`` when the module has one; otherwise the names not starting with an
    underscore that the module (or a module below it) defines. Submodules are not
    names: they have their own page, and a class that ``fdp`` itself exports is
    documented there only.
    """
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n, obj in vars(mod).items() if not n.startswith("_")
                 and getattr(obj, "__module__", "").startswith(modname)]
    top = importlib.import_module("fdp")
    # submodules are found without importing them (an adapter's needs its peer); a class
    # the top level also exports gets its one page there (one description each)
    names = [n for n in names if n in vars(mod) or not hasattr(mod, "__path__")
             or importlib.util.find_spec(f"{modname}.{n}") is None]
    return [n for n in names if not inspect.ismodule(getattr(mod, n))
            and not (modname != "fdp" and inspect.isclass(getattr(mod, n))
                     and getattr(top, n, None) is getattr(mod, n))]


def _write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_api_pages() -> None:
    out = HERE / "api" / "generated"
    for modname in PUBLIC_MODULES:
        names = public_names(modname)
        lines = [modname, "=" * len(modname), "",
                 f".. automodule:: {modname}", "   :no-members:", "",
                 f".. currentmodule:: {modname}", ""]
        if names:
            lines += [".. autosummary::", "   :toctree: .", "   :nosignatures:", ""]
            lines += [f"   {n}" for n in names]
        _write_if_changed(out / f"{modname}.rst", "\n".join(lines) + "\n")


def copy_notebooks() -> None:
    out = HERE / "notebooks"
    for src in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")):
        _write_if_changed(out / src.name, src.read_text(encoding="utf-8"))
    for stale in out.glob("[0-9][0-9]_*.py"):
        if not (ROOT / "notebooks" / stale.name).exists():
            stale.unlink()


def _cell(text: str) -> str:
    return str(text).replace("|", r"\|").replace("\n", " ")


def write_gallery() -> None:
    import matplotlib

    matplotlib.use("Agg", force=True)
    from fdp import repro

    parts = ["# Gallery of reproduced figures", "",
             "Every figure `fdp repro` draws, with what it shows, the script that draws it "
             "and the table of the numbers it checks against the source. Run one with "
             "`fdp repro NAME` (it writes `figures/NAME.png`); `fdp repro` runs them all.",
             "The check tables below were computed while this page was built, with "
             "`fast=True` (coarser numeric accuracy, so wider certified brackets; every "
             "printed number is checked either way).", ""]
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in repro.names():
            mod = repro.load(name)
            result = repro.run_one(name, tmp, fast=True)
            if not result.passed:
                failed.append(name)
            parts += [f"({name})=", f"## {mod.TITLE}", ""]
            parts += [f"```{{image}} ../figures/{name}.png", f":alt: {mod.TITLE}",
                      ":width: 100%", "```", "",
                      " ".join(mod.CAPTION.split()), "",
                      f"*Source:* {mod.SOURCE}. *Reproduce:* `fdp repro {name}`.", "",
                      f"Checks ({len(result.checks)}, "
                      f"{'all pass' if result.passed else 'SOME FAIL'}):", "",
                      "| quantity | source | paper | ours | tolerance | result |",
                      "|---|---|---|---|---|---|"]
            parts += [f"| {_cell(c.quantity)} | {_cell(c.source)} | {_cell(c.paper)} | "
                      f"{_cell(c.ours)} | {_cell(c.tolerance)} | {c.verdict} |"
                      for c in result.checks]
            parts += ["", f"<details><summary>Script: <code>paper_repro/{name}.py"
                      "</code></summary>", "",
                      f"```{{literalinclude}} ../paper_repro/{name}.py",
                      ":language: python", "```", "", "</details>", ""]
    parts += _notebook_figures()
    if failed:
        raise RuntimeError(f"fdp repro checks fail for: {', '.join(failed)}")
    _write_if_changed(HERE / "gallery.md", "\n".join(parts))


def _notebook_figures() -> list[str]:
    """Gallery entries for figures the executed notebooks glue (MyST-NB cross-document
    glue, resolved after every page is read)."""
    return ["(notebook_one_run_audit)=",
            "## One-run audit of a real training run (notebook 06)", "",
            "```{glue} one_run_audit_figure", ":doc: notebooks/06_one_run_audit.py", "```",
            "",
            "Logistic regression on scikit-learn's digits, trained with Opacus and fdp's "
            "accountant (Poisson rate 0.1, σ = 1.5, 100 steps), with planted canaries "
            "included independently with probability ½. Left: an honest run; right: a "
            "run that adds σ/10 while the accountant is told σ. Black: the certified curve "
            "of the run; dots: the empirical (α, β) of every score threshold; box: the "
            "95 % Clopper–Pearson region of the pre-registered test; dashed: G_μ at the "
            "audit's lower bound. The one-run f-DP audit refutes the broken run's claim "
            "and not the honest one's.", "",
            "*Source:* Steinke, Nasr & Jagielski 2023 (arXiv 2305.08846); Mahloujifar, "
            "Melis & Chaudhuri 2024 (arXiv 2410.22235). *Reproduce:* "
            "{doc}`notebooks/06_one_run_audit` (needs `pip install 'fdp[interop]'`).", ""]


_LITERAL = re.compile(r"(``.*?``|`[^`]*`)")


def escape_bars(lines: list[str]) -> list[str]:
    """Escape ``|`` in docstring prose, where the package writes absolute values and
    norms (``|x|``, ``log|f'|``) that reStructuredText would read as substitutions.

    Left alone: inline literals and roles (backquotes), doctest blocks, literal blocks
    (after ``::``), line blocks and grid-table rows (``| ``, ``+-``, ``+=``).
    """
    out, literal_indent, in_doctest = [], None, False
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                out.append(line)
                continue
        if stripped.startswith(">>>"):
            in_doctest = True
        elif not stripped:
            in_doctest = False
        if in_doctest or stripped.startswith(("| ", "+-", "+=")) or "|" not in line:
            out.append(line)
        else:
            parts = _LITERAL.split(line)
            out.append("".join(s if i % 2 else s.replace("|", r"\|")
                               for i, s in enumerate(parts)))
        if stripped.endswith("::") and not in_doctest:
            literal_indent = indent
    return out


def _process_docstring(app, what, name, obj, options, lines) -> None:
    # Module-level constants (tuples, floats, sympy symbols) have no docstring of their
    # own: autodoc would show their type's, which documents the type, not the constant.
    type_doc = getattr(type(obj), "__doc__", None)
    if what in ("data", "attribute") and isinstance(type_doc, str) and type_doc.strip() and \
            " ".join(type_doc.split())[-300:] in " ".join("\n".join(lines).split()):
        lines[:] = []
    lines[:] = escape_bars(lines)


def _generate(app, config) -> None:
    copy_notebooks()
    write_api_pages()
    write_gallery()


def setup(app):
    # when the configuration is read: before Sphinx lists the source files and before
    # autosummary writes the stub pages of the generated lists
    app.connect("config-inited", _generate)
    # before numpydoc reformats the docstrings (its handler has the default priority 500)
    app.connect("autodoc-process-docstring", _process_docstring, priority=400)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
