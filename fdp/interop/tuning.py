"""The certified privacy of a hyper-parameter search that publishes its best trial (Optuna).

Install with ``pip install "fdp[tune]"`` (Optuna ≥ 3); ``import fdp`` does not import this
module: ``from fdp.interop import tuning``.

Each trial trains on the private data with guarantee f; publishing the best trial is not
f-DP, and what it is depends on how the number K of trials was chosen, stated as a
``TrialCount``. A fixed K (``study.optimize(n_trials=k)``) gives f^{⊗K}, the best being a
post-processing of all K (Dong, Roth & Su 2022, Thm 3.2; adaptive, so any sampler and
pruner are covered). A K drawn before the study from a data-independent law gives
``fdp.repeat_and_select`` (Papernot & Steinke 2022, Thm 2, Thm 6 for Poisson), for
independent trials only: ``RandomSampler`` and no pruning. ``account_study`` returns the
certified guarantee next to the naive one (one trial's f). The table: docs/tuning.md.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import optuna

from fdp import _validate
from fdp.conversions.repeat_select import repeat_and_select, tnb_gamma
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff

#: Trial states that ran the objective on the data (WAITING trials never started).
_RAN = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED,
        optuna.trial.TrialState.FAIL, optuna.trial.TrialState.RUNNING)


@dataclass(frozen=True)
class TrialCount:
    """How the number K of trials was chosen.

    ``shape`` is None for a fixed K = ``mean``, else η of ``fdp.repeat_and_select``
    (E K = ``mean``; 0 logarithmic, 1 geometric, ``inf`` Poisson). Use the class methods.

    Examples
    --------
    >>> from fdp.interop.tuning import TrialCount
    >>> TrialCount.geometric(20)
    TrialCount.geometric(20)
    >>> TrialCount(20.0, 1.0) == TrialCount.geometric(20)
    True
    """

    mean: float
    shape: float | None = None

    def __post_init__(self) -> None:
        m = _validate.real("mean", self.mean, low=1.0)
        if self.shape is None and not m.is_integer():
            raise ValueError(f"mean must be a whole number of trials for a fixed K "
                             f"(shape None), got {self.mean!r}")
        if self.shape is not None:
            _validate.real("shape", self.shape, low=0.0, allow_inf=True)

    def __repr__(self) -> str:
        if self.shape is None:
            return f"TrialCount.fixed({int(self.mean)})"
        name = {0.0: "logarithmic", 1.0: "geometric", math.inf: "poisson"}.get(self.shape)
        if name is None:
            return f"TrialCount.negative_binomial({self.mean:g}, {self.shape:g})"
        return f"TrialCount.{name}({self.mean:g})"

    @classmethod
    def fixed(cls, k: int) -> TrialCount:
        """Exactly k ≥ 1 trials (``study.optimize(n_trials=k)``)."""
        return cls(float(_validate.positive_int("k", k)), None)

    @classmethod
    def geometric(cls, mean: float) -> TrialCount:
        """P[K = k] = γ(1 − γ)^{k−1}, k ≥ 1, γ = 1/mean (Liu & Talwar 2019)."""
        return cls(_validate.real("mean", mean, low=1.0), 1.0)

    @classmethod
    def poisson(cls, mean: float) -> TrialCount:
        """K ~ Poisson(mean); K = 0 publishes nothing (Papernot & Steinke 2022, Thm 6)."""
        return cls(_validate.real("mean", mean, low=1.0), math.inf)

    @classmethod
    def logarithmic(cls, mean: float) -> TrialCount:
        """The truncated negative binomial with η = 0 (Papernot & Steinke 2022, Def 1)."""
        return cls(_validate.real("mean", mean, low=1.0), 0.0)

    @classmethod
    def negative_binomial(cls, mean: float, shape: float) -> TrialCount:
        """The truncated negative binomial D_{η,γ}: P[K = k] ∝ C(k + η − 1, k)(1 − γ)^k,
        k ≥ 1, η = ``shape`` > 0 (Papernot & Steinke 2022, Def 1)."""
        return cls(_validate.real("mean", mean, low=1.0),
                   _validate.real("shape", shape, low=0.0, low_open=True))

    @property
    def random(self) -> bool:
        """True unless K is fixed."""
        return self.shape is not None

    def draw(self, rng: object = None) -> int:
        """A number of trials drawn from the law (draw it BEFORE the study; the fixed K
        for a fixed count). ``rng``: a seed or numpy Generator."""
        gen = _validate.generator(rng)
        if self.shape is None:
            return int(self.mean)
        if math.isinf(self.shape):
            return int(gen.poisson(self.mean))
        gamma = _gamma(self.mean, self.shape)
        if gamma == 1.0:
            return 1
        if self.shape == 0.0:
            return int(gen.logseries(1.0 - gamma))
        while True:                   # the negative binomial conditioned on K ≥ 1
            k = int(gen.negative_binomial(self.shape, gamma))
            if k >= 1:
                return k


@functools.lru_cache(maxsize=64)
def _gamma(mean: float, shape: float) -> float:
    return tnb_gamma(mean, shape)             # an interval-arithmetic bisection: once per law


def selection_guarantee(per_trial: TradeOff, trials: TrialCount) -> TradeOff:
    """The certified trade-off function of publishing the best of the trials (module
    docstring).

    Parameters
    ----------
    per_trial : TradeOff
        One trial's guarantee, exact or certified (for a random K it needs a certified
        Rényi curve: ``fdp.dpsgd``, ``Gaussian``, ``Laplace``, their compositions).
    trials : TrialCount
        How the number of trials was chosen.

    Examples
    --------
    >>> import fdp
    >>> from fdp.interop.tuning import TrialCount, selection_guarantee
    >>> selection_guarantee(fdp.Gaussian(0.5), TrialCount.fixed(16))
    Gaussian(mu=2.0)
    """
    if not isinstance(per_trial, TradeOff):
        raise TypeError(f"per_trial must be a TradeOff, got {type(per_trial).__name__}")
    if not isinstance(trials, TrialCount):
        raise TypeError(f"trials must be a TrialCount, got {type(trials).__name__}")
    require_guarantee(per_trial, "selection_guarantee")
    if trials.shape is None:
        return per_trial ** int(trials.mean)
    return repeat_and_select(per_trial, trials.mean, trials.shape)


@dataclass(frozen=True)
class StudyPrivacy:
    """The guarantee of publishing a study's best trial, next to the naive one.

    ``trials`` is the stated ``TrialCount``, ``ran`` the trials that ran on the data,
    ``per_trial`` one trial's guarantee (what "the winning trial's ε" reads) and
    ``certified`` the published best trial's (``selection_guarantee``).

    Examples
    --------
    >>> import fdp
    >>> from fdp.interop.tuning import StudyPrivacy, TrialCount, selection_guarantee
    >>> law = TrialCount.fixed(4)
    >>> p = StudyPrivacy(law, 4, fdp.Gaussian(0.5), selection_guarantee(fdp.Gaussian(0.5), law))
    >>> print(f"{p.naive_epsilon(1e-5):.3f} {p.epsilon(1e-5):.3f} {p.ratio(1e-5):.2f}")
    1.993 4.377 2.20
    """

    trials: TrialCount
    ran: int
    per_trial: TradeOff
    certified: TradeOff

    def epsilon(self, delta: float) -> float:
        """Certified UPPER ε at ``delta`` of the published best trial."""
        return float(self.certified.epsilon(_validate.probability("delta", delta)))

    def naive_epsilon(self, delta: float) -> float:
        """One trial's ε at ``delta``: what reporting the winning run alone states."""
        return float(self.per_trial.epsilon(_validate.probability("delta", delta)))

    def ratio(self, delta: float) -> float:
        """Certified ε over the naive ε at ``delta`` (inf when the naive ε is 0 and the
        certified one is not)."""
        naive, cert = self.naive_epsilon(delta), self.epsilon(delta)
        return cert / naive if naive > 0 else (1.0 if cert == 0 else math.inf)

    def summary(self, delta: float) -> str:
        """One line: both ε and what the naive one under-reports."""
        law = ("fixed K" if self.trials.shape is None else
               f"random K (mean {self.trials.mean:g}, shape {self.trials.shape:g})")
        return (f"best of {self.ran} trials, {law}: certified eps = {self.epsilon(delta):.4g} "
                f"at delta = {delta:g}; the winning trial's own eps = "
                f"{self.naive_epsilon(delta):.4g} under-reports it {self.ratio(delta):.3g}x")


