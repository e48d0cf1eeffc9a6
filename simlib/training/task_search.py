"""Seed 002's learning task at the paper's operating point (issue 42 item 3; decision RP24).

002 §5.1 trains with SGD (lr 0.1, batch 256, momentum 0.9, weight decay 1e-4) to 90 % test accuracy on
CIFAR-10, a few points below its models' plateau; Table 1 then shows each baseline's statistical cost
in updates to that target.  The replay's default task (mnist1d's ReLU MLP to 45 %, plateau 56-58 %,
RP9) sits far below its plateau, where staleness costs little.  RP24 fixes, before any search is run,
how a task is put at 002's operating point:

* **Optimizer** (:data:`PAPER_OPTIMIZER`, scaled by :meth:`TaskCandidate.lr` / :data:`SEARCH_BATCHES`):
  momentum 0.9 and weight decay 1e-4 as stated; the batch's share of the training set as 002's
  (256 of CIFAR-10's 50,000: 20 of mnist1d's 4,000), or the replay's 32; the step size is the model's
  tuned plain-SGD step at batch 32 (RP9: 0.5, RP22: 0.2) times (1 − μ) (RP21's same effective step,
  002's lr 0.1 being the tuned step of its models) and linear in the batch.
* **Target** (:func:`plateau`, :func:`target_for`): 002's target lies at the fraction
  :data:`PAPER_FRACTION` of the way from chance to its models' plateau; a candidate's plateau is the
  median test accuracy over the last 20 % of a long lock-step all-reduce run (8 workers, the candidate's
  optimizer and data), and its target the same fraction of the way, rounded down to 0.005.
* **Open knobs** (model incl. the CNN, batch, data split: :func:`candidates`) are picked by how well the
  baselines' updates-to-target ratios (:data:`RATIOS`) fall in Table 1's ranges (:func:`paper_range`),
  on the simulated systems at 002's paper profile (PR16; :func:`search_settings`), paired per trial:
  :func:`score_table` / :func:`pick` (the rule), re-applied in tests.  Partial reduce's own ratios and the
  "4×" claims never enter.

Units: counts (updates, local steps), accuracies in [0, 1], seconds of simulated time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simlib.papers.analysis import require_frame
from simlib.papers.partial_reduce import profile as pr_profile
from simlib.papers.partial_reduce.table1_claims import paired_arms, table1_ratios
from simlib.papers.trial import Together, trial_of
from simlib.training.nine_systems import SystemSetting
from simlib.training.learning import MODELS

__all__ = ["PAPER_OPTIMIZER", "PAPER_TRAIN_SIZE", "PAPER_TARGET", "PAPER_PLATEAU", "CHANCE", "PAPER_FRACTION",
           "TUNED_PLAIN_LR", "TUNED_BATCH", "OUR_TRAIN_SIZE", "SEARCH_MODELS", "SEARCH_DATA", "SEARCH_BATCHES",
           "PLATEAU_ROUNDS", "RATIOS", "ER_ARM", "SEARCH_ARMS", "TaskCandidate", "candidates", "paper_batch",
           "plateau", "target_for", "paper_range", "interval_distance", "search_settings", "ratio_table",
           "score_table", "pick", "RULE", "SEARCH_EVAL_EVERY_S", "SEARCH_CURVE", "SEARCH_FIRST_STAGE", "search_trial",
           "search_run", "search_schedule", "search_together",
           "REFERENCE_TABLE", "REFERENCE_BEST"]

#: 002 §5.1's optimizer: SGD, learning rate 0.1, batch 256, momentum 0.9, weight decay 1e-4.
PAPER_OPTIMIZER = {"lr": 0.1, "batch": 256, "momentum": 0.9, "weight_decay": 1e-4}
#: CIFAR-10's training set (the batch's share of it is what RP24 carries over).
PAPER_TRAIN_SIZE = 50_000
#: 002 §5.1's threshold on CIFAR-10.
PAPER_TARGET = 0.90
#: The plateau of 002's models on CIFAR-10 with this recipe, which 002 does not state: the published test
#: accuracies of ResNet-34, VGG-19 and DenseNet-121 trained with SGD at lr 0.1, momentum 0.9 (ResNet paper:
#: ResNet-110 93.6 %; widely reproduced 93-95 %); RP24 takes 93-95 % and its middle.
PAPER_PLATEAU = (0.93, 0.95)
#: Chance accuracy of a 10-class problem (CIFAR-10 and mnist1d alike).
CHANCE = 0.10
#: Where 002's target lies between chance and its plateau: (0.90 − 0.10) / (0.94 − 0.10) = 0.952
#: (0.941-0.964 over the plateau's range).
PAPER_FRACTION = (PAPER_TARGET - CHANCE) / (float(np.mean(PAPER_PLATEAU)) - CHANCE)
#: mnist1d's training set (RP9).
OUR_TRAIN_SIZE = 4000
#: Each model's tuned plain-SGD step at batch 32: the largest whose single-worker curve climbs steadily
#: (RP9 for the MLP, RP22 for the CNN).
TUNED_PLAIN_LR = {"mlp-relu": 0.5, "cnn": 0.2}
TUNED_BATCH = 32
#: The open knobs RP24 searches: the model ...
SEARCH_MODELS = ("mlp-relu", "cnn")
#: ... each worker's data (RP11: its own shard, or the whole training set) ...
SEARCH_DATA = ("sharded", "iid")
#: ... and the batch: the replay's 32 and 002's share of the training set (:func:`paper_batch`: 20).
SEARCH_BATCHES = (32, 20)
#: Lock-step rounds of :func:`plateau`'s all-reduce run per model (both had flattened by then in the pilot:
#: the MLP by round 1,000, the CNN by round 3,000).
PLATEAU_ROUNDS = {"mlp-relu": 4000, "cnn": 8000}
#: Table 1's baseline ratios of updates to the target RP24 fits (name -> (numerator arm, denominator arm)):
#: only baselines against baselines (never partial reduce, never the "4×" claims).
RATIOS = {"ASP/BSP": ("ASP", "BSP"), "AD/AR": ("AD", "AR"), "BK/BSP": ("BK", "BSP"), "HETE/ASP": ("HETE", "ASP")}
#: Eager-Reduce: N/A in Table 1 (never reaches the threshold); scored by how often it reaches ours.
ER_ARM = "ER"
#: The systems the search simulates (Table 1's labels).
SEARCH_ARMS = ("AR", "ER", "AD", "BSP", "ASP", "HETE", "BK")
#: The rule's name in the ledger's and the notebook's texts.
RULE = "RP24"
#: The search table measured for RP24 (``benchmarks/reference/``; every run's row, 2026-11-29) and its best
#: candidate by score, which RP24's rule does not pick (not clear of the noise): tests re-apply the rule to it.
REFERENCE_TABLE = "rp24_task_search_runs_2026-11-29.csv"
REFERENCE_BEST = "mlp-relu, iid, batch 20"
#: Simulated seconds between the search's evaluations: the trials' 1 s grid.  A coarser grid misses first
#: touches of a target near the plateau (RP23): in the pilot, CNN ASP at 87 % took 12,648 updates on the 1 s
#: grid and 14,066 on a 5 s grid (same run), while all reduce's count did not move.
SEARCH_EVAL_EVERY_S = 1.0
#: What the search's replays evaluate, per model (RP25): the CNN ``"to_target"``, only what the first crossing of
#: the target needs (the search reads nothing else of a curve; the same times, steps and updates to the target
#: and ``final_acc`` as ``"full"``; one evaluation 2.1-2.4 ms -> 0.3-0.4 ms); the MLP ``"full"`` (its whole
#: evaluation, 0.1 ms, is cheaper than the chunked test, 0.2-0.4 ms).
SEARCH_CURVE = {"mlp-relu": "full", "cnn": "to_target"}
#: The share of the cap the search's runs simulate and replay first (RP16's ``first_stage``), per model where it
#: is not the setting's (RP26): the CNN's runs are simulated to the cap at once and replayed once.  Its targets lie
#: near half the cap (notebook 23's 28 committed CNN runs: 2,976-5,221 s of 8,000), so RP16's two stages replayed
#: the first 4,000 s twice in 15 of them, while the simulation is a few per cent of a CNN run.  A cost only: the
#: rows a replay keeps up to its stop are the full run's whatever the stages (RP16), so every output is the same.
#: The MLP keeps the setting's (RP16's half): its simulation is about 10-50 % of a run and 5 of 168 runs needed a
#: second stage.
SEARCH_FIRST_STAGE = {"cnn": 1.0}


def paper_batch(batch: int = PAPER_OPTIMIZER["batch"]) -> int:
    """002's batch carried to mnist1d by its share of the training set: ``round(256 · 4000 / 50000)`` = 20."""
    return int(round(batch * OUR_TRAIN_SIZE / PAPER_TRAIN_SIZE))


