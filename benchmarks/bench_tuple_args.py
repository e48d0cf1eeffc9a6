"""What a tuple of arrays costs a compiled call (the per-turn state of selective reduce's compiled turn, N17).

numba passes a tuple argument member by member and counts a reference to every array in it on entry to a
compiled function (and releases it on exit), whether or not the function reads it.  This times the same work
-- a function that reads two arrays, called through one level that passes the whole tuple on -- with the tuple
holding 2, 17 (the warm turn's state), 22 (the state with the five learning arrays) or 40 arrays, interleaved
in one process, and prints the median process CPU per call (ns) of each size over ``--repeats`` rounds.

    python benchmarks/bench_tuple_args.py [--calls 1000000] [--repeats 7]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from numba import njit

SIZES = (2, 17, 22, 40)


@njit
def _work(si, a, x):
    b = np.empty(3)
    for j in range(3):
        b[j] = a[j] * x
    if si[2] > 5:
        si[2] = 0
    si[2] += 1
    return b.sum()


@njit
def _inner(st, x):
    return _work(st[0], st[1], x)


@njit
def _outer(st, x):
    si = st[0]
    si[3] += 1
    if si[3] % 3 == 0:
        return _inner(st, x)
    return _inner(st, x + 1.0)


@njit
def _loop(st, k):
    s = 0.0
    for i in range(k):
        s += _outer(st, float(i))
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)
    if args.calls < 1 or args.repeats < 1:
        ap.error("--calls and --repeats must be >= 1")
    states = {m: (np.zeros(4, np.int64),) + tuple(np.zeros(5) for _ in range(m - 1)) for m in SIZES}
    for st in states.values():
        _loop(st, 10)                                   # compile each tuple type
    ns = {m: [] for m in SIZES}
    for _ in range(args.repeats):
        for m, st in states.items():
            t0 = time.process_time()
            _loop(st, args.calls)
            ns[m].append(1e9 * (time.process_time() - t0) / args.calls)
    print(f"arrays in the tuple: median ns per call ({args.repeats} rounds of {args.calls} calls)")
    for m in SIZES:
        print(f"{m:>5} {statistics.median(ns[m]):8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
