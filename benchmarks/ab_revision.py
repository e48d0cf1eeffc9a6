"""Shared steps of the A/B benchmarks that run another git revision's ``simlib`` beside this one
(``bench_cluster_loop.py --rev``, ``ab_training_replay.py --rev``): extract the revision's package,
and run one side's worker in a subprocess that reads a JSON spec on stdin and prints a JSON line."""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def extract(rev: str) -> Path:
    """``build/ab_<commit>/simlib``: revision ``rev``'s package (``git archive``), extracted once per commit.
    The folder is named by the commit ``rev`` resolves to (12 hex digits), so a moving name such as ``HEAD``
    or a branch never finds an older extraction."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"], check=True,
                            capture_output=True, text=True).stdout.strip()
    dest = ROOT / "build" / f"ab_{commit[:12]}"
    if not (dest / "simlib").exists():
        data = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "simlib"], check=True,
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


def ab_arguments(doc: str, rev: str, repeats: int) -> argparse.ArgumentParser:
    """A parser with the options every A/B script shares: ``--rev`` (default ``rev``), ``--repeats``
    (default ``repeats``), ``--nice`` and the hidden ``--worker`` (run one side here)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--rev", default=rev, help="the previous implementation (a git revision)")
    ap.add_argument("--repeats", type=int, default=repeats)
    ap.add_argument("--nice", type=int, default=0, help="run both sides under nice -n NICE")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    return ap


def run_script_worker(script: str, spec: dict, root: Path, nice: int = 0) -> dict:
    """:func:`run_worker` of ``script --worker`` with ``PYTHONPATH`` at ``root`` (one side's ``simlib``),
    under ``nice -n nice`` when ``nice`` is not 0."""
    cmd = (["nice", "-n", str(nice)] if nice else []) + [sys.executable, str(Path(script).resolve()), "--worker"]
    return run_worker(cmd, spec, env=dict(os.environ, PYTHONPATH=str(root)), cwd=ROOT, root=root)


def interleave_and_report(groups: dict, old_root, run_side, repeats: int, diff, label: str) -> int:
    """Run the old side (``old_root``) and this checkout ``repeats`` times, alternating which goes first;
    ``run_side(root)`` returns ``{group: {"cpu": s, "rows": [...]}}``.  Print per group the median CPU
    seconds of each side, their ratio old/new and whether every row is identical (``diff(a, b)``: the
    differing keys of two rows); 0 if all are identical, else 1.  ``old_root`` may also be a dict
    ``{name: root}`` of several old sides: all run in the same rounds (each round's order rotated by one),
    and a table compares each with this checkout."""
    import statistics

    olds = old_root if isinstance(old_root, dict) else {"old": old_root}
    sides = [*olds.items(), ("new", ROOT)]
    cpu = {g: {side: [] for side, _ in sides} for g in groups}
    rows = dict.fromkeys([side for side, _ in sides])
    for i in range(repeats):
        k = i % len(sides)
        for side, root in sides[k:] + sides[:k]:
            res = run_side(root)
            for g in groups:
                cpu[g][side].append(res[g]["cpu"])
            rows[side] = rows[side] or {g: res[g]["rows"] for g in groups}
    same = True
    for old in olds:
        if len(olds) > 1:
            print(f"old = {old}")
        print(f"{label:>14} {'runs':>5} {'old CPU s':>10} {'new CPU s':>10} {'old/new':>8}  identical")
        for g in groups:
            o, n = statistics.median(cpu[g][old]), statistics.median(cpu[g]["new"])
            found = [(i, d) for i, (a, b) in enumerate(zip(rows[old][g], rows["new"][g])) for d in diff(a, b)]
            same &= not found
            print(f"{g:>14} {len(groups[g]):>5} {o:>10.2f} {n:>10.2f} {o / max(n, 1e-9):>7.2f}x  "
                  + ("yes" if not found else f"NO: {len(found)} values, first {found[:3]}"), flush=True)
    return 0 if same else 1


def committed_diffs(out: dict, row, skip_suffix: str = "_time_ms") -> int:
    """How many of a trial's outputs ``out`` differ from the committed CSV ``row`` (a pandas Series) in the
    columns they share: a value compared as ``repr(float(.))``, an empty cell equal only to a NaN; columns
    ending in ``skip_suffix`` (wall-clock times) left out."""
    import math

    import pandas as pd
    bad = 0
    for c, v in out.items():
        if (skip_suffix and c.endswith(skip_suffix)) or c not in row.index:
            continue
        if pd.isna(row[c]):
            bad += not (isinstance(v, float) and math.isnan(v))
        elif repr(float(v)) != repr(float(row[c])):
            bad += 1
    return bad


def row_diff(a: dict, b: dict) -> list:
    """The keys whose values differ between two output rows (``interleave_and_report``'s ``diff``)."""
    return [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def time_rows(call, rows: list, skip_suffix: str = "_time_ms") -> dict:
    """``call(params, trial)`` for each ``(params, trial, committed row)`` of ``rows``, timed together in process
    CPU seconds: ``{"cpu", "committed_diffs"`` (:func:`committed_diffs` summed), ``"rows"`` (each output as
    ``{key: repr(value)}``, keys ending in ``skip_suffix`` left out)``}``, a worker's group of
    :func:`interleave_and_report`."""
    import time
    t0 = time.process_time()
    res = [call(p, t) for p, t, _ in rows]
    cpu = time.process_time() - t0
    diffs = sum(committed_diffs(r, row, skip_suffix) for r, (_, _, row) in zip(res, rows))
    return {"cpu": cpu, "committed_diffs": diffs,
            "rows": [{k: repr(v) for k, v in r.items() if not (skip_suffix and k.endswith(skip_suffix))} for r in res]}


def committed_params(row, keys) -> dict:
    """The setting of a committed result ``row`` (a pandas Series): its values in ``keys`` as plain Python
    values, the empty cells left out."""
    import pandas as pd
    return {c: (row[c].item() if hasattr(row[c], "item") else row[c]) for c in keys if not pd.isna(row[c])}


def sample_committed_rows(name: str, k: int, seed: int, where=None, fix=None) -> list:
    """``k`` rows (at most all) of ``data/results/<name>.csv`` that ``where(df)`` (a boolean mask; default all)
    keeps, drawn with ``seed``, in file order: ``(params, trial, committed row)``, ``params`` from
    :func:`committed_params` passed through ``fix`` (default: as read)."""
    import numpy as np
    import pandas as pd
    df = pd.read_csv(ROOT / "data" / "results" / f"{name}.csv")
    if where is not None:
        df = df[where(df)].reset_index(drop=True)
    keys = list(df.columns[:list(df.columns).index("trial")])
    out = []
    for i in sorted(np.random.default_rng(seed).choice(len(df), min(k, len(df)), replace=False).tolist()):
        r = df.iloc[i]
        params = committed_params(r, keys)
        out.append((params if fix is None else fix(params), int(r["trial"]), r))
    return out


def committed_side(script: str, spec: dict, groups, nice: int = 0):
    """``run_side(root)`` for :func:`interleave_and_report`: :func:`run_script_worker` of ``script`` with ``spec``,
    printing once per side how many outputs of each of ``groups`` differ from the committed CSVs."""
    seen = set()

    def run_side(root: Path) -> dict:
        res = run_script_worker(script, spec, root, nice)
        if root not in seen:
            seen.add(root)
            print(f"  {root}: outputs differing from the committed CSVs: "
                  + ", ".join(f"{g} {res[g]['committed_diffs']}" for g in groups), flush=True)
        return res
    return run_side

