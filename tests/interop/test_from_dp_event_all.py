"""Every dp_accounting event (0.6 and main) through ``fdp.from_dp_event``.

Truths, independent of the adapter: dp_accounting's own PLD accountant (connect-the-dots,
an upper bound on its pair's δ at its discretisation) and RDP accountant (an upper bound);
one-step privacy profiles integrated in mpmath; exact lower instances (a concrete pair of
neighbouring datasets, whose curve lies above the true one); a published value.
Events newer than the installed dp_accounting (RandomAllocationDpEvent) are stand-ins with
main's class name and fields, subclassing ``dp_accounting.DpEvent``.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.stats import binom

import fdp
from fdp.interop.dp_events import UnsupportedEventError, check_dp_event, from_dp_event

dpa = pytest.importorskip("dp_accounting")

import attr  # noqa: E402  (dp_accounting's own dependency)

E = dpa.dp_event
PLD = dpa.pld.PLDAccountant
RDP = dpa.rdp.RdpAccountant
REL = dpa.NeighboringRelation


@attr.s(frozen=True, slots=True, auto_attribs=True)
class RandomAllocationDpEvent(dpa.DpEvent):
    """dp_accounting main's event (not in 0.6.0): same name and fields."""

    event: dpa.DpEvent
    num_selected: int
    num_steps: int


RandomAllocationDpEvent.__name__ = "RandomAllocationDpEvent"


@pytest.fixture(autouse=True)
def _mp_precision():
    with mp.workdps(30):
        yield


def overlap(a, b):
    """Two certified brackets of the same number intersect."""
    return a[0] <= b[1] + 1e-12 and b[0] <= a[1] + 1e-12


# -- independent one-step profiles (mpmath) --------------------------------------
def mog_delta_mp(mus, probs, eps):
    """max(δ_add, δ_remove)(ε) of P = N(0, 1) vs Q = Σ p_j N(μ_j, 1): L(x) is increasing,
    so the optimal tests are thresholds at L(x) = ±ε (root found by mpmath)."""
    mus = [mp.mpf(m) for m in mus]
    probs = [mp.mpf(p) for p in probs]

    def loss(x):
        return mp.log(sum(p * mp.e ** (m * x - m * m / 2) for m, p in zip(mus, probs)))

    def root(level):                    # L is increasing: bisection on [−60, 60]
        lo, hi = mp.mpf(-60), mp.mpf(60)
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if loss(mid) < level else (lo, mid)
        return (lo + hi) / 2

    e = mp.mpf(eps)
    x = root(e)
    add = sum(p * mp.ncdf(m - x) for m, p in zip(mus, probs)) - mp.e ** e * mp.ncdf(-x)
    p0 = sum(p for m, p in zip(mus, probs) if m == 0)
    if p0 > 0 and -e <= mp.log(p0):
        remove = mp.mpf(0)              # L ≥ log p0 > −ε everywhere
    else:
        y = root(-e)
        remove = mp.ncdf(y) - mp.e ** e * sum(p * mp.ncdf(y - m) for m, p in zip(mus, probs))
    return float(max(add, remove, 0))


def allocation_delta_mp(sigma, eps):
    """max(δ_add, δ_remove)(ε) of one random allocation of 1 of t = 2 steps:
    P = N(0, I₂), Q = ½N(μe₁, I₂) + ½N(μe₂, I₂), μ = 1/σ. In u = (x₁+x₂)/√2,
    v = (x₁−x₂)/√2 the loss is μu/√2 − μ²/2 + log cosh(μv/√2), increasing in u, so each
    profile is a 1-D integral over v of Gaussian tails."""
    mu, a, e = 1 / mp.mpf(sigma), 1 / (mp.mpf(sigma) * mp.sqrt(2)), mp.mpf(eps)

    def g(v, level):                                   # L > level  <=>  u > g
        return (level + mu * mu / 2 - mp.log(mp.cosh(a * v))) / a

    def add(v):
        t = g(v, e)
        q = (mp.npdf(v - a) + mp.npdf(v + a)) / 2 * mp.ncdf(a - t)
        return q - mp.e ** e * mp.npdf(v) * mp.ncdf(-t)

    def remove(v):
        t = g(v, -e)
        q = (mp.npdf(v - a) + mp.npdf(v + a)) / 2 * mp.ncdf(t - a)
        return mp.npdf(v) * mp.ncdf(t) - mp.e ** e * q

    with mp.workdps(20):
        return float(max(mp.quad(add, [-mp.inf, 0, mp.inf]),
                         mp.quad(remove, [-mp.inf, 0, mp.inf])))


