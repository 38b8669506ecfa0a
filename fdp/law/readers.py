"""The law of a trade-off function, read through its ``law()`` method (for the engine).

Each reader ``x_of(f)`` answers ``f.law().x(...)``, or None (no atoms for ``atoms_of``)
when f has no law; ``f`` is any object with a ``law()`` method.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from fdp._types import ArrayLike
from fdp.law.base import Masses, PrivacyLossLaw


class HasLaw(Protocol):
    """What the readers need of a trade-off function: its ``law()``."""

    def law(self) -> PrivacyLossLaw | None: ...


def law_of(f: HasLaw) -> PrivacyLossLaw | None:
    """``f.law()``, built once per object (kept in its ``__dict__``); None when f has none.
    Derivation: docs/derivations/laws.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import law_of
    >>> g = fdp.Laplace(1.0)
    >>> law_of(g) is law_of(g)
    True
    """
    store = getattr(f, "__dict__", None)
    if store is None:
        return f.law()
    if "_law" not in store:
        store["_law"] = f.law()
    return store["_law"]


def interval_masses_of(f: HasLaw, edges: ArrayLike) -> Masses | None:
    """``f.law().interval_masses(edges)``: (κ, π, Q(L = +∞), P(L = −∞)) at sorted edges.

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import interval_masses_of
    >>> kappa, pi, q_inf, p_neginf = interval_masses_of(fdp.Gaussian(1.0), [0.0])
    >>> print(f"{kappa.sum():.4f} {pi[0]:.4f}")
    1.0000 0.6915
    """
    law = law_of(f)
    return None if law is None else law.interval_masses(edges)


def loss_range_of(f: HasLaw) -> tuple[float, float] | None:
    """``f.law().loss_range()``: (lo, hi).

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import loss_range_of
    >>> print(loss_range_of(fdp.Laplace(1.0)))
    (-1.0, 1.0)
    """
    law = law_of(f)
    return None if law is None else law.loss_range()


def atoms_of(f: HasLaw) -> tuple[np.ndarray, np.ndarray]:
    """``f.law().atoms()``: locations and Q-masses of the finite point masses.

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import atoms_of
    >>> L, q = atoms_of(fdp.Laplace(1.0))
    >>> print(L)
    [ 1. -1.]
    """
    law = law_of(f)
    return (np.zeros(0), np.zeros(0)) if law is None else law.atoms()


def loss_moments_of(f: HasLaw) -> tuple[float, float] | None:
    """``f.law().loss_moments("Q")``: (mean, variance) of L under Q when cheaply known.

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import loss_moments_of
    >>> print(loss_moments_of(fdp.Gaussian(2.0)))
    (2.0, 4.0)
    """
    law = law_of(f)
    return None if law is None else law.loss_moments("Q")
