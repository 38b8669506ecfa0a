"""Zheng, Dong, Long, Su (2020), "Sharp Composition Bounds for Gaussian DP via Edgeworth
Expansion": the Laplace experiment.

Lap(0,1)^{⊗n} against Lap(3/√n,1)^{⊗n} for n = 1, 3, 5, 10: the exact composition, the
CLT G_{μ_f} and the degree-2 Edgeworth approximation. The authors' code prints
μ_f = (E_Q L − E_P L)/√Var_P L · √n = 2.7028840134114045, 2.671608112428377,
2.6890044854067687, 2.7292239889731054, and the paper's point is that the
Edgeworth curve is much closer to the truth than the CLT.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

import fdp
from fdp.plotting import draw_tradeoff, legend, tradeoff_axes
from fdp.repro import Check

from ._common import engine_tol, figure, have, missing, write

NAME = "zdls_edgeworth_laplace"
TITLE = "Zheng et al. (2020): Edgeworth vs CLT for composed Laplace"
SOURCE = "ZDLS 2020 code (expr_laplace)"
CAPTION = """Lap(0,1)^{⊗n} vs Lap(3/√n,1)^{⊗n} for n = 1, 3, 5, 10 (Zheng, Dong, Long & Su).
Top row: the exact trade-off function (n = 1 closed form; n > 1 the certified numeric
composition; solid black), the degree-2 Edgeworth approximation (vermilion, dash-dotted)
and the CLT G_{μ_f} (blue, dashed). From n = 5 on the three curves nearly coincide, so the
bottom row plots each approximation's error β_approx(α) − β_exact(α) (same line styles),
with the certified bracket's half-width shaded grey around zero: the Edgeworth error is
the smaller one in sup distance (largest near α = 0, where both approximations are least
reliable). Both approximations are approximations, not bounds. Checked:
the four μ_f printed by the authors' code (their values come from numerical quadrature
and differ from a 30-digit mpmath evaluation by up to 2e-8 relative, hence the 5e-8
tolerance; ours agrees with mpmath to 1e-12) and that Edgeworth is closer to the truth
than the CLT in sup distance."""

def _mu_f_mpmath(n: int) -> float:
    """μ_f by 30-digit quadrature: L = |x| − |x − m| under P = Lap(0,1), Q = Lap(m,1)."""
    mp.mp.dps = 30
    m = 3 / mp.sqrt(n)

    def loss(x):
        return abs(x) - abs(x - m)

    cuts = [-mp.inf, 0, m, mp.inf]
    e_p = mp.quad(lambda x: loss(x) * mp.e ** (-abs(x)) / 2, cuts)
    e_q = mp.quad(lambda x: loss(x) * mp.e ** (-abs(x - m)) / 2, cuts)
    var = mp.quad(lambda x: (loss(x) - e_p) ** 2 * mp.e ** (-abs(x)) / 2, cuts)
    return float((e_q - e_p) / mp.sqrt(var) * mp.sqrt(n))


PRINTED = {1: 2.7028840134114045, 3: 2.671608112428377, 5: 2.6890044854067687,
           10: 2.7292239889731054}


EDGEWORTH = dict(color="#D55E00", linestyle="-.", linewidth=1.8)
CLT = dict(color="#0072B2", linestyle="--", linewidth=1.6)


def run(out_dir, fast: bool = False):
    checks = []
    a = np.linspace(1e-7, 1 - 1e-7, 1001 if fast else 4001)
    fig, axes = figure(2, 4, size=3.7)
    engine = have("fdp.engine")
    for ax, ax_err, (n, printed) in zip(axes[:4], axes[4:], PRINTED.items()):
        parts = [fdp.Laplace(3.0 / np.sqrt(n))] * n
        ew = fdp.edgeworth(parts)
        mu_f = fdp.clt(parts).mu
        checks.append(Check.close(SOURCE, f"μ_f, n={n}", printed, mu_f, rtol=5e-8,
                                  note="authors' quadrature error"))
        checks.append(Check.close("mpmath (30 digits)", f"μ_f, n={n}", _mu_f_mpmath(n), mu_f,
                                  rtol=1e-12))
        tradeoff_axes(ax, title=rf"$n={n}$")
        truth: fdp.TradeOff | None = None
        if n == 1:
            truth = parts[0]
        elif engine:
            truth = fdp.compose(*parts, tol=engine_tol(fast))
        if truth is not None:
            draw_tradeoff(ax, truth, color="k", linewidth=2.4,
                          label="exact" if n == 1 else "certified composition")
            lo, hi = (np.asarray(v, dtype=float) for v in truth.bounds(a))
            mid = (lo + hi) / 2
            err_ew = np.asarray(ew(a)) - mid
            err_clt = fdp.Gaussian(mu_f)(a) - mid
            e_ew, e_clt = float(np.max(np.abs(err_ew))), float(np.max(np.abs(err_clt)))
            checks.append(Check.holds(SOURCE, f"Edgeworth closer than CLT, n={n}",
                                      "EW error < CLT error",
                                      f"sup err {e_ew:.4f} vs {e_clt:.4f}", e_ew < e_clt))
            _error_panel(ax_err, a, err_ew, err_clt, (hi - lo) / 2, n)
        else:
            checks.append(missing(SOURCE, f"numeric Lap^⊗{n}", "fdp.engine"))
            ax_err.set_axis_off()
        draw_tradeoff(ax, ew, label="Edgeworth (approx.)", alpha=a, **EDGEWORTH)
        draw_tradeoff(ax, fdp.Gaussian(mu_f), label=rf"CLT $G_{{{mu_f:.3f}}}$ (approx.)",
                      **CLT)
        legend(ax, loc="upper right")
    write(fig, out_dir, NAME)
    return checks


def _error_panel(ax, a, err_ew, err_clt, half_width, n: int):
    """β_approx − β_exact against α for both approximations, the bracket half-width grey."""
    ax.axhline(0.0, color="k", linewidth=1.0)
    # the bracket is narrower than a line here: its legend entry gives its half-width
    ax.fill_between(a, -half_width, half_width, color="0.75", linewidth=0,
                    label=(f"certified bracket (±{float(np.max(half_width)):.0e})"
                           if n > 1 else None))
    ax.plot(a, err_ew, label="Edgeworth − exact", **EDGEWORTH)
    ax.plot(a, err_clt, label="CLT − exact", **CLT)
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(r"type I error $\alpha$")
    ax.set_ylabel(r"$\beta_{\mathrm{approx}}-\beta_{\mathrm{exact}}$")
    ax.set_title(rf"$n={n}$: error of the approximations")
    ax.grid(True, color="0.9", linewidth=0.6)
    legend(ax, loc="lower right")
