"""fdp tree (fdp/cli/tree.py), on a parser built here (the command is not registered yet)."""

from __future__ import annotations

import math

import mpmath as mp
import pytest

from fdp.cli import tree
from fdp.commandline import Parser, run_command


def _run(argv):
    p = Parser(prog="fdp")
    sub = p.add_subparsers(dest="command")
    tree.add_parser(sub)
    return run_command(p, argv, lambda a: a.func(a))


def _gdp_epsilon(mu, delta):
    def d(e):
        return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)
    lo, hi = mp.mpf(0), mp.mpf(200)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return float(hi)


def test_one_tree_prints_mu_and_epsilon(capsys):
    assert _run(["tree", "--noise-multiplier", "1.13", "--steps", "1600",
                 "--delta", "1e-6"]) == 0
    out = capsys.readouterr().out
    mu = math.sqrt(11) / 1.13
    assert f"mu = {mu:.6g}" in out
    assert "special" in out and "depths 11" in out
    eps = float(out.split("epsilon = ")[1].split()[0])
    assert eps == pytest.approx(_gdp_epsilon(mp.mpf(11).sqrt() / mp.mpf("1.13"),
                                             mp.mpf("1e-6")), rel=1e-5)


def test_several_trees_and_single_epoch(capsys):
    assert _run(["tree", "--sigma", "2", "--steps", "10", "40", "30"]) == 0
    out = capsys.readouterr().out
    assert f"mu = {math.sqrt(4 + 6 + 5) / 2:.6g}" in out
    assert _run(["tree", "--sigma", "2", "--steps", "10", "40", "30",
                 "--single-epoch"]) == 0
    out = capsys.readouterr().out
    assert f"mu = {math.sqrt(6) / 2:.6g}" in out and "at most once" in out


@pytest.mark.parametrize("argv,needle", [
    (["tree", "--sigma", "0", "--steps", "5"], "--noise-multiplier"),
    (["tree", "--sigma", "1", "--steps", "-5"], "--steps"),
    (["tree", "--sigma", "1", "--steps", "5", "--delta", "1"], "--delta"),
    (["tree", "--sigma", "1", "--steps", "5", "--sensitivity", "-1"], "--sensitivity"),
])
def test_bad_input_is_one_line_exit_2(argv, needle, capsys):
    assert _run(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1
