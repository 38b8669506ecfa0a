"""Rough edges of the ``fdp`` command: every error is one line with exit status 2, found
before anything is computed; closed pipes are quiet; every option has help; printed
bounds are never 'nan'; the DP-SGD sensitivity is a stated, settable assumption."""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys

import pytest
from scipy.stats import norm

import fdp
from fdp import cli
from fdp.cli import main


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *fragments):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fdp: error:") and "Traceback" not in err
    for frag in fragments:
        assert frag in lines[0], lines[0]


def _no_compute(*args, **kwargs):
    raise AssertionError("computed before the arguments were checked")


BASE = ("dpsgd", "--sigma", "1", "--sample-rate", "0.01", "--steps", "10")


# ----------------------------------------------------------------------
# help text
# ----------------------------------------------------------------------
def test_every_option_and_argument_has_help():
    parser = cli.build_parser()
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    parsers = [parser] + [p for sp in subparsers for p in sp.choices.values()]
    names = {name for sp in subparsers for name in sp.choices}
    assert {"repro", "dpsgd", "convert", "plot", "audit", "tree", "last-iterate"} <= names
    for p in parsers:
        for action in p._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert action.help and action.help != argparse.SUPPRESS, \
                (p.prog, action.option_strings or action.dest)


# ----------------------------------------------------------------------
# arguments checked before any computation
# ----------------------------------------------------------------------
@pytest.mark.parametrize("extra, fragment", [
    (("--delta", "-1e-5"), "--delta must lie in (0, 1), got -1e-05"),
    (("--delta", "-.5"), "--delta"),
    (("--delta", "1"), "--delta"),
    (("--tol", "2"), "--tol must lie in (0, 1]"),
    (("--tol", "0"), "--tol"),
    (("--tol", "-1e-3"), "--tol"),
    (("--tol", "nan"), "--tol"),
    (("--sensitivity", "0"), "--sensitivity"),
    (("--sensitivity", "-2"), "--sensitivity"),
    (("--sensitivity", "inf"), "--sensitivity"),
    (("--fpr", "1"), "--fpr"),
    (("--plot", "/proc/fdp-cannot-write-here.png"), "--plot"),
])
def test_dpsgd_arguments_are_checked_before_computing(capsys, monkeypatch, extra, fragment):
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", _no_compute)
    monkeypatch.setattr(fdp.sgd.clt, "dpsgd_clt_mu", _no_compute)
    code, out, err = run(capsys, *BASE, *extra)
    assert_one_line_error(code, err, fragment)
    assert out == ""


