"""Calibrating noise to a privacy target, always on the safe side.

A *target* is one of (exactly one must be given):

=====================  ======================================================
``target=f``           the mechanism must be f-DP: its guarantee g satisfies g ≥ f
``mu=μ``               μ-GDP: g ≥ G_μ
``epsilon=ε, delta=δ`` (ε, δ)-DP: δ_g(ε) ≤ δ (DRS Prop 2.12; g-DP ⇒ (ε, δ_g(ε))-DP)
``advantage=a``        max_α (1 − α − g(α)) = δ_g(0) ≤ a (membership-inference advantage)
``tpr_at_fpr=(t, a)``  every attack with FPR ≤ a has TPR ≤ t: g(a) ≥ 1 − t
=====================  ======================================================

(the last two are the attack-risk targets of riskcal, Kulynych et al. 2024).
An ``fdp.EpsDelta(ε, δ)`` given as ``target=`` is treated as (ε, δ).

Certified side. Every check uses the side of a numeric guarantee that is safe: the
certified upper δ (``g._delta``) and the certified lower curve (``g._beta``). So a
noise level that passes meets the target for the true (unknown-exactly) guarantee.

Search. ``search_noise`` finds the smallest noise whose guarantee passes, for a
guarantee that improves with the noise. It starts from a guess, expands the bracket
by doubling/halving until one end passes and the other fails (no fixed bracket, so it
cannot fail the way opacus #775 did), then bisects until (hi − lo) ≤ rtol·hi and
returns ``hi``, the end that *passes* (never the midpoint: no overshoot as in opacus
#346). The result reports ``lower`` (a noise verified to fail) and the relative
``tolerance`` (hi − lo)/hi: the true optimum lies in (lower, noise].

Numeric guarantees and curve targets. The certified lower side of a numeric g puts
the truncated tail of the privacy-loss law, a mass δ_g(+∞) (about 1e-13 at the
engine's default accuracy), at infinite loss; then g(0) < 1 and no such g lies above
G_μ or any curve with f(0) = 1. For ``mu=`` and ``target=`` targets a numeric g is
therefore checked against f ⊗ f_{0,η} (``TailDelta``: (1 − η) f(α/(1 − η)), privacy
profile η + (1 − η) δ_f), with η the smallest value making δ_g ≤ η + (1 − η) δ_f on the
ε grid (``tail_allowance``: the tail mass plus discretisation error where δ_f is
tiny; taken over the ε with δ_f(ε) ≤ 0.999, where the ratio is well conditioned).
η is reported as ``tail_delta``, and η > ``MAX_TAIL`` = 1e-9 counts as failing. The (ε, δ),
advantage and TPR targets need no such allowance (η is inside the certified δ).

Comparison g ≥ f for a target curve f (``dominates``): when f is piecewise linear
(``from_points``, ``EpsDelta``, finite pairs), g − f is convex on each segment of f and
its minimum there is found by golden section, which is exact up to the search
tolerance. Otherwise g − f is evaluated on 4001 logit-spaced α in [1e-300, 1 − 1e-16]
and refined by golden section around the five worst grid points; between grid points
this is a numerical check, not a proof. β values are compared with an absolute
allowance ``ROUNDING`` = 1e-15 (a few ulps of numbers near 1). The privacy profiles
are compared too, δ_g(ε) ≤ δ_f(ε) on a grid of ε (relative allowance 1e-12), which
keeps relative precision where the curves differ only very near α = 0. A Gaussian is
never above a curve with bounded privacy loss (δ_f(ε) = 0 at some finite ε: Laplace
curves, hulls of points with f(0) = 1): such targets are refused outright (the search
then reports them unattainable).

Floating point. "Safe side" holds up to the floating-point evaluation of the
guarantee itself (relative error ~1e-15 in δ); no further margin is added.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import expit, ndtri

from fdp import _validate
from fdp.families.eps_delta import EpsDelta
from fdp.families.gaussian import Gaussian
from fdp.families.laplace import Laplace
from fdp.families.piecewise import PiecewiseLinear
from fdp.tradeoff import TradeOff, bisect_monotone, golden_max

# ----------------------------------------------------------------------
# g ≥ f
# ----------------------------------------------------------------------
_LOGITS = np.linspace(-690.0, 36.7, 4001)


def _piecewise(f: TradeOff) -> PiecewiseLinear | None:
    if isinstance(f, PiecewiseLinear):
        return f
    if f.is_exact:
        pair = f._pair()
        if pair is not None:
            return pair
    return None


def min_gap(g: TradeOff, f: TradeOff) -> float:
    """min over α of g_lower(α) − f_upper(α) (see the module docstring for the method)."""
    pl = _piecewise(f)
    if pl is not None:
        a, b = pl.alphas, pl.betas
        at_vertices = float(np.min(g._beta(a) - b))
        lo, hi = a[:-1], a[1:]
        slope = (b[1:] - b[:-1]) / (hi - lo)

        def neg_gap(x):
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


# Absolute rounding allowance of β comparisons: values near 1 carry errors of a few ulps.
ROUNDING = 1e-15


_EPS_GRID = np.concatenate([np.linspace(-40.0, 40.0, 3201), [-np.inf, np.inf]])
# Relative allowance of δ comparisons (δ is computed to ~1e-15 relative).
DELTA_RTOL = 1e-12


def dominates(g: TradeOff, f: TradeOff, slack: float = 0.0) -> bool:
    """g ≥ f − slack on [0, 1], PROVEN (``TradeOff.dominates``, one meaning everywhere).

    False means "not proven". See ``fdp.conversions.summaries.prove_dominates``.
    """
    return g.dominates(f, tol=slack)


class TailDelta(TradeOff):
    """f ⊗ f_{0,η}: (1 − η) f(α/(1 − η)) on [0, 1 − η], 0 after (MATH.md §4).

    The form in which a numeric guarantee can meet a curve target: its certified lower
    side puts the truncated tail of the privacy-loss law, a mass η = δ_g(+∞), at
    infinite loss, so g(0) = 1 − η and no g can lie above a curve with f(0) = 1.
    """

    __slots__ = ("of", "eta")

    def __init__(self, of: TradeOff, eta: float):
        if not isinstance(of, TradeOff):
            raise TypeError(f"of must be a TradeOff, got {type(of).__name__}")
        object.__setattr__(self, "of", of)
        object.__setattr__(self, "eta", _validate.real("eta", eta, low=0.0, high=1.0,
                                                       high_open=True))

    def __setattr__(self, name, value):
        raise AttributeError("TailDelta is immutable")

    def __repr__(self):
        return f"TailDelta({self.of!r}, eta={self.eta:.3g})"

    def _side(self, fn, alpha):
        keep = 1.0 - self.eta
        inside = alpha <= keep
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(inside, alpha / keep, 1.0)
        return np.where(inside, keep * fn(np.minimum(x, 1.0)), 0.0)

    def _beta(self, alpha):
        return self._side(self.of._beta, alpha)

    def _upper(self, alpha):
        return self._side(self.of._upper, alpha)

    def _delta(self, eps):
        """δ = 1 − (1 − η)(1 − δ_f) = η + (1 − η) δ_f (composition with f_{0,η})."""
        return self.eta + (1.0 - self.eta) * self.of._delta(eps)

    def _delta_lower(self, eps):
        return self.eta + (1.0 - self.eta) * self.of._delta_lower(eps)


# Largest tail mass η accepted when a numeric guarantee is checked against a curve.
MAX_TAIL = 1e-9


def tail_mass(g: TradeOff) -> float:
    """η = δ_g(+∞) = 1 − g(0) for a numeric g (0 for exact closed forms)."""
    if g.is_exact:
        return 0.0
    return float(g._delta(np.array([np.inf]))[0])


# ----------------------------------------------------------------------
# Targets
# ----------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """A privacy target; ``met_by(g)`` decides it on the certified side of g."""

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
    def make(cls, target=None, *, mu=None, epsilon=None, delta=None, advantage=None,
             tpr_at_fpr=None) -> Target:
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
        """True when a g-DP mechanism meets the target (certified side of g).

        ``slack`` (default 0): an absolute allowance on the compared δ or β values,
        for callers that must absorb rounding (the accountant uses 1e-12).
        """
        if self.kind == "mu":
            if isinstance(g, Gaussian):
                return g.mu <= self.mu
            if g._gdp_mu_bounds()[1] <= self.mu:     # certified: g ≥ G_{μ_g} ≥ G_μ
                return True
            return _dominates_numeric(g, Gaussian(self.mu), slack, self.max_tail)
        if self.kind == "eps_delta":
            return _delta_within(g, self.epsilon, self.delta, slack)
        if self.kind == "advantage":
            return _delta_within(g, 0.0, self.advantage, slack)
        if self.kind == "tpr_at_fpr":
            return float(g._beta(np.array([self.fpr]))[0]) >= 1.0 - self.tpr - slack
        return _dominates_numeric(g, self.tradeoff, slack, self.max_tail)

    def shortfall(self, g: TradeOff) -> str:
        """In words: what g would have to meet, what it gives (certified side), and by how much
        it misses -- the text of a refusal."""
        if self.kind == "mu":
            lo, hi = g._gdp_mu_bounds()
            if np.isfinite(hi):
                return (f"it is certified {hi:.6g}-GDP (true μ in [{lo:.6g}, {hi:.6g}]), over the "
                        f"budget μ = {self.mu:.6g} by {hi - self.mu:.3g}")
            eta = self.allowance(g)
            if eta > self.max_tail:
                return (f"no finite GDP μ is certified for it (lower bound {lo:.6g}); as a "
                        f"numeric result it could only be compared in the form G_μ ⊗ f_{{0,η}} "
                        f"with η = {eta:.3g} > max_tail = {self.max_tail:.3g}")
            return f"no finite GDP μ ≤ {self.mu:.6g} is certified for it (lower bound {lo:.6g})"
        if self.kind == "eps_delta":
            d = float(g._delta(np.array([self.epsilon]))[0])
            e = float(g.epsilon(self.delta))
            return (f"its δ({self.epsilon:.6g}) = {d:.6g} exceeds δ = {self.delta:.6g} by "
                    f"{d - self.delta:.3g} (its ε at δ = {self.delta:.3g} is {e:.6g}, over by "
                    f"{e - self.epsilon:.3g})")
        if self.kind == "advantage":
            d = float(g._delta(np.array([0.0]))[0])
            return f"its advantage {d:.6g} exceeds {self.advantage:.6g} by {d - self.advantage:.3g}"
        if self.kind == "tpr_at_fpr":
            t = 1.0 - float(g._beta(np.array([self.fpr]))[0])
            return (f"its attack TPR at FPR {self.fpr:.3g} can reach {t:.6g}, over {self.tpr:.6g} "
                    f"by {t - self.tpr:.3g}")
        gap = min_gap(g, self.tradeoff)
        return f"its curve falls below the target curve by up to {max(-gap, 0.0):.3g} in β"

    def curve(self) -> TradeOff | None:
        """The target as a curve, for the μ and curve kinds (None otherwise)."""
        if self.kind == "mu":
            return Gaussian(self.mu)
        return self.tradeoff if self.kind == "tradeoff" else None

    def allowance(self, g: TradeOff) -> float:
        """η in f ⊗ f_{0,η} used to judge a numeric g against a curve target (else 0)."""
        f = self.curve()
        return 0.0 if f is None else tail_allowance(g, f)

    def gdp_mu(self, rtol: float = 1e-12) -> float:
        """The largest μ with G_μ meeting the target (rounded down; verified)."""
        if self.kind == "mu":
            return self.mu
        if self.kind == "eps_delta":
            from fdp.conversions.gdp import gdp_mu
            guess = gdp_mu(self.epsilon, self.delta)
        elif self.kind == "advantage":
            guess = 2.0 * float(ndtri((1.0 + self.advantage) / 2.0))
        elif self.kind == "tpr_at_fpr":
            with np.errstate(divide="ignore"):
                guess = float(-ndtri(self.fpr) - ndtri(1.0 - self.tpr))
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
        # Generic: the noise search on σ = 1/μ.
        res = search_noise(lambda s: Gaussian(1.0 / s), self, rtol=rtol, guess=1.0,
                           max_noise=1e300, min_noise=1e-300)
        return 1.0 / res.noise


# Relative allowance, on the SAFE side, for the rounding of a computed δ(ε) (about two
# ulps): a δ counts as meeting a target only if δ (1 + DELTA_EVAL_RTOL) ≤ target. The
# Gaussian's larger evaluation error (≤ 2e-13) is already inside its certified upper
# log δ (``fdp.conversions.gdp.LOG_DELTA_ALLOWANCE``).
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
    """The least η for which g ≥ f ⊗ f_{0,η} is proven (0 for exact g).

    η ≥ δ_g(+∞) (the truncated tail of the engine's privacy-loss law); the least
    proven η is found by bisection on log η (``bisect_monotone``; the proof is
    monotone in η since f ⊗ f_{0,η} decreases with η) and returned rounded up.
    1.0 when no η < 1 is proven.
    """
    if g.is_exact:
        return 0.0
    floor = tail_mass(g)

    def passes(eta):
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
    """g ≥ f for exact g; g ≥ f ⊗ f_{0,η} (η = ``tail_allowance`` ≤ max_tail) for numeric g."""
    if g.is_exact:
        return dominates(g, f, slack)
    # f ⊗ f_{0,η} decreases with η: proving it at η = max_tail proves some η ≤ max_tail.
    return dominates(g, TailDelta(f, max_tail), slack)


# ----------------------------------------------------------------------
# The search and its result
# ----------------------------------------------------------------------
class Calibration(float):
    """The calibrated noise: a float (use it directly) that also carries the report.

    ``noise``: the returned value (it meets the target, verified); ``lower``: a value
    verified to fail it (None if the floor was reached); ``tolerance``:
    (noise − lower)/noise, the relative width of the final bracket; ``tradeoff``: the
    guarantee at ``noise``; ``target``: the ``Target``; ``evaluations``: guarantees
    computed; ``mechanism``: the calibrated mechanism object, when there is one;
    ``kind``: what the noise is ("sigma", "scale", "noise_multiplier");
    ``tail_delta``: η = δ(+∞) of a numeric guarantee (0 for closed forms) -- a μ or
    curve target f is then met in the form f ⊗ f_{0,η} (see ``TailDelta``).
    """

    def __new__(cls, noise, *, lower, target, tradeoff, evaluations, kind,
                mechanism=None, at_floor=False):
        self = super().__new__(cls, noise)
        info = dict(noise=float(noise), lower=lower, target=target, tradeoff=tradeoff,
                    evaluations=evaluations, kind=kind, mechanism=mechanism,
                    at_floor=at_floor, tail_delta=target.allowance(tradeoff),
                    tolerance=(0.0 if lower is None else (float(noise) - lower) / float(noise)))
        for k, v in info.items():
            object.__setattr__(self, k, v)
        return self

    def __setattr__(self, name, value):
        raise AttributeError("Calibration is immutable")

    def __repr__(self):
        return (f"Calibration({self.kind}={self.noise!r}, target={self.target.describe()!r}, "
                f"tolerance={self.tolerance:.2g}, evaluations={self.evaluations})")


def search_noise(tradeoff_of_noise, target: Target, *, rtol: float = 1e-9,
                 guess: float = 1.0, max_noise: float = 1e12, min_noise: float = 1e-12,
                 kind: str = "noise") -> Calibration:
    """Smallest noise x with ``target.met_by(tradeoff_of_noise(x))``, assuming more noise
    is never less private. Expanding bracket, then bisection; returns the passing end.
    """
    rtol = _validate.real("rtol", rtol, low=0.0, high=0.5, low_open=True)
    cache: dict[float, tuple[bool, TradeOff]] = {}

    def ok(x: float) -> bool:
        if x not in cache:
            g = tradeoff_of_noise(x)
            cache[x] = (bool(target.met_by(g)), g)
        return cache[x][0]

    hi = float(guess)
    # A good guess (a closed form) is bracketed at once by guess·(1 ∓ rtol).
    if ok(hi):
        lo = hi * (1.0 - rtol)
        while ok(lo):
            hi, lo = lo, lo / 2.0
            if lo < min_noise:
                if ok(min_noise):
                    return Calibration(min_noise, lower=None, target=target,
                                       tradeoff=cache[min_noise][1], evaluations=len(cache),
                                       kind=kind, at_floor=True)
                lo = min_noise
                break
    else:
        # A closed form may miss by rounding: a few ulps up first.
        x = hi
        for _ in range(8):
            x = float(np.nextafter(x, np.inf))
            if ok(x):
                break
            hi = x
        lo, hi = hi, (x if ok(x) else hi * (1.0 + rtol))
        prev_eta = None
        while not ok(hi):
            prev_eta = _raise_if_accuracy_limited(target, cache[hi][1], hi, kind, prev_eta)
            lo, hi = hi, hi * 2.0
            if hi > max_noise:
                raise ValueError(f"no noise up to {max_noise:g} meets the target "
                                 f"{target.describe()}: it is unattainable or too strict")
    lo_a, hi_a = bisect_monotone(lambda x: ok(float(x)), lo, hi, rtol=rtol)
    lo, hi = float(lo_a), float(hi_a)
    return Calibration(hi, lower=lo, target=target, tradeoff=cache[hi][1],
                       evaluations=len(cache), kind=kind)


# An η below this is read as the engine's accuracy floor, not as a privacy gap.
_ACCURACY_FLOOR = 1e-6


def _raise_if_accuracy_limited(target: Target, g: TradeOff, noise: float, kind: str,
                               prev_eta: float | None) -> float | None:
    """Stop a search that more noise cannot help (more noise would only grow the grid).

    A numeric guarantee meets a curve target only as f ⊗ f_{0,η} with η ≤ max_tail.
    When the least proven η is tiny (< 1e-6) and doubling the noise did not shrink
    it fourfold, η is the engine's accuracy floor where δ_f is tiny: the target is
    missed for accuracy, not privacy, and the search stops with a ValueError.
    Returns η for the next call.
    """
    f = target.curve()
    if f is None or g.is_exact:
        return None
    eta = tail_allowance(g, f)
    if (eta <= target.max_tail or eta >= _ACCURACY_FLOOR or prev_eta is None
            or eta < prev_eta / 4.0):
        return eta
    raise ValueError(
        f"at {kind} = {noise:g} the guarantee already lies above {target.describe()} up to "
        f"its numeric accuracy, but that accuracy (η = {eta:.3g}, the certified δ floor of the "
        f"numeric result where the target's δ is tiny) exceeds max_tail = {target.max_tail:.3g}, "
        f"so {target.describe()} cannot be certified and more noise would not change that. "
        f"Pass max_tail >= {eta:.2g} (the result then meets f ⊗ f_{{0,η}}, reported as "
        f"tail_delta) or use an (epsilon, delta) target.")


# ----------------------------------------------------------------------
# Public entry points
# ----------------------------------------------------------------------
_MECHANISMS = ("gaussian", "laplace")


def calibrate(mechanism: str = "gaussian", *, sensitivity: float = 1.0, target=None,
              mu=None, epsilon=None, delta=None, advantage=None, tpr_at_fpr=None,
              rtol: float = 1e-9) -> Calibration:
    """Least noise for a Gaussian (σ) or Laplace (scale b) mechanism meeting a target.

    Gaussian: guarantee G_{Δ/σ} (DRS Thm 2.7). Laplace: L_{Δ/b} (DRS Appendix A).
    The search starts at the closed-form answer where one exists -- Gaussian: σ = Δ/μ
    with μ from the target (μ; ``fdp.gdp_mu(ε, δ)``; 2Φ⁻¹((1 + a)/2) for advantage a;
    Φ⁻¹(1 − FPR) − Φ⁻¹(1 − TPR)); Laplace: b = Δ/m with m = ε − 2 log(1 − δ) for
    (ε, δ) (δ_{L_m}(ε) = 1 − e^{(ε − m)/2}) and m = −2 log(1 − a) for advantage a --
    and then brackets and bisects on the noise itself, so the returned noise is
    verified to meet the target and a noise below it by the reported relative
    ``tolerance`` (≤ ``rtol``) is verified to fail.
    Returns a ``Calibration`` (a float; ``.mechanism`` is the mechanism object).
    """
    from fdp.mechanisms.additive import GaussianMechanism, LaplaceMechanism
    if mechanism not in _MECHANISMS:
        raise ValueError(f"mechanism must be one of {_MECHANISMS}, got {mechanism!r}")
    delta_s = _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)
    tgt = Target.make(target, mu=mu, epsilon=epsilon, delta=delta, advantage=advantage,
                      tpr_at_fpr=tpr_at_fpr)
    if mechanism == "gaussian":
        make = lambda s: Gaussian(delta_s / s)  # noqa: E731
        m = _gaussian_guess(tgt)
        cls, kind = GaussianMechanism, "sigma"
    else:
        make = lambda b: Laplace(delta_s / b)  # noqa: E731
        m = _laplace_guess(tgt)
        cls, kind = LaplaceMechanism, "scale"
    if m is not None and m <= 0:
        raise ValueError(f"the target {tgt.describe()} allows no privacy loss at all: "
                         "no finite noise meets it")
    guess = delta_s / m if m is not None and np.isfinite(m) else delta_s
    res = search_noise(make, tgt, rtol=rtol, guess=guess,
                       max_noise=min(delta_s * 1e300, 1e300), min_noise=delta_s * 1e-300,
                       kind=kind)
    mech = cls(delta_s, res.noise)
    return Calibration(res.noise, lower=res.lower, target=tgt, tradeoff=res.tradeoff,
                       evaluations=res.evaluations, kind=kind, mechanism=mech,
                       at_floor=res.at_floor)


def _gaussian_guess(t: Target) -> float | None:
    if t.kind == "tradeoff":
        return None
    return t.gdp_mu()


def _laplace_guess(t: Target) -> float | None:
    if t.kind == "eps_delta":
        return t.epsilon - 2.0 * math.log1p(-t.delta) if t.delta < 1 else np.inf
    if t.kind == "advantage":
        return -2.0 * math.log1p(-t.advantage) if t.advantage < 1 else np.inf
    return None


def calibrate_dpsgd(*, sample_rate: float, steps: int, epsilon=None, delta=None, mu=None,
                    advantage=None, tpr_at_fpr=None, target=None, sampling: str = "poisson",
                    neighbouring: str = "add_remove", rtol: float = 1e-3,
                    guess: float = 1.0, min_noise: float = 0.05, max_noise: float = 1e6,
                    max_tail: float = MAX_TAIL, **engine_options) -> Calibration:
    """Smallest DP-SGD noise multiplier σ whose CERTIFIED guarantee meets the target.

    The guarantee is ``fdp.dpsgd(σ, sample_rate, steps, sampling, neighbouring,
    **engine_options)``, a certified numeric TradeOff; the target is checked on its safe
    side (upper δ(ε), lower curve), so ``fdp.dpsgd(σ, …).epsilon(delta) <= epsilon`` holds
    for the returned σ. Search: expanding bracket from ``guess`` (doubling up to
    ``max_noise``, halving down to ``min_noise``), then bisection to relative width
    ``rtol``; returns the passing end. If even ``min_noise`` meets the target, that is
    returned with ``at_floor=True`` (the target is too weak to need more care).

    μ and curve targets: the guarantee passes when its certified GDP bound
    (``gdp_mu_bounds``) is ≤ μ, or when it lies above f ⊗ f_{0,η} with η ≤ ``max_tail``
    (default 1e-9; see ``TailDelta``). When only the numeric accuracy η stands in
    the way, a ValueError says so (more noise would not help) instead of searching on.
    """
    from fdp import dpsgd
    q = _validate.probability("sample_rate", sample_rate)
    if q == 0.0:
        raise ValueError("sample_rate must lie in (0, 1]: with rate 0 no noise is needed")
    T = _validate.positive_int("steps", steps)
    tgt = Target.make(target, mu=mu, epsilon=epsilon, delta=delta, advantage=advantage,
                      tpr_at_fpr=tpr_at_fpr)
    tgt = replace(tgt, max_tail=_validate.real("max_tail", max_tail, low=0.0, high=1.0))
    lo_n = _validate.real("min_noise", min_noise, low=0.0, low_open=True)
    hi_n = _validate.real("max_noise", max_noise, low=lo_n, low_open=True)

    def make(sigma: float) -> TradeOff:
        return dpsgd(noise_multiplier=sigma, sample_rate=q, steps=T, sampling=sampling,
                     neighbouring=neighbouring, **engine_options)

    return search_noise(make, tgt, rtol=rtol, guess=guess, max_noise=hi_n, min_noise=lo_n,
                        kind="noise_multiplier")


__all__ = ["Calibration", "Target", "calibrate", "calibrate_dpsgd", "dominates", "min_gap",
           "search_noise"]
