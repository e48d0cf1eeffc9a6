"""Benchmark: the CPU one map candidate of notebook 47's claims map costs (decision SM76).

Runs notebook 41's Figs. 4-6 grids (:func:`simlib.papers.selmcast.profile_map.figure_grids`, 22 settings,
all three schemes) at one candidate for ``--trials`` trials, serially in this process, with the sweep's
paired seeds, and prints the CPU seconds (``time.process_time``) per trial of the 22 settings and the
slowest settings.  A candidate at 10 trials costs 10 × that; the map's new candidates are those not
already run by notebooks 41 and 47 (the trial cache).

    python benchmarks/bench_claims_map.py [--lam 0.3] [--trials 1]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from simlib.papers.selmcast import profile_map
from simlib.papers.selmcast.experiments import bsp_trial
from simlib.papers.selmcast.profile import PAPER_PROFILE, Profile


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lam", type=float, default=0.3)
    ap.add_argument("--trials", type=int, default=1)
    args = ap.parse_args(argv)
    cand = Profile(args.lam, PAPER_PROFILE.normalization, PAPER_PROFILE.shared_x)
    grids = profile_map.figure_grids(cand, layers=["L3", "L7"], n_values=[50, 100, 150, 200], p_frac=0.3, fig5_n=200,
                                     p_frac_values=[0.1, 0.2, 0.3, 0.4, 0.5])
    settings = [s for sets in grids.values() for s in sets]
    bsp_trial(dict(settings[0], n=10), np.random.SeedSequence(0, spawn_key=(99,)))     # compile outside the timing
    per = {}
    t0 = time.process_time()
    for t in range(args.trials):
        for i, s in enumerate(settings):
            a = time.process_time()
            bsp_trial(s, np.random.SeedSequence(0, spawn_key=(t,)))
            per[i] = per.get(i, 0.0) + time.process_time() - a
    cpu = time.process_time() - t0
    print(f"{profile_map.candidate_label(**cand.settings())}: {len(settings)} settings x {args.trials} trials: {cpu:.1f} CPU-s, "
          f"{cpu / args.trials:.2f} per trial of the grids; 10 trials ≈ {10 * cpu / args.trials:.0f} CPU-s")
    for i in sorted(per, key=per.get, reverse=True)[:5]:
        s = settings[i]
        print(f"  {s['layer']} n={s['n']} p/n={s['p_frac']} mu={s['mu']}: {per[i] / args.trials:.2f} CPU-s per trial")


if __name__ == "__main__":
    main()
