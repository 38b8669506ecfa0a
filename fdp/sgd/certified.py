"""Certified accounting of DP-SGD (noisy SGD with subsampling).

One step releases the clipped gradient sum (norm ≤ C per example) plus N(0, σ²C²); if
neighbours move the sum by at most s·C (``sensitivity``: 1 for add/remove, 2 for
replace-one, the default; ``sensitivity=1`` with replace-one is the reading of Bu, Dong,
Long & Su 2020), a full batch is G_{s/σ} (DRS Thm 2.7). Each row of ``SAMPLERS`` builds
the per-step pair in the ADD direction; a two-directional sampler composes the reflected
lattices too and symmetrises once, f = min{f_add, f_remove}** (Bu et al. 2020): Poisson
with add/remove, q G_{s/σ} + (1 − q) Id (Zhu, Dong & Wang 2021, Thm 11), user-level
with ``examples_per_user=k`` the mixture T(N(0, 1), Σⱼ Bin(j; k, q) N(js/σ, 1))
(Choquette-Choo et al. 2024, §4); without replacement with replace-one, C_q(G_{s/σ})
(DRS Thm 4.2); truncated Poisson, the revealed mixture (1 − τ)[q G_{s/σ} + (1 − q) Id] ⊕
τ[r G_{2s/σ} + (1 − r) Id] (Ganesh 2024's event split); with replacement, C_η of the
published-k mixture Σ_{k≥1} (Bin(k; b, 1/n)/η) G_{ks/σ}, η = 1 − (1 − 1/n)^b (Balle,
Barthe & Gaboardi 2018, Thm 2), the tail of K below 1e-80·η charged as f = 0.
Derivation: docs/derivations/dpsgd-samplers.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal

import numpy as np

from fdp import _validate
from fdp._lazy import LazyModule
from fdp._types import ArrayLike, FloatArray
from fdp.engine import GridBudgetExceeded, Numeric, compose
from fdp.families.eps_delta import EpsDelta
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.families.mixture import MixtureOfGaussians, RevealedMixture
from fdp.operations.min_certified import MinCertified
from fdp.operations.subsample import PoissonAdd, WithoutReplacement
from fdp.sgd.allocation import from_dpsgd as allocation_from_dpsgd
from fdp.sgd.min_certified import MAX_RDP_GROUPS, PoissonGaussianRDP
from fdp.sgd.run import records_run
from fdp.sgd.schedule import accepts_epochs
from fdp.sgd.shuffle import from_dpsgd as shuffle_from_dpsgd
from fdp.tradeoff import TradeOff

#: scipy.stats, loaded by the samplers that need binomial masses (``import fdp`` stays
#: free of it, tests/test_import_cost.py)
stats = LazyModule("scipy.stats")

#: A sampler's validated extra options (``_options``).
Options = dict[str, int]

#: Default sensitivity of the clipped gradient sum, in units of the clipping norm C,
#: for each neighbouring relation (see the module docstring).
DEFAULT_SENSITIVITY = {"add_remove": 1.0, "replace_one": 2.0}


def resolve_sensitivity(sensitivity: float | None, neighbouring: str) -> float:
    """The sensitivity s > 0 to use: the user's, or the relation's default (1 for
    add/remove, 2 for replace-one)."""
    if sensitivity is None:
        return DEFAULT_SENSITIVITY[neighbouring]
    return _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)


def _per_step(name: str, value: ArrayLike, steps: int, low: float, high: float,
              low_open: bool = False) -> FloatArray:
    # text and booleans are refused (True is not σ = 1), ranges checked per step
    arr = _validate.reals(name, value, low=low, high=high, low_open=low_open)
    if arr.ndim == 0:
        return np.array([float(arr)])   # one value for every step (no per-step array)
    if arr.ndim != 1 or arr.size != steps:
        raise ValueError(f"{name} must be a number or one value per step "
                         f"(length steps={steps}), got shape {arr.shape}")
    return arr


# ----------------------------------------------------------------------
# Per-step pairs (ADD direction) of each sampler; mu = s/σ, q the rate, o the options
# ----------------------------------------------------------------------
#: Binomial tails below this are charged as a blatantly non-private event.
TAIL_CUT = 1e-80


def _poisson_step(mu: float, q: float, o: Options) -> TradeOff:
    k = o["examples_per_user"]
    if k == 1:
        return PoissonAdd(Gaussian(mu), q)
    j = np.arange(k + 1)
    # (arrays are accepted: the family stores tuples of floats)
    return MixtureOfGaussians(1.0, j * mu, stats.binom.pmf(j, k, q))  # type: ignore[arg-type]


def _without_replacement_step(mu: float, q: float, o: Options) -> TradeOff:
    return WithoutReplacement(Gaussian(mu), q)


def _truncated_poisson_step(mu: float, q: float, o: Options) -> TradeOff:
    n, cap = o["dataset_size"], o["batch_cap"]
    tau = float(stats.binom.sf(cap - 1, n - 1, q))        # P(M ≥ B), M ~ Bin(n − 1, q)
    plain = PoissonAdd(Gaussian(mu), q)
    if tau == 0.0:
        return plain
    r = min(1.0, cap * float(stats.binom.sf(cap, n, q)) / (n * tau))
    return RevealedMixture((float(stats.binom.cdf(cap - 1, n - 1, q)), tau),
                           (plain, PoissonAdd(Gaussian(2.0 * mu), r)))


def _with_replacement_step(mu: float, q: float, o: Options) -> TradeOff:
    n = o["dataset_size"]
    b = _batch_size(q, n)
    if b == 0:
        return Identity()
    eta = float(-np.expm1(b * np.log1p(-1.0 / n)))   # P(K ≥ 1), K ~ Bin(b, 1/n)
    k = np.arange(1, b + 1)
    sf = stats.binom.sf(k, b, 1.0 / n)                      # P(K > k)
    cut = np.flatnonzero(sf <= TAIL_CUT * eta)
    kmax = int(k[cut[0]]) if cut.size else b
    k = k[:kmax]
    weights = list(stats.binom.pmf(k, b, 1.0 / n) / eta)
    members: list[TradeOff] = [Gaussian(float(i) * mu) for i in k]
    tail = float(sf[kmax - 1]) / eta if kmax < b else 0.0
    if tail > 0.0:
        weights.append(tail)
        members.append(EpsDelta(0.0, 1.0))
    return WithoutReplacement(RevealedMixture(tuple(weights), tuple(members)), eta)


def _batch_size(q: float, n: int) -> int:
    b = q * n
    if abs(b - round(b)) > 1e-9 * max(1.0, b):
        raise ValueError(f"sample_rate * dataset_size must be a whole batch size for "
                         f"sampling='with_replacement', got {q:g} * {n} = {b:g}")
    return int(round(b))


#: sampler -> (neighbouring relation, per-step ADD-direction pair, both directions?,
#: extra options it needs). Adding a sampler is one row here.
SAMPLERS = {
    "poisson": ("add_remove", _poisson_step, True, ()),
    "without_replacement": ("replace_one", _without_replacement_step, False, ()),
    "truncated_poisson": ("add_remove", _truncated_poisson_step, True,
                          ("dataset_size", "batch_cap")),
    "with_replacement": ("replace_one", _with_replacement_step, False, ("dataset_size",)),
}


def _options(sampling: str, dataset_size: int | None, batch_cap: int | None,
             examples_per_user: int) -> Options:
    """Validate the sampler's extra options (ValueError naming the parameter)."""
    needs = SAMPLERS[sampling][3]
    given = {"dataset_size": dataset_size, "batch_cap": batch_cap}
    for name, value in given.items():
        if name in needs and value is None:
            raise ValueError(f"sampling={sampling!r} needs {name}")
        if name not in needs and value is not None:
            raise ValueError(f"{name} is used only by sampling in "
                             f"{[s for s, r in SAMPLERS.items() if name in r[3]]}, "
                             f"not by sampling={sampling!r}")
    o = {"examples_per_user": _validate.positive_int("examples_per_user", examples_per_user)}
    if o["examples_per_user"] > 1 and sampling != "poisson":
        raise ValueError("examples_per_user > 1 is supported with sampling='poisson' "
                         f"(add/remove of a whole user) only, got sampling={sampling!r}")
    if dataset_size is not None:
        o["dataset_size"] = _validate.positive_int("dataset_size", dataset_size)
    if batch_cap is not None:
        cap = _validate.positive_int("batch_cap", batch_cap)
        if cap > o["dataset_size"]:
            raise ValueError(f"batch_cap must be an integer in [1, dataset_size="
                             f"{o['dataset_size']}], got {cap}")
        o["batch_cap"] = cap
    return o


