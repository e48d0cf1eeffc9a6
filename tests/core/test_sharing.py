"""The compiled link-sharing service (simlib.core.sharing) against the exact max-min reference of
simlib.core.maxmin, hand-derived cases, and the N6 completion tolerance's edge cases."""
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from simlib.core.maxmin import allocate_rates, reference_rates
from simlib.core.sharing import (BIG_SWITCH_MAX, drain, flow_table, set_links, set_receivers, share_big_switch,
                                 share_big_switch_priority, share_rates)
from simlib.core.tolerance import ABS_TOL_BITS, REL_TOL, completion_tol, is_done


def shared(caps, flow_links, prio, active=None, width=None, single=True):
    """Rates of ``share_rates`` for flows given as link lists (inactive slots: NaN); ``single``:
    classes of one flow take the shortcut (False: the water-filling)."""
    nf = len(flow_links)
    width = width or max(len(x) for x in flow_links)
    table = flow_table(nf, width, len(caps))
    for f, links in enumerate(flow_links):
        set_links(table, f, np.asarray(links, np.int64), len(links))
    active = np.ones(nf, bool) if active is None else np.asarray(active)
    rates = np.full(nf, np.nan)
    share_rates(np.asarray(caps, float), table, active, np.asarray(prio, np.int64), rates, single)
    return rates


def test_multicast_runs_at_its_slowest_receiver():
    # host i: ingress i, egress 3 + i (n = 3); the multicast 0 -> {1, 2} crosses 0, 4, 5
    caps = [10.0, 10.0, 10.0, 9.0, 4.0, 6.0]
    assert shared(caps, [[0, 4, 5]], [0]).tolist() == [4.0]


def test_strict_priority_then_max_min_inside_a_class():
    # class 1 (slot 1, limited by link 2's 6) takes 6 of link 0 (cap 10); slots 0 and 2 (class 5)
    # share the 4 left, slot 2 also crosses link 1 (cap 1): it gets 1, slot 0 the other 3 (work-conserving)
    rates = shared([10.0, 1.0, 6.0], [[0], [0, 2], [0, 1]], [5, 1, 5], width=2)
    assert rates.tolist() == [3.0, 6.0, 1.0]


def test_hand_case_priority_order_is_the_class_not_the_slot():
    # slot 1 has the higher priority (class 1) and takes link 0 (cap 10) up to link 1's 6
    rates = shared([10.0, 6.0], [[0], [0, 1]], [5, 1])
    assert rates.tolist() == [4.0, 6.0]


def test_inactive_slots_are_left_alone():
    rates = shared([10.0], [[0], [0], [0]], [0, 0, 0], active=[True, False, True])
    assert rates[0] == rates[2] == 5.0 and np.isnan(rates[1])


def test_hand_case_single_flow_classes_take_their_slowest_link_in_class_order():
    # classes 2 < 3 < 7, one flow each: slot 1 (class 2) takes min(10, 9) = 9 of links 0 and 1;
    # slot 2 (class 3) then finds 1 left on link 0 and 4 on link 2: 1; slot 0 (class 7) gets
    # min(0 on link 0, 3 on link 2) = 0.  Both paths give these rates.
    caps, links, prio = [10.0, 9.0, 4.0], [[0, 2], [0, 1], [2, 0]], [7, 2, 3]
    for single in (True, False):
        assert shared(caps, links, prio, single=single).tolist() == [0.0, 9.0, 1.0]


@st.composite
def flow_tables(draw, cap, max_links, max_flows, max_prio, links):
    """(caps, links per flow, class per flow, active) with capacities drawn from ``cap`` and each
    flow's links from ``links(n_links)``; at least one flow active."""
    n_links = draw(st.integers(1, max_links))
    caps = draw(st.lists(cap, min_size=n_links, max_size=n_links))
    nf = draw(st.integers(1, max_flows))
    flows = [draw(links(n_links)) for _ in range(nf)]
    prio = draw(st.lists(st.integers(0, max_prio), min_size=nf, max_size=nf))
    active = draw(st.lists(st.booleans(), min_size=nf, max_size=nf).filter(any))
    return caps, flows, prio, active


