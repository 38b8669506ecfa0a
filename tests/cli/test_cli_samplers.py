"""`fdp dpsgd --sampling truncated_poisson | with_replacement`: the CLI reaches the samplers.

The samplers' numbers are checked against exact enumeration and peers in
tests/engine/test_mog_samplers.py; here the command line must pass the options through
(dataset size, batch cap, neighbouring relation) and refuse incomplete requests before
computing.
"""

from __future__ import annotations

import re

import pytest

import fdp
from fdp.cli import main

RUN = ("dpsgd", "--noise-multiplier", "1.0", "--epochs", "1", "--dataset-size", "1000",
       "--batch-size", "50", "--delta", "1e-5", "--tol", "1e-3")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bracket(out):
    m = re.search(r"epsilon in \[([0-9.]+), ([0-9.]+|inf)\]", out)
    return float(m.group(1)), float(m.group(2))


@pytest.mark.slow
def test_truncated_poisson_from_the_command_line(capsys):
    code, out, err = run(capsys, *RUN, "--sampling", "truncated_poisson", "--batch-cap", "60")
    assert code == 0, err
    f = fdp.dpsgd(1.0, 50 / 1000, 20, sampling="truncated_poisson", dataset_size=1000,
                  batch_cap=60, tol=1e-3)
    lo, hi = f.epsilon_bounds(1e-5)
    assert bracket(out) == (round(lo, 4), round(hi, 4))
    assert "add/remove" in out and "no limit theorem" in out


def test_with_replacement_from_the_command_line(capsys):
    code, out, err = run(capsys, *RUN, "--sampling", "with_replacement")
    assert code == 0, err
    f = fdp.dpsgd(1.0, 50 / 1000, 20, sampling="with_replacement",
                  neighbouring="replace_one", dataset_size=1000, tol=1e-3)
    lo, hi = f.epsilon_bounds(1e-5)
    assert bracket(out) == (round(lo, 4), round(hi, 4))
    assert "replace one example" in out and "2 x clipping norm" in out


@pytest.mark.parametrize("extra, message", [
    (("--sampling", "truncated_poisson"), "--batch-cap"),
    (("--sampling", "truncated_poisson", "--batch-cap", "5000"), "must not exceed"),
    (("--batch-cap", "60"), "only with --sampling truncated_poisson"),
])
def test_incomplete_sampler_options_are_refused_before_computing(capsys, monkeypatch, extra,
                                                                message):
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", lambda *a, **k: pytest.fail("computed"))
    code, out, err = run(capsys, *RUN, *extra)
    assert code == 2 and message in err and "Traceback" not in err
