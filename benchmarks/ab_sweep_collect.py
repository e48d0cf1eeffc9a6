"""A/B benchmark of a sweep's own process on many small trials (issue 48): collecting the results of a
:class:`~simlib.pipeline.sweep.ProcessPool` sweep, this checkout against ``--rev``.

Notebook 16 runs 8,740 trials of ~20 ms in one sweep.  Before, the sweep's process took each completion
from ``concurrent.futures.wait(pending, FIRST_COMPLETED)``, which registers and unregisters a waiter on
every pending future per call (quadratic in the trials); now every future reports itself to a queue as
it finishes.  Each side runs one sweep of ``--trials`` trials of 000's shared-cluster trial
(``cluster_scenario.run_trial``, partial reduce, ``--n`` workers, ``--duration`` simulated seconds: a few
ms of CPU each) on 2 worker processes, no trial cache, in a subprocess with ``PYTHONPATH`` at this
checkout or at ``--rev``; the sides alternate over ``--repeats`` rounds.  Printed: the median CPU seconds
of the sweep's own process (what changed) and of the whole side (the process and its workers), old/new,
and whether the sweeps' rows are identical bit for bit (exit 1 if not).

    python benchmarks/ab_sweep_collect.py [--rev 6e5bbc8] [--repeats 3] [--trials 8000]
"""
from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the side's simlib
from benchmarks.ab_revision import ab_arguments, extract, interleave_and_report, run_script_worker  # noqa: E402


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def worker() -> None:
    """One sweep in this process; print JSON: the sweep process's and the side's CPU seconds, the rows."""
    import warnings

    import numpy as np
    warnings.filterwarnings("ignore")
    from simlib.papers.cluster_scenario import run_trial
    from simlib.pipeline.sweep import Executor, ProcessPool, run_sweep

    spec = json.loads(sys.stdin.read())
    settings = [{"scheme": "partial", "n": spec["n"], "duration_s": spec["duration"], "p": p}
                for p in (0.2, 0.3, 0.4, 0.5)]
    run_trial(dict(settings[0]), np.random.SeedSequence(0))            # kernels loaded, traces read
    with ProcessPool(2) as pool:
        run_sweep(run_trial, settings[:1], 2, executor=Executor("processes", pool=pool), progress=False)  # started
        own0, kids0, wall0 = time.process_time(), _children_cpu(), time.perf_counter()
        df = run_sweep(run_trial, settings, spec["trials"] // len(settings), seed=1,
                       executor=Executor("processes", pool=pool), progress=False)
        own = time.process_time() - own0
    wall = time.perf_counter() - wall0
    total = own + _children_cpu() - kids0       # the pool's workers are reaped on leaving the block
    rows = [repr(r) for r in df.itertuples(index=False, name=None)]
    print(json.dumps({"sweep process": {"cpu": own, "rows": rows}, "whole side": {"cpu": total, "rows": []},
                      "wall": wall}))


def main(argv=None) -> int:
    ap = ab_arguments(__doc__, "6e5bbc8", 3)
    ap.add_argument("--trials", type=int, default=8000)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--duration", type=float, default=20.0)
    args = ap.parse_args(argv)
    if args.worker:
        worker()
        return 0
    old = extract(args.rev)
    spec = {"trials": args.trials, "n": args.n, "duration": args.duration}

    def run_side(root):
        return run_script_worker(__file__, spec, root, args.nice)

    print(f"{args.trials} trials (partial reduce, n = {args.n}, {args.duration} s), 2 workers; "
          f"old = {args.rev}, new = this checkout; medians of {args.repeats}")
    return interleave_and_report({"sweep process": [None] * args.trials, "whole side": [None]}, old, run_side,
                                 args.repeats, lambda a, b: [] if a == b else ["row"], "part")


if __name__ == "__main__":
    raise SystemExit(main())
