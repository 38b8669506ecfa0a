"""Shared look of every fdp figure: square trade-off axes, the 1 − α diagonal, palettes.

Nothing here computes privacy; it only decides how a curve is drawn. Every helper
takes an optional Axes and returns the Axes it drew on, so figures compose the way
matplotlib users expect.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from PIL import Image

if TYPE_CHECKING:
    from os import PathLike

    from matplotlib.axes import Axes

#: Colour cycle (Okabe–Ito, readable by colour-blind readers and in greyscale).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
           "#000000", "#F0E442")

ALPHA_LABEL = r"type I error $\alpha$"
BETA_LABEL = r"type II error $\beta$"


def get_axes(ax: Axes | None = None, *, figsize: tuple[float, float] = (4.6, 4.6)) -> Axes:
    """Return ``ax``, or a fresh Axes on a new pyplot figure (so notebooks show it).

    Scripts that only save files (``fdp repro``, the CLI) build ``new_figure``
    instead, which never touches the pyplot state and renders with Agg.

    Parameters
    ----------
    ax : matplotlib.axes.Axes or None, optional
        Axes to draw on; None opens a new pyplot figure.
    figsize : (float, float), optional
        Size in inches of a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax`` itself, or the new Axes.

    Examples
    --------
    >>> from fdp.plotting import get_axes, new_figure
    >>> fig, axes = new_figure()
    >>> get_axes(axes[0, 0]) is axes[0, 0]
    True
    """
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def new_figure(nrows: int = 1, ncols: int = 1, *, size: float = 4.2,
               figsize: tuple[float, float] | None = None) -> tuple[Figure, Any]:
    """A stand-alone Figure and its Axes (no pyplot, no GUI backend): for saving.

    Parameters
    ----------
    nrows, ncols : int, optional
        Grid of Axes (default one).
    size : float, optional
        Side in inches of each panel (ignored when ``figsize`` is given).
    figsize : (float, float) or None, optional
        Size of the whole figure in inches.

    Returns
    -------
    (matplotlib.figure.Figure, ndarray of Axes)
        The figure and its Axes as an ``nrows × ncols`` array (always 2-D).

    Examples
    --------
    >>> from fdp.plotting import new_figure
    >>> fig, axes = new_figure(1, 2)
    >>> axes.shape
    (1, 2)
    """
    fig = Figure(figsize=figsize or (size * ncols, size * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


#: Line styles for the members of a family of curves, so that members stay apart where
#: they nearly coincide and in greyscale (colour alone is not enough).
LINESTYLES = ("-", "--", "-.", ":", (0, (6, 1.5, 1, 1.5, 1, 1.5)), (0, (1, 1)))


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def linestyle(i: int) -> Any:
    return LINESTYLES[i % len(LINESTYLES)]


def zoom_inset(ax: Axes, xlim: tuple[float, float], ylim: tuple[float, float],
               bounds: tuple[float, float, float, float] = (0.52, 0.22, 0.45, 0.36)) -> Axes:
    """An inset Axes magnifying the window ``xlim × ylim`` of ``ax`` (marked on ``ax``),
    for curves that nearly coincide at the scale of the whole plot. Draw on it as on
    ``ax``; it returns the inset."""
    ins = ax.inset_axes(bounds, xlim=xlim, ylim=ylim)
    ins.tick_params(labelsize="x-small")
    ins.grid(True, color="0.9", linewidth=0.6)
    ins.set_facecolor("white")
    ax.indicate_inset_zoom(ins, edgecolor="0.35")
    return ins


def tradeoff_axes(ax: Axes, *, diagonal: bool = True, title: str | None = None) -> Axes:
    """Square [0, 1]² axes with α and β labels and the perfect-privacy line Id(α) = 1 − α.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes to set up (drawn on once; a second call does not repeat the diagonal).
    diagonal : bool, optional
        Draw the line Id(α) = 1 − α (default True).
    title : str or None, optional
        Axes title.

    Examples
    --------
    >>> from fdp.plotting import new_figure, tradeoff_axes
    >>> fig, axes = new_figure()
    >>> ax = tradeoff_axes(axes[0, 0], title="trade-off")
    >>> [float(v) for v in ax.get_xlim() + ax.get_ylim()]
    [0.0, 1.0, 0.0, 1.0]
    """
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel(ALPHA_LABEL)
    ax.set_ylabel(BETA_LABEL)
    ax.grid(True, color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    if diagonal and not getattr(ax, "_fdp_diagonal", False):
        ax.plot([0.0, 1.0], [1.0, 0.0], color="0.6", linestyle=":", linewidth=1.0,
                label=r"$\mathrm{Id}(\alpha)=1-\alpha$", zorder=1)
        ax._fdp_diagonal = True  # type: ignore[attr-defined]  # a marker: drawn once per Axes
    if title:
        ax.set_title(title)
    return ax


def alpha_grid(n: int = 600) -> np.ndarray:
    """α values for drawing: uniform on [0, 1] plus log-spaced points near both ends,
    where G_μ and composed curves bend sharply."""
    tail = np.logspace(-8, -1.3, 80)
    return np.unique(np.concatenate([[0.0, 1.0], np.linspace(0.0, 1.0, n), tail, 1.0 - tail]))


#: A legend with more entries than this, or a longer label, goes beside the axes
#: (``legend(..., crowded="outside")``) instead of covering the curves.
MAX_INSIDE_ENTRIES = 5
MAX_INSIDE_LABEL = 32


def legend(ax: Axes, *, crowded: str = "inside", outside: bool = False, **kw: Any) -> Axes:
    """Draw the legend of ``ax`` (small type, translucent frame).

    A legend beside the axes never covers the data. It is used with ``outside=True``,
    and with ``crowded="outside"`` when the legend would cover much of the axes (more
    than ``MAX_INSIDE_ENTRIES`` entries, or a label longer than ``MAX_INSIDE_LABEL``
    characters). A figure holding only ``ax`` is then widened by the legend's width, so
    that the axes keep their size instead of being squeezed to make room.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes whose labelled artists get a legend (none is drawn if nothing is labelled).
    crowded : {"inside", "outside"}, optional
        Where a crowded legend goes (default "inside": wherever ``loc`` says).
    outside : bool, optional
        Always put the legend beside the axes (default False).
    **kw
        Passed to ``Axes.legend``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import draw_tradeoff, legend, new_figure, tradeoff_axes
    >>> fig, axes = new_figure()
    >>> ax = tradeoff_axes(axes[0, 0])
    >>> line = draw_tradeoff(ax, fdp.Gaussian(1.0))
    >>> legend(ax, loc="upper right").get_legend() is not None
    True
    >>> width = fig.get_figwidth()
    >>> _ = legend(ax, outside=True)
    >>> bool(fig.get_figwidth() > width)     # widened: the axes keep their size
    True
    """
    if crowded not in ("inside", "outside"):
        raise ValueError(f"crowded must be 'inside' or 'outside', got {crowded!r}")
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        kw.setdefault("fontsize", "small")
        kw.setdefault("framealpha", 0.9)
        beside = outside or (crowded == "outside" and (
            len(labels) > MAX_INSIDE_ENTRIES or max(map(len, labels)) > MAX_INSIDE_LABEL))
        if beside:
            kw.update(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
        leg = ax.legend(**kw)
        fig = ax.get_figure()
        if beside and isinstance(fig, Figure) and fig.axes == [ax]:
            room = leg.get_window_extent().width / fig.dpi + 0.1
            # a second call replaces the room the first one made
            fig.set_figwidth(fig.get_figwidth() - getattr(ax, "_fdp_legend_room", 0.0) + room)
            ax._fdp_legend_room = room  # type: ignore[attr-defined]  # room made, per Axes
    return ax


#: Metadata written into a saved figure, per format: no software version, no date, so
#: that the same figure gives the same bytes (None removes a key matplotlib would add).
SAVE_METADATA = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    "svg": {"Creator": None, "Date": None},
}
#: Resolution of saved raster figures (dots per inch).
SAVE_DPI = 110
#: Largest share of a PNG's pixels that may differ for a redrawn figure to count as the
#: picture already on disk: data equal but for their last bits (another CPU's FFT or
#: BLAS) move the anti-aliasing of a few edge pixels of a curve, while any change a
#: reader can see (a moved curve, a label, a number) changes far more than 1 in 10⁴.
SAME_PICTURE_PIXELS = 1e-4


def save(fig: Figure, path: str | PathLike[str], *, dpi: int = SAVE_DPI) -> bool:
    """Save a figure reproducibly, cropped to everything drawn; leave an unchanged file alone.

    The file carries no software version or timestamp (``SAVE_METADATA``), SVG element
    ids are derived from a fixed salt, and the resolution is fixed, so the same figure
    gives the same bytes under one matplotlib. A PNG of the size of the file already at
    ``path`` whose pixels differ from it in at most ``SAME_PICTURE_PIXELS`` of them is not
    rewritten (another matplotlib or zlib may encode the same image into different bytes,
    another machine's last bits move a few anti-aliased pixels), nor is any file whose
    bytes would not change: redrawing a figure leaves a checkout clean. A legend beside
    the axes or a long label is never cut off.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to save.
    path : str or path-like
        Output file; the format follows its suffix (PNG, PDF, SVG, or any other format
        matplotlib writes).
    dpi : int, optional
        Resolution (default ``SAVE_DPI`` = 110).

    Returns
    -------
    bool
        True if the file was written, False if it already held this figure.

    Examples
    --------
    >>> import os, tempfile
    >>> from fdp.plotting import gdp_family, new_figure, save
    >>> fig, axes = new_figure()
    >>> ax = gdp_family(ax=axes[0, 0])
    >>> path = os.path.join(tempfile.mkdtemp(), "gdp.png")
    >>> save(fig, path), save(fig, path)
    (True, False)
    """


    path = Path(path)
    fmt = path.suffix[1:].lower() or matplotlib.rcParams["savefig.format"]
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "fdp"}):
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=SAVE_METADATA.get(fmt),
                    bbox_inches="tight", pad_inches=0.05)
    data = buf.getvalue()
    if path.is_file() and _same_content(path.read_bytes(), data, fmt):
        return False
    path.write_bytes(data)
    return True


def _same_content(old: bytes, new: bytes, fmt: str) -> bool:
    """Equal bytes, or (PNG) the same size and mode with at most ``SAME_PICTURE_PIXELS``
    of the pixels different: the same picture, however encoded and wherever drawn."""
    if old == new:
        return True
    if fmt != "png":
        return False

    try:
        with Image.open(io.BytesIO(old)) as a, Image.open(io.BytesIO(new)) as b:
            if a.size != b.size or a.mode != b.mode:
                return False
            x, y = np.asarray(a), np.asarray(b)
            differ = (x != y).reshape(x.shape[0], x.shape[1], -1).any(axis=-1)
            return int(differ.sum()) <= SAME_PICTURE_PIXELS * differ.size
    except (OSError, ValueError):     # the old file is not a readable PNG: overwrite it
        return False
