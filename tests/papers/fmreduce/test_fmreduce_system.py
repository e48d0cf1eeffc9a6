"""The simulated FMReduce system (seed 003 §2-§3): link sharing, hand-worked rounds and decision knobs,
each on the compiled engine and the flow-network reference (their cross-check on random runs is in
test_fmreduce_engines.py).

Times in seconds, sizes in bits, bandwidths in bits/s; every expected number is
worked out by hand in the comment next to it.  FMn: docs/decisions/fmreduce.md.
"""
import math

import numpy as np
import pytest

from simlib.core.network import FlowNetwork
from simlib.runtime.cluster import ComputeTimes, ScriptedComputeTimes
from simlib.papers.fmreduce.bandwidth import fmreduce_bandwidths
from simlib.papers.fmreduce.mesh_links import finish_times, link_free
from simlib.papers.fmreduce.reference import simulate_reference
from simlib.papers.fmreduce.scenario import VARIANTS, Scenario, run, run_trial, variant_label
from simlib.papers.fmreduce.split import lp_split
from simlib.papers.fmreduce.system import simulate
from simlib.workloads.traces import load_trace

INF = math.inf
# the compiled engine and the FlowNetwork reference (decision FM14)
ALL_SIMS = [simulate, simulate_reference]


def scripted(times):
    return ScriptedComputeTimes(times).next


# ----------------------------------------------------------------- FCFS vs FS, two flows
@pytest.mark.parametrize("sizes, fcfs, fs", [
    # capacity 10: A = 10 bits at t = 0, B arrives at 0.5 when A has 5 bits left.
    # FCFS: A keeps the link (ends 1.0), B ends 0.5 + (5 + 10)/10 = 2.0.
    # FS: both at 5 b/s; A ends 0.5 + 5/5 = 1.5, when B has sent 5 bits; its last 5 bits
    # at 10 b/s end at 2.0 (work-conserving: 20 bits / 10 b/s).
    ((10.0, 10.0), (1.0, 2.0), (1.5, 2.0)),
    # B = 2 bits: FCFS A 1.0, B 1.2; FS B ends 0.5 + 2/5 = 0.9, A ends 0.5 + (5 + 2)/10 = 1.2.
    ((10.0, 2.0), (1.0, 1.2), (1.2, 0.9)),
])
def test_fcfs_vs_fs_two_flows_hand_worked_and_flow_engine(sizes, fcfs, fs):
    for sharing, expected in (("fcfs", fcfs), ("fs", fs)):
        # the closed forms of mesh_links: A alone on an idle link (the other kind's last flow ended at 0),
        # then B, of the other kind, while A runs
        fin_a, _ = finish_times(0.0, 10.0, sizes[0], 0.0, sharing == "fcfs")
        fin_b, fin_a = finish_times(fin_a, 10.0, sizes[1], 0.5, sharing == "fcfs")
        assert (fin_a, fin_b) == pytest.approx(expected)
        # the generic engine: FS = max-min, FCFS = strict priority by arrival
        net = FlowNetwork([10.0], sharing="maxmin" if sharing == "fs" else "priority")
        fa = net.add_flow([0], sizes[0], priority=0)
        net.advance_to(0.5)
        fb = net.add_flow([0], sizes[1], priority=1)
        net.run_until_idle()
        assert (fa.finish_time, fb.finish_time) == pytest.approx(expected)


def test_mesh_links_refuses_a_second_flow_of_a_kind():
    # a 1-bit flow at 0 on a 1 b/s link ends at 1: a second flow of its kind at 0.5 finds the link busy
    # (the compiled loop then raises the protocol-invariant error), at 1 (up to float noise) free
    fin, _ = finish_times(0.0, 1.0, 1.0, 0.0, False)
    assert not link_free(fin, 0.5)
    assert link_free(fin, 1.0) and link_free(fin, 1.0 - 1e-12)


