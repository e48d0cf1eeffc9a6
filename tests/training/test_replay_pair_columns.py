"""Issue 48 (branch tta10): the compiled in-place merge of a batch of two-replica records (``_merge_pairs``) against
numpy's batched statements it replaced, bit for bit; :class:`PairSyncs` (a multicast log's records as columns) as a
sequence of :class:`SyncRecord` and, read by the replay without its records, the same parse, errors and curves as
the list of its records."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlib.runtime.log import PairSyncs, ScheduleLog, SyncRecord
from simlib.training.learning import load_problem
from simlib.training.replay import Numerics, _merge_pairs, _parse_syncs, replay


def _numpy_batch(params, recs, ptr, mem, w, tptr, tgt):
    """The batched path before tta10 (every new row from the replicas before the batch, then written)."""
    j0 = ptr[recs]
    new = w[j0, None] * params[mem[j0]]
    new += w[j0 + 1, None] * params[mem[j0 + 1]]
    params[tgt[tptr[recs]]] = new
    two = tptr[recs + 1] - tptr[recs] == 2
    if two.any():
        params[tgt[tptr[recs[two]] + 1]] = new[two]


@settings(max_examples=200, deadline=None)
@given(dt=st.sampled_from([np.float32, np.float64]), n=st.integers(2, 12), d=st.integers(1, 40),
       seed=st.integers(0, 2**32 - 1), m=st.integers(1, 20))
def test_merge_pairs_is_numpy_s_batch_bit_for_bit(dt, n, d, seed, m):
    """A batch as :meth:`_Replicas.sync` holds it (distinct targets, each a member, none a member of a later
    record; one or both members replaced), weights of many magnitudes, ±0, ±inf and NaN in the replicas."""
    rng = np.random.default_rng(seed)
    params = (rng.standard_normal((n, d)) * 10.0 ** rng.uniform(-8, 8, (n, d))).astype(dt)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=dt)
    params.flat[rng.integers(0, params.size, 2)] = rng.choice(specials, 2)
    mem, w, tg, ptr, tptr, written = [], [], [], [0], [0], set()
    for _ in range(m):
        free = [x for x in range(n) if x not in written]
        if len(free) < 2:
            break
        a, b = rng.choice(free, 2, replace=False).tolist()
        targets = [b] if rng.random() < 0.7 else [a, b] if rng.random() < 0.5 else [b, a]
        mem += [a, b]
        w += (rng.choice([0.5, 0.3, 1.0, 1e-7, 3.0], 2)).tolist()
        tg += targets
        written.update(targets)
        ptr.append(len(mem))
        tptr.append(len(tg))
    ptr, tptr, mem, tg = (np.array(x, dtype=np.int64) for x in (ptr, tptr, mem, tg))
    w = np.array(w, dtype=dt)
    recs = np.arange(ptr.size - 1)                # in the order drawn (the constraint depends on the order)
    want, got = params.copy(), params.copy()
    with np.errstate(all="ignore"):
        _numpy_batch(want, recs, ptr, mem, w, tptr, tg)
        _merge_pairs(got, recs, ptr, mem, w, tptr, tg)
    assert got.tobytes() == want.tobytes()


@st.composite
def _pair_columns(draw):
    S = draw(st.integers(0, 30))
    launch = draw(st.lists(st.floats(0.0, 10.0), min_size=S, max_size=S))
    src = draw(st.lists(st.integers(0, 5), min_size=S, max_size=S))
    dst = [(s + draw(st.integers(1, 5))) % 6 for s in src]
    its = draw(st.lists(st.integers(0, 9), min_size=2 * S, max_size=2 * S))
    return np.array(launch, dtype=float), src, dst, its[:S], its[S:]


@settings(max_examples=100, deadline=None)
@given(cols=_pair_columns(), weight=st.sampled_from([0.5, 0.3, 1.0]))
def test_pair_syncs_is_the_list_of_its_records(cols, weight):
    launch, src, dst, it_s, it_d = cols
    ps = PairSyncs(launch, src, dst, it_s, it_d, kind="multicast", weights=(weight, 1.0 - weight))
    ref = [SyncRecord(launch=float(a), members=(i, j), iterations=(ki, kj), kind="multicast", finish=float(a),
                      weights=(weight, 1.0 - weight), targets=(j,))
           for a, i, j, ki, kj in zip(launch.tolist(), src, dst, it_s, it_d)]
    assert len(ps) == len(ref) and list(ps) == ref and ps == ref and ref == ps
    assert [ps[i] for i in range(len(ps))] == ref and ps[1:-1] == ref[1:-1] and ps[::3] == ref[::3]
    if ref:
        assert ps[-1] == ref[-1]
        assert [type(x) for x in (ps[0].launch, *ps[0].members, *ps[0].iterations)] == [float, int, int, int, int]
        assert ps != ref[:-1]


def _log(syncs, n=6, duration=10.0, ends_each=10):
    ends = [[float(k + 1) for k in range(ends_each)] for _ in range(n)]
    return ScheduleLog(n=n, duration=duration, bandwidth=np.ones(n), compute_end=ends, syncs=syncs)


@settings(max_examples=100, deadline=None)
@given(cols=_pair_columns(), weight=st.sampled_from([0.5, 0.3]), unfinished=st.sampled_from(["apply", "drop"]))
def test_parse_of_the_columns_is_the_parse_of_the_records(cols, weight, unfinished):
    """Every array of the parse the same, or the same ValueError (iterations inconsistent with the compute
    ends at the launches are drawn often)."""
    launch, src, dst, it_s, it_d = cols
    ps = PairSyncs(launch, src, dst, it_s, it_d, kind="multicast", weights=(weight, 1.0 - weight))
    ends = [np.arange(1.0, 11.0) for _ in range(6)]
    outs = []
    for syncs in (ps, list(ps)):
        try:
            outs.append(_parse_syncs(6, 10.0, ends, syncs, unfinished))
        except ValueError as e:
            outs.append(str(e))
    a, b = outs
    if isinstance(b, str):
        assert a == b
        return
    for f in ("launch", "ptr", "mem", "its", "w", "c", "tptr", "tgt", "apply"):
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), f


def test_parse_of_the_columns_raises_the_records_errors():
    """A launch past the duration, a member out of range: the messages of the record-by-record parse."""
    ends = [np.arange(1.0, 11.0) for _ in range(6)]
    for launch, src, dst in (([1.5, 11.0], [0, 1], [1, 2]), ([1.5, 2.5], [0, 1], [1, 7]), ([1.5, 2.5], [0, 1], [1, 1])):
        ps = PairSyncs(launch, src, dst, [1, 2], [1, 2], kind="multicast", weights=(0.5, 0.5))
        msgs = []
        for syncs in (ps, list(ps)):
            with pytest.raises(ValueError) as e:
                _parse_syncs(6, 10.0, ends, syncs, "apply")
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("one_at_a_time", [False, True])
def test_ssp_log_replays_as_the_list_of_its_records(dtype, one_at_a_time):
    """A SelMcast run's schedule log (columns) and the same log with its records listed: the same curve and
    replicas, bit for bit (batches of many pair merges: the compiled merge against numpy's since ``_merge_pairs``
    is tested above, and the columns' parse against the records')."""
    from simlib.papers.selmcast.ssp_replay import multicast_schedule_log
    from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate

    log = simulate(SSPScenario.from_params(dict(scheme="selmcast", n=12, trace="lstm", duration_s=30.0)),
                   np.random.SeedSequence(3))
    sl = multicast_schedule_log(log)
    assert isinstance(sl.syncs, PairSyncs) and len(sl.syncs) > 100
    listed = ScheduleLog(n=sl.n, duration=sl.duration, bandwidth=sl.bandwidth, compute_end=sl.compute_end,
                         syncs=list(sl.syncs))
    args = dict(model="mlp", lr=0.1, seed=2, eval_every_s=0.5, numerics=Numerics(dtype=dtype, one_at_a_time=one_at_a_time))
    prob = load_problem("digits")
    a, b = replay(sl, prob, **args), replay(listed, prob, **args)
    pd.testing.assert_frame_equal(a.curve, b.curve, check_exact=True)
    assert a.final_params.tobytes() == b.final_params.tobytes()


@st.composite
def _pair_logs(draw):
    """A small log of one-way merges at random times among workers with random compute ends (iterations: the
    compute ends at or before each launch), so senders and receivers end iterations inside held-back batches."""
    n = draw(st.integers(2, 5))
    ends = [sorted(draw(st.lists(st.floats(0.05, 5.95).map(lambda x: round(x, 2)), min_size=1, max_size=12,
                                 unique=True))) for _ in range(n)]
    S = draw(st.integers(1, 40))
    launch = sorted(draw(st.lists(st.floats(0.0, 6.0).map(lambda x: round(x, 1)), min_size=S, max_size=S)))
    src = draw(st.lists(st.integers(0, n - 1), min_size=S, max_size=S))
    dst = [(s + draw(st.integers(1, n - 1))) % n for s in src]
    it = lambda w, t: int(np.searchsorted(ends[w], t, side="right"))      # noqa: E731
    ps = PairSyncs(launch, src, dst, [it(s, t) for s, t in zip(src, launch)], [it(d, t) for d, t in zip(dst, launch)],
                   kind="multicast", weights=(0.5, 0.5))
    return ScheduleLog(n=n, duration=6.0, bandwidth=np.ones(n), compute_end=ends, syncs=ps)


@settings(max_examples=60, deadline=None)
@given(log=_pair_logs(), one_at_a_time=st.booleans())
def test_replay_of_pair_columns_is_the_replay_of_the_records(log, one_at_a_time):
    """The held-back state of :meth:`_Replicas.sync_pair` (the columns' handler) against :meth:`_Replicas.sync`
    (the records'): the same curve and replicas, bit for bit."""
    listed = ScheduleLog(n=log.n, duration=log.duration, bandwidth=log.bandwidth, compute_end=log.compute_end,
                         syncs=list(log.syncs))
    args = dict(model="mlp", lr=0.5, seed=1, eval_every_s=0.7, numerics=Numerics(one_at_a_time=one_at_a_time))
    prob = _DIGITS.setdefault("p", load_problem("digits"))
    a, b = replay(log, prob, **args), replay(listed, prob, **args)
    pd.testing.assert_frame_equal(a.curve, b.curve, check_exact=True)
    assert a.final_params.tobytes() == b.final_params.tobytes()


_DIGITS: dict = {}