def test_mpmath_profiles_reduce_to_known_closed_forms():
    # guards for the two references above: one component is G_μ, a zero-one mixture
    # is the Poisson-subsampled Gaussian, whose profile fdp's closed forms give
    mu, eps = 0.8, 0.7
    gdp = float(mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2))
    assert mog_delta_mp([mu], [1.0], eps) == pytest.approx(gdp, rel=1e-12)
    sub = fdp.Gaussian(1.0).subsample(0.3)
    assert mog_delta_mp([0.0, 1.0], [0.7, 0.3], 0.2) == pytest.approx(
        float(sub.delta(0.2)), rel=1e-6)


# -- MixtureOfGaussiansDpEvent ------------------------------------------------------
def test_mixture_one_step_contains_the_mpmath_profile():
    f = from_dp_event(E.MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0, 3.0], [0.5, 0.3, 0.2]))
    assert f.status in (fdp.Status.EXACT, fdp.Status.CERTIFIED)   # min{f, f⁻¹}** of a closed form
    for eps in (0.1, 0.5, 1.0, 2.0):
        truth = mog_delta_mp([0.0, 0.5, 1.5], [0.5, 0.3, 0.2], eps)
        lo, hi = f.delta_bounds(eps)
        assert lo <= truth * (1 + 1e-9) + 1e-15 and truth <= hi * (1 + 1e-9) + 1e-15
        assert hi - lo <= 1e-3 * truth + 1e-12


@pytest.mark.slow
def test_mixture_composed_matches_dp_accounting_pld():
    ev = E.SelfComposedDpEvent(E.MixtureOfGaussiansDpEvent(2.0, [0, 1, 2], [0.5, 0.3, 0.2]), 3)
    lo, hi = from_dp_event(ev).epsilon_bounds(1e-5)          # [4.01062, 4.01071]
    pld = PLD(value_discretization_interval=1e-3).compose(ev).get_epsilon(1e-5)   # 4.010689
    assert lo <= pld                      # connect-the-dots bounds its pair's ε from above
    assert hi == pytest.approx(pld, abs=2e-3)
    acct = fdp.interop.dp_accounting.FdpAccountant().compose(ev)
    assert acct.get_epsilon(1e-5) == hi


@pytest.mark.slow
def test_mixture_matches_pld_at_fine_discretisation():
    ev = E.SelfComposedDpEvent(E.MixtureOfGaussiansDpEvent(1.0, [0, 1, 2], [0.5, 0.3, 0.2]), 10)
    lo, hi = from_dp_event(ev).epsilon_bounds(1e-5)          # [21.01949, 21.01973]
    pld = PLD(value_discretization_interval=1e-4).compose(ev).get_epsilon(1e-5)   # 21.019657
    assert lo <= pld <= hi + 1e-4


def test_zero_one_mixture_is_the_dpsgd_run():
    # c = (0, 1), p = (1 − q, q) is the Poisson-subsampled Gaussian: two certified
    # brackets of the same ε, computed along different paths of fdp
    ev = E.SelfComposedDpEvent(E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.9, 0.1]), 20)
    a = from_dp_event(ev).epsilon_bounds(1e-5)                # [3.59070, 3.59077]
    b = fdp.dpsgd(1.0, 0.1, 20).epsilon_bounds(1e-5)
    assert overlap(a, b)


