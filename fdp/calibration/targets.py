"""Privacy targets and how a guarantee is judged against them (see ``fdp.calibration``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from scipy.special import expit, ndtri

from fdp import _validate
from fdp._numerics import bisect_monotone, golden_max
from fdp._types import ArrayLike, FloatArray
from fdp.conversions.gdp import gdp_mu_for_eps_delta
from fdp.conversions.summaries import exact_piecewise_linear
from fdp.families.eps_delta import EpsDelta
from fdp.families.gaussian import Gaussian
from fdp.operations.with_delta import WithDelta
from fdp.tradeoff import TradeOff

# ----------------------------------------------------------------------
# g ≥ f
# ----------------------------------------------------------------------
_LOGITS = np.linspace(-690.0, 36.7, 4001)


def min_gap(g: TradeOff, f: TradeOff) -> float:
    """An ESTIMATE of min over α of g_lower(α) − f_upper(α), for messages (decisions use
    the proof of ``dominates``). Piecewise-linear f: golden section on each segment
    (g − f is convex there); otherwise 4001 logit-spaced α, refined around the worst five.
    Negative where g falls below f.

    Examples
    --------
    >>> import fdp
    >>> from fdp.calibration import min_gap
    >>> print(f"{abs(min_gap(fdp.Gaussian(0.5), fdp.Gaussian(1.0))):.4f}")
    0.0000
    """
    pl = exact_piecewise_linear(f)
    if pl is not None:
        a, b = pl.alphas, pl.betas
        at_vertices = float(np.min(g._beta(a) - b))
        lo, hi = a[:-1], a[1:]
        slope = (b[1:] - b[:-1]) / (hi - lo)

        def neg_gap(x: FloatArray) -> FloatArray:
            return -(g._beta(x) - (b[:-1] + slope * (x - lo)))

        x = golden_max(neg_gap, lo, hi, iters=90)
        return min(at_vertices, float(np.min(-neg_gap(x))))
    alpha = expit(_LOGITS)
    gap = g._beta(alpha) - f._upper(alpha)
    worst = np.argsort(gap)[:5]
    lo = alpha[np.maximum(worst - 1, 0)]
    hi = alpha[np.minimum(worst + 1, alpha.size - 1)]
    x = golden_max(lambda t: -(g._beta(t) - f._upper(t)), lo, hi, iters=90)
    refined = g._beta(x) - f._upper(x)
    return float(min(np.min(gap), np.min(refined)))


def dominates(g: TradeOff, f: TradeOff, slack: float = 0.0) -> bool:
    """g ≥ f − slack on [0, 1], PROVEN (``TradeOff.dominates``); False means "not proven".

    Examples
    --------
    >>> import fdp
    >>> from fdp.calibration import dominates
    >>> g, f = fdp.Gaussian(0.5), fdp.Gaussian(1.0)
    >>> dominates(g, f), dominates(f, g)
    (True, False)
    """
    return g.dominates(f, tol=slack)


# f ⊗ f_{0,η}, the form in which a numeric guarantee meets a curve target (derivation:
# docs/derivations/calibration.md); MAX_TAIL: the largest η accepted.
TailDelta = WithDelta
MAX_TAIL = 1e-9


def tail_mass(g: TradeOff) -> float:
    """η = δ_g(+∞) = 1 − g(0) for a numeric g (0 for exact closed forms).

    Examples
    --------
    >>> import fdp
    >>> from fdp.calibration import tail_mass
    >>> g = fdp.Laplace(1).subsample(0.5) @ fdp.Gaussian(1)       # the engine's bracket
    >>> tail_mass(fdp.Gaussian(1.0)), bool(0 < tail_mass(g) < 1e-9)
    (0.0, True)
    >>> tail_mass(fdp.Laplace(1) @ fdp.Gaussian(1))     # min(engine, RDP): no tail at all
    0.0
    """
    if g.is_exact:
        return 0.0
    return float(g._delta(np.array([np.inf]))[0])


# ----------------------------------------------------------------------
# Targets
# ----------------------------------------------------------------------
_T = TypeVar("_T")


def _given(value: _T | None) -> _T:
    """A field that the target's kind guarantees is set (``Target.make`` sets it)."""
    assert value is not None
    return value


