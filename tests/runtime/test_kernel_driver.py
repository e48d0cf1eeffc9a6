"""The resumable-kernel driver: a toy kernel in Python that stops whenever it lacks a draw or room."""
import numpy as np
import pytest

from simlib.runtime.kernel_driver import (DONE, FIRST_OWN, NEED_DRAWS, NEED_SPACE, STALLED, DrawBuffer,
                                          drive)


class Counter:
    """Worker w's k-th draw is 10 w + k (k = 0, 1, ...): easy to check order and completeness."""

    def __init__(self, n):
        self.k = [0] * n

    def next(self, w):
        self.k[w] += 1
        return 10.0 * w + self.k[w] - 1


class Taker(Counter):
    def take(self, w, k):
        return np.array([self.next(w) for _ in range(k)])


@pytest.mark.parametrize("source", [Counter, Taker])
def test_draw_buffer_doubles_and_keeps_each_workers_order(source):
    buf = DrawBuffer(source(3), 3, minimum=4, companions=1)
    assert buf.draws.shape == (3, 4) and buf.companion[0].shape == (3, 4)
    buf.companion[0][1, 2] = 7.0
    buf.grow()
    buf.grow()
    assert buf.draws.shape == (3, 16)
    np.testing.assert_array_equal(buf.draws, 10.0 * np.arange(3)[:, None] + np.arange(16))
    assert buf.companion[0][1, 2] == 7.0 and buf.companion[0][:, 4:].sum() == 0.0


def test_draw_buffer_minimum_must_be_positive():
    with pytest.raises(ValueError, match="minimum"):
        DrawBuffer(Counter(1), 1, minimum=0)


def test_drive_resumes_a_kernel_that_asks_for_draws_and_room():
    """The toy kernel logs each of 2 workers' first 50 draws; it stops (without doing anything)
    when it would read past the buffer or write past the log, as the compiled loops do."""
    n, total = 2, 50
    draws = DrawBuffer(Counter(n), n, minimum=1)
    log = {"w": np.zeros(0, np.int64), "d": np.zeros(0)}
    pos = {"used": np.zeros(n, np.int64), "rows": 0, "need": 0, "calls": 0}
    own = FIRST_OWN + 1
    served = []

    def step():
        pos["calls"] += 1
        while pos["rows"] < n * total:
            w = pos["rows"] % n
            if pos["rows"] == 7 and not served:
                return own
            if pos["used"][w] >= draws.draws.shape[1]:
                return NEED_DRAWS
            pos["need"] = pos["rows"] + 1
            if pos["need"] > log["w"].size:
                return NEED_SPACE
            log["w"][pos["rows"]] = w
            log["d"][pos["rows"]] = draws.draws[w, pos["used"][w]]
            pos["used"][w] += 1
            pos["rows"] += 1
        return DONE

    drive(step, draws=draws, columns=[(log, lambda: pos["need"], 4)], handlers={own: lambda: served.append(1)})
    assert served == [1]
    np.testing.assert_array_equal(log["w"][:n * total], np.tile(np.arange(n), total))
    np.testing.assert_array_equal(log["d"][:n * total], 10.0 * np.tile(np.arange(n), total)
                                  + np.repeat(np.arange(total), n))
    assert log["w"].size >= n * total and pos["calls"] < 30       # doubling: few resumptions


def test_drive_hook_runs_after_growing_columns():
    log = {"a": np.zeros(0)}
    seen = []
    status = iter([NEED_SPACE, DONE])
    drive(lambda: next(status), columns=[(log, lambda: 3, 1)], on_space=lambda: seen.append(log["a"].size))
    assert seen == [3]


def test_drive_raises_on_stall_and_unknown_status():
    with pytest.raises(RuntimeError, match="stopped at t = 1.5"):
        drive(lambda: STALLED, stalled=lambda: "stopped at t = 1.5 s")
    with pytest.raises(RuntimeError, match="unknown status 5"):
        drive(lambda: 5)
    with pytest.raises(ValueError, match="FIRST_OWN"):
        drive(lambda: DONE, handlers={3: lambda: None})
