"""Drop-in adapters for the accounting libraries users already train with.

* ``fdp.interop.opacus``: an accountant following Opacus' ``IAccountant`` protocol;
  ``fdp.interop.opacus.register()`` makes ``PrivacyEngine(accountant="fdp")`` work.
* ``fdp.interop.dp_accounting``: ``from_dp_event`` maps a dp_accounting ``DpEvent``
  to a ``TradeOff`` (also exported as ``fdp.from_dp_event``), and ``FdpAccountant``
  is a dp_accounting ``PrivacyAccountant``.

Neither library is a dependency of fdp: events are read by duck typing (class name
and attributes), and Opacus or dp_accounting is imported only when an adapter that
needs it is used. Install both with ``pip install "fdp[interop]"``.
"""
