"""The parameters of the notebooks whose trial replays a simulated schedule through training
(:func:`simlib.training.time_to_accuracy.trial`, :func:`simlib.training.nine_systems.trial`,
:func:`simlib.training.selmcast_ssp_tta.trial`): 21 and 22 (seed 002 §5), 46 (SSP time to accuracy,
beyond 004), 90 (time to accuracy, beyond the papers) and 92 (real traces, with two replays), and
notebook 23 (002's paper profile), declared once for :func:`simlib.pipeline.run.start`.

Scenario values re-use the scenarios' declarations (``param_of``, ``param_list(of=...)``), the
training values (``target_acc``, ``lr``, ``batch``, ``model``, ``problem``, ``data``, ``early_stop``,
``eval_every_s``) :class:`~simlib.training.params.TrainingParams`' (notebook 90's learning task:
decisions RP9-RP11 in docs/decisions/replay.md).  Each parameters cell assigns the spec's defaults (a
test checks it); each ``check()`` builds the scenario of every swept value and the training values
(:func:`~simlib.training.params.task_of`), so their rules fail in the validation cell naming the
parameter or the list item.
"""
from __future__ import annotations

from dataclasses import dataclass

from simlib.papers.cluster_scenario import Scenario
from simlib.papers.beyond_notebooks import SSP_REAL_TTA_CAP_S, SSP_TTA_CAP_S, TTA_CAP_S
from simlib.papers.contract import MISSING, ParamError, ParamSpec, ScenarioBase, check_items, param, param_list, \
    param_of
from simlib.papers.fmreduce.scenario import Scenario as FMScenario
from simlib.papers.partial_reduce import profile as pr_profile
from simlib.papers.partial_reduce.baselines import BaselineParams
from simlib.papers.selmcast.ssp_experiments import SSPFig7Notebook, SSPFigs8to10Notebook
from simlib.papers.selmcast.ssp_scenario import SSPScenario
from simlib.training import task_search
from simlib.training.nine_systems import ARMS, SINGLE
from simlib.training.params import TrainingParams, task_of
from simlib.training.train_command import TrainScenario

__all__ = ["HeterogeneousTrainingNotebook", "TimeToAccuracyNotebook", "NineSystemsNotebook", "PaperProfileNotebook",
           "SSPTimeToAccuracyNotebook", "RealTracesNotebook"]

#: A group size P in workers (002's P; the scenario's p is the fraction P / n).
GROUP_SIZE = ParamSpec(kind="int", lo=2, help="group size P in workers, at most n")


def _target(default: float, extra: str = "", **kw):
    """A notebook's ``target_acc``: :class:`TrainingParams`' with the notebook's value (None not allowed)."""
    return param_of(TrainingParams, "target_acc", default=default, none_means=None,
                    help="test accuracy of the average model that counts as reached" + extra, **kw)


def _training(name: str, **overrides):
    """A notebook's training value ``name``: :class:`TrainingParams`' declaration."""
    return param_of(TrainingParams, name, **overrides)


