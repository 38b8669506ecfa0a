"""fdp.interop.flower with the real flwr: Flower's server loop driven in-process (a Grid
whose clients are numpy functions; no network, no Ray), the ε compared with fdp.dpsgd of
the same client-level inputs and with the exact Gaussian composition."""

from __future__ import annotations

import json
import logging
import math
import random

import numpy as np
import pytest

flwr = pytest.importorskip("flwr", reason="needs the flower extra")

from flwr.app import ArrayRecord, Message, MetricRecord, RecordDict  # noqa: E402
from flwr.server import strategy as legacy  # noqa: E402
from flwr.serverapp import (  # noqa: E402
    GaussianPrivacyEvent,
    Grid,
    NeighboringRelation,
    PrivacyConfig,
    RdpAccountant,
    SamplingMethod,
)
from flwr.serverapp.exception import PrivacyBudgetExhausted  # noqa: E402
from flwr.serverapp.strategy import (  # noqa: E402
    DifferentialPrivacyClientSideAdaptiveClipping,
    DifferentialPrivacyServerSideAdaptiveClipping,
    DifferentialPrivacyServerSideFixedClipping,
    FedAvg,
)
from flwr.serverapp.strategy import dp_adaptive_clipping as adaptive  # noqa: E402
from flwr.supercore.task_identity import TaskIdentity  # noqa: E402

import fdp  # noqa: E402
from fdp.interop.flower import BudgetedStrategy, FdpAccountant, read_strategy  # noqa: E402

DELTA = 1e-5
POP = 10
ADD_REMOVE = NeighboringRelation.ADD_OR_REMOVE_ONE
REPLACE = NeighboringRelation.REPLACE_ONE


class LocalGrid(Grid):
    """POP numpy clients in this process: client i moves each weight by i/10 and reports
    ``weight(i)`` examples."""

    def __init__(self, weight=lambda node: 5) -> None:
        self.weight = weight

    def set_run(self, run: object) -> None:
        pass

    @property
    def run(self) -> None:
        return None

    def create_message(self, content, message_type, dst_node_id, group_id, ttl=None):
        return Message(content, dst_node_id, message_type, ttl=ttl, group_id=group_id)

    def get_node_ids(self) -> list[int]:
        return list(range(1, POP + 1))

    def push_messages(self, messages):
        raise NotImplementedError("in-process grid: use send_and_receive")

    def pull_messages(self, message_ids):
        raise NotImplementedError("in-process grid: use send_and_receive")

    def send_and_receive(self, messages, *, timeout=None):
        replies = []
        for msg in messages:
            arrays = msg.content["arrays"].to_numpy_ndarrays()
            trained = [a + 0.1 * msg.metadata.dst_node_id for a in arrays]
            content = RecordDict({"arrays": ArrayRecord(trained),
                                  "metrics": MetricRecord(
                                      {"num-examples": self.weight(msg.metadata.dst_node_id)})})
            replies.append(Message(content, reply_to=msg))
        return replies


class PoissonFedAvg(FedAvg):
    """The user's Poisson sampler (each client joins with probability q) and a
    fixed-denominator mean, current + Σ clipped updates / m (McMahan et al. 2018)."""

    def __init__(self, q: float, m: int) -> None:
        super().__init__(fraction_evaluate=0.0)
        self.q, self.m = q, m
        self.current: list[np.ndarray] = []

    def configure_train(self, server_round, arrays, config, grid):
        self.current = arrays.to_numpy_ndarrays()
        nodes = [i for i in grid.get_node_ids() if random.random() < self.q]
        record = RecordDict({"arrays": arrays, "config": config})
        return self._construct_messages(record, nodes, "train")

    def aggregate_train(self, server_round, replies):
        total = [np.zeros_like(c) for c in self.current]
        for reply in replies:
            for t, x, c in zip(total, reply.content["arrays"].to_numpy_ndarrays(),
                               self.current):
                t += x - c
        return ArrayRecord([c + t / self.m for c, t in zip(self.current, total)]), None


@pytest.fixture(autouse=True)
def _flower_process(monkeypatch):
    # the identity a ServerApp process has (Message() reads it); seeded samplers; quiet
    monkeypatch.setattr(TaskIdentity, "_run_id", 1)
    monkeypatch.setattr(TaskIdentity, "_node_id", 0)
    monkeypatch.setattr(TaskIdentity, "_task_id", 1)
    random.seed(0)
    np.random.seed(0)
    logging.getLogger("flwr").setLevel(logging.WARNING)


