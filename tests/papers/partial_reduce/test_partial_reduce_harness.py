"""Seed 002 pieces wired into the cluster: weights in the log, the frozen-group case,
spectral gap of simulated schedules, and the time-to-accuracy trial."""
import math

import numpy as np
import pytest

from simlib.papers.partial_reduce.experiments import frozen_groups

from simlib.training import time_to_accuracy
from simlib.papers.cluster_scenario import Scenario, simulate


def test_plain_fifo_freezes_and_the_filter_unfreezes():
    log, rho, groups, _ = frozen_groups.run(use_filter=False)
    assert groups == [(0, 1), (2, 3)] and rho == pytest.approx(1.0)
    log, rho, groups, _ = frozen_groups.run(use_filter=True)
    assert rho < 0.95
    assert any(set(g) & {0, 1} and set(g) & {2, 3} for g in groups)  # a bridging group exists


def test_dynamic_weights_are_recorded_and_valid():
    sc = Scenario.from_params(dict(scheme="partial", n=8, p=3 / 8, hl=3, bandwidth_gbps=10.0, model_mb=10.0,
                  duration_s=30.0, trace="cnn", weights="dynamic"))
    log = simulate(sc, 1)
    assert log.syncs
    saw_unequal = False
    for s in log.syncs:
        assert len(s.weights) == len(s.members)
        assert sum(s.weights) + s.init_weight == pytest.approx(1.0)
        assert min(s.weights) >= 0 and s.init_weight == 0.0  # default reading 'oldest' (PR13)
        saw_unequal |= max(s.weights) - min(s.weights) > 1e-9
    assert saw_unequal  # slow workers make some groups stale


def test_time_to_accuracy_trial():
    params = dict(scheme="partial", n=8, p=0.5, bandwidth_gbps=10.0, model_mb=10.0, trace="cnn",
                  duration_s=60.0, target_acc=0.8)
    out = time_to_accuracy.trial(params, np.random.SeedSequence(0))
    assert 0.8 <= out["final_acc"] <= 1.0
    assert 0 < out["time_to_target_s"] <= 60.0
    assert out["updates_to_target"] >= 1
    assert out["time_per_update_s"] == pytest.approx(out["time_to_target_s"] / out["updates_to_target"])
    never = time_to_accuracy.trial(dict(params, target_acc=1.0), np.random.SeedSequence(0))
    assert math.isnan(never["time_to_target_s"]) and math.isnan(never["updates_to_target"])
    with pytest.raises(ValueError, match="train_lrr"):
        time_to_accuracy.trial(dict(params, train_lrr=0.1), np.random.SeedSequence(0))


def test_time_to_accuracy_ladder_is_consistent_with_the_single_target():
    """The ladder columns are first hits of the same curve: never earlier for a higher target,
    and equal to ``time_to_target_s`` where the target is on the ladder."""
    params = dict(scheme="partial", n=8, p=0.5, bandwidth_gbps=10.0, model_mb=10.0, trace="cnn",
                  duration_s=60.0, target_acc=0.88)
    out = time_to_accuracy.trial(params, np.random.SeedSequence(1))
    times = [out[time_to_accuracy.ladder_column(a)] for a in time_to_accuracy.TARGET_LADDER]
    assert time_to_accuracy.ladder_column(0.88) == "time_to_acc88_s"
    assert out["time_to_acc88_s"] == out["time_to_target_s"]
    reached = [t for t in times if not math.isnan(t)]
    assert reached == sorted(reached) and reached            # monotone in the target
    assert all(math.isnan(t) for t in times[len(reached):])  # once missed, every higher target too