@dataclass(frozen=True)
class HeterogeneousTrainingNotebook(ScenarioBase):
    """Notebook 21 (002 §5): 8 workers on a homogeneous 10 Gbps network, HL workers slowed HL times,
    each schedule replayed through training (the parameters cell's defaults).  Every setting starts at
    ``trials``; the settings of Table 1's arms at the HL an undecided verdict names add ``trials_step``
    per batch up to ``trials_cap`` (S25)."""

    trials: int = param(20, lo=1, quick=2, help="trials per setting to start with")
    trials_step: int = param(5, lo=1, quick=1, chosen="S25",
                             help="trials added per batch to the Table 1 settings of a verdict left undecided (S24, S25)")
    trials_cap: int = param(40, lo=1, quick=3, chosen="S25",
                            help="the most trials per setting; a verdict still undecided there is undecided at that "
                                 "many trials (S25: 40)")
    n: int = param_of(Scenario, "n", default=8, quick=MISSING, stated="002 §5.2.1",
                      help="workers (002 §5.2.1: 8)")
    p_values: tuple = param_list([2, 3, 4, 5, 6, 7, 8], item=GROUP_SIZE, quick=[2, 4],
                                 help="group sizes P of the Fig. 8 sweep (P = n acts like all reduce)")
    table_p: tuple = param_list([3, 5], item=GROUP_SIZE, stated="002 Table 1",
                                help="Table 1's partial-reduce group sizes P")
    hl_values: tuple = param_list([1, 3], of=(Scenario, "hl"), help="Table 1's heterogeneity levels")
    duration_s: float = param_of(Scenario, "duration_s", default=300.0, quick=40.0, chosen="RP19")
    profile_duration_s: float = param_of(Scenario, "duration_s", default=300.0, quick=40.0, chosen="PR19",
                                         help="the cap at 002's paper profile (PR19: 2.9x the slowest of its 69 "
                                              "pilot runs, 105 s)")
    target_acc: float = _target(0.90, quick=0.85, stated="002 §5.1")
    bandwidth_gbps: float = param_of(Scenario, "bandwidth_gbps", default=10.0, stated="002 §5.1")
    model_mb: float = param_of(Scenario, "model_mb", default=100.0, chosen="RP19")
    trace: str = param_of(Scenario, "trace", default="cnn", chosen="RP19")

    def check(self):
        task_of(self)        # the target against the trial's problem (TRIAL_DEFAULTS': digits)
        if self.trials_cap < self.trials:
            raise ParamError("trials_cap", f"trials_cap must be at least trials = {self.trials}, got {self.trials_cap}")
        common = dict(scheme="partial", n=self.n, bandwidth_gbps=self.bandwidth_gbps, model_mb=self.model_mb,
                      trace=self.trace, duration_s=self.duration_s)

        def group(P):
            if P > self.n:
                raise ParamError("P", f"group size P must be in [2, n = {self.n}], got {P}")
            Scenario.from_params(dict(common, p=P / self.n))

        check_items("p_values", self.p_values, group)
        check_items("table_p", self.table_p, group)
        check_items("hl_values", self.hl_values, lambda hl: Scenario.from_params(dict(common, hl=hl)))


@dataclass(frozen=True)
class TimeToAccuracyNotebook(ScenarioBase):
    """Notebook 90: every scheme at 000 §IV's settings, each schedule replayed through training on the
    learning task of decisions RP9-RP11 (mnist1d, an MLP; the quick profile: softmax on digits)."""

    trials: int = param(20, lo=1, quick=2, stated="000 §IV-A2", help="trials per setting")
    n_values: tuple = param_list([40, 80, 120, 160, 200], of=(Scenario, "n"), quick=[10, 20], stated="000 §IV-A1",
                                 help="cluster sizes n")
    traces: tuple = param_list(["transformer", "cnn"], of=(Scenario, "trace"), quick=["transformer"],
                               stated="000 §IV-A1", help="compute-time traces")
    duration_s: float = param_of(Scenario, "duration_s", default=TTA_CAP_S, quick=60.0, chosen="RP16",
                                 help="the cap: simulated seconds a run may take to reach the target (RP16: about "
                                      "2x all-reduce's expected time to 45 % at n = 200); a run that never reaches "
                                      "it is censored there")
    target_acc: float = _target(0.45, quick=0.85, chosen="RP9",
                                extra=" (the problem's ladder: mnist1d 25-45 %, digits 80-92 %; at most the "
                                      "problem's highest target)")
    early_stop: bool = _training("early_stop")
    lr: float = _training("lr")
    batch: int = _training("batch")
    model: str = _training("model")
    problem: str = _training("problem")
    data: str = _training("data")

    def check(self):
        task_of(self)
        check_items("n_values", self.n_values, lambda n: Scenario(n=n, trace=self.traces[0],
                                                                   duration_s=self.duration_s))