def test_mixture_edges_and_relations():
    assert from_dp_event(E.MixtureOfGaussiansDpEvent(1.0, [0.0], [1.0])) == fdp.Identity()
    assert from_dp_event(E.MixtureOfGaussiansDpEvent(math.inf, [1.0], [1.0])) == fdp.Identity()
    assert from_dp_event(E.MixtureOfGaussiansDpEvent(0.0, [0.0, 1.0], [0.5, 0.5])
                         ).epsilon(0.5) == math.inf
    with pytest.raises(UnsupportedEventError, match=r"MixtureOfGaussiansDpEvent.*add_remove"):
        from_dp_event(E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]), "replace_one")

    class Bad:                     # dp_accounting itself refuses these at construction
        standard_deviation, sensitivities, sampling_probs = 1.0, (0.0, 1.0), (0.3, 0.3)
    Bad.__name__ = "MixtureOfGaussiansDpEvent"
    with pytest.raises(ValueError, match=r"MixtureOfGaussiansDpEvent\.sampling_probs"):
        check_dp_event(Bad())
    Bad.sensitivities = (-1.0, 1.0)
    with pytest.raises(ValueError, match=r"MixtureOfGaussiansDpEvent\.sensitivities"):
        from_dp_event(Bad())


# -- TruncatedSubsampledGaussianDpEvent ---------------------------------------------
def _kept_rate(n, q, cap):
    """P(the record is drawn and kept) = q E[min(1, B/(M + 1))], M ~ Bin(n − 1, q)."""
    m = np.arange(n)
    return float(q * np.sum(binom.pmf(m, n - 1, q) * np.minimum(1.0, cap / (m + 1))))


def test_truncated_is_the_dpsgd_run_and_inside_its_truths():
    n, q, cap, sigma, steps = 1000, 0.01, 12, 1.0, 100
    ev = E.SelfComposedDpEvent(E.TruncatedSubsampledGaussianDpEvent(n, q, cap, sigma), steps)
    f = from_dp_event(ev)
    lo, hi = f.epsilon_bounds(1e-5)                           # [4.76882, 4.76895]
    g = fdp.dpsgd(sigma, q, steps, sampling="truncated_poisson", dataset_size=n, batch_cap=cap)
    assert (lo, hi) == tuple(g.epsilon_bounds(1e-5))          # handed to dpsgd itself
    # dp_accounting's PLD of a looser dominating pair (its second part is replace-one)
    pld = PLD(value_discretization_interval=1e-3).compose(ev).get_epsilon(1e-5)  # 4.82751
    assert hi <= pld
    # a lower instance: every other record has gradient 0, so the output moves only
    # when the record is drawn AND kept, at rate r' = q E[min(1, B/(M+1))]: the pair is
    # exactly the Poisson-subsampled Gaussian at r', whose curve lies above the truth
    low = fdp.dpsgd(sigma, _kept_rate(n, q, cap), steps).epsilon_bounds(1e-5)[0]
    assert 0.5 < low <= hi           # 0.680 ≤ 4.769 (the instance ignores displaced records)


def test_truncated_edges():
    plain = fdp.dpsgd(2.0, 0.05, 30).epsilon_bounds(1e-5)
    never = E.SelfComposedDpEvent(E.TruncatedSubsampledGaussianDpEvent(200, 0.05, 500, 2.0), 30)
    assert tuple(from_dp_event(never).epsilon_bounds(1e-5)) == tuple(plain)   # B ≥ n
    for args in [(0, 0.1, 5, 1.0), (10, 0.0, 5, 1.0), (10, 0.1, 0, 1.0)]:
        assert from_dp_event(E.TruncatedSubsampledGaussianDpEvent(*args)) == fdp.Identity()
    assert from_dp_event(E.TruncatedSubsampledGaussianDpEvent(10, 0.1, 5, 0.0)
                         ).epsilon(0.5) == math.inf
    with pytest.raises(UnsupportedEventError, match="truncated_poisson"):
        from_dp_event(E.TruncatedSubsampledGaussianDpEvent(10, 0.1, 5, 1.0), "replace_one")


# -- SampledWithReplacementDpEvent ---------------------------------------------------
def test_with_replacement_is_the_dpsgd_run_and_above_a_lower_instance():
    n, b, sigma = 20, 4, 1.0
    one = E.SampledWithReplacementDpEvent(n, b, E.GaussianDpEvent(sigma))
    f = from_dp_event(one, "replace_one", replace_one_sensitivity=1.0)
    g = fdp.dpsgd(sigma, b / n, 1, sampling="with_replacement", neighbouring="replace_one",
                  sensitivity=1.0, dataset_size=n)
    assert tuple(f.delta_bounds(1.0)) == tuple(g.delta_bounds(1.0))
    # lower instance (Δ = 1): the record x = C replaced by x' = 0, other records 0; the
    # batch sum is K·C, K ~ Bin(b, 1/n): P = Σ_k Bin(k) N(k, σ²) vs N(0, σ²)
    k = np.arange(b + 1)
    w = binom.pmf(k, b, 1 / n)
    for eps in (0.0, 0.5, 1.0, 2.0):
        truth_low = mog_delta_mp(k / sigma, w, eps)
        assert truth_low <= f.delta(eps) * (1 + 1e-9)


