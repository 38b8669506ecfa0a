"""Figures of the operations: (ε, δ) conversions, group privacy, composition and the
CLT, subsampling, DP-SGD accounting.

Every helper takes ``ax=None`` and returns the Axes. Numeric (certified) results are
drawn as bands between their lower and upper bounds; approximations (CLT, Edgeworth)
are drawn dashed and labelled as approximations, never as guarantees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray
from fdp.conversions.gdp import gdp_delta, gdp_epsilon
from fdp.families import EpsDelta, Gaussian, Laplace
from fdp.operations.subsample import SAMPLINGS, PoissonAdd
from fdp.plotting._draw import draw_tradeoff, latex_label
from fdp.plotting.style import (
    alpha_grid,
    color,
    get_axes,
    legend,
    linestyle,
    tradeoff_axes,
    zoom_inset,
)
from fdp.status import Status
from fdp.tradeoff import TradeOff

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D

#: The neighbouring relation each sampler of ``f.subsample`` is accounted for (DRS
#: Thm 4.2: without replacement, replace-one; Poisson, add/remove), named in the legend.
SAMPLING_RELATIONS = {
    "poisson": "Poisson sampling, add/remove neighbours",
    "without_replacement": "without replacement, replace-one neighbours",
}


def _masked(v: ArrayLike, floor: float) -> FloatArray:
    """Values below the display floor are not drawn (a log axis cannot show 0)."""
    v = np.asarray(v, dtype=float)
    return np.where(v >= floor, v, np.nan)


def _delta_sides(f: TradeOff, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(lower, upper) privacy profile: equal for exact f, a certified bracket otherwise."""
    upper = np.asarray(f.delta(eps), dtype=float)
    lower = np.asarray(f._delta_lower(np.asarray(eps, dtype=float)), dtype=float) \
        if not f.is_exact else upper
    return lower, upper


def privacy_profile(*fs: TradeOff, labels: Sequence[str] | None = None,
                    eps: ArrayLike | None = None, ax: Axes | None = None, logy: bool = True,
                    floor: float = 1e-12) -> Axes:
    """Privacy profiles δ(ε) = sup_α (1 − f(α) − e^ε α) of trade-off functions.

    The profile is the (ε, δ) reading of f (Dong, Roth & Su 2022, Prop 2.12). A
    certified numeric f is drawn as the band between its lower and upper δ(ε).

    Parameters
    ----------
    *fs : TradeOff
        The functions.
    labels : sequence of str or None, optional
        One label per function; default their LaTeX names.
    eps : array_like or None, optional
        The ε axis; default 201 points on [0, 10].
    logy : bool, optional
        Logarithmic δ axis (default True).
    floor : float, optional
        Smallest δ drawn on the log axis (default 1e-12).

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import new_figure, privacy_profile
    >>> fig, axes = new_figure()
    >>> ax = privacy_profile(fdp.Gaussian(1.0), fdp.Laplace(1.0), ax=axes[0, 0])
    >>> ax.get_yscale()
    'log'
    """
    ax = get_axes(ax)
    e = np.linspace(0.0, 10.0, 201) if eps is None else _validate.reals("eps", eps)
    for i, f in enumerate(fs):
        name = labels[i] if labels is not None else latex_label(f)
        lo, hi = _delta_sides(f, e)
        if f.is_exact:
            ax.plot(e, _masked(hi, floor) if logy else hi, color=color(i),
                    linestyle=linestyle(i), label=name)
        else:
            ax.plot(e, _masked(hi, floor) if logy else hi, color=color(i),
                    linestyle=linestyle(i), label=f"{name} (certified upper)")
            ax.fill_between(e, np.maximum(lo, floor) if logy else lo,
                            np.maximum(hi, floor) if logy else hi, color=color(i), alpha=0.25,
                            linewidth=0)
    _profile_axes(ax, floor if logy else None)
    legend(ax)
    return ax


def _profile_axes(ax: Axes, floor: float | None) -> None:
    """Label δ(ε) axes; a log δ axis down to ``floor`` unless it is None."""
    if floor is not None:
        ax.set_yscale("log")
        ax.set_ylim(bottom=floor)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    ax.grid(True, color="0.9", linewidth=0.6)


