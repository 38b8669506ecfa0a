"""Certified accounting of DP-SGD (noisy SGD with subsampling).

One step releases a gradient sum with Gaussian noise of standard deviation σ·C
(C the clipping norm), so a full batch is G_{1/σ}. With Poisson sampling at rate q
and add/remove neighbours, adding a record gives the pair
T(P, (1 − q)P + qQ) = q G + (1 − q) Id (the add direction) and removing it the
inverse (MATH.md §7; Zhu, Dong & Wang 2021, Thm 11). The tight guarantee composes
each direction over all steps and symmetrises once at the end (Bu et al. 2020):

    f = min{f_add, f_remove}**,  f_add = ⊗_t (q_t G_{1/σ_t} + (1 − q_t) Id),
                                 f_remove = ⊗_t (q_t G_{1/σ_t} + (1 − q_t) Id)⁻¹,

whose privacy profile is δ(ε) = max(δ_add(ε), δ_remove(ε)). Sampling a fixed-size
batch without replacement with replace-one neighbours gives C_q(G_{1/σ}) per step
(DRS Thm 4.2), composed.
"""

from __future__ import annotations

import numpy as np

from fdp import _validate
from fdp.engine.numeric import (Numeric, Recipe, check_tol, choose_step, combine_parts,
                                 cropped, discretise_groups, inverse_parts, work_units)
from fdp.engine.progress import Meter
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.operations.subsample import PoissonAdd, WithoutReplacement

SCHEMES = {("poisson", "add_remove"), ("without_replacement", "replace_one")}


def _per_step(name, value, steps, low, high, low_open=False):
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        x = _validate.real(name, float(arr), low=low, high=high, low_open=low_open)
        return np.array([x])           # one value for every step (no per-step array)
    if arr.ndim != 1 or arr.size != steps:
        raise ValueError(f"{name} must be a number or one value per step "
                         f"(length steps={steps}), got shape {arr.shape}")
    _validate.reals(name, arr, low=low, high=high)
    if low_open and np.any(arr == low):
        raise ValueError(f"{name} must be > {low:g}, got {low:g}")
    return arr


def dpsgd(noise_multiplier, sample_rate, steps, sampling: str = "poisson",
          neighbouring: str = "add_remove", tol: float | None = None,
          progress: bool | None = None):
    """Certified trade-off function of DP-SGD (see the module docstring).

    noise_multiplier σ > 0 and sample_rate q ∈ [0, 1] are numbers or arrays of
    length ``steps`` (one value per step). sampling="poisson" requires
    neighbouring="add_remove"; sampling="without_replacement" requires
    neighbouring="replace_one". ``tol`` and ``progress`` as in ``compose_numeric``.
    Returns a ``Numeric`` TradeOff (``f(α)`` certified lower, ``bounds`` both sides,
    ``epsilon_bounds(delta)`` the ε bracket).
    """
    steps = _validate.positive_int("steps", steps, low=0)
    if (sampling, neighbouring) not in SCHEMES:
        raise ValueError(
            f"sampling={sampling!r} with neighbouring={neighbouring!r} is not supported; "
            "use sampling='poisson' with neighbouring='add_remove' or "
            "sampling='without_replacement' with neighbouring='replace_one'")
    tol = check_tol(tol)
    if steps == 0:
        return Identity()
    sigma = _per_step("noise_multiplier", noise_multiplier, steps, 0.0, np.inf, low_open=True)
    rate = _per_step("sample_rate", sample_rate, steps, 0.0, 1.0)
    if sigma.size == 1 and rate.size == 1:
        counts = {(float(sigma[0]), float(rate[0])): steps}
    else:
        pairs = np.stack(np.broadcast_arrays(sigma, rate) if sigma.size == rate.size
                         else np.broadcast_arrays(np.resize(sigma, steps), np.resize(rate, steps)),
                         axis=1)
        uniq, n = np.unique(pairs, axis=0, return_counts=True)
        counts = {(float(a), float(b)): int(c) for (a, b), c in zip(uniq, n)}
    label = _label(sigma, rate, steps, sampling)
    if sampling == "poisson":
        add = [(PoissonAdd(Gaussian(1.0 / s), q), n) for (s, q), n in counts.items()]
        step, _ = choose_step(add, tol)

        def directions(meter=None):
            add_parts = discretise_groups(add, step, meter)
            # the remove direction is the inverse pair of each step
            rem_parts = inverse_parts(add, add_parts)
            return [add_parts, rem_parts]
        meter = Meter(work_units(len(add), 2), "dpsgd", progress)
        add_parts, rem_parts = directions(meter)
        add_p, add_o = combine_parts(cropped(add_parts), meter=meter)
        rem_p, rem_o = combine_parts(cropped(rem_parts), meter=meter)
        meter.close()
        return Numeric((add_p, rem_p), (add_o, rem_o), label, tol,
                       source=(Recipe(tuple(add), step), Recipe(tuple(add), step, True)))
    fac = [(WithoutReplacement(Gaussian(1.0 / s), q), n) for (s, q), n in counts.items()]
    step, _ = choose_step(fac, tol)
    meter = Meter(work_units(len(fac)), "dpsgd", progress)
    pess, opt = combine_parts(cropped(discretise_groups(fac, step, meter)), meter=meter)
    meter.close()
    return Numeric((pess,), (opt,), label, tol, source=(Recipe(tuple(fac), step),))


def _label(sigma, rate, steps, sampling):
    def show(a):
        return f"{a[0]:g}" if np.all(a == a[0]) else f"{a.min():g}..{a.max():g}"
    return f"dpsgd(sigma={show(sigma)}, q={show(rate)}, steps={steps}, {sampling})"