def test_with_replacement_of_one_record_is_without_replacement():
    # b = 1: one record drawn uniformly, with or without replacement alike; compare the
    # composed run with dp_accounting's RDP bound for the without-replacement event
    ev = E.SelfComposedDpEvent(E.SampledWithReplacementDpEvent(100, 1, E.GaussianDpEvent(0.8)),
                               50)
    wor = E.SelfComposedDpEvent(
        E.SampledWithoutReplacementDpEvent(100, 1, E.GaussianDpEvent(0.8)), 50)
    a = from_dp_event(ev, "replace_one", replace_one_sensitivity=1.0).epsilon_bounds(1e-5)
    b = from_dp_event(wor, "replace_one", replace_one_sensitivity=1.0).epsilon_bounds(1e-5)
    assert overlap(a, b)
    rdp = RDP(neighboring_relation=REL.REPLACE_ONE).compose(wor).get_epsilon(1e-5)
    assert a[1] <= rdp


def test_with_replacement_edges():
    g = E.GaussianDpEvent(1.0)
    assert from_dp_event(E.SampledWithReplacementDpEvent(10, 0, g), "replace_one") \
        == fdp.Identity()
    with pytest.raises(UnsupportedEventError, match="replace_one"):
        from_dp_event(E.SampledWithReplacementDpEvent(10, 2, g))
    with pytest.raises(UnsupportedEventError, match="GaussianDpEvent inside"):
        from_dp_event(E.SampledWithReplacementDpEvent(10, 2, E.LaplaceDpEvent(1.0)),
                      "replace_one")
    with pytest.raises(UnsupportedEventError, match="sample_size=12"):
        check_dp_event(E.SampledWithReplacementDpEvent(10, 12, g), "replace_one")


# -- RandomAllocationDpEvent (dp_accounting main) -------------------------------------
def test_random_allocation_one_of_two_contains_the_integral():
    ev = RandomAllocationDpEvent(E.GaussianDpEvent(1.0), 1, 2)
    f = from_dp_event(ev)
    assert f.status is fdp.Status.CERTIFIED
    for eps in (0.25, 1.0):
        truth = allocation_delta_mp(1.0, eps)                   # δ(1.0) = 0.0592008
        lo, hi = f.delta_bounds(eps)
        assert lo <= truth * (1 + 1e-9) and truth <= hi * (1 + 1e-9)


def test_random_allocation_published_value_and_epochs():
    # dp_accounting's random-allocation pull request: σ = 2, 10 of 100 steps, δ = 1e-6,
    # ε ≈ 2.4265 (its PLD, pessimistic); Poisson sampling at q = 0.1 gives 2.675
    ev = RandomAllocationDpEvent(E.GaussianDpEvent(2.0), 10, 100)
    lo, hi = from_dp_event(ev).epsilon_bounds(1e-6)            # [2.42379, 2.42399]
    assert hi <= 2.4265 and hi - lo <= 1e-3 * hi
    poisson = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(2.0)), 100)
    assert hi < from_dp_event(poisson).epsilon_bounds(1e-6)[0]
    three = from_dp_event(E.SelfComposedDpEvent(ev, 3)).epsilon_bounds(1e-6)
    assert tuple(three) == tuple(fdp.random_allocation(2.0, 100, 10, epochs=3)
                                 .epsilon_bounds(1e-6))
    acct = fdp.interop.dp_accounting.FdpAccountant().compose(ev, 3)
    assert acct.get_epsilon(1e-6) == three[1]