def gdp_conversion(mu: float = 1.0, deltas: Sequence[float] = (1e-1, 1e-2, 1e-3, 1e-5), *,
                   ax: Axes | None = None, zoom: float | None = None) -> Axes:
    """μ-GDP and the (ε, δ)-DP guarantees it implies (Dong, Roth & Su 2022, Cor 2.13).

    G_μ is the upper envelope of the f_{ε(δ),δ} it implies; drawn are G_μ and
    f_{ε,δ} for ε = ε_μ(δ) at each δ.

    Parameters
    ----------
    mu : float, optional
        μ > 0 (default 1).
    deltas : sequence of float, optional
        The δ at which the implied f_{ε,δ} are drawn.
    zoom : float or None, optional
        If given, an inset magnifies [0, zoom]², where the f_{ε,δ} of small δ (large ε)
        have their kink and would otherwise hug the axes.

    Examples
    --------
    >>> from fdp.plotting import gdp_conversion, new_figure
    >>> fig, axes = new_figure()
    >>> ax = gdp_conversion(1.0, deltas=(1e-2, 1e-5), ax=axes[0, 0], zoom=0.1)
    >>> len(ax.child_axes)
    1
    """
    mu = _validate.real("mu", mu, low=0.0, low_open=True)
    ax = tradeoff_axes(get_axes(ax))
    targets = [ax]
    if zoom is not None:
        z = _validate.real("zoom", zoom, low=0.0, low_open=True, high=1.0)
        targets.append(zoom_inset(ax, (0.0, z), (0.0, z)))
    for target in targets:
        main = target is ax
        draw_tradeoff(target, Gaussian(mu), label=rf"$G_{{{mu:g}}}$" if main else "_",
                      color="k", linewidth=2.2)
        for i, d in enumerate(deltas):
            e = float(gdp_epsilon(mu, d))
            draw_tradeoff(target, EpsDelta(e, d), color=color(i), linestyle=linestyle(i + 1),
                          linewidth=1.3,
                          label=rf"$f_{{\varepsilon,\delta}}$: $\delta={d:g}$, "
                                rf"$\varepsilon={e:.3f}$" if main else "_")
    legend(ax, loc="upper right")
    return ax


def group_privacy(f: TradeOff, ks: Sequence[int] = (1, 2, 4, 8), *, ax: Axes | None = None,
                  name: str | None = None) -> Axes:
    """Group privacy: f-DP implies [1 − (1 − f)^{∘k}]-DP for groups of size k.

    Dong, Roth & Su (2022), Thm 2.14; each curve is ``f.group(k)``.

    Parameters
    ----------
    f : TradeOff
        The guarantee for one individual.
    ks : sequence of int, optional
        Group sizes to draw.
    name : str or None, optional
        LaTeX name of f in the labels; default ``f.latex()``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import group_privacy, new_figure
    >>> fig, axes = new_figure()
    >>> ax = group_privacy(fdp.Gaussian(0.5), ks=(1, 2, 4), ax=axes[0, 0])
    >>> sum(l.get_label().startswith("$k=") for l in ax.get_lines())
    2
    """
    ax = tradeoff_axes(get_axes(ax))
    base = name or f.latex()
    for i, k in enumerate(ks):
        draw_tradeoff(ax, f.group(k), color=color(i), linestyle=linestyle(i),
                      label=rf"$k={k}$: $1-(1-{base})^{{\circ {k}}}$" if k > 1 else f"${base}$")
    legend(ax, loc="upper right")
    return ax


