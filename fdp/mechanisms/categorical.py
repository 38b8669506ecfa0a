"""Mechanisms with a finite output set: k-ary randomized response and private
selection (the exponential mechanism, report-noisy-max, permute-and-flip).

Both sample with a numpy ``Generator`` from probabilities computed in floating point.
The selection mechanisms take ``utility`` (maps the input to a score array of shape
(k,) or (..., k); None when ``release`` receives the scores themselves),
``sensitivity`` Δ > 0 (the largest change of any score between neighbours), ``eps``
ε > 0 and optional ``candidates`` (k outputs returned instead of indices).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import log_softmax

from fdp import _validate
from fdp._types import ArrayLike, Seed
from fdp.families.bounded_range import BoundedRange
from fdp.families.eps_delta import EpsDelta, RandomizedResponse
from fdp.families.finite_pair import FinitePair
from fdp.mechanisms._base import Mechanism, finite_values, positive
from fdp.tradeoff import TradeOff


def _categories(name: str, value: ArrayLike, k: int) -> np.ndarray:
    """An integer array with entries in {0, …, k − 1}."""
    arr = np.asarray(value)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold integers in [0, {k - 1}], got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating) and (
            not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))):
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

    Parameters
    ----------
    eps : float
        ε ≥ 0.
    k : int
        Number of categories, k ≥ 2.

    Examples
    --------
    >>> from fdp.mechanisms import RandomizedResponseMechanism
    >>> m = RandomizedResponseMechanism(eps=1.0, k=3)
    >>> m.tradeoff
    RandomizedResponse(eps=1.0, k=3)
    >>> m.release(2, rng=0) in (0, 1, 2)
    True
    """

    eps: float
    k: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _validate.real("eps", self.eps, low=0.0))
        object.__setattr__(self, "k", _validate.positive_int("k", self.k, low=2))

    @property
    def tradeoff(self) -> RandomizedResponse:
        return RandomizedResponse(self.eps, self.k)

    @property
    def keep_probability(self) -> float:
        """e^ε/(e^ε + k − 1), computed in log space."""
        return float(np.exp(self.eps - np.logaddexp(self.eps, np.log(self.k - 1.0))))

    def release(self, value: Any, rng: Seed = None) -> Any:
        """The randomized category of every entry of ``value`` (ints in [0, k−1])."""
        x = _categories("value", value, self.k)
        g = _validate.generator(rng)
        keep = g.random(x.shape) < self.keep_probability
        other = (x + 1 + g.integers(0, self.k - 1, size=x.shape)) % self.k
        out = np.where(keep, x, other)
        return int(out) if np.ndim(value) == 0 else out

    def audit_inputs(self) -> tuple[Any, Any]:
        return 0, 1

    def audit_scores(self, outputs: ArrayLike, value: Any, value_prime: Any) -> np.ndarray:
        """Log-likelihood ratio log q(o)/p(o): +ε at value', −ε at value, 0 elsewhere."""
        o = np.asarray(outputs)
        return np.where(o == value_prime, self.eps, np.where(o == value, -self.eps, 0.0))


@dataclass(frozen=True)
class _Selection(Mechanism):
    """Shared fields and checks of the private-selection mechanisms.

    ``utility``: a callable mapping the input (a dataset, or whatever ``release``
    receives) to a score array of shape (k,) -- or (..., k) for a batch of queries --
    or None, in which case ``release`` receives the score array itself.
    ``sensitivity``: Δ = sup over neighbours S ~ S' and candidates r of
    |u(S, r) − u(S', r)|. ``eps``: the privacy parameter (2Δ calibration, below).
    ``candidates``: optional sequence of k outputs returned instead of indices.
    """

    utility: Callable[[Any], Any] | None
    sensitivity: float
    eps: float
    candidates: tuple | None = None

    def __post_init__(self) -> None:
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

    def scores(self, value: Any) -> np.ndarray:
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

    @property
    def _rate(self) -> float:
        """ε/(2Δ): the factor on the scores (the 2Δ calibration)."""
        return self.eps / (2.0 * self.sensitivity)

    def _output(self, idx: int | np.ndarray) -> Any:
        if self.candidates is None:
            return idx
        return np.asarray(self.candidates, dtype=object)[idx] if np.ndim(idx) else \
            self.candidates[int(idx)]

    def audit_inputs(self) -> tuple[Any, Any]:
        """There is no generic worst-case pair: it depends on the utility."""
        raise ValueError(f"{type(self).__name__} has no generic worst-case neighbouring "
                         "pair; pass inputs=(value, value_prime) to fdp.audit.check")


