"""A piecewise-linear curve with f(0) < 1 has privacy-loss mass 1 − f(0) at +∞.

δ(ε) = sup_α (1 − f(α) − e^ε α) ≥ 1 − f(0) for every ε, so δ(∞) = 1 − f(0) (DRS Prop 2.12);
a 0 there made min{f, f⁻¹}** read 1 at α = 0, above min{f(0), f⁻¹(0)} (found by the
hypothesis test of symmetrisations).
"""

from __future__ import annotations

import numpy as np

import fdp


def test_delta_at_infinity_is_the_mass_at_infinity() -> None:
    f = fdp.from_points([0.0, 1.0], [0.5, 0.0])
    d = f.delta_bounds(np.array([0.0, 700.0, np.inf]))
    assert np.all(d.lo <= 0.5) and np.all(d.hi >= 0.5)
    # a curve with f(0) = 1 still reaches δ = 0 at its largest vertex slope
    g = fdp.from_points([0.0, 0.5, 1.0], [1.0, 0.2, 0.0])
    assert float(g.delta(np.inf)) == 0.0 and float(g.delta(0.0)) > 0.0


def test_one_sided_symmetrisation_stays_below_both_directions_at_zero() -> None:
    f = fdp.from_points([0.0, 1.0], [0.5, 0.0])
    a = np.array([0.0, 1e-300, 0.25, 0.5])
    one = f.symmetrize(one_sided=True)(a)
    assert np.all(one <= np.minimum(f(a), f.inverse()(a)) + 1e-12)
    assert 0.5 - 1e-12 <= one[0] <= 0.5          # the lower curve, rounded down