@dataclass(frozen=True)
class TaskCandidate:
    """One task RP24 considers: ``model`` (of :data:`~simlib.training.learning.MODELS` with a tuned step),
    ``data`` (``"sharded"`` or ``"iid"``) and ``batch`` (per local step); the optimizer's other values are
    :data:`PAPER_OPTIMIZER`'s momentum and weight decay and the step :meth:`lr`."""

    model: str
    data: str
    batch: int

    def __post_init__(self):
        if self.model not in TUNED_PLAIN_LR:
            raise ValueError(f"model must be one of {sorted(TUNED_PLAIN_LR)} (a tuned step: RP9, RP22), "
                             f"got {self.model!r}")
        if self.data not in SEARCH_DATA:
            raise ValueError(f"data must be one of {SEARCH_DATA}, got {self.data!r}")
        if not isinstance(self.batch, (int, np.integer)) or self.batch < 1:
            raise ValueError(f"batch must be an int >= 1, got {self.batch!r}")

    @property
    def momentum(self) -> float:
        return PAPER_OPTIMIZER["momentum"]

    @property
    def weight_decay(self) -> float:
        return PAPER_OPTIMIZER["weight_decay"]

    def lr(self) -> float:
        """The step: the model's tuned plain-SGD step at batch 32 × (1 − μ) (the same effective step, RP21)
        × batch / 32 (linear in the batch)."""
        return TUNED_PLAIN_LR[self.model] * (1.0 - self.momentum) * self.batch / TUNED_BATCH

    def label(self) -> str:
        return f"{self.model}, {self.data}, batch {self.batch}"

    def training(self, target: float) -> dict:
        """The candidate as ``python -m simlib train``'s training values (problem mnist1d), at ``target``."""
        return dict(problem="mnist1d", model=self.model, data=self.data, batch=int(self.batch), lr=self.lr(),
                    momentum=self.momentum, weight_decay=self.weight_decay, target_acc=float(target))


