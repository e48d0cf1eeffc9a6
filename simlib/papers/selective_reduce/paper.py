"""Seed 000 (selective reduce)'s contract: its scenario and schemes (the cluster run it shares with
002, :mod:`simlib.papers.cluster_scenario`; its command ``python -m simlib run`` is still hand-written
in :mod:`simlib.cli`)."""
from __future__ import annotations

from simlib.papers.cluster_scenario import SCHEMES, Scenario
from simlib.papers.contract import Paper

__all__ = ["PAPER"]

PAPER = Paper("000", "Progress and Bandwidth Aware Partial Model Synchronization With Selective Reduce",
              (Scenario,), (SCHEMES["allreduce"], SCHEMES["selective"]))
