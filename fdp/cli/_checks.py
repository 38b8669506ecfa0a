"""Argument checks of the ``fdp`` commands that need more than ``fdp.commandline``.

Both run before anything is computed: an image path whose suffix matplotlib cannot
write, or a count that is not a whole number, is one line on stderr (exit status 2)
instead of an error after minutes of work.
"""

from __future__ import annotations

import argparse
import math
import shutil
from pathlib import Path

import matplotlib
from matplotlib.backend_bases import FigureCanvasBase

from fdp.commandline import UsageError, writable_file


def image_formats() -> list[str]:
    """The file suffixes matplotlib can write here (``FigureCanvasBase``'s formats;
    ``pgf`` only when its TeX system is installed).

    Returns
    -------
    list of str
        Sorted suffixes without the dot, e.g. ``["eps", "pdf", "png", ...]``.

    Examples
    --------
    >>> from fdp.cli._checks import image_formats
    >>> {"png", "pdf", "svg"} <= set(image_formats())
    True
    """
    formats = set(FigureCanvasBase.get_supported_filetypes())
    if "pgf" in formats and shutil.which(matplotlib.rcParams["pgf.texsystem"]) is None:
        formats.discard("pgf")
    return sorted(formats)


def image_file(flag: str, path: str) -> Path:
    """``path`` as a Path if a figure can be written there: a writable file whose suffix
    is a format matplotlib writes (``image_formats``), else UsageError naming ``flag``.

    Parameters
    ----------
    flag : str
        The option, for the message (``--plot``, ``--out``).
    path : str
        The file to write.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    UsageError
        If the suffix is missing or not an image format, or the file cannot be written.

    Examples
    --------
    >>> from fdp.cli._checks import image_file
    >>> try:
    ...     image_file("--out", "curves.txt")
    ... except Exception as exc:
    ...     print(str(exc)[:58])
    --out 'curves.txt': '.txt' is not an image format matplotl
    """
    suffix = Path(path).suffix[1:].lower()
    formats = image_formats()
    if suffix not in formats:
        what = f"'.{suffix}' is not an image format" if suffix else "no file suffix, so no format"
        raise UsageError(f"{flag} {path!r}: {what} matplotlib writes; use one of "
                         f"{', '.join(formats)}")
    return writable_file(flag, path)


def whole_number(text: str) -> int:
    """argparse ``type`` of a count: an integer, also written as an integer-valued float
    (``1e12``, ``14060.0``); ``1.5``, ``inf`` or ``nan`` are refused.

    Parameters
    ----------
    text : str
        The argument as given.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a whole number (argparse reports it naming the option).

    Examples
    --------
    >>> from fdp.cli._checks import whole_number
    >>> whole_number("1e12"), whole_number("14060")
    (1000000000000, 14060)
    """
    try:
        return int(text)
    except ValueError:
        pass
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if not (math.isfinite(x) and x.is_integer()):
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
    return int(x)
