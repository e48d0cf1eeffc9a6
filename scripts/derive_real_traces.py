#!/usr/bin/env python3
"""Derive the real per-worker compute-time traces in ``simlib/workloads/trace_data/`` from the
public upstream files (provenance, licences, citations and SHA-256 sums: ``data/traces/README.md``).

Each output ``<name>.csv`` is one recorded job as a matrix: one row per recorded step (in
order), one column per recorded worker (data-parallel rank); ``#`` lines above the header say
where it comes from.  Decision T7 (``docs/decisions/traces_bandwidth.md``) says how the
simulator replays it.

* **Alibaba PAI** (``pai-job1`` ... ``pai-job4``; alibaba/clusterdata,
  ``cluster-trace-gpu-v2020/mini-batch-time/data/job_<k>_norm.csv``): the column
  ``batch_time_norm`` (normalized to 0-1000, no absolute unit) of every worker, keeping only
  the recorded iterations (``time``) present for *every* worker, so that all workers' sequences
  are aligned step by step (drops 16 trailing rows of job 2, worker 0's missing first row of
  job 3 and worker 9's missing last row of job 4; one duplicated row of job 2 is read once).
  Upstream logs one mini-batch in ten (``time`` = 1, 11, 21, ...): consecutive rows are ten
  iterations apart.
* **ByteDance** (``bytedance-se``, ``-ar``, ``-st``; ByteDance-Seed/StragglerAnalysis,
  ``data/trace-<X>.parquet``): per (data-parallel rank, pipeline stage, step) the sum of the
  durations of its ``forward-compute`` and ``backward-compute`` operations (``OpType`` in
  upstream ``analyzer/metatypes.py``; communication, optimizer and gc ops excluded), then per
  (data-parallel rank, step) the **maximum over its pipeline stages** (``--stages max``, the
  default): a pipelined replica cannot finish before its busiest stage and runs at its pace.
  ``--stages sum`` (stages run one after another, no pipelining) is the other reading; the
  summary prints how each tracks the recorded span (first forward start to last backward end
  over the replica's stages).  Seconds, rounded to 1 us.  The recorded steps are not
  contiguous (upstream sampled bursts of steps); rows keep their order.

Usage (``RAW`` holds the upstream files as laid out by ``/work/shared/traces``, i.e. the folders
``alibaba-pai-2020-minibatch/`` and ``bytedance-straggler-analysis/``)::

    .venv/bin/python scripts/derive_real_traces.py --raw RAW            # (re)write the CSVs
    .venv/bin/python scripts/derive_real_traces.py --raw RAW --check    # compare, write nothing
    .venv/bin/python scripts/derive_real_traces.py --summary            # statistics of the committed CSVs

Every raw file's SHA-256 is checked against ``data/traces/SHA256SUMS`` before anything is read.
Needs pandas and pyarrow (``requirements.txt``); simlib itself reads only the derived CSVs.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "simlib" / "workloads" / "trace_data"
SUMS = ROOT / "data" / "traces" / "SHA256SUMS"

PAI_DIR = "alibaba-pai-2020-minibatch"
BD_DIR = "bytedance-straggler-analysis"
PAI_ORIGIN = ("alibaba/clusterdata@7a6c496e4f4b6ce6150be8f881cb051bf2abff42 "
              "cluster-trace-gpu-v2020/mini-batch-time/data/{file}")
BD_ORIGIN = "ByteDance-Seed/StragglerAnalysis@8efcd7f37f158af26ac64d0b6fbf1f22d28a6e83 data/{file}"
PAI_TERMS = ("terms: research or study use (upstream README); cite Xiao et al., AntMan, OSDI 2020 and "
             "Weng et al., MLaaS in the Wild, NSDI 2022")
BD_TERMS = ("licence: Apache-2.0 (data/traces/LICENSE-bytedance); cite Understanding Stragglers in Large "
            "Model Training Using What-if Analysis, OSDI 2025")
#: name -> (source folder, raw file)
SOURCES = {
    **{f"pai-job{k}": (PAI_DIR, f"job_{k}_norm.csv") for k in (1, 2, 3, 4)},
    **{f"bytedance-{x.lower()}": (BD_DIR, f"trace-{x}.parquet") for x in ("SE", "AR", "ST")},
}
#: upstream OpType.forward_compute / backward_compute (analyzer/metatypes.py)
COMPUTE_OPTYPES = ("forward-compute", "backward-compute")
STAGE_RULES = ("max", "sum")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_sums(raw: Path, names) -> None:
    """Every raw file the traces ``names`` need exists under ``raw`` with the recorded SHA-256."""
    expected = dict(reversed(line.split(None, 1)) for line in SUMS.read_text().splitlines()
                    if line.strip() and not line.startswith("#"))
    for name in names:
        rel = "/".join(SOURCES[name])
        path = raw / rel
        if not path.is_file():
            raise SystemExit(f"--raw: {str(path)!r} (needed by {name}) does not exist")
        if sha256(path) != expected[rel]:
            raise SystemExit(f"--raw: {str(path)!r} is not the upstream file: SHA-256 differs from "
                             f"{SUMS.relative_to(ROOT)}")


def pai_matrix(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(steps, times[step, worker]) of one PAI job: the iterations every worker recorded."""
    import pandas as pd

    df = pd.read_csv(path, index_col=0).drop_duplicates(["worker", "time"])
    wide = df.pivot(index="time", columns="worker", values="batch_time_norm").dropna().sort_index()
    return wide.index.to_numpy(), wide.to_numpy(dtype=float)


