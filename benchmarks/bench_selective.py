"""Benchmark: how long seed 000's experiments take on this machine.

1. One selective-reduce run at the paper's largest setting (n = 200, 100 s of
   training, Transformer trace, §IV-A defaults): median wall-clock time over
   ``--runs`` seeds, next to partial reduce and all reduce for scale.
2. Unless ``--single-only``: the whole §IV reproduction (notebooks 02–06 at full
   fidelity) executed in a scratch copy of the repository with an empty sweep
   cache, timed per notebook and in total, with ``--workers`` processes.

    python benchmarks/bench_selective.py [--runs 5] [--single-only] [--workers N]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.papers.cluster_scenario import run_trial  # noqa: E402

SECTION_IV = ["02_", "03_", "04_", "05_", "06_"]


def time_runs(scheme: str, runs: int) -> list[float]:
    out = []
    for seed in range(runs):
        t0 = time.perf_counter()
        run_trial(dict(scheme=scheme, n=200, duration_s=100.0, trace="transformer"), np.random.SeedSequence(seed))
        out.append(time.perf_counter() - t0)
    return out


def time_reproduction(workers: int | None) -> list[tuple[str, float, bool]]:
    from simlib.pipeline import notebooks as rn

    skip = {".git", ".venv", "build", "__pycache__", ".pytest_cache", ".hypothesis", "cache"}
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(ROOT, repo, ignore=lambda d, names: {n for n in names if n in skip})
        results = []
        for prefix in SECTION_IV:
            nbs = rn.discover(repo / "notebooks", only=prefix)
            for r in rn.run_notebooks(nbs, profile="full", workers=workers, root=repo,
                                      build_dir=Path(tmp) / "build", echo=None):
                results.append((r.name, r.seconds, r.ok))
                print(f"  {r.name:36s} {r.seconds:8.1f} s  {'ok' if r.ok else 'FAILED'}", flush=True)
        return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--single-only", action="store_true")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    run_trial(dict(scheme="selective", n=20, duration_s=5.0), np.random.SeedSequence(0))  # warm-up (numba)
    print(f"one run, n=200, 100 s, transformer trace (median of {args.runs} seeds; {os.cpu_count()} cores):")
    for scheme in ("selective", "partial", "allreduce"):
        ts = time_runs(scheme, args.runs)
        print(f"  {scheme:10s} median {statistics.median(ts):6.2f} s  (min {min(ts):.2f}, max {max(ts):.2f})")
    if not args.single_only:
        print("whole §IV reproduction (notebooks 02-06, full fidelity, empty cache):", flush=True)
        res = time_reproduction(args.workers)
        total = sum(s for _, s, _ in res)
        print(f"  total {total / 60:.1f} min; {'all ok' if all(ok for *_, ok in res) else 'SOME FAILED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
