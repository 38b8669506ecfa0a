"""Drop-in adapters for the accounting libraries users already train with.

* ``fdp.interop.opacus``: an accountant following Opacus' ``IAccountant`` protocol;
  ``fdp.interop.opacus.register()`` makes ``PrivacyEngine(accountant="fdp")`` work.
* ``fdp.interop.dp_events`` (re-exported by ``fdp.interop.dp_accounting``):
  ``from_dp_event`` maps every dp_accounting
  ``DpEvent`` (0.6 and main, including those jax_privacy builds) to an exact or
  certified ``TradeOff`` under add/remove, replace-one or replace-special neighbours,
  or raises ``UnsupportedEventError`` naming it (also exported as
  ``fdp.from_dp_event``; the table is docs/dp-events.md), and
  ``fdp.interop.dp_accounting.FdpAccountant`` is a dp_accounting ``PrivacyAccountant``.
* ``fdp.interop.flower`` (``fdp[flower]``): Flower's ``PrivacyAccountant`` answered by
  ``fdp.dpsgd`` at client level, and ``BudgetedStrategy``; ``fdp.interop.tuning``
  (``fdp[tune]``): the certified guarantee of an Optuna study's best trial. Both import
  their peer library and are imported only explicitly (``from fdp.interop import flower``).
* ``fdp.interop.opacus_check`` (``fdp[interop]``): ``check_opacus(engine, loader,
  optimizer)`` checks an Opacus run against its accounting (``fdp.sgd.check_loop``).

Neither library is a dependency of fdp: events are read by duck typing (class name
and attributes), and Opacus or dp_accounting is imported only when an adapter that
needs it is used. Install both with ``pip install "fdp[interop]"``.
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
