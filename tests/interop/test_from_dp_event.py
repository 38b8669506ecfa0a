"""fdp.from_dp_event on duck-typed events (no dp_accounting needed).

The stand-in classes below carry dp_accounting's class names and attributes; the
adapter reads nothing else. Truths: closed forms evaluated with mpmath, exact
enumeration of finite pairs, the binomial privacy-loss law of k-fold ε-DP.
"""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp.interop.dp_events import UnsupportedEventError, check_dp_event, from_dp_event


# -- stand-ins with dp_accounting's names and fields ------------------------------
@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath at 50 digits for this module's reference values (restored afterwards)."""
    with mp.workdps(50):
        yield


@dataclass(frozen=True)
class NoOpDpEvent:
    pass


@dataclass(frozen=True)
class NonPrivateDpEvent:
    pass


@dataclass(frozen=True)
class UnsupportedDpEvent:
    pass


@dataclass(frozen=True)
class GaussianDpEvent:
    noise_multiplier: float


@dataclass(frozen=True)
class LaplaceDpEvent:
    noise_multiplier: float


@dataclass(frozen=True)
class RandomizedResponseDpEvent:
    noise_parameter: float
    num_buckets: int


@dataclass(frozen=True)
class EpsilonDeltaDpEvent:
    epsilon: float
    delta: float


@dataclass(frozen=True)
class ExponentialMechanismDpEvent:
    epsilon: float


@dataclass(frozen=True)
class PermuteAndFlipDpEvent:
    epsilon: float


@dataclass(frozen=True)
class DiscreteLaplaceDpEvent:
    noise_parameter: float
    sensitivity: int


@dataclass(frozen=True)
class DiscreteGaussianDpEvent:
    sigma: float
    sensitivity: float = 1.0
    dimension: int | None = None


@dataclass(frozen=True)
class SelfComposedDpEvent:
    event: object
    count: int


@dataclass(frozen=True)
class ComposedDpEvent:
    events: list = field(default_factory=list)


@dataclass(frozen=True)
class PoissonSampledDpEvent:
    sampling_probability: float
    event: object


@dataclass(frozen=True)
class SampledWithoutReplacementDpEvent:
    source_dataset_size: int
    sample_size: int
    event: object


@dataclass(frozen=True)
class SampledWithReplacementDpEvent:
    source_dataset_size: int
    sample_size: int
    event: object


@dataclass(frozen=True)
class MixtureOfGaussiansDpEvent:
    standard_deviation: float
    sensitivities: tuple
    sampling_probs: tuple


@dataclass(frozen=True)
class TruncatedSubsampledGaussianDpEvent:
    dataset_size: int
    sampling_probability: float
    truncated_batch_size: int
    noise_multiplier: float


@dataclass(frozen=True)
class RandomAllocationDpEvent:
    event: object
    num_selected: int
    num_steps: int


@dataclass(frozen=True)
class RepeatAndSelectDpEvent:
    event: object
    mean: float
    shape: float


@dataclass(frozen=True)
class SingleEpochTreeAggregationDpEvent:
    noise_multiplier: float
    step_counts: int


@dataclass(frozen=True)
class SomethingElseDpEvent:
    pass


