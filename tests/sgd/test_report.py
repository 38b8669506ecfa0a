"""The sampler-honest DP-SGD report: Python rows, CLI table, plot, bad input."""

from __future__ import annotations

import math

import pytest

import fdp
from fdp.cli import main
from fdp.sgd.report import GUARANTEE, LOWER, MISSING, SamplerRow, compare_samplers, format_table

CONF = dict(dataset_size=1000, batch_size=100, epochs=2, noise_multiplier=2.0, delta=1e-5)


@pytest.fixture(scope="module")
def rows():
    return compare_samplers(**CONF)


@pytest.mark.slow
def test_rows_are_plain_data_in_order(rows):
    names = [r.sampler for r in rows]
    assert names == ["Poisson", "without replacement", "random allocation",
                     "truncated Poisson", "shuffle"]
    for r in rows:
        assert isinstance(r, SamplerRow)
        d = r.as_dict()
        assert set(d) >= {"sampler", "epsilon_lower", "epsilon_upper", "mu_lower",
                          "tpr_lower", "tpr_upper", "kind"}
        assert all(isinstance(v, (str, float)) for v in d.values())


def test_values_match_independent_calls(rows):
    """Each row agrees with a direct call of its accountant (closed form where one exists)."""
    by = {r.sampler: r for r in rows}
    q, steps = 0.1, 20
    lo, hi = fdp.dpsgd(2.0, q, steps).epsilon_bounds(1e-5)
    assert by["Poisson"].epsilon_lower == pytest.approx(float(lo))
    assert by["Poisson"].epsilon_upper == pytest.approx(float(hi))
    a = by["random allocation"]
    assert a.kind == GUARANTEE and a.epsilon_lower <= a.epsilon_upper
    s = by["shuffle"]
    assert s.kind == LOWER
    full = fdp.Gaussian(math.sqrt(2) / 2.0)                 # once per epoch, closed form
    assert s.epsilon_upper == pytest.approx(float(full.epsilon(1e-5)))
    assert s.tpr_upper == pytest.approx(1 - float(full(0.01)))
    # the lower end is the allocation instance's certified lower end
    assert s.epsilon_lower == pytest.approx(a.epsilon_lower)
    assert s.epsilon_lower <= s.epsilon_upper
    for r in rows:
        if r.kind != MISSING:
            assert 0.0 <= r.tpr_lower <= r.tpr_upper <= 1.0
            assert r.tpr_lower >= 0.01 - 1e-12       # no attack is worse than guessing


def test_truncated_poisson_row_both_ways():
    """Not available when fdp.dpsgd lacks the sampler; a bracket when it has it."""
    none = compare_samplers(**CONF, _truncated_fn=lambda *a: None)
    row = none[3]
    assert row.kind == MISSING and math.isnan(row.epsilon_upper) and "not available" in MISSING
    stand_in = compare_samplers(**CONF, _truncated_fn=lambda s, q, t, n, cap, tol:
                                fdp.dpsgd(s, q, t, tol=tol))
    row = stand_in[3]
    assert row.kind == GUARANTEE and row.epsilon_upper == pytest.approx(stand_in[0].epsilon_upper)


