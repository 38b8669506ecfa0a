"""Drawing one trade-off function (or one set of observed points) on trade-off axes.

Three kinds of input are drawn differently, so that a figure never claims more
precision than the object has:

* an exact closed form (``f.is_exact``): a line through f on a fine α grid;
* a certified numeric result (``not f.is_exact``): the band between the lower and
  upper sides of ``f.bounds(α)``, with the lower (safe) side drawn as the line;
* an approximation or a lower bound (``f.status``): a plain line, never a
  band, since there is no certified bracket to show;
* a point set (``fdp.PiecewiseLinear`` with few vertices, or raw ``(alpha, beta)``
  arrays): the points as markers and their lower convex hull as the line — the
  most private trade-off function consistent with them (as the R package fdp does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D

import dataclasses
import re

import numpy as np
from matplotlib.mathtext import MathTextParser

from fdp._types import ArrayLike
from fdp.engine import Numeric
from fdp.families.piecewise import PiecewiseLinear, from_points
from fdp.plotting.style import alpha_grid
from fdp.status import Status
from fdp.tradeoff import TradeOff

#: PiecewiseLinear functions with at most this many vertices show their vertices.
MAX_MARKED_VERTICES = 60


#: A composition with more distinct factors than this is named by its first and last
#: factors around ⋯ (a legend entry stays one short line).
MAX_LABEL_FACTORS = 3


def latex_label(f: TradeOff) -> str:
    """A short legend label of f: ``$<math name>$``, or a plain text name.

    The math name is ``f.latex()`` with equal adjacent factors of a composition merged
    (``L_{1} ⊗ L_{1} ⊗ L_{1}`` → ``L_{1}^{⊗3}``) and a composition of more than
    ``MAX_LABEL_FACTORS`` distinct factors shortened to its first and last factors around
    ⋯. A certified numeric result is named by what was composed (``L_{0.1}^{⊗100}``),
    not by the class that holds it; one whose recipe is not a plain composition of named
    factors (a DP-SGD run, say) keeps its own text name. Exponents and subscripts of
    several characters are braced (``^10`` → ``^{10}``), so TeX raises all of them.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import latex_label
    >>> latex_label(fdp.Gaussian(1.5))
    '$G_{1.5}$'
    >>> latex_label(fdp.Laplace(0.1) ** 100)
    '$L_{0.1}^{\\\\otimes 100}$'
    >>> latex_label(fdp.compose(*[fdp.Laplace(m) for m in (0.1, 0.2, 0.3, 0.4, 0.5)]))
    '$L_{0.1} \\\\otimes \\\\cdots \\\\otimes L_{0.5}$'
    """
    text = _math_name(f)
    if text is not None:
        text = "$" + _compact(re.sub(r"([\^_])([0-9.]{2,})", r"\1{\2}", text)) + "$"
        try:
            MathTextParser("path").parse(text)
            return text
        except Exception:  # an exotic latex() string: fall back to the text name
            pass
    return _text_name(f)


def _math_name(f: TradeOff) -> str | None:
    """f.latex() with every numeric operand named by what it composes; for a numeric
    result itself that name (None if it is not a plain composition, or its inverse, of
    factors with LaTeX names)."""
    if isinstance(f, Numeric):
        return _numeric_name(f)
    text = f.latex()
    for g in _numeric_operands(f):
        name = _numeric_name(g)
        if name is None:
            return None
        name = _compact(name)
        wrap = len(_split_top(name, r"\otimes")) > 1
        text = text.replace(g.latex(), f"\\left({name}\\right)" if wrap else name)
    return text


def _numeric_operands(f: Any, depth: int = 0) -> list[Any]:
    """The numeric results among the operands of f (its dataclass fields, nested)."""

    if depth > 4 or not dataclasses.is_dataclass(f):
        return []
    found = []
    for fld in dataclasses.fields(f):
        value = getattr(f, fld.name, None)
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, Numeric):
                found.append(v)
            elif isinstance(v, TradeOff):
                found += _numeric_operands(v, depth + 1)
    return found


def _numeric_name(f: Any) -> str | None:
    recipes = f.source
    if len(recipes) != 1:                   # a one-sided symmetrisation: two directions
        return None
    groups = recipes[0].groups
    # a plain composition is labelled by its factor groups (the first few, in repr), its
    # inverse by "(that)⁻¹": the result is named after the factors exactly then
    shown = " ⊗ ".join(repr(g) + (f"^{n}" if n > 1 else "") for g, n in groups[:4])
    label, reflected = f.label.replace(" ", ""), recipes[0].reflected
    if not groups or not label.startswith(("(" if reflected else "") + shown.replace(" ", "")):
        return None
    found = [_math_name(g) for g, _ in groups]
    names = [name for name in found if name is not None]
    if len(names) < len(found):
        return None
    text = r" \otimes ".join(
        (f"{{{name}}}^{{\\otimes {n}}}" if _is_compound(name) else f"{name}^{{\\otimes {n}}}")
        if n > 1 else name for name, (_, n) in zip(names, groups))
    return f"\\left({_compact(text)}\\right)^{{-1}}" if reflected else text


def _is_compound(name: str) -> bool:
    """True if ``name`` has a top-level operator or a superscript (needs braces before ^)."""
    return "^" in name or any(_split_top(name, op)[1:] for op in (r"\otimes", "+", "-"))


def _text_name(f: TradeOff) -> str:
    """A plain text name: a numeric result's own label (what was computed), else repr.

    A DP-SGD run's label ``dpsgd(sigma=…, q=…, steps=…, sampler, sensitivity=…)`` is
    shortened to ``DP-SGD σ=…, q=…, T=…`` (the sampler and sensitivity belong in the
    caption or the legend's title, which ``plot_samplers`` writes)."""
    if not isinstance(f, Numeric):
        text = repr(f).split("  # ")[0]
        return text if f.status.is_guarantee else f"{text} ({f.status.value})"
    m = re.match(r"dpsgd\(sigma=([^,]+), q=([^,]+), steps=([^,]+),", f.label)
    if m is not None:
        return f"DP-SGD σ={m.group(1)}, q={m.group(2)}, T={m.group(3)}"
    return f.label


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside braces and parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i].strip())
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:].strip())
    return parts


