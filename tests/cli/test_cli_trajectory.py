"""``fdp dpsgd --trajectory``: the table is fdp.sgd.trajectory's, checked before computing."""

from __future__ import annotations

import argparse
import re

import numpy as np
import pytest

import fdp
from fdp.cli import main
from fdp.cli.dpsgd import add_parser

BASE = ("dpsgd", "--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "200",
        "--tol", "0.01")


def _run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    return (code, *capsys.readouterr())


def _table(out: str) -> np.ndarray:
    rows = re.findall(r"^\s+(\d+)\s+([\d.]+)\s+([\d.]+|inf)$", out, flags=re.M)
    return np.array(rows, dtype=float)


def test_table_is_the_trajectory(capsys):
    code, out, _ = _run(capsys, *BASE, "--trajectory", "4")
    assert code == 0 and "certified epsilon over training (delta 1e-05, 4 points" in out
    table = _table(out)
    tr = fdp.sgd.trajectory(1.1, 0.01, 200, 1e-5, points=4, tol=0.01)
    assert table[:, 0].tolist() == tr.steps.tolist() == [50, 100, 150, 200]
    assert np.allclose(table[:, 1], tr.lower, atol=5e-5)
    assert np.allclose(table[:, 2], tr.upper, atol=5e-5)
    # the last row is the certified line's bracket
    lo, hi = re.search(r"epsilon in \[([\d.]+), ([\d.]+)\]", out).groups()
    assert (f"{table[-1, 1]:.4f}", f"{table[-1, 2]:.4f}") == (lo, hi)


def test_default_points():
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    assert parser.parse_args([*BASE, "--trajectory"]).trajectory == 100
    assert parser.parse_args(list(BASE)).trajectory is None


@pytest.mark.slow
def test_the_plot_gets_a_third_panel(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "t.png"
    code, out, _ = _run(capsys, *BASE, "--trajectory", "3", "--plot", str(path))
    assert code == 0 and len(_table(out)) == 3 and path.stat().st_size > 0


@pytest.mark.parametrize("extra, fragment", [
    (("--trajectory", "0"), "--trajectory"),
    (("--trajectory", "x"), "--trajectory"),
    (("--trajectory", "3", "--sampling", "shuffle"), "--trajectory"),
])
def test_bad_use_is_one_line_before_computing(capsys, extra, fragment):
    code, _, err = _run(capsys, *BASE, *extra)
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err
