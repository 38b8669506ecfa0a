"""The check table of ``fdp repro`` (narrow or wide) and its CSV."""

from __future__ import annotations

import csv
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path

from fdp.repro.runner import PathArg, Result

#: Columns of the check table: (header, width in the narrow table).
COLUMNS = (("quantity", 30), ("paper", 17), ("ours", 21), ("tolerance", 15), ("result", 7))
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

    The summary counts passed checks among those that ran; a check skipped because an
    optional package is missing is counted apart, with the extras that enable it, and
    never as passed or failed.

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
    >>> r = Result("demo", [Check.needs("src", "y", "dp_accounting")])
    >>> repro.format_table([r]).splitlines()[-1]
    "0/0 checks passed in 1 reproductions; 1 SKIPPED (pip install 'fdp[interop]')"
    """
    full = rows(results)
    out = _wide_table(full) if wide else _narrow_table(full)
    checks = [c for r in results for c in r.checks]
    skipped = [c for c in checks if c.skipped]
    ran = len(checks) - len(skipped)
    failed = sum(1 for c in checks if not (c.passed or c.skipped))
    extras = sorted({c.skipped.split(": ", 1)[-1] for c in skipped})
    out += ["", f"{ran - failed}/{ran} checks passed in {len(results)} reproductions"
            + (f"; {len(skipped)} SKIPPED ({', '.join(extras)})" if skipped else "")
            + (f"; {failed} FAILED" if failed else "")]
    return "\n".join(out)


def _wide_table(full: list[tuple[str, ...]]) -> list[str]:
    header = ("script", "source", "quantity", "paper", "ours", "tolerance", "result")
    widths = [max([len(h)] + [len(row[i]) for row in full]) for i, h in enumerate(header)]

    def line(vals: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(vals, widths)).rstrip()

    return [line(header), line(tuple("-" * w for w in widths))] + [line(r) for r in full]


def _narrow_table(full: list[tuple[str, ...]]) -> list[str]:
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
    out = Path(path)
    with out.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(("script", "source", "quantity", "paper", "ours", "tolerance", "result"))
        w.writerows(rows(results))
    return out
