"""``fdp audit`` on the command line: the verdict, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fdp.cli import main


def test_counts_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--counts", "1000,20,20", "--mu", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "REFUTED" in out and "Gaussian(mu=0.5)" in out and "mu >= 0.582164" in out


def test_scores_json_and_csv_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    x_in, x_out = rng.normal(3.0, 1.0, 100), rng.normal(0.0, 1.0, 100)
    js = tmp_path / "s.json"
    js.write_text(json.dumps({"in": x_in.tolist(), "out": x_out.tolist()}))
    cs = tmp_path / "s.csv"
    cs.write_text("score,in\n" + "".join(f"{s:.17g},1\n" for s in x_in)
                  + "".join(f"{s:.17g},0\n" for s in x_out))
    assert main(["audit", "--scores", str(js), "--epsilon", "0.1"]) == 0
    a = capsys.readouterr().out
    assert main(["audit", "--scores", str(cs), "--epsilon", "0.1"]) == 0
    b = capsys.readouterr().out
    assert a == b and "REFUTED" in a


@pytest.mark.parametrize("argv,needle", [
    (["audit", "--counts", "10,5,6", "--mu", "1"], "--counts"),
    (["audit", "--counts", "10,5", "--mu", "1"], "--counts"),
    (["audit", "--counts", "10,5,5"], "--mu"),
    (["audit", "--counts", "10,5,5", "--mu", "-1"], "--mu"),
    (["audit", "--counts", "10,5,5", "--mu", "1", "--significance", "2"], "--significance"),
    (["audit", "--counts", "10,5,5", "--epsilon", "1", "--claim-delta", "1"], "--claim-delta"),
    (["audit", "--scores", "/nonexistent.json", "--mu", "1"], "--scores"),
    (["audit", "--counts", "10,5,5", "--sigma", "1", "--sample-rate", "0.1"], "--steps"),
    (["audit", "--counts", "10,5,5", "--mu", "1", "--sigma", "1"], "exactly one"),
    (["audit", "--counts", "10,5,5", "--sigma", "1", "--sample-rate", "2", "--steps", "5"],
     "--sample-rate"),
])
def test_bad_input_one_line(argv: list[str], needle: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_files_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad_json = tmp_path / "b.json"
    bad_json.write_text("{not json")
    bad_csv = tmp_path / "b.csv"
    bad_csv.write_text("score,in\n1.0,2\n")
    for f in (bad_json, bad_csv):
        assert main(["audit", "--scores", str(f), "--mu", "1"]) == 2
        err = capsys.readouterr().err
        assert "--scores" in err and err.count("\n") == 1


def test_dpsgd_claim_is_the_certified_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The claim of a DP-SGD configuration is ``fdp.dpsgd``'s certified curve: the CLI's
    verdict and p-value are ``one_run``'s on that object."""
    import fdp
    from fdp.audit import one_run

    res = one_run(fdp.dpsgd(1.5, 0.1, 100), counts=(1000, 100, 90))
    assert main(["audit", "--counts", "1000,100,90", "--noise-multiplier", "1.5",
                 "--sample-rate", "0.1", "--steps", "100"]) == 0
    out = capsys.readouterr().out
    assert "dpsgd(sigma=1.5, q=0.1, steps=100" in out and "not refuted" in out
    assert f"p-value {res.p_value:.4g}" in out
