"""A trade-off function stated with a weaker status than its own: ``weaken(f, status, reason)``.

Derivation: docs/derivations/operations.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from fdp.status import Status, weakest
from fdp.tradeoff import Delegating, TradeOff, math_repr


@dataclass(frozen=True)
class Weakened(Delegating):
    """f, stated as ``claimed`` (``Status.LOWER_BOUND`` or ``APPROXIMATION``) because of
    ``reason`` (a few words, shown in the repr); ``ValueError`` for a guarantee status or
    an empty reason, ``TypeError`` when ``of`` is not a TradeOff.

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.weaken import weaken
    >>> from fdp.status import Status
    >>> g = weaken(fdp.Gaussian(1.0), Status.APPROXIMATION, "CLT")
    >>> g
    Gaussian(mu=1.0)  # approximation (CLT), not a guarantee
    >>> g.status, g(0.05) == fdp.Gaussian(1.0)(0.05)
    (<Status.APPROXIMATION: 'approximation'>, True)
    """

    claimed: Status
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.of, TradeOff):
            raise TypeError(f"of must be a TradeOff, got {type(self.of).__name__}")
        if not isinstance(self.claimed, Status) or self.claimed.is_guarantee:
            raise ValueError("claimed must be Status.LOWER_BOUND or Status.APPROXIMATION, "
                             f"got {self.claimed!r}")
        if not isinstance(self.reason, str) or not self.reason:
            raise ValueError("reason must be a non-empty string")

    def __repr__(self) -> str:
        return f"{math_repr(self.of)}  # {self.status.value} ({self.reason}), not a guarantee"

    @property
    def status(self) -> Status:
        return weakest(self.of.status, self.claimed)


def weaken(f: TradeOff, claimed: Status, reason: str) -> TradeOff:
    """``Weakened(f, claimed, reason)``, or f itself when its status is already at most
    ``claimed``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.weaken import weaken
    >>> from fdp.status import Status
    >>> weaken(fdp.Gaussian(2.0), Status.LOWER_BOUND, "upper side of a band").status
    <Status.LOWER_BOUND: 'lower bound'>
    """
    if weakest(f.status, claimed) is f.status:
        return f
    return Weakened(f, claimed, reason)
