"""What a cold numba cache costs, per kernel family, and what the warm-up leaves to the notebooks (decision S33).

0. With ``--where FAMILY``, printed first: that family alone (fresh process, empty cache) with the compile CPU seconds
   of each function, exclusive of the functions it compiled meanwhile (a caller's own time includes
   re-optimizing the code it links: numba optimizes a caller's module with its callees' code linked in), and
   its specializations -- where a family's compile time goes (docs/speed.md, 2026-11-30).
1. **Per family, alone**: each :data:`simlib.pipeline.warm.FAMILIES` entry in a fresh subprocess with
   ``NUMBA_CACHE_DIR`` pointed at an empty temporary folder (so kernels shared by two families count in
   both): its runs (the first calls of tiny representative trials of its engine), the specializations numba
   compiled, the CPU seconds spent holding numba's compiler lock (compiling), the process CPU and wall
   seconds.  CPU seconds, not wall: they hold under load, which only stretches the wall time.
2. **The warm-up**: every family into one empty cache with ``--jobs`` processes (default: the cores), its
   wall time and the specializations it compiled, then again with the stamp current (the no-op path) and
   with ``--force`` (every family loads from the cache, compiles nothing).
3. **Specializations per function**: the functions with more than one compiled signature, and how their
   signatures differ (``Literal[int](0)`` against ``int64``: a constant argument passed by a compiled caller;
   ``'A'`` against ``'C'``: an array layout; ``readonly``).
4. With ``--reference-cache DIR`` (a numba cache written by a reproduction: a fresh clone's ``simlib/``
   after ``make reproduce``, or the ``NUMBA_CACHE_DIR`` of a run), the specializations in it that the
   warm-up did not compile (what the notebooks would still compile).  With ``--quick-notebooks`` it runs
   the quick profile's notebooks (``python -m simlib.pipeline.notebooks --profile quick``, run folders under
   build/runs/) on the warmed cache and counts the specializations they compiled (expect 0; takes
   ~10 min on 2 cores).
5. With ``--notebook-families`` (only that): the check of :data:`simlib.pipeline.warm.NOTEBOOK_FAMILIES` (decision
   S38) -- for each set of families named there, only those families warmed into an empty cache, then the quick
   profile of the notebooks naming that set run on it from an empty trial cache (``SIMLIB_HOME`` a temporary
   folder: run folders and trials there); the specializations they compiled (expect none: such a notebook may
   start beside the warm-up, which must then be the only process saving kernels).  ~6 min on 2 cores.

    python benchmarks/bench_cold_compile.py [--jobs 2] [--only cluster] [--reference-cache ../fresh/simlib]
                                            [--quick-notebooks] [--keep DIR] [--where cluster-selective]
                                            [--notebook-families]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.pipeline import warm  # noqa: E402


def _env(cache: Path) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def family_alone(name: str) -> dict:
    """:func:`simlib.pipeline.warm.run_family` of ``name`` in a fresh subprocess on an empty cache."""
    with tempfile.TemporaryDirectory(prefix="coldjit-") as tmp:
        out = Path(tmp) / "r.json"
        subprocess.run([sys.executable, "-m", "simlib.pipeline.warm", "--family", name, "--result", str(out)],
                       env=_env(Path(tmp) / "numba"), cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())


_WHERE = """
import json, sys, time
from numba.core import event
from simlib.pipeline import warm
stack, rows = [], []
class L(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        stack.append([f.__module__ + "." + f.__qualname__, time.process_time(), 0.0])
    def on_end(self, ev):
        name, t0, inner = stack.pop()
        total = time.process_time() - t0
        if stack:
            stack[-1][2] += total
        rows.append((name, total - inner))
with event.install_listener("numba:compile", L()):
    r = warm.run_family(sys.argv[1])
json.dump({"result": r, "rows": rows}, open(sys.argv[2], "w"))
"""


def family_where(name: str) -> dict:
    """Family ``name`` alone as :func:`family_alone`, with ``rows``: (function, exclusive compile CPU s) per
    specialization compiled."""
    with tempfile.TemporaryDirectory(prefix="coldjit-") as tmp:
        out = Path(tmp) / "r.json"
        subprocess.run([sys.executable, "-c", _WHERE, name, str(out)], env=_env(Path(tmp) / "numba"), cwd=ROOT,
                       check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())


def _warm_cmd(cache: Path, jobs: int, *extra: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simlib.pipeline.warm", "--jobs", str(jobs), *extra],
                   env=_env(cache), cwd=ROOT, check=True)
    return time.perf_counter() - t0


def notebook_families_check(jobs: int) -> int:
    """Step 5 of the module docstring; prints one line per set of families, returns how many sets failed (a
    notebook failed or compiled a specialization)."""
    groups = {}
    for key, families in warm.NOTEBOOK_FAMILIES.items():
        groups.setdefault(tuple(families), []).append(key)
    bad = 0
    print("5. the notebooks that name their kernel families (warm.NOTEBOOK_FAMILIES), quick profile, on a cache "
          "with only those families compiled, from an empty trial cache")
    for families, keys in groups.items():
        with tempfile.TemporaryDirectory(prefix="coldjit-nb-") as tmp:
            cache = Path(tmp) / "numba"
            warm_s = _warm_cmd(cache, jobs, *[a for f in families for a in ("--only", f)])
            before = warm.compiled_files(cache)
            t0 = time.perf_counter()
            env = dict(_env(cache), SIMLIB_HOME=str(Path(tmp) / "home"))
            run = subprocess.run([sys.executable, "-m", "simlib.pipeline.notebooks", "--profile", "quick", "--no-probe",
                                  *[a for k in keys for a in ("--only", f"{k}_")]], env=env, cwd=ROOT,
                                 capture_output=True, text=True)
            new = sorted({Path(p).name for p, *_ in warm.compiled_files(cache) - before if p.endswith(".nbc")})
            bad += bool(run.returncode or new)
            print(f"  {'+'.join(families)}: warmed in {warm_s:.0f} s; notebooks {' '.join(keys)}: exit "
                  f"{run.returncode}, {time.perf_counter() - t0:.0f} s, {len(new)} specialization(s) compiled"
                  + "".join(f"\n    {n}" for n in new))
            if run.returncode:
                print("    " + "\n    ".join((run.stdout + run.stderr).strip().splitlines()[-8:]))
    return bad


def _why(sigs: list[str]) -> str:
    reasons = []
    if any("Literal[int]" in s for s in sigs):
        reasons.append("literal int argument")
    if any("'A'" in s for s in sigs) and any("'C'" in s for s in sigs):
        reasons.append("array layout A vs C")
    if any("readonly" in s for s in sigs) and len({s.count("readonly") for s in sigs}) > 1:
        reasons.append("readonly vs writable array")
    if any("Tuple(" in s or "UniTuple(" in s for s in sigs) and any(re.search(r"\b[A-Z]\w+\(", s) for s in sigs):
        reasons.append("tuple vs structref argument")
    return ", ".join(reasons) or "other argument types"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes of the warm-up (default: cores)")
    ap.add_argument("--only", action="append", choices=[f.name for f in warm.FAMILIES],
                    help="measure only these families alone (repeatable); the warm-up still runs all")
    ap.add_argument("--reference-cache", type=Path, metavar="DIR",
                    help="a numba cache written by a reproduction, compared with the warm-up's")
    ap.add_argument("--quick-notebooks", action="store_true",
                    help="run the quick profile's notebooks on the warmed cache and count what they compile")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="warm into DIR (kept) instead of a temporary folder")
    ap.add_argument("--notebook-families", action="store_true",
                    help="only check warm.NOTEBOOK_FAMILIES: each set's notebooks (quick) compile nothing after "
                         "warming only that set")
    ap.add_argument("--where", choices=[f.name for f in warm.FAMILIES], metavar="FAMILY",
                    help="first, the compile CPU seconds of each function of this family (alone, empty cache)")
    args = ap.parse_args(argv)

    if args.notebook_families:
        stamp = warm.stamp_path()
        saved = stamp.read_bytes() if stamp.is_file() else None
        try:
            return 1 if notebook_families_check(args.jobs) else 0
        finally:
            if saved is not None:
                stamp.write_bytes(saved)
    if args.where:
        w = family_where(args.where)
        per = {}
        for name, s in w["rows"]:
            k, t = per.get(name, (0, 0.0))
            per[name] = (k + 1, t + s)
        r = w["result"]
        print(f"0. {args.where} alone: {r['compiled']} specializations, {r['compile_cpu_s']:.1f} compile CPU s; "
              f"per function (exclusive CPU s, specializations), the 30 largest:")
        for name, (k, t) in sorted(per.items(), key=lambda kv: -kv[1][1])[:30]:
            print(f"  {t:7.1f} {k:4d}  {name}")
        print()
    print("1. each family alone, fresh process, empty NUMBA_CACHE_DIR (CPU seconds)")
    print(f"{'family':<18} {'runs':>5} {'compiled':>9} {'compile CPU s':>14} {'CPU s':>7} {'wall s':>7}")
    total = {"runs": 0, "compiled": 0, "compile_cpu_s": 0.0, "cpu_s": 0.0, "wall_s": 0.0}
    for fam in warm.FAMILIES:
        if args.only and fam.name not in args.only:
            continue
        r = family_alone(fam.name)
        for k in total:
            total[k] += r[k]
        print(f"{fam.name:<18} {r['runs']:>5} {r['compiled']:>9} {r['compile_cpu_s']:>14.1f} {r['cpu_s']:>7.1f} "
              f"{r['wall_s']:>7.1f}" + (f"  ({len(r['errors'])} failed: {r['errors'][0]})" if r["errors"] else ""))
    print(f"{'sum':<18} {total['runs']:>5} {total['compiled']:>9} {total['compile_cpu_s']:>14.1f} "
          f"{total['cpu_s']:>7.1f} {total['wall_s']:>7.1f}")

    tmp = None
    if args.keep:
        cache = args.keep
        shutil.rmtree(cache, ignore_errors=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="coldjit-warm-")
        cache = Path(tmp.name) / "numba"
    stamp = warm.stamp_path()
    saved = stamp.read_bytes() if stamp.is_file() else None
    try:
        print(f"\n2. the warm-up, all families into one empty cache, --jobs {args.jobs}")
        cold = _warm_cmd(cache, args.jobs, "--force")
        files = len([p for p in cache.rglob("*.nbc")])
        again = _warm_cmd(cache, args.jobs)
        forced = _warm_cmd(cache, args.jobs, "--force")
        print(f"cold: {cold:.1f} s wall, {files} specializations cached; again (stamp current): {again:.1f} s; "
              f"again --force (everything loaded from the cache): {forced:.1f} s")

        sigs = warm.cached_signatures(cache)
        multi = {k: v for k, v in sigs.items() if len(v) > 1}
        print(f"\n3. {sum(map(len, sigs.values()))} specializations of {len(sigs)} functions; "
              f"{len(multi)} functions with more than one:")
        for name, v in sorted(multi.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"  {len(v)}  {name}: {_why(v)}")

        if args.reference_cache:
            ref = warm.cached_signatures(args.reference_cache)
            missing = {k: sorted(set(v) - set(sigs.get(k, ()))) for k, v in ref.items()}
            missing = {k: v for k, v in missing.items() if v}
            print(f"\n4. reference cache {args.reference_cache}: {sum(map(len, ref.values()))} specializations of "
                  f"{len(ref)} functions; not compiled by the warm-up: {sum(map(len, missing.values()))}")
            for k, v in sorted(missing.items()):
                for s in v:
                    print(f"  {k}: {s[:300]}")
        if args.quick_notebooks:
            before = warm.compiled_files(cache)
            t0 = time.perf_counter()
            run = subprocess.run([sys.executable, "-m", "simlib.pipeline.notebooks", "--profile", "quick"],
                                 env=_env(cache), cwd=ROOT)
            after = warm.compiled_files(cache)
            new = sorted({Path(p).name for p, *_ in after - before if p.endswith(".nbc")})
            print(f"\n5. quick-profile notebooks on the warmed cache: exit {run.returncode}, "
                  f"{time.perf_counter() - t0:.0f} s; specializations compiled by them: {len(new)}")
            for name in new:
                print(f"  {name}")
    finally:
        if saved is not None:
            stamp.write_bytes(saved)
        else:
            stamp.unlink(missing_ok=True)
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
