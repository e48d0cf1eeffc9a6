"""Seed 002 (partial reduce)'s contract: its scenario, schemes (partial reduce and its §5 baselines) and command — the cluster run it shares
with 000 (:mod:`simlib.papers.cluster_scenario`, its knobs the ``partial`` and ``weighting`` groups)
and the ``python -m simlib run`` command generated from it (:mod:`simlib.papers.cluster_command`)."""
from __future__ import annotations

from simlib.papers.cluster_command import RUN_COMMAND
from simlib.papers.cluster_scenario import SCHEMES, Scenario
from simlib.papers.contract import Paper
from simlib.papers.partial_reduce.baselines import BASELINES

__all__ = ["PAPER"]

PAPER = Paper("002", "Heterogeneity-Aware Distributed Machine Learning Training via Partial Reduce",
              (Scenario,), (SCHEMES["partial"],) + tuple(SCHEMES[b] for b in BASELINES), (RUN_COMMAND,))
