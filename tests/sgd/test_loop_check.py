"""fdp.sgd.loop_check: the accounting that matches a loop as run, and each mismatch of
issue 38 item 4 caught with the ε it would have misreported (plain inputs, no torch)."""

import math
import pickle

import pytest
from scipy.optimize import brentq
from scipy.stats import norm

import fdp
from fdp.sgd.loop_check import (
    Accounting,
    Loop,
    LoopMismatch,
    NoMatchingAccounting,
    accounted_call,
    check_loop,
    loop_accounting,
)

DELTA = 1e-5


def _gaussian_eps(mu, delta):
    """ε of G_μ at δ from its closed-form profile (DRS Cor 2.13), by root finding."""
    def gap(e):
        return norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - delta
    return brentq(gap, 0.0, 200.0, xtol=1e-12)


def _poisson(**kw):
    base = dict(dataset_size=1000, batch_size=10, sampler="poisson", noise_multiplier=1.0,
                updates=100)
    return Loop(**{**base, **kw})


def test_poisson_loop_passes():
    right = check_loop(_poisson(), {"noise_multiplier": 1.0, "sample_rate": 0.01,
                                    "steps": 100, "neighbouring": "add_remove"})
    assert right.call == "fdp.dpsgd(noise_multiplier=1.0, sample_rate=0.01, steps=100)"
    # the same mechanism stated as σ/s: only s/σ enters the per-step Gaussian
    check_loop(_poisson(), {"noise_multiplier": 2.0, "sample_rate": 0.01, "steps": 100,
                            "sensitivity": 2.0})
    assert right.epsilon(DELTA) == pytest.approx(
        float(fdp.dpsgd(1.0, 0.01, 100).epsilon(DELTA)))
    assert pickle.loads(pickle.dumps(right)) == right and repr(right) == right.call


def test_full_batch_is_the_gaussian_closed_form():
    # q = 1, T steps: both the accounted and the matching ε are ε of G_{√T/σ}
    loop = Loop(dataset_size=50, batch_size=50, sampler="poisson", noise_multiplier=4.0,
                updates=16)
    assert loop_accounting(loop).epsilon(DELTA) == pytest.approx(_gaussian_eps(1.0, DELTA),
                                                                 rel=2e-3)


def test_replace_one_needs_twice_the_clipping_norm():
    # fixed batches of 100 from 100 (q = 1) for 4 steps under replace-one: the sum moves
    # by 2C, so the loop is G_{2·√4/σ}; accounting sensitivity 1 reports G_{√4/σ}
    loop = Loop(dataset_size=100, batch_size=100, sampler="without_replacement",
                noise_multiplier=4.0, updates=4, neighbouring="replace_one")
    claim = {"noise_multiplier": 4.0, "sample_rate": 1.0, "steps": 4,
             "sampling": "without_replacement", "neighbouring": "replace_one",
             "sensitivity": 1.0}
    with pytest.raises(LoopMismatch, match=r"replace-one moves the clipped sum by 2C") as info:
        check_loop(loop, claim, delta=DELTA)
    err = pickle.loads(pickle.dumps(info.value))
    assert err.fields == ("sensitivity/noise_multiplier",) and str(err) == str(info.value)
    assert err.accounted_epsilon == pytest.approx(_gaussian_eps(0.5, DELTA), rel=2e-3)  # 1.86
    assert err.epsilon == pytest.approx(_gaussian_eps(1.0, DELTA), rel=2e-3)            # 4.38
    assert "understates" in str(err)
    check_loop(loop, {**claim, "sensitivity": None})          # the default 2 matches


def test_noise_on_the_mean_versus_the_sum():
    # noise std σ_m·C on the mean over b = 64 fixed records is σ = 64 σ_m on the sum
    kw = dict(dataset_size=6400, batch_size=64, sampler="without_replacement",
              updates=20, neighbouring="replace_one")
    wor = {"sampling": "without_replacement", "neighbouring": "replace_one",
           "sample_rate": 0.01, "steps": 20}
    on_mean = Loop(noise_multiplier=1 / 64, noise_on="mean", mean_divisor=64.0, **kw)
    check_loop(on_mean, {**wor, "noise_multiplier": 1.0})
    realised = Loop(noise_multiplier=1 / 64, noise_on="mean", mean_divisor="batch", **kw)
    check_loop(realised, {**wor, "noise_multiplier": 1.0})
    # the mean's noise std put on the SUM: σ = 1/64 on the sum, accounted as σ = 1
    on_sum = Loop(noise_multiplier=1 / 64, **kw)
    with pytest.raises(LoopMismatch, match="sensitivity/noise_multiplier") as info:
        check_loop(on_sum, {**wor, "noise_multiplier": 1.0}, delta=DELTA)
    assert info.value.accounted_epsilon == pytest.approx(
        float(fdp.dpsgd(1.0, 0.01, 20, "without_replacement", "replace_one").epsilon(DELTA)))
    assert info.value.epsilon > 20 * info.value.accounted_epsilon