def test_random_allocation_edges():
    g = E.GaussianDpEvent(1.0)
    assert from_dp_event(RandomAllocationDpEvent(g, 0, 5)) == fdp.Identity()
    assert from_dp_event(RandomAllocationDpEvent(E.NoOpDpEvent(), 2, 5)) == fdp.Identity()
    assert from_dp_event(RandomAllocationDpEvent(E.NonPrivateDpEvent(), 1, 5)
                         ).epsilon(0.5) == math.inf
    with pytest.raises(UnsupportedEventError, match="Gaussian steps only"):
        check_dp_event(RandomAllocationDpEvent(E.LaplaceDpEvent(1.0), 1, 5))
    with pytest.raises(UnsupportedEventError, match="add_remove"):
        check_dp_event(RandomAllocationDpEvent(g, 1, 5), "replace_one")

    class Bad:                     # dp_accounting main refuses it at construction
        event, num_selected, num_steps = g, 6, 5
    Bad.__name__ = "RandomAllocationDpEvent"
    with pytest.raises(ValueError, match=r"num_selected must lie in \[0, num_steps=5\]"):
        check_dp_event(Bad())


# -- SingleEpochTreeAggregationDpEvent ------------------------------------------------
def test_tree_aggregation_is_exact_and_below_rdp():
    ev = E.SingleEpochTreeAggregationDpEvent(1.13, [1600, 800])
    f = from_dp_event(ev, "replace_special")
    assert f.status is fdp.Status.EXACT
    # one epoch across trees: the deepest tree counts, depth(1600) = 11
    assert f.mu == pytest.approx(math.sqrt(11) / 1.13, rel=1e-15)
    eps = f.epsilon(1e-6)                                      # 17.6668
    mu = mp.sqrt(11) / mp.mpf(1.13)
    delta = mp.ncdf(-eps / mu + mu / 2) - mp.e ** eps * mp.ncdf(-eps / mu - mu / 2)
    assert float(delta) == pytest.approx(1e-6, rel=1e-6)
    rdp = RDP(neighboring_relation=REL.REPLACE_SPECIAL).compose(ev).get_epsilon(1e-6)
    assert eps <= rdp                                          # 18.71
    acct = fdp.interop.dp_accounting.FdpAccountant(REL.REPLACE_SPECIAL)
    assert acct.compose(ev, 2).get_epsilon(1e-6) == (f ** 2).epsilon(1e-6)


def test_tree_aggregation_relation_and_edges():
    ev = E.SingleEpochTreeAggregationDpEvent(2.0, 5)
    with pytest.raises(UnsupportedEventError, match="replace_special"):
        from_dp_event(ev)
    with pytest.raises(UnsupportedEventError, match="replace_special"):
        check_dp_event(ev, "replace_one")
    assert from_dp_event(E.SingleEpochTreeAggregationDpEvent(0.0, 0), "replace_special") \
        == fdp.Identity()
    assert from_dp_event(E.SingleEpochTreeAggregationDpEvent(0.0, [0, 3]),
                         "replace_special").epsilon(0.5) == math.inf
    # other events under replace-special: only what is analysed there
    with pytest.raises(UnsupportedEventError, match="PoissonSampledDpEvent under"):
        from_dp_event(E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1.0)), "replace_special")
    mixed = E.ComposedDpEvent([ev, E.GaussianDpEvent(4.0)])
    assert from_dp_event(mixed, "replace_special").mu == pytest.approx(
        math.sqrt(3 / 4 + 1 / 16), rel=1e-15)


# -- RepeatAndSelectDpEvent -----------------------------------------------------------
@pytest.mark.parametrize("shape,rdp_eps", [(0.0, 3.8711), (1.0, 4.5477)])
def test_repeat_and_select_matches_dp_accounting_rdp(shape, rdp_eps):
    # the same analysis (Papernot & Steinke 2022, Thm 2) on dp_accounting's finite order
    # grid; fdp's certified Rényi curve differs from it by its order grid and rounding
    ev = E.RepeatAndSelectDpEvent(E.GaussianDpEvent(2.0), 10.0, shape)
    f = from_dp_event(ev)
    assert f.status is fdp.Status.CERTIFIED
    lo, hi = f.epsilon_bounds(1e-6)                 # [3.8741, 3.8747], [4.5527, 4.5530]
    rdp = RDP().compose(ev).get_epsilon(1e-6)
    assert rdp == pytest.approx(rdp_eps, abs=1e-4)
    assert hi == pytest.approx(rdp, rel=2e-3)
    # selecting among runs never leaks less than publishing one run, G_{1/2}
    assert lo >= fdp.Gaussian(0.5).epsilon(1e-6)


