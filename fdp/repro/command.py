"""The ``repro`` command: ``fdp repro`` and ``python -m fdp.repro`` (one definition).

    fdp repro [NAME ...] [--out DIR] [--list] [--fast] [--quiet] [--wide] [--csv FILE]

runs the reproductions of ``paper_repro/`` (all when no NAME is given; the folder is
found in the current directory, its parents or beside the package of a checkout),
prints the check table and exits with status 1 when a check fails, 2 on bad input
(including no ``paper_repro/`` to be found).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from fdp.commandline import Parser, UsageError, run_command, writable_file
from fdp.repro.output import format_table, write_csv
from fdp.repro.runner import load, prepare_out_dir, resolve, run


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``repro`` on ``p`` (a parser or a sub-parser)."""
    p.add_argument("names", nargs="*", metavar="NAME", help="reproductions to run "
                   "(default: all; see --list)")
    p.add_argument("--out", default="figures", metavar="DIR",
                   help="output directory (default: figures)")
    p.add_argument("--list", action="store_true", help="list the reproductions (the NAMEs "
                   "given, or all) and exit")
    p.add_argument("--fast", action="store_true",
                   help="coarser numeric engine (wider certified brackets), for tests")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--wide", action="store_true", help="print the check table with full, "
                   "unabbreviated rows (wider than 100 columns)")
    p.add_argument("--csv", metavar="FILE", help="also write the full check table as CSV")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    """Run ``repro`` for parsed arguments; returns the exit status (1 when a check fails)."""
    try:
        names = resolve(args.names)
    except (ValueError, FileNotFoundError) as exc:   # unknown name; no paper_repro/ here
        raise UsageError(str(exc)) from None
    if args.list:
        width = max(map(len, names))
        for name in names:
            mod = load(name)
            print(f"{name:<{width}}  {mod.TITLE}  [{mod.SOURCE}]")
        return 0
    csv_path = writable_file("--csv", args.csv) if args.csv else None
    try:
        prepare_out_dir(args.out)
    except OSError as exc:
        raise UsageError(str(exc)) from None
    results = run(names, args.out, fast=args.fast, progress=not args.quiet)
    print(format_table(results, wide=args.wide))
    if csv_path is not None:
        write_csv(results, csv_path)
        print(f"check table written to {csv_path}", file=sys.stderr)
    failed = [r.name for r in results if not r.passed]
    if failed:
        print(f"fdp repro: FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"figures written to {args.out}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fdp.repro [NAME ...] [options]``: the same as ``fdp repro``; returns
    the exit status."""
    parser = Parser(prog="fdp repro", description="reproduce paper figures and tables "
                    "with checks")
    add_arguments(parser)
    return run_command(parser, argv, command)


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
    return main([name, *(argv or [])])
