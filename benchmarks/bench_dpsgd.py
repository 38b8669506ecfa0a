"""DP-SGD accounting: fdp's certified bracket next to dp_accounting and prv_accountant.

Runs every accountant in this one process, one case at a time, and prints the
ε bracket (or estimate), wall time, peak traced memory (tracemalloc, numpy
allocations included) and fdp's speed-up. The peers are optional: install them
with ``pip install fdp[bench]`` (dp-accounting, prv-accountant); missing ones
are skipped. Usage::

    python benchmarks/bench_dpsgd.py            # the full table (slow: peers take minutes)
    python benchmarks/bench_dpsgd.py --quick    # fdp only, plus the extra targets
    python benchmarks/bench_dpsgd.py --only fdp,dp_accounting --cases 0.7:14060
"""

from __future__ import annotations

import argparse
import functools
import time
import tracemalloc

import numpy as np

Q = 256 / 60000
DELTA = 1e-5
CASES = [(0.7, 1000), (0.7, 14060), (0.7, 100000), (1.1, 1000), (1.1, 14060), (1.1, 100000)]


def measure(fn):
    """(result, seconds, peak MB): timed untraced, then rerun under tracemalloc
    (numpy allocations included) for the memory peak, since tracing slows numpy."""
    t = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, dt, peak


def run_fdp(sigma, steps):
    import fdp
    r = fdp.dpsgd(sigma, Q, steps)
    lo, hi = r.epsilon_bounds(DELTA)
    return lo, hi


def run_dp_accounting(sigma, steps):
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    acc = pld_privacy_accountant.PLDAccountant()     # default grid, pessimistic only
    ev = dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(sigma))
    acc.compose(dp_event.SelfComposedDpEvent(ev, steps))
    return None, acc.get_epsilon(DELTA)


def run_prv(sigma, steps):
    from prv_accountant.dpsgd import DPSGDAccountant
    acc = DPSGDAccountant(noise_multiplier=sigma, sampling_probability=Q,
                          eps_error=0.01, delta_error=DELTA / 1000, max_steps=steps)
    lo, _, hi = acc.compute_epsilon(delta=DELTA, num_steps=steps)
    return lo, hi


PEERS = {"fdp": run_fdp, "dp_accounting": run_dp_accounting, "prv_accountant": run_prv}


def available(name):
    if name == "fdp":
        return True
    try:
        __import__({"dp_accounting": "dp_accounting", "prv_accountant": "prv_accountant"}[name])
        return True
    except ImportError:
        return False


def fmt(x):
    return "   -    " if x is None else f"{x:8.4f}"


def warm_up(names):
    """Imports and first calls outside the timed region."""
    import fdp
    fdp.dpsgd(1.0, Q, 10).epsilon_bounds(DELTA)
    for name in names:
        if name != "fdp" and available(name):
            PEERS[name](1.0, 10)


def table(cases, names):
    warm_up(names)
    print(f"DP-SGD, q = 256/60000, delta = {DELTA:g}")
    print(f"{'sigma':>5} {'T':>7} {'accountant':>15} {'eps_lo':>8} {'eps_hi':>8} "
          f"{'width':>9} {'time s':>8} {'peak MB':>8} {'fdp speed-up':>12}")
    for sigma, steps in cases:
        base = None
        for name in names:
            if not available(name):
                print(f"{sigma:5g} {steps:7d} {name:>15}  (not installed: pip install fdp[bench])")
                continue
            (lo, hi), dt, mem = measure(functools.partial(PEERS[name], sigma, steps))
            width = "" if lo is None else f"{hi - lo:9.2e}"
            if name == "fdp":
                base = dt
                ratio = ""
            else:
                ratio = f"{dt / base:11.1f}x" if base else ""
            print(f"{sigma:5g} {steps:7d} {name:>15} {fmt(lo)} {fmt(hi)} {width:>9} "
                  f"{dt:8.2f} {mem:8.0f} {ratio:>12}", flush=True)


