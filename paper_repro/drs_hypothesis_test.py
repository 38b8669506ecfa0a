"""The hypothesis-testing picture behind f-DP (Dong, Roth & Su 2022, §2.1).

H0: P = N(0, 1) against H1: Q = N(μ, 1), rejecting when x > t. The shaded areas are
the type I error α = P(X > t) and the type II error β = Q(X ≤ t); the optimal test
at level α has β = G_μ(α) (Neyman–Pearson; DRS Def 2.1, 2.7), and α + β ≥ 1 − TV(P, Q)
with equality at t = μ/2 (the likelihood-ratio test is optimal; DRS §2.1).
"""

from __future__ import annotations

import numpy as np
from scipy import integrate
from scipy.stats import norm

import fdp
from fdp.plotting import hypothesis_test
from fdp.repro import Check

from ._common import figure, write

NAME = "drs_hypothesis_test"
TITLE = "DRS §2.1: type I and type II errors of a threshold test"
SOURCE = "DRS §2.1, Def 2.1"
CAPTION = """Testing H0: N(0,1) against H1: N(μ,1) with μ = 2 by rejecting when x > t.
The shaded areas are the type I error α (under P, right of t) and the type II error β
(under Q, left of t). Checked: the areas, integrated numerically, agree with
α = 1 − Φ(t) and β = G_μ(α) from `fdp.Gaussian`, and at t = μ/2 the sum α + β equals
1 − TV(P, Q) = 1 − `advantage()`."""

MU = 2.0
THRESHOLDS = (0.5, 1.0, 1.8)


def run(out_dir, fast: bool = False):
    g = fdp.Gaussian(MU)
    checks = []
    for t in THRESHOLDS:
        area_i = integrate.quad(norm.pdf, t, np.inf, epsabs=1e-13)[0]
        area_ii = integrate.quad(lambda x: norm.pdf(x - MU), -np.inf, t, epsabs=1e-13)[0]
        checks.append(Check.close(SOURCE, f"type II area at t={t:g} vs G_2(α)",
                                  area_ii, g(area_i), atol=1e-9,
                                  note="paper col = quad of the shaded area"))
    t = MU / 2
    a, b = norm.sf(t), norm.cdf(t - MU)
    checks.append(Check.close(SOURCE, "α+β at t=μ/2 vs 1−TV(P,Q)", a + b,
                              1.0 - g.advantage(), atol=1e-12,
                              note="α+β ≥ 1−TV, equality at optimum"))
    fig, (ax,) = figure(1, 1)
    fig.set_size_inches(6.4, 3.8)
    hypothesis_test(MU, t, ax=ax)
    ax.set_title(r"$H_0: N(0,1)$ vs $H_1: N(2,1)$, reject if $x>t=1$")
    write(fig, out_dir, NAME)
    return checks
