"""Algorithm 2 on bit sets of receivers (``_algorithm2_l3``, the SSP loop's L3 path) against the array routine.

Under L3 every receiver of a task has the same bits left (one flow per multicast), so the SSP loop hands
``_algorithm2_l3`` each task's remaining volume and its row of x as a bit set; on such states it must
give the same plan x, G and order as ``_algorithm2`` (itself checked against the pseudo-code in
``test_selmcast_ssp_selection_reference.py``), bit for bit, and the same deadline for every task it
plans.  Inputs: random online states at n = 2-63 (the bit sets' range) with the ties that decide
rounding made common (a grid of volumes, bandwidths, tau, start times and c_ij, volumes at exactly
eta v_i, a few slightly negative), or real-valued ones; line 32 either reading; c_ij above n (the
counting sort's shared last bucket; and line 29's sort alone against Python's ``sorted`` with c_ij far
above its buckets) and about C_SAT (line 29's order read from c's bit planes, or sorted where a c_ij of C
is at or above C_SAT); c's bit planes kept through multicast ends against planes built from c.  Plus a hand case (test_selmcast_ssp_selection's first instance) worked
out on the bit-set path, and line 16's selection by counting against the bounded insertion.
"""
import numpy as np
from hypothesis import given, settings, strategies as st

from simlib.papers.selmcast.ssp_selection import (C_BITS, C_SAT, TIE_S, Plan, Rules, _algorithm2, _algorithm2_l3,
                                                    _c_equal, _c_top, _lightest, _lightest_bits, _pair, _sort_by_c,
                                                    _unpair, c_planes, c_planes_finish, scratch)
from numba import njit


def bits_of(row):
    return sum(1 << int(j) for j in np.flatnonzero(row))


def run_both(kappa, x, rem, v, p, b_in, b_eg, tau, c, due, in_g, start, eta, descending, line32_x=False):
    """(x, in_g, m, order, deadline) of the array routine on the L3 state (vrem[i, j] = rem[i]) and of the
    bit-set routine on rem and the rows' bit sets; the bit-set routine's new rows as bit sets too."""
    n = x.shape[0]
    rules = Rules(eta=eta, l3=True, descending=descending, line32_x=line32_x, deadline_all=False)
    vrem = np.repeat(rem[:, None], n, axis=1)
    plan_a = Plan(x.copy(), vrem, v, p, b_in, b_eg, tau, c, due, in_g.copy(), start)
    out_a = scratch(n)
    m_a = _algorithm2(kappa, plan_a, rules, out_a)
    xbits = np.array([bits_of(x[i]) for i in range(n)], np.int64)
    xbits[kappa] = 12345                                # not read (kappa's row starts full)
    stale = np.full((n, n), -7.0)                       # vrem is not read on the bit-set path
    plan_b = Plan(x.copy(), stale, v, p, b_in, b_eg, tau, c, due, in_g.copy(), start)
    out_b = scratch(n)
    ybits = np.zeros(n, np.int64)
    dbits = np.array([bits_of(due[i]) for i in range(n)], np.int64)
    m_b = _algorithm2_l3(kappa, plan_b, rules, out_b, rem, xbits, ybits, dbits,
                         c_planes(c, np.zeros((C_BITS, n), np.int64)))
    a = (plan_a.x, plan_a.in_g, m_a, out_a.order[:m_a].copy(), out_a.deadline)
    b = (plan_b.x, plan_b.in_g, m_b, out_b.order[:m_b].copy(), out_b.deadline)
    return a, b, ybits


def check(kappa, x, rem, v, p, b_in, b_eg, tau, c, due, in_g, start, eta, descending, line32_x):
    (xa, ga, ma, oa, da), (xb, gb, mb, ob, db), ybits = run_both(
        kappa, x, rem, v, p, b_in, b_eg, tau, c, due, in_g, start, eta, descending, line32_x)
    np.testing.assert_array_equal(xb, xa)
    np.testing.assert_array_equal(gb, ga)
    assert mb == ma and ob.tolist() == oa.tolist()
    for i in ob.tolist():
        assert ybits[i] == bits_of(xa[i])               # the new rows, as the loop reads them
        if not np.isnan(db[i]):                         # a task it planned with a pair in C: same t_i
            assert db[i] == da[i]
        if i != kappa and rem[i] < eta * v[i]:
            assert np.isnan(db[i])                      # keeps its row: not planned


