"""The fdp command line: answers, exit codes, and one-line errors on bad input."""

import subprocess
import sys

import numpy as np
import pytest

import fdp
from fdp.cli import main, parse_spec


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:       # --help / --version
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *fragments):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fdp: error:")
    assert "Traceback" not in err
    for frag in fragments:
        assert frag in lines[0]


def test_convert_all_three_directions(capsys):
    code, out, _ = run(capsys, "convert", "--mu", "1", "--delta", "1e-5")
    assert code == 0
    assert f"{fdp.gdp_epsilon(1.0, 1e-5):.6g}" in out
    code, out, _ = run(capsys, "convert", "--mu", "0.5", "--epsilon", "1.45")
    assert code == 0 and "0.000544385" in out        # R fdp documents 0.000544...
    code, out, _ = run(capsys, "convert", "--epsilon", "1", "--delta", "1e-5")
    assert code == 0 and f"{fdp.gdp_mu_for_eps_delta(1.0, 1e-5):.6g}" in out


@pytest.mark.parametrize("argv, fragment", [
    (("convert", "--mu", "-1", "--delta", "1e-5"), "--mu"),
    (("convert", "--mu", "1"), "exactly two"),
    (("convert", "--mu", "1", "--delta", "2"), "--delta"),
    (("convert", "--mu", "nan", "--delta", "1e-5"), "--mu"),
    (("repro", "no_such_figure"), "no_such_figure"),
    (("dpsgd", "--noise-multiplier", "-1", "--sample-rate", "0.1", "--steps", "10"),
     "--noise-multiplier"),
    (("dpsgd", "--noise-multiplier", "1", "--sample-rate", "1.5", "--steps", "10"),
     "--sample-rate"),
    (("dpsgd", "--noise-multiplier", "1", "--sample-rate", "0.1", "--steps", "0"), "--steps"),
    (("dpsgd", "--noise-multiplier", "1", "--sample-rate", "0.1", "--steps", "10",
      "--delta", "0"), "--delta"),
    (("dpsgd", "--noise-multiplier", "1", "--sample-rate", "abc", "--steps", "10"),
     "invalid float"),
    (("dpsgd", "--noise-multiplier", "1", "--epochs", "1", "--dataset-size", "10",
      "--batch-size", "20"), "--batch-size"),
    (("dpsgd", "--noise-multiplier", "1", "--epochs", "1"), "--dataset-size"),
    (("dpsgd", "--noise-multiplier", "1", "--sample-rate", "0.1", "--steps", "10",
      "--plot", "/no/such/dir/x.png"), "does not exist"),
    (("plot", "nosuch:1", "--out", "x.png"), "unknown family"),
    (("plot", "gaussian:-1", "--out", "x.png"), "mu"),
    (("plot", "gaussian:1^0", "--out", "x.png"), "power"),
    (("plot", "gaussian:a", "--out", "x.png"), "numbers"),
    (("frobnicate",), "invalid choice"),
])
def test_bad_input_gives_one_line_and_exit_2(capsys, argv, fragment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert_one_line_error(code, err, fragment)


def test_repro_to_an_unwritable_directory(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run(capsys, "repro", "drs_eps_delta", "--out", str(blocker / "d"))
    assert_one_line_error(code, err, "cannot write")
    code, _, err = run(capsys, "repro", "drs_eps_delta", "--out", str(blocker))
    assert_one_line_error(code, err, "not a directory")


def test_repro_list_and_run(capsys, tmp_path):
    code, out, _ = run(capsys, "repro", "--list")
    assert code == 0 and len(out.strip().splitlines()) == len(fdp.repro.names())
    code, out, err = run(capsys, "repro", "drs_eps_delta", "r_fdp_docs", "--out",
                         str(tmp_path), "--fast")
    assert code == 0
    assert "PASS" in out and "FAIL" not in out
    assert "[2/2] r_fdp_docs" in err
    assert (tmp_path / "drs_eps_delta.png").exists()
    assert (tmp_path / "README.md").exists()


def test_repro_exits_nonzero_when_a_check_fails(capsys, tmp_path, monkeypatch):
    mod = fdp.repro.load("drs_eps_delta")
    monkeypatch.setattr(mod, "run", lambda out_dir, fast=False: [
        fdp.repro.Check.close("src", "forced", 1.0, 2.0, atol=0.1)])
    code, out, err = run(capsys, "repro", "drs_eps_delta", "--out", str(tmp_path),
                         "--quiet")
    assert code == 1 and "FAIL" in out and "FAILED" in err


def test_dpsgd_reports_bracket_clt_rdp_and_attack_risk(capsys, tmp_path):
    plot = tmp_path / "dpsgd.png"
    code, out, err = run(capsys, "dpsgd", "--noise-multiplier", "1.0", "--sample-rate", "0.05",
                         "--steps", "200", "--delta", "1e-5", "--tol", "1e-2",
                         "--plot", str(plot))
    assert code == 0, err
    cert = fdp.dpsgd(1.0, 0.05, 200, tol=1e-2)
    lo, hi = cert.epsilon_bounds(1e-5)
    assert f"epsilon in [{lo:.4f}, {hi:.4f}]" in out
    mu = fdp.dpsgd_clt_mu(1.0, 0.05, 200)
    assert f"mu = {mu:.4f}" in out and "NOT a bound" in out
    rdp = fdp.sgd.dpsgd_rdp_epsilon(1.0, 0.05, 200, 1e-5)
    assert f"epsilon = {rdp.epsilon:.4f}" in out
    # attack-risk lines: certified upper ends, at or above the values from the lower curve
    import re
    adv = float(re.search(r"advantage \(TPR − FPR, max\): ≤ ([0-9.e+-]+)", out).group(1))
    tpr = float(re.search(r"attacker TPR at FPR 0.01: ≤ ([0-9.e+-]+)", out).group(1))
    assert cert.advantage() - 1e-6 <= adv <= cert.advantage() + 1e-3
    assert 1 - cert(0.01) - 1e-6 <= tpr <= 1 - cert(0.01) + 1e-3
    assert plot.exists() and plot.read_bytes()[:4] == b"\x89PNG"
    if fdp.gdp_epsilon(mu, 1e-5) < lo:
        assert "under-reports" in err


def test_dpsgd_from_epochs(capsys):
    code, out, _ = run(capsys, "dpsgd", "--sigma", "2.0", "--epochs", "2", "--dataset-size",
                       "1000", "--batch-size", "100", "--tol", "1e-2")
    assert code == 0
    assert "sample rate 0.1, 20 steps" in out


def test_plot_specs(tmp_path, capsys):
    assert parse_spec("gaussian:1") == fdp.Gaussian(1.0)
    assert parse_spec("epsdelta:1,1e-5") == fdp.EpsDelta(1.0, 1e-5)
    assert parse_spec("gdp:0.5^4") == fdp.Gaussian(1.0)
    assert parse_spec("identity") == fdp.Identity()
    kov = parse_spec("dp:0.5^10")
    np.testing.assert_allclose(kov.delta(4.0), 5.519627e-3, atol=5e-10)
    out = tmp_path / "p.png"
    code, stdout, _ = run(capsys, "plot", "gaussian:1", "rr:1,3", "laplace:1", "--out", str(out),
                          "--labels", "G", "RR", "L")
    assert code == 0 and out.exists()


def test_console_script_is_installed():
    proc = subprocess.run([sys.executable, "-m", "fdp.cli", "convert", "--mu", "1",
                           "--delta", "1e-5"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "4.37718" in proc.stdout
    proc = subprocess.run(["fdp", "repro", "nope"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
