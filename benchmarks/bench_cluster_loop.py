"""Benchmark and bit-identity check: the shared-cluster trials (notebooks 16, 21-23, 90) against a revision.

Runs notebook-90-like trials (:func:`simlib.training.time_to_accuracy.trial`: Transformer trace, n workers,
the mnist1d ReLU MLP, lr 0.5, 4000 s cap, early stop), notebook-22-like trials
(:func:`simlib.training.nine_systems.trial`: n = 8, HL 3, every Table 1 system, 1200 s cap, early stop) and
notebook-16-like cluster runs (:func:`simlib.papers.cluster_scenario.run_trial`: all reduce, partial and
selective reduce, n = 200, 100 s; and selective reduce alone at notebook 16's profile search settings:
n = 40 and 200, Δt 0.01 and 0.1 s, the stored and a 3 s compute mean; and its Figs. 11-12 runs, which notebook 13
runs at Δt = 0.1 s: cold start and estimation errors drawn per decision, Δt 0.02 and 0.1 s) with this checkout's code and with ``--rev``'s (extracted by
``git archive`` into ``build/ab_<rev>``), in alternating subprocesses (``--repeats`` rounds, so load changes
hit both alike).  Each subprocess warms up (numba compilation, data loading) and then times its trials in
process CPU.  Prints the median CPU seconds of each side per group of trials and the old/new ratio, and
checks that every output column of every trial is the same bit for bit (floats by ``repr``, NaN equal to
NaN); exits 1 if any differs.

    python benchmarks/bench_cluster_loop.py [--rev 574b478 [fb56d12 ...]] [--repeats 3] [--seeds 0 1] [--n 80] [--quick] [--only nb22]

``--quick`` runs the quick profile's training (softmax on digits) instead of the full profile's.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the revision's simlib
from benchmarks.ab_revision import extract, interleave_and_report, run_worker  # noqa: E402

NB90 = dict(trace="transformer", duration_s=4000.0, target_acc=0.45, train_lr=0.5, train_batch=32,
            train_model="mlp-relu", train_problem="mnist1d", train_data="sharded", train_early_stop=True)
NB90_QUICK = dict(NB90, duration_s=400.0, target_acc=0.8, train_model="softmax", train_problem="digits")
NB22 = dict(target_acc=0.45, lr=0.5, batch=32, model="mlp-relu", problem="mnist1d", data="sharded",
            bandwidth_gbps=10.0, model_mb=100.0, curve_every_s=10.0, early_stop=True, n=8, hl=3, p=3,
            backups=3, trace="cnn", duration_s=1200.0)
NB22_QUICK = dict(NB22, target_acc=0.8, model="softmax", problem="digits", duration_s=300.0)
NB22_SCHEMES = ("allreduce", "eager", "adpsgd", "ps-bsp", "ps-asp", "ps-hete", "ps-backup", "partial",
                "partial-dynamic", "selective")


def groups(quick: bool, seeds: list[int], ns: list[int]) -> dict:
    """name -> list of (module, function, params, seed)."""
    nb90 = NB90_QUICK if quick else NB90
    nb22 = NB22_QUICK if quick else NB22
    return {
        "nb90 n=" + "/".join(map(str, ns)): [
            ("simlib.training.time_to_accuracy", "trial", dict(nb90, n=n, scheme=s), sd)
            for n in ns for s in ("allreduce", "partial", "selective") for sd in seeds],
        "nb22 n=8 HL3": [("simlib.training.nine_systems", "trial", dict(nb22, scheme=s), sd)
                         for s in NB22_SCHEMES for sd in seeds],
        "nb16 n=200": [("simlib.papers.cluster_scenario", "run_trial",
                        dict(scheme=s, n=200, trace="transformer", duration_s=100.0, dt_s=0.02), sd)
                       for s in ("allreduce", "partial", "selective") for sd in seeds],
        "nb16 SR profile": [("simlib.papers.cluster_scenario", "run_trial",
                             dict(scheme="selective", n=n, trace="transformer", duration_s=100.0, dt_s=dt,
                                  compute_mean_s=mean), sd)
                            for n in (40, 200) for dt in (0.01, 0.1) for mean in (None, 3.0) for sd in seeds],
        "nb16 SR robustness": [("simlib.papers.cluster_scenario", "run_trial",
                                dict(scheme="selective", n=n, trace="transformer", duration_s=100.0, dt_s=dt, cdf=cdf,
                                     bw_error=e), sd)
                               for n, cdf, e in ((40, "cold", 0.0), (200, "cold", 0.0), (200, "warm", 0.3),
                                                 (200, "cold", 0.5))
                               for dt in (0.02, 0.1) for sd in seeds],
    }


def _encode(v):
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    if hasattr(v, "item"):
        return _encode(v.item())
    return repr(v)


def worker(spec: dict) -> None:
    """Run the trials of ``spec`` (JSON on stdin) and print JSON: per group the CPU seconds and outputs."""
    import importlib

    import numpy as np
    out = {}
    for name, trials in spec["groups"].items():
        for mod, fn, params, sd in trials:            # warm-up: compilation, data loading
            f = getattr(importlib.import_module(mod), fn)
            short = dict(params, duration_s=min(params["duration_s"], 20.0))
            f(short, np.random.SeedSequence(sd))
        t0 = time.process_time()
        rows = []
        for mod, fn, params, sd in trials:
            res = getattr(importlib.import_module(mod), fn)(params, np.random.SeedSequence(sd))
            rows.append({k: _encode(v) for k, v in sorted(res.items())})
        out[name] = {"cpu": time.process_time() - t0, "rows": rows}
    print(json.dumps(out))


def run_side(root: Path, spec: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    return run_worker([sys.executable, str(Path(__file__).resolve()), "--worker"], spec, env=env, cwd=ROOT,
                      root=root)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", nargs="+", default=["574b478"],
                    help="the previous implementation (a git revision); several: each in the same rounds")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--n", type=int, nargs="+", default=[80], help="notebook 90's cluster sizes")
    ap.add_argument("--quick", action="store_true", help="the quick profile's training (softmax on digits)")
    ap.add_argument("--only", nargs="+", default=None, help="groups whose name starts with one of these")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(json.loads(sys.stdin.read()))
        return 0
    if args.repeats < 1:
        ap.error(f"--repeats must be >= 1, got {args.repeats}")
    gs = groups(args.quick, args.seeds, args.n)
    if args.only:
        gs = {k: v for k, v in gs.items() if any(k.startswith(o) for o in args.only)}
    spec = {"groups": gs}
    old_root = {rev: extract(rev) for rev in args.rev}
    print(f"{' and '.join(args.rev)} (old) vs this checkout (new); {'quick' if args.quick else 'full'} training; "
          f"seeds {args.seeds}; {args.repeats} interleaved rounds; {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    return interleave_and_report(gs, old_root, lambda root: run_side(root, spec), args.repeats,
                                 lambda a, b: [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)], "trials")


if __name__ == "__main__":
    sys.exit(main())
