"""Mechanisms with a finite output set: k-ary randomized response and the exponential
mechanism.

Both sample with a numpy ``Generator`` from probabilities computed in floating point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy.special import log_softmax

from fdp import _validate
from fdp.families.eps_delta import EpsDelta, RandomizedResponse
from fdp.families.finite_pair import FinitePair
from fdp.mechanisms._base import Mechanism, finite_values, generator, positive


def _categories(name: str, value, k: int) -> np.ndarray:
    """An integer array with entries in {0, …, k − 1}."""
    arr = np.asarray(value)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold integers in [0, {k - 1}], got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{name} must hold integers in [0, {k - 1}]")
    out = arr.astype(np.int64)
    if out.size and (out.min() < 0 or out.max() > k - 1):
        raise ValueError(f"{name} must hold integers in [0, {k - 1}], "
                         f"got values in [{out.min()}, {out.max()}]")
    return out


@dataclass(frozen=True)
class RandomizedResponseMechanism(Mechanism):
    """k-ary randomized response (Warner 1965; Kairouz, Oh, Viswanath 2016).

    Input a category x ∈ {0, …, k−1}; output x with probability e^ε/(e^ε + k − 1) and
    each other category with probability 1/(e^ε + k − 1). Neighbours are two different
    categories (one person's value changes; this is a local-DP mechanism). The output
    pair has losses +ε, −ε and 0 (the k − 2 other categories), so the exact guarantee
    is ``fdp.RandomizedResponse(eps, k)``; for k = 2 it is f_{ε,0}.
    """

    eps: float
    k: int = 2

    def __post_init__(self):
        object.__setattr__(self, "eps", _validate.real("eps", self.eps, low=0.0))
        object.__setattr__(self, "k", _validate.positive_int("k", self.k, low=2))

    @property
    def tradeoff(self) -> RandomizedResponse:
        return RandomizedResponse(self.eps, self.k)

    @property
    def keep_probability(self) -> float:
        """e^ε/(e^ε + k − 1), computed in log space."""
        return float(np.exp(self.eps - np.logaddexp(self.eps, np.log(self.k - 1.0))))

    def release(self, value, rng=None):
        """The randomized category of every entry of ``value`` (ints in [0, k−1])."""
        x = _categories("value", value, self.k)
        g = generator(rng)
        keep = g.random(x.shape) < self.keep_probability
        other = (x + 1 + g.integers(0, self.k - 1, size=x.shape)) % self.k
        out = np.where(keep, x, other)
        return int(out) if np.ndim(value) == 0 else out

    def audit_inputs(self):
        return 0, 1

    def audit_scores(self, outputs, value, value_prime):
        """Log-likelihood ratio log q(o)/p(o): +ε at value', −ε at value, 0 elsewhere."""
        o = np.asarray(outputs)
        return np.where(o == value_prime, self.eps, np.where(o == value, -self.eps, 0.0))


@dataclass(frozen=True)
class ExponentialMechanism(Mechanism):
    """The exponential mechanism (McSherry & Talwar 2007), standard 2Δ calibration.

    Given scores u(S, r) for candidates r = 0, …, k−1, output r with probability

        P[r] = exp(ε u(S, r) / (2Δ)) / Σ_r' exp(ε u(S, r') / (2Δ)),

    where Δ = ``sensitivity`` = sup over neighbours S ~ S' and candidates r of
    |u(S, r) − u(S', r)| (computed under the neighbouring relation you use).

    Guarantee (``tradeoff``): f_{ε,0}, i.e. pure ε-DP (McSherry & Talwar 2007, Thm 6):
    the numerator changes by at most e^{ε/2} and the normaliser by at most e^{ε/2}.
    This is the guarantee over all utilities with sensitivity Δ, approached as k → ∞
    (u' = u + Δ on one candidate and u − Δ on all others); for a specific pair of
    inputs, ``pair_tradeoff(value, value')`` is the exact (stronger) T. The factor 2
    is needed for general utilities; for monotone utilities exp(ε u/Δ) would suffice,
    but that variant is not what this class samples.

    ``utility``: a callable mapping the input (a dataset, or whatever ``release``
    receives) to a score array of shape (k,) -- or (..., k) for a batch of queries --
    or None, in which case ``release`` receives the score array itself.
    ``candidates``: optional sequence of k outputs returned instead of indices.
    """

    utility: Callable[[Any], Any] | None
    sensitivity: float
    eps: float
    candidates: tuple | None = None

    def __post_init__(self):
        if self.utility is not None and not callable(self.utility):
            raise TypeError("utility must be a callable (input -> scores of shape (..., k)) "
                            f"or None, got {type(self.utility).__name__}")
        object.__setattr__(self, "sensitivity", positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "eps", _validate.real("eps", self.eps, low=0.0))
        if self.candidates is not None:
            cands = tuple(self.candidates)
            if len(cands) < 1:
                raise ValueError("candidates must hold at least one output")
            object.__setattr__(self, "candidates", cands)

    @property
    def tradeoff(self) -> EpsDelta:
        """f_{ε,0} (pure ε-DP) for the 2Δ-calibrated mechanism."""
        return EpsDelta(self.eps)

    # --- probabilities -------------------------------------------------------
    def scores(self, value) -> np.ndarray:
        """The utility scores of ``value``, checked: finite, shape (..., k), k ≥ 1."""
        raw = self.utility(value) if self.utility is not None else value
        u = finite_values("utility scores", raw)
        if u.ndim < 1 or u.shape[-1] < 1:
            raise ValueError("utility must return scores of shape (k,) or (..., k) with "
                             f"k >= 1 candidates, got shape {u.shape}")
        if self.candidates is not None and u.shape[-1] != len(self.candidates):
            raise ValueError(f"utility must return one score per candidate "
                             f"(k = {len(self.candidates)}), got shape {u.shape}")
        return u

    def log_probabilities(self, value) -> np.ndarray:
        """log P[r] = ε u(r)/(2Δ) − logsumexp (stable for any score range)."""
        u = self.scores(value)
        return log_softmax(self.eps * u / (2.0 * self.sensitivity), axis=-1)

    def probabilities(self, value) -> np.ndarray:
        """P[r] ∝ exp(ε u(r)/(2Δ)), along the last axis."""
        return np.exp(self.log_probabilities(value))

    def pair_tradeoff(self, value, value_prime) -> FinitePair:
        """The exact T(M(value), M(value')) for one specific pair of inputs."""
        lp, lq = self.log_probabilities(value), self.log_probabilities(value_prime)
        if lp.ndim != 1 or lp.shape != lq.shape:
            raise ValueError("pair_tradeoff needs one score vector (shape (k,)) per input, "
                             f"got shapes {lp.shape} and {lq.shape}")
        return FinitePair.from_atoms(lq - lp, np.exp(lp), np.exp(lq))

    # --- sampling ----------------------------------------------------------
    def _output(self, idx):
        if self.candidates is None:
            return idx
        return np.asarray(self.candidates, dtype=object)[idx] if np.ndim(idx) else \
            self.candidates[int(idx)]

    def release(self, value, rng=None):
        """One candidate per row of scores (inverse-CDF sampling, vectorised)."""
        p = self.probabilities(value)
        cdf = np.cumsum(p, axis=-1)
        u = generator(rng).random(p.shape[:-1])
        idx = np.sum(cdf <= u[..., None], axis=-1)
        # cdf[-1] may fall short of 1 by rounding: such u belong to the last candidate.
        idx = np.minimum(idx, p.shape[-1] - 1)
        return self._output(int(idx) if idx.ndim == 0 else idx)

    def sample(self, value, n: int, rng=None):
        """n independent outputs for the single input ``value`` (scores of shape (k,))."""
        n = _validate.positive_int("n", n)
        p = self.probabilities(value)
        if p.ndim != 1:
            raise ValueError(f"sample needs one score vector (shape (k,)), got shape {p.shape}")
        idx = generator(rng).choice(p.size, size=n, p=p / p.sum())
        return self._output(idx)

    def audit_inputs(self):
        """There is no generic worst-case pair: it depends on the utility."""
        raise ValueError("ExponentialMechanism has no generic worst-case neighbouring pair; "
                         "pass inputs=(value, value_prime) to fdp.audit.check")

    def audit_scores(self, outputs, value, value_prime):
        """log q(o) − log p(o) from the exact output probabilities."""
        lp, lq = self.log_probabilities(value), self.log_probabilities(value_prime)
        o = np.asarray(outputs)
        if self.candidates is not None:
            lookup = {c: i for i, c in enumerate(self.candidates)}
            o = np.array([lookup[c] for c in o.ravel()], dtype=np.int64).reshape(o.shape)
        return (lq - lp)[o.astype(np.int64)]
