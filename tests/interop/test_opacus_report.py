"""``FdpAccountant.report`` after a real Opacus training run (the ``interop`` extra).

Truths: the history Opacus recorded (σ, q = batch/n, steps), the accountant's own
certified ε, and Opacus' PRV accountant on the same history."""

from __future__ import annotations

import json
import warnings

import pytest

torch = pytest.importorskip("torch", reason="needs the interop extra")
opacus = pytest.importorskip("opacus", reason="needs the interop extra")

from opacus import PrivacyEngine  # noqa: E402
from opacus.accountants import PRVAccountant  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

from fdp.interop import opacus as fdp_opacus  # noqa: E402
from fdp.report import PrivacyReport  # noqa: E402


def test_report_of_a_training_run():
    fdp_opacus.register()
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, 3, generator=gen)
    y = (x[:, 0] > 0).long()
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                   # Opacus' secure-RNG notice
        engine = PrivacyEngine(accountant="fdp")
        model, optimizer, loader = engine.make_private(
            module=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
            data_loader=DataLoader(TensorDataset(x, y), batch_size=16),
            noise_multiplier=1.0, max_grad_norm=1.0)
        for _ in range(2):
            for xb, yb in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(xb), yb).backward()
                optimizer.step()
    acct = engine.accountant
    assert acct.history == [(1.0, 0.25, 8)]
    r = acct.report(1e-5, fpr=0.01)
    a = r.accounted
    assert (a.noise_multiplier, a.sample_rate, a.steps, a.sampler) == (1.0, 0.25, 8, "poisson")
    assert r.epsilon[0].upper == engine.get_epsilon(1e-5)
    prv = PRVAccountant()
    prv.history = list(acct.history)
    assert r.epsilon[0].upper <= prv.get_epsilon(1e-5) + 1e-9   # the peer's upper value
    back = PrivacyReport.from_json(r.to_json())
    assert back == r
    back.verify()
    assert json.loads(r.to_json())["mechanism"]["inputs"]["steps"] == 8
