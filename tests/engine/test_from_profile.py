"""Functions known only through β: the loss-range cache cannot alias.

``profile_range`` is computed once per object. The independent truth is a fresh
computation (``_profile_range``) for every new object, in a loop that creates and
drops objects so that CPython reuses their ids; and a weak reference that shows the
cache does not keep an object alive.
"""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass

import numpy as np

import fdp
from fdp.engine import from_profile
from fdp.engine.from_profile import _profile_range, profile_range


@dataclass(frozen=True)
class PowerCurve(fdp.TradeOff):
    """β(α) = (1 − α)^k, k ≥ 1: convex, decreasing, ≤ 1 − α; no loss law is known."""

    k: float

    def _beta(self, alpha):
        return (1.0 - np.asarray(alpha, dtype=float)) ** self.k


class Unhashable(fdp.TradeOff):
    """A user function holding an array: neither hashable nor comparable."""

    __hash__ = None  # type: ignore[assignment]  # the point of this class

    def __init__(self, k):
        self.k = np.array([k])

    def _beta(self, alpha):
        return (1.0 - np.asarray(alpha, dtype=float)) ** float(self.k[0])


def test_no_stale_range_for_an_object_that_reuses_an_id(monkeypatch):
    # a cheap stand-in for the profile computation, whose truth is the object's own
    # parameter: any entry returned for another object would show as a wrong k
    calls = []

    def fake(f):
        calls.append(f.k)
        return (-f.k, f.k)
    monkeypatch.setattr(from_profile, "_profile_range", fake)
    seen_ids = set()
    reused = 0
    for i in range(300):
        f = PowerCurve(1.0 + i)
        reused += id(f) in seen_ids
        seen_ids.add(id(f))
        assert profile_range(f) == (-f.k, f.k)
        assert profile_range(f) == (-f.k, f.k)        # the cached value, same object
        del f                    # freed at once (reference counting): its id is free
    assert reused > 0            # the loop did exercise id reuse (CPython frees at once)
    assert len(calls) == 300     # one computation per object: cached, never shared


def test_the_cached_range_is_the_computed_one():
    f = PowerCurve(2.5)
    assert profile_range(f) == _profile_range(f)
    assert profile_range(f) == _profile_range(f)


def test_the_cache_does_not_keep_objects_alive():
    f = PowerCurve(3.0)
    profile_range(f)
    assert f in from_profile._RANGES
    ref = weakref.ref(f)
    del f
    gc.collect()
    assert ref() is None
    assert all(getattr(g, "k", None) != 3.0 for g in list(from_profile._RANGES.keys()))


def test_equal_objects_share_the_entry_and_unhashable_ones_are_not_cached():
    a, b = PowerCurve(2.0), PowerCurve(2.0)
    assert profile_range(a) == profile_range(b) == _profile_range(a)
    u = Unhashable(2.0)
    before = len(from_profile._RANGES)
    assert profile_range(u) == _profile_range(a)
    assert len(from_profile._RANGES) == before


def test_profile_only_function_composes_with_a_certified_bracket():
    # G_1 has a law, (1 − α)² is read through its profile; ⊗ brackets the truth
    # from both sides and lies between the two factors' own trade-offs
    f = PowerCurve(2.0)
    num = fdp.engine.compose_numeric([(f, 2)])
    a = np.linspace(0.05, 0.95, 19)
    lo, hi = num.bounds(a)
    assert np.all(lo <= hi + 1e-15)
    # composition only loses privacy: f ⊗ f ≤ f (DRS 2022, Prop 3.2 via Id ≥ f)
    assert np.all(lo <= f(a) + 1e-12)


@dataclass(frozen=True)
class PowerCurveWithPair(PowerCurve):
    """(1 − α)^k offering a finite pair above it (the hull of its values on a grid)."""

    def _upper_law(self):
        from fdp.conversions.renyi_law import upper_law
        grid = np.linspace(0.0, 1.0, 401)
        return upper_law(grid, (1.0 - grid) ** self.k)


def test_the_optimistic_side_reads_the_pair_above_f(monkeypatch):
    # truth: δ(ε) of (1 − α)^k in closed form, α* = 1 − (e^ε/k)^{1/(k−1)}
    k = 2.0
    f = PowerCurveWithPair(k)

    def no_tangents(*args):
        raise AssertionError("the tangent points of f were searched")
    monkeypatch.setattr(from_profile, "_tangent_alpha", no_tangents)
    step = 0.01
    lat = from_profile.from_profile(f, step, "optimistic")
    eps = np.array([-0.5, 0.0, 0.3, 0.6])
    a = np.clip(1.0 - (np.exp(eps) / k) ** (1.0 / (k - 1.0)), 0.0, 1.0)
    truth = 1.0 - (1.0 - a) ** k - np.exp(eps) * a
    got = lat.delta_raw(eps)
    assert np.all(got <= truth + 1e-12)   # optimistic: below the truth
    assert np.all(got >= truth - 2e-3)    # and close (grid 1/400, step 0.01)
