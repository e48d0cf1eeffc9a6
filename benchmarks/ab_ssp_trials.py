"""A/B benchmark of SelMcast's SSP trials (``ssp_scenario.run_trial``, issue 48) against a revision.

Re-runs sampled committed rows of notebooks 44 (Figs. 8-10), 45 (Figs. 11-13) and 48 (the profile's
150 s Orpheus pilots) with each row's sweep seed (``trial_seed(0, trial)``, the notebooks' paired seeds),
grouped by run kind: scheme, sharing, line 32's reading and gamma > 0 (groups below).  Each side runs in
its own subprocess with ``PYTHONPATH`` at this checkout or at ``--rev`` (``git archive`` into
``build/ab_<rev>``), alternating over ``--repeats`` rounds
(:func:`benchmarks.ab_revision.interleave_and_report`: median process CPU per group, ratio old/new,
whether every output is identical bit for bit as ``repr``).  Each side also counts the outputs that
differ from the committed CSV cells (printed once per side) and, with ``--split``, how the group's CPU
divides into ``ssp_kernel.run_loop`` (the compiled loop), ``TimeVaryingBandwidth._period_draws`` (the
gamma > 0 period draws, memoized per process and seed: a group's first row of each seed pays them) and
the rest (Python around the kernel: scenario, trace, log, metrics).

    python benchmarks/ab_ssp_trials.py [--rev 6e5bbc8] [--rows 6] [--per 1] [--repeats 3] [--nice 10] [--split]
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the side's simlib
from benchmarks.ab_revision import (ab_arguments, committed_params, committed_side, extract,  # noqa: E402
                                     interleave_and_report, row_diff, run_script_worker, time_rows)

_F44 = ("44_selmcast_ssp_fig8", "44_selmcast_ssp_fig9", "44_selmcast_ssp_fig10")
_F45 = ("45_selmcast_ssp_fig11", "45_selmcast_ssp_fig12", "45_selmcast_ssp_fig13")


def _kind(scheme, sharing, gamma_pos, line32="y"):
    def pick(d):
        g = d.get("gamma", 0.0)
        g = (g.fillna(0.0) if hasattr(g, "fillna") else g) > 0.0
        l32 = d.get("line32", "y")
        l32 = l32.fillna("y") if hasattr(l32, "fillna") else l32
        return (d.scheme == scheme) & (d.sharing == sharing) & (g == gamma_pos) & (l32 == line32)
    return pick


#: group -> (the committed result CSVs its rows come from, the rows' filter)
GROUPS = {"44_sm": (_F44, _kind("selmcast", "maxmin", False)), "44_sp": (_F44, _kind("selmcast", "priority", False)),
          "44_om": (_F44, _kind("orpheus", "maxmin", False)),
          "45_sm": (_F45, _kind("selmcast", "maxmin", False)), "45_sx": (_F45, _kind("selmcast", "maxmin", False, "x")),
          "45_sp": (_F45, _kind("selmcast", "priority", False)), "45_om": (_F45, _kind("orpheus", "maxmin", False)),
          "45_sg": (_F45, _kind("selmcast", "maxmin", True)), "45_pg": (_F45, _kind("selmcast", "priority", True)),
          "45_og": (_F45, _kind("orpheus", "maxmin", True)),
          "48_pilot": (("48_selmcast_ssp_profile_runs",), lambda d: d.scheme == d.scheme)}


def _rows(names, pick, k: int, seed: int, per: int = 1) -> list:
    """``k`` rows drawn with ``seed`` from the rows of ``data/results/<names>.csv`` that ``pick`` keeps,
    each followed by the next ``per - 1`` rows of its setting (later trials, as a sweep's process runs
    several trials of a setting): (params, trial, committed row); ``ssp``/``k`` empty read as None
    (infinite), else as int."""
    import numpy as np
    import pandas as pd
    frames = []
    for name in names:
        df = pd.read_csv(ROOT / "data" / "results" / f"{name}.csv")
        keys = list(df.columns[:list(df.columns).index("trial")])
        frames += [(keys, r) for _, r in df[pick(df)].iterrows()]
    out = []
    chosen = sorted(np.random.default_rng(seed).choice(len(frames), min(k, len(frames)), replace=False).tolist())
    same = [i > 0 and frames[i][0] == frames[i - 1][0]
            and all(frames[i][1][c] == frames[i - 1][1][c] or (pd.isna(frames[i][1][c]) and pd.isna(frames[i - 1][1][c]))
                    for c in frames[i][0]) for i in range(len(frames))]
    for i0 in chosen:
        for i in range(i0, min(i0 + per, len(frames))):
            if i > i0 and not same[i]:
                break
            out.append(_row(*frames[i]))
    return out


def _row(keys, r):
    """(params, trial, committed row) of CSV row ``r`` whose setting is the columns ``keys``; ``ssp``/``k``
    empty read as None (infinite), else as int."""
    params = committed_params(r, keys)
    for c in ("ssp", "k"):
        if c in keys:
            params[c] = int(params[c]) if c in params else None
    return params, int(r["trial"]), r


def _timer(owner, name: str, acc: dict, key: str) -> None:
    """Wrap ``owner.name`` so that its process CPU is added to ``acc[key]``."""
    fn = getattr(owner, name)

    def timed(*a, **kw):
        t0 = time.process_time()
        try:
            return fn(*a, **kw)
        finally:
            acc[key] += time.process_time() - t0
    setattr(owner, name, timed)


def worker() -> None:
    """Run every group once in this process (after one warm trial per group); print JSON: per group the
    CPU seconds, the outputs, the number of outputs differing from the committed rows and (``split``)
    the CPU inside the compiled loop and the period draws."""
    import warnings
    warnings.filterwarnings("ignore")
    from simlib.papers.selmcast import ssp_cluster
    from simlib.papers.selmcast.ssp_scenario import run_trial
    from simlib.pipeline.sweep import trial_seed
    from simlib.workloads import bandwidth

    spec = json.loads(sys.stdin.read())
    acc = {"kernel": 0.0, "draws": 0.0}
    if spec["split"]:
        _timer(ssp_cluster.kernel, "run_loop", acc, "kernel")
        _timer(bandwidth.TimeVaryingBandwidth, "_period_draws", acc, "draws")
    samples = {g: _rows(names, pick, spec["rows"], spec["seed"], spec["per"]) for g, (names, pick) in GROUPS.items()}
    for rows in samples.values():                      # kernels loaded, first-call costs paid
        p, t, _ = rows[0]
        run_trial(dict(p, duration_s=5.0), trial_seed(0, 99))
    out = {}
    for g, rows in samples.items():
        bandwidth._DRAWS.__init__(bandwidth._DRAWS.max_bytes)   # each group pays its seeds' draws once
        acc.update(kernel=0.0, draws=0.0)
        out[g] = time_rows(lambda p, t: run_trial(p, trial_seed(0, t)), rows, skip_suffix="")
        out[g].update(kernel=acc["kernel"], draws=acc["draws"])
    print(json.dumps(out))


def main(argv=None) -> int:
    ap = ab_arguments(__doc__, "6e5bbc8", 3)
    ap.add_argument("--rows", type=int, default=6, help="rows sampled per group")
    ap.add_argument("--seed", type=int, default=0, help="seed of the row sample")
    ap.add_argument("--per", type=int, default=1, help="each sampled row with up to PER - 1 later trials of its setting")
    ap.add_argument("--split", action="store_true", help="also time run_loop and the period draws (one round of "
                                                         "this checkout only, no A/B)")
    args = ap.parse_args(argv)
    if args.worker:
        worker()
        return 0
    if args.repeats < 1 or args.rows < 1:
        ap.error("--repeats and --rows must be >= 1")
    spec = {"rows": args.rows, "seed": args.seed, "split": args.split, "per": args.per}
    if args.split:
        print(f"this checkout; {args.rows} rows per group; load average {os.getloadavg()[0]:.1f}", flush=True)
        res = run_script_worker(__file__, spec, ROOT, args.nice)
        print(f"{'group':>9} {'rows':>4} {'CPU s':>7} {'s/run':>6} {'kernel':>7} {'draws':>6} {'rest':>6} "
              f"{'rest/run':>8} committed-diffs")
        for g, r in res.items():
            k = len(r["rows"])
            rest = r["cpu"] - r["kernel"] - r["draws"]
            print(f"{g:>9} {k:>4} {r['cpu']:>7.2f} {r['cpu'] / k:>6.3f} {r['kernel']:>7.2f} {r['draws']:>6.2f} "
                  f"{rest:>6.2f} {rest / k:>8.4f} {r['committed_diffs']}", flush=True)
        print(f"load average {os.getloadavg()[0]:.1f}")
        return 0
    old_root = extract(args.rev)
    print(f"{args.rev} (old) vs this checkout (new); {args.rows} rows per group; {args.repeats} interleaved "
          f"rounds; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
    run_side = committed_side(__file__, spec, GROUPS, args.nice)
    groups = {g: _rows(names, pick, args.rows, args.seed, args.per) for g, (names, pick) in GROUPS.items()}
    rc = interleave_and_report(groups, old_root, run_side, args.repeats, row_diff, "group")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