def account_study(study: optuna.Study, per_trial: TradeOff,
                  trials: TrialCount) -> StudyPrivacy:
    """Account an Optuna study that publishes its best trial.

    Parameters
    ----------
    study : optuna.Study
        Every trial that ran (complete, pruned, failed or running) counts.
    per_trial : TradeOff
        One trial's guarantee, covering all it reveals (intermediate values too).
    trials : TrialCount
        How the number of trials was chosen, stated by the user (Optuna does not record
        it); a random K must have been drawn before the study (``TrialCount.draw``).

    Raises
    ------
    ValueError
        If the trials that ran differ from a fixed K, or, for a random K, the sampler is
        not ``RandomSampler`` or a trial was pruned.

    Examples
    --------
    >>> import fdp, optuna
    >>> from fdp.interop.tuning import TrialCount, account_study
    >>> optuna.logging.set_verbosity(optuna.logging.WARNING)
    >>> study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    >>> study.optimize(lambda t: (t.suggest_float("x", -1, 1) - 0.3) ** 2, n_trials=4)
    >>> account_study(study, fdp.Gaussian(0.5), TrialCount.fixed(4)).certified
    Gaussian(mu=1.0)
    """
    if not isinstance(study, optuna.Study):
        raise TypeError(f"study must be an optuna.Study, got {type(study).__name__}")
    ran = study.get_trials(deepcopy=False, states=_RAN)
    if trials.shape is None and len(ran) != int(trials.mean):
        raise ValueError(f"the study ran {len(ran)} trials but trials=TrialCount.fixed("
                         f"{int(trials.mean)}) was stated; state the count that ran")
    if trials.shape is not None:
        if not isinstance(study.sampler, optuna.samplers.RandomSampler):
            raise ValueError(
                f"a random number of trials is certified for independent trials "
                f"(Papernot & Steinke 2022), but the study's sampler "
                f"{type(study.sampler).__name__} chooses trials from earlier ones; use "
                "optuna.samplers.RandomSampler, or TrialCount.fixed(k) (composition)")
        pruned = [t.number for t in ran if t.state == optuna.trial.TrialState.PRUNED]
        if pruned:
            raise ValueError(f"trials {pruned} were pruned by comparison with other trials, "
                             "so the trials are not independent; a random number of "
                             "trials needs no pruner, or use TrialCount.fixed(k)")
    return StudyPrivacy(trials, len(ran), per_trial, selection_guarantee(per_trial, trials))


__all__ = ["StudyPrivacy", "TrialCount", "account_study", "selection_guarantee"]
