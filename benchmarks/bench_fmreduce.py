"""Benchmark: seed 003 (FMReduce) on this machine.

1. LP (2) split at n = 60 (all workers, the non-blocking split) and for one
   blocking round (p = 50 participants): median time of ``scipy.optimize.linprog``
   (HiGHS) and of the closed-form breakpoint solver, and their ratio.  Target:
   HiGHS <= 20 ms.
2. One full run at the paper's setting (n = 60, p = 50, 600 s, Transformer
   trace) for every Fig. 2 variant: median wall-clock over ``--runs`` seeds.
3. The closed-form engine against the generic flow engine (reference.py) on
   a smaller run (n = 20, p = 15, 60 s), same result, ratio of times.

    python benchmarks/bench_fmreduce.py [--runs 3] [--skip-reference]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.core.units import MB  # noqa: E402
from simlib.papers.fmreduce.bandwidth import fmreduce_bandwidths  # noqa: E402
from simlib.papers.fmreduce.reference import simulate_reference  # noqa: E402
from simlib.papers.fmreduce.scenario import VARIANTS, run_trial, variant_label  # noqa: E402
from simlib.papers.fmreduce.split import lp_split  # noqa: E402
from simlib.papers.fmreduce.system import simulate  # noqa: E402
from simlib.runtime.cluster import ComputeTimes  # noqa: E402
from simlib.workloads.traces import load_trace  # noqa: E402


def median_time(fn, repeats: int) -> float:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def bench_split(repeats: int = 50) -> None:
    b = fmreduce_bandwidths(60, np.random.default_rng(0))
    v = 200 * MB
    parts = np.sort(np.random.default_rng(1).choice(60, 50, replace=False))
    print("LP (2) split, n = 60 (median of", repeats, "calls)")
    for label, kw in (("all n (non-blocking)", {}), ("p = 50 participants (blocking)", {"participants": parts})):
        lp_split(v, b, solver="highs", **kw)
        th = median_time(lambda: lp_split(v, b, solver="highs", **kw), repeats)
        tb = median_time(lambda: lp_split(v, b, solver="breakpoint", **kw), repeats)
        print(f"  {label:32s} highs {1e3 * th:7.2f} ms   breakpoint {1e3 * tb:6.3f} ms   "
              f"ratio {th / tb:5.1f}x   {'OK' if th <= 0.020 else 'ABOVE'} 20 ms target")


def bench_runs(runs: int) -> None:
    print(f"\nOne run, n = 60, p = 50, 600 s, transformer (median wall-clock of {runs} seeds)")
    run_trial(dict(duration_s=5.0), np.random.SeedSequence(0))  # compile / warm caches
    total = 0.0
    for v in VARIANTS:
        ts = []
        for s in range(runs):
            t0 = time.perf_counter()
            out = run_trial(dict(v), np.random.SeedSequence(s))
            ts.append(time.perf_counter() - t0)
        med = statistics.median(ts)
        total += med
        print(f"  {variant_label(**v):16s} {med:6.2f} s   ({out['rounds']} rounds, seed {runs - 1})")
    print(f"  all 12 variants: {total:.1f} s (one seed each, serial)")


def bench_reference() -> None:
    n, p = 20, 15
    b = fmreduce_bandwidths(n, np.random.default_rng(2))
    trace = load_trace("transformer")
    print(f"\nClosed-form engine vs generic flow engine, n = {n}, p = {p}, 60 s, FM NB LP FS")
    res, times = [], []
    for sim in (simulate, simulate_reference):
        ct = ComputeTimes(lambda rng, k: trace.sample(rng, k), n, np.random.SeedSequence(3))
        t0 = time.perf_counter()
        res.append(sim(b, p, model_bits=200 * MB, duration_s=60.0, compute_time=ct.next, sharing="fs"))
        times.append(time.perf_counter() - t0)
    same = res[0].rounds == res[1].rounds and all(
        np.allclose(a.done, r.done, rtol=1e-9, equal_nan=True) for a, r in zip(res[0].rounds_log, res[1].rounds_log))
    print(f"  closed form {times[0]:.2f} s, FlowNetwork {times[1]:.2f} s, ratio {times[1] / times[0]:.0f}x, "
          f"rounds {res[0].rounds} vs {res[1].rounds}, identical: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-reference", action="store_true")
    args = ap.parse_args()
    bench_split()
    bench_runs(args.runs)
    if not args.skip_reference:
        bench_reference()


if __name__ == "__main__":
    main()
