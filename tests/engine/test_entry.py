"""The engine's one entry, ``fdp.engine.compose``: every direction and grid policy, and
factors a client bounds itself (``Prebuilt``), against independent computations."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

import fdp
from fdp.engine import Atoms, Numeric, Prebuilt, compose, compose_numeric


def _same_lattices(a: Numeric, b: Numeric) -> bool:
    pairs = list(zip(a.pess + a.opt, b.pess + b.opt))
    return len(a.pess) == len(b.pess) and all(
        x.step == y.step and x.k0 == y.k0 and np.array_equal(x.q, y.q)
        and x.q_inf == y.q_inf and x.slack == y.slack for x, y in pairs)


def test_compose_numeric_is_compose_in_one_direction():
    groups = [(fdp.Laplace(1.0), 3), (fdp.Gaussian(0.5), 2)]
    a, b = compose_numeric(groups, 1e-3), compose(groups, 1e-3)
    assert _same_lattices(a, b) and a.label == b.label and a.source == b.source


def _subsampled_delta(mu: float, q: float, eps: float, remove: bool) -> float:
    """δ(ε) of one Poisson-subsampled Gaussian, add pair (N(0,1), (1−q)N(0,1) + qN(μ,1))
    or the remove pair (its reverse), by quadrature of E[(dQ − e^ε dP)₊]."""
    def integrand(x):
        p, m = norm.pdf(x), (1 - q) * norm.pdf(x) + q * norm.pdf(x - mu)
        first, second = (p, m) if remove else (m, p)
        return max(first - math.exp(eps) * second, 0.0)
    return integrate.quad(integrand, -30, 30 + mu, limit=400, epsabs=1e-14)[0]


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.5])
def test_each_direction_and_their_symmetrisation_bracket_quadrature(eps):
    # ⊗ f, ⊗ f⁻¹ and min{f, f⁻¹}** (δ = max; Zhu, Dong & Wang 2021, Thm 11)
    add = fdp.Gaussian(2.0).subsample(0.3, direction="add")
    d_add = _subsampled_delta(2.0, 0.3, eps, False)
    d_rem = _subsampled_delta(2.0, 0.3, eps, True)
    for directions, truth in [(("f",), d_add), (("inverse",), d_rem),
                              (("f", "inverse"), max(d_add, d_rem)),
                              (("inverse", "f"), max(d_add, d_rem))]:
        num = compose([(add, 1)], 1e-4, directions=directions)
        lo, hi = num.delta_bounds(eps)
        assert lo - 1e-9 <= truth <= hi + 1e-9 and hi - lo < 1e-3, directions
        assert len(num.source) == len(directions)
    if eps > 0:                               # (at ε = 0 both are the total variation)
        assert abs(d_add - d_rem) > 1e-4      # the directions differ: the test can fail


def test_directions_without_reflection_are_the_kept_recipes():
    add = fdp.Gaussian(1.0).subsample(0.2, direction="add")
    s = compose([(add, 4)], 1e-3, directions=("f", "inverse"), grid="exact", reflect=False)
    r = s.refined(1e-3)          # recomposes from source through the same entry
    assert _same_lattices(s, r)


def _rr_atoms(eps: float) -> Atoms:
    a, b = math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))
    return Atoms(np.array([-eps, eps]), np.array([b, a]), np.array([a, b]))


def _rr_delta(eps: float, n: int, t: float) -> float:
    """δ(t) of n-fold randomised response with parameter ε, by exact enumeration."""
    mp.mp.dps = 40
    a = mp.e ** eps / (1 + mp.e ** eps)
    b = 1 - a
    return float(sum(mp.binomial(n, k) * max(a ** k * b ** (n - k)
                                             - mp.e ** t * b ** k * a ** (n - k), 0)
                     for k in range(n + 1)))


@pytest.mark.parametrize("t", [0.0, 1.0, 2.5])
def test_prebuilt_atoms_compose_to_a_bracket_of_the_exact_pair(t):
    eps, n = 0.7, 6
    atoms = _rr_atoms(eps)
    a = math.exp(eps) / (1 + math.exp(eps))
    f = Prebuilt((atoms, atoms), (atoms, atoms), variance=4 * eps * eps * a * (1 - a))
    num = compose([(f, n)], 1e-4, directions=("f", "inverse"), label="rr")
    lo, hi = num.delta_bounds(t)
    truth = _rr_delta(eps, n, t)
    assert lo - 1e-12 <= truth <= hi + 1e-12
    assert num.source == () and repr(num).startswith("Numeric(rr")


def test_prebuilt_symmetric_tradeoff_uses_the_engine_lattices():
    g = fdp.Gaussian(1.0)
    num = compose([(Prebuilt(g, None, 1.0), 3)], 1e-4, directions=("f", "inverse"))
    lo, hi = num.bounds(0.2)
    assert lo <= fdp.Gaussian(math.sqrt(3.0))(0.2) <= hi


@pytest.mark.parametrize("kwargs, match", [
    (dict(grid="coarse"), "grid must be"),
    (dict(directions=("f", "f", "f")), "directions must be"),
    (dict(directions="f"), "directions must be"),
])
def test_entry_refuses_unknown_policies(kwargs, match):
    with pytest.raises(ValueError, match=match):
        compose([(fdp.Gaussian(1.0), 2)], 1e-3, **kwargs)


def test_prebuilt_refusals():
    atoms = _rr_atoms(0.5)
    with pytest.raises(ValueError, match="grid='tol' only"):
        compose([(Prebuilt((atoms, atoms), (atoms, atoms), 0.2), 1)], grid="question")
    with pytest.raises(ValueError, match="both directions"):
        Prebuilt((atoms, atoms), None, 0.2)
    with pytest.raises(ValueError, match="symmetric"):
        Prebuilt(fdp.Gaussian(1.0).subsample(0.1, direction="add"), None, 0.2)
    with pytest.raises(ValueError, match="variance must be positive"):
        Prebuilt((atoms, atoms), (atoms, atoms), 0.0)
    with pytest.raises(TypeError, match="TradeOff, count"):
        compose_numeric([(Prebuilt((atoms, atoms), (atoms, atoms), 0.2), 1)])
