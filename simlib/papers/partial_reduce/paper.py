"""Seed 002 (partial reduce)'s contract: its scenario, schemes (partial reduce and its §5 baselines) and command — the cluster run it shares
with 000 (:mod:`simlib.papers.cluster_scenario`, its knobs the ``partial`` and ``weighting`` groups)
and the ``python -m simlib run`` command generated from it (:mod:`simlib.papers.cluster_command`)."""
from __future__ import annotations

from simlib.papers.cluster_command import CLUSTER_EXPORTS, RUN_COMMAND
from simlib.papers.cluster_scenario import SCHEMES, Scenario
from simlib.papers.contract import Paper
from simlib.papers.partial_reduce.baselines import BASELINES

__all__ = ["PAPER"]

#: Where the training notebooks' specs live (:mod:`simlib.training`, above this layer: named, not imported).
_SPECS = "simlib.training.notebook_specs"

PAPER = Paper("002", "Heterogeneity-Aware Distributed Machine Learning Training via Partial Reduce",
              (Scenario,), (SCHEMES["partial"],) + tuple(SCHEMES[b] for b in BASELINES), (RUN_COMMAND,),
              package=__package__, short="Partial Reduce", exports=CLUSTER_EXPORTS,
              notebooks={"20_pr_sec3_spectral_weights": f"{__package__}.experiments.mixing:SpectralNotebook",
                         "21_pr_sec5_heterogeneous_training": f"{_SPECS}:HeterogeneousTrainingNotebook",
                         "22_pr_sec5_nine_systems": f"{_SPECS}:NineSystemsNotebook",
                         "23_pr_paper_profile": f"{_SPECS}:PaperProfileNotebook"},
              fitted=f"{__package__}.profile:FITTED_CLAIMS")