def candidates(models=SEARCH_MODELS, data=SEARCH_DATA, batches=SEARCH_BATCHES) -> list[TaskCandidate]:
    """RP24's candidates (model slowest, then data, then batch)."""
    for m in models:
        if m not in MODELS:
            raise ValueError(f"models must be names of {MODELS}, got {m!r}")
    return [TaskCandidate(m, d, int(b)) for m in models for d in data for b in batches]


def plateau(candidate: TaskCandidate, rounds: int | None = None, seed: int = 0, n: int = 8) -> dict:
    """The candidate's plateau: a lock-step all-reduce run of ``n`` workers for ``rounds`` rounds
    (default :data:`PLATEAU_ROUNDS`) with its optimizer and data, evaluated 100 times; returns
    ``plateau`` (the median test accuracy over the last 20 % of the evaluations), ``best`` (their
    largest), ``rounds`` and ``curve`` (the evaluated accuracies)."""
    from simlib.training.calibration import lockstep_log
    from simlib.training.replay import Numerics, StepRule, replay

    rounds = PLATEAU_ROUNDS[candidate.model] if rounds is None else int(rounds)
    every = max(1, rounds // 100)
    curve = replay(lockstep_log(n, rounds), "mnist1d", model=candidate.model, lr=candidate.lr(),
                   batch_size=candidate.batch, eval_every_s=float(every), seed=seed, data=candidate.data,
                   steps=StepRule(l2=candidate.weight_decay, momentum=candidate.momentum),
                   numerics=Numerics(dtype="float32", loss_every=0)).curve      # the accuracy alone (RP27)
    acc = curve["test_acc"].to_numpy()[1:]          # the evaluations after time 0
    tail = acc[int(math.floor(0.8 * acc.size)):]
    return {"plateau": float(np.median(tail)), "best": float(acc.max()), "rounds": rounds, "curve": acc}


def target_for(plateau_acc: float, fraction: float = PAPER_FRACTION, chance: float = CHANCE) -> float:
    """The target at 002's distance below a plateau: ``chance + fraction · (plateau − chance)``, rounded down
    to 0.005 (RP24).  ``ValueError`` for a plateau not above chance."""
    if not chance < plateau_acc <= 1.0:
        raise ValueError(f"plateau_acc must be in ({chance}, 1], got {plateau_acc}")
    return math.floor(round((chance + fraction * (plateau_acc - chance)) * 200, 9)) / 200


def paper_range(name: str, hl: int) -> tuple[float, float]:
    """Table 1's range of ratio ``name`` (:data:`RATIOS`) of updates to the threshold over its three models,
    at HL 1 (``hl`` = 1) or its heterogeneous rows (``hl`` > 1)."""
    num, den = RATIOS[name]
    vals = table1_ratios(num, den, "updates", "homogeneous" if hl == 1 else "heterogeneous")
    return float(min(vals)), float(max(vals))


def interval_distance(lo: float, hi: float, span: tuple[float, float]) -> float:
    """How far the interval [lo, hi] (a median ratio, or its bounds where runs are censored) lies outside
    ``span`` on a log scale: 0 if they overlap, else |ln| of the gap between the nearest ends; NaN for an
    unknown interval."""
    if not (lo > 0 and hi > 0) or math.isnan(lo) or math.isnan(hi):
        return math.nan
    if hi < span[0]:
        return math.log(span[0] / hi)
    if lo > span[1]:
        return math.log(lo / span[1])
    return 0.0


def search_settings(cand: TaskCandidate, target: float, hls=(1,), duration_s: float = 6000.0,
                    profile=None) -> list[dict]:
    """The runs one candidate needs: each of :data:`SEARCH_ARMS` at each HL, on 002's cluster at its paper
    profile (PR16: the values each run reads, PR19), with the candidate's training values, early stop
    at its target (RP16) and one curve point (the search reads no curve)."""
    from simlib.training.nine_systems import ARMS

    out = []
    for hl in hls:
        for arm in SEARCH_ARMS:
            scheme, p = ARMS[arm]
            s = dict(scheme=scheme, n=8, hl=int(hl), p=p or 3, backups=3, trace="cnn", duration_s=float(duration_s),
                     bandwidth_gbps=10.0)
            s = pr_profile.at_profile_read([s], profile)[0]
            out.append(dict(s, **cand.training(target), curve_every_s=float(duration_s), early_stop=True))
    return out


def search_schedule(params: SystemSetting | dict) -> str:
    """What a search run's cluster is: the ``repr`` of its simulated scenario (every value of it; a float's
    ``repr`` is exact).  The candidates' training values (model, data, batch, step, target) do not enter it, so
    a system's runs of every candidate at one paired seed share it (:func:`search_together`, RP24)."""
    from simlib.training.nine_systems import simulated_system

    return repr(simulated_system(params).scenario())


def search_together(settings: list, seed) -> list[dict]:
    """:func:`search_trial` of each of ``settings`` at ``seed``, in order, each stage's schedule simulated once for
    all of them (a sweep's task, decision S39; RP24's runs are paired, so the candidates' runs of one system and
    trial share their schedules).  Each run is handed its own copy of ``seed`` and the logs are remembered within
    this call only, keyed by the scenario's ``repr`` (the stage's duration included) and the seed's state:
    :func:`~simlib.papers.cluster_scenario.simulate` is a function of those alone and the replay only reads its
    log, so every output is the one of a run that simulated its own.  Each log is kept read once
    (:func:`~simlib.training.replay.parse_log`, RP29), so its runs' replays do not read its records again.  Memory:
    a log per stage (1-2 per system) with its parse."""
    import copy

    from simlib.core.seeding import as_seed_sequence
    from simlib.papers import cluster_scenario
    from simlib.training.replay import parse_log

    seed = as_seed_sequence(seed)
    logs = {}

    def simulate(sc, ss):
        key = (repr(sc), repr(ss.entropy), tuple(ss.spawn_key), ss.pool_size, ss.n_children_spawned)
        if key not in logs:
            logs[key] = parse_log(cluster_scenario.simulate(sc, ss))
        return logs[key]

    return [_search_run(p, copy.deepcopy(seed), SEARCH_EVAL_EVERY_S, None, simulate) for p in settings]


@trial_of(SystemSetting, example={"scheme": "partial", "n": 4, "p": 2, "duration_s": 4.0, "early_stop": True},
          together=Together(search_schedule, search_together))
def search_trial(params: SystemSetting | dict, seed) -> dict:
    """One run of the search (:func:`search_run` at :data:`SEARCH_EVAL_EVERY_S`): a
    :mod:`~simlib.training.nine_systems` setting (flat, ``python -m simlib train``'s names;
    :func:`search_settings`).  A paired sweep runs the settings of one schedule (:func:`search_schedule`) and
    trial in one task (:func:`search_together`, S39): the same outputs, each schedule simulated once."""
    return search_run(params, seed)


def search_run(params: SystemSetting | dict, seed, *, eval_every_s: float = SEARCH_EVAL_EVERY_S,
               curve: str | None = None) -> dict:
    """One run of the search: ``params`` simulated in RP16's stages (the CNN's in one, :data:`SEARCH_FIRST_STAGE`,
    RP26) and replayed with early stop at its target, evaluated every ``eval_every_s`` simulated seconds
    (``curve``: the replay's, RP25; default :data:`SEARCH_CURVE` of the model; ``"full"`` where a ladder rung
    lies above the target).  Returns
    ``reached`` (0/1),
    ``updates_to_target`` (002's "#update"; NaN if never reached), ``iterations_to_target`` (local steps),
    ``time_to_target_s``, ``run_updates`` (the updates of what was replayed: the censoring bound) and
    ``final_acc``: the same values whatever ``curve``."""
    from simlib.papers.cluster_scenario import simulate

    return _search_run(params, seed, eval_every_s, curve, simulate)


def _search_run(params, seed, eval_every_s: float, curve: str | None, simulate) -> dict:
    """:func:`search_run`, each stage's schedule from ``simulate(scenario, seed)``."""
    import dataclasses

    from simlib.core.seeding import as_seed_sequence
    from simlib.training.nine_systems import simulated_system
    from simlib.training.time_to_accuracy import TRIAL_LOSS_EVERY, replay_to_target, staged_replay

    system = simulated_system(params)
    tp = dataclasses.replace(system.training(), early_stop=True, eval_every_s=float(eval_every_s))
    if tp.model in SEARCH_FIRST_STAGE:       # RP26: the stages' split, a cost only (the same outputs)
        tp = dataclasses.replace(tp, first_stage=SEARCH_FIRST_STAGE[tp.model])
    sc, seed = system.scenario(), as_seed_sequence(seed)
    if curve is None:
        curve = SEARCH_CURVE.get(tp.model, "full")
    mode = curve if tp.stop_accuracy() == tp.target() else "full"
    log, curve = staged_replay(lambda d: simulate(dataclasses.replace(sc, duration_s=d), seed), sc.duration_s, tp,
                               seed, curve=mode, loss_every=TRIAL_LOSS_EVERY)     # no loss read (RP27)
    _, row = replay_to_target(log, tp, seed, curve=curve)
    count = "syncs"
    nan = math.nan
    return {"reached": int(row is not None),
            "updates_to_target": nan if row is None else float(row[count]),
            "iterations_to_target": nan if row is None else float(row["iterations"]),
            "time_to_target_s": nan if row is None else float(row["time_s"]),
            "run_updates": float(curve[count].iloc[-1]), "final_acc": float(curve["test_acc"].iloc[-1])}


def ratio_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per ``(candidate, hl, ratio)`` of the search's runs (columns ``candidate``, ``arm``, ``hl``, ``trial``,
    ``updates_to_target``, ``run_updates``, ``reached``): the median paired ratio of updates to the target
    and its bounds (a run that never reached it is censored at its run's updates:
    :func:`~simlib.papers.partial_reduce.table1_claims.paired_arms`), the per-trial min and max, Table 1's
    range, and the distance (:func:`interval_distance` of [median_lo, median_hi]); plus one ``ER`` row per
    ``(candidate, hl)`` whose ``reached`` is the share of Eager-Reduce runs that reached the target."""
    require_frame(runs, "runs", ["candidate", "arm", "hl", "trial", "updates_to_target", "run_updates", "reached"])
    rows = []
    for (cand, hl), g in runs.groupby(["candidate", "hl"], sort=False):
        for name, (num, den) in RATIOS.items():
            r = paired_arms(g, "updates_to_target", num, den)
            span = paper_range(name, int(hl))
            if not len(r):
                continue
            r = r.iloc[0]
            rows.append(dict(candidate=cand, hl=int(hl), ratio=name, median=r["median"], median_lo=r["median_lo"],
                             median_hi=r["median_hi"], min=r["min"], max=r["max"], trials=int(r["trials"]),
                             censored=int(r["censored"]), paper_lo=span[0], paper_hi=span[1],
                             distance=interval_distance(r["median_lo"], r["median_hi"], span)))
        er = g[g["arm"] == ER_ARM]
        if len(er):
            rows.append(dict(candidate=cand, hl=int(hl), ratio=ER_ARM, trials=len(er),
                             reached=float(er["reached"].mean())))
    return pd.DataFrame(rows)


def _trial_scores(runs: pd.DataFrame) -> pd.Series:
    """Per ``(candidate, trial)``: the mean distance of that trial's own paired ratios (the noise RP24 states)."""
    out = {}
    for (cand, trial), g in runs.groupby(["candidate", "trial"], sort=False):
        d = ratio_table(g.assign(trial=0))
        d = d[d["ratio"] != ER_ARM]
        out[(cand, trial)] = float(d["distance"].mean()) if len(d) else math.nan
    return pd.Series(out, dtype=float)


