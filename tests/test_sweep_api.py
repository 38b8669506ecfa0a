"""fdp.sweep: the generic sweep, the DP-SGD table and calibration for many targets.

Independent truths: with sample rate q = 1 every step of DP-SGD is the Gaussian
mechanism, so T steps are exactly G_{s√T/σ} (DRS Thm 2.7, Cor 3.3), whose δ(ε) is
evaluated in mpmath at 50 digits; q = 0 or T = 0 release nothing (ε = 0); the
executor path is compared with the serial path for exact equality.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdp
from fdp import sweep

TOL = 1e-3


def gdp_delta_mp(mu, eps):
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2022, Cor 2.13)."""
    with mp.workdps(50):
        mu, eps = mp.mpf(mu), mp.mpf(eps)
        return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def assert_brackets_gaussian(lo, hi, mu, delta):
    """lo ≤ ε_μ(δ) ≤ hi, read through the decreasing δ_μ(·) (no root finding)."""
    assert 0.0 <= lo <= hi
    assert gdp_delta_mp(mu, hi) <= mp.mpf(delta) * (1 + 1e-9)
    assert lo == 0.0 or gdp_delta_mp(mu, lo) >= mp.mpf(delta) * (1 - 1e-9)


# module-level, so that they pickle into worker processes
def square(x):
    return x * x


def fail_on_three(x):
    if x == 3:
        raise ValueError(f"x must not be 3, got {x}")
    return x + 0.5


# ----------------------------------------------------------------------
# evaluate
# ----------------------------------------------------------------------
def test_evaluate_serial_keeps_input_order():
    assert sweep.evaluate(square, [3, 1, 2]) == [9, 1, 4]
    assert sweep.evaluate(square, []) == []
    assert sweep.evaluate(square, iter(range(5))) == [0, 1, 4, 9, 16]


def test_evaluate_on_executors_matches_serial():
    configs = list(range(20))[::-1]
    serial = sweep.evaluate(square, configs)
    with ThreadPoolExecutor(2) as ex:
        assert sweep.evaluate(square, configs, executor=ex) == serial
    with ProcessPoolExecutor(2) as ex:
        assert sweep.evaluate(square, configs, executor=ex) == serial


@pytest.mark.parametrize("where", ["serial", "process"])
def test_evaluate_raises_the_first_failure_in_input_order(where):
    configs = [1, 2, 3, 4, 3]
    if where == "serial":
        with pytest.raises(ValueError, match="x must not be 3") as info:
            sweep.evaluate(fail_on_three, configs)
    else:
        with ProcessPoolExecutor(2) as ex, pytest.raises(ValueError,
                                                         match="x must not be 3") as info:
            sweep.evaluate(fail_on_three, configs, executor=ex)
    assert any("#2" in note for note in getattr(info.value, "__notes__", ["#2"]))


@pytest.mark.parametrize("where", ["serial", "process"])
def test_evaluate_records_failures_in_place(where):
    configs = [1, 3, 2, 3]
    if where == "serial":
        out = sweep.evaluate(fail_on_three, configs, errors="record")
    else:
        with ProcessPoolExecutor(2) as ex:
            out = sweep.evaluate(fail_on_three, configs, errors="record", executor=ex)
    assert out[0] == 1.5 and out[2] == 2.5
    for i in (1, 3):
        assert out[i] == sweep.Failure(i, 3, "ValueError: x must not be 3, got 3")


@settings(max_examples=30)
@given(xs=st.lists(st.integers(0, 6), max_size=12))
def test_evaluate_record_is_the_pointwise_map(xs):
    expected = [sweep.Failure(i, 3, "ValueError: x must not be 3, got 3") if x == 3
                else x + 0.5 for i, x in enumerate(xs)]
    assert sweep.evaluate(fail_on_three, xs, errors="record") == expected
    if 3 not in xs:
        assert sweep.evaluate(fail_on_three, xs) == expected


def test_evaluate_rejects_bad_options():
    with pytest.raises(ValueError, match="errors must be one of"):
        sweep.evaluate(square, [1], errors="ignore")
    with pytest.raises(TypeError, match="executor must be"):
        sweep.evaluate(square, [1], executor=object())
    with pytest.raises(TypeError, match="fn must be callable"):
        sweep.evaluate(3, [1])
    with pytest.raises(TypeError, match="progress"):
        sweep.evaluate(square, [1], progress="yes")


