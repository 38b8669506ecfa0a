"""The registry through which the base class reaches the layers above it.

``TradeOff`` (a low layer) offers methods whose general implementations live in
higher layers: ``f.inverse()`` builds an ``fdp.operations.inverse.Inverse``,
``f @ g`` calls ``fdp.operations.compose.compose``, ``f.tpr_at_fpr(α)`` calls
``fdp.conversions.risk.tpr_at_fpr``, and so on. Importing those modules from
``fdp.tradeoff`` would make the layers a cycle. Instead each implementation
registers itself under a name where it is defined::

    @implements("compose")
    def compose(*fs, tol=None): ...

and the method looks it up when called::

    def __matmul__(self, other):
        return implementation("compose")(self, other)

This is the pattern of numpy's ``__array_function__`` protocol (NEP 18) and of
sympy's dispatch: the low layer names an operation, the layer that knows how to do
it supplies the code. ``import fdp`` imports ``fdp.operations`` and
``fdp.conversions``, so every registration has run before any user code calls a
method; a lookup of a name nobody registered is a ``RuntimeError`` saying so.

This module imports nothing from the package (layer 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

_REGISTRY: dict[str, Callable[..., Any]] = {}


def implements(name: str) -> Callable[[_F], _F]:
    """Register the decorated callable as the implementation of ``name``.

    Parameters
    ----------
    name : str
        The operation's name (e.g. ``"compose"``, ``"inverse"``, ``"tpr_at_fpr"``).

    Returns
    -------
    callable
        A decorator that records its argument and returns it unchanged.

    Raises
    ------
    RuntimeError
        When a different callable is already registered under ``name`` (one home
        per operation).

    Examples
    --------
    >>> from fdp._dispatch import implementation
    >>> implementation("compose").__module__
    'fdp.operations.compose'
    """
    def register(fn: _F) -> _F:
        known = _REGISTRY.get(name)
        if known is not None and known is not fn:
            raise RuntimeError(f"two implementations registered for {name!r}: "
                               f"{_qualname(known)} and {_qualname(fn)}")
        _REGISTRY[name] = fn
        return fn
    return register


def implementation(name: str) -> Callable[..., Any]:
    """The callable registered for ``name``.

    Parameters
    ----------
    name : str
        The operation's name.

    Returns
    -------
    callable
        The implementation registered with ``implements(name)``.

    Raises
    ------
    RuntimeError
        When nothing is registered under ``name`` (the module defining it was not
        imported; ``import fdp`` imports them all).

    Examples
    --------
    >>> import fdp
    >>> from fdp._dispatch import implementation
    >>> g = implementation("compose")(fdp.Gaussian(3.0), fdp.Gaussian(4.0))
    >>> g
    Gaussian(mu=5.0)
    """
    fn = _REGISTRY.get(name)
    if fn is None:
        raise RuntimeError(f"no implementation registered for {name!r} — import fdp "
                           "(it imports fdp.operations and fdp.conversions, which register them)")
    return fn


def registered() -> tuple[str, ...]:
    """The names with a registered implementation, sorted.

    Returns
    -------
    tuple of str
        Every name registered so far.

    Examples
    --------
    >>> import fdp
    >>> from fdp._dispatch import registered
    >>> "inverse" in registered()
    True
    """
    return tuple(sorted(_REGISTRY))


def _qualname(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
