"""Reproductions of published figures, tables and documented values (``fdp repro``).

Each reproduction is a module in ``fdp.repro.scripts`` (mirrored by a thin runnable
wrapper in the repository's ``paper_repro/``) with

* ``TITLE``, ``SOURCE`` (where the printed numbers come from), ``CAPTION``;
* ``run(out_dir, fast=False) -> list[Check]``: writes ``<out_dir>/<name>.png`` and
  returns one ``Check`` per printed number (paper value, ours, tolerance, verdict).

``fast=True`` lowers the numeric engine's accuracy (wider certified brackets) where a
script is slow; the printed numbers are checked either way.

The registry below fixes the order of the table and of the gallery
(``figures/README.md``, written by ``write_gallery``).
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from fdp.repro._check import Check

#: The reproductions, in table order.
SCRIPTS = (
    "seed_08_hypothesis_test",
    "seed_09_fdp_region",
    "seed_10_eps_delta",
    "seed_11_gdp_family",
    "drs_group_privacy",
    "drs_composition_clt",
    "drs_subsampling",
    "bu_figure4",
    "bu_table4",
    "bu_mnist",
    "zdls_edgeworth_laplace",
    "r_fdp_docs",
    "opacus_values",
)


@dataclass
class Result:
    """What one script produced: its checks, the figure path, the time it took."""
    name: str
    checks: list = field(default_factory=list)
    figure: Path | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)


def load(name: str):
    """The module of reproduction ``name`` (ValueError naming the known ones if unknown)."""
    if name not in SCRIPTS:
        raise ValueError(f"unknown reproduction {name!r}; known: {', '.join(SCRIPTS)}")
    return import_module(f"fdp.repro.scripts.{name}")


def resolve(names) -> list[str]:
    """Validate a list of names (empty means all); unknown names raise ValueError."""
    if not names:
        return list(SCRIPTS)
    unknown = [n for n in names if n not in SCRIPTS]
    if unknown:
        raise ValueError(f"unknown reproduction(s) {', '.join(map(repr, unknown))}; "
                         f"run 'fdp repro --list' to see the {len(SCRIPTS)} known names")
    return list(dict.fromkeys(names))


def prepare_out_dir(out_dir) -> Path:
    """Create ``out_dir`` if needed and make sure it is writable (OSError otherwise)."""
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


def run_one(name: str, out_dir, fast: bool = False) -> Result:
    """Run one reproduction; an exception inside it becomes a failed check row (so one
    broken script cannot hide the others' results), a missing module says which."""
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
    step otherwise (logs, CI)."""

    def __init__(self, total: int, stream=None, width: int = 24):
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


def run(names=(), out_dir="figures", fast: bool = False, progress: bool = True,
        gallery: bool = True) -> list[Result]:
    """Run reproductions (all when ``names`` is empty) into ``out_dir``; return results.

    Unknown names raise ValueError and an unwritable ``out_dir`` raises OSError
    before anything runs. With ``gallery`` the README.md of ``out_dir`` is rewritten.
    """
    todo = resolve(names)
    out = prepare_out_dir(out_dir)
    os.environ.setdefault("MPLBACKEND", "Agg")
    bar = Progress(len(todo)) if progress else None
    results = []
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


def format_table(results) -> str:
    """The check table: one row per printed number (script, source, quantity, paper,
    ours, tolerance, PASS/FAIL), then a summary line."""
    header = ("script", "source", "quantity", "paper", "ours", "tolerance", "result")
    rows = [(r.name, c.source, c.quantity, c.paper, c.ours, c.tolerance, c.verdict)
            for r in results for c in r.checks]
    caps = (24, 34, 42, 18, 26, 40, 6)
    cut = [tuple(_cut(str(v), w) for v, w in zip(row, caps)) for row in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cut]) for i, h in enumerate(header)]

    def line(vals):
        return "  ".join(v.ljust(w) for v, w in zip(vals, widths)).rstrip()

    out = [line(header), line(tuple("-" * w for w in widths))]
    out += [line(row) for row in cut]
    n = len(rows)
    failed = sum(1 for r in results for c in r.checks if not c.passed)
    out.append("")
    out.append(f"{n - failed}/{n} checks passed in {len(results)} reproductions"
               + (f"; {failed} FAILED" if failed else ""))
    return "\n".join(out)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def write_gallery(out_dir) -> Path:
    """Write ``<out_dir>/README.md``: each figure present, its caption and its source.

    The text depends only on the registry and on which figures exist, so the
    committed gallery is exactly what ``fdp repro`` writes.
    """
    out = Path(out_dir)
    parts = ["# Figure gallery", "",
             "Generated by `fdp repro` (do not edit by hand; rerun `fdp repro` to refresh).",
             "Each figure is recomputed by the library; each reproduction checks every",
             "number printed in its source and prints a PASS/FAIL row per number.",
             "Figures labelled *recomputed* redraw a paper's figure from its formulas",
             "(the paper's own image is not copied).", ""]
    for name in SCRIPTS:
        fig = out / f"{name}.png"
        if not fig.exists():
            continue
        mod = load(name)
        parts += [f"## {mod.TITLE}", "", f"![{mod.TITLE}]({name}.png)", "",
                  mod.CAPTION.strip(), "", f"*Source:* {mod.SOURCE}. "
                  f"*Script:* `paper_repro/{name}.py` (`fdp repro {name}`).", ""]
    path = out / "README.md"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def main_for(name: str, argv=None) -> int:
    """Entry point of the ``paper_repro/<name>.py`` wrappers: run one reproduction
    (``--out DIR``, ``--fast``) and print its table."""
    import argparse
    parser = argparse.ArgumentParser(prog=f"paper_repro/{name}.py",
                                     description=load(name).TITLE)
    parser.add_argument("--out", default=None, help="output directory (default: figures/ "
                        "next to paper_repro/)")
    parser.add_argument("--fast", action="store_true", help="lower engine accuracy")
    args = parser.parse_args(argv)
    out = args.out or str(Path(sys.modules["__main__"].__file__).resolve().parent.parent
                          / "figures")
    try:
        results = run([name], out, fast=args.fast, gallery=False)
    except (ValueError, OSError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    print(format_table(results))
    return 0 if all(r.passed for r in results) else 1


__all__ = ["Check", "Progress", "Result", "SCRIPTS", "format_table", "load", "main_for",
           "prepare_out_dir", "resolve", "run", "run_one", "write_gallery"]
