"""``FdpAccountant``: a dp_accounting ``PrivacyAccountant`` answering with fdp's bounds.

dp_accounting's own tools (``calibrate_dp_mechanism``, jax_privacy's event builders)
use it unchanged. Needs dp_accounting (``pip install "fdp[interop]"``); the mapping of
events to trade-off functions, which needs no dp_accounting, is
``fdp.interop.dp_events`` (``from_dp_event``, ``check_dp_event`` and
``UnsupportedEventError`` are re-exported here).
"""

from __future__ import annotations

from typing import Any

from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant

from fdp import _validate
from fdp.interop.dp_events import _finish, _map, check_dp_event, from_dp_event
from fdp.interop.event_leaves import (
    Event,
    UnsupportedEventError,
    _Context,
    _relation,
    _sensitivity,
)
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff


class FdpAccountant(PrivacyAccountant):
    """A dp_accounting ``PrivacyAccountant`` whose answers are fdp's certified bounds.

    ``get_epsilon(δ)`` and ``get_delta(ε)`` are certified upper bounds (``epsilon_bounds``
    gives both sides), so ``dp_accounting.calibrate_dp_mechanism`` returns parameters
    whose certified guarantee meets the target. Events, ``neighboring_relation`` and
    ``replace_one_sensitivity`` are as in ``from_dp_event``; a ``SelfComposedDpEvent``
    (or ``compose(event, count)``) of n is always n compositions.

    Examples
    --------
    >>> import dp_accounting
    >>> from fdp.interop.dp_accounting import FdpAccountant
    >>> step = dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.GaussianDpEvent(3.0))
    >>> eps = FdpAccountant().compose(step, 512).get_epsilon(1e-6)   # certified upper ε
    >>> print(f"{eps:.4f}")
    3.7702
    """

    def __init__(self, neighboring_relation: Any = NeighboringRelation.ADD_OR_REMOVE_ONE, *,
                 replace_one_sensitivity: float = 2.0) -> None:
        if not isinstance(neighboring_relation, NeighboringRelation):
            raise TypeError("neighboring_relation must be a dp_accounting NeighboringRelation "
                            f"(ADD_OR_REMOVE_ONE or REPLACE_ONE), got {neighboring_relation!r}")
        self._ctx = _Context(_relation(neighboring_relation),
                             _sensitivity(replace_one_sensitivity))
        super().__init__(neighboring_relation)
        self._tradeoff: TradeOff | None = None

    # -- PrivacyAccountant -------------------------------------------------
    def _maybe_compose(self, event: Event, count: int, do_compose: bool) -> Any:
        try:
            _validate.positive_int("count", count, low=0)
            _map(event, self._ctx, build=False)
        except (UnsupportedEventError, ValueError, TypeError) as exc:
            return self.CompositionErrorDetails(invalid_event=event, error_message=str(exc))
        if do_compose:
            self._tradeoff = None  # the ledger changed; re-derive on the next query
        return None

    def get_epsilon(self, target_delta: float) -> float:
        """Certified upper ε at δ = ``target_delta`` (inf if no finite ε reaches it)."""
        return float(self.tradeoff.epsilon(_target_delta(target_delta)))

    def get_delta(self, target_epsilon: float) -> float:
        """Certified upper δ at ε = ``target_epsilon``."""
        eps = _validate.real("target_epsilon", target_epsilon, low=0.0, allow_inf=True)
        return float(self.tradeoff.delta(eps))

    # -- extras --------------------------------------------------------------
    def epsilon_bounds(self, target_delta: float) -> tuple[float, float]:
        """(lower, upper) ε at δ: the true ε of the composed events lies inside."""
        lo, hi = self.tradeoff.epsilon_bounds(_target_delta(target_delta))
        return float(lo), float(hi)

    @property
    def tradeoff(self) -> TradeOff:
        """The f-DP guarantee of everything composed so far (``fdp.from_dp_event``)."""
        if self._tradeoff is None:
            t = _finish(_map(self.ledger, self._ctx, build=True))
            require_guarantee(t, "FdpAccountant")
            self._tradeoff = t
        return self._tradeoff


def _target_delta(value: object) -> float:
    return _validate.real("target_delta", value, low=0.0, high=1.0)


__all__ = ["FdpAccountant", "UnsupportedEventError", "check_dp_event", "from_dp_event"]
