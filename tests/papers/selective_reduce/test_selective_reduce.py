"""Selective reduce controller logic: seed 000 Algorithms 1-3, hand-worked.

Fig. 3 (§II-D) is replayed at the algorithm level; every other number below is
worked out by hand in the comments next to it.  Decision ids SRn refer to
docs/decisions/selective_reduce_algorithms.md.
"""
import dataclasses
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.costmodels import ring_allreduce_time
from simlib.papers.selective_reduce.algorithms import (
    BpawrDecision,
    bag,
    bpawr,
    expected_bandwidth,
    expected_new_worker_num,
    plan_round,
    predict_workers,
)


def never_called(ids, elapsed, dt):
    raise AssertionError("completion_prob must not be called here")


def prob_table(table):
    """completion_prob that looks p_i up by worker id (ignores elapsed and dt)."""
    def f(ids, elapsed, dt):
        return np.array([table[i] for i in ids.tolist()], dtype=float)
    return f


# =========================================================================== Fig. 3
# Five workers, model v = 5 units, alpha ~ 0, sync time 2v / min b.  All start
# the round at 0 s, so a worker's elapsed time at instant t is t, and the oracle
# knows each one's ready time: p_i = 1 if ready_i <= elapsed + dt else 0
# (F(t_i + dt) of a point mass at ready_i, Alg. 2 line 26).
FIG3_BW = {1: 1.0, 2: 5.0, 3: 1.0, 4: 5.0, 5: 5.0}      # w5: ">= 1", take 5
FIG3_READY = {1: 1.0, 2: 2.0, 3: 3.0, 4: 3.0, 5: 13.0}
FIG3_V = 5.0


def fig3_oracle(ids, elapsed, dt):
    return np.array([1.0 if FIG3_READY[i] <= e + dt else 0.0
                     for i, e in zip(ids.tolist(), elapsed.tolist())])


def fig3_pass(now, queue, **kw):
    """One Alg. 3 pass at time ``now`` with ready queue ``queue`` (FIFO)."""
    train = [w for w in FIG3_BW if w not in queue]
    args = dict(p=2, eta=0.3, theta=1.0, dt=1.0, v=FIG3_V, completion_prob=fig3_oracle)
    args.update(kw)
    return plan_round(queue, [FIG3_BW[w] for w in queue], train, [FIG3_BW[w] for w in train],
                      [now] * len(train), **args)


def test_fig3e_bag_groups_by_bandwidth_at_3s():
    # L = w2(5), w4(5), w1(1), w3(1) (w2 before w4: queue order on the tie).
    # base [w2, w4], b* = 0.7 * 5 = 3.5; w1: 1 < 3.5 closes the group;
    # base [w1, w3].  Fig. 3(e): {w2, w4} and {w1, w3}.
    G = bag([1, 2, 3, 4], [1, 5, 1, 5], p=2, eta=0.3)
    assert G == [[2, 4], [1, 3]]
    times = [ring_allreduce_time([FIG3_BW[w] for w in g], FIG3_V, form="example") for g in G]
    assert times == [2.0, 10.0]
    assert sum(times) / len(times) == 6.0            # avg(CT) = (2 + 10) / 2 = 6 s
    # the printed line 6 (len(g) <= p) takes a base of 3 and then extends:
    # w2, w4, w1 (b* = 0.7), w3: 1 >= 0.7 -> one group of 4, i.e. Fig. 3(d)'s scale.
    assert bag([1, 2, 3, 4], [1, 5, 1, 5], p=2, eta=0.3, base_rule="pseudocode") == [[2, 4, 1, 3]]


