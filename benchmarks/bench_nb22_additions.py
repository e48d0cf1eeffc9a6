"""Benchmark: the CPU that issue 32's extra sweeps add to notebook 22's full profile, and their results.

Runs each sweep of :func:`simlib.training.nine_systems.evidence_sweeps` at the notebook's full-profile
parameters (``NineSystemsNotebook()`` defaults, seed 0, ``trials`` trials), serially in this process,
and prints per sweep the runs, the CPU seconds (``time.process_time``) and the wall seconds; then the
measurements the notebook records (RP20's evidence, PR17, PR18, RP21) against the committed Table 1
frame ``data/results/22_pr_table1.csv`` (the same seeds, so trial t pairs).  The frames are written to
``--out`` (default ``build/bench_nb22``).  CPU on the 2-core machine is shared: quote the same run's
numbers, the wall time on 2 workers is about half the CPU.

    python benchmarks/bench_nb22_additions.py [--only 22_pr_staleness ...] [--trials 3] [--out DIR]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.papers.partial_reduce import table1_claims as t1  # noqa: E402
from simlib.pipeline.sweep import run_sweep  # noqa: E402
from simlib.training import nine_systems as ns  # noqa: E402
from simlib.training import statistical_evidence as se  # noqa: E402
from simlib.training.notebook_specs import NineSystemsNotebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="sweep names (default: all)")
    ap.add_argument("--trials", type=int, default=None, help="trials per setting (default: the notebook's)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench_nb22")
    args = ap.parse_args(argv)
    spec = NineSystemsNotebook()
    trials = args.trials or spec.trials
    args.out.mkdir(parents=True, exist_ok=True)
    frames, total = {}, 0.0
    for name, (fn, settings) in ns.evidence_sweeps(spec).items():
        if args.only and name not in args.only:
            continue
        c0, w0 = time.process_time(), time.perf_counter()
        d = run_sweep(fn, settings, trials=trials, seed=0, executor="serial", cache_dir=None, progress=False)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        total += cpu
        d["arm"] = [ns.arm_label(s, p) for s, p in zip(d["scheme"], d["p"])]
        d.to_csv(args.out / f"{name}.csv", index=False)
        frames[name] = d
        print(f"{name}: {len(d)} runs, {cpu:.1f} s CPU, {wall:.1f} s wall ({cpu / len(d):.2f} s CPU per run)",
              flush=True)
    print(f"total: {total:.1f} s CPU (about {total / 2:.0f} s wall on 2 workers)")

    table1 = pd.read_csv(ROOT / "data" / "results" / "22_pr_table1.csv")
    table1["arm"] = [ns.arm_label(s, p) for s, p in zip(table1["scheme"], table1["p"])]
    pd.set_option("display.width", 200)
    if "22_pr_staleness" in frames:
        stale = se.staleness_summary(frames["22_pr_staleness"])
        print(stale.round(3).to_string())
        ev = se.evidence_texts(se.steps_to_target(table1), stale, se.dynamic_vs_constant(table1))
        for k, v in ev.items():
            print(f"[{k}] {v}")
    if "22_pr_sr_bandwidths" in frames:
        print(t1.selective_drawn(frames["22_pr_sr_bandwidths"])[0].our_value)
    if "22_pr_group_filter" in frames:
        print(t1.filter_sensitivity(table1, frames["22_pr_group_filter"]).to_string())
        print(t1.filter_observation(table1, frames["22_pr_group_filter"])[0].our_value)
    if "22_pr_momentum" in frames:
        eff = se.momentum_effect(table1, frames["22_pr_momentum"])
        print(eff.round(3).to_string())
        print(se.momentum_observation(eff, spec.momentum_check, spec.lr * (1 - spec.momentum_check),
                                      spec.lr)[0].our_value)


if __name__ == "__main__":
    main()
