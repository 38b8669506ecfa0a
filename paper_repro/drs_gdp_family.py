"""The Gaussian trade-off functions G_μ (Dong, Roth & Su 2022, §2.2).

G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (DRS §2.2, eq. (6)); larger μ means less privacy.
μ-GDP ⇔ (ε, δ(ε))-DP for all ε with δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)
(DRS §2.4, Cor 2.13).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
from scipy.stats import norm

import fdp
from fdp.plotting import gdp_conversion, gdp_family, privacy_profile
from fdp.repro import Check

from ._common import figure, write

NAME = "drs_gdp_family"
TITLE = "DRS §2.2: the G_μ family"
SOURCE = "DRS §2.2, §2.4"
CAPTION = """Left: G_μ for μ = 0.5, 1, 2, 3: the larger μ, the easier the two hypotheses are
told apart and the weaker the privacy. Middle: μ-GDP ⇔ (ε, δ(ε))-DP for all ε (DRS Cor 2.13):
G_1 is the upper envelope of the f_{ε,δ} it implies, each touching it (the inset magnifies
[0, 0.05]², where the kinks of the small-δ curves lie). Right: the privacy
profiles δ(ε) of the four curves. Checked with 30-digit mpmath: G_μ(0.05), the advantage
Φ(μ/2) − Φ(−μ/2) and δ(1) of each curve; that the curves are ordered in μ; and that each
implied f_{ε,δ} lies below G_1 and touches it."""

MUS = (0.5, 1.0, 2.0, 3.0)
DELTAS = (1e-1, 1e-2, 1e-3, 1e-5)


def _mp_phi(x):
    return mp.ncdf(x)


def run(out_dir, fast: bool = False):
    mp.mp.dps = 30
    checks = []
    for mu in MUS:
        g = fdp.Gaussian(mu)
        ref = _mp_phi(-mp.sqrt(2) * mp.erfinv(2 * mp.mpf("0.05") - 1) - mu)
        checks.append(Check.close(SOURCE, f"G_{mu:g}(0.05)", float(ref), g(0.05), rtol=1e-12,
                                  note="paper col = mpmath"))
        adv = _mp_phi(mp.mpf(mu) / 2) - _mp_phi(-mp.mpf(mu) / 2)
        checks.append(Check.close(SOURCE, f"advantage of G_{mu:g}", float(adv), g.advantage(),
                                  rtol=1e-10, note="mpmath"))
        m = mp.mpf(mu)
        d = _mp_phi(-1 / m + m / 2) - mp.e * _mp_phi(-1 / m - m / 2)
        checks.append(Check.close(SOURCE, f"δ(ε=1) of G_{mu:g}", float(d), g.delta(1.0),
                                  rtol=1e-9, note="mpmath, Cor 2.13"))
    a = np.linspace(0.001, 0.999, 999)
    vals = np.array([fdp.Gaussian(m)(a) for m in MUS])
    ordered = bool(np.all(np.diff(vals, axis=0) < 0))
    checks.append(Check.holds(SOURCE, "G_μ decreasing in μ at fixed α", "decreasing",
                              "decreasing" if ordered else "not", ordered))
    g1 = fdp.Gaussian(1.0)
    for d in DELTAS:
        e = fdp.gdp_epsilon(1.0, d)
        f_ed = fdp.EpsDelta(e, d)
        gap = g1(a) - np.asarray(f_ed(a))
        # Tangency where G_1'(α) = −e^ε, i.e. α* = Φ(−ε/μ − μ/2) (μ = 1).
        touch = float(norm.cdf(-e - 0.5))
        at = g1(touch) - f_ed(touch)
        checks.append(Check.holds(SOURCE, f"f_{{ε(δ),δ}} ≤ G_1, touching, δ={d:g}",
                                  "tangent (Cor 2.13)",
                                  f"min gap {gap.min():.1e}, gap at α* {at:.1e}",
                                  gap.min() >= -1e-12 and abs(at) <= 1e-10))
    fig, axes = figure(1, 3, size=4.4)
    gdp_family(MUS, ax=axes[0])
    axes[0].set_title(r"$G_\mu$ for several $\mu$")
    gdp_conversion(1.0, DELTAS, ax=axes[1], zoom=0.05)
    axes[1].set_title(r"$G_1$ and the $f_{\varepsilon,\delta}$ it implies")
    privacy_profile(*[fdp.Gaussian(m) for m in MUS], labels=[rf"$G_{{{m:g}}}$" for m in MUS],
                    eps=np.linspace(0.0, 8.0, 161), ax=axes[2])
    axes[2].set_title(r"privacy profiles $\delta(\varepsilon)$")
    write(fig, out_dir, NAME)
    return checks
