"""Benchmark: the cold-start ECDF (simlib.workloads.traces.OnlineECDF) under a controller's load,
and drawing compute times from a real trace (replay, decision T7) vs a stand-in (i.i.d.).

1e5 single observations with a cdf query after every tenth (what a cold selective-reduce
run does), median wall-clock time over ``--runs`` repetitions, next to a naive baseline
measured in the same run (np.sort of all observations at every query) and their ratio.
Then ``--draws`` compute times (100 workers) drawn one by one with ``next(w)`` (the Python
event loops) and in blocks of 64 with ``take(w, 64)`` (the compiled loops), from
``pai-job4`` and ``transformer``, medians of the same run.

    python benchmarks/bench_traces.py [--runs 5] [--size 100000] [--draws 1000000]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.workloads.traces import OnlineECDF, TraceWrapWarning, load_trace  # noqa: E402

WORKERS = 100


def online(xs: np.ndarray) -> float:
    e = OnlineECDF()
    t0 = time.perf_counter()
    for i, x in enumerate(xs):
        e.observe(float(x))
        if i % 10 == 0:
            e.cdf(1.0)
    return time.perf_counter() - t0


def naive(xs: np.ndarray) -> float:
    seen: list[float] = []
    t0 = time.perf_counter()
    for i, x in enumerate(xs):
        seen.append(float(x))
        if i % 10 == 0:
            s = np.sort(np.asarray(seen))
            np.searchsorted(s, 1.0, side="right")
    return time.perf_counter() - t0


def draw(trace_name: str, total: int, block: int) -> float:
    """Seconds to draw ``total`` compute times for WORKERS workers, ``block`` per call (1: next)."""
    ct = load_trace(trace_name).compute_times(WORKERS, 0)
    per = total // WORKERS
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TraceWrapWarning)
        for w in range(WORKERS):
            if block == 1:
                for _ in range(per):
                    ct.next(w)
            else:
                for _ in range(per // block):
                    ct.take(w, block)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--draws", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    xs = np.random.default_rng(1).lognormal(0.0, 0.5, args.size)
    ta, tb = [], []
    for r in range(args.runs):                  # interleaved, so load hits both alike (naive: half the runs)
        ta.append(online(xs))
        if r < max(1, args.runs // 2):
            tb.append(naive(xs))
    a, b = statistics.median(ta), statistics.median(tb)
    print(f"OnlineECDF: {a:.3f} s median for {args.size} observations (query every 10th)")
    print(f"naive sort-per-query: {b:.3f} s  ->  speed-up {b / a:.1f}x")
    for block, how in ((1, "next(w)"), (64, "take(w, 64)")):
        reals, iids = [], []
        for _ in range(args.runs):              # interleaved pairs
            reals.append(draw("pai-job4", args.draws, block))
            iids.append(draw("transformer", args.draws, block))
        real, iid = statistics.median(reals), statistics.median(iids)
        print(f"{args.draws} compute times by {how}: real trace pai-job4 (replay) {real:.3f} s, "
              f"stand-in transformer (i.i.d.) {iid:.3f} s  ->  ratio {real / iid:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
