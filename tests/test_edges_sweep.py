"""Edge sweep: every family and operation at the edges of double precision.

ε up to 700, δ and α down to 1e-300, group sizes up to 10⁴, operations applied to
numeric results. Each check is against an independent computation (mpmath at 60
digits, closed forms, a known valid bound) and asserts the certified side: δ and ε
never below the truth, β never above it, lower ≤ upper, no NaN.
"""

from __future__ import annotations

import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp

mp.mp.dps = 60
REL = 1e-9          # relative slack for comparing a float answer with a 60-digit truth


def _phi(x):
    return mp.ncdf(x)


def gdp_delta_mp(mu, eps):
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2022, Cor 2.13)."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return _phi(-eps / mu + mu / 2) - mp.exp(eps) * _phi(-eps / mu - mu / 2)


def gdp_beta_mp(mu, alpha):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ)."""
    alpha = mp.mpf(alpha)
    if alpha == 0:
        return mp.mpf(1)
    if alpha == 1:
        return mp.mpf(0)
    digits = int(-mp.log10(min(alpha, 1 - alpha))) + 40
    with mp.workdps(digits):                          # 1 − 2α must not round to 1
        z = -mp.sqrt(2) * mp.erfinv(2 * alpha - 1)   # Φ⁻¹(1 − α)
        return +_phi(z - mu)


def eps_delta_delta_mp(eps, delta, e):
    """δ of f_{ε,δ} at e: δ + (1 − δ)·max{(e^ε − e^e)₊ / (1 + e^ε), 1 − e^e}.

    The second term is the other order of the pair (e ≤ −ε), where the sup sits at the kink.
    """
    with mp.workdps(80):          # 1 − e^e for e near 0 needs expm1 and digits
        eps, delta, e = mp.mpf(eps), mp.mpf(delta), mp.mpf(e)
        pure = max((mp.exp(eps) - mp.exp(e)) / (1 + mp.exp(eps)), -mp.expm1(e), mp.mpf(0))
        return delta + (1 - delta) * pure


def group_map_mp(eps, delta, k, alpha):
    """(1 − f)^{∘k}(α) for f = f_{ε,δ}: iterate x ↦ min{1, δ + e^ε x, 1 − e^{−ε}(1 − δ − x)}."""
    eps, delta = mp.mpf(eps), mp.mpf(delta)
    x = mp.mpf(alpha)
    ee = mp.exp(eps)
    for _ in range(k):
        x = min(mp.mpf(1), delta + ee * x, 1 - (1 - delta - x) / ee)
        if x >= 1:
            return mp.mpf(1)
    return x


def _no_nan(*xs):
    for x in xs:
        v = np.asarray(x, dtype=float)
        assert np.all(np.isfinite(v) | np.isinf(v))
        assert not np.any(np.isnan(np.asarray(x, dtype=float)))


# ----------------------------------------------------------------------
# Closed families at the edges
# ----------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(mu=st.floats(1e-12, 60.0), eps=st.floats(0.0, 700.0))
def test_gaussian_delta_never_below_truth(mu, eps):
    got = fdp.Gaussian(mu).delta(eps)
    truth = gdp_delta_mp(mu, eps)
    assert got >= float(truth) * (1 - REL) - 1e-300
    assert got <= float(truth) * (1 + 1e-6) + 1e-300


@settings(max_examples=40, deadline=None)
@given(mu=st.floats(1e-3, 40.0), logd=st.floats(-300.0, -1.0))
def test_gaussian_epsilon_safe_at_tiny_delta(mu, logd):
    delta = 10.0 ** logd
    e = fdp.Gaussian(mu).epsilon(delta)
    assert np.isfinite(e)
    # Safe: the true δ at the returned ε is at most the target.
    assert gdp_delta_mp(mu, e) <= mp.mpf(delta) * (1 + 1e-9)
    # And not absurdly loose: a slightly smaller ε violates it (unless ε = 0).
    if e > 1e-6:
        assert gdp_delta_mp(mu, e * (1 - 1e-6) - 1e-9) > mp.mpf(delta) * (1 - 1e-9)


@pytest.mark.parametrize("mu", [1e-3, 0.1, 1.0, 5.0])
def test_gaussian_epsilon_at_delta_zero_is_infinite(mu):
    assert fdp.Gaussian(mu).epsilon(0.0) == np.inf


@settings(max_examples=40, deadline=None)
@given(mu=st.floats(0.0, 60.0), loga=st.floats(-300.0, 0.0))
def test_gaussian_beta_is_a_valid_lower_value(mu, loga):
    alpha = 10.0 ** loga
    b = fdp.Gaussian(mu)(alpha)
    truth = gdp_beta_mp(mu, alpha)
    assert 0.0 <= b <= 1.0 - alpha or (alpha < 1e-16 and b <= 1.0)
    assert abs(b - float(truth)) <= 1e-9 * float(truth) + 1e-300


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.0, 700.0), logd=st.floats(-300.0, -1.0), e=st.floats(-700.0, 700.0))
def test_eps_delta_profile(eps, logd, e):
    delta = 10.0 ** logd
    got = fdp.EpsDelta(eps, delta).delta(e)
    truth = eps_delta_delta_mp(eps, delta, e)
    assert got >= float(truth) * (1 - REL)
    assert got <= float(truth) * (1 + 1e-6) + 1e-300


# ----------------------------------------------------------------------
# Group privacy up to 10⁴
# ----------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(mu=st.floats(1e-3, 5.0), k=st.integers(1, 10_000))
def test_gaussian_and_laplace_groups_are_closed(mu, k):
    assert fdp.Gaussian(mu).group(k) == fdp.Gaussian(k * mu)
    g = fdp.Laplace(mu).group(k)
    assert g == fdp.Laplace(k * mu)


@settings(max_examples=25, deadline=None)
@given(eps=st.floats(0.01, 5.0), logd=st.floats(-300.0, -3.0), k=st.integers(2, 10_000),
       target=st.floats(-300.0, -2.0))
def test_eps_delta_group_epsilon_is_safe(eps, logd, k, target):
    delta = 10.0 ** logd
    d = 10.0 ** target
    g = fdp.EpsDelta(eps, delta).group(k)
    e = g.epsilon(d)
    assert not np.isnan(e)
    if np.isinf(e):
        return
    # Safe: at every α (sampled on a log grid and at the kink images) the group curve's
    # δ(e) lower bound g^k(α) − e^e α stays ≤ d.
    if k > 300:
        # Beyond the mpmath budget: at least the trivial bound ε ≥ 0 and δ(ε) ≤ d hold.
        assert e >= 0.0 and g.delta(e) <= d * (1 + 1e-9)
        return
    with mp.workdps(700):   # g^k(α) − e^e·α cancels down from α to δ: keep 700 digits
        for la in np.linspace(-300, 0, 31):
            a = mp.mpf(10) ** la
            val = group_map_mp(eps, delta, k, a) - mp.exp(e) * a
            assert val <= mp.mpf(d) * (1 + 1e-9) + mp.mpf(1e-300)


def test_group_of_eps_delta_reaches_k_eps():
    # Near α = 0 the group curve is 1 − e^{kε} α: ε(δ) ≈ kε for small δ.
    e = fdp.EpsDelta(0.5).group(100).epsilon(1e-5)
    assert 49.0 <= e <= 50.0 + 1e-9
    assert fdp.Laplace(1).group(100).delta(50.0) > 0.5


# ----------------------------------------------------------------------
# Numeric results: the bracket contains the truth at the edges
# ----------------------------------------------------------------------
@pytest.mark.parametrize("mu,n", [(40.0, 1), (50.0, 1), (50.0, 4), (20.0, 4), (1e-3, 1)])
def test_numeric_gaussian_bracket_contains_truth(mu, n):
    from fdp.engine import compose_numeric
    h = compose_numeric([(fdp.Gaussian(mu), n)], tol=1e-3)
    m = mu * np.sqrt(n)
    for delta in (1e-5, 1e-10):
        try:
            lo, hi = h.epsilon_bounds(delta)
        except ValueError as exc:
            # allowed only where the loss leaves the gridded window (true ε > ~1000 here)
            assert "gridded window" in str(exc)
            assert fdp.Gaussian(mu * np.sqrt(n)).epsilon(delta) > 900
            continue
        _no_nan(lo, hi)
        truth = fdp.Gaussian(m).epsilon(delta)
        assert lo <= truth * (1 + 1e-9) + 1e-9
        assert hi >= truth * (1 - 1e-9) - 1e-9
    for e in (0.0, 10.0, 800.0):
        dlo, dhi = h.delta(e), gdp_delta_mp(m, e)
        assert dlo >= float(dhi) * (1 - 1e-6) - 1e-300


@pytest.mark.parametrize("op", ["group2", "symmetrize", "strongest", "wor", "inverse",
                                "subsample_add"])
@pytest.mark.slow
def test_operations_on_numeric_results_keep_both_sides(op):
    from fdp.engine import compose_numeric
    h = compose_numeric([(fdp.Gaussian(1.0), 2)], tol=1e-3)        # numeric G_√2
    g = fdp.Gaussian(np.sqrt(2.0))
    p = 0.3
    ops = {
        "group2": (lambda f: f.group(2), g.group(2)),
        "symmetrize": (lambda f: f.symmetrize(), g),
        "strongest": (lambda f: fdp.strongest(f, fdp.Gaussian(2.0)), g),
        "wor": (lambda f: f.subsample(p, sampling="without_replacement"),
                g.subsample(p, sampling="without_replacement")),
        "inverse": (lambda f: f.inverse(), g),
        "subsample_add": (lambda f: f.subsample(p, direction="add"),
                          g.subsample(p, direction="add")),
    }
    make, truth = ops[op]
    r = make(h)
    assert not r.is_exact
    a = np.concatenate([np.logspace(-300, -1, 30), np.linspace(0.1, 0.9, 9),
                        1 - np.logspace(-1, -15, 10)])
    lo, hi = r.bounds(a)
    t = truth(a)
    _no_nan(lo, hi)
    assert np.all(lo <= t + 1e-12)
    assert np.all(hi >= t - 1e-12)
    for delta in (1e-5, 1e-12):
        elo, ehi = r.epsilon_bounds(delta)
        et = truth.epsilon(delta)
        assert elo <= et + 1e-9 and ehi >= et - 1e-9


def test_numeric_group3_is_finite_and_safe():
    from fdp.engine import compose_numeric
    h = compose_numeric([(fdp.Gaussian(1.0), 2)], tol=1e-3)
    lo, hi = h.group(3).epsilon_bounds(1e-5)
    truth = fdp.Gaussian(3 * np.sqrt(2.0)).epsilon(1e-5)       # 26.40
    assert lo <= truth <= hi and np.isfinite(hi)


def test_no_runtime_warning_at_edges():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fdp.Laplace(1e6)(0.3)
        fdp.Gaussian(1e6)(1e-300)
        fdp.EpsDelta(700.0, 1e-300).epsilon(1e-300)
        fdp.Gaussian(1e-300).delta(700.0)
        fdp.Identity().delta(1.0)
