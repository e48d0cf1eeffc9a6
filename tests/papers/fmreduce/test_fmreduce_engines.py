"""The FMReduce system's compiled engine (decision FM12) against the flow-network reference
(``reference.simulate_reference``, decision FM14), and the compiled LP (2) breakpoint split against
``lp_split``.

The two engines are independent implementations of the same protocol: the compiled loop predicts
finish times in closed form per link, the reference runs one FlowNetwork flow per block with
per-flow callbacks.  They must give the same rounds, participants, reducers and splits (exactly: the
split comes from the same LP), and the same announce, all-in, done and finish times up to float
noise (relative 1e-7: the two sum the same times in different orders).  Times in seconds, sizes in
bits, bandwidths in bits/s.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simlib.core.units import MB
from simlib.papers.fmreduce.bandwidth import fmreduce_bandwidths
from simlib.papers.fmreduce.reference import simulate_reference
from simlib.papers.fmreduce.scenario import VARIANTS, variant_label
from simlib.papers.fmreduce.split import breakpoint_split_into, lp_split, pairwise_sum
from simlib.papers.fmreduce.system import simulate
from simlib.runtime.cluster import ComputeTimes, ScriptedComputeTimes
from simlib.workloads.traces import load_trace

TRACE = load_trace("transformer")
RTOL = 1e-7


def assert_same_run(a, ref, label=""):
    """``a`` (compiled) and ``ref`` (reference) announce the same rounds at the same times."""
    assert (a.rounds, a.iterations, len(a.rounds_log)) == (ref.rounds, ref.iterations, len(ref.rounds_log)), label
    np.testing.assert_allclose([a.phase_means_s[k] for k in sorted(a.phase_means_s)],
                               [ref.phase_means_s[k] for k in sorted(ref.phase_means_s)], rtol=RTOL, atol=1e-12,
                               err_msg=label)
    np.testing.assert_allclose(a.mean_round_time_s, ref.mean_round_time_s, rtol=RTOL, err_msg=label)
    for x, y in zip(a.rounds_log, ref.rounds_log):
        assert x.index == y.index, label
        for name in ("parts", "reducers", "x"):
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name), err_msg=f"{label} {name}")
        for name in ("start", "ready", "done"):
            np.testing.assert_allclose(getattr(x, name), getattr(y, name), rtol=RTOL, err_msg=f"{label} {name}")
        np.testing.assert_allclose([x.announce, x.finish], [y.announce, y.finish], rtol=RTOL, err_msg=label)
        assert x.n_done == y.n_done, label
        # the reference does not count broadcasts (n_bcast): a finished round had every reducer's
        if np.isfinite(x.finish):
            assert x.n_bcast == x.reducers.size, label
        assert sorted(x.all_in) == sorted(y.all_in), label
        np.testing.assert_allclose([x.all_in[j] for j in sorted(x.all_in)], [y.all_in[j] for j in sorted(y.all_in)],
                                   rtol=RTOL, err_msg=f"{label} all_in")


def both_engines(n, p, seed, duration_s, model_bits, as_callable=False, **kw):
    """The compiled run (compute times as a source or a callable) and the reference run, same inputs."""
    b = fmreduce_bandwidths(n, np.random.default_rng(seed))
    out = []
    for sim in (simulate, simulate_reference):
        ct = ComputeTimes(lambda rng, k: TRACE.sample(rng, k), n, np.random.SeedSequence(seed), chunk=64)
        src = ct if sim is simulate and not as_callable else ct.next
        out.append(sim(b, p, model_bits=model_bits, duration_s=duration_s, compute_time=src, **kw))
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(0, 2**31), st.data())
def test_compiled_engine_matches_the_flow_network_reference(n, seed, data):
    # random meshes, p, every Fig. 2 variant (mode, split, sharing, reducers), both LP solvers, reduce time,
    # model size (0: every flow is empty) and compute times as a source or a callable; up to 60 s, where the
    # two engines' float noise stays far below RTOL
    p = data.draw(st.integers(1, n), label="p")
    variant = data.draw(st.sampled_from(VARIANTS), label="variant")
    solver = data.draw(st.sampled_from(["breakpoint", "highs"]), label="lp_solver")
    reduce_s = data.draw(st.sampled_from([0.0, 0.002, 0.05]), label="reduce_s_per_mb")
    duration = data.draw(st.floats(5.0, 60.0), label="duration_s")
    model_mb = data.draw(st.sampled_from([0.0, 10.0, 50.0, 200.0]), label="model_mb")
    as_callable = data.draw(st.booleans(), label="compute_time is a callable")
    comp, ref = both_engines(n, p, seed, duration, model_mb * MB, as_callable, reduce_s_per_mb=reduce_s,
                             lp_solver=solver, **variant)
    assert_same_run(comp, ref, variant_label(**variant))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: variant_label(**v))
def test_long_runs_grow_every_array_and_match_the_reference(variant):
    # n = 5, p = 3, 5 MB models, 400 s: several hundred rounds and > 100 iterations per worker,
    # so the heap, the round log (16 rows at first) and the draws (16 per worker) all grow
    comp, ref = both_engines(5, 3, 11, 400.0, 5 * MB, reduce_s_per_mb=0.01, **variant)
    assert len(comp.rounds_log) > 128 and comp.iterations / 5 > 64
    assert_same_run(comp, ref, variant_label(**variant))


@pytest.mark.slow      # the flow-network reference at the paper's scale: 10-21 s per variant on a loaded 2-core machine
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: variant_label(**v))
def test_paper_scale_runs_match_the_reference(variant):
    # n = 60, p = 50, 200 MB (Fig. 2's setting) for 30 s: ~11 rounds of 60 reducers (the reference
    # takes ~3 s per variant here)
    comp, ref = both_engines(60, 50, 3, 30.0, 200 * MB, **variant)
    assert comp.rounds >= 10
    assert_same_run(comp, ref, variant_label(**variant))


@pytest.mark.parametrize("sim", [simulate, simulate_reference], ids=["compiled", "reference"])
def test_hand_written_compute_times_work_as_callable_or_source(sim):
    # worker 2 never finishes (p = 2): blocking, even split of 3 bits on unit links;
    # ready at 1 and 3 -> one round announced at 3 (the FM3 ready order)
    b = np.ones((3, 3))
    times = [[1.0], [3.0], []]
    srcs = (ScriptedComputeTimes(times), ScriptedComputeTimes(times).next)
    for src in srcs if sim is simulate else srcs[1:]:
        res = sim(b, 2, model_bits=3.0, duration_s=20.0, compute_time=src, mode="blocking", split="even")
        assert [r.parts.tolist() for r in res.rounds_log] == [[0, 1]]
        assert res.rounds_log[0].announce == 3.0


def test_simulate_rejects_bad_compute_time():
    with pytest.raises(ValueError, match="compute_time must"):
        simulate(np.ones((3, 3)), 2, compute_time=1.0, model_bits=3.0, duration_s=5.0)


# ----------------------------------------------------------------- the compiled split
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 160), st.integers(0, 2**31), st.data())
def test_compiled_breakpoint_split_has_the_bits_of_lp_split(n, seed, data):
    # up to 160 reducers: numpy's pairwise summation recurses above 128 elements
    rng = np.random.default_rng(seed)
    b = fmreduce_bandwidths(n, rng) if data.draw(st.booleans()) else rng.uniform(1e6, 1e9, (n, n))
    p = data.draw(st.integers(1, n))
    parts = np.sort(rng.choice(n, p, replace=False)).astype(np.int64)
    red = np.arange(n, dtype=np.int64) if data.draw(st.booleans()) else parts
    v = data.draw(st.sampled_from([0.0, 1.0, 1.6e9, 3e7 * rng.uniform()]))
    want = lp_split(v, b, parts, red, solver="breakpoint")
    got = np.full(n, -1.0)
    assert breakpoint_split_into(v, b, parts, red, got)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 2**31))
def test_pairwise_sum_is_numpys_sum_to_the_bit(m, seed):
    # a plain loop differs from numpy's pairwise sum in the last bits for most of these arrays
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.0, 1.0, m + 3) * 10.0 ** rng.uniform(-6, 6, m + 3)
    assert pairwise_sum(a, 3, m) == a[3:].sum()


@pytest.mark.parametrize("sharing, model_mb, duration_s, solver", [("fcfs", 10.0, 5.0, "breakpoint"),
                                                                     ("fs", 50.0, 7.0, "highs")])
def test_rounds_whose_blocks_arrive_together_reduce_in_announce_order_in_both_engines(sharing, model_mb, duration_s,
                                                                                        solver):
    """FM15, the two cases Hypothesis found: n = 4, p = 1, non-blocking, LP split, 2 ms/MB reduce time.
    Two rounds' last blocks reach reducer 3 (FCFS) or 2 (FS) at the same instant (equal
    bandwidth classes, equal blocks); both engines reduce the earlier-announced round first.
    Before FM15 the compiled loop took them in heap order and the reference in flow-callback
    order, and their done times differed by one block's reduce time (the FCFS case failed)."""
    comp, ref = both_engines(4, 1, 1, duration_s, model_mb * MB, reduce_s_per_mb=0.002, lp_solver=solver,
                             reducers="all", mode="nonblocking", split="lp", sharing=sharing)
    assert_same_run(comp, ref, sharing)
    red = 3 if sharing == "fcfs" else 2
    ties = [(r.index, s.index) for r in comp.rounds_log for s in comp.rounds_log
            if r.index < s.index and red in r.all_in and red in s.all_in
            and abs(r.all_in[red] - s.all_in[red]) <= 1e-12 * r.all_in[red] and r.parts[0] != s.parts[0]]
    assert ties                                        # the situation FM15 rules on occurs here


