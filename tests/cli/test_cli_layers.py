"""The command line sits on top: ``fdp.repro`` and the mechanisms do not import the
layers above them, and the behaviours that used to need those imports still work
(``python -m fdp.repro``, ``fdp.repro.main_for``, ``GaussianMechanism.calibrated``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "fdp"


def _imports(path: Path) -> set[str]:
    """Every module a file imports, function-local imports included."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return out


def _unit_imports(unit: str) -> set[str]:
    base = PKG / unit
    files = [p for p in base.rglob("*.py") if "scripts" not in p.parts] \
        if base.is_dir() else [base.with_suffix(".py")]
    return set().union(*(_imports(p) for p in files))


def test_repro_does_not_import_the_cli():
    assert not any(m == "fdp.cli" or m.startswith("fdp.cli.") for m in _unit_imports("repro"))


def test_mechanisms_do_not_import_calibration():
    assert not any(m.startswith("fdp.calibration") for m in _unit_imports("mechanisms"))


@pytest.mark.slow
def test_python_m_fdp_repro_is_fdp_repro():
    proc = subprocess.run([sys.executable, "-m", "fdp.repro", "--list", "drs_eps_delta"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("drs_eps_delta")
    bad = subprocess.run([sys.executable, "-m", "fdp.repro", "nope"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("fdp: error: unknown reproduction")


def test_main_for_runs_the_repro_command(capsys):
    from fdp.repro import main_for
    assert main_for("drs_eps_delta", ["--list"]) == 0
    assert "drs_eps_delta" in capsys.readouterr().out


def test_calibrated_mechanisms_work_from_a_fresh_interpreter():
    code = ("import fdp\n"
            "print(fdp.calibrate('gaussian', mu=0.5).mechanism.sigma, "
            "fdp.calibrate('laplace', epsilon=1.0, delta=0.0).mechanism.scale)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=120).stdout.split()
    assert float(out[0]) == 2.0                      # σ = Δ/μ exactly
    assert abs(float(out[1]) - 1.0) <= 1e-8          # b = Δ/ε for pure ε-DP
