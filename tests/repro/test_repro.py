"""fdp repro: every reproduction writes its figure and all its checks pass (fast mode)."""

from pathlib import Path

import pytest

from fdp import repro
from fdp.repro import Check, runner

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("figures")


@pytest.mark.parametrize("name", repro.names())
@pytest.mark.slow
def test_reproduction_passes_and_writes_its_figure(name, out_dir):
    result = repro.run_one(name, out_dir, fast=True)
    failed = [c for c in result.checks if c.verdict == "FAIL"]
    assert not failed, "\n".join(map(str, failed))
    assert len(result.checks) >= 2
    fig = out_dir / f"{name}.png"
    assert result.figure == fig and fig.stat().st_size > 10_000
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_script_has_metadata_and_lives_in_paper_repro():
    scripts = ROOT / "paper_repro"
    for name in repro.names():
        mod = repro.load(name)
        for attr in ("TITLE", "SOURCE", "CAPTION", "NAME", "run"):
            assert getattr(mod, attr), (name, attr)
        assert mod.NAME == name
        assert Path(mod.__file__) == scripts / f"{name}.py"
    # one script per registered reproduction, no unregistered one
    on_disk = {p.stem for p in scripts.glob("*.py") if not p.name.startswith("_")}
    assert on_disk == set(repro.names())
    # the installed package keeps only the runner: no second copy to drift
    package = Path(repro.__file__).parent
    assert not (package / "scripts").exists()
    assert sorted(p.name for p in package.glob("*.py")) == \
        ["__init__.py", "__main__.py", "_check.py", "command.py", "output.py", "runner.py"]


def test_scripts_are_found_from_a_subdirectory_and_beside_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT / "tests")
    assert repro.locate() == ROOT / "paper_repro"
    monkeypatch.chdir(tmp_path)                 # outside the checkout: beside fdp/
    assert repro.locate() == ROOT / "paper_repro"


def test_no_paper_repro_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    """An install without a checkout: ``fdp repro`` says where the scripts live, exit 2."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "__file__", str(tmp_path / "site" / "fdp" / "repro" / "x.py"))
    with pytest.raises(FileNotFoundError, match="paper_repro/") as info:
        repro.locate()
    assert "\n" not in str(info.value)
    from fdp.repro.command import main
    assert main(["--list"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "checkout" in err, err


def test_committed_gallery_lists_every_figure():
    readme = (ROOT / "figures" / "README.md").read_text(encoding="utf-8")
    for name in repro.names():
        assert f"({name}.png)" in readme
        assert (ROOT / "figures" / f"{name}.png").exists()


def test_gallery_is_written_from_the_registry(tmp_path):
    repro.run(["drs_eps_delta"], tmp_path, progress=False)
    text = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "![DRS §2.1: the trade-off function" in text and "drs_eps_delta.png" in text
    assert "drs_gdp_family" not in text     # only figures that exist are listed


def test_unknown_names_and_unwritable_directories_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown reproduction"):
        repro.run(["no_such_figure"], tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError, match="not a directory"):
        repro.run(["drs_eps_delta"], blocker)
    with pytest.raises(OSError, match="cannot write"):
        repro.run(["drs_eps_delta"], blocker / "sub")


def test_a_crashing_script_becomes_a_failed_row(tmp_path, monkeypatch):
    mod = repro.load("drs_eps_delta")

    def boom(out_dir, fast=False):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(mod, "run", boom)
    r = repro.run_one("drs_eps_delta", tmp_path)
    assert not r.passed and "kaboom" in r.checks[0].ours
    assert "FAIL" in repro.format_table([r])


def test_check_constructors():
    assert Check.close("s", "q", 1.0, 1.0 + 1e-9, atol=1e-8).passed
    assert not Check.close("s", "q", 1.0, 1.1, rtol=0.05).passed
    assert not Check.close("s", "q", 1.0, float("nan"), atol=1.0).passed
    assert Check.rounds_to("s", "q", "0.35", 0.3499).passed
    assert not Check.rounds_to("s", "q", "0.35", 0.3449).passed
    assert Check.rounds_to("s", "q", "1.45", 1.4464, mode="up").passed
    assert not Check.rounds_to("s", "q", "1.45", 1.4501, mode="up").passed
    assert not Check.rounds_to("s", "q", "1.45", 1.4399, mode="up").passed
    assert Check.rounds_to("s", "q", "1.5976", 1.59766, mode="truncate").passed
    assert not Check.rounds_to("s", "q", "1.5976", 1.59758, mode="truncate").passed
    with pytest.raises(ValueError, match="mode"):
        Check.rounds_to("s", "q", "1", 1.0, mode="sideways")
    assert Check.in_interval("s", "q", 6.59, 6.6, 6.5998).passed
    assert not Check.in_interval("s", "q", 6.59, 6.6, 6.6).passed
    assert Check.bracket_contains("s", "q", 1.0, 0.99, 1.01).passed
    assert not Check.bracket_contains("s", "q", 1.0, 1.001, 1.01).passed
    assert not Check.failed("s", "q", "why").passed


def test_format_table_has_one_row_per_check_and_a_summary():
    r = repro.Result("x", [Check.close("src", "a", 1.0, 1.0, atol=0.1),
                           Check.close("src", "b", 1.0, 2.0, atol=0.1)])
    table = repro.format_table([r], wide=True)
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["script", "source", "quantity"]
    assert sum(line.rstrip().endswith(("PASS", "FAIL")) for line in lines) == 2
    assert "1/2 checks passed" in table and "1 FAILED" in table


def test_progress_printer_writes_one_line_per_script(tmp_path):
    import io
    stream = io.StringIO()
    bar = repro.Progress(2, stream=stream)
    for name in ("a", "b"):
        bar.start(name)
        bar.finish(repro.Result(name, [Check.close("s", "q", 1, 1)], None, 0.1))
    assert stream.getvalue().splitlines() == ["[1/2] a: 1 checks, ok (0.1 s)",
                                              "[2/2] b: 1 checks, ok (0.1 s)"]


@pytest.mark.parametrize("name", ["drs_hypothesis_test", "drs_eps_delta",
                                  "drs_group_privacy"])
@pytest.mark.slow
def test_committed_figures_are_exactly_what_repro_writes(name, tmp_path):
    """Deterministic output: rerunning a (non-numeric) reproduction gives the committed
    bytes, and the committed gallery is the one write_gallery produces."""
    repro.run_one(name, tmp_path, fast=False)
    assert (tmp_path / f"{name}.png").read_bytes() == \
        (ROOT / "figures" / f"{name}.png").read_bytes()


def test_committed_gallery_is_generated(tmp_path):
    for name in repro.names():
        (tmp_path / f"{name}.png").write_bytes(b"")
    repro.write_gallery(tmp_path)
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == \
        (ROOT / "figures" / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["opacus_values", "bu_table4", "drs_composition_clt"])
def test_full_accuracy_reproductions(name, tmp_path):
    result = repro.run_one(name, tmp_path, fast=False)
    assert result.passed, "\n".join(map(str, result.checks))