def sampler_entry(sampling: str, neighbouring: str) -> tuple:
    """The ``SAMPLERS`` row of a per-step sampler, or a ValueError naming the pairs that
    are supported."""
    if sampling not in SAMPLERS or SAMPLERS[sampling][0] != neighbouring:
        pairs = ", ".join(f"sampling={s!r} with neighbouring={r[0]!r}"
                          for s, r in SAMPLERS.items())
        raise ValueError(f"sampling={sampling!r} with neighbouring={neighbouring!r} is not "
                         f"supported; use {pairs}")
    return SAMPLERS[sampling]


@records_run
@accepts_epochs
@_validate.british_spelling
def dpsgd(noise_multiplier: ArrayLike, sample_rate: ArrayLike, steps: int,
          sampling: str = "poisson",
          neighbouring: str = "add_remove", tol: float | None = None,
          progress: bool | None = None, sensitivity: float | None = None, *,
          dataset_size: int | None = None, batch_cap: int | None = None,
          examples_per_user: int = 1) -> TradeOff:
    """Certified trade-off function of DP-SGD (the per-step pairs: module docstring).

    Parameters
    ----------
    noise_multiplier, sample_rate : float or array
        σ > 0 (noise std σ·C on the clipped gradient sum, C the clipping norm) and
        q ∈ [0, 1] (Poisson rate, or batch / dataset size for the fixed-size samplers):
        numbers, or one value per step.
    steps : int
        T ≥ 0.
    sampling, neighbouring : str
        "poisson" or "truncated_poisson" with "add_remove"; "without_replacement"
        or "with_replacement" with "replace_one".
    tol : float, optional
        As in ``compose_numeric``. Default (None): the grid is sized by the
        question — the grid step of tol = ``QUESTION_TOL`` (1e-3; coarsened to the
        memory budget for huge T), and ``epsilon_bounds(delta)`` returns a bracket
        at most 1e-3·max(ε, 0.01) wide, recomposing finer only when this grid's
        bracket is wider; β brackets (``bounds``) are those of tol = 1e-3 (at most
        tol/3 for these continuous losses). An explicit tol is taken as asked.
    progress
        As in ``compose_numeric``.
    sensitivity : float, optional
        s > 0: the largest change of the clipped gradient SUM between neighbours, in
        units of C (default: ``DEFAULT_SENSITIVITY`` of the relation).
    dataset_size : int, optional
        n ≥ 1, needed by "truncated_poisson" (n counts the record, as in
        dp_accounting) and "with_replacement" (batch b = q·n must be whole).
    batch_cap : int, optional
        B ∈ [1, n]: the largest batch kept by "truncated_poisson".
    examples_per_user : int
        k ≥ 1: user-level privacy under Poisson sampling (default 1: example-level).

    Returns
    -------
    Numeric
        ``f(α)`` certified lower, ``bounds`` both sides, ``epsilon_bounds(delta)``
        the ε bracket; its label states the sampler and the sensitivity assumed.
        For example-level Poisson sampling (at most ``MAX_RDP_GROUPS`` distinct
        (σ, q)) a ``MinCertified``: its upper δ(ε) and ε(δ) are the smaller of the
        engine's and the certified Rényi bound of the same run (both proven, so the
        minimum is), and each bracket's ``note`` says which one set it.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.dpsgd(noise_multiplier=1.0, sample_rate=0.01, steps=10, tol=1e-2)
    >>> lo, hi = f.epsilon_bounds(1e-5)
    >>> print(f"{lo:.3f} {hi:.3f}")
    0.380 0.380
    """
    steps = _validate.positive_int("steps", steps, low=0)
    if sampling in ("random_allocation", "shuffle"):
        # each record in exactly one batch per epoch of 1/q steps: its own accountant
        # (random allocation, certified) or a labelled LOWER curve (shuffling)
        if neighbouring != "add_remove" or sensitivity not in (None, 1, 1.0):
            raise ValueError(f"sampling={sampling!r} is accounted for add/remove neighbours "
                             "with sensitivity 1")
        if steps == 0 and sampling == "random_allocation":
            return Identity()
        from_dpsgd: Callable[..., TradeOff] = (
            allocation_from_dpsgd if sampling == "random_allocation" else shuffle_from_dpsgd)
        return from_dpsgd(noise_multiplier, sample_rate, steps, tol=tol)
    relation, step_pair, both, _ = sampler_entry(sampling, neighbouring)
    opts = _options(sampling, dataset_size, batch_cap, examples_per_user)
    # no tol: the grid is sized by the question (ε(δ) within 1e-3·max(ε, 0.01), refined
    # on demand; β brackets those of tol = QUESTION_TOL); see fdp.engine
    grid: Literal["question", "tol"] = "question" if tol is None else "tol"
    tol = None if tol is None else _validate.real("tol", tol, low=0.0, low_open=True, high=1.0)
    sens = resolve_sensitivity(sensitivity, neighbouring)
    if steps == 0:
        return Identity()
    sigma = _per_step("noise_multiplier", noise_multiplier, steps, 0.0, np.inf, low_open=True)
    rate = _per_step("sample_rate", sample_rate, steps, 0.0, 1.0)
    keys, (row,) = _prefix_counts(sigma, rate, steps, np.array([steps]))
    counts = dict(zip(keys, row))
    label = _label(sigma, rate, steps, sampling, sens, opts)
    fac = [(step_pair(sens / s, q, opts), n) for (s, q), n in counts.items()]
    # a two-directional sampler composes the remove direction (the inverse pair of each
    # step) too and symmetrises once at the end
    try:
        f = compose(fac, tol, directions=("f", "inverse") if both else ("f",), grid=grid,
                    label=label, progress=progress)
    except GridBudgetExceeded as exc:
        if sampling != "poisson":
            raise
        raise GridBudgetExceeded(
            f"{exc} -- at {steps:.3g} steps no grid the engine may allocate resolves the "
            "run; fdp.sgd.dpsgd_rdp_epsilon(noise_multiplier, sample_rate, steps, delta) "
            "is a certified upper ε by the Rényi accountant, and the lower end of "
            "fdp.dpsgd with fewer steps a certified lower ε (ε never decreases with "
            "more steps)", exc.points) from exc
    if both and sampling == "poisson" and opts["examples_per_user"] == 1 \
            and len(counts) <= MAX_RDP_GROUPS:
        # a second certified upper bound of the same run: report the smaller
        return with_rdp(f, ((s, q, n) for (s, q), n in counts.items()), sens)
    return f