def laplace_limit(mu: float = 1.0, ks: Sequence[int] = (1, 2, 5, 10), *,
                  ax: Axes | None = None) -> Axes:
    """Groups of size k under (μ/k, 0)-DP approach the Laplace curve L_μ as k grows.

    1 − (1 − f_{μ/k,0})^{∘k} → L_μ (Dong, Roth & Su 2022, §2.5, Prop 2.15). The limit is
    drawn thick and grey underneath, one line style per k, so that the members stay
    apart where they meet the limit.

    Parameters
    ----------
    mu : float, optional
        The group's total ε budget μ (default 1).
    ks : sequence of int, optional
        Group sizes to draw.

    Examples
    --------
    >>> from fdp.plotting import laplace_limit, new_figure
    >>> fig, axes = new_figure()
    >>> ax = laplace_limit(1.0, ks=(1, 5), ax=axes[0, 0])
    >>> any("Laplace" in l.get_label() for l in ax.get_lines())
    True
    """
    ax = tradeoff_axes(get_axes(ax))
    for i, k in enumerate(ks):
        draw_tradeoff(ax, EpsDelta(mu / k).group(k), color=color(i), linewidth=1.4,
                      linestyle=linestyle(i),
                      label=(rf"$k={k}$: $1-(1-f_{{{mu:g}/{k},0}})^{{\circ {k}}}$" if k > 1
                             else rf"$k=1$: $f_{{{mu:g},0}}$"))
    draw_tradeoff(ax, Laplace(mu), color="0.55", linewidth=5.0, zorder=2,
                  label=rf"limit $L_{{{mu:g}}}$ (Laplace)")
    legend(ax, loc="upper right")
    return ax


def clt_band(composed: TradeOff, mu: float, gamma: float | None = None, *,
             ax: Axes | None = None, label: str | None = None, i: int = 0) -> Axes:
    """A composition next to its CLT limit G_μ and, optionally, the Berry–Esseen band.

    G_μ is the central-limit approximation (Dong, Roth & Su 2022, Thm 3.5), not a bound;
    with γ given, the band G_μ(α + γ) − γ ≤ f(α) ≤ G_μ(α − γ) + γ on [γ, 1 − γ]
    (Thm 3.4) is a bound. Every trade-off function also satisfies f(α) ≤ 1 − α, so the
    band is drawn clipped to the trade-off region β ≤ 1 − α. The composition is drawn
    solid in colour ``i``, the CLT curve dashed in the next colour and on top (so it shows
    where the two coincide), the band in grey.

    Parameters
    ----------
    composed : TradeOff
        The composition f_1 ⊗ … ⊗ f_n.
    mu : float
        μ of the CLT limit (``fdp.clt`` computes it).
    gamma : float or None, optional
        Berry–Esseen γ; no band when None or γ ≥ 1/2.
    label : str or None, optional
        Label of the composition (default "composition").
    i : int, optional
        Colour index of the composition (the CLT curve takes ``i + 1``).

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import clt_band, new_figure
    >>> fig, axes = new_figure()
    >>> composed = fdp.compose(*[fdp.Laplace(0.5)] * 3)
    >>> ax = clt_band(composed, mu=0.85, gamma=0.2, ax=axes[0, 0])
    >>> any("Berry" in str(c.get_label()) for c in ax.collections)
    True
    """
    ax = tradeoff_axes(get_axes(ax))
    draw_tradeoff(ax, composed, label="composition" if label is None else label,
                  color=color(i), zorder=4)
    draw_tradeoff(ax, Gaussian(mu), color=color(i + 1), linestyle="--", linewidth=1.5,
                  label=rf"CLT $G_{{{mu:.3f}}}$ (approximation)", zorder=5)
    if gamma is not None and gamma < 0.5:
        g = Gaussian(mu)
        a = alpha_grid()
        a = a[(a >= gamma) & (a <= 1.0 - gamma)]
        ceiling = 1.0 - a                      # the trade-off region: β ≤ 1 − α
        lo = np.clip(g(np.minimum(a + gamma, 1.0)) - gamma, 0.0, ceiling)
        hi = np.clip(g(np.maximum(a - gamma, 0.0)) + gamma, 0.0, ceiling)
        ax.fill_between(a, lo, hi, color="0.5", alpha=0.18, linewidth=0, zorder=2,
                        label=rf"Berry–Esseen band, $\gamma={gamma:.3f}$")
    legend(ax, loc="upper right")
    return ax


