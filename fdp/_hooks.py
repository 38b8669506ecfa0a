"""What the numeric engine and the composition rules may ask any trade-off object.

Derivation: docs/derivations/core.md.
"""

from __future__ import annotations

from typing import Any


class EngineHooks:
    """The questions with their safe defaults (a base of ``fdp.tradeoff.TradeOff``).

    Examples
    --------
    >>> import fdp
    >>> fdp.Gaussian(1.0)._gaussian_component(), fdp.Laplace(1.0)._pair()
    ((1.0, 1.0), None)
    """

    __slots__ = ()

    def _pair(self) -> Any:
        """An exact finite pair (P, Q) with T(P, Q) = f (a ``FinitePair``), if one is known."""
        return None

    def _composition_kind(self) -> str | None:
        """The kind ``fdp.operations.compose.RULES`` keys on; None: "pair" when
        ``_pair()`` is known, else "numeric"; "neutral" marks a function equal to Id.
        """
        return None

    def _lattices(self) -> tuple[tuple, tuple] | None:
        """(pessimistic, optimistic) lattices of a numeric result, or None (the
        engine then discretises the law or the profile). The engine hooks default to
        "unknown", always safe.
        """
        return None

    def _delta_members(self) -> tuple[Any, ...] | None:
        """Members f_i with δ_f = max_i δ_i, i.e. f = min{f_1, …, f_m}** (DRS Prop
        2.12), or None.
        """
        return None

    def _gaussian_component(self) -> tuple[float, float] | None:
        """(μ, w) when f ≥ G_μ and f's Q-side law contains N(μ, 1) with weight w > 0,
        else None; certifies the GDP μ of compositions (DRS Cor 3.3).
        """
        return None

    def _exact_vertices(self) -> bool:
        """True for a finite pair (summaries are then exact vertex formulas)."""
        return self._pair() is not None

    def __setstate__(self, state: object) -> None:
        """Restore a pickled frozen object from ``__dict__`` or ``(__dict__, slots)``."""
        d, slots = state if isinstance(state, tuple) else (state, None)
        for k, v in {**(d or {}), **(slots or {})}.items():
            object.__setattr__(self, k, v)
