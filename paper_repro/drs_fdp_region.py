"""Which trade-off curves are f-DP (Dong, Roth & Su 2022, §2.1).

A mechanism is f-DP when its trade-off curve lies above f everywhere (DRS Def 2.3).
With f = G_1, the curves G_0.5 and f_{0.5,0} lie above f (f-DP), while f_{1,0.1}
crosses below it (not f-DP): one solid f and three test curves, dashed when f-DP and
dash-dotted when not.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

import fdp
from fdp.plotting import fdp_region
from fdp.repro import Check

from ._common import figure, write

NAME = "drs_fdp_region"
TITLE = "DRS §2.1: the f-DP region and three candidate curves"
SOURCE = "DRS §2.1, Def 2.3"
CAPTION = """The solid curve is f = G_1; the shaded region above it holds every trade-off
curve that is f-DP. G_0.5 and f_{0.5,0} lie above f and are f-DP; f_{1,0.1} dips below
f (the crossing is shaded) and is not. Checked: `dominates` (a certified comparison in
the dual) agrees with an independent pointwise comparison of the closed forms."""

CANDIDATES = (("G_0.5", fdp.Gaussian(0.5)), ("f_{0.5,0}", fdp.EpsDelta(0.5)),
              ("f_{1,0.1}", fdp.EpsDelta(1.0, 0.1)))


def _closed_form(name: str, a: np.ndarray) -> np.ndarray:
    """The candidates' formulas written out independently of the library."""
    if name == "G_0.5":
        return norm.cdf(norm.isf(a) - 0.5)
    eps, delta = (0.5, 0.0) if name == "f_{0.5,0}" else (1.0, 0.1)
    return np.maximum.reduce([np.zeros_like(a), 1 - delta - np.exp(eps) * a,
                              np.exp(-eps) * (1 - delta - a)])


def run(out_dir, fast: bool = False):
    f = fdp.Gaussian(1.0)
    a = np.concatenate([np.logspace(-12, -1, 400), np.linspace(0.1, 1.0, 4001)])
    fa = norm.cdf(norm.isf(a) - 1.0)
    checks = []
    for name, g in CANDIDATES:
        by_formula = bool(np.all(_closed_form(name, a) >= fa - 1e-12))
        ours = g.dominates(f)
        checks.append(Check.holds(SOURCE, f"{name} is G_1-DP?",
                                  "f-DP" if by_formula else "not f-DP",
                                  "f-DP" if ours else "not f-DP", ours == by_formula,
                                  rule="same verdict as pointwise formulas"))
    checks.append(Check.holds(SOURCE, "figure has 2 f-DP, 1 crossing curve", "2 above, 1 crosses",
                              f"{sum(g.dominates(f) for _, g in CANDIDATES)} above",
                              sum(g.dominates(f) for _, g in CANDIDATES) == 2))
    fig, (ax,) = figure(1, 1, size=4.8)
    fdp_region(f, [g for _, g in CANDIDATES],
               labels=[r"$G_{0.5}$", r"$f_{0.5,0}$", r"$f_{1,0.1}$"], ax=ax,
               f_label=r"$f=G_1$")
    write(fig, out_dir, NAME)
    return checks
