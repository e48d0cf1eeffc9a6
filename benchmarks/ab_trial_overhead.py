"""A/B benchmark of the per-trial work outside the compiled kernels (issue 48): loading and parsing every
built-in trace (once per process and trace: ``workloads.traces._rows``), ``core.validate.check_array`` as
the selective-reduce controller calls it every scheduling round, and whole trials of 000's selective reduce
with a bandwidth-estimation error (the Python controller round that validates each estimate), and
``ssp_metrics`` on four SSP logs (n = 50, 100 s; each 25 times, the logs simulated untimed) against a
revision; and whole trials as a sweep's worker runs them, their settings built once, untimed (a sweep hands
the trial the built setting): committed rows of notebook 16's partial reduce, all reduce and selective reduce
(``nb16_*``: ``run_trial``, ``Scenario`` objects) and of notebook 23's profile runs (``nb23_per_update``:
``per_update_trial``, ``SystemSetting`` objects; ``nb23_ad_atomic`` / ``nb23_ad_free``: its AD-PSGD rows with /
without atomic averaging, AD4), ``--rows`` each, every row run ``--reps`` times; each such
group's ``<group>_py`` row is its CPU outside the compiled event loops (:data:`COMPILED`), the Python work.

Each side runs in its own subprocess with ``PYTHONPATH`` at this checkout or at ``--rev`` (extracted by
``git archive`` into ``build/ab_<rev>``), alternating over ``--repeats`` rounds so load changes hit both
alike (:func:`benchmarks.ab_revision.interleave_and_report`: median process CPU per group, ratio old/new,
whether every output is identical bit for bit: the traces' arrays as sha256 of their bytes, the trials'
metrics as ``repr``; exit 1 if any differs).

    python benchmarks/ab_trial_overhead.py [--rev 5171cb4] [--repeats 5] [--rows 40] [--reps 2] [--only nb16_partial ...]
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the side's simlib
from benchmarks.ab_revision import (ab_arguments, extract, interleave_and_report, run_script_worker,  # noqa: E402
                                     sample_committed_rows, time_rows)

#: group -> number of runs in it (the report's "runs" column; the whole-trial groups': rows x reps, set by main)
GROUPS = {"traces": 11, "check_array": 20000, "selective_e": 4, "ssp_metrics": 4}
#: the whole-trial groups: (committed CSV, trial "module:function", the scheme its rows have, or {column: value}
#: its rows have, or None for all)
TRIAL_GROUPS = {"nb16_partial": ("16_sr_profile_runs", "simlib.papers.cluster_scenario:run_trial", "partial"),
                "nb16_allreduce": ("16_sr_profile_runs", "simlib.papers.cluster_scenario:run_trial", "allreduce"),
                "nb16_selective": ("16_sr_profile_runs", "simlib.papers.cluster_scenario:run_trial", "selective"),
                "nb23_per_update": ("23_pr_profile_runs", "simlib.training.nine_systems:per_update_trial", None),
                "nb23_ad_atomic": ("23_pr_profile_runs", "simlib.training.nine_systems:per_update_trial",
                                   {"scheme": "adpsgd", "ad_atomic": True}),
                "nb23_ad_free": ("23_pr_profile_runs", "simlib.training.nine_systems:per_update_trial",
                                 {"scheme": "adpsgd", "ad_atomic": False})}


def _where(rows_have):
    """The row mask of a :data:`TRIAL_GROUPS` entry's third item (None: every row)."""
    if rows_have is None:
        return None
    import numpy as np
    pairs = {"scheme": rows_have} if isinstance(rows_have, str) else rows_have

    def mask(df):
        keep = np.ones(len(df), dtype=bool)
        for column, value in pairs.items():
            keep &= (df[column] == value).to_numpy()
        return keep
    return mask


def _int_params(p: dict) -> dict:
    """A committed row's setting with its integer columns as ints (pandas reads a column with empty cells as
    floats)."""
    return {k: int(v) if k in ("n", "hl", "backups") else v for k, v in p.items()}


#: the compiled event loops a whole trial calls from Python ("module:function"): the Python part of a trial is its
#: CPU outside these calls (a call's CPU includes numba's typing of its arguments)
COMPILED = ("simlib.runtime.cluster_kernel:run_to_turn", "simlib.papers.selective_reduce.compiled:turns_loop")


def _timing_compiled(spent: list) -> None:
    """Wrap each of :data:`COMPILED` (a module attribute, looked up at each call) so that ``spent[0]`` adds up
    the process CPU seconds inside them."""
    import importlib
    import time

    def timed(fn):
        def call(*args):
            t0 = time.process_time()
            try:
                return fn(*args)
            finally:
                spent[0] += time.process_time() - t0
        return call
    for name in COMPILED:
        module, attr = name.split(":")
        mod = importlib.import_module(module)
        setattr(mod, attr, timed(getattr(mod, attr)))


