"""Benchmark: the cold-start ECDF (simlib.workloads.traces.OnlineECDF) under a controller's load.

1e5 single observations with a cdf query after every tenth (what a cold selective-reduce
run does), median wall-clock time over ``--runs`` repetitions, next to a naive baseline
measured in the same run (np.sort of all observations at every query) and their ratio.

    python benchmarks/bench_traces.py [--runs 5] [--size 100000]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.workloads.traces import OnlineECDF  # noqa: E402


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", type=int, default=100_000)
    args = ap.parse_args(argv)
    xs = np.random.default_rng(1).lognormal(0.0, 0.5, args.size)
    a = statistics.median(online(xs) for _ in range(args.runs))
    b = statistics.median(naive(xs) for _ in range(max(1, args.runs // 2)))
    print(f"OnlineECDF: {a:.3f} s median for {args.size} observations (query every 10th)")
    print(f"naive sort-per-query: {b:.3f} s  ->  speed-up {b / a:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
