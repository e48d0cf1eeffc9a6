"""Model (12): the exact max-flow optimum against the HiGHS MILP, and hand-worked optima."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.selmcast.bsp import selmcast_bsp
from simlib.papers.selmcast.execute import check_plan, plan_model_time
from simlib.papers.selmcast.optimal_flow import optimal_flow
from simlib.papers.selmcast.optimal_milp import optimal_milp

BIG = 100.0


def test_three_workers_hand_optimum():
    # b_eg = [1, 1, 2], v = 1, p = 1, L3, ingress never binds (t >= 1/100).
    # t = 1/2: egress slots floor(t b) = 0, 0, 1 -> 1 < 3 receivers needed: infeasible.
    # t = 1:   slots 1, 1, 2 (total 4 >= 3), e.g. 0->2, 1->2, 2->0: feasible -> t* = 1.
    # Stage 2 at t = 1: at most 4 receivers (all slots); 0->{1,2}, 1->{2}, 2->{0} uses all 4.
    for solve in (optimal_flow, optimal_milp):
        res = solve([BIG] * 3, [1.0, 1.0, 2.0], 1, 1.0, "L3")
        assert res.t_star == pytest.approx(1.0)
        assert res.n_receivers == 4
        check_plan(res.x, 1)


def test_l7_optimum_is_bounded_by_the_slowest_ingress():
    # n = 4, every egress 10, ingress [1, 2, 2, 2], p = 2, v = 1, L7: sender 0 needs 2 copies at
    # 1 bit/s -> t* = 2.  At t = 2 the other senders have floor(2*2/1) = 4 > 3 slots: everyone can
    # send to all 3 others; sender 0 only 2 -> 3 * 3 + 2 = 11 receivers.
    res = optimal_flow([1.0, 2.0, 2.0, 2.0], [10.0] * 4, 2, 1.0, "L7")
    assert res.t_star == pytest.approx(2.0)
    assert res.n_receivers == 11
    milp = optimal_milp([1.0, 2.0, 2.0, 2.0], [10.0] * 4, 2, 1.0, "L7")
    assert (milp.t_star, milp.n_receivers, milp.proven) == (pytest.approx(2.0), 11, True)


def test_forced_pairs_raise_t_star():
    # b_eg = [1, 1, 2]: without D, t* = 1 (above).  Forcing 0->1 and 2->1 puts 2 models on
    # egress 1 (1 bit/s): t* = 2.
    forced = np.zeros((3, 3), dtype=bool)
    forced[0, 1] = forced[2, 1] = True
    res = optimal_flow([BIG] * 3, [1.0, 1.0, 2.0], 1, 1.0, "L3", forced=forced)
    assert res.t_star == pytest.approx(2.0)
    check_plan(res.x, 1, forced)


def test_unequal_volumes_are_rejected_by_the_flow_solver():
    with pytest.raises(ValueError, match="v must be equal"):
        optimal_flow([1.0] * 3, [1.0] * 3, 1, [1.0, 2.0, 1.0])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_flow_optimum_equals_the_milp(data):
    n = data.draw(st.integers(2, 6))
    bw = st.integers(1, 8).map(float)
    b_in = data.draw(st.lists(bw, min_size=n, max_size=n))
    b_eg = data.draw(st.lists(bw, min_size=n, max_size=n))
    p = data.draw(st.lists(st.integers(1, n - 1), min_size=n, max_size=n))
    layer = data.draw(st.sampled_from(["L3", "L7"]))
    forced = np.array(data.draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))).reshape(n, n)
    forced &= data.draw(st.booleans())
    np.fill_diagonal(forced, False)
    v = data.draw(st.sampled_from([1.0, 3.0, 8e6]))
    flow = optimal_flow(b_in, b_eg, p, v, layer, forced=forced)
    milp = optimal_milp(b_in, b_eg, p, v, layer, forced=forced, time_limit_s=30)
    assert milp.proven
    assert flow.t_star == pytest.approx(milp.t_star, rel=1e-9)
    assert flow.n_receivers == milp.n_receivers
    check_plan(flow.x, p, forced)
    assert plan_model_time(flow.x, v, b_in, b_eg, layer) == pytest.approx(flow.t_star, rel=1e-12)
    # no heuristic beats the optimum on t; at equal t none has more receivers
    heur = selmcast_bsp(b_in, b_eg, p, v, layer, forced=forced)
    t_h = plan_model_time(heur.x, v, b_in, b_eg, layer)
    assert t_h >= flow.t_star * (1 - 1e-12)
    if t_h <= flow.t_star * (1 + 1e-12):
        assert heur.x.sum() <= flow.n_receivers


def test_flow_optimum_on_random_paper_instances_matches_milp():
    from simlib.papers.selmcast.bandwidth import selmcast_bandwidths

    rng = np.random.default_rng(3)
    for layer in ("L3", "L7"):
        b_eg, b_in = selmcast_bandwidths(12, 40e9, 0.5, 1.0, rng)
        flow = optimal_flow(b_in, b_eg, 4, 1.6e9, layer)
        milp = optimal_milp(b_in, b_eg, 4, 1.6e9, layer)
        assert milp.proven
        assert flow.t_star == pytest.approx(milp.t_star, rel=1e-9)
        assert flow.n_receivers == milp.n_receivers


def test_milp_hitting_the_time_limit_says_so():
    from simlib.papers.selmcast.bandwidth import selmcast_bandwidths

    b_eg, b_in = selmcast_bandwidths(30, 40e9, 0.5, 1.0, np.random.default_rng(0))
    res = optimal_milp(b_in, b_eg, 9, 1.6e9, "L3", time_limit_s=0.05)
    assert not res.proven
    assert "time_limit" in (res.stage1.status, res.stage2.status if res.stage2 else "")
    if res.x is not None:        # the incumbent is a valid plan
        check_plan(res.x, 9)
        assert res.t_star >= optimal_flow(b_in, b_eg, 9, 1.6e9, "L3").t_star * (1 - 1e-9)
    else:
        assert np.isnan(res.t_star) and res.stage2 is None


def test_milp_rejects_bad_time_limit():
    with pytest.raises(ValueError, match="time_limit_s must be in"):
        optimal_milp([1.0] * 3, [1.0] * 3, 1, 1.0, time_limit_s=0)
