"""Seed 003 (FMReduce)'s contract: its scenario, its command (``python -m simlib fmreduce``) and its
schemes, listed in :data:`simlib.papers.registry.PAPERS`."""
from __future__ import annotations

from simlib.papers.contract import Command, Paper
from simlib.papers.scheme import Scheme

from .scenario import Scenario, run_trial

__all__ = ["SCHEMES", "COMMAND", "PAPER"]

#: Fig. 2's variant families (:func:`.scenario.variant_scheme`), coloured as Fig. 2 always was
#: (Okabe-Ito): FMReduce non-blocking, FMReduce blocking, the original partial reduce.
SCHEMES = {s.name: s for s in (
    Scheme("fm-nb", "003", "FMReduce, non-blocking", "#0072B2", "o", Scenario),
    Scheme("fm-b", "003", "FMReduce, blocking", "#56B4E9", "s", Scenario),
    Scheme("pr-b", "003", "Original partial reduce (blocking)", "#D55E00", "^", Scenario),
)}

COMMAND = Command(
    "fmreduce", Scenario, run_trial, timeline=True,
    help="simulate one FMReduce run (seed 003 §3) and print its metrics",
    description="Simulate n workers in different clouds doing partial reduce over a full mesh of WAN links "
                "for --duration seconds (seed 003 §3) and print the rounds completed and the per-phase times.")

PAPER = Paper("003", "Efficient Partial Reduce Across Clouds (FMReduce)", (Scenario,), tuple(SCHEMES.values()),
              (COMMAND,), package=__package__, short="FMReduce",
              notebooks={"30_fmreduce_fig2": f"{__package__}.experiments:Fig2Notebook"},
              exports={"FMReduceScenario": f"{__package__}.scenario:Scenario",
                       "fmreduce_trial": f"{__package__}.scenario:run_trial"})
