"""Command-line plumbing shared by ``fdp`` and ``python -m fdp.repro``.

A usage error is one line on stderr with exit status 2 (never a traceback, never the
argparse usage block); the checks below name the flag and the allowed range. Every
command runs through :func:`run_command`, which turns the exceptions a computation can
raise into that one line. Standard library only: the commands built on it
(``fdp.repro.command``, ``fdp.cli``) sit above everything else in the package.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

#: Exit status of bad input or of a computation that cannot be done.
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line input: reported as one line on stderr, exit status 2.

    Examples
    --------
    >>> from fdp.commandline import UsageError, positive
    >>> try:
    ...     positive("--sigma", -1.0)
    ... except UsageError as exc:
    ...     print(exc)
    --sigma must be a finite number > 0, got -1.0
    """


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage block) and exit status 2."""

    def error(self, message: str) -> NoReturn:  # raises instead of exiting (argparse exits)
        raise UsageError(f"{self.prog}: {message}")


# ----------------------------------------------------------------------
# Argument checks with the flag's name in the message
# ----------------------------------------------------------------------
def positive(flag: str, x: float) -> float:
    """``x`` if it is a finite number > 0, else UsageError naming ``flag``."""
    if not (math.isfinite(x) and x > 0):
        raise UsageError(f"{flag} must be a finite number > 0, got {x!r}")
    return x


def unit(flag: str, x: float, *, open_low: bool = True, open_high: bool = False) -> float:
    """``x`` if it lies in the unit interval with the given open ends, else UsageError."""
    lo_ok = x > 0 if open_low else x >= 0
    hi_ok = x < 1 if open_high else x <= 1
    if not (math.isfinite(x) and lo_ok and hi_ok):
        rng = ("(0" if open_low else "[0") + ", " + ("1)" if open_high else "1]")
        raise UsageError(f"{flag} must lie in {rng}, got {x!r}")
    return x


def count(flag: str, k: int) -> int:
    """``k`` if it is an integer >= 1, else UsageError."""
    if k < 1:
        raise UsageError(f"{flag} must be an integer >= 1, got {k}")
    return k


def writable_file(flag: str, path: str) -> Path:
    """``path`` as a Path if a file can be written there, else UsageError saying why."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise UsageError(f"{flag} {path!r} is a directory, expected a file name")
    if not parent.is_dir():
        raise UsageError(f"{flag} {path!r}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{flag} {path!r}: directory {str(parent)!r} is not writable")
    # os.access can say yes where writing fails (pseudo-filesystems, read-only mounts
    # seen by root): open the file the way savefig will, and remove it if it was new.
    existed = p.exists()
    try:
        with open(p, "ab"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag} {path!r} cannot be written: {exc.strerror or exc}") from None
    if not existed:
        p.unlink(missing_ok=True)
    return p


#: A number with a leading minus sign, e.g. -1e-5, -.5, -inf (argparse would take
#: "-1e-5" for an option).
_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$",
                              re.IGNORECASE)


def join_negative_values(argv: Sequence[str]) -> list[str]:
    """``--delta -1e-5`` → ``--delta=-1e-5``, so that the value reaches the range check
    (and its message) instead of being misread as an option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if (a.startswith("--") and "=" not in a and i + 1 < len(argv)
                and _NEGATIVE_NUMBER.match(argv[i + 1])):
            out.append(f"{a}={argv[i + 1]}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


# ----------------------------------------------------------------------
# Running a command
# ----------------------------------------------------------------------
def run_command(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
                dispatch: Callable[[argparse.Namespace], int | None]) -> int:
    """Parse ``argv`` (``sys.argv[1:]`` when None) and run ``dispatch(args)``.

    Returns the exit status: what ``dispatch`` returns (None means print the help and
    return 2), 2 on bad input or a computation that cannot be done, 130 on Ctrl-C.
    Every error is one line on stderr; ``FDP_DEBUG=1`` shows the traceback of a bug.
    """
    os.environ.setdefault("MPLBACKEND", "Agg")
    args_list = join_negative_values(list(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(args_list)
        code = dispatch(args)
        if code is None:
            parser.print_help()
            return EXIT_USAGE
        sys.stdout.flush()      # a closed pipe shows here, where it is handled below
        return code
    except UsageError as exc:
        _error(str(exc).removeprefix("fdp: "))
        return EXIT_USAGE
    except MemoryError as exc:
        _error(f"too large to compute: {_one_line(exc) or 'out of memory'}")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``fdp repro --list | head -1``): not an error of ours.
        # Point stdout at devnull so that the interpreter's final flush stays quiet.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except (ValueError, TypeError, OSError, ArithmeticError) as exc:
        _error(_one_line(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _error("interrupted", prefix="fdp: ")
        return 130
    except Exception as exc:  # a bug of ours: still one line, the traceback on request
        if os.environ.get("FDP_DEBUG"):
            raise
        _error(f"internal error ({type(exc).__name__}: {_one_line(exc)}); please report "
               "it (FDP_DEBUG=1 shows the traceback)")
        return EXIT_USAGE


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _error(message: str, prefix: str = "fdp: error: ") -> None:
    with contextlib.suppress(BrokenPipeError, OSError):
        print(f"{prefix}{message}", file=sys.stderr)
