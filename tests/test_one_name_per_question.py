"""One name per concept and one answer per question (the removed aliases stay removed)."""

import numpy as np
import pytest

import fdp


@pytest.mark.slow
def test_gdp_mu_bracket_and_gdp_fit_are_one_computation():
    for f in (fdp.Laplace(1.0), fdp.Laplace(1.0).subsample(0.2), fdp.EpsDelta(1.0),
              fdp.Laplace(1.0) @ fdp.Gaussian(1.0)):
        b, fit = f.gdp_mu_bounds(), f.gdp_fit()
        assert (b.lo, b.hi) == (fit.mu_lo, fit.mu_hi)
        assert f.gdp_mu() == b.hi
        assert b.lo <= b.hi


def test_the_two_gdp_mu_questions_have_distinct_names():
    # the curve's smallest μ with f ≥ G_μ ...
    assert fdp.Gaussian(1.5).gdp_mu() == 1.5
    # ... and the largest μ whose GDP implies a given (ε, δ)
    mu = fdp.gdp_mu_for_eps_delta(1.0, 1e-5)
    assert fdp.gdp_delta(mu, 1.0) <= 1e-5
    assert not hasattr(fdp, "gdp_mu")


@pytest.mark.parametrize("gone", ["smallest_gdp_mu", "gdp_mu_bracket"])
def test_removed_method_aliases(gone):
    assert not hasattr(fdp.Gaussian(1.0), gone)


def test_subsample_has_one_keyword_for_the_sampler():
    g = fdp.Gaussian(1.0)
    assert g.subsample(0.1, sampling="poisson") == g.subsample(0.1)
    with pytest.raises(TypeError):
        g.subsample(0.1, scheme="poisson")
    with pytest.raises(ValueError, match="sampling"):
        g.subsample(0.1, sampling="bogus")


def test_mechanisms_are_calibrated_by_fdp_calibrate_only():
    assert not hasattr(fdp.mechanisms.GaussianMechanism, "calibrated")
    m = fdp.calibrate("gaussian", mu=0.5).mechanism
    assert m.tradeoff == fdp.Gaussian(0.5)


def test_two_sided_readouts_share_one_type():
    f = fdp.Laplace(1.0) @ fdp.Gaussian(1.0)
    for b in (f.bounds(0.1), f.delta_bounds(1.0), f.epsilon_bounds(1e-5), f.gdp_mu_bounds(),
              f.pure_epsilon_bounds(), f.tpr_at_fpr(0.1), f.advantage_bounds(),
              f.bayes_risk(), fdp.Gaussian(1.0).epsilon_bounds(1e-5)):
        assert isinstance(b, fdp.Bracket), type(b)
        lo, hi = b
        assert lo <= hi


def test_closed_form_epsilon_is_a_hook_not_a_second_public_method():
    # families with a closed-form ε(δ) supply only ``_epsilon_range``; the one public
    # ``epsilon_bounds`` (validation, width, Bracket) and ``epsilon`` are TradeOff's
    import importlib
    import inspect
    import pkgutil

    import fdp.families as fam
    from fdp.tradeoff import TradeOff
    overriding = []
    classes = {}
    for info in pkgutil.iter_modules(fam.__path__):
        mod = importlib.import_module(f"fdp.families.{info.name}")
        classes.update(inspect.getmembers(mod, inspect.isclass))
    assert {"EpsDeltaGroup", "EpsDeltaPower", "Laplace"} <= set(classes)
    for name, cls in sorted(classes.items()):
        if issubclass(cls, TradeOff):
            for meth in ("epsilon", "epsilon_bounds"):
                if getattr(cls, meth) is not getattr(TradeOff, meth):
                    overriding.append((name, meth))
    assert overriding == []


@pytest.mark.parametrize("f", [fdp.Laplace(1.0), fdp.DiscreteLaplace(0.5),
                               fdp.EpsDelta(1.0, 0.01), fdp.EpsDelta(1.0, 0.01) ** 3,
                               fdp.EpsDelta(1.0, 0.01).group(2), fdp.Gaussian(1.0)])
@pytest.mark.parametrize("delta", [0.0, 1e-300, 1e-5, 0.1, 0.5])
def test_epsilon_is_the_upper_end_of_epsilon_bounds(f, delta):
    b = f.epsilon_bounds(delta)
    assert f.epsilon(delta) == b.hi
    assert b.lo <= b.hi


@pytest.mark.parametrize("f", [fdp.Gaussian(0.3), fdp.Laplace(1e-6), fdp.Laplace(2.0),
                               fdp.RandomizedResponse(1e-5), fdp.RandomizedResponse(3.0)])
def test_one_home_for_closed_form_renyi(f):
    # rdp_of (the public question) and the compositions' Rényi accountant read the same
    # certified law: the same numbers, each at least the mpmath value
    import mpmath as mp

    from fdp.classical.rdp import rdp_of
    from fdp.operations.rdp_bound import COMPOSE_ORDERS, factor_rdp
    o = np.array(COMPOSE_ORDERS)
    ours = np.asarray(rdp_of(f, o))
    assert ours.tolist() == factor_rdp(f, o).tolist()
    mp.mp.dps = 60
    for lam, rho in zip(o[::7], ours[::7]):
        lam = mp.mpf(float(lam))
        if isinstance(f, fdp.Gaussian):
            truth = lam * mp.mpf(f.mu) ** 2 / 2
        elif isinstance(f, fdp.Laplace):
            m = mp.mpf(f.mu)
            truth = mp.log(lam / (2 * lam - 1) * mp.exp((lam - 1) * m)
                           + (lam - 1) / (2 * lam - 1) * mp.exp(-lam * m)) / (lam - 1)
        else:
            p = 1 / (1 + mp.exp(-mp.mpf(f.eps)))
            truth = mp.log(p ** lam * (1 - p) ** (1 - lam)
                           + (1 - p) ** lam * p ** (1 - lam)) / (lam - 1)
        assert rho >= truth
        assert rho <= truth * (1 + 1e-9) + 1e-300
