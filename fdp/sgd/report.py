"""A sampler-honest DP-SGD report: one training configuration, every batch sampler.

For n records, (expected) batch size B, E epochs, noise multiplier σ and a target δ,
``compare_samplers`` accounts the same run under Poisson sampling (q = B/n,
add/remove), sampling without replacement (replace-one: a different relation, not
directly comparable), random allocation (one of t = n/B steps per epoch, k = 1, whose
bracket brackets the true curve), truncated Poisson (batches capped) and shuffling,
for which NO upper bound better than "each record once per epoch" (G_{√E/σ}, a valid
guarantee) is known: that row's lower end is the certified LOWER bound of
``fdp.sgd.shuffle``, labelled so. Each row holds the ε bracket at δ, the GDP μ bracket
and the bracket of the best membership-inference attack's true-positive rate at a
false-positive rate (1 − f(FPR)); ``[row.as_dict() for row in rows]`` is what a pandas
DataFrame takes.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from fdp import _validate
from fdp._lazy import LazyModule
from fdp.families.gaussian import Gaussian
from fdp.sgd.allocation import random_allocation
from fdp.sgd.certified import dpsgd
from fdp.sgd.shuffle import shuffle_lower
from fdp.status import Status
from fdp.tradeoff import TradeOff

if TYPE_CHECKING:
    from matplotlib.figure import Figure

plotting = LazyModule("fdp.plotting")   # plot_samplers draws with matplotlib: loaded on first use

GUARANTEE = "certified bracket"
LOWER = "LOWER bound only (no upper bound known; upper end: no amplification)"
MISSING = "not available"

#: The truncated-Poisson accountant ``compare_samplers`` calls (σ, q, T, n, cap, tol).
TruncatedFn = Callable[[float, float, int, int, int, "float | None"], "TradeOff | None"]


@dataclass(frozen=True)
class SamplerRow:
    """One sampler's privacy for the configuration (NaN where not available).

    ``kind`` is "certified bracket" or the LOWER-bound label; the brackets are ε at δ,
    the GDP μ and the attack TPR at the FPR; ``note`` the configuration in words.

    Examples
    --------
    >>> import fdp
    >>> row = fdp.compare_samplers(10, 5, 1, 2.0, 1e-5, tol=1e-1)[0]
    >>> row.sampler, sorted(row.as_dict())[:3]
    ('Poisson', ['epsilon_lower', 'epsilon_upper', 'kind'])
    """

    sampler: str
    neighbouring: str
    kind: str
    epsilon_lower: float
    epsilon_upper: float
    mu_lower: float
    mu_upper: float
    tpr_lower: float
    tpr_upper: float
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _mu_bounds(f: TradeOff) -> tuple[float, float]:
    b = getattr(f, "_gdp_mu_bounds", None)
    if b is not None:
        lo, hi = b()
        return float(lo), float(hi)
    mu = float(f.gdp_mu())
    return mu, mu


def _row(name: str, neighbouring: str, f: TradeOff, delta: float, fpr: float,
         note: str = "") -> SamplerRow:
    e_lo, e_hi = (float(v) for v in f.epsilon_bounds(delta))
    m_lo, m_hi = _mu_bounds(f)
    b_lo, b_hi = (float(v) for v in f.bounds(fpr))
    return SamplerRow(name, neighbouring, GUARANTEE, e_lo, e_hi, m_lo, m_hi,
                      1.0 - b_hi, 1.0 - b_lo, note)


def _missing(name: str, neighbouring: str, why: str) -> SamplerRow:
    nan = math.nan
    return SamplerRow(name, neighbouring, MISSING, nan, nan, nan, nan, nan, nan, why)


def _truncated(sigma: float, q: float, steps: int, n: int, cap: int,
               tol: float | None) -> TradeOff | None:
    """fdp.dpsgd(..., sampling="truncated_poisson"): Poisson batches capped at ``cap``."""
    return dpsgd(sigma, q, steps, sampling="truncated_poisson", tol=tol,
                 dataset_size=n, batch_cap=cap)


def compare_samplers(dataset_size: int, batch_size: int, epochs: int, noise_multiplier: float,
                     delta: float, fpr: float = 0.01, max_batch_size: int | None = None,
                     tol: float | None = None, plot: str | os.PathLike[str] | None = None,
                     _truncated_fn: TruncatedFn | None = None) -> list[SamplerRow]:
    """ε, μ and attack-TPR brackets of one DP-SGD configuration under every sampler.

    Parameters
    ----------
    dataset_size, batch_size, epochs : int
        n ≥ 1, B ∈ [1, n] (q = B/n, t = round(n/B) steps per epoch, T = ⌈E·n/B⌉ in
        all), E ≥ 1 full epochs.
    noise_multiplier, delta
        σ > 0 and δ ∈ (0, 1).
    fpr : float
        False-positive rate for the attack read-out, in [0, 1) (default 1 %).
    max_batch_size, tol, plot
        Cap of truncated Poisson batches (default min(2B, n)); engine accuracy (default
        1e-4); a file to save the curves to (``plot_samplers``).

    Returns one ``SamplerRow`` per sampler, in the module docstring's order.

    Examples
    --------
    >>> import fdp
    >>> rows = fdp.compare_samplers(10, 5, 1, 2.0, 1e-5, tol=1e-1)
    >>> [r.sampler for r in rows][:3]
    ['Poisson', 'without replacement', 'random allocation']
    >>> all(r.epsilon_lower <= r.epsilon_upper for r in rows)
    True
    """
    n = _validate.positive_int("dataset_size", dataset_size)
    b = _validate.positive_int("batch_size", batch_size)
    if b > n:
        raise ValueError(f"batch_size must lie in [1, dataset_size={n}], got {b}")
    e = _validate.positive_int("epochs", epochs)
    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    fpr = _validate.real("fpr", fpr, low=0.0, high=1.0, high_open=True)
    cap = min(2 * b, n) if max_batch_size is None else \
        _validate.positive_int("max_batch_size", max_batch_size)
    if cap > n:
        raise ValueError(f"max_batch_size must lie in [1, dataset_size={n}], got {cap}")
    q = b / n
    t = max(1, round(n / b))
    steps = math.ceil(e * n / b - 1e-9)
    curves: dict[str, TradeOff] = {}
    rows: list[SamplerRow] = []
    f = dpsgd(sigma, q, steps, tol=tol)
    curves["Poisson"] = f
    rows.append(_row("Poisson", "add/remove", f, d, fpr, f"q={q:.4g}, T={steps}"))
    f = dpsgd(sigma, q, steps, sampling="without_replacement",
              neighbouring="replace_one", tol=tol)
    curves["without replacement"] = f
    rows.append(_row("without replacement", "replace-one", f, d, fpr,
                     f"batch {b}, T={steps}, sensitivity 2C (replace-one)"))
    f = random_allocation(sigma, t, 1, e, tol=tol)
    curves["random allocation"] = f
    row = _row("random allocation", "add/remove", f, d, fpr,
               f"one of t={t} steps per epoch, {e} epochs")
    # f ≥ G_{√E/σ} (revealing the chosen step is the full batch): a certified μ cap
    rows.append(replace(row, mu_upper=min(row.mu_upper, math.sqrt(e) / sigma)))
    trunc = (_truncated_fn or _truncated)(sigma, q, steps, n, cap, tol)
    if trunc is None:
        rows.append(_missing("truncated Poisson", "add/remove",
                             "fdp.dpsgd has no sampling='truncated_poisson' here"))
    else:
        curves["truncated Poisson"] = trunc
        rows.append(_row("truncated Poisson", "add/remove", trunc, d, fpr,
                         f"q={q:.4g}, cap {cap}, T={steps}"))
    low = shuffle_lower(sigma, t, e, tol=tol)
    full = Gaussian(math.sqrt(e) / sigma)
    curves["shuffle (LOWER bound)"] = low
    e_lo = float(low.epsilon_bounds(d)[0])
    m_lo = float(low.mu_lower())
    rows.append(SamplerRow(
        "shuffle", "add/remove", LOWER, e_lo, float(full.epsilon(d)), m_lo, full.mu,
        1.0 - float(low(fpr)), 1.0 - float(full(fpr)),
        f"t={t} batches per epoch; lower: certified attack instance, upper: "
        f"Gaussian(sqrt(E)/sigma) (each record once per epoch)"))
    if plot is not None:
        plot_samplers(curves, plot, title=f"n={n}, B={b}, E={e}, σ={sigma:g}")
    return rows


def format_table(rows: Sequence[SamplerRow], delta: float | None = None,
                 fpr: float = 0.01) -> str:
    """The rows as a fixed-width text table (the CLI's output)."""
    eps_head = "epsilon" + (f" (δ={delta:g})" if delta else "")
    head = (f"{'sampler':<20} {'neighbours':<11} {eps_head:<22}"
            f" {'mu':<17} {f'TPR at FPR={100 * fpr:g}%':<17} kind")
    lines = [head, "-" * len(head)]

    def br(lo: float, hi: float, w: int) -> str:
        if math.isnan(lo):
            return "n/a".ljust(w)
        hi_txt = "inf" if math.isinf(hi) else f"{hi:.4f}"
        return f"[{lo:.4f}, {hi_txt}]".ljust(w)
    for r in rows:
        lines.append(f"{r.sampler:<20} {r.neighbouring:<11} "
                     f"{br(r.epsilon_lower, r.epsilon_upper, 22)} "
                     f"{br(r.mu_lower, r.mu_upper, 17)} {br(r.tpr_lower, r.tpr_upper, 17)} "
                     f"{r.kind}")
        if r.note:
            lines.append(f"{'':<20} {r.note}")
    lines.append("mu: smallest mu with f >= G_mu over ALL alpha; subsampled curves have heavy "
                 "tails near alpha = 0 (a rare batch holding the record), which set this mu, so "
                 "it can be orders of magnitude above the CLT mu and exceed the "
                 "no-amplification value while epsilon is far smaller. Read the epsilon "
                 "bracket or the TPR column instead; the CLT mu (fdp.dpsgd_clt_mu) describes "
                 "the bulk of the curve but is an approximation, not a bound.")
    if any(r.kind == LOWER for r in rows):
        lines.append("shuffle: the lower end is a LOWER bound (the truth is at least this "
                     "leaky), NOT a guarantee; no amplification-based guarantee is known.")
    return "\n".join(lines)


#: The neighbouring relation each sampler is accounted under by ``compare_samplers`` and
#: ``fdp dpsgd``: sampling without replacement for replace-one neighbours (sensitivity
#: 2C, Dong, Roth & Su 2022, Thm 4.2), every other sampler for add/remove.
REPLACE_ONE_SAMPLERS = ("without replacement", "without_replacement")


def plot_samplers(curves: dict[str, TradeOff], path: str | os.PathLike[str], title: str = "",
                  relations: dict[str, str] | None = None) -> Figure:
    """Save the samplers' trade-off curves, drawn as every fdp figure is.

    A certified curve is drawn as its lower (safe) side with its certified band
    (``fdp.plotting.draw_tradeoff``), each sampler in its own colour and line style; a
    LOWER bound (an object whose ``status`` is ``Status.LOWER_BOUND``, e.g. the shuffle curve:
    the truth lies below it) is drawn dashed without a band and labelled as not a
    guarantee. Every label names the neighbouring relation its curve is accounted
    under, and when the relations differ the legend says that those curves are not
    directly comparable.

    ``curves`` maps sampler names to trade-off functions in legend order; ``path`` is
    the output file (format from its suffix); ``relations`` maps names to neighbouring
    relations (default "replace-one" for ``REPLACE_ONE_SAMPLERS``, else "add/remove").
    Returns the figure saved.

    Examples
    --------
    >>> import os, tempfile
    >>> import fdp
    >>> from fdp.sgd.report import plot_samplers
    >>> path = os.path.join(tempfile.mkdtemp(), "samplers.png")
    >>> fig = plot_samplers({"Poisson": fdp.dpsgd(1.0, 0.01, 10, tol=1e-2)}, path)
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()][1]
    'Poisson, add/remove (lower side)'
    """
    fig, axes = plotting.new_figure(1, 1, size=5.0)
    ax = plotting.tradeoff_axes(axes[0, 0], title=title or None)
    a = plotting.style.alpha_grid()
    styles = ("-", "-.", ":", (0, (6, 1.5, 1, 1.5, 1, 1.5)))     # dashed: lower bounds
    used: list[str] = []
    for i, (name, f) in enumerate(curves.items()):
        relation = (relations or {}).get(name) or \
            ("replace-one" if name in REPLACE_ONE_SAMPLERS else "add/remove")
        used.append(relation)
        if f.status is Status.LOWER_BOUND:
            ax.plot(a, f(a), color=plotting.color(i), linestyle="--", linewidth=1.6, zorder=4,
                    label=f"{name}, {relation}: not a guarantee")
        else:
            plotting.draw_tradeoff(ax, f, label=f"{name}, {relation}",
                                   color=plotting.color(i), linestyle=styles[i % len(styles)])
    title_note = None
    if len(set(used)) > 1:
        title_note = ("neighbouring relations differ: curves of\n"
                      + " and ".join(sorted(set(used))) + " are not comparable")
    plotting.legend(ax, outside=True, title=title_note, title_fontsize="small")
    plotting.save(fig, path)
    return fig
