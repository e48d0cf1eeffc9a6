"""Seed 002 (partial reduce)'s contract: its scenario and scheme (the cluster run it shares with 000,
:mod:`simlib.papers.cluster_scenario`)."""
from __future__ import annotations

from simlib.papers.cluster_scenario import SCHEMES, Scenario
from simlib.papers.contract import Paper

__all__ = ["PAPER"]

PAPER = Paper("002", "Heterogeneity-Aware Distributed Machine Learning Training via Partial Reduce",
              (Scenario,), (SCHEMES["partial"],))
