"""Orpheus's receiver choice with the paper's modification (seed 004 §IV-A1) and the k-round history."""
import itertools

import numpy as np
import pytest

from simlib.papers.selmcast.orpheus import DeliveryHistory, orpheus_bsp, orpheus_receivers


def test_due_workers_come_first_then_random_until_p():
    rng = np.random.default_rng(0)
    for _ in range(50):
        got = orpheus_receivers(3, 10, 4, rng, due=[7, 1])
        assert got.dtype == np.int64 and got.tolist() == sorted(got.tolist())
        assert len(got) == 4 and {1, 7} <= set(got.tolist()) and 3 not in got


def test_more_due_than_p_takes_all_due():
    got = orpheus_receivers(0, 6, 2, np.random.default_rng(1), due=[5, 2, 4])
    assert got.tolist() == [2, 4, 5]


def test_choice_is_uniform_over_subsets():
    # n = 5, sender 0, p = 2: the 6 subsets of {1, 2, 3, 4} are equally likely (1/6 each).
    rng = np.random.default_rng(2)
    draws = 12000
    counts = {c: 0 for c in itertools.combinations(range(1, 5), 2)}
    for _ in range(draws):
        counts[tuple(orpheus_receivers(0, 5, 2, rng).tolist())] += 1
    freq = np.array(list(counts.values())) / draws
    # binomial sd of a 1/6 frequency over 12000 draws is 0.0034; 5 sd
    assert np.all(np.abs(freq - 1 / 6) < 0.017)


def test_bsp_round_equals_one_call_per_sender_in_order():
    n, p = 7, 3
    x = orpheus_bsp(n, p, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    for i in range(n):
        assert np.flatnonzero(x[i]).tolist() == orpheus_receivers(i, n, p, rng).tolist()
    forced = np.zeros((n, n), dtype=bool)
    forced[2, [0, 1, 3, 4]] = True                    # more due than p
    forced[4, 6] = True
    x = orpheus_bsp(n, p, np.random.default_rng(6), forced)
    rng = np.random.default_rng(6)
    for i in range(n):
        assert np.flatnonzero(x[i]).tolist() == \
            orpheus_receivers(i, n, p, rng, due=np.flatnonzero(forced[i])).tolist()


@pytest.mark.parametrize("kwargs, match", [
    (dict(due=[3]), r"due must not contain the sender \(3\)"),
    (dict(due=[9]), r"due must hold worker ids in \[0, 5\]"),
    (dict(due=[1, 1]), "due must not repeat"),
    (dict(due=[1.5]), "due must hold integer worker ids"),
    (dict(p=6), r"p must be an integer in \[1, 5\]"),
])
def test_bad_arguments(kwargs, match):
    args = dict(sender=3, n=6, p=2, rng=np.random.default_rng(0))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        orpheus_receivers(**args)


def test_history_makes_a_pair_due_after_k_rounds_without_delivery():
    # k = 2, n = 3: 0 always sends to 1 only.  After rounds 1 and 2 without 0 -> 2, c_02 = 2 >= k:
    # (0, 2) is due in round 3; after 0 delivers to 2 it resets.
    h = DeliveryHistory(3, k=2)
    x = np.zeros((3, 3), dtype=bool)
    x[0, 1] = True
    assert h.due(0).tolist() == []
    h.record(x)
    assert h.due(0).tolist() == []
    h.record(x)
    assert h.due(0).tolist() == [2]
    assert h.due_matrix()[0].tolist() == [False, False, True]
    x[0, 2] = True
    h.record(x)
    assert h.due(0).tolist() == []
    assert not DeliveryHistory(3, k=None).due_matrix().any()
