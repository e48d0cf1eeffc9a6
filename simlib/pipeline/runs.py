"""The notebooks' sweeps: :func:`run_notebook_sweep` (executor, cache and CSV by the
project's conventions) and :func:`run_scenarios` (a grid of simulated training runs).

Both write the CSV to the ``results_dir`` they are given; a notebook calls them through its
:class:`~simlib.pipeline.run.Run` (``run.sweep``, ``run.scenarios``), which passes its
results folder, profile, workers and progress file.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd

from simlib.pipeline import paths
from simlib.core.validate import check_choice
from simlib.papers.cluster_scenario import run_trial
from simlib.pipeline.atomic import atomic_write_bytes
from simlib.pipeline.sweep import Executor, cache_folder, run_sweep
from simlib.pipeline.timing import trials_log

__all__ = ["run_notebook_sweep", "run_scenarios", "progress_reporter", "check_result_name", "split_measurements",
           "write_measurements"]


def progress_reporter(path, desc: str, min_interval_s: float = 1.0):
    """A ``run_sweep`` progress callback writing ``{"desc", "done", "total", "initial", "elapsed_s"}``
    as JSON to ``path`` (atomically, at most once per ``min_interval_s`` and at the end)."""
    start = time.monotonic()
    last = [-float("inf")]

    def report(done: int, total: int, initial: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < min_interval_s:
            return
        last[0] = now
        record = {"desc": desc, "done": done, "total": total, "initial": initial,
                  "elapsed_s": round(now - start, 3)}
        atomic_write_bytes(path, json.dumps(record).encode("utf-8"))

    return report


def check_result_name(name) -> str:
    """``name`` as the stem of a CSV in a results folder: a non-empty str without a path separator,
    not starting with ``.`` (so not ``..``); else a ``ValueError`` naming it (``name="../x"`` wrote
    outside the run's ``results/``)."""
    if not isinstance(name, str) or not name or name.startswith(".") or any(c in name for c in "/\\\0"):
        raise ValueError(f"name must be a file stem (non-empty, no '/', '\\' or leading '.'), e.g. "
                         f"'30_fmreduce_fig2', got {name!r}")
    return name


def split_measurements(df: pd.DataFrame, measured) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """``(results, measurements)`` of a sweep's tidy frame (decision S26): ``results`` without the
    ``measured`` columns (wall-clock measurements: they change from run to run and machine to
    machine), ``measurements`` the row key -- every column up to and including ``trial``, the
    setting and the trial -- and the measured columns the frame has (a trial declares all it may
    return: a sweep of fewer schemes has fewer); None if it has none.  ``df`` is not changed."""
    if isinstance(measured, str):
        raise ValueError(f"measured must be a list of column names, got the str {measured!r}")
    measured = [c for c in dict.fromkeys(measured or ()) if c in df.columns]
    if not measured:
        return df, None
    if "trial" not in df.columns or "trial" in measured:
        raise ValueError("measured needs a sweep frame with a 'trial' column (the row key) and must not name it")
    key = list(df.columns[:list(df.columns).index("trial") + 1])
    if set(key) & set(measured):
        raise ValueError(f"measured must name metric columns, not the setting columns {sorted(set(key) & set(measured))}")
    return df.drop(columns=measured), df[key + measured]


def run_notebook_sweep(fn, settings, *, trials: int, seed: int, name: str, results_dir=None, profile: str = "full",
                       workers: int | None = None, desc: str | None = None, executor: str | Executor | None = None,
                       progress_file=None, columns=None) -> pd.DataFrame:
    """The notebooks' sweep: ``run_sweep`` with the project's conventions; returns its tidy frame.

    Executor (``None``: serial for ``profile="quick"`` and local processes (``workers``, default all
    cores) for ``"full"``; else ``"serial"``, ``"processes"``, ``"dask"`` or an
    :class:`~simlib.pipeline.sweep.Executor`, e.g. ``Executor("dask", dask_address=...)``, which the
    notebook's :class:`~simlib.pipeline.run.Run` passes, in every profile, when the notebook runner
    gave it a scheduler address).  Nothing here reads the environment (``executor="dask"`` without an
    address takes :class:`~simlib.pipeline.sweep.Executor`'s default; S32).  A notebook's
    :class:`~simlib.pipeline.run.Run` passes ``Executor("processes", pool=...)`` for local processes: its
    :class:`~simlib.pipeline.sweep.ProcessPool`'s workers, kept for the next sweep (S34); ``"processes"``
    starts this sweep's own.
    Results are identical either way.
    Finished trials are cached under
    ``<cache>/<module.function of fn>`` (:data:`simlib.core.paths.CACHE`), one folder per trial
    function, so sweeps of several notebooks that run the same trial compute it once
    (:func:`~simlib.pipeline.sweep.run_sweep`, :class:`~simlib.papers.trial.Trial`); the tidy frame is written to
    ``<results_dir>/<name>.csv`` (created if missing; None, as in a script: the script's run
    folder ``<runs>/<script>/defaults/results/``, announced;
    :func:`simlib.pipeline.paths.script_context`).  With a ``progress_file`` (the notebook
    runner's, passed by :meth:`simlib.pipeline.run.Run.sweep`) the progress goes there as JSON
    instead of a progress bar in the notebook.  ``columns`` (one dict per setting, or None) names
    the settings in the frame, as :func:`~simlib.pipeline.sweep.run_sweep`'s.  ``name`` is checked
    (:func:`check_result_name`) before anything runs.  A frame with wall-clock columns is then split
    by :func:`write_measurements` (``run.sweep(..., measured=...)``).
    """
    check_choice("profile", profile, ("full", "quick"))
    check_result_name(name)
    if executor is None:
        executor = "serial" if profile == "quick" else "processes"
    where = executor if isinstance(executor, Executor) else Executor(executor, workers=workers)
    if results_dir is None:
        context = paths.script_context(sys.argv)
        paths.announce(context)
        results_dir = context.results
    reporter = progress_reporter(progress_file, desc or name) if progress_file else None
    counts = {}

    def callback(done: int, total: int, initial: int) -> None:
        counts.update(total=total, cached=initial)
        reporter(done, total, initial)

    df = run_sweep(fn, settings, trials=trials, seed=seed, executor=where,
                   cache_dir=paths.CACHE / cache_folder(fn), desc=desc or name, progress=reporter is None,
                   progress_callback=callback if reporter else None, columns=columns)
    if progress_file and counts:
        with open(trials_log(progress_file), "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"name": name, **counts}) + "\n")
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    df.to_csv(results_dir / f"{name}.csv", index=False)
    return df


def write_measurements(df: pd.DataFrame, measured, *, name: str, results_dir, measurements_dir) -> Path | None:
    """Move a sweep's wall-clock columns (``measured``, :func:`split_measurements`) out of its results
    CSV ``<results_dir>/<name>.csv``, rewritten without them, into ``<measurements_dir>/<name>.csv``
    (decision S26); returns that path, or None (nothing written) if the frame has none of them."""
    results, measurements = split_measurements(df, measured)
    if measurements is None:
        return None
    results.to_csv(Path(results_dir) / f"{name}.csv", index=False)
    measurements_dir = Path(measurements_dir)
    measurements_dir.mkdir(parents=True, exist_ok=True)
    path = measurements_dir / f"{name}.csv"
    measurements.to_csv(path, index=False)
    return path


def run_scenarios(settings: list[dict], *, trials: int, seed: int, name: str, results_dir=None, profile: str = "full",
                  workers: int | None = None, desc: str | None = None, executor: str | Executor | None = None,
                  progress_file=None) -> pd.DataFrame:
    """Simulated training runs of 000/002 (:class:`~simlib.papers.cluster_scenario.Scenario`):
    every setting (a dict of its parameters, e.g. ``{"scheme": "selective", "n": 40}``, units in the
    names: ``duration_s``, ``model_mb``; or a ``Scenario`` object) is built, and so checked, once, before
    anything runs; then :func:`run_notebook_sweep` runs :func:`~simlib.papers.cluster_scenario.run_trial`
    ``trials`` times per setting on the built scenario (cache ``<cache>/<module.function>``, keyed as the
    dict's; CSV ``<results_dir>/<name>.csv``).

    Returns one row per (setting, trial): the setting's keys (a dict's keys and values as given, a
    ``Scenario``'s every parameter), ``trial``, then the metrics (``avg_sync_time_s``,
    ``avg_sync_scale`` in workers, ``total_sync``, ``total_iteration``, ``wasted_wait_s_per_worker``,
    ``max_wasted_wait_s``, ``max_sync_scale``, ``group_size``, ``controller_rounds``).
    """
    return run_notebook_sweep(run_trial, settings, trials=trials, seed=seed, name=name, results_dir=results_dir,
                              profile=profile, workers=workers, desc=desc, executor=executor,
                              progress_file=progress_file)