def test_mean_over_a_partial_shuffled_batch_uses_the_smallest_batch():
    # 105 records in batches of 10: the last batch holds 5, so noise std σ_m·C on its
    # mean is only 5 σ_m on the sum
    loop = Loop(dataset_size=105, batch_size=10, sampler="shuffle", noise_multiplier=0.5,
                updates=11, noise_on="mean", mean_divisor="batch")
    assert dict(loop_accounting(loop).kwargs)["mu"] == pytest.approx(1 / 2.5)
    with pytest.raises(NoMatchingAccounting, match="needs b <= 100"):
        loop_accounting(Loop(dataset_size=100, batch_size=60, sampler="with_replacement",
                             noise_multiplier=1.0, updates=1, accumulation=2,
                             neighbouring="replace_one"))


def test_mean_over_a_realised_poisson_batch_is_refused():
    with pytest.raises(NoMatchingAccounting, match=r"realised batch.*#420"):
        loop_accounting(_poisson(noise_on="mean", mean_divisor="batch"))


def test_size_dependent_divisor_under_add_remove_is_refused():
    # floor(n q): 10 at n = 1000 but 9 at n = 999 (Opacus #571, #819)
    with pytest.raises(NoMatchingAccounting, match=r"\[9, 10\]"):
        loop_accounting(_poisson(mean_divisor="expected"))
    # 10.05 at n = 1005: n ± 1 give 10 as well, so the scale is the same for neighbours
    loop_accounting(_poisson(dataset_size=1005, batch_size=10.05, mean_divisor="expected"))
    loop_accounting(_poisson(mean_divisor="expected", neighbouring="replace_one"))


def test_shuffled_batches_accounted_as_poisson_are_caught():
    # 60000 records, batches of 256, 10 epochs: each record once per epoch, so G_{√10/σ}
    loop = Loop(dataset_size=60000, batch_size=256, sampler="shuffle", noise_multiplier=1.1,
                updates=2350)
    right = loop_accounting(loop)
    assert right.call == f"fdp.Gaussian(mu={math.sqrt(10) / 1.1!r})"
    with pytest.raises(LoopMismatch, match="Opacus #80") as info:
        check_loop(loop, {"noise_multiplier": 1.1, "sample_rate": 256 / 60000,
                          "steps": 2350}, delta=DELTA)
    err = info.value
    assert err.epsilon == pytest.approx(_gaussian_eps(math.sqrt(10) / 1.1, DELTA), rel=1e-9)
    assert err.accounted_epsilon < 1.0 < 15 < err.epsilon       # 0.920 claimed, 15.78 true
    # the shuffle LOWER curve is not the guarantee either
    with pytest.raises(LoopMismatch, match=r"needs fdp\.Gaussian"):
        check_loop(loop, {"noise_multiplier": 1.1, "sample_rate": 1 / 235, "steps": 2350,
                          "sampling": "shuffle"})
    check_loop(loop, right)


def test_shuffle_accumulation_across_epochs():
    # 10 micro-batches per epoch, 3 per update: an update can span two epochs, μ² ≤ 2·E/σ²
    loop = Loop(dataset_size=100, batch_size=10, sampler="shuffle", noise_multiplier=1.0,
                updates=10, accumulation=3)
    assert dict(loop_accounting(loop).kwargs)["mu"] == pytest.approx(math.sqrt(2 * 3))
    loop = Loop(dataset_size=100, batch_size=10, sampler="shuffle", noise_multiplier=2.0,
                updates=10, accumulation=5, neighbouring="replace_one")
    assert dict(loop_accounting(loop).kwargs)["mu"] == pytest.approx(2 * math.sqrt(5) / 2)