def test_fig3_at_2s_waits_for_w3_w4_instead_of_launching_w1_w2():
    # t = 2 s: Q = [w1, w2]; S = {w3 (b 1), w4 (b 5), w5 (b 5)}, elapsed 2 s each.
    # Alg. 3 l.11: BAG -> L = w2(5), w1(1), base of p = 2 -> G = [[w2, w1]].
    # Alg. 2 l.5: b_hat = 1.  l.25: b_i > 1 keeps w4, w5 (w3: 1 is not > 1).
    #   l.26: w4 ready at 3 <= 2 + 1 -> p = 1;  w5 ready at 13 > 3 -> p = 0.
    # l.7: S = {w3}.  l.8: k = floor(1 + 0) = 1.  l.9: b = (1*5 + 0*5) / 1 = 5.
    # l.11-13: L = [w2(5), w1(1), v(5)] sorted w2, v, w1 (real first on the tie);
    #   base [w2, v], b* = 3.5, w1: 1 < 3.5 -> G = [[w2, v], [w1]], g* = [w2, v].
    # l.14: g_Delta = {w1}.  l.15: t_X = 2*5/1 - 2*5/5 = 10 - 2 = 8 > theta dt = 1
    #   -> wait and replace: no launch.  g_1 is the last group: nothing moves,
    #   the whole group is held.
    plan = fig3_pass(2.0, [1, 2])
    assert plan.groups == ((2, 1),)
    assert plan.launch == ()
    assert plan.held == (2, 1)
    (d,) = plan.decisions
    assert d == BpawrDecision(launch=False, moved=(1,), reason="wait_replace", k=1, b_virtual=5.0,
                              expected_new=1.0, t_x=8.0, checked=(4, 5), remaining=None)
    assert plan.remaining.tolist() == [True, False, False]          # S = {w3} over train [w3, w4, w5]
    # tx_form="eq2" (alpha = 0): T(g) = 2 (1/2) 5/1 = 5, T(g*) = 2 (1/2) 5/5 = 1 -> 4 > 1, same decision
    d2 = fig3_pass(2.0, [1, 2], tx_form="eq2").decisions[0]
    assert (d2.reason, d2.t_x) == ("wait_replace", 4.0)
    # theta dt = 8 is not exceeded by t_X = 8 (strict, line 16): launch {w2, w1} as partial reduce would
    assert fig3_pass(2.0, [1, 2], theta=8.0).launch == ((2, 1),)
    assert fig3_pass(2.0, [1, 2], theta=7.99).launch == ()


def test_fig3_at_2s_pseudocode_base_rule_launches_immediately():
    # base p + 1 = 3: L = [w2, w1, v] is one base -> g* = [w2, v, w1] contains g,
    # g_Delta = {}, t_X = 10 - 10 = 0 -> launch {w2, w1} at 2 s (Fig. 3(c), 10 s).
    plan = fig3_pass(2.0, [1, 2], base_rule="pseudocode")
    assert plan.launch == ((2, 1),)
    (d,) = plan.decisions
    assert (d.reason, d.k, d.b_virtual, d.t_x, d.moved) == ("launch", 1, 5.0, 0.0, ())


def test_fig3_at_3s_first_pass_with_w3_only_still_waits_for_w4():
    # Alg. 3 l.24 pushes one worker per loop: at 3 s first w3 arrives.
    # Q = [w1, w2, w3]; S = {w4 (b 5, elapsed 3, ready at 3), w5}.
    # BAG: w2(5), w1(1), w3(1): base [w2, w1], b* = 0.7, w3: 1 >= 0.7 -> [[w2, w1, w3]].
    # b_hat = 1; C = [w4 (3 <= 4: p = 1), w5 (13 > 4: p = 0)]; S = {}; k = 1, b = 5.
    # L = [w2, w1, w3, v] sorted w2, v, w1, w3: base [w2, v], b* = 3.5, w1 < 3.5
    #   -> g* = [w2, v], g_Delta = (w1, w3), t_X = 10 - 2 = 8 > 1 -> wait and replace.
    plan = fig3_pass(3.0, [1, 2, 3])
    assert plan.groups == ((2, 1, 3),)
    assert plan.launch == ()
    assert plan.held == (2, 1, 3)
    (d,) = plan.decisions
    assert (d.reason, d.moved, d.k, d.b_virtual, d.t_x, d.checked) == (
        "wait_replace", (1, 3), 1, 5.0, 8.0, (4, 5))
    # eq2: T(g) = 2 (2/3) 5/1 = 20/3, T(g*) = 1 -> 17/3
    assert fig3_pass(3.0, [1, 2, 3], tx_form="eq2").decisions[0].t_x == pytest.approx(17 / 3)


def test_fig3e_at_3s_launches_both_bandwidth_aware_groups():
    # Q = [w1, w2, w3, w4]; S = {w5 (b 5, elapsed 3, ready at 13)}.
    # G = [[w2, w4], [w1, w3]] (see the BAG test).
    # g_1 = [w2, w4]: b_hat = 5; w5: 5 is not > 5 -> C = {}, k = 0, b = 0 (sum p = 0);
    #   g* = g, t_X = 0 <= 1 -> launch.
    # g_2 = [w1, w3]: b_hat = 1; C = [w5] with p = 0 (13 > 3 + 1); S = {}; k = 0;
    #   g* = g, t_X = 0 -> launch.
    plan = fig3_pass(3.0, [1, 2, 3, 4])
    assert plan.launch == ((2, 4), (1, 3))
    assert plan.held == ()
    d1, d2 = plan.decisions
    assert d1 == BpawrDecision(True, (), "launch", 0, 0.0, 0.0, 0.0, (), None)
    assert d2 == BpawrDecision(True, (), "launch", 0, 0.0, 0.0, 0.0, (5,), None)
    assert d1.remaining.tolist() == [True] and d2.remaining.tolist() == [False]
    # the pseudocode base rule launches the four together instead (Fig. 3(d)'s scale)
    assert fig3_pass(3.0, [1, 2, 3, 4], base_rule="pseudocode").launch == ((2, 4, 1, 3),)