def test_progress_meter_shown_when_asked_and_silent_otherwise(capsys):
    sweep.evaluate(square, [1, 2, 3], progress=True, label="squares")
    err = capsys.readouterr().err
    assert "squares" in err and "3/3" in err
    sweep.evaluate(square, [1, 2, 3], progress=False)
    sweep.evaluate(square, [1, 2, 3])          # stderr is not a terminal under pytest
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------
# dpsgd_table
# ----------------------------------------------------------------------
GRID = dict(noise_multipliers=[0.8, 2.0], sample_rates=[0.01, 1.0], steps=[0, 20],
            delta=[1e-5, 1e-3], tol=TOL)


def test_dpsgd_table_rows_are_plain_data_in_product_order():
    rows = sweep.dpsgd_table(**GRID)
    assert len(rows) == 2 * 2 * 2 * 2
    keys = [(r.noise_multiplier, r.sample_rate, r.steps, r.delta) for r in rows]
    assert keys == [(s, q, t, d) for s in (0.8, 2.0) for q in (0.01, 1.0) for t in (0, 20)
                    for d in (1e-5, 1e-3)]
    for r in rows:
        assert r.error is None and r.sampling == "poisson" and r.neighbouring == "add_remove"
        assert type(r.epsilon_lo) is float and type(r.epsilon_hi) is float
        assert 0.0 <= r.epsilon_lo <= r.epsilon_hi < math.inf
        assert pickle.loads(pickle.dumps(r)) == r
        d = dataclasses.asdict(r)
        assert set(d) >= {"noise_multiplier", "sample_rate", "steps", "delta", "epsilon_lo",
                          "epsilon_hi", "error"}
        if r.steps == 0:
            assert r.epsilon_lo == r.epsilon_hi == 0.0
        if r.sample_rate == 1.0 and r.steps:
            assert_brackets_gaussian(r.epsilon_lo, r.epsilon_hi,
                                     math.sqrt(r.steps) / r.noise_multiplier, r.delta)


def test_dpsgd_table_process_pool_gives_identical_rows():
    serial = sweep.dpsgd_table(**GRID)
    with ProcessPoolExecutor(2) as ex:
        pooled = sweep.dpsgd_table(**GRID, executor=ex)
    assert pooled == serial
    with ThreadPoolExecutor(2) as ex:
        assert sweep.dpsgd_table(**GRID, executor=ex) == serial
    # equal, not approximately: every number bit for bit
    assert [(r.epsilon_lo, r.epsilon_hi) for r in pooled] == \
           [(r.epsilon_lo, r.epsilon_hi) for r in serial]


def test_dpsgd_table_agrees_with_fdp_dpsgd():
    (row,) = sweep.dpsgd_table(1.1, 256 / 60000, 100, 1e-5, tol=TOL)
    lo, hi = fdp.dpsgd(1.1, 256 / 60000, 100, tol=TOL).epsilon_bounds(1e-5)
    assert (row.epsilon_lo, row.epsilon_hi) == (lo, hi)


def test_dpsgd_table_rate_zero_releases_nothing():
    rows = sweep.dpsgd_table([0.3, 5.0], 0.0, [1, 1000], [1e-10, 0.5], tol=TOL)
    assert all(r.epsilon_lo == r.epsilon_hi == 0.0 for r in rows)


@settings(max_examples=12, deadline=None)
@given(sigma=st.floats(0.3, 1e4), steps=st.integers(1, 30), logd=st.floats(-12.0, -1.0))
def test_dpsgd_table_full_batch_brackets_the_gaussian_truth(sigma, steps, logd):
    delta = 10.0 ** logd
    (row,) = sweep.dpsgd_table(sigma, 1.0, steps, delta, tol=TOL)
    assert_brackets_gaussian(row.epsilon_lo, row.epsilon_hi, math.sqrt(steps) / sigma, delta)


def check_edge(sigma, steps, logd):
    # at the edges a configuration may be refused (grid limit, δ below the resolution);
    # recorded, its row claims nothing beyond [0, inf], otherwise it holds the truth
    delta = 10.0 ** logd
    (row,) = sweep.dpsgd_table(sigma, 1.0, steps, delta, tol=TOL, errors="record")
    if row.error is not None:
        assert row.error.split(":")[0] in ("ValueError", "MemoryError", "GridBudgetExceeded",
                                             "ArithmeticError")
        assert (row.epsilon_lo, row.epsilon_hi) == (0.0, math.inf)
    else:
        assert_brackets_gaussian(row.epsilon_lo, row.epsilon_hi, math.sqrt(steps) / sigma,
                                 delta)


