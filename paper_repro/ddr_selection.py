"""Ten exponential-mechanism selections: composed as ε-DP vs as ε-bounded range.

The exponential mechanism with parameter ε is ε-DP, but it is also ε-bounded range,
whose worst case is a generalized randomized response (Dong, Durfee & Rogers 2020,
"Optimal differential privacy composition for exponential mechanisms", ICML). Its exact
trade-off curve BR_ε(α) = (1 − α)/(1 + (e^ε − 1)α) lies above f_{ε,0}, and the optimal
composition of k adaptively chosen selections is tighter than the ε-DP composition
(Kairouz, Oh & Viswanath 2015). Reference: ε = 1, k = 10, δ = 1e-6: ε-DP composition
10.0 (dp_accounting's PLD accountant), the RDP bounded-range accountant 8.83.
"""

from __future__ import annotations

import fdp
from fdp.plotting import draw_roc, draw_tradeoff, roc_axes, tradeoff_axes
from fdp.plotting.style import color
from fdp.repro import Check

from ._common import figure, write

NAME = "ddr_selection"
TITLE = "Exponential mechanism: ε-DP vs bounded-range composition"
SOURCE = "Dong, Durfee & Rogers 2020"
CAPTION = """Ten selections by the exponential mechanism with ε = 1. Left: trade-off curves
of one selection as ε-DP (f_{1,0}) and as 1-bounded range (BR_1, its exact worst case),
and of ten selections: ε-DP composed exactly (Kairouz, Oh & Viswanath), the bounded-range
curve composed by the certified engine (BR_1^{⊗10}, lower side, bracket shaded), and the
optimal adaptive composition of ten bounded-range selections (`fdp.compose_selections`,
lower side). Each curve keeps its colour in both panels. Right:
the same ten-fold curves as attack ROC curves on log–log axes. Checked at δ = 1e-6: ε-DP
composition gives ε ≈ 10 (dp_accounting's PLD value 10.0), and both bounded-range
compositions stay below the RDP bounded-range accountant's 8.83."""

EPS, K, DELTA = 1.0, 10, 1e-6


def run(out_dir, fast: bool = False):
    checks = []
    pure = fdp.EpsDelta(EPS) ** K
    e_pure = float(pure.epsilon(DELTA))
    checks.append(Check.rounds_to("dp_accounting PLD", "ε-DP composed (δ=1e-6)", "10.0",
                                  e_pure))
    br = fdp.BoundedRange(EPS) ** K
    b_lo, b_hi = (float(v) for v in br.epsilon_bounds(DELTA))
    checks.append(Check.holds("DDR 2020 (RDP BR: 8.83)", "BR^⊗10 ε (δ=1e-6)", "< 8.83",
                              f"[{b_lo:.4f}, {b_hi:.4f}]", b_hi < 8.83))
    opt = fdp.compose_selections(EPS, K)
    o_lo, o_hi = (float(v) for v in opt.epsilon_bounds(DELTA))
    checks.append(Check.holds("DDR 2020 (RDP BR: 8.83)", "optimal adaptive ε (δ=1e-6)",
                              "< 8.83, ≤ BR^⊗10", f"[{o_lo:.4f}, {o_hi:.4f}]",
                              o_hi < 8.83 and o_lo <= b_hi))
    fig, (ax, ax_roc) = figure(1, 2, size=4.6)
    tradeoff_axes(ax, title=r"exponential mechanism, $\varepsilon = 1$")
    roc_axes(ax_roc, title="ten selections: attack ROC (log–log)")
    one = [(r"one, $\varepsilon$-DP $f_{1,0}$", fdp.EpsDelta(EPS), ":"),
           (r"one, bounded range $BR_1$", fdp.BoundedRange(EPS), (0, (1, 1)))]
    ten = [(r"ten, $\varepsilon$-DP composed $f_{1,0}^{\otimes 10}$", pure, "--"),
           (r"ten, $BR_1^{\otimes 10}$", br, "-"),
           ("ten, optimal adaptive", opt, "-.")]
    # one colour per curve in both panels; certified curves as their safe side, shaded
    for i, (label, f, ls) in enumerate(one + ten):
        draw_tradeoff(ax, f, label=label, color=color(i), linestyle=ls, linewidth=1.6)
        if i >= len(one):
            draw_roc(ax_roc, f, label=label, color=color(i), linestyle=ls, linewidth=1.6)
    # one legend below both panels: beside one panel it would squeeze the two
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3,
               fontsize="small")
    write(fig, out_dir, NAME)
    return checks