@dataclass(frozen=True)
class NineSystemsNotebook(ScenarioBase):
    """Notebook 22 (002 §5, Table 1, Figs. 7 and 11): every system of Table 1 plus selective reduce at
    002's setting (``n`` workers, HL workers slowed HL times, 10 Gbps, 100 MB), and Fig. 11's cluster
    sizes on a real trace, each schedule replayed through notebook 90's learning task (mnist1d, an MLP,
    sharded data, lr 0.5; the quick profile: softmax on digits).  Table 1 starts at ``trials`` paired
    trials and adds ``trials_step`` to the arms of an undecided verdict up to ``trials_cap`` (S25);
    ``fig11_trials`` is S25's 10 (no batches); ``extra_trials`` stays at RP15's 3."""

    trials: int = param(10, lo=1, quick=1, chosen="S25",
                        help="paired trials per Table 1 setting to start with (S25: at least 10)")
    trials_step: int = param(5, lo=1, quick=1, chosen="S25",
                             help="trials added per batch to the arms of a Table 1 verdict left undecided (S24, S25)")
    trials_cap: int = param(30, lo=1, quick=2, chosen="S25",
                            help="the most trials per Table 1 setting; a verdict still undecided there is undecided "
                                 "at that many trials (S25: 30 here, below its 40, for the CPU)")
    extra_trials: int = param(3, lo=1, quick=1, chosen="RP15",
                              help="trials of the sweeps beyond Table 1 (RP20's staleness, PR17, PR18, RP21)")
    n: int = param_of(Scenario, "n", default=8, quick=MISSING, stated="002 §5.2.1",
                      help="workers of Table 1 (002 §5.2.1: 8)")
    hl_values: tuple = param_list([1, 2, 3], of=(Scenario, "hl"), quick=[3], stated="002 Table 1",
                                  help="Table 1's heterogeneity levels")
    table_p: tuple = param_list([3, 5], item=GROUP_SIZE, quick=[3], stated="002 Table 1",
                                help="Table 1's partial-reduce group sizes P")
    backups: int = param_of(BaselineParams, "backups")
    duration_s: float = param_of(Scenario, "duration_s", default=1200.0, quick=30.0, chosen="RP16",
                                 help="the cap: simulated seconds per run (RP16: 2.3x all reduce's 521 s to 45 % at "
                                      "HL 3); a run that never reaches the target is censored there")
    profile_duration_s: float = param_of(Scenario, "duration_s", default=1800.0, quick=90.0, chosen="PR16",
                                         help="the cap at 002's paper profile (PR16: 2.2x the slowest of its 22 "
                                              "pilot runs, 831 s)")
    early_stop: bool = _training("early_stop", help="stop each replay once the target and every rung of the ladder "
                                                     "are reached (RP16: the same times to target as the full run; "
                                                     "Fig. 7's curves end there)")
    curve_every_s: float = param(10.0, lo=0.0, lo_open=True, unit="s", quick=5.0,
                                 help="seconds between the points of Fig. 7's accuracy curves")
    fig11_trials: int = param(10, lo=1, quick=1, chosen="S25", help="paired trials per Fig. 11 setting (S25: at least 10)")
    fig11_n: tuple = param_list([1, 4, 8, 16, 32], item=ParamSpec(kind="int", lo=1, hi=100_000, help="cluster size n"),
                                quick=[1, 4, 8], stated="002 §5.3.2",
                                help="Fig. 11's cluster sizes (1: the baseline, one worker, RP14)")
    fig11_p: int = param(4, lo=2, stated="002 §5.3.2", help="Fig. 11's partial-reduce group size P (002 §5.3.2: 4)")
    fig11_trace: str = param_of(Scenario, "trace", default="pai-job4", quick="cnn", chosen="RP19")
    fig11_profile_duration_s: float = param_of(Scenario, "duration_s", default=1800.0, quick=90.0, chosen="PR19",
                                               help="Fig. 11's cap at 002's paper profile (PR19: 2.9x the slowest "
                                                    "of its 12 pilot runs, 611 s)")
    fig11_single_duration_s: float = param(600.0, lo=0.0, lo_open=True, unit="s", quick=60.0, chosen="RP14",
                                           help="training time of Fig. 11's 1-worker baseline (cheap: no "
                                                "network, one replica)")
    target_acc: float = _target(0.45, quick=0.85, extra=" (mnist1d at most 45 %, digits at most 92 %)")
    bandwidth_gbps: float = param_of(Scenario, "bandwidth_gbps", default=10.0, stated="002 §5.1")
    model_mb: float = param_of(Scenario, "model_mb", default=100.0, chosen="RP19")
    trace: str = param_of(Scenario, "trace", default="cnn", chosen="RP19")
    evidence_hls: tuple = param_list([1, 3], of=(Scenario, "hl"), quick=[3], chosen="RP20",
                                     help="HLs at which ER, ASP and HETE are replayed as logged and with fresh "
                                          "gradients (RP20)")
    sr_hls: tuple = param_list([1, 3], of=(Scenario, "hl"), quick=[3], chosen="PR17",
                               help="HLs of selective reduce against partial reduce (P = 3) and all reduce at 000's "
                                    "drawn bandwidths (PR17)")
    filter_hls: tuple = param_list([1, 3], of=(Scenario, "hl"), quick=[3], chosen="PR18",
                                   help="HLs of Table 1's partial-reduce arms run with 002 §4's group filter on (PR18)")
    momentum_check: float = _training("momentum", default=0.9, stated="002 §5.1",
                                      help="the momentum of RP21's comparison (002 §5.1: 0.9), run at lr (1 - μ)")
    momentum_hls: tuple = param_list([1, 3], of=(Scenario, "hl"), quick=[3], chosen="RP21",
                                     help="HLs at which ER, ASP and BSP run with momentum (RP21)")
    lr: float = _training("lr")
    batch: int = _training("batch")
    model: str = _training("model")
    problem: str = _training("problem")
    data: str = _training("data")

    def training(self) -> dict:
        """The training values every setting carries (``python -m simlib train``'s names)."""
        return dict(target_acc=self.target_acc, lr=self.lr, batch=self.batch, model=self.model,
                    problem=self.problem, data=self.data, bandwidth_gbps=self.bandwidth_gbps,
                    model_mb=self.model_mb)

    def _common(self) -> dict:
        """The values every Table 1 and Fig. 11 setting carries: :meth:`training`'s, the curve's spacing and
        the early stop."""
        return dict(self.training(), curve_every_s=self.curve_every_s, early_stop=self.early_stop)

    def table1_settings(self) -> list[dict]:
        """Table 1's runs at our defaults (settings of :func:`simlib.training.nine_systems.trial`): per HL of
        ``hl_values``, every arm of :data:`~simlib.training.nine_systems.ARMS` in its order whose group size
        is in ``table_p`` or that has none (such a scheme carries ``p = 3``, which it does not read)."""
        common = self._common()
        return [dict(common, scheme=scheme, n=self.n, hl=hl, p=P or 3, backups=self.backups, trace=self.trace,
                     duration_s=self.duration_s)
                for hl in self.hl_values for scheme, P in ARMS.values() if P is None or P in self.table_p]

    def fig11_settings(self) -> list[dict]:
        """Fig. 11's runs at our defaults: the 1-worker baseline (RP14) for ``fig11_single_duration_s``, then
        per cluster size m > 1 of ``fig11_n`` all reduce, PS backup (m // 4 backups) and partial reduce
        (P = ``fig11_p``), on ``fig11_trace``."""
        common = self._common()
        out = [dict(common, scheme=SINGLE, n=1, trace=self.fig11_trace, duration_s=self.fig11_single_duration_s)]
        out += [dict(common, scheme=scheme, n=m, p=self.fig11_p, backups=m // 4, trace=self.fig11_trace,
                     duration_s=self.duration_s)
                for m in self.fig11_n if m > 1 for scheme in ("allreduce", "ps-backup", "partial")]
        return out

    def check(self):
        task_of(self)
        if self.trials_cap < self.trials:
            raise ParamError("trials_cap", f"trials_cap must be at least trials = {self.trials}, got {self.trials_cap}")
        common = dict(self.training(), n=self.n, trace=self.trace, duration_s=self.duration_s)

        def group(P):
            if P > self.n:
                raise ParamError("P", f"group size P must be in [2, n = {self.n}], got {P}")
            TrainScenario.from_params(dict(common, scheme="partial", p=P))

        check_items("table_p", self.table_p, group)
        check_items("hl_values", self.hl_values,
                    lambda hl: TrainScenario.from_params(dict(common, scheme="ps-backup", hl=hl, backups=self.backups)))
        if 1 not in self.fig11_n:
            raise ParamError("fig11_n", f"fig11_n must contain 1 (the baseline of the speedup), got {self.fig11_n}")

        def size(m):
            if m == 1:
                return
            if m < self.fig11_p:
                raise ParamError("n", f"n must be 1 or at least fig11_p = {self.fig11_p}, got {m}")
            TrainScenario.from_params(dict(self.training(), scheme="partial", n=m, p=self.fig11_p,
                                           trace=self.fig11_trace, duration_s=self.duration_s))

        check_items("fig11_n", self.fig11_n, size)


