"""The parameters of the notebooks beyond the papers whose trials are the papers' own runs:
91 (selective reduce at internet scale) and 92 (every paper's central comparison on real traces),
declared once for :func:`simlib.pipeline.params.notebook_params`.

Scenario values re-use each paper's declarations (``param_of``, ``param_list(of=...)``): the 000/002
run's :class:`~simlib.papers.cluster_scenario.Scenario`, FMReduce's
:class:`~simlib.papers.fmreduce.scenario.Scenario`; the SelMcast SSP run's
(:class:`~simlib.papers.selmcast.ssp_scenario.SSPScenario`, not yet declared with the contract)
are checked by building that scenario.  Each parameters cell assigns the spec's defaults (a test
checks it).  (Notebook 90's spec is :mod:`simlib.training.notebook_specs`: it has training values.)
"""
from __future__ import annotations

from dataclasses import dataclass

from simlib.papers.cluster_scenario import Scenario
from simlib.papers.contract import ParamError, ScenarioBase, check_items, param, param_list, param_of
from simlib.papers.fmreduce.scenario import Scenario as FMScenario
from simlib.papers.selective_reduce.experiments.figures import RunKnobs
from simlib.papers.selmcast.ssp_scenario import SSPScenario

__all__ = ["InternetScaleNotebook", "RealTracesNotebook", "TTA_CAP_S", "SSP_TTA_CAP_S", "SSP_REAL_TTA_CAP_S"]

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

    def check(self):
        check_items("n_values", self.n_values,
                    lambda n: Scenario.from_params(dict(self.run_knobs(), trace=self.trace, n=n)))


def _trials(default: int, quick: int, what: str):
    return param(default, lo=1, quick=quick, help=f"trials of {what}")


@dataclass(frozen=True)
class RealTracesNotebook(ScenarioBase):
    """Notebook 92: 000's SR vs PR, 003's FMReduce vs PR and 004's SelMcast vs Orpheus on the stand-in
    and on real traces, and the two time-to-accuracy replays."""

    trials: int = _trials(5, 2, "SR vs PR and of FMReduce")
    standin: str = param_of(Scenario, "trace", help="the stand-in every real trace is compared with")
    real_traces: tuple = param_list(["pai-job1", "pai-job2", "pai-job3", "pai-job4", "bytedance-se", "bytedance-ar",
                                     "bytedance-st"], of=(Scenario, "trace"), quick=["pai-job4", "bytedance-ar"],
                                    help="the real traces")
    sr_n: int = param_of(Scenario, "n", help="workers of SR vs PR (000 §IV: 200)")
    sr_duration_s: float = param_of(Scenario, "duration_s", help="simulated time of SR vs PR")
    fm_n: int = param_of(FMScenario, "n", help="workers of FMReduce vs PR (003 §3: 60)")
    fm_p_values: tuple = param_list([50, 10], of=(FMScenario, "p"), quick=[10, 4],
                                    help="FMReduce's participants per round p, each at most fm_n")
    fm_duration_s: float = param_of(FMScenario, "duration_s", flag=None, help="simulated time of FMReduce vs PR")
    ssp_n: int = param(50, lo=2, quick=12, stated="004 §IV-A2", help="workers of SelMcast vs Orpheus (004 §IV-C: 50)")
    ssp_duration_s: float = param(600.0, lo=0.0, lo_open=True, unit="s", quick=15.0, stated="004 §IV-A2",
                                  help="simulated time of SelMcast vs Orpheus")
    ssp_trials: int = _trials(3, 1, "SelMcast vs Orpheus")
    tta_real_traces: tuple = param_list(["pai-job4", "bytedance-ar"], of=(Scenario, "trace"), quick=["pai-job4"],
                                        help="real traces of the two time-to-accuracy replays")
    tta_sr_duration_s: float = param_of(Scenario, "duration_s", default=TTA_CAP_S, quick=60.0,
                                        help="the cap of the SR vs PR replay (s; RP16, as notebook 90)")
    tta_sr_trials: int = _trials(3, 1, "the SR vs PR replay")
    tta_ssp_duration_s: float = param(SSP_REAL_TTA_CAP_S, lo=0.0, lo_open=True, unit="s", quick=10.0,
                                      help="the cap of the SelMcast vs Orpheus replay on real traces (s; RP16)")
    tta_ssp_trials: int = _trials(2, 1, "the SelMcast vs Orpheus replay")
    # the learning task of both replays: notebook 90's (decisions RP9-RP11, RP16); checked by the replay
    target_acc: float = param(0.45, lo=0.0, hi=1.0, quick=0.85,
                              help="test accuracy of the average model that counts as reached (the task's default)")
    lr: float = param(0.5, lo=0.0, lo_open=True, quick=0.1, help="SGD learning rate of the replays (RP9)")
    batch: int = param(32, lo=1, help="minibatch size per local step of the replays")
    model: str = param("mlp-relu", quick="softmax", help="the model the replays train (RP9)")
    problem: str = param("mnist1d", quick="digits", help="the learning problem of the replays (RP9)")
    data: str = param("sharded", quick="iid", help="each worker's minibatches: its own shard or the whole set (RP11)")

    def check(self):
        if self.standin in self.real_traces or self.standin in self.tta_real_traces:
            raise ParamError("standin", f"standin {self.standin!r} must not be in real_traces or tta_real_traces")
        Scenario(n=self.sr_n, duration_s=self.sr_duration_s)
        check_items("fm_p_values", self.fm_p_values,
                    lambda q: FMScenario(n=self.fm_n, p=q, duration_s=self.fm_duration_s))
        for duration_s in (self.ssp_duration_s, self.tta_ssp_duration_s):
            SSPScenario(n=self.ssp_n, duration_s=duration_s)
