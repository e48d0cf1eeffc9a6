"""Algorithm 2 (seed 004 §III-C) on hand-worked online instances.

Units: volumes in bits, bandwidths in bits/s; the instances use v = 1 and
egress bandwidths of 1 or 0.5 so every load and deadline is a small number
worked out by hand in the comments.  Ingresses are fast (100) so that line
33's ingress test never binds (L3, as in the paper).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.selmcast.ssp_selection import Plan, _lightest, select_ssp


def state(n=4, b_eg=(1.0, 1.0, 1.0, 0.5), vrem0=0.9, p=1):
    """Task 0 is multicasting to {1, 2, 3} with vrem0 bits left; worker 1 becomes ready."""
    x = np.zeros((n, n), np.int8)
    x[0, [1, 2, 3]] = 1
    vrem = np.zeros((n, n))
    vrem[0, [1, 2, 3]] = vrem0
    in_g = np.zeros(n, bool)
    in_g[0] = True
    return dict(kappa=1, x=x, vrem=vrem, v=np.ones(n), p=np.full(n, p, np.int64),
                b_in=np.full(n, 100.0), b_eg=np.array(b_eg, float), tau=np.zeros(n),
                c=np.zeros((n, n), np.int64), due=np.zeros((n, n), bool), in_g=in_g,
                start=np.array([0.0, 1.0, 0.0, 0.0]))


def select(s, **kw):
    """select_ssp on the state dict ``s`` (kappa, the Plan's arrays, and options)."""
    opts = {k: val for k, val in s.items() if k != "kappa" and k not in Plan._fields}
    return select_ssp(s["kappa"], Plan(**{k: s[k] for k in Plan._fields}), **opts, **kw)


def receivers(x, i):
    return set(np.flatnonzero(x[i]).tolist())


def test_preemption_drops_the_slow_receiver():
    # Basic: task 0 (first, earlier start) loads 1: .9, 2: .9, 3: .9/.5 = 1.8 -> {1};
    # task 1 loads 0: 1, 2: 1, 3: 2 -> {0}.  Deadlines t0 = .9, t1 = 1.
    # Pareto (c = 0, L order): (0,2) r = .9 <= .9 admit; (0,3) r = 1.8 > .9 DROP;
    # (1,2) r = 1.9 > 1 reject; (1,3) r = 2 > 1 reject.
    s = state()
    order, deadline = select(s)
    assert order.tolist() == [0, 1]
    assert deadline[0] == pytest.approx(0.9) and deadline[1] == pytest.approx(1.0)
    assert receivers(s["x"], 0) == {1, 2}
    assert receivers(s["x"], 1) == {0}
    assert s["in_g"][1] and s["vrem"][1, [0, 2, 3]].tolist() == [1.0, 1.0, 1.0]


def test_eta_rule_keeps_a_nearly_finished_task():
    # vrem = .7 < eta v = .75: every receiver of task 0 stays (lines 9-10), even 3.
    # Task 1 loads: 0: 1, 2: 1.7, 3: 3.4 -> {0}; t1 = 1; (1,2): 1.7 > 1, (1,3): 3.4 > 1.
    s = state(vrem0=0.7)
    select(s, eta=0.75)
    assert receivers(s["x"], 0) == {1, 2, 3}
    assert receivers(s["x"], 1) == {0}
    # eta = 0.5: .7 is not < .5, so task 0 is re-planned and loses receiver 3
    s = state(vrem0=0.7)
    select(s, eta=0.5)
    assert receivers(s["x"], 0) == {1, 2}


def test_forced_pair_is_kept():
    s = state()
    s["due"][0, 3] = True                    # (0, 3) in D: line 9 keeps it
    select(s)
    assert 3 in receivers(s["x"], 0)


def test_dropped_receiver_is_never_re_added():
    s = state()
    select(s)                          # drops (0, 3)
    s["kappa"] = 2
    s["start"][2] = 2.0
    s["b_eg"][:] = 100.0                     # egress 3 is now as fast as the others
    select(s)
    # task 0 (loads .009 on 1, 2) keeps {1, 2}: 3 is not a candidate any more (x_03 = 0)
    assert receivers(s["x"], 0) == {1, 2}
    # task 2: loads 0: .02, 1: .019, 3: .01 -> {3}; t2 = .01 admits nothing else
    assert receivers(s["x"], 2) == {3}


def test_tau_extends_the_deadline_and_task_order_knob():
    # tau_1 = 5: t1 = 5, so (1,2) r = 1.9 and (1,3) r = 2 are admitted; task 0 as before.
    s = state()
    s["tau"][1] = 5.0
    select(s)
    assert receivers(s["x"], 0) == {1, 2} and receivers(s["x"], 1) == {0, 2, 3}
    # text order (non-increasing tau): task 1 goes first and takes 2 and 3;
    # then (0,2) r = 1.9 > .9 and (0,3) r = 3.8 > .9: task 0 keeps only {1}.
    s = state()
    s["tau"][1] = 5.0
    order, _ = select(s, task_order="text")
    assert order.tolist() == [1, 0]
    assert receivers(s["x"], 0) == {1} and receivers(s["x"], 1) == {0, 2, 3}


def test_line13_and_line16_ties_hold_within_tie_s():
    """SM71: tau (or start times, or loads) closer than TIE_S are equal, as the engines' rounding
    would otherwise order them either way; farther apart they order as before."""
    from simlib.papers.selmcast.ssp_selection import TIE_S

    def order_of(tau1, start1):
        s = state()
        s["tau"][[0, 1]] = [1.0, tau1]
        s["start"][[0, 1]] = [0.0, start1]
        return select(s)[0].tolist()

    assert order_of(1.0 - 0.5 * TIE_S, 1.0) == [0, 1]        # tau tie: the earlier start (task 0) first
    assert order_of(1.0 - 2 * TIE_S, 1.0) == [1, 0]          # smaller tau first (pseudo-code order)
    assert order_of(1.0, -0.5 * TIE_S) == [0, 1]             # start tie too: the lower id
    assert order_of(1.0, -2 * TIE_S) == [1, 0]               # earlier start first
    # line 16: loads within TIE_S tie, to the earlier candidate
    cand = np.array([4, 7, 9], np.int64)
    key = np.array([1.0, 1.0 - 0.5 * TIE_S, 1.0 - 2 * TIE_S])
    _lightest(cand, key, 3, 2)
    assert cand[:2].tolist() == [9, 4]
    cand = np.array([4, 7, 9], np.int64)                      # q kept already: a near tie is not lighter
    _lightest(cand, np.array([1.0, 1.0, 1.0 - 0.5 * TIE_S]), 3, 2)
    assert cand[:2].tolist() == [4, 7]


def test_pareto_deadline_all_protects_other_tasks():
    # As in the tau case, but (1,2) would push egress 2 to 1.9 > t0 = .9, which task 0 uses.
    s = state()
    s["tau"][1] = 5.0
    select(s, pareto_deadline="all")
    assert receivers(s["x"], 1) == {0, 3}


def test_line32_printed_x_reading():
    # r_j = sum_l v_lj x_lj with x after lines 1-3: egress 2 has .9 + 1 = 1.9 > t0 = .9.
    s = state()
    select(s, line32="x")
    assert receivers(s["x"], 0) == {1}


def test_pareto_follows_c_order():
    # Equal egresses. Basic: task 0 {1} (t0 = .9), task 1 {0} (t1 = 1).
    # c = 0 everywhere: L order; (0,2) .9 and (0,3) .9 admitted, (1,2), (1,3) 1.9 > 1 rejected.
    s = state(b_eg=(1.0, 1.0, 1.0, 1.0))
    select(s)
    assert receivers(s["x"], 0) == {1, 2, 3} and receivers(s["x"], 1) == {0}
    # c_13 = 5 puts (1,3) first: r3 = 1 <= 1 admitted; then (0,3) sees 1.9 > .9 and is dropped.
    s = state(b_eg=(1.0, 1.0, 1.0, 1.0))
    s["c"][1, 3] = 5
    select(s)
    assert receivers(s["x"], 0) == {1, 2} and receivers(s["x"], 1) == {0, 3}


def test_l7_sums_the_ingress():
    # L7: s_i is a sum; with ingress 1.5 task 1 (alone) can afford one receiver only:
    # basic {0}: t1 = max(1/1.5, 1) = 1; adding 2 makes s = 2 > 1.5 * 1.
    s = state(b_eg=(1.0, 1.0, 1.0, 1.0))
    s["x"][0] = 0
    s["in_g"][0] = False
    s["b_in"][1] = 1.5
    select(s, layer="L7")
    assert receivers(s["x"], 1) == {0}
    s = state(b_eg=(1.0, 1.0, 1.0, 1.0))
    s["x"][0] = 0
    s["in_g"][0] = False
    s["b_in"][1] = 1.5
    select(s, layer="L3")            # L3: s = max = 1, every receiver fits
    assert receivers(s["x"], 1) == {0, 2, 3}


@pytest.mark.parametrize("bad, match", [
    (dict(kappa=0), "kappa must not already"),
    (dict(eta=1.5), "eta must be"),
    (dict(layer="L4"), "layer must be one of"),
    (dict(task_order="x"), "task_order must be one of"),
])
def test_bad_input(bad, match):
    s = state()
    s.update(bad)
    with pytest.raises(ValueError, match=match):
        select(s)


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(0, 5), min_size=0, max_size=150), as_float=st.booleans())
def test_stable_argsort_is_numpys_stable_argsort(keys, as_float):
    """Insertion sort below 65 keys, merge sort above: always the stable permutation
    (ties kept in index order; few distinct keys make many ties)."""
    from simlib.core.sharing import stable_argsort

    k = np.array(keys, dtype=float if as_float else np.int64)
    assert stable_argsort(k).tolist() == np.argsort(k, kind="stable").tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=40), st.data())
def test_line16_picks_are_the_first_q_of_a_stable_sort(keys, data):
    """Line 16's q lightest candidates (SM62): numpy's stable sort, ties to the earlier candidate
    (few distinct keys, so ties are common)."""
    nc = len(keys)
    q = data.draw(st.integers(1, nc))
    cand = np.array(sorted(data.draw(st.sets(st.integers(0, 99), min_size=nc, max_size=nc))), np.int64)
    ckey = np.array(keys, float)
    want = cand[np.argsort(ckey, kind="stable")[:q]]
    _lightest(cand, ckey, nc, q)
    assert cand[:q].tolist() == want.tolist()


def test_line16_hand_case():
    # keys 3, 1, 2, 1, 0 for candidates 10..14: the 3 lightest are 14 (0), 11 (1) and 13 (1, later)
    cand = np.arange(10, 15)
    _lightest(cand, np.array([3.0, 1.0, 2.0, 1.0, 0.0]), 5, 3)
    assert cand[:3].tolist() == [14, 11, 13]
