"""The machine-pace probe: ``python -m simlib.pipeline.pace`` (decision S35).

This 2-core machine runs the same code at different speeds from hour to hour (1.3-1.65x apart on
2026-11-29, S18), so an estimate built on a reference run's times is off by that factor before its
first notebook.  The probe is a small fixed workload made of the notebooks' own hot paths -- one
SelMcast SSP run (notebook 44's n), one shared-cluster run with selective reduce (notebook 12's n),
one time-to-accuracy replay of the mnist1d MLP (notebook 21's setting) -- timed in CPU seconds of
this process (``time.process_time``): each piece is called once untimed (loading or compiling its
kernels, reading its data), then :data:`REPEATS` times, and its median counts; :attr:`ProbeResult.probe_s`
is the sum of the medians (2.65 CPU-s warm on the machine of 2026-11-29, beside a reproduction).  The notebook runner
runs it at the start of a run, records it with each notebook's time (``probe_s`` / ``cold_probe_s``
of :mod:`simlib.pipeline.timing`) and scales the recorded times by today's probe over theirs.

Changing :data:`PIECES` changes what a probe second means: recorded probes stop being comparable, so
re-stamp the reference times (``--stamp``, data/measurements/README.md) in the same commit.
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Piece", "PIECES", "REPEATS", "ProbeResult", "measure", "stamp", "main"]


@dataclass(frozen=True)
class Piece:
    """One part of the probe: the sweep trial ``trial`` (``"module:name"``) at ``setting`` (pairs), seed 0."""

    name: str
    trial: str
    setting: tuple


#: The probe's workload (fixed; see the module docstring before changing it).
PIECES = (
    Piece("ssp", "simlib.papers.selmcast.ssp_scenario:run_trial",
          (("scheme", "selmcast"), ("n", 50), ("duration_s", 900.0))),
    Piece("cluster-selective", "simlib.papers.cluster_scenario:run_trial",
          (("scheme", "selective"), ("n", 200), ("duration_s", 2000.0))),
    Piece("training", "simlib.training.time_to_accuracy:trial",
          (("scheme", "partial"), ("n", 8), ("duration_s", 3000.0), ("trace", "cnn"), ("model_mb", 100.0))),
)
#: Timed calls per piece (after one untimed call); the median counts.
REPEATS = 3


@dataclass(frozen=True)
class ProbeResult:
    """``probe_s``: the sum over the pieces of their median CPU seconds; ``per_piece``: ``{name: median
    CPU seconds}``; ``outputs``: ``{name: the trial's result}`` (its metrics, the same on every call)."""

    probe_s: float
    per_piece: dict
    outputs: dict

    def line(self) -> str:
        """``"probe 2.51 CPU-s (ssp 0.80, cluster-selective 0.82, training 0.89)"``."""
        parts = ", ".join(f"{k} {v:.2f}" for k, v in self.per_piece.items())
        return f"probe {self.probe_s:.2f} CPU-s ({parts})"


def measure(pieces=PIECES, repeats: int = REPEATS, clock=time.process_time) -> ProbeResult:
    """Run the probe in this process: each of ``pieces`` once untimed, then ``repeats`` times timed by
    ``clock`` (seconds); returns their medians and sum (:class:`ProbeResult`)."""
    import numpy as np

    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    per_piece, outputs = {}, {}
    for piece in pieces:
        module, name = piece.trial.split(":")
        trial = getattr(importlib.import_module(module), name)
        outputs[piece.name] = trial(dict(piece.setting), np.random.SeedSequence(0))   # kernels loaded, data read
        times = []
        for _ in range(repeats):
            t0 = clock()
            trial(dict(piece.setting), np.random.SeedSequence(0))
            times.append(clock() - t0)
        per_piece[piece.name] = float(statistics.median(times))
    return ProbeResult(float(sum(per_piece.values())), per_piece, outputs)


def stamp(path, probe_s: float) -> tuple[int, int]:
    """Give the rows of the times file ``path`` (:func:`simlib.pipeline.timing.read_times`) that have no
    probe ``probe_s`` (``probe_s``, and ``cold_probe_s`` where they have a cold time); rewrite it in the
    current layout.  Returns ``(rows stamped, rows in the file)``.  Only right after the run that
    measured the file's times, on the same machine: the probe then stands for that run's pace."""
    import dataclasses

    from simlib.pipeline import timing

    probe_s = timing.check_probe("probe_s", probe_s)
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"times file {str(path)!r} does not exist")
    rows = timing.read_times(path)
    new = []
    for r in rows.values():
        changes = {}
        if r.probe_s is None:
            changes["probe_s"] = probe_s
        if r.cold_wall_s is not None and r.cold_probe_s is None:
            changes["cold_probe_s"] = probe_s
        if changes:
            new.append(dataclasses.replace(r, **changes))
    timing.update_times(path, new)
    return len(new), len(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m simlib.pipeline.pace",
        description="Run the machine-pace probe (a fixed small workload of the notebooks' hot paths, median "
                    "CPU seconds of 3 calls per piece after a warm-up call; decision S35) and print it; with "
                    "--stamp, write it into the times files' rows that have no probe.")
    ap.add_argument("--stamp", type=Path, nargs="+", metavar="TIMES_CSV", default=[],
                    help="times files (e.g. data/measurements/reference_times_full.csv) whose rows without a "
                         "probe get this one; only right after the run that measured them, on the same machine")
    args = ap.parse_args(argv)
    from simlib.pipeline import timing

    for path in args.stamp:      # checked before the probe runs and before anything is written
        if not path.is_file():
            ap.error(f"argument --stamp: {path} is not a file")
        try:
            timing.read_times(path)
        except ValueError as exc:
            ap.error(f"argument --stamp: {exc}")
    result = measure()
    print(result.line())
    for path in args.stamp:
        done, n = stamp(path, result.probe_s)
        print(f"{path}: {done} of {n} rows stamped with probe_s {result.probe_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
