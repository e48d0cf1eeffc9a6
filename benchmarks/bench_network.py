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

The engines run interleaved: ``--repeats`` rounds, each running every engine once (so a change
of the machine's load hits all of them alike).  We print, per instance, the median wall-clock
time over the rounds of each (simlib: the whole event loop after a warm-up that compiles the numba
kernels; also its process CPU time, steadier on a shared machine), the
ratios, the largest relative difference of completion times between the
engines and against SimGrid, and how many flows the incremental engine
re-rates per rate update (median and mean, against the active flows the
full engine re-solves every time) and how its updates went (level propagations,
links they solved, bottleneck moves; decision N9, fifth round).

Before them, ``--stepped`` completions of a network stepped one event at a time from Python
(a cluster's event loop drives it so; process CPU time, median of ``--repeats``).

    python benchmarks/bench_network.py [--hosts 200] [--flows 10000,50000] [--repeats 3]
                                       [--engines incremental,full,simgrid] [--stepped 6000]
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
    handles = net.add_flows([topo.unicast(s, d) for s, d, _, _ in flows], [v for _, _, v, _ in flows])
    net.run_until_idle()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return np.array([h.finish_time for h in handles]), wall, cpu, net


def _med(xs):
    return statistics.median(xs)


def _runs(xs):
    return ", ".join(f"{x:.2f}" for x in xs)


def bench_instance(hosts: int, n_flows: int, repeats: int, seed: int, engines: list[str]) -> dict:
    """Time every engine of ``engines`` on one instance, interleaved: each of the ``repeats`` rounds runs
    each engine once, so a change of the machine's load hits all of them alike; ratios of medians."""
    up, down, flows = workload(hosts, n_flows, seed)
    print(f"\nworkload: {hosts} hosts, {n_flows} flows, all at t=0", flush=True)
    sg_ok = "simgrid" in engines
    if sg_ok:
        from simlib.core import simgrid_ref

        sg_ok = simgrid_ref.simgrid_available()
        if not sg_ok:
            print("SimGrid: not importable (apt-get install python3-simgrid; make venv) -- skipped")
    ours = [e for e in ("incremental", "full") if e in engines]
    walls = {e: [] for e in ours + (["simgrid"] if sg_ok else [])}
    cpus = {e: [] for e in walls}
    times, net = {}, None
    for r in range(repeats):
        for engine in walls:
            if engine == "simgrid":
                times[engine], wall, cpu = simgrid_ref.run_benchmark(up, down, flows, cpu=True)
            else:
                times[engine], wall, cpu, got = run_simlib(up, down, flows, engine)
                net = got if engine == "incremental" else net
            walls[engine].append(wall)
            cpus[engine].append(cpu)
            print(f"  (round {r + 1}: {engine} {wall:.2f} s wall, {cpu:.2f} s CPU)", flush=True)
    res = {e: (times[e], _med(walls[e]), _med(cpus[e])) for e in walls}
    for engine in ours:
        label = "incremental" if engine == "incremental" else "previous   "
        print(f"simlib {label}: median {_med(walls[engine]):7.2f} s wall ({_runs(walls[engine])}), "
              f"{_med(cpus[engine]):7.2f} s CPU ({_runs(cpus[engine])}); makespan {times[engine].max():.3f} s")
        if engine == "incremental":
            rec = np.array(net.recomputed_flows)
            # the previous engine re-solves every active flow at every update: at the
            # k-th completion of this batch instance, n_flows - k flows are active
            active = n_flows - np.arange(len(rec))
            print(f"  flows re-rated per rate update: median {np.median(rec):.0f}, mean {rec.mean():.0f} "
                  f"(previous engine: every active flow re-solved, median {np.median(active):.0f}); {len(rec)} "
                  f"updates, {np.mean(rec / np.maximum(active, 1)):.1%} of the active flows on average")
            st = net.solver_stats
            print(f"  updates by level propagation: {st[3]} (gave up: {st[4]}); per propagation "
                  f"{st[5] / max(st[3] + st[4], 1):.0f} link solves, {st[6] / max(st[3] + st[4], 1):.0f} adjacency "
                  f"entries read; {st[7]} bottleneck moves; flow-level solver passes: {st[0]}")
    if "incremental" in res and "full" in res:
        (ti, wi, ci), (tf, wf, cf) = res["incremental"], res["full"]
        print(f"ratio previous/incremental = {wf / wi:.2f}x wall, {cf / ci:.2f}x CPU;  "
              f"max relative difference of completion times = {np.max(np.abs(ti - tf) / tf):.2e}")
    if not sg_ok:
        return res
    theirs, sg, sg_cpu = res["simgrid"]
    print(f"SimGrid           : median {sg:7.2f} s wall ({_runs(walls['simgrid'])}), "
          f"{sg_cpu:7.2f} s CPU ({_runs(cpus['simgrid'])}) in Engine.run()")
    for engine, label in (("incremental", "incremental"), ("full", "previous")):
        if engine in res:
            t, w, c = res[engine]
            print(f"ratio SimGrid/{label} = {sg / w:.2f}x wall, {sg_cpu / c:.2f}x CPU (same rounds);  max relative "
                  f"difference of completion times vs SimGrid = {np.max(np.abs(t - theirs) / theirs):.2e}")
    return res


def run_stepped(hosts: int, events: int, seed: int, initial: int = 2000) -> float:
    """CPU seconds of ``events`` completions of a network stepped one event at a time from Python
    (``next_completion_time`` / ``advance_to``, a new flow after each completion, as a cluster's
    event loop drives it): ``initial`` unicast flows of 1-100 MB on a big switch of ``hosts``."""
    rng = np.random.default_rng(seed)
    up, down = rng.uniform(1, 20, hosts) * Gbps, rng.uniform(1, 20, hosts) * Gbps
    topo = BigSwitch(up, down)
    net = FlowNetwork(topo.capacities)

    def add():
        s = int(rng.integers(hosts))
        net.add_flow(topo.unicast(s, (s + int(rng.integers(1, hosts))) % hosts), float(rng.uniform(1, 100) * MB))

    for _ in range(initial):
        add()
    c0 = time.process_time()
    done = 0
    while done < events:
        finished = net.advance_to(net.next_completion_time())
        done += len(finished)
        for _ in finished:
            add()
    return time.process_time() - c0


def bench_stepped(hosts: int, events: int, repeats: int, seed: int) -> None:
    cpus = [run_stepped(hosts, events, seed + k) for k in range(repeats)]
    print(f"\nstepped from Python: {hosts} hosts, 2000 flows, {events} completions (a new flow after each)\n"
          f"simlib incremental: median {_med(cpus):7.2f} s CPU ({_runs(cpus)}), "
          f"{1e6 * _med(cpus) / events:.0f} us per completion")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=200)
    ap.add_argument("--flows", default="10000,50000", help="comma-separated flow counts, one instance each")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stepped", type=int, default=6000, metavar="EVENTS",
                    help="completions of the network stepped one event at a time from Python (0: skip)")
    ap.add_argument("--engines", default="incremental,full,simgrid",
                    help="comma-separated subset of incremental, full (the previous engine), simgrid")
    args = ap.parse_args(argv)
    engines = args.engines.split(",")
    if not engines or any(e not in ("incremental", "full", "simgrid") for e in engines):
        ap.error(f"--engines must be a comma-separated subset of incremental,full,simgrid, got {args.engines!r}")
    try:
        counts = [int(x) for x in args.flows.split(",")]
    except ValueError:
        ap.error(f"--flows must be comma-separated integers >= 1, got {args.flows!r}")
    if args.hosts < 2 or min(counts) < 1 or args.repeats < 1 or args.stepped < 0:
        ap.error("--hosts must be >= 2, --flows >= 1, --repeats >= 1, --stepped >= 0")
    for engine in ("incremental", "full"):  # compile numba kernels outside the timing
        run_simlib(*workload(10, 50, 1), engine)
    if args.stepped:
        run_stepped(args.hosts, 50, args.seed, initial=50)   # warm-up
        bench_stepped(args.hosts, args.stepped, args.repeats, args.seed)
    for n in counts:
        bench_instance(args.hosts, n, args.repeats, args.seed, engines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
