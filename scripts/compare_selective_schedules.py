"""Compare selective-reduce schedules between two versions of simlib (issue 9).

Runs a fixed matrix of scenarios (n = 40, 200, 1000; several seeds; progress models
"paper", "conditional", "oracle"; bandwidth error with both redraw modes; cold CDF; a
full-sync period c; both BAG base rules; both t_X forms; plus a few partial- and
all-reduce runs) and records, per run, every sync's (launch, members, finish), every
hold start, the controller counters and the metrics of ``sync_metrics``.

Two steps, each in its own process so that two code versions never share one
interpreter::

    # 1. dump schedules of a code version (its root goes first on sys.path)
    python scripts/compare_selective_schedules.py dump --code /tmp/sr_base --out base.pkl
    python scripts/compare_selective_schedules.py dump --code /tmp/sr_base --apply-fix --out base_fix.pkl
    python scripts/compare_selective_schedules.py dump --code . --out new.pkl
    # 2. compare two dumps: exit 1 if any schedule differs, listing the runs that do
    python scripts/compare_selective_schedules.py compare new.pkl base_fix.pkl

``--apply-fix`` patches the reference's Alg. 2 line 9 (``_expected_bandwidth``) with
the rounding fix only (the weighted mean clamped to the range of the bandwidths it
averages, decision SR20), so ``new`` vs ``base+fix`` must be identical everywhere and
``base`` vs ``base+fix`` lists exactly the schedules the fix changes.
``--quick`` runs a small subset (seconds).
"""
from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

VARIANTS = {
    "default": {},
    "conditional": {"progress_model": "conditional"},
    "oracle": {"progress_model": "oracle"},
    "bw_error_decision": {"bw_error": 0.2},
    "bw_error_run": {"bw_error": 0.3, "bw_error_redraw": "run"},
    "cold": {"cdf": "cold"},
    "cold_conditional": {"cdf": "cold", "progress_model": "conditional"},
    "c10": {"c": 10},
    "pseudocode": {"base_rule": "pseudocode"},
    "eq2": {"tx_form": "eq2"},
    "eta0_theta5": {"eta": 0.0, "theta": 5.0},
    "cnn_eta06": {"trace": "cnn", "eta": 0.6},
}


def matrix(quick: bool) -> list[tuple[str, int, int, dict]]:
    """(variant, n, seed, params) of every run."""
    runs = []
    if quick:
        for v in ("default", "bw_error_decision", "cold"):
            runs.append((v, 40, 0, VARIANTS[v]))
        return runs
    for scheme in ("partial", "allreduce"):                # the other schemes: metrics must not move
        for n, s in ((40, 0), (40, 1), (200, 0), (1000, 0)):
            runs.append((scheme, n, s, {"scheme": scheme}))
    for n, seeds in ((40, range(6)), (200, range(4))):
        for v, kw in VARIANTS.items():
            for s in seeds:
                runs.append((v, n, s, kw))
    for v, seeds in (("default", range(3)), ("conditional", [0]), ("oracle", [0]), ("bw_error_run", [0]),
                     ("pseudocode", [0])):
        for s in seeds:
            runs.append((v, 1000, s, VARIANTS[v]))
    return runs


def _fix_expected_bandwidth(module) -> None:
    """Give a pre-change algorithms module the Alg. 2 line 9 rounding fix (SR20) and nothing else."""

    def fixed(b, pr, sp):
        if not sp > 0.0:
            return 0.0
        pos = pr > 0.0
        return float(min(max(float(pr @ b) / sp, float(b[pos].min())), float(b[pos].max())))

    module._expected_bandwidth = fixed


def dump(code: str, out: str, apply_fix: bool, quick: bool) -> None:
    sys.path.insert(0, str(Path(code).resolve()))
    import numpy as np

    from simlib.papers import cluster_scenario as cs
    from simlib.papers.selective_reduce import algorithms
    from simlib.runtime.metrics import sync_metrics

    if apply_fix:
        _fix_expected_bandwidth(algorithms)
    res = {}
    t0 = time.perf_counter()
    for v, n, s, kw in matrix(quick):
        params = dict(scheme="selective", n=n, duration_s=100.0, trace="transformer")  # kw may set scheme
        params.update(kw)
        log = cs.simulate(cs.Scenario.from_params(params), np.random.SeedSequence(s))
        res[(v, n, s)] = {
            "syncs": [(r.launch, tuple(int(m) for m in r.members), r.finish, r.kind) for r in log.syncs],
            "holds": [(float(t), int(w)) for t, w in log.holds],
            "counters": dict(log.counters),
            "metrics": {k: repr(v) for k, v in sync_metrics(log).items()},   # repr: exact, NaN == NaN
        }
    with open(out, "wb") as f:
        pickle.dump(res, f)
    print(f"{len(res)} runs from {code} (fix {'applied' if apply_fix else 'not applied'}) "
          f"in {time.perf_counter() - t0:.0f} s -> {out}")


def compare(a: str, b: str) -> int:
    with open(a, "rb") as f:
        ra = pickle.load(f)
    with open(b, "rb") as f:
        rb = pickle.load(f)
    keys = sorted(set(ra) & set(rb))
    if set(ra) != set(rb):
        print(f"runs only in one dump: {sorted(set(ra) ^ set(rb))}")
    differ = []
    for k in keys:
        x, y = ra[k], rb[k]
        if x != y:
            first = next((i for i, (s, t) in enumerate(zip(x["syncs"], y["syncs"])) if s != t),
                         min(len(x["syncs"]), len(y["syncs"])))
            differ.append(k)
            print(f"DIFFER {k}: syncs {len(x['syncs'])} vs {len(y['syncs'])}, first differing sync #{first}"
                  + (f" at t={x['syncs'][first][0]:.4f}" if first < len(x["syncs"]) else "")
                  + f"; holds {len(x['holds'])} vs {len(y['holds'])}; counters {x['counters']} vs {y['counters']}"
                  + ("" if x.get("metrics") == y.get("metrics") else f"; metrics {x.get('metrics')} vs {y.get('metrics')}"))
    n_syncs = sum(len(ra[k]["syncs"]) for k in keys)
    print(f"{len(keys) - len(differ)}/{len(keys)} runs identical ({n_syncs} syncs compared: launch time, "
          f"members in order, finish time, kind; every hold; counters; metrics)")
    return 1 if differ or set(ra) != set(rb) else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--code", required=True, help="root of the simlib version to run")
    d.add_argument("--out", required=True)
    d.add_argument("--apply-fix", action="store_true")
    d.add_argument("--quick", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        dump(args.code, args.out, args.apply_fix, args.quick)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    raise SystemExit(main())
