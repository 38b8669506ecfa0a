"""``import fdp`` stays light: the heavy optional layers load on first use only.

A property test, not a timing (``benchmarks/bench_import.py`` measures the time):
in a fresh interpreter, ``import fdp`` must not import scipy.stats, sympy,
matplotlib, mpmath or the numeric engine, and the lazy names must still resolve.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("scipy.stats", "sympy", "matplotlib", "mpmath", "fdp.engine")


def _loaded_after(code: str, modules=HEAVY) -> list[str]:
    probe = (f"import sys, json\n{code}\n"
             f"print(json.dumps([m for m in {list(modules)!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_fdp_does_not_load_heavy_modules():
    assert _loaded_after("import fdp") == []


def test_closed_forms_and_the_mechanisms_stay_light():
    code = ("import fdp, fdp.mechanisms\n"
            "g = fdp.Gaussian(1.0) @ fdp.Gaussian(1.0)\n"
            "print(g.epsilon(1e-5), fdp.gdp_mu_for_eps_delta(1.0, 1e-5))")
    assert _loaded_after(code) == []


def test_a_lazy_name_loads_its_layer():
    assert "fdp.engine" in _loaded_after("import fdp; fdp.compose_numeric")


def test_a_dpsgd_answer_loads_neither_scipy_stats_nor_signal():
    # the certified DP-SGD path (engine, read-back) needs scipy.special and scipy.fft
    # only: scipy.signal (and the scipy.stats it imports) added ≈ 47 MB to every
    # process's peak memory
    code = "import fdp\nprint(fdp.dpsgd(1.1, 0.01, 100).epsilon_bounds(1e-5))"
    assert _loaded_after(code, ("scipy.stats", "scipy.signal")) == []