@dataclass(frozen=True)
class PaperProfileNotebook(ScenarioBase):
    """Notebook 23: decision PR16's search for 002's paper profile -- every candidate's per-update time
    ratios (schedules only, no replay) against Table 1's ResNet-34 ones.  The defaults are PR16's grid."""

    trials: int = param(pr_profile.SEARCH_TRIALS, lo=1, quick=1, help="paired trials per run (PR16: 2)")
    duration_s: float = param_of(Scenario, "duration_s", default=pr_profile.SEARCH_DURATION_S, quick=40.0)
    model_mb_values: tuple = param_list(list(pr_profile.SEARCH_MODEL_MB), of=(Scenario, "model_mb"),
                                        quick=[100.0, 500.0], help="candidate model sizes at 10 Gbps (PR16)")
    cv_values: tuple = param_list(list(pr_profile.SEARCH_CV), of=(Scenario, "compute_cv"), quick=[None, 0.3],
                                  help="candidate compute-time cvs (None: the stored trace's; PR16)")
    hl_slowdown_values: tuple = param_list(list(pr_profile.SEARCH_HL_SLOWDOWN), of=(Scenario, "hl_slowdown"),
                                           quick=[1.0], help="candidate γ of the HL slowdown (PR15, PR16)")
    apply_values: tuple = param_list(list(pr_profile.SEARCH_APPLY_S), of=(BaselineParams, "server_apply_s"),
                                     quick=[0.0, 0.1], help="candidate server apply times per push (PS7, PR16)")
    ad_passive_values: tuple = param_list(list(pr_profile.SEARCH_AD_PASSIVE), of=(BaselineParams, "ad_passive"),
                                          quick=["compute"], help="candidate AD-PSGD neighbours (AD3, PR16)")
    ad_atomic_values: tuple = param_list(list(pr_profile.SEARCH_AD_ATOMIC), of=(BaselineParams, "ad_atomic"),
                                         quick=[False, True], help="candidate AD-PSGD atomic averaging (AD4, PR16)")
    noise_pairs: int = param(pr_profile.NOISE_PAIRS, lo=0, quick=1,
                             help="further seed pairs on which the pick and the runner-up are measured again to "
                                  "state the search's 2-trial noise (issue 41; PR16 as amended)")

    task_models: tuple = param_list(["mlp-relu", "cnn"], item=ParamSpec(
        kind="str", choices=task_search.SEARCH_MODELS, help="a model RP24 may pick"), quick=["mlp-relu"],
        chosen="RP24", help="RP24's candidate models (the CNN's runs cost about 40x the MLP's: see the notebook)")
    task_data: tuple = param_list(list(task_search.SEARCH_DATA), of=(TrainingParams, "data"), quick=["sharded"],
                                  chosen="RP24", help="RP24's candidate data splits")
    task_batches: tuple = param_list(list(task_search.SEARCH_BATCHES), of=(TrainingParams, "batch"), quick=[32],
                                     chosen="RP24", help="RP24's candidate batches (32, and 002's share: 20)")
    task_cnn_batches: tuple = param_list([32], of=(TrainingParams, "batch"), quick=[32], chosen="RP24",
                                         help="the batches the CNN candidates run at (its runs are the cost)")
    task_hls: tuple = param_list([1, 3], of=(Scenario, "hl"), quick=[1], chosen="RP24",
                                 help="HLs of RP24's search (Table 1: HL 1 and its heterogeneous rows)")
    task_cnn_hls: tuple = param_list([1], of=(Scenario, "hl"), quick=[1], chosen="RP24",
                                     help="HLs at which the CNN candidates run")
    task_trials: int = param(10, lo=1, quick=1, chosen="RP24",
                             help="paired trials of RP24's search (MLP; 3 until RP24's amendment)")
    task_cnn_trials: int = param(10, lo=1, quick=1, chosen="RP24",
                                 help="paired trials of the CNN candidates (2 until RP24's amendment)")
    task_duration_s: float = param_of(Scenario, "duration_s", default=8000.0, quick=3000.0, chosen="RP24",
                                      help="cap of RP24's runs (s; early stop at the target, RP16)")

    def task_candidates(self) -> list:
        """RP24's candidates of these grids, each with (hls, trials): the CNN at its own batches, HLs and
        trials."""
        out = []
        for c in task_search.candidates(self.task_models, self.task_data, self.task_batches):
            cnn = c.model == "cnn"
            if cnn and c.batch not in self.task_cnn_batches:
                continue
            out.append((c, self.task_cnn_hls if cnn else self.task_hls,
                        self.task_cnn_trials if cnn else self.task_trials))
        return out

    def candidates(self) -> list:
        """The candidates of these grids (PR16's :func:`~simlib.papers.partial_reduce.profile.candidates`
        at the defaults)."""
        return [pr_profile.Profile(mb, cv, g, a, ad, at) for mb in self.model_mb_values for cv in self.cv_values
                for g in self.hl_slowdown_values for a in self.apply_values for ad in self.ad_passive_values
                for at in self.ad_atomic_values]

    def check(self):
        check_items("cv_values", self.cv_values,
                    lambda cv: Scenario.from_params(dict(n=8, trace="cnn", compute_cv=cv)))