def _config(sampling: SamplingMethod, relation: NeighboringRelation,
            budget: float | None = None) -> PrivacyConfig:
    return PrivacyConfig(DELTA, POP, relation, sampling, budget)


def _run(strategy, rounds: int = 40) -> None:
    with pytest.raises(PrivacyBudgetExhausted, match="exceed"):
        strategy.start(LocalGrid(), ArrayRecord([np.zeros(3)]), num_rounds=rounds)


def _stopped_in_budget(acct: FdpAccountant, event: GaussianPrivacyEvent, budget: float):
    eps = acct.get_epsilon(DELTA)
    assert acct.num_releases > 0 and eps <= budget
    assert acct.would_exceed(event, budget)                     # the next round would not fit
    return eps


def test_every_client_every_round_stops_before_the_budget_in_flowers_own_strategy():
    sigma, budget = 2.0, 5.0
    acct = FdpAccountant(_config(SamplingMethod.NO_AMPLIFICATION, ADD_REMOVE, budget))
    dp = DifferentialPrivacyServerSideFixedClipping(
        FedAvg(fraction_train=1.0, fraction_evaluate=0.0), sigma, 1.0, POP, accountant=acct)
    _run(dp)
    rounds = acct.num_releases
    eps = _stopped_in_budget(acct, GaussianPrivacyEvent(sigma, POP, POP), budget)
    # q = 1: exactly G_{√R/σ} (DRS Cor 3.3); the closed-form ε, and dpsgd's bracket
    assert eps == pytest.approx(fdp.gdp_epsilon(math.sqrt(rounds) / sigma, DELTA), rel=1e-9)
    lo, hi = fdp.dpsgd(sigma, 1.0, rounds).epsilon_bounds(DELTA)
    assert lo <= eps <= hi
    # it stopped at the last round that fits: 5 rounds, ε = 4.9833 (6 rounds: 5.5448)
    assert fdp.gdp_epsilon(math.sqrt(rounds + 1) / sigma, DELTA) > budget
    assert rounds == 5


def test_flowers_rdp_accountant_stops_earlier_on_the_same_run():
    pytest.importorskip("dp_accounting", reason="needs the interop extra")
    rdp = RdpAccountant(_config(SamplingMethod.NO_AMPLIFICATION, ADD_REMOVE, 5.0))
    dp = DifferentialPrivacyServerSideFixedClipping(
        FedAvg(fraction_train=1.0, fraction_evaluate=0.0), 2.0, 1.0, POP, accountant=rdp)
    _run(dp)
    assert rdp.num_releases == 4                                   # fdp allows 5
    # RDP's ε of 4 rounds (4.7285) is above the exact G_1's (4.3772)
    assert rdp.get_epsilon(DELTA) > fdp.gdp_epsilon(1.0, DELTA)


def test_fixed_clients_per_round_without_replacement_stops_before_the_budget():
    sigma, budget, m = 3.0, 4.0, 3
    acct = FdpAccountant(_config(SamplingMethod.WITHOUT_REPLACEMENT, REPLACE, budget))
    dp = DifferentialPrivacyServerSideFixedClipping(
        FedAvg(fraction_train=m / POP, fraction_evaluate=0.0), sigma, 1.0, m)
    _run(BudgetedStrategy(dp, acct))
    rounds = acct.num_releases
    eps = _stopped_in_budget(acct, GaussianPrivacyEvent(sigma, m, POP), budget)
    lo, hi = fdp.dpsgd(sigma, m / POP, rounds, sampling="without_replacement",
                       neighbouring="replace_one").epsilon_bounds(DELTA)
    assert lo <= eps <= hi and eps == hi
    # the next round: C_q(G_{2/σ}) composed once more is over the budget
    over = fdp.dpsgd(sigma, m / POP, rounds + 1, sampling="without_replacement",
                     neighbouring="replace_one").epsilon_bounds(DELTA)
    assert over.lo > budget


def test_poisson_clients_stop_before_the_budget():
    sigma, budget, m = 2.0, 3.0, 3
    acct = FdpAccountant(_config(SamplingMethod.POISSON, ADD_REMOVE, budget))
    dp = DifferentialPrivacyServerSideFixedClipping(PoissonFedAvg(m / POP, m), sigma, 1.0, m)
    _run(BudgetedStrategy(dp, acct), rounds=80)
    rounds = acct.num_releases
    eps = _stopped_in_budget(acct, GaussianPrivacyEvent(sigma, m, POP), budget)
    lo, hi = fdp.dpsgd(sigma, m / POP, rounds).epsilon_bounds(DELTA)
    assert lo <= eps <= hi
    assert fdp.dpsgd(sigma, m / POP, rounds + 1).epsilon_bounds(DELTA).lo > budget


