"""Shared look of every fdp figure: square trade-off axes, the 1 − α diagonal, palettes.

Nothing here computes privacy; it only decides how a curve is drawn. Every helper
takes an optional Axes and returns the Axes it drew on, so figures compose the way
matplotlib users expect.
"""

from __future__ import annotations

import numpy as np

#: Colour cycle (Okabe–Ito, readable by colour-blind readers and in greyscale).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
           "#000000", "#F0E442")

ALPHA_LABEL = r"type I error $\alpha$"
BETA_LABEL = r"type II error $\beta$"


def get_axes(ax=None, *, figsize=(4.6, 4.6)):
    """Return ``ax`` or a fresh Axes on a new pyplot figure (so notebooks show it).

    Scripts that only save files (``fdp repro``, the CLI) build ``new_figure``
    instead, which never touches the pyplot state and renders with Agg.
    """
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def new_figure(nrows: int = 1, ncols: int = 1, *, size: float = 4.2, figsize=None):
    """A stand-alone Figure and its Axes (no pyplot, no GUI backend): for saving."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=figsize or (size * ncols, size * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


#: Line styles for the members of a family of curves, so that members stay apart where
#: they nearly coincide and in greyscale (colour alone is not enough).
LINESTYLES = ("-", "--", "-.", ":", (0, (6, 1.5, 1, 1.5, 1, 1.5)), (0, (1, 1)))


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def linestyle(i: int):
    return LINESTYLES[i % len(LINESTYLES)]


def zoom_inset(ax, xlim, ylim, bounds=(0.52, 0.22, 0.45, 0.36)):
    """An inset Axes magnifying the window ``xlim × ylim`` of ``ax`` (marked on ``ax``),
    for curves that nearly coincide at the scale of the whole plot. Draw on it as on
    ``ax``; it returns the inset."""
    ins = ax.inset_axes(bounds, xlim=xlim, ylim=ylim)
    ins.tick_params(labelsize="x-small")
    ins.grid(True, color="0.9", linewidth=0.6)
    ins.set_facecolor("white")
    ax.indicate_inset_zoom(ins, edgecolor="0.35")
    return ins


def tradeoff_axes(ax, *, diagonal: bool = True, title: str | None = None):
    """Square [0, 1]² axes with α and β labels and the perfect-privacy line Id(α) = 1 − α."""
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
        ax._fdp_diagonal = True
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


def legend(ax, *, crowded: str = "inside", **kw):
    """Draw the legend of ``ax`` (small type, translucent frame).

    With ``crowded="outside"`` a legend that would cover much of the axes (more than
    ``MAX_INSIDE_ENTRIES`` entries, or a label longer than ``MAX_INSIDE_LABEL``
    characters) is placed to the right of the axes; a constrained-layout figure makes
    room for it, so it never runs off the figure.
    """
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        kw.setdefault("fontsize", "small")
        kw.setdefault("framealpha", 0.9)
        if crowded == "outside" and (len(labels) > MAX_INSIDE_ENTRIES or
                                     max(map(len, labels)) > MAX_INSIDE_LABEL):
            kw.update(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
        ax.legend(**kw)
    return ax


def save(fig, path, *, dpi: int = 110) -> None:
    """Save a figure reproducibly (PNG without the Software/timestamp metadata), cropped
    to everything drawn, so a legend beside the axes or a long label is never cut off."""
    fig.savefig(path, dpi=dpi, metadata={"Software": None}, bbox_inches="tight",
                pad_inches=0.05)
