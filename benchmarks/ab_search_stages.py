"""Same-run A/B of decision RP26: notebook 23's CNN search runs in one stage against RP16's two, on committed rows.

Re-runs rows of ``data/results/23_pr_task_search_runs.csv`` (RP24's search; default: every CNN row) with
:func:`simlib.training.task_search.search_trial` twice in this process, A and B interleaved per row (their order
alternating): A with RP16's staging for every model (``SEARCH_FIRST_STAGE = {}``: half the cap first, the cap only
if the target was not reached), B with this checkout's ``SEARCH_FIRST_STAGE`` (RP26: the CNN's runs in one stage).
Prints each row's process CPU on both sides, then per group (the rows whose committed time to the target lies
beyond the first stage, the others, all) the sums and the A/B ratio, and whether every output of both sides
equals the committed row (floats by ``repr``, NaN equal to NaN); exit status 1 if any differs.  Seeds as the
sweep's (``trial_seed``, root 0, paired), as ``scripts/check_result_rows.py`` reads them.

    python benchmarks/ab_search_stages.py [--rows 168,169,...] [--repeats 1] [--model cnn]
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.pipeline.sweep import trial_seed  # noqa: E402
from simlib.training import task_search as ts  # noqa: E402

CSV = ROOT / "data" / "results" / "23_pr_task_search_runs.csv"


def _same(value, committed) -> bool:
    if pd.isna(committed):
        return value is None or (isinstance(value, float) and math.isnan(value))
    return value == committed or repr(float(value)) == repr(float(committed))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default=None, help="comma-separated data rows (default: every row of --model)")
    ap.add_argument("--model", default="cnn", help="the candidates' model whose rows run (default cnn)")
    ap.add_argument("--repeats", type=int, default=1, help="A/B pairs per row")
    args = ap.parse_args(argv)
    import os
    import warnings
    warnings.filterwarnings("ignore")
    df = pd.read_csv(CSV)
    keys = list(df.columns[:list(df.columns).index("trial")])
    rows = ([int(x) for x in args.rows.split(",")] if args.rows
            else [int(i) for i in df.index[df["model"] == args.model]])
    new_split = dict(ts.SEARCH_FIRST_STAGE)
    print(f"{len(rows)} rows of {CSV.name}; A: RP16's stages for every model, B: SEARCH_FIRST_STAGE = {new_split}; "
          f"{args.repeats} interleaved pairs per row; load average {os.getloadavg()[0]:.1f}", flush=True)
    cpu = {"A": {}, "B": {}}
    bad = 0
    warm = False
    for j, i in enumerate(rows):
        row = df.loc[i]
        params = {k: (row[k].item() if hasattr(row[k], "item") else row[k]) for k in keys if not pd.isna(row[k])}
        seed = trial_seed(0, int(row["trial"]), params)
        if not warm:
            ts.search_trial(params, seed)        # numba's kernels, the data set
            warm = True
        for r in range(args.repeats):
            for side in (("A", "B") if (j + r) % 2 == 0 else ("B", "A")):
                ts.SEARCH_FIRST_STAGE = {} if side == "A" else new_split
                t0 = time.process_time()
                out = ts.search_trial(params, seed)
                cpu[side].setdefault(i, []).append(time.process_time() - t0)
                diff = [k for k, v in out.items() if k in row.index and not _same(v, row[k])]
                for k in diff:
                    print(f"row {i} side {side}: {k} = {out[k]!r}, committed {row[k]!r}")
                bad += len(diff)
        ts.SEARCH_FIRST_STAGE = new_split
        a, b = min(cpu["A"][i]), min(cpu["B"][i])
        print(f"row {i:>4} {row['candidate']:<26} {row['scheme']:<10} trial {int(row['trial'])} time to target "
              f"{row['time_to_target_s']:>7} s: A {a:6.2f} s  B {b:6.2f} s  A/B {a / b:5.2f}x", flush=True)
    first = {i: df.loc[i, "duration_s"] / 2 for i in rows}
    late = [i for i in rows if not df.loc[i, "time_to_target_s"] <= first[i]]    # NaN: never reached
    groups = {"target beyond the first stage": late, "target within it": [i for i in rows if i not in late],
              "all": rows}
    print(f"\n{'group':<32} {'rows':>4} {'A CPU s':>8} {'B CPU s':>8} {'A/B':>6}  (each row's fastest of its pairs)")
    for g, idx in groups.items():
        if not idx:
            continue
        sa = sum(min(cpu["A"][i]) for i in idx)
        sb = sum(min(cpu["B"][i]) for i in idx)
        print(f"{g:<32} {len(idx):>4} {sa:8.2f} {sb:8.2f} {sa / sb:5.2f}x")
    print(f"{bad} output values differ from the committed rows (both sides)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
