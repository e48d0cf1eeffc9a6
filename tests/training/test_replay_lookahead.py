"""The gradient look-ahead (decision RP28, ``replay.AHEAD_MAX_N``): a batched gradient call also takes the next
iteration's gradient of every worker whose replica is final until then.  Only the number of calls may change: every
curve, replica and model is the one without it and the one of the one-at-a-time reference, bit for bit, on simulated
schedules of every system of notebook 22's Table 1 (both update rules), with momentum, early stop and both dtypes."""
import numpy as np
import pandas as pd
import pytest

import simlib.training.replay as rp
from simlib.papers.cluster_scenario import Scenario, simulate
from simlib.training.learning import load_problem
from simlib.training.replay import Numerics, StepRule, replay


@pytest.fixture(scope="module")
def digits():
    return load_problem("digits")


def _log(scheme, seed, n=8, duration=20.0, hl=2):
    """A simulated schedule; ``"partial-dynamic"``: partial reduce with 002's dynamic weights."""
    extra = {"weights": "dynamic"} if scheme == "partial-dynamic" else {}
    return simulate(Scenario.from_params(dict(scheme=scheme.replace("-dynamic", ""), n=n, hl=hl, bandwidth_gbps=1.0,
                                              model_mb=20.0, trace="cnn", duration_s=duration, **extra)), seed)


def _same(a, b):
    pd.testing.assert_frame_equal(a.curve, b.curve, check_exact=True)
    np.testing.assert_array_equal(a.final_params, b.final_params)
    np.testing.assert_array_equal(a.final_model, b.final_model)


def _three(monkeypatch, log, digits, dtype="float32", **kw):
    """(look-ahead, none, one at a time) replays of ``log``."""
    ahead = replay(log, digits, numerics=Numerics(dtype=dtype), **kw)
    monkeypatch.setattr(rp, "AHEAD_MAX_N", 0)
    plain = replay(log, digits, numerics=Numerics(dtype=dtype), **kw)
    single = replay(log, digits, numerics=Numerics(dtype=dtype, one_at_a_time=True), **kw)
    monkeypatch.setattr(rp, "AHEAD_MAX_N", 32)
    return ahead, plain, single


@pytest.mark.parametrize("scheme,seed", [("ps-asp", 0), ("ps-hete", 1), ("ps-backup", 2), ("ps-bsp", 3), ("eager", 4),
                                         ("partial", 5), ("partial-dynamic", 6), ("allreduce", 7), ("selective", 8)])
@pytest.mark.parametrize("model,dtype", [("mlp-relu", "float32"), ("softmax", "float64")])
def test_look_ahead_changes_no_value(monkeypatch, digits, scheme, seed, model, dtype):
    log = _log(scheme, seed)
    ahead, plain, single = _three(monkeypatch, log, digits, dtype, model=model, lr=0.1, seed=seed, eval_every_s=0.5)
    _same(ahead, plain)
    _same(ahead, single)
    assert ahead.grad_calls <= plain.grad_calls


def test_the_asynchronous_server_takes_far_fewer_calls(monkeypatch, digits):
    """PS ASP at n = 8: each push used to take its own call (batches of ~1.4 workers); most gradients of the other
    workers' next iterations are ready at a call, their replicas pulled already."""
    log = _log("ps-asp", 11, duration=40.0)
    ahead, plain, _ = _three(monkeypatch, log, digits, model="mlp-relu", lr=0.1, seed=1)
    _same(ahead, plain)
    assert ahead.grad_calls < plain.grad_calls / 2


@pytest.mark.parametrize("scheme", ["ps-asp", "partial", "eager"])
def test_with_momentum_and_early_stop(monkeypatch, digits, scheme):
    log = _log(scheme, 12, duration=40.0)
    kw = dict(model="mlp-relu", lr=0.1, seed=3, eval_every_s=0.5, stop_acc=0.6, steps=StepRule(momentum=0.9))
    ahead, plain, single = _three(monkeypatch, log, digits, **kw)
    assert ahead.curve.test_acc.iloc[-1] >= 0.6 and ahead.curve.time_s.iloc[-1] < 40.0
    _same(ahead, plain)
    _same(ahead, single)


def test_larger_clusters_and_the_switch(monkeypatch, digits):
    """Above AHEAD_MAX_N workers the look-ahead is off (the same calls); at or below it, on."""
    log = _log("partial", 13, n=12, duration=10.0)
    monkeypatch.setattr(rp, "AHEAD_MAX_N", 11)
    off = replay(log, digits, model="softmax", seed=2)
    monkeypatch.setattr(rp, "AHEAD_MAX_N", 12)
    on = replay(log, digits, model="softmax", seed=2)
    monkeypatch.setattr(rp, "AHEAD_MAX_N", 0)
    zero = replay(log, digits, model="softmax", seed=2)
    _same(on, off)
    assert off.grad_calls == zero.grad_calls > on.grad_calls


def _free_at_reference(n, sy, ev_k, ev_id, kind):
    """Event by event: the last position of a ``kind`` event targeting each worker, read at its compute ends."""
    last, out = [-1] * n, [[] for _ in range(n)]
    for p, (k, i) in enumerate(zip(ev_k.tolist(), ev_id.tolist())):
        if k == 0:
            out[i].append(last[i])
        elif k == kind:
            for w in sy.tgt[sy.tptr[i]:sy.tptr[i + 1]].tolist():
                last[w] = p
    return out


@pytest.mark.parametrize("scheme,seed", [("ps-asp", 0), ("ps-backup", 1), ("eager", 2), ("partial", 3),
                                         ("allreduce", 4), ("adpsgd", 5)])
def test_free_at_is_the_last_change_before_each_compute_end(scheme, seed):
    log = _log(scheme, seed, duration=15.0)
    n, duration, ends = rp._check_log(log)
    sy = rp._parse_syncs(n, duration, ends, list(log.syncs), "apply")
    if getattr(log, "update_rule", "average") == "gradient":
        _, ev_k, ev_id = rp._gradient_events(n, ends, log.syncs, sy, [duration])
        kind = 2
    else:
        _, ev_k, ev_id = rp._event_order(n, ends, sy)
        kind = 1
    got = rp._free_at(n, sy, ev_k, ev_id, kind)
    assert got == _free_at_reference(n, sy, ev_k, ev_id, kind)
    assert [len(g) for g in got] == [e.size for e in ends]
    assert any(f >= 0 for g in got for f in g)