def _distinct_links_in_any_order(n_links):
    return st.permutations(range(n_links)).flatmap(lambda perm: st.integers(1, n_links).map(lambda k: perm[:k]))


def _sorted_links(n_links):
    return st.sets(st.integers(0, n_links - 1), min_size=1, max_size=n_links).map(sorted)


#: Tables where many classes hold one flow: distinct links per flow, real-valued capacities.
single_flow_classes = flow_tables(st.floats(1e-3, 1e11, allow_nan=False), 12, 14, 20, _distinct_links_in_any_order)
#: Few classes of several (multicast) flows, integer capacities (the exact reference works in fractions).
instances = flow_tables(st.integers(1, 50), 8, 10, 3, _sorted_links)


@settings(max_examples=300, deadline=None)
@given(single_flow_classes)
def test_single_flow_shortcut_gives_the_water_filling_rates_bit_for_bit(inst):
    caps, links, prio, active = inst
    fast = shared(caps, links, prio, active, single=True)
    slow = shared(caps, links, prio, active, single=False)
    assert fast.tobytes() == slow.tobytes()


@settings(max_examples=300, deadline=None)
@given(instances)
def test_matches_the_exact_max_min_reference(inst):
    """Priority classes and multicast flows (several links each): the rates are the exact
    strict-priority max-min rates of the active flows (to float rounding) and match the
    production solver of core.maxmin."""
    caps, links, prio, active = inst
    rates = shared(caps, links, prio, active)
    act = [f for f in range(len(links)) if active[f]]
    exact = reference_rates(caps, [links[f] for f in act], [prio[f] for f in act])
    np.testing.assert_allclose(rates[act], [float(r) for r in exact], rtol=1e-9, atol=1e-9)
    lens = np.array([len(x) for x in links])
    fend = np.cumsum(lens)
    other = allocate_rates(np.asarray(caps, float), fend - lens, fend, np.concatenate(links).astype(np.int64),
                           np.array(act), np.asarray(prio, np.int64))
    np.testing.assert_allclose(rates[act], other[act], rtol=1e-12)
    for l in range(len(caps)):                              # no link is over its capacity
        assert sum(rates[f] for f in act if l in links[f]) <= caps[l] * (1 + 1e-12)


def test_drain_floors_at_zero_and_empties_infinite_rates():
    rem = np.array([10.0, 10.0, 10.0, 10.0])
    drain(rem, np.array([1.0, 100.0, np.inf, 1.0]), np.array([True, True, True, False]), 4, 2.0)
    assert rem.tolist() == [8.0, 0.0, 0.0, 10.0]


def test_tolerance_edges():
    vol = 1.6e9                                            # 200 MB in bits: the relative term governs
    assert completion_tol(vol) == vol * REL_TOL
    assert is_done(vol * REL_TOL, vol) and not is_done(np.nextafter(vol * REL_TOL, np.inf), vol)
    assert completion_tol(1.0) == ABS_TOL_BITS               # tiny flow: the absolute floor governs
    assert is_done(ABS_TOL_BITS, 1.0) and not is_done(2 * ABS_TOL_BITS, 1.0)
    assert is_done(0.0, 0.0) and not is_done(1.0, 0.0)
    assert completion_tol(ABS_TOL_BITS / REL_TOL) == ABS_TOL_BITS  # where the two terms meet


def test_the_flow_network_and_its_solvers_use_the_one_tolerance():
    from simlib.core import incremental, levels
    assert incremental.REL_TOL is REL_TOL and levels.ABS_TOL_BITS is ABS_TOL_BITS


