"""Seed 000 (selective reduce)'s contract: its scenario, schemes and command — the cluster run it
shares with 002 (:mod:`simlib.papers.cluster_scenario`, its knobs the ``selective`` group) and the
``python -m simlib run`` command generated from it (:mod:`simlib.papers.cluster_command`)."""
from __future__ import annotations

from simlib.papers.cluster_command import CLUSTER_EXPORTS, RUN_COMMAND
from simlib.papers.cluster_scenario import SCHEMES, Scenario
from simlib.papers.contract import Paper

__all__ = ["PAPER"]

PAPER = Paper("000", "Progress and Bandwidth Aware Partial Model Synchronization With Selective Reduce",
              (Scenario,), (SCHEMES["allreduce"], SCHEMES["selective"]), (RUN_COMMAND,),
              package=__package__, short="Selective Reduce", exports=CLUSTER_EXPORTS,
              notebooks={"00_pipeline_example": f"{__package__}.experiments.ring_check:RingCheckNotebook",
                         "10_sr_fig3_motivating_example": f"{__package__}.experiments.motivating_example:Fig3Notebook",
                         "11_sr_fig5-7_traces": f"{__package__}.experiments.figures:Fig5to7Notebook",
                         "12_sr_fig8-10_parameters": f"{__package__}.experiments.figures:Fig8to10Notebook",
                         "13_sr_fig11-12_robustness": f"{__package__}.experiments.figures:Fig11to12Notebook",
                         "14_sr_fig13-14_skew_latency": f"{__package__}.experiments.figures:Fig13to14Notebook",
                         "15_sr_paper_gaps": f"{__package__}.experiments.figures:GapsNotebook",
                         "16_sr_paper_profile": f"{__package__}.experiments.figures:ProfileSearchNotebook"},
              fitted=f"{__package__}.profile:BASELINE_CLAIMS")
