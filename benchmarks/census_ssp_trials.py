"""Census of the SSP trials behind the committed results of notebooks 43-48 (issue 48): which rows a cold
reproduction computes, which it reads from the trial cache, and which distinct trials give the same bits.

For each committed results CSV of an SSP sweep (``data/results/4[3-8]_*.csv``, ``92_*ssp*.csv``: the frames of
``ssp_scenario.run_trial``; not the time-to-accuracy sweeps of notebooks 46 and 92, another trial function),
in the order ``make reproduce`` runs the sweeps (:data:`ORDER`, then the rest by name), every row is keyed as the sweep cache keys it (the full scenario, ``ssp_scenario._cache_params``, and its
trial: paired seeds, decision S17).  A row whose (key, trial) an earlier row has is read from the cache; the
others are computed -- the count a cold reproduction computes, which the runner's ``computed`` column records
(``data/measurements/reference_times_full.csv``).  Printed per sweep: rows, computed, and computed trials past
the first ``--start`` (S25's extensions); then every class of distinct keys whose rows of one trial have equal
metrics in every column (trials that may be the same simulation under two spellings the cache does not
catch), with how many trials.  ``--time`` also runs one computed trial of each setting (process CPU, one warm
process) and prints the estimated CPU of each sweep and run kind (the trial's CPU times its computed trials).

    python benchmarks/census_ssp_trials.py [--time] [--start 10]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.core.paths import COMMITTED_RESULTS  # noqa: E402
from simlib.papers.contract import specs  # noqa: E402
from simlib.papers.selmcast.ssp_scenario import SSPScenario, _cache_params  # noqa: E402

#: The SSP sweeps in the order a reproduction runs them (notebooks 43, 44, 45 in their cells' order).
ORDER = ("43_selmcast_ssp_fig7", *(f"44_selmcast_ssp_fig{i}" for i in (8, 9, 10)),
         *(f"44_selmcast_ssp_fig{i}_profile" for i in (8, 9, 10)), *(f"45_selmcast_ssp_fig{i}" for i in (11, 12, 13)),
         *(f"45_selmcast_ssp_fig{i}_profile" for i in (11, 12, 13)))
#: Metric columns compared for equal rows (all of ``ssp_metrics``' that a row has).
METRICS = ("npu_utilization", "avg_scale", "avg_scale_initial", "total_rounds", "rounds_per_worker", "multicasts",
           "preempted_receivers", "preempted_share", "drops_per_multicast", "avg_multicast_s", "blocked_share",
           "max_gap")
_FIELDS = frozenset(specs(SSPScenario))
_NONE_MEANS_INF = ("ssp", "k")


def setting_of(row: dict) -> dict:
    """The scenario fields of a results row as a sweep setting: NaN (an empty cell) is None for ssp and k
    (infinity) and absent elsewhere (a column another part of the sweep has, e.g. Orpheus's line32)."""
    out = {}
    for col, v in row.items():
        if col not in _FIELDS:
            continue
        if isinstance(v, float) and math.isnan(v):
            if col in _NONE_MEANS_INF:
                out[col] = None
            continue
        out[col] = int(v) if col in ("n", "ssp", "k") else v
    return out


def cache_key(setting: dict) -> str:
    """The sweep cache's key of a setting (the full scenario, :func:`ssp_scenario._cache_params`) as JSON."""
    return json.dumps(_cache_params(SSPScenario.of(setting)), sort_keys=True)


def census(sweeps, start: int = 10) -> tuple[pd.DataFrame, dict]:
    """``sweeps``: (name, frame) in run order.  Returns per sweep (rows, computed, extension = computed trials
    numbered ``start`` or more) and ``{key: [trials computed]}`` per sweep name (the first row of each (key,
    trial) computes it; later ones read the cache)."""
    seen, out, computed = set(), [], {}
    for name, frame in sweeps:
        new = defaultdict(list)
        for row in frame.to_dict("records"):
            kt = (cache_key(setting_of(row)), int(row["trial"]))
            if kt not in seen:
                seen.add(kt)
                new[kt[0]].append(kt[1])
        computed[name] = dict(new)
        out.append(dict(sweep=name, rows=len(frame), computed=sum(map(len, new.values())),
                        extension=sum(t >= start for ts in new.values() for t in ts)))
    return pd.DataFrame(out), computed


def equal_rows(sweeps) -> Counter:
    """Classes of distinct cache keys whose rows of one trial have equal metrics (every :data:`METRICS` column
    both have, compared by ``repr``): ``{frozenset of keys: trials}``."""
    by_value = defaultdict(set)
    for _, frame in sweeps:
        cols = [c for c in METRICS if c in frame.columns]
        for row in frame.to_dict("records"):
            value = (int(row["trial"]), tuple((c, repr(row[c])) for c in cols))
            by_value[value].add(cache_key(setting_of(row)))
    return Counter(frozenset(keys) for keys in by_value.values() if len(keys) > 1)


def _kind(key: str) -> str:
    p = json.loads(key)
    default = SSPScenario()
    profile = (p["spread"], p["straggler_frac"]) != (default.spread, default.straggler_frac)
    kind = p["scheme"] if p["scheme"] == "orpheus" else f"selmcast {p['sharing']}"
    if p["line32"] != default.line32 and p["scheme"] == "selmcast":
        kind += f" line32={p['line32']}"
    if p["gamma"] > 0:
        kind += " gamma>0"
    return ("profile " if profile else "default ") + kind


def _differences(keys) -> list[dict]:
    default = json.loads(cache_key({}))
    return [{c: v for c, v in json.loads(k).items() if v != default[c]} for k in sorted(keys)]


def timed(computed: dict) -> pd.DataFrame:
    """One computed trial of each setting, process CPU in one warm process: per (sweep, kind) the computed
    trials and their estimated CPU (s)."""
    from simlib.papers.selmcast.ssp_scenario import run_trial
    from simlib.pipeline.sweep import trial_seed
    for scheme, sharing, gamma in (("selmcast", "maxmin", 0.0), ("orpheus", "maxmin", 0.5),
                                   ("selmcast", "priority", 0.0)):   # compile or load the kernels first
        run_trial(SSPScenario(duration_s=20.0, scheme=scheme, sharing=sharing, gamma=gamma), trial_seed(0, 0))
    rows = []
    for name, keys in computed.items():
        for key, trials in keys.items():
            t0 = time.process_time()
            run_trial(SSPScenario.of(json.loads(key)), trial_seed(0, trials[0]))
            cpu = time.process_time() - t0
            rows.append(dict(sweep=name, kind=_kind(key), trials=len(trials), cpu_per_trial=cpu,
                             est_cpu_s=cpu * len(trials)))
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", action="store_true", help="also time one computed trial of each setting")
    ap.add_argument("--start", type=int, default=10, help="trials every setting starts with (S25)")
    args = ap.parse_args(argv)
    files = {p.stem: p for p in sorted(COMMITTED_RESULTS.glob("*.csv"))
             if p.stem[:2] in ("43", "44", "45", "46", "48") or (p.stem.startswith("92_") and "ssp" in p.stem)}
    sweeps = []
    for name in [*[s for s in ORDER if s in files], *sorted(set(files) - set(ORDER))]:
        frame = pd.read_csv(files[name])
        if ({"trial", "scheme", "trace"} <= set(frame.columns) and set(frame.scheme) <= {"selmcast", "orpheus"}
                and "target_acc" not in frame.columns):     # time to accuracy: another trial function's cache
            sweeps.append((name, frame))
    table, computed = census(sweeps, args.start)
    table["notebook"] = table.sweep.str[:2]
    with pd.option_context("display.width", 160, "display.max_rows", 200):
        print(table.to_string(index=False))
        print(table.groupby("notebook")[["rows", "computed", "extension"]].sum().to_string())
    print("\ndistinct cache keys with equal metrics on one trial (the same simulation spelled twice?):")
    classes = equal_rows(sweeps)
    for keys, trials in sorted(classes.items(), key=lambda kv: -kv[1]):
        print(f"  {trials} trials: " + " = ".join(json.dumps(d) for d in _differences(keys)))
    if not classes:
        print("  none")
    if args.time:
        est = timed(computed)
        est["notebook"] = est.sweep.str[:2]
        with pd.option_context("display.width", 160, "display.max_rows", 200):
            print("\nestimated CPU (s) of the computed trials, one trial of each setting timed:")
            print(est.groupby(["notebook", "sweep"])[["trials", "est_cpu_s"]].sum().round(1).to_string())
            print(est.groupby(["notebook", "kind"]).agg(trials=("trials", "sum"), est_cpu_s=("est_cpu_s", "sum"),
                                                        median_s=("cpu_per_trial", "median")).round(3).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