def score_table(runs: pd.DataFrame) -> pd.DataFrame:
    """RP24's score per candidate: ``score`` = the mean over :data:`RATIOS` × HLs of the distance of the
    median paired ratio to Table 1's range (:func:`ratio_table`); ``score_lo`` / ``score_hi`` = the range of
    the same mean taken on each trial's pairs alone (the search's noise); ``er_reached`` = the share of
    Eager-Reduce runs that reached the target (Table 1: none); ``plateau`` and ``target`` when the runs carry
    them.  Sorted by ``score``."""
    rt = ratio_table(runs)
    per_trial = _trial_scores(runs)
    rows = []
    for cand, g in rt.groupby("candidate", sort=False):
        d = g[g["ratio"] != ER_ARM]
        er = g[g["ratio"] == ER_ARM]
        pt = per_trial.loc[cand] if cand in per_trial.index.get_level_values(0) else pd.Series(dtype=float)
        row = dict(candidate=cand, score=float(d["distance"].mean()) if len(d) else math.nan,
                   score_lo=float(pt.min()) if len(pt) else math.nan, score_hi=float(pt.max()) if len(pt) else math.nan,
                   ratios_in_range=int((d["distance"] == 0).sum()), ratios=len(d),
                   er_reached=float(er["reached"].mean()) if len(er) else math.nan)
        for col in ("plateau", "target"):
            if col in runs.columns:
                row[col] = float(runs.loc[runs["candidate"] == cand, col].iloc[0])
        rows.append(row)
    return pd.DataFrame(rows).sort_values(["score", "er_reached"], kind="stable").reset_index(drop=True)


