"""``fdp dpsgd ... --json FILE`` and ``fdp verify FILE``: the written report verifies, and
each of five tampered files (ε, δ, sampler, steps, sensitivity) is rejected with one line
naming the field. The truth is the file before the edit and the edit itself."""

from __future__ import annotations

import json

import pytest

from fdp.cli import main

RUN = ["dpsgd", "--noise-multiplier", "1.0", "--sample-rate", "0.01", "--steps", "100",
       "--tol", "0.01", "--delta", "1e-5"]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.json"
    assert main([*RUN, "--json", str(path)]) == 0
    return json.loads(path.read_text(encoding="utf-8"))


def _verify(tmp_path, data, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    code = main(["verify", str(path)])
    out, err = capsys.readouterr()
    return code, out, err.strip()


def test_written_report_verifies(tmp_path, written, capsys):
    assert written["accounted"]["steps"] == 100 and written["status"] == "certified"
    assert [r["fpr"] for r in written["tpr"]] == [0.001, 0.01, 0.1]
    code, out, err = _verify(tmp_path, written, capsys)
    assert code == 0 and err == ""
    assert out.startswith("verified: ") and "catches at most" in out


def _eps(d):
    d["epsilon"][0]["upper"] = 0.5


def _delta(d):
    d["delta"][0]["upper"] = 1e-9


def _sampler(d):
    d["mechanism"]["inputs"].update(sampling="without_replacement", neighbouring="replace_one")


def _steps(d):
    d["mechanism"]["inputs"]["steps"] = 90


def _sensitivity(d):
    d["mechanism"]["inputs"]["sensitivity"] = 0.5


@pytest.mark.parametrize("edit, field", [
    (_eps, "epsilon[delta=1e-05].upper"), (_delta, "delta[epsilon=1].upper"),
    (_sampler, "accounted.sampler"), (_steps, "accounted.steps"),
    (_sensitivity, "accounted.sensitivity")])
def test_tampered_files_are_rejected_naming_the_field(tmp_path, written, capsys, edit, field):
    data = json.loads(json.dumps(written))
    edit(data)
    code, out, err = _verify(tmp_path, data, capsys)
    assert code == 1 and out == ""
    assert "\n" not in err
    assert err.startswith(f"fdp: verify: {tmp_path / 'r.json'}: {field}: file says ")
    assert ", recomputed " in err


def test_not_a_report_is_bad_input(tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text('{"schema": "something else"}', encoding="utf-8")
    assert main(["verify", str(path)]) == 2
    assert "not a privacy report" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.json")]) == 2


def test_json_with_other_samplers(tmp_path, capsys):
    path = tmp_path / "ra.json"
    assert main(["dpsgd", "--noise-multiplier", "1.0", "--sample-rate", "0.1", "--steps", "20",
                 "--sampling", "random_allocation", "--tol", "0.01", "--json", str(path)]) == 0
    assert main(["verify", str(path)]) == 0
    assert main([*RUN[:-4], "--sampling", "shuffle", "--json", str(tmp_path / "s.json")]) == 2
    assert "LOWER" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()