def _trial_group(group: str, rows: int, reps: int, seed: int, spent: list) -> dict:
    """``rows`` committed rows of ``group``'s CSV as a sweep's worker runs them: each setting built once and
    run once (untimed), then every row's trial run ``reps`` times; the CPU of those runs, and the first run's outputs.
    ``spent[0]`` (:func:`_timing_compiled`) is set to the CPU of those runs inside the compiled loops."""
    import importlib
    import time

    from simlib.pipeline.sweep import trial_seed
    name, fn_name, rows_have = TRIAL_GROUPS[group]
    module, attr = fn_name.split(":")
    fn = getattr(importlib.import_module(module), attr)
    picked = sample_committed_rows(name, rows, seed, _where(rows_have), fix=_int_params)
    built = [(fn.setting.of(p), trial_seed(0, t, p), r) for p, t, r in picked]
    for sc, seed_, _ in built:      # kernels loaded, first-call costs paid, each seed's uniforms drawn (a sweep
        fn(sc, seed_)               # runs thousands of settings at a handful of seeds, notebook 16 at 5)
    spent[0] = 0.0
    out = time_rows(lambda sc, seed: fn(sc, seed), built)
    t0 = time.process_time()
    for _ in range(reps - 1):
        for sc, seed, _ in built:
            fn(sc, seed)
    out["cpu"] += time.process_time() - t0
    return out


def worker() -> None:
    """Run every group once in this process; print JSON: per group the CPU seconds and outputs."""
    import hashlib
    import warnings

    import numpy as np
    warnings.filterwarnings("ignore")
    from simlib.core.validate import check_array
    from simlib.papers.cluster_scenario import run_trial
    from simlib.workloads import traces

    spec = json.loads(sys.stdin.read())
    out, spent = {}, [0.0]
    _timing_compiled(spent)
    for g in spec["groups"]:
        if g in TRIAL_GROUPS:
            out[g] = _trial_group(g, spec["rows"], spec["reps"], spec["seed"], spent)
            out[g + "_py"] = {"cpu": out[g]["cpu"] - spent[0], "rows": []}    # outside the compiled loops
    if not any(g in GROUPS for g in spec["groups"]):
        print(json.dumps(out))
        return
    settings = [{"scheme": "selective", "n": 200, "duration_s": 20.0, "bw_error": 0.5, "trace": tr}
                for tr in ("transformer", "cnn", "pai-job1", "bytedance-ar")]
    run_trial(dict(settings[0], duration_s=2.0), np.random.SeedSequence(0))   # kernels loaded, traces read
    t0 = time.process_time()
    rows = []
    for name in traces.TRACE_NAMES:
        traces._BUILTIN_CACHE.clear()
        tr = traces.load_trace(name)
        data = getattr(tr, "sequences", None)
        rows.append(hashlib.sha256(np.ascontiguousarray(tr.samples if data is None else data).tobytes()).hexdigest())
    out["traces"] = {"cpu": time.process_time() - t0, "rows": rows}
    x = np.random.default_rng(0).uniform(1e9, 2e10, 200)
    t0 = time.process_time()
    for _ in range(GROUPS["check_array"]):
        check_array("bandwidth_estimate result", x, lo=0.0, lo_open=True)
    out["check_array"] = {"cpu": time.process_time() - t0, "rows": []}
    t0 = time.process_time()
    rows = [{k: repr(v) for k, v in run_trial(s, np.random.SeedSequence(1, spawn_key=(t,))).items()}
            for t, s in enumerate(settings)]
    out["selective_e"] = {"cpu": time.process_time() - t0, "rows": rows}
    from simlib.papers.selmcast.ssp_metrics import ssp_metrics
    from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate
    logs = [simulate(SSPScenario.of({"scheme": sch, "n": 50, "duration_s": 100.0, "trace": tr}),
                     np.random.SeedSequence(2, spawn_key=(t,)))
            for t, (sch, tr) in enumerate((("selmcast", "transformer"), ("orpheus", "transformer"),
                                           ("selmcast", "cnn"), ("orpheus", "lstm")))]
    t0 = time.process_time()
    for _ in range(25):
        rows = [{k: repr(v) for k, v in ssp_metrics(log).items()} for log in logs]
    out["ssp_metrics"] = {"cpu": time.process_time() - t0, "rows": rows}
    print(json.dumps(out))


def _diff(a, b) -> list:
    if isinstance(a, dict):
        return [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return [] if a == b else ["sha256"]


def main(argv=None) -> int:
    ap = ab_arguments(__doc__, "5171cb4", 5)
    ap.add_argument("--rows", type=int, default=40, help="committed rows per whole-trial group")
    ap.add_argument("--reps", type=int, default=2, help="runs of each row per round (whole-trial groups)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the row sample")
    ap.add_argument("--only", nargs="+", choices=[*GROUPS, *TRIAL_GROUPS], default=[*GROUPS, *TRIAL_GROUPS],
                    help="these groups only")
    args = ap.parse_args(argv)
    if args.worker:
        worker()
        return 0
    if args.repeats < 1 or args.rows < 1 or args.reps < 1:
        ap.error("--repeats, --rows and --reps must be >= 1")
    old_root = extract(args.rev)
    print(f"{args.rev} (old) vs this checkout (new); {args.repeats} interleaved rounds; {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    groups = {}
    for g in args.only:
        groups[g] = range(GROUPS[g] if g in GROUPS else args.rows * args.reps)
        if g in TRIAL_GROUPS:
            groups[g + "_py"] = groups[g]
    if any(g in GROUPS for g in args.only):
        groups.update({g: range(n) for g, n in GROUPS.items()})     # they run together
    spec = {"rows": args.rows, "reps": args.reps, "seed": args.seed, "groups": args.only + list(GROUPS) * any(
        g in GROUPS for g in args.only)}
    rc = interleave_and_report(groups, old_root, lambda root: run_script_worker(__file__, spec, root, args.nice),
                               args.repeats, _diff, "group")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
