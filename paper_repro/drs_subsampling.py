"""Dong–Roth–Su §4.2, privacy amplification by subsampling, recomputed.

Sampling m of n records without replacement (replace-one neighbours) turns an f-DP
mechanism into a C_p(f)-DP one, p = m/n, C_p(f) = min{f_p, f_p⁻¹}** with
f_p = p f + (1 − p) Id (DRS Thm 4.2). For symmetric f with fixed point x* = f(x*):
C_p(f) = f_p on [0, x*], the line x* + f_p(x*) − α on [x*, f_p(x*)], f_p⁻¹ after.
The noisy-SGD CLT for this sampling scheme: μ = √2 ν √(e^{1/σ²}Φ(1.5/σ) + 3Φ(−0.5/σ) − 2)
with ν = p√T (DRS §5).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

import fdp
from fdp.plotting import subsampling
from fdp.repro import Check

from ._common import figure, write

NAME = "drs_subsampling"
TITLE = "DRS §4.2 (recomputed): subsampling C_p(f)"
SOURCE = "DRS §4.2, Thm 4.2; §5"
CAPTION = """Recomputed from the formulas of Dong, Roth & Su. Left: the construction of
C_p(f) for f = G_2 and p = 0.3 — the lower convex envelope of f_p = p f + (1 − p) Id and
its inverse. Right: C_p(G_2) for p = 0.1, 0.3, 0.6, 1. Checked: `subsample(p,
sampling="without_replacement")` against the piecewise closed form of DRS Thm 4.2 written
out independently (fixed point Φ(−μ/2), linear middle piece, numerically inverted f_p),
and the DRS noisy-SGD CLT μ for sampling without replacement."""

MU = 2.0


def _c_p_closed_form(p: float, a: np.ndarray) -> np.ndarray:
    """DRS Thm 4.2 for f = G_μ: pieces f_p | line | f_p⁻¹, written out from scratch."""
    def g(x):
        return norm.cdf(norm.isf(x) - MU)

    def fp(x):
        return p * g(x) + (1 - p) * (1 - x)

    xs = norm.cdf(-MU / 2)        # G_μ(x*) = x*
    top = fp(xs)
    out = np.empty_like(a)
    for i, x in enumerate(a):
        if x <= xs:
            out[i] = fp(x)
        elif x <= top:
            out[i] = xs + top - x
        else:  # f_p⁻¹(x) = the t with f_p(t) = x (f_p is strictly decreasing)
            out[i] = brentq(lambda t, x=x: fp(t) - x, 0.0, 1.0, xtol=1e-15) if x < 1 else 0.0
    return out


def run(out_dir, fast: bool = False):
    checks = []
    a = np.concatenate([np.linspace(0.0, 1.0, 161 if fast else 401), [0.05, 0.9]])
    f = fdp.Gaussian(MU)
    for p in (0.1, 0.3, 0.6):
        ours = f.subsample(p, sampling="without_replacement")
        err = float(np.max(np.abs(ours(a) - _c_p_closed_form(p, a))))
        checks.append(Check.close(SOURCE, f"C_{p:g}(G_2) vs Thm 4.2 pieces", 0.0, err,
                                  atol=1e-8, note="sup over α"))
    # DRS noisy-SGD CLT without replacement, written out, against fdp.dpsgd_clt_mu.
    sigma, p, steps = 1.1, 256 / 60000, 14063
    by_formula = p * np.sqrt(2 * steps) * np.sqrt(
        np.exp(sigma ** -2) * norm.cdf(1.5 / sigma) + 3 * norm.cdf(-0.5 / sigma) - 2)
    ours = fdp.dpsgd_clt_mu(sigma, p, steps, sampling="without_replacement", sensitivity=1)
    checks.append(Check.close(SOURCE, "NoisySGD CLT μ (without replacement)", by_formula,
                              ours, rtol=1e-12, note="formula written out"))
    fig, axes = figure(1, 2, size=4.6)
    subsampling(f, (0.3,), ax=axes[0], show_parts=0.3, sampling="without_replacement")
    axes[0].set_title(r"$C_p(G_2)=\min\{f_p,f_p^{-1}\}^{**}$, $p=0.3$")
    subsampling(f, (0.1, 0.3, 0.6, 1.0), ax=axes[1], sampling="without_replacement")
    axes[1].set_title(r"$C_p(G_2)$ for several $p$ (recomputed)")
    write(fig, out_dir, NAME)
    return checks
