"""The composition rule table keyed by pairs of kinds (fdp/operations/compose.py)."""

import pathlib
from math import comb

import numpy as np
import pytest

import fdp
from fdp.families.finite_pair import MAX_ATOMS, power, product
from fdp.operations.compose import POWERS, RULES, _classify

ROOT = pathlib.Path(fdp.__file__).parent


def test_kinds_come_from_the_objects():
    assert fdp.Gaussian(1.0)._composition_kind() == "gaussian"
    assert fdp.Identity()._composition_kind() == "neutral"
    assert fdp.EpsDelta(0.0, 0.0)._composition_kind() == "neutral"
    assert fdp.EpsDelta(1.0, 1e-6)._composition_kind() == "eps_delta"
    assert fdp.Laplace(1.0)._composition_kind() is None
    assert _classify(fdp.Laplace(1.0))[0] == "numeric"
    assert _classify(fdp.RandomizedResponse(1.0, 3))[0] == "pair"


def test_table_is_keyed_by_pairs_with_none_for_no_closed_form():
    assert all(isinstance(k, tuple) and len(k) == 2 for k in RULES)
    assert RULES[("gaussian", "pair")] is None and RULES[("pair", "gaussian")] is None
    assert callable(RULES[("gaussian", "gaussian")]) and callable(RULES[("pair", "pair")])
    assert set(POWERS) == {"gaussian", "eps_delta", "pair"}


@pytest.mark.parametrize("mus", [(0.3, 0.4), (1.0, 2.0, 2.0), (0.1,) * 7])
def test_gaussian_rule_against_the_closed_form(mus):
    f = fdp.compose(*[fdp.Gaussian(m) for m in mus])
    assert isinstance(f, fdp.Gaussian)
    assert f.mu == pytest.approx(np.sqrt(sum(m * m for m in mus)), rel=1e-15)


def _kov_delta(n, eps, t):
    """δ(t) of f_{ε,0}^{⊗n} by exact enumeration of the binomial pair (KOV Thm 3.3)."""
    total = 0.0
    for j in range(n + 1):
        loss = (n - 2 * j) * eps          # j "flipped" coordinates
        q_mass = comb(n, j) * np.exp((n - j) * eps) / (1 + np.exp(eps)) ** n
        if loss > t:
            total += q_mass * (1 - np.exp(t - loss))
    return total


@pytest.mark.parametrize("n, eps", [(3, 1.0), (12, 0.25), (40, 0.1)])
def test_eps_delta_power_rule_against_kov(n, eps):
    f = fdp.EpsDelta(eps) ** n
    assert f.is_exact
    for t in np.linspace(0.0, n * eps, 7):
        assert float(f.delta(t)) == pytest.approx(_kov_delta(n, eps, t), rel=1e-11, abs=1e-15)


def test_eps_delta_with_delta_composes_exactly():
    n, eps, d = 5, 0.5, 1e-4
    f = fdp.EpsDelta(eps, d) ** n
    dn = 1 - (1 - d) ** n
    t = 1.0
    assert float(f.delta(t)) == pytest.approx(dn + (1 - dn) * _kov_delta(n, eps, t), rel=1e-11)


def test_pair_without_rule_goes_to_the_engine_with_a_certified_bracket():
    g, lap = fdp.Gaussian(1.0), fdp.Laplace(1.0)
    f = fdp.compose(g, fdp.EpsDelta(1.0), tol=1e-3)
    assert not f.is_exact
    lo, hi = f.bounds(np.array([0.05, 0.3, 0.6]))
    assert np.all(lo <= hi)
    # composition only lowers the curve: f ≤ each factor
    assert np.all(hi <= np.minimum(g(np.array([0.05, 0.3, 0.6])), 1.0) + 1e-12)
    h = fdp.compose(g, lap, tol=1e-3)
    lo, hi = h.epsilon_bounds(1e-5)
    assert lo <= hi < np.inf


def test_too_large_is_a_return_value_and_the_engine_answers():
    q = np.linspace(1, 2, 2001)
    a = fdp.from_pair(np.full(2001, 1 / 2001), q / q.sum())
    assert a.p.size ** 2 > MAX_ATOMS
    assert product(a, a) is None and power(a, 2) is None
    f = fdp.compose(a, a, tol=1e-3)
    assert not f.is_exact
    lo, hi = f.bounds(np.array([0.1, 0.5]))
    assert np.all(lo <= hi)
    exact_at = float(a(0.5))
    assert float(hi[1]) <= exact_at + 1e-12          # composition only lowers the curve


def test_no_exception_class_is_used_for_control_flow():
    sources = [p.read_text() for p in ROOT.rglob("*.py")]
    assert not any("TooManyAtoms" in s for s in sources)
    mine = [p.read_text() for d in ("operations", "conversions", "families")
            for p in (ROOT / d).glob("*.py")] + [(ROOT / "tradeoff.py").read_text()]
    assert not any("except MemoryError" in s for s in mine)
