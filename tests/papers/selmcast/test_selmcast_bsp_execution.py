"""Executing plans on the max-min big switch: hand-computed rates, and constraints (2)-(11) hold."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.selmcast.bsp import selmcast_bsp
from simlib.papers.selmcast.execute import check_plan, execute_plan, plan_model_time, port_loads
from simlib.papers.selmcast.optimal_flow import optimal_flow
from simlib.papers.selmcast.orpheus import orpheus_bsp


def plan(n, edges):
    x = np.zeros((n, n), dtype=bool)
    for i, j in edges:
        x[i, j] = True
    return x


def test_l3_multicast_runs_at_its_slowest_receiver():
    # sender 0 -> {1, 2}, v = 2 bits, ingress 4, egress 1 and 2 bit/s: one flow at min(4, 1, 2) = 1
    # -> done at 2 s.  L7: unicasts 0->1 at 1 (egress) and 0->2 at 2 (ingress 4 shared, 3 used):
    # done at 2 s and 1 s -> round 2 s.
    x = plan(3, [(0, 1), (0, 2)])
    b_in, b_eg = [4.0, 1.0, 1.0], [9.0, 1.0, 2.0]
    r3 = execute_plan(x, 2.0, b_in, b_eg, "L3")
    assert (r3.completion_s, r3.n_flows) == (pytest.approx(2.0), 1)
    r7 = execute_plan(x, 2.0, b_in, b_eg, "L7")
    assert (r7.completion_s, r7.n_flows) == (pytest.approx(2.0), 2)
    assert r7.sender_finish_s.tolist() == pytest.approx([2.0, 0.0, 0.0])


def test_two_multicasts_share_an_egress_max_min():
    # senders 0 and 1 both multicast to 2 (egress 2 bit/s); 0 also to 3 (egress 10).  v = 1.
    # Egress 2 is the bottleneck: each flow gets 1 bit/s (also on egress 3) -> both finish at 1 s.
    # Alone, sender 0 would finish at 0.5 s.
    x = plan(4, [(0, 2), (0, 3), (1, 2)])
    res = execute_plan(x, 1.0, [10.0] * 4, [10.0, 10.0, 2.0, 10.0], "L3")
    assert res.sender_finish_s.tolist() == pytest.approx([1.0, 1.0, 0.0, 0.0])
    alone = execute_plan(plan(4, [(0, 2), (0, 3)]), 1.0, [10.0] * 4, [10.0, 10.0, 2.0, 10.0], "L3")
    assert alone.completion_s == pytest.approx(0.5)


def test_port_loads_follow_eq9():
    x = plan(3, [(0, 1), (0, 2), (1, 0)])
    s3, r = port_loads(x, [2.0, 3.0, 5.0], "L3")
    s7, _ = port_loads(x, [2.0, 3.0, 5.0], "L7")
    assert s3.tolist() == [2.0, 3.0, 0.0]       # max_j v_i x_ij
    assert s7.tolist() == [4.0, 3.0, 0.0]       # sum_j v_i x_ij
    assert r.tolist() == [3.0, 2.0, 2.0]


def test_check_plan_names_the_violated_constraint():
    with pytest.raises(ValueError, match=r"\(3\)"):
        check_plan(plan(3, [(0, 1)]), 1)
    with pytest.raises(ValueError, match=r"\(4\)"):
        check_plan(np.eye(3, dtype=bool), 1)
    forced = plan(3, [(2, 0)])
    with pytest.raises(ValueError, match=r"\(5\)"):
        check_plan(plan(3, [(0, 1), (1, 0), (2, 1)]), 1, forced)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_executed_plans_satisfy_constraints_2_to_11(data):
    n = data.draw(st.integers(2, 8))
    bw = st.floats(0.5, 4.0)
    b_in = np.array(data.draw(st.lists(bw, min_size=n, max_size=n)))
    b_eg = np.array(data.draw(st.lists(bw, min_size=n, max_size=n)))
    p = data.draw(st.integers(1, n - 1))
    layer = data.draw(st.sampled_from(["L3", "L7"]))
    v = 1.0
    seed = data.draw(st.integers(0, 2**16))
    for x in (selmcast_bsp(b_in, b_eg, p, v, layer).x, orpheus_bsp(n, p, np.random.default_rng(seed)),
              optimal_flow(b_in, b_eg, p, v, layer).x):
        check_plan(x, p)                                     # (2)-(5)
        t = execute_plan(x, v, b_in, b_eg, layer).completion_s
        assert t > 0                                         # (8)
        s, r = port_loads(x, v, layer)
        assert np.all(s / t <= b_in * (1 + 1e-9))            # (6)/(10)
        assert np.all(r / t <= b_eg * (1 + 1e-9))            # (7)/(11)
        assert t >= plan_model_time(x, v, b_in, b_eg, layer) * (1 - 1e-9)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_equal_volumes_finish_exactly_at_the_model_time(data):
    # SM5: with equal v and a common start, per-flow max-min meets the bound of (10)-(11), so
    # SelMcast's executed time is its own estimate t (lines 15-20).
    n = data.draw(st.integers(2, 9))
    bw = st.floats(0.5, 4.0)
    b_in = np.array(data.draw(st.lists(bw, min_size=n, max_size=n)))
    b_eg = np.array(data.draw(st.lists(bw, min_size=n, max_size=n)))
    p = data.draw(st.integers(1, n - 1))
    layer = data.draw(st.sampled_from(["L3", "L7"]))
    x = orpheus_bsp(n, p, np.random.default_rng(data.draw(st.integers(0, 2**16))))
    assert execute_plan(x, 2.0, b_in, b_eg, layer).completion_s == \
        pytest.approx(plan_model_time(x, 2.0, b_in, b_eg, layer), rel=1e-9)
    plan = selmcast_bsp(b_in, b_eg, p, 2.0, layer)
    assert execute_plan(plan.x, 2.0, b_in, b_eg, layer).completion_s == pytest.approx(plan.t_est, rel=1e-9)


def test_unequal_volumes_can_miss_the_model_time():
    # SM5's caveat.  L7, v = [1, 3, 1, 1]; 0->2 (a, 1 bit), 1->2 (b, 3 bits), 1->3 (c, 3 bits);
    # ingress 1 = 3 bit/s, egress 2 = 2 bit/s, all other ports 10.  Model: ingress 1 carries 6 bits
    # at 3 -> 2 s; egress 2 carries 4 bits at 2 -> 2 s; t = 2.
    # Max-min: egress 2 is the first bottleneck, a = b = 1; c = 3 - 1 = 2.  At 1 s a is done
    # (b: 2 left, c: 1 left).  Then ingress 1 (3 / 2 = 1.5) binds before egress 2 (2): b = c = 1.5;
    # c done at 1 + 1/1.5 = 5/3 s, b has 2 - 1.5 * 2/3 = 1 bit left, then runs at 2 -> 5/3 + 1/2 = 13/6 s.
    x = plan(4, [(0, 2), (1, 2), (1, 3)])
    v = [1.0, 3.0, 1.0, 1.0]
    b_in, b_eg = [10.0, 3.0, 10.0, 10.0], [10.0, 10.0, 2.0, 10.0]
    assert plan_model_time(x, v, b_in, b_eg, "L7") == pytest.approx(2.0)
    assert execute_plan(x, v, b_in, b_eg, "L7").completion_s == pytest.approx(13 / 6)
