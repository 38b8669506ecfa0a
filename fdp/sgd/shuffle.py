"""Shuffled batches: a certified LOWER curve (fdp ships no upper curve for shuffling).

The derivation: docs/derivations/shuffling.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray, FloatOrArray
from fdp.bracket import Bracket
from fdp.engine import Numeric
from fdp.sgd.allocation import epochs_of, random_allocation
from fdp.status import NotAGuarantee, Status
from fdp.tradeoff import TradeOff, remark

NOT_A_GUARANTEE = (
    "this is a LOWER bound on the privacy loss of shuffled batches (no upper bound "
    "is known for shuffling; Chua et al. 2024), not a privacy guarantee")


@dataclass(frozen=True, eq=False)
class ShuffleLower(TradeOff):
    """A certified LOWER curve for shuffled DP-SGD: the truth is at most this curve.

    ``f(α)`` and ``bounds`` are upper bounds on the true trade-off function (the
    leaky side); ``delta_lower``, ``epsilon_lower``, ``epsilon_bounds`` (lower end;
    the upper end is inf) and ``mu_lower`` are lower bounds. Not a guarantee
    (``status`` is ``Status.LOWER_BOUND``): it cannot be spent, and the guarantee
    read-outs ``epsilon``, ``delta``, ``gdp_mu``, ``pure_epsilon`` are refused with the
    reason.

    ``instance`` is the certified attack instance (random allocation) whose curve this
    is; ``label`` the configuration, for ``repr``.

    Examples
    --------
    >>> from fdp.sgd import shuffle_lower
    >>> low = shuffle_lower(1.0, 10, tol=1e-2)
    >>> low.status.value, bool(low.epsilon_lower(1e-5) > 0)
    ('lower bound', True)
    """

    instance: Numeric
    label: str

    def __repr__(self) -> str:
        return f"ShuffleLower({self.label})" + remark(self)

    def latex(self) -> str:
        return r"\mathrm{ShuffleLower}\;(\text{lower bound, not a guarantee})"

    @property
    def status(self) -> Status:
        return Status.LOWER_BOUND

    # the leaky side of the instance's bracket, for every reading
    def _beta(self, alpha: FloatArray) -> FloatArray:
        return self.instance._upper(alpha)

    def _upper(self, alpha: FloatArray) -> FloatArray:
        return self.instance._upper(alpha)

    def _delta(self, eps: FloatArray) -> FloatArray:
        return self.instance._delta_lower(eps)

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        return self.instance._delta_lower(eps)

    def delta_lower(self, eps: ArrayLike) -> FloatOrArray:
        """A LOWER bound on δ(ε) of shuffled DP-SGD (certified)."""
        e = _validate.reals("eps", eps, allow_inf=True)
        return _validate.like_input(eps, self.instance._delta_lower(e))

    def epsilon_lower(self, delta: ArrayLike) -> FloatOrArray:
        """A LOWER bound on ε(δ) of shuffled DP-SGD (certified)."""
        return self.epsilon_bounds(delta)[0]

    def epsilon_bounds(self, delta: ArrayLike, width: float | None = None) -> Bracket:
        """(lower bound, inf): shuffling has no known upper bound."""
        lo, _ = self.instance.epsilon_bounds(delta)
        return Bracket(lo, _validate.like_input(delta, np.full(np.shape(lo), np.inf)),
                       Status.LOWER_BOUND)

    def epsilon(self, delta: ArrayLike) -> NoReturn:
        """Refused: ``epsilon`` is a guarantee read-out (use ``epsilon_lower``)."""
        self._refuse("read a guarantee ε from (use epsilon_lower())")

    def delta(self, eps: ArrayLike) -> NoReturn:
        """Refused: ``delta`` is a guarantee read-out (use ``delta_lower``)."""
        self._refuse("read a guarantee δ from (use delta_lower())")

    def mu_lower(self) -> float:
        """A LOWER bound on the smallest μ with f_shuffle ≥ G_μ (shuffling is at least
        this far from μ-GDP)."""
        return self.instance.gdp_mu_bounds().lo

    def gdp_mu(self) -> NoReturn:
        """Refused: a GDP μ is read as a guarantee (``mu_lower`` gives the lower bound)."""
        self._refuse("read a GDP guarantee μ from (use mu_lower())")

    # -- refused read-outs: each would state a guarantee ----------------------
    def _refuse(self, what: str) -> NoReturn:
        raise NotAGuarantee(f"cannot {what} a ShuffleLower: {NOT_A_GUARANTEE}")

    @property
    def symmetric(self) -> bool:
        return True

    def pure_epsilon(self) -> NoReturn:
        """Refused: a pure ε is read as a guarantee."""
        self._refuse("read a pure-DP ε from")


def shuffle_lower(noise_multiplier: float, steps: int, epochs: int = 1,
                  tol: float | None = None) -> ShuffleLower:
    """Certified LOWER curve of shuffled DP-SGD (see docs/derivations/shuffling.md).

    σ > 0 as in ``fdp.dpsgd``; ``steps`` t ≥ 1 batches per epoch, ``epochs`` ≥ 1 (a fresh
    permutation each); ``tol`` the bracket's accuracy (default 1e-4). Every reading of
    the ``ShuffleLower`` is on the leaky side.

    Examples
    --------
    Shuffled DP-SGD leaks at least this much:

    >>> from fdp.sgd import shuffle_lower
    >>> low = shuffle_lower(1.0, 156, epochs=5, tol=1e-2)
    >>> print(f"{low.epsilon_lower(1e-6):.2f}")
    1.10
    """
    inst = random_allocation(noise_multiplier, steps, 1, epochs, tol=tol)
    return ShuffleLower(inst, f"sigma={float(noise_multiplier):g}, steps={int(steps)}, "
                              f"epochs={int(epochs)}, add/remove")


def from_dpsgd(noise_multiplier: float, sample_rate: float, steps: int,
               tol: float | None = None) -> ShuffleLower:
    """``fdp.dpsgd(σ, q, T, sampling="shuffle")``: the LOWER curve over ⌊T·q⌋ full
    epochs of t = 1/q batches (a last partial epoch only adds leakage, so dropping it
    keeps the bound valid)."""
    t, e = epochs_of(sample_rate, steps, partial="down")
    return shuffle_lower(noise_multiplier, t, e, tol=tol)
