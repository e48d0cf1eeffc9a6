"""Where notebooks 22 and 23 (and 90, 46) spend their CPU (issue 48): committed rows re-run by trial kind, timed, checked.

Every committed result CSV of the notebooks' sweeps (``data/results/22_*.csv``, ``23_*_runs.csv``, notebook 90's
``90_beyond_tta.csv`` and notebook 46's ``46_selmcast_ssp_tta.csv``: ``--only 90_ 46_``) holds
one row per (setting, trial); the setting is the columns before ``trial`` and the seed the sweep's
(:func:`simlib.pipeline.sweep.trial_seed`, root seed 0, paired), as ``scripts/check_result_rows.py`` reads
them.  The rows are grouped into *kinds* (the CSV, the system, HL, cluster size, the task-search candidate's
model), ``--per-kind`` rows of each kind (spread over its trials) are re-run in this process, and each run's
process CPU is split into the simulation (:func:`simlib.papers.cluster_scenario.simulate`, every stage), the
training replay (:func:`simlib.training.replay.replay`, every stage) and the rest (notebook 46: the SSP
simulation is "simulation", its schedule log and metrics the rest).  Every output column is
compared with the committed value (floats by ``repr``, NaN equal to NaN).  Per kind the script prints the
rows the notebook holds, the sample's mean CPU per run and its split, the runs that needed RP16's second
stage, and the estimated CPU of the kind in the notebook (rows × mean); then each notebook's total and shares.

    python benchmarks/breakdown_nb22_23.py [--per-kind 2] [--only 22_pr_table1 23_pr_task] [--kinds "cnn"]
        [--seed 0] [--warm-each] [--profile --top 30]

``--profile`` prints cProfile's top functions (cumulative and own time) of the first sampled run of each kind
instead of timing unprofiled runs.  Process CPU of this process; a warm-up run first (numba's cache, data
loading), and with ``--warm-each`` one per kind (a kind whose kernels are compiled or loaded first otherwise
carries that cost).  A kind's "2-stage" count is of the sampled runs that simulated more than once (RP16).
Not a ``bench_*.py``: ``make bench`` does not run it (a full pass re-runs ~200 trials).
"""
from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from check_result_rows import _same  # noqa: E402  (one comparison rule for committed rows)
from simlib.pipeline.sweep import trial_seed  # noqa: E402

NS = "simlib.training.nine_systems"
TS = "simlib.training.task_search"
TA = "simlib.training.time_to_accuracy"
SM = "simlib.training.selmcast_ssp_tta"
#: (notebook, CSV name, module, trial function, kind columns).
SOURCES = (
    ("22", "22_pr_table1", NS, "trial", ("scheme", "p", "hl")),
    ("22", "22_pr_table1_profile", NS, "trial", ("scheme", "p", "hl")),
    ("22", "22_pr_fig11", NS, "trial", ("scheme", "n")),
    ("22", "22_pr_fig11_profile", NS, "trial", ("scheme", "n")),
    ("22", "22_pr_staleness", NS, "staleness_trial", ("scheme", "hl")),
    ("22", "22_pr_momentum", NS, "staleness_trial", ("scheme", "hl")),
    ("22", "22_pr_sr_bandwidths", NS, "trial", ("scheme", "hl")),
    ("22", "22_pr_group_filter", NS, "trial", ("scheme", "p", "hl")),
    ("23", "23_pr_profile_runs", NS, "per_update_trial", ("scheme", "hl")),
    ("23", "23_pr_profile_noise_runs", NS, "per_update_trial", ("scheme", "hl")),
    ("23", "23_pr_task_search_runs", TS, "search_trial", ("model", "scheme", "hl")),
    ("90", "90_beyond_tta", TA, "trial", ("scheme", "n")),
    ("46", "46_selmcast_ssp_tta", SM, "trial", ("scheme", "n")),
)
#: Rows of a CSV that the notebook did not compute itself (loaded from another sweep's cache): Fig. 11's
#: profile frame holds the default sweep's 1-worker rows.
REUSED = {"22_pr_fig11_profile": lambda df: df["scheme"] == "single"}




class Meter:
    """Process CPU spent inside the wrapped functions (outermost calls only) and their call counts."""

    def __init__(self):
        self.cpu = defaultdict(float)
        self.calls = defaultdict(int)
        self._depth = 0

    def wrap(self, name, fn):
        def wrapped(*a, **k):
            self.calls[name] += 1
            if self._depth:
                return fn(*a, **k)
            self._depth += 1
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                self.cpu[name] += time.process_time() - t0
                self._depth -= 1
        return wrapped

    def reset(self):
        self.cpu.clear()
        self.calls.clear()


def install(meter: Meter) -> None:
    """Wrap ``simulate`` and ``replay`` where the trials look them up."""
    import simlib.papers.cluster_scenario as cs
    import simlib.training.nine_systems as ns
    import simlib.training.replay as rp
    import simlib.training.selmcast_ssp_tta as sm
    import simlib.training.time_to_accuracy as tta

    sim = meter.wrap("sim", cs.simulate)
    rep = meter.wrap("replay", rp.replay)
    cs.simulate = sim            # task_search imports it inside search_run
    ns.simulate = sim
    tta.simulate = sim           # notebook 90's trials
    tta.replay = rep
    ns.replay = rep
    sm.simulate = meter.wrap("sim", sm.simulate)     # notebook 46's SSP scenario


