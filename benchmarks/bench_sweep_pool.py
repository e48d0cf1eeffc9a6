"""A/B benchmark: a notebook-like sequence of many small sweeps on local processes, each sweep starting
worker processes of its own (``Executor("processes")`` without a pool: the behaviour before decision S34,
which scripts keep; with ``--rev``, that revision's code) against one
:class:`~simlib.pipeline.sweep.ProcessPool` that serves every sweep of the sequence (this checkout; a
notebook's ``Run`` owns one).

Per group (a trial function of the notebooks at small settings: the shared-cluster loop, SelMcast SSP,
FMReduce, the BSP round) one side runs ``--sweeps`` sweeps of ``--trials`` trials on ``--workers``
processes, sweep ``k`` with seed ``k`` (every trial computed, as S25's batches compute the trials they
add), no trial cache.  Each side runs in its own subprocess with ``PYTHONPATH`` at this checkout or at
``--rev`` (extracted by ``git archive`` into ``build/ab_<rev>``, whose kernels numba compiles apart,
being other source files); the kernels are compiled first in a
separate untimed process per side (the workers then load them from numba's disk cache, as after the
warm-up, and the timed process itself never calls a trial: a forked worker must load the kernels as a
notebook's do).  The sides alternate over ``--repeats`` rounds so load changes hit both alike.  Prints
per group the median CPU seconds (the side's process and its reaped workers) and wall seconds of each
side, the ratios old/new, the CPU one sweep's own pool costs (old minus new, per sweep after the first),
and whether every row of every sweep is identical bit for bit; exits 1 if any differs.

    python benchmarks/bench_sweep_pool.py [--rev bd4d5b2] [--repeats 3] [--sweeps 10] [--trials 4] [--workers 2]
                                          [--only ssp cluster]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the side's simlib
from benchmarks.ab_revision import extract, run_worker  # noqa: E402

#: group -> (module, trial function, settings of one sweep): small settings of the notebooks' trials.
GROUPS = {
    "cluster": ("simlib.papers.cluster_scenario", "run_trial",
                [{"scheme": s, "n": 6, "duration_s": 5.0} for s in ("partial", "selective")]),
    "ssp": ("simlib.papers.selmcast.ssp_scenario", "run_trial",
            [{"scheme": s, "n": 6, "duration_s": 10.0, "model_mb": 20.0} for s in ("selmcast", "orpheus")]),
    "fmreduce": ("simlib.papers.fmreduce.scenario", "run_trial",
                 [{"n": 6, "p": 3, "duration_s": 10.0, "model_mb": 20.0}]),
    "bsp": ("simlib.papers.selmcast.experiments", "bsp_trial", [{"n": 10, "schemes": ["orpheus", "selmcast"]}]),
}


def _cpu() -> float:
    """CPU seconds of this process and of its children it has waited for (the sweeps' workers)."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def _rows(df) -> list:
    return [{k: repr(v) for k, v in row.items()} for row in df.to_dict("records")]


def _warm(spec: dict) -> dict:
    """Compile the groups' kernels into numba's disk cache (one trial of each setting, serially, here)."""
    import importlib

    from simlib.pipeline.sweep import run_sweep

    for g in spec["groups"]:
        module, name, settings = GROUPS[g]
        run_sweep(getattr(importlib.import_module(module), name), settings, 1, executor="serial", progress=False)
    return {}


def _run(spec: dict) -> dict:
    """The timed sequence of one side: per group ``{"cpu", "wall", "rows"}``."""
    import importlib

    from simlib.pipeline import sweep

    pooled = spec["pool"]
    out = {}
    for g in spec["groups"]:
        module, name, settings = GROUPS[g]
        fn = getattr(importlib.import_module(module), name)
        cpu0, wall0, rows = _cpu(), time.perf_counter(), []
        pool = sweep.ProcessPool(spec["workers"]) if pooled else None
        executor = (sweep.Executor("processes", pool=pool) if pooled
                    else sweep.Executor("processes", workers=spec["workers"]))
        try:
            for k in range(spec["sweeps"]):
                rows.append(_rows(sweep.run_sweep(fn, settings, spec["trials"], seed=k, executor=executor,
                                                  progress=False)))
        finally:
            if pool is not None:
                pool.close()            # its workers reaped: their CPU is counted
        out[g] = {"cpu": _cpu() - cpu0, "wall": time.perf_counter() - wall0, "rows": rows}
    return out


def _side(root: Path, spec: dict, mode: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1")
    return run_worker([sys.executable, str(Path(__file__).resolve()), f"--{mode}"], spec, env=env, cwd=root,
                      root=root)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", help="run the old side from this revision (e.g. bd4d5b2, before S34); default: "
                                  "this checkout's sweeps without a pool")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sweeps", type=int, default=10, help="sweeps per group (each a new pool on the old side)")
    ap.add_argument("--trials", type=int, default=4, help="trials per setting and sweep")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only", nargs="+", choices=list(GROUPS), help="run only these groups")
    ap.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)      # a side's compile step
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)    # a side's timed run
    args = ap.parse_args(argv)
    if args.warm or args.worker:
        spec = json.load(sys.stdin)
        print(json.dumps(_warm(spec) if args.warm else _run(spec)))
        return 0
    if min(args.repeats, args.sweeps, args.trials, args.workers) < 1:
        ap.error("--repeats, --sweeps, --trials and --workers must be >= 1")
    groups = args.only or list(GROUPS)
    old_root = extract(args.rev) if args.rev else ROOT
    base = {"groups": groups, "sweeps": args.sweeps, "trials": args.trials, "workers": args.workers}
    print(f"{args.sweeps} sweeps x {args.trials} trials per setting on {args.workers} processes; old: "
          f"{args.rev or 'this checkout'} (a pool per sweep), new: this checkout (one ProcessPool); "
          f"{args.repeats} interleaved rounds; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for root in dict.fromkeys((old_root, ROOT)):
        _side(root, base, "warm")
    cpu = {g: {"old": [], "new": []} for g in groups}
    wall = {g: {"old": [], "new": []} for g in groups}
    rows = {}
    for i in range(args.repeats):
        order = (("old", old_root), ("new", ROOT)) if i % 2 == 0 else (("new", ROOT), ("old", old_root))
        for side, root in order:
            res = _side(root, {**base, "pool": side == "new"}, "worker")
            for g in groups:
                cpu[g][side].append(res[g]["cpu"])
                wall[g][side].append(res[g]["wall"])
            rows.setdefault(side, {g: res[g]["rows"] for g in groups})
    same = True
    print(f"{'group':>9} {'old CPU s':>10} {'new CPU s':>10} {'old/new':>8} {'old wall s':>11} {'new wall s':>11} "
          f"{'old/new':>8} {'CPU s per pool start':>21}  identical")
    for g in groups:
        oc, nc = statistics.median(cpu[g]["old"]), statistics.median(cpu[g]["new"])
        ow, nw = statistics.median(wall[g]["old"]), statistics.median(wall[g]["new"])
        per_start = (oc - nc) / max(args.sweeps - 1, 1)
        identical = rows["old"][g] == rows["new"][g]
        same &= identical
        print(f"{g:>9} {oc:>10.2f} {nc:>10.2f} {oc / max(nc, 1e-9):>7.2f}x {ow:>11.2f} {nw:>11.2f} "
              f"{ow / max(nw, 1e-9):>7.2f}x {per_start:>21.2f}  {'yes' if identical else 'NO'}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
