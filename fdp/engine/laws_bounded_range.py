"""The privacy-loss law of the bounded-range curve BR_ε, for the composition engine.

BR_ε(α) = (1 − α)/(1 + cα), c = e^ε − 1 (``fdp.families.bounded_range``) is T(P, Q)
for P = the uniform law of U on [0, 1] (U is the type I error of the test that
rejects in decreasing order of L) and L(U) = log(−BR_ε'(U)) = ε − 2 log(1 + cU),
which decreases from ε to −ε. With w = log(1 + cU) ∈ [0, ε], L = ε − 2w, P has
density e^w/c in w and Q = e^L P has density (e^ε/c) e^{−w}: a truncated
exponential. So a loss interval [l, r) ⊂ [−ε, ε] has, in closed form,

    π = P(l ≤ L < r) = e^{(ε−r)/2} expm1((r − l)/2) / c,
    κ = Q(l ≤ L < r) = e^{(ε+l)/2} expm1((r − l)/2) / c,

and κ/π = e^{(l+r)/2} lies inside [e^l, e^r] (each term carries a few ulps of
relative error only, so the conditional mean stays inside any cell the engine
uses). No atoms, no infinite losses; L ∈ [−ε, ε].
"""

from __future__ import annotations

import numpy as np

from fdp.engine.laws import _intervals, interval_masses, loss_moments, loss_range
from fdp.families.bounded_range import BoundedRange, log_expm1
from fdp.families.identity import Identity


@interval_masses.register
def _(f: BoundedRange, edges):
    e = f.eps
    if e == 0.0:
        return interval_masses(Identity(), edges)
    left, right = _intervals(edges)
    lo = np.clip(left, -e, e)
    hi = np.clip(right, -e, e)
    log_c = float(log_expm1(e))
    with np.errstate(under="ignore"):
        width = np.expm1((hi - lo) / 2.0)
        pi = np.exp((e - hi) / 2.0 - log_c) * width
        kappa = np.exp((e + lo) / 2.0 - log_c) * width
    return kappa, pi, 0.0, 0.0


@loss_range.register
def _(f: BoundedRange):
    return -f.eps, f.eps


@loss_moments.register
def _(f: BoundedRange):
    """Mean and variance of L = ε − 2w under Q, w ~ Exp(1) truncated to [0, ε]."""
    e = f.eps
    if e < 1e-3:   # series: the closed forms cancel catastrophically
        m_w = e / 2.0 - e * e / 12.0
        v_w = e * e / 12.0
    else:
        r = e / np.expm1(e)                       # ε e^{−ε}/(1 − e^{−ε})
        m_w = 1.0 - r
        v_w = 1.0 - r * r * np.exp(e) if e < 700.0 else 1.0
    return float(e - 2.0 * m_w), float(4.0 * max(v_w, e * e * 1e-6))
