"""Property tests of the operations at the edges: ε up to 700, α and δ down to 1e-300,
p ∈ [1e-300, 1], group sizes up to 10⁴. No NaN, no RuntimeWarning (pytest turns them
into errors), lower ≤ upper, and two independent routes agree where both are exact."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.operations.subsample import PoissonAdd

ALPHA = np.array([0.0, 1e-300, 1e-100, 1e-20, 1e-5, 0.1, 0.5, 0.9, 1 - 1e-12, 1.0])
EPS = np.array([-np.inf, -700.0, -3.0, 0.0, 0.5, 3.0, 100.0, 700.0, 1e4, np.inf])

epsilons = st.one_of(st.just(0.0), st.floats(1e-6, 700.0))
deltas = st.one_of(st.just(0.0), st.floats(-300.0, -0.5).map(lambda t: 10.0 ** t))
rates = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(-300.0, 0.0).map(lambda t: 10.0 ** t))


@settings(max_examples=40)
@given(eps=epsilons, delta=deltas, p=rates)
def test_poisson_profile_matches_the_mixture_pair(eps, delta, p):
    """δ of f_p = p f + (1 − p) Id two ways: the amplified profile
    p δ_f(log(1 + (e^ε − 1)/p)) and the exact mixture pair (P, (1 − p)P + pQ)."""
    fp = PoissonAdd(fdp.EpsDelta(eps, delta), p)
    pair = fp._pair()
    e = EPS[np.isfinite(EPS)]
    a, b = fp._delta(e), pair._delta(e)
    # relative agreement, up to the proven rounding each route now adds to its upper δ
    # (the pair's vertices and its largest loss rounded up; the family's closed form)
    assert np.all(np.abs(a - b) <= 1e-9 * np.maximum(a, b) + 1e-13)
    inv_a, inv_b = fp.inverse()._delta(e), pair.inverse()._delta(e)
    # the generic inverse's upper δ carries its rounding bound, (e³ + 1)·2⁻⁵¹ ≈ 9.4e-15,
    # on top of the closed form's own proven rounding (measured up to 4e-14)
    assert np.all(np.abs(inv_a - inv_b) <= 1e-9 * np.maximum(inv_a, inv_b) + 1e-13)


FAMILIES = st.one_of(
    st.builds(fdp.EpsDelta, epsilons, deltas),
    st.builds(fdp.Gaussian, st.floats(1e-8, 30.0)),
    st.builds(fdp.Laplace, st.floats(1e-8, 300.0)),
)
OPS = {
    "inverse": lambda f, p, k: f.inverse(),
    "add": lambda f, p, k: f.subsample(p, direction="add"),
    "remove": lambda f, p, k: f.subsample(p, direction="remove"),
    "both": lambda f, p, k: f.subsample(p),
    "cp": lambda f, p, k: f.subsample(p, sampling="without_replacement"),
    "with_delta": lambda f, p, k: f @ fdp.EpsDelta(0.0, min(p, 0.5)),
    "group": lambda f, p, k: f.group(k),
    "strongest": lambda f, p, k: fdp.strongest(f, fdp.EpsDelta(1.0)),
    "envelope": lambda f, p, k: fdp.envelope(f, fdp.Gaussian(1.0)),
}


@settings(max_examples=25)
@given(f=FAMILIES, op=st.sampled_from(sorted(OPS)), p=rates, k=st.integers(1, 10 ** 4))
@pytest.mark.slow
def test_operations_at_the_edges_are_finite_and_ordered(f, op, p, k):
    if op == "group" and isinstance(f, fdp.Laplace):
        k = min(k, max(1, int(700.0 / f.mu)))   # L_{kμ} evaluation past e^{709}: family's own range
    g = OPS[op](f, p, k)
    lo, hi = g.bounds(ALPHA)
    assert np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))
    assert np.all((lo >= 0.0) & (hi <= 1.0 - ALPHA + 1e-15) & (lo <= hi + 1e-15))
    d = g.delta(EPS)
    assert np.all(np.isfinite(d)) and np.all((d >= 0.0) & (d <= 1.0))
    assert np.all(np.diff(d) <= 1e-12)
    dl = g._delta_lower(EPS[1:-1])
    assert np.all(dl <= d[1:-1] + 1e-15)
    for target in (1e-300, 1e-10, 0.3):
        el, eh = g.epsilon_bounds(target)
        assert not np.isnan(el) and not np.isnan(eh) and el <= eh


@pytest.mark.parametrize("k", [1, 2, 7, 10 ** 4])
def test_pure_dp_group_at_eps_700(k):
    """(700, 0)-DP groups: ε(δ) = 700k + log(1 − δ(1 + e^{−700})), far past e^{709}."""
    g = fdp.EpsDelta(700.0).group(k)
    assert g.epsilon(1e-300) == pytest.approx(700.0 * k, rel=1e-15)
    truth = -np.expm1(-1.0) / (1 + np.exp(-700.0))
    assert g.delta(700.0 * k - 1.0) == pytest.approx(truth, rel=1e-12)
