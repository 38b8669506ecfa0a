"""ε over training: ``fdp.sgd.trajectory`` against one ``fdp.dpsgd`` and against
dp_accounting's ``PLDAccountant`` called once per point.

For every case (σ, q, T) a fresh Python process warms the libraries up, then runs
``--reps`` rounds, each timing, in turn: the trajectory of ``--points`` evenly spaced
step counts up to T; one ``fdp.dpsgd(σ, q, T).epsilon_bounds(δ)`` (the largest T
alone); and dp_accounting's PLD accountant (its default grid) at every
``--dpa-every``-th point of the trajectory, scaled by that factor to the whole
trajectory (dp_accounting composes each T from scratch, so its time per point
barely depends on T; the ratio says how it was estimated). Reported are the medians
over rounds of the per-round ratios. Peak memory is the peak resident set size of a
further fresh process per computation (imports included).

    python benchmarks/bench_trajectory.py                   # the two cases, 3 rounds
    python benchmarks/bench_trajectory.py --reps 5 --dpa-every 5
    python benchmarks/bench_trajectory.py --cases 1.1:0.0042667:100000

Machine state matters (other jobs share the cores): the load average is printed
before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

DELTA = 1e-5
CASES = [(1.1, 256 / 60000, 100_000), (0.8, 0.01, 10_000)]


def run_trajectory(sigma, q, steps, points):
    import fdp.sgd
    return fdp.sgd.trajectory(sigma, q, steps, DELTA, points=points)


def run_single(sigma, q, steps):
    import fdp
    return fdp.dpsgd(sigma, q, steps).epsilon_bounds(DELTA)


def run_dpa(sigma, q, steps):
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps))
    return float(acc.get_epsilon(DELTA))


def _timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def _child_rounds(sigma, q, steps, points, reps, every):
    run_trajectory(1.0, 0.01, 20, 4)
    run_single(1.0, 0.01, 10)
    run_dpa(1.0, 0.01, 10)
    rounds = []
    agree = None
    for _ in range(reps):
        t_traj, tr = _timed(run_trajectory, sigma, q, steps, points)
        t_one, b = _timed(run_single, sigma, q, steps)
        sub = [int(t) for t in tr.steps[every - 1::every]]
        t_dpa = 0.0
        dpa = []
        for t in sub:
            dt, e = _timed(run_dpa, sigma, q, t)
            t_dpa += dt
            dpa.append(e)
        scale = len(tr.steps) / len(sub)
        rounds.append({"traj": t_traj, "single": t_one, "dpa": t_dpa * scale,
                       "dpa_points": len(sub)})
        agree = {"last": [float(tr.lower[-1]), float(tr.upper[-1])],
                 "single": [float(b.lo), float(b.hi)], "points": len(tr.steps),
                 "dpa_vs_upper": max(e - float(tr.upper[list(tr.steps).index(t)])
                                     for t, e in zip(sub, dpa))}
    return {"rounds": rounds, "agree": agree, "load": os.getloadavg()[0]}


def _child_memory(kind, sigma, q, steps, points):
    if kind == "trajectory":
        run_trajectory(sigma, q, steps, points)
    else:
        run_single(sigma, q, steps)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _spawn(args):
    # the fdp of this checkout (not whatever is installed)
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    res = subprocess.run([sys.executable, __file__, "--child", json.dumps(args)],
                         capture_output=True, text=True, check=True, env=env)
    return json.loads(res.stdout.strip().splitlines()[-1])


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        args = json.loads(sys.argv[2])
        fn = _child_rounds if args[0] == "rounds" else _child_memory
        print(json.dumps(fn(*args[1:])))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=None, help="comma list of sigma:q:T")
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3, help="rounds per case")
    ap.add_argument("--dpa-every", type=int, default=10,
                    help="time dp_accounting at every k-th point and scale by k")
    ap.add_argument("--no-memory", action="store_true")
    a = ap.parse_args()
    cases = CASES if a.cases is None else [
        (float(s), float(eval(q, {})), int(float(t)))
        for s, q, t in (c.split(":") for c in a.cases.split(","))]
    print(f"load average at start: {_load()} ({os.cpu_count()} cores)\n", flush=True)
    print("| σ | q | T | points | fdp trajectory s | one fdp.dpsgd(T) s | trajectory / one "
          "(median) | dp_accounting, all points s (est.) | dp_accounting / trajectory (median) "
          "| ε at T: trajectory | ε at T: dpsgd | traj MB | one MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for sigma, q, steps in cases:
        r = _spawn(["rounds", sigma, q, steps, a.points, a.reps, a.dpa_every])
        rs = r["rounds"]
        slow = statistics.median(x["traj"] / x["single"] for x in rs)
        fast = statistics.median(x["dpa"] / x["traj"] for x in rs)
        mem_t = mem_s = float("nan")
        if not a.no_memory:
            mem_t = _spawn(["memory", "trajectory", sigma, q, steps, a.points])
            mem_s = _spawn(["memory", "single", sigma, q, steps, a.points])
        g = r["agree"]
        qs = "256/60000" if q == 256 / 60000 else f"{q:g}"
        print(f"| {sigma:g} | {qs} | {steps:.0e} | {g['points']} | "
              f"{statistics.median(x['traj'] for x in rs):.2f} | "
              f"{statistics.median(x['single'] for x in rs):.3f} | {slow:.1f}× | "
              f"{statistics.median(x['dpa'] for x in rs):.1f} ({rs[0]['dpa_points']} timed) | "
              f"{fast:.1f}× | [{g['last'][0]:.4f}, {g['last'][1]:.4f}] | "
              f"[{g['single'][0]:.4f}, {g['single'][1]:.4f}] | {mem_t:.0f} | {mem_s:.0f} |",
              flush=True)
        print(f"  (load average in the case's process at its end: {r['load']:.2f}; largest "
              f"dp_accounting ε minus fdp's certified upper end at the timed points: "
              f"{g['dpa_vs_upper']:.2e})", flush=True)
    print(f"\nload average at end: {_load()}")


if __name__ == "__main__":
    main()
