"""The graph of f_{ε,δ} (Dong, Roth & Su 2022, §2.1).

f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)} (DRS §2.1, eq. (5)): two
line segments with slopes −e^ε and −e^{−ε} meeting at the kink α* = (1 − δ)/(1 + e^ε),
which is also the fixed point f(α*) = α* because f_{ε,δ} is symmetric; f(0) = 1 − δ and
f vanishes from α = 1 − δ on. (ε, δ)-DP ⇔ f_{ε,δ}-DP, so δ_f(ε) = δ.

(``EpsDelta.delta`` is the parameter δ, which shadows the method ``TradeOff.delta``;
the profile is therefore read through ``fdp.TradeOff.delta(f, ε)``.)
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

import fdp
from fdp.plotting import eps_delta
from fdp.repro import Check

from ._common import figure, write

NAME = "drs_eps_delta"
TITLE = "DRS §2.1: the trade-off function f_{ε,δ}"
SOURCE = "DRS §2.1, eq. (5)"
CAPTION = """f_{ε,δ} for ε = 1, δ = 0.1: slopes −e^ε and −e^{−ε}, intercepts 1 − δ, and the
kink α* = (1 − δ)/(1 + e^ε) on the diagonal β = α (the fixed point). Checked against the
formulas: the kink, the fixed point found by root finding on `fdp.EpsDelta`, the
intercepts, δ(ε) = δ at the same ε, and convexity."""

EPS, DELTA = 1.0, 0.1


def run(out_dir, fast: bool = False):
    f = fdp.EpsDelta(EPS, DELTA)
    kink = (1 - DELTA) / (1 + np.exp(EPS))
    fixed = brentq(lambda x: f(x) - x, 0.0, 1.0, xtol=1e-15)
    # The kink is where the two pieces meet: the largest α whose steep piece is active.
    a = np.linspace(0, 1, 200001)
    steep = 1 - DELTA - np.exp(EPS) * a
    ours_kink = a[np.flatnonzero(np.isclose(f(a), steep, atol=1e-13, rtol=0))[-1]]
    checks = [
        Check.close(SOURCE, "fixed point f(α*)=α*", kink, fixed, atol=1e-12,
                    note="paper col = (1−δ)/(1+e^ε)"),
        Check.close(SOURCE, "kink where the steep piece ends", kink, ours_kink, atol=1e-5,
                    note="grid step 5e-6"),
        Check.close(SOURCE, "f(0) = 1 − δ", 1 - DELTA, f(0.0), atol=1e-15),
        Check.close(SOURCE, "f(1 − δ) = 0", 0.0, f(1 - DELTA), atol=1e-15),
        Check.close(SOURCE, "δ_f(ε) at ε=1 equals δ", DELTA, fdp.TradeOff.delta(f, EPS), atol=1e-12,
                    note="(ε,δ)-DP ⇔ f_{ε,δ}-DP"),
    ]
    second = np.diff(f(a), 2)
    checks.append(Check.holds(SOURCE, "convex (second differences ≥ 0)", "convex",
                              f"min Δ² = {second.min():.1e}", second.min() >= -1e-12))
    fig, (ax,) = figure(1, 1, size=4.8)
    eps_delta(EPS, DELTA, ax=ax)
    write(fig, out_dir, NAME)
    return checks