def test_poisson_with_the_stock_fedavg_aggregation_is_refused():
    acct = FdpAccountant(_config(SamplingMethod.POISSON, ADD_REMOVE, 3.0))
    dp = DifferentialPrivacyServerSideFixedClipping(FedAvg(), 2.0, 1.0, 3)
    with pytest.raises(ValueError, match="realised clients' weight"):
        BudgetedStrategy(dp, acct)


def test_a_mismatched_sample_size_is_refused():
    acct = FdpAccountant(_config(SamplingMethod.WITHOUT_REPLACEMENT, REPLACE, 3.0))
    dp = DifferentialPrivacyServerSideFixedClipping(FedAvg(fraction_train=0.5), 2.0, 1.0, 3)
    with pytest.raises(ValueError, match="num_sampled_clients=3"):
        BudgetedStrategy(dp, acct).start(LocalGrid(), ArrayRecord([np.zeros(1)]),
                                         num_rounds=1)


def test_every_client_mode_refuses_a_partial_sample():
    acct = FdpAccountant(_config(SamplingMethod.NO_AMPLIFICATION, ADD_REMOVE))
    with pytest.raises(ValueError, match=r"every client in every round.*without-replacement"):
        acct.compose(GaussianPrivacyEvent(2.0, 3, POP))


def test_adaptive_clipping_errors_name_what_is_missing():
    fed = FedAvg()
    no_split = DifferentialPrivacyServerSideAdaptiveClipping(fed, 0.0, 10)
    with pytest.raises(ValueError, match="no noise split: clipped_count_stddev is 0"):
        read_strategy(no_split)
    split = DifferentialPrivacyClientSideAdaptiveClipping(fed, 1.0, 40)
    with pytest.raises(ValueError, match="no lower bound"):
        read_strategy(split)
    with pytest.raises(ValueError, match="no lower bound"):
        BudgetedStrategy(split, FdpAccountant(_config(SamplingMethod.POISSON, ADD_REMOVE, 1.0)))
    with pytest.raises(ValueError, match="has no noise_multiplier, clipping_norm"):
        read_strategy(fed)


def test_read_strategy_reads_flowers_attributes():
    dp = DifferentialPrivacyServerSideFixedClipping(FedAvg(), 1.5, 0.25, 7)
    p = read_strategy(dp)
    assert (p.noise_multiplier, p.clipping_norm, p.num_sampled_clients) == (1.5, 0.25, 7)
    with pytest.raises(ValueError, match="noise_multiplier"):
        read_strategy(DifferentialPrivacyServerSideFixedClipping(FedAvg(), 0.0, 1.0, 7))
    # the legacy API's wrappers carry the same attributes
    p = read_strategy(legacy.DifferentialPrivacyClientSideFixedClipping(
        legacy.FedAvg(), 1.5, 0.25, 7))
    assert (p.noise_multiplier, p.clipping_norm, p.num_sampled_clients) == (1.5, 0.25, 7)
    with pytest.raises(ValueError, match="no lower bound"):
        read_strategy(legacy.DifferentialPrivacyServerSideAdaptiveClipping(
            legacy.FedAvg(), 1.0, 40))


def test_state_dict_is_json_and_restores_the_ledger():
    cfg = _config(SamplingMethod.POISSON, ADD_REMOVE, 8.0)
    acct = FdpAccountant(cfg)
    acct.compose(GaussianPrivacyEvent(1.5, 3, POP), count=20)
    acct.compose(GaussianPrivacyEvent(1.5, 3, POP), count=5)
    acct.compose(GaussianPrivacyEvent(2.0, 4, POP), count=5)
    state = json.loads(json.dumps(acct.state_dict()))
    again = FdpAccountant(cfg)
    again.load_state_dict(state)
    assert again.num_releases == 30 == acct.num_releases
    assert again.get_epsilon(DELTA) == acct.get_epsilon(DELTA)
    assert len(state["compositions"]) == 2                          # equal rounds merged
    # the per-round σ and q are those of dpsgd with one value per round
    sigma = [1.5] * 25 + [2.0] * 5
    rate = [0.3] * 25 + [0.4] * 5
    lo, hi = fdp.dpsgd(sigma, rate, 30).epsilon_bounds(DELTA)
    assert lo <= acct.get_epsilon(DELTA) <= hi
    other = FdpAccountant(_config(SamplingMethod.POISSON, ADD_REMOVE, 9.0))
    with pytest.raises(ValueError, match="differs"):
        other.load_state_dict(state)
    with pytest.raises(ValueError, match="state_dict"):
        other.load_state_dict({"backend": "rdp"})
    with pytest.raises(ValueError, match="complete state_dict"):
        other.load_state_dict({"backend": "fdp", "schema_version": 1, "config": {}})


