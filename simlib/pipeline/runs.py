"""The notebooks' sweeps: :func:`run_notebook_sweep` (executor, cache and CSV by the
project's conventions) and :func:`run_scenarios` (a grid of simulated training runs)."""
from __future__ import annotations

import os

import pandas as pd

from simlib.core import paths
from simlib.core.validate import check_choice
from simlib.papers.cluster_scenario import Scenario, run_trial
from simlib.pipeline.sweep import DASK_ENV, run_sweep

__all__ = ["run_notebook_sweep", "run_scenarios"]


def run_notebook_sweep(fn, settings, *, trials: int, seed: int, name: str, profile: str = "full",
                       workers: int | None = None, desc: str | None = None) -> pd.DataFrame:
    """The notebooks' sweep: ``run_sweep`` with the project's conventions.

    Executor: serial for ``profile="quick"``; for ``"full"``, a Dask cluster when
    ``DASK_SCHEDULER_ADDRESS`` is set, else local processes (results are identical
    either way).  Finished trials are cached under ``data/cache/<name>`` and the
    tidy frame is written to ``data/results/<name>.csv``.
    """
    check_choice("profile", profile, ("full", "quick"))
    if profile == "quick":
        executor = "serial"
    else:
        executor = "dask" if os.environ.get(DASK_ENV) else "processes"
    df = run_sweep(fn, settings, trials=trials, seed=seed, executor=executor, workers=workers,
                   cache_dir=paths.CACHE / name, desc=desc or name)
    paths.RESULTS.mkdir(parents=True, exist_ok=True)
    df.to_csv(paths.RESULTS / f"{name}.csv", index=False)
    return df


def run_scenarios(settings: list[dict], *, trials: int, seed: int, name: str, profile: str = "full",
                  workers: int | None = None, desc: str | None = None):
    """Validate every setting as a :class:`Scenario`, then
    :func:`simlib.pipeline.sweep.run_notebook_sweep` of :func:`run_trial` (cache ``data/cache/<name>``,
    CSV ``data/results/<name>.csv``)."""
    for s in settings:
        Scenario.from_params(s)
    return run_notebook_sweep(run_trial, settings, trials=trials, seed=seed, name=name, profile=profile,
                              workers=workers, desc=desc)
