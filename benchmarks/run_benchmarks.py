"""Run the benchmark scripts (``make bench``): ``python benchmarks/run_benchmarks.py``.

Before it starts it lists every ``benchmarks/bench_*.py`` (sorted by name) with
its estimated time and the estimated total, from the wall time each script took
the last time it ran here (``build/bench_times.csv``, untracked, columns
:data:`BENCH_COLUMNS`, read and written by the notebook runner's
:mod:`simlib.pipeline.timing`; "no estimate yet" before the first run).  It
then runs each script with this interpreter, the repository
root as working directory and first on ``PYTHONPATH``, under a header
``[i/N] bench_x.py (est. 12s)``, records its wall time as soon as it finishes,
and ends with a table of estimated and measured times.  The exit status is 1
if any script failed (all of them run unless ``-x``).  (Not itself a
``bench_*.py``, so it does not run itself; it lived in ``simlib/pipeline/bench.py``,
and its layout in ``simlib.pipeline.timing``, before issue 35 moved them out of the
library: decision S23.)
"""
from __future__ import annotations

import argparse
import fnmatch
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.core.paths import REPO_ROOT as ROOT  # noqa: E402
from simlib.pipeline import timing  # noqa: E402

BENCH_DIR = ROOT / "benchmarks"
TIMES_FILE = ROOT / "build" / "bench_times.csv"
BENCH_GLOB = "bench_*.py"
#: The times file's layout: script file name, wall seconds, whether it exited 0.
BENCH_COLUMNS = ("script", "wall_s", "ok")


@dataclass(frozen=True)
class BenchResult:
    script: str
    wall_s: float
    ok: bool
    returncode: int


def discover(bench_dir: Path | str = BENCH_DIR, only: str | None = None) -> list[Path]:
    """``bench_*.py`` in ``bench_dir``, sorted; ``only`` keeps those whose name matches the glob
    or contains the text."""
    scripts = sorted(p for p in Path(bench_dir).glob(BENCH_GLOB) if p.is_file())
    if only and any(c in only for c in "*?["):
        return [p for p in scripts if fnmatch.fnmatch(p.name, only) or fnmatch.fnmatch(p.stem, only)]
    if only:
        return [p for p in scripts if only in p.name]
    return scripts


def plan(scripts: list[Path], recorded: dict, source: str) -> tuple[timing.Estimate, str]:
    """The estimate of running ``scripts`` and the text printed before they run."""
    est = timing.estimate([p.name for p in scripts], recorded)
    lines = [est.line("benchmark script", source) + ":"]
    width = max((len(p.name) for p in scripts), default=0)
    for p in scripts:
        guess = est.per_name[p.name]
        lines.append(f"  {p.name:<{width}}  {'-' if guess is None else 'est. ' + timing.format_duration(guess)}")
    return est, "\n".join(lines)


def display_path(path: Path, root: Path = ROOT) -> str:
    path, root = Path(path).resolve(), Path(root).resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _child_env(root: Path) -> dict:
    env = dict(os.environ)
    outer = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(root)]
    env["PYTHONPATH"] = os.pathsep.join([str(root), *outer])
    return env


def run_benchmarks(scripts: list[Path], *, times_file: Path | str = TIMES_FILE, root: Path | str = ROOT,
                   echo=print, fail_fast: bool = False) -> list[BenchResult]:
    """Run ``scripts`` one after the other (output goes straight to this terminal); return the results.

    Prints the plan first and the summary table last; each script's wall time
    is recorded in ``times_file`` as soon as it finishes.
    """
    root, times_file = Path(root).resolve(), Path(times_file)
    try:
        recorded, unreadable = timing.read_times(times_file, BENCH_COLUMNS), ""
    except ValueError as exc:
        recorded, unreadable = {}, str(exc)
    if unreadable:
        echo(f"ignoring the recorded times: {unreadable}")
    est, text = plan(scripts, recorded, display_path(times_file, root))
    echo(text)
    results = []
    env = _child_env(root)
    for i, script in enumerate(scripts, start=1):
        guess = est.per_name[script.name]
        echo(f"\n[{i}/{len(scripts)}] {script.name} "
             f"({'no estimate' if guess is None else 'est. ' + timing.format_duration(guess)})")
        sys.stdout.flush()
        start = time.perf_counter()
        code = subprocess.run([sys.executable, str(script)], cwd=root, env=env).returncode
        res = BenchResult(script.name, time.perf_counter() - start, code == 0, code)
        results.append(res)
        if not res.ok:
            echo(f"[{i}/{len(scripts)}] {script.name} FAILED (exit status {code})")
        try:
            timing.update_times(times_file, [timing.Timing(res.script, res.wall_s, res.ok)], BENCH_COLUMNS)
        except OSError as exc:
            print(f"bench: could not record the time of {script.name}: {exc}", file=sys.stderr)
        if fail_fast and not res.ok:
            break
        if i < len(scripts):
            left = est.remaining_line({r.script: r.wall_s if r.ok else None for r in results}, "script")
            if left:
                echo(left)
    if results:
        echo("")
        echo(timing.timing_table([(r.script, est.per_name[r.script], r.wall_s, r.ok) for r in results],
                                 name_header="script"))
    return results


def _existing_dir(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"no such directory: {text!r}")
    return path


def _times_file(text: str) -> Path:
    path = Path(text)
    if path.exists() and not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not a file")
    return path


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python benchmarks/run_benchmarks.py",
        description="Run every benchmarks/bench_*.py, with an estimate of the total time up front "
                    "(from build/bench_times.csv) and a table of measured times at the end.")
    ap.add_argument("--only", metavar="PATTERN",
                    help="run only the scripts whose file name matches the glob or contains the text")
    ap.add_argument("--bench-dir", type=_existing_dir, default=BENCH_DIR, metavar="DIR",
                    help="where the bench_*.py scripts are (default: benchmarks/)")
    ap.add_argument("--times-file", type=_times_file, default=TIMES_FILE, metavar="CSV",
                    help="recorded wall times, read for the estimate and updated (default: build/bench_times.csv)")
    ap.add_argument("-x", "--fail-fast", action="store_true", help="stop after the first failing script")
    ap.add_argument("--list", action="store_true", help="print the scripts and the estimate, run nothing")
    return ap


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    scripts = discover(args.bench_dir, args.only)
    if not scripts:
        where = f" matching {args.only!r}" if args.only else ""
        print(f"bench: no {BENCH_GLOB}{where} in {args.bench_dir}", file=sys.stderr)
        return 1 if args.only else 0
    if args.list:
        try:
            recorded = timing.read_times(args.times_file, BENCH_COLUMNS)
        except ValueError as exc:
            print(f"ignoring the recorded times: {exc}")
            recorded = {}
        print(plan(scripts, recorded, display_path(args.times_file))[1])
        return 0
    results = run_benchmarks(scripts, times_file=args.times_file, fail_fast=args.fail_fast)
    failed = [r.script for r in results if not r.ok]
    if failed:
        print(f"bench: {len(failed)} of {len(results)} script(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
