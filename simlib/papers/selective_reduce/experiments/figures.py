"""The parameters of seed 000's §IV notebooks (11-15), declared once for
:func:`simlib.pipeline.run.start`.

Their trial is the shared cluster run (:func:`simlib.papers.cluster_scenario.run_trial`,
through :func:`simlib.pipeline.runs.run_scenarios`), so each spec re-uses the
:class:`~simlib.papers.cluster_scenario.Scenario`'s declarations (its range, unit
and quick value: ``param_of``, ``param_list(of=...)``) and adds the notebook's own
(``trials``, the swept lists).  Each parameters cell assigns the spec's defaults (a
test checks it); each ``check()`` builds the scenario for every swept value, so
the scenario's own rules (p n >= 0.5, ...) fail in the validation cell naming the
list and the item.
"""
from __future__ import annotations

from dataclasses import dataclass

from simlib.papers.cluster_scenario import Scenario
from simlib.papers.contract import ParamSpec, ScenarioBase, check_items, param, param_list, param_of

__all__ = ["RunKnobs", "RUN_KNOBS", "Fig5to7Notebook", "Fig8to10Notebook", "Fig11to12Notebook", "Fig13to14Notebook", "GapsNotebook",
           "ProfileSearchNotebook"]

#: The paper reports min/median/max over 20 trials per setting (§IV-A2); the quick profile runs 2.
TRIALS = dict(lo=1, quick=2, stated="000 §IV-A2", help="trials per setting (§IV-A2: 20)")
N_VALUES = [40, 80, 120, 160, 200]


def _run(**params) -> Scenario:
    """The run with these (flat) parameters, checked: its ranges and cross-field rules."""
    return Scenario.from_params(params)


#: The cluster run's knobs that :class:`RunKnobs` declares.
RUN_KNOBS = ("duration_s", "p", "eta", "theta", "dt_s", "lam", "alpha_s", "model_mb")


#: The quick profile's simulated time (s) of notebooks 11-16: long enough that all reduce completes a
#: sync at the quick n = 20 at the paper profile's 3 s mean compute time (at the scenario's quick 10 s
#: it does not, and the figure claims would read NaN).
QUICK_DURATION_S = 20.0


@dataclass(frozen=True)
class RunKnobs(ScenarioBase):
    """The cluster run's knobs a notebook passes unchanged to every trial (the Scenario's
    declarations: §IV-A's defaults, ranges and units)."""

    duration_s: float = param_of(Scenario, "duration_s", quick=QUICK_DURATION_S)
    p: float = param_of(Scenario, "p")
    eta: float = param_of(Scenario, "eta")
    theta: float = param_of(Scenario, "theta")
    dt_s: float = param_of(Scenario, "dt_s")
    lam: float = param_of(Scenario, "lam")
    alpha_s: float = param_of(Scenario, "alpha_s")
    model_mb: float = param_of(Scenario, "model_mb")

    def run_knobs(self) -> dict:
        """These knobs as the Scenario's flat parameters."""
        return {name: getattr(self, name) for name in RUN_KNOBS}


@dataclass(frozen=True)
class Fig5to7Notebook(RunKnobs):
    """Notebook 11 (§IV-B1, Figs. 5-7): every scheme over n on the CNN and Transformer traces."""

    trials: int = param(20, **TRIALS)
    n_values: tuple = param_list(N_VALUES, of=(Scenario, "n"), quick=[10, 20], stated="000 §IV-A1",
                                 help="cluster sizes n")
    traces: tuple = param_list(["cnn", "transformer"], of=(Scenario, "trace"), stated="000 §IV-A1",
                               help="compute-time traces")

    def check(self):
        check_items("n_values", self.n_values, lambda n: _run(n=n, trace=self.traces[0], **self.run_knobs()))


@dataclass(frozen=True)
class Fig8to10Notebook(ScenarioBase):
    """Notebook 12 (§IV-B2-4, Figs. 8-10): p, η and θ swept one at a time at n = 200 (decision E7)."""

    trials: int = param(20, **TRIALS)
    n: int = param_of(Scenario, "n")
    trace: str = param_of(Scenario, "trace")
    duration_s: float = param_of(Scenario, "duration_s", quick=QUICK_DURATION_S)
    p_values: tuple = param_list([0.1, 0.2, 0.3, 0.4, 0.5], of=(Scenario, "p"), stated="000 §IV-B2",
                                 help="Fig. 8's p (fractions of n)")
    eta_values: tuple = param_list([0.0, 0.2, 0.4, 0.6, 0.8], of=(Scenario, "eta"), stated="000 §IV-B3",
                                   help="Fig. 9's η")
    theta_values: tuple = param_list([1.0, 5.0, 10.0, 15.0, 20.0], of=(Scenario, "theta"), chosen="E7",
                                     help="Fig. 10's θ (decision E7)")
    p: float = param_of(Scenario, "p")
    eta: float = param_of(Scenario, "eta")
    theta: float = param_of(Scenario, "theta")
    dt_s: float = param_of(Scenario, "dt_s")

    def check(self):
        fixed = dict(n=self.n, trace=self.trace, duration_s=self.duration_s, dt_s=self.dt_s)
        _run(p=self.p, eta=self.eta, theta=self.theta, **fixed)
        check_items("p_values", self.p_values, lambda p: _run(p=p, **fixed))


