"""Random allocation ("balls in bins"): fdp's certified bracket, time and memory.

dp_accounting has random allocation only in an unmerged pull request (pure numpy:
235 s for σ = 2, k = 10, t = 100, ε(1e-6) = 2.42652; t = 1000 did not finish in
13 minutes); no released accountant has it. For k > 1 the bracket is that of the
reduction to k single allocations (an upper bound of the true curve): its "ε low"
bounds the reduction, not the true allocation (marked "*"). Usage::

    python benchmarks/bench_allocation.py
"""

from __future__ import annotations

import time
import tracemalloc

DELTA = 1e-6
# (σ, steps per epoch t, selected k, epochs)
CASES = [(2.0, 100, 10, 1), (2.0, 1000, 1, 1), (2.0, 1000, 10, 1), (1.0, 1000, 1, 1),
         (1.0, 156, 1, 5), (0.8, 1000, 1, 1), (30.0, 1000, 1, 1), (100.0, 1000, 1, 1)]


def main():
    import fdp
    print(f"{'σ':>4} {'t':>5} {'k':>3} {'E':>2} {'ε low':>9} {'ε high':>9} {'width':>8} "
          f"{'time s':>7} {'peak MB':>8}   Poisson q=k/t ε high")
    for sigma, t, k, e in CASES:
        t0 = time.perf_counter()
        lo, hi = fdp.random_allocation(sigma, t, k, e).epsilon_bounds(DELTA)
        dt = time.perf_counter() - t0
        tracemalloc.start()
        fdp.random_allocation(sigma, t, k, e)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        p_hi = fdp.dpsgd(sigma, k / t, t * e).epsilon_bounds(DELTA)[1]
        mark = "*" if 1 < k < t else " "
        print(f"{sigma:4g} {t:5d} {k:3d} {e:2d} {lo:8.5f}{mark} {hi:9.5f} {hi - lo:8.1e} "
              f"{dt:7.2f} {peak:8.0f}   {p_hi:.5f}")
    print("* k > 1: lower end of the reduction's bracket, not a lower bound of the true "
          "allocation (the upper end is certified for it)")


if __name__ == "__main__":
    main()