def subsampling(f: TradeOff, ps: Sequence[float] = (0.1, 0.3, 0.6, 1.0), *,
                ax: Axes | None = None, sampling: str = "poisson",
                show_parts: float | None = None) -> Axes:
    """Subsampled guarantees C_p(f) = min{f_p, f_p⁻¹}** for several p.

    f_p = p f + (1 − p) Id (Dong, Roth & Su 2022, Thm 4.2); each curve is
    ``f.subsample(p, sampling=sampling)``.

    Parameters
    ----------
    f : TradeOff
        The guarantee of the mechanism run on the subsample.
    ps : sequence of float, optional
        Sampling probabilities.
    sampling : {"poisson", "without_replacement"}, optional
        Passed to ``f.subsample``, with its default "poisson" (add/remove neighbours);
        "without_replacement" for C_p of DRS Thm 4.2 (replace-one neighbours). The
        legend's title names the sampler and its neighbouring relation.
    show_parts : float or None, optional
        Also draw f_p and f_p⁻¹ dotted for this p, to show the symmetrisation C_p
        performs.

    Raises
    ------
    ValueError
        If ``sampling`` is not a sampler of ``f.subsample``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import new_figure, subsampling
    >>> fig, axes = new_figure()
    >>> ax = subsampling(fdp.Gaussian(2.0), ps=(0.2, 1.0), ax=axes[0, 0])
    >>> len(ax.get_lines()) >= 3
    True
    >>> ax.get_legend().get_title().get_text()
    'Poisson sampling, add/remove neighbours'
    """
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}")
    ax = tradeoff_axes(get_axes(ax))
    for i, p in enumerate(ps):
        draw_tradeoff(ax, f.subsample(p, sampling=sampling), color=color(i), linestyle=linestyle(i),
                      label=rf"$C_{{{p:g}}}({f.latex()})$")
    if show_parts is not None:
        # dashed, not dotted: the dotted grey line is Id(α) = 1 − α
        fp = PoissonAdd(f, show_parts)
        draw_tradeoff(ax, fp, color="0.3", linestyle=(0, (4, 2)), linewidth=1.2,
                      label=rf"$f_p=pf+(1-p)\,\mathrm{{Id}}$, $p={show_parts:g}$")
        draw_tradeoff(ax, fp.inverse(), color="0.3", linestyle="-.", linewidth=1.2,
                      label=r"$f_p^{-1}$")
    legend(ax, loc="upper right", title=SAMPLING_RELATIONS.get(sampling),
           title_fontsize="x-small")
    return ax


def dpsgd_comparison(certified: TradeOff | None = None, clt_mu: float | None = None,
                     rdp_eps: float | None = None, delta: float | None = None, *,
                     ax: Axes | None = None, title: str | None = None) -> Axes:
    """DP-SGD trade-off curves: certified bracket, CLT and moments accountant.

    The certified numeric bracket is a guarantee; the CLT G_μ (Bu, Dong, Long & Su
    2020) is an approximation that may under-report (Gopi, Lee & Wutschitz 2021); the
    moments-accountant (ε, δ) drawn as f_{ε,δ} is a valid but loose bound.

    Parameters
    ----------
    certified : TradeOff or None, optional
        The certified result (``fdp.dpsgd``).
    clt_mu : float or None, optional
        μ of the CLT approximation (``fdp.dpsgd_clt_mu``).
    rdp_eps, delta : float or None, optional
        The moments-accountant ε at δ (both needed to draw f_{ε,δ}).
    title : str or None, optional
        Axes title.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import dpsgd_comparison, new_figure
    >>> fig, axes = new_figure()
    >>> cert = fdp.dpsgd(1.0, 0.01, 10, tol=1e-2)
    >>> mu = fdp.dpsgd_clt_mu(1.0, 0.01, 10)
    >>> ax = dpsgd_comparison(cert, mu, rdp_eps=1.0, delta=1e-5, ax=axes[0, 0])
    >>> ax.get_legend() is not None
    True
    """
    ax = tradeoff_axes(get_axes(ax), title=title)
    _accountant_curves(ax, draw_tradeoff, certified, clt_mu, rdp_eps, delta)
    legend(ax, loc="upper right")
    return ax


