"""ComputeTimes' memo of uniforms (issue 48): the same draws as one generator per worker and run.

The reference is the path without the memo: ``ComputeTimes(sampler, ...)`` draws ``sampler(rng_w, chunk)``
from ``default_rng(child_seed(seed, w))``.  With ``quantile`` the uniforms come from the process-wide memo
and ``take_all`` maps several workers' chunks at once; every value must be bit for bit the reference's.
"""
import numpy as np
import pytest

from simlib.runtime import cluster
from simlib.runtime.cluster import ComputeTimes
from simlib.workloads.traces import Trace


def _trace():
    return Trace("t", np.random.default_rng(3).lognormal(0.0, 0.5, 500))


def _reference(tr, n, seed, chunk, scale=None):
    return ComputeTimes(tr.sample, n, seed, chunk=chunk, scale=scale)      # no quantile: no memo


def _memo(tr, n, seed, chunk, scale=None):
    return ComputeTimes(tr.sample, n, seed, chunk=chunk, scale=scale, quantile=tr.quantile)


def _same(a, b):
    assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


@pytest.mark.parametrize("chunk", [1, 7, 256])
def test_take_all_next_and_take_equal_the_reference(chunk):
    tr, n = _trace(), 5
    seed = np.random.SeedSequence(11, spawn_key=(2,))
    scale = [1.0, 2.5, 0.3, 1.0, 7.0]
    ref, got = _reference(tr, n, seed, chunk, scale), _memo(tr, n, seed, chunk, scale)
    for k in (3, 64, 1, 300):              # within a chunk, across chunks, when every buffer is empty or not
        want = np.stack([ref.take(w, k) for w in range(n)])
        _same(got.take_all(k), want)
    for w in (0, 4, 2):
        _same([got.next(w) for _ in range(9)], [ref.next(w) for _ in range(9)])
        _same(got.take(w, 20), ref.take(w, 20))
    _same(got.take_all(50), np.stack([ref.take(w, 50) for w in range(n)]))


def test_runs_sharing_the_memo_draw_what_their_own_generators_would():
    tr, n, chunk = _trace(), 4, 16
    seed = np.random.SeedSequence(5, spawn_key=(0,))
    first = _memo(tr, n, seed, chunk)
    first.take_all(40)                                    # draws three chunks per worker into the memo
    again, ref = _memo(tr, n, seed, chunk), _reference(tr, n, seed, chunk)
    _same(again.take_all(60), np.stack([ref.take(w, 60) for w in range(n)]))   # two cached, two new
    other = _memo(tr.rescaled(2.0), n, seed, chunk)       # another trace: same uniforms, its own quantile
    _same(other.take_all(10), np.stack([_reference(tr.rescaled(2.0), n, seed, chunk).take(w, 10) for w in range(n)]))
    more = _memo(tr, n + 3, seed, chunk)                  # more workers: the first n streams are the same
    _same(more.take_all(20), np.stack([_reference(tr, n + 3, seed, chunk).take(w, 20) for w in range(n + 3)]))


def test_memo_emptied_past_its_bound_keeps_the_draws(monkeypatch):
    monkeypatch.setattr(cluster, "UNIFORM_MEMO_BYTES", 100)
    tr, n, chunk = _trace(), 6, 8
    seed = np.random.SeedSequence(9, spawn_key=(1,))
    a = _memo(tr, n, seed, chunk)
    a.take_all(5)
    b = _memo(tr, n, seed, chunk)                         # the memo was emptied: fresh streams
    assert list(cluster._UNIFORMS["streams"].values()) == [b._uniforms] and b._uniforms is not a._uniforms
    ref = _reference(tr, n, seed, chunk)
    want = np.stack([ref.take(w, 30) for w in range(n)])
    _same(b.take_all(30), want)
    _same(np.concatenate([a.take_all(0), a.take_all(25)], axis=1)[:, :25], want[:, 5:30])


def test_trace_compute_times_uses_the_memo_only_for_its_own_sampling():
    tr = _trace()
    ct = tr.compute_times(3, 4)
    assert ct._quantile is not None
    seq = np.random.SeedSequence([1, 2], spawn_key=(0,))  # entropy not an int: no memo
    assert _memo(tr, 3, seq, 8)._quantile is None
    _same(_memo(tr, 3, seq, 8).take_all(9), np.stack([_reference(tr, 3, seq, 8).take(w, 9) for w in range(3)]))


def test_take_all_maps_only_the_draws_asked_of_a_fresh_chunk():
    """A DrawBuffer's widths (64, then doubling) within 256-uniform chunks: each call maps only its k columns
    (counted in the uniforms handed to ``quantile``) and still draws the reference's values, also when a worker's
    own ``next`` / ``take`` follows a chunk mapped in part."""
    tr, n, chunk = _trace(), 4, 256
    seed = np.random.SeedSequence(13, spawn_key=(3,))
    mapped = []

    def counting(u):
        mapped.append(np.asarray(u).size)
        return tr.quantile(u)

    got = ComputeTimes(tr.sample, n, seed, chunk=chunk, scale=[1.0, 3.0, 0.5, 2.0], quantile=counting)
    ref = _reference(tr, n, seed, chunk, [1.0, 3.0, 0.5, 2.0])
    for k in (64, 64, 128, 256, 16):      # the last chunk: all of it, then a fresh one
        _same(got.take_all(k), np.stack([ref.take(w, k) for w in range(n)]))
        assert mapped[-1] == n * k
    assert sum(mapped) == n * (64 + 64 + 128 + 256 + 16)
    _same([got.next(2) for _ in range(5)], [ref.next(2) for _ in range(5)])     # the rest of the chunk mapped
    assert mapped[-1] == n * (256 - 16)
    _same(got.take(1, 300), ref.take(1, 300))
    _same(got.take_all(40), np.stack([ref.take(w, 40) for w in range(n)]))


@pytest.mark.parametrize("chunk", [1, 4])
def test_take_all_after_some_workers_drew_alone_equals_the_reference(chunk):
    """Workers at different chunks when ``take_all`` starts fresh chunks (one worker's own ``next`` used up its
    first chunk, the others have drawn none): each worker's next chunk, not the seed's first ones."""
    tr, n = _trace(), 5
    seed = np.random.SeedSequence(17, spawn_key=(4,))
    got, ref = _memo(tr, n, seed, chunk), _reference(tr, n, seed, chunk)
    _same([got.next(3) for _ in range(chunk)], [ref.next(3) for _ in range(chunk)])
    _same(got.take_all(chunk), np.stack([ref.take(w, chunk) for w in range(n)]))
    _same(got.take_all(2 * chunk + 1), np.stack([ref.take(w, 2 * chunk + 1) for w in range(n)]))