# =========================================================================== BAG
def test_bag_eta0_splits_into_consecutive_groups_of_p_text_and_p_plus_1_pseudocode():
    # bandwidth 10 - id, queue order shuffled: L is ids 0..9 in order.
    workers = [3, 0, 7, 9, 1, 5, 8, 2, 6, 4]
    bws = [10 - w for w in workers]
    assert bag(workers, bws, p=3, eta=0.0) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert bag(workers, bws, p=3, eta=0.0, base_rule="pseudocode") == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert bag(workers, bws, p=1, eta=0.0) == [[w] for w in range(10)]


def test_bag_eta_extension_boundary_is_inclusive():
    # p = 2, eta = 0.25: base [10, 8], b* = 8 * 0.75 = 6.0 exactly;
    # 6.0 >= 6.0 joins, 5.999 < 6.0 starts the next group.
    assert bag([0, 1, 2, 3], [10.0, 8.0, 6.0, 5.999], p=2, eta=0.25) == [[0, 1, 2], [3]]
    assert bag([0, 1, 2, 3], [10.0, 8.0, 6.000001, 6.0], p=2, eta=0.25) == [[0, 1, 2, 3]]


def test_bag_extension_stops_at_first_worker_below_threshold_and_threshold_resets():
    # eta = 0.5, p = 2: base [10, 10], b* = 5: 6 and 5 join, 4.9 < 5 closes;
    # next base [4.9, 3], b* = 1.5: 2.6 joins.
    G = bag(list(range(7)), [10, 10, 6, 5, 4.9, 3, 2.6], p=2, eta=0.5)
    assert G == [[0, 1, 2, 3], [4, 5, 6]]


def test_bag_trailing_small_group_is_kept():
    assert bag([0, 1, 2, 3], [10, 9, 8, 1], p=3, eta=0.3) == [[0, 1, 2], [3]]
    assert bag([5], [1.0], p=4, eta=0.3) == [[5]]
    assert bag([], [], p=2, eta=0.3) == []


def test_bag_ties_keep_queue_order_and_accept_negative_ids():
    # sorted: -3(5), 5(5) [queue order], 7(2), 2(2); eta = 0: b* = 5, 7 closes the group.
    assert bag([7, -3, 5, 2], [2, 5, 5, 2], p=2, eta=0.0) == [[-3, 5], [7, 2]]
    assert bag([2, 5, -3, 7], [2, 5, 5, 2], p=2, eta=0.0) == [[5, -3], [2, 7]]


def test_bag_p1_text_rule_new_group_uses_its_own_threshold():
    # SR3.  p = 1, eta = 0: base [0], b* = 2; 1 (2 >= 2) joins; 2 (1 < 2) opens a
    # group as its base, b* = 1; 3 (1 >= 1) joins.  The stale b* = 2 of a literal
    # reading would make [2] and [3] singletons.
    assert bag([0, 1, 2, 3], [2, 2, 1, 1], p=1, eta=0.0) == [[0, 1], [2, 3]]


def alg1_transcribed(workers, bws, p, eta, base_rule):
    """Alg. 1 line by line (with SR3: line 14 records b* for the new group's first member)."""
    L = sorted(zip(workers, bws), key=lambda wb: -wb[1])          # line 2, stable
    G, g, b_star = [], [], None
    for w, b in L:                                                # line 5
        if (len(g) < p) if base_rule == "text" else (len(g) <= p):  # line 6
            g.append(w)                                           # line 7
            b_star = b * (1 - eta)                                # line 8
        elif b >= b_star:                                         # line 9
            g.append(w)                                           # line 10
        else:
            G.append(g)                                           # line 12
            g = [w]                                               # lines 13-14
            b_star = b * (1 - eta)                                # SR3
    if g:                                                         # lines 17-19
        G.append(g)
    return G