def _accountant_curves(ax: Axes, draw: Callable[..., object], certified: TradeOff | None,
                       clt_mu: float | None, rdp_eps: float | None, delta: float | None,
                       **kw: float) -> None:
    """The certified curve, the CLT G_μ and the moments accountant's f_{ε,δ}, each when
    given, drawn by ``draw`` (``draw_tradeoff`` or ``draw_roc``) in one style."""
    if certified is not None:
        draw(ax, certified, label="certified f-DP", color=color(0), **kw)
    if clt_mu is not None:
        draw(ax, Gaussian(clt_mu), color=color(1), linestyle="--",
             label=rf"CLT $G_{{{clt_mu:.3f}}}$ (approximation)", **kw)
    if rdp_eps is not None and delta is not None:
        draw(ax, EpsDelta(rdp_eps, delta), color=color(2), linestyle=":", linewidth=1.6,
             label=rf"RDP/MA $f_{{{rdp_eps:.2f},{delta:g}}}$", **kw)


def roc_axes(ax: Axes, *, alpha_min: float = 1e-8, title: str | None = None) -> Axes:
    """Log–log axes of the attacker's true-positive rate 1 − β against α.

    In the small-α corner trade-off curves hug the axes of a linear plot (and a CLT
    approximation can claim more privacy than holds there); on these axes it spreads
    out.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes to set up.
    alpha_min : float, optional
        Smallest false-positive rate shown (default 1e-8).
    title : str or None, optional
        Axes title.

    Examples
    --------
    >>> from fdp.plotting import new_figure, roc_axes
    >>> fig, axes = new_figure()
    >>> ax = roc_axes(axes[0, 0], alpha_min=1e-6)
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    """
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(alpha_min, 1.0)
    ax.set_ylim(alpha_min, 1.0)
    ax.set_aspect("equal", adjustable="box")
    ax.plot([alpha_min, 1.0], [alpha_min, 1.0], color="0.6", linestyle=":", linewidth=1.0,
            label=r"$\mathrm{TPR}=\alpha$ (perfect privacy)", zorder=1)
    ax.set_xlabel(r"false-positive rate $\alpha$ (log)")
    ax.set_ylabel(r"true-positive rate $1-\beta$ (log)")
    ax.grid(True, color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title)
    return ax


def draw_roc(ax: Axes, f: TradeOff, *, label: str | None = None, color: str | None = None,
             linestyle: str | tuple = "-", linewidth: float = 1.8,
             alpha_min: float = 1e-8, band_alpha: float = 0.3, zorder: float = 3) -> Line2D:
    """Draw the ROC curve 1 − f(α) of a trade-off function on ``roc_axes``.

    A line for an exact or approximate f; for a certified numeric f, the band between
    1 − upper and 1 − lower side, with the safe side (1 − lower) as the line.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes prepared with ``roc_axes``.
    f : TradeOff
        The function to draw.
    label : str or None, optional
        Legend label; default ``latex_label(f)``.
    color, linestyle, linewidth, zorder : optional
        Matplotlib line properties.
    alpha_min : float, optional
        Smallest α evaluated (default 1e-8).
    band_alpha : float, optional
        Opacity of the certified band.

    Returns
    -------
    matplotlib.lines.Line2D
        The line drawn.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import draw_roc, new_figure, roc_axes
    >>> fig, axes = new_figure()
    >>> line = draw_roc(roc_axes(axes[0, 0]), fdp.Gaussian(1.0))
    >>> line.get_label()
    '$G_{1}$'
    """
    a = np.logspace(np.log10(alpha_min), 0.0, 400)
    label = latex_label(f) if label is None else label
    if f.status is not Status.CERTIFIED:
        line, = ax.plot(a, 1.0 - np.asarray(f(a)), color=color, linestyle=linestyle,
                        linewidth=linewidth, label=label, zorder=zorder)
        return line
    lo, hi = (np.asarray(v, dtype=float) for v in f.bounds(a))
    line, = ax.plot(a, 1.0 - lo, color=color, linestyle=linestyle, linewidth=linewidth,
                    label=f"{label} (safe side)", zorder=zorder)
    ax.fill_between(a, 1.0 - hi, 1.0 - lo, color=line.get_color(), alpha=band_alpha,
                    linewidth=0, zorder=zorder - 1)
    return line


