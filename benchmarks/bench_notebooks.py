"""Benchmark: how long the full reproduction takes, notebook by notebook (issue 9: <= 15 minutes).

By default it re-runs nothing: it prints the wall and CPU time of every notebook in the last
full-profile reproduction (``make reproduce``), as recorded in data/results/notebook_times.csv,
their total and the total against the 15-minute target.  ``--run`` re-times the notebooks with
the quick profile instead (outputs in build/runs/, times in build/notebook_times_quick.csv);
quick-profile times are a smoke-test measure, not comparable with the target.

This machine's speed changes from day to day, so ``--reference`` judges the last reproduction
against the target on the machine the target was set on (decision S18): it takes the times of a
reference commit's reproduction run the same day and ``--reference-then`` the same commit's times
as recorded when the target was set, and prints the per-notebook ratios and the last reproduction
scaled by the machine factor.  benchmarks/reference/ holds commit 4e00ae3's (the last reproduction
before issues 20-21 added the learning task; 13m57s on 2026-11-22).

    python benchmarks/bench_notebooks.py [--times-file CSV] [--target-min 15]
    python benchmarks/bench_notebooks.py --reference benchmarks/reference/4e00ae3_2026-11-25.csv \
        --reference-then benchmarks/reference/4e00ae3_2026-11-22.csv
    python benchmarks/bench_notebooks.py --run [--only PATTERN] [--workers N]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.papers.cli_gen import num_arg  # noqa: E402
from simlib.pipeline import bench, notebooks, timing  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--times-file", type=Path, default=notebooks.committed_times_path(), metavar="CSV",
                    help="recorded times of the full reproduction (default: data/results/notebook_times.csv)")
    ap.add_argument("--target-min", type=num_arg("--target-min", lo=0.0, lo_open=True), default=15.0,
                    metavar="MIN", help="target for the whole reproduction in minutes (default: 15, issue 9)")
    ap.add_argument("--run", action="store_true",
                    help="re-time the notebooks with --profile quick (into build/runs/) instead of reading "
                         "the recorded full-profile times")
    ap.add_argument("--only", metavar="PATTERN", help="with --run: only these notebooks (as the runner's --only)")
    ap.add_argument("--workers", type=num_arg("--workers", int, lo=1), metavar="N",
                    help="with --run: passed to every notebook as `workers`")
    ap.add_argument("--reference", type=Path, metavar="CSV",
                    help="times of a reference commit's reproduction run the same day as the last one "
                         "(needs --reference-then)")
    ap.add_argument("--reference-then", type=Path, metavar="CSV",
                    help="the reference commit's times as recorded when the target was set")
    args = ap.parse_args(argv)
    if not args.run and (args.only or args.workers):
        ap.error("--only and --workers apply only with --run")
    if (args.reference is None) != (args.reference_then is None):
        ap.error("--reference and --reference-then go together")
    if args.run and args.reference is not None:
        ap.error("--reference applies to the recorded full reproduction, not with --run")
    if args.run:
        selected = notebooks.discover(only=args.only)
        if not selected:
            ap.error(f"argument --only: no notebook matches {args.only!r}")
        results = notebooks.run_notebooks(selected, profile="quick", workers=args.workers)
        total = sum(r.seconds for r in results)
        failed = [r.name for r in results if not r.ok]
        noun = "notebook" if len(results) == 1 else "notebooks"
        print(f"quick profile: {len(results)} {noun} in {timing.format_duration(total)} (smoke-test size; "
              f"the {timing.format_duration(args.target_min * 60)} target is for the full profile)")
        if failed:
            print(f"failed: {', '.join(failed)}", file=sys.stderr)
            return 1
        return 0
    if args.times_file.exists() and not args.times_file.is_file():
        ap.error(f"argument --times-file: {str(args.times_file)!r} is not a file")
    try:
        recorded = timing.read_times(args.times_file)
    except ValueError as exc:
        ap.error(f"argument --times-file: {exc}")
    print(bench.notebook_times_report(recorded, [p.stem for p in notebooks.discover()],
                                      target_s=args.target_min * 60,
                                      source=bench.display_path(args.times_file)))
    if args.reference is not None:
        refs = {}
        for flag, path in (("--reference", args.reference), ("--reference-then", args.reference_then)):
            if not path.is_file():
                ap.error(f"argument {flag}: no such file: {str(path)!r}")
            try:
                refs[flag] = timing.read_times(path)
            except ValueError as exc:
                ap.error(f"argument {flag}: {exc}")
        try:
            print(bench.reference_report(recorded, refs["--reference"], refs["--reference-then"],
                                         target_s=args.target_min * 60))
        except ValueError as exc:
            ap.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
