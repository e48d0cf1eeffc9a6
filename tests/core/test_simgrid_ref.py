"""Cross-checks of simlib.core.simgrid_ref (SimGrid as a max-min reference) against
hand-computed analytic answers.

Skipped cleanly when SimGrid's Python bindings are not importable.
Units: bits, bit/s, seconds.  Each call spawns one SimGrid child process.
"""
import numpy as np
import pytest

from simlib.core.simgrid_ref import (
    multicast_completion_times,
    run_benchmark,
    simgrid_available,
    unicast_completion_times,
)

pytestmark = [
    pytest.mark.simgrid,
    pytest.mark.skipif(not simgrid_available(), reason="SimGrid Python bindings not importable"),
]

G = 1e9  # 1 Gbps
MB = 8e6  # 1 MB in bits
RTOL = 1e-9


def close(got, want):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=RTOL, atol=0)


# ---------------------------------------------------------------- unicast
@pytest.mark.parametrize("k", [1, 2, 5])
def test_k_equal_flows_on_one_link_finish_at_k_V_over_C(k):
    # k flows 0 -> 1..k: they share up[0] (10 Gbps); down links are faster.
    n = k + 1
    up = [10 * G] + [40 * G] * k
    down = [40 * G] * n
    V = 100 * MB
    flows = [(0, d, V, 0.0) for d in range(1, n)]
    close(unicast_completion_times(up, down, flows), [k * V / (10 * G)] * k)


def test_k_equal_flows_on_one_down_link():
    # 4 senders into host 0: down[0] = 4 Gbps is the bottleneck.
    up = [40 * G] * 5
    down = [4 * G] + [40 * G] * 4
    V = 50 * MB
    flows = [(s, 0, V, 0.0) for s in range(1, 5)]
    close(unicast_completion_times(up, down, flows), [4 * V / (4 * G)] * 4)


def test_shared_up_link_one_flow_bottlenecked_downstream():
    # Flows A: 0 -> 1 and B: 0 -> 2 share up[0] = 10 Gbps; down[1] = 2 Gbps.
    # Max-min: A gets 2 Gbps (its down link), B gets the rest, 8 Gbps.
    # V = 80 MB = 640 Mbit.  B done at 0.64e9/8e9 = 0.08 s; A then still
    # limited by down[1]: A done at 0.64e9/2e9 = 0.32 s.
    up = [10 * G, 10 * G, 10 * G]
    down = [10 * G, 2 * G, 10 * G]
    V = 80 * MB
    got = unicast_completion_times(up, down, [(0, 1, V, 0.0), (0, 2, V, 0.0)])
    close(got, [0.32, 0.08])


def test_shared_up_link_rate_change_after_departure():
    # up[0] = 10 Gbps shared by A: 0 -> 1 (down[1] = 4 Gbps) and B: 0 -> 2.
    # Phase 1: A 4 Gbps, B 6 Gbps.  V_B = 60 MB = 0.48 Gbit -> B done at 0.08 s,
    # A has sent 0.32 Gbit.  Phase 2: A alone, still 4 Gbps (down[1]),
    # V_A = 200 MB = 1.6 Gbit -> remaining 1.28 Gbit / 4 Gbps = 0.32 s -> 0.40 s.
    up = [10 * G] * 3
    down = [10 * G, 4 * G, 10 * G]
    got = unicast_completion_times(up, down, [(0, 1, 200 * MB, 0.0), (0, 2, 60 * MB, 0.0)])
    close(got, [0.40, 0.08])


def test_staggered_starts():
    # Two flows on the same path 0 -> 1 (bottleneck up[0] = 8 Gbps), V = 100 MB = 0.8 Gbit.
    # A starts at 0: alone until 0.05 s (sent 0.4 Gbit).  B starts at 0.05:
    # both at 4 Gbps; A's remaining 0.4 Gbit takes 0.1 s -> A done at 0.15 s,
    # B has then sent 0.4 Gbit; alone at 8 Gbps for 0.4 Gbit -> B done at 0.20 s.
    # C: 2 -> 3 starts at 1.0 on idle links: 1.0 + 0.8/8 = 1.1 s.
    up = [8 * G, 100 * G, 8 * G, 100 * G]
    down = [100 * G] * 4
    V = 100 * MB
    flows = [(0, 1, V, 0.0), (0, 1, V, 0.05), (2, 3, V, 1.0)]
    close(unicast_completion_times(up, down, flows), [0.15, 0.20, 1.1])


def test_zero_volume_and_input_order():
    up = [8 * G] * 3
    down = [8 * G] * 3
    flows = [(1, 2, 0.0, 0.5), (0, 1, 8 * MB, 0.25)]  # 64 Mbit / 8 Gbps = 8 ms
    close(unicast_completion_times(up, down, flows), [0.5, 0.258])


def test_fractional_bit_volumes_are_not_rounded_away():
    # 12.5 bits at 100 bit/s: 0.125 s (SimGrid wants integer bytes; see docstring).
    close(unicast_completion_times([100.0, 100.0], [100.0, 100.0], [(0, 1, 12.5, 0.0)]), [0.125])