@dataclass(frozen=True)
class ExponentialMechanism(_Selection):
    """The exponential mechanism (McSherry & Talwar 2007), standard 2Δ calibration.

    Given scores u(S, r) for candidates r = 0, …, k−1, output r with probability

        P[r] = exp(ε u(S, r) / (2Δ)) / Σ_r' exp(ε u(S, r') / (2Δ)),

    where Δ = ``sensitivity`` = sup over neighbours S ~ S' and candidates r of
    |u(S, r) − u(S', r)| (computed under the neighbouring relation you use).

    Guarantee (``tradeoff``): ``fdp.BoundedRange(ε)``, BR_ε(α) = (1 − α)/(1 + (e^ε − 1)α).
    The privacy loss is L(r) = (ε/2Δ)(u'(r) − u(r)) − log(Z'/Z), and
    (ε/2Δ)(u' − u) ranges over an interval of width at most (ε/2Δ)·2Δ = ε, so the
    mechanism is ε-bounded range (Durfee & Rogers 2019, "Practical differentially
    private top-k selection with pay-what-you-get composition"; Dong, Durfee &
    Rogers 2020, §2.1), and every ε-BR pair is a post-processing of a generalized
    randomized response GRR_t, t ∈ [0, ε], whose worst case is BR_ε (see
    ``fdp.families.bounded_range``). This is strictly stronger than the classical
    ε-DP statement f_{ε,0} (McSherry & Talwar 2007, Thm 6), and it is the best
    single curve over all utilities of sensitivity Δ: the pair u, u' = u ± Δ (+Δ on
    a set S of candidates, −Δ off it) is exactly GRR_t with t fixed by the mass of S,
    and small candidates let t take any value in [0, ε]. For a specific pair of
    inputs, ``pair_tradeoff(value, value')`` is the exact (stronger) T.
    k such selections, chosen adaptively, compose optimally with
    ``fdp.compose_selections`` (Dong, Durfee & Rogers 2020, §6), more tightly than
    the f-DP composition ``tradeoff ** k``.

    Parameters: as for every selection mechanism (module docstring).

    Examples
    --------
    >>> from fdp.mechanisms import ExponentialMechanism
    >>> m = ExponentialMechanism(None, sensitivity=1.0, eps=1.0)
    >>> m.tradeoff
    BoundedRange(eps=1.0)
    >>> int(m.release([0.0, 5.0, 10.0], rng=0)) in (0, 1, 2)
    True
    """

    @property
    def tradeoff(self) -> BoundedRange:
        """BR_ε: the exponential mechanism with the 2Δ calibration is ε-bounded range."""
        return BoundedRange(self.eps)

    # --- probabilities -------------------------------------------------------
    def log_probabilities(self, value: Any) -> np.ndarray:
        """log P[r] = ε u(r)/(2Δ) − logsumexp (stable for any score range)."""
        u = self.scores(value)
        return log_softmax(self._rate * u, axis=-1)

    def probabilities(self, value: Any) -> np.ndarray:
        """P[r] ∝ exp(ε u(r)/(2Δ)), along the last axis."""
        return np.exp(self.log_probabilities(value))

    def pair_tradeoff(self, value: Any, value_prime: Any) -> FinitePair:
        """The exact T(M(value), M(value')) for one specific pair of inputs."""
        lp, lq = self.log_probabilities(value), self.log_probabilities(value_prime)
        if lp.ndim != 1 or lp.shape != lq.shape:
            raise ValueError("pair_tradeoff needs one score vector (shape (k,)) per input, "
                             f"got shapes {lp.shape} and {lq.shape}")
        return FinitePair.from_atoms(lq - lp, np.exp(lp), np.exp(lq))

    # --- sampling ----------------------------------------------------------
    def release(self, value: Any, rng: Seed = None) -> Any:
        """One candidate per row of scores (inverse-CDF sampling, vectorised)."""
        p = self.probabilities(value)
        cdf = np.cumsum(p, axis=-1)
        u = _validate.generator(rng).random(p.shape[:-1])
        idx = np.sum(cdf <= u[..., None], axis=-1)
        # cdf[-1] may fall short of 1 by rounding: such u belong to the last candidate.
        idx = np.minimum(idx, p.shape[-1] - 1)
        return self._output(int(idx) if idx.ndim == 0 else idx)

    def sample(self, value: Any, n: int, rng: Seed = None) -> np.ndarray:
        """n independent outputs for the single input ``value`` (scores of shape (k,))."""
        n = _validate.positive_int("n", n)
        p = self.probabilities(value)
        if p.ndim != 1:
            raise ValueError(f"sample needs one score vector (shape (k,)), got shape {p.shape}")
        idx = _validate.generator(rng).choice(p.size, size=n, p=p / p.sum())
        return self._output(idx)

    def audit_scores(self, outputs: ArrayLike, value: Any, value_prime: Any) -> np.ndarray:
        """log q(o) − log p(o) from the exact output probabilities."""
        lp, lq = self.log_probabilities(value), self.log_probabilities(value_prime)
        o = np.asarray(outputs)
        if self.candidates is not None:
            lookup = {c: i for i, c in enumerate(self.candidates)}
            o = np.array([lookup[c] for c in o.ravel()], dtype=np.int64).reshape(o.shape)
        return (lq - lp)[o.astype(np.int64)]


