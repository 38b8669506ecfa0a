"""fdp against dp_accounting over the DP-SGD grid, alternated, medians of per-pair ratios.

For every case (q, σ, T) a fresh Python process warms both libraries up, then runs
``--reps`` pairs alternating fdp and dp_accounting's ``PLDAccountant`` (its default
grid), timing each; the ratio of a pair is dp_accounting's time / fdp's, and the
table reports the median over pairs (above 1: fdp faster). Peak memory is the peak
resident set size of a further fresh process per case and library, which runs that
one computation once (imports included: ~100 MB for either library).

    python benchmarks/bench_grid.py                       # the whole grid (q, σ, T)
    python benchmarks/bench_grid.py --steps 1e3,1e5 --reps 5
    python benchmarks/bench_grid.py --extras              # T = 1e9, 1000 steps, physical limit
    python benchmarks/bench_grid.py --load 2              # the same under a known load

Machine state matters: ``--load N`` runs N busy processes (one pure-Python loop each)
for the whole measurement, so a loaded machine is a reproducible setting rather than
whatever else happened to run; the load average is printed before and after.

Quote numbers from an idle machine and from a loaded one, and set
OMP_NUM_THREADS / OPENBLAS_NUM_THREADS as you want both libraries to run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time

DELTA = 1e-5
QS = [256 / 60000, 0.01, 0.1]
SIGMAS = [0.6, 0.8, 1.1, 2.0]
STEPS = [10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7]


def run_fdp(sigma, q, steps):
    import fdp
    lo, hi = fdp.dpsgd(sigma, q, steps).epsilon_bounds(DELTA)
    return float(lo), float(hi)


def run_dpa(sigma, q, steps):
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps))
    return None, float(acc.get_epsilon(DELTA))


RUN = {"fdp": run_fdp, "dp_accounting": run_dpa}


def _child_pairs(sigma, q, steps, reps):
    run_fdp(1.0, 0.01, 10)
    run_dpa(1.0, 0.01, 10)
    out = {"fdp": [], "dp_accounting": [], "values": {}}
    for _ in range(reps):
        for name in ("fdp", "dp_accounting"):
            t = time.perf_counter()
            try:
                val = RUN[name](sigma, q, steps)
            except (MemoryError, ValueError) as err:
                val = repr(err)[:120]
            out[name].append(time.perf_counter() - t)
            out["values"][name] = val
    return out


def _child_distinct():
    """1000 distinct Poisson-subsampled Gaussians at the default: bracket and seconds."""
    import numpy as np

    import fdp
    load = os.getloadavg()[0]
    t = time.perf_counter()
    lo, hi = fdp.dpsgd(np.linspace(0.8, 1.4, 1000), 256 / 60000, 1000).epsilon_bounds(DELTA)
    import resource
    mb = [resource.getrusage(who).ru_maxrss / 1024.0
          for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return {"bracket": [float(lo), float(hi)], "s": time.perf_counter() - t, "load": load,
            "mb": mb}


def _child_memory(name, sigma, q, steps):
    import resource
    with contextlib.suppress(MemoryError, ValueError):
        RUN[name](sigma, q, steps)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0    # MB (Linux: KB)


def _spawn(args):
    res = subprocess.run([sys.executable, __file__, "--child", json.dumps(args)],
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def busy(n: int):
    """n processes spinning a pure-Python loop while the block runs (a known load)."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
             for _ in range(n)]
    try:
        if n:
            time.sleep(60.0)        # the 1-minute load average (what fdp reads) catches up
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def grid(qs, sigmas, steps_list, reps, memory=True):
    print("| q | σ | T | fdp ε bracket | width | dp_accounting ε | fdp s | dpa s "
          "| speed-up (median of pairs) | fdp MB | dpa MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for q in qs:
        for sigma in sigmas:
            for steps in steps_list:
                r = _spawn(["pairs", sigma, q, steps, reps])
                pair = [b / a for a, b in zip(r["fdp"], r["dp_accounting"])]
                ratio = median(pair)
                ratios.append(ratio)
                v = r["values"]
                if isinstance(v["fdp"], str):
                    br, width = v["fdp"], ""
                else:
                    br = f"[{v['fdp'][0]:.4f}, {v['fdp'][1]:.4f}]"
                    width = f"{v['fdp'][1] - v['fdp'][0]:.1e}"
                dv = v["dp_accounting"]
                dv = dv if isinstance(dv, str) else f"{dv[1]:.4f}"
                mem_f = mem_d = float("nan")
                if memory:
                    mem_f = _spawn(["memory", "fdp", sigma, q, steps])
                    mem_d = _spawn(["memory", "dp_accounting", sigma, q, steps])
                qs_ = "256/60000" if q == 256 / 60000 else f"{q:g}"
                print(f"| {qs_} | {sigma:g} | {steps:.0e} | {br} | {width} | {dv} | "
                      f"{median(r['fdp']):.2f} | {median(r['dp_accounting']):.2f} | "
                      f"{ratio:.2f}× | {mem_f:.0f} | {mem_d:.0f} |", flush=True)
    if ratios:
        print(f"\nmedian ratio over {len(ratios)} cases {median(ratios):.2f}×, "
              f"min {min(ratios):.2f}×, max {max(ratios):.2f}×")


def extras():
    import numpy as np
    from scipy import fft

    import fdp
    q = 256 / 60000
    t = time.perf_counter()
    lo, hi = fdp.dpsgd(1.1, q, 10 ** 9).epsilon_bounds(DELTA)
    print(f"T = 1e9, σ = 1.1, q = 256/60000: ε ∈ [{lo:.2f}, {hi:.2f}], "
          f"{time.perf_counter() - t:.1f} s, peak "
          f"{_spawn(['memory', 'fdp', 1.1, q, 10 ** 9]):.0f} MB (fresh process)")
    runs = [_spawn(["distinct"]) for _ in range(3)]          # a fresh process each
    lo, hi = runs[0]["bracket"]
    print(f"1000 distinct steps (σ 0.8..1.4), default tol: ε ∈ [{lo:.5f}, {hi:.5f}] "
          f"(width {hi - lo:.1e}), median {median([r['s'] for r in runs]):.1f} s of "
          f"{', '.join(format(r['s'], '.1f') for r in runs)} s (fresh processes, load "
          f"{runs[0]['load']:.2f} at the first); peak {runs[0]['mb'][0]:.0f} MB, its "
          f"worker process {runs[0]['mb'][1]:.0f} MB")
    for sigma in SIGMAS:
        ts, phys = [], []
        for _ in range(3):
            t = time.perf_counter()
            r = fdp.dpsgd(sigma, q, 10 ** 5)
            r.epsilon_bounds(DELTA)
            ts.append(time.perf_counter() - t)
            n = max(lat.q.size for lat in r.pess)
            m = fft.next_fast_len(n, real=True)
            x = np.random.default_rng(0).random(n)
            t = time.perf_counter()
            fft.irfft(fft.rfft(x, m), m)
            phys.append(time.perf_counter() - t)
        print(f"physical limit, σ = {sigma:g}, T = 1e5: fdp {median(ts):.3f} s = "
              f"{median(ts) / median(phys):.1f}× one real FFT + inverse of its final "
              f"lattice ({n:,} points, {median(phys) * 1e3:.1f} ms)")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        args = json.loads(sys.argv[2])
        if args[0] == "pairs":
            print(json.dumps(_child_pairs(*args[1:])))
        elif args[0] == "distinct":
            print(json.dumps(_child_distinct()))
        else:
            print(json.dumps(_child_memory(*args[1:])))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qs", default=None, help="comma list of q (default: the grid)")
    ap.add_argument("--sigmas", default=None)
    ap.add_argument("--steps", default=None, help="comma list of T, e.g. 1e3,1e5")
    ap.add_argument("--reps", type=int, default=3, help="alternated pairs per case")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--extras", action="store_true")
    ap.add_argument("--load", type=int, default=0,
                    help="busy processes running alongside the measurement (default 0)")
    a = ap.parse_args()
    qs = [eval(x, {}) for x in a.qs.split(",")] if a.qs else QS   # "256/60000" allowed
    sigmas = [float(x) for x in a.sigmas.split(",")] if a.sigmas else SIGMAS
    steps = [int(float(x)) for x in a.steps.split(",")] if a.steps else STEPS
    with busy(a.load):
        print(f"load average at start: {_load()} ({a.load} busy processes added, "
              f"{os.cpu_count()} cores)\n", flush=True)
        if a.extras:
            extras()
        else:
            grid(qs, sigmas, steps, a.reps, memory=not a.no_memory)
        print(f"\nload average at end: {_load()}")


if __name__ == "__main__":
    main()