@dataclass(frozen=True)
class SSPTimeToAccuracyNotebook(ScenarioBase):
    """Notebook 46's parameters (time to accuracy of the SSP schedules, beyond the paper): the run and
    the learning task it is replayed through (:mod:`simlib.training.selmcast_ssp_tta`)."""

    trials: int = param_of(SSPFig7Notebook, "trials")
    n: int = param_of(SSPScenario, "n")
    traces: tuple = param_of(SSPFigs8to10Notebook, "traces")
    duration_s: float = param_of(SSPScenario, "duration_s", default=SSP_TTA_CAP_S, quick=15.0, chosen="RP16",
                                 help="the cap: simulated seconds a run may take to reach the target (RP16); a run "
                                      "that never reaches it is censored there")
    target_acc: float = _target(0.45, quick=0.85, chosen="RP9",
                                extra=" (the problem's ladder: mnist1d 25-45 %, digits 80-92 %; RP9)")
    early_stop: bool = _training("early_stop")
    lr: float = _training("lr")
    batch: int = _training("batch")
    model: str = _training("model")
    problem: str = _training("problem")
    data: str = _training("data")
    eval_every_s: float = _training("eval_every_s", default=0.25)

    def check(self):
        SSPScenario(n=self.n, duration_s=self.duration_s)
        task_of(self)


