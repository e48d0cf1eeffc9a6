"""Algorithm 2's compiled routine against a plain-Python transcription of the pseudo-code.

The reference below follows seed 004's Algorithm 2 literally -- the top-up of
line 16 picks the lightest-loaded candidate one at a time, recomputing every
load; C of line 29 is ordered with Python's ``sorted`` -- with the readings the
compiled routine documents (SM53 v_kappa, SM54 line 32, SM57 line 13, SM61 line
33, SM62 ties).  The compiled routine takes shortcuts (one stable sort for the
top-up, a counting sort for C, rows outside G skipped); on random online states
the plans, orders and deadlines must be identical.
"""
import numpy as np
from hypothesis import given, settings, strategies as st

from simlib.papers.selmcast.ssp_selection import Plan, select_ssp


def reference(kappa, x, vrem, v, p, b_in, b_eg, tau, c, due, in_g, start, eta, l3, descending,
              line32_x, deadline_all):
    n = x.shape[0]
    x, vrem, in_g = x.copy(), vrem.copy(), in_g.copy()
    for j in range(n):                                            # 1-3
        if j != kappa:
            x[kappa, j] = 1
            vrem[kappa, j] = v[kappa]
    in_g[kappa] = True                                            # 4
    G = [i for i in range(n) if in_g[i]]
    y = np.zeros_like(x)                                          # 5-7
    for i in G:                                                   # 8-12
        for j in range(n):
            if x[i, j] == 1 and (due[i, j] or vrem[i, j] < eta * v[i]):
                y[i, j] = 1

    def load(j):
        return sum(vrem[l, j] for l in G if y[l, j] == 1)

    key = (lambda i: (-tau[i], start[i], i)) if descending else (lambda i: (tau[i], start[i], i))
    L = sorted(G, key=key)                                        # 13
    for i in L:                                                   # 14-20
        q = p[i] - int(y[i].sum())
        while q > 0:
            cands = [j for j in range(n) if x[i, j] == 1 and y[i, j] == 0]
            if not cands:
                break
            j = min(cands, key=lambda j: ((vrem[i, j] + load(j)) / b_eg[j], j))
            y[i, j] = 1
            q -= 1
    deadline = {}
    s = {}
    for i in L:                                                   # 21-28
        rec = [j for j in range(n) if y[i, j] == 1]
        s[i] = (max((vrem[i, j] for j in rec), default=0.0) if l3 else sum(vrem[i, j] for j in rec))
        deadline[i] = max([tau[i], s[i] / b_in[i]] + [load(j) / b_eg[j] for j in rec])
    rank = {i: a for a, i in enumerate(L)}
    C = sorted(((i, j) for i in L for j in range(n) if x[i, j] == 1 and y[i, j] == 0),
               key=lambda ij: (-c[ij], rank[ij[0]], ij[1]))       # 29
    for i, j in C:                                                # 30-36
        si = max(s[i], vrem[i, j]) if l3 else s[i] + vrem[i, j]
        rj = (sum(vrem[l, j] for l in G if x[l, j] == 1) if line32_x else load(j) + vrem[i, j])
        ok = deadline[i] >= si / b_in[i] and deadline[i] >= rj / b_eg[j]
        if ok and deadline_all:
            users = [deadline[l] for l in G if y[l, j] == 1]
            ok = not users or min(users) >= rj / b_eg[j]
        if ok:
            y[i, j] = 1
            s[i] = si
    for i in G:                                                   # 37-39
        x[i] = y[i]
    return x, L, deadline


@settings(max_examples=300, deadline=None)
@given(n=st.integers(2, 8), data=st.data(), eta=st.sampled_from([0.0, 0.3, 0.75, 1.0]),
       layer=st.sampled_from(["L3", "L7"]), task_order=st.sampled_from(["pseudocode", "text"]),
       line32=st.sampled_from(["y", "x"]), pareto_deadline=st.sampled_from(["own", "all"]))
def test_compiled_algorithm2_equals_the_pseudocode(n, data, eta, layer, task_order, line32, pareto_deadline):
    kappa = data.draw(st.integers(0, n - 1))
    others = [i for i in range(n) if i != kappa]
    g = data.draw(st.lists(st.sampled_from(others), unique=True, max_size=len(others))) if others else []
    x = np.zeros((n, n), np.int8)
    vrem = np.zeros((n, n))
    in_g = np.zeros(n, bool)
    # small integer grids make ties (equal loads, equal tau, equal c) common
    grid = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
    for i in g:
        in_g[i] = True
        row = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
        for j in range(n):
            if j != i and row[j]:
                x[i, j] = 1
                vrem[i, j] = data.draw(grid)
        if x[i].sum() == 0:
            j = (i + 1) % n
            x[i, j], vrem[i, j] = 1, 1.0
    v = np.ones(n)
    p = np.array(data.draw(st.lists(st.integers(1, max(n - 1, 1)), min_size=n, max_size=n)), np.int64)
    b_in = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 8.0]), min_size=n, max_size=n)))
    b_eg = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    tau = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0]), min_size=n, max_size=n)))
    start = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=n, max_size=n)))
    c = np.array(data.draw(st.lists(st.lists(st.integers(0, 5), min_size=n, max_size=n), min_size=n,
                                    max_size=n)), np.int64)
    np.fill_diagonal(c, 0)
    due = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=n,
                                      max_size=n)))
    due &= x == 1
    np.fill_diagonal(due, False)
    ref_x, ref_L, ref_dl = reference(kappa, x, vrem, v, p, b_in, b_eg, tau, c, due, in_g, start, eta,
                                     layer == "L3", task_order == "text", line32 == "x",
                                     pareto_deadline == "all")
    order, deadline = select_ssp(kappa, Plan(x, vrem, v, p, b_in, b_eg, tau, c, due, in_g, start), eta=eta,
                                 layer=layer, task_order=task_order, line32=line32,
                                 pareto_deadline=pareto_deadline)
    np.testing.assert_array_equal(x, ref_x)
    assert order.tolist() == ref_L
    for i in ref_L:
        assert deadline[i] == ref_dl[i]
