"""What a trade-off object may be used for: its status, and the one rule that derives it.

Derivation: docs/derivations/core.md.
"""

from __future__ import annotations

import enum
from typing import Any


class Status(enum.Enum):
    """The four statuses of a trade-off object, strongest first.

    Examples
    --------
    >>> from fdp.status import Status, weakest
    >>> weakest(Status.EXACT, Status.CERTIFIED)
    <Status.CERTIFIED: 'certified'>
    >>> Status.LOWER_BOUND.is_guarantee
    False
    """

    EXACT = "exact"
    CERTIFIED = "certified"
    LOWER_BOUND = "lower bound"
    APPROXIMATION = "approximation"

    @property
    def rank(self) -> int:
        """3 for exact down to 0 for an approximation (larger is stronger)."""
        return _RANK[self]

    @property
    def is_guarantee(self) -> bool:
        """True for exact and certified: a bound that may be spent."""
        return self in (Status.EXACT, Status.CERTIFIED)

    def __str__(self) -> str:
        return self.value


_RANK = {Status.EXACT: 3, Status.CERTIFIED: 2, Status.LOWER_BOUND: 1, Status.APPROXIMATION: 0}


def weakest(*statuses: Status) -> Status:
    """The weakest of one or more ``statuses`` (the status of a result built from them);
    ``ValueError`` when none is given.

    Examples
    --------
    >>> from fdp.status import Status, weakest
    >>> weakest(Status.CERTIFIED, Status.LOWER_BOUND, Status.EXACT)
    <Status.LOWER_BOUND: 'lower bound'>
    """
    if not statuses:
        raise ValueError("weakest needs at least one status")
    return min(statuses, key=_RANK.__getitem__)


def status_of(*objects: Any, operation: Status = Status.EXACT) -> Status:
    """``weakest(operation, *(o.status for o in objects))``: the status of a result built
    from ``objects`` by an operation whose own status is ``operation`` (``CERTIFIED`` for a
    numeric one, ``EXACT``, the default, for a closed form).

    Examples
    --------
    >>> import fdp
    >>> from fdp.status import Status, status_of
    >>> status_of(fdp.Gaussian(1.0), operation=Status.CERTIFIED)
    <Status.CERTIFIED: 'certified'>
    """
    return weakest(operation, *(o.status for o in objects))


class NotAGuarantee(ValueError):
    """Raised when something that spends a guarantee is given an object that is not one.

    A ``ValueError`` (the object is of the right type, its status is not acceptable).

    Examples
    --------
    >>> import fdp
    >>> try:
    ...     fdp.Accountant(mu=1.0).spend(fdp.edgeworth([fdp.Laplace(1.0)] * 3))
    ... except fdp.NotAGuarantee as err:
    ...     print(type(err).__name__)
    NotAGuarantee
    """


def require_guarantee(f: Any, consumer: str) -> None:
    """Raise ``NotAGuarantee`` unless ``f`` is an exact or certified guarantee for both
    directions; ``consumer`` (e.g. ``"Accountant.spend"``) names who asks.

    Examples
    --------
    >>> import fdp
    >>> from fdp.status import NotAGuarantee, require_guarantee
    >>> require_guarantee(fdp.Gaussian(1.0), "example")
    >>> e = fdp.edgeworth([fdp.Laplace(1.0)] * 3)
    >>> try:
    ...     require_guarantee(e, "example")
    ... except NotAGuarantee as err:
    ...     print(str(err)[:60])
    example refuses EdgeworthApprox(...): its status is 'approxi
    """
    status = f.status
    if not status.is_guarantee:
        raise NotAGuarantee(f"{consumer} refuses {_short(f)}: its status is {status.value!r}, "
                            "not a guarantee (only exact or certified objects can be spent)")
    if getattr(f, "directions", "both") == "one":
        raise NotAGuarantee(f"{consumer} refuses {_short(f)}: it bounds one direction of "
                            "add/remove neighbouring only; symmetrise it first "
                            "(.symmetrize(one_sided=True))")


def _short(f: Any) -> str:
    """The object's class name with its arguments elided, for one-line messages."""
    return f"{type(f).__name__}(...)"


ONE_DIRECTION_REMARK = "  # one direction only, not a guarantee"


def remark(f: Any) -> str:
    """The remark a repr ends with: ``# <status>, not a guarantee``, else
    ``ONE_DIRECTION_REMARK`` for one-direction f, else nothing.
    """
    if not f.status.is_guarantee:
        return f"  # {f.status.value}, not a guarantee"
    return ONE_DIRECTION_REMARK if f.directions == "one" else ""


def math_repr(f: Any) -> str:
    """repr(f) without its one-direction remark (for reprs that contain f)."""
    text, tail = repr(f), remark(f)
    return text[:-len(tail)] if tail and text.endswith(tail) else text
