"""Benchmark: what re-running notebook 22's Table 1 at an RP24 task would cost (issue 42 item 3).

For the default task (RP9: the MLP to 45 %, plain SGD at lr 0.5) and each RP24 candidate given (its
optimizer, its target from ``--targets``), runs notebook 22's trial (:func:`simlib.training.nine_systems.trial`,
early stop, the 1800 s profile cap, curve points every 10 s) on Table 1's twelve arms at the paper profile
(PR16, the values each run reads), ``--hls`` and ``--trials`` trials, interleaved task by task per setting so
load hits every task alike; prints per task the CPU seconds per run (median and total) and the share of runs
that reached the target, and the ratio of each task's total to the default's, which scales notebook 22's
measured full-profile cost (about 840 CPU-s with the default task) to that task.  CPU on a shared machine:
quote the same run's ratios.

    python benchmarks/bench_task_search.py [--tasks mlp-relu,sharded,32 cnn,sharded,32]
        [--targets 0.55 0.87] [--hls 1 3] [--trials 1] [--cap 1800]
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

from simlib.papers.partial_reduce import profile as pr_profile  # noqa: E402
from simlib.training import nine_systems as ns  # noqa: E402
from simlib.training import task_search as ts  # noqa: E402

#: Notebook 22's measured full-profile CPU with the default task (seconds; the brief of issue 42 item 3).
NB22_CPU_S = 840.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", nargs="+", default=["mlp-relu,sharded,32", "cnn,sharded,32"])
    ap.add_argument("--targets", nargs="+", type=float, default=[0.55, 0.87])
    ap.add_argument("--hls", nargs="+", type=int, default=[1, 3])
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--cap", type=float, default=1800.0)
    args = ap.parse_args(argv)
    if len(args.targets) != len(args.tasks):
        ap.error("give one target per task")
    warnings.filterwarnings("ignore")
    tasks = {"default (MLP, 45 %)": {}}
    for spec, target in zip(args.tasks, args.targets):
        m, d, b = spec.split(",")
        cand = ts.TaskCandidate(m, d, int(b))
        tasks[f"{cand.label()} ({target:.0%})"] = cand.training(target)
    base = dict(n=8, backups=3, trace="cnn", duration_s=args.cap, bandwidth_gbps=10.0, curve_every_s=10.0,
                early_stop=True, problem="mnist1d", model="mlp-relu", lr=0.5, batch=32, data="sharded")
    cpu = {k: [] for k in tasks}
    reached = {k: [] for k in tasks}
    for hl in args.hls:
        for scheme, p in ns.ARMS.values():
            if scheme == "selective":
                continue
            s = pr_profile.at_profile_read([dict(base, scheme=scheme, hl=hl, p=p or 3)])[0]
            for k in range(args.trials):
                for name, train in tasks.items():
                    t = time.process_time()
                    out = ns.trial({**s, **train}, np.random.SeedSequence(k))
                    cpu[name].append(time.process_time() - t)
                    reached[name].append(out["reached"])
                    print(f"   HL {hl} {scheme:16s} {name:32s} reached {out['reached']} "
                          f"[{cpu[name][-1]:.1f} s CPU]", flush=True)
    ref = sum(cpu["default (MLP, 45 %)"])
    print(f"\nnotebook 22's Table 1 arms, HL {args.hls}, {args.trials} trial(s), cap {args.cap:g} s, paper profile:")
    for name in tasks:
        tot = sum(cpu[name])
        print(f"   {name:32s} median {statistics.median(cpu[name]):6.1f} s per run, total {tot:7.1f} s, "
              f"{tot / ref:6.2f}x the default's (notebook 22 ~ {NB22_CPU_S * tot / ref:,.0f} CPU-s); reached "
              f"{np.mean(reached[name]):.0%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
