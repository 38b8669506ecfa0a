"""Dong–Roth–Su §3, composition and the central limit theorem, recomputed.

* Exact n-fold f_{ε,0}^{⊗n} (Kairouz–Oh–Viswanath): n = 10, ε = 0.5 gives δ(4) =
  5.519627e-3 (KOV Thm 3.3; DRS §3.1).
* Berry–Esseen (DRS Thm 3.4): for that composition μ = 1.5976 and γ = 0.1936, and the
  composition lies in the band G_μ(α + γ) − γ ≤ f ≤ G_μ(α − γ) + γ on [γ, 1 − γ].
* CLT (DRS Thm 3.5): f_{1/√n,0}^{⊗n} → G_1 and L_{1/√n}^{⊗n} → G_μ as n grows.
"""

from __future__ import annotations

import numpy as np

import fdp
from fdp.plotting import clt_band, draw_tradeoff, legend, tradeoff_axes
from fdp.plotting.style import color, linestyle, zoom_inset
from fdp.repro import Check

from ._common import engine_tol, figure, have, missing, sup_distance, write

NAME = "drs_composition_clt"
TITLE = "DRS §3 (recomputed): composition, the CLT and the Berry–Esseen band"
SOURCE = "DRS §3.1–3.2; KOV Thm 3.3"
CAPTION = """Recomputed from the formulas of Dong, Roth & Su. Left: the exact 10-fold
composition of f_{0.5,0} (Kairouz–Oh–Viswanath), its CLT approximation G_1.5976 (dashed)
and the Berry–Esseen band of width γ = 0.1936 (shaded), which the composition respects.
Middle: f_{1/√n,0}^{⊗n} for n = 1, 4, 16, 64 (one line style each) approaching G_1 (thick
grey); the inset magnifies α ∈ [0.12, 0.32], where the larger n nearly coincide with the
limit. Right: the n-fold Laplace L_{1/√n}^{⊗n} for n = 1, 4, 16, composed by the numeric
engine (certified band), each with its CLT limit G_μ (dotted, same colour); inset as in
the middle panel. Checked: δ(4) = 5.519627e-3, μ and γ as printed, the band
statement, and that the distance to the CLT limit shrinks with n."""


def _power_label(name: str, n: int, tail: str = "") -> str:
    r"""``name_{1/√n}^{⊗n}`` with 1/√n written out (n = 1, 4, 16, 64: 1, 1/2, 1/4, 1/8) and
    no ⊗1 power: $f_{1,0}$, $f_{1/2,0}^{\otimes 4}$, $L_{1/4}^{\otimes 16}$."""
    root = round(np.sqrt(n))
    scale = "1" if root == 1 else rf"1/{root}" if root * root == n else rf"1/\sqrt{{{n}}}"
    power = "" if n == 1 else rf"^{{\otimes {n}}}"
    return rf"${name}_{{{scale}{tail}}}{power}$"