# -- independent truths ----------------------------------------------------------
def gdp_delta_mp(mu, eps):
    """δ(ε) of G_μ (DRS Cor 2.13), in mpmath."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2)


def pair_delta_mp(p, q, eps):
    """δ(ε) = Σ max(0, q_i − e^ε p_i) ... for the ordered pair (P, Q), both orders maxed."""
    e = mp.e ** mp.mpf(eps)
    one = sum(max(mp.mpf(0), qi - e * pi) for pi, qi in zip(p, q))
    two = sum(max(mp.mpf(0), pi - e * qi) for pi, qi in zip(p, q))
    return max(one, two)


def pure_composed_delta_mp(eps0, k, eps):
    """δ(ε) of f_{ε0,0}^{⊗k}: privacy loss ε0(2B − k), B ~ Bin(k, e^ε0/(1 + e^ε0))."""
    eps0, eps = mp.mpf(eps0), mp.mpf(eps)
    p = mp.e ** eps0 / (1 + mp.e ** eps0)
    total = mp.mpf(0)
    for b in range(k + 1):
        loss = eps0 * (2 * b - k)
        if loss > eps:
            total += mp.binomial(k, b) * p ** b * (1 - p) ** (k - b) * (1 - mp.e ** (eps - loss))
    return total


def epsilon_for_delta_mp(delta_fn, delta, hi):
    lo = mp.mpf(0)
    hi = mp.mpf(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        if delta_fn(mid) > delta:
            lo = mid
        else:
            hi = mid
    return float(hi)


# -- leaves ----------------------------------------------------------------------
@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0, 1e-3, 1e3])
def test_gaussian_event_is_gdp_with_mu_rounded_up(sigma):
    f = from_dp_event(GaussianDpEvent(sigma))
    assert isinstance(f, fdp.Gaussian)
    assert Fraction(f.mu) >= 1 / Fraction(sigma)          # never more private than 1/σ
    assert f.mu <= np.nextafter(1.0 / sigma, np.inf)
    for eps in (0.0, 0.5, 3.0):
        assert f.delta(eps) == pytest.approx(float(gdp_delta_mp(1 / mp.mpf(sigma), eps)),
                                             rel=1e-9, abs=1e-300)


def test_replace_one_gaussian_uses_sensitivity_two_by_default():
    assert from_dp_event(GaussianDpEvent(2.0), "replace_one") == fdp.Gaussian(1.0)
    assert from_dp_event(GaussianDpEvent(2.0), "replace_one",
                         replace_one_sensitivity=1.0) == fdp.Gaussian(0.5)
    assert from_dp_event(GaussianDpEvent(2.0), "add_remove",
                         replace_one_sensitivity=1.0) == fdp.Gaussian(0.5)


def test_laplace_event_matches_closed_form():
    # L_μ: δ(ε) = 1 − e^{(ε − μ)/2} for 0 ≤ ε ≤ μ (DRS Appendix A), μ = 1/b
    f = from_dp_event(LaplaceDpEvent(0.5))
    assert f == fdp.Laplace(2.0)
    for eps in (0.0, 0.7, 1.9):
        assert f.delta(eps) == pytest.approx(-math.expm1((eps - 2.0) / 2), rel=1e-9)
    assert f.epsilon(0.0) == pytest.approx(2.0, rel=1e-9)


@pytest.mark.parametrize("p,k", [(0.5, 2), (0.25, 4), (0.9, 10), (1e-6, 3)])
def test_randomized_response_event_against_enumeration(p, k):
    f = from_dp_event(RandomizedResponseDpEvent(p, k), "replace_one")
    pm, qm = [mp.mpf(1) - p + mp.mpf(p) / k] + [mp.mpf(p) / k] * (k - 1), None
    qm = [pm[1], pm[0]] + pm[2:]
    for eps in (0.0, 0.3, 1.0):
        truth = float(pair_delta_mp(pm, qm, eps))
        got = f.delta(eps)
        assert got >= truth - 1e-15                         # safe side
        assert got == pytest.approx(truth, rel=1e-9, abs=1e-15)


def test_randomized_response_edges():
    assert isinstance(from_dp_event(RandomizedResponseDpEvent(0.3, 1), "replace_one"),
                      fdp.Identity)
    assert from_dp_event(RandomizedResponseDpEvent(1.0, 4), "replace_one").epsilon(0.0) == 0.0
    assert from_dp_event(RandomizedResponseDpEvent(0.0, 4), "replace_one").epsilon(0.5) == math.inf
    with pytest.raises(UnsupportedEventError, match="replace_one"):
        from_dp_event(RandomizedResponseDpEvent(0.5, 2), "add_remove")


def test_epsilon_delta_and_permute_and_flip():
    assert from_dp_event(EpsilonDeltaDpEvent(1.0, 1e-6)) == fdp.EpsDelta(1.0, 1e-6)
    assert from_dp_event(PermuteAndFlipDpEvent(0.5)) == fdp.EpsDelta(0.5)
    assert from_dp_event(EpsilonDeltaDpEvent(1.0, 1.0)).epsilon(0.5) == math.inf
    assert from_dp_event(EpsilonDeltaDpEvent(math.inf, 0.0)).epsilon(0.5) == math.inf


def test_exponential_mechanism_count_ten_is_ten_compositions():
    # A peer's RDP accountant ignored count for this event (reporting 1.0058 at count 10);
    # ten compositions of a 1-DP mechanism can never be below the single-step value times
    # anything less than ten at small δ.
    one = from_dp_event(ExponentialMechanismDpEvent(1.0))
    ten = from_dp_event(SelfComposedDpEvent(ExponentialMechanismDpEvent(1.0), 10))
    eps10 = ten.epsilon(1e-5)
    assert eps10 > 5.0 * one.epsilon(1e-5)
    if not hasattr(fdp, "BoundedRange"):
        # as 1-DP composed exactly (Kairouz, Oh & Viswanath): the binomial loss law
        truth = epsilon_for_delta_mp(lambda e: pure_composed_delta_mp(1, 10, e), 1e-5, 10)
        assert eps10 >= truth - 1e-9
        assert eps10 == pytest.approx(truth, abs=1e-6)
        assert eps10 == pytest.approx(9.99977, abs=1e-4)
    # the same through ComposedDpEvent of ten copies
    composed = from_dp_event(ComposedDpEvent([ExponentialMechanismDpEvent(1.0)] * 10))
    assert composed.epsilon(1e-5) == pytest.approx(eps10, rel=1e-9)


@pytest.mark.skipif(not hasattr(fdp, "DiscreteLaplace"), reason="fdp.DiscreteLaplace absent")
def test_discrete_laplace_event_against_exact_sum():
    a, c = 0.5, 2
    f = from_dp_event(DiscreteLaplaceDpEvent(a, c))
    # P(z) ∝ e^{−a|z|}: the pair (DLap, DLap + c); losses bounded by a·c
    zs = range(-200, 203)
    norm = mp.tanh(mp.mpf(a) / 2)
    pm = [norm * mp.e ** (-a * abs(z)) for z in zs]
    qm = [norm * mp.e ** (-a * abs(z - c)) for z in zs]
    for eps in (0.0, 0.4, 0.9):
        truth = float(pair_delta_mp(pm, qm, eps))
        assert f.delta(eps) >= truth - 1e-12
        assert f.delta(eps) == pytest.approx(truth, rel=1e-6, abs=1e-12)
    assert f.epsilon(0.0) == pytest.approx(a * c, rel=1e-9)


@pytest.mark.skipif(not hasattr(fdp, "DiscreteGaussian"), reason="fdp.DiscreteGaussian absent")
def test_discrete_gaussian_event_against_exact_sum():
    sigma = 1.5
    f = from_dp_event(DiscreteGaussianDpEvent(sigma, 1.0, 1))
    zs = range(-60, 62)
    w = [mp.e ** (-mp.mpf(z) ** 2 / (2 * sigma ** 2)) for z in zs]
    norm = sum(w)
    pm = [x / norm for x in w]
    qm = [mp.e ** (-mp.mpf(z - 1) ** 2 / (2 * sigma ** 2)) / norm for z in zs]
    for eps in (0.0, 0.5, 1.0):
        truth = float(pair_delta_mp(pm, qm, eps))
        assert f.delta(eps) >= truth - 1e-12
        assert f.delta(eps) == pytest.approx(truth, rel=1e-6, abs=1e-12)


def test_discrete_gaussian_needs_dimension_one():
    with pytest.raises(UnsupportedEventError, match="dimension"):
        from_dp_event(DiscreteGaussianDpEvent(1.0, 1.0, None))
    with pytest.raises(UnsupportedEventError, match="dimension"):
        from_dp_event(DiscreteGaussianDpEvent(1.0, 1.0, 3))


# -- structure -------------------------------------------------------------------
def test_poisson_composition_is_composed_per_direction_then_symmetrised():
    step = PoissonSampledDpEvent(0.1, GaussianDpEvent(3.0))
    f = from_dp_event(SelfComposedDpEvent(step, 512))
    lo, hi = f.epsilon_bounds(1e-6)
    assert lo <= hi and hi - lo <= 1e-3 * hi               # dpsgd's question-sized bracket
    assert hi == pytest.approx(3.77, abs=0.01)             # jax_privacy's documented value
    # symmetrising every step instead would be much looser: the adapter must not
    per_step = fdp.Gaussian(1 / 3).subsample(0.1) ** 512
    assert per_step.epsilon(1e-6) > hi + 0.05


def test_mixed_composition_is_at_least_each_part():
    sub = SelfComposedDpEvent(PoissonSampledDpEvent(0.05, GaussianDpEvent(1.0)), 100)
    both = from_dp_event(ComposedDpEvent([sub, GaussianDpEvent(4.0)]))
    alone = from_dp_event(sub)
    both_lo = both.epsilon_bounds(1e-5)[0]     # one certified read-out, used twice
    assert both_lo >= alone.epsilon_bounds(1e-5)[0]
    assert both_lo >= fdp.Gaussian(0.25).epsilon(1e-5)


def test_without_replacement_is_C_p_under_replace_one():
    ev = SampledWithoutReplacementDpEvent(1000, 10, GaussianDpEvent(2.0))
    f = from_dp_event(ev, "replace_one", replace_one_sensitivity=1.0)
    g = fdp.Gaussian(0.5).subsample(0.01, sampling="without_replacement")
    a = np.linspace(0, 1, 101)
    assert np.array_equal(f(a), g(a))
    assert from_dp_event(SampledWithoutReplacementDpEvent(10, 0, GaussianDpEvent(1.0)),
                         "replace_one") == fdp.Identity()


def test_nonprivate_and_noop():
    assert from_dp_event(NoOpDpEvent()) == fdp.Identity()
    assert from_dp_event(NonPrivateDpEvent()).epsilon(0.1) == math.inf
    assert from_dp_event(GaussianDpEvent(0.0)).epsilon(0.1) == math.inf
    assert from_dp_event(GaussianDpEvent(math.inf)) == fdp.Identity()
    assert from_dp_event(GaussianDpEvent(1e-310)).epsilon(0.1) == math.inf   # μ overflows
    mixed = ComposedDpEvent([GaussianDpEvent(1.0), NonPrivateDpEvent()])
    assert from_dp_event(mixed).epsilon(0.5) == math.inf
    assert from_dp_event(SelfComposedDpEvent(NonPrivateDpEvent(), 0)) == fdp.Identity()
    assert from_dp_event(PoissonSampledDpEvent(0.0, NonPrivateDpEvent())) == fdp.Identity()
    full = SelfComposedDpEvent(PoissonSampledDpEvent(1.0, GaussianDpEvent(2.0)), 4)
    assert from_dp_event(full) == fdp.Gaussian(1.0)         # q = 1: closed form, exact
    assert from_dp_event(ComposedDpEvent([])) == fdp.Identity()


# -- errors ----------------------------------------------------------------------
@pytest.mark.parametrize("event,needle", [
    (UnsupportedDpEvent(), "no DP description"),
    # the events below are mapped under their own relation (tests/interop/
    # test_from_dp_event_all.py); under add/remove, or with an inner event fdp has no
    # bound for, they are refused with the reason
    (SampledWithReplacementDpEvent(100, 10, GaussianDpEvent(1.0)), "replace_one"),
    (SampledWithReplacementDpEvent(100, 10, LaplaceDpEvent(1.0)), "replace_one"),
    (RandomAllocationDpEvent(LaplaceDpEvent(1.0), 1, 10), "Gaussian steps only"),
    (SingleEpochTreeAggregationDpEvent(1.0, 5), "replace_special"),
    (SomethingElseDpEvent(), "supported: "),
])
def test_unsupported_events_say_what_to_use_instead(event, needle):
    with pytest.raises(UnsupportedEventError, match=type(event).__name__) as info:
        from_dp_event(event)
    needles = needle if isinstance(needle, tuple) else (needle,)
    assert any(n in str(info.value) for n in needles)
    with pytest.raises(UnsupportedEventError):
        check_dp_event(ComposedDpEvent([GaussianDpEvent(1.0), event]))


def test_relations_and_bad_parameters():
    with pytest.raises(UnsupportedEventError, match="add_remove"):
        from_dp_event(PoissonSampledDpEvent(0.1, GaussianDpEvent(1.0)), "replace_one")
    with pytest.raises(UnsupportedEventError, match="replace_one"):
        from_dp_event(SampledWithoutReplacementDpEvent(10, 2, GaussianDpEvent(1.0)))
    with pytest.raises(ValueError, match="neighbouring"):
        from_dp_event(GaussianDpEvent(1.0), "replace_all")
    with pytest.raises(ValueError, match="replace_one_sensitivity"):
        from_dp_event(GaussianDpEvent(1.0), replace_one_sensitivity=3.0)
    with pytest.raises(ValueError, match=r"GaussianDpEvent\.noise_multiplier"):
        from_dp_event(GaussianDpEvent(-1.0))
    with pytest.raises(ValueError, match="sampling_probability"):
        from_dp_event(PoissonSampledDpEvent(1.5, GaussianDpEvent(1.0)))
    with pytest.raises(ValueError, match="count"):
        from_dp_event(SelfComposedDpEvent(GaussianDpEvent(1.0), -1))
    with pytest.raises(ValueError, match="sample_size"):
        from_dp_event(SampledWithoutReplacementDpEvent(10, 11, GaussianDpEvent(1.0)),
                      "replace_one")

    @dataclass(frozen=True)
    class GaussianDpEvent_:
        sigma: float
    GaussianDpEvent_.__name__ = "GaussianDpEvent"
    with pytest.raises(UnsupportedEventError, match="noise_multiplier"):
        from_dp_event(GaussianDpEvent_(1.0))


def test_import_fdp_pulls_no_interop_library():
    code = ("import sys, fdp; fdp.from_dp_event; import fdp.interop.opacus, "
            "fdp.interop.dp_events; bad = {'torch', 'opacus', 'dp_accounting'} & "
            "set(sys.modules); assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- properties ------------------------------------------------------------------
# Engine limits kept out of this property (reported separately): a leaf ε or sampling
# rate that is tiny but non-zero asks the numeric engine for a grid it refuses.
small = st.one_of(st.just(0.0), st.floats(0.01, 2.0))
leaves = st.one_of(
    st.floats(0.3, 20.0).map(GaussianDpEvent),
    st.floats(0.5, 20.0).map(LaplaceDpEvent),
    st.builds(EpsilonDeltaDpEvent, small, st.floats(0.0, 0.1)),
    small.map(PermuteAndFlipDpEvent),
)
rates = st.one_of(st.just(0.0), st.just(1.0), st.floats(1e-3, 1.0))
steps = st.one_of(leaves, st.builds(PoissonSampledDpEvent, rates, leaves))
trees = st.one_of(
    steps,
    st.builds(SelfComposedDpEvent, steps, st.integers(0, 30)),
    st.lists(steps, min_size=1, max_size=3).map(ComposedDpEvent),
)


@settings(max_examples=10)   # each draw composes an event tree twice
@given(trees)
def test_property_bracket_and_composition_monotone(event):
    f = from_dp_event(event)
    a = np.linspace(0.0, 1.0, 41)
    lo, hi = f.bounds(a)
    assert np.all(lo <= hi + 1e-12)
    assert np.all(lo <= 1.0 - a + 1e-12) and np.all(np.diff(lo) <= 1e-12)
    e_lo, e_hi = f.epsilon_bounds(1e-5)
    assert e_lo <= e_hi
    # one more Gaussian step never makes the whole more private
    more = from_dp_event(ComposedDpEvent([event, GaussianDpEvent(5.0)]))
    assert more.epsilon_bounds(1e-5)[1] >= e_lo - 1e-9