# ----------------------------------------------------------------- hand-worked rounds
B3 = np.array([[0.0, 4.0, 4.0],
               [2.0, 0.0, 4.0],
               [2.0, 4.0, 0.0]])


@pytest.mark.parametrize("sim", ALL_SIMS)
def test_one_blocking_round_takes_eq1_upper_bound_on_hand_mesh(sim):
    # All ready at 1; LP split x = (1.2, 2.4, 2.4) (see test_fmreduce_split).  Scatter: reducer 0
    # holds all at 1 + 1.2/2 = 1.6, reducers 1, 2 at 1 + 2.4/4 = 1.6.  Broadcast: 1 -> 0 takes
    # 2.4/2 = 1.2, 2 -> 0 takes 2.4/2 = 1.2: worker 0 done at 2.8 = 1 + T_s + T_b = 1 + 1.8.
    # Worker 1: 0 -> 1 is 1.2/4 = 0.3, 2 -> 1 is 2.4/4 = 0.6: done at 2.2; worker 2 likewise 2.2.
    res = sim(B3, 3, model_bits=6.0, duration_s=10.0, compute_time=scripted([[1.0], [1.0], [1.0]]),
              mode="blocking", split="lp", sharing="fs")
    rnd = res.rounds_log[0]
    assert rnd.announce == 1.0
    assert dict(zip(rnd.parts.tolist(), rnd.done.tolist())) == pytest.approx({0: 2.8, 1: 2.2, 2: 2.2})
    assert res.rounds == 1 and res.mean_round_time_s == pytest.approx(1.8)


def blocking_vs_nonblocking_mesh():
    b = np.ones((3, 3))
    b[0, 1:] = 0.5  # worker 0's uplinks are slow
    return b


@pytest.mark.parametrize("sim", ALL_SIMS)
@pytest.mark.parametrize("mode, done0, done1, announce", [
    # v = 3, even x = 1.  Ready: w0 at 1, w1 at 3, w2 never (p = 2).
    # non-blocking: w0 scatters at 1 (blocks at 1, 2 by 1 + 1/0.5 = 3); w1 at 3, its block reaches
    # the leader at 4 -> announce 4, every reducer holds both blocks -> broadcast at 4:
    # 1 -> 0 arrives 5, 2 -> 0 arrives 5 (w0 done 5); 0 -> 1 at 0.5 b/s arrives 6 (w1 done 6).
    ("nonblocking", 5.0, 6.0, 4.0),
    # blocking: announce at 3, w0's blocks reach 1, 2 at 3 + 2 = 5, w1's reach 0, 2 at 4.
    # Reducer 0 broadcasts at 4, but link 0 -> 1 still carries w0's scatter until 5 (FCFS), so
    # its block reaches w1 at 5 + 1/0.5 = 7; reducers 1, 2 broadcast at 5 (to 0: 6; 2 -> 1: 6).
    ("blocking", 6.0, 7.0, 3.0),
])
def test_mode_knob_scatters_before_or_after_the_round_is_known(sim, mode, done0, done1, announce):
    res = sim(blocking_vs_nonblocking_mesh(), 2, model_bits=3.0, duration_s=20.0,
              compute_time=scripted([[1.0], [3.0], []]), mode=mode, split="even", sharing="fcfs")
    rnd = res.rounds_log[0]
    assert rnd.announce == pytest.approx(announce)
    assert dict(zip(rnd.parts.tolist(), rnd.done.tolist())) == pytest.approx({0: done0, 1: done1})


