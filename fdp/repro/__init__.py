"""The runner of the reproductions of published figures, tables and documented values
(``fdp repro``).

The scripts themselves are not part of the installed package: they live in the folder
``paper_repro/`` of a checkout of the repository, one module per reproduced figure or
table, with

* ``TITLE``, ``SOURCE`` (where the printed numbers come from), ``CAPTION``;
* ``run(out_dir, fast=False) -> list[Check]``: writes ``<out_dir>/<name>.png`` and
  returns one ``Check`` per printed number (paper value, ours, tolerance, verdict).

``fast=True`` lowers the numeric engine's accuracy (wider certified brackets) where a
script is slow; the printed numbers are checked either way.

The folder is looked for in the current directory, its parents, and beside the
``fdp`` package (an editable install of a checkout); ``paper_repro.SCRIPTS`` fixes the
order of the table and of the gallery (``figures/README.md``, written by
``write_gallery``).

Sources are cited by short names: DRS = Dong, Roth & Su, "Gaussian Differential
Privacy", JRSS-B 84(1), 2022; Bu et al. = Bu, Dong, Long & Su, "Deep Learning with
Gaussian Differential Privacy", HDSR 2(3), 2020; KOV = Kairouz, Oh & Viswanath, "The
Composition Theorem for Differential Privacy", ICML 2015; ZDLS = Zheng, Dong, Long & Su,
"Sharp Composition Bounds for Gaussian Differential Privacy via Edgeworth Expansion",
ICML 2020.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TextIO, Union

from fdp.repro._check import Check

#: The folder (and package name) of the reproduction scripts in a checkout.
FOLDER = "paper_repro"

#: A file-system path as the functions below accept it.
PathArg = Union[str, "os.PathLike[str]"]


def locate(start: PathArg | None = None) -> Path:
    """The ``paper_repro/`` folder of a checkout: in ``start`` (default the current
    directory) or one of its parents, else beside the installed ``fdp`` package.

    Parameters
    ----------
    start : str or Path, optional
        Where to start looking (default the current directory).

    Returns
    -------
    Path
        The folder (it holds ``__init__.py`` with the registry ``SCRIPTS``).

    Raises
    ------
    FileNotFoundError
        If no such folder is found (an install without a checkout).

    Examples
    --------
    >>> from fdp import repro
    >>> repro.locate().name
    'paper_repro'
    """
    here = (Path.cwd() if start is None else Path(start)).resolve()
    for base in (here, *here.parents, Path(__file__).resolve().parents[2]):
        folder = base / FOLDER
        if (folder / "__init__.py").is_file():
            return folder
    raise FileNotFoundError(f"no {FOLDER}/ folder in {here} or its parents: the "
                            "reproduction scripts live in a checkout of the fdp repository, "
                            "not in the installed package; run fdp repro from the checkout")


def _scripts_package() -> ModuleType:
    """Import ``paper_repro`` from the folder ``locate`` finds (as package ``paper_repro``,
    so that the scripts share ``paper_repro._common``)."""
    folder = locate()
    mod = sys.modules.get(FOLDER)
    if mod is not None and Path(getattr(mod, "__file__", None) or ".").resolve().parent == folder:
        return mod
    for key in [k for k in sys.modules if k == FOLDER or k.startswith(FOLDER + ".")]:
        del sys.modules[key]
    spec = importlib.util.spec_from_file_location(
        FOLDER, folder / "__init__.py", submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {folder / '__init__.py'} as package {FOLDER}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[FOLDER] = mod
    spec.loader.exec_module(mod)
    return mod


def names() -> tuple[str, ...]:
    """The reproductions of the checkout, in table order (``paper_repro.SCRIPTS``).

    Returns
    -------
    tuple of str

    Raises
    ------
    FileNotFoundError
        If no ``paper_repro/`` folder is found (see ``locate``).

    Examples
    --------
    >>> from fdp import repro
    >>> repro.names()[0]
    'drs_hypothesis_test'
    """
    return tuple(_scripts_package().SCRIPTS)


@dataclass
class Result:
    """What one script produced: its checks, the figure path, the time it took.

    Parameters
    ----------
    name : str
        The reproduction.
    checks : list of Check
        One per printed number.
    figure : Path, optional
        The figure written.
    seconds : float
        Wall time.

    Examples
    --------
    >>> from fdp.repro import Result
    >>> Result("drs_eps_delta").passed        # no checks: not passed
    False
    """
    name: str
    checks: list[Check] = field(default_factory=list)
    figure: Path | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)


def load(name: str) -> ModuleType:
    """The module of reproduction ``name`` (ValueError naming the known ones if unknown).

    Parameters
    ----------
    name : str
        A name in ``names()``.

    Returns
    -------
    module

    Raises
    ------
    ValueError
        If the name is unknown.
    FileNotFoundError
        If no ``paper_repro/`` folder is found (see ``locate``).

    Examples
    --------
    >>> from fdp import repro
    >>> repro.load("drs_eps_delta").NAME
    'drs_eps_delta'
    """
    known = names()
    if name not in known:
        raise ValueError(f"unknown reproduction {name!r}; known: {', '.join(known)}")
    return import_module(f"{FOLDER}.{name}")


def resolve(wanted: Sequence[str]) -> list[str]:
    """Validate a list of names (empty means all); unknown names raise ValueError.

    Parameters
    ----------
    wanted : sequence of str
        Names in ``names()`` (duplicates dropped), or empty for all.

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If a name is unknown.
    FileNotFoundError
        If no ``paper_repro/`` folder is found (see ``locate``).

    Examples
    --------
    >>> from fdp import repro
    >>> repro.resolve(["bu_table4", "bu_table4"]), len(repro.resolve([])) == len(repro.names())
    (['bu_table4'], True)
    """
    known = names()
    if not wanted:
        return list(known)
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise ValueError(f"unknown reproduction(s) {', '.join(map(repr, unknown))}; "
                         f"run 'fdp repro --list' to see the {len(known)} known names")
    return list(dict.fromkeys(wanted))


def prepare_out_dir(out_dir: PathArg) -> Path:
    """Create ``out_dir`` if needed and make sure it is writable (OSError otherwise).

    Parameters
    ----------
    out_dir : str or Path

    Returns
    -------
    Path

    Raises
    ------
    OSError
        If the path is not a writable directory.

    Examples
    --------
    >>> import tempfile
    >>> from fdp import repro
    >>> repro.prepare_out_dir(tempfile.mkdtemp()).is_dir()
    True
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise OSError(f"output path {str(out)!r} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".fdp-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise OSError(f"cannot write to output directory {str(out)!r}: "
                      f"{exc.strerror or exc}") from None
    return out


def run_one(name: str, out_dir: PathArg, fast: bool = False) -> Result:
    """Run one reproduction; an exception inside it becomes a failed check row (so one
    broken script cannot hide the others' results), a missing module says which.

    Parameters
    ----------
    name : str
        A name in ``names()``.
    out_dir : str or Path
        Where the figure is written.
    fast : bool
        Coarser numeric engine (wider certified brackets).

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        If the name is unknown.

    Examples
    --------
    >>> from fdp import repro
    >>> try:
    ...     repro.run_one("no_such_figure", ".")
    ... except ValueError as exc:
    ...     print(str(exc)[:30])
    unknown reproduction 'no_such_
    """
    mod = load(name)
    out = Path(out_dir)
    t0 = time.perf_counter()
    try:
        checks = list(mod.run(out, fast=fast))
    except ModuleNotFoundError as exc:
        checks = [Check.failed(mod.SOURCE, "whole script",
                               f"needs module {exc.name} (not installed)")]
    except Exception as exc:  # reported as a FAIL row; the traceback is not the user's job
        checks = [Check.failed(mod.SOURCE, "whole script",
                               f"error: {type(exc).__name__}: {exc}")]
    fig = out / f"{name}.png"
    return Result(name, checks, fig if fig.exists() else None, time.perf_counter() - t0)


class Progress:
    """A tiny progress printer on stderr: a redrawn bar on a terminal, one line per
    step otherwise (logs, CI).

    Parameters
    ----------
    total : int
        Number of steps.
    stream : file, optional
        Where to write (default stderr).
    width : int
        Width of the bar on a terminal.

    Examples
    --------
    >>> import io
    >>> from fdp.repro import Progress, Result
    >>> out = io.StringIO()
    >>> bar = Progress(1, stream=out)
    >>> bar.finish(Result("drs_eps_delta"))
    >>> out.getvalue().split(":")[0]
    '[1/1] drs_eps_delta'
    """

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 24) -> None:
        self.total, self.done, self.width = total, 0, width
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def start(self, name: str) -> None:
        if self.tty:
            filled = int(self.width * self.done / max(self.total, 1))
            bar = "#" * filled + "-" * (self.width - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {name:<28}")
            self.stream.flush()

    def finish(self, result: Result) -> None:
        self.done += 1
        verdict = "ok" if result.passed else "FAIL"
        line = (f"[{self.done}/{self.total}] {result.name}: {len(result.checks)} checks, "
                f"{verdict} ({result.seconds:.1f} s)")
        if self.tty:
            self.stream.write("\r" + " " * (self.width + 40) + "\r")
        self.stream.write(line + "\n")
        self.stream.flush()


def run(names: Sequence[str] = (), out_dir: PathArg = "figures", fast: bool = False,
        progress: bool = True,
        gallery: bool = True) -> list[Result]:
    """Run reproductions (all when ``names`` is empty) into ``out_dir``; return results.

    Unknown names raise ValueError and an unwritable ``out_dir`` raises OSError
    before anything runs. With ``gallery`` the README.md of ``out_dir`` is rewritten.

    Parameters
    ----------
    names : sequence of str
        Reproductions to run (empty: all).
    out_dir : str or Path
        Output directory.
    fast : bool
        Coarser numeric engine.
    progress : bool
        Progress on stderr.
    gallery : bool
        Rewrite ``<out_dir>/README.md``.

    Returns
    -------
    list of Result

    Examples
    --------
    >>> from fdp import repro
    >>> try:
    ...     repro.run(["no_such_figure"])
    ... except ValueError as exc:
    ...     print(str(exc)[:30])
    unknown reproduction(s) 'no_su
    """
    todo = resolve(names)
    out = prepare_out_dir(out_dir)
    os.environ.setdefault("MPLBACKEND", "Agg")
    bar = Progress(len(todo)) if progress else None
    results: list[Result] = []
    for name in todo:
        if bar:
            bar.start(name)
        r = run_one(name, out, fast=fast)
        results.append(r)
        if bar:
            bar.finish(r)
    if gallery:
        write_gallery(out)
    return results


#: Columns of the check table: (header, width in the narrow table).
COLUMNS = (("quantity", 30), ("paper", 17), ("ours", 21), ("tolerance", 16), ("result", 6))
#: Width of the narrow check table, in characters.
TABLE_WIDTH = 100


def rows(results: Iterable[Result]) -> list[tuple[str, ...]]:
    """The full check rows: (script, source, quantity, paper, ours, tolerance, result).

    Parameters
    ----------
    results : sequence of Result

    Returns
    -------
    list of tuple of str

    Examples
    --------
    >>> from fdp import repro
    >>> from fdp.repro import Check, Result
    >>> r = Result("demo", [Check.close("src", "x", 1.0, 1.0, atol=1e-9)])
    >>> repro.rows([r])[0][-1]
    'PASS'
    """
    return [(r.name, c.source, c.quantity, c.paper, c.ours, c.tolerance, c.verdict)
            for r in results for c in r.checks]


def format_table(results: Sequence[Result], wide: bool = False) -> str:
    """The check table: one row per printed number, then a summary line.

    The default layout fits ``TABLE_WIDTH`` (100) columns: a heading line per script
    and source, then quantity, paper value, ours, tolerance and PASS/FAIL, each cell
    wrapped onto further lines rather than cut. ``wide=True`` prints one full line per
    check with every column (script, source, ...), for wide terminals and grep.

    Parameters
    ----------
    results : sequence of Result
    wide : bool
        One full line per check.

    Returns
    -------
    str

    Examples
    --------
    >>> from fdp import repro
    >>> from fdp.repro import Check, Result
    >>> r = Result("demo", [Check.close("src", "x", 1.0, 1.0, atol=1e-9)])
    >>> repro.format_table([r]).splitlines()[-1]
    '1/1 checks passed in 1 reproductions'
    """
    full = rows(results)
    out = _wide_table(full) if wide else _narrow_table(full)
    n = len(full)
    failed = sum(1 for row in full if row[-1] != "PASS")
    out += ["", f"{n - failed}/{n} checks passed in {len(results)} reproductions"
            + (f"; {failed} FAILED" if failed else "")]
    return "\n".join(out)


def _wide_table(full: list[tuple[str, ...]]) -> list[str]:
    header = ("script", "source", "quantity", "paper", "ours", "tolerance", "result")
    widths = [max([len(h)] + [len(row[i]) for row in full]) for i, h in enumerate(header)]

    def line(vals: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(vals, widths)).rstrip()

    return [line(header), line(tuple("-" * w for w in widths))] + [line(r) for r in full]


def _narrow_table(full: list[tuple[str, ...]]) -> list[str]:
    import textwrap
    widths = [w for _, w in COLUMNS]

    def lines(cells: Sequence[str], indent: str = "  ") -> list[str]:
        wrapped = [textwrap.wrap(c, w, break_long_words=True, break_on_hyphens=False) or [""]
                   for c, w in zip(cells, widths)]
        height = max(map(len, wrapped))
        return [(indent + "  ".join((col[k] if k < len(col) else "").ljust(w)
                                    for col, w in zip(wrapped, widths))).rstrip()
                for k in range(height)]

    out = lines([h for h, _ in COLUMNS]) + lines(["-" * w for w in widths])
    heading: tuple[str, str] | None = None
    for script, source, *cells in full:
        if (script, source) != heading:
            heading = (script, source)
            out.append(textwrap.shorten(f"{script} ({source})", TABLE_WIDTH, placeholder="…"))
        out += lines(cells)
    return out


def write_csv(results: Iterable[Result], path: PathArg) -> Path:
    """Write the full check table (every column, nothing abbreviated) as CSV.

    Parameters
    ----------
    results : sequence of Result
    path : str or Path

    Returns
    -------
    Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fdp import repro
    >>> p = repro.write_csv([], pathlib.Path(tempfile.mkdtemp()) / "checks.csv")
    >>> p.read_text().splitlines()[0]
    'script,source,quantity,paper,ours,tolerance,result'
    """
    import csv
    out = Path(path)
    with out.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(("script", "source", "quantity", "paper", "ours", "tolerance", "result"))
        w.writerows(rows(results))
    return out


def write_gallery(out_dir: PathArg) -> Path:
    """Write ``<out_dir>/README.md``: each figure present, its caption and its source.

    The text depends only on the registry and on which figures exist, so the
    committed gallery is exactly what ``fdp repro`` writes.

    Parameters
    ----------
    out_dir : str or Path

    Returns
    -------
    Path
        ``<out_dir>/README.md``.

    Examples
    --------
    >>> import tempfile
    >>> from fdp import repro
    >>> repro.write_gallery(tempfile.mkdtemp()).read_text().splitlines()[0]
    '# Figure gallery'
    """
    out = Path(out_dir)
    parts = ["# Figure gallery", "",
             "Generated by `fdp repro` (do not edit by hand; rerun `fdp repro` to refresh).",
             "Each figure is recomputed by the library; each reproduction checks every",
             "number printed in its source and prints a PASS/FAIL row per number.",
             "Figures labelled *recomputed* redraw a paper's figure from its formulas",
             "(the paper's own image is not copied).", "",
             "Sources: DRS = Dong, Roth & Su, *Gaussian Differential Privacy*, JRSS-B 2022;",
             "Bu et al. = Bu, Dong, Long & Su, *Deep Learning with Gaussian Differential",
             "Privacy*, HDSR 2020; KOV = Kairouz, Oh & Viswanath, *The Composition Theorem for",
             "Differential Privacy*, ICML 2015; ZDLS = Zheng, Dong, Long & Su, *Sharp Composition",
             "Bounds for Gaussian Differential Privacy via Edgeworth Expansion*, ICML 2020.", ""]
    for name in names():
        fig = out / f"{name}.png"
        if not fig.exists():
            continue
        mod = load(name)
        parts += [f"## {mod.TITLE}", "", f"![{mod.TITLE}]({name}.png)", "",
                  mod.CAPTION.strip(), "", f"*Source:* {mod.SOURCE}. "
                  f"*Script:* [`{FOLDER}/{name}.py`](../{FOLDER}/{name}.py) "
                  f"(run `fdp repro {name}`).", ""]
    path = out / "README.md"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def main_for(name: str, argv: Sequence[str] | None = None) -> int:
    """Run one reproduction as ``fdp repro NAME [--out DIR] [--fast]`` would; returns the
    exit status.

    Parameters
    ----------
    name : str
        A name in ``names()``.
    argv : sequence of str, optional
        Further arguments of ``fdp repro``.

    Returns
    -------
    int
        The exit status.

    Examples
    --------
    >>> from fdp import repro
    >>> repro.main_for("drs_eps_delta", ["--list"])
    drs_eps_delta  DRS §2.1: the trade-off function f_{ε,δ}  [DRS §2.1, eq. (5)]
    0
    """
    from fdp.repro.command import main
    return main([name, *(argv or [])])


__all__ = [
    "COLUMNS",
    "FOLDER",
    "TABLE_WIDTH",
    "Check",
    "Progress",
    "Result",
    "format_table",
    "load",
    "locate",
    "main_for",
    "names",
    "prepare_out_dir",
    "resolve",
    "rows",
    "run",
    "run_one",
    "write_csv",
    "write_gallery",
]
