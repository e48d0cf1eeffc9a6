"""The parameters of notebook 91 (selective reduce at internet scale, beyond the papers), whose trials are
000's own runs, declared once for :func:`simlib.pipeline.run.start`, and the caps of the
time-to-accuracy notebooks beyond the papers (90, 92, 46).

Scenario values re-use the 000/002 run's declarations (:class:`~simlib.papers.cluster_scenario.Scenario`;
``param_of``, ``param_list(of=...)``).  The parameters cell assigns the spec's defaults (a test checks
it).  (The specs of notebooks 90 and 92 are in :mod:`simlib.training.notebook_specs`: they have
training values.)
"""
from __future__ import annotations

from dataclasses import dataclass

from simlib.papers.cluster_scenario import Scenario
from simlib.papers.contract import check_items, param, param_list, param_of
from simlib.papers.selective_reduce.experiments.figures import RunKnobs

__all__ = ["InternetScaleNotebook", "TTA_CAP_S", "SSP_TTA_CAP_S", "SSP_REAL_TTA_CAP_S"]

#: The cap (s) of a time-to-accuracy run at 000 §IV's settings (notebooks 90 and 92; decision RP16 in
#: docs/decisions/replay.md): about twice all-reduce's expected time to the mnist1d task's 45 % at n = 200
#: (RP9: up to 188 updates of about 10.5 s).
TTA_CAP_S = 4000.0
#: The cap (s) of a time-to-accuracy run at 004 §IV-C's SSP settings (notebooks 46 and 92; RP16): more than
#: twice the slowest time to 45 % of a pilot trial per scheme and trace (145-256 s).
SSP_TTA_CAP_S = 600.0
#: The cap (s) of notebook 92's SSP replay, on real traces (RP16): about three times the slowest time to 45 % of a
#: pilot there (SelMcast on pai-job4: 741-763 s; every other pair 263-355 s).
SSP_REAL_TTA_CAP_S = 2400.0


@dataclass(frozen=True)
class InternetScaleNotebook(RunKnobs):
    """Notebook 91: every scheme at 000 §IV's settings for n up to 10,000 workers."""

    trials: int = param(5, lo=1, quick=2, help="trials per setting")
    n_values: tuple = param_list([1000, 2000, 5000, 10000], of=(Scenario, "n"), quick=[20, 40],
                                 help="cluster sizes n")
    trace: str = param_of(Scenario, "trace")
    n_largest: int = param(100_000, lo=2, hi=100_000, quick=60,
                           help="the one larger n at which partial and selective reduce run beside each other")
    largest_trials: int = param(1, lo=1, quick=1, help="trials at n_largest")

    def check(self):
        check_items("n_values", self.n_values,
                    lambda n: Scenario.from_params(dict(self.run_knobs(), trace=self.trace, n=n)))
        Scenario.from_params(dict(self.run_knobs(), trace=self.trace, n=self.n_largest))
