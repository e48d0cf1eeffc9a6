"""A/B benchmark of the per-trial work outside the compiled kernels (issue 48): loading and parsing every
built-in trace (once per process and trace: ``workloads.traces._rows``), ``core.validate.check_array`` as
the selective-reduce controller calls it every scheduling round, and whole trials of 000's selective reduce
with a bandwidth-estimation error (the Python controller round that validates each estimate), and
``ssp_metrics`` on four SSP logs (n = 50, 100 s; each 25 times, the logs simulated untimed) against a
revision.

Each side runs in its own subprocess with ``PYTHONPATH`` at this checkout or at ``--rev`` (extracted by
``git archive`` into ``build/ab_<rev>``), alternating over ``--repeats`` rounds so load changes hit both
alike (:func:`benchmarks.ab_revision.interleave_and_report`: median process CPU per group, ratio old/new,
whether every output is identical bit for bit: the traces' arrays as sha256 of their bytes, the trials'
metrics as ``repr``; exit 1 if any differs).

    python benchmarks/ab_trial_overhead.py [--rev 5171cb4] [--repeats 5]
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))      # after PYTHONPATH: a worker imports the side's simlib
from benchmarks.ab_revision import ab_arguments, extract, interleave_and_report, run_script_worker  # noqa: E402

#: group -> number of runs in it (the report's "runs" column)
GROUPS = {"traces": 11, "check_array": 20000, "selective_e": 4, "ssp_metrics": 4}


def worker() -> None:
    """Run every group once in this process; print JSON: per group the CPU seconds and outputs."""
    import hashlib
    import warnings

    import numpy as np
    warnings.filterwarnings("ignore")
    from simlib.core.validate import check_array
    from simlib.papers.cluster_scenario import run_trial
    from simlib.workloads import traces

    settings = [{"scheme": "selective", "n": 200, "duration_s": 20.0, "bw_error": 0.5, "trace": tr}
                for tr in ("transformer", "cnn", "pai-job1", "bytedance-ar")]
    run_trial(dict(settings[0], duration_s=2.0), np.random.SeedSequence(0))   # kernels loaded, traces read
    out = {}
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
    args = ab_arguments(__doc__, "5171cb4", 5).parse_args(argv)
    if args.worker:
        worker()
        return 0
    if args.repeats < 1:
        ap.error(f"--repeats must be >= 1, got {args.repeats}")
    old_root = extract(args.rev)
    print(f"{args.rev} (old) vs this checkout (new); {args.repeats} interleaved rounds; {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    groups = {g: range(n) for g, n in GROUPS.items()}
    return interleave_and_report(groups, old_root, lambda root: run_script_worker(__file__, {}, root, args.nice), args.repeats,
                                 _diff, "group")


if __name__ == "__main__":
    sys.exit(main())
