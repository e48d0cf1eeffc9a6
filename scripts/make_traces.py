#!/usr/bin/env python3
"""Generate the synthetic per-iteration compute-time traces in ``simlib/workloads/trace_data/``.

The papers we reproduce (seed 000 §II-B / Fig. 1, seed 004 §IV-A2 / Fig. 3)
drive workers with the per-iteration runtime distributions that Li et al.
(eager-SGD, PPoPP'20, Fig. 1) measured for ResNet-50/ImageNet ("cnn"),
Transformer/WMT16 ("transformer") and LSTM/UCF101 ("lstm").  The raw
measurements are not public, so this script writes *synthetic stand-ins*
that copy only the qualitative shape features visible in those figures
(see ``data/README.md`` for what is and is not known).

Each trace is a finite mixture.  Component ``k`` draws
``shift_s + LogNormal(ln(median_s), sigma)`` seconds; a sample picks its
component with probability ``weight``.  After drawing ``n_samples`` values the
whole trace is multiplied by one constant so that its arithmetic mean is
``TARGET_MEAN_S`` (= 1.0 s, the normalisation used by seed 004, Fig. 3), then
rounded to whole microseconds.  The mixture parameters below are therefore in
"seconds before normalisation"; the normalisation factor is close to 1.

Re-running the script produces byte-identical files (fixed seeds, fixed
formatting, ``\\n`` line endings).  Usage::

    .venv/bin/python scripts/make_traces.py            # writes simlib/workloads/trace_data/*.csv
    .venv/bin/python scripts/make_traces.py --out-dir /tmp/t --summary
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "Component",
    "TraceSpec",
    "SPECS",
    "TARGET_MEAN_S",
    "N_SAMPLES",
    "COLUMN",
    "trace_samples",
    "write_traces",
    "summary_rows",
]

#: Mean of every generated trace after normalisation, seconds (seed 004 §IV-A2).
TARGET_MEAN_S = 1.0
#: Default number of samples (rows) per trace file.
N_SAMPLES = 20_000
#: Name of the single CSV column.
COLUMN = "compute_time_s"
#: Default output directory (relative to the repository root).
DEFAULT_OUT_DIR = Path(__file__).resolve().parent.parent / "simlib" / "workloads" / "trace_data"


@dataclass(frozen=True)
class Component:
    """One mixture component: ``shift_s + LogNormal(ln(median_s), sigma)`` seconds.

    ``weight`` is the mixing probability (weights of a trace sum to 1),
    ``median_s`` the median of the log-normal part in seconds, ``sigma`` its
    log-scale standard deviation (dimensionless), ``shift_s`` a constant
    offset in seconds (used to model an additive delay on top of a base time).
    """

    weight: float
    median_s: float
    sigma: float
    shift_s: float = 0.0


@dataclass(frozen=True)
class TraceSpec:
    """Generator parameters of one trace: RNG seed, mixture, and a note on the shape."""

    name: str
    seed: int
    components: tuple[Component, ...]
    shape: str


SPECS: dict[str, TraceSpec] = {
    # ResNet-50 / ImageNet on a 2xV100 cloud instance: every iteration does the
    # same work, so the bulk is one tight mode; cloud performance variability
    # adds occasional *extra delay* (a right tail above the mode, never below).
    "cnn": TraceSpec(
        name="cnn",
        seed=20200101,
        components=(
            Component(weight=0.94, median_s=0.97, sigma=0.03),
            Component(weight=0.06, median_s=0.20, sigma=0.60, shift_s=0.97),
        ),
        shape="one tight mode (CV < 0.1) plus a sparse right tail of system-noise delays",
    ),
    # Transformer / WMT16 on P100: sentence-length bucketing gives several
    # distinct modes whose heights decrease with length -> wide, right-skewed,
    # multi-modal.
    "transformer": TraceSpec(
        name="transformer",
        seed=20200102,
        components=(
            Component(weight=0.30, median_s=0.50, sigma=0.10),
            Component(weight=0.30, median_s=0.85, sigma=0.09),
            Component(weight=0.22, median_s=1.30, sigma=0.08),
            Component(weight=0.13, median_s=1.90, sigma=0.08),
            Component(weight=0.05, median_s=2.80, sigma=0.10),
        ),
        shape="wide, right-skewed, multi-modal (sentence-length buckets)",
    ),
    # LSTM / UCF101: video-length buckets give a few modes, and long videos a
    # heavy right tail (max of order 10x the mean).
    "lstm": TraceSpec(
        name="lstm",
        seed=20200103,
        components=(
            Component(weight=0.40, median_s=0.55, sigma=0.10),
            Component(weight=0.30, median_s=0.90, sigma=0.08),
            Component(weight=0.18, median_s=1.40, sigma=0.08),
            Component(weight=0.12, median_s=2.00, sigma=0.60),
        ),
        shape="a few video-length buckets plus a heavy right tail",
    ),
}


def trace_samples(name: str, n_samples: int = N_SAMPLES) -> np.ndarray:
    """Draw the trace ``name`` exactly as written to disk (seconds, rounded to 1 us).

    Returns a float array of length ``n_samples`` in generation order (not
    sorted).  Deterministic: the same ``name`` and ``n_samples`` always give
    the same values.
    """
    if name not in SPECS:
        raise ValueError(f"name must be one of {sorted(SPECS)}, got {name!r}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"n_samples must be an integer in [1, inf), got {n_samples!r}")
    spec = SPECS[name]
    rng = np.random.default_rng(spec.seed)
    weights = np.array([c.weight for c in spec.components], dtype=float)
    if not np.isclose(weights.sum(), 1.0):
        raise ValueError(f"weights of trace {name!r} must sum to 1, got {weights.sum()!r}")
    labels = rng.choice(len(weights), size=int(n_samples), p=weights / weights.sum())
    x = np.empty(int(n_samples), dtype=float)
    for k, comp in enumerate(spec.components):
        mask = labels == k
        x[mask] = comp.shift_s + rng.lognormal(np.log(comp.median_s), comp.sigma, int(mask.sum()))
    x *= TARGET_MEAN_S / x.mean()
    return np.round(x, 6)


def _csv_bytes(values: np.ndarray) -> bytes:
    lines = [COLUMN] + [f"{v:.6f}" for v in values]
    return ("\n".join(lines) + "\n").encode("ascii")


def write_traces(out_dir: str | Path = DEFAULT_OUT_DIR, n_samples: int = N_SAMPLES) -> dict[str, Path]:
    """Write ``<name>.csv`` for every trace in ``SPECS`` into ``out_dir``.

    Each file has the header ``compute_time_s`` and one value per line in
    seconds with 6 decimals (microsecond resolution).  Returns the written
    paths keyed by trace name.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name in SPECS:
        path = out / f"{name}.csv"
        path.write_bytes(_csv_bytes(trace_samples(name, n_samples)))
        paths[name] = path
    return paths


def summary_rows(n_samples: int = N_SAMPLES) -> list[tuple[str, float, float, float, float]]:
    """Per trace: ``(name, mean_s, median_s, p99_s, max_s)`` of the generated samples."""
    rows = []
    for name in SPECS:
        x = trace_samples(name, n_samples)
        rows.append((name, float(x.mean()), float(np.median(x)), float(np.quantile(x, 0.99)),
                     float(x.max())))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR,
                        help="directory to write the CSV files into (default: simlib/workloads/trace_data)")
    parser.add_argument("--n-samples", type=int, default=N_SAMPLES,
                        help=f"rows per trace (default {N_SAMPLES})")
    parser.add_argument("--summary", action="store_true",
                        help="also print mean/median/p99/max per trace (seconds)")
    args = parser.parse_args(argv)
    paths = write_traces(args.out_dir, args.n_samples)
    for name, path in paths.items():
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    if args.summary:
        print("| trace | mean (s) | median (s) | p99 (s) | max (s) |")
        print("|---|---|---|---|---|")
        for name, mean, med, p99, mx in summary_rows(args.n_samples):
            print(f"| {name} | {mean:.3f} | {med:.3f} | {p99:.3f} | {mx:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
