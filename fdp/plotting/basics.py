"""The pictures that introduce f-DP (Dong, Roth & Su 2022, §2).

* ``hypothesis_test``: two densities, a rejection threshold, shaded type I/II errors;
* ``fdp_region``: a trade-off curve f with candidate curves, marking which are f-DP;
* ``eps_delta``: f_{ε,δ} with its kink (which is also its fixed point) and intercepts;
* ``gdp_family``: G_μ for several μ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes

import numpy as np
from scipy.special import ndtr

from fdp import _validate
from fdp.families import EpsDelta, Gaussian
from fdp.plotting._draw import draw_tradeoff, latex_label
from fdp.plotting.style import color, get_axes, legend, linestyle, tradeoff_axes
from fdp.tradeoff import TradeOff

_SQRT_2PI = float(np.sqrt(2.0 * np.pi))


def hypothesis_test(mu: float = 2.0, threshold: float | None = None, *, ax: Axes | None = None,
                    labels: tuple[str, str] = (r"$P=N(0,1)$", r"$Q=N(\mu,1)$")) -> Axes:
    """Testing H0: P = N(0, 1) against H1: Q = N(μ, 1) with the rejection region x > t.

    Type I error α = P(X > t) = 1 − Φ(t) (shaded under P right of t); type II error
    β = Q(X ≤ t) = Φ(t − μ) (shaded under Q left of t). Moving t trades one for the
    other along G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022, Def 2.1, §2.1).

    Parameters
    ----------
    mu : float, optional
        Mean μ ≥ 0 of Q (default 2).
    threshold : float or None, optional
        The threshold t; default μ/2.
    labels : (str, str), optional
        Legend labels of P and Q.

    Examples
    --------
    >>> from fdp.plotting import hypothesis_test, new_figure
    >>> fig, axes = new_figure()
    >>> ax = hypothesis_test(2.0, ax=axes[0, 0])
    >>> sorted(str(c.get_label())[:12] for c in ax.collections)
    ['type I error', 'type II erro']
    """
    mu = _validate.real("mu", mu, low=0.0)
    t = mu / 2.0 if threshold is None else _validate.real("threshold", threshold)
    ax = get_axes(ax, figsize=(6.0, 3.6))
    lo, hi = min(-4.0, t - 1.0), max(mu + 4.0, t + 1.0)
    x = np.linspace(lo, hi, 801)
    # the N(0, 1) density and cdf from scipy.special (scipy.stats would add ≈ 47 MB to
    # every process that imports fdp.plotting, e.g. through fdp.sgd)
    p, q = np.exp(-0.5 * x * x) / _SQRT_2PI, np.exp(-0.5 * (x - mu) ** 2) / _SQRT_2PI
    ax.plot(x, p, color=color(0), linewidth=1.8, label=labels[0])
    ax.plot(x, q, color=color(1), linewidth=1.8, label=labels[1])
    a, b = float(ndtr(-t)), float(ndtr(t - mu))
    right = x >= t
    ax.fill_between(x[right], 0, p[right], color=color(0), alpha=0.35, linewidth=0,
                    label=rf"type I error $\alpha={a:.3f}$")
    ax.fill_between(x[~right | (x == t)], 0, q[~right | (x == t)], color=color(1),
                    alpha=0.35, linewidth=0, hatch="///", edgecolor=color(1),
                    label=rf"type II error $\beta={b:.3f}$")
    ax.axvline(t, color="0.2", linestyle="--", linewidth=1.2)
    top = 1.12 / _SQRT_2PI
    ax.annotate("", xy=(hi, 0.93 * top), xytext=(t, 0.93 * top),
                arrowprops=dict(arrowstyle="->", color="0.2"))
    ax.text(t + 0.1, 0.96 * top, r"reject $H_0$ (rejection region $T$)", fontsize="small",
            va="bottom")
    ax.text(t, -0.02 * top, r"$t$", ha="center", va="top")
    ax.set_xlim(lo, hi)
    ax.set_ylim(0.0, 1.1 * top)
    ax.set_xlabel(r"$x$")
    ax.set_ylabel("density")
    legend(ax, outside=True)               # beside the axes: the densities fill them
    return ax


def fdp_region(f: TradeOff, candidates: Sequence[TradeOff], labels: Sequence[str] | None = None,
               *, ax: Axes | None = None, f_label: str | None = None,
               shade: bool = True) -> Axes:
    """A trade-off function f with candidate curves, marked f-DP or not.

    Candidates ≥ f everywhere are f-DP (drawn dashed, marked ✓); one that dips below f
    somewhere is not (marked ✗, the crossing shaded). The test is ``g.dominates(f)``,
    a certified comparison in the dual (Dong, Roth & Su 2022, Prop 2.12). The region
    {β ≥ f(α)} of f-DP trade-off curves is shaded. The verdicts are stored as
    ``ax.fdp_verdicts``.

    Parameters
    ----------
    f : TradeOff
        The guarantee.
    candidates : sequence of TradeOff
        Trade-off curves to compare with f.
    labels : sequence of str or None, optional
        One label per candidate.
    f_label : str or None, optional
        Label of f.
    shade : bool, optional
        Shade the f-DP region (default True).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on (with ``fdp_verdicts``, one bool per candidate).

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import fdp_region, new_figure
    >>> fig, axes = new_figure()
    >>> ax = fdp_region(fdp.Gaussian(1.0), [fdp.Gaussian(0.5), fdp.EpsDelta(1.0)],
    ...                 ax=axes[0, 0])
    >>> ax.fdp_verdicts
    [True, False]
    """
    ax = tradeoff_axes(get_axes(ax))
    a = np.linspace(0.0, 1.0, 801)
    fa = f(a)
    if shade:
        ax.fill_between(a, fa, 1.0 - a, color="0.85", alpha=0.6, linewidth=0,
                        label=r"$f$-DP region", zorder=0)
    draw_tradeoff(ax, f, label=f_label or rf"$f={f.latex()}$", color="k", linewidth=2.2)
    verdicts = []
    for i, g in enumerate(candidates):
        ok = g.dominates(f)
        verdicts.append(ok)
        name = labels[i] if labels is not None else latex_label(g)
        mark = r"$f$-DP ✓" if ok else r"not $f$-DP ✗"
        line = draw_tradeoff(ax, g, label=f"{name}: {mark}", color=color(i + 1),
                             linestyle="--" if ok else "-.")
        if not ok:
            ga = g(a)
            below = ga < fa - 1e-12
            ax.fill_between(a, ga, fa, where=below, color=line.get_color(), alpha=0.3,
                            linewidth=0)
    legend(ax, loc="upper right")
    ax.fdp_verdicts = verdicts  # type: ignore[attr-defined]  # documented result attribute
    return ax


def eps_delta(eps: float = 1.0, delta: float = 0.1, *, ax: Axes | None = None) -> Axes:
    """f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)} with its kink marked.

    Dong, Roth & Su (2022), Def 2.3 and Prop 2.5. The kink α* = (1 − δ)/(1 + e^ε), where
    the two lines meet, is also the fixed point f(α*) = α* (f_{ε,δ} is symmetric).
    Intercepts: f(0) = 1 − δ and f(1 − δ) = 0; slopes −e^ε and −e^{−ε}.

    Parameters
    ----------
    eps : float, optional
        ε ≥ 0 (default 1).
    delta : float, optional
        δ in [0, 1] (default 0.1).

    Examples
    --------
    >>> from fdp.plotting import eps_delta, new_figure
    >>> fig, axes = new_figure()
    >>> ax = eps_delta(1.0, 0.1, ax=axes[0, 0])
    >>> kink = next(l for l in ax.get_lines() if l.get_label().startswith("kink"))
    >>> print(f"{kink.get_xdata()[0]:.4f}")
    0.2420
    """
    f = EpsDelta(eps, delta)
    ax = tradeoff_axes(get_axes(ax))
    draw_tradeoff(ax, f, label=rf"$f_{{\varepsilon,\delta}}$, $\varepsilon={eps:g}$, "
                  rf"$\delta={delta:g}$", color=color(0), linewidth=2.2)
    ax.plot([0, 1], [0, 1], color="0.75", linewidth=0.8, linestyle="--",
            label=r"$\beta=\alpha$")
    k = (1.0 - delta) / (1.0 + np.exp(eps))
    ax.plot([k], [k], "o", color=color(1), zorder=5,
            label=rf"kink = fixed point $\frac{{1-\delta}}{{1+e^\varepsilon}}={k:.3f}$")
    ax.plot([0, 1 - delta], [1 - delta, 0], "s", color=color(2), markersize=4, zorder=5,
            label=r"intercepts $1-\delta$")
    ax.annotate(r"slope $-e^{\varepsilon}$", xy=(k / 2, 1 - delta - np.exp(eps) * k / 2),
                xytext=(k / 2 + 0.08, 1 - delta - np.exp(eps) * k / 2 + 0.06),
                fontsize="small", arrowprops=dict(arrowstyle="-", color="0.4"))
    mid = (k + 1 - delta) / 2
    ax.annotate(r"slope $-e^{-\varepsilon}$", xy=(mid, np.exp(-eps) * (1 - delta - mid)),
                xytext=(mid + 0.02, np.exp(-eps) * (1 - delta - mid) + 0.12),
                fontsize="small", arrowprops=dict(arrowstyle="-", color="0.4"))
    legend(ax, loc="upper right")
    return ax


def gdp_family(mus: Sequence[float] = (0.5, 1.0, 2.0, 3.0), *,
               ax: Axes | None = None) -> Axes:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) for several μ: larger μ, less privacy.

    Dong, Roth & Su (2022), Def 2.7.

    Parameters
    ----------
    mus : sequence of float, optional
        The μ ≥ 0 to draw.

    Examples
    --------
    >>> from fdp.plotting import gdp_family, new_figure
    >>> fig, axes = new_figure()
    >>> ax = gdp_family((0.5, 1.0), ax=axes[0, 0])
    >>> [l.get_label() for l in ax.get_lines()][1:]
    ['$G_{0.5}$', '$G_{1}$']
    """
    ax = tradeoff_axes(get_axes(ax))
    for i, m in enumerate(mus):
        draw_tradeoff(ax, Gaussian(m), label=rf"$G_{{{m:g}}}$", color=color(i),
                      linestyle=linestyle(i))
    legend(ax, loc="upper right")
    return ax
