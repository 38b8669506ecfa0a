"""Drawing one trade-off function (or one set of observed points) on trade-off axes.

Three kinds of input are drawn differently, so that a figure never claims more
precision than the object has:

* an exact closed form (``f.is_exact``): a line through f on a fine α grid;
* a certified numeric result (``not f.is_exact``): the band between the lower and
  upper sides of ``f.bounds(α)``, with the lower (safe) side drawn as the line;
* an approximation (CLT, Edgeworth: ``f.approximate`` is true): a plain line, never a
  band, since there is no certified bracket to show;
* a point set (``fdp.PiecewiseLinear`` with few vertices, or raw ``(alpha, beta)``
  arrays): the points as markers and their lower convex hull as the line — the
  most private trade-off function consistent with them (as the R package fdp does).
"""

from __future__ import annotations

import re

import numpy as np

from fdp.families.piecewise import PiecewiseLinear, from_points
from fdp.plotting._style import alpha_grid

#: PiecewiseLinear functions with at most this many vertices show their vertices.
MAX_MARKED_VERTICES = 60


def latex_label(f) -> str:
    """``$<f.latex()>$`` if matplotlib's mathtext can typeset it, else ``repr(f)``.

    Exponents and subscripts of several characters are braced (``^10`` → ``^{10}``):
    TeX would set only the first one raised (a label "^1 0").

    Parameters
    ----------
    f : TradeOff
        The function to name.

    Returns
    -------
    str
        A legend label.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import latex_label
    >>> latex_label(fdp.Gaussian(1.5))
    '$G_{1.5}$'
    """
    try:
        text = "$" + re.sub(r"([\^_])([0-9.]{2,})", r"\1{\2}", f.latex()) + "$"
        from matplotlib.mathtext import MathTextParser
        MathTextParser("path").parse(text)
        return text
    except Exception:  # an exotic latex() string: fall back to the plain repr
        return repr(f)


def is_point_set(obj) -> bool:
    """True for a pair ``(alpha, beta)`` of equal-length 1-D arrays (raw observed points)."""
    if not isinstance(obj, (tuple, list)) or len(obj) != 2:
        return False
    try:
        a, b = (np.asarray(x, dtype=float) for x in obj)
    except (TypeError, ValueError):
        return False
    return a.ndim == 1 and a.shape == b.shape and a.size > 0


def draw_tradeoff(ax, f, *, label=None, color=None, linestyle="-", linewidth=1.8,
                  band_alpha=0.25, alpha=None, zorder=3):
    """Draw one trade-off function on ``ax`` and return its line.

    An exact closed form (or an approximation, such as a CLT curve) is drawn as a line;
    a certified numeric result as its lower (safe) side with the band up to its upper
    side shaded ("certified bracket"); a ``PiecewiseLinear`` through its vertices, marked
    when there are at most ``MAX_MARKED_VERTICES`` of them.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes to draw on (usually prepared with ``tradeoff_axes``).
    f : TradeOff
        The function to draw.
    label : str or None, optional
        Legend label; default ``latex_label(f)``.
    color, linestyle, linewidth, zorder : optional
        Matplotlib line properties.
    band_alpha : float, optional
        Opacity of the certified band of a numeric result.
    alpha : array_like or None, optional
        The α at which f is evaluated; default a grid refined near 0 and 1.

    Returns
    -------
    matplotlib.lines.Line2D
        The line drawn (for a numeric result, its lower side).

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import draw_tradeoff, new_figure, tradeoff_axes
    >>> fig, axes = new_figure()
    >>> ax = tradeoff_axes(axes[0, 0])
    >>> line = draw_tradeoff(ax, fdp.Laplace(1.0), color="k")
    >>> line.get_label()
    '$L_{1}$'
    """
    label = latex_label(f) if label is None else label
    if isinstance(f, PiecewiseLinear):
        line, = ax.plot(f.alphas, f.betas, color=color, linestyle=linestyle,
                        linewidth=linewidth, label=label, zorder=zorder)
        if len(f.alphas) <= MAX_MARKED_VERTICES:
            ax.plot(f.alphas, f.betas, linestyle="none", marker="o", markersize=3.5,
                    color=line.get_color(), zorder=zorder)
        return line
    a = alpha_grid() if alpha is None else np.asarray(alpha, dtype=float)
    if f.is_exact or getattr(f, "approximate", False):
        line, = ax.plot(a, f(a), color=color, linestyle=linestyle, linewidth=linewidth,
                        label=label, zorder=zorder)
        return line
    lo, hi = f.bounds(a)
    line, = ax.plot(a, lo, color=color, linestyle=linestyle, linewidth=linewidth,
                    label=f"{label} (lower side)", zorder=zorder)
    # One legend entry for the bands, however many numeric curves share the axes.
    first_band = "certified bracket" not in ax.get_legend_handles_labels()[1]
    ax.fill_between(a, lo, hi, color=line.get_color(), alpha=band_alpha, linewidth=0,
                    label="certified bracket" if first_band else None, zorder=zorder - 1)
    return line


def draw_points(ax, alpha, beta, *, label=None, color=None, zorder=4):
    """Observed (α, β) points as markers, and their lower convex hull (``fdp.from_points``).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes to draw on.
    alpha, beta : array_like
        The observed type I and type II errors, one entry per test.
    label : str or None, optional
        Legend label of the points and their hull.
    color : optional
        Matplotlib colour.
    zorder : float, optional
        Drawing order of the markers.

    Returns
    -------
    PiecewiseLinear
        The lower convex hull of the points (a trade-off function).

    Examples
    --------
    >>> from fdp.plotting import draw_points, new_figure, tradeoff_axes
    >>> fig, axes = new_figure()
    >>> hull = draw_points(tradeoff_axes(axes[0, 0]), [0.1, 0.3], [0.6, 0.2], label="audit")
    >>> print(f"{hull(0.2):.2f}")
    0.40
    """
    a = np.asarray(alpha, dtype=float)
    b = np.asarray(beta, dtype=float)
    hull = from_points(a, b)
    pts = ax.plot(a, b, linestyle="none", marker="o", markersize=4, color=color,
                  label=None if label is None else f"{label} (points)", zorder=zorder)[0]
    ax.plot(hull.alphas, hull.betas, color=pts.get_color(), linewidth=1.6,
            label="lower convex hull" if label is None else f"{label} (hull)",
            zorder=zorder - 1)
    return hull
