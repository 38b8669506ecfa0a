"""The one type of every two-sided answer: ``Bracket``, lo ≤ truth ≤ hi.

Every read-out that has a lower and an upper side (``f.bounds(α)``,
``f.delta_bounds(ε)``, ``f.epsilon_bounds(δ)``, ``f.gdp_mu_bounds()``,
``f.pure_epsilon_bounds()``, the attack-risk read-outs of ``fdp.conversions.risk``)
returns a ``Bracket``. It is a tuple ``(lo, hi)``, so ``lo, hi = f.bounds(α)``,
indexing and comparison with a tuple work, and it carries:

- ``status``: the status of the object it was read from (``fdp.status``): for an
  approximation or a lower bound the two sides are *not* proven, and the repr says so;
- ``safe_side``: which side a privacy claim uses ("hi" for δ, ε, μ, an attacker's
  success; "lo" for β or a risk the attacker must incur);
- ``note``: what the number means, when that needs saying.

``float(b)`` is allowed only when the two sides agree (an exact answer): a bracket is
not a number, and the caller must choose a side.

This module imports only ``fdp.status`` (the lowest layer).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fdp.status import Status


class Bracket(tuple):
    """A certified interval lo ≤ truth ≤ hi: a tuple ``(lo, hi)`` with a status.

    Parameters
    ----------
    lo, hi : float or ndarray
        The two sides.
    status : Status, optional
        The status of the object the answer was read from (default exact).
    safe_side : {"hi", "lo"}, optional
        The side a privacy claim may use (default "hi").
    note : str, optional
        What the number means.

    Returns
    -------
    Bracket
        An immutable value; ``tuple(b)`` is ``(lo, hi)``; it pickles and compares as
        the tuple.

    Raises
    ------
    ValueError
        For a ``safe_side`` other than "hi" or "lo", or lo > hi anywhere (an inverted
        bracket bounds nothing: its two sides were read from different objects).

    Examples
    --------
    >>> from fdp.bracket import Bracket
    >>> b = Bracket(0.1, 0.2)
    >>> lo, hi = b
    >>> b.safe, b.width, b == (0.1, 0.2)
    (0.2, 0.1, True)
    >>> float(Bracket(0.5, 0.5))
    0.5
    """

    lo: Any
    hi: Any
    status: Status
    safe_side: str
    note: str

    def __new__(cls, lo: Any, hi: Any, status: Status = Status.EXACT, safe_side: str = "hi",
                note: str = "") -> Bracket:
        if safe_side not in ("hi", "lo"):
            raise ValueError(f"safe_side must be 'hi' or 'lo', got {safe_side!r}")
        if not isinstance(status, Status):
            raise TypeError(f"status must be a Status, got {type(status).__name__}")
        with np.errstate(invalid="ignore"):
            inverted = np.greater(lo, hi)
        if np.any(inverted):
            at = "" if not np.ndim(inverted) else f" at index {int(np.argmax(inverted))}"
            raise ValueError(f"a Bracket needs lo <= hi, got lo={lo!r} > hi={hi!r}{at}")
        self = super().__new__(cls, (lo, hi))
        self.__dict__.update(lo=lo, hi=hi, status=status, safe_side=safe_side, note=note)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Bracket is immutable")

    def __reduce__(self) -> tuple:
        return (Bracket, (self.lo, self.hi, self.status, self.safe_side, self.note))

    @property
    def safe(self) -> Any:
        """The side a privacy claim uses: ``hi`` or ``lo`` as ``safe_side`` says."""
        return self.hi if self.safe_side == "hi" else self.lo

    @property
    def width(self) -> Any:
        """hi − lo."""
        return self.hi - self.lo

    def __float__(self) -> float:
        lo, hi = np.asarray(self.lo, dtype=float), np.asarray(self.hi, dtype=float)
        if lo.ndim or hi.ndim or not lo == hi:
            raise TypeError(f"{self!r} is a bracket, not a number: take .lo, .hi or .safe")
        return float(lo)

    def __repr__(self) -> str:
        def fmt(x: Any) -> str:
            return np.array2string(np.asarray(x)) if np.ndim(x) else repr(float(x))
        tail = "" if self.status.is_guarantee else f"  # {self.status.value}, not proven"
        return f"Bracket(lo={fmt(self.lo)}, hi={fmt(self.hi)}){tail}"
