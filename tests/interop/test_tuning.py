"""fdp.interop.tuning with the real Optuna: a tiny objective, studies of 20 trials, the
certified selection guarantee against closed forms and fdp.repeat_and_select."""

from __future__ import annotations

import math

import numpy as np
import pytest

optuna = pytest.importorskip("optuna", reason="needs the tune extra")

import fdp  # noqa: E402
from fdp.conversions.repeat_select import RepeatSelect  # noqa: E402
from fdp.interop.tuning import (  # noqa: E402
    StudyPrivacy,
    TrialCount,
    account_study,
    selection_guarantee,
)

DELTA = 1e-5


@pytest.fixture(autouse=True)
def _quiet():
    optuna.logging.set_verbosity(optuna.logging.WARNING)


def _objective(trial: optuna.Trial) -> float:
    return (trial.suggest_float("lr", 1e-4, 1e-1, log=True) - 0.01) ** 2


def _study(n: int, sampler: optuna.samplers.BaseSampler | None = None) -> optuna.Study:
    study = optuna.create_study(sampler=sampler or optuna.samplers.RandomSampler(seed=1))
    study.optimize(_objective, n_trials=n)
    return study


def test_a_study_of_20_fixed_trials_is_their_composition():
    # a plain study.optimize(n_trials=20) with TPE: adaptive composition, G_{√20 μ}
    per_trial = fdp.Gaussian(0.3)
    acct = account_study(_study(20, optuna.samplers.TPESampler(seed=0)), per_trial,
                         TrialCount.fixed(20))
    assert acct.ran == 20
    mu = math.sqrt(20) * 0.3
    assert acct.epsilon(DELTA) == pytest.approx(fdp.gdp_epsilon(mu, DELTA), rel=1e-12)
    assert acct.naive_epsilon(DELTA) == pytest.approx(fdp.gdp_epsilon(0.3, DELTA), rel=1e-12)
    # 1.132 naive against 6.174 certified: the winner's ε under-reports 5.46 times
    assert acct.ratio(DELTA) == pytest.approx(
        fdp.gdp_epsilon(mu, DELTA) / fdp.gdp_epsilon(0.3, DELTA), rel=1e-12)
    assert acct.ratio(DELTA) > 5
    assert "under-reports" in acct.summary(DELTA)


def test_a_study_of_dpsgd_trials_reports_both_numbers():
    # each trial: 100 DP-SGD steps; 20 trials fixed, against the same run of 2000 steps
    per_trial = fdp.dpsgd(1.0, 0.01, 100)
    acct = account_study(_study(20), per_trial, TrialCount.fixed(20))
    tight = fdp.dpsgd(1.0, 0.01, 2000).epsilon_bounds(DELTA)
    naive = per_trial.epsilon_bounds(DELTA)
    cert = acct.epsilon(DELTA)
    # f^{⊗20} of the symmetrised trial curve is valid and at most ~2 % above the tight run
    assert tight.lo <= cert <= 1.02 * tight.hi
    assert acct.naive_epsilon(DELTA) == naive.hi and cert > 3 * naive.hi


def test_a_geometric_number_of_trials_is_papernot_steinke():
    per_trial = fdp.Gaussian(0.3)
    law = TrialCount.geometric(20)
    k = law.draw(np.random.default_rng(3))
    acct = account_study(_study(k), per_trial, law)
    assert acct.ran == k
    assert isinstance(acct.certified, RepeatSelect)
    assert (acct.certified.mean, acct.certified.shape) == (20.0, 1.0)
    assert acct.certified.status.value == "certified"
    # random K with mean 20 certifies less than 20 fixed trials, more than one
    fixed = fdp.gdp_epsilon(math.sqrt(20) * 0.3, DELTA)
    assert acct.naive_epsilon(DELTA) < acct.epsilon(DELTA) < fixed


