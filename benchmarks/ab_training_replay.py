"""Bit-identity check and A/B benchmark: the training replays of notebooks 21, 22, 23 (RP24's task search),
46 and 90 against a revision (issue 48; the replay's speed work must leave every result unchanged).

Representative trials: rows of the committed result CSVs of notebooks 21 (default and profile), 22
(Table 1, staleness with fresh gradients, Fig. 11's 1-worker baseline), 46 and 90, re-run with their sweep
seeds (:func:`simlib.pipeline.sweep.trial_seed`, as ``scripts/check_result_rows.py`` does), plus notebook
23's RP24 search runs (:func:`simlib.training.task_search.search_trial` for the MLP and CNN candidates,
the CNN capped at ``--cnn-cap`` s to bound the cost) and :func:`~simlib.training.task_search.plateau` runs,
and whole replay curves (every column, the test loss included, and the final replicas) of simulated logs.
Each side runs in its own subprocess with ``PYTHONPATH`` at this checkout or at ``--rev`` (extracted by
``git archive`` into ``build/ab_<rev>``), alternating over ``--repeats`` rounds so load changes hit both
alike; a subprocess warms up (numba compilation, data loading) on its first trial and times each group in
process CPU.  Prints per group the median CPU seconds of each side, the old/new ratio, and whether every
output of every run is the same bit for bit (floats by ``repr``, NaN equal to NaN, arrays by their bytes);
exits 1 if any differs.

    python benchmarks/ab_training_replay.py [--rev 9bd758d] [--repeats 1] [--only nb23 nb90] [--cnn-cap 800] [--cnn-iid] [--nice 15]
    python benchmarks/ab_training_replay.py --rev 95fabe7 --only "nb23 cnn" --cnn-cap 8000 --cnn-iid   # RP26's runs
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the revision's simlib
from benchmarks.ab_revision import extract, interleave_and_report, run_worker  # noqa: E402

#: (group, committed CSV, module of its trial function, function, rows).
CSV_GROUPS = (
    ("nb21", "21_pr_training", "simlib.training.time_to_accuracy", "trial", (0, 331)),
    ("nb21p", "21_pr_training_profile", "simlib.training.time_to_accuracy", "trial", (120, 458)),
    ("nb22", "22_pr_table1", "simlib.training.nine_systems", "trial", (0, 10, 21, 32, 43, 54, 65, 76, 87, 98)),
    ("nb22p", "22_pr_table1_profile", "simlib.training.nine_systems", "trial", (1, 23, 45, 67)),
    ("nb22s", "22_pr_staleness", "simlib.training.nine_systems", "staleness_trial", (0, 7)),
    ("nb22f", "22_pr_fig11", "simlib.training.nine_systems", "trial", (0,)),
    ("nb90", "90_beyond_tta", "simlib.training.time_to_accuracy", "trial", (0, 31, 150, 599)),
    ("nb46", "46_selmcast_ssp_tta", "simlib.training.selmcast_ssp_tta", "trial", (0, 31)),
    # evenly spread rows (every 40th / 10th): each group's systems in the proportions of its notebook (replay8)
    ("wide22", "22_pr_table1", "simlib.training.nine_systems", "trial", tuple(range(5, 855, 40))),
    ("wide22p", "22_pr_table1_profile", "simlib.training.nine_systems", "trial", tuple(range(7, 675, 40))),
    ("wide22f", "22_pr_fig11", "simlib.training.nine_systems", "trial", tuple(range(3, 130, 10))),
    ("wide90", "90_beyond_tta", "simlib.training.time_to_accuracy", "trial", tuple(range(9, 600, 40))),
)


def _encode(v):
    import numpy as np
    import pandas as pd

    if isinstance(v, pd.DataFrame):
        return {"columns": list(map(str, v.columns)), "dtypes": list(map(str, v.dtypes)),
                "values": {str(c): _encode(v[c].to_numpy()) for c in v.columns}}
    if isinstance(v, np.ndarray):
        return f"{v.dtype}{v.shape}:" + hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()
    if isinstance(v, dict):
        return {str(k): _encode(x) for k, x in sorted(v.items())}
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    if hasattr(v, "item"):
        return _encode(v.item())
    return repr(v)


def _csv_cases(only) -> dict:
    import pandas as pd

    from simlib.pipeline.sweep import trial_seed

    out = {}
    for group, name, mod, fn, rows in CSV_GROUPS:
        if only and not any(group.startswith(o) for o in only):
            continue
        path = ROOT / "data" / "results" / f"{name}.csv"
        if not path.is_file():
            continue
        df = pd.read_csv(path)
        keys = list(df.columns[:list(df.columns).index("trial")])
        cases = []
        for i in rows:
            if i >= len(df):
                continue
            row = df.iloc[i]
            params = {k: (row[k].item() if hasattr(row[k], "item") else row[k]) for k in keys if not pd.isna(row[k])}
            seed = trial_seed(0, int(row["trial"]), params)
            cases.append({"call": [mod, fn], "params": params, "seed": [seed.entropy, list(seed.spawn_key)]})
        out[group] = cases
    return out


def _search_cases(cnn_cap: float, cnn_iid: bool, only) -> dict:
    out = {}
    if only and not any("nb23".startswith(o) or o.startswith("nb23") for o in only):
        return out
    from simlib.training import task_search as ts

    mlp, cnn = [], []
    for i, cand in enumerate(ts.candidates()):
        if cand.model == "cnn" and (cand.batch != 32 or (cand.data != "sharded" and not cnn_iid)):
            continue
        target = 0.55 if cand.model == "mlp-relu" else 0.87
        # every MLP candidate at HL 1, the first at HL 3 as well (3000 s cap: some censored); the CNN at HL 1
        hls, cap = (((1, 3) if i == 0 else (1,)), 3000.0) if cand.model == "mlp-relu" else ((1,), cnn_cap)
        if cand.model == "mlp-relu" and i not in (0, 3):
            continue            # the first (sharded, 32) at HL 1 and 3, the last (iid, 20) at HL 1
        for s in ts.search_settings(cand, target, hls=hls, duration_s=cap):
            (mlp if cand.model == "mlp-relu" else cnn).append(
                {"call": ["simlib.training.task_search", "search_trial"], "params": s, "seed": [i, []]})
    out["nb23 mlp"] = mlp
    out["nb23 cnn"] = cnn
    out["nb23 plateau"] = [{"call": ["benchmarks.ab_training_replay", "plateau_case"],
                            "params": {"model": m, "data": d, "batch": b, "rounds": r}, "seed": [0, []]}
                           for m, d, b, r in (("mlp-relu", "sharded", 20, 1000), ("cnn", "iid", 32, 300))]
    return out


def _curve_cases(only) -> dict:
    if only and not any(o.startswith("curves") for o in only):
        return {}
    cases = []
    for scheme, n, dtype, model, loss_every in (("allreduce", 8, "float32", "cnn", 1), ("partial", 40, "float64",
                                                                                       "mlp-relu", 10),
                                                ("ps-asp", 8, "float32", "cnn", 10), ("eager", 8, "float64",
                                                                                     "mlp-relu", 1),
                                                ("adpsgd", 8, "float32", "mlp-relu", 3)):
        cases.append({"call": ["benchmarks.ab_training_replay", "curve_case"],
                      "params": {"scheme": scheme, "n": n, "dtype": dtype, "model": model, "loss_every": loss_every},
                      "seed": [3, []]})
    return {"curves": cases}


def plateau_case(params, seed):
    """:func:`~simlib.training.task_search.plateau` of one candidate at ``rounds`` rounds."""
    from simlib.training import task_search as ts

    out = ts.plateau(ts.TaskCandidate(params["model"], params["data"], params["batch"]), rounds=params["rounds"],
                     seed=int(seed.entropy))
    return out


def curve_case(params, seed):
    """A whole replay (every curve column, the final replicas and model) of a simulated 300 s log."""
    import dataclasses

    from simlib.papers.cluster_scenario import Scenario, simulate
    from simlib.training.replay import Numerics, StepRule, replay

    p = 0.1 if params["scheme"] == "partial" else None
    sc = Scenario.from_params(dict(scheme=params["scheme"], n=params["n"], trace="cnn", duration_s=300.0,
                                   **({"p": p} if p else {})))
    log = simulate(dataclasses.replace(sc), seed)
    res = replay(log, "mnist1d", model=params["model"], lr=0.02, batch_size=32, eval_every_s=1.0, seed=seed,
                 data="sharded", numerics=Numerics(dtype=params["dtype"], loss_every=params["loss_every"]),
                 steps=StepRule(l2=1e-4, momentum=0.9), stop_acc=0.6)
    return {"curve": res.curve, "final_params": res.final_params, "final_model": res.final_model,
            "grad_calls": res.grad_calls}


def worker(spec: dict) -> None:
    """Run the cases of ``spec`` (JSON on stdin) and print JSON: per group the CPU seconds and outputs."""
    import importlib
    import warnings

    import numpy as np
    warnings.filterwarnings("ignore")
    out = {}

    def call(case):
        mod, fn = case["call"]
        f = getattr(importlib.import_module(mod), fn)
        ent, key = case["seed"]
        return f(case["params"], np.random.SeedSequence(ent, spawn_key=tuple(key)))

    warmed = False
    for name, cases in spec["groups"].items():
        if not warmed and cases:
            call(cases[0])             # warm-up: compilation, data loading
            warmed = True
        t0 = time.process_time()
        rows = [_encode(call(c)) for c in cases]
        out[name] = {"cpu": time.process_time() - t0, "rows": rows}
    print(json.dumps(out))


def run_side(root: Path, spec: dict, nice: int) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(ROOT)]))
    cmd = [sys.executable, "-m", "benchmarks.ab_training_replay", "--worker"]
    if nice:
        cmd = ["nice", "-n", str(nice)] + cmd
    return run_worker(cmd, spec, env=env, cwd=root, root=root)


def _diff(a, b, path=""):
    """Paths where two encoded outputs differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _diff(a.get(k), b.get(k), f"{path}.{k}")]
    return [] if a == b else [path]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="9bd758d", help="the previous implementation (a git revision)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--only", nargs="+", default=None, help="groups whose name starts with one of these "
                    "(nb21, nb22, nb23, nb46, nb90, curves; a whole name such as 'nb23 cnn' for one group)")
    ap.add_argument("--cnn-cap", type=float, default=800.0, help="cap (s) of the CNN search runs")
    ap.add_argument("--cnn-iid", action="store_true", help="the CNN's i.i.d. candidate as well")
    ap.add_argument("--nice", type=int, default=0, help="run both sides under nice -n NICE")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(json.loads(sys.stdin.read()))
        return 0
    if args.repeats < 1:
        ap.error(f"--repeats must be >= 1, got {args.repeats}")
    sys.path.insert(0, str(ROOT))
    gs = {**_csv_cases(args.only), **_search_cases(args.cnn_cap, args.cnn_iid, args.only), **_curve_cases(args.only)}
    gs = {g: c for g, c in gs.items() if not args.only or any(g.startswith(o) for o in args.only)}   # "nb23 cnn"
    spec = {"groups": gs}
    old_root = extract(args.rev)
    print(f"{args.rev} (old) vs this checkout (new); {sum(map(len, gs.values()))} runs; {args.repeats} interleaved "
          f"rounds; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
    return interleave_and_report(gs, old_root, lambda root: run_side(root, spec, args.nice), args.repeats,
                                 _diff, "group")


if __name__ == "__main__":
    sys.exit(main())
