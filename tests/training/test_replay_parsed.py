"""A log read once for several replays (decision RP29: ``replay.parse_log``, ``ParsedLog``) and the parameter
server's one-member applies and one-target pulls (``_Server.apply`` / ``pull``, issue 48, branch replay13): the
same curves, replicas and models bit for bit as the replay that reads its log itself."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from simlib.runtime.log import ScheduleLog, SyncRecord
from simlib.training import replay as rp
from simlib.training.replay import Numerics, ParsedLog, StepRule, parse_log, replay

SYSTEMS = ("allreduce", "partial", "eager", "adpsgd", "ps-bsp", "ps-asp", "ps-hete", "ps-backup")


def _log(scheme: str, seed: int, n: int = 5, duration: float = 12.0, model_mb: float = 20.0):
    from simlib.papers.cluster_scenario import Scenario, simulate

    sc = Scenario.from_params(dict(scheme=scheme, n=n, hl=2, p=0.6, backups=1, bandwidth_gbps=1.0, model_mb=model_mb,
                                   trace="cnn", duration_s=duration))
    return simulate(sc, seed)


def _same(a, b):
    """Two ReplayResults equal bit for bit: every curve column's bytes, the replicas, the model, the calls."""
    assert list(a.curve.columns) == list(b.curve.columns)
    for c in a.curve.columns:
        x, y = a.curve[c].to_numpy(), b.curve[c].to_numpy()
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), c
    assert a.final_params.dtype == b.final_params.dtype
    assert a.final_params.tobytes() == b.final_params.tobytes()
    assert a.final_model.tobytes() == b.final_model.tobytes()
    assert a.grad_calls == b.grad_calls


# the trainings one parsed log serves, in turn: (model, dtype, lr, batch, momentum, stop_acc, one_at_a_time)
TRAININGS = (("mlp-relu", "float32", 0.05, 16, 0.0, None, False),
             ("softmax", "float64", 0.3, 8, 0.9, None, False),
             ("mlp-relu", "float32", 0.1, 32, 0.5, 0.35, False),
             ("softmax", "float64", 0.2, 8, 0.0, None, True))


def _replay(log, tr, unfinished="apply"):
    model, dtype, lr, batch, mom, stop, one = tr
    return replay(log, "digits", model=model, lr=lr, batch_size=batch, eval_every_s=1.5, seed=5,
                  steps=StepRule(momentum=mom), unfinished=unfinished, stop_acc=stop,
                  numerics=Numerics(dtype=dtype, one_at_a_time=one))


@pytest.mark.parametrize("scheme", SYSTEMS)
def test_one_parse_serves_every_training_as_the_log_itself(scheme):
    """A simulated log of each system, parsed once, replayed with four trainings (MLP float32 and softmax
    float64, momentum, early stop, one at a time), then the first again: each equal to the replay of the plain log."""
    log = _log(scheme, seed=sum(map(ord, scheme)))
    parsed = parse_log(log)
    for tr in TRAININGS + TRAININGS[:1]:
        _same(_replay(parsed, tr), _replay(log, tr))


@pytest.mark.parametrize("scheme", ["ps-bsp", "allreduce", "partial"])
def test_unfinished_drop_parsed_and_a_mismatch_refused(scheme):
    """A run cut while syncs are in flight, parsed with ``unfinished="drop"``: its replays equal the plain ones
    (the dropped records are marked in the parse); a replay asking for the other handling is refused."""
    log = _log(scheme, seed=3, duration=9.1, model_mb=100.0)      # 0.8 s a transfer: some in flight at the end
    assert any(r.finish is None for r in log.syncs)
    drop = parse_log(log, unfinished="drop")
    _same(_replay(drop, TRAININGS[1], "drop"), _replay(log, TRAININGS[1], "drop"))
    assert not drop.sy.apply.all() and parse_log(log).sy.apply.all()      # the dropped records marked
    with pytest.raises(ValueError, match="parsed with unfinished='drop'"):
        _replay(drop, TRAININGS[1], "apply")


def test_a_parsed_log_reads_as_its_log_and_parses_to_the_replays_arrays():
    """``ParsedLog`` exposes its log's fields; its arrays are those the replay reads from the log itself (the
    flat records, the computing members, the sorted events); parsing a parsed log parses its log."""
    log = _log("adpsgd", seed=8)
    parsed = parse_log(log)
    assert (parsed.n, parsed.duration, parsed.compute_end, parsed.syncs, parsed.update_rule) == \
        (log.n, log.duration, log.compute_end, log.syncs, "average")
    n, duration, ends = rp._check_log(log)
    sy = rp._parse_syncs(n, duration, ends, list(log.syncs), "apply")
    for f in ("launch", "ptr", "mem", "its", "w", "c", "tptr", "tgt", "apply"):
        assert np.array_equal(getattr(parsed.sy, f), getattr(sy, f)), f
    assert parsed.computing is not None and parsed.computing == rp._computing(log.syncs)
    for a, b in zip(parsed.events, rp._event_order(n, ends, sy)):
        assert np.array_equal(a, b)
    again = parse_log(parsed)
    assert again.log is log and isinstance(again, ParsedLog)
    ps = parse_log(_log("ps-asp", seed=8))
    assert ps.update_rule == "gradient" and ps.events is None and ps.computing is None