@pytest.mark.parametrize("sim", [simulate, simulate_reference], ids=["compiled", "reference"])
@pytest.mark.parametrize("first, rounds", [
    ([0.1 + 0.2, 0.3, 0.2], [[2, 0]]),                      # 2 first; 0 and 1 tie: 0 joins
    ([0.1 + 0.2, 0.3, 0.1 + 0.2, 0.3], [[0, 1], [2, 3]]),   # four tie: two rounds, in id order
    ([0.3, 0.1 + 0.2, 0.3, 0.3], [[0, 1], [2, 3]]),         # the second round too forms at the latest time
])
def test_workers_ready_at_one_instant_join_blocking_rounds_in_id_order(sim, first, rounds):
    """FM3's tie rule. 0.1 + 0.2 is one ulp above 0.3, so the workers computing 0.3 s would be
    ready first by float arithmetic alone (before FM3's rule the first round was [2, 1], and
    [1, 3], [0, 2]). Within SAME_INSTANT they are ready together: they queue in id order and the
    round forms once all are in, at the latest of their ready times. Blocking, p = 2, even split
    of 3 bits on unit links; each worker computes once."""
    b = np.ones((len(first), len(first)))
    res = sim(b, 2, model_bits=3.0, duration_s=20.0, mode="blocking", split="even",
              compute_time=ScriptedComputeTimes([[t] for t in first]).next)
    assert [r.parts.tolist() for r in res.rounds_log][:len(rounds)] == rounds
    for r in res.rounds_log[:len(rounds)]:
        assert r.announce == 0.1 + 0.2