@dataclass(frozen=True)
class Target:
    """A privacy target; ``met_by(g)`` decides it on the certified side of g.

    Parameters
    ----------
    kind : {"tradeoff", "mu", "eps_delta", "advantage", "tpr_at_fpr"}
        Which of the fields below is the target (build with ``Target.make``).
    tradeoff, mu, epsilon, delta, advantage, tpr, fpr
        The numbers of the target; None where not part of it.
    max_tail : float
        Largest tail mass η accepted for curve targets (default ``MAX_TAIL``).

    Examples
    --------
    >>> import fdp
    >>> from fdp.calibration import Target
    >>> t = Target.make(epsilon=1.0, delta=1e-5)
    >>> t.describe(), t.met_by(fdp.Gaussian(0.2)), t.met_by(fdp.Gaussian(1.0))
    ('(1, 1e-05)-DP', True, False)
    """

    kind: str
    tradeoff: TradeOff | None = None
    mu: float | None = None
    epsilon: float | None = None
    delta: float | None = None
    advantage: float | None = None
    tpr: float | None = None
    fpr: float | None = None
    max_tail: float = 1e-9

    @classmethod
    def make(cls, target: TradeOff | Target | None = None, *, mu: float | None = None,
             epsilon: float | None = None, delta: float | None = None,
             advantage: float | None = None,
             tpr_at_fpr: tuple[float, float] | None = None) -> Target:
        """Exactly one of: target (TradeOff), mu, (epsilon and delta), advantage, tpr_at_fpr."""
        given = [name for name, v in (("target", target), ("mu", mu),
                                      ("epsilon/delta", epsilon if epsilon is not None
                                       else delta),
                                      ("advantage", advantage), ("tpr_at_fpr", tpr_at_fpr))
                 if v is not None]
        if len(given) != 1:
            raise ValueError("give exactly one target: target=<TradeOff>, mu=, epsilon= with "
                             f"delta=, advantage= or tpr_at_fpr=(tpr, fpr); got {given or 'none'}")
        if target is not None:
            if isinstance(target, Target):
                return target
            if isinstance(target, EpsDelta):
                return cls("eps_delta", epsilon=target.eps, delta=target.delta)
            if isinstance(target, Gaussian):
                return cls("mu", mu=target.mu)
            if not isinstance(target, TradeOff):
                raise TypeError(f"target must be a TradeOff, got {type(target).__name__}")
            return cls("tradeoff", tradeoff=target)
        if mu is not None:
            return cls("mu", mu=_validate.real("mu", mu, low=0.0))
        if epsilon is not None or delta is not None:
            if epsilon is None or delta is None:
                raise ValueError("an (epsilon, delta) target needs both epsilon and delta")
            return cls("eps_delta", epsilon=_validate.real("epsilon", epsilon, low=0.0),
                       delta=_validate.probability("delta", delta))
        if advantage is not None:
            return cls("advantage", advantage=_validate.probability("advantage", advantage))
        assert tpr_at_fpr is not None          # the one target given (checked above)
        try:
            tpr, fpr = tpr_at_fpr
        except (TypeError, ValueError):
            raise ValueError("tpr_at_fpr must be a pair (tpr, fpr)") from None
        tpr = _validate.probability("tpr", tpr)
        fpr = _validate.probability("fpr", fpr)
        if tpr < fpr:
            raise ValueError(f"tpr_at_fpr=({tpr}, {fpr}) asks for TPR below FPR, which even a "
                             "perfectly private mechanism (random guessing) cannot meet")
        return cls("tpr_at_fpr", tpr=tpr, fpr=fpr)

    def describe(self) -> str:
        if self.kind == "tradeoff":
            return f"f-DP with f = {self.tradeoff!r}"
        if self.kind == "mu":
            return f"{self.mu:g}-GDP"
        if self.kind == "eps_delta":
            return f"({self.epsilon:g}, {self.delta:g})-DP"
        if self.kind == "advantage":
            return f"advantage <= {self.advantage:g}"
        return f"TPR <= {self.tpr:g} at FPR {self.fpr:g}"

    def met_by(self, g: TradeOff, slack: float = 0.0) -> bool:
        """True when a g-DP mechanism meets the target (certified side of g); ``slack``:
        an absolute allowance on the compared δ or β (the accountant uses 1e-12)."""
        if self.kind == "mu":
            if isinstance(g, Gaussian):
                return g.mu <= _given(self.mu)
            if g._gdp_mu_bounds()[1] <= _given(self.mu):     # certified: g ≥ G_{μ_g} ≥ G_μ
                return True
            return _dominates_numeric(g, Gaussian(_given(self.mu)), slack, self.max_tail)
        if self.kind == "eps_delta":
            return _delta_within(g, _given(self.epsilon), _given(self.delta), slack)
        if self.kind == "advantage":
            return _delta_within(g, 0.0, _given(self.advantage), slack)
        if self.kind == "tpr_at_fpr":
            return float(g._beta(np.array([_given(self.fpr)]))[0]) >= 1.0 - _given(self.tpr) - slack
        return _dominates_numeric(g, _given(self.tradeoff), slack, self.max_tail)

    def shortfall(self, g: TradeOff) -> str:
        """In words: what g would have to meet, what it gives (certified side), and by how much
        it misses -- the text of a refusal."""
        if self.kind == "mu":
            lo, hi = g._gdp_mu_bounds()
            if np.isfinite(hi):
                return (f"it is certified {hi:.6g}-GDP (true μ in [{lo:.6g}, {hi:.6g}]), over the "
                        f"budget μ = {_given(self.mu):.6g} by {hi - _given(self.mu):.3g}")
            eta = self.allowance(g)
            if eta > self.max_tail:
                return (f"no finite GDP μ is certified for it (lower bound {lo:.6g}); as a "
                        f"numeric result it could only be compared in the form G_μ ⊗ f_{{0,η}} "
                        f"with η = {eta:.3g} > max_tail = {self.max_tail:.3g}")
            return f"no finite GDP μ ≤ {self.mu:.6g} is certified for it (lower bound {lo:.6g})"
        if self.kind == "eps_delta":
            d = float(g._delta(np.array([self.epsilon]))[0])
            e = float(g.epsilon(_given(self.delta)))
            dt, et = _given(self.delta), _given(self.epsilon)
            return (f"its δ({et:.6g}) = {d:.6g} exceeds δ = {dt:.6g} by "
                    f"{d - dt:.3g} (its ε at δ = {dt:.3g} is {e:.6g}, over by "
                    f"{e - et:.3g})")
        if self.kind == "advantage":
            d = float(g._delta(np.array([0.0]))[0])
            a = _given(self.advantage)
            return f"its advantage {d:.6g} exceeds {a:.6g} by {d - a:.3g}"
        if self.kind == "tpr_at_fpr":
            t = 1.0 - float(g._beta(np.array([self.fpr]))[0])
            return (f"its attack TPR at FPR {self.fpr:.3g} can reach {t:.6g}, over {self.tpr:.6g} "
                    f"by {t - _given(self.tpr):.3g}")
        gap = min_gap(g, _given(self.tradeoff))
        return f"its curve falls below the target curve by up to {max(-gap, 0.0):.3g} in β"

    def curve(self) -> TradeOff | None:
        """The target as a curve, for the μ and curve kinds (None otherwise)."""
        if self.kind == "mu":
            return Gaussian(_given(self.mu))
        return self.tradeoff if self.kind == "tradeoff" else None

    def allowance(self, g: TradeOff) -> float:
        """η in f ⊗ f_{0,η} used to judge a numeric g against a curve target (else 0)."""
        f = self.curve()
        return 0.0 if f is None else tail_allowance(g, f)

    def gdp_mu(self, rtol: float = 1e-12) -> float:
        """The largest μ with G_μ meeting the target (rounded down; verified)."""
        if self.kind == "mu":
            return _given(self.mu)
        if self.kind == "eps_delta":
            guess = gdp_mu_for_eps_delta(_given(self.epsilon), _given(self.delta))
        elif self.kind == "advantage":
            guess = 2.0 * float(ndtri((1.0 + _given(self.advantage)) / 2.0))
        elif self.kind == "tpr_at_fpr":
            with np.errstate(divide="ignore"):
                guess = float(-ndtri(_given(self.fpr)) - ndtri(1.0 - _given(self.tpr)))
        else:
            guess = None
        if guess is not None and np.isfinite(guess) and guess >= 0:
            mu = guess
            step = 4e-16
            for _ in range(64):
                if self.met_by(Gaussian(mu)):
                    return float(mu)
                # steps growing geometrically: a few ulps first, then up to 2x
                mu = float(np.nextafter(mu, 0.0)) if mu < 1e-300 else mu * (1.0 - step)
                step = min(2.0 * step, 0.5)
        # Generic: bisect μ ↦ "G_μ fails the target" (monotone: G_μ decreases in μ),
        # keeping the side that met it.
        def fails(m: np.ndarray) -> np.ndarray:
            return np.array([not self.met_by(Gaussian(float(v))) for v in np.atleast_1d(m)])

        if not fails(np.array([1e-300]))[0]:
            hi = 1.0
            while not fails(np.array([hi]))[0]:
                if hi > 1e300:
                    return math.inf
                hi *= 2.0
            lo, _ = bisect_monotone(fails, 1e-300, hi, rtol=rtol)
            return float(lo)
        return 0.0


