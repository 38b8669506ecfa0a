"""fdp last-iterate (fdp/cli/last_iterate.py), on a parser built here (not registered yet)."""

from __future__ import annotations

import math

import mpmath as mp
import pytest

from fdp.cli import last_iterate
from fdp.commandline import Parser, run_command


def _run(argv):
    p = Parser(prog="fdp")
    sub = p.add_subparsers(dest="command")
    last_iterate.add_parser(sub)
    return run_command(p, argv, lambda a: a.func(a))


BASE = ["last-iterate", "--noise", "4", "--lipschitz", "1", "--dataset-size", "50",
        "--steps", "1000", "--step-size", "0.1", "--smoothness", "1"]


def test_strongly_convex_prints_closed_form(capsys):
    assert _run([*BASE, "--strong-convexity", "0.5", "--delta", "1e-6"]) == 0
    out = capsys.readouterr().out
    a, c = mp.mpf(2) / 200, mp.mpf("0.95")
    mu = a * mp.sqrt((1 + c) / (1 - c) * (1 - c ** 1000) / (1 + c ** 1000))
    assert f"mu = {float(mu):.6g} (exact GDP)" in out
    assert f"mu = {float(a * mp.sqrt(1000)):.6g}," in out
    eps = [float(x.split()[0].rstrip(",")) for x in out.split("epsilon = ")[1:]]
    assert eps[0] < eps[1]


def test_constrained_convex(capsys):
    assert _run(["last-iterate", "--sigma", "8", "--lipschitz", "0.25", "--dataset-size",
                 "1", "--steps", "10000", "--step-size", "0.1", "--smoothness", "10",
                 "--diameter", "1"]) == 0
    out = capsys.readouterr().out
    assert f"mu = {math.sqrt(20) / 8:.6g} (exact GDP)" in out


def test_cyclic(capsys):
    assert _run(["last-iterate", "--noise", "1", "--lipschitz", "0.1", "--dataset-size",
                 "100", "--batches", "10", "--epochs", "100", "--step-size", "0.1",
                 "--smoothness", "1", "--strong-convexity", "0.1"]) == 0
    out = capsys.readouterr().out
    c, l, E, a = mp.mpf("0.99"), 10, 100, mp.mpf("0.02")
    mu = a * mp.sqrt(1 + c ** (2 * l - 2) * (1 - c ** 2) / (1 - c ** l) ** 2
                     * (1 - c ** (l * (E - 1))) / (1 + c ** (l * (E - 1))))
    assert "NoisyCGD" in out and f"mu = {float(mu):.6g} (exact GDP)" in out
    assert "mu = 0.2," in out


def test_cyclic_constrained(capsys):
    assert _run(["last-iterate", "--noise", "3", "--lipschitz", "0.25", "--dataset-size",
                 "10", "--batches", "10", "--epochs", "5000", "--step-size", "0.02",
                 "--smoothness", "50", "--diameter", "1"]) == 0
    out = capsys.readouterr().out
    star = math.sqrt(3 * 0.5 / (0.02 * 10) + 0.25 + 0.25 / 10 * 100) / 3   # BSA's μ*
    mu = float(out.split("mu = ")[1].split()[0])
    assert mu <= star * (1 + 1e-5) and "D=1" in out      # printed to 6 digits


@pytest.mark.parametrize("argv", [
    ["--batches", "10"],                                   # no --epochs
    ["--batches", "10", "--epochs", "3", "--steps", "4"],
    ["--epochs", "3"],
])
def test_cyclic_refusals(argv, capsys):
    base = [x for x in BASE if x not in ("--steps", "1000")]
    assert _run(base + (argv if argv[0] != "--epochs" else ["--steps", "5", *argv])) == 2
    err = capsys.readouterr().err
    assert ("--batches" in err or "--steps" in err) and err.count("\n") == 1


@pytest.mark.parametrize("extra,needle", [
    (["--strong-convexity", "2"], "--strong-convexity"),
    (["--step-size", "5"], "--step-size"),
    (["--diameter", "0"], "--diameter"),
    (["--delta", "1"], "--delta"),
])
def test_bad_input_is_one_line_exit_2(extra, needle, capsys):
    argv = list(BASE)
    if extra[0] in argv:
        i = argv.index(extra[0])
        argv[i + 1] = extra[1]
    else:
        argv += extra
    assert _run(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1