def extras():
    import fdp
    from fdp.engine import compose_numeric
    from fdp.operations.subsample import PoissonAdd
    print("\nExtra targets (fdp only)")
    # trade-off bracket at 100 alphas, T = 1e5, composition included
    a = np.linspace(0.0, 1.0, 100)

    def curve():
        r = fdp.dpsgd(1.1, Q, 100000)
        lo, hi = r.bounds(a)
        return float(np.max(hi - lo))
    gap, dt, mem = measure(curve)
    print(f"  curve at 100 alphas, sigma=1.1, T=1e5: max gap {gap:.2e}, {dt:.2f} s, {mem:.0f} MB")

    # 1000 distinct Poisson-subsampled Gaussians, sigma from 0.8 to 1.4
    sig = np.linspace(0.8, 1.4, 1000)

    def distinct():
        r = fdp.dpsgd(sig, Q, 1000, tol=1e-2)    # the target is a 1e-2 bracket
        return r.epsilon_bounds(DELTA)
    (lo, hi), dt, mem = measure(distinct)
    print(f"  1000 distinct steps (sigma 0.8..1.4, tol=1e-2): eps in [{lo:.4f}, {hi:.4f}] "
          f"(width {hi - lo:.1e}), {dt:.2f} s, {mem:.0f} MB")

    # T = 1e8 identical steps
    for tol in (1e-3, None):
        def huge(tol=tol):
            r = fdp.dpsgd(50.0, Q, 100_000_000, tol=tol)
            return r.delta_floor, r.epsilon_bounds(DELTA)
        (floor, (lo, hi)), dt, mem = measure(huge)
        print(f"  T=1e8 (sigma=50, tol={tol or 'default'}): eps in [{lo:.5f}, {hi:.5f}] at "
              f"delta={DELTA:g} (round-off floor {floor:.1e}), {dt:.2f} s, {mem:.0f} MB traced")

    # 1e9 self-compositions: mass and bracket
    n = 10 ** 9
    t = time.perf_counter()
    r = compose_numeric([(fdp.Gaussian(1.0 / np.sqrt(n)), n)], tol=1e-2)
    lo, hi = r.epsilon_bounds(1e-3)
    dt = time.perf_counter() - t
    m = r.mass
    print(f"  G(1/sqrt(n))^n, n=1e9 (tol=1e-2): mass 1{m[0] - 1:+.1e} / 1{m[1] - 1:+.1e}, "
          f"eps(1e-3) in [{lo:.4f}, {hi:.4f}] (exact {fdp.Gaussian(1.0).epsilon(1e-3):.4f}), "
          f"{dt:.2f} s")

    # small delta: plain read-back above the round-off floor, tilted recomposition below
    r = fdp.dpsgd(1.1, Q, 14060)
    print(f"  sigma=1.1, T=14060: round-off floor of the plain read-back {r.delta_floor:.1e}")
    for d in (1e-5, 1e-10, 1e-12, 1e-15):
        t = time.perf_counter()
        lo, hi = r.epsilon_bounds(d)
        dt = time.perf_counter() - t
        print(f"    delta={d:g}: eps in [{lo:.5f}, {hi:.5f}] (width {hi - lo:.1e}), {dt:.2f} s")

    # generic operands: an envelope composed, a numeric result symmetrised
    f = fdp.Gaussian(1.0).subsample(0.05)
    t = time.perf_counter()
    lo, hi = (f ** 200).epsilon_bounds(DELTA)
    dt = time.perf_counter() - t
    print(f"  (per-step symmetrised subsampled Gaussian)^200: eps in [{lo:.4f}, {hi:.4f}], "
          f"{dt:.2f} s")
    t = time.perf_counter()
    sym = (PoissonAdd(fdp.Gaussian(1.0), 0.05) ** 200).symmetrize(one_sided=True)
    lo, hi = sym.epsilon_bounds(DELTA)
    dt = time.perf_counter() - t
    print(f"  (f_p^200).symmetrize(one_sided=True): eps in [{lo:.4f}, {hi:.4f}], {dt:.2f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fdp only, plus the extra targets")
    ap.add_argument("--only", default="fdp,dp_accounting,prv_accountant")
    ap.add_argument("--cases", default=None, help="comma list of sigma:T")
    ap.add_argument("--no-extras", action="store_true")
    args = ap.parse_args()
    names = ["fdp"] if args.quick else args.only.split(",")
    cases = CASES
    if args.cases:
        cases = [(float(s), int(t)) for s, t in (c.split(":") for c in args.cases.split(","))]
    table(cases, names)
    if not args.no_extras:
        extras()


if __name__ == "__main__":
    main()
