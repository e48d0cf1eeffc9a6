"""Re-run committed selective-reduce trials and compare every metric with the committed CSV (issue 48).

Each row of a committed results CSV is one (setting, trial) of a notebook sweep: the columns before
``trial`` are the setting (empty cells: the scenario default), the trial's seed is
``trial_seed(seed, trial)`` (paired, the notebooks' root seed 0).  This re-runs ``--per-file`` of the
selective-reduce rows of each file (seeded choice, smallest n first so the check stays cheap, or all
with ``--all``) and prints every metric that differs in any bit (``repr``).  Exit 1 if any differs.

``--moved`` keeps only the rows that ran on the Python loop before decision N17 (cold start, or an estimation
error redrawn per decision), e.g. notebook 13's robustness rows:

    python scripts/check_sr_committed_rows.py [--per-file 6] [--max-n 1000] [--moved] [--files data/results/11_*.csv ...]
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.papers.cluster_scenario import run_trial  # noqa: E402
from simlib.pipeline.sweep import trial_seed  # noqa: E402

DEFAULT_FILES = sorted(str(p) for pat in ("1[1-6]_*.csv", "91_*.csv") for p in (ROOT / "data/results").glob(pat)
                       if "search" not in p.name)


def _value(x):
    if isinstance(x, float) and x.is_integer() and not isinstance(x, bool):
        return x
    return x.item() if hasattr(x, "item") else x


def moved(df: pd.DataFrame) -> pd.Series:
    """Rows that ran on the Python loop before decision N17: cold start or bw_error > 0 redrawn per decision."""
    cold = df["cdf"].eq("cold") if "cdf" in df else pd.Series(False, index=df.index)
    err = df["bw_error"].fillna(0.0) > 0 if "bw_error" in df else pd.Series(False, index=df.index)
    per_run = df["bw_error_redraw"].eq("run") if "bw_error_redraw" in df else pd.Series(False, index=df.index)
    return cold | (err & ~per_run)


def check(path: str, per_file: int, max_n: int, everything: bool, rng: np.random.Generator,
          only_moved: bool = False) -> tuple[int, int]:
    df = pd.read_csv(path)
    if "scheme" not in df or "trial" not in df:
        return 0, 0
    rows = df[(df["scheme"] == "selective") & (df["n"] <= max_n) & (moved(df) if only_moved else True)]
    if not everything and len(rows) > per_file:
        rows = rows.iloc[np.sort(rng.choice(len(rows), per_file, replace=False))]
    setting_cols = list(df.columns[:list(df.columns).index("trial")])
    metric_cols = list(df.columns[list(df.columns).index("trial") + 1:])
    bad = 0
    for _, row in rows.iterrows():
        params = {c: _value(row[c]) for c in setting_cols
                  if not (isinstance(row[c], float) and math.isnan(row[c]))}
        for c in ("n",):
            params[c] = int(params[c])
        got = run_trial(params, trial_seed(0, int(row["trial"])))
        diff = [(c, row[c], got[c]) for c in metric_cols if c in got and repr(float(got[c])) != repr(float(row[c]))]
        if diff:
            bad += 1
            print(f"DIFFER {Path(path).name} {params} trial {int(row['trial'])}: {diff}")
    print(f"{Path(path).name}: {len(rows) - bad}/{len(rows)} selective rows identical", flush=True)
    return len(rows), bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", nargs="+", default=DEFAULT_FILES)
    ap.add_argument("--per-file", type=int, default=6)
    ap.add_argument("--max-n", type=int, default=1000)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--moved", action="store_true",
                    help="only rows that ran on the Python loop before N17 (cold start, per-decision error)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(48)
    t0 = time.perf_counter()
    total = bad = 0
    for f in args.files:
        t, b = check(f, args.per_file, args.max_n, args.all, rng, args.moved)
        total, bad = total + t, bad + b
    print(f"{total - bad}/{total} rows identical in {time.perf_counter() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
