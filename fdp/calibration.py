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
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, ndtri

from fdp import _validate
from fdp.families.eps_delta import EpsDelta
from fdp.families.gaussian import Gaussian
from fdp.families.laplace import Laplace
from fdp.families.piecewise import PiecewiseLinear
from fdp.operations.with_delta import WithDelta
from fdp.tradeoff import TradeOff, golden_max

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
    """g ≥ f, checked in both pictures (DRS Prop 2.12: g ≥ f ⇔ δ_g ≤ δ_f on ℝ).

    (1) β: min_α g_lower(α) − f_upper(α) ≥ −(slack + ROUNDING) (see ``min_gap``);
    (2) δ: δ_g,upper(ε) ≤ δ_f,lower(ε)(1 + DELTA_RTOL) + slack on 3201 ε in [−40, 40]
    and ε = ±∞. (2) keeps relative precision where δ is tiny, which (1) cannot near
    α = 0: e.g. it sees that no Gaussian lies above a Laplace curve (δ_L(ε) = 0 for
    ε ≥ μ_L but δ_G(ε) > 0), as long as δ_G(ε) does not underflow (δ ≳ 1e-300).
    """
    if type(g) is type(f) and isinstance(g, (Gaussian, Laplace)):
        return g.mu <= f.mu
    df = f._delta_lower(_EPS_GRID)
    if isinstance(g, Gaussian) and g.mu > 0 and slack == 0 and np.any(
            df[np.isfinite(_EPS_GRID)] == 0.0):
        # δ_f(ε) = 0 at a finite ε (bounded privacy loss) but δ_G(ε) > 0 for every ε.
        return False
    if min_gap(g, f) < -(slack + ROUNDING):
        return False
    dg = g._delta(_EPS_GRID)
    return bool(np.all(dg <= df * (1.0 + DELTA_RTOL) + slack))


# f ⊗ f_{0,η}, (1 − η) f(α/(1 − η)) on [0, 1 − η] and 0 after (MATH.md §4): the form in
# which a numeric guarantee, whose certified lower side puts the truncated tail mass
# η = δ_g(+∞) at infinite loss, can meet a curve target. One implementation: WithDelta.
TailDelta = WithDelta


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
            return _dominates_numeric(g, Gaussian(self.mu), slack)
        if self.kind == "eps_delta":
            return float(g._delta(np.array([self.epsilon]))[0]) <= self.delta + slack
        if self.kind == "advantage":
            return float(g._delta(np.array([0.0]))[0]) <= self.advantage + slack
        if self.kind == "tpr_at_fpr":
            return float(g._beta(np.array([self.fpr]))[0]) >= 1.0 - self.tpr - slack
        return _dominates_numeric(g, self.tradeoff, slack)

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
            for _ in range(64):
                if self.met_by(Gaussian(mu)):
                    return float(mu)
                mu = float(np.nextafter(mu, 0.0)) if mu < 1e-300 else mu * (1 - 4e-16)
        # Generic: the noise search on σ = 1/μ.
        res = search_noise(lambda s: Gaussian(1.0 / s), self, rtol=rtol, guess=1.0,
                           max_noise=1e15, min_noise=1e-15)
        return 1.0 / res.noise


def tail_allowance(g: TradeOff, f: TradeOff) -> float:
    """η for checking a numeric g against f ⊗ f_{0,η} (0 for exact g).

    η = max(δ_g(+∞), max_ε (δ_g(ε) − δ_f(ε))₊/(1 − δ_f(ε))) over the ε grid: the
    smallest η with δ_g ≤ η + (1 − η) δ_f there -- the truncated tail of the engine's
    privacy-loss law plus its discretisation error where δ_f is tiny.
    """
    if g.is_exact:
        return 0.0
    dg = g._delta(_EPS_GRID)
    df = f._delta_lower(_EPS_GRID)
    # where δ_f ≈ 1 the ratio is ill-conditioned; the β picture checks those ε
    fine = (1.0 - df) >= 1e-3
    excess = (dg[fine] - df[fine]) / (1.0 - df[fine])
    return float(max(tail_mass(g), np.max(excess, initial=0.0), 0.0))


def _dominates_numeric(g: TradeOff, f: TradeOff, slack: float) -> bool:
    """g ≥ f for exact g; g ≥ f ⊗ f_{0,η} (η = ``tail_allowance`` ≤ MAX_TAIL) for numeric g."""
    eta = tail_allowance(g, f)
    if eta > MAX_TAIL:
        return False
    return dominates(g, TailDelta(f, eta) if eta > 0 else f, slack)


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
        while not ok(hi):
            lo, hi = hi, hi * 2.0
            if hi > max_noise:
                raise ValueError(f"no noise up to {max_noise:g} meets the target "
                                 f"{target.describe()}: it is unattainable or too strict")
    while hi - lo > rtol * hi:
        mid = math.sqrt(lo * hi) if hi > 4.0 * lo else 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return Calibration(hi, lower=lo, target=target, tradeoff=cache[hi][1],
                       evaluations=len(cache), kind=kind)


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
                       max_noise=delta_s * 1e15, min_noise=delta_s * 1e-15, kind=kind)
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
                    **engine_options) -> Calibration:
    """Smallest DP-SGD noise multiplier σ whose CERTIFIED guarantee meets the target.

    The guarantee is ``fdp.dpsgd(σ, sample_rate, steps, sampling, neighbouring,
    **engine_options)``, a certified numeric TradeOff; the target is checked on its safe
    side (upper δ(ε), lower curve), so ``fdp.dpsgd(σ, …).epsilon(delta) <= epsilon`` holds
    for the returned σ. Search: expanding bracket from ``guess`` (doubling up to
    ``max_noise``, halving down to ``min_noise``), then bisection to relative width
    ``rtol``; returns the passing end. If even ``min_noise`` meets the target, that is
    returned with ``at_floor=True`` (the target is too weak to need more care).
    """
    from fdp import dpsgd
    q = _validate.probability("sample_rate", sample_rate)
    if q == 0.0:
        raise ValueError("sample_rate must lie in (0, 1]: with rate 0 no noise is needed")
    T = _validate.positive_int("steps", steps)
    tgt = Target.make(target, mu=mu, epsilon=epsilon, delta=delta, advantage=advantage,
                      tpr_at_fpr=tpr_at_fpr)
    lo_n = _validate.real("min_noise", min_noise, low=0.0, low_open=True)
    hi_n = _validate.real("max_noise", max_noise, low=lo_n, low_open=True)

    def make(sigma: float) -> TradeOff:
        return dpsgd(noise_multiplier=sigma, sample_rate=q, steps=T, sampling=sampling,
                     neighbouring=neighbouring, **engine_options)

    return search_noise(make, tgt, rtol=rtol, guess=guess, max_noise=hi_n, min_noise=lo_n,
                        kind="noise_multiplier")


__all__ = ["Calibration", "Target", "calibrate", "calibrate_dpsgd", "dominates", "min_gap",
           "search_noise"]
