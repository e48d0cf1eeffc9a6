"""Re-run some trials of a committed result CSV with this checkout and compare every column (issue 48).

A sweep's CSV holds one row per (setting, trial): the setting's parameters are the columns before
``trial`` (an empty cell: the parameter was not set), the trial's seed is the sweep's
(:func:`simlib.pipeline.sweep.trial_seed`, root seed 0, paired), and the other columns are the
trial's outputs.  This script runs the trial function on the chosen rows and prints every output
column that differs from the committed value (floats compared bit for bit through ``repr``), then
the number of differences; exit status 1 if any.  Only for trial functions of the notebooks'
sweeps whose outputs are deterministic (no wall-clock columns)::

    python scripts/check_result_rows.py 90_beyond_tta simlib.training.time_to_accuracy 0,7,31
    python scripts/check_result_rows.py 22_pr_table1 simlib.training.nine_systems 0,7,15,33,50
    python scripts/check_result_rows.py 46_selmcast_ssp_tta simlib.training.selmcast_ssp_tta 0,9,31
    python scripts/check_result_rows.py 23_pr_task_search_runs simlib.training.task_search 168,172 --fn search_trial
"""
from __future__ import annotations

import argparse
import importlib
import math
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.pipeline.sweep import trial_seed  # noqa: E402


def _same(value, committed) -> bool:
    if pd.isna(committed):
        return value is None or (isinstance(value, float) and math.isnan(value))
    if value == committed:
        return True
    try:
        return repr(float(value)) == repr(float(committed))
    except (TypeError, ValueError):
        return False


def check(name: str, module: str, rows: list[int], fn_name: str = "trial") -> int:
    """The number of output cells of ``rows`` of ``data/results/<name>.csv`` that ``module.<fn_name>`` gives
    differently."""
    fn = getattr(importlib.import_module(module), fn_name)
    df = pd.read_csv(ROOT / "data" / "results" / f"{name}.csv")
    keys = list(df.columns[:list(df.columns).index("trial")])
    bad = 0
    for i in rows:
        row = df.iloc[i]
        params = {k: (row[k].item() if hasattr(row[k], "item") else row[k]) for k in keys if not pd.isna(row[k])}
        trial = int(row["trial"])
        out = fn(params, trial_seed(0, trial, params))
        diff = [k for k, v in out.items() if k in row.index and not _same(v, row[k])]
        for k in diff:
            print(f"row {i}: {k} = {out[k]!r}, committed {row[k]!r}")
        bad += len(diff)
        print(f"row {i} (trial {trial}): {len(out)} outputs, {len(diff)} differ", flush=True)
    print(f"{name}: {bad} differences in {len(rows)} rows")
    return bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="the CSV's name in data/results, without .csv")
    ap.add_argument("module", help="the module whose trial() the sweep ran")
    ap.add_argument("rows", help="comma-separated row numbers (0-based, data rows)")
    ap.add_argument("--fn", default="trial", help="the trial function of the module the sweep ran (default trial)")
    args = ap.parse_args(argv)
    try:
        rows = [int(x) for x in args.rows.split(",")]
    except ValueError:
        ap.error(f"rows must be comma-separated integers, got {args.rows!r}")
    if not (ROOT / "data" / "results" / f"{args.name}.csv").is_file():
        ap.error(f"no data/results/{args.name}.csv")
    return 1 if check(args.name, args.module, rows, args.fn) else 0


if __name__ == "__main__":
    raise SystemExit(main())
