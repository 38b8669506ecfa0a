"""ε over training: a certified ε(δ) bracket against the number of steps."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike
from fdp.plotting.style import color, get_axes, legend

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def epsilon_trajectory(steps: ArrayLike, lower: ArrayLike, upper: ArrayLike, delta: float, *,
                       ax: Axes | None = None, label: str | None = None,
                       title: str | None = None, logx: bool = False) -> Axes:
    """Certified ε(δ) after each number of steps: the upper end as the line, the
    bracket [lower, upper] as the band (as ``dpsgd_profile`` draws δ(ε)).

    Parameters
    ----------
    steps, lower, upper : array_like
        The step counts and the certified ε bracket at each (``fdp.sgd.trajectory``);
        an infinite upper end is not drawn.
    delta : float
        The δ the brackets are for (in the legend).
    ax : matplotlib.axes.Axes or None, optional
        Axes to draw on; None opens a new pyplot figure.
    label, title : str or None, optional
        Legend entry of the line (default "certified ε (upper end)") and Axes title.
    logx : bool, optional
        Logarithmic step axis (default False).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.

    Examples
    --------
    >>> from fdp.plotting import epsilon_trajectory, new_figure
    >>> fig, axes = new_figure()
    >>> ax = epsilon_trajectory([10, 20], [0.5, 0.7], [0.51, 0.72], 1e-5, ax=axes[0, 0])
    >>> ax.get_xlabel()
    'steps $T$'
    """
    t = _validate.reals("steps", steps, low=0.0)
    lo = _validate.reals("lower", lower, low=0.0, allow_inf=True)
    hi = _validate.reals("upper", upper, low=0.0, allow_inf=True)
    if not (t.ndim == 1 and t.shape == lo.shape == hi.shape):
        raise ValueError("steps, lower and upper must be 1-d arrays of one length, got "
                         f"shapes {t.shape}, {lo.shape}, {hi.shape}")
    ax = get_axes(ax)
    shown = np.where(np.isfinite(hi), hi, np.nan)
    ax.plot(t, shown, color=color(0), marker="." if t.size <= 30 else None,
            label=label or "certified ε (upper end)")
    ax.fill_between(t, lo, shown, color=color(0), alpha=0.3, linewidth=0,
                    label="certified bracket")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(r"steps $T$")
    ax.set_ylabel(rf"$\varepsilon(\delta={delta:g})$")
    ax.set_ylim(bottom=0.0)
    ax.grid(True, color="0.9", linewidth=0.6)
    if title:
        ax.set_title(title)
    legend(ax, loc="upper left")
    return ax


__all__ = ["epsilon_trajectory"]
