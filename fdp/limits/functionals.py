"""Functionals of a trade-off function: the moments of its privacy loss.

The derivation: docs/derivations/limits.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from fdp._constants import NUMERIC_CELLS, SINGULAR_TOL
from fdp._numerics import bisect_monotone
from fdp.law import AtomsLaw, PrivacyLossLaw, split_delta
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class Functionals:
    """kl, κ2, κ3, κ̄3 of f (DRS §3.2), with the δ part split off.

    ``delta``: the mass split off as f_{0,δ} (0 when there is none).
    ``accuracy``: absolute error estimate of every field; 0.0 for closed forms and
    exact sums (then only rounding remains). ``method``: how they were computed.

    Parameters
    ----------
    kl, kappa2, kappa3, kappa3_bar : float
        The four functionals.
    delta : float, optional
        The δ split off.
    accuracy : float, optional
        Absolute error estimate.
    method : str, optional
        "closed form", "exact sum" or "quadrature".

    Examples
    --------
    >>> import fdp
    >>> r = fdp.functionals(fdp.EpsDelta(1.0, 0.01))
    >>> print(f"{r.kl:.4f} {r.kappa2:.4f} {r.delta:.2f}", r.method)
    0.4621 1.0000 0.01 exact sum
    """

    kl: float
    kappa2: float
    kappa3: float
    kappa3_bar: float
    delta: float = 0.0
    accuracy: float = 0.0
    method: str = "closed form"


# ----------------------------------------------------------------------
# Dispatch
# ----------------------------------------------------------------------
@dataclass(frozen=True)
class _Decomposed:
    law: PrivacyLossLaw
    delta: float
    accuracy: float
    method: str
    law_half: PrivacyLossLaw | None = None  # the coarser grid, for the numeric route


def _split_singular(a: float, b: float, what: str) -> float:
    """δ from the P-mass a on L = −∞ and the Q-mass b on L = +∞ (must agree)."""
    delta = split_delta(a, b, rtol=1e-6, atol=SINGULAR_TOL)
    if delta is None:
        raise ValueError(
            f"{what}: P puts mass {a:.6g} on L = -inf but Q puts mass {b:.6g} on L = +inf; "
            "only equal masses split off as f_(0,delta) (DRS (eps, delta) CLT). "
            "Symmetrise f first (f.symmetrize()).")
    return delta


def _exact(law: PrivacyLossLaw, what: str) -> _Decomposed:
    """A law with exact moments, its δ part split off."""
    a, b = law.singular_masses()
    delta = _split_singular(a, b, what)
    return _Decomposed(law.without_delta(delta), delta, 0.0, str(law.moment_method))


def _decompose(f: TradeOff) -> _Decomposed:
    law = f.law()
    if law is not None and law.moment_method is not None:
        return _exact(law, repr(f))
    pair = f._pair()
    if pair is not None:
        return _exact(pair.law(), repr(f))
    return _numeric(f)


def _numeric(f: TradeOff) -> _Decomposed:
    f0 = float(f._beta(np.array([0.0]))[0])
    b = max(0.0, 1.0 - f0)
    # α_z = inf{α : f(α) = 0} by bisection (f is non-increasing).
    if f._beta(np.array([1.0 - 1e-15]))[0] > 0.0:
        a = 0.0
    else:
        _, hi = bisect_monotone(lambda x: f._beta(x) <= 0.0, 0.0, 1.0, rtol=0.0, atol=1e-16)
        a = 1.0 - float(hi)
    delta = _split_singular(a, b, repr(f))
    if delta >= 1.0:
        return _Decomposed(AtomsLaw(np.zeros(1), np.ones(1), np.ones(1)), 1.0, 0.0, "quadrature")
    keep = 1.0 - delta

    def g(x: np.ndarray) -> np.ndarray:
        return f._beta(np.clip(keep * x, 0.0, 1.0)) / keep

    law = _chord_law(g, NUMERIC_CELLS)
    half = _chord_law(g, NUMERIC_CELLS // 2)
    return _Decomposed(law, delta, np.nan, "quadrature", half)


def _chord_law(g: Callable[[np.ndarray], np.ndarray], cells: int) -> AtomsLaw:
    """The finite pair of the chords of g on a logit-uniform grid of α in
    [expit(−36), expit(36)] plus the end points: cell i has P-mass Δα_i, Q-mass −Δβ_i
    and loss log|slope_i|. Its T is the piecewise-linear interpolant of g."""
    u = np.linspace(-36.0, 36.0, cells - 1)
    x = np.concatenate([[0.0], expit(u), [1.0]])
    y = np.minimum(g(x), 1.0 - x)
    y = np.minimum.accumulate(y)
    dp = np.diff(x)
    dq = -np.diff(y)
    live = dp > 0.0  # near α = 1 neighbouring grid points can round to the same double
    dp, dq = dp[live], dq[live]
    with np.errstate(divide="ignore"):
        L = np.log(dq) - np.log(dp)
    # Cells where g is flat carry no Q-mass: their loss is −inf, but after the δ split
    # they are rounding only; give them the smallest finite loss of the grid.
    finite = np.isfinite(L)
    if not finite.all():
        L = np.where(finite, L, L[finite].min() if finite.any() else 0.0)
    return AtomsLaw(L, dp, dq / dq.sum())


def functionals(f: TradeOff) -> Functionals:
    """kl, κ2, κ3, κ̄3 of a trade-off function (DRS §3.2).

    Closed forms for Gaussian (kl = μ²/2, κ2 = μ² + μ⁴/4, κ̄3 = 2√(2/π) μ³) and
    Laplace, exact sums for finite pairs (f_{ε,0}: kl = ε tanh(ε/2), κ2 = ε², κ3 = ε³),
    and quadrature with an error estimate otherwise (see docs/derivations/limits.md).
    A δ part (equal point masses at L = ±∞) is split off as f_{0,δ} and reported in
    ``delta``; the functionals are then those of g with f = g ⊗ f_{0,δ}.

    Raises
    ------
    TypeError
        If f is not a TradeOff.
    ValueError
        If P(L = −∞) and Q(L = +∞) differ (symmetrise f first).

    Examples
    --------
    >>> import fdp
    >>> r = fdp.functionals(fdp.Gaussian(1.0))
    >>> print(f"{r.kl:.4f} {r.kappa2:.4f}", r.method)
    0.5000 1.2500 closed form
    """
    if not isinstance(f, TradeOff):
        raise TypeError(f"functionals takes a TradeOff, got {type(f).__name__}")
    dec = _decompose(f)
    vals = dec.law.functionals()
    acc = dec.accuracy
    if dec.law_half is not None:
        coarse = dec.law_half.functionals()
        acc = float(2.0 * max(abs(x - y) for x, y in zip(vals, coarse)))
    kl, kappa2, kappa3, kappa3_bar = (float(v) for v in vals)
    return Functionals(kl, kappa2, kappa3, kappa3_bar, delta=dec.delta, accuracy=acc,
                       method=dec.method)
