"""Benchmark: simlib's flow network vs. SimGrid's LMM solver on one workload.

Workload (the SelMcast L7 scale of the foundation issue): ``--hosts`` hosts on
a big switch with up/down capacities uniform in [1, 20] Gbps, ``--flows``
unicast flows with random src != dst and volumes uniform in [1, 100] MB, all
starting at t = 0.  Both simulators compute every completion time; we report
the median wall-clock time over ``--repeats`` runs of each (simlib: the whole
event loop after a warm-up that compiles the numba kernels; SimGrid: the time
inside ``Engine.run()``), their ratio, and the largest relative difference
between the two sets of completion times.

    python benchmarks/bench_network.py [--hosts 200] [--flows 10000] [--repeats 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.core.network import FlowNetwork  # noqa: E402
from simlib.core.topology import BigSwitch  # noqa: E402
from simlib.core.units import Gbps, MB  # noqa: E402


def workload(hosts: int, flows: int, seed: int):
    rng = np.random.default_rng(seed)
    up = rng.uniform(1, 20, hosts) * Gbps
    down = rng.uniform(1, 20, hosts) * Gbps
    src = rng.integers(0, hosts, flows)
    dst = (src + rng.integers(1, hosts, flows)) % hosts
    vol = rng.uniform(1, 100, flows) * MB
    return up, down, [(int(s), int(d), float(v), 0.0) for s, d, v in zip(src, dst, vol)]


def run_simlib(up, down, flows):
    topo = BigSwitch(up, down)
    t0 = time.perf_counter()
    net = FlowNetwork(topo.capacities)
    handles = [net.add_flow(topo.unicast(s, d), v) for s, d, v, _ in flows]
    net.run_until_idle()
    elapsed = time.perf_counter() - t0
    return np.array([h.finish_time for h in handles]), elapsed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=200)
    ap.add_argument("--flows", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.hosts < 2 or args.flows < 1 or args.repeats < 1:
        ap.error("--hosts must be >= 2, --flows >= 1, --repeats >= 1")

    up, down, flows = workload(args.hosts, args.flows, args.seed)
    run_simlib(*workload(10, 50, 1))  # compile numba kernels outside the timing
    ours, our_times = None, []
    for _ in range(args.repeats):
        ours, t = run_simlib(up, down, flows)
        our_times.append(t)
    print(f"workload: {args.hosts} hosts, {args.flows} flows, all at t=0; makespan {ours.max():.3f} s")
    print(f"simlib : median {statistics.median(our_times):7.2f} s over {args.repeats} runs "
          f"({', '.join(f'{t:.2f}' for t in our_times)})")

    from simlib.core import simgrid_ref

    if not simgrid_ref.simgrid_available():
        print("SimGrid: not importable (apt-get install python3-simgrid; make venv) -- skipped")
        return 0
    sg_times = []
    theirs = None
    for _ in range(args.repeats):
        theirs, t = simgrid_ref.run_benchmark(up, down, flows)
        sg_times.append(t)
    sg, me = statistics.median(sg_times), statistics.median(our_times)
    rel = np.max(np.abs(ours - theirs) / theirs)
    print(f"SimGrid: median {sg:7.2f} s over {args.repeats} runs ({', '.join(f'{t:.2f}' for t in sg_times)})")
    print(f"ratio SimGrid/simlib = {sg / me:.2f}x   max relative difference of completion times = {rel:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