def with_rdp(f: Numeric, groups: Iterable[tuple[float, float, int]], sens: float
             ) -> MinCertified:
    """``f`` with the Rényi bound of the Poisson run ``groups`` (σ, q, n) beside it."""
    return MinCertified(f.pess, f.opt, f.label, f.tol, source=f.source, eps_width=f.eps_width,
                        rdp_recipe=PoissonGaussianRDP(tuple(groups), sens))


def _prefix_counts(sigma: FloatArray, rate: FloatArray, steps: int, at: np.ndarray
                   ) -> tuple[list[tuple[float, float]], list[list[int]]]:
    """The distinct per-step (σ, q) and, for each count in ``at``, how many of the first
    that many steps have each."""
    if sigma.size == 1 and rate.size == 1:
        return [(float(sigma[0]), float(rate[0]))], [[int(t)] for t in at]
    per_step = np.stack(np.broadcast_arrays(np.resize(sigma, steps), np.resize(rate, steps)),
                        axis=1)
    uniq, kind = np.unique(per_step, axis=0, return_inverse=True)
    kind = kind.ravel()
    rows = [np.bincount(kind[:t], minlength=len(uniq)).tolist() for t in at]
    return [(float(a), float(b)) for a, b in uniq], rows


def _label(sigma: FloatArray, rate: FloatArray, steps: int, sampling: str, sens: float,
           opts: Options | None = None) -> str:
    def show(a: FloatArray) -> str:
        return f"{a[0]:g}" if np.all(a == a[0]) else f"{a.min():g}..{a.max():g}"
    extra = "".join(f", {k}={v}" for k, v in (opts or {}).items()
                    if not (k == "examples_per_user" and v == 1))
    return (f"dpsgd(sigma={show(sigma)}, q={show(rate)}, steps={steps}, {sampling}{extra}, "
            f"sensitivity={sens:g}C)")
