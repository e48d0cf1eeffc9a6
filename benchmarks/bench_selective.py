"""Benchmark: one simulated training run of each scheme at growing cluster sizes.

Seed 000's setting (100 s of training, Transformer trace, §IV-A defaults: p = 0.3n,
eta = 0.3, theta = 1, dt = 0.1 s, 500 MB, bandwidths round(20u, 3) Gbps) at
n = 200, 1000, 5000, 10000: the median wall-clock time over ``--seeds`` seeds of
``run_trial`` (simulation and metrics) for all reduce, partial reduce and selective
reduce, and selective ÷ partial measured in the same run (goal of issue 9: <= 3x at
every n, n = 200 <= 0.3 s, n = 10,000 <= 10 s).

It also times (unless ``--no-reference``) selective reduce with the controller's reference pass on
every round (``kernels.round_plan``, the pass before decision E21) in the same interleaved loop, for
n <= ``--reference-max-n``, and prints reference ÷ incremental; the goal of issue 48 is
selective ÷ partial <= 2.5x at n = 30,000 and 100,000:

    python benchmarks/bench_selective.py --n 10000 30000 100000 --seeds 3 --reference-max-n 30000

``--loops`` instead times selective reduce on the compiled cluster loop (its turns compiled, decision N14)
against the Python loop, interleaved in one process (process CPU of the simulation and its metrics), at
notebook 16's settings (Δt 0.01 and 0.1 s, the stored and a 3 s compute mean) and ``--n``, and checks that
both give the same metrics (every value by ``repr``); exits 1 if any differs:

    python benchmarks/bench_selective.py --loops --n 40 200 --seeds 5

``--recorded K`` recomputes K random committed selective-reduce rows of notebook 16's
``data/results/16_sr_profile_runs.csv`` (the engine ``auto`` picks: the compiled loop where it covers the
run) and checks every metric against the recorded value; exits 1 if any differs:

    python benchmarks/bench_selective.py --recorded 150

``--census`` counts the committed selective-reduce rows of notebooks 12-16 (``data/results/1[2-6]_*.csv``) by
the loop that runs them (the compiled loop, or the Python loop and why: ``cluster_kernel.supported``) and times
``--per-kind`` random settings of each kind (one recorded trial each, full profile, process CPU of the run and its
metrics, one warm process), so the rows' share of a notebook's CPU can be estimated:

    python benchmarks/bench_selective.py --census --per-kind 6

``--previous DIR`` also times selective reduce with the simlib found in ``DIR`` (e.g.
``git archive <commit> | tar -x -C DIR``), in a separate process, for n <=
``--previous-max-n`` (the pre-issue-9 controller needs ~3 min at n = 5000), and prints
the speed-up.

    python benchmarks/bench_selective.py [--n 200 1000 5000 10000] [--seeds 3]
                                         [--no-reference] [--reference-max-n 10000]
                                         [--previous DIR --previous-max-n 1000]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.papers.cli_gen import num_arg  # noqa: E402

SCHEMES = ("allreduce", "partial", "selective")
_TIMER = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from simlib.papers.cluster_scenario import run_trial
run_trial(dict(scheme="selective", n=20, duration_s=5.0), np.random.SeedSequence(0))
out = []
for seed in json.loads(sys.argv[4]):
    t0 = time.perf_counter()
    run_trial(dict(scheme=sys.argv[2], n=int(sys.argv[3]), duration_s=100.0, trace="transformer"),
              np.random.SeedSequence(seed))
    out.append(time.perf_counter() - t0)
print(json.dumps(out))
"""


def time_run(scheme: str, n: int, seed: int, reference: bool = False) -> float:
    """Wall time (s) of one run and its metrics; ``reference``: selective reduce's reference pass on every round."""
    from simlib.papers import cluster_scenario as cs

    t0 = time.perf_counter()
    sc = cs.Scenario.from_params(dict(scheme=scheme, n=n, duration_s=100.0, trace="transformer"))
    cl = cs.build_cluster(sc, np.random.SeedSequence(seed))
    if reference:
        cl.controller._classes = None                  # no incremental pass: kernels.round_plan every round
    cs.run_metrics(sc, cl.run())
    return time.perf_counter() - t0


LOOP_SETTINGS = ({"dt_s": 0.01}, {"dt_s": 0.1}, {"dt_s": 0.01, "compute_mean_s": 3.0}, {"dt_s": 0.1, "compute_mean_s": 3.0})


def time_loop(n: int, seed: int, engine: str, params: dict) -> tuple[float, str]:
    """Process CPU (s) of one selective-reduce run (simulation and metrics) on ``engine``'s loop, and its
    metrics as text (``repr`` of the sorted items)."""
    from simlib.papers import cluster_scenario as cs

    sc = cs.Scenario.from_params(dict(scheme="selective", n=n, duration_s=100.0, trace="transformer", **params))
    t0 = time.process_time()
    metrics = cs.run_metrics(sc, cs.simulate(sc, np.random.SeedSequence(seed), engine=engine))
    return time.process_time() - t0, repr(sorted(metrics.items()))