def _compact(text: str) -> str:
    r"""Merge equal adjacent ⊗ factors into powers; shorten a long composition to
    ``first ⊗ ⋯ ⊗ last``."""
    factors = _split_top(text, r"\otimes")
    if len(factors) == 1:
        return text
    runs: list[list] = []
    for x in factors:
        if runs and runs[-1][0] == x:
            runs[-1][1] += 1
        else:
            runs.append([x, 1])
    parts = [x if n == 1 else (f"{{{x}}}^{{\\otimes {n}}}" if _is_compound(x)
                               else f"{x}^{{\\otimes {n}}}") for x, n in runs]
    if len(parts) > MAX_LABEL_FACTORS:
        parts = [parts[0], r"\cdots", parts[-1]]
    return r" \otimes ".join(parts)


def is_point_set(obj: object) -> bool:
    """True for a pair ``(alpha, beta)`` of equal-length 1-D arrays (raw observed points)."""
    if not isinstance(obj, (tuple, list)) or len(obj) != 2:
        return False
    try:
        a, b = (np.asarray(x, dtype=float) for x in obj)
    except (TypeError, ValueError):
        return False
    return a.ndim == 1 and a.shape == b.shape and a.size > 0


def draw_tradeoff(ax: Axes, f: TradeOff, *, label: str | None = None, color: Any = None,
                  linestyle: Any = "-", linewidth: float = 1.8, band_alpha: float = 0.25,
                  alpha: ArrayLike | None = None, zorder: float = 3) -> Line2D:
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
    if f.status is not Status.CERTIFIED:
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


def draw_points(ax: Axes, alpha: ArrayLike, beta: ArrayLike, *, label: str | None = None,
                color: Any = None, zorder: float = 4) -> PiecewiseLinear:
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
    # observed points above β = 1 − α (e.g. noisy estimates) lie above the chord
    # (0, 1)–(1, 0) and the hull never uses them: put them on it (from_points refuses them)
    hull = from_points(a, np.minimum(b, 1.0 - a))
    pts = ax.plot(a, b, linestyle="none", marker="o", markersize=4, color=color,
                  label=None if label is None else f"{label} (points)", zorder=zorder)[0]
    ax.plot(hull.alphas, hull.betas, color=pts.get_color(), linewidth=1.6,
            label="lower convex hull" if label is None else f"{label} (hull)",
            zorder=zorder - 1)
    return hull