def pick(scores: pd.DataFrame) -> dict:
    """RP24's rule on a :func:`score_table`: the candidate with the smallest ``score`` (ties: fewer
    Eager-Reduce runs reaching the target, then table order).  It is *clear* when its per-trial range lies
    wholly below the runner-up's (``score_hi`` < the runner-up's ``score_lo``) and it puts at least half the
    ratios in Table 1's range; otherwise ``picked`` is None ("none": no candidate gives the baselines their
    statistical costs beyond the noise).  Returns ``best``, ``runner_up``, ``clear``, ``picked`` and
    ``reason``."""
    require_frame(scores, "scores", ["candidate", "score", "score_lo", "score_hi", "ratios_in_range", "ratios",
                                     "er_reached"])
    s = scores.dropna(subset=["score"]).sort_values(["score", "er_reached"], kind="stable").reset_index(drop=True)
    if s.empty:
        return dict(best=None, runner_up=None, clear=False, picked=None, reason="no candidate has a score")
    best = s.iloc[0]
    runner = s.iloc[1] if len(s) > 1 else None
    separated = runner is None or bool(best["score_hi"] < runner["score_lo"])
    enough = bool(best["ratios_in_range"] * 2 >= best["ratios"])
    clear = separated and enough
    reason = []
    if not separated:
        reason.append(f"its per-trial scores {best['score_lo']:.3f}-{best['score_hi']:.3f} overlap the runner-up's "
                      f"{runner['score_lo']:.3f}-{runner['score_hi']:.3f}")
    if not enough:
        reason.append(f"only {int(best['ratios_in_range'])} of {int(best['ratios'])} ratios in Table 1's range")
    return dict(best=best["candidate"], runner_up=None if runner is None else runner["candidate"], clear=clear,
                picked=best["candidate"] if clear else None,
                reason="clear: " + best["candidate"] if clear else "none clearly: " + "; ".join(reason))
