"""A/B of `make venv` from fresh clones: two revisions' set-up (decision S42), interleaved, same run.

Each round clones the repository twice under ``--root`` (``git clone --shared``, then the revision checked out),
runs ``make -s venv`` in each (the side that goes first alternates), and times it from the clone to "venv ready"
(the venv created, requirements.txt installed, the kernel registered, SimGrid's shim run): wall seconds and
CPU seconds (user + system) of make and every process it waited for.  Then it checks what got installed:
``pip freeze`` of both venvs must be equal (pip itself is not listed), and so must the set of ``.pyc`` files in
site-packages (pip's own folders apart, whose version may differ): with ``PYTHONDONTWRITEBYTECODE`` set, a file
without its ``.pyc`` would be compiled from source by every process that imports it.  It also times one
interpreter importing the notebooks' stack in each venv (CPU seconds), which those ``.pyc`` files decide.

    python benchmarks/ab_venv.py --old 0b4ac6e --new HEAD --pairs 3 --nice 10

pip's cache (``pip cache dir``) is shared by both sides: after the first install it is warm for both.  Prints a
row per run (load average at its start) and the medians and the ratio new/old; exits 1 if an install differs.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What a notebook kernel and a sweep worker import (the notebooks' stack; simlib itself is read from the checkout).
STACK = "import numpy, scipy.stats, pandas, matplotlib.pyplot, numba, seaborn, papermill, jupyter_client, nbformat"


def _children_cpu() -> float:
    """User + system CPU seconds of every waited-for child process so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _timed(cmd: list[str], cwd: Path, nice: int) -> tuple[float, float]:
    """Runs ``cmd`` under ``nice``; returns (wall s, CPU s of it and its waited-for descendants); raises on failure."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    subprocess.run(["nice", "-n", str(nice), *cmd], cwd=cwd, check=True, stdin=subprocess.DEVNULL,
                   env={**os.environ, "MAKEFLAGS": ""})
    return time.perf_counter() - t0, _children_cpu() - cpu0


def _clone(rev: str, dest: Path) -> None:
    """A fresh clone of this repository at ``rev`` (its Makefile and requirements.txt are what is timed)."""
    shutil.rmtree(dest, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(ROOT), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "--detach", rev], check=True)


def _site(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def _installed(venv: Path) -> tuple[str, set[str], str]:
    """(pip freeze, the .pyc files of site-packages outside pip's folders, pip's version) of ``venv``."""
    py = str(venv / "bin" / "python")
    freeze = subprocess.run([py, "-m", "pip", "freeze", "--disable-pip-version-check"], check=True,
                            capture_output=True, text=True).stdout
    site = _site(venv)
    pyc = {p.relative_to(site).as_posix() for p in site.rglob("*.pyc")}
    pyc = {p for p in pyc if not p.startswith(("pip/", "pip-"))}
    version = subprocess.run([py, "-m", "pip", "--version"], capture_output=True, text=True).stdout.split()[1]
    return freeze, pyc, version


def _import_cpu(venv: Path, nice: int) -> float:
    """CPU seconds of one interpreter of ``venv`` importing the notebooks' stack (``STACK``)."""
    return _timed([str(venv / "bin" / "python"), "-c", STACK], venv, nice)[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", default="0b4ac6e", help="revision A (default 0b4ac6e)")
    ap.add_argument("--new", default="HEAD", help="revision B (default HEAD)")
    ap.add_argument("--pairs", type=int, default=3, help="rounds, each A and B once (default 3)")
    ap.add_argument("--nice", type=int, default=10, help="niceness of every timed command (default 10)")
    ap.add_argument("--root", type=Path, default=Path("/tmp/ab_venv"), help="where the clones go (emptied)")
    args = ap.parse_args(argv)
    if args.pairs < 1:
        ap.error("--pairs must be at least 1")
    sides = {"old": subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.old], check=True,
                                   capture_output=True, text=True).stdout.strip(),
             "new": subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.new], check=True,
                                   capture_output=True, text=True).stdout.strip()}
    times: dict[str, list[tuple[float, float, float]]] = {"old": [], "new": []}
    same = True
    print(f"old {sides['old'][:10]}  new {sides['new'][:10]}  pairs {args.pairs}  nice {args.nice}")
    print("pair side   load1  wall_s  cpu_s  import_cpu_s  pip")
    for pair in range(args.pairs):
        order = ("old", "new") if pair % 2 == 0 else ("new", "old")
        seen = {}
        for side in order:
            dest = args.root / side
            _clone(sides[side], dest)
            load = os.getloadavg()[0]
            wall, cpu = _timed(["make", "-s", "venv", "VENV=.venv"], dest, args.nice)
            seen[side] = _installed(dest / ".venv")
            imp = _import_cpu(dest / ".venv", args.nice)
            times[side].append((wall, cpu, imp))
            print(f"{pair:4d} {side:5s} {load:6.2f} {wall:7.1f} {cpu:6.1f} {imp:12.2f}  {seen[side][2]}", flush=True)
        for what, i in (("pip freeze", 0), (".pyc files", 1)):
            if seen["old"][i] != seen["new"][i]:
                same = False
                a, b = seen["old"][i], seen["new"][i]
                diff = (set(a.splitlines()) ^ set(b.splitlines())) if i == 0 else (a ^ b)
                print(f"     {what} differ: {sorted(diff)[:10]}")
        for side in order:
            shutil.rmtree(args.root / side)
    med = {side: [statistics.median(r[k] for r in times[side]) for k in range(3)] for side in times}
    for k, name in enumerate(("wall_s", "cpu_s", "import_cpu_s")):
        print(f"median {name}: old {med['old'][k]:.1f}  new {med['new'][k]:.1f}  new/old {med['new'][k] / med['old'][k]:.2f}")
    print("installs identical (pip freeze, .pyc files)" if same else "INSTALLS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
