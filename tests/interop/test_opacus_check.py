"""fdp.interop.opacus_check on real Opacus objects: each mismatch of issue 38 item 4 is
caught with the ε it would have misreported; a Poisson loop passes."""

import math
import warnings

import pytest

pytest.importorskip("opacus", reason="needs the interop extra")

import torch
from opacus import PrivacyEngine
from opacus.utils.batch_memory_manager import BatchMemoryManager
from scipy.optimize import brentq
from scipy.stats import norm
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

from fdp.interop.opacus_check import check_opacus, describe_loop, opacus_claim
from fdp.sgd.loop_check import LoopMismatch, NoMatchingAccounting

DELTA = 1e-5
SIGMA = 1.0


def _data(n, minority=None):
    g = torch.Generator().manual_seed(0)
    y = torch.zeros(n, dtype=torch.long)
    if minority:
        y[:minority] = 1
    return TensorDataset(torch.randn(n, 4, generator=g), y)


def _train(loader, *, poisson=True, accumulate=1, reduction="sum", epochs=1,
           physical=None, limit=None):
    """make_private on a tiny model, then train: optimizer.step() every ``accumulate``
    micro-batches (or through BatchMemoryManager with ``physical`` rows)."""
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = PrivacyEngine()
        model, opt, dl = engine.make_private(
            module=model, optimizer=opt, data_loader=loader, noise_multiplier=SIGMA,
            max_grad_norm=1.0, poisson_sampling=poisson, loss_reduction=reduction)
        if accumulate > 1:
            model.allow_grad_accumulation()
        loss_fn = torch.nn.CrossEntropyLoss(reduction=reduction)
        for _ in range(epochs):
            batches = dl
            if physical:
                with BatchMemoryManager(data_loader=dl, max_physical_batch_size=physical,
                                        optimizer=opt) as mem:
                    for x, y in mem:
                        loss_fn(model(x), y).backward()
                        opt.step()
                        opt.zero_grad()
                continue
            for i, (x, y) in enumerate(batches):
                if i == limit:
                    break
                loss_fn(model(x), y).backward()
                if (i + 1) % accumulate == 0:
                    opt.step()
                    opt.zero_grad()
    return engine, dl, opt


def _gaussian_eps(mu, delta):
    """ε of G_μ at δ from the closed-form profile (DRS Cor 2.13), by root finding."""
    def gap(e):
        return norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - delta
    return brentq(gap, 0.0, 100.0, xtol=1e-12)


def test_poisson_loop_passes_and_matches_opacus_rdp():
    # n = 305: q = 1/ceil(n/10) and int(n q) are the same at n ± 1, so even under
    # add/remove with loss_reduction="mean" the run is the accounted mechanism
    orig = DataLoader(_data(305), batch_size=10)
    engine, dl, opt = _train(orig, reduction="mean")
    right = check_opacus(engine, dl, opt, delta=DELTA, original_loader=orig)
    assert right.call == ("fdp.dpsgd(noise_multiplier=1.0, sample_rate=0.03225806451612903, "
                          "steps=31)")
    eps = right.epsilon(DELTA)
    rdp = engine.get_epsilon(DELTA)   # Opacus' own RDP accountant, same claim: an upper bound
    assert eps <= rdp <= 1.25 * eps
    loop = describe_loop(dl, opt, accountant=engine.accountant)
    assert (loop.sampler, loop.dataset_size, loop.updates, loop.accumulation,
            loop.mean_divisor) == ("poisson", 305, 31, 1, "expected")
    assert loop.sample_rate == pytest.approx(1 / 31, rel=1e-12)


def test_batch_memory_manager_counts_logical_steps():
    # physical batches of 4 with skipped steps: one update (and one accounted step) per
    # Poisson batch, so the loop matches Opacus' claim
    engine, dl, opt = _train(DataLoader(_data(300), batch_size=10), physical=4)
    assert engine.accountant.history == [(SIGMA, 1 / 30, 30)]
    assert check_opacus(engine, dl, opt).call == opacus_claim(engine.accountant).call


