import pytest

from simlib.core.events import Simulator


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