def bytedance_stage_sums(path: Path):
    """DataFrame index (dp_rank, step), one column per stage: summed compute-op durations (s)."""
    import pandas as pd

    df = pd.read_parquet(path)
    comp = df[df["optype"].astype(str).isin(COMPUTE_OPTYPES)]
    s = (comp.assign(duration=comp["duration"].astype(float))
         .groupby(["dp_rank", "stage", "step"], observed=True)["duration"].sum().unstack("stage"))
    if s.isna().any().any():
        raise SystemExit(f"{path}: some (dp_rank, step) lacks compute ops on a stage")
    return s


def bytedance_matrix(path: Path, stages: str = "max") -> tuple[np.ndarray, np.ndarray]:
    """(steps, times[step, dp_rank]) of one ByteDance job; stages combined by ``stages``."""
    s = bytedance_stage_sums(path)
    per = (s.max(axis=1) if stages == "max" else s.sum(axis=1)).unstack("dp_rank").sort_index()
    if per.isna().any().any():
        raise SystemExit(f"{path}: not every dp_rank recorded every step")
    return per.index.to_numpy(), np.round(per.to_numpy(dtype=float), 6)


def csv_text(name: str, steps: np.ndarray, times: np.ndarray, stages: str = "max") -> str:
    folder, file = SOURCES[name]
    if folder == PAI_DIR:
        origin, unit = PAI_ORIGIN.format(file=file), "batch_time_norm (normalized 0-1000, no absolute unit)"
        how = "iterations recorded for every worker; upstream logs every 10th mini-batch"
        fmt = "{:.0f}"
    else:
        origin, unit = BD_ORIGIN.format(file=file), "seconds"
        how = (f"per data-parallel rank and step: {stages} over pipeline stages of the summed "
               "forward-compute + backward-compute durations")
        fmt = "{:.6f}"
    lines = [f"# {name}: {origin}",
             f"# derived by scripts/derive_real_traces.py: {how}",
             f"# {PAI_TERMS if folder == PAI_DIR else BD_TERMS}",
             f"# unit: {unit}; columns: recorded step, then one column per recorded worker",
             ",".join(["step"] + [f"worker_{r}" for r in range(times.shape[1])])]
    lines += [",".join([str(int(st))] + [fmt.format(v) for v in row]) for st, row in zip(steps, times)]
    return "\n".join(lines) + "\n"


def derive(raw: Path, name: str, stages: str = "max") -> str:
    folder, file = SOURCES[name]
    steps, times = (pai_matrix if folder == PAI_DIR else
                    lambda p: bytedance_matrix(p, stages))(raw / folder / file)
    return csv_text(name, steps, times, stages)


# --------------------------------------------------------------------------- statistics
def lag1(x: np.ndarray) -> float:
    """Lag-1 autocorrelation of one sequence (nan if constant)."""
    d = x - x.mean()
    den = float(d @ d)
    return float(d[:-1] @ d[1:] / den) if den > 0 else float("nan")


