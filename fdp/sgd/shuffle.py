"""Shuffled batches: a certified LOWER curve (fdp ships no upper curve for shuffling).

Shuffling (one uniformly random permutation of the n records per epoch, cut into
t = n/B consecutive batches of size B) is what most DP-SGD code does. The guarantee
fdp can certify for it is the no-amplification bound (each record in one batch per
epoch: Gaussian(√epochs/σ)). Lower bounds exist (Chua et al., "How private are
DP-SGD implementations?", ICML 2024; Chua et al., "Scalable DP-SGD: shuffling vs.
Poisson subsampling", NeurIPS 2024): a specific pair of neighbouring datasets and
gradients on which the mechanism provably leaks at least a given amount.

An upper bound in closed form is due to van Dijk & Ertan ("Trade-off functions for
DP-SGD with subsampling based on random shuffling: tight upper and lower bounds",
arXiv 2605.06259, 2026), valid for σ ≥ √(3/ln M) with M rounds per epoch and derived
through the Berry–Esseen theorem: one epoch is at least 1 − α − δ (f_{0,δ}; for σ = 1
and δ = 1/100 about M ≈ 1.14·10⁶ rounds are needed), and E epochs add up to a δ
linear in E, useful for E = O(√M). For such M it is far stronger than the
no-amplification bound (at σ = 1 one epoch of G_1 is only 1 − α − 0.383 at worst,
2Φ(1/2) − 1). It is not shipped beside ``shuffle_lower``: a certified curve needs the
bound's Berry–Esseen constants re-derived and tested against an independent value,
which has not been done, so fdp's upper curve for shuffling stays Gaussian(√epochs/σ).

The instance used here
----------------------
All records other than the differing one have clipped gradient 0 (an input of
the adaptive batch linear queries of Chua et al. 2024), the differing record's
gradient has norm C, neighbours add or remove it, and the permutation is redrawn
every epoch. Whatever the batch filling rule, the released batch sums are then
N(0, σ²C²) noise except in the one batch that holds the record, whose position is
uniform over the t batches: exactly one random allocation (k = 1) of t steps per
epoch, Chua et al. (AISTATS 2025) / Feldman & Shenfeld (2025). So the true
trade-off function of shuffled DP-SGD satisfies

    f_shuffle ≤ T(this instance) ≤ the upper side of its certified bracket,

and every number read from ``ShuffleLower`` is on the LEAKY side: β is an upper
bound on the best attack's type II error, δ(ε), ε(δ), μ are lower bounds. It is
never a guarantee: its ``status`` is ``Status.LOWER_BOUND``; operations on it give
lower bounds again (``fdp.status``: the weakest input wins), and every consumer of a
guarantee (``fdp.Accountant``, calibration, the adapters) refuses it.
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

    Parameters
    ----------
    instance : Numeric
        The certified attack instance (random allocation) whose curve this is.
    label : str
        The configuration, for ``repr``.

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
    """Certified LOWER curve of shuffled DP-SGD (see the module docstring).

    Parameters
    ----------
    noise_multiplier : float
        σ > 0 (noise standard deviation in units of the clipping norm).
    steps : int
        t ≥ 1: batches per epoch (dataset size / batch size).
    epochs : int
        Number of epochs ≥ 1 (a fresh permutation each).
    tol : float, optional
        Accuracy target of the underlying bracket (default 1e-4).

    Returns
    -------
    ShuffleLower
        Every reading is on the leaky side; its status is ``Status.LOWER_BOUND``.

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