def dpsgd_roc(certified: TradeOff | None = None, clt_mu: float | None = None,
              rdp_eps: float | None = None, delta: float | None = None, *,
              ax: Axes | None = None, title: str | None = None,
              alpha_min: float = 1e-8) -> Axes:
    """The curves of ``dpsgd_comparison`` as attack ROC curves on log–log axes.

    TPR = 1 − β against FPR = α. Where the CLT's TPR falls below the certified band it
    claims more privacy than the mechanism has (it under-reports ε); the moments
    accountant's f_{ε,δ} (TPR = min{1, δ + e^ε α, …}) lies above the band.

    Parameters
    ----------
    certified, clt_mu, rdp_eps, delta, title
        As in ``dpsgd_comparison``.
    alpha_min : float, optional
        Smallest false-positive rate shown (default 1e-8).

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import dpsgd_roc, new_figure
    >>> fig, axes = new_figure()
    >>> ax = dpsgd_roc(fdp.dpsgd(1.0, 0.01, 10, tol=1e-2), 0.04, ax=axes[0, 0])
    >>> ax.get_xscale()
    'log'
    """
    ax = roc_axes(get_axes(ax), alpha_min=alpha_min, title=title)
    _accountant_curves(ax, draw_roc, certified, clt_mu, rdp_eps, delta, alpha_min=alpha_min)
    legend(ax, loc="lower right")
    return ax


def dpsgd_profile(certified: TradeOff | None = None, clt_mu: float | None = None, *,
                  eps: ArrayLike | None = None, ax: Axes | None = None,
                  title: str | None = None, floor: float = 1e-12,
                  delta: float | None = None) -> Axes:
    """DP-SGD privacy profiles δ(ε) on a log scale, where the CLT's under-reporting shows.

    Drawn are the certified bracket (band, upper side as the line) and the CLT's
    δ_{G_μ}(ε) (dashed), with an optional horizontal line at the target δ.

    Parameters
    ----------
    certified, clt_mu
        As in ``dpsgd_comparison``.
    eps : array_like or None, optional
        The ε axis; default 121 points on [0, 12].
    title : str or None, optional
        Axes title.
    floor : float, optional
        Smallest δ drawn (default 1e-12).
    delta : float or None, optional
        Target δ to mark.

    Examples
    --------
    >>> import fdp
    >>> from fdp.plotting import dpsgd_profile, new_figure
    >>> fig, axes = new_figure()
    >>> ax = dpsgd_profile(fdp.dpsgd(1.0, 0.01, 10, tol=1e-2), 0.04, delta=1e-5, ax=axes[0, 0])
    >>> ax.get_yscale()
    'log'
    """
    ax = get_axes(ax)
    e = np.linspace(0.0, 12.0, 121) if eps is None else _validate.reals("eps", eps)
    if certified is not None:
        lo, hi = _delta_sides(certified, e)
        ax.plot(e, _masked(hi, floor), color=color(0), label="certified δ(ε) (upper side)")
        ax.fill_between(e, np.maximum(lo, floor), np.maximum(hi, floor), color=color(0),
                        alpha=0.3, linewidth=0, label="certified bracket")
    if clt_mu is not None:
        ax.plot(e, _masked(gdp_delta(clt_mu, e), floor), color=color(1),
                linestyle="--", label=rf"CLT $G_{{{clt_mu:.3f}}}$ (approximation)")
    if delta is not None:
        ax.axhline(delta, color="0.4", linestyle=":", linewidth=1.0,
                   label=rf"target $\delta={delta:g}$")
    _profile_axes(ax, floor)
    if title:
        ax.set_title(title)
    legend(ax, loc="upper right")          # δ(ε) falls from the upper left
    return ax
