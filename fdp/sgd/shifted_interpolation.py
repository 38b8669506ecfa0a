"""Shifted interpolation (Bok, Su & Altschuler, ICML 2024, "BSA"): the contraction
factor, the horizon sums W₁, W₂, the strongly convex closed form and the result types.

The derivation is docs/derivations/last-iterate.md; the algorithms are
``fdp.sgd.last_iterate`` (NoisyGD, NoisySGD) and ``fdp.sgd.cyclic`` (NoisyCGD).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp._constants import UNIT_ROUNDOFF
from fdp.families.gaussian import Gaussian
from fdp.tradeoff import Delegating, TradeOff, math_repr

# Relative round-off of the μ formulas below (a few dozen correctly rounded operations,
# expm1/log1p within 1 ulp): μ is raised by this much to its safe side.
_MU_ROUNDING = 256.0 * UNIT_ROUNDOFF
# Horizons evaluated exactly when there are more steps than this: all ν up to it, a
# geometric grid beyond and the continuous minimiser (each horizon is a valid bound).
_DENSE_HORIZONS = 1 << 16


# ----------------------------------------------------------------------------
# Problem constants
# ----------------------------------------------------------------------------
def contraction(step_size: float, smoothness: float, strong_convexity: float = 0.0) -> float:
    """Contraction factor c = max{|1 − ηm|, |1 − ηM|} of the gradient step x ↦ x − η∇f.

    For f m-strongly convex and M-smooth and 0 < η ≤ 2/M the step is c-Lipschitz
    (BSA 2024, §2; Polyak 1987); c < 1 iff m > 0 and η < 2/M.

    η ∈ (0, 2/M], M > 0, m ∈ [0, M] (0: convex); c ∈ [0, 1].

    Examples
    --------
    >>> from fdp.sgd.last_iterate import contraction
    >>> contraction(0.1, smoothness=2.0, strong_convexity=0.5)
    0.95
    """
    return 1.0 - _gap(step_size, smoothness, strong_convexity)


def _gap(step_size: float, smoothness: float, strong_convexity: float) -> float:
    """1 − c, computed without cancellation."""
    M = _validate.real("smoothness", smoothness, low=0.0, low_open=True)
    m = _validate.real("strong_convexity", strong_convexity, low=0.0, high=M)
    eta = _validate.real("step_size", step_size, low=0.0, high=2.0 / M, low_open=True)
    # 1 − |1 − x| = min(x, 2 − x)
    return max(0.0, min(eta * m, 2.0 - eta * m, eta * M, 2.0 - eta * M))


def _w1(gap: float, nu: np.ndarray) -> np.ndarray:
    """W₁(ν) = Σ_{j<ν} c^j = (1 − c^ν)/(1 − c) (ν when c = 1), c = 1 − gap; also the
    geometric sums in c^l (pass 1 − c^l)."""
    if gap == 0.0:
        return nu.astype(float)
    if gap >= 1.0:
        return np.where(nu > 0, 1.0, 0.0)
    return -np.expm1(nu * math.log1p(-gap)) / gap


def _w2(gap: float, nu: np.ndarray) -> np.ndarray:
    """W₂(ν) = Σ_{j<ν} c^{2j} = (1 − c^{2ν})/(1 − c²)."""
    if gap == 0.0:
        return nu.astype(float)
    if gap >= 1.0:
        return np.where(nu > 0, 1.0, 0.0)
    return -np.expm1(2.0 * nu * math.log1p(-gap)) / (gap * (2.0 - gap))


def _cpow(gap: float, nu: np.ndarray) -> np.ndarray:
    """c^ν."""
    if gap >= 1.0:
        return np.where(nu == 0, 1.0, 0.0)
    return np.exp(nu * math.log1p(-gap))


def _horizons(steps: int, extra: tuple[float, ...] = ()) -> np.ndarray:
    """Horizons ν ∈ [1, steps] to try: all when few, else a dense head, a geometric
    grid and the neighbours of the given continuous minimisers."""
    if steps <= _DENSE_HORIZONS:
        return np.arange(1, steps + 1, dtype=float)
    cand = [np.arange(1, _DENSE_HORIZONS + 1, dtype=float),
            np.unique(np.round(np.geomspace(_DENSE_HORIZONS, steps, 4096))),
            np.array([float(steps)])]
    for x in extra:
        if np.isfinite(x):
            cand.append(np.clip([math.floor(x), math.ceil(x)], 1, steps).astype(float))
    return np.unique(np.concatenate(cand))


def _round_up(mu: float) -> float:
    return math.nextafter(mu * (1.0 + _MU_ROUNDING), math.inf) if mu > 0.0 else 0.0


# ----------------------------------------------------------------------------
# Result objects
# ----------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class LastIterateGaussian(Gaussian):
    """G_μ, the last-iterate guarantee of a noisy gradient method (exact closed form).

    A ``Gaussian`` (every closed form of G_μ applies) that also states the algorithm
    and the assumptions it was derived under.

    ``assumptions`` is shown in the repr; ``plain_mu`` is μ of plain composition
    (every iterate released) for the same run (inf when not given).

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_gd
    >>> f = noisy_gd(4.0, 1.0, 50, 1000, 0.1, smoothness=1.0, strong_convexity=0.5)
    >>> f.status.value, f.mu < f.plain_mu
    ('exact', True)
    """

    assumptions: str = ""
    plain_mu: float = math.inf

    def __repr__(self) -> str:
        return f"LastIterateGaussian(mu={self.mu!r}; {self.assumptions})"

    def latex(self) -> str:
        return Gaussian(self.mu).latex()


@dataclass(frozen=True, eq=False, repr=False)
class LastIterate(Delegating):
    """A certified last-iterate guarantee: the curve ``of`` with its assumptions.

    Every read-out is the curve's (a certified bracket from the engine); only the repr
    adds the algorithm and the horizons it was built from.

    ``of`` is the max over ``horizons`` (the unrolling horizons ν = t − τ composed, t:
    plain composition; ``fdp.strongest``); ``plain`` is plain composition of the run.

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_sgd
    >>> f = noisy_sgd(2.0, 100, 10_000, 500, 0.5, smoothness=1.0,
    ...               strong_convexity=0.1, candidates=1, tol=1e-2)
    >>> f.status.value, len(f.horizons)
    ('certified', 2)
    """

    assumptions: str
    horizons: tuple[int, ...]
    plain: TradeOff

    def __repr__(self) -> str:
        return (f"LastIterate({self.assumptions}; horizons={list(self.horizons)}) = "
                f"{math_repr(self.of)}")

    def _delta_members(self) -> tuple[TradeOff, ...] | None:
        return self.of._delta_members()



# ----------------------------------------------------------------------------
# Closed forms
# ----------------------------------------------------------------------------
def strongly_convex_mu(mu: float, contraction_factor: float, steps: int) -> float:
    """μ_t = μ √((1+c)/(1−c) · (1−c^t)/(1+c^t)): NoisyGD's exact last-iterate GDP μ.

    BSA 2024 (NoisyGD, strongly convex and smooth): t steps of a c-contractive update
    with per-step GDP parameter μ release a last iterate that is exactly μ_t-GDP
    (the unconstrained worst case attains it). Equals μ at t = 1, increases in t to
    μ √((1+c)/(1−c)), and is μ√t at c = 1 (plain composition).

    μ ≥ 0 is one step's GDP parameter (2L/(nσ) for NoisyGD), c ∈ [0, 1], t ≥ 0; μ_t is
    rounded up.

    Examples
    --------
    >>> from fdp.sgd.last_iterate import strongly_convex_mu
    >>> print(f"{strongly_convex_mu(0.1, 0.99, 1000):.4f}")
    1.4106
    """
    a = _validate.real("mu", mu, low=0.0)
    c = _validate.real("contraction_factor", contraction_factor, low=0.0, high=1.0)
    t = _validate.positive_int("steps", steps, low=0)
    if t == 0 or a == 0.0:
        return 0.0
    nu = np.array([float(t)])
    gap = 1.0 - c
    return _round_up(float(a * _w1(gap, nu)[0] / math.sqrt(_w2(gap, nu)[0])))


def _gd_mu(a: float, gap: float, steps: int, diameter_units: float) -> float:
    """min over horizons ν of √((c^ν d_{t−ν} + a W₁(ν))² / W₂(ν))
    (docs/derivations/last-iterate.md)."""
    if steps == 0 or a == 0.0:
        return 0.0
    nu0 = diameter_units / a if gap == 0.0 else math.inf
    nu = _horizons(steps, (nu0,))
    tau = steps - nu
    start = np.minimum(diameter_units, a * _w1(gap, tau))
    start = np.where(tau == 0, 0.0, start)
    with np.errstate(over="ignore", invalid="ignore"):
        mu = (_cpow(gap, nu) * start + a * _w1(gap, nu)) / np.sqrt(_w2(gap, nu))
    mu = np.where(np.isfinite(mu), mu, np.inf)
    return _round_up(float(np.min(mu)))


def _assumptions(kind: str, **kw: object) -> str:
    parts = [kind] + [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                      for k, v in kw.items()]
    return ", ".join(parts)
