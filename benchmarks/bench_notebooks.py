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

from simlib.core.validate import check_real  # noqa: E402
from simlib.papers.cli_gen import num_arg  # noqa: E402
from simlib.pipeline import notebooks, timing  # noqa: E402

#: Issue 9: a full reproduction (`make reproduce`) should take at most 15 minutes.
REPRODUCE_TARGET_S = 15 * 60


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


def _display(path: Path) -> str:
    path, root = Path(path).resolve(), notebooks.ROOT.resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


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
    print(notebook_times_report(recorded, [p.stem for p in notebooks.discover()],
                                      target_s=args.target_min * 60,
                                      source=_display(args.times_file)))
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
            print(reference_report(recorded, refs["--reference"], refs["--reference-then"],
                                         target_s=args.target_min * 60))
        except ValueError as exc:
            ap.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