def compare_loops(ns: list[int], seeds: list[int]) -> int:
    """``--loops``: the Python loop ÷ the compiled loop for selective reduce, same run, interleaved."""
    print(f"selective reduce, 100 s, Transformer trace: Python loop vs compiled loop (N14), process CPU, median "
          f"over {len(seeds)} seeds, interleaved; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'n':>6} {'setting':>36} {'python s':>9} {'compiled s':>10} {'ratio':>7}  identical", flush=True)
    same = True
    for n in ns:
        for params in LOOP_SETTINGS:
            cpu = {"python": [], "auto": []}
            rows = {"python": [], "auto": []}
            for seed in seeds:
                for engine in (("python", "auto") if seed % 2 == 0 else ("auto", "python")):
                    t, row = time_loop(n, seed, engine, params)
                    cpu[engine].append(t)
                    rows[engine].append(row)
            ok = rows["python"] == rows["auto"]
            same &= ok
            py, co = statistics.median(cpu["python"]), statistics.median(cpu["auto"])
            print(f"{n:>6} {str(params):>36} {py:>9.3f} {co:>10.3f} {py / co:>6.2f}x  {'yes' if ok else 'NO'}",
                  flush=True)
    return 0 if same else 1


def check_recorded(k: int, path: Path = ROOT / "data" / "results" / "16_sr_profile_runs.csv") -> int:
    """``--recorded``: ``k`` random selective-reduce rows of a committed sweep CSV (seed 0, paired trials)
    recomputed by ``run_trial``; every metric must equal the recorded one (floats round-trip through the CSV)."""
    import math

    import pandas as pd

    from simlib.papers.cluster_scenario import Scenario, build_cluster, run_trial
    from simlib.pipeline.sweep import trial_seed
    from simlib.runtime import cluster_kernel

    df = pd.read_csv(path)
    cols = list(df.columns)
    setting_cols, metric_cols = cols[:cols.index("trial")], cols[cols.index("trial") + 1:]
    sel = df[df.scheme == "selective"]
    rows = sel.iloc[np.random.default_rng(1).choice(len(sel), size=min(k, len(sel)), replace=False)]
    bad = compiled = 0
    for _, r in rows.iterrows():
        params = {c: r[c].item() if hasattr(r[c], "item") else r[c] for c in setting_cols if not pd.isna(r[c])}
        params.update({c: int(params[c]) for c in ("n", "c") if c in params})
        sc = Scenario.from_params(params)
        seed = trial_seed(0, int(r.trial))
        compiled += cluster_kernel.supported(build_cluster(sc, seed)) is None
        out = run_trial(sc, seed)
        for m in metric_cols:
            a, b = out.get(m), r[m]
            if not (a == b or (pd.isna(b) and (a is None or (isinstance(a, float) and math.isnan(a))))):
                bad += 1
                print(f"DIFF {params} trial {r.trial} {m}: {a!r} recorded {b!r}")
    print(f"{len(rows)} recorded selective-reduce rows of {path.name} recomputed ({compiled} on the compiled loop): "
          f"{bad} values differ")
    return 1 if bad else 0


CENSUS_FILES = ("12_sr_fig8-10", "12_sr_fig8-10_dt_reading", "12_sr_fig9-10_rescaled", "13_sr_fig11-12",
                "13_sr_fig11-12_dt_reading", "14_sr_fig13-14", "14_sr_fig13-14_dt_reading", "15_sr_gaps",
                "16_sr_profile_runs")


def _setting_rows(path: Path):
    """The selective-reduce rows of a committed sweep CSV as (flat params, trial) pairs, and its metric columns."""
    import pandas as pd

    df = pd.read_csv(path)
    cols = list(df.columns)
    setting_cols = cols[:cols.index("trial")]
    sel = df[df.scheme == "selective"]
    out = []
    for _, r in sel.iterrows():
        params = {c: r[c].item() if hasattr(r[c], "item") else r[c] for c in setting_cols if not pd.isna(r[c])}
        params.update({c: int(params[c]) for c in ("n", "c") if c in params})
        out.append((params, int(r.trial)))
    return out


