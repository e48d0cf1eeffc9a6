"""Runs long enough for the target (decision RP16): early stop and the staged simulation change only the cost.

A replay that stops at the target keeps the full replay's rows (tests/training/test_replay.py); here:
the simulators are prefix-consistent (the first d seconds of a longer run are the run of d seconds), so a
staged trial (simulate half the cap, then the whole cap only if the target was not reached) reports what one
run to the cap reports; the trial options are checked.
"""
import math

import numpy as np
import pytest

from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.papers.selmcast.ssp_replay import multicast_schedule_log
from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate as ssp_simulate
from simlib.training import selmcast_ssp_tta, time_to_accuracy as tta
from simlib.training.params import TrainingParams


def _prefix(log, d):
    ends = [tuple(t for t in c if t <= d) for c in log.compute_end]
    syncs = [(r.launch, tuple(r.members), tuple(r.iterations), tuple(getattr(r, "weights", None) or ()),
              getattr(r, "init_weight", None), tuple(getattr(r, "targets", None) or ())) for r in log.syncs
             if r.launch <= d]
    return ends, syncs


@pytest.mark.parametrize("scheme", ["allreduce", "partial", "selective"])
@pytest.mark.parametrize("trace", ["transformer", "pai-job4"])
def test_cluster_runs_are_prefix_consistent(scheme, trace):
    def run(d):
        return simulate(Scenario.from_params(dict(scheme=scheme, n=30, trace=trace, duration_s=d)),
                        np.random.SeedSequence(5))
    short, long = run(40.0), run(100.0)
    assert _prefix(short, 40.0) == _prefix(long, 40.0)
    assert len(long.syncs) > len(short.syncs) > 0


@pytest.mark.parametrize("scheme", ["selmcast", "orpheus"])
def test_ssp_runs_are_prefix_consistent(scheme):
    def run(d):
        return multicast_schedule_log(ssp_simulate(SSPScenario.from_params(dict(scheme=scheme, n=12, trace="lstm",
                                                                                duration_s=d)),
                                                   np.random.SeedSequence(5)))
    short, long = run(10.0), run(25.0)
    assert _prefix(short, 10.0) == _prefix(long, 10.0) and len(long.syncs) > len(short.syncs) > 0


_TASK = dict(train_problem="digits", train_model="softmax", train_lr=0.1, train_early_stop=True)
_LADDER = [tta.ladder_column(a) for a in tta.target_ladder("digits")]


@pytest.mark.parametrize("first", [0.5, 0.75])   # the ladder's top (92 %, at 110 s) after the first stage, within it
def test_a_staged_trial_reports_what_one_run_to_the_cap_reports(first):
    p = dict(scheme="partial", n=10, trace="transformer", duration_s=160.0, target_acc=0.85, **_TASK)
    one = tta.trial(dict(p, train_first_stage=1.0), np.random.SeedSequence(2))
    staged = tta.trial(dict(p, train_first_stage=first), np.random.SeedSequence(2))
    assert not math.isnan(one["time_to_target_s"])
    for k in ["time_to_target_s", "iterations_to_target", "updates_to_target", "final_acc", "replay_end_s"] + _LADDER:
        assert staged[k] == one[k], k
    assert one["replay_end_s"] == 110.0 < 160.0 == one["simulated_s"]
    assert staged["simulated_s"] == (160.0 if first == 0.5 else 120.0)


def test_a_staged_ssp_trial_reports_what_one_run_to_the_cap_reports():
    p = dict(scheme="selmcast", n=12, trace="lstm", duration_s=20.0, target_acc=0.9, **_TASK)
    one = selmcast_ssp_tta.trial(dict(p, train_first_stage=1.0), np.random.SeedSequence(1))
    staged = selmcast_ssp_tta.trial(dict(p, train_first_stage=0.5), np.random.SeedSequence(1))
    for k in ["time_to_target_s", "iterations_to_target", "final_acc"] + _LADDER:
        assert staged[k] == one[k] or (math.isnan(staged[k]) and math.isnan(one[k])), k


def test_early_stop_ends_the_replay_at_the_top_of_the_ladder_and_without_it_runs_to_the_cap():
    p = dict(scheme="selective", n=10, trace="transformer", duration_s=60.0, target_acc=0.85,
             train_problem="digits", train_model="softmax", train_lr=0.1)
    full = tta.trial(dict(p, train_early_stop=False), np.random.SeedSequence(0))
    early = tta.trial(dict(p, train_early_stop=True), np.random.SeedSequence(0))
    assert "replay_end_s" not in full and "simulated_s" not in full
    for k in ["time_to_target_s"] + _LADDER:               # every rung of the ladder as in the full run
        assert early[k] == full[k] or (math.isnan(early[k]) and math.isnan(full[k])), k
    top = max(tta.target_ladder("digits"))
    assert early["replay_end_s"] == (full[tta.ladder_column(top)] if not math.isnan(full[tta.ladder_column(top)])
                                     else 60.0)
    assert TrainingParams(early_stop=True, problem="digits", target_acc=0.95).stop_accuracy() == 0.95
    assert TrainingParams(early_stop=True, problem="digits", target_acc=0.8).stop_accuracy() == top
    assert TrainingParams(early_stop=False, problem="digits", target_acc=0.85).stop_accuracy() is None


@pytest.mark.parametrize("key, value, name", [("train_early_stop", "yes", "train_early_stop"),
                                              ("train_first_stage", 0.0, "train_first_stage"),
                                              ("train_first_stage", 1.5, "train_first_stage")])
def test_early_stop_options_are_checked(key, value, name):
    with pytest.raises(ValueError, match=name):
        TrainingParams.split({key: value})


@pytest.mark.parametrize("scheme", ["allreduce", "eager", "adpsgd", "ps-bsp", "ps-asp", "ps-backup",
                                    "partial-dynamic"])
def test_every_train_system_is_staged_without_changing_its_result(scheme):
    """The baselines' logs (gradient rule, AD-PSGD's computing members, dynamic weights) stay prefix-consistent."""
    from simlib.training.train_command import TrainScenario

    ts = TrainScenario.from_params(dict(scheme=scheme, hl=3, duration_s=120.0, problem="digits", model="softmax",
                                        lr=0.1, data="iid", target_acc=0.85))
    base = {**ts.scenario().to_params(), **ts.training().trial_params(), "train_early_stop": True}
    one = tta.trial({**base, "train_first_stage": 1.0}, np.random.SeedSequence(0))
    for first in (0.1, 0.5):
        staged = tta.trial({**base, "train_first_stage": first}, np.random.SeedSequence(0))
        for k in ["time_to_target_s", "iterations_to_target", "updates_to_target", "final_acc"] + _LADDER:
            assert staged[k] == one[k] or (math.isnan(staged[k]) and math.isnan(one[k])), (first, k)
