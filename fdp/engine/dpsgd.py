"""Certified accounting of DP-SGD (noisy SGD with subsampling).

One step releases the sum of the clipped per-example gradients (norm ≤ C) plus
Gaussian noise of standard deviation σ·C. If changing the dataset to a neighbouring
one moves that sum by at most s·C (s = ``sensitivity``, in units of the clipping
norm), a full batch is the Gaussian mechanism G_{s/σ} (DRS Thm 2.7). The sensitivity
depends on the neighbouring relation:

* add/remove one record: the sum gains or loses one clipped gradient, s = 1;
* replace one record: one clipped gradient is swapped for another, and the two can
  point in opposite directions, so s = 2 for the usual implementation (noise σ·C on
  the sum). This is the default. DRS §5 analyse NoisySGD with replace-one
  neighbours as C_p(G_{1/σ}) per step, i.e. with σ measured against the replace-one
  sensitivity of the clipped sum; Bu, Dong, Long & Su (2020) apply the same formula
  with the library noise multiplier (noise σ·C), which amounts to s = 1: pass
  ``sensitivity=1`` to reproduce their replace-one numbers, knowing it assumes the
  sum moves by at most C when a record is replaced.

With Poisson sampling at rate q and add/remove neighbours, adding a record gives the
pair T(P, (1 − q)P + qQ) = q G + (1 − q) Id (the add direction) and removing it the
inverse (MATH.md §7; Zhu, Dong & Wang 2021, Thm 11). The tight guarantee composes
each direction over all steps and symmetrises once at the end (Bu et al. 2020):

    f = min{f_add, f_remove}**,  f_add = ⊗_t (q_t G_{s/σ_t} + (1 − q_t) Id),
                                 f_remove = ⊗_t (q_t G_{s/σ_t} + (1 − q_t) Id)⁻¹,

whose privacy profile is δ(ε) = max(δ_add(ε), δ_remove(ε)). Sampling a fixed-size
batch without replacement with replace-one neighbours gives C_q(G_{s/σ}) per step
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
#: Default sensitivity of the clipped gradient sum, in units of the clipping norm C,
#: for each neighbouring relation (see the module docstring).
DEFAULT_SENSITIVITY = {"add_remove": 1.0, "replace_one": 2.0}


def resolve_sensitivity(sensitivity, neighbouring: str) -> float:
    """The sensitivity s > 0 to use: the user's, or the relation's default (1 for
    add/remove, 2 for replace-one)."""
    if sensitivity is None:
        return DEFAULT_SENSITIVITY[neighbouring]
    return _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)


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
          progress: bool | None = None, sensitivity: float | None = None):
    """Certified trade-off function of DP-SGD (see the module docstring).

    Per step the batch is the Gaussian mechanism G_{s/σ}; Poisson sampling with
    add/remove neighbours composes q G_{s/σ} + (1 − q) Id in each direction and
    symmetrises once (Bu et al. 2020; Zhu, Dong & Wang 2021, Thm 11); sampling
    without replacement with replace-one neighbours composes C_q(G_{s/σ})
    (DRS Thm 4.2).

    Parameters
    ----------
    noise_multiplier : float or array
        σ > 0: the noise on the clipped gradient sum has standard deviation σ·C
        (C the clipping norm). A number, or one value per step (length ``steps``).
    sample_rate : float or array
        q ∈ [0, 1] (Poisson rate, or batch size / dataset size without replacement).
    steps : int
        Number of steps T ≥ 0.
    sampling, neighbouring : str
        "poisson" with "add_remove", or "without_replacement" with "replace_one".
    tol, progress
        As in ``compose_numeric``.
    sensitivity : float, optional
        s > 0: the largest change of the clipped gradient SUM between neighbouring
        datasets, in units of the clipping norm. Default (None): 1 for add/remove,
        2 for replace-one (replacing a record can swap a clipped gradient for its
        opposite). ``sensitivity=1`` with replace-one is the reading of Bu et al.
        (2020), valid only if the implementation's sum moves by at most C.

    Returns
    -------
    Numeric
        ``f(α)`` certified lower, ``bounds`` both sides, ``epsilon_bounds(delta)``
        the ε bracket; its label states the sensitivity assumed.
    """
    steps = _validate.positive_int("steps", steps, low=0)
    if (sampling, neighbouring) not in SCHEMES:
        raise ValueError(
            f"sampling={sampling!r} with neighbouring={neighbouring!r} is not supported; "
            "use sampling='poisson' with neighbouring='add_remove' or "
            "sampling='without_replacement' with neighbouring='replace_one'")
    tol = check_tol(tol)
    sens = resolve_sensitivity(sensitivity, neighbouring)
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
    label = _label(sigma, rate, steps, sampling, sens)
    if sampling == "poisson":
        add = [(PoissonAdd(Gaussian(sens / s), q), n) for (s, q), n in counts.items()]
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
    fac = [(WithoutReplacement(Gaussian(sens / s), q), n) for (s, q), n in counts.items()]
    step, _ = choose_step(fac, tol)
    meter = Meter(work_units(len(fac)), "dpsgd", progress)
    pess, opt = combine_parts(cropped(discretise_groups(fac, step, meter)), meter=meter)
    meter.close()
    return Numeric((pess,), (opt,), label, tol, source=(Recipe(tuple(fac), step),))


def _label(sigma, rate, steps, sampling, sens):
    def show(a):
        return f"{a[0]:g}" if np.all(a == a[0]) else f"{a.min():g}..{a.max():g}"
    return (f"dpsgd(sigma={show(sigma)}, q={show(rate)}, steps={steps}, {sampling}, "
            f"sensitivity={sens:g}C)")