def test_repeat_and_select_poisson_and_structure():
    ev = E.RepeatAndSelectDpEvent(E.GaussianDpEvent(2.0), 10.0, math.inf)
    hi = from_dp_event(ev).epsilon_bounds(1e-6)[1]          # 4.2530 (Thm 6)
    assert hi <= RDP().compose(ev).get_epsilon(1e-6)       # dp_accounting: 5.1827
    assert from_dp_event(E.RepeatAndSelectDpEvent(E.GaussianDpEvent(2.0), 1.0, 1.0)) \
        == fdp.Gaussian(0.5)                              # K = 1 surely
    assert from_dp_event(E.RepeatAndSelectDpEvent(E.NoOpDpEvent(), 5.0, 1.0)) == fdp.Identity()
    with pytest.raises(ValueError, match=r"RepeatAndSelectDpEvent\.mean"):
        check_dp_event(_BadRepeat())


@pytest.mark.parametrize("inner,named", [
    (E.TruncatedSubsampledGaussianDpEvent(100, 0.1, 10, 2.0), "TruncatedSubsampledGaussianDpEvent"),
    (E.ZCDpEvent(0.1), "ZCDpEvent"),
    (E.ComposedDpEvent([E.GaussianDpEvent(1.0), E.DiscreteLaplaceDpEvent(0.5, 1)]),
     "DiscreteLaplaceDpEvent"),
    (E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(2.0)), "PoissonSampledDpEvent of Laplace"),
])
def test_repeat_and_select_needs_a_renyi_curve_and_check_agrees(inner, named):
    ev = E.RepeatAndSelectDpEvent(inner, 3.0, 1.0)
    for call in (check_dp_event, from_dp_event):
        with pytest.raises(UnsupportedEventError, match=named):
            call(ev)


def test_repeat_and_select_of_a_dpsgd_run():
    run = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(2.0)), 20)
    ev = E.RepeatAndSelectDpEvent(run, 5.0, 1.0)
    lo, hi = from_dp_event(ev).epsilon_bounds(1e-6)          # [2.41451, 2.41470]
    assert hi == pytest.approx(RDP().compose(ev).get_epsilon(1e-6), rel=2e-3)   # 2.41139
    assert lo >= from_dp_event(run).epsilon_bounds(1e-6)[0]  # at least one run's loss


class _BadRepeat:
    event, mean, shape = None, 0.5, 1.0


_BadRepeat.__name__ = "RepeatAndSelectDpEvent"


# -- jax_privacy's accounting helpers (jax_privacy/accounting.py, main) ---------------
@pytest.mark.slow
def test_jax_privacy_zcdp_step():
    # dpsgd_event(use_zcdp=True): PoissonSampled(ZCDp(1/(2σ²))); one step (the numeric
    # zCDP curve subsampled takes seconds per step)
    sigma = 1.5
    z = E.PoissonSampledDpEvent(0.05, E.ZCDpEvent(0.5 / sigma ** 2))
    gauss = E.PoissonSampledDpEvent(0.05, E.GaussianDpEvent(sigma))
    ez = from_dp_event(z).epsilon_bounds(1e-5)
    eg = from_dp_event(gauss).epsilon_bounds(1e-5)
    assert eg[0] <= ez[1]            # zCDP of the Gaussian is implied by it, never tighter


def test_jax_privacy_event_shapes():
    sigma, steps = 1.5, 40
    check_dp_event(E.SelfComposedDpEvent(
        E.PoissonSampledDpEvent(0.05, E.ZCDpEvent(0.5 / sigma ** 2)), steps))
    # fixed_dpsgd_event(replace=True) and truncated_dpsgd_event: certified, as above
    for ev, rel in [(E.SelfComposedDpEvent(E.SampledWithReplacementDpEvent(
                        100, 5, E.GaussianDpEvent(sigma)), steps), "replace_one"),
                    (E.SelfComposedDpEvent(E.TruncatedSubsampledGaussianDpEvent(
                        100, 0.05, 8, sigma), steps), "add_remove"),
                    (E.NonPrivateDpEvent(), "add_remove")]:
        check_dp_event(ev, rel)
        f = from_dp_event(ev, rel)
        assert f.status in (fdp.Status.CERTIFIED, fdp.Status.EXACT)