def scan_rates(caps, flow_links, prio, active):
    """The water-filling of ``share_rates`` as its docstring states it, by full scans (as the solver was
    before decision N11): per class in slot order, the first link (class order) of smallest fair share
    freezes its unfrozen flows in slot order, each subtracting its rate from its links in link order.
    Plain Python floats: the same float operations in the same order, so the same bits."""
    resid = [float(c) for c in caps]
    rates = [float("nan")] * len(flow_links)
    act = [f for f in range(len(flow_links)) if active[f]]
    for cls in sorted({prio[f] for f in act}):
        flows = [f for f in act if prio[f] == cls]
        cnt = [0] * len(caps)
        order = []
        for f in flows:
            for l in flow_links[f]:
                cnt[l] += 1
                if l not in order:
                    order.append(l)
        unfrozen = list(flows)
        while unfrozen:
            best, bl = float("inf"), -1
            for l in order:
                if cnt[l] > 0 and resid[l] / cnt[l] < best:
                    best, bl = resid[l] / cnt[l], l
            best = max(best, 0.0)
            for f in [f for f in unfrozen if bl in flow_links[f]]:
                rates[f] = best
                unfrozen.remove(f)
                for l in flow_links[f]:
                    resid[l] -= best
                    cnt[l] -= 1
    return np.array(rates)


#: Many flows per class over real-valued capacities, links in any order: many water-filling levels.
crowded = flow_tables(st.floats(1e-3, 1e11, allow_nan=False), 12, 40, 2, _distinct_links_in_any_order)


#: Capacities from a few values, so that fair shares tie exactly and often (ties go to the link reached first).
tied = flow_tables(st.sampled_from([0.0, 0.1, 0.3, 1 / 3, 1.0, 2.0, 3.0]), 12, 40, 2, _distinct_links_in_any_order)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(crowded, tied))
def test_link_lists_give_the_full_scan_rates_bit_for_bit(inst):
    """Decision N11: freezing a link's flows from its own list (and dropping exhausted links from the scan)
    gives every rate of the full scan, bit for bit, and the same capacity left (ties to the link reached first)."""
    caps, links, prio, active = inst
    for single in (True, False):
        fast = shared(caps, links, prio, active, single=single)
        assert fast.tobytes() == scan_rates(caps, links, prio, active).tobytes()


def test_hand_case_tie_goes_to_the_link_reached_first():
    # slots 0 and 1 share link 0 (cap 4: fair share 2); slot 1 also crosses link 1 (cap 2, one flow: 2):
    # a tie at 2.  Link 0, reached first, freezes both at 2; link 1 then has 0 left and no flow.
    assert shared([4.0, 2.0], [[0], [0, 1]], [0, 0]).tolist() == [2.0, 2.0]
    # flows with the tighter link second: link 1 (cap 1) freezes slot 1 at 1, slot 0 gets 3 on link 0
    assert shared([4.0, 1.0], [[0], [0, 1]], [0, 0]).tolist() == [3.0, 1.0]


def big_switch(n, receivers, active, caps):
    """Rates of ``share_big_switch`` and of ``share_rates`` (one class, the same flows as a table) for
    senders 0..n-1 multicasting to ``receivers[i]`` (sets of hosts); inactive senders: NaN."""
    rows, cols = np.zeros(n, np.int64), np.zeros(n, np.int64)
    links = []
    for i in range(n):
        set_receivers_py(rows, cols, i, receivers[i])
        links.append([i] + [n + j for j in sorted(receivers[i])])
    table = flow_table(n, n + 1, 2 * n)
    for f, fl in enumerate(links):
        set_links(table, f, np.asarray(fl, np.int64), len(fl))
    fast, general = np.full(n, np.nan), np.full(n, np.nan)
    caps, act = np.asarray(caps, float), np.asarray(active, bool)
    share_big_switch(caps, rows, cols, act, fast, flow_table(n, n + 1, 2 * n))
    share_rates(caps, table, act, np.zeros(n, np.int64), general)
    return fast, general, links


def set_receivers_py(rows, cols, s, recv):
    """``set_receivers`` as a bit set built in Python (the kernel builds it in compiled code)."""
    set_receivers(rows, cols, s, np.int64(sum(1 << j for j in recv)))