def test_run_benchmark_returns_times_and_engine_seconds():
    up = [10 * G] * 3
    down = [10 * G, 2 * G, 10 * G]
    times, secs = run_benchmark(up, down, [(0, 1, 80 * MB, 0.0), (0, 2, 80 * MB, 0.0)])
    close(times, [0.32, 0.08])
    assert isinstance(secs, float) and 0.0 <= secs < 60.0
    times, secs, cpu = run_benchmark(up, down, [(0, 1, 80 * MB, 0.0), (0, 2, 80 * MB, 0.0)], cpu=True)
    close(times, [0.32, 0.08])
    assert isinstance(cpu, float) and 0.0 <= cpu < 60.0


def test_invalid_unicast_inputs():
    with pytest.raises(ValueError):
        unicast_completion_times([G, G], [G, G], [(0, 0, MB, 0.0)])
    with pytest.raises(ValueError):
        unicast_completion_times([G, G], [G, G], [(0, 2, MB, 0.0)])
    with pytest.raises(ValueError):
        unicast_completion_times([G, G], [G], [(0, 1, MB, 0.0)])
    with pytest.raises(ValueError):
        unicast_completion_times([G, 0.0], [G, G], [(0, 1, MB, 0.0)])
    with pytest.raises(ValueError):
        unicast_completion_times([G, G], [G, G], [(0, 1, -1.0, 0.0)])


# -------------------------------------------------------------- multicast
def test_multicast_limited_by_slowest_down_link():
    # 0 -> {1, 2, 3}; up[0] = 10 Gbps, downs 6 / 3 / 9 Gbps: one rate, 3 Gbps.
    # V = 75 MB = 0.6 Gbit -> 0.2 s.
    up = [10 * G] * 4
    down = [10 * G, 6 * G, 3 * G, 9 * G]
    close(multicast_completion_times(up, down, [(0, [1, 2, 3], 75 * MB, 0.0)]), [0.2])


def test_multicast_uses_up_link_once():
    # L3 multicast: up[0] carries the data ONCE.  up[0] = 4 Gbps, downs 5 Gbps:
    # rate 4 Gbps (naive ptask with one row per receiver would give 4/3 Gbps).
    # V = 50 MB = 0.4 Gbit -> 0.1 s.
    up = [4 * G] + [10 * G] * 3
    down = [10 * G] + [5 * G] * 3
    close(multicast_completion_times(up, down, [(0, [1, 2, 3], 50 * MB, 0.0)]), [0.1])


def test_multicast_limited_by_up_link():
    up = [2 * G] + [10 * G] * 3
    down = [10 * G] * 4
    close(multicast_completion_times(up, down, [(0, [1, 2, 3], 50 * MB, 0.0)]), [0.2])


def test_two_multicasts_sharing_a_down_link():
    # M1: 0 -> {2, 3}, M2: 1 -> {3, 4}; they share down[3] = 6 Gbps.
    # up[0] = 10, up[1] = 2 Gbps (M2 bottlenecked upstream at 2 Gbps), other
    # downs 10 Gbps.  Max-min on down[3]: M2 gets 2, M1 gets the rest, 4 Gbps.
    # V1 = 100 MB = 0.8 Gbit: M1 at 4 Gbps -> 0.2 s.
    # V2 = 50 MB = 0.4 Gbit at 2 Gbps -> 0.2 s as well; make V2 smaller to see
    # a rate change: V2 = 25 MB = 0.2 Gbit -> done at 0.1 s, by then M1 sent
    # 0.4 Gbit; M1 alone then gets min(10, 10, 6) = 6 Gbps: 0.4/6 s more.
    up = [10 * G, 2 * G, 10 * G, 10 * G, 10 * G]
    down = [10 * G, 10 * G, 10 * G, 6 * G, 10 * G]
    flows = [(0, [2, 3], 100 * MB, 0.0), (1, [3, 4], 25 * MB, 0.0)]
    close(multicast_completion_times(up, down, flows), [0.1 + 0.4 / 6, 0.1])


def test_two_equal_multicasts_split_shared_down_link_evenly():
    # Both bottlenecked on down[3] = 6 Gbps: 3 Gbps each, V = 75 MB = 0.6 Gbit -> 0.2 s.
    up = [10 * G] * 5
    down = [10 * G, 10 * G, 10 * G, 6 * G, 10 * G]
    flows = [(0, [2, 3], 75 * MB, 0.0), (1, [3, 4], 75 * MB, 0.0)]
    close(multicast_completion_times(up, down, flows), [0.2, 0.2])


def test_multicast_staggered_start_and_single_receiver():
    # Same path 0 -> {1, 2} twice (bottleneck up[0] = 8 Gbps), second starts at
    # 0.05 s: same arithmetic as the unicast staggered case -> 0.15 s and 0.20 s.
    # A single-receiver multicast 3 -> [1] alone on up[3] (8 Gbps) but sharing
    # down[1] (100 Gbps, not a bottleneck) finishes at 0.1 s.
    up = [8 * G, 100 * G, 100 * G, 8 * G]
    down = [100 * G] * 4
    V = 100 * MB
    flows = [(0, [1, 2], V, 0.0), (0, [1, 2], V, 0.05), (3, [1], V, 0.0)]
    close(multicast_completion_times(up, down, flows), [0.15, 0.20, 0.1])


def test_invalid_multicast_inputs():
    with pytest.raises(ValueError):
        multicast_completion_times([G] * 3, [G] * 3, [(0, [], MB, 0.0)])
    with pytest.raises(ValueError):
        multicast_completion_times([G] * 3, [G] * 3, [(0, [0, 1], MB, 0.0)])
    with pytest.raises(ValueError):
        multicast_completion_times([G] * 3, [G] * 3, [(0, [1, 1], MB, 0.0)])

