"""``fdp verify FILE``: recompute a privacy report from its recorded inputs.

    fdp verify FILE [--rtol R]

Exit status 0 when every number of the report is what its inputs give (the plain
paragraph of the claim is printed), 1 with one line naming the first field that is
not (``fdp.report.verify``), 2 for a file that is not a report.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from fdp.commandline import UsageError
from fdp.report import PrivacyReport, ReportMismatch
from fdp.report.verify import RTOL

#: Exit status of a report that does not verify.
EXIT_MISMATCH = 1


def _cmd_verify(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"FILE {args.file!r} is not a file")
    if not (math.isfinite(args.rtol) and 0.0 <= args.rtol < 1.0):
        raise UsageError(f"--rtol must lie in [0, 1), got {args.rtol!r}")
    try:
        report = PrivacyReport.from_json(path)
    except ValueError as exc:
        raise UsageError(f"{args.file}: not a privacy report: {exc}") from None
    try:
        report.verify(rtol=args.rtol)
    except ReportMismatch as exc:
        print(f"fdp: verify: {args.file}: {exc}", file=sys.stderr)
        return EXIT_MISMATCH
    print(f"verified: {args.file} is what its recorded inputs give "
          f"({report.mechanism.description}; fdp {report.fdp_version})")
    print(report.to_text())
    return 0


def add_parser(sub: Any) -> None:
    """Declare ``fdp verify`` on the sub-parsers ``sub``."""
    p = sub.add_parser("verify", help="recompute a privacy report (JSON) from its inputs")
    p.add_argument("file", metavar="FILE", help="a report written by PrivacyReport.to_json "
                   "or `fdp dpsgd ... --json FILE`")
    p.add_argument("--rtol", type=float, default=RTOL, metavar="R",
                   help=f"relative tolerance per number (default {RTOL:g}: the same fdp "
                   "recomputes the same bits; larger admits another fdp version's rounding)")
    p.set_defaults(func=_cmd_verify)