def rows_of(name: str, kind_cols, per_kind: int, seed: int):
    """(kind -> rows in the notebook, kind -> sampled row indices, the frame, the setting columns)."""
    df = pd.read_csv(ROOT / "data" / "results" / f"{name}.csv")
    if name in REUSED:
        df = df[~REUSED[name](df)]
    keys = list(df.columns[:list(df.columns).index("trial")])
    kind = df[list(kind_cols)].astype(str).agg(" ".join, axis=1)
    counts = kind.value_counts(sort=False).to_dict()
    rng = np.random.default_rng(seed)
    picks = {}
    for k, idx in kind.groupby(kind, sort=False).groups.items():
        idx = np.asarray(idx)
        picks[k] = sorted(rng.choice(idx, size=min(per_kind, idx.size), replace=False).tolist())
    return counts, picks, df, keys


#: Setting columns whose empty cell stands for None (not for "not set"): the drawn bandwidths of PR17's sweep.
NONE_CELLS = {"22_pr_sr_bandwidths": ("bandwidth_gbps",)}


def params_of(row, keys, name: str = "") -> dict:
    """The setting of a committed row: its columns before ``trial`` that are set (``NONE_CELLS``: None)."""
    out = {k: (row[k].item() if hasattr(row[k], "item") else row[k]) for k in keys if not pd.isna(row[k])}
    return {**out, **{k: None for k in NONE_CELLS.get(name, ()) if k in keys and pd.isna(row[k])}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-kind", type=int, default=2, help="rows re-run per kind")
    ap.add_argument("--only", nargs="*", default=None, help="CSV name prefixes")
    ap.add_argument("--seed", type=int, default=0, help="the row sample's seed")
    ap.add_argument("--profile", action="store_true", help="cProfile the first sampled row of each kind")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--warm-each", action="store_true",
                    help="run each kind's first row once untimed first (no kernel loading or compilation in the times)")
    ap.add_argument("--kinds", nargs="*", default=None, help="only kinds containing one of these strings")
    args = ap.parse_args(argv)
    import warnings
    warnings.filterwarnings("ignore")
    meter = Meter()
    install(meter)
    srcs = [s for s in SOURCES if not args.only or any(s[1].startswith(o) for o in args.only)]
    warm = False
    est = defaultdict(float)
    bad_total = 0
    lines = []
    for nb, name, mod, fn_name, kind_cols in srcs:
        fn = getattr(importlib.import_module(mod), fn_name)
        counts, picks, df, keys = rows_of(name, kind_cols, args.per_kind, args.seed)
        for kind, idx in picks.items():
            if args.kinds and not any(k in kind for k in args.kinds):
                continue
            cpu, sim, rep, stages, bad = [], [], [], [], 0
            for j, i in enumerate(idx):
                row = df.loc[i]
                params = params_of(row, keys, name)
                sd = trial_seed(0, int(row["trial"]), params)
                if not warm or (args.warm_each and j == 0):
                    fn(params, sd)     # numba's kernels (loaded or compiled), the data set
                    warm = True
                meter.reset()
                if args.profile and j == 0:
                    pr = cProfile.Profile()
                    t0 = time.process_time()
                    out = pr.runcall(fn, params, sd)
                    t1 = time.process_time()
                    s = io.StringIO()
                    pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(args.top)
                    print(f"==== {name} [{kind}] row {i}: {t1 - t0:.2f} s profiled\n{s.getvalue()}", flush=True)
                    s = io.StringIO()
                    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(args.top)
                    print(s.getvalue(), flush=True)
                    continue
                t0 = time.process_time()
                out = fn(params, sd)
                t1 = time.process_time()
                cpu.append(t1 - t0)
                sim.append(meter.cpu["sim"])
                rep.append(meter.cpu["replay"])
                stages.append(meter.calls["sim"])
                diff = [k for k, v in out.items() if k in row.index and not _same(v, row[k])]
                for k in diff:
                    print(f"{name} row {i}: {k} = {out[k]!r}, committed {row[k]!r}")
                bad += len(diff)
            if not cpu:
                continue
            bad_total += bad
            n_rows = counts[kind]
            m = float(np.mean(cpu))
            est[nb] += m * n_rows
            line = (nb, name, kind, n_rows, len(cpu), m, float(np.mean(sim)), float(np.mean(rep)),
                    sum(s > 1 for s in stages), m * n_rows, bad)
            lines.append(line)
            print(f"{name:>26} {kind:<28} rows {n_rows:>4} ran {len(cpu)} cpu/run {m:7.3f} s sim {line[6]:6.3f} "
                  f"replay {line[7]:6.3f} 2-stage {line[8]} est {line[9]:7.1f} s diff {bad}", flush=True)
    if args.profile:
        return 0
    print("\nper notebook (estimated CPU of its trials, rows x mean of the sample):")
    for nb in sorted(est):
        tot = est[nb]
        print(f"notebook {nb}: {tot:.0f} s")
        by_csv = defaultdict(lambda: [0.0, 0.0, 0.0])
        for ln in lines:
            if ln[0] == nb:
                by_csv[ln[1]][0] += ln[9]
                by_csv[ln[1]][1] += ln[6] * ln[3]
                by_csv[ln[1]][2] += ln[7] * ln[3]
        for csv, (c, s, r) in sorted(by_csv.items(), key=lambda kv: -kv[1][0]):
            print(f"  {csv:<26} {c:7.1f} s ({100 * c / tot:4.1f} %): simulation {s:6.1f} s, replay {r:6.1f} s, "
                  f"other {c - s - r:6.1f} s")
        top = sorted((ln for ln in lines if ln[0] == nb), key=lambda ln: -ln[9])[:12]
        for ln in top:
            print(f"    {ln[1]:<26} {ln[2]:<28} {ln[9]:7.1f} s ({100 * ln[9] / tot:4.1f} %)")
    print(f"{bad_total} output values differ from the committed rows")
    return 1 if bad_total else 0


if __name__ == "__main__":
    raise SystemExit(main())
