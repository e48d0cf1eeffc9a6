"""Benchmark: simlib's flow network (incremental and previous engine) vs. SimGrid's LMM solver.

Workload (the SelMcast L7 scale of the foundation issue): ``--hosts`` hosts on
a big switch with up/down capacities uniform in [1, 20] Gbps, ``--flows``
unicast flows with random src != dst and volumes uniform in [1, 100] MB, all
starting at t = 0 (default: two instances, 10,000 and 50,000 flows).  Every
engine computes every completion time on the same instance in the same
process run:

* ``incremental``: simlib's default engine (decision N9);
* ``full``: the previous engine (every change re-solves every flow, every
  step scans every flow), kept selectable as ``FlowNetwork(engine="full")``;
* SimGrid (wall and CPU time inside ``Engine.run()``, in a child process).

We print, per instance, the median wall-clock time over ``--repeats`` runs of
each (simlib: the whole event loop after a warm-up that compiles the numba
kernels; also its process CPU time, steadier on a shared machine), the
ratios, the largest relative difference of completion times between the
engines and against SimGrid, and how many flows the incremental engine
re-solves per rate update (median and mean, against the active flows the
full engine re-solves every time).

    python benchmarks/bench_network.py [--hosts 200] [--flows 10000,50000] [--repeats 3] [--no-simgrid]
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


def run_simlib(up, down, flows, engine: str = "incremental"):
    """Completion times, wall seconds, CPU seconds, and the network (for its counters)."""
    topo = BigSwitch(up, down)
    t0, c0 = time.perf_counter(), time.process_time()
    net = FlowNetwork(topo.capacities, engine=engine)
    handles = [net.add_flow(topo.unicast(s, d), v) for s, d, v, _ in flows]
    net.run_until_idle()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return np.array([h.finish_time for h in handles]), wall, cpu, net


def _med(xs):
    return statistics.median(xs)


def _runs(xs):
    return ", ".join(f"{x:.2f}" for x in xs)


def bench_instance(hosts: int, n_flows: int, repeats: int, seed: int, simgrid: bool) -> dict:
    up, down, flows = workload(hosts, n_flows, seed)
    res = {}
    for engine in ("incremental", "full"):
        walls, cpus = [], []
        for _ in range(repeats):
            times, wall, cpu, net = run_simlib(up, down, flows, engine)
            walls.append(wall)
            cpus.append(cpu)
        res[engine] = (times, walls, cpus, net)
    inc_t, inc_w, inc_c, inc_net = res["incremental"]
    full_t, full_w, full_c, _ = res["full"]
    print(f"\nworkload: {hosts} hosts, {n_flows} flows, all at t=0; makespan {inc_t.max():.3f} s")
    print(f"simlib incremental: median {_med(inc_w):7.2f} s wall ({_runs(inc_w)}), {_med(inc_c):7.2f} s CPU")
    print(f"simlib previous   : median {_med(full_w):7.2f} s wall ({_runs(full_w)}), {_med(full_c):7.2f} s CPU")
    print(f"ratio previous/incremental = {_med(full_w) / _med(inc_w):.2f}x wall, "
          f"{_med(full_c) / _med(inc_c):.2f}x CPU;  max relative difference of completion times = "
          f"{np.max(np.abs(inc_t - full_t) / full_t):.2e}")
    rec = np.array(inc_net.recomputed_flows)
    # the previous engine re-solves every active flow at every update: at the k-th
    # completion of this batch instance, n_flows - k flows are active
    active = n_flows - np.arange(len(rec))
    print(f"flows re-solved per rate update (incremental): median {np.median(rec):.0f}, mean {rec.mean():.0f} "
          f"(previous engine: median {np.median(active):.0f} active flows); "
          f"{len(rec)} updates, {np.mean(rec / np.maximum(active, 1)):.1%} of active flows on average")
    out = dict(inc=_med(inc_w), full=_med(full_w), inc_cpu=_med(inc_c), full_cpu=_med(full_c))
    if not simgrid:
        return out
    from simlib.core import simgrid_ref

    if not simgrid_ref.simgrid_available():
        print("SimGrid: not importable (apt-get install python3-simgrid; make venv) -- skipped")
        return out
    sg_times, sg_cpus, theirs = [], [], None
    for _ in range(repeats):
        theirs, t, c = simgrid_ref.run_benchmark(up, down, flows, cpu=True)
        sg_times.append(t)
        sg_cpus.append(c)
    sg, sg_cpu = _med(sg_times), _med(sg_cpus)
    print(f"SimGrid           : median {sg:7.2f} s wall ({_runs(sg_times)}), {sg_cpu:7.2f} s CPU (Engine.run())")
    print(f"ratio SimGrid/incremental = {sg / _med(inc_w):.2f}x wall, {sg_cpu / _med(inc_c):.2f}x CPU;  "
          f"SimGrid/previous = {sg / _med(full_w):.2f}x wall, {sg_cpu / _med(full_c):.2f}x CPU;  "
          f"max relative difference of completion times vs SimGrid = {np.max(np.abs(inc_t - theirs) / theirs):.2e}")
    out["simgrid"] = sg
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=200)
    ap.add_argument("--flows", default="10000,50000", help="comma-separated flow counts, one instance each")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-simgrid", action="store_true", help="skip the SimGrid runs")
    args = ap.parse_args(argv)
    try:
        counts = [int(x) for x in args.flows.split(",")]
    except ValueError:
        ap.error(f"--flows must be comma-separated integers >= 1, got {args.flows!r}")
    if args.hosts < 2 or min(counts) < 1 or args.repeats < 1:
        ap.error("--hosts must be >= 2, --flows >= 1, --repeats >= 1")
    for engine in ("incremental", "full"):  # compile numba kernels outside the timing
        run_simlib(*workload(10, 50, 1), engine)
    for n in counts:
        bench_instance(args.hosts, n, args.repeats, args.seed, not args.no_simgrid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
