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

# ----------------------------------------------------------------------
# Public entry points
# ----------------------------------------------------------------------
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
    The search starts at the closed-form answer where one exists -- Gaussian: σ = Δ/μ
    with μ from the target (μ; ``fdp.gdp_mu_for_eps_delta(ε, δ)``; 2Φ⁻¹((1 + a)/2) for advantage a;
    Φ⁻¹(1 − FPR) − Φ⁻¹(1 − TPR)); Laplace: b = Δ/m with m = ε − 2 log(1 − δ) for
    (ε, δ) (δ_{L_m}(ε) = 1 − e^{(ε − m)/2}) and m = −2 log(1 − a) for advantage a --
    and then brackets and bisects on the noise itself, so the returned noise is
    verified to meet the target and a noise below it by the reported relative
    ``tolerance`` (≤ ``rtol``) could not be certified.

    Parameters
    ----------
    mechanism : {"gaussian", "laplace"}
        The noise distribution.
    sensitivity : float
        Δ > 0 (L2 for the Gaussian, L1 for the Laplace mechanism, a positive integer
        for the discrete Laplace).
    target, mu, epsilon, delta, advantage, tpr_at_fpr
        The target, exactly one of: a TradeOff f (the mechanism must be f-DP), μ,
        (ε, δ), an advantage bound, or a pair (tpr, fpr) (see ``fdp.calibration``).
    rtol : float
        Relative width of the final bracket on the noise, in (0, 0.5].
    steps : int
        Number of runs k ≥ 1, composed (default 1).

    Returns
    -------
    Calibration
        The noise as a float; ``.mechanism`` is the mechanism object (one run),
        ``.lower`` a noise that could not be certified, ``.tradeoff`` the guarantee
        of all k runs.

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
    """The largest certified per-step ε of ``epsilon_per_step``.

    Parameters
    ----------
    epsilon : float
        ε₀: k-fold composition of (ε₀, δ₀)-DP steps is proven to meet the target.
    failed : float
        A larger ε₀ that could not be certified (the bracket's other end).
    tradeoff : TradeOff
        The guarantee f_{ε₀,δ₀}^{⊗k} at ``epsilon``.

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

    The inverse of (ε, δ) composition, by the optimal composition theorem (Kairouz,
    Oh & Viswanath 2015, Thm 3.3; DRS 2022, Prop 2.12 and Thm 3.2): the k-fold
    composition is f_{ε₀,δ₀}^{⊗k}, whose privacy profile is
    δ(ε) = 1 − (1 − δ₀)^k [1 − (1 + e^{ε₀})^{−k} Σ_l C(k, l) (e^{(k−l)ε₀} − e^{ε + lε₀})₊].
    Found by the calibration search (``search_noise``) on 1/ε₀, so the returned ε₀ is
    verified on the exact composed curve and a larger ε₀ within ``rtol`` failed.

    Parameters
    ----------
    steps : int
        k ≥ 1.
    epsilon : float
        Target ε ≥ 0.
    delta : float
        Target δ in (0, 1).
    delta_per_step : float, optional
        δ₀ ∈ [0, 1) of each step; 1 − (1 − δ₀)^k must be below δ.
    rtol : float, optional
        Relative width of the final bracket on 1/ε₀, in (0, 0.5].

    Returns
    -------
    PerStepEpsilon
        (epsilon, failed, tradeoff).

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
    **engine_options)``, a certified numeric TradeOff; the target is checked on its safe
    side (upper δ(ε), lower curve), so ``fdp.dpsgd(σ, …).epsilon(delta) <= epsilon`` holds
    for the returned σ. Search: expanding bracket from ``guess`` (doubling up to
    ``max_noise``, halving down to ``min_noise``), then bisection to relative width
    ``rtol``; returns the passing end. If even ``min_noise`` meets the target, that is
    returned with ``at_floor=True`` (the target is too weak to need more care).

    (ε, δ) targets with Poisson sampling (add/remove, example level) are calibrated on
    the smaller of the two certified upper bounds ``fdp.dpsgd`` reports (the f-DP
    engine and the Rényi bound of the same run, ``fdp.operations.min_certified``): the
    least σ the Rényi bound certifies is found first (cheap); the guarantee is built
    there once, and if the engine alone misses the target at that σ it misses it at
    every smaller σ, so that σ is the answer with no further engine run (huge T, where
    the engine's grid limits it). Otherwise the search goes on below it, building the
    engine's guarantee only where the Rényi bound does not already settle the
    question. ``.bound`` says which of the two met the target.

    μ and curve targets: the guarantee passes when its certified GDP bound
    (``gdp_mu_bounds``) is ≤ μ, or when it lies above f ⊗ f_{0,η} with η ≤ ``max_tail``
    (default 1e-9; see ``TailDelta``). When only the numeric accuracy η stands in
    the way, a ValueError says so (more noise would not help) instead of searching on.

    Parameters
    ----------
    sample_rate : float
        q ∈ (0, 1].
    steps : int
        Number of steps T ≥ 1.
    batch_size, dataset_size, epochs
        Instead of ``sample_rate`` and ``steps``, as training code states them:
        q = B/N and T = ⌈E·N/B⌉ (``fdp.sgd.schedule.from_epochs``; keywords).
    epsilon, delta, mu, advantage, tpr_at_fpr, target
        The target, exactly one of them (ε with δ), as in ``calibrate``.
    sampling, neighbouring : str
        The batch sampler and neighbouring relation, as in ``fdp.dpsgd``.
    rtol : float
        Relative width of the final bracket on σ.
    guess, min_noise, max_noise : float
        Start of the search and the range it may expand into.
    max_tail : float
        Largest tail mass η accepted for μ and curve targets (default 1e-9).
    **engine_options
        Passed to ``fdp.dpsgd`` (``tol``, ``sensitivity``, ...).

    Returns
    -------
    Calibration
        σ as a float, with ``.lower``, ``.tolerance``, ``.tradeoff``, ``.at_floor``
        (σ is the search floor ``min_noise``, not the least σ), ``.guarantee`` (what is
        proven: for μ and curve targets with its tail δ η) and ``.bound``.

    Raises
    ------
    ValueError
        If the target is malformed, a number is out of range, or only the numeric
        accuracy keeps the target from being met.
    TypeError
        For both forms of the schedule at once, an incomplete one, or the US spelling
        ``neighboring=`` (the message names ``neighbouring=``).

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
    # The Rényi bound is certified and cheap: the least σ it certifies is an upper end
    # for the answer, and any σ it certifies needs no engine run. Start there.
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
    """The answer without a search, when the Rényi bound alone decides it.

    ``start`` is the least σ (to rtol) the Rényi bound certifies and ``below`` one it
    does not (None: the floor ``min_noise`` passes). The guarantee g at ``start`` is
    min(engine, Rényi) (``MinCertified``). If the engine's own upper δ(ε) at ``start``
    misses the target, then at any smaller σ — a less private run — it misses too
    (the search assumes, as everywhere, that more noise is never less private), and so
    does the Rényi bound below ``start``: the least σ the minimum of the two certifies
    is ``start``, and no engine run at another σ is needed. None when the engine meets
    the target at ``start`` (then it may certify a smaller σ: search)."""
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


