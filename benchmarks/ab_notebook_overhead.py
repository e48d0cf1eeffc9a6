"""A/B benchmark of a notebook's fixed cost (issue 48): each notebook run as ``make reproduce --jobs 2`` runs it,
in a runner process of its own (``python -m simlib.pipeline.notebooks --run-job``: papermill, a fresh kernel,
the scrub), once with an older checkout (``--old``) and once with this one, alternating which goes first.

``--old`` is another checkout whose numba cache is warm (e.g. ``cp -a`` of this one, then the old revision's
files checked out into it: ``cp -a`` keeps the sources' modification times, which numba's cache index checks);
each side's runner and kernel import that side's ``simlib`` and write into that side's ``build/``.  The runs
are non-publishing (``-p seed 0``: the defaults, written to ``build/runs/<notebook>/<hash>/``), so no committed
file is touched; their trial caches are the sides' own (``data/cache/``: run each notebook once first so both
are warm, or both cold).  Prints per notebook the median wall and CPU seconds (the runner process and every
process it waited for: kernel, sweep workers) of each side, old/new, and whether the two run folders hold the
same files byte for byte (executed notebook included: it is scrubbed of paths); exit 1 if any differs.

    python benchmarks/ab_notebook_overhead.py --old /tmp/old_checkout [--only 10_ --only 40_] [--repeats 3]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ONLY = ("00_", "10_", "20_", "40_")


def run_job(root: Path, notebook: Path, nice: int) -> tuple[float, float, Path]:
    """Run ``notebook`` of ``root`` in a ``--run-job`` process with ``root``'s simlib: (wall s, CPU s of the
    process and its waited-for children, the run folder)."""
    code = ("import pickle, sys; from pathlib import Path; from simlib.pipeline.notebooks import ExecOptions; "
            "root = Path(sys.argv[1]); sys.stdout.buffer.write(pickle.dumps((Path(sys.argv[2]), "
            "{'profile': 'full', 'seed': 0}, dict(build_dir=root / 'build', options=ExecOptions(), root=root, "
            "publish=False, label='', dask_address=None), True, 0)))")
    env = dict(os.environ, PYTHONPATH=str(root))
    job = subprocess.run([sys.executable, "-c", code, str(root), str(notebook)], env=env, check=True,
                         capture_output=True).stdout
    with tempfile.TemporaryDirectory(prefix="ab-nb-") as tmp:
        (Path(tmp) / "job.pickle").write_bytes(job)
        cmd = (["nice", "-n", str(nice)] if nice else []) + [
            sys.executable, "-m", "simlib.pipeline.notebooks", "--run-job", str(Path(tmp) / "job.pickle"),
            str(Path(tmp) / "out.pickle")]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=str(root))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        res = pickle.loads((Path(tmp) / "out.pickle").read_bytes()) if status == 0 else None
    if res is None or not res["ok"]:
        raise SystemExit(f"{notebook.name} failed with {root}: {res and res['error']}")
    return wall, usage.ru_utime + usage.ru_stime, Path(res["out_dir"])


def digest(folder: Path, root: Path) -> dict:
    """sha256 of every file under ``folder`` by relative path (the run's ``notebook_times.csv`` left out); in an
    executed notebook ``root`` is replaced by ``.`` first (papermill's injected cell names the run folder)."""
    def data(p: Path) -> bytes:
        return p.read_bytes().replace(str(root).encode(), b".") if p.suffix == ".ipynb" else p.read_bytes()

    return {p.relative_to(folder).as_posix(): hashlib.sha256(data(p)).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "notebook_times.csv"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True, help="a checkout of the old revision with a warm numba cache")
    ap.add_argument("--only", action="append", help=f"notebook name prefix (repeatable; default {DEFAULT_ONLY})")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--nice", type=int, default=0, help="run both sides under nice -n NICE")
    args = ap.parse_args(argv)
    sides = {"old": args.old.resolve(), "new": ROOT}
    names = [p.name for prefix in (args.only or DEFAULT_ONLY)
             for p in sorted((ROOT / "notebooks").glob(f"{prefix}*.py"))]
    times = {n: {s: [] for s in sides} for n in names}
    same = {}
    for i in range(args.repeats):
        for n in names:
            order = list(sides) if (i + names.index(n)) % 2 == 0 else list(sides)[::-1]
            folders = {}
            for side in order:
                wall, cpu, folders[side] = run_job(sides[side], sides[side] / "notebooks" / n, args.nice)
                times[n][side].append((wall, cpu))
            a, b = digest(folders["old"], sides["old"]), digest(folders["new"], ROOT)
            diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            same[n] = same.get(n, []) + diff
            print(f"round {i + 1}: {n}: " + ", ".join(f"{s} {w:.2f} s wall {c:.2f} CPU-s"
                                                      for s in order for w, c in [times[n][s][-1]]), flush=True)
    print(f"\n{'notebook':<40} {'old wall':>8} {'new wall':>8} {'old CPU':>8} {'new CPU':>8} {'old-new CPU':>11}  same files")
    total = {s: [0.0, 0.0] for s in sides}
    for n in names:
        med = {s: (statistics.median(w for w, _ in times[n][s]), statistics.median(c for _, c in times[n][s]))
               for s in sides}
        for s in sides:
            total[s][0] += med[s][0]
            total[s][1] += med[s][1]
        print(f"{n[:-3]:<40} {med['old'][0]:>8.2f} {med['new'][0]:>8.2f} {med['old'][1]:>8.2f} {med['new'][1]:>8.2f} "
              f"{med['old'][1] - med['new'][1]:>11.2f}  " + ("yes" if not same[n] else f"NO: {sorted(set(same[n]))}"))
    print(f"{'sum of medians':<40} {total['old'][0]:>8.2f} {total['new'][0]:>8.2f} {total['old'][1]:>8.2f} "
          f"{total['new'][1]:>8.2f} {total['old'][1] - total['new'][1]:>11.2f}")
    return 0 if not any(same.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