@dataclass(frozen=True)
class Fig11to12Notebook(ScenarioBase):
    """Notebook 13 (§IV-B5, Figs. 11-12): cold start over n, estimation error e at ``n_error``."""

    trials: int = param(20, **TRIALS)
    n_values: tuple = param_list(N_VALUES, of=(Scenario, "n"), quick=[10, 20], stated="000 §IV-A1",
                                 help="Fig. 11's cluster sizes n")
    n_error: int = param_of(Scenario, "n", help="workers of Fig. 12's error sweep (decision E7: 200)")
    e_values: tuple = param_list([0.0, 0.1, 0.2, 0.3, 0.4, 0.5], of=(Scenario, "bw_error"), quick=[0.0, 0.3],
                                 chosen="E7",
                                 help="Fig. 12's estimation error scales e (not in the paper, decision E7)")
    trace: str = param_of(Scenario, "trace")
    duration_s: float = param_of(Scenario, "duration_s", quick=QUICK_DURATION_S)
    dt_s: float = param_of(Scenario, "dt_s")

    def check(self):
        fixed = dict(trace=self.trace, duration_s=self.duration_s, dt_s=self.dt_s)
        _run(n=self.n_error, **fixed)
        check_items("n_values", self.n_values, lambda n: _run(n=n, **fixed))


@dataclass(frozen=True)
class Fig13to14Notebook(ScenarioBase):
    """Notebook 14 (§IV-B6-7, Figs. 13-14): bandwidth skew λ and latency α."""

    trials: int = param(20, **TRIALS)
    n: int = param_of(Scenario, "n")
    trace: str = param_of(Scenario, "trace")
    duration_s: float = param_of(Scenario, "duration_s", quick=QUICK_DURATION_S)
    lam_values: tuple = param_list([0.05, 0.1, 0.2], of=(Scenario, "lam"), stated="000 §IV-B6",
                                   help="Fig. 13's λ")
    alpha_ms_values: tuple = param_list([0.0, 1.0, 5.0, 50.0], help="Fig. 14's latencies α", stated="000 §IV-B7",
                                        item=ParamSpec(kind="float", lo=0.0, unit="ms", help="one-way latency α"))
    dt_s: float = param_of(Scenario, "dt_s")

    def check(self):
        fixed = dict(n=self.n, trace=self.trace, duration_s=self.duration_s, dt_s=self.dt_s)
        check_items("lam_values", self.lam_values, lambda lam: _run(lam=lam, **fixed))
        check_items("alpha_ms_values", self.alpha_ms_values, lambda a: _run(alpha_s=a / 1e3, **fixed))


@dataclass(frozen=True)
class GapsNotebook(ScenarioBase):
    """Notebook 15: what the paper's open choices change (SR1, E3, E1, E2, E6) at the §IV defaults."""

    trials: int = param(20, **TRIALS)
    n: int = param_of(Scenario, "n")
    trace: str = param_of(Scenario, "trace")
    duration_s: float = param_of(Scenario, "duration_s", quick=QUICK_DURATION_S)
    dt_values: tuple = param_list([0.01, 0.05, 0.1, 0.2, 0.5, 1.0], of=(Scenario, "dt_s"), quick=[0.05, 0.5],
                                  chosen="E2", help="Δt sensitivity (decision E2)")
    c_values: tuple = param_list([10, 50], of=(Scenario, "c"), chosen="E1", help="full-sync periods c (decision E1)")
    compute_means_s: tuple = param_list([0.5, 1.0, 2.0, 5.0, 10.0, 20.0], of=(Scenario, "compute_mean_s"),
                                        quick=[1.0, 5.0], chosen="E6", help="compute-time scales (decision E6)")
    dt_s: float = param_of(Scenario, "dt_s")

    def check(self):
        _run(n=self.n, trace=self.trace, duration_s=self.duration_s, dt_s=self.dt_s)


@dataclass(frozen=True)
class ProfileSearchNotebook(ScenarioBase):
    """Notebook 16: decision E18's search for the paper profile (its score from the baselines' runs at
    ``score_trials``; every Figs. 5–14 claim at every candidate Δt × compute mean at ``trials``, the
    per-claim map) and the model-size sensitivity at the profile."""

    trials: int = param(5, lo=1, quick=1, help="paired trials per setting of the per-claim map (decision E18: 5)")
    score_trials: int = param(20, lo=1, quick=2,
                              help="paired trials per setting of the baseline runs E18 scores (the ledger's 20)")
    n_values: tuple = param_list(N_VALUES, of=(Scenario, "n"), quick=[10, 20], help="Figs. 5-7 and 11's cluster sizes")
    n: int = param_of(Scenario, "n", help="workers of Figs. 8-14 (decision E7: 200)")
    duration_s: float = param_of(Scenario, "duration_s", quick=QUICK_DURATION_S)
    dt_values: tuple = param_list([0.01, 0.02, 0.05, 0.1], of=(Scenario, "dt_s"), quick=[0.05, 0.1],
                                  help="candidate slots Δt (decision E18)")
    compute_means_s: tuple = param_list([None, 2.0, 3.0, 5.0], of=(Scenario, "compute_mean_s"), quick=[None, 3.0],
                                        help="candidate mean compute times (stored: the stand-ins' 1 s; E18)")
    model_mb_values: tuple = param_list([250.0, 1000.0], of=(Scenario, "model_mb"), quick=[250.0],
                                        help="model sizes of the sensitivity at the profile (the paper states 500 MB)")

    def check(self):
        check_items("n_values", self.n_values, lambda n: _run(n=n, duration_s=self.duration_s))
        check_items("dt_values", self.dt_values, lambda dt: _run(n=self.n, dt_s=dt))