@pytest.mark.parametrize("sim", [simulate, simulate_reference], ids=["compiled", "reference"])
@pytest.mark.parametrize("sharing", ["fs", "fcfs"])
@pytest.mark.parametrize("p, leader_s, rounds, announced", [
    (1, 2.0, [[0], [1], [2]], [2.0] * 3),       # the leader's own block is in at 2 too: id order
    (2, 2.0, [[0, 1]], [2.0]),                  # the round of two takes the lowest ids; 2 waits
    (1, 9.0, [[1], [2], [0]], [2.0, 2.0, 9.0]),  # the leader computes on: 1 before 2, then itself
])
def test_blocks_reaching_the_leader_at_one_instant_queue_in_id_order(sim, sharing, p, leader_s, rounds, announced):
    """FM3's tie rule in non-blocking mode. Even split of 3 bits (1 bit per reducer); worker 2 is
    ready at 1 s and sends its bit to the leader at 1 bit/s, worker 1 at 1.5 s at 2 bits/s: both
    bits reach the leader at exactly 2 s (the leader's own block too, if it computes 2 s). Before
    the rule both engines queued them in the order the transfers were started or called back (2
    before 1; the reference put the leader's local block first), so a round of one took worker 2.
    Each worker computes once; every other link carries 1 bit/s."""
    b = np.ones((3, 3))
    b[1, 0] = 2.0
    res = sim(b, p, model_bits=3.0, duration_s=20.0, mode="nonblocking", split="even", sharing=sharing,
              compute_time=ScriptedComputeTimes([[leader_s], [1.5], [1.0]]).next)
    assert [r.parts.tolist() for r in res.rounds_log] == rounds
    assert [r.announce for r in res.rounds_log] == announced