def test_parse_log_raises_the_replays_errors():
    """A bad record is refused by ``parse_log`` with the message the replay gives."""
    log = ScheduleLog(n=2, duration=3.0, bandwidth=np.ones(2), compute_end=[[1.0, 2.0], [1.5]])
    log.syncs.append(SyncRecord(1.2, (0, 0), (1, 1)))
    with pytest.raises(ValueError) as plain:
        replay(log, "digits", model="softmax")
    with pytest.raises(ValueError) as once:
        parse_log(log)
    assert str(once.value) == str(plain.value) and "members must be distinct" in str(plain.value)
    with pytest.raises(ValueError, match="unfinished"):
        parse_log(_log("allreduce", seed=1), unfinished="keep")


def test_search_together_reads_each_schedule_once(monkeypatch):
    """RP29 in RP24's grouped task (S39): three candidates on one system in one stage read its log once (three
    replays, one parse), and each output is still the run's alone."""
    from simlib.training import task_search as ts

    calls = []
    parse = rp._parse_syncs
    monkeypatch.setattr(rp, "_parse_syncs", lambda *a: calls.append(1) or parse(*a))
    cands = [ts.TaskCandidate("mlp-relu", d, b) for d, b in (("sharded", 32), ("iid", 20), ("iid", 32))]
    sets = [dict(dict(scheme="ps-asp", n=4, hl=1, p=3, backups=1, trace="cnn", duration_s=30.0, bandwidth_gbps=10.0,
                      **c.training(0.99), curve_every_s=30.0, early_stop=True), problem="digits") for c in cands]
    monkeypatch.setattr(ts, "SEARCH_FIRST_STAGE", {"mlp-relu": 1.0})     # one stage: one schedule
    together = ts.search_together(sets, np.random.SeedSequence(4))
    assert len(calls) == 1
    calls.clear()
    for s, out in zip(sets, together):
        alone = ts.search_trial(s, np.random.SeedSequence(4))
        assert {k: repr(v) for k, v in out.items()} == {k: repr(v) for k, v in alone.items()}
    assert len(calls) == 3


# ------------------------------------------------------------- the server's one-member applies and pulls
_FLOATS = dict(allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float32, np.float64]), n=st.integers(1, 6),
       d=st.integers(1, 300))
def test_a_one_member_push_on_its_row_view_is_the_gathered_product(data, dtype, n, d):
    """``_Server.apply``'s one-member path takes ``w @ acc[m:m + 1]`` (a view at any row offset, so any
    alignment) where the general path takes ``w @ acc[[m]]`` (a fresh copy), and ``xs -= lr · d`` with the
    product written into ``d``: the same bytes, for values with ±0, subnormals, ±inf and NaN."""
    el = st.floats(width=32 if dtype == np.float32 else 64, **_FLOATS)
    acc = data.draw(hnp.arrays(dtype, (n, d), elements=el))
    xs = data.draw(hnp.arrays(dtype, (d,), elements=el))
    w = np.array([data.draw(el)], dtype=dtype)
    step = dtype(data.draw(st.sampled_from([0.1, 0.05, 1.0, -0.0, 3e-39])))
    m = data.draw(st.integers(0, n - 1))
    ref, got = acc[[m]], acc[m:m + 1]
    with np.errstate(all="ignore"):             # inf and NaN are among the values
        d_ref, d_got = w @ ref, w @ got
        assert d_ref.tobytes() == d_got.tobytes()
        x_ref, x_got = xs.copy(), xs.copy()
        x_ref -= step * d_ref
        x_got -= np.multiply(step, d_got, out=d_got)
    assert x_ref.tobytes() == x_got.tobytes()


def test_ps_replays_with_one_member_records_equal_the_general_path(monkeypatch):
    """The PS logs' records have one member and one target (the row paths); replayed with those paths off
    (``_ONE_ROW = False``: every record through the gathered statements, as before), the curves and replicas are
    the same bytes, with and without momentum, in both dtypes and one at a time.  Fails when a row path forgets
    the pending gradients' flush, the accumulator's reset or the pull."""
    logs = [_log(s, seed=21) for s in ("ps-asp", "ps-bsp", "ps-backup", "ps-hete")]
    assert all(len(r.members) == 1 for lg in logs for r in lg.syncs if r.weights is not None)
    assert all(r.targets is None or len(r.targets) == 1 for lg in logs for r in lg.syncs)
    rows = [[_replay(lg, tr) for tr in TRAININGS] for lg in logs]
    monkeypatch.setattr(rp, "_ONE_ROW", False)
    for lg, outs in zip(logs, rows):
        for tr, out in zip(TRAININGS, outs):
            _same(_replay(lg, tr), out)
