"""Bu, Dong, Long, Su (2020), "Deep Learning with Gaussian Differential Privacy", Figure 4.

MNIST, p = 256/60000, δ = 1e-5. The caption prints: σ̃ = 1.06 gives (1.34, 1e-5)-DP at
epoch 20 with μ_CLT = 0.35; σ̃ = 0.638 gives (8.68, 1e-5) at epoch 70 with μ_CLT = 1.78;
the moments accountant with σ = 1.3 and σ = 0.7 gives the same ε. μ_CLT = p√T√(e^{1/σ²} − 1)
(their Poisson CLT), T = epochs · n / batch; ε from μ by DRS Cor 2.13; the moments
accountant is ``fdp.sgd.dpsgd_rdp_epsilon`` with Bu's order grid and Mironov's conversion.
"""

from __future__ import annotations

import fdp
from fdp.classical import BU_ORDERS
from fdp.plotting import dpsgd_comparison, dpsgd_roc, draw_roc, draw_tradeoff, legend
from fdp.plotting.style import color
from fdp.repro import Check
from fdp.sgd import dpsgd_rdp_epsilon

from ._common import certified_dpsgd, figure, have, missing, mnist_steps, write

NAME = "bu_figure4"
TITLE = "Bu et al. (2020), Figure 4: CLT vs moments accountant on MNIST"
SOURCE = "Bu et al. 2020, Fig. 4"
CAPTION = """MNIST DP-SGD with p = 256/60000 and δ = 1e-5 at epoch 20 (left, σ = 1.3) and
epoch 70 (right, σ = 0.7). Drawn: the moments-accountant guarantee f_{ε,δ} (dotted),
the CLT curve G_μ for the same σ (dashed) and the certified f-DP bracket of the numeric
accountant for the same σ (solid band). The amber dash-dotted curve is G_μ for the
smaller σ̃ whose CLT ε equals the MA ε, as in the paper. On the linear axes (top) the
moments-accountant curve at ε = 8.68 hugs the axes; the bottom row draws the same curves
as attack ROC curves on log–log axes (true-positive rate 1 − β against α down to 1e-8),
where every curve is visible. Checked: μ_CLT and the (ε, δ) printed in the caption, and
that the certified ε is below the MA ε (f-DP accounting is tighter)."""

P = 256 / 60000
DELTA = 1e-5
#: (σ̃ of the CLT, half a unit of its last printed digit, σ of the moments accountant,
#:  epochs, printed ε, printed μ_CLT)
PANELS = ((1.06, 0.005, 1.3, 20, "1.34", "0.35"), (0.638, 0.0005, 0.7, 70, "8.68", "1.78"))


def run(out_dir, fast: bool = False):
    checks = []
    fig, axes = figure(2, 2, size=4.8)
    for ax, ax_roc, (s_clt, half, s_ma, epochs, eps_txt, mu_txt) in zip(axes[:2], axes[2:],
                                                                          PANELS):
        steps = mnist_steps(epochs)
        mu = fdp.dpsgd_clt_mu(s_clt, P, steps, sampling="poisson")
        checks.append(Check.rounds_to(SOURCE, f"μ_CLT, σ̃={s_clt:g}, epoch {epochs}", mu_txt, mu))
        eps_clt = fdp.gdp_epsilon(mu, DELTA)
        # σ̃ is printed rounded; carry that rounding (± half a unit) into ε.
        lo = fdp.gdp_epsilon(fdp.dpsgd_clt_mu(s_clt + half, P, steps), DELTA)
        hi = fdp.gdp_epsilon(fdp.dpsgd_clt_mu(s_clt - half, P, steps), DELTA)
        checks.append(Check.close(SOURCE, f"CLT ε, σ̃={s_clt:g}, epoch {epochs}",
                                  float(eps_txt), eps_clt,
                                  atol=max(eps_clt - lo, hi - eps_clt) + 0.005,
                                  note=f"σ̃ printed to ±{half:g}"))
        ma = dpsgd_rdp_epsilon(s_ma, P, steps, DELTA, orders=BU_ORDERS,
                               conversion="mironov")
        checks.append(Check.close(SOURCE, f"MA ε, σ={s_ma:g}, epoch {epochs}",
                                  float(eps_txt), ma.epsilon, atol=0.01,
                                  note="caption: 'the same ε' (2 dp)"))
        mu_true = fdp.dpsgd_clt_mu(s_ma, P, steps, sampling="poisson")
        certified = None
        if have("fdp.engine"):
            certified = certified_dpsgd(s_ma, P, steps, fast)
            e_lo, e_hi = certified.epsilon_bounds(DELTA)
            checks.append(Check.holds(SOURCE, f"certified ε < MA ε, σ={s_ma:g}",
                                      "f-DP tighter than MA",
                                      f"[{e_lo:.3f}, {e_hi:.3f}] vs {ma.epsilon:.3f}",
                                      e_hi < ma.epsilon))
        else:
            checks.append(missing(SOURCE, f"certified ε, σ={s_ma:g}", "fdp.engine"))
        dpsgd_comparison(certified, mu_true, ma.epsilon, DELTA, ax=ax,
                         title=rf"epoch {epochs}, $\sigma={s_ma:g}$")
        label = rf"CLT $G_{{{mu:.2f}}}$ at $\tilde\sigma={s_clt:g}$"
        draw_tradeoff(ax, fdp.Gaussian(mu), color=color(4), linestyle="-.", linewidth=1.0,
                      label=label)
        legend(ax, loc="upper right")
        dpsgd_roc(certified, mu_true, ma.epsilon, DELTA, ax=ax_roc,
                  title=rf"epoch {epochs}: small $\alpha$ (log–log)")
        draw_roc(ax_roc, fdp.Gaussian(mu), color=color(4), linestyle="-.", linewidth=1.0,
                 label=label)
        legend(ax_roc, loc="lower right")
    write(fig, out_dir, NAME)
    return checks
