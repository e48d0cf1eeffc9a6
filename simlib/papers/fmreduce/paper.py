"""Seed 003 (FMReduce)'s contract: its scenario, its command (``python -m simlib fmreduce``), its schemes."""
from __future__ import annotations

from simlib.papers.contract import Command

from .scenario import Scenario, run_trial

__all__ = ["COMMAND"]

COMMAND = Command(
    "fmreduce", Scenario, run_trial,
    help="simulate one FMReduce run (seed 003 §3) and print its metrics",
    description="Simulate n workers in different clouds doing partial reduce over a full mesh of WAN links "
                "for --duration seconds (seed 003 §3) and print the rounds completed and the per-phase times.")
