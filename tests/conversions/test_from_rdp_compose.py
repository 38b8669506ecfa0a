"""Compositions of Rényi / zCDP conversions, and the finite pair above them.

Independent truths:
- the Gaussian: ρ-zCDP with ρ = μ²/2 holds for G_μ, so the optimal conversion is
  below it (G_μ ≥ f_ρ) and G_{μ₁} ⊗ G_{μ₂} = G_√(μ₁² + μ₂²) ≥ f_{ρ₁} ⊗ f_{ρ₂}
  (closed form): the certified upper δ of a composition is at least the Gaussian's;
- Kairouz-type: f ≥ f_{ε,δ(ε)} for every ε, and the tensor product is monotone,
  so δ of f₁ ⊗ f₂ is at most δ of f_{ε₁,δ₁} ⊗ f_{ε₂,δ₂}, computed here by exact
  enumeration of the 4 × 4 atoms of the two (ε, δ) pairs;
- the finite pair above f (``_upper_law``): its trade-off function, computed by
  sorting its atoms (Neyman–Pearson), must be ≥ the certified lower curve at every
  α, on and off the grid it was built on; the exact product of two such pairs
  (enumeration of all atom pairs) is more private than f₁ ⊗ f₂, so its δ is at most
  the composition's certified upper δ and at least its certified lower δ's
  optimistic side allows (the engine's optimistic lattice is of that very pair).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import fdp
from fdp.conversions.renyi_law import polygon_law, upper_law, upper_polygon

EPS = np.array([-2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0])
ALPHAS = np.array([1e-12, 1e-6, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.999])


def _np_curve(law, alpha):
    """T(P, Q) of a finite law at α: atoms sorted by loss, cumulated (Neyman–Pearson)."""
    L, p, q = law.L, law.p, law.q
    order = np.argsort(-L, kind="stable")
    p, q = p[order], q[order]
    A = np.concatenate([[0.0], np.cumsum(p)])
    B = 1.0 - np.concatenate([[0.0], np.cumsum(q)])
    # β at α by linear interpolation along the sorted segments (A non-decreasing)
    return np.interp(alpha, A, B)


def _law_delta(L, p, q, eps):
    """δ(ε) = Σ (q − e^ε p)₊ + Q(L = +∞) of a finite law, exact sum."""
    out = []
    for e in np.atleast_1d(eps):
        fin = np.isfinite(L)
        v = q[fin] - np.exp(e) * p[fin]
        out.append(float(np.sum(v[v > 0])) + float(q[np.isposinf(L)].sum()))
    return np.array(out)


def _product(a, b):
    """The product pair of two finite laws given as (L, p, q), every pair of atoms."""
    with np.errstate(invalid="ignore"):
        L = (a[0][:, None] + b[0][None, :]).ravel()
    L = np.where(np.isnan(L), 0.0, L)        # −inf + inf: p·q = 0 there
    p = (a[1][:, None] * b[1][None, :]).ravel()
    q = (a[2][:, None] * b[2][None, :]).ravel()
    return L, p, q


def _eps_delta_pair(e, d):
    """The 4-atom pair of f_{ε,δ} (DRS 2022, Prop 2.5)."""
    w = (1.0 - d) / (1.0 + np.exp(e))
    p = np.array([d, w * np.exp(e), w, 0.0])
    q = np.array([0.0, w, w * np.exp(e), d])
    L = np.array([-np.inf, -e, e, np.inf])
    return L, p, q


@pytest.fixture(scope="module")
def pair():
    """ρ = 0.2 ⊗ ρ = 0.3 and the pieces, composed once for the module."""
    f, g = fdp.from_zcdp(0.2), fdp.from_zcdp(0.3)
    return f, g, f @ g


# ----------------------------------------------------------------------
# The finite pair above the curve
# ----------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: fdp.from_zcdp(0.5),
    lambda: fdp.from_zcdp(0.05, xi=0.1),
    lambda: fdp.from_rdp([2.0, 8.0, np.inf], [0.5, 1.0, 3.0]),
    lambda: fdp.from_rdp([3.0], [0.7]),                           # one order only
    lambda: fdp.from_rdp([2.0, 4.0], [0.2, 0.5], one_sided=True),
])
@pytest.mark.slow
def test_upper_law_is_a_pair_above_the_curve(make):
    f = make()
    law = f._upper_law()
    # a probability pair (rounding of the widths and drops: a few ulps per atom)
    assert abs(law.p.sum() - 1.0) < 1e-12 and abs(law.q.sum() - 1.0) < 1e-12
    assert (law.p >= 0).all() and (law.q >= 0).all()
    a = np.unique(np.concatenate([ALPHAS, np.linspace(0.0, 1.0, 101), [0.123456, 0.0071]]))
    curve = _np_curve(law, a)
    lo, hi = f.bounds(a)
    assert (curve >= lo - 1e-15).all()            # above the certified lower curve
    # ≤ 1 − α up to the drops rounded down (Q-mass a few ulps short, never more)
    assert (curve <= 1.0 - a + 1e-13).all()
    # the hull of the upper values meets them at its vertices: close to the bracket
    assert np.max(curve - hi) < 5e-3
    # δ of the pair (exact sum) ≤ the certified upper δ; for ε ≥ 0 (where the lower
    # δ is 1 − U_i − e^ε α_i on the grid, not its reflection) ≥ the lower δ, since
    # the hull is ≤ U_i at every grid point
    d_law = _law_delta(law.L, law.p, law.q, EPS)
    d_lo, d_hi = f.delta_bounds(EPS)
    assert (d_law <= d_hi * (1 + 1e-12) + 1e-15).all()
    pos = EPS >= 0
    assert (d_law[pos] >= d_lo[pos] * (1 - 1e-9) - 1e-15).all()


def test_polygon_rounding_keeps_the_curve_above():
    # a polygon whose segments are nearly collinear: rounding could reorder them;
    # the pair's Neyman–Pearson curve must stay above every vertex
    x = np.array([0.0, 0.1, 0.2 + 1e-17, 0.3, 1.0])
    y = np.array([1.0, 0.8, 0.6, 0.4, 0.0])
    law = polygon_law(x, y)
    assert (_np_curve(law, x) >= y - 1e-16).all()
    xs, ys = upper_polygon(np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.6, 0.0]))
    assert np.allclose(xs, [0.0, 1.0]) and np.allclose(ys, [1.0, 0.0])   # 0.6 is above
    law = upper_law(np.array([0.0, 0.5, 1.0]), np.array([0.9, 0.2, 0.0]))
    assert law.q[np.isposinf(law.L)].sum() == pytest.approx(0.1)           # 1 − f(0)


# ----------------------------------------------------------------------
# Compositions against independent computations
# ----------------------------------------------------------------------
@pytest.mark.slow
def test_zcdp_tensor_against_gaussian_and_kairouz(pair):
    f, g, h = pair
    lo, hi = h.delta_bounds(EPS)
    assert (lo <= hi).all()
    # G_1 = G_{μ1} ⊗ G_{μ2} with μ_i² = 2ρ_i is above f_{0.2} ⊗ f_{0.3}
    gauss = fdp.Gaussian(1.0)
    assert (hi >= gauss.delta(EPS)).all()
    b_lo, _ = h.bounds(ALPHAS)
    assert (b_lo <= gauss(ALPHAS)).all()
    # Kairouz-type: δ ≤ δ of f_{e1,δ1} ⊗ f_{e2,δ2} for any split of ε
    for e in (0.0, 1.0, 3.0):
        for e1 in (0.25 * e, 0.5 * e, 0.4 * e + 0.3):
            e2 = e - e1
            L, p, q = _product(_eps_delta_pair(e1, float(f.delta(e1))),
                               _eps_delta_pair(e2, float(g.delta(e2))))
            kairouz = _law_delta(L, p, q, [e])[0]
            assert float(h.delta_bounds(e)[0]) <= kairouz * (1 + 1e-9)


def test_zcdp_tensor_against_the_exact_product_of_the_upper_pairs(pair):
    f, g, h = pair
    lf, lg = f._upper_law(), g._upper_law()
    L, p, q = _product((lf.L, lf.p, lf.q), (lg.L, lg.p, lg.q))
    exact = _law_delta(L, p, q, EPS)           # more private than f ⊗ g
    lo, hi = h.delta_bounds(EPS)
    assert (exact <= hi * (1 + 1e-12) + 1e-15).all()
    # the engine's optimistic side is a lattice of that very pair: at most its δ
    assert (lo <= exact * (1 + 1e-9) + 1e-15).all()
    # and not far below it (the lattice's own error, tol = 1e-4)
    assert (lo >= exact - 2e-3).all()


def test_tensor_and_summed_rho_are_different_functions(pair):
    _, _, h = pair
    s = fdp.from_zcdp(0.5)
    t_lo, t_hi = h.delta_bounds(np.array([0.0, 4.0]))
    s_lo, s_hi = s.delta_bounds(np.array([0.0, 4.0]))
    # near ε = 0 the tensor product of the curves is the tighter (smaller δ) ...
    assert t_hi[0] < s_lo[0]
    # ... in the tail the summed ρ (valid for zCDP mechanisms only) is
    assert s_hi[1] < t_lo[1]
    # `@` is the tensor product, not the summed ρ
    assert "⊗" in repr(h)


@pytest.mark.parametrize("other, mu2", [
    (lambda: fdp.from_zcdp(0.2), 0.4),            # f ** 2 through the engine's power
    (lambda: fdp.Gaussian(1.0), 1.0),
])
def test_compositions_with_self_and_gaussian(other, mu2):
    f = fdp.from_zcdp(0.2)
    o = other()
    h = f ** 2 if isinstance(o, type(f)) else f @ o
    mu = np.sqrt(0.4 + mu2)                      # G_√(2ρ) ⊗ G_μ2
    lo, hi = h.delta_bounds(EPS)
    assert (lo <= hi).all()
    assert (hi >= fdp.Gaussian(mu).delta(EPS)).all()
    e_lo, e_hi = h.epsilon_bounds(1e-5)
    assert e_lo <= e_hi and e_hi >= fdp.Gaussian(mu).epsilon(1e-5)


def test_composition_with_a_subsampled_gaussian():
    f = fdp.from_zcdp(0.2)
    s = fdp.Gaussian(1.0).subsample(0.1) ** 10
    h = f @ s
    ref = fdp.Gaussian(np.sqrt(0.4)) @ s          # G_√(2ρ) ≥ f_ρ: more private
    lo, hi = h.delta_bounds(EPS)
    r_lo, _ = ref.delta_bounds(EPS)
    assert (lo <= hi).all()
    assert (hi >= r_lo).all()
    # composing adds privacy loss: never below either factor's own upper δ's lower side
    assert (hi >= f.delta_bounds(EPS)[0] - 1e-12).all()


# ----------------------------------------------------------------------
# Edges, pickling, bad input
# ----------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: fdp.from_zcdp(1e-6),                  # tiny ρ: nearly perfect privacy
    lambda: fdp.from_zcdp(40.0),                  # huge ρ
    lambda: fdp.from_zcdp(0.05, xi=0.2),          # ξ > 0
    lambda: fdp.from_rdp([2.0, np.inf], [0.3, 1.0]),    # an order ∞: pure DP part
    lambda: fdp.from_rdp([4.0], [0.4]),           # one order only
])
@pytest.mark.slow
def test_edge_curves_compose_with_a_gaussian(make):
    f = make()
    g = fdp.Gaussian(0.5)
    h = f @ g
    lo, hi = h.delta_bounds(EPS)
    assert np.isfinite(lo).all() and (lo <= hi).all() and (hi <= 1.0).all()
    # f ⊗ G ≤ G and ≤ f (composition never helps): upper δ at least each factor's
    assert (hi >= g.delta(EPS) * (1 - 1e-12)).all()
    assert (hi >= f.delta_bounds(EPS)[0] * (1 - 1e-9) - 1e-12).all()


def test_underflow_is_not_pure_dp():
    f = fdp.from_zcdp(0.5)
    # δ(ε) > 0 at every finite ε for zCDP with ρ > 0: ε(0) is inf, δ never 0
    assert f.epsilon(0.0) == np.inf
    assert (f.delta(np.array([38.99, 45.0, 800.0])) > 0).all()
    # pure DP (an order ∞) does reach δ = 0, at ε = r_∞
    g = fdp.from_rdp([2.0, np.inf], [1.0, 3.0])
    assert g.delta(3.0) == 0.0 and g.epsilon(0.0) <= 3.0 + 1e-12


def test_pickling_keeps_the_curve_and_its_compositions(pair):
    f, g, h = pair
    f2 = pickle.loads(pickle.dumps(f))
    assert f2 == f and f2.bounds(0.1) == f.bounds(0.1)
    law = pickle.loads(pickle.dumps(f._upper_law()))
    assert np.array_equal(law.L, f._upper_law().L)
    h2 = pickle.loads(pickle.dumps(h))
    assert np.array_equal(h2.delta_bounds(EPS)[1], h.delta_bounds(EPS)[1])


def test_bad_input():
    with pytest.raises(ValueError, match="rho"):
        fdp.from_zcdp(-0.1)
    with pytest.raises(ValueError, match="xi"):
        fdp.from_zcdp(0.1, xi=-1.0)
    with pytest.raises(ValueError, match="rdp"):
        fdp.from_rdp([2.0, 4.0], [1.0, 0.5])
    with pytest.raises(ValueError, match="orders"):
        fdp.from_rdp([0.5], [1.0])
    with pytest.raises(ValueError, match="delta"):
        fdp.from_zcdp(0.5).epsilon(1.5)
    with pytest.raises(ValueError):
        fdp.from_zcdp(0.5) ** -1
