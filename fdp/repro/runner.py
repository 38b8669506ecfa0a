"""Finding, loading and running the reproduction scripts of ``paper_repro/``, and the
gallery of their figures (see ``fdp.repro``)."""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections.abc import Sequence
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
        """At least one check, and every check passed or was skipped (needs an extra)."""
        return bool(self.checks) and all(c.passed or c.skipped for c in self.checks)


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
    except ModuleNotFoundError as exc:   # SKIPPED for an optional peer, else FAIL
        checks = [Check.needs(mod.SOURCE, "whole script", exc.name or str(exc))]
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
        skipped = sum(1 for c in result.checks if c.skipped)
        line = (f"[{self.done}/{self.total}] {result.name}: {len(result.checks)} checks"
                + (f" ({skipped} skipped)" if skipped else "")
                + f", {verdict} ({result.seconds:.1f} s)")
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