def _trials_of(default: int, quick: int, what: str):
    return param(default, lo=1, quick=quick, help=f"trials of {what}")


@dataclass(frozen=True)
class RealTracesNotebook(ScenarioBase):
    """Notebook 92: 000's SR vs PR, 003's FMReduce vs PR and 004's SelMcast vs Orpheus on the stand-in
    and on real traces, and the two time-to-accuracy replays."""

    trials: int = _trials_of(5, 2, "SR vs PR and of FMReduce")
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
    ssp_trials: int = _trials_of(3, 1, "SelMcast vs Orpheus")
    tta_real_traces: tuple = param_list(["pai-job4", "bytedance-ar"], of=(Scenario, "trace"), quick=["pai-job4"],
                                        help="real traces of the two time-to-accuracy replays")
    tta_sr_duration_s: float = param_of(Scenario, "duration_s", default=TTA_CAP_S, quick=60.0,
                                        help="the cap of the SR vs PR replay (s; RP16, as notebook 90)")
    tta_sr_trials: int = _trials_of(3, 1, "the SR vs PR replay")
    tta_ssp_duration_s: float = param(SSP_REAL_TTA_CAP_S, lo=0.0, lo_open=True, unit="s", quick=10.0,
                                      help="the cap of the SelMcast vs Orpheus replay on real traces (s; RP16)")
    tta_ssp_trials: int = _trials_of(2, 1, "the SelMcast vs Orpheus replay")
    # the learning task of both replays: notebook 90's (decisions RP9-RP11, RP16)
    target_acc: float = _target(0.45, quick=0.85, extra=" (the task's default)")
    lr: float = _training("lr")
    batch: int = _training("batch")
    model: str = _training("model")
    problem: str = _training("problem")
    data: str = _training("data")

    def check(self):
        if self.standin in self.real_traces or self.standin in self.tta_real_traces:
            raise ParamError("standin", f"standin {self.standin!r} must not be in real_traces or tta_real_traces")
        Scenario(n=self.sr_n, duration_s=self.sr_duration_s)
        check_items("fm_p_values", self.fm_p_values,
                    lambda q: FMScenario(n=self.fm_n, p=q, duration_s=self.fm_duration_s))
        for duration_s in (self.ssp_duration_s, self.tta_ssp_duration_s):
            SSPScenario(n=self.ssp_n, duration_s=duration_s)
        task_of(self)
