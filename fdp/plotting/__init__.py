"""Plots of trade-off functions (matplotlib). Every helper takes and returns an Axes.

Each figure helper draws on its ``ax`` argument (None opens a new pyplot figure) and
returns the Axes it drew on.

``fdp.plot(f, g, labels=[...])`` draws any trade-off functions on square [0, 1]²
axes with the perfect-privacy line 1 − α. Exact closed forms are drawn as lines,
certified numeric results as the band between their lower and upper bounds, and
point sets (``(alpha, beta)`` arrays, or a ``fdp.PiecewiseLinear`` with few
vertices) as markers with their lower convex hull.

Figure helpers (see each docstring for the formula drawn):

============================  =====================================================
``hypothesis_test``           two densities, threshold, shaded type I / II errors
``fdp_region``                f with candidate curves, which are f-DP and which not
``eps_delta``                 f_{ε,δ} with its kink / fixed point
``gdp_family``                G_μ for several μ
``privacy_profile``           δ(ε) curves (bands for numeric results)
``gdp_conversion``            G_μ and the f_{ε,δ} it implies
``group_privacy``             1 − (1 − f)^{∘k}
``laplace_limit``             groups under (μ/k)-DP converging to the Laplace L_μ
``clt_band``                  a composition, its CLT G_μ and the Berry–Esseen band
``subsampling``               C_p(f) for several p
``dpsgd_comparison``          certified DP-SGD vs CLT vs moments accountant
``dpsgd_profile``             DP-SGD δ(ε): certified bracket vs CLT (log scale)
``dpsgd_roc``                 the same curves as attack ROC on log–log axes (small α)
``epsilon_trajectory``        certified ε(δ) against the number of steps (band)
``roc_axes``, ``draw_roc``    log–log TPR = 1 − β against FPR = α, for any f
============================  =====================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes

from fdp.plotting._draw import draw_points, draw_tradeoff, is_point_set, latex_label
from fdp.plotting.accounting import (
    clt_band,
    dpsgd_comparison,
    dpsgd_profile,
    dpsgd_roc,
    draw_roc,
    gdp_conversion,
    group_privacy,
    laplace_limit,
    privacy_profile,
    roc_axes,
    subsampling,
)
from fdp.plotting.basics import eps_delta, fdp_region, gdp_family, hypothesis_test
from fdp.plotting.style import (
    PALETTE,
    color,
    get_axes,
    legend,
    linestyle,
    new_figure,
    save,
    tradeoff_axes,
)
from fdp.plotting.trajectory import epsilon_trajectory
from fdp.tradeoff import TradeOff


def plot(*fs: Any, labels: Sequence[str | None] | None = None, ax: Axes | None = None,
         diagonal: bool = True, title: str | None = None) -> Axes:
    """Draw trade-off functions (and point sets) on square trade-off axes; return the Axes.

    Parameters
    ----------
    *fs : TradeOff or (array_like, array_like)
        Functions to draw, or pairs ``(alpha, beta)`` of observed points (drawn with
        their lower convex hull, ``fdp.from_points``).
    labels : sequence of str or None, optional
        One label per argument; default the LaTeX names of the functions.
    diagonal : bool, optional
        Draw the perfect-privacy line Id(α) = 1 − α (default True).
    title : str or None, optional
        Axes title.

    Raises
    ------
    ValueError
        If ``labels`` does not have one entry per curve.
    TypeError
        If an argument is neither a TradeOff nor a point set.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import new_figure
    >>> fig, axes = new_figure()
    >>> ax = fdp.plot(fdp.Gaussian(1.0), fdp.EpsDelta(1.0, 0.01), ([0.1, 0.4], [0.6, 0.2]),
    ...               ax=axes[0, 0])
    >>> len(ax.get_lines()) >= 4
    True
    """
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(fs):
            raise ValueError(f"labels must have one entry per curve ({len(fs)}), "
                             f"got {len(labels)}")
    ax = tradeoff_axes(get_axes(ax), diagonal=diagonal, title=title)
    for i, f in enumerate(fs):
        label = None if labels is None else labels[i]
        c = color(i)
        if isinstance(f, TradeOff):        # colour and line style: apart in greyscale too
            draw_tradeoff(ax, f, label=label, color=c, linestyle=linestyle(i))
        elif is_point_set(f):
            draw_points(ax, f[0], f[1], label=label or f"points {i + 1}", color=c)
        else:
            raise TypeError(f"plot takes TradeOff objects or (alpha, beta) point sets, "
                            f"got {type(f).__name__}")
    legend(ax, loc="upper right", crowded="outside")
    return ax


__all__ = ["PALETTE", "clt_band", "dpsgd_comparison", "dpsgd_profile", "dpsgd_roc",
           "draw_points", "draw_roc", "draw_tradeoff",
           "eps_delta", "epsilon_trajectory", "fdp_region", "gdp_conversion", "gdp_family",
           "get_axes",
           "group_privacy", "hypothesis_test", "laplace_limit", "latex_label", "legend",
           "new_figure", "plot", "privacy_profile", "roc_axes", "save", "subsampling",
           "tradeoff_axes"]
