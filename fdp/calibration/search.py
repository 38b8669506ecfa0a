"""The bracketing search on the noise, and its result (see ``fdp.calibration``)."""

from __future__ import annotations

import numpy as np

from fdp import _validate
from fdp._numerics import bisect_monotone
from fdp.calibration.targets import Target, tail_allowance
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff


# ----------------------------------------------------------------------
# The search and its result
# ----------------------------------------------------------------------
class Calibration(float):
    """The calibrated noise: a float (use it directly) that also carries the report.

    ``noise``: the returned value (it meets the target, verified); ``lower``: a value
    that could not be certified (None if the floor was reached); ``tolerance``:
    (noise − lower)/noise, the relative width of the final bracket; ``tradeoff``: the
    guarantee at ``noise``; ``target``: the ``Target``; ``evaluations``: guarantees
    computed; ``mechanism``: the calibrated mechanism object, when there is one;
    ``kind``: what the noise is ("sigma", "scale", "noise_multiplier");
    ``tail_delta``: η = δ(+∞) of a numeric guarantee (0 for closed forms) -- a μ or
    curve target f is then met in the form f ⊗ f_{0,η} (see ``TailDelta``).

    Parameters
    ----------
    noise : float
        The calibrated noise.
    lower, target, tradeoff, evaluations, kind, mechanism, at_floor
        The report fields above (keywords).

    Examples
    --------
    >>> import fdp
    >>> s = fdp.calibrate("gaussian", mu=0.5)
    >>> float(s), s.kind, s.mechanism
    (2.0, 'sigma', GaussianMechanism(sensitivity=1.0, sigma=2.0))
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

    Parameters
    ----------
    tradeoff_of_noise : callable
        noise ↦ the guarantee (a TradeOff) at that noise.
    target : Target
        What the guarantee must meet (``Target.make(...)``).
    rtol : float
        Relative width of the final bracket, in (0, 0.5].
    guess, max_noise, min_noise : float
        Start of the search and the range it may expand into.
    kind : str
        What the noise is, for the result and messages.

    Returns
    -------
    Calibration

    Raises
    ------
    ValueError
        If even ``max_noise`` does not meet the target, or only numeric accuracy stands
        in the way.

    Examples
    --------
    >>> import fdp
    >>> from fdp.calibration import Target, search_noise
    >>> s = search_noise(lambda x: fdp.Gaussian(1 / x), Target.make(mu=0.5), rtol=1e-6)
    >>> print(f"{s:.4f}")
    2.0000
    """
    rtol = _validate.real("rtol", rtol, low=0.0, high=0.5, low_open=True)
    cache: dict[float, tuple[bool, TradeOff]] = {}

    def ok(x: float) -> bool:
        if x not in cache:
            g = tradeoff_of_noise(x)
            require_guarantee(g, "calibration")
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