bw_values = st.one_of(st.sampled_from([1.0, 2.0, 2.5, 5.0, 10.0]),
                      st.floats(0.5, 20.0, allow_nan=False, allow_infinity=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(bw_values, max_size=30), st.integers(1, 6), st.floats(0.0, 0.95),
       st.sampled_from(["text", "pseudocode"]), st.integers(-50, 50))
def test_bag_properties(bws, p, eta, base_rule, id_offset):
    workers = [id_offset + 3 * i for i in range(len(bws))]
    bw_of = dict(zip(workers, bws))
    G = bag(workers, bws, p, eta, base_rule=base_rule)
    assert G == alg1_transcribed(workers, bws, p, eta, base_rule)
    flat = [w for g in G for w in g]
    # a partition of the input, concatenated in stable non-increasing bandwidth order
    assert sorted(flat) == sorted(workers)
    assert flat == [w for w, _ in sorted(zip(workers, bws), key=lambda wb: -wb[1])]
    base = p if base_rule == "text" else p + 1
    for i, g in enumerate(G):
        assert g, "no empty group"
        if i < len(G) - 1:
            assert len(g) >= base >= p
            # maximal: the next group's first worker fails the extension test
            assert bw_of[G[i + 1][0]] < bw_of[g[base - 1]] * (1 - eta)
        if len(g) > base:
            threshold = bw_of[g[base - 1]] * (1 - eta)
            assert all(bw_of[w] >= threshold for w in g[base:])


# =========================================================================== Alg. 2 helpers
def test_predict_workers_strict_greater_than_and_passes_candidates_only():
    calls = []

    def cp(ids, elapsed, dt):
        calls.append((ids.tolist(), elapsed.tolist(), dt))
        return np.full(ids.size, 0.25)

    ids, bws, probs = predict_workers([7, 8, 9, -1], [1.0, 2.0, 3.0, 4.0], [0.5, 1.5, 2.5, 3.5],
                                      dt=0.1, b_hat=2.0, completion_prob=cp)
    assert ids.tolist() == [9, -1] and bws.tolist() == [3.0, 4.0] and probs.tolist() == [0.25, 0.25]
    assert calls == [([9, -1], [2.5, 3.5], 0.1)]          # worker 8 (b = b_hat) is excluded
    ids, bws, probs = predict_workers([7, 8], [1.0, 2.0], [0.0, 0.0], dt=0.1, b_hat=2.0,
                                      completion_prob=never_called)
    assert ids.size == bws.size == probs.size == 0


def test_expected_new_worker_num_and_bandwidth():
    assert expected_new_worker_num([0.5, 0.25]) == 0.75
    assert expected_new_worker_num([]) == 0.0
    # (0.5 * 4 + 0.25 * 8) / 0.75 = 4 / 0.75
    assert expected_bandwidth([4.0, 8.0], [0.5, 0.25]) == pytest.approx(16 / 3)
    assert expected_bandwidth([4.0, 8.0], [0.0, 1.0]) == 8.0
    assert expected_bandwidth([4.0, 8.0], [0.0, 0.0]) == 0.0       # SR7
    assert expected_bandwidth([], []) == 0.0


def test_expected_bandwidth_of_equal_bandwidths_is_that_bandwidth():
    # SR20: (0.5 * 4e9 + 0.9 * 4e9) / 1.4 rounds to 4e9 + 2**-21 without the clamp
    assert expected_bandwidth([4e9, 4e9], [0.5, 0.9]) == 4e9
    assert expected_bandwidth([3e9, 4e9, 4e9], [0.0, 0.5, 0.9]) == 4e9     # p = 0 does not count
    # the clamp never moves a mean that is inside the range: (0.5 * 2 + 0.5 * 6) / 1 = 4
    assert expected_bandwidth([2.0, 6.0], [0.5, 0.5]) == 4.0


def test_bpawr_equal_candidate_bandwidths_do_not_flip_bag_inclusive_threshold():
    # g = [1 (10 Gbps), 2 (2 Gbps)], p = 2, eta = 0.5.  S: 3, 4 at 4 Gbps with p = 0.5, 0.9
    # -> k = floor(1.4) = 1 virtual worker of bandwidth exactly 4 Gbps (SR20).
    # L sorted: 1 (10), v (4), 2 (2); base [1, v]; b* = 0.5 * 4 = 2 Gbps and 2 >= b* joins
    # (inclusive, line 9) -> g* = L, g_Delta = {}, t_X = 2v/2 - 2v/2 = 0 -> launch.
    # With the rounded b = 4e9 + 2**-21, b* > 2 Gbps excluded worker 2 and the group
    # waited (t_X = 2v/2e9 - 2v/4e9 = 5 s > theta dt).
    d = bpawr([1, 2], [10e9, 2e9], [3, 4], [4e9, 4e9], [0.0, 0.0], p=2, eta=0.5, theta=1.0, dt=0.1,
              v=40e9, completion_prob=prob_table({3: 0.5, 4: 0.9}))
    assert (d.launch, d.reason, d.k, d.b_virtual, d.t_x) == (True, "launch", 1, 4e9, 0.0)
    plan = plan_round([1, 2], [10e9, 2e9], [3, 4], [4e9, 4e9], [0.0, 0.0], p=2, eta=0.5, theta=1.0,
                      dt=0.1, v=40e9, completion_prob=prob_table({3: 0.5, 4: 0.9}))
    assert plan.launch == ((1, 2),) and plan.held == ()


# =========================================================================== BPAWR
def call_bpawr(group, gbw, tids, tbw, probs, **kw):
    args = dict(p=2, eta=0.25, theta=1.0, dt=0.5, v=12.0, completion_prob=prob_table(dict(zip(tids, probs))))
    args.update(kw)
    return bpawr(group, gbw, tids, tbw, [1.0] * len(tids), **args)


def test_bpawr_too_small_waits_and_leaves_s_alone():
    d = bpawr([1], [5.0], [2, 3], [9.0, 9.0], [0.0, 0.0], p=2, eta=0.3, theta=1.0, dt=1.0, v=1.0,
              completion_prob=never_called)
    assert d == BpawrDecision(False, (), "too_small", 0, 0.0, 0.0, 0.0, (), None)
    assert d.remaining.tolist() == [True, True]
    d = bpawr([1], [5.0], [2, 3], [9.0, 9.0], [0.0, 0.0], p=2, eta=0.3, theta=1.0, dt=1.0, v=1.0,
              completion_prob=never_called, available=np.array([False, True]))
    assert d.remaining.tolist() == [False, True]


def test_bpawr_launches_when_no_training_worker_is_faster():
    # b_hat = 4; training bandwidths 4 (not > 4) and 1 -> C = {}, k = 0, g* = g, t_X = 0
    d = bpawr([1, 2], [5.0, 4.0], [3, 4], [4.0, 1.0], [0.0, 0.0], p=2, eta=0.3, theta=0.0, dt=1.0,
              v=100.0, completion_prob=never_called)
    assert d == BpawrDecision(True, (), "launch", 0, 0.0, 0.0, 0.0, (), None)
    assert d.remaining.tolist() == [True, True]


# g = [11 (4), 10 (8), 12 (3)], p = 2, eta = 0.25, v = 12, theta dt = 0.5.
# g is a BAG group (base [10, 11], b* = 3, 12: 3 >= 3 joins), so BAG(g) = [g].
# b_hat = 3.  S: 20 (b 6, p .5), 21 (b 10, p .5), 22 (b 1: not > 3).
# C = [20, 21]; S = {22}; k = floor(1.0) = 1; b = (.5*6 + .5*10) / 1 = 8.
# L = [11 (4), 10 (8), 12 (3), v (8)] sorted 10, v, 11, 12; base [10, v],
# b* = 0.75 * 8 = 6; 11: 4 < 6 closes -> g* = [10, v]; g_Delta = (11, 12) in g's order.
# approx: t_X = 2*12/3 - 2*12/8 = 8 - 3 = 5 > 0.5 -> wait and replace.
HAND = dict(group=[11, 10, 12], gbw=[4.0, 8.0, 3.0], tids=[20, 21, 22], tbw=[6.0, 10.0, 1.0],
            probs=[0.5, 0.5, 1.0])


def test_bpawr_wait_replace_hand_computed():
    d = call_bpawr(**HAND)
    assert d == BpawrDecision(False, (11, 12), "wait_replace", 1, 8.0, 1.0, 5.0, (20, 21), None)
    assert d.remaining.tolist() == [False, False, True]


def test_bpawr_wait_replace_eq2_form():
    # exact Eq. (2), alpha = 1 ms: T(g) = 2*2*a + 2*(2/3)*12/3 = 4a + 16/3,
    # T(g*) = 2*1*a + 2*(1/2)*12/8 = 2a + 1.5  ->  t_X = 2a + 23/6
    a = 1e-3
    d = call_bpawr(**HAND, tx_form="eq2", alpha=a)
    assert d.t_x == pytest.approx(2 * a + 23 / 6, rel=1e-12)
    assert d.t_x == pytest.approx(ring_allreduce_time([4, 8, 3], 12.0, a) - ring_allreduce_time([8, 8], 12.0, a))
    assert d.reason == "wait_replace"
    # alpha only enters the eq2 form
    assert call_bpawr(**HAND, alpha=a).t_x == 5.0


def test_bpawr_theta_threshold_is_strict_and_large_theta_launches():
    # theta dt = 10 * 0.5 = 5 = t_X: not > -> launch; just below -> wait
    d = call_bpawr(**HAND, theta=10.0)
    assert (d.launch, d.reason, d.moved, d.t_x) == (True, "launch", (), 5.0)
    assert d.remaining.tolist() == [False, False, True]       # line 7 applies whatever the outcome
    assert call_bpawr(**HAND, theta=9.9).reason == "wait_replace"
    assert call_bpawr(**HAND, theta=math.inf).launch


def test_bpawr_k_is_floor_of_expected_count():
    # sum p = 0.6 + 0.3999 < 1 -> k = 0: no virtual worker, g* = BAG(g)[0] = g, t_X = 0 -> launch
    d = call_bpawr(**{**HAND, "probs": [0.6, 0.3999, 1.0]})
    assert (d.k, d.t_x, d.reason) == (0, 0.0, "launch")
    assert d.expected_new == pytest.approx(0.9999)
    assert d.b_virtual == pytest.approx((0.6 * 6 + 0.3999 * 10) / 0.9999)
    # SR8: 0.7 + 0.2 + 0.1 sums to 0.9999999999999999 in floating point: still k = 1
    d = call_bpawr([1, 2], [2.0, 2.0], [5, 6, 7], [4.0, 4.0, 4.0], [0.7, 0.2, 0.1])
    assert d.expected_new < 1.0
    assert d.k == 1 and d.b_virtual == pytest.approx(4.0)


def test_bpawr_removes_checked_workers_even_with_zero_probability():
    d = call_bpawr(**{**HAND, "probs": [0.0, 0.0, 1.0]})
    assert (d.k, d.b_virtual, d.reason, d.checked) == (0, 0.0, "launch", (20, 21))
    assert d.remaining.tolist() == [False, False, True]


def test_bpawr_splits_a_group_that_is_not_a_bag_group_even_without_virtual_workers():
    # SR13.  g = [1 (9), 2 (3), 3 (2)], p = 2, eta = 0, no training worker:
    # k = 0, BAG(g): base [1, 2], b* = 3, 3: 2 < 3 -> g* = [1, 2], g_Delta = (3,),
    # t_X = 2*90/2 - 2*90/3 = 90 - 60 = 30 > 1 -> "wait_replace" with nothing to wait for.
    d = bpawr([1, 2, 3], [9.0, 3.0, 2.0], [], [], [], p=2, eta=0.0, theta=1.0, dt=1.0, v=90.0,
              completion_prob=never_called)
    assert d == BpawrDecision(False, (3,), "wait_replace", 0, 0.0, 0.0, 30.0, (), None)


def test_bpawr_available_mask_restricts_s():
    # worker 21 not in S: C = [20] (p .5), k = 0 -> launch
    d = call_bpawr(**HAND, available=[True, False, True])
    assert (d.checked, d.k, d.reason) == ((20,), 0, "launch")
    assert d.remaining.tolist() == [False, False, True]


def test_decisions_are_immutable_and_hashable():
    d = call_bpawr(**HAND)
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.launch = True
    with pytest.raises(ValueError):
        d.remaining[0] = True
    assert hash(d) == hash(call_bpawr(**HAND))


# =========================================================================== Alg. 3 pass
def test_plan_round_s_removal_stops_second_group_counting_same_workers():
    # Q = [1 (10), 2 (9), 3 (3), 4 (3)], p = 2, eta = 0, v = 90, theta dt = 1.
    # BAG: base [1, 2], b* = 9, 3 < 9 -> G = [[1, 2], [3, 4]].
    # g_1: b_hat = 9; S = {9 (b 20, p 1)} -> C = [9], S = {}, k = 1, b = 20.
    #   L sorted v, 1, 2: base [v, 1], b* = 10, 2 (9) < 10 -> g* = [v, 1], g_Delta = (2,)
    #   t_X = 2*90/9 - 2*90/10 = 20 - 18 = 2 > 1 -> wait and replace; 2 moves to
    #   the front of g_2 = [2, 3, 4]; 1 is held.
    # g_2 = [2, 3, 4]: S is empty -> C = {}, k = 0; BAG(g_2): base [2, 3], b* = 3,
    #   4 (3 >= 3) joins -> g* = g_2, t_X = 0 -> launch.
    # Were 9 still in S, g_2 would see k = 1, b = 20, g* = [v, 2], g_Delta = (3, 4),
    #   t_X = 2*90/3 - 2*90/9 = 60 - 20 = 40 and wait instead.
    kw = dict(p=2, eta=0.0, theta=1.0, dt=1.0, v=90.0, completion_prob=prob_table({9: 1.0}))
    plan = plan_round([1, 2, 3, 4], [10.0, 9.0, 3.0, 3.0], [9], [20.0], [0.0], **kw)
    assert plan.groups == ((1, 2), (3, 4))
    assert plan.launch == ((2, 3, 4),)
    assert plan.held == (1,)
    d1, d2 = plan.decisions
    assert (d1.reason, d1.moved, d1.k, d1.b_virtual, d1.t_x, d1.checked) == (
        "wait_replace", (2,), 1, 20.0, pytest.approx(2.0), (9,))
    assert (d2.reason, d2.k, d2.checked, d2.t_x) == ("launch", 0, (), 0.0)
    assert d1.remaining.tolist() == [False] and plan.remaining.tolist() == [False]
    alone = bpawr([2, 3, 4], [9.0, 3.0, 3.0], [9], [20.0], [0.0], **kw)
    assert (alone.reason, alone.moved, alone.t_x) == ("wait_replace", (3, 4), 40.0)


def test_plan_round_moved_workers_can_make_the_next_group_wait_too():
    # SR13/SR15.  As above but 4 has b = 2: g_2 = [2 (9), 3 (3), 4 (2)] after the move;
    # S is empty (k = 0) yet BAG(g_2) splits it: base [2, 3], b* = 3, 4 < 3 ->
    # g* = [2, 3], g_Delta = (4,), t_X = 2*90/2 - 2*90/3 = 90 - 60 = 30 > 1 -> wait.
    # g_2 is the last group: 4 stays; nothing is launched and all four are held.
    kw = dict(p=2, eta=0.0, theta=1.0, dt=1.0, v=90.0, completion_prob=prob_table({9: 1.0}))
    plan = plan_round([1, 2, 3, 4], [10.0, 9.0, 3.0, 2.0], [9], [20.0], [0.0], **kw)
    assert plan.launch == ()
    assert plan.held == (1, 2, 3, 4)
    d1, d2 = plan.decisions
    assert (d1.reason, d1.moved) == ("wait_replace", (2,))
    assert d2 == BpawrDecision(False, (4,), "wait_replace", 0, 0.0, 0.0, 30.0, (), None)


def test_plan_round_small_queue_and_empty_queue_launch_nothing():
    plan = plan_round([1], [5.0], [2], [9.0], [0.0], p=2, eta=0.3, theta=1.0, dt=1.0, v=1.0,
                      completion_prob=never_called)
    assert (plan.launch, plan.held, plan.groups) == ((), (), ((1,),))
    assert plan.decisions[0].reason == "too_small"
    plan = plan_round([], [], [2], [9.0], [0.0], p=2, eta=0.3, theta=1.0, dt=1.0, v=1.0,
                      completion_prob=never_called)
    assert (plan.launch, plan.held, plan.groups, plan.decisions) == ((), (), (), ())
    assert plan.remaining.tolist() == [True]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_plan_round_properties(data):
    nq = data.draw(st.integers(0, 20))
    nt = data.draw(st.integers(0, 12))
    ids = data.draw(st.lists(st.integers(-100, 100), min_size=nq + nt, max_size=nq + nt, unique=True))
    q, t = ids[:nq], ids[nq:]
    qbw = data.draw(st.lists(bw_values, min_size=nq, max_size=nq))
    tbw = data.draw(st.lists(bw_values, min_size=nt, max_size=nt))
    probs = data.draw(st.lists(st.sampled_from([0.0, 0.3, 0.5, 1.0]), min_size=nt, max_size=nt))
    el = data.draw(st.lists(st.floats(0.0, 5.0), min_size=nt, max_size=nt))
    p = data.draw(st.integers(1, 5))
    kw = dict(p=p, eta=data.draw(st.floats(0.0, 0.9)), theta=data.draw(st.floats(0.0, 3.0)),
              dt=data.draw(st.floats(0.05, 2.0)), v=data.draw(st.floats(0.0, 50.0)),
              alpha=data.draw(st.floats(0.0, 0.01)),
              base_rule=data.draw(st.sampled_from(["text", "pseudocode"])),
              tx_form=data.draw(st.sampled_from(["approx", "eq2"])),
              completion_prob=prob_table(dict(zip(t, probs))))
    plan = plan_round(q, qbw, t, tbw, el, **kw)
    launched = [w for g in plan.launch for w in g]
    assert len(launched) == len(set(launched))                      # disjoint groups
    assert set(launched) <= set(q)
    assert all(len(g) >= p for g in plan.launch)
    assert set(plan.held) <= set(q) and not set(plan.held) & set(launched)
    assert len(plan.held) == len(set(plan.held))
    assert sorted(w for g in plan.groups for w in g) == sorted(q)
    assert len(plan.decisions) == len(plan.groups)
    prev = np.ones(nt, dtype=bool)
    seen = set()
    for d in plan.decisions:
        assert d.launch == (d.reason == "launch")
        assert bool(d.moved) == (d.reason == "wait_replace")
        assert not (d.remaining & ~prev).any()                     # S only shrinks
        assert set(d.checked) == {w for w, was, now in zip(t, prev, d.remaining) if was and not now}
        assert not seen & set(d.checked)
        seen |= set(d.checked)
        prev = d.remaining
    assert plan.launch == tuple(tuple(g) for g in plan.launch)
    assert (plan.remaining == prev).all()


# =========================================================================== validation
OK = dict(p=2, eta=0.3, theta=1.0, dt=1.0, v=1.0, completion_prob=never_called)


@pytest.mark.parametrize("bad, name", [
    (dict(p=0), "p"), (dict(p=1.5), "p"),
    (dict(eta=1.0), "eta"), (dict(eta=-0.1), "eta"), (dict(eta=float("nan")), "eta"),
    (dict(theta=-1.0), "theta"), (dict(dt=0.0), "dt"), (dict(dt=-1.0), "dt"),
    (dict(v=-1.0), "v"), (dict(alpha=-1e-3), "alpha"),
    (dict(base_rule="paper"), "base_rule"), (dict(tx_form="exact"), "tx_form"),
    (dict(completion_prob=None), "completion_prob"),
])
def test_parameter_validation_names_the_parameter(bad, name):
    pattern = f"^{re.escape(name)} must"
    with pytest.raises(ValueError, match=pattern):
        plan_round([1, 2], [1.0, 2.0], [3], [3.0], [0.0], **{**OK, **bad})
    with pytest.raises(ValueError, match=pattern):
        bpawr([1, 2], [1.0, 2.0], [3], [3.0], [0.0], **{**OK, **bad})
    bag_kw = {k: bad.get(k, OK[k]) for k in ("p", "eta")}
    if set(bad) <= {"p", "eta", "base_rule"}:
        with pytest.raises(ValueError, match=pattern):
            bag([1, 2], [1.0, 2.0], base_rule=bad.get("base_rule", "text"), **bag_kw)


@pytest.mark.parametrize("args, name", [
    (([1, 2], [1.0]), "bandwidths"),
    (([1, 2], [1.0, 0.0]), "bandwidths"),
    (([1, 2], [1.0, float("inf")]), "bandwidths"),
    (([1, 1], [1.0, 2.0]), "workers"),
    (([1, True], [1.0, 2.0]), "workers"),
    (([1, 2.0], [1.0, 2.0]), "workers"),
    ((np.array([1.0, 2.0]), [1.0, 2.0]), "workers"),
])
def test_bag_rejects_bad_workers_and_bandwidths(args, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        bag(*args, p=1, eta=0.0)


@pytest.mark.parametrize("q, qbw, t, tbw, el, start", [
    ([1, 2], [1.0, 2.0], [2], [3.0], [0.0], "queue and train_ids must be disjoint"),
    ([1, 2], [1.0], [3], [3.0], [0.0], "queue_bw must"),
    ([1, 2], [1.0, 2.0], [3, 3], [3.0, 3.0], [0.0, 0.0], "train_ids must not contain duplicate"),
    ([1, 2], [1.0, 2.0], [3], [3.0, 1.0], [0.0], "train_bw must"),
    ([1, 2], [1.0, 2.0], [3], [3.0], [-1.0], "train_elapsed must"),
    ([1, 2], [1.0, 2.0], [3], [3.0], [0.0, 1.0], "train_elapsed must"),
])
def test_plan_round_rejects_bad_arrays(q, qbw, t, tbw, el, start):
    with pytest.raises(ValueError, match=f"^{re.escape(start)}"):
        plan_round(q, qbw, t, tbw, el, **OK)


@pytest.mark.parametrize("result", [[1.5], [-0.1], [float("nan")], [0.5, 0.5], "x"])
def test_bad_completion_prob_results_are_rejected(result):
    with pytest.raises(ValueError, match="^completion_prob"):
        bpawr([1, 2], [1.0, 2.0], [3], [3.0], [0.0], **{**OK, "completion_prob": lambda i, e, d: result})


def test_helper_validation():
    with pytest.raises(ValueError, match="^dt must"):
        predict_workers([1], [1.0], [0.0], dt=0.0, b_hat=1.0, completion_prob=never_called)
    with pytest.raises(ValueError, match="^b_hat must"):
        predict_workers([1], [1.0], [0.0], dt=1.0, b_hat=0.0, completion_prob=never_called)
    with pytest.raises(ValueError, match="^completion_prob must"):
        predict_workers([1], [1.0], [0.0], dt=1.0, b_hat=1.0, completion_prob=3)
    with pytest.raises(ValueError, match="^probs must"):
        expected_new_worker_num([0.5, 1.5])
    with pytest.raises(ValueError, match="^bws must"):
        expected_bandwidth([1.0], [0.5, 0.5])
    with pytest.raises(ValueError, match="^available must"):
        bpawr([1, 2], [1.0, 2.0], [3], [3.0], [0.0], **OK, available=[1])
    with pytest.raises(ValueError, match="^group and train_ids must be disjoint"):
        bpawr([1, 2], [1.0, 2.0], [2], [3.0], [0.0], **OK)