def test_shuffled_loader_accounted_as_poisson_is_caught():
    # Opacus #80: poisson_sampling=False keeps the shuffled loader, Opacus still
    # accounts Poisson at q = 1/len(loader)
    engine, dl, opt = _train(DataLoader(_data(300), batch_size=10, shuffle=True),
                             poisson=False)
    with pytest.raises(LoopMismatch, match=r"Opacus #80") as info:
        check_opacus(engine, dl, opt, delta=DELTA)
    err = info.value
    assert err.fields == ("call",)
    assert err.accounting.call == "fdp.Gaussian(mu=1.0)"     # one epoch, each record once
    assert err.epsilon == pytest.approx(_gaussian_eps(1.0, DELTA), rel=1e-9)   # 4.377
    # the claim: fdp's certified ε of the Poisson history, and Opacus' own RDP ε of it
    rdp = engine.get_epsilon(DELTA)
    assert err.accounted_epsilon == pytest.approx(1.5713, abs=1e-3)
    assert err.accounted_epsilon <= rdp <= 1.05 * err.accounted_epsilon   # 1.581
    assert rdp < err.epsilon / 2.7


def test_mean_reduction_with_size_dependent_divisor_is_refused():
    # Opacus #571/#819: loss_reduction="mean" divides by int(n q), 10 at n = 300 and
    # 9 at n = 299: an add/remove neighbour's update has another scale
    engine, dl, opt = _train(DataLoader(_data(300), batch_size=10), reduction="mean")
    with pytest.raises(NoMatchingAccounting, match=r"\[9, 10\].*#571"):
        check_opacus(engine, dl, opt)
    # and q = 1/len(loader) is 1/30 at n = 300 but 1/31 at n = 301
    with pytest.raises(NoMatchingAccounting, match=r"1/\[30, 31\].*#571"):
        check_opacus(engine, dl, opt, original_loader=DataLoader(_data(300), batch_size=10),
                     accounted={"noise_multiplier": SIGMA, "sample_rate": 1 / 30,
                                "steps": 30})
    # replace-one keeps n fixed: the same loop is then accounted (C_q(G_{2/σ}) per step)
    right = check_opacus(engine, dl, opt, neighbouring="replace_one",
                         accounted={"noise_multiplier": SIGMA, "sample_rate": 1 / 30,
                                    "steps": 30, "sampling": "without_replacement",
                                    "neighbouring": "replace_one"})
    assert "without_replacement" in right.call


def test_weighted_sampler_replaced_by_poisson_is_caught():
    # Opacus #813: num_samples=32, batch 16 gives len(loader) = 2, so make_private
    # samples every record with probability 1/2 (expected batch 150 of 300)
    ds = _data(300)
    orig = DataLoader(ds, batch_size=16, sampler=WeightedRandomSampler(
        torch.ones(300, dtype=torch.float64), num_samples=32))
    engine, dl, opt = _train(orig)
    assert engine.accountant.history == [(SIGMA, 0.5, 2)]
    with pytest.raises(LoopMismatch, match=r"#813.*expected batch of 150") as info:
        check_opacus(engine, dl, opt, original_loader=orig, delta=DELTA)
    err = info.value
    assert err.fields == ("sample_rate",)
    assert dict(err.accounted.kwargs)["sample_rate"] == pytest.approx(16 / 300)
    assert dict(err.accounting.kwargs)["sample_rate"] == 0.5
    # the batch the user built (rate 16/300) vs the run (rate 1/2): ε 1.243 vs 4.854
    assert err.accounted_epsilon == pytest.approx(1.2427, abs=1e-3)
    assert err.epsilon == pytest.approx(4.8545, abs=1e-3)
    # without original_loader the run itself is consistent with its accounting
    assert check_opacus(engine, dl, opt).call.endswith("sample_rate=0.5, steps=2)")