_NOISES = ("gumbel", "exponential")
MAX_PF_CANDIDATES = 20_000


@dataclass(frozen=True)
class ReportNoisyMax(_Selection):
    """Report-noisy-max: output argmax_r (u(S, r) + Z_r), Z_r i.i.d. of scale 2Δ/ε.

    Same fields and 2Δ calibration as ``ExponentialMechanism``, plus ``noise``:

    ``noise="gumbel"`` (default): Z_r ~ Gumbel(0, 2Δ/ε). By the Gumbel-max trick
        (Yellott 1977; see Durfee & Rogers 2019, §2) the output has exactly the
        exponential mechanism's law P[r] ∝ exp(ε u(r)/(2Δ)), so the guarantee is
        ``BoundedRange(ε)`` (ε-bounded range; Dong, Durfee & Rogers 2020), and k
        such selections compose with ``fdp.compose_selections``.
    ``noise="exponential"``: Z_r ~ Exponential(scale 2Δ/ε). This is permute-and-flip
        in distribution (Ding, Zhang, Kifer et al. 2021, "The permute-and-flip
        mechanism is identical to report-noisy-max with exponential noise"), ε-DP
        (McKenna & Sheldon 2020, Thm 1): guarantee ``EpsDelta(ε)`` = f_{ε,0}. It is
        not ε-bounded range (two candidates, u = (0, 0) against u' = (Δ, −Δ): the
        losses are log(2 − e^{−ε}) and −ε, a range above ε), so BR_ε does not apply
        to it; and pure ε is the smallest pure-DP parameter over all utilities (for
        u ≡ 0 against u' = (+Δ, −Δ, …, −Δ) the loss at candidate 0 tends to ε as k
        grows).

    Parameters
    ----------
    utility : callable or None
        Maps the input to a score array of shape (k,) (or (..., k)); None when
        ``release`` receives the scores themselves.
    sensitivity : float
        Δ > 0, the largest change of any score between neighbours.
    eps : float
        ε > 0.
    candidates : sequence, optional
        k outputs returned instead of indices.
    noise : {"gumbel", "exponential"}
        The noise distribution (default "gumbel").

    Examples
    --------
    >>> from fdp.mechanisms import ReportNoisyMax
    >>> ReportNoisyMax(None, 1.0, 1.0).tradeoff
    BoundedRange(eps=1.0)
    >>> ReportNoisyMax(None, 1.0, 1.0, noise="exponential").tradeoff
    EpsDelta(eps=1.0, delta=0.0)
    """

    noise: str = "gumbel"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.noise, str) or self.noise not in _NOISES:
            raise ValueError(f"noise must be one of {_NOISES}, got {self.noise!r}")

    @property
    def tradeoff(self) -> TradeOff:
        """BR_ε for Gumbel noise (= the exponential mechanism), f_{ε,0} for exponential."""
        return BoundedRange(self.eps) if self.noise == "gumbel" else EpsDelta(self.eps)

    def release(self, value: Any, rng: Seed = None) -> Any:
        """argmax of the noisy scaled scores, one per row of scores (vectorised)."""
        a = self._rate * self.scores(value)
        g = _validate.generator(rng)
        z = g.gumbel(size=a.shape) if self.noise == "gumbel" else g.standard_exponential(a.shape)
        idx = np.argmax(a + z, axis=-1)
        return self._output(int(idx) if np.ndim(idx) == 0 else idx)

    def log_probabilities(self, value: Any) -> np.ndarray:
        """The exact output law (Gumbel noise only: the exponential mechanism's)."""
        if self.noise != "gumbel":
            raise ValueError("log_probabilities is available for noise='gumbel' only; "
                             "for exponential noise use PermuteAndFlip.probabilities")
        return log_softmax(self._rate * self.scores(value), axis=-1)

    def audit_scores(self, outputs: ArrayLike, value: Any, value_prime: Any) -> np.ndarray:
        """Log-likelihood ratio (Gumbel noise); the output index otherwise."""
        if self.noise != "gumbel":
            return np.asarray(outputs, dtype=float)
        em = ExponentialMechanism(None, self.sensitivity, self.eps, self.candidates)
        return em.audit_scores(outputs, self.scores(value), self.scores(value_prime))