# Relative allowance (two ulps, safe side) for the rounding of a computed δ(ε); see
# docs/derivations/calibration.md.
DELTA_EVAL_RTOL = 4.5e-16


def _delta_within(g: TradeOff, eps: float, target: float, slack: float) -> bool:
    """δ_g(eps) ≤ target, certified: compared in log space with the evaluation allowance."""
    if target >= 1.0:
        return True
    log_d = float(g._log_delta(np.array([eps]))[0])
    if slack > 0.0:
        return bool(np.exp(log_d) * (1.0 + DELTA_EVAL_RTOL) <= target + slack)
    if target <= 0.0:
        return log_d == -np.inf
    return bool(log_d + np.log1p(DELTA_EVAL_RTOL) <= np.log(target))


def tail_allowance(g: TradeOff, f: TradeOff) -> float:
    """The least η (≥ δ_g(+∞), rounded up) for which g ≥ f ⊗ f_{0,η} is proven: 0 for
    exact g, 1.0 when no η < 1 is proven (bisection on log η).

    Examples
    --------
    >>> import fdp
    >>> from fdp.calibration import tail_allowance
    >>> tail_allowance(fdp.Gaussian(1.0), fdp.Gaussian(2.0))
    0.0
    >>> bool(tail_allowance(fdp.Laplace(1) @ fdp.Gaussian(1), fdp.Gaussian(2.0)) < 1e-9)
    True
    """
    if g.is_exact:
        return 0.0
    floor = tail_mass(g)

    def passes(eta: ArrayLike) -> np.ndarray:
        return np.array([dominates(g, TailDelta(f, float(e))) for e in np.atleast_1d(eta)])

    start = max(floor, 1e-300)
    if passes(floor)[0] if floor > 0 else False:
        return floor
    hi = max(start, 1e-16)
    while not passes(hi)[0]:
        hi *= 16.0
        if hi >= 1.0:
            return 1.0
    lo = max(start, hi / 16.0) if hi > start else start
    _, up = bisect_monotone(passes, lo, hi, rtol=1e-3)
    return float(up)


def _dominates_numeric(g: TradeOff, f: TradeOff, slack: float,
                       max_tail: float = MAX_TAIL) -> bool:
    """g ≥ f for exact g; g ≥ f ⊗ f_{0,max_tail} for numeric g."""
    if g.is_exact:
        return dominates(g, f, slack)
    return dominates(g, TailDelta(f, max_tail), slack)