@pytest.mark.slow
def test_table_and_plot(rows, tmp_path):
    text = format_table(rows, 1e-5)
    assert "LOWER bound" in text and "NOT a guarantee" in text
    assert "not available" in text or "truncated Poisson" in text
    path = tmp_path / "s.png"
    compare_samplers(**CONF, plot=path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("change, name", [
    (dict(batch_size=2000), "batch_size"), (dict(batch_size=0), "batch_size"),
    (dict(epochs=0), "epochs"), (dict(noise_multiplier=0.0), "noise_multiplier"),
    (dict(delta=1.0), "delta"), (dict(dataset_size=0), "dataset_size"),
    (dict(max_batch_size=5000), "max_batch_size"),
])
def test_bad_input(change, name):
    with pytest.raises(ValueError, match=name):
        compare_samplers(**{**CONF, **change})


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_cli_compare_samplers(capsys, tmp_path):
    path = tmp_path / "c.png"
    code, out, _ = run(capsys, "dpsgd", "--noise-multiplier", "2", "--epochs", "2",
                       "--dataset-size", "1000", "--batch-size", "100", "--delta", "1e-5",
                       "--compare-samplers", "--plot", str(path))
    assert code == 0
    for name in ("Poisson", "without replacement", "random allocation",
                 "truncated Poisson", "shuffle"):
        assert name in out
    assert "LOWER bound" in out and "NOT a guarantee" in out
    assert path.exists()


@pytest.mark.parametrize("argv, frag", [
    (["--epochs", "2.5", "--dataset-size", "1000", "--batch-size", "100"], "whole number"),
    (["--sample-rate", "0.1", "--steps", "10"], "--compare-samplers needs"),
    (["--epochs", "2", "--dataset-size", "100", "--batch-size", "1000"], "--batch-size"),
    (["--epochs", "2", "--dataset-size", "1000", "--batch-size", "100",
      "--sampling", "without_replacement"], "drop --sampling"),
])
def test_cli_bad_input(capsys, argv, frag):
    code, out, err = run(capsys, "dpsgd", "--noise-multiplier", "2", *argv, "--compare-samplers")
    assert code == 2 and frag in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_cli_random_allocation_is_certified(capsys):
    code, out, _ = run(capsys, "dpsgd", "--noise-multiplier", "2", "--sample-rate", "0.1",
                       "--steps", "20", "--delta", "1e-5", "--sampling", "random_allocation")
    assert code == 0 and "certified" in out
    lo, hi = fdp.random_allocation(2.0, 10, epochs=2).epsilon_bounds(1e-5)
    assert f"[{lo:.4f}, {hi:.4f}]" in out


def test_cli_shuffle_says_lower_bound(capsys):
    code, out, _ = run(capsys, "dpsgd", "--noise-multiplier", "2", "--sample-rate", "0.1",
                       "--steps", "20", "--delta", "1e-5", "--sampling", "shuffle")
    assert code == 0
    assert "LOWER bound (NOT a guarantee)" in out and "NO privacy guarantee" in out
    e_once = fdp.Gaussian(math.sqrt(2) / 2.0).epsilon(1e-5)
    assert f"epsilon <= {e_once:.4f}" in out


@pytest.mark.parametrize("argv, frag", [
    (["--sample-rate", "0.3", "--steps", "10", "--sampling", "random_allocation"], "1/t"),
    (["--sample-rate", "0.1", "--steps", "5", "--sampling", "shuffle"], "full epoch"),
    (["--sample-rate", "0.1", "--steps", "10", "--sampling", "shuffle",
      "--sensitivity", "2"], "sensitivity"),
])
def test_cli_allocation_shuffle_bad_input(capsys, argv, frag):
    code, _, err = run(capsys, "dpsgd", "--noise-multiplier", "2", *argv)
    assert code == 2 and frag in err and len(err.strip().splitlines()) == 1


def _dpsgd_has(sampling):
    try:
        fdp.dpsgd(2.0, 0.5, 2, sampling=sampling)
    except ValueError as exc:
        if "not supported" in str(exc):
            return False
    return True


@pytest.mark.skipif(not _dpsgd_has("random_allocation"),
                    reason="fdp.dpsgd not yet wired to sampling='random_allocation'")
def test_dpsgd_sampling_random_allocation_matches():
    a = fdp.dpsgd(2.0, 0.1, 20, sampling="random_allocation").epsilon_bounds(1e-5)
    b = fdp.random_allocation(2.0, 10, epochs=2).epsilon_bounds(1e-5)
    assert a == b


@pytest.mark.skipif(not _dpsgd_has("shuffle"),
                    reason="fdp.dpsgd not yet wired to sampling='shuffle'")
def test_dpsgd_sampling_shuffle_is_a_lower_curve():
    low = fdp.dpsgd(2.0, 0.1, 20, sampling="shuffle")
    assert low.status is fdp.Status.LOWER_BOUND
    assert repr(low).endswith("# lower bound, not a guarantee")
    with pytest.raises(fdp.NotAGuarantee, match="lower bound"):
        fdp.Accountant(mu=5.0).spend(low)


def test_allocation_row_is_the_k1_bracket_of_the_truth(rows):
    """The report's allocation row is k = 1 (one of t = n/B steps per epoch), whose
    bracket brackets the true curve; a k > 1 bracket (of a reduction) never enters."""
    a = {r.sampler: r for r in rows}["random allocation"]
    f = fdp.random_allocation(2.0, 10, 1, 2)
    lo, hi = f.epsilon_bounds(1e-5)
    assert (a.epsilon_lower, a.epsilon_upper) == (pytest.approx(float(lo)),
                                                  pytest.approx(float(hi)))
    assert "reduction" not in repr(f)