@st.composite
def l3_states(draw):
    n = draw(st.one_of(st.integers(2, 9), st.integers(10, 63)))
    kappa = draw(st.integers(0, n - 1))
    real = draw(st.booleans())
    eta = draw(st.sampled_from([0.0, 0.3, 0.75, 1.0]))
    vol = draw(st.sampled_from([1.0, 200e6 * 8]))
    v = np.full(n, vol)
    if draw(st.booleans()):
        v = v * np.array(draw(st.lists(st.sampled_from([0.5, 1.0]), min_size=n, max_size=n)))
    x = np.zeros((n, n), np.int8)
    rem = np.full(n, -3.0)                              # outside G: never read
    in_g = np.zeros(n, bool)
    others = [i for i in range(n) if i != kappa]
    g = draw(st.lists(st.sampled_from(others), unique=True, max_size=min(len(others), 20))) if others else []
    frac = st.floats(0.0, 1.0) if real else st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
    for i in g:
        in_g[i] = True
        density = draw(st.sampled_from([0.2, 0.7, 1.0]))
        row = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).random(n) < density
        row[i] = False
        x[i] = row
        kind = draw(st.integers(0, 19))
        if kind == 0:                                   # exactly at eta v_i (line 9 keeps nothing by eta)
            rem[i] = eta * v[i]
        elif kind == 1:                                 # drained a little past 0 (loads then may shrink)
            rem[i] = -draw(st.sampled_from([1e-9, 0.25])) * v[i]
        else:
            rem[i] = draw(frac) * v[i]
    lo = draw(st.integers(1, max(n - 1, 1)))
    p = np.array(draw(st.lists(st.integers(lo, max(n - 1, 1)), min_size=n, max_size=n)), np.int64)
    if real:
        b_in = np.array(draw(st.lists(st.floats(0.5, 8.0), min_size=n, max_size=n)))
        b_eg = np.array(draw(st.lists(st.floats(0.5, 2.0), min_size=n, max_size=n)))
        tau = np.array(draw(st.lists(st.floats(0.0, 2.0), min_size=n, max_size=n)))
    else:
        b_in = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 8.0]), min_size=n, max_size=n)))
        b_eg = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n)))
        tau = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 1.0 + 1e-10]), min_size=n,
                                     max_size=n)))
    scale = draw(st.sampled_from([1.0, 40e9]))           # bits/s of the notebooks' links
    b_in, b_eg = b_in * scale, b_eg * scale
    start = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 2.0 + 1e-10]), min_size=n, max_size=n)))
    cmax = draw(st.sampled_from([0, 5, 3 * n, C_SAT - 1, C_SAT]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    c = rng.integers(0, cmax + 1, (n, n)).astype(np.int64)
    np.fill_diagonal(c, 0)
    due = rng.random((n, n)) < draw(st.sampled_from([0.0, 0.1, 0.5]))
    np.fill_diagonal(due, False)
    descending = draw(st.booleans())
    line32_x = draw(st.booleans())                      # line 32 as printed (sum over x) or "y"
    return kappa, x, rem, v, p, b_in, b_eg, tau, c, due, in_g, start, eta, descending, line32_x


@settings(max_examples=400, deadline=None)
@given(state=l3_states())
def test_bit_set_algorithm2_gives_the_array_routines_plan(state):
    check(*state)


def test_hand_case_on_bit_sets():
    # test_selmcast_ssp_selection's first instance: task 0 sends to {1, 2, 3} with .9 of 1 bit left,
    # worker 1 becomes ready, p = 1, egress 3 at half speed, fast ingresses.  Basic: task 0 (earlier
    # start) loads 1: .9, 2: .9, 3: 1.8 -> {1}; task 1 loads 0: 1, 2: 1.9... -> {0}.  Deadlines t0 = .9,
    # t1 = 1.  Pareto: (0, 2) r = .9 <= .9 admitted; (0, 3) 1.8 > .9 dropped; (1, 2) 1.9 > 1, (1, 3) 2 > 1.
    n = 4
    x = np.zeros((n, n), np.int8)
    x[0, [1, 2, 3]] = 1
    in_g = np.array([True, False, False, False])
    rem = np.array([0.9, -1.0, -1.0, -1.0])
    v = np.ones(n)
    rules = Rules(eta=0.75, l3=True, descending=False, line32_x=False, deadline_all=False)
    plan = Plan(x, np.zeros((n, n)), v, np.ones(n, np.int64), np.full(n, 100.0), np.array([1.0, 1.0, 1.0, 0.5]),
                np.zeros(n), np.zeros((n, n), np.int64), np.zeros((n, n), bool), in_g, np.array([0.0, 1.0, 0.0, 0.0]))
    out = scratch(n)
    ybits = np.zeros(n, np.int64)
    m = _algorithm2_l3(1, plan, rules, out, rem, np.array([0b1110, 0, 0, 0], np.int64), ybits, np.zeros(n, np.int64),
                       np.zeros((C_BITS, n), np.int64))
    assert m == 2 and out.order[:2].tolist() == [0, 1]
    assert x[0].tolist() == [0, 1, 1, 0] and x[1].tolist() == [1, 0, 0, 0]
    assert ybits[0] == 0b0110 and ybits[1] == 0b0001
    assert abs(out.deadline[0] - 0.9) < 1e-12 and abs(out.deadline[1] - 1.0) < 1e-12


# ---- line 16's selection by counting (_lightest_bits) against the bounded insertion (_lightest) -----------
def lightest_set(cand, keys, q):
    """The receivers _lightest keeps (the array routine's line 16), as a bit set."""
    c, k = cand.copy(), keys.copy()
    _lightest(c, k, c.shape[0], q)
    return bits_of(np.isin(np.arange(64), c[:q]))


@st.composite
def line16_keys(draw):
    """Candidates (increasing ids < 63) and keys: real values, values on a grid of TIE_S / 2 (exact and
    near ties at 1e-9 s, SM71), a few distinct values (exact ties), the notebooks' scale (~0.01-1 s) with
    keys within a few TIE_S of one another, or with an infinite or NaN key."""
    nc = draw(st.integers(2, 62))
    q = draw(st.integers(1, nc - 1))
    cand = np.sort(np.random.default_rng(draw(st.integers(0, 2**32 - 1))).choice(63, nc, replace=False))
    kind = draw(st.sampled_from(["real", "grid", "few", "scaled", "odd"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "real":
        keys = rng.random(nc)
    elif kind == "grid":
        keys = rng.integers(0, draw(st.integers(1, 8)), nc) * (TIE_S / 2)
    elif kind == "few":
        keys = rng.choice(np.array(draw(st.lists(st.floats(0.0, 2.0), min_size=1, max_size=4))), nc)
    elif kind == "scaled":
        keys = draw(st.sampled_from([0.01, 0.3, 0.9])) + rng.integers(0, 6, nc) * (TIE_S * draw(
            st.sampled_from([0.5, 0.999, 1.0, 1.001, 2.0]))) + rng.random(nc) * draw(st.sampled_from([0.0, 1e-12]))
    else:
        keys = rng.random(nc)
        keys[rng.integers(0, nc)] = draw(st.sampled_from([np.inf, np.nan]))
    return cand.astype(np.int64), keys.astype(float), q


@settings(max_examples=1000, deadline=None)
@given(case=line16_keys())
def test_counting_selection_takes_the_insertions_set(case):
    cand, keys, q = case
    nc = cand.shape[0]
    got = _lightest_bits(cand, keys, nc, q, np.zeros(nc, np.int64), np.zeros(nc), np.zeros(nc, np.int64))
    if got >= 0:                                        # else the caller runs _lightest itself
        assert got == lightest_set(cand, keys, q)


def test_counting_selection_answers_when_the_cut_is_clear():
    # distinct keys 2 ns apart: no tie within TIE_S anywhere, so the counting path must answer (not -1)
    rng = np.random.default_rng(1)
    for nc in (2, 5, 40, 62):
        cand = np.sort(rng.choice(63, nc, replace=False)).astype(np.int64)
        keys = 0.3 + rng.permutation(nc) * 2e-9
        for q in range(1, nc):
            got = _lightest_bits(cand, keys, nc, q, np.zeros(nc, np.int64), np.zeros(nc), np.zeros(nc, np.int64))
            assert got == bits_of(np.isin(np.arange(64), cand[np.argsort(keys)[:q]]))
    # a tie at the cut (keys 0, 1, 1 and q = 2) or within TIE_S of it: left to _lightest
    cand = np.array([3, 7, 9], np.int64)
    for keys in ([0.0, 1.0, 1.0], [0.0, 1.0, 1.0 + 0.5e-9], [1.0 + 0.5e-9, 0.0, 1.0]):
        assert _lightest_bits(cand, np.array(keys), 3, 2, np.zeros(3, np.int64), np.zeros(3), np.zeros(3, np.int64)) == -1


# ---- line 29's order of C (_sort_by_c) against Python's stable sort -----------------------------------------
@settings(max_examples=300, deadline=None)
@given(n=st.integers(2, 63), data=st.data())
def test_order_of_c_is_the_stable_sort_by_c(n, data):
    # pairs (i, j) in any order, c_ij from 0 to 3n: those >= n share the counting sort's last bucket, which an
    # insertion sort then orders; the result must be sorted(key=-c_ij), stable, as line 29 reads it (SM62)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    c = rng.integers(0, data.draw(st.sampled_from([1, n, 3 * n])) + 1, (n, n)).astype(np.int64)
    nC = data.draw(st.integers(0, n * n))
    flat = rng.choice(n * n, nC, replace=False)
    pairs = [(int(f) // n, int(f) % n) for f in flat]
    pk = np.array([_pair(i, j) for i, j in pairs] + [0] * (n * n - nC), np.int64)
    pc = np.array([c[i, j] for i, j in pairs] + [0] * (n * n - nC), np.int64)
    out = np.full(n * n, -1, np.int64)
    _sort_by_c(pk, pc, nC, int(pc[:nC].max(initial=0)), np.zeros(n + 2, np.int64), out, c)
    assert [_unpair(v) for v in out[:nC].tolist()] == sorted(pairs, key=lambda ij: -c[ij])


# ---- c as bit planes (line 29's order without a sort) ---------------------------------------------------------
@njit(cache=False)
def _finish_steps(planes, rows, resets, n):
    for r in range(rows.shape[0]):
        c_planes_finish(planes, rows[r], resets[r], (1 << n) - 1)


def plane_values(planes, n):
    """min(c_ij, C_SAT) read back from the planes, (n, n)."""
    return np.array([[sum(((int(planes[b, i]) >> j) & 1) << b for b in range(C_BITS)) for j in range(n)]
                     for i in range(n)])


@settings(max_examples=300, deadline=None)
@given(n=st.integers(2, 63), data=st.data())
def test_bit_planes_follow_c_through_multicast_ends(n, data):
    # c from 0 to C_SAT + 3 (saturated values included); then multicast ends as _finish applies them to c
    # (SM55: c_ij <- 0 for the receivers and j = i, c_ij + 1 for the others): the planes kept by
    # c_planes_finish must equal min(c, C_SAT) of c updated the same way, and c_planes of it
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    c = rng.integers(0, data.draw(st.sampled_from([0, 2, C_SAT - 1, C_SAT + 3])) + 1, (n, n)).astype(np.int64)
    np.fill_diagonal(c, 0)
    planes = c_planes(c, np.zeros((C_BITS, n), np.int64))
    assert (plane_values(planes, n) == np.minimum(c, C_SAT)).all()
    steps = data.draw(st.integers(1, 3 * C_SAT))
    rows = rng.integers(0, n, steps).astype(np.int64)
    density = data.draw(st.sampled_from([0.0, 0.1, 0.5]))
    resets = np.zeros(steps, np.int64)
    for r in range(steps):
        i = int(rows[r])
        on = rng.random(n) < density
        on[i] = True
        resets[r] = bits_of(on)
        c[i] = np.where(on, 0, c[i] + 1)
    _finish_steps(planes, rows, resets, n)
    assert (plane_values(planes, n) == np.minimum(c, C_SAT)).all()
    assert (planes == c_planes(c, np.zeros((C_BITS, n), np.int64))).all()


@settings(max_examples=300, deadline=None)
@given(n=st.integers(2, 63), data=st.data())
def test_bit_planes_give_the_stable_order_by_c(n, data):
    # tasks (rows in any order) with sets of pairs: reading each value of c from the largest down, the tasks
    # in order, each one's pairs of that value in increasing j, gives sorted(key=-c_ij) of the pairs in
    # (task, j) order (line 29, SM62), where every c_ij of the sets is below C_SAT (_c_top below it)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    c = rng.integers(0, data.draw(st.sampled_from([0, 3, C_SAT - 1, C_SAT + 3])) + 1, (n, n)).astype(np.int64)
    planes = c_planes(c, np.zeros((C_BITS, n), np.int64))
    tasks = [int(i) for i in rng.permutation(n)[:data.draw(st.integers(1, n))]]
    sets = [bits_of(rng.random(n) < 0.5) or 1 for _ in tasks]
    pairs = [(i, j) for i, b in zip(tasks, sets) for j in range(n) if (b >> j) & 1]
    top = max(_c_top(planes, i, b) for i, b in zip(tasks, sets))
    assert top == min(max(c[ij] for ij in pairs), C_SAT)
    if top == C_SAT:
        return                                          # (_algorithm2_l3 sorts these with _sort_by_c)
    nb = int(top).bit_length()
    got = [(i, j) for cv in range(top, -1, -1) for i, b in zip(tasks, sets)
           for j in range(n) if (_c_equal(planes, i, b, cv, nb) >> j) & 1]
    assert got == sorted(pairs, key=lambda ij: -c[ij])
