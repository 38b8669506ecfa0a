"""The ``fdp`` command checks its output formats and counts before computing: an image
suffix matplotlib cannot write and a count that is not a whole number are one line
(exit status 2) with nothing computed; integer-valued floats (``1e12``) are counts."""

from __future__ import annotations

import argparse

import pytest

import fdp
from fdp.cli import main
from fdp.cli._checks import image_file, image_formats, whole_number


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


BASE = ("dpsgd", "--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "100")
EPOCHS = ("dpsgd", "--noise-multiplier", "1.1", "--epochs", "1", "--dataset-size", "600",
          "--batch-size", "6")


@pytest.fixture
def nothing_computed(monkeypatch):
    """Every entry the commands compute through fails the test if it is reached."""
    import fdp.plotting
    import fdp.sgd.allocation
    import fdp.sgd.report
    import fdp.sgd.shuffle
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", _no_compute)
    monkeypatch.setattr(fdp.sgd.clt, "dpsgd_clt_mu", _no_compute)
    monkeypatch.setattr(fdp.sgd.allocation, "from_dpsgd", _no_compute)
    monkeypatch.setattr(fdp.sgd.shuffle, "from_dpsgd", _no_compute)
    monkeypatch.setattr(fdp.sgd.report, "compare_samplers", _no_compute)
    monkeypatch.setattr(fdp.plotting, "plot", _no_compute)


@pytest.mark.parametrize("argv, flag", [
    (BASE + ("--plot", "out.txt"), "--plot"),
    (BASE + ("--plot", "out"), "--plot"),
    (BASE + ("--sampling", "random_allocation", "--plot", "out.xyz"), "--plot"),
    (BASE + ("--sampling", "shuffle", "--plot", "out.doc"), "--plot"),
    (EPOCHS + ("--compare-samplers", "--plot", "table.csv"), "--plot"),
    (("plot", "gaussian:1", "--out", "x.xyz"), "--out"),
    (("plot", "laplace:1^100", "--out", "x"), "--out"),
])
def test_an_output_format_matplotlib_cannot_write_is_refused_first(
        capsys, nothing_computed, tmp_path, argv, flag):
    argv = tuple(str(tmp_path / a) if a.startswith(("out", "x", "table")) else a
                 for a in argv)
    code, out, err = run(capsys, *argv)
    assert_one_line_error(code, err, flag, "matplotlib writes", "png")
    assert out == ""
    assert list(tmp_path.iterdir()) == []          # the probe left nothing behind


def test_image_formats_are_matplotlibs_and_every_one_passes(tmp_path):
    from matplotlib.backend_bases import FigureCanvasBase
    formats = image_formats()
    assert set(formats) <= set(FigureCanvasBase.get_supported_filetypes())
    assert {"png", "pdf", "svg", "eps"} <= set(formats)
    for fmt in ("png", "PDF", "svg"):
        assert image_file("--out", str(tmp_path / f"a.{fmt}")).name == f"a.{fmt}"


def test_a_supported_format_is_written(capsys, tmp_path):
    target = tmp_path / "g.pdf"
    code, out, err = run(capsys, "plot", "gaussian:1", "--out", str(target))
    assert code == 0, err
    assert target.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("text, value", [
    ("14060", 14060), ("1e12", 10 ** 12), ("14060.0", 14060), ("2E3", 2000), ("-3", -3),
])
def test_whole_numbers_accept_integer_valued_floats(text, value):
    got = whole_number(text)
    assert got == value and type(got) is int


@pytest.mark.parametrize("text", ["1.5", "1e-3", "inf", "nan", "abc", ""])
def test_whole_numbers_refuse_the_rest(text):
    with pytest.raises(argparse.ArgumentTypeError, match="whole number"):
        whole_number(text)


def test_steps_1e12_reaches_the_accountant_as_an_int(capsys, monkeypatch):
    seen = {}

    def stop(sigma, q, steps, **kwargs):
        seen["steps"] = steps
        raise MemoryError("stopped here by the test")
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", stop)
    code, _, err = run(capsys, "dpsgd", "--noise-multiplier", "1.1", "--sample-rate",
                       "0.01", "--steps", "1e12")
    assert_one_line_error(code, err, "stopped here by the test")
    assert seen["steps"] == 10 ** 12 and type(seen["steps"]) is int


@pytest.mark.parametrize("flag, value", [
    ("--steps", "1.5"), ("--dataset-size", "600.5"), ("--batch-size", "1e-1"),
    ("--batch-cap", "2.5"),
])
def test_counts_that_are_not_whole_are_one_line(capsys, nothing_computed, flag, value):
    argv = BASE if flag == "--steps" else EPOCHS
    argv = tuple(value if (a == "100" and flag == "--steps") else a for a in argv)
    if flag != "--steps":
        argv = argv + (flag, value)
    code, out, err = run(capsys, *argv)
    assert_one_line_error(code, err, flag, "whole number", repr(value))
    assert out == ""


def test_epochs_form_takes_float_written_counts(capsys, monkeypatch):
    seen = {}

    def stop(sigma, q, steps, **kwargs):
        seen.update(q=q, steps=steps)
        raise MemoryError("stopped here by the test")
    monkeypatch.setattr(fdp.sgd.certified, "dpsgd", stop)
    code, _, err = run(capsys, "dpsgd", "--noise-multiplier", "1.1", "--epochs", "2",
                       "--dataset-size", "6e4", "--batch-size", "256.0")
    assert code == 2 and "stopped here" in err
    assert seen == {"q": 256 / 60000, "steps": 469}       # ceil(2 · 60000 / 256)