@pytest.mark.parametrize("sim", [simulate, simulate_reference], ids=["compiled", "reference"])
@pytest.mark.parametrize("bw_to_leader, model_bits, computes, rounds", [
    # the leader's compute ends one ulp after worker 1's bit arrives (0.25 s + 1 bit at 20 bits/s = 0.3)
    (20.0, 2.0, [[0.1 + 0.2], [0.25]], [[0], [1]]),
    # empty blocks arrive when their compute ends: worker 2's at 0.3, worker 1's one ulp later
    (1.0, 0.0, [[5.0], [0.1 + 0.2], [0.3]], [[1], [2], [0]]),
])
def test_blocks_one_ulp_apart_at_the_leader_arrive_at_one_instant(sim, bw_to_leader, model_bits, computes, rounds):
    """FM3, non-blocking, p = 1, even split: a block one ulp behind (a compute still due, not yet a
    flow) is waited for and the lower id goes first. Before the rule the earlier float went first."""
    n = len(computes)
    b = np.ones((n, n))
    b[1, 0] = bw_to_leader
    res = sim(b, 1, model_bits=model_bits, duration_s=20.0, mode="nonblocking", split="even",
              compute_time=ScriptedComputeTimes(computes).next)
    assert [r.parts.tolist() for r in res.rounds_log] == rounds
    assert res.rounds_log[0].announce == res.rounds_log[1].announce == 0.1 + 0.2


def test_blocks_tied_at_the_leader_on_a_drawn_mesh_match_in_both_engines():
    """The case Hypothesis found (n = 9, p = 1, FS, even split, 50 MB, 2 ms/MB): round 14's two
    candidates' blocks reach the leader at one instant (4.2278 s). Before FM3's non-blocking rule the
    compiled loop took worker 1 (its LEADER_ARRIVAL event first in the heap) and the reference worker
    2 (its flow called back first); now both take the lower id."""
    comp, ref = both_engines(9, 1, 62548, 5.0, 50 * MB, reduce_s_per_mb=0.002, lp_solver="breakpoint",
                             reducers="all", mode="nonblocking", split="even", sharing="fs")
    assert_same_run(comp, ref)
    r14 = comp.rounds_log[14]
    assert r14.parts.tolist() == [1] and comp.rounds_log[15].parts.tolist() == [2]
    assert comp.rounds_log[15].announce == r14.announce              # the tie FM3 rules on occurs here