def test_plot_path_whose_parent_is_a_file_is_refused_first(capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", _no_compute)
    code, _, err = run(capsys, *BASE, "--plot", str(blocker / "p.png"))
    assert_one_line_error(code, err, "--plot")
    code, _, err = run(capsys, "plot", "gaussian:1", "--out", str(blocker / "p.png"))
    assert_one_line_error(code, err, "--out")
    assert not (tmp_path / "p.png").exists()


def test_the_write_probe_leaves_no_file_behind(capsys, monkeypatch, tmp_path):
    """The --plot probe creates the file to test it; a later error must not leave it."""
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", _no_compute)
    target = tmp_path / "out.png"
    code, _, err = run(capsys, *BASE, "--plot", str(target), "--tol", "5")
    assert_one_line_error(code, err, "--tol")
    assert not target.exists()


def test_negative_numbers_reach_the_range_checks(capsys):
    code, _, err = run(capsys, "convert", "--mu", "-1", "--delta", "1e-5")
    assert_one_line_error(code, err, "--mu must be a finite number > 0")
    code, _, err = run(capsys, "convert", "--mu", "1", "--epsilon", "-1e-3")
    assert_one_line_error(code, err, "--epsilon")
    assert cli._join_negative_values(["--delta", "-1E-5", "x", "-3"]) == \
        ["--delta=-1E-5", "x", "-3"]


def test_spec_errors_are_found_before_composing(capsys, monkeypatch, tmp_path):
    """A bad second spec is reported before the first one is composed."""
    import fdp.families.laplace as lap
    monkeypatch.setattr(lap.Laplace, "__pow__", _no_compute, raising=False)
    code, _, err = run(capsys, "plot", "laplace:1^50", "nosuch:1", "--out",
                       str(tmp_path / "p.png"))
    assert_one_line_error(code, err, "unknown family")


# ----------------------------------------------------------------------
# computations too large for memory
# ----------------------------------------------------------------------
def test_memory_error_is_one_line(capsys, monkeypatch):
    def too_big(*args, **kwargs):
        raise MemoryError("tol=0.0001 needs a grid of about 112,208,149 points; increase tol")
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", too_big)
    code, _, err = run(capsys, *BASE)
    assert_one_line_error(code, err, "too large to compute", "increase tol")


@pytest.mark.parametrize("argv", [
    ("plot", "laplace:1^1000000000", "--out", "{tmp}/p.png"),
    ("dpsgd", "--sigma", "1e-3", "--sample-rate", "0.01", "--steps", "10"),
])
@pytest.mark.slow
def test_issue_reproductions_give_an_answer_or_one_line(capsys, tmp_path, argv):
    """Either a result or a one-line error, never a traceback."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = run(capsys, *argv)
    assert "Traceback" not in err and "nan" not in out
    if code != 0:
        assert_one_line_error(code, err)


# ----------------------------------------------------------------------
# closed pipes
# ----------------------------------------------------------------------
@pytest.mark.slow
def test_closed_stdout_pipe_is_quiet():
    """`fdp repro --list | head -1`: the reader is gone before fdp writes."""
    proc = subprocess.Popen([sys.executable, "-m", "fdp.cli", "repro", "--list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()                  # the reader exits at once
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert err == "", err
    assert proc.returncode == 0


def test_broken_pipe_inside_main_is_handled(capsys, monkeypatch):
    import io

    class Closed(io.StringIO):
        def write(self, s):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            raise io.UnsupportedOperation("fileno")

    monkeypatch.setattr(sys, "stdout", Closed())
    assert main(["repro", "--list"]) == 0


# ----------------------------------------------------------------------
# repro --list with names; the narrow check table
# ----------------------------------------------------------------------
def test_repro_list_takes_names(capsys):
    code, out, _ = run(capsys, "repro", "--list", "bu_table4", "drs_eps_delta")
    assert code == 0
    assert [line.split()[0] for line in out.strip().splitlines()] == ["bu_table4",
                                                                     "drs_eps_delta"]
    code, _, err = run(capsys, "repro", "--list", "extra")
    assert_one_line_error(code, err, "extra")


def test_check_table_fits_100_columns_and_wide_and_csv_keep_everything(tmp_path):
    from fdp.repro import Check, Result, format_table, write_csv
    long = "a quantity whose description is much longer than any column of the table"
    r = Result("a_script_with_a_long_name", [
        Check.close("Some paper 2020, Table 4 and its appendix", long, 1.0, 1.0 + 1e-9,
                    atol=1e-6, note="the tolerance note is long as well, on purpose"),
        Check.bracket_contains("source", "q", 6.76, 6.753112345, 6.771012345),
        Check.holds("source", "CLT under-reports ε", "CLT ε < true ε", "6.5912 < 6.7531",
                    True)])
    narrow = format_table([r])
    assert max(map(len, narrow.splitlines())) <= 100
    flat = " ".join(narrow.split())
    for word in long.split():          # wrapped, not cut
        assert word in flat
    assert narrow.count("PASS") == 3 and "3/3 checks passed" in narrow
    wide = format_table([r], wide=True)
    assert long in wide and "Some paper 2020, Table 4 and its appendix" in wide
    import csv
    rows = list(csv.reader(write_csv([r], tmp_path / "t.csv").open(encoding="utf-8")))
    assert rows[0] == ["script", "source", "quantity", "paper", "ours", "tolerance", "result"]
    assert rows[1][2] == long and len(rows) == 4


def test_repro_csv_and_wide_flags(capsys, tmp_path):
    csv_path = tmp_path / "checks.csv"
    code, out, _ = run(capsys, "repro", "drs_eps_delta", "--out", str(tmp_path), "--quiet",
                       "--csv", str(csv_path), "--wide")
    assert code == 0 and out.splitlines()[0].split()[:2] == ["script", "source"]
    assert csv_path.read_text(encoding="utf-8").count("PASS") == out.count("PASS") > 0


# ----------------------------------------------------------------------
# printed bounds: never 'nan'
# ----------------------------------------------------------------------
class _Broken:
    """A stand-in certified result whose read-backs failed (NaN)."""
    is_exact = False
    status = fdp.Status.CERTIFIED
    directions = "both"

    def epsilon_bounds(self, delta):
        return (float("nan"), float("nan"))

    def advantage(self):
        return float("nan")

    def __call__(self, alpha):
        return float("nan")


def test_nan_read_backs_print_the_trivially_safe_values(capsys, monkeypatch):
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", lambda *a, **k: _Broken())
    code, out, err = run(capsys, *BASE)
    assert code == 0, err
    assert "nan" not in out.lower()
    assert "epsilon in [0.0000, inf]" in out
    assert "<= 1   (trivial bound" in out


def test_large_epsilon_run_prints_no_nan(capsys):
    """σ = 0.3, q = 0.5, 1000 steps once printed 'TPR <= nan'. Whatever is printed now
    is a number in [0, 1] on the safe side: the first step alone is a post-processing
    of the whole run, so no valid bound can be below 1 − f_1(0.01) ≥ 1 − upper_1(0.01)."""
    import warnings
    with warnings.catch_warnings():      # overflow warnings are the engine's own tests' concern
        warnings.simplefilter("ignore", RuntimeWarning)
        code, out, err = run(capsys, "dpsgd", "--sigma", "0.3", "--sample-rate", "0.5",
                             "--steps", "1000", "--tol", "1e-2")
        assert "Traceback" not in err
        if code != 0:
            assert_one_line_error(code, err)
            return
        assert "nan" not in out.lower()
        m = re.search(r"attacker TPR at FPR 0.01: ≤ ([0-9.e+-]+)", out)
        assert m and 0.0 <= float(m.group(1)) <= 1.0
        one_step = fdp.dpsgd(0.3, 0.5, 1, tol=1e-2)
        assert float(m.group(1)) >= 1.0 - float(_upper(one_step, 0.01)) - 1e-12


def _upper(f, alpha):
    return f.bounds(alpha)[1]


# ----------------------------------------------------------------------
# --sensitivity
# ----------------------------------------------------------------------
def _mu_poisson(sigma, q, steps):
    """Bu et al. (2020): μ = q √T √(e^{1/σ²} − 1), evaluated independently here."""
    return q * math.sqrt(steps) * math.sqrt(math.expm1(1.0 / sigma ** 2))


def _mu_wor(sigma, q, steps):
    """Dong, Roth & Su (2022, §5): μ = q √(2T) √(e^{1/σ²}Φ(1.5/σ) + 3Φ(−0.5/σ) − 2)."""
    inner = math.exp(1 / sigma ** 2) * norm.cdf(1.5 / sigma) + 3 * norm.cdf(-0.5 / sigma) - 2
    return q * math.sqrt(2 * steps) * math.sqrt(inner)


@pytest.mark.parametrize("sampling, given, expected, relation", [
    ("poisson", None, 1.0, "add/remove one example"),
    ("poisson", "2", 2.0, "add/remove one example"),
    ("without_replacement", None, 2.0, "replace one example"),
    ("without_replacement", "1", 1.0, "replace one example"),
])
def test_sensitivity_is_stated_and_used(capsys, sampling, given, expected, relation):
    sigma, q, steps = 2.0, 0.02, 50
    argv = ["dpsgd", "--sigma", str(sigma), "--sample-rate", str(q), "--steps", str(steps),
            "--sampling", sampling, "--tol", "1e-2"]
    if given is not None:
        argv += ["--sensitivity", given]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert f"neighbouring relation: {relation}" in out
    assert f"sensitivity of the clipped gradient sum: {expected:g} x clipping norm" in out
    # per-step mechanism G_{Δ/σ}: the CLT μ is the closed form at σ/Δ
    formula = _mu_poisson if sampling == "poisson" else _mu_wor
    mu = formula(sigma / expected, q, steps)
    assert f"mu = {mu:.4f}" in out


def test_sensitivity_reaches_the_library(capsys, monkeypatch):
    """The library gets the sensitivity keyword, with σ unchanged."""
    calls = {}
    real = fdp.dpsgd

    def with_kw(sigma, q, steps, sampling="poisson", neighbouring="add_remove", tol=None,
                sensitivity=None):
        calls["with"] = (sigma, sensitivity)
        return real(sigma / sensitivity, q, steps, sampling=sampling,
                    neighbouring=neighbouring, tol=tol)

    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", with_kw)
    run(capsys, *BASE, "--sensitivity", "3", "--tol", "1e-2")
    assert calls["with"] == (1.0, 3.0)


# ----------------------------------------------------------------------
# plot labels and legends
# ----------------------------------------------------------------------
def test_composite_labels_typeset_whole_exponents():
    from matplotlib.mathtext import MathTextParser

    from fdp.plotting import latex_label
    label = cli.spec_label("laplace:1^10")
    assert r"\otimes 10}" in label
    MathTextParser("path").parse(label)
    assert r"\otimes 10}" in latex_label(fdp.Laplace(1.0) ** 10)      # whole exponent braced
    assert cli.spec_label("gaussian:1") == latex_label(fdp.Gaussian(1.0))


def test_crowded_legend_is_beside_the_axes_and_saved_whole(tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.image import imread

    from fdp.plotting import new_figure, save
    fs = [fdp.Gaussian(m) for m in (0.5, 1, 1.5, 2, 2.5, 3)]
    labels = [f"a fairly long label for the curve number {i}" for i in range(len(fs))]
    fig, axes = new_figure(1, 1, figsize=(5.0, 5.0))
    FigureCanvasAgg(fig)
    ax = fdp.plot(*fs, labels=labels, ax=axes[0, 0])
    path = tmp_path / "p.png"
    save(fig, path, dpi=100)
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    assert not legend.overlaps(ax.get_window_extent(renderer))   # it covers no curve
    # the saved image spans everything drawn, legend and axis labels included
    tight = fig.get_tightbbox(renderer)                  # inches
    height, width = imread(path).shape[:2]
    assert width >= (legend.x1 / fig.dpi - tight.x0) * 100 - 2
    assert width >= tight.width * 100 - 2 and height >= tight.height * 100 - 2


def test_main_for_runs_one_reproduction_like_the_command(tmp_path, capsys):
    from fdp.repro import main_for
    assert main_for("drs_eps_delta", ["--out", str(tmp_path), "--quiet"]) == 0
    assert (tmp_path / "drs_eps_delta.png").exists()
    assert "PASS" in capsys.readouterr().out


def test_an_unexpected_error_is_one_line_unless_debugging(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise IndexError("index 7 is out of bounds")
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", broken)
    code, _, err = run(capsys, *BASE)
    assert_one_line_error(code, err, "internal error (IndexError", "FDP_DEBUG")
    monkeypatch.setenv("FDP_DEBUG", "1")
    with pytest.raises(IndexError):
        main(list(BASE))


def test_dpsgd_with_an_overflowing_clt_mu_still_exits_zero(capsys):
    # σ = 0.001: e^{1/σ²} overflows, so the CLT's μ is inf; the certified line comes
    # first and the run ends normally (it used to stop with "mu must be a finite number")
    code, out, err = run(capsys, "dpsgd", "--sigma", "0.001", "--sample-rate", "1",
                         "--steps", "1")
    assert code == 0, err
    assert "certified f-DP" in out and "CLT: mu = inf" in out
    assert "nan" not in out.lower()
