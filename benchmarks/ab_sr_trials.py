"""A/B benchmark of notebooks 16, 91 and 92's trials (issue 48) against a revision, on committed rows.

Re-runs sampled committed rows with each row's paired sweep seed, in one warm process per side, as a sweep
worker runs them: notebook 16's profile search (``16_sr_profile_runs``; ``nb16_sel``: its selective-reduce rows) and baselines
(``16_sr_profile_baseline_runs``), notebook 91's internet-scale sweep (``91_beyond_internet_scale``, rows with
n <= ``--max-n``), and notebook 92's SR vs PR runs (``92_beyond_real_traces_sr``) and its two time-to-accuracy
sweeps (``92_beyond_real_traces_tta_sr``, ``92_beyond_real_traces_tta_ssp``; ``--tta-rows`` rows each, seconds a
row).  Each side runs in its own subprocess with ``PYTHONPATH`` at this checkout or at ``--rev`` (extracted by
``git archive`` into ``build/ab_<rev>``), alternating over ``--repeats`` rounds
(:func:`benchmarks.ab_revision.interleave_and_report`: median process CPU per group, ratio old/new, whether
every output is identical bit for bit as ``repr``).  Each side also counts the outputs that differ from the
committed CSV cells (printed once per side).  The trials of a group share the process, so the runs of one
trial seed reuse what a process keeps between runs (compute-time uniforms), as in a sweep's worker.

    python benchmarks/ab_sr_trials.py [--rev 6e5bbc8] [--rows 40] [--tta-rows 2] [--repeats 3] [--nice 10]
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the side's simlib
from benchmarks.ab_revision import (ab_arguments, committed_side, extract, interleave_and_report,  # noqa: E402
                                     row_diff, sample_committed_rows, time_rows)

#: group -> (the committed result CSV its rows come from, the trial function "module:name", rows option)
GROUPS = {"nb16_runs": ("16_sr_profile_runs", "simlib.papers.cluster_scenario:run_trial", "rows"),
          "nb16_sel": ("16_sr_profile_runs", "simlib.papers.cluster_scenario:run_trial", "rows"),
          "nb16_base": ("16_sr_profile_baseline_runs", "simlib.papers.cluster_scenario:run_trial", "rows"),
          "nb91": ("91_beyond_internet_scale", "simlib.papers.cluster_scenario:run_trial", "rows91"),
          "nb92_sr": ("92_beyond_real_traces_sr", "simlib.papers.cluster_scenario:run_trial", "rows"),
          "nb92_tta_sr": ("92_beyond_real_traces_tta_sr", "simlib.training.time_to_accuracy:trial", "tta_rows"),
          "nb92_tta_ssp": ("92_beyond_real_traces_tta_ssp", "simlib.training.selmcast_ssp_tta:trial", "tta_rows")}


def _rows(name: str, k: int, seed: int, max_n: int | None = None, scheme: str | None = None) -> list:
    """``k`` rows of ``data/results/<name>.csv`` (n <= ``max_n``, of ``scheme``) drawn with ``seed``: (params,
    trial, row)."""
    def where(df):
        keep = df["n"] == df["n"]
        if max_n is not None:
            keep &= df["n"] <= max_n
        if scheme is not None:
            keep &= df["scheme"] == scheme
        return keep
    return sample_committed_rows(name, k, seed, where, fix=lambda p: dict(p, n=int(p["n"])))


def worker() -> None:
    """Run every group once in this process (after one warm trial per group); print JSON: per group the
    CPU seconds, the outputs and the number of outputs differing from the committed rows."""
    import importlib
    import warnings
    warnings.filterwarnings("ignore")
    from simlib.pipeline.sweep import trial_seed

    spec = json.loads(sys.stdin.read())
    counts = {"rows": spec["rows"], "rows91": spec["rows"], "tta_rows": spec["tta_rows"]}
    out = {}
    for g in spec["groups"]:
        name, fn_name, count = GROUPS[g]
        module, attr = fn_name.split(":")
        fn = getattr(importlib.import_module(module), attr)
        rows = _rows(name, counts[count], spec["seed"], spec["max_n"] if g == "nb91" else None,
                     "selective" if g == "nb16_sel" else None)
        if count != "tta_rows":       # kernels loaded, first-call costs paid (the TTA groups: their own rows)
            p, t, _ = rows[0]
            fn(dict(p), trial_seed(0, t, p))
        out[g] = time_rows(lambda p, t: fn(dict(p), trial_seed(0, t, p)), rows)
    print(json.dumps(out))


def main(argv=None) -> int:
    ap = ab_arguments(__doc__, "6e5bbc8", 3)
    ap.add_argument("--rows", type=int, default=40, help="rows sampled per group (notebooks 16, 91, 92's SR)")
    ap.add_argument("--tta-rows", type=int, default=2, help="rows sampled per time-to-accuracy group")
    ap.add_argument("--max-n", type=int, default=2000, help="notebook 91's rows up to this n")
    ap.add_argument("--seed", type=int, default=0, help="seed of the row sample")
    ap.add_argument("--only", nargs="+", choices=list(GROUPS), default=list(GROUPS), help="these groups only")
    args = ap.parse_args(argv)
    if args.worker:
        worker()
        return 0
    if args.repeats < 1 or args.rows < 1 or args.tta_rows < 1:
        ap.error("--repeats, --rows and --tta-rows must be >= 1")
    old_root = extract(args.rev)
    print(f"{args.rev} (old) vs this checkout (new); {args.rows} rows per group, {args.tta_rows} per TTA group; "
          f"{args.repeats} interleaved rounds; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}",
          flush=True)
    spec = {"rows": args.rows, "tta_rows": args.tta_rows, "seed": args.seed, "max_n": args.max_n,
            "groups": args.only}
    run_side = committed_side(__file__, spec, args.only, args.nice)
    groups = {g: range(args.tta_rows if GROUPS[g][2] == "tta_rows" else args.rows) for g in args.only}
    rc = interleave_and_report(groups, old_root, run_side, args.repeats, row_diff, "group")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
