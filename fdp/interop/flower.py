"""Client-level accounting of Flower's differential-privacy strategies, certified by fdp.

Install with ``pip install "fdp[flower]"`` (``flwr`` ≥ 1.42); ``import fdp`` does not
import this module: ``from fdp.interop import flower``.

``FdpAccountant`` implements Flower's ``flwr.serverapp.PrivacyAccountant`` with fdp's
certified answers, fed one ``GaussianPrivacyEvent`` per released round; Flower's
fixed-clipping strategies accept it (``accountant=``, ``no-amplification`` only), and
``BudgetedStrategy`` wraps a strategy for the other two sampling methods. A round with
m = ``num_sampled_clients`` clipped updates and N(0, (σC/m)²) on their mean is one DP-SGD
step in which a client plays the part of a record (McMahan, Ramage, Talwar & Zhang 2018),
so R rounds are ``fdp.dpsgd`` over R steps at q = m/N: ``poisson`` is add/remove,
``dpsgd(σ, m/N, R)`` (Zhu, Dong & Wang 2021, Thm 11), needing a mean over the fixed m;
``without-replacement`` is replace-one, s = 2, C_{m/N}(G_{2/σ}) per round (Dong, Roth &
Su 2022, Thm 4.2; Flower's RDP accountant takes s = 1); ``no-amplification`` (m = N) is
G_μ, μ = √(Σ_t σ_t⁻²) (DRS Cor 3.3). Refused: m < N under ``no-amplification``, FedAvg's
realised-weight mean under Poisson, unequal client weights, unknown client samplers and
adaptive clipping (Andrew, Thakkar, McMahan & Ramaswamy 2021: Flower 1.42 scales the
noise by the norm after the round's update, so the effective σ·C_{t+1}/C_t has no lower
bound). The table and the reasons: docs/flower.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from flwr.app import ArrayRecord, ConfigRecord, Message, MetricRecord
from flwr.serverapp import (
    GaussianPrivacyEvent,
    Grid,
    NeighboringRelation,
    PrivacyConfig,
    PrivacySpent,
    SamplingMethod,
)
from flwr.serverapp.exception import PrivacyBudgetExhausted
from flwr.serverapp.strategy import FedAvg, Strategy

from fdp import _validate
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.sgd.certified import dpsgd
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff

BACKEND = "fdp"
_SCHEMA_VERSION = 1

#: Flower's sampling method -> the ``fdp.dpsgd`` sampler and neighbouring relation
#: (module docstring); ``no-amplification`` is q = 1, the exact Gaussian composition.
MODES = {
    SamplingMethod.POISSON: ("poisson", "add_remove"),
    SamplingMethod.WITHOUT_REPLACEMENT: ("without_replacement", "replace_one"),
}

#: One ledger entry: (noise multiplier σ, clients per round m, population N, rounds).
Entry = tuple[float, int, int, int]


@dataclass(frozen=True)
class DPParameters:
    """What fdp reads from a Flower DP strategy (``read_strategy``).

    Examples
    --------
    >>> from fdp.interop.flower import DPParameters
    >>> DPParameters(noise_multiplier=1.0, clipping_norm=0.1, num_sampled_clients=20)
    DPParameters(noise_multiplier=1.0, clipping_norm=0.1, num_sampled_clients=20)
    """

    noise_multiplier: float
    clipping_norm: float
    num_sampled_clients: int


def read_strategy(strategy: object) -> DPParameters:
    """The noise multiplier σ, clipping norm C and clients per round m of a Flower DP
    strategy (fixed clipping, either Flower API; attributes ``noise_multiplier``,
    ``clipping_norm``, ``num_sampled_clients``).

    Raises
    ------
    ValueError
        For a strategy without these attributes, with σ = 0, or with adaptive clipping.

    Examples
    --------
    >>> from flwr.serverapp.strategy import FedAvg, DifferentialPrivacyServerSideFixedClipping
    >>> from fdp.interop.flower import read_strategy
    >>> read_strategy(DifferentialPrivacyServerSideFixedClipping(FedAvg(), 1.2, 0.5, 10))
    DPParameters(noise_multiplier=1.2, clipping_norm=0.5, num_sampled_clients=10)
    """
    name = type(strategy).__name__
    if hasattr(strategy, "target_clipped_quantile"):      # Andrew et al.'s adaptive clipping
        split = getattr(strategy, "clipped_count_stddev", None)
        if not split:
            raise ValueError(
                f"{name} records no noise split: clipped_count_stddev is {split!r} "
                f"(noise_multiplier={getattr(strategy, 'noise_multiplier', None)!r}), so the "
                "count of clipped updates is released without noise and the round cannot "
                "be accounted; use fixed clipping")
        raise ValueError(
            f"{name} (clipped_count_stddev={split:g}) adds noise scaled by the clipping "
            "norm after the round's update, C_(t+1) = C_t exp(-clip_norm_lr (b - "
            "target_clipped_quantile)), to updates clipped at C_t; the effective noise "
            "multiplier noise_multiplier * C_(t+1)/C_t has no lower bound, so fdp cannot "
            "account it; use fixed clipping")
    missing = [a for a in ("noise_multiplier", "clipping_norm", "num_sampled_clients")
               if not hasattr(strategy, a)]
    if missing:
        raise ValueError(f"{name} is not a Flower DP fixed-clipping strategy: it has no "
                         f"{', '.join(missing)}")
    return DPParameters(
        _validate.real("noise_multiplier", strategy.noise_multiplier,  # type: ignore[attr-defined]
                       low=0.0, low_open=True),
        _validate.real("clipping_norm", strategy.clipping_norm,        # type: ignore[attr-defined]
                       low=0.0, low_open=True),
        _validate.positive_int("num_sampled_clients",
                               strategy.num_sampled_clients))          # type: ignore[attr-defined]


class FdpAccountant:
    """Flower's ``PrivacyAccountant`` interface, answered by ``fdp.dpsgd`` over the rounds.

    Parameters
    ----------
    config : flwr.serverapp.PrivacyConfig
        Population size N, relation and sampling method, target δ, optional
        ``max_epsilon`` (the budget ``would_exceed`` checks).

    Examples
    --------
    >>> from flwr.serverapp import (GaussianPrivacyEvent, NeighboringRelation,
    ...                             PrivacyConfig, SamplingMethod)
    >>> from fdp.interop.flower import FdpAccountant
    >>> acct = FdpAccountant(PrivacyConfig(1e-5, 100, NeighboringRelation.REPLACE_ONE,
    ...                                    SamplingMethod.WITHOUT_REPLACEMENT))
    >>> acct.compose(GaussianPrivacyEvent(2.0, 10, 100), count=50)
    >>> lo, hi = acct.get_epsilon_bounds(1e-5)
    >>> print(f"{lo:.2f} <= eps <= {hi:.2f}")
    5.54 <= eps <= 5.54
    """

    def __init__(self, config: PrivacyConfig) -> None:
        if not isinstance(config, PrivacyConfig):
            raise TypeError(f"config must be a flwr PrivacyConfig, got {type(config).__name__}")
        self._config = config
        self._ledger: list[Entry] = []
        self._cached: tuple[tuple[Entry, ...], TradeOff] | None = None

    # -- Flower's PrivacyAccountant ----------------------------------------
    @property
    def config(self) -> PrivacyConfig:
        """The privacy configuration."""
        return self._config

    @property
    def num_releases(self) -> int:
        """Rounds composed so far."""
        return sum(entry[3] for entry in self._ledger)

    def compose(self, event: GaussianPrivacyEvent, count: int = 1) -> None:
        """Record ``count`` released rounds of ``event``."""
        entry = self._entry(event, count)
        if self._ledger and self._ledger[-1][:3] == entry[:3]:
            self._ledger[-1] = (*entry[:3], self._ledger[-1][3] + entry[3])
        else:
            self._ledger.append(entry)

    def get_epsilon(self, delta: float) -> float:
        """Certified UPPER ε at ``delta`` of the rounds so far."""
        return float(self.tradeoff().epsilon(_validate.probability("delta", delta)))

    def get_delta(self, epsilon: float) -> float:
        """Certified UPPER δ at ``epsilon`` of the rounds so far."""
        eps = _validate.real("epsilon", epsilon, low=0.0)
        return float(self.tradeoff().delta(eps))

    def get_privacy_spent(self, delta: float | None = None) -> PrivacySpent:
        """ε at ``delta`` (default: the config's target δ), as Flower's ``PrivacySpent``."""
        d = self._config.target_delta if delta is None else delta
        return PrivacySpent(epsilon=self.get_epsilon(d), delta=float(d),
                            num_releases=self.num_releases, accounting_method=BACKEND)

    def would_exceed(self, event: GaussianPrivacyEvent, max_epsilon: float | None = None,
                     count: int = 1) -> bool:
        """True if ``count`` more rounds would take the certified ε past ``max_epsilon``
        (default: the config's); the ledger is unchanged."""
        limit = self._config.max_epsilon if max_epsilon is None else max_epsilon
        if limit is None:
            raise ValueError("max_epsilon must be given, to would_exceed() or in the "
                             "PrivacyConfig")
        limit = _validate.real("max_epsilon", limit, low=0.0, low_open=True)
        ahead = (*self._ledger, self._entry(event, count))
        return bool(_tradeoff(ahead, self._config).epsilon(self._config.target_delta) > limit)

    def state_dict(self) -> dict[str, Any]:
        """JSON-serialisable state: the configuration and the ledger of rounds."""
        c = self._config
        return {"schema_version": _SCHEMA_VERSION, "backend": BACKEND,
                "config": {"target_delta": c.target_delta, "population_size": c.population_size,
                           "neighboring_relation": c.neighboring_relation.value,
                           "sampling_method": c.sampling_method.value,
                           "max_epsilon": c.max_epsilon},
                "compositions": [{"event": {"noise_multiplier": s, "sample_size": m,
                                            "population_size": n}, "count": k}
                                 for s, m, n, k in self._ledger]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore ``state_dict()`` output; its configuration must equal this one's."""
        if not isinstance(state, dict) or state.get("backend") != BACKEND \
                or state.get("schema_version") != _SCHEMA_VERSION:
            raise ValueError(f"state must be the state_dict() of an fdp accountant (backend "
                             f"{BACKEND!r}, schema_version {_SCHEMA_VERSION})")
        try:
            cfg = state["config"]
            config = PrivacyConfig(cfg["target_delta"], cfg["population_size"],
                                   NeighboringRelation(cfg["neighboring_relation"]),
                                   SamplingMethod(cfg["sampling_method"]), cfg["max_epsilon"])
            events = [(GaussianPrivacyEvent(**c["event"]), c["count"])
                      for c in state["compositions"]]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"state is not a complete state_dict(): {exc!r}") from exc
        if config != self._config:
            raise ValueError(f"state's config {config} differs from this accountant's "
                             f"{self._config}")
        self._ledger = [self._entry(event, count) for event, count in events]

    # -- fdp's extras --------------------------------------------------------
    def get_epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """(lower, upper) ε at ``delta``: the exact ε of the rounds lies inside."""
        lo, hi = self.tradeoff().epsilon_bounds(_validate.probability("delta", delta))
        return float(lo), float(hi)

    def tradeoff(self) -> TradeOff:
        """The certified trade-off function of the rounds so far (module docstring)."""
        key = tuple(self._ledger)
        if self._cached is None or self._cached[0] != key:
            self._cached = (key, _tradeoff(key, self._config))
        return self._cached[1]

    def report(self, delta: float, **kwargs: Any) -> Any:
        """The privacy claim of the rounds so far (``self.tradeoff().report``)."""
        return self.tradeoff().report(delta=delta, **kwargs)

    def _entry(self, event: GaussianPrivacyEvent, count: int) -> Entry:
        if not isinstance(event, GaussianPrivacyEvent):
            raise TypeError(f"event must be a flwr GaussianPrivacyEvent, got "
                            f"{type(event).__name__}")
        k = _validate.positive_int("count", count)
        n = self._config.population_size
        if event.population_size != n:
            raise ValueError(f"event.population_size must equal the config's {n}, got "
                             f"{event.population_size}")
        if self._config.sampling_method is SamplingMethod.NO_AMPLIFICATION \
                and event.sample_size != n:
            raise ValueError(
                f"sampling_method='no-amplification' is accounted as every client in every "
                f"round: event.sample_size must be population_size={n}, got "
                f"{event.sample_size}; for a fixed number of clients per round use "
                "'without-replacement' (replace-one) with BudgetedStrategy")
        return (float(event.noise_multiplier), int(event.sample_size), n, k)


def _tradeoff(ledger: tuple[Entry, ...], config: PrivacyConfig) -> TradeOff:
    """The certified trade-off function of a ledger of rounds under ``config``."""
    if not ledger:
        return Identity()                              # no round, no information
    sigma = np.concatenate([np.full(k, s) for s, _, _, k in ledger])
    rate = np.concatenate([np.full(k, m / n) for _, m, n, k in ledger])
    if config.sampling_method is SamplingMethod.NO_AMPLIFICATION:
        # q = 1: the rounds are Gaussian mechanisms G_{1/σ_t}, composed in closed form
        f: TradeOff = Gaussian(math.sqrt(float(np.sum(sigma ** -2.0))))
    else:
        sampling, relation = MODES[config.sampling_method]
        same = bool(np.all(sigma == sigma[0]) and np.all(rate == rate[0]))
        f = dpsgd(sigma[0] if same else sigma, rate[0] if same else rate, sigma.size,
                  sampling=sampling, neighbouring=relation)
    require_guarantee(f, "the Flower accountant")
    return f


def _require_equal_weights(replies: list[Message], key: str) -> None:
    """Refuse unequal FedAvg weights ``key`` (one heavy client could move the mean by 2C)."""
    weights = {m.content.metric_records[r].get(key) for m in replies if not m.has_error()
               for r in m.content.metric_records}
    if len(weights) > 1:
        raise ValueError(f"FedAvg weights the updates by {key!r}, and the clients sent "
                         f"different weights {sorted(map(str, weights))}; the noise is "
                         "calibrated to the mean of equally weighted updates")


class BudgetedStrategy(Strategy):
    """A Flower DP fixed-clipping strategy that stops before a round would exceed the budget.

    Before each training round it raises Flower's ``PrivacyBudgetExhausted`` if the
    round's ``GaussianPrivacyEvent`` would take the certified ε at the target δ past
    ``max_epsilon``; at aggregation it composes the round.

    ``strategy`` is a ``DifferentialPrivacy{Server,Client}SideFixedClipping`` of
    ``flwr.serverapp`` without an accountant of its own; ``accountant``'s config gives
    the population size N and the budget ``max_epsilon``.

    Raises
    ------
    ValueError
        For what the module docstring refuses, a strategy with its own accountant or a
        config without ``max_epsilon``; at a round, a grid of other than N clients.

    Examples
    --------
    >>> from flwr.serverapp import NeighboringRelation, PrivacyConfig, SamplingMethod
    >>> from flwr.serverapp.strategy import DifferentialPrivacyServerSideFixedClipping, FedAvg
    >>> from fdp.interop.flower import BudgetedStrategy, FdpAccountant
    >>> config = PrivacyConfig(1e-5, 1000, NeighboringRelation.REPLACE_ONE,
    ...                        SamplingMethod.WITHOUT_REPLACEMENT, max_epsilon=8.0)
    >>> dp = DifferentialPrivacyServerSideFixedClipping(FedAvg(fraction_train=0.05), 1.5,
    ...                                                 1.0, 50)
    >>> budgeted = BudgetedStrategy(dp, FdpAccountant(config))   # then budgeted.start(grid, ...)
    >>> budgeted.params
    DPParameters(noise_multiplier=1.5, clipping_norm=1.0, num_sampled_clients=50)
    """

    def __init__(self, strategy: Strategy, accountant: FdpAccountant) -> None:
        super().__init__()
        self.params = read_strategy(strategy)
        if not isinstance(accountant, FdpAccountant):
            raise TypeError(f"accountant must be an FdpAccountant, got "
                            f"{type(accountant).__name__}")
        if getattr(strategy, "accountant", None) is not None:
            raise ValueError("strategy has an accountant of its own; give the FdpAccountant "
                             "either to Flower's strategy (accountant=) or to BudgetedStrategy")
        if accountant.config.max_epsilon is None:
            raise ValueError("accountant.config.max_epsilon must be set: it is the budget")
        inner = getattr(strategy, "strategy", None)
        if accountant.config.sampling_method is SamplingMethod.POISSON and \
                getattr(type(inner), "aggregate_train", None) is FedAvg.aggregate_train:
            raise ValueError(
                "sampling_method='poisson' needs an aggregation dividing by the fixed "
                f"num_sampled_clients={self.params.num_sampled_clients}; FedAvg."
                "aggregate_train divides by the realised clients' weight, whose "
                "sensitivity fdp does not account")
        if accountant.config.sampling_method is SamplingMethod.WITHOUT_REPLACEMENT and \
                getattr(type(inner), "configure_train", None) is not FedAvg.configure_train:
            raise ValueError(
                f"sampling_method='without-replacement' is FedAvg.configure_train's uniform "
                f"sample of m clients; {type(inner).__name__} samples clients with a "
                "configure_train of its own, which fdp cannot account")
        self.strategy = strategy
        self.accountant = accountant
        self._pending: dict[int, GaussianPrivacyEvent] = {}

    def __repr__(self) -> str:
        return f"BudgetedStrategy({self.strategy!r}, {self.accountant.config})"

    def configure_train(self, server_round: int, arrays: ArrayRecord, config: ConfigRecord,
                        grid: Grid) -> Iterable[Message]:
        """The strategy's messages, after checking the round fits in the budget."""
        n = self.accountant.config.population_size
        available = len(list(grid.get_node_ids()))
        if available != n:
            raise ValueError(f"the grid has {available} clients but population_size={n}: "
                             f"clients are sampled from the {available}")
        messages = list(self.strategy.configure_train(server_round, arrays, config, grid))
        m = self.params.num_sampled_clients
        fixed = self.accountant.config.sampling_method is not SamplingMethod.POISSON
        if fixed and not messages:
            return messages                   # no training round: nothing released
        if fixed and len(messages) != m:
            raise ValueError(f"the round samples {len(messages)} clients but the noise is "
                             f"calibrated to num_sampled_clients={m}")
        event = GaussianPrivacyEvent(self.params.noise_multiplier, m, n)
        if self.accountant.would_exceed(event):
            spent = self.accountant.get_privacy_spent()
            raise PrivacyBudgetExhausted(
                f"round {server_round} would exceed max_epsilon="
                f"{self.accountant.config.max_epsilon:g} (certified epsilon after "
                f"{spent.num_releases} rounds: {spent.epsilon:.6g} at delta={spent.delta:g})")
        self._pending[server_round] = event
        return messages

    def aggregate_train(self, server_round: int, replies: Iterable[Message]
                        ) -> tuple[ArrayRecord | None, MetricRecord | None]:
        """The strategy's noisy aggregate; every configured round is composed, released
        or not (whether a round yields an aggregate may depend on who was sampled)."""
        event = self._pending.pop(server_round, None)
        if event is not None:
            self.accountant.compose(event)
        replies = list(replies)
        inner = getattr(self.strategy, "strategy", None)
        if isinstance(inner, FedAvg) and \
                type(inner).aggregate_train is FedAvg.aggregate_train:
            _require_equal_weights(replies, inner.weighted_by_key)
        return self.strategy.aggregate_train(server_round, replies)

    def configure_evaluate(self, server_round: int, arrays: ArrayRecord,
                           config: ConfigRecord, grid: Grid) -> Iterable[Message]:
        """The strategy's evaluation round (not accounted, as in Flower)."""
        return self.strategy.configure_evaluate(server_round, arrays, config, grid)

    def aggregate_evaluate(self, server_round: int, replies: Iterable[Message]
                           ) -> MetricRecord | None:
        """The strategy's aggregated evaluation metrics."""
        return self.strategy.aggregate_evaluate(server_round, replies)

    def summary(self) -> None:
        """The strategy's summary."""
        self.strategy.summary()


__all__ = ["MODES", "BudgetedStrategy", "DPParameters", "FdpAccountant", "read_strategy"]