def run(out_dir, fast: bool = False):
    checks = []
    f10 = fdp.EpsDelta(0.5) ** 10
    checks.append(Check.close(SOURCE, "δ(ε=4) of f_{0.5,0}^{⊗10}", 5.519627e-3,
                              f10.delta(4.0), atol=5e-10, note="printed to 7 digits"))
    r = fdp.clt([fdp.EpsDelta(0.5)] * 10)
    checks.append(Check.rounds_to(SOURCE, "Berry–Esseen μ, n=10, ε=0.5", "1.5976", r.mu,
                                  mode="truncate", note="1.59766 printed cut to 4 dp"))
    checks.append(Check.rounds_to(SOURCE, "Berry–Esseen γ, n=10, ε=0.5", "0.1936", r.gamma))
    g = fdp.Gaussian(r.mu)
    a = np.linspace(r.gamma, 1 - r.gamma, 2001)
    inside = bool(np.all((f10(a) >= g(np.minimum(a + r.gamma, 1)) - r.gamma - 1e-12)
                         & (f10(a) <= g(np.maximum(a - r.gamma, 0)) + r.gamma + 1e-12)))
    checks.append(Check.holds(SOURCE, "f^{⊗10} inside the Berry–Esseen band",
                              "inside (Thm 3.4)", "inside" if inside else "outside", inside))
    ns = (1, 4, 16, 64)
    dists = [sup_distance(fdp.EpsDelta(1 / np.sqrt(n)) ** n, fdp.Gaussian(1.0)) for n in ns]
    shrinking = bool(np.all(np.diff(dists) < 0))
    checks.append(Check.holds(SOURCE, "sup|f_{1/√n,0}^{⊗n} − G_1| decreases",
                              "→ 0 (Thm 3.5)", ", ".join(f"{d:.3f}" for d in dists), shrinking))

    fig, axes = figure(1, 3, size=4.4)
    clt_band(f10, r.mu, r.gamma, ax=axes[0], label=r"$f_{0.5,0}^{\otimes 10}$ (exact)")
    axes[0].set_title("10-fold $f_{0.5,0}$: CLT and Berry–Esseen")
    ax = tradeoff_axes(axes[1])
    zoom = zoom_inset(ax, (0.12, 0.32), (0.3, 0.55))
    for target in (ax, zoom):
        draw_tradeoff(target, fdp.Gaussian(1.0), color="0.55", linewidth=5.0, zorder=2,
                      label=r"$G_1$ (limit)" if target is ax else None)
        for i, n in enumerate(ns):
            draw_tradeoff(target, fdp.EpsDelta(1 / np.sqrt(n)) ** n, color=color(i),
                          linestyle=linestyle(i), linewidth=1.5,
                          label=_power_label("f", n, ",0") if target is ax else "_")
    legend(ax, loc="upper right")
    ax.set_title(r"$f_{1/\sqrt{n},0}^{\otimes n}\to G_1$ (recomputed)")

    ax = tradeoff_axes(axes[2])
    ax.set_title(r"$L_{1/\sqrt{n}}^{\otimes n}\to G_\mu$ (recomputed)")
    if have("fdp.engine"):
        lap_n = (1, 4, 16)
        lap_d = []
        zoom = zoom_inset(ax, (0.12, 0.32), (0.25, 0.45), bounds=(0.52, 0.2, 0.45, 0.3))
        for i, n in enumerate(lap_n):
            comp = fdp.compose(*[fdp.Laplace(1 / np.sqrt(n))] * n, tol=engine_tol(fast)) \
                if n > 1 else fdp.Laplace(1.0)
            mu_n = fdp.clt([fdp.Laplace(1 / np.sqrt(n))] * n).mu
            for target in (ax, zoom):
                main = target is ax
                draw_tradeoff(target, comp, color=color(i), linestyle=linestyle(i),
                              label=_power_label("L", n) if main else "_")
                draw_tradeoff(target, fdp.Gaussian(mu_n), color=color(i), linestyle=(0, (1, 1)),
                              linewidth=1.0, label="_")
            lap_d.append(sup_distance(comp, fdp.Gaussian(mu_n)))
        checks.append(Check.holds(SOURCE, "sup|L^{⊗n} − G_μ(n)| decreases (n=1,4,16)",
                                  "→ 0 (Thm 3.5)", ", ".join(f"{d:.4f}" for d in lap_d),
                                  bool(np.all(np.diff(lap_d) < 0))))
        ax.plot([], [], color="0.3", linestyle=(0, (1, 1)), linewidth=1.0,
                label=r"CLT limits $G_{\mu(n)}$ (dotted)")
    else:
        checks.append(missing(SOURCE, "Laplace composition → G_μ", "fdp.engine"))
        ax.text(0.5, 0.5, "needs fdp.engine", ha="center")
    legend(ax, loc="upper right")
    write(fig, out_dir, NAME)
    return checks
