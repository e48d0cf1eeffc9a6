"""Seed 004 Algorithm 1 (SelMcast for BSP): hand-worked instances and a literal transcription.

Every expected value below is worked out by hand in the comments.  Decision ids
SMn refer to docs/decisions/selmcast.md.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.papers.selmcast.bsp import selmcast_bsp

BIG = 100.0   # an ingress that never binds


def pairs(x):
    return sorted((int(i), int(j)) for i, j in np.argwhere(x))


def test_three_workers_pareto_admits_one_pair_and_refuses_two():
    # b_eg = [1, 1, 2], ingress never binds, v = 1, p = 1, L3, D = {}.
    # l.7: no determined receivers -> L = [0, 1, 2] (stable, SM4).
    # sender 0: loads j=1: (1+0)/1 = 1, j=2: (1+0)/2 = 0.5 -> {2};  r = [0, 0, 1]
    # sender 1: j=0: 1/1 = 1, j=2: (1+1)/2 = 1 -> tie, lower id -> {0};  r = [1, 0, 1]
    # sender 2: j=0: (1+1)/1 = 2, j=1: 1/1 = 1 -> {1};  r = [1, 1, 1]
    # l.15-20: t = max(s/b_in = 0.01, r/b_eg = [1, 1, 0.5]) = 1
    # l.21: C row-major = (0,1), (1,2), (2,0)
    #   (0,1): (1+1)/1 = 2 > 1 refuse;  (1,2): (1+1)/2 = 1 <= 1 admit;  (2,0): 2 > 1 refuse
    plan = selmcast_bsp([BIG] * 3, [1.0, 1.0, 2.0], 1, 1.0, "L3")
    assert pairs(plan.x) == [(0, 2), (1, 0), (1, 2), (2, 1)]
    assert plan.t_est == 1.0
    assert (plan.n_basic, plan.n_pareto) == (3, 1)


def test_l7_ingress_refuses_what_the_egress_would_admit():
    # Same switch, but every ingress is 1 and L7: s_i = v * (receivers of i) = 1 -> s/b_in = 1,
    # t = 1.  (1,2): egress (1+1)/2 = 1 is fine but ingress s_1 = 2, 2/1 > 1 -> refuse.
    plan = selmcast_bsp([1.0] * 3, [1.0, 1.0, 2.0], 1, 1.0, "L7")
    assert pairs(plan.x) == [(0, 2), (1, 0), (2, 1)]
    assert (plan.t_est, plan.n_pareto) == (1.0, 0)
    # L3 on the same ports: one copy per sender, s_1 stays 1 -> (1,2) admitted again
    assert selmcast_bsp([1.0] * 3, [1.0, 1.0, 2.0], 1, 1.0, "L3").n_pareto == 1


def test_four_workers_c_order_decides_who_gets_the_slack():
    # b_eg = [1, 1, 1, 3], v = 1, p = 1, L3.
    # sender 0: loads 1, 1, 1/3 -> {3}, r3 = 1
    # sender 1: loads 1, 1, 2/3 -> {3}, r3 = 2
    # sender 2: loads j=0: 1, j=1: 1, j=3: 3/3 = 1 -> three-way tie -> {0}, r0 = 1
    # sender 3: loads j=0: 2, j=1: 1, j=2: 1 -> tie -> {1}, r1 = 1
    # t = max(1, 1, 0, 2/3) = 1.  Row-major C: (0,1) no, (0,2) (0+1)/1 = 1 yes, (1,0) no, (1,2) now 2 no,
    # (2,1) no, (2,3) (2+1)/3 = 1 yes, (3,0) no, (3,2) no.
    basic = [(0, 3), (1, 3), (2, 0), (3, 1)]
    plan = selmcast_bsp([BIG] * 4, [1.0, 1.0, 1.0, 3.0], 1, 1.0, "L3")
    assert pairs(plan.x) == sorted(basic + [(0, 2), (2, 3)])
    # c_32 = 5 puts (3,2) first in line 21: it takes egress 2's slack, (0,2) is then refused.
    c = np.zeros((4, 4), dtype=int)
    c[3, 2] = 5
    plan = selmcast_bsp([BIG] * 4, [1.0, 1.0, 1.0, 3.0], 1, 1.0, "L3", c=c)
    assert pairs(plan.x) == sorted(basic + [(3, 2), (2, 3)])


def test_forced_pairs_are_kept_and_their_senders_go_first():
    # b_eg = [1, 1, 1, 3]; D = {(1,0), (1,2)}, p = 1.  l.4-6: x_10 = x_12 = 1, r = [1, 0, 1, 0].
    # l.7: sender 1 has 2 determined receivers -> L = [1, 0, 2, 3]; q_1 = 1 - 2 < 0: nothing more.
    # sender 0: loads j=1: 1, j=2: 2, j=3: 1/3 -> {3}, r3 = 1
    # sender 2: loads j=0: 2, j=1: 1, j=3: 2/3 -> {3}, r3 = 2
    # sender 3: loads j=0: 2, j=1: 1, j=2: 2 -> {1}, r1 = 1
    # t = max(1, 1, 1, 2/3) = 1; only egress 3 has room: (0,1) no ... (1,3): (2+1)/3 = 1 yes; then full.
    forced = np.zeros((4, 4), dtype=bool)
    forced[1, 0] = forced[1, 2] = True
    plan = selmcast_bsp([BIG] * 4, [1.0, 1.0, 1.0, 3.0], 1, 1.0, "L3", forced=forced)
    assert pairs(plan.x) == [(0, 3), (1, 0), (1, 2), (1, 3), (2, 3), (3, 1)]
    assert (plan.n_basic, plan.n_pareto) == (5, 1)


def test_pareto_false_stops_after_the_basic_selection():
    plan = selmcast_bsp([BIG] * 3, [1.0, 1.0, 2.0], 1, 1.0, "L3", pareto=False)
    assert pairs(plan.x) == [(0, 2), (1, 0), (2, 1)]
    assert plan.n_pareto == 0 and np.isnan(plan.t_est)


@pytest.mark.parametrize("kwargs, match", [
    (dict(p=3), r"p must be an integer in \[1, 2\]"),
    (dict(p=0), r"p must be an integer in \[1, 2\]"),
    (dict(layer="L4"), "layer must be one of"),
    (dict(v=0.0), "v must have every element"),
    (dict(forced=np.eye(3, dtype=bool)), "forced must have a zero diagonal"),
    (dict(c=-np.ones((3, 3), dtype=int)), "c must be an n x n matrix of integers >= 0"),
])
def test_bad_inputs_name_the_parameter(kwargs, match):
    args = dict(b_in=[1.0] * 3, b_eg=[1.0, 1.0, 2.0], p=1, v=1.0, layer="L3")
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        selmcast_bsp(**args)


# --------------------------------------------------------------------------- literal transcription
def algorithm1_literal(N, D, bI, bE, p, v, c, layer):
    """Algorithm 1 transcribed with Python lists and dicts, no numpy, for cross-checking."""
    x, vv = {}, {}
    for i in N:                                         # l.1-3
        for j in N:
            x[i, j] = 0
            vv[i, j] = v[i]
    for (i, j) in D:                                    # l.4-6
        x[i, j] = 1
    L = sorted(N, key=lambda i: -sum(x[i, j] for j in N if j != i))   # l.7 (sorted() is stable)
    for i in L:                                         # l.8
        q = p[i] - sum(x[i, j] for j in N if j != i)    # l.9
        load = {j: (v[i] + sum(vv[l, j] * x[l, j] for l in N if l != j)) / bE[j]
                for j in N if j != i and x[i, j] == 0}  # l.10
        J = sorted(load, key=lambda j: load[j])[:max(q, 0)]
        for j in J:                                     # l.11-13
            x[i, j] = 1

    def f(i):                                           # Eq. (9)
        vals = [vv[i, j] * x[i, j] for j in N]
        return max(vals) if layer == "L3" else sum(vals)

    t = 0.0                                             # l.15
    for i in N:                                         # l.16-20
        r_i = sum(vv[l, i] * x[l, i] for l in N if l != i)
        t = max(t, f(i) / bI[i], r_i / bE[i])
    C = sorted([(i, j) for i in N for j in N if x[i, j] == 0 and i != j], key=lambda ij: -c[ij])  # l.21
    for (i, j) in C:                                    # l.22
        x[i, j] = 1                                     # "provided x_ij <- 1"
        s_i = f(i)                                      # l.23
        r_j = sum(vv[l, j] * x[l, j] for l in N if l != j)   # l.24
        if not (t >= s_i / bI[i] and t >= r_j / bE[j]):     # l.25
            x[i, j] = 0
    return x, t


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_vectorized_algorithm1_equals_the_literal_transcription(data):
    n = data.draw(st.integers(2, 7))
    bw = st.integers(1, 6).map(float)
    bI = data.draw(st.lists(bw, min_size=n, max_size=n))
    bE = data.draw(st.lists(bw, min_size=n, max_size=n))
    p = data.draw(st.lists(st.integers(1, n - 1), min_size=n, max_size=n))
    v = data.draw(st.lists(st.integers(1, 3).map(float), min_size=n, max_size=n))
    layer = data.draw(st.sampled_from(["L3", "L7"]))
    forced = np.array(data.draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))).reshape(n, n)
    forced &= data.draw(st.booleans())
    np.fill_diagonal(forced, False)
    c = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n * n, max_size=n * n))).reshape(n, n)
    N = list(range(n))
    D = [tuple(map(int, ij)) for ij in np.argwhere(forced)]
    cd = {(i, j): int(c[i, j]) for i in N for j in N}
    x_ref, t_ref = algorithm1_literal(N, D, bI, bE, p, v, cd, layer)
    plan = selmcast_bsp(bI, bE, p, v, layer, forced=forced, c=c)
    assert pairs(plan.x) == sorted(ij for ij, val in x_ref.items() if val)
    assert plan.t_est == pytest.approx(t_ref, rel=1e-12)