@pytest.mark.parametrize("sim", ALL_SIMS)
def test_worker_left_out_of_a_round_joins_the_next_without_recomputing(sim):
    # FM1.  Unit links, v = 3 (x = 1), p = 2, non-blocking.  Leader holds w0's block at 1,
    # w1's at 1.5 + 1 = 2.5 -> round {0, 1} at 2.5; w2's block arrives at 2 + 1 = 3: left out.
    # Reducers broadcast at 2.5 (1 s per block), but link 2 -> 0 carries w2's scatter until 3
    # (FCFS), so w0 is done at 4; it computes 1 more s and scatters at 5, its block is local to
    # the leader -> round {2, 0} at 5, w2 still on the iteration it finished at 2 (no recompute).
    res = sim(np.ones((3, 3)), 2, model_bits=3.0, duration_s=20.0,
              compute_time=scripted([[1.0, 1.0], [1.5], [2.0]]), mode="nonblocking", split="even")
    r1, r2 = res.rounds_log[:2]
    assert r1.parts.tolist() == [0, 1] and r1.announce == pytest.approx(2.5)
    assert r2.parts.tolist() == [2, 0] and r2.announce == pytest.approx(5.0)
    assert r2.ready.tolist() == pytest.approx([2.0, 5.0])


@pytest.mark.parametrize("sim", ALL_SIMS)
def test_reduce_time_knob_delays_every_broadcast_by_its_reduce(sim):
    # FM5.  Unit links, n = p = 3, even x = 1 MB = 8e6 bits on 8e6 b/s links (1 s per block),
    # everyone ready at 1: all blocks in at 2.  Reducing 3 blocks of 1 MB at 0.25 s/MB takes
    # 0.75 s, so broadcasts start at 2.75 and end at 3.75 instead of 3.
    b = np.full((3, 3), 8e6)
    for rate, done in ((0.0, 3.0), (0.25, 3.75)):
        res = sim(b, 3, model_bits=24e6, duration_s=10.0, compute_time=scripted([[1.0]] * 3),
                  mode="blocking", split="even", reduce_s_per_mb=rate)
        assert res.rounds_log[0].done.tolist() == pytest.approx([done] * 3)


@pytest.mark.parametrize("simulate", ALL_SIMS)
@pytest.mark.parametrize("solver", ["breakpoint", "highs"])
def test_blocking_lp_split_is_solved_per_round_for_its_participants(simulate, solver):
    # FM2: every round's split is LP (2) over that round's participants.
    n = 8
    b = fmreduce_bandwidths(n, np.random.default_rng(5))
    ct = ComputeTimes(lambda rng, k: load_trace("transformer").sample(rng, k), n, np.random.SeedSequence(2))
    res = simulate(b, 3, model_bits=1.6e9, duration_s=60.0, compute_time=ct.next, mode="blocking", split="lp",
                   lp_solver=solver)
    splits = {tuple(r.x) for r in res.rounds_log}
    assert len(splits) > 1
    for r in res.rounds_log[:10]:
        np.testing.assert_array_equal(r.x, lp_split(1.6e9, b, r.parts, np.arange(n), solver=solver))
    # original partial reduce: reducers are the participants, blocks elsewhere are 0
    res = simulate(b, 3, model_bits=1.6e9, duration_s=60.0, compute_time=ct.next, mode="blocking",
                   split="lp", reducers="participants", lp_solver=solver)
    for r in res.rounds_log:
        assert r.reducers.tolist() == sorted(r.parts.tolist())
        assert np.count_nonzero(r.x) <= 3


# ----------------------------------------------------------------- scenario
def test_run_trial_is_deterministic_and_variants_share_draws():
    params = dict(n=12, p=8, duration_s=30.0)
    a = run_trial(params, np.random.SeedSequence(4))
    assert a == run_trial(params, np.random.SeedSequence(4))
    assert a != run_trial(params, np.random.SeedSequence(5))
    # same seed -> same first compute draws whatever the variant: the first round of a
    # blocking run is announced when the p-th worker finishes its first iteration
    r1 = run(Scenario(**params, mode="blocking", split="even"), 4).rounds_log[0]
    r2 = run(Scenario(**params, mode="blocking", split="lp", reducers="participants"), 4).rounds_log[0]
    assert r1.parts.tolist() == r2.parts.tolist() and r1.announce == r2.announce


