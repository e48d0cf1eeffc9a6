"""A/B benchmark of SelMcast's BSP trials (``selmcast.experiments.bsp_trial``, issue 48) against a revision.

Re-runs sampled committed rows of notebook 47's BSP profile search (``47_selmcast_profile_runs``, Orpheus
only, n = 100 and 200), its claims map (``47_selmcast_claims_map_runs``, all three schemes) and notebook
41's Fig. 4 (``41_selmcast_fig4``) with each row's sweep seed, in one warm process per side.  Each side runs
in its own subprocess with ``PYTHONPATH`` at this checkout or at ``--rev`` (extracted by ``git archive``
into ``build/ab_<rev>``), alternating over ``--repeats`` rounds
(:func:`benchmarks.ab_revision.interleave_and_report`: median process CPU per group, ratio old/new, whether
every output is identical bit for bit as ``repr``; the wall-clock columns ``*_time_ms`` are left out).
Each side also counts the outputs that differ from the committed CSV cells (printed once per side).

    python benchmarks/ab_bsp_trials.py [--rev b715c40] [--rows 8] [--repeats 3] [--nice 10]
"""
from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the side's simlib
from benchmarks.ab_revision import (ab_arguments, committed_side, extract, interleave_and_report,  # noqa: E402
                                     row_diff, sample_committed_rows, time_rows)

#: group -> the committed result CSV its rows come from
GROUPS = {"nb47_search": "47_selmcast_profile_runs", "nb47_map": "47_selmcast_claims_map_runs",
          "nb41_fig4": "41_selmcast_fig4"}


def _fix(params: dict) -> dict:
    """A committed BSP row's setting as the trial takes it."""
    if isinstance(params.get("mu"), str) and params["mu"] != "1/p":
        params["mu"] = float(params["mu"])             # a column mixing 1.0 and "1/p" reads as str
    if isinstance(params.get("schemes"), str):
        params["schemes"] = ast.literal_eval(params["schemes"])
    return params


def _rows(name: str, k: int, seed: int) -> list:
    """``k`` rows of ``data/results/<name>.csv`` drawn with ``seed``: (params, trial, committed row)."""
    return sample_committed_rows(name, k, seed, fix=_fix)


def worker() -> None:
    """Run every group once in this process (after one warm trial per group); print JSON: per group the
    CPU seconds, the outputs and the number of outputs differing from the committed rows."""
    import warnings
    warnings.filterwarnings("ignore")
    from simlib.papers.selmcast.experiments import bsp_trial
    from simlib.pipeline.sweep import trial_seed

    spec = json.loads(sys.stdin.read())
    samples = {g: _rows(name, spec["rows"], spec["seed"]) for g, name in GROUPS.items()}
    for rows in samples.values():                      # kernels loaded, first-call costs paid
        p, t, _ = rows[0]
        bsp_trial(p, trial_seed(0, t, p))
    out = {}
    for g, rows in samples.items():
        out[g] = time_rows(lambda p, t: bsp_trial(p, trial_seed(0, t, p)), rows)
    print(json.dumps(out))


def main(argv=None) -> int:
    ap = ab_arguments(__doc__, "b715c40", 3)
    ap.add_argument("--rows", type=int, default=8, help="rows sampled per group")
    ap.add_argument("--seed", type=int, default=0, help="seed of the row sample")
    args = ap.parse_args(argv)
    if args.worker:
        worker()
        return 0
    if args.repeats < 1 or args.rows < 1:
        ap.error("--repeats and --rows must be >= 1")
    old_root = extract(args.rev)
    print(f"{args.rev} (old) vs this checkout (new); {args.rows} rows per group; {args.repeats} interleaved "
          f"rounds; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
    run_side = committed_side(__file__, {"rows": args.rows, "seed": args.seed}, GROUPS, args.nice)
    groups = {g: range(args.rows) for g in GROUPS}
    rc = interleave_and_report(groups, old_root, run_side, args.repeats, row_diff, "group")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
