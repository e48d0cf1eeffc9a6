"""Benchmark: what S25's per-setting batches add to notebooks 43-44 at the next full reproduction, and
the verdicts they reach.

Trials 0-9 of each setting are read from the committed frames (``data/results/43_selmcast_ssp_fig7.csv``,
``44_selmcast_ssp_fig9.csv``: the sweep's seeds, so trial t pairs); the trials S25 adds
(:func:`simlib.pipeline.decide.settings_until_decided` with ``ssp_claims.open_settings``, from 10 in
batches of 5 up to ``--cap``, S25's 40; 20 before its second amendment) are computed here, serially, with the sweep's paired seeds
``SeedSequence(seed, spawn_key=(t,))``.  Prints each sweep's path, the rows it decides or leaves
undecided, and the new trials with their CPU seconds (``time.process_time``; on the shared 2-core machine
the wall time on 2 workers is about half).  Notebook 45's rows all decide at 10 trials (no batch).

    python benchmarks/bench_s25_ssp.py [--seed 0] [--cap 40]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from simlib.core.paths import COMMITTED_RESULTS
from simlib.papers.selmcast import ssp_claims as sc
from simlib.papers.selmcast.ssp_scenario import run_trial
from simlib.pipeline import sweep
from simlib.pipeline.decide import settings_until_decided

TRACES = ["lstm", "transformer", "cnn"]


def _committed_or_new(committed: pd.DataFrame, seed: int, cost: dict):
    """A ``sweep(settings, trials)`` for :func:`settings_until_decided`: committed trials, the rest computed."""
    done = {}

    def run(sets, trials):
        rows = []
        for s in sets:
            mask = np.ones(len(committed), bool)
            for k, v in s.items():
                col = committed[k]
                mask &= (col.isna().to_numpy() if v is None else (col.astype(str) == v).to_numpy()
                         if isinstance(v, str) else np.isclose(pd.to_numeric(col, errors="coerce"), float(v)))
            have = committed[mask].sort_values("trial").to_dict("records")
            rows += have[:trials]
            for t in range(len(have), trials):
                key = (tuple(sorted((k, str(v)) for k, v in s.items())), t)
                if key not in done:
                    t0 = time.process_time()
                    done[key] = {**s, "trial": t, **run_trial(s, np.random.SeedSequence(seed, spawn_key=(t,)))}
                    cost["cpu_s"] += time.process_time() - t0
                    cost["trials"] += 1
                rows.append(done[key])
        return pd.DataFrame(rows)
    return run


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cap", type=int, default=40, help="S25's cap: at most this many trials per setting")
    args = ap.parse_args(argv)
    fixed = dict(n=[50], duration_s=[600.0], p=[0.3], model_mb=[200.0], bbar_gbps=[40.0], lam=[0.5], mu=[1.0],
                 ssp=[4], k=[4], eta=[0.75], layer=["L3"])
    s43 = (sweep.expand_grid(trace=TRACES, scheme=["orpheus"], sharing=["maxmin"], tau_estimate=["trace"], **fixed)
           + sweep.expand_grid(trace=TRACES, scheme=["selmcast"], sharing=["maxmin", "priority"],
                               tau_estimate=["trace", "zero"], **fixed))
    common = dict(n=[50], duration_s=[600.0], eta=[0.75], k=[1, 2, 4, 8, 16, None], p=[0.3], ssp=[4])
    s9 = (sweep.expand_grid(trace=TRACES, scheme=["selmcast"], sharing=["maxmin", "priority"], **common)
          + sweep.expand_grid(trace=TRACES, scheme=["orpheus"], sharing=["maxmin"], **common))

    def j43(d):
        d = d[d.tau_estimate == "trace"]
        return [c for sh, st in sc.SETTINGS.items() for c in sc.fig7(sc.reading(d, sh), setting=st)]

    def j9(d):
        return [c for sh, st in sc.SETTINGS.items() for c in sc.fig9(sc.reading(d, sh), st)]

    cost = {"cpu_s": 0.0, "trials": 0}
    for name, sets, judge in (("43_selmcast_ssp_fig7", s43, j43), ("44_selmcast_ssp_fig9", s9, j9)):
        committed = pd.read_csv(COMMITTED_RESULTS / f"{name}.csv")
        before = {(c.figure, c.claim, c.setting): c.verdict for c in judge(committed)}
        out = settings_until_decided(_committed_or_new(committed, args.seed, cost), sets, judge, sc.open_settings,
                                     start=10, step=5, cap=args.cap)
        print(f"{name}: {out.text()}")
        for c in out.claims:
            if c.kind == "claim" and (before[c.figure, c.claim, c.setting] == "undecided" or c.verdict == "undecided"):
                print(f"  {c.figure} | {c.claim} | {c.setting}: {before[c.figure, c.claim, c.setting]} at 10 -> "
                      f"{c.verdict} at {c.pairs} pairs ({c.interval})")
    print(f"new trials: {cost['trials']}, {cost['cpu_s']:.1f} CPU-s ({cost['cpu_s'] / max(cost['trials'], 1):.2f} per trial)")


if __name__ == "__main__":
    main()