@dataclass(frozen=True)
class PermuteAndFlip(_Selection):
    """Permute-and-flip (McKenna & Sheldon 2020), 2Δ calibration.

    Visit the candidates in a uniformly random order and output the first r for
    which a coin with P(heads) = exp(ε (u(r) − u*)/(2Δ)) lands heads (u* = max u;
    the best candidate always stops the walk). Same fields as
    ``ExponentialMechanism``.

    Guarantee (``tradeoff``): f_{ε,0}, pure ε-DP (McKenna & Sheldon 2020, Thm 1). It
    is identical in law to report-noisy-max with exponential noise of scale 2Δ/ε
    (Ding, Zhang, Kifer et al. 2021), never worse in expected utility than the
    exponential mechanism, but not ε-bounded range (a two-candidate pair has loss
    range ε + log(2 − e^{−ε}); see ``ReportNoisyMax``), so neither BR_ε nor
    ``compose_selections`` applies. f_{ε,0} composes exactly (``EpsDelta ** k``).

    Parameters: as for every selection mechanism (module docstring).

    Examples
    --------
    >>> from fdp.mechanisms import PermuteAndFlip
    >>> m = PermuteAndFlip(None, sensitivity=1.0, eps=2.0, candidates=("a", "b"))
    >>> m.tradeoff
    EpsDelta(eps=2.0, delta=0.0)
    >>> m.release([0.0, 100.0], rng=0)
    'b'
    """

    @property
    def tradeoff(self) -> EpsDelta:
        """f_{ε,0}: permute-and-flip is ε-DP."""
        return EpsDelta(self.eps)

    def probabilities(self, value: Any) -> np.ndarray:
        """P[r] = E over a random order of the chance r is the first head (exact).

        Writing p_s = exp(ε(u_s − u*)/(2Δ)), r comes first among the heads when it
        is heads and every candidate placed before it is tails. Draw the order by
        giving each candidate an independent uniform time; given r's time x, each
        other s comes first with probability x, independently, so
        P[r] = p_r ∫_0^1 Π_{s≠r} (1 − p_s x) dx. Evaluated by Gauss–Legendre
        quadrature, exact for this polynomial of degree k − 1.
        """
        u = self.scores(value)
        if u.ndim != 1:
            raise ValueError(f"probabilities needs one score vector (shape (k,)), "
                             f"got shape {u.shape}")
        p = np.exp(self._rate * (u - u.max()))
        k = p.size
        if k > MAX_PF_CANDIDATES:
            raise ValueError(f"probabilities needs k <= {MAX_PF_CANDIDATES} candidates "
                             f"(cost k^2/2), got k = {k}")
        x, w = np.polynomial.legendre.leggauss(k // 2 + 1)
        x, w = (x + 1.0) / 2.0, w / 2.0
        total = np.zeros(x.size)
        for s in range(0, k, 1024):
            total += np.log1p(-p[s:s + 1024, None] * x[None, :]).sum(axis=0)
        out = np.empty(k)
        for s in range(0, k, 1024):
            logt = np.log1p(-p[s:s + 1024, None] * x[None, :])   # p x < 1 at interior nodes
            with np.errstate(under="ignore"):
                out[s:s + 1024] = np.exp(total[None, :] - logt) @ w
        return p * out

    def release(self, value: Any, rng: Seed = None) -> Any:
        """The first head in a random order, one per row of scores (vectorised)."""
        a = self._rate * self.scores(value)
        p = np.exp(a - a.max(axis=-1, keepdims=True))
        g = _validate.generator(rng)
        order = np.argsort(g.random(p.shape), axis=-1)
        heads = g.random(p.shape) < np.take_along_axis(p, order, axis=-1)
        first = np.argmax(heads, axis=-1)[..., None]
        idx = np.take_along_axis(order, first, axis=-1)[..., 0]
        return self._output(int(idx) if np.ndim(idx) == 0 else idx)