def test_fig2_grid_has_twelve_variants_original_blocking_only():
    assert len(VARIANTS) == 12
    assert len({variant_label(**v) for v in VARIANTS}) == 12
    assert all(v["mode"] == "blocking" for v in VARIANTS if v["reducers"] == "participants")


@pytest.mark.parametrize("kw, name", [
    (dict(p=61), "p must"), (dict(p=0), "p must"), (dict(n=1), "n must"),
    (dict(mode="eager"), "mode must"), (dict(split="uneven"), "split must"),
    (dict(sharing="wfq"), "sharing must"), (dict(reducers="some"), "reducers must"),
    (dict(reducers="participants", mode="nonblocking"), "mode must be 'blocking'"),
    (dict(model_mb=0.0), "model_mb"), (dict(duration_s=-1.0), "duration_s"),
    (dict(reduce_s_per_mb=-1.0), "reduce_s_per_mb"), (dict(lp_solver="glpk"), "lp_solver"),
])
def test_scenario_rejects_bad_values_naming_the_parameter(kw, name):
    with pytest.raises(ValueError, match=name):
        Scenario(**kw)
    with pytest.raises(ValueError, match="unknown"):
        Scenario.from_params({"nn": 3})


def test_simulate_checks_only_its_mesh():
    # the scenario's knobs (p, choices, durations, participants => blocking) are checked once, by
    # Scenario (test above); the engine checks what is not a scenario parameter: the mesh b
    args = dict(model_bits=3.0, duration_s=5.0, compute_time=scripted([[1.0]] * 3))
    for b, match in ((np.zeros((3, 3)), "b must have finite"), (np.ones((3, 2)), "b must be a square"),
                     (np.ones((1, 1)), "b must be a square")):
        with pytest.raises(ValueError, match=match):
            simulate(b, 1, **args)


@pytest.mark.parametrize("simulate", ALL_SIMS)
def test_a_round_counts_only_if_every_participant_is_done_within_the_period(simulate):
    # FM8.  The hand-worked round above ends at 2.8 (worker 0) and 2.2 (workers 1, 2).
    for duration, rounds in ((2.5, 0), (2.8, 1)):
        res = simulate(B3, 3, model_bits=6.0, duration_s=duration, compute_time=scripted([[1.0]] * 3),
                       mode="blocking", split="lp", sharing="fs")
        assert res.rounds == rounds and res.iterations == 3 * rounds


@pytest.mark.parametrize("simulate", ALL_SIMS)
def test_blocking_leader_groups_the_first_p_ready_workers_in_ready_order(simulate):
    # FM3.  Ready at 3, 1, 2, 4 (workers 0..3), p = 2: round 1 = {1, 2} announced at 2.
    res = simulate(np.ones((4, 4)), 2, model_bits=4.0, duration_s=3.0,
                   compute_time=scripted([[3.0], [1.0], [2.0], [4.0]]), mode="blocking", split="even")
    r = res.rounds_log[0]
    assert r.parts.tolist() == [1, 2] and r.announce == 2.0 and r.ready.tolist() == [1.0, 2.0]


def test_compute_mean_knob_rescales_every_compute_draw():
    # FM9.  Same seed, mean 2 s instead of 1 s: every draw doubles, so the first blocking
    # round is announced exactly twice as late (when the p-th worker finishes).
    a = run(Scenario(n=10, p=6, mode="blocking", duration_s=20.0), 7).rounds_log[0]
    b = run(Scenario(n=10, p=6, mode="blocking", duration_s=20.0, compute_mean_s=2.0), 7).rounds_log[0]
    assert a.parts.tolist() == b.parts.tolist()
    assert b.announce == pytest.approx(2 * a.announce, rel=1e-12)
    c = run(Scenario(n=10, p=6, mode="blocking", duration_s=20.0, trace="cnn"), 7).rounds_log[0]
    assert c.announce != a.announce