def test_privacy_spent_delta_and_edges():
    acct = FdpAccountant(_config(SamplingMethod.NO_AMPLIFICATION, ADD_REMOVE, 2.0))
    assert acct.get_epsilon(DELTA) == 0.0 and acct.num_releases == 0
    acct.compose(GaussianPrivacyEvent(1e300, POP, POP), count=10)   # no information
    assert acct.get_epsilon(1e-300) == 0.0
    acct = FdpAccountant(_config(SamplingMethod.NO_AMPLIFICATION, ADD_REMOVE, 2.0))
    acct.compose(GaussianPrivacyEvent(4.0, POP, POP), count=16)     # G_1
    spent = acct.get_privacy_spent()
    assert spent.epsilon == pytest.approx(fdp.gdp_epsilon(1.0, DELTA), rel=1e-12)
    assert spent.delta == DELTA and spent.num_releases == 16
    assert spent.accounting_method == "fdp"
    assert acct.get_delta(1.0) == pytest.approx(fdp.gdp_delta(1.0, 1.0), rel=1e-12)
    assert acct.would_exceed(GaussianPrivacyEvent(4.0, POP, POP), 5.0, count=1) is \
        (fdp.gdp_epsilon(math.sqrt(17) / 4.0, DELTA) > 5.0)
    assert acct.would_exceed(GaussianPrivacyEvent(4.0, POP, POP), 5.0, count=8) is \
        (fdp.gdp_epsilon(math.sqrt(24) / 4.0, DELTA) > 5.0)
    assert acct.num_releases == 16                                   # unchanged
    with pytest.raises(ValueError, match="count"):
        acct.compose(GaussianPrivacyEvent(4.0, POP, POP), count=0)
    with pytest.raises(ValueError, match="population_size"):
        acct.compose(GaussianPrivacyEvent(4.0, 5, 5))
    with pytest.raises(ValueError, match="delta"):
        acct.get_epsilon(1.5)
    with pytest.raises(ValueError, match="max_epsilon must be given"):
        FdpAccountant(_config(SamplingMethod.POISSON, ADD_REMOVE)).would_exceed(
            GaussianPrivacyEvent(1.0, 1, POP))


def test_tradeoff_is_the_certified_dpsgd_of_the_rounds():
    acct = FdpAccountant(_config(SamplingMethod.WITHOUT_REPLACEMENT, REPLACE))
    acct.compose(GaussianPrivacyEvent(2.0, 2, POP), count=12)
    f = acct.tradeoff()
    assert f.status.value == "certified"
    assert "without_replacement" in repr(f) and "sensitivity=2C" in repr(f)


def test_report_is_the_tradeoffs_report():
    # needs TradeOff.report (helper "report"'s branch): fails until it is merged
    acct = FdpAccountant(_config(SamplingMethod.POISSON, ADD_REMOVE))
    acct.compose(GaussianPrivacyEvent(2.0, 3, POP), count=10)
    r = acct.report(DELTA, fpr=(0.001, 0.01, 0.1))
    expected = acct.tradeoff().report(delta=DELTA, fpr=(0.001, 0.01, 0.1))
    assert r.to_json() == expected.to_json()