def test_pure_dp_trials_give_liu_talwar_3_eps():
    # ε-DP trials, geometric K: the best trial is 3ε-DP (Liu & Talwar 2019, Thm 3.4)
    g = selection_guarantee(fdp.Laplace(0.2), TrialCount.geometric(10))
    assert g.orders[-1] == math.inf
    assert g.rdp[-1] == pytest.approx(0.6, rel=1e-12) and g.rdp[-1] >= 0.6


def test_poisson_and_negative_binomial_laws_reuse_repeat_and_select():
    f = fdp.Gaussian(0.2)
    for law, shape in ((TrialCount.poisson(5), math.inf), (TrialCount.logarithmic(5), 0.0),
                       (TrialCount.negative_binomial(5, 0.5), 0.5)):
        g = selection_guarantee(f, law)
        assert isinstance(g, RepeatSelect) and g.base is f
        assert (g.mean, g.shape) == (5.0, shape)


def test_draws_follow_the_laws():
    rng = np.random.default_rng(0)
    for law, mean in ((TrialCount.geometric(8), 8.0), (TrialCount.poisson(8), 8.0),
                      (TrialCount.logarithmic(8), 8.0),
                      (TrialCount.negative_binomial(8, 2.0), 8.0)):
        draws = np.array([law.draw(rng) for _ in range(4000)])
        assert abs(draws.mean() - mean) < 5 * draws.std() / math.sqrt(draws.size)
        assert draws.min() >= (0 if law.shape == math.inf else 1)
    assert TrialCount.fixed(20).draw() == 20
    # the geometric law: P[K = 1] = γ = 1/8
    draws = np.array([TrialCount.geometric(8).draw(rng) for _ in range(4000)])
    assert abs((draws == 1).mean() - 1 / 8) < 5 * math.sqrt(1 / 8 * 7 / 8 / 4000)


def test_errors_name_what_is_missing():
    f = fdp.Gaussian(0.3)
    with pytest.raises(ValueError, match=r"ran 5 trials but trials=TrialCount.fixed\(20\)"):
        account_study(_study(5), f, TrialCount.fixed(20))
    with pytest.raises(ValueError, match="sampler TPESampler chooses trials from earlier"):
        account_study(_study(5, optuna.samplers.TPESampler(seed=0)), f,
                      TrialCount.geometric(5))
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))

    def pruned(trial: optuna.Trial) -> float:
        if trial.number == 1:
            raise optuna.TrialPruned()
        return _objective(trial)

    study.optimize(pruned, n_trials=3)
    with pytest.raises(ValueError, match=r"trials \[1\] were pruned"):
        account_study(study, f, TrialCount.geometric(5))
    with pytest.raises(ValueError, match="mean"):
        TrialCount.geometric(0.5)
    with pytest.raises(ValueError, match="k"):
        TrialCount.fixed(0)
    with pytest.raises(ValueError, match="whole number"):
        TrialCount(2.5)
    with pytest.raises(ValueError, match="shape"):
        TrialCount(3.0, -1.0)
    with pytest.raises(fdp.NotAGuarantee):
        selection_guarantee(fdp.edgeworth([f, f]), TrialCount.fixed(2))
    with pytest.raises(TypeError, match=r"optuna\.Study"):
        account_study("study", f, TrialCount.fixed(2))  # type: ignore[arg-type]


def test_result_is_a_frozen_value():
    acct = account_study(_study(2), fdp.Gaussian(0.3), TrialCount.fixed(2))
    assert isinstance(acct, StudyPrivacy)
    with pytest.raises(AttributeError):
        acct.ran = 3  # type: ignore[misc]


def test_reprs_read_like_the_constructors():
    for law in (TrialCount.fixed(20), TrialCount.geometric(20), TrialCount.poisson(3.5),
                TrialCount.logarithmic(4), TrialCount.negative_binomial(5, 0.5)):
        assert eval(repr(law), {"TrialCount": TrialCount}) == law