def test_weighted_sampler_kept_is_caught_with_the_implied_rate():
    # poisson_sampling=False keeps a class-balanced WeightedRandomSampler: a minority
    # record (30 of 300) is drawn with probability 1/60 per draw, so a batch of 16 draws
    # holds it at rate 16/60, not the 1/19 Opacus accounts
    ds = _data(300, minority=30)
    w = torch.where(ds.tensors[1] == 1, torch.tensor(1 / 30, dtype=torch.float64),
                    torch.tensor(1 / 270, dtype=torch.float64))
    orig = DataLoader(ds, batch_size=16, sampler=WeightedRandomSampler(w, num_samples=300))
    engine, dl, opt = _train(orig, poisson=False)
    loop = describe_loop(dl, opt, accountant=engine.accountant)
    assert loop.sampler == "weighted" and loop.max_weight_share == pytest.approx(1 / 60)
    with pytest.raises(NoMatchingAccounting, match="replace_one"):
        check_opacus(engine, dl, opt)          # fixed-size draws: replace-one only
    with pytest.raises(LoopMismatch, match=r"batch x max share") as info:
        check_opacus(engine, dl, opt, neighbouring="replace_one", delta=DELTA)
    err = info.value
    assert set(err.fields) == {"sampling", "neighbouring", "sample_rate", "dataset_size",
                               "sensitivity/noise_multiplier"}
    kw = dict(err.accounting.kwargs)
    assert (kw["sampling"], kw["dataset_size"]) == ("with_replacement", 60)
    assert kw["sample_rate"] == pytest.approx(16 / 60)
    assert dict(err.accounted.kwargs)["sample_rate"] == pytest.approx(1 / 19)
    assert err.accounted_epsilon < 2.1 < 70 < err.epsilon


def test_gradient_accumulation_is_caught():
    # three Poisson micro-batches per optimizer step: Opacus records rate 3q per step
    # (10 steps); a micro-batch count (jax_privacy #288) claims rate q for 30 steps;
    # the loop is a record counted Bin(3, q) times per update
    engine, dl, opt = _train(DataLoader(_data(300), batch_size=10), accumulate=3)
    assert engine.accountant.history == [(SIGMA, pytest.approx(0.1), 10)]
    loop = describe_loop(dl, opt, accountant=engine.accountant)
    assert (loop.updates, loop.accumulation) == (10, 3)
    with pytest.raises(LoopMismatch, match=r"Poisson at 3q, as Opacus") as info:
        check_opacus(engine, dl, opt, delta=DELTA)
    assert info.value.fields == ("sample_rate", "examples_per_user")
    opacus_eps, eps = info.value.accounted_epsilon, info.value.epsilon
    with pytest.raises(LoopMismatch, match=r"jax_privacy #288") as info:
        check_opacus(engine, dl, opt, delta=DELTA, accounted={
            "noise_multiplier": SIGMA, "sample_rate": 1 / 30, "steps": 30})
    assert info.value.fields == ("steps", "examples_per_user")
    micro_eps = info.value.accounted_epsilon
    assert info.value.epsilon == eps
    # ε: micro-batches 1.571 < Opacus (Poisson at 3q) 2.855 < the loop 3.837
    assert micro_eps == pytest.approx(1.5713, abs=1e-3)
    assert opacus_eps == pytest.approx(2.8546, abs=1e-3)
    assert eps == pytest.approx(3.8367, abs=2e-3)
    assert opacus_eps <= engine.get_epsilon(DELTA) <= 1.1 * opacus_eps   # Opacus' RDP


def test_opacus_rate_rounding_is_caught_as_conservative():
    # 93 batches: the Poisson sampler keeps records at q = 1/93 but runs int(1/q) = 92
    # steps per epoch (1/(1/93) = 92.99...), and make_private accounts 1/len = 1/92
    engine, dl, opt = _train(DataLoader(_data(930), batch_size=10), limit=20)
    assert len(dl) == 92 and engine.accountant.history == [(SIGMA, 1 / 92, 20)]
    with pytest.raises(LoopMismatch, match="overstates") as info:
        check_opacus(engine, dl, opt, delta=DELTA)
    assert info.value.fields == ("sample_rate",)
    assert dict(info.value.accounting.kwargs)["sample_rate"] == pytest.approx(1 / 93)
    assert info.value.epsilon < info.value.accounted_epsilon


def test_refusals_name_the_parameter():
    engine, dl, opt = _train(DataLoader(_data(305), batch_size=10))
    with pytest.raises(TypeError, match="DPOptimizer"):
        describe_loop(dl, torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=0.1))
    with pytest.raises(ValueError, match="updates= or accountant="):
        describe_loop(dl, opt)
    with pytest.raises(ValueError, match="delta"):
        check_opacus(engine, dl, opt, delta=2.0)
