"""Drop-in adapters for the accounting libraries users already train with.

``opacus`` (an Opacus ``IAccountant``; ``register()`` makes ``PrivacyEngine(accountant=
"fdp")`` work), ``dp_events`` (``from_dp_event``: every dp_accounting ``DpEvent`` as an
exact or certified ``TradeOff``, or ``UnsupportedEventError``; docs/dp-events.md) with
``dp_accounting.FdpAccountant``, ``flower`` (``fdp[flower]``: Flower's client-level
``PrivacyAccountant`` and ``BudgetedStrategy``), ``tuning`` (``fdp[tune]``: an Optuna
study's best trial) and ``opacus_check`` (``check_opacus``: an Opacus run against its
accounting). No peer library is a dependency of fdp: events are read by duck typing,
and each peer is imported only by the adapter that needs it (``from fdp.interop import
flower``). Install with ``pip install "fdp[interop]"``.
"""

import importlib as _importlib
from types import ModuleType as _ModuleType

__all__ = ["dp_accounting", "dp_events", "opacus"]


def __getattr__(name: str) -> _ModuleType:
    # the adapters are loaded on first use (neither imports its peer library itself)
    if name in __all__:
        return _importlib.import_module(f"fdp.interop.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
