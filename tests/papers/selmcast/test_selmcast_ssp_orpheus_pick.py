"""Orpheus's receivers in the compiled SSP loop (ssp_kernel._orpheus_pick, SM65) against the rule it
replaced: the first max(p, |due|) of numba's ``np.argsort`` of the keys (due -1, own key infinite),
including keys that tie at the cut (drawn from a handful of values), where the sort's order decides."""
import numpy as np
from hypothesis import given, settings, strategies as st
from numba import njit

from simlib.papers.selmcast import ssp_kernel as K


@njit(cache=False)
def _argsort_rule(keys, count):
    return np.argsort(keys)[:count]


def _reference(u, due_row, kappa, p):
    keys = u.copy()
    keys[due_row] = -1.0
    keys[kappa] = np.inf
    row = np.zeros(u.size, np.int8)
    row[_argsort_rule(keys, max(p, int(due_row.sum())))] = 1
    return row


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 63).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(0, n - 1), st.integers(1, n - 1),
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.one_of(st.lists(st.floats(0.0, 1.0, exclude_max=True), min_size=n, max_size=n),
              st.lists(st.sampled_from([0.1, 0.25, 0.5]), min_size=n, max_size=n),
              st.lists(st.sampled_from([0.0, 0.01, 0.0101, 0.3, 0.31, 0.999]), min_size=n, max_size=n)))))
def test_pick_is_the_argsort_rule(case):
    n, kappa, p, due_row, u = case
    due_row = np.array(due_row)
    due_row[kappa] = False
    due = np.zeros((n, n), bool)
    due[kappa] = due_row
    x = np.zeros((n, n), np.int8)
    in_g = np.zeros(n, bool)
    ci = K.counters().ints
    orph_u = np.concatenate([np.zeros(n), np.asarray(u, float)])   # the second n uniforms are this pick's
    ci[K.USED_U] = n
    K._orpheus_pick(kappa, p, due, x, in_g, orph_u, np.empty(n), np.empty(K.ORPHEUS_BUCKETS, np.int64), ci)
    ref = _reference(np.asarray(u, float), due_row, kappa, p)
    assert x[kappa].tolist() == ref.tolist()
    assert ci[K.NX] == ref.sum() == max(p, due_row.sum()) and ci[K.USED_U] == 2 * n and in_g[kappa]
    assert not x[np.arange(n) != kappa].any()
