"""Dong–Roth–Su §2.5, group privacy, recomputed from the formulas.

f-DP ⇒ [1 − (1 − f)^{∘k}]-DP for groups of size k (DRS Thm 2.14); μ-GDP ⇒ kμ-GDP.
Groups of size k under (μ/k, 0)-DP converge to the Laplace trade-off function L_μ as
k → ∞ (DRS §2.5, Prop 2.15), already close for small k: for μ = 1 the sup
error is 1.2e-3, 1.2e-5, 1.2e-7 at k = 10, 100, 1000.
"""

from __future__ import annotations

import numpy as np

import fdp
from fdp.operations.group import Group
from fdp.plotting import group_privacy, laplace_limit
from fdp.repro import Check

from ._common import figure, write

NAME = "drs_group_privacy"
TITLE = "DRS §2.5 (recomputed): group privacy and its Laplace limit"
SOURCE = "DRS §2.5"
CAPTION = """Recomputed from the formulas of Dong, Roth & Su (their PDF is not copied).
Left: group privacy 1 − (1 − G_0.5)^{∘k} for k = 1, 2, 4, 8, which is G_{0.5k}. Right:
groups of size k under (1/k, 0)-DP, 1 − (1 − f_{1/k,0})^{∘k} (one line style per k), approach
the Laplace curve L_1 (thick grey, underneath) already for small k. Checked: the generic k-fold construction equals G_{kμ}, the
sup distance to L_1 is 1.2e-3, 1.2e-5, 1.2e-7 at k = 10, 100, 1000, and the f-DP group
bound of (ε, δ)-DP is at least as strong as the classical (kε, δΣe^{iε})."""  # noqa: E501 (the gallery's text)


def _sup_to_laplace(k: int, fast: bool) -> float:
    """max_α |1 − (1 − f_{1/k,0})^{∘k}(α) − L_1(α)|: a grid, then a fine grid at its peak."""
    g, lap = fdp.EpsDelta(1.0 / k).group(k), fdp.Laplace(1.0)
    a = np.linspace(0.0, 1.0, 5001 if fast else 20001)
    d = np.abs(g(a) - lap(a))
    peak = a[np.argmax(d)]
    fine = np.clip(np.linspace(peak - 4e-4, peak + 4e-4, 4001), 0.0, 1.0)
    return float(max(d.max(), np.abs(g(fine) - lap(fine)).max()))


def run(out_dir, fast: bool = False):
    checks = []
    a = np.linspace(0.0, 1.0, 10001)
    for k in (2, 4, 8):
        generic = Group(fdp.Gaussian(0.5), k)   # the k-fold construction itself
        err = float(np.max(np.abs(generic(a) - fdp.Gaussian(0.5 * k)(a))))
        checks.append(Check.close(SOURCE, f"1−(1−G_0.5)^∘{k} = G_{0.5 * k:g}", 0.0, err,
                                  atol=1e-12, note="sup over α"))
    for k, printed in ((10, "1.2e-3"), (100, "1.2e-5"), (1000, "1.2e-7")):
        err = _sup_to_laplace(k, fast)
        checks.append(Check.close(SOURCE, f"sup|group_k(f_1/k,0) − L_1|, k={k}",
                                  float(printed), err, rtol=0.05 / 1.2,
                                  note="printed to 2 significant digits"))
    eps, delta, k = 0.3, 1e-3, 4
    f_group = fdp.EpsDelta(eps, delta).group(k)
    classical = fdp.EpsDelta(k * eps, delta * sum(np.exp(i * eps) for i in range(k)))
    ok = bool(np.all(f_group(a) >= classical(a) - 1e-12))
    checks.append(Check.holds(SOURCE, "f-form ≥ classical (kε, δΣe^{iε}), k=4",
                              "f-form at least as strong", "yes" if ok else "no", ok))
    fig, axes = figure(1, 2, size=4.6)
    group_privacy(fdp.Gaussian(0.5), (1, 2, 4, 8), ax=axes[0], name="G_{0.5}")
    axes[0].set_title(r"group privacy of $G_{0.5}$ (recomputed)")
    laplace_limit(1.0, (1, 2, 3, 5, 10), ax=axes[1])
    axes[1].set_title(r"$(1/k,0)$-DP groups $\to L_1$ (recomputed)")
    write(fig, out_dir, NAME)
    return checks
