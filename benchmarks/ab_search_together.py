"""A/B of S39 (a sweep runs RP24's candidates' runs of one schedule and trial in one task) on notebook 23's
committed search rows, against a revision without it (default a0b1c81).

Each side runs, in its own subprocess (``PYTHONPATH`` at this checkout or at ``--rev``, extracted by ``git archive``
into ``build/ab_<rev>``), what notebook 23's search cell sweeps: ``run_sweep(task_search.search_trial, settings,
trials, executor="serial")`` over the committed candidates' settings (every candidate of ``--models``, in the CSV's
order) and trials ``0..--trials-1`` -- one chunk per system (``--arms``), the sides alternating which goes first
from chunk to chunk.  The old side runs every setting's trial alone (it has no S39); this checkout's sweep runs a
system's candidates of one trial together, each schedule simulated once.  Per chunk: process CPU of the sweep
(after one warm-up trial in the worker: numba's kernels, the data set), the load average, and every output of
every row checked against the committed cell (``ab_revision.committed_diffs``: ``repr`` of the float, an empty
cell only a NaN); ``--sides new`` runs this checkout alone (the check without the A/B).

    python benchmarks/ab_search_together.py [--rev a0b1c81] [--models mlp-relu] [--trials 10] [--nice 10]
    python benchmarks/ab_search_together.py --models cnn --sides new          # the CNN's 140 rows checked

Not a ``bench_*.py``: ``make bench`` does not run it (the MLP's 560 rows on both sides: ~7 CPU-minutes).
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the revision's simlib
from benchmarks.ab_revision import (ab_arguments, committed_diffs, committed_params, extract,  # noqa: E402
                                    run_script_worker)

CSV = ROOT / "data" / "results" / "23_pr_task_search_runs.csv"


def _worker() -> None:
    """Read the spec (models, trials, arm) on stdin, run the sweep, print ``{"cpu", "runs", "committed_diffs",
    "rows"}`` as one JSON line."""
    import warnings

    import pandas as pd

    from simlib.pipeline.sweep import run_sweep, trial_seed
    from simlib.training import task_search as ts

    spec = json.loads(sys.stdin.read())
    warnings.filterwarnings("ignore")
    df = pd.read_csv(CSV)
    df = df[df["model"].isin(spec["models"]) & (df["arm"] == spec["arm"]) & (df["trial"] < spec["trials"])]
    keys = list(df.columns[:list(df.columns).index("trial")])
    first = df[df["trial"] == 0]
    settings = [committed_params(r, keys) for _, r in first.iterrows()]
    assert len(df) == len(settings) * spec["trials"]
    ts.search_trial(dict(settings[0]), trial_seed(0, 0))        # warm-up: numba's kernels, the data set
    t0 = time.process_time()
    out = run_sweep(ts.search_trial, settings, spec["trials"], executor="serial", progress=False)
    cpu = time.process_time() - t0
    metrics = ["reached", "updates_to_target", "iterations_to_target", "time_to_target_s", "run_updates", "final_acc"]
    rows, diffs = [], 0
    for j, (_, r) in enumerate(out.iterrows()):
        got = {m: r[m].item() if hasattr(r[m], "item") else r[m] for m in metrics}
        diffs += committed_diffs(got, df.iloc[j])      # the CSV's order is the sweep's: setting, then trial
        rows.append({m: repr(v) for m, v in got.items()})
    print(json.dumps({"cpu": cpu, "runs": len(out), "committed_diffs": diffs, "rows": rows}))


def main(argv=None) -> int:
    ap = ab_arguments(__doc__, "a0b1c81", 1)
    ap.add_argument("--models", nargs="+", default=["mlp-relu"])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--arms", nargs="+", default=["AR", "ER", "AD", "BSP", "ASP", "HETE", "BK"])
    ap.add_argument("--sides", choices=("both", "new"), default="both")
    args = ap.parse_args(argv)
    if args.worker:
        _worker()
        return 0
    sides = {"new": ROOT} if args.sides == "new" else {"old": extract(args.rev), "new": ROOT}
    cpu = {s: [] for s in sides}
    bad = 0
    print(f"models {args.models}, trials 0-{args.trials - 1}, old = {args.rev}", flush=True)
    for j, arm in enumerate(args.arms):
        order = list(sides) if j % 2 == 0 else list(sides)[::-1]
        res = {}
        for side in order:
            res[side] = run_script_worker(__file__, dict(models=args.models, trials=args.trials, arm=arm),
                                          sides[side], args.nice)
            cpu[side].append(res[side]["cpu"])
            bad += res[side]["committed_diffs"]
        same = "" if len(sides) == 1 else ("  rows identical" if res["old"]["rows"] == res["new"]["rows"]
                                           else "  ROWS DIFFER")
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{arm:>5}: {res['new']['runs']} runs, " + ", ".join(f"{s} {res[s]['cpu']:.1f} s" for s in order)
              + (f" ({res['old']['cpu'] / res['new']['cpu']:.2f}x)" if len(sides) > 1 else "")
              + f"; differing from the committed cells: " + ", ".join(f"{s} {res[s]['committed_diffs']}" for s in order)
              + same + f"; load {load}", flush=True)
        bad += len(sides) > 1 and res["old"]["rows"] != res["new"]["rows"]
    tot = {s: sum(c) for s, c in cpu.items()}
    print("total: " + ", ".join(f"{s} {t:.1f} s" for s, t in tot.items())
          + (f"; old/new {tot['old'] / tot['new']:.2f}x, median per system "
             f"{statistics.median(o / n for o, n in zip(cpu['old'], cpu['new'])):.2f}x" if len(sides) > 1 else "")
          + f"; {bad} differences", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
