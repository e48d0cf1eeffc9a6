import math

import pytest

from simlib.core.events import NoProgressError, Simulator


def test_events_run_in_time_order_with_fifo_ties():
    sim = Simulator()
    log = []
    sim.schedule(2.0, log.append, "c")
    sim.schedule(1.0, log.append, "a")
    sim.schedule(1.0, log.append, "b")  # same time: scheduling order
    sim.schedule(0.0, log.append, "first")
    sim.run()
    assert log == ["first", "a", "b", "c"]
    assert sim.now == 2.0


def test_cancelled_timer_never_fires_and_run_until_stops_clock():
    sim = Simulator()
    log = []
    t = sim.schedule(1.0, log.append, "x")
    sim.schedule(3.0, log.append, "late")
    t.cancel()
    assert sim.run(until=2.0) == 2.0
    assert log == []
    assert not t.pending
    sim.run()
    assert log == ["late"]


def test_events_scheduled_from_callbacks_at_same_time_run_after_pending_ones():
    sim = Simulator()
    log = []

    def first():
        log.append("first")
        sim.schedule(0.0, log.append, "child")

    sim.schedule(1.0, first)
    sim.schedule(1.0, log.append, "sibling")
    sim.run()
    assert log == ["first", "sibling", "child"]


def test_stop_halts_run():
    sim = Simulator()
    log = []
    sim.schedule(1.0, lambda: (log.append(1), sim.stop()))
    sim.schedule(2.0, log.append, 2)
    sim.run()
    assert log == [1] and sim.now == 1.0


@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_negative_delay_is_rejected_naming_parameter(bad):
    sim = Simulator()
    with pytest.raises(ValueError, match="delay"):
        sim.schedule(bad, lambda: None)


def test_schedule_at_in_the_past_is_rejected():
    sim = Simulator(start=5.0)
    with pytest.raises(ValueError, match="time"):
        sim.schedule_at(4.0, lambda: None)


def test_postponed_timer_runs_as_if_cancelled_and_rescheduled():
    # reference: cancel + schedule anew; postponed: one timer moved twice.  Both must give the
    # same order, including the tie at t = 3 with an event scheduled before the move (runs
    # first) and one scheduled after it (runs after).
    def scenario(move):
        sim = Simulator()
        log = []
        t = sim.schedule(1.0, log.append, "timer")
        sim.schedule(3.0, log.append, "early-tie")

        def at(now_label, delay):
            nonlocal t
            t = move(sim, t, delay)
            log.append(now_label)

        sim.schedule(0.5, at, "move1", 1.0)      # due 1.5
        sim.schedule(1.2, at, "move2", 1.8)      # due 3.0, ranked after early-tie
        sim.schedule(2.0, lambda: sim.schedule(1.0, log.append, "late-tie"))
        sim.run(until=2.9)
        assert sim.now == 2.9 and "timer" not in log
        sim.run()
        return log

    def cancel_and_schedule(sim, t, delay):
        t.cancel()
        return sim.schedule(delay, t.callback, *t.args)

    def postpone(sim, t, delay):
        sim.postpone(t, delay)
        return t

    expected = ["move1", "move2", "early-tie", "timer", "late-tie"]
    assert scenario(cancel_and_schedule) == expected
    assert scenario(postpone) == expected


def test_postpone_rejects_moving_earlier_and_finished_timers():
    sim = Simulator()
    t = sim.schedule(2.0, lambda: None)
    with pytest.raises(ValueError, match="^delay must not move the timer earlier"):
        sim.postpone(t, 1.0)
    sim.run()
    with pytest.raises(ValueError, match="^timer must be pending"):
        sim.postpone(t, 1.0)


def test_a_loop_of_zero_delay_events_is_an_error_naming_the_instant():
    sim = Simulator(max_events_per_instant=50)

    def again():
        sim.schedule(0.0, again)

    sim.schedule(2.5, again)
    with pytest.raises(NoProgressError, match=r"more than 50 events in a row at t = 2.5 s \(next: .*again\)"):
        sim.run(until=10.0)
    assert sim.events_run == 50 and sim.now == 2.5


def test_a_delay_below_the_clocks_resolution_is_a_loop_without_progress():
    """t + d == t once d < ulp(t) / 2: the selective controller's Δt timer at --dt 1e-20 (issue 34)."""
    sim = Simulator(max_events_per_instant=1000)

    def tick():
        sim.schedule(1e-20, tick)

    sim.schedule(1.0, tick)
    with pytest.raises(NoProgressError, match="below the clock's resolution"):
        sim.run(until=2.0)
    assert sim.now == 1.0 and sim.events_run == 1000
    # one ulp of the last instant always advances the clock: the boundary the CLI checks
    t = 100.0
    assert all(x + math.ulp(t) > x for x in (t, math.nextafter(t, 0), 1.0, 1e-300, 0.0))


def test_bursts_at_one_instant_up_to_the_limit_and_advancing_loops_run():
    sim = Simulator(max_events_per_instant=3)
    fired = []
    for _ in range(3):
        sim.schedule(1.0, fired.append, 1.0)
    count = [0]

    def step():                         # 1,000 events, each later than the last
        count[0] += 1
        if count[0] < 1000:
            sim.schedule(1e-3, step)

    sim.schedule(2.0, step)
    sim.run()
    assert fired == [1.0] * 3 and count[0] == 1000
    with pytest.raises(ValueError, match=r"max_events_per_instant must be an integer in \[1, inf\)"):
        Simulator(max_events_per_instant=0)


from hypothesis import given, settings, strategies as st  # noqa: E402

_actions = st.lists(st.tuples(st.sampled_from(["delay", "at", "cancel", "postpone", "spawn"]),
                              st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.25, math.inf])), min_size=1, max_size=40)


def _trace(actions, until, drive):
    """Events (time, id) fired when ``actions`` build a schedule (callbacks spawn more) and ``drive``
    runs it to ``until``."""
    sim, fired, timers = Simulator(), [], []

    def cb(i, spawn):
        fired.append((sim.now, i))
        if spawn is not None:
            timers.append(sim.schedule(spawn, cb, 1000 + i, None))

    for i, (kind, x) in enumerate(actions):
        if kind == "delay":
            timers.append(sim.schedule(x, cb, i, None))
        elif kind == "at":
            timers.append(sim.schedule_at(x, cb, i, None))
        elif kind == "spawn":
            timers.append(sim.schedule(x, cb, i, 0.25))
        elif timers and kind == "cancel":
            timers[i % len(timers)].cancel()
        elif timers and timers[i % len(timers)].pending and math.isfinite(x):
            t = timers[i % len(timers)]
            if sim.now + x >= (t.due or (t.time,))[0]:
                sim.postpone(t, x)
    end = drive(sim, until)
    return fired, end, sim.events_run


def _step_by_step(sim, until):
    """The reference: peek() and step() one event at a time."""
    while sim.peek() <= until and sim.step():
        pass
    if until != math.inf:
        sim.now = until
    return sim.now


@settings(max_examples=200, deadline=None)
@given(actions=_actions, until=st.sampled_from([0.0, 1.0, 2.0, 10.0]))
def test_run_fires_what_peek_and_step_fire_in_the_same_order(actions, until):
    assert _trace(actions, until, lambda s, u: s.run(until=u)) == _trace(actions, until, _step_by_step)