@settings(max_examples=10, deadline=None)
@given(sigma=st.floats(0.05, 1e4), steps=st.integers(1, 2000), logd=st.floats(-300.0, -1.0))
def test_dpsgd_table_edges_give_the_truth_or_only_the_trivial_bracket(sigma, steps, logd):
    check_edge(sigma, steps, logd)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(sigma=st.floats(0.05, 1e4), steps=st.integers(1, 10**6), logd=st.floats(-300.0, -1.0))
def test_dpsgd_table_edges_up_to_a_million_steps(sigma, steps, logd):
    check_edge(sigma, steps, logd)


def test_dpsgd_table_without_replacement_full_batch_is_gaussian():
    # q = 1 without replacement, replace-one, sensitivity 2: G_{2√T/σ} (DRS Thm 2.7)
    rows = sweep.dpsgd_table(2.0, 1.0, [1, 9], 1e-6, sampling="without_replacement",
                             neighbouring="replace_one", tol=TOL)
    for r in rows:
        assert r.sampling == "without_replacement"
        assert_brackets_gaussian(r.epsilon_lo, r.epsilon_hi, 2 * math.sqrt(r.steps) / 2.0,
                                 1e-6)


@settings(max_examples=6, deadline=None)
@given(q=st.floats(0.001, 1.0), s1=st.floats(0.5, 3.0), ratio=st.floats(1.0, 3.0))
@pytest.mark.slow
def test_dpsgd_table_more_noise_is_never_certified_worse(q, s1, ratio):
    # ε(δ) decreases in σ, so the lower end at more noise cannot exceed the upper at less
    small, big = sweep.dpsgd_table([s1, s1 * ratio], q, 30, 1e-5, tol=TOL)
    assert big.epsilon_lo <= small.epsilon_hi


def test_dpsgd_table_failure_raises_by_default_with_its_message():
    # without replacement (no Rényi companion) the engine alone cannot certify δ = 1e-300;
    # Poisson sampling now answers it through min(engine, RDP)
    with pytest.raises(ValueError, match="delta=1e-300") as info:
        sweep.dpsgd_table(1.0, 0.01, 10, 1e-300, tol=TOL, sampling="without_replacement",
                          neighbouring="replace_one")
    notes = getattr(info.value, "__notes__", ["DpsgdConfig"])
    assert any("DpsgdConfig" in n for n in notes)


def test_dpsgd_table_recorded_failure_has_only_the_trivial_bracket():
    rows = sweep.dpsgd_table(1.0, 0.01, [10, 0], [1e-300, 1e-5], tol=TOL, errors="record",
                             sampling="without_replacement", neighbouring="replace_one")
    bad = [r for r in rows if r.steps == 10]
    assert len(bad) == 2
    for r in bad:     # one failed configuration: every δ of it carries the error
        assert r.error.startswith("ValueError: ") and "delta" in r.error
        assert (r.epsilon_lo, r.epsilon_hi) == (0.0, math.inf)
    assert all(r.error is None and r.epsilon_hi == 0.0 for r in rows if r.steps == 0)


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(noise_multipliers=0.0), ValueError, "noise_multipliers must lie in"),
    (dict(noise_multipliers=[1.0, -1.0]), ValueError, "noise_multipliers"),
    (dict(noise_multipliers=math.nan), ValueError, "noise_multipliers"),
    (dict(sample_rates=1.5), ValueError, r"sample_rates must lie in \[0, 1\]"),
    (dict(steps=-1), ValueError, "steps must be an integer >= 0"),
    (dict(steps=2.5), ValueError, "steps must be an integer"),
    (dict(steps="10"), TypeError, "steps"),
    (dict(delta=0.0), ValueError, r"delta must lie in \(0, 1\)"),
    (dict(delta=1.0), ValueError, r"delta must lie in \(0, 1\)"),
    (dict(delta=[[1e-5]]), ValueError, "delta must be a number or a flat sequence"),
    (dict(width=0.0), ValueError, "width must lie in"),
    (dict(errors="skip"), ValueError, "errors must be one of"),
    (dict(sampling="shuffled"), ValueError, "sampling="),
])
def test_dpsgd_table_bad_input_names_the_parameter(kwargs, exc, match):
    args = dict(noise_multipliers=1.0, sample_rates=0.01, steps=10, delta=1e-5, tol=TOL)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        sweep.dpsgd_table(**args)


