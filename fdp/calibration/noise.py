"""``calibrate`` and ``calibrate_dpsgd``: least noise meeting a target (see ``fdp.calibration``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np

from fdp import _validate
from fdp._numerics import bisect_monotone
from fdp.calibration.search import Calibration, search_noise
from fdp.calibration.targets import DELTA_EVAL_RTOL, MAX_TAIL, Target, _given
from fdp.families.discrete import DiscreteLaplace
from fdp.families.eps_delta import EpsDelta
from fdp.families.gaussian import Gaussian
from fdp.families.laplace import Laplace
from fdp.mechanisms.additive import GaussianMechanism, LaplaceMechanism
from fdp.mechanisms.exact import DiscreteLaplaceMechanism, to_fraction
from fdp.sgd.certified import dpsgd, resolve_sensitivity
from fdp.sgd.min_certified import poisson_gaussian_rdp
from fdp.sgd.schedule import accepts_epochs
from fdp.tradeoff import TradeOff

_MECHANISMS = ("gaussian", "laplace", "discrete_laplace")


def calibrate(mechanism: str = "gaussian", *, sensitivity: float = 1.0,
              target: TradeOff | None = None, mu: float | None = None,
              epsilon: float | None = None, delta: float | None = None,
              advantage: float | None = None,
              tpr_at_fpr: tuple[float, float] | None = None,
              rtol: float = 1e-9, steps: int = 1) -> Calibration:
    """Least noise for a Gaussian (σ), Laplace or discrete Laplace (scale b) mechanism,
    run ``steps`` times, meeting a target.

    Gaussian: guarantee G_{Δ/σ} (DRS Thm 2.7). Laplace: L_{Δ/b} (DRS Appendix A).
    Discrete Laplace on ℤ, P(x) ∝ e^{−|x|/b}: the exact finite pair
    ``fdp.DiscreteLaplace(b, Δ)`` (Canonne, Kamath & Steinke 2020, Def 25).
    ``steps`` = k > 1 calibrates the k-fold composition g^{⊗k} (DRS Thm 3.2): closed
    for the Gaussian (G_{√k Δ/σ}, Cor 3.3), exact for the discrete Laplace (a finite
    pair's power), certified by the numeric engine for the Laplace.
    Δ = ``sensitivity`` (L2 for the Gaussian, L1 for the Laplace, a positive integer
    for the discrete Laplace); the target is exactly one of ``target`` (a TradeOff),
    μ, (ε, δ), ``advantage``, ``tpr_at_fpr`` (see ``fdp.calibration``). The search
    starts at a closed-form answer where one exists, then brackets and bisects on the
    noise itself (relative width ``rtol``), so the returned noise is verified.
    ``.mechanism`` is one run's mechanism, ``.tradeoff`` the guarantee of all k runs.
    Derivation: docs/derivations/calibration.md.

    Examples
    --------
    >>> import fdp
    >>> s = fdp.calibrate("gaussian", epsilon=1.0, delta=1e-5)
    >>> print(f"{s:.4f}", s.mechanism.tradeoff.delta(1.0) <= 1e-5)
    3.7306 True
    >>> b = fdp.calibrate("discrete_laplace", epsilon=1.0, delta=1e-5, steps=10, rtol=1e-6)
    >>> print(f"{b:.4f}", float(b.tradeoff.delta(1.0)) <= 1e-5)
    9.9375 True
    """
    if mechanism not in _MECHANISMS:
        raise ValueError(f"mechanism must be one of {_MECHANISMS}, got {mechanism!r}")
    delta_s = _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)
    k = _validate.positive_int("steps", steps)
    tgt = Target.make(target, mu=mu, epsilon=epsilon, delta=delta, advantage=advantage,
                      tpr_at_fpr=tpr_at_fpr)
    one: Callable[[float], TradeOff]
    cls: Callable[[Any, float], Any]
    if mechanism == "gaussian":
        one = lambda s: Gaussian(delta_s / s)
        m = _gaussian_guess(tgt)
        m = None if m is None else m / math.sqrt(k)          # G_μ^{⊗k} = G_{√k μ}
        cls, kind = GaussianMechanism, "sigma"
    elif mechanism == "laplace":
        one = lambda b: Laplace(delta_s / b)
        m = _laplace_guess(tgt)
        m = None if m is None else m / k                     # basic composition: safe start
        cls, kind = LaplaceMechanism, "scale"
    else:
        if delta_s != int(delta_s):
            raise ValueError(f"sensitivity must be a positive integer for the discrete "
                             f"Laplace mechanism, got {sensitivity!r}")
        d_int = int(delta_s)
        one = lambda b: DiscreteLaplace(b, d_int)
        m = _laplace_guess(tgt)
        m = None if m is None else m / k
        cls, kind = (lambda d, b: DiscreteLaplaceMechanism(d_int, to_fraction("scale", b))), "scale"
    make = one if k == 1 else (lambda x: one(x) ** k)
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


class PerStepEpsilon(NamedTuple):
    """The largest certified per-step ε of ``epsilon_per_step``: ``epsilon`` (ε₀, proven),
    ``failed`` (a larger ε₀ not certified), ``tradeoff`` (f_{ε₀,δ₀}^{⊗k} at ε₀).

    Examples
    --------
    >>> from fdp.calibration.noise import epsilon_per_step
    >>> r = epsilon_per_step(10, 1.0, 1e-5, rtol=1e-6)
    >>> print(f"{r.epsilon:.4f} < {r.failed:.4f}")
    0.1006 < 0.1006
    """
    epsilon: float
    failed: float
    tradeoff: TradeOff


def epsilon_per_step(steps: int, epsilon: float, delta: float, *,
                     delta_per_step: float = 0.0, rtol: float = 1e-9) -> PerStepEpsilon:
    """The largest ε₀ such that k adaptively composed (ε₀, δ₀)-DP steps are (ε, δ)-DP.

    The inverse of (ε, δ) composition by the optimal composition theorem (Kairouz, Oh &
    Viswanath 2015, Thm 3.3), verified on the exact composed curve f_{ε₀,δ₀}^{⊗k};
    δ₀ = ``delta_per_step`` needs 1 − (1 − δ₀)^k < δ; ``rtol`` is the bracket's
    relative width on 1/ε₀. Derivation: docs/derivations/calibration.md.

    Examples
    --------
    >>> from fdp.calibration.noise import epsilon_per_step
    >>> print(f"{epsilon_per_step(1, 1.0, 1e-5).epsilon:.4f}")
    1.0000
    """
    k = _validate.positive_int("steps", steps)
    eps = _validate.real("epsilon", epsilon, low=0.0)
    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    d0 = _validate.real("delta_per_step", delta_per_step, low=0.0, high=1.0, high_open=True)
    floor = -math.expm1(k * math.log1p(-d0))                 # δ(∞) = 1 − (1 − δ₀)^k
    if floor >= d:
        raise ValueError(f"delta_per_step must satisfy 1 - (1 - delta_per_step)^steps < "
                         f"delta = {d!r}; got {d0!r} (gives {floor:.6g} at any epsilon)")
    tgt = Target.make(None, epsilon=eps, delta=d)
    res = search_noise(lambda x: EpsDelta(1.0 / x, d0) ** k, tgt, rtol=rtol,
                       guess=k / max(eps, 1e-3), max_noise=1e300, min_noise=1e-300,
                       kind="1/epsilon_per_step")
    e0 = 1.0 / res.noise          # the very float the verified EpsDelta was built with
    failed = math.inf if res.lower is None else 1.0 / res.lower
    return PerStepEpsilon(e0, failed, res.tradeoff)


def _gaussian_guess(t: Target) -> float | None:
    if t.kind == "tradeoff":
        return None
    return t.gdp_mu()


def _laplace_guess(t: Target) -> float | None:
    if t.kind == "eps_delta":
        d = _given(t.delta)
        return _given(t.epsilon) - 2.0 * math.log1p(-d) if d < 1 else np.inf
    if t.kind == "advantage":
        return -2.0 * math.log1p(-_given(t.advantage)) if _given(t.advantage) < 1 else np.inf
    return None


@accepts_epochs
@_validate.british_spelling
def calibrate_dpsgd(*, sample_rate: float, steps: int, epsilon: float | None = None,
                    delta: float | None = None, mu: float | None = None,
                    advantage: float | None = None,
                    tpr_at_fpr: tuple[float, float] | None = None,
                    target: TradeOff | None = None, sampling: str = "poisson",
                    neighbouring: str = "add_remove", rtol: float = 1e-3,
                    guess: float = 1.0, min_noise: float = 0.05, max_noise: float = 1e6,
                    max_tail: float = MAX_TAIL, **engine_options: Any) -> Calibration:
    """Smallest DP-SGD noise multiplier σ whose CERTIFIED guarantee meets the target.

    The guarantee is ``fdp.dpsgd(σ, sample_rate, steps, sampling, neighbouring,
    **engine_options)``, checked on its certified side, so
    ``fdp.dpsgd(σ, …).epsilon(delta) <= epsilon`` holds for the returned σ. The schedule
    may instead be given as ``batch_size``, ``dataset_size``, ``epochs`` (q = B/N,
    T = ⌈E·N/B⌉, ``fdp.sgd.schedule.from_epochs``); the target as in ``calibrate``;
    the search (``guess``, ``min_noise``, ``max_noise``, ``rtol``) as in
    ``search_noise``. (ε, δ) targets with Poisson add/remove sampling also use the
    certified Rényi bound of the same run (``.bound`` says which bound met the target).
    μ and curve targets accept a tail δ η ≤ ``max_tail``; when only that numeric
    accuracy stands in the way a ValueError says so. TypeError for both schedule forms
    at once, an incomplete one, or ``neighboring=``.
    Derivation: docs/derivations/calibration.md.

    Examples
    --------
    >>> import fdp
    >>> s = fdp.calibrate_dpsgd(sample_rate=0.01, steps=10, epsilon=2.0, delta=1e-5,
    ...                         rtol=0.1, tol=1e-2)
    >>> bool(fdp.dpsgd(float(s), 0.01, 10, tol=1e-2).epsilon(1e-5) <= 2.0)
    True
    >>> e = fdp.calibrate_dpsgd(batch_size=100, dataset_size=10000, epochs=0.1,
    ...                         epsilon=2.0, delta=1e-5, rtol=0.1, tol=1e-2)
    >>> float(e) == float(s)                  # q = 100/10000, T = 0.1·10000/100 = 10
    True
    """
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

    rdp_ok = _rdp_check(tgt, q, T, sampling, neighbouring, engine_options)
    if rdp_ok is None:
        return search_noise(make, tgt, rtol=rtol, guess=guess, max_noise=hi_n,
                            min_noise=lo_n, kind="noise_multiplier")
    built: dict[float, TradeOff] = {}

    def make_once(sigma: float) -> TradeOff:
        if sigma not in built:
            built[sigma] = make(sigma)
        return built[sigma]

    found = _least_rdp_noise(rdp_ok, lo_n, hi_n, rtol)
    if found is not None:
        below, start = found
        guess = start
        settled = _rdp_settles(make_once(start), tgt, below, start)
        if settled is not None:
            return settled

    def bound_of(sigma: float, by_rdp: bool) -> str:
        return ("the certified RDP bound" if by_rdp
                else "the f-DP engine (with the RDP bound as a second upper bound)")

    return search_noise(make_once, tgt, rtol=rtol, guess=guess, max_noise=hi_n,
                        min_noise=lo_n, kind="noise_multiplier", certified_by=rdp_ok,
                        bound_of=bound_of)


def _rdp_settles(g: TradeOff, tgt: Target, below: float | None,
                 start: float) -> Calibration | None:
    """The answer without a search when the engine misses the target at ``start``, the
    least σ the Rényi bound certifies (``below``: one it does not; None: the floor
    passes); None otherwise. Derivation: docs/derivations/calibration.md."""
    engine_delta = getattr(g, "engine_delta", None)
    if engine_delta is None or not tgt.met_by(g):
        return None
    eps, delta = float(_given(tgt.epsilon)), float(_given(tgt.delta))
    engine = float(engine_delta(eps)[0])
    if engine * (1.0 + DELTA_EVAL_RTOL) <= delta:
        return None
    bound = (f"the certified RDP bound (the f-DP engine's upper δ({eps:g}) at this σ is "
             f"{engine:.3g} > {delta:g}, so neither bound certifies a smaller σ)")
    return Calibration(start, lower=below, target=tgt, tradeoff=g, evaluations=1,
                       kind="noise_multiplier", at_floor=below is None, bound=bound)


def _rdp_check(tgt: Target, q: float, steps: int, sampling: str, neighbouring: str,
               options: dict) -> Callable[[float], bool] | None:
    """σ ↦ whether the certified Rényi bound of Poisson DP-SGD alone meets an (ε, δ)
    target (``fdp.sgd.min_certified.poisson_gaussian_rdp``), or None where it does not apply
    (another sampler or target, user-level or explicit sensitivity options)."""
    if (tgt.kind != "eps_delta" or sampling != "poisson" or neighbouring != "add_remove"
            or options.get("examples_per_user", 1) != 1
            or set(options) - {"tol", "progress", "sensitivity", "examples_per_user"}):
        return None
    sens = resolve_sensitivity(options.get("sensitivity"), "add_remove")
    eps, delta = float(_given(tgt.epsilon)), float(_given(tgt.delta))
    if delta >= 1.0:
        return None

    def ok(sigma: float) -> bool:
        r = poisson_gaussian_rdp({(float(sigma), q): steps}, sens)
        return bool(r.log_delta(eps)[0] <= math.log(delta))
    return ok


def _least_rdp_noise(ok: Callable[[float], bool], lo: float, hi: float,
                     rtol: float) -> tuple[float | None, float] | None:
    """(a σ ``ok`` fails, the least σ in [lo, hi] it passes) to rtol, by bisection;
    (None, lo) if lo passes; None if even hi does not pass."""
    if not ok(hi):
        return None
    if ok(lo):
        return None, lo
    down, up = bisect_monotone(lambda x: ok(float(x)), lo, hi, rtol=rtol)
    return float(down), float(up)


