"""The bracketing search on the noise, and its result (see ``fdp.calibration``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fdp import _validate
from fdp._numerics import bisect_monotone
from fdp.calibration.targets import Target, tail_allowance
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff


class Calibration(float):
    """The calibrated noise: a float (use it directly) that also carries the report.

    ``noise``: the returned value (it meets the target, verified); ``lower``: a value
    that could not be certified (None if the floor was reached); ``tolerance``:
    (noise − lower)/noise, the relative width of the final bracket; ``tradeoff``: the
    guarantee at ``noise``; ``target``: the ``Target``; ``evaluations``: guarantees
    computed; ``mechanism``: the calibrated mechanism object, when there is one;
    ``kind``: what the noise is ("sigma", "scale", "noise_multiplier");
    ``tail_delta``: the least proven η of a numeric guarantee against a μ or curve
    target f, met as f ⊗ f_{0,η} (0 for closed forms); ``guarantee``: what is proven,
    in words; ``at_floor``: ``noise`` is the search floor ``min_noise``, not the least
    noise; ``bound``: which certified bound met the target, when more than one was
    used. Derivation: docs/derivations/calibration.md.

    Examples
    --------
    >>> import fdp
    >>> s = fdp.calibrate("gaussian", mu=0.5)
    >>> float(s), s.kind, s.mechanism
    (2.0, 'sigma', GaussianMechanism(sensitivity=1.0, sigma=2.0))
    >>> s.guarantee
    '0.5-GDP'
    """

    noise: float
    lower: float | None
    target: Target
    tradeoff: TradeOff
    evaluations: int
    kind: str
    mechanism: object
    at_floor: bool
    tail_delta: float
    tolerance: float
    bound: str
    guarantee: str

    def __new__(cls, noise: float, *, lower: float | None, target: Target, tradeoff: TradeOff,
                evaluations: int, kind: str, mechanism: object = None,
                at_floor: bool = False, bound: str = "") -> Calibration:
        self = super().__new__(cls, noise)
        tail = target.allowance(tradeoff)
        info = dict(noise=float(noise), lower=lower, target=target, tradeoff=tradeoff,
                    evaluations=evaluations, kind=kind, mechanism=mechanism,
                    at_floor=at_floor, tail_delta=tail, bound=bound,
                    guarantee=_guarantee(target, tail),
                    tolerance=(0.0 if lower is None else (float(noise) - lower) / float(noise)))
        for k, v in info.items():
            object.__setattr__(self, k, v)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Calibration is immutable")

    def __reduce__(self) -> tuple[Callable[..., Calibration], tuple[object, ...]]:
        return (_rebuild, (float(self), self.lower, self.target, self.tradeoff,
                           self.evaluations, self.kind, self.mechanism, self.at_floor,
                           self.bound))

    def __repr__(self) -> str:
        extra = ""
        if self.bound:
            extra += f", bound={self.bound!r}"
        if self.at_floor:
            extra += (", at_floor=True: the search floor min_noise already meets the "
                      "target; a smaller noise may too")
        return (f"Calibration({self.kind}={self.noise!r}, guarantee={self.guarantee!r}, "
                f"target={self.target.describe()!r}, tolerance={self.tolerance:.2g}, "
                f"evaluations={self.evaluations}{extra})")


def _rebuild(noise: float, lower: float | None, target: Target, tradeoff: TradeOff,
             evaluations: int, kind: str, mechanism: object, at_floor: bool,
             bound: str) -> Calibration:
    return Calibration(noise, lower=lower, target=target, tradeoff=tradeoff,
                       evaluations=evaluations, kind=kind, mechanism=mechanism,
                       at_floor=at_floor, bound=bound)


def _guarantee(target: Target, tail: float) -> str:
    """What the calibrated guarantee proves, in words (with its tail δ η, if any)."""
    what = target.describe()
    if tail <= 0.0 or target.curve() is None:
        return what
    f = f"G_{target.mu:g}" if target.kind == "mu" else "f"
    return (f"{what} up to a tail delta {tail:.2g}: {f} ⊗ f_{{0,{tail:.2g}}}, "
            f"δ(ε) ≤ δ_{f}(ε) + {tail:.2g} for every ε")


def search_noise(tradeoff_of_noise: Callable[[float], TradeOff], target: Target, *,
                 rtol: float = 1e-9, guess: float = 1.0, max_noise: float = 1e12,
                 min_noise: float = 1e-12, kind: str = "noise",
                 certified_by: Callable[[float], bool] | None = None,
                 bound_of: Callable[[float, bool], str] | None = None) -> Calibration:
    """Smallest noise x with ``target.met_by(tradeoff_of_noise(x))``, assuming more noise
    is never less private: expanding bracket from ``guess`` within [min_noise, max_noise],
    then bisection to relative width ``rtol``; returns the passing end. ``certified_by``:
    noise ↦ True when a cheaper certified bound already proves the target there (False
    is no verdict); ``bound_of``: (noise, passed by ``certified_by``) ↦ the text of
    ``Calibration.bound``. ValueError when even ``max_noise`` fails, or only numeric
    accuracy stands in the way. Derivation: docs/derivations/calibration.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.calibration import Target, search_noise
    >>> s = search_noise(lambda x: fdp.Gaussian(1 / x), Target.make(mu=0.5), rtol=1e-6)
    >>> print(f"{s:.4f}")
    2.0000
    """
    rtol = _validate.real("rtol", rtol, low=0.0, high=0.5, low_open=True)
    cache: dict[float, tuple[bool, TradeOff | None]] = {}
    cheap: set[float] = set()

    def build(x: float) -> TradeOff:
        g = tradeoff_of_noise(x)
        require_guarantee(g, "calibration")
        return g

    def ok(x: float) -> bool:
        if x not in cache:
            if certified_by is not None and certified_by(x):
                cache[x] = (True, None)
                cheap.add(x)
            else:
                g = build(x)
                cache[x] = (bool(target.met_by(g)), g)
        return cache[x][0]

    def result(x: float, **kw: Any) -> Calibration:
        g = kept if (kept := cache[x][1]) is not None else build(x)
        bound = "" if bound_of is None else bound_of(x, x in cheap)
        return Calibration(x, target=target, tradeoff=g, evaluations=len(cache), kind=kind,
                           bound=bound, **kw)

    hi = float(guess)
    # A good guess (a closed form) is bracketed at once by guess·(1 ∓ rtol).
    if ok(hi):
        lo = hi * (1.0 - rtol)
        while ok(lo):
            hi, lo = lo, lo / 2.0
            if lo < min_noise:
                if ok(min_noise):
                    return result(min_noise, lower=None, at_floor=True)
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
            failed = cache[hi][1]       # a failed point was built (certified_by passes)
            assert failed is not None
            prev_eta = _raise_if_accuracy_limited(target, failed, hi, kind, prev_eta)
            lo, hi = hi, hi * 2.0
            if hi > max_noise:
                raise ValueError(f"no noise up to {max_noise:g} meets the target "
                                 f"{target.describe()}: it is unattainable or too strict"
                                 + _why_unattainable(target, cache[lo][1]))
    lo_a, hi_a = bisect_monotone(lambda x: ok(float(x)), lo, hi, rtol=rtol)
    lo, hi = float(lo_a), float(hi_a)
    return result(hi, lower=lo)


def _why_unattainable(target: Target, g: TradeOff | None) -> str:
    """For an (ε, δ) target below what the guarantee at the largest noise tried certifies
    at ε = max(1e3·ε, 1e3): the message that the certified δ is the limit."""
    if (g is None or target.kind != "eps_delta" or g.is_exact or target.epsilon is None
            or target.delta is None):
        return ""
    e = np.array([max(1e3 * float(target.epsilon), 1e3)])
    floor = float(np.exp(g._log_delta(e))[0])
    if not floor > float(target.delta):
        return ""
    return (f". The target's delta={float(target.delta):g} is below what the certified "
            f"accountant can resolve: even at the largest noise tried its certified upper "
            f"δ stays ≥ {floor:.3g} at every ε up to {e[0]:g} (the numeric accuracy of "
            f"the bracket, not the noise, is the limit); ask for delta ≥ {floor:.2g}")


# An η below this is read as the engine's accuracy floor, not as a privacy gap.
_ACCURACY_FLOOR = 1e-6


def _raise_if_accuracy_limited(target: Target, g: TradeOff, noise: float, kind: str,
                               prev_eta: float | None) -> float | None:
    """Stop a search that more noise cannot help (η at the accuracy floor; see
    docs/derivations/calibration.md). Returns η for the next call."""
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