def test_evaluate_runs_any_list_of_dpsgd_configs():
    # a grid that is not a product: one tuple of rows per configuration
    configs = [sweep.DpsgdConfig(1.0, 1.0, 4, (1e-5,), tol=TOL),
               sweep.DpsgdConfig(2.0, 0.0, 9, (1e-5, 1e-3), tol=TOL)]
    (a,), (b, c) = sweep.evaluate(sweep.dpsgd_rows, configs)
    assert_brackets_gaussian(a.epsilon_lo, a.epsilon_hi, 2.0, 1e-5)
    assert (b.delta, c.delta) == (1e-5, 1e-3) and b.epsilon_hi == c.epsilon_hi == 0.0


def test_dpsgd_table_empty_grid():
    assert sweep.dpsgd_table([], 0.01, 10, 1e-5) == []


# ----------------------------------------------------------------------
# calibrate_many
# ----------------------------------------------------------------------
CAL = dict(sample_rate=1.0, steps=4, tol=TOL, rtol=1e-2)
TARGETS = [{"epsilon": 2.0, "delta": 1e-5}, {"mu": 0.5}, {"epsilon": 1.0, "delta": 1e-3}]


def gdp_mu_mp(eps, delta):
    """μ with δ_μ(ε) = δ (δ_μ(ε) increases in μ), by bisection at 50 digits."""
    lo, hi = mp.mpf("1e-6"), mp.mpf(50)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gdp_delta_mp(mid, eps) < delta else (lo, mid)
    return lo


@pytest.mark.slow
def test_calibrate_many_full_batch_is_safe_against_the_gaussian_truth():
    rows = sweep.calibrate_many(TARGETS, **CAL)
    assert [r.target for r in rows] == ["(2, 1e-05)-DP", "0.5-GDP", "(1, 0.001)-DP"]
    for r, t in zip(rows, TARGETS):
        assert r.error is None and r.sample_rate == 1.0 and r.steps == 4
        # T full-batch steps at noise σ: G_{√T/σ}; the least safe σ is √T / μ*
        mu_star = t["mu"] if "mu" in t else float(gdp_mu_mp(t["epsilon"], t["delta"]))
        sigma_star = math.sqrt(4) / mu_star
        assert r.noise_multiplier >= sigma_star * (1 - 1e-9)       # never below the truth
        assert r.noise_multiplier <= sigma_star * 1.05             # and close to it
        assert r.lower < r.noise_multiplier
        assert r.tolerance <= 1e-2 + 1e-12
        assert pickle.loads(pickle.dumps(r)) == r
    assert rows[0].epsilon == 2.0 and rows[0].delta == 1e-5 and rows[0].mu is None
    assert rows[1].mu == 0.5 and rows[1].epsilon is None


@pytest.mark.slow
def test_calibrate_many_matches_calibrate_dpsgd_and_the_process_pool():
    serial = sweep.calibrate_many(TARGETS[:2], **CAL)
    direct = fdp.calibrate_dpsgd(epsilon=2.0, delta=1e-5, **CAL)
    assert serial[0].noise_multiplier == float(direct)
    assert serial[0].lower == direct.lower
    with ProcessPoolExecutor(2) as ex:
        assert sweep.calibrate_many(TARGETS[:2], executor=ex, **CAL) == serial


@pytest.mark.slow
def test_calibrate_many_per_target_settings_override_the_common_ones():
    rows = sweep.calibrate_many([{"mu": 0.5}, {"mu": 0.5, "steps": 16}], **CAL)
    assert [r.steps for r in rows] == [4, 16]
    # four times the steps needs twice the noise (G_{√T/σ})
    assert rows[1].noise_multiplier > 1.9 * rows[0].noise_multiplier


def test_calibrate_many_errors():
    bad = [{"epsilon": 2.0, "delta": 1e-5}, {"epsilon": -1.0, "delta": 1e-5}]
    with pytest.raises(ValueError, match="epsilon must lie in"):
        sweep.calibrate_many(bad, **CAL)
    rows = sweep.calibrate_many(bad, errors="record", **CAL)
    assert rows[0].error is None
    r = rows[1]
    assert r.error == "ValueError: epsilon must lie in [0, inf), got -1.0"
    assert r.noise_multiplier == math.inf            # the trivially safe value
    assert math.isnan(r.lower) and r.evaluations == 0 and r.epsilon == -1.0
    with pytest.raises(TypeError, match="sequence of mappings"):
        sweep.calibrate_many({"mu": 1.0}, **CAL)
    with pytest.raises(TypeError, match=r"targets\[0\] must be a mapping"):
        sweep.calibrate_many([1.0], **CAL)


def test_sweep_is_reachable_from_the_package():
    assert fdp.sweep is sweep
    assert "sweep" in fdp.__all__