def stats(times: np.ndarray) -> dict:
    """Summary of a [step, worker] matrix: the quantities the report and data/README.md quote."""
    pooled = times.ravel()
    means = times.mean(axis=0)
    slowest = times.argmax(axis=1)
    return {
        "workers": times.shape[1], "steps": times.shape[0],
        "pooled_cov": float(pooled.std() / pooled.mean()),
        # share of the pooled variance explained by which worker it is (persistent heterogeneity)
        "between_worker_share": float(((means - pooled.mean()) ** 2).mean() / pooled.var()),
        "worker_mean_ratio": float(means.max() / means.min()),
        "lag1": float(np.nanmean([lag1(times[:, r]) for r in range(times.shape[1])])),
        # probability that the slowest worker of a step is also the slowest of the next step
        "slowest_stays": float((slowest[1:] == slowest[:-1]).mean()),
    }


def read_committed(name: str) -> np.ndarray:
    rows = [line for line in (OUT_DIR / f"{name}.csv").read_text().splitlines()
            if line and not line.startswith("#")][1:]
    return np.array([[float(c) for c in r.split(",")[1:]] for r in rows])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", type=Path, help="folder with the upstream files (see the docstring)")
    ap.add_argument("--only", choices=sorted(SOURCES), action="append", help="derive only these traces")
    ap.add_argument("--stages", choices=STAGE_RULES, default="max",
                    help="how a ByteDance dp rank's pipeline stages combine (default max; the committed files)")
    ap.add_argument("--out-dir", type=Path, default=OUT_DIR)
    ap.add_argument("--check", action="store_true", help="compare with the files in --out-dir, write nothing")
    ap.add_argument("--summary", action="store_true", help="print statistics of the files in --out-dir")
    args = ap.parse_args(argv)
    names = args.only or list(SOURCES)
    if args.raw is None and not args.summary:
        ap.error("--raw is required unless only --summary is asked for")
    status = 0
    if args.raw is not None:
        check_sums(args.raw, names)
        for name in names:
            text = derive(args.raw, name, args.stages)
            path = args.out_dir / f"{name}.csv"
            if args.check:
                same = path.is_file() and path.read_text() == text
                print(f"{name}: {'identical' if same else 'DIFFERS'} ({path})")
                status |= not same
            else:
                path.write_text(text)
                print(f"wrote {path} ({len(text.encode())} bytes)")
        if args.summary and any(SOURCES[n][0] == BD_DIR for n in names):
            print("ByteDance: correlation over (dp rank, step) of each stage rule with the recorded span")
            for name in (n for n in names if SOURCES[n][0] == BD_DIR):
                span_vs(args.raw, name)
    if args.summary:
        print("| trace | workers | steps | pooled CoV | between-worker share | max/min worker mean "
              "| lag-1 autocorr. | slowest stays |")
        print("|---|---|---|---|---|---|---|---|")
        for name in names:
            s = stats(read_committed(name))
            print(f"| {name} | {s['workers']} | {s['steps']} | {s['pooled_cov']:.3f} | "
                  f"{s['between_worker_share']:.2f} | {s['worker_mean_ratio']:.2f} | {s['lag1']:.2f} | "
                  f"{s['slowest_stays']:.2f} |")
    return status


def span_vs(raw: Path, name: str) -> None:
    """Print how max/sum over stages track the recorded compute span of each (dp rank, step):
    correlation, and the ratio of the slowest to the fastest dp rank's mean under each."""
    import pandas as pd

    path = raw / BD_DIR / SOURCES[name][1]
    df = pd.read_parquet(path)
    comp = df[df["optype"].astype(str).isin(COMPUTE_OPTYPES)].astype({"start_ts": float, "duration": float})
    g = comp.assign(end=comp["start_ts"] + comp["duration"]).groupby(["dp_rank", "step"])
    span = g["end"].max() - g["start_ts"].min()
    s = bytedance_stage_sums(path)

    def spread(v):
        m = v.groupby("dp_rank").mean()
        return m.max() / m.min()

    parts = [f"{rule}: corr {np.corrcoef(v.loc[span.index], span)[0, 1]:.3f}, max/min rank mean {spread(v):.2f}"
             for rule, v in (("max", s.max(axis=1)), ("sum", s.sum(axis=1)))]
    print(f"  {name}: " + "; ".join(parts) + f"; span: max/min rank mean {spread(span):.2f}")

if __name__ == "__main__":
    sys.exit(main())
