"""Benchmark: the mnist1d learning task (decision RP9) — accuracy against the published
baselines, its calibration, and the cost of one replay at notebooks 90's and 46's settings.

1. *Accuracy.*  One worker trains each model with plain minibatch SGD (batch 32)
   for ``--steps`` steps; the test accuracy of the last 10 evaluations (every
   500 steps) is printed beside the published MNIST-1D accuracies (mnist1d
   README; Greydanus 2020: logistic regression 32 %, MLP 68 %, CNN 94 %).
2. *Calibration.*  Lock-step schedules (:mod:`simlib.training.calibration`) at
   n = 8 and n = 200: synchronous all-reduce (every worker averages every
   iteration), a partial reduce (random groups of 2 at n = 8, of 60 at n = 200,
   every iteration) and local SGD with 4 and 16 local steps between averages
   (stale replicas); for each target of the ladder, the rounds (local
   iterations per worker) and updates (syncs) to the target; ``data`` iid
   (RP5) and sharded (RP11); ``--seeds`` replay seeds (min–max shown).
3. *Speed.*  Per-replay CPU time (median of ``--repeats``) of the n = 200
   schedules of notebook 90 (transformer, 100 s, each scheme) and of the n = 50
   SSP schedules of notebook 46 (LSTM, 60 s, evaluated every 0.25 s).

    python benchmarks/bench_learning_task.py [--steps 20000] [--seeds 3] [--repeats 3] [--skip-speed]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.training.calibration import lockstep_log, updates_to_targets  # noqa: E402
from simlib.training.learning import MNIST1D_REFERENCE, load_problem  # noqa: E402
from simlib.training.replay import Numerics, replay  # noqa: E402

TASK = dict(model="mlp-relu", lr=0.5, batch_size=32, numerics=Numerics(dtype="float32"))


def accuracy(steps: int) -> None:
    prob = load_problem("mnist1d")
    log = lockstep_log(1, steps)
    print(f"1. accuracy after {steps} SGD steps (one worker, batch 32), last 10 evaluations every 500 steps:")
    for model, lr, ref in (("softmax", 0.1, "logistic regression"), ("mlp-relu", TASK["lr"], "MLP")):
        t = time.process_time()
        acc = replay(log, prob, model=model, lr=lr, batch_size=32, eval_every_s=500.0, seed=0).curve.test_acc
        print(f"   {model:9s} lr {lr:g}: test accuracy {acc.iloc[-10:].min():.3f}–{acc.iloc[-10:].max():.3f} "
              f"(best {acc.max():.3f}); published {ref}: {MNIST1D_REFERENCE[ref]:.2f} "
              f"[{time.process_time() - t:.1f} s CPU]", flush=True)


def calibration(seeds: int) -> None:
    prob = load_problem("mnist1d")
    print(f"2. calibration (lr {TASK['lr']}, batch {TASK['batch_size']}, {TASK['model']}); "
          f"rounds = local iterations per worker, updates = syncs; min–max over {seeds} seeds", flush=True)
    rows = []
    for n, rounds, p in ((8, 600, 2), (200, 300, 60)):
        for scheme, kw in (("all-reduce", {}), (f"partial P={p}", {"group_size": p}),
                           ("local SGD H=4", {"period": 4}), ("local SGD H=16", {"period": 16})):
            for data in ("iid", "sharded"):
                t = time.process_time()
                for s in range(seeds):
                    df = updates_to_targets(lockstep_log(n, rounds, seed=s, **kw), prob, seed=s, data=data, **TASK)
                    rows += [dict(n=n, scheme=scheme, data=data, seed=s, **r) for r in df.to_dict("records")]
                print(f"   n={n:3d} {scheme:15s} {data:7s} [{time.process_time() - t:.1f} s CPU]", flush=True)
    tab = pd.DataFrame(rows)

    def rng(x):
        x = x.to_numpy()
        if np.isnan(x).any():
            return "never" if np.isnan(x).all() else f">{np.nanmin(x):.0f}"
        return f"{x.min():.0f}" if x.min() == x.max() else f"{x.min():.0f}–{x.max():.0f}"

    for what in ("rounds", "updates"):
        out = tab.groupby(["data", "n", "scheme", "target"], sort=False)[what].agg(rng).unstack("target")
        out.columns = [f"{a:.0%}" for a in out.columns]
        print(f"\n   {what} to target\n" + out.to_string())


def speed(repeats: int) -> None:
    from simlib.papers.cluster_scenario import Scenario, simulate
    from simlib.papers.selmcast.ssp_replay import multicast_schedule_log
    from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate as ssp_simulate

    prob = load_problem("mnist1d")
    print("\n3. replay CPU time, median of", repeats, flush=True)
    cases = [(f"nb 90 {s} n=200 100 s", simulate(Scenario(scheme=s, n=200, duration_s=100.0), 0), 1.0)
             for s in ("allreduce", "partial", "selective")]
    cases += [(f"nb 46 {s} n=50 60 s", multicast_schedule_log(ssp_simulate(
        SSPScenario(scheme=s, n=50, trace="lstm", duration_s=60.0), 0)), 0.25) for s in ("selmcast", "orpheus")]
    for name, log, ev in cases:
        for dtype in ("float64", "float32"):
            ts = []
            for _ in range(repeats):
                t = time.process_time()
                replay(log, prob, model="mlp-relu", lr=TASK["lr"], eval_every_s=ev, data="sharded",
                       numerics=Numerics(dtype=dtype))
                ts.append(time.process_time() - t)
            print(f"   {name:30s} {dtype}: {statistics.median(ts):5.2f} s "
                  f"({sum(map(len, log.compute_end))} local steps, {len(log.syncs)} syncs)", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--lr", type=float, default=TASK["lr"], help="step size of the mlp-relu task")
    args = ap.parse_args(argv)
    TASK["lr"] = args.lr
    accuracy(args.steps)
    calibration(args.seeds)
    if not args.skip_speed:
        speed(args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