@st.composite
def big_switches(draw, cap):
    """(n, receivers per sender, active, caps (2n,)) with n up to BIG_SWITCH_MAX; a sender may even
    reach no host or itself (the solver does not care)."""
    n = draw(st.integers(1, BIG_SWITCH_MAX))
    dense = draw(st.sampled_from([0.1, 0.3, 0.7, 1.0]))
    receivers = [draw(st.sets(st.integers(0, n - 1), max_size=n))
                 if draw(st.booleans()) else {j for j in range(n) if draw(st.floats(0, 1)) < dense}
                 for _ in range(n)]
    active = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    caps = draw(st.lists(cap, min_size=2 * n, max_size=2 * n))
    return n, receivers, active, caps


#: Capacities from a few values (exact equal fair shares everywhere), real-valued ones, and a few
#: edge values (zero, infinite, NaN).
_tie_caps = st.sampled_from([0.0, 0.1, 0.3, 1 / 3, 1.0, 2.0, 3.0, 40e9])
_real_caps = st.floats(1e-3, 1e11, allow_nan=False)
_edge_caps = st.one_of(_tie_caps, st.sampled_from([np.inf, np.nan, 0.0]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(big_switches(_tie_caps), big_switches(_real_caps), big_switches(_edge_caps)))
def test_big_switch_gives_share_rates_bit_for_bit(inst):
    """Decision N18: the big-switch solver on bit sets gives every rate of ``share_rates`` (one class,
    the same flows as a table) bit for bit, ties to the link reached first included, and the full-scan
    reference's rates."""
    n, receivers, active, caps = inst
    fast, general, links = big_switch(n, receivers, active, caps)
    assert fast.tobytes() == general.tobytes()
    if any(active) and np.isfinite(caps).all():         # (the full scan has no case for infinite shares)
        assert fast.tobytes() == scan_rates(caps, links, [0] * n, active).tobytes()


def test_big_switch_keeps_rows_and_columns_consistent():
    rng = np.random.default_rng(3)
    n = BIG_SWITCH_MAX
    rows, cols = np.zeros(n, np.int64), np.zeros(n, np.int64)
    x = np.zeros((n, n), bool)
    for _ in range(300):
        s = int(rng.integers(n))
        x[s] = rng.random(n) < rng.random()
        set_receivers_py(rows, cols, s, np.flatnonzero(x[s]).tolist())
        for j in range(n):
            assert int(cols[j]) == sum(1 << int(i) for i in np.flatnonzero(x[:, j]))
        assert int(rows[s]) == sum(1 << int(j) for j in np.flatnonzero(x[s]))


def test_hand_case_big_switch_tie_goes_to_the_link_reached_first():
    # n = 4, senders -> receivers 0 -> {1, 2}, 1 -> {0, 2}, 2 -> {0, 3}, 3 -> {0, 2}: egresses 0 (link 4, cap 0.3;
    # senders 1, 2, 3) and 2 (link 6, cap 0.3; senders 0, 1, 3) tie at b = 0.3 / 3, below every other share.
    # The class reaches link 6 first (sender 0's second link), link 4 only with sender 1: link 6 freezes
    # senders 0, 1, 3 at b, and sender 2 gets what link 4 has left, 0.3 - b - b (0.10000000000000002, not b;
    # freezing link 4 first, the lower id, would give sender 0 that value instead).
    b = 0.3 / 3
    fast, general, _ = big_switch(4, [{1, 2}, {0, 2}, {0, 3}, {0, 2}], [True] * 4,
                                  [0.7, 0.1, 0.7, 0.3, 0.3, 1.0, 0.3, 0.7])
    assert fast.tolist() == general.tolist() == [b, b, 0.3 - b - b, b]
    assert 0.3 - b - b != b


def test_hand_case_big_switch_tie_between_an_ingress_and_an_egress():
    # n = 4, senders 0, 1, 2 -> {3}: the class reaches ingress 0, egress 3 (link 7: cap 0.3, three flows, share
    # b = 0.3 / 3), ingress 1, ingress 2.  Ingress 0 at b ties with link 7 and is reached first: it freezes sender
    # 0 alone at b, and link 7's 0.3 - b goes to senders 1 and 2, (0.3 - b) / 2 = 0.1 each (not b).  Ingress 1 at
    # b instead is reached after link 7, which freezes all three at b.
    b = 0.3 / 3
    recv, act = [{3}, {3}, {3}, set()], [True, True, True, False]
    fast, general, _ = big_switch(4, recv, act, [b, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.3])
    assert fast.tolist()[:3] == general.tolist()[:3] == [b, (0.3 - b) / 2, (0.3 - b) / 2] == [b, 0.1, 0.1]
    fast, general, _ = big_switch(4, recv, act, [1.0, b, 1.0, 1.0, 1.0, 1.0, 1.0, 0.3])
    assert fast.tolist()[:3] == general.tolist()[:3] == [b, b, b]
    assert b != 0.1


def big_switch_priority(n, receivers, active, caps, prio):
    """Rates of ``share_big_switch_priority`` and of ``share_rates`` (strict priority, the same flows as a
    table) for senders 0..n-1 multicasting to ``receivers[i]`` at class ``prio[i]``; inactive senders: NaN."""
    rows, cols = np.zeros(n, np.int64), np.zeros(n, np.int64)
    table = flow_table(n, n + 1, 2 * n)
    for i in range(n):
        set_receivers_py(rows, cols, i, receivers[i])
        links = [i] + [n + j for j in sorted(receivers[i])]
        set_links(table, i, np.asarray(links, np.int64), len(links))
    fast, general = np.full(n, np.nan), np.full(n, np.nan)
    caps, act, prio = np.asarray(caps, float), np.asarray(active, bool), np.asarray(prio, np.int64)
    if not share_big_switch_priority(caps, rows, act, prio, fast, table):
        assert len({int(prio[i]) for i in range(n) if act[i]}) < int(act.sum())   # only for a shared class
        share_rates(caps, table, act, prio, fast)
    share_rates(caps, table, act, prio, general)
    return fast, general


@st.composite
def priority_switches(draw, cap):
    """A big switch (as :func:`big_switches`) with a class per sender: distinct classes (SM50's, one task
    each) or, sometimes, a few shared ones."""
    n, receivers, active, caps = draw(big_switches(cap))
    if draw(st.booleans()):
        prio = draw(st.permutations(range(n)))
    else:
        prio = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return n, receivers, active, caps, prio


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(priority_switches(_tie_caps), priority_switches(_real_caps), priority_switches(_edge_caps)))
def test_big_switch_priority_gives_share_rates_bit_for_bit(inst):
    """The strict-priority big-switch solver gives every rate of ``share_rates`` on the same flows as a table
    (classes of one flow: each its slowest link in class order; shared classes: share_rates' water-filling)
    bit for bit, zero, infinite and NaN capacities included."""
    n, receivers, active, caps, prio = inst
    fast, general = big_switch_priority(n, receivers, active, caps, prio)
    assert fast.tobytes() == general.tobytes()


