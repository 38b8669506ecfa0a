"""Cost of ``import fdp`` against its floor, ``import numpy, scipy.special, scipy.fft``.

Each import runs in a fresh interpreter and is timed by wall clock around the whole
process. An empty interpreter (``python -c pass``) is timed as well, so that two
ratios are printed: of the whole process (what a user waits for) and of the imports
alone (start-up subtracted, the stricter one). The three commands alternate, so that
a busy machine slows them alike; medians are reported.

    python benchmarks/bench_import.py [--runs N]

Target: the ratio stays at most 1.5 (``import fdp`` loads scipy.stats, sympy,
matplotlib and mpmath only on first use of a name that needs them).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "import numpy, scipy.special, scipy.fft"
FDP = "import fdp"
EMPTY = "pass"


def _once(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    return time.perf_counter() - t0


def measure(runs: int = 11) -> tuple[float, float, float]:
    """Median wall times (seconds) of an empty interpreter, the baseline and ``import fdp``."""
    _once(BASELINE), _once(FDP)          # warm the file cache
    empty, base, ours = [], [], []
    for _ in range(runs):
        empty.append(_once(EMPTY))
        base.append(_once(BASELINE))
        ours.append(_once(FDP))
    return statistics.median(empty), statistics.median(base), statistics.median(ours)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs of each (default 11)")
    args = parser.parse_args(argv)
    empty, base, ours = measure(args.runs)
    for code, t in ((EMPTY, empty), (BASELINE, base), (FDP, ours)):
        print(f"python -c {code!r:<42} {1000 * t:8.1f} ms (median of {args.runs})")
    print(f"ratio, whole process:        {ours / base:.2f} (target <= 1.5)")
    print(f"ratio, imports only:         {(ours - empty) / (base - empty):.2f} (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
