"""Benchmark: the replay's evaluation, the test loss every evaluation against every tenth (decision RP23).

Notebook 90's learning task (mnist1d, the ReLU MLP, lr 0.5, sharded data, float32, early stop at the
ladder's top, evaluated every simulated second) on the schedule of one run per scheme at ``--n``
workers (Transformer trace, the notebook's first stage: 2000 s simulated).  Each replay runs with the
loss at every evaluation (``loss_every=1``, the replay before RP23) and every tenth
(``time_to_accuracy.LOSS_EVERY``), interleaved ``--repeats`` times so load changes hit both alike; it
prints the median CPU seconds of each, their ratio, and checks that the two curves are identical but
for the loss (the results do not change).

    python benchmarks/bench_replay_eval.py [--n 80] [--repeats 3] [--schemes allreduce partial selective]
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.papers.cli_gen import num_arg  # noqa: E402

SCHEMES = ("allreduce", "partial", "selective")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=num_arg("--n", int, lo=2, hi=200), default=80)
    ap.add_argument("--repeats", type=num_arg("--repeats", int, lo=1), default=3)
    ap.add_argument("--schemes", nargs="+", choices=SCHEMES, default=list(SCHEMES))
    args = ap.parse_args(argv)
    from simlib.papers.cluster_scenario import simulate
    from simlib.training import time_to_accuracy as tta
    from simlib.training.learning import load_problem

    load_problem("mnist1d")
    print(f"replay of one 2000 s run per scheme, n = {args.n}, Transformer trace, mnist1d MLP, early stop; "
          f"median CPU s over {args.repeats} interleaved repeats; {os.cpu_count()} cores; "
          f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; load average {os.getloadavg()[0]:.1f}")
    print(f"{'scheme':>10} {'evals':>6} {'loss every 1':>13} {f'every {tta.LOSS_EVERY}':>13} {'old/new':>8}",
          flush=True)
    ratios = []
    for scheme in args.schemes:
        setting = tta.TrainedScenario.of(dict(
            trace="transformer", n=args.n, scheme=scheme, duration_s=4000.0, target_acc=0.45, train_lr=0.5,
            train_batch=32, train_model="mlp-relu", train_problem="mnist1d", train_data="sharded",
            train_early_stop=True))
        seed = np.random.SeedSequence(0)
        log = simulate(dataclasses.replace(setting.run, duration_s=2000.0), seed)
        times, curves = {1: [], tta.LOSS_EVERY: []}, {}
        for _ in range(args.repeats):
            for k in times:
                t0 = time.process_time()
                curves[k] = tta.replay_curve(log, setting.training, seed, loss_every=k)
                times[k].append(time.process_time() - t0)
        old, new = curves[1], curves[tta.LOSS_EVERY]
        if not old.drop(columns="test_loss").equals(new.drop(columns="test_loss")):
            print(f"{scheme}: the curves differ beyond the loss", file=sys.stderr)
            return 1
        med = {k: statistics.median(v) for k, v in times.items()}
        ratios.append(med[1] / med[tta.LOSS_EVERY])
        print(f"{scheme:>10} {len(old):>6} {med[1]:>12.3f}s {med[tta.LOSS_EVERY]:>12.3f}s {ratios[-1]:>7.2f}x",
              flush=True)
    print(f"median old/new over the schemes: {statistics.median(ratios):.2f}x (same curves but the loss)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
