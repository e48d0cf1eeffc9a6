"""A/B check of the SSP event loop: a git revision's ``ssp_kernel.py`` against this worktree's, in one process.

For a refactor of ``simlib/papers/selmcast/ssp_kernel.py`` that must not change a run (issue 35):

* identity: 37 scenarios x 2 seeds (n = 50, 120 s simulated; both schemes; max-min and strict priority in
  both orders; SSP 0/2/4/inf; tau from the trace, the oracle and zero; line 32's reading "x"; L7 (30 s);
  gamma 0.6; eta 1 with k 2) run on both kernels, and every column of the multicast log, the compute
  intervals, the blocked times, the largest SSP gap and the number of selections must be equal, bit for bit;
* speed: process CPU time of whole 10-minute n = 50 runs (``bench_selmcast_ssp.timed``) at notebooks 44-45's
  defaults (and Fig. 13's gamma 0.6: cases sg, og; Fig. 11's line 32 as printed: sx; 004's SSP paper profile,
  SM75's fitted shapes: pm, po on LSTM, cm, co on ResNet-50), the two kernels in
  turn (their order rotating) over ``--repeats`` seeds; medians, their ratio new/old, the speed-up old/new
  and the load average.

The revision's ``ssp_kernel.py``, ``ssp_cluster.py``, ``ssp_selection.py`` (Algorithm 2) and
``simlib/core/sharing.py`` (the rate solver) are written beside the package's as ``_ab_*.py`` for the run
(removed at exit), their imports of each other rewritten to the copies; the rest of the package is this
worktree's for both.  A third copy of the revision's kernel runs first: in one process the first kernel used runs
~10 % faster than any later one, whichever it is (measured with two copies of one file), and
process-wide memos (bandwidth draws, traces) are filled before timing.

    python benchmarks/ab_ssp_kernel.py [--rev 574b478] [--repeats 7] [--cases sm,om,sp,sg,og] [--no-identity]
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_selmcast_ssp import timed  # noqa: E402

import simlib.papers.selmcast.ssp_cluster as cluster_new  # noqa: E402
import simlib.papers.selmcast.ssp_kernel as kernel_new  # noqa: E402
import simlib.papers.selmcast.ssp_scenario as scenario  # noqa: E402
from simlib.papers.selmcast.ssp_profile import PAPER_SHAPES  # noqa: E402
from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate  # noqa: E402

PKG = ROOT / "simlib" / "papers" / "selmcast"
#: Imports rewritten in the revision's copies, so that its kernel runs on its own Algorithm 2 and sharing solver.
IMPORTS = (("from simlib.core.sharing import", "from ._ab_sharing import"),
           ("from .ssp_selection import", "from ._ab_selection import"))
#: Timed runs (notebooks 44-45's defaults: n = 50, LSTM, ssp = k = 4, p = 0.3 n, eta = 0.75), and
#: notebook 45's Fig. 13 (gamma 0.6, bandwidths re-drawn every 100 ms) and Fig. 11's line 32 as printed (sx: the
#: array form of Algorithm 2, not the bit-set one): scheme, sharing, other fields.
CASES = {"sm": ("selmcast", "maxmin", {}), "om": ("orpheus", "maxmin", {}), "sp": ("selmcast", "priority", {}),
         "sg": ("selmcast", "maxmin", {"gamma": 0.6, "period_s": 0.1}),
         "og": ("orpheus", "maxmin", {"gamma": 0.6, "period_s": 0.1}),
         "sx": ("selmcast", "maxmin", {"line32": "x"}),
         # 004's SSP paper profile (SM75's fitted shapes, ssp_profile.PAPER_SHAPES): LSTM and ResNet-50, max-min
         "pm": ("selmcast", "maxmin", PAPER_SHAPES["lstm"].settings()),
         "po": ("orpheus", "maxmin", PAPER_SHAPES["lstm"].settings()),
         "cm": ("selmcast", "maxmin", dict(trace="cnn", **PAPER_SHAPES["cnn"].settings())),
         "co": ("orpheus", "maxmin", dict(trace="cnn", **PAPER_SHAPES["cnn"].settings()))}


def identity_scenarios() -> list[dict]:
    """The 37 scenarios of the identity check (each run with seeds 0 and 5)."""
    out = []
    for scheme in ("selmcast", "orpheus"):
        for sharing, order in (("maxmin", "algorithm2"), ("priority", "algorithm2"), ("priority", "fifo")):
            out += [dict(scheme=scheme, sharing=sharing, priority_order=order, ssp=ssp) for ssp in (0, 2, 4, None)]
            out.append(dict(scheme=scheme, layer="L7", sharing=sharing, priority_order=order, duration_s=30.0))
    out += [dict(scheme="selmcast", tau_estimate=tau, ssp=2) for tau in ("trace", "oracle", "zero")]
    out += [dict(scheme="selmcast", line32="x"), dict(scheme="selmcast", gamma=0.6),
            dict(scheme="orpheus", gamma=0.6, k=None), dict(scheme="selmcast", eta=1.0, k=2)]
    return [dict(dict(n=50, duration_s=120.0), **kw) for kw in out]


def old_rules(cluster_module):
    """``SSPCluster`` of a revision's ``cluster_module`` taking the scenario as its ``rules`` (as this
    worktree's ``simulate`` hands it): before issue 46 the cluster took an ``SSPRules`` with
    ``math.inf`` for the scenario's ``None``; a later revision's class is returned as it is."""
    if not hasattr(cluster_module, "SSPRules"):
        return cluster_module.SSPCluster
    names = [f.name for f in dataclasses.fields(cluster_module.SSPRules)]

    def build(*, rules, **kw):
        values = {k: getattr(rules, k) for k in names}
        values.update({k: math.inf if values[k] is None else values[k] for k in ("ssp", "k")})
        return cluster_module.SSPCluster(rules=cluster_module.SSPRules(**values), **kw)
    return build


def log_arrays(log) -> dict:
    t = log.table
    out = {f: getattr(t, f) for f in ("sender", "round", "start", "sender_iter", "finish", "r0", "nr", "recv",
                                      "recv_at", "drop_mc", "drop_j", "drop_t")}
    out["compute"] = np.concatenate([np.asarray(c, float).ravel() for c in log.compute])
    out["blocked"] = log.blocked
    out["scalars"] = np.array([log.max_gap, log.selections])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="574b478", help="the revision to compare with (git)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--cases", default="sm,om", help=f"comma-separated of {sorted(CASES)}")
    ap.add_argument("--no-identity", action="store_true")
    args = ap.parse_args(argv)
    cases = [CASES[c] for c in args.cases.split(",")]
    written = []
    try:
        for name, src in (("_ab_kernel_first", "papers/selmcast/ssp_kernel.py"), ("_ab_kernel", "papers/selmcast/ssp_kernel.py"),
                          ("_ab_cluster", "papers/selmcast/ssp_cluster.py"),
                          ("_ab_selection", "papers/selmcast/ssp_selection.py"), ("_ab_sharing", "core/sharing.py")):
            text = subprocess.run(["git", "show", f"{args.rev}:simlib/{src}"], cwd=ROOT,
                                  check=True, capture_output=True, text=True).stdout
            for imp, ab in IMPORTS:                     # the revision's modules import each other
                text = text.replace(imp, ab)
            (PKG / f"{name}.py").write_text(text)
            written.append(PKG / f"{name}.py")
        mod = {k: importlib.import_module(f"simlib.papers.selmcast.{k}")
               for k in ("_ab_kernel_first", "_ab_kernel", "_ab_cluster")}

        def use(which: str) -> None:                    # which kernel simulate() runs: "old" or "new"
            if which == "new":
                scenario.SSPCluster = cluster_new.SSPCluster
            else:
                k = mod["_ab_kernel_first" if which == "first" else "_ab_kernel"]
                for alias in ("K", "kernel"):           # the name the revision's cluster gives the kernel
                    if hasattr(mod["_ab_cluster"], alias):
                        setattr(mod["_ab_cluster"], alias, k)
                scenario.SSPCluster = old_rules(mod["_ab_cluster"])

        for which in ("first", "old", "new"):               # compile or load every kernel
            use(which)
            for scheme, sharing, kw in cases:
                simulate(SSPScenario(scheme=scheme, sharing=sharing, n=50, duration_s=5.0, **kw), 0)
        if not args.no_identity:
            bad = 0
            runs = [(kw, seed) for kw in identity_scenarios() for seed in (0, 5)]
            for kw, seed in runs:
                logs = {}
                for which in ("old", "new"):
                    use(which)
                    logs[which] = log_arrays(simulate(SSPScenario(**kw), seed))
                diff = [k for k in logs["old"] if not np.array_equal(logs["old"][k], logs["new"][k], equal_nan=True)
                        or logs["old"][k].dtype != logs["new"][k].dtype]
                if diff:
                    bad += 1
                    print(f"DIFFERENT {kw} seed {seed}: {diff}", flush=True)
            print(f"identity: {len(runs) - bad} of {len(runs)} runs bit-identical to {args.rev}", flush=True)
        load0 = os.getloadavg()[0]
        for rep in range(args.repeats):                     # fill the process memos before timing
            for scheme, sharing, kw in cases:
                simulate(SSPScenario(scheme=scheme, sharing=sharing, n=50, duration_s=600.0, **kw), rep)
        cpu = {}
        for rep in range(args.repeats):
            for which in (("old", "new") if rep % 2 == 0 else ("new", "old")):
                use(which)
                for c in args.cases.split(","):
                    scheme, sharing, kw = CASES[c]
                    sc = SSPScenario(scheme=scheme, sharing=sharing, n=50, duration_s=600.0, **kw)
                    cpu.setdefault((c, which), []).append(timed(sc, rep, "compiled")[1])
        print(f"timed {args.repeats} runs of each kernel per case, interleaved; load average {load0:.1f} before "
              f"timing, {os.getloadavg()[0]:.1f} after", flush=True)
        for c in args.cases.split(","):
            scheme, sharing, kw = CASES[c]
            old, new = (cpu[(c, w)] for w in ("old", "new"))
            mo, mn = statistics.median(old), statistics.median(new)
            label = f"{scheme} {sharing}" + (" " + " ".join(f"{k}={v}" for k, v in kw.items()) if kw else "")
            print(f"{label:34s} 600 s n = 50, CPU per run: {args.rev} {mo:.3f} s, worktree {mn:.3f} s, "
                  f"ratio {mn / mo:.3f}, speed-up old/new {mo / mn:.2f}x (runs {', '.join(f'{x:.3f}' for x in old)} | "
                  f"{', '.join(f'{x:.3f}' for x in new)})", flush=True)
    finally:
        for path in written:
            path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
