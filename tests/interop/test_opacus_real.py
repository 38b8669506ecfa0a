"""fdp inside the real Opacus (installed by the ``interop`` extra; torch CPU build).

Truths: Opacus' own PRV accountant (its certified-style [lower, upper] ε bracket at
eps_error) on the same history, and the targets handed to Opacus' calibration.
"""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
opacus = pytest.importorskip("opacus")

from opacus import PrivacyEngine  # noqa: E402
from opacus.accountants import IAccountant, PRVAccountant, create_accountant  # noqa: E402
from opacus.accountants.utils import get_noise_multiplier  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

from fdp.interop import opacus as fdp_opacus  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def registered():
    return fdp_opacus.register()


def _prv_bracket(history, delta, eps_error=0.01):
    prv = PRVAccountant()
    prv.history = list(history)
    dprv = prv._get_dprv(eps_error=eps_error, delta_error=delta / 1000)
    lo, _, hi = dprv.compute_epsilon(delta, delta / 1000, eps_error)
    return lo, hi


def _tiny_task(batch_size=16, n=64):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, 3, generator=gen)
    y = (x[:, 0] > 0).long()
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, optimizer, DataLoader(TensorDataset(x, y), batch_size=batch_size)


def _train(model, optimizer, loader):
    for xb, yb in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()


def test_register_is_idempotent_and_protocol_holds():
    assert fdp_opacus.register() is fdp_opacus.FdpAccountant
    acct = create_accountant("fdp")
    assert isinstance(acct, fdp_opacus.FdpAccountant)
    assert isinstance(acct, IAccountant)


def test_opacus_reference_case_inside_prv():
    acct = create_accountant("fdp")
    acct.history = [(1.5, 0.04, 2249)]
    lo, hi = acct.get_epsilon_bounds(1e-5)
    prv = PRVAccountant()
    prv.history = [(1.5, 0.04, 2249)]
    assert hi <= prv.get_epsilon(1e-5) + 1e-9            # 6.7774, the peer's upper value
    assert 6.757 <= lo <= hi <= 6.778 and hi - lo <= 1e-3 * hi


def test_privacy_engine_trains_with_fdp():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                   # Opacus' secure-RNG notice
        engine = PrivacyEngine(accountant="fdp")
        model, optimizer, loader = _tiny_task()
        model, optimizer, loader = engine.make_private(
            module=model, optimizer=optimizer, data_loader=loader,
            noise_multiplier=1.0, max_grad_norm=1.0)
        _train(model, optimizer, loader)
    acct = engine.accountant
    assert isinstance(acct, fdp_opacus.FdpAccountant)
    assert acct.history == [(1.0, 0.25, 4)] and len(acct) == 4
    eps = engine.get_epsilon(1e-5)
    lo, hi = acct.get_epsilon_bounds(1e-5)
    assert eps == hi
    p_lo, p_hi = _prv_bracket(acct.history, 1e-5)
    assert lo <= p_hi and p_lo <= hi                      # the two certified brackets meet
    state = acct.state_dict()
    fresh = create_accountant("fdp")
    fresh.load_state_dict(state)
    assert fresh.get_epsilon(1e-5) == eps


@pytest.mark.parametrize("target", [1.0, 4.0])
@pytest.mark.slow
def test_get_noise_multiplier_meets_target(target):
    sigma = get_noise_multiplier(target_epsilon=target, target_delta=1e-5, sample_rate=0.01,
                                 steps=300, accountant="fdp")
    acct = create_accountant("fdp")
    acct.history = [(sigma, 0.01, 300)]
    eps = acct.get_epsilon(1e-5)
    assert eps <= target                                  # certified ε meets the target
    assert eps >= target - 0.011                          # Opacus' epsilon_tolerance 0.01


@pytest.mark.slow
def test_make_private_with_epsilon():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = PrivacyEngine(accountant="fdp")
        model, optimizer, loader = _tiny_task()
        model, optimizer, loader = engine.make_private_with_epsilon(
            module=model, optimizer=optimizer, data_loader=loader, target_epsilon=3.0,
            target_delta=1e-5, epochs=5, max_grad_norm=1.0)
        for _ in range(5):
            _train(model, optimizer, loader)
    assert len(engine.accountant) == 20
    assert engine.get_epsilon(1e-5) <= 3.0
