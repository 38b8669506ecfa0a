"""A fresh install (README's ``pip install -e '.[dev]'``, no peers): every check that needs
an optional package is SKIPPED naming the extra that installs it, never FAIL and never
counted as passed; a missing part of fdp itself is still a FAIL.

Independent truth: pyproject.toml's own extras (which extra lists which peer), and the
scripts run with the peer hidden (``sys.modules[name] = None`` makes its import fail
exactly as on a machine without it).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import tomllib

from fdp import repro
from fdp.repro import PEER_EXTRAS, Check

ROOT = Path(__file__).resolve().parents[2]


def test_every_peer_is_in_the_extra_named_for_it():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    dist = {"sklearn": "scikit-learn", "distributed": "dask"}
    for module, extra in PEER_EXTRAS.items():
        wanted = dist.get(module, module.replace("_", "-"))
        listed = [re.split(r"[\[<>=~ ]", r, maxsplit=1)[0] for r in extras[extra]]
        assert wanted in listed, (module, extra, listed)


def test_a_missing_peer_is_skipped_naming_its_extra_and_a_missing_fdp_part_fails():
    skip = Check.needs("src", "q", "dp_accounting.dp_event")
    assert skip.verdict == "SKIPPED" and not skip.passed
    assert skip.ours == "needs dp_accounting: pip install 'fdp[interop]'"
    fail = Check.needs("src", "q", "fdp.engine")
    assert fail.verdict == "FAIL" and not fail.skipped
    table = repro.format_table([repro.Result("x", [Check.close("s", "a", 1, 1), skip])])
    assert table.splitlines()[-1] == ("1/1 checks passed in 1 reproductions; 1 SKIPPED "
                                      "(pip install 'fdp[interop]')")
    assert "FAIL" not in table
    table = repro.format_table([repro.Result("x", [Check.close("s", "a", 1, 1), fail])])
    assert "0/1 checks passed" not in table and "1 FAILED" in table


@pytest.mark.parametrize("module, verdict", [("dp_accounting", "SKIPPED"),
                                             ("fdp.no_such_part", "FAIL")])
def test_a_script_whose_import_fails_is_a_row_not_a_crash(module, verdict, tmp_path,
                                                          monkeypatch):
    mod = repro.load("drs_eps_delta")

    def needs(out_dir, fast=False):
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)

    monkeypatch.setattr(mod, "run", needs)
    r = repro.run_one("drs_eps_delta", tmp_path)
    assert [c.verdict for c in r.checks] == [verdict]
    assert r.passed is (verdict == "SKIPPED")


def test_mf_correlated_noise_without_dp_accounting_has_no_failed_row(tmp_path, monkeypatch):
    """The row a fresh install reported as FAILED (issue 41): the tree RDP check against
    dp_accounting, run here with dp_accounting hidden."""
    for name in [m for m in sys.modules if m.split(".")[0] == "dp_accounting"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    r = repro.run_one("mf_correlated_noise", tmp_path, fast=True)
    verdicts = [c.verdict for c in r.checks]
    assert "FAIL" not in verdicts, repro.format_table([r])
    assert verdicts.count("SKIPPED") == 1 and r.passed
    assert "FAILED" not in repro.format_table([r])