# -- check_dp_event agrees with from_dp_event ---------------------------------------
CASES = [
    (E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]), "add_remove"),
    (E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]), "replace_one"),
    (E.TruncatedSubsampledGaussianDpEvent(100, 0.1, 20, 1.0), "add_remove"),
    (E.TruncatedSubsampledGaussianDpEvent(100, 0.1, 20, 1.0), "replace_special"),
    (E.SampledWithReplacementDpEvent(100, 10, E.GaussianDpEvent(1.0)), "replace_one"),
    (E.SampledWithReplacementDpEvent(100, 10, E.GaussianDpEvent(1.0)), "add_remove"),
    (E.SampledWithReplacementDpEvent(100, 10, E.LaplaceDpEvent(1.0)), "replace_one"),
    (RandomAllocationDpEvent(E.GaussianDpEvent(1.0), 1, 10), "add_remove"),
    (RandomAllocationDpEvent(E.LaplaceDpEvent(1.0), 1, 10), "add_remove"),
    (E.SingleEpochTreeAggregationDpEvent(1.0, 5), "replace_special"),
    (E.SingleEpochTreeAggregationDpEvent(1.0, 5), "add_remove"),
    (E.RepeatAndSelectDpEvent(E.GaussianDpEvent(1.0), 2.0, 1.0), "add_remove"),
    (E.UnsupportedDpEvent(), "add_remove"),
]


@pytest.mark.parametrize("event,relation", CASES)
def test_check_dp_event_in_sync(event, relation):
    def outcome(call):
        try:
            call(event, relation)
        except UnsupportedEventError:
            return "unsupported"
        except ValueError:
            return "invalid"
        return "ok"
    assert outcome(check_dp_event) == outcome(from_dp_event)
    composed = E.ComposedDpEvent([E.NoOpDpEvent(), event])
    assert outcome(lambda e, r: check_dp_event(composed, r)) == outcome(check_dp_event)


@pytest.mark.slow
def test_several_samplers_compose_group_by_group():
    # a Poisson run then a truncated-Poisson run: not one dpsgd call; each group enters
    # the composition (Poisson as its add direction, truncated as its symmetric curve)
    run = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(1.1)), 50)
    tr = E.SelfComposedDpEvent(E.TruncatedSubsampledGaussianDpEvent(1000, 0.01, 12, 1.1), 50)
    f = from_dp_event(E.ComposedDpEvent([run, tr]))
    assert f.status is fdp.Status.CERTIFIED
    lo, hi = f.epsilon_bounds(1e-5)
    parts = [from_dp_event(run).epsilon_bounds(1e-5), from_dp_event(tr).epsilon_bounds(1e-5)]
    assert lo <= hi and all(hi >= p[0] for p in parts)   # less private than either part


def test_named_tuple_forms_map_the_same():
    cases = [(E.MixtureOfGaussiansDpEvent(2.0, [0, 1], [0.5, 0.5]), "add_remove"),
             (E.SingleEpochTreeAggregationDpEvent(2.0, [5, 9]), "replace_special"),
             (E.TruncatedSubsampledGaussianDpEvent(100, 0.1, 10, 2.0), "add_remove"),
             (E.SelfComposedDpEvent(E.SampledWithReplacementDpEvent(
                 100, 10, E.GaussianDpEvent(2.0)), 3), "replace_one")]
    for ev, rel in cases:
        a = from_dp_event(ev, rel).delta(1.0)
        assert a == from_dp_event(ev.to_named_tuple(), rel).delta(1.0)


def test_allocation_grid_refusal_surfaces_when_building():
    # documented: check_dp_event does no numerics, so the engine's σ range for random
    # allocation (blocks of several steps) is found by from_dp_event, naming σ
    ev = RandomAllocationDpEvent(E.GaussianDpEvent(0.3), 1, 10)
    check_dp_event(ev)
    with pytest.raises(ValueError, match="noise_multiplier"):
        from_dp_event(ev).epsilon(1e-5)
