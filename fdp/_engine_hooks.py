"""What the numeric engine may ask any trade-off function, with safe defaults.

``TradeOff`` inherits these hooks from ``EngineHooks``. The engine (``fdp.engine``)
sits below the families and the operations, so it cannot test for their classes;
it asks the object instead, and the classes that know more override the hook
(``Numeric._lattices``, ``Envelope._delta_members``, ``Gaussian._gaussian_component``,
``PoissonAdd._gaussian_component``, ``PiecewiseLinear._exact_vertices``). Every
default means "unknown", which is always safe: the engine then falls back to the
object's law or privacy profile.
"""

from __future__ import annotations

from typing import Any


class EngineHooks:
    """Mixin of ``TradeOff``: the engine's questions, each answered "unknown" by default."""

    __slots__ = ()

    def _pair(self) -> Any:  # pragma: no cover - provided by TradeOff
        return None

    def _lattices(self) -> tuple[tuple, tuple] | None:
        """(pessimistic, optimistic) lattices of a numeric result (one per direction), or
        None: the numeric engine then discretises f from its law or its profile."""
        return None

    def _delta_members(self) -> tuple[Any, ...] | None:
        """Members f_i with δ_f = max_i δ_i exactly, i.e. f = min{f_1, …, f_m}** (DRS
        2022, Prop 2.12), or None; the engine then discretises each member."""
        return None

    def _gaussian_component(self) -> tuple[float, float] | None:
        """(μ, w) when f ≥ G_μ and the Q-side law of f's pair contains N(μ, 1) with
        weight w > 0 (G_μ; a subsampled G_μ with rate w; Id gives (0.0, 1.0)), else None.
        Certifies the exact GDP μ of compositions (DRS 2022, Cor 3.3 and Sec. 5)."""
        return None

    def _exact_vertices(self) -> bool:
        """True when f is piecewise linear with known vertices (a finite pair), so that
        its summaries are exact vertex formulas."""
        return self._pair() is not None
