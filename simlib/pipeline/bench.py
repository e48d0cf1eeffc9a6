"""Run the benchmark scripts (``make bench``): ``python -m simlib.pipeline.bench``.

Before it starts it lists every ``benchmarks/bench_*.py`` (sorted by name) with
its estimated time and the estimated total, from the wall time each script took
the last time it ran here (``build/bench_times.csv``, untracked, columns
:data:`simlib.pipeline.timing.BENCH_COLUMNS`; "no estimate yet" before the
first run).  It then runs each script with this interpreter, the repository
root as working directory and first on ``PYTHONPATH``, under a header
``[i/N] bench_x.py (est. 12s)``, records its wall time as soon as it finishes,
and ends with a table of estimated and measured times.  The exit status is 1
if any script failed (all of them run unless ``-x``).

:func:`notebook_times_report` is the text of ``benchmarks/bench_notebooks.py``:
the per-notebook times of the last full reproduction against the target;
:func:`reference_report` judges them beside a reference reproduction run the same
day (decision S18: the machine's speed changes from day to day).
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

from simlib.core.paths import REPO_ROOT as ROOT
from simlib.core.validate import check_real
from simlib.pipeline import timing

BENCH_DIR = ROOT / "benchmarks"
TIMES_FILE = ROOT / "build" / "bench_times.csv"
BENCH_GLOB = "bench_*.py"
#: Issue 9: a full reproduction (`make reproduce`) should take at most 15 minutes.
REPRODUCE_TARGET_S = 15 * 60


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
        recorded, unreadable = timing.read_times(times_file, timing.BENCH_COLUMNS), ""
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
            timing.update_times(times_file, [timing.Timing(res.script, res.wall_s, res.ok)], timing.BENCH_COLUMNS)
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


def notebook_times_report(recorded: dict, notebooks: list[str] | None = None,
                          target_s: float = REPRODUCE_TARGET_S, source: str = "") -> str:
    """Per-notebook wall and CPU times of a reproduction, their total, and the total against ``target_s``.

    ``recorded``: :func:`simlib.pipeline.timing.read_times` of a notebook times
    file; ``notebooks``: the notebooks that exist now (those without a recorded
    time are listed, and make the total a lower bound).
    """
    target_s = check_real("target_s", target_s, lo=0.0, lo_open=True)
    rows = sorted(recorded.values(), key=lambda r: r.name)
    where = f" ({source})" if source else ""
    if not rows:
        return f"no recorded notebook times{where}: run the full reproduction (make reproduce) first"
    table = [("notebook", "profile", "wall", "cpu", "cpu/wall", "")]
    for r in rows:
        ratio = "-" if r.cpu_s is None or r.wall_s <= 0 else f"{r.cpu_s / r.wall_s:.2f}"
        table.append((r.name, r.profile, timing.format_duration(r.wall_s),
                      "-" if r.cpu_s is None else timing.format_duration(r.cpu_s), ratio, "" if r.ok else "FAILED"))
    wall = sum(r.wall_s for r in rows)
    cpus = [r.cpu_s for r in rows if r.cpu_s is not None]
    cpu = sum(cpus) if len(cpus) == len(rows) else None
    table.append(("total", "", timing.format_duration(wall), "-" if cpu is None else timing.format_duration(cpu),
                  "-" if cpu is None or wall <= 0 else f"{cpu / wall:.2f}", ""))
    width = [max(len(t[i]) for t in table) for i in range(5)]
    lines = [f"{t[0]:<{width[0]}}  {t[1]:<{width[1]}}  {t[2]:>{width[2]}}  {t[3]:>{width[3]}}  "
             f"{t[4]:>{width[4]}}  {t[5]}".rstrip() for t in table]
    lines.insert(0, f"notebook times of the last full reproduction{where}:")
    missing = sorted(set(notebooks or ()) - set(recorded))
    failed = [r.name for r in rows if not r.ok]
    bound = "at least " if missing or failed else ""
    verdict = (f"within the target by {timing.format_duration(target_s - wall)}" if wall <= target_s
               else f"over the target by {timing.format_duration(wall - target_s)}")
    lines.append(f"total {bound}{timing.format_duration(wall)} for {len(rows)} notebooks against the "
                 f"{timing.format_duration(target_s)} target of issue 9: {verdict} "
                 f"({wall / target_s:.0%} of the target)")
    if missing:
        lines.append(f"no recorded time for {len(missing)} notebook(s) (new since): {', '.join(missing)}")
    gone = sorted(set(recorded) - set(notebooks)) if notebooks is not None else []
    if gone:
        lines.append(f"recorded but no longer in notebooks/: {', '.join(gone)}")
    if failed:
        lines.append(f"failed in that run (time until the failure): {', '.join(failed)}")
    return "\n".join(lines)


def _total_wall(recorded: dict, what: str) -> float:
    if not recorded:
        raise ValueError(f"{what} has no recorded notebook times")
    failed = sorted(r.name for r in recorded.values() if not r.ok)
    if failed:
        raise ValueError(f"{what} is not a complete reproduction: {', '.join(failed)} failed")
    return sum(r.wall_s for r in recorded.values())


def reference_report(recorded: dict, reference: dict, reference_then: dict,
                     target_s: float = REPRODUCE_TARGET_S) -> str:
    """The last reproduction against the target on the machine the target was set on (decision S18).

    This machine's speed changes from day to day (the same code's reproduction took 2.4 times
    longer on one day than on another), so a reproduction time is compared with a *reference*
    reproduction -- another commit's, run on the same day -- instead of with the clock alone.
    ``recorded``: the last reproduction's times ({name: Timing}); ``reference``: the reference
    commit's reproduction run the same day; ``reference_then``: the same commit's reproduction as
    recorded when the target was set.  The machine factor is reference / reference_then (total
    wall times); the last reproduction, divided by it, is compared with ``target_s``.  Raises
    ValueError if a file is empty or holds a failed notebook.
    """
    target_s = check_real("target_s", target_s, lo=0.0, lo_open=True)
    wall = _total_wall(recorded, "the last reproduction")
    ref = _total_wall(reference, "the reference run")
    then = _total_wall(reference_then, "the reference as recorded then")
    if then <= 0 or ref <= 0:
        raise ValueError("the reference's total wall time must be > 0 s")
    factor = ref / then
    scaled = wall / factor
    table = [("notebook", "last", "reference", "last / reference")]
    for name in sorted(set(recorded) | set(reference)):
        a, b = recorded.get(name), reference.get(name)
        ratio = f"{a.wall_s / b.wall_s:.2f}" if a is not None and b is not None and b.wall_s > 0 else "-"
        table.append((name, "-" if a is None else timing.format_duration(a.wall_s),
                      "-" if b is None else timing.format_duration(b.wall_s), ratio))
    table.append(("total", timing.format_duration(wall), timing.format_duration(ref), f"{wall / ref:.2f}"))
    width = [max(len(t[i]) for t in table) for i in range(4)]
    lines = ["the last reproduction beside the reference reproduction run the same day:"]
    lines += [f"{t[0]:<{width[0]}}  {t[1]:>{width[1]}}  {t[2]:>{width[2]}}  {t[3]:>{width[3]}}" for t in table]
    verdict = "within" if scaled <= target_s else "over"
    lines.append(f"machine factor: the reference took {timing.format_duration(ref)} that day and "
                 f"{timing.format_duration(then)} when the target was set ({factor:.2f}x); the last reproduction, "
                 f"{timing.format_duration(wall)}, is {timing.format_duration(scaled)} on the machine of then: "
                 f"{verdict} the {timing.format_duration(target_s)} target ({scaled / target_s:.0%} of it)")
    return "\n".join(lines)


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
        prog="python -m simlib.pipeline.bench",
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
            recorded = timing.read_times(args.times_file, timing.BENCH_COLUMNS)
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