def census(per_kind: int) -> int:
    """``--census``: the committed selective rows of notebooks 12-16 by loop, and CPU per run of each kind."""
    from simlib.papers.cluster_scenario import Scenario, build_cluster, run_metrics
    from simlib.pipeline.sweep import trial_seed
    from simlib.runtime import cluster_kernel

    rng = np.random.default_rng(48)
    print(f"committed selective rows of notebooks 12-16 by loop; CPU per run (process CPU of the run and its "
          f"metrics, medians of up to {per_kind} random rows per kind, one warm process); "
          f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; load average {os.getloadavg()[0]:.1f}")
    print(f"{'file':>28} {'loop':>58} {'rows':>6} {'settings':>8} {'CPU s/run':>9} {'est. CPU s':>10}", flush=True)
    for name in CENSUS_FILES:
        kinds: dict[str, list] = {}
        for params, trial in _setting_rows(ROOT / "data" / "results" / f"{name}.csv"):
            sc = Scenario.from_params(params)
            why = cluster_kernel.supported(build_cluster(sc, trial_seed(0, trial)))
            kinds.setdefault("compiled" if why is None else f"python: {why[:50]}", []).append((sc, trial))
        for kind, rows in sorted(kinds.items()):
            pick = rng.choice(len(rows), size=min(per_kind, len(rows)), replace=False)
            cpu = []
            for i in pick:
                sc, trial = rows[i]
                t0 = time.process_time()
                run_metrics(sc, build_cluster(sc, trial_seed(0, trial)).run())
                cpu.append(time.process_time() - t0)
            med = statistics.median(cpu)
            n_set = len({repr(sorted(sc.to_params().items())) for sc, _ in rows})
            print(f"{name:>28} {kind:>58} {len(rows):>6} {n_set:>8} {med:>9.3f} {med * len(rows):>10.1f}", flush=True)
    return 0


def time_previous(code: Path, n: int, seeds: list[int]) -> list[float]:
    res = subprocess.run([sys.executable, "-c", _TIMER, str(code), "selective", str(n), json.dumps(seeds)],
                         capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(code)})
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=num_arg("--n", int, lo=2, hi=100_000), nargs="+", default=[200, 1000, 5000, 10000])
    ap.add_argument("--seeds", type=num_arg("--seeds", int, lo=1), default=3)
    ap.add_argument("--previous", type=Path, default=None, help="root of an older simlib to compare with")
    ap.add_argument("--previous-max-n", type=num_arg("--previous-max-n", int, lo=2), default=1000)
    ap.add_argument("--no-reference", dest="reference", action="store_false",
                    help="do not time the reference pass (the pre-E21 controller)")
    ap.add_argument("--reference-max-n", type=num_arg("--reference-max-n", int, lo=2), default=10000)
    ap.add_argument("--loops", action="store_true", help="the compiled vs the Python cluster loop (N14) instead")
    ap.add_argument("--census", action="store_true",
                    help="count notebooks 12-16's committed selective rows by loop and time each kind instead")
    ap.add_argument("--per-kind", type=num_arg("--per-kind", int, lo=1), default=6,
                    help="--census: settings timed per kind and file")
    ap.add_argument("--recorded", type=num_arg("--recorded", int, lo=1), default=None,
                    help="recompute this many committed selective-reduce rows of notebook 16 instead")
    args = ap.parse_args(argv)
    if args.previous is not None and not (args.previous / "simlib").is_dir():
        ap.error(f"--previous must be a directory containing simlib/, got {args.previous}")
    from simlib.papers.cluster_scenario import run_trial

    run_trial(dict(scheme="selective", n=20, duration_s=5.0), np.random.SeedSequence(0))   # numba warm-up
    seeds = list(range(args.seeds))
    if args.loops:
        return compare_loops(args.n, seeds)
    if args.recorded is not None:
        return check_recorded(args.recorded)
    if args.census:
        return census(args.per_kind)
    print(f"one run = 100 s of training, Transformer trace; median over {args.seeds} seeds; "
          f"{os.cpu_count()} cores; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; "
          f"load average {os.getloadavg()[0]:.1f}")
    head = f"{'n':>6} " + " ".join(f"{s:>10}" for s in SCHEMES) + "   selective/partial"
    if args.reference:
        head += "   reference selective  reference/incremental"
    if args.previous is not None:
        head += "   previous selective  speed-up"
    print(head, flush=True)
    for n in args.n:
        ref = args.reference and n <= args.reference_max_n
        times = {s: [] for s in SCHEMES + (("reference",) if ref else ())}
        for seed in seeds:                        # interleaved, so load changes hit every scheme alike
            for s in times:
                times[s].append(time_run("selective", n, seed, True) if s == "reference" else time_run(s, n, seed))
        med = {s: statistics.median(t) for s, t in times.items()}
        line = f"{n:>6} " + " ".join(f"{med[s]:>9.2f}s" for s in SCHEMES) + \
            f"   {med['selective'] / med['partial']:>16.2f}x"
        if ref:
            line += f"   {med['reference']:>18.2f}s  {med['reference'] / med['selective']:>20.2f}x"
        if args.previous is not None and n <= args.previous_max_n:
            prev = statistics.median(time_previous(args.previous, n, seeds))
            line += f"   {prev:>17.2f}s  {prev / med['selective']:>7.1f}x"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