def test_micro_batches_counted_as_steps_are_caught():
    # a Poisson batch of 256 split into 8 micro-batches and each counted as a step at
    # the micro rate (jax_privacy #288): T·8 steps at q/8 instead of T at q
    loop = Loop(dataset_size=60000, batch_size=256, sampler="poisson", noise_multiplier=1.0,
                updates=500)
    with pytest.raises(LoopMismatch, match="jax_privacy #288") as info:
        check_loop(loop, {"noise_multiplier": 1.0, "sample_rate": 32 / 60000,
                          "steps": 4000}, delta=DELTA)
    err = info.value
    assert err.fields == ("sample_rate", "steps")
    assert err.accounted_epsilon < err.epsilon / 2.5        # about √8 too small


def test_accumulated_poisson_micro_batches_are_a_binomial_count():
    loop = _poisson(updates=10, accumulation=3, dataset_size=300)
    right = loop_accounting(loop)
    assert dict(right.kwargs)["examples_per_user"] == 3
    with pytest.raises(LoopMismatch, match="examples_per_user"):
        check_loop(loop, {"noise_multiplier": 1.0, "sample_rate": 0.1, "steps": 10})


def test_weighted_sampler_accounts_the_largest_share():
    # largest share 1/60: 16 draws hold a record like 16 draws from 60 records
    loop = Loop(dataset_size=300, batch_size=16, sampler="weighted", noise_multiplier=1.0,
                updates=19, neighbouring="replace_one", max_weight_share=1 / 60)
    right = loop_accounting(loop)
    kw = dict(right.kwargs)
    assert (kw["sampling"], kw["dataset_size"]) == ("with_replacement", 60)
    assert kw["sample_rate"] == pytest.approx(16 / 60)
    # uniform weights are uniform draws with replacement
    uniform = Loop(dataset_size=300, batch_size=16, sampler="weighted", noise_multiplier=1.0,
                   updates=19, neighbouring="replace_one", max_weight_share=1 / 300)
    plain = Loop(dataset_size=300, batch_size=16, sampler="with_replacement",
                 noise_multiplier=1.0, updates=19, neighbouring="replace_one")
    assert loop_accounting(uniform) == loop_accounting(plain)
    with pytest.raises(NoMatchingAccounting, match="needs b <= 10"):
        loop_accounting(Loop(dataset_size=300, batch_size=16, sampler="weighted",
                             noise_multiplier=1.0, updates=1, neighbouring="replace_one",
                             max_weight_share=0.1))
    with pytest.raises(NoMatchingAccounting, match="neighbouring='replace_one'"):
        loop_accounting(Loop(dataset_size=300, batch_size=16, sampler="weighted",
                             noise_multiplier=1.0, updates=1, max_weight_share=0.01))


def test_poisson_replace_one_is_the_without_replacement_pair():
    loop = _poisson(neighbouring="replace_one")
    kw = dict(loop_accounting(loop).kwargs)
    assert (kw["sampling"], kw["neighbouring"]) == ("without_replacement", "replace_one")


def test_steps_zero_and_the_accounting_value():
    right = loop_accounting(_poisson(updates=0))
    assert right.epsilon(DELTA) == 0.0
    assert accounted_call(right) is right
    assert Accounting("Gaussian", (("mu", 1.0),)).call == "fdp.Gaussian(mu=1.0)"


@pytest.mark.parametrize("kw, match", [
    ({"dataset_size": 0}, "dataset_size"),
    ({"batch_size": 2000}, "batch_size"),
    ({"batch_size": 0.0}, "batch_size"),
    ({"sampler": "random"}, "sampler must be one of"),
    ({"neighbouring": "substitute"}, "neighbouring must be one of"),
    ({"noise_on": "mean"}, "needs mean_divisor"),
    ({"mean_divisor": "actual"}, "mean_divisor must be one of"),
    ({"mean_divisor": -1.0}, "mean_divisor"),
    ({"noise_multiplier": 0.0}, "noise_multiplier"),
    ({"accumulation": 0}, "accumulation"),
    ({"max_weight_share": 0.5}, "max_weight_share"),
    ({"sampler": "shuffle", "batch_size": 2.5}, "whole number"),
])
def test_bad_loops_name_the_parameter(kw, match):
    with pytest.raises(ValueError, match=match):
        _poisson(**kw)


def test_bad_claims_are_refused():
    with pytest.raises(ValueError, match="missing"):
        check_loop(_poisson(), {"noise_multiplier": 1.0, "sample_rate": 0.01})
    with pytest.raises(ValueError, match="unknown"):
        check_loop(_poisson(), {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 1,
                                "neighboring": "add_remove"})
    with pytest.raises(TypeError, match="accounted"):
        check_loop(_poisson(), [1.0, 0.01, 100])
