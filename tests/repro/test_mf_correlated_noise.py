"""paper_repro/mf_correlated_noise.py: every check passes and the figure is written (fast)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mf_correlated_noise_fast(tmp_path):
    sys.path.insert(0, str(ROOT))
    try:
        mod = importlib.import_module("paper_repro.mf_correlated_noise")
    finally:
        sys.path.remove(str(ROOT))
    checks = mod.run(tmp_path, fast=True)
    failed = [c for c in checks if c.verdict == "FAIL"]
    assert not failed, "\n".join(map(str, failed))
    assert len(checks) >= 8 - sum(1 for c in checks if c.skipped)   # 2 need dp_accounting
    png = tmp_path / f"{mod.NAME}.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000