def test_hand_case_big_switch_priority_in_class_order():
    # n = 3: sender 0 -> {1, 2} (links 0, 4, 5), 1 -> {2} (1, 5), 2 -> {0} (2, 3); ingress capacities 10,
    # egresses 5, 8, 6.  Classes 7, 2, 3: sender 1 first takes min(10, 6) = 6 (egress 2 is then full), sender
    # 2 min(10, 5) = 5, sender 0 min(10, 8, 0) = 0.  Sender 0 and 1 in one class (2, 2, 3): they share egress
    # 2's 6 (3 each, its fair share being the smallest), then sender 2 takes 5.
    receivers, caps = [{1, 2}, {2}, {0}], [10.0, 10.0, 10.0, 5.0, 8.0, 6.0]
    fast, general = big_switch_priority(3, receivers, [True] * 3, caps, [7, 2, 3])
    assert fast.tolist() == general.tolist() == [0.0, 6.0, 5.0]
    fast, general = big_switch_priority(3, receivers, [True] * 3, caps, [2, 2, 3])
    assert fast.tolist() == general.tolist() == [3.0, 3.0, 5.0]
    fast, _ = big_switch_priority(3, receivers, [True, False, True], caps, [7, 2, 3])   # inactive: untouched
    assert fast[0] == 6.0 and np.isnan(fast[1]) and fast[2] == 5.0