def test_edges_q_one_tiny_noise_and_many_rounds():
    # Poisson with every client (q = 1) is the Gaussian composition G_{√R/σ}
    acct = FdpAccountant(_config(SamplingMethod.POISSON, ADD_REMOVE))
    acct.compose(GaussianPrivacyEvent(2.0, POP, POP), count=5)
    lo, hi = acct.get_epsilon_bounds(DELTA)
    assert lo <= fdp.gdp_epsilon(math.sqrt(5) / 2.0, DELTA) <= hi
    # tiny noise: μ = 1e3, ε(1e-300) is finite and the closed form's
    acct = FdpAccountant(_config(SamplingMethod.NO_AMPLIFICATION, ADD_REMOVE))
    acct.compose(GaussianPrivacyEvent(1e-3, POP, POP))
    assert acct.get_epsilon(1e-300) == pytest.approx(fdp.gdp_epsilon(1e3, 1e-300), rel=1e-9)
    # 10^5 rounds of 1 client in 10^4, every round the same: one group for dpsgd
    acct = FdpAccountant(PrivacyConfig(DELTA, 10_000, REPLACE,
                                       SamplingMethod.WITHOUT_REPLACEMENT))
    acct.compose(GaussianPrivacyEvent(4.0, 1, 10_000), count=100_000)
    lo, hi = fdp.dpsgd(4.0, 1e-4, 100_000, sampling="without_replacement",
                       neighbouring="replace_one").epsilon_bounds(DELTA)
    assert lo <= acct.get_epsilon(DELTA) <= hi


def test_flowers_adaptive_clipping_noise_uses_the_updated_norm(monkeypatch):
    # the cause read_strategy names: one round of Flower's server-side adaptive clipping
    # clips at C_t and adds noise of stddev σ·C_{t+1}/m
    seen = []
    monkeypatch.setattr(adaptive, "add_gaussian_noise_inplace",
                        lambda arrays, std: seen.append(std))
    dp = DifferentialPrivacyServerSideAdaptiveClipping(
        FedAvg(fraction_train=1.0, fraction_evaluate=0.0), 1.0, POP,
        initial_clipping_norm=0.05, clipped_count_stddev=1.0)
    c_t = dp.clipping_norm
    dp.start(LocalGrid(), ArrayRecord([np.zeros(3)]), num_rounds=1)
    c_next = dp.clipping_norm
    assert c_next != c_t                             # every update was clipped: C moved
    assert seen == [pytest.approx(dp.noise_multiplier * c_next / POP, rel=1e-12)]


def test_an_unknown_client_sampler_or_population_is_refused():
    acct = FdpAccountant(_config(SamplingMethod.WITHOUT_REPLACEMENT, REPLACE, 3.0))
    dp = DifferentialPrivacyServerSideFixedClipping(PoissonFedAvg(0.3, 3), 2.0, 1.0, 3)
    with pytest.raises(ValueError, match="PoissonFedAvg samples clients with a configure"):
        BudgetedStrategy(dp, acct)
    big = FdpAccountant(PrivacyConfig(DELTA, 1000, REPLACE, SamplingMethod.WITHOUT_REPLACEMENT,
                                      3.0))
    dp = DifferentialPrivacyServerSideFixedClipping(FedAvg(fraction_train=0.3), 2.0, 1.0, 3)
    with pytest.raises(ValueError, match="grid has 10 clients but population_size=1000"):
        BudgetedStrategy(dp, big).start(LocalGrid(), ArrayRecord([np.zeros(1)]), num_rounds=1)


def test_unequal_client_weights_are_refused():
    acct = FdpAccountant(_config(SamplingMethod.WITHOUT_REPLACEMENT, REPLACE, 30.0))
    dp = DifferentialPrivacyServerSideFixedClipping(FedAvg(fraction_train=0.3), 2.0, 1.0, 3)
    with pytest.raises(ValueError, match="different weights"):
        BudgetedStrategy(dp, acct).start(LocalGrid(weight=lambda node: node),
                                         ArrayRecord([np.zeros(1)]), num_rounds=1)
    assert acct.num_releases == 1                # the round was composed before the refusal


def test_replace_one_sensitivity_is_two_where_flowers_rdp_takes_one():
    pytest.importorskip("dp_accounting", reason="needs the interop extra")
    # every client every round (q = 1), replace-one: two clients whose clipped updates are
    # C·e and −C·e move the sum by 2C, so 16 rounds at σ = 4 are exactly G_2 (DRS Cor 3.3)
    cfg = _config(SamplingMethod.WITHOUT_REPLACEMENT, REPLACE)
    event = GaussianPrivacyEvent(4.0, POP, POP)
    ours, theirs = FdpAccountant(cfg), RdpAccountant(cfg)
    ours.compose(event, count=16)
    theirs.compose(event, count=16)
    exact = fdp.gdp_epsilon(2.0, DELTA)                                  # 9.9973
    lo, hi = ours.get_epsilon_bounds(DELTA)
    assert lo <= exact <= hi
    # Flower's RDP accountant (s = 1) reports 4.7285, below the exact ε of that pair
    assert theirs.get_epsilon(DELTA) < fdp.gdp_epsilon(1.0, DELTA) * 1.1 < exact
