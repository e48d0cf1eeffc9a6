"""``python -m simlib run``: one simulated training run of seeds 000 and 002, generated from
:class:`~simlib.papers.cluster_scenario.Scenario` (every flag, range, unit and default comes from its
declarations, :mod:`simlib.papers.cli_gen`).

Both papers list :data:`RUN_COMMAND` in their contract (``selective_reduce/paper.py``,
``partial_reduce/paper.py``); it is registered once.  It lives in its own module so the sweeps'
trial (:func:`~simlib.papers.cluster_scenario.run_trial`) does not import the command-line code.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from simlib.runtime.capture import offer, watch_cluster

from .cli_gen import SimulationProgress
from .cluster_scenario import Scenario, build_cluster, run_metrics
from .contract import Command, ScenarioBase, param

__all__ = ["RunOptions", "run_command", "RUN_COMMAND", "CLUSTER_EXPORTS"]

#: The cluster run's top-level ``simlib`` names (:attr:`simlib.papers.contract.Paper.exports` of 000 and 002).
CLUSTER_EXPORTS = {"Scenario": "simlib.papers.cluster_scenario:Scenario",
                   "simulate": "simlib.papers.cluster_scenario:simulate",
                   "run_trial": "simlib.papers.cluster_scenario:run_trial"}


@dataclass(frozen=True)
class RunOptions(ScenarioBase):
    """How ``python -m simlib run`` runs its scenario (not a scenario parameter)."""

    progress: bool = param(True, help="a progress line on stderr while the run simulates (shown only when stderr "
                                      "is a terminal)")


def run_command(sc: Scenario | dict, seed: np.random.SeedSequence, *, progress: bool = True) -> dict:
    """``python -m simlib run``'s trial: :func:`~simlib.papers.cluster_scenario.run_trial`'s run and
    metrics of scenario ``sc`` (the command's, built once from the flags; a flat dict is built here)
    (:func:`~simlib.papers.cluster_scenario.build_cluster`, then ``run()``), with the cluster's
    simulated clock on stderr (``progress`` and stderr a terminal), and a warning on stderr when no
    synchronization completed (the averages are then undefined)."""
    sc = Scenario.of(sc)
    cluster = build_cluster(sc, seed)
    flows = watch_cluster(cluster)              # inside a timeline capture only: its links' rates
    with SimulationProgress(sc.duration_s, lambda: cluster.sim.now, enabled=progress and sys.stderr.isatty()):
        log = cluster.run()
    offer(log, "simlib.runtime.timeline:schedule_events", flows)          # for --timeline (simlib.runtime.timeline)
    out = run_metrics(sc, log)
    if out.get("total_sync") == 0:
        print(f"python -m simlib run: warning: no synchronization completed within --duration {sc.duration_s:g} s "
              f"({out.get('total_iteration', 0)} iterations computed, but no sync of the {sc.model_mb:g} MB model "
              "finished before the end), so avg_sync_time_s and avg_sync_scale are undefined (null); increase "
              "--duration or decrease --model-mb", file=sys.stderr)
    return out


RUN_COMMAND = Command(
    "run", Scenario, run_command, options=RunOptions, timeline=True,
    help="simulate one training run (seeds 000 §IV, 002 §5) and print its metrics",
    description="Simulate n workers training for --duration seconds under one synchronization scheme (all "
                "reduce, 002's FIFO partial reduce or 000's selective reduce; seed 000 §IV-A, 002 §5) and print "
                "the system metrics.")
