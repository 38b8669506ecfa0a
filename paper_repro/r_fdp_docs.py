"""Values documented by the R package ``fdp`` (L. Aslett; reference pages of
``est_epsdelta``, ``gdp_to_epsdelta`` and ``est_gdp``).

* ``est_epsdelta(gdp(0.5)(), delta = 0)`` returns ε = 1.45 (from G_0.5 on the grid
  α = 0, 0.01, …, 1, rounded up to 2 decimals), and the exact GDP conversion at that ε is
  δ = 0.000544… (DRS Cor 2.13).
* ``gdp_to_epsdelta(mu = 1, epsilon = 1)`` prints δ = 0.126936737506644.
* ``est_epsdelta(empirical, delta = 0.01)`` → ε = 0.34 and ``epsilon = 1`` → δ = 0 for the
  points α = (0, .05, .1, .25, .5, 1), β = (1, .92, .85, .70, .45, 0).
* ``est_gdp`` → μ = 0.18 for β = (1, .93, .87, .72, .43, 0), and μ = 1.44 for ``lap(1.5)`` on
  the α grid.
Results are rounded *up* (the package's convention, so that the bound stays valid).
"""

from __future__ import annotations

import numpy as np

import fdp
from fdp.plotting import draw_points, draw_tradeoff, legend, tradeoff_axes
from fdp.plotting.style import color
from fdp.repro import Check

from ._common import figure, write

NAME = "r_fdp_docs"
TITLE = "R package fdp: documented values"
SOURCE = "R fdp reference docs"
CAPTION = """Values printed in the reference pages of the R package `fdp`. Left: G_0.5
sampled on the grid α = 0, 0.01, …, 1, the lower convex hull of the samples, and the
(ε, δ) curves f_{1.45,0} (fitted to the points, as `est_epsdelta` does) and f_{1.45, 0.000544}
(the exact conversion). Right: the documentation's empirical points with their hull and
the fitted f_{0.34,0.01} and G_0.18. Checked: all six printed values (rounded up, as the
package rounds)."""

GRID = np.linspace(0.0, 1.0, 101)
EMP_A = np.array([0.00, 0.05, 0.10, 0.25, 0.50, 1.00])
EMP_B1 = np.array([1.00, 0.92, 0.85, 0.70, 0.45, 0.00])
EMP_B2 = np.array([1.00, 0.93, 0.87, 0.72, 0.43, 0.00])


def run(out_dir, fast: bool = False):
    g = fdp.Gaussian(0.5)
    pts = fdp.from_points(GRID, g(GRID))
    eps_grid = pts.pure_epsilon()
    emp1 = fdp.from_points(EMP_A, EMP_B1)
    emp2 = fdp.from_points(EMP_A, EMP_B2)
    eps_emp, _ = fdp.tightest_eps_delta(emp1, delta=0.01)
    _, delta_emp = fdp.tightest_eps_delta(emp1, eps=1.0)
    lap_mu = fdp.from_points(GRID, fdp.Laplace(1.5)(GRID)).gdp_mu()
    checks = [
        Check.rounds_to(SOURCE, "est_epsdelta(gdp(0.5)(), delta=0)", "1.45", eps_grid, mode="up"),
        Check.close(SOURCE, "δ of G_0.5 at ε=1.45 (0.000544…)", 0.000544,
                    fdp.gdp_delta(0.5, 1.45), atol=1e-6, note="printed as 0.000544…"),
        Check.close(SOURCE, "gdp_to_epsdelta(mu=1, epsilon=1)", 0.126936737506644,
                    fdp.gdp_delta(1.0, 1.0), atol=1e-15, note="printed to 15 digits"),
        Check.rounds_to(SOURCE, "est_epsdelta(empirical, delta=0.01)", "0.34", eps_emp, mode="up"),
        Check.close(SOURCE, "est_epsdelta(empirical, epsilon=1): δ", 0.0, delta_emp, atol=0.0),
        Check.rounds_to(SOURCE, "est_gdp(empirical_points)", "0.18", emp2.gdp_mu(), mode="up"),
        Check.rounds_to(SOURCE, "est_gdp(lap(1.5)) on the α grid", "1.44", lap_mu, mode="up"),
    ]
    fig, axes = figure(1, 2, size=4.8)
    ax = tradeoff_axes(axes[0], title=r"$G_{0.5}$ on a grid: (ε, δ) fits")
    draw_points(ax, GRID, g(GRID), color=color(0), label="grid")
    # on top and thin: under the 101 grid markers a thick G_0.5 would not show
    draw_tradeoff(ax, g, color="k", linewidth=1.0, zorder=6, label=r"$G_{0.5}$")
    draw_tradeoff(ax, fdp.EpsDelta(1.45), color=color(1), linestyle="--",
                  label=r"$f_{1.45,0}$ (fit to points)")
    draw_tradeoff(ax, fdp.EpsDelta(1.45, fdp.gdp_delta(0.5, 1.45)), color=color(2),
                  linestyle=":", label=r"$f_{1.45,\,0.000544}$ ($G_{0.5}$'s δ at ε=1.45)")
    legend(ax, loc="upper right")
    ax = tradeoff_axes(axes[1], title="documented empirical points")
    draw_points(ax, EMP_A, EMP_B1, color=color(0), label="points A")
    draw_points(ax, EMP_A, EMP_B2, color=color(3), label="points B")
    draw_tradeoff(ax, fdp.EpsDelta(0.34, 0.01), color=color(1), linestyle="--",
                  label=r"$f_{0.34,0.01}$ (A)")
    draw_tradeoff(ax, fdp.Gaussian(0.18), color=color(2), linestyle="--", label=r"$G_{0.18}$ (B)")
    legend(ax, loc="upper right")
    write(fig, out_dir, NAME)
    return checks
