"""Seed 000 (selective reduce)'s contract: its scenario, schemes and command — the cluster run it
shares with 002 (:mod:`simlib.papers.cluster_scenario`, its knobs the ``selective`` group) and the
``python -m simlib run`` command generated from it (:mod:`simlib.papers.cluster_command`)."""
from __future__ import annotations

from simlib.papers.cluster_command import RUN_COMMAND
from simlib.papers.cluster_scenario import SCHEMES, Scenario
from simlib.papers.contract import Paper

__all__ = ["PAPER"]

PAPER = Paper("000", "Progress and Bandwidth Aware Partial Model Synchronization With Selective Reduce",
              (Scenario,), (SCHEMES["allreduce"], SCHEMES["selective"]), (RUN_COMMAND,))
