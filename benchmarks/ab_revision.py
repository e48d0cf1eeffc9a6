"""Shared steps of the A/B benchmarks that run another git revision's ``simlib`` beside this one
(``bench_cluster_loop.py --rev``, ``ab_training_replay.py --rev``): extract the revision's package,
and run one side's worker in a subprocess that reads a JSON spec on stdin and prints a JSON line."""
from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def extract(rev: str) -> Path:
    """``build/ab_<rev>/simlib``: revision ``rev``'s package (``git archive``), extracted once."""
    dest = ROOT / "build" / f"ab_{rev}"
    if not (dest / "simlib").exists():
        data = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "simlib"], check=True,
                              capture_output=True).stdout
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            tf.extractall(dest)
    return dest


def run_worker(cmd: list[str], spec: dict, *, env: dict, cwd: Path, root: Path) -> dict:
    """Run ``cmd`` (a worker) with ``spec`` as JSON on stdin; its last stdout line parsed as JSON.
    A failing worker prints its stderr and stops the benchmark, naming the side (``root``)."""
    r = subprocess.run(cmd, input=json.dumps(spec), capture_output=True, text=True, env=env, cwd=str(cwd))
    if r.returncode:
        sys.stderr.write(r.stderr)
        raise SystemExit(f"the run with PYTHONPATH={root} failed")
    return json.loads(r.stdout.strip().splitlines()[-1])
