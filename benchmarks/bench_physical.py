"""fdp's DP-SGD composition against the physical limit of its own method.

The physical limit of a case is one real FFT and its inverse on the final lattice's
length (``next_fast_len``), single-threaded: what any FFT accountant must pay at
least once. For each σ (q = 256/60000, T = 10⁵, δ = 1e-5) this times
``fdp.dpsgd(σ, q, T).epsilon_bounds(δ)`` end to end (composition of both sides and
both directions, then the ε read-back) and reports the ratio of medians, with the
composition and read-back split out.

    python benchmarks/bench_physical.py                   # as configured (threads if idle)
    python benchmarks/bench_physical.py --serial          # one thread
    python benchmarks/bench_physical.py --load 2          # with 2 busy-loop processes
    python benchmarks/bench_physical.py --profile         # cProfile of one serial run per σ
    python benchmarks/bench_physical.py --floor           # the method's own floor per σ

Run with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 for numbers comparable to
RESULTS.md.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import subprocess
import sys
import time
from statistics import median

Q = 256 / 60000
STEPS = 10 ** 5
DELTA = 1e-5
SIGMAS = [0.6, 0.8, 1.1, 2.0]


def physical(n: int, reps: int) -> float:
    """Median seconds of one real FFT + inverse of length next_fast_len(n)."""
    import numpy as np
    from scipy import fft
    m = fft.next_fast_len(n, real=True)
    x = np.random.default_rng(0).random(n)
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fft.irfft(fft.rfft(x, m), m)
        ts.append(time.perf_counter() - t)
    return median(ts)


def case(sigma: float, reps: int) -> tuple:
    import fdp
    fdp.dpsgd(sigma, Q, 10 ** 3).epsilon_bounds(DELTA)          # warm-up
    total, comp, read, phys = [], [], [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = fdp.dpsgd(sigma, Q, STEPS)
        t1 = time.perf_counter()
        lo, hi = r.epsilon_bounds(DELTA)
        t2 = time.perf_counter()
        total.append(t2 - t0)
        comp.append(t1 - t0)
        read.append(t2 - t1)
        n = max(lat.q.size for lat in r.pess)
        phys.append(physical(n, 1))
    return (lo, hi, n, median(total), median(comp), median(read), median(phys))


def floor(sigma: float, reps: int) -> None:
    """The floor of fdp's method for one case, next to the physical limit.

    A certified ε bracket of add/remove DP-SGD composes four lattices (pessimistic and
    optimistic side, add and remove direction), each by one real FFT and its inverse
    on the power's Chernoff window. This times, alternated in one process:

    * the limit: one pair on the final lattice's length;
    * the four pairs alone, at the windows fdp uses, on two threads (nothing else);
    * the per-step discretisation of both directions, both sides (serially: it is
      mostly short array operations that hold the GIL).

    It also prints why one composition cannot serve both directions: the
    Bhattacharyya measure q·e^{−l/2} composes to R with Q = R·e^{L/2} and
    P = R·e^{−L/2}, so reading the add direction at ε multiplies R's certified
    round-off by at least e^{ε/2}; that product is shown next to δ.
    """
    import dataclasses
    import math
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    from scipy import fft

    import fdp
    from fdp.engine import composition, convolution, pipeline
    from fdp.operations.subsample import PoissonAdd

    r = fdp.dpsgd(sigma, Q, STEPS)
    eps_hi = r.epsilon_bounds(DELTA)[1]
    n = max(lat.q.size for lat in r.pess)
    groups = [(PoissonAdd(fdp.Gaussian(1.0 / sigma), Q), STEPS)]
    tau = pipeline.power_tau(STEPS)
    directions = composition._both_directions(groups, r.step, None)
    sizes = []
    for parts in directions:
        for lat in parts[0][:2]:
            a, b = convolution._tail_window(lat, STEPS, tau)
            sizes.append(fft.next_fast_len(b - a + 1, real=True))
    rng = np.random.default_rng(0)
    xs = [rng.random(m) for m in sizes]
    x0 = rng.random(n)
    m0 = fft.next_fast_len(n, real=True)

    def pair(x, m):
        fft.irfft(fft.rfft(x, m), m)

    lim, four, disc = [], [], []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for _ in range(reps):
            t = time.perf_counter()
            pair(x0, m0)
            lim.append(time.perf_counter() - t)
            t = time.perf_counter()
            for job in [pool.submit(pair, x, m) for x, m in zip(xs, sizes)]:
                job.result()
            four.append(time.perf_counter() - t)
            t = time.perf_counter()
            composition._both_directions(groups, r.step, None)
            disc.append(time.perf_counter() - t)
    add_p = directions[0][0][0]
    bhat = dataclasses.replace(add_p, q=add_p.q * np.exp(-add_p.losses / 2), q_inf=0.0,
                               slack=0.0)
    noise = convolution.power(bhat, STEPS, tau).noise * math.exp(eps_hi / 2)
    unit = median(lim)
    print(f"σ = {sigma:g}: limit {unit * 1e3:.2f} ms ({n:,} points); four transform pairs "
          f"at the windows {', '.join(f'{m:,}' for m in sizes)} on two threads "
          f"{median(four) * 1e3:.2f} ms = {median(four) / unit:.2f}×; per-step "
          f"discretisation, both directions {median(disc) * 1e3:.2f} ms = "
          f"{median(disc) / unit:.2f}×; one composition read in both directions: "
          f"round-off × e^(ε/2) ≥ {noise:.2g} at ε = {eps_hi:.2f} (δ = {DELTA:g})",
          flush=True)


def compare(sigma: float, reps: int) -> None:
    """Serial against forced threads, alternated in one process (load average shown)."""
    import os

    import fdp
    from fdp.engine import composition, pipeline, readback
    idle = composition._idle_core
    fdp.dpsgd(sigma, Q, 10 ** 3).epsilon_bounds(DELTA)
    ser, thr = [], []
    for _ in range(reps):
        for lanes, out in ((1, ser), (2, thr)):
            composition.LANES = lanes
            pipeline.CONCURRENT_SIDES = lanes > 1
            composition._idle_core = pipeline._idle_core = lambda: True
            readback._idle_core = (lambda: True) if lanes > 1 else (lambda: False)
            t = time.perf_counter()
            fdp.dpsgd(sigma, Q, STEPS).epsilon_bounds(DELTA)
            out.append(time.perf_counter() - t)
    composition._idle_core = pipeline._idle_core = readback._idle_core = idle
    ratio = median(s / t for s, t in zip(ser, thr))
    print(f"σ = {sigma:g}: serial {median(ser) * 1e3:.1f} ms, threads {median(thr) * 1e3:.1f} "
          f"ms, median serial/threads {ratio:.2f} (load average {os.getloadavg()[0]:.1f})",
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sigmas", default=None, help="comma list of σ")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--serial", action="store_true", help="no threads")
    ap.add_argument("--threads", action="store_true",
                    help="threads even on a busy machine (skip the idle-core check)")
    ap.add_argument("--load", type=int, default=0, help="busy-loop processes alongside")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--floor", action="store_true",
                    help="the method's floor: four transform pairs on two threads, the "
                         "per-step discretisation, one composition for both directions")
    ap.add_argument("--compare", action="store_true",
                    help="alternate serial and forced-threads runs; median per-pair ratio")
    a = ap.parse_args()
    sigmas = [float(s) for s in a.sigmas.split(",")] if a.sigmas else SIGMAS
    from fdp.engine import composition, pipeline, readback
    if a.serial:
        composition.LANES = 1
        pipeline.CONCURRENT_SIDES = False
        readback._idle_core = lambda: False
    if a.threads:
        composition._idle_core = pipeline._idle_core = readback._idle_core = lambda: True
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(a.load)]
    try:
        if a.load:
            time.sleep(1.0)
        for sigma in sigmas:
            if a.compare:
                compare(sigma, a.reps)
                continue
            if a.floor:
                floor(sigma, a.reps)
                continue
            if a.profile:
                import fdp
                composition.LANES = 1
                pipeline.CONCURRENT_SIDES = False
                readback._idle_core = lambda: False
                fdp.dpsgd(sigma, Q, 10 ** 3).epsilon_bounds(DELTA)
                pr = cProfile.Profile()
                pr.enable()
                fdp.dpsgd(sigma, Q, STEPS).epsilon_bounds(DELTA)
                pr.disable()
                print(f"--- σ = {sigma:g} (serial)")
                pstats.Stats(pr).sort_stats("tottime").print_stats(20)
                continue
            lo, hi, n, tot, comp, read, phys = case(sigma, a.reps)
            print(f"σ = {sigma:g}: ε ∈ [{lo:.4f}, {hi:.4f}]; {tot * 1e3:.1f} ms "
                  f"(compose {comp * 1e3:.1f}, read-back {read * 1e3:.1f}) = "
                  f"{tot / phys:.1f}× one real FFT + inverse of {n:,} points "
                  f"({phys * 1e3:.2f} ms)", flush=True)
    finally:
        for h in hogs:
            h.kill()
            h.wait()


if __name__ == "__main__":
    main()
