"""Benchmark: one 10-minute n = 50 SSP run (seed 004 §IV-C defaults) per scheme.

For SelMcast and Orpheus (LSTM trace, L3, v = 200 MB, b̄ = 40 Gbps, p = 0.3n,
ssp = k = 4, eta = 0.75) we report, over ``--repeats`` runs after a warm-up
that loads the numba kernels: the median wall-clock time of the whole run, the
number of multicasts, the process CPU time (less sensitive to a busy machine),
the median selection time per call (the manager's work
for one ready worker: refresh the remaining volumes and tau, then Algorithm 2
or Orpheus), and the SelMcast/Orpheus wall-time ratio measured in the same
run.  Target (issue 12): <= 3 s for the SelMcast run.

    python benchmarks/bench_selmcast_ssp.py [--duration 600] [--repeats 3] [--n 50]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=600.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--trace", default="lstm")
    args = ap.parse_args(argv)
    for scheme in ("selmcast", "orpheus"):                      # warm-up: numba kernels
        simulate(SSPScenario(scheme=scheme, n=args.n, trace=args.trace, duration_s=5.0), 0)
    res = {}
    for scheme in ("selmcast", "orpheus"):
        walls, cpus, sels, counts = [], [], [], []
        for r in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            log = simulate(SSPScenario(scheme=scheme, n=args.n, trace=args.trace,
                                       duration_s=args.duration), np.random.SeedSequence(r))
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
            sels.append(1e6 * log.selection_s / max(log.selections, 1))
            counts.append(len(log.multicasts))
        res[scheme] = statistics.median(walls)
        print(f"{scheme:9s} n={args.n} {args.duration:g} s simulated: run {statistics.median(walls):6.2f} s "
              f"(min {min(walls):.2f}; CPU {statistics.median(cpus):.2f} s), "
              f"{statistics.median(counts):,.0f} multicasts, "
              f"selection {statistics.median(sels):6.1f} us/call, "
              f"{1e6 * statistics.median(walls) / statistics.median(counts):6.1f} us per multicast")
    print(f"ratio SelMcast / Orpheus run time: {res['selmcast'] / res['orpheus']:.2f}; "
          f"target SelMcast <= 3 s: {'met' if res['selmcast'] <= 3.0 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
