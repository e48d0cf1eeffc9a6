"""Seed 004 (SelMcast)'s contract: its scenarios (a BSP round, an SSP run), its schemes and its
generated commands, listed in :data:`simlib.papers.registry.PAPERS`."""
from __future__ import annotations

from simlib.papers.contract import Command, Paper
from simlib.papers.scheme import Scheme

from .bsp_scenario import BSPOptions, BSPScenario
from .ssp_scenario import SSPOptions, SSPScenario, run_summary

__all__ = ["SCHEMES", "BSP_COMMAND", "SSP_COMMAND", "PAPER", "round_summary"]

#: Okabe-Ito colours, distinct from each other (and the colours the BSP figures have had).
SCHEMES = {s.name: s for s in (
    Scheme("selmcast", "004", "SelMcast", "#E69F00", "D", (BSPScenario, SSPScenario)),
    Scheme("orpheus", "004", "Orpheus", "#56B4E9", "v", (BSPScenario, SSPScenario)),
    Scheme("optimal", "004", "Optimal", "#CC79A7", "P", BSPScenario),
    Scheme("milp", "004", "MILP (HiGHS)", "#000000", "X", BSPScenario),
)}


def round_summary(sc: "BSPScenario | dict", seed, **options) -> dict:
    """``python -m simlib selmcast-bsp``'s trial: :func:`.experiments.bsp_round_summary` of the command's
    scenario ``sc`` (handed down as it is), imported when it runs (it loads the solvers; ``--help``
    stays fast).  It lives here, beside the command, so that :mod:`.bsp_scenario` imports nothing
    of :mod:`.experiments`, which builds on it."""
    from .experiments import bsp_round_summary

    return bsp_round_summary(sc, seed, **options)


BSP_COMMAND = Command(
    "selmcast-bsp", BSPScenario, round_summary, options=BSPOptions, exclude=("rounds", "k"), timeline=True,
    simulated="completion_s",
    help="one BSP round of seed 004 (SelMcast, Orpheus or the optimum) on a big switch",
    description="Select multicast receivers for one peer-to-peer BSP round (seed 004 §III-B, §IV-B), execute "
                "the plan with per-flow max-min sharing and print the normalized completion time (by the "
                "optimal t*), the multicast scale, the selection time and the solver status.")

SSP_COMMAND = Command(
    "selmcast-ssp", SSPScenario, run_summary, options=SSPOptions, timeline=True,
    help="simulate one SSP training run with SelMcast or Orpheus (seed 004 §IV-C)",
    description="Simulate n workers training under SSP for --duration seconds; every ready worker multicasts its "
                "model to receivers chosen by SelMcast (Algorithm 2) or Orpheus (seed 004 §III-C, §IV-C).  Prints "
                "NPU utilization, multicast scale, rounds, preemptions and the wall time (with --engine flow also "
                "the selection time per call).")

PAPER = Paper("004", "Efficient Parameter Synchronization for Peer-to-Peer Distributed Learning With Selective "
                     "Multicast (SelMcast)", (BSPScenario, SSPScenario), tuple(SCHEMES.values()),
              (BSP_COMMAND, SSP_COMMAND), package=__package__, short="SelMcast",
              notebooks={"40_selmcast_sec2_fig1_random_selection": f"{__package__}.experiments:Fig1Notebook",
                         "41_selmcast_bsp_fig4-6": f"{__package__}.experiments:BSPFiguresNotebook",
                         "43_selmcast_ssp_fig7_case_study": f"{__package__}.ssp_experiments:SSPFig7Notebook",
                         "44_selmcast_ssp_fig8-10": f"{__package__}.ssp_experiments:SSPFigs8to10Notebook",
                         "45_selmcast_ssp_fig11-13": f"{__package__}.ssp_experiments:SSPFigs11to13Notebook",
                         "46_selmcast_ssp_time_to_accuracy": "simlib.training.notebook_specs:SSPTimeToAccuracyNotebook",
                         "47_selmcast_paper_profile": f"{__package__}.profile:BSPProfileNotebook",
                         "48_selmcast_ssp_profile": f"{__package__}.ssp_profile:SSPProfileNotebook"},
              exports={"BSPScenario": f"{__package__}.bsp_scenario:BSPScenario",
                       "bsp_trial": f"{__package__}.experiments:bsp_trial",
                       "SSPScenario": f"{__package__}.ssp_scenario:SSPScenario",
                       "ssp_trial": f"{__package__}.ssp_scenario:run_trial"},
              fitted=(f"{__package__}.profile:FITTED_CLAIMS", f"{__package__}.ssp_profile:FITTED_CLAIMS"),
              # the BSP notebooks (41 reads 47's committed claims map) and the SSP ones (46 and 48 run the
              # SSP scenario only) share no file, trial function or ledger row (figures 1, 4-6 against 7-13
              # and the beyond rows of 46): two chains (decision S37, amended)
              chains={"BSP": ("40_selmcast_sec2_fig1_random_selection", "41_selmcast_bsp_fig4-6",
                              "47_selmcast_paper_profile"),
                      "SSP": ("43_selmcast_ssp_fig7_case_study", "44_selmcast_ssp_fig8-10",
                              "45_selmcast_ssp_fig11-13", "46_selmcast_ssp_time_to_accuracy",
                              "48_selmcast_ssp_profile")})
