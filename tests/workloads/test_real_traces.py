"""Real traces (decision T7): loading, replay semantics, errors, and scripts/derive_real_traces.py."""
from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from simlib import cli
from simlib.core.seeding import child_seed
from simlib.papers.cli_gen import trace_arg
from simlib.runtime.cluster import ComputeTimes
from simlib.workloads import traces
from simlib.workloads.traces import (REAL_TRACE_NAMES, REPLAY_OFFSETS, STANDIN_NAMES, TRACE_NAMES,
                                     RecordedTrace, ReplayComputeTimes, Trace, TraceWrapWarning, load_trace)

ROOT = Path(__file__).resolve().parents[2]
#: the upstream files, laid out as in ../shared/traces (override with SIMLIB_RAW_TRACES)
RAW = Path(os.environ.get("SIMLIB_RAW_TRACES", ROOT.parent / "shared" / "traces"))


def _script():
    name = "_derive_real_traces_under_test"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "derive_real_traces.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


# --------------------------------------------------------------------------- the hand-checked slice
# Rows of alibaba/clusterdata@7a6c496 cluster-trace-gpu-v2020/mini-batch-time/data/job_1_norm.csv
# (",worker,gpu,time,batch_time_norm"), copied by hand: workers 0 and 1, their first five and
# last four recorded iterations.  Job 1 records all 10 workers at the same 300 iterations.
JOB1_ROWS = """\
0,0,25,1,476
1,1,25,1,509
10,0,25,11,476
11,1,25,11,509
20,0,25,21,484
21,1,25,21,491
30,0,25,31,484
31,1,25,31,491
40,0,25,41,485
41,1,25,41,481
2960,0,25,2961,486
2961,1,25,2961,465
2970,0,25,2971,486
2971,1,25,2971,465
2980,0,25,2981,487
2981,1,25,2981,484
2990,0,25,2988,487
2991,1,25,2988,484
"""
#: awk -F, 'NR>1{s+=$5; n++} END{print s, n}' job_1_norm.csv
JOB1_SUM, JOB1_ROWS_TOTAL = 1_331_016, 3000


def _seed_with_offset(lo: int, hi: int, length: int) -> int:
    """A seed whose (documented) copy offset default_rng(SeedSequence(seed)).integers(0, L) is in [lo, hi]."""
    for s in range(10_000):
        if lo <= np.random.default_rng(np.random.SeedSequence(s)).integers(0, length) <= hi:
            return s
    raise AssertionError("no seed found")


def test_pai_job1_replay_matches_the_raw_rows_by_hand():
    """Two simulated workers replay recorded workers 0 and 1 of job 1 from a seeded offset 296
    (the last four recorded iterations), wrap to the first rows, rescaled to a pooled mean of 2 s."""
    raw = {0: [], 1: []}
    for line in JOB1_ROWS.splitlines():
        _, worker, _, time, value = line.split(",")
        raw[int(worker)].append((int(time), float(value)))
    first = {w: [v for t, v in rows if t <= 41] for w, rows in raw.items()}
    last = {w: [v for t, v in rows if t >= 2961] for w, rows in raw.items()}   # indices 296..299
    mean_s = 2.0
    per_unit = mean_s / (JOB1_SUM / JOB1_ROWS_TOTAL)                         # s per normalized unit
    seed = _seed_with_offset(296, 296, 300)
    ct = load_trace("pai-job1").rescaled(mean_s).compute_times(2, seed)
    assert list(ct.offset) == [296, 296] and list(ct.recorded) == [0, 1]
    for w in (0, 1):
        expected = np.array(last[w] + first[w]) * per_unit
        np.testing.assert_allclose(ct.take(w, 9), expected, rtol=1e-12)


# --------------------------------------------------------------------------- replay semantics
@pytest.fixture(scope="module")
def job3():
    return load_trace("pai-job3")


def test_every_real_trace_loads_at_pooled_mean_one_second():
    for name in REAL_TRACE_NAMES:
        tr = load_trace(name)
        assert isinstance(tr, RecordedTrace) and tr.name == name
        assert tr.mean == pytest.approx(1.0, rel=1e-12)
        assert tr.samples.size == tr.sequences.size == tr.workers * tr.steps
        assert np.array_equal(tr.samples, np.sort(tr.sequences.ravel()))   # the pooled distribution
        assert not tr.sequences.flags.writeable
    assert set(STANDIN_NAMES) | set(REAL_TRACE_NAMES) == set(TRACE_NAMES)
    assert all(type(load_trace(n)) is Trace for n in STANDIN_NAMES)


def test_workers_persist_on_their_recorded_sequence_in_order(job3):
    """Worker w replays recorded worker w mod R from its copy's offset, step after step."""
    r_count, length = job3.sequences.shape
    n = 2 * r_count + 3
    ct = job3.compute_times(n, 5, jitter=0.0)
    for w in range(n):
        o = ct.offset[w]
        assert ct.recorded[w] == w % r_count
        assert ct.offset[w] == ct.offset[(w // r_count) * r_count]           # one offset per copy
        np.testing.assert_array_equal(ct.take(w, length - o), job3.sequences[w % r_count, o:])
    assert len(set(ct.offset[::r_count])) > 1                                # copies start apart


def test_offsets_knob_gives_each_worker_its_own_offset(job3):
    r_count = job3.workers
    per_copy = job3.compute_times(r_count, 2, offsets="copy").offset
    per_worker = job3.compute_times(r_count, 2, offsets="worker").offset
    assert len(set(per_copy)) == 1 and len(set(per_worker)) > 1
    with pytest.raises(ValueError, match="^offsets"):
        job3.compute_times(3, 0, offsets="random")


def test_jitter_only_on_copies_mean_one_and_its_knob(job3):
    r_count, length = job3.sequences.shape
    n = 4 * r_count
    exact = job3.compute_times(n, 1, jitter=0.0)
    jit = job3.compute_times(n, 1, jitter=0.05)
    assert np.array_equal(exact.offset, jit.offset)
    ratios = []
    for w in range(n):
        a, b = exact.take(w, length), jit.take(w, length)
        if w < r_count:
            assert np.array_equal(a, b)                       # copy 0 replays the recording exactly
        else:
            ratios.append(b / a)
    logr = np.log(np.concatenate(ratios))
    assert logr.std() == pytest.approx(0.05, rel=0.1)
    assert np.exp(logr).mean() == pytest.approx(1.0, abs=3e-3)  # mean-1 log-normal
    # with the default jitter, a copy differs from the recording at every step
    d = job3.compute_times(n, 1)
    o = d.offset[r_count]
    assert np.all(d.take(r_count, length) != job3.sequences[0, (o + np.arange(length)) % length])
    with pytest.raises(ValueError, match="^jitter"):
        job3.compute_times(n, 1, jitter=-0.1)


def test_a_copys_jitter_is_exp_sigma_z_minus_half_sigma_squared_with_its_workers_own_normals(job3):
    """j = exp(s Z - s**2 / 2) exactly: without the -s**2/2 term the mean would be exp(s**2/2) (1.00125 at
    s = 0.05, inside the sampled-mean test's tolerance), so compare with the worker's own normal draws."""
    r_count, length = job3.sequences.shape
    s, seed, w = 0.05, np.random.SeedSequence(1), r_count + 2            # a worker of copy 1
    exact = job3.compute_times(2 * r_count, seed, jitter=0.0)
    jit = job3.compute_times(2 * r_count, seed, jitter=s)
    k = min(256, length)                                                # the first chunk: up to the wrap
    z = np.random.default_rng(child_seed(seed, w)).standard_normal(k)
    np.testing.assert_allclose(jit.take(w, k) / exact.take(w, k), np.exp(s * z - s * s / 2), rtol=1e-13)


def test_one_step_past_the_recording_warns(job3):
    """A run needing L + 1 steps (L = 248 < the 256-draw chunk) wraps: the chunk stops at the wrap, so the
    warning comes with the first wrapped draw, from take() and from next() alike."""
    r_count, length = job3.sequences.shape
    assert length < 256
    ct = job3.compute_times(r_count, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ct.take(0, length)
    with pytest.warns(TraceWrapWarning):
        ct.take(0, 1)
    ct = job3.compute_times(r_count, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(length):
            ct.next(1)
    with pytest.warns(TraceWrapWarning):
        ct.next(1)


def test_wraps_with_one_warning_per_run(job3):
    r_count, length = job3.sequences.shape
    ct = job3.compute_times(r_count, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for w in range(r_count):                      # exactly L draws: no wrap, no warning
            ct.take(w, length)
    with pytest.warns(TraceWrapWarning) as rec:
        a = np.concatenate([ct.take(0, 5)] + [np.array([ct.next(0)]) for _ in range(length)])
        for w in range(1, r_count):
            ct.take(w, 3 * length)
    assert len(rec) == 1 and "records 248 steps" in str(rec[0].message)
    o = ct.offset[0]
    np.testing.assert_array_equal(a[:5], job3.sequences[0, (o + np.arange(5)) % length])  # back at the start


def test_determinism_next_equals_take_and_seeds_differ(job3):
    n = 25
    a, b = job3.compute_times(n, 11), job3.compute_times(n, 11)
    with pytest.warns(TraceWrapWarning):                   # 600 > 248 recorded steps
        for w in range(n):
            np.testing.assert_array_equal(a.take(w, 600), np.array([b.next(w) for _ in range(600)]))
    offs = {tuple(job3.compute_times(n, s).offset) for s in range(5)}
    assert len(offs) == 5


@pytest.mark.parametrize("offsets", REPLAY_OFFSETS)
def test_the_first_copy_does_not_depend_on_n(job3, offsets):
    small, big = job3.compute_times(4, 8, offsets=offsets), job3.compute_times(35, 8, offsets=offsets)
    for w in range(4):
        np.testing.assert_array_equal(small.take(w, 100), big.take(w, 100))


def test_pooled_mean_after_rescaling(job3):
    """A replay of whole recorded sequences averages exactly the asked mean (no jitter for n <= R)."""
    tr = job3.rescaled(0.7)
    r_count, length = tr.sequences.shape
    ct = tr.compute_times(r_count, 3)
    assert np.concatenate([ct.take(w, length) for w in range(r_count)]).mean() == pytest.approx(0.7, rel=1e-12)
    assert tr.mean == pytest.approx(0.7, rel=1e-12)
    assert tr.samples.mean() == pytest.approx(0.7, rel=1e-12)
    big = tr.compute_times(20 * r_count, 3)                              # copies carry mean-1 jitter
    with pytest.warns(TraceWrapWarning):
        draws = np.concatenate([big.take(w, 4 * length) for w in range(20 * r_count)])
    assert draws.mean() == pytest.approx(0.7, rel=2e-3)


def test_scale_multiplies_a_replayed_worker(job3):
    """002's slowed workers (``hl``): ``scale[w]`` multiplies worker w's replayed times."""
    a = job3.compute_times(3, 4, scale=[2.5, 1.0, 1.0])
    b = job3.compute_times(3, 4)
    np.testing.assert_allclose(a.take(0, 50), 2.5 * b.take(0, 50), rtol=1e-15)
    np.testing.assert_array_equal(a.take(1, 50), b.take(1, 50))


@pytest.mark.parametrize("name", STANDIN_NAMES)
def test_stand_in_draws_are_unchanged(name):
    """i.i.d. traces: compute_times is exactly today's ComputeTimes(trace.sample, ...), bit for bit."""
    tr = load_trace(name).rescaled(1.3)
    for chunk, scale in ((256, None), (64, [1.0, 3.0, 1.0])):
        new = tr.compute_times(3, child_seed(np.random.SeedSequence(9), 1), chunk=chunk, scale=scale)
        old = ComputeTimes(tr.sample, 3, child_seed(np.random.SeedSequence(9), 1), chunk=chunk, scale=scale)
        assert type(new) is ComputeTimes
        for w in range(3):
            assert np.array_equal(new.take(w, 300), old.take(w, 300))
            assert [new.next(w) for _ in range(70)] == [old.next(w) for _ in range(70)]


def test_distribution_view_of_a_recorded_trace():
    tr = RecordedTrace("t", [[1.0, 3.0], [2.0, 6.0]])
    assert tr.mean == 3.0 and tr.samples.tolist() == [1.0, 2.0, 3.0, 6.0]
    assert tr.cdf(2.0) == pytest.approx(1 / 3) and tr.quantile(1.0) == 6.0
    assert tr.rescaled(1.5).sequences.tolist() == [[0.5, 1.5], [1.0, 3.0]]
    assert isinstance(tr.compute_times(2, 0), ReplayComputeTimes)


# --------------------------------------------------------------------------- errors
def test_recorded_trace_rejects_bad_sequences():
    for bad in ([1.0, 2.0], [[1.0, -1.0]], [[1.0, np.nan]], [[]], "abc"):
        with pytest.raises(ValueError, match="^sequences"):
            RecordedTrace("t", bad)


def test_unknown_name_missing_and_malformed_files_name_the_trace_and_file(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"^trace must be one of \['cnn'.*'pai-job1'"):
        load_trace("pai-job9")
    monkeypatch.setattr(traces, "TRACE_DIR", tmp_path)
    monkeypatch.setattr(traces, "_BUILTIN_CACHE", {})
    with pytest.raises(ValueError, match=r"^trace 'pai-job2': built-in data file '.*pai-job2\.csv' is missing"):
        load_trace("pai-job2")
    for content, what in (("worker_0\n1\n", "must start with the header"),
                          ("step,worker_0,worker_1\n1,2\n", "line 2: 2 columns"),
                          ("step,worker_0\n1,abc\n", "not a number"),
                          ("step,worker_0\n1,0\n", "finite and > 0"),
                          ("# only a comment\nstep,worker_0\n", "no data rows")):
        (tmp_path / "bytedance-ar.csv").write_text(content)
        with pytest.raises(ValueError, match=r"^trace 'bytedance-ar': .*bytedance-ar\.csv") as ei:
            load_trace("bytedance-ar")
        assert what in str(ei.value)


def _cli(argv, capsys):
    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize("command", [["run"], ["fmreduce"], ["selmcast-ssp"]])
def test_cli_errors_name_the_trace_flag(command, tmp_path, capsys):
    status, err = _cli([*command, "--trace", "pai-job9"], capsys)
    assert status == 2 and "argument --trace" in err and "pai-job1" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    status, err = _cli([*command, "--trace", str(bad)], capsys)
    assert status == 2 and "argument --trace" in err and "bad.csv" in err and "name_or_path" not in err


def test_real_trace_names_are_accepted_by_the_flag():
    assert all(trace_arg(n) == n for n in REAL_TRACE_NAMES)


# --------------------------------------------------------------------------- the derivation script
def test_bytedance_stage_rule_on_a_hand_made_trace(tmp_path):
    """Compute ops are summed per (dp rank, stage, step); stages combine by max (or sum);
    communication ops are ignored."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rows = []
    for dp, stage, step, optype, dur in [
        (0, 0, 5, "forward-compute", 1.0), (0, 0, 5, "backward-compute", 2.0),   # stage 0: 3
        (0, 1, 5, "forward-compute", 1.5), (0, 1, 5, "backward-compute", 2.5),   # stage 1: 4
        (0, 1, 5, "grads-reduce-scatter", 9.0), (0, 0, 5, "forward-send", 9.0),
        (1, 0, 5, "forward-compute", 0.5), (1, 0, 5, "backward-compute", 0.5),   # 1
        (1, 1, 5, "forward-compute", 2.0), (1, 1, 5, "backward-compute", 0.25),  # 2.25
        (0, 0, 2, "forward-compute", 1.0), (0, 1, 2, "backward-compute", 1.0),
        (1, 0, 2, "forward-compute", 7.0), (1, 1, 2, "backward-compute", 1.0),
    ]:
        rows.append(dict(dp_rank=dp, stage=stage, rank=2 * dp + stage, step=step, optype=optype,
                         start_ts=0.0, duration=dur))
    df = pd.DataFrame(rows).astype({"optype": "category", "duration": "float32"})
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    mod = _script()
    steps, times = mod.bytedance_matrix(path, "max")
    assert steps.tolist() == [2, 5] and times.tolist() == [[1.0, 7.0], [4.0, 2.25]]
    _, times = mod.bytedance_matrix(path, "sum")
    assert times.tolist() == [[2.0, 8.0], [7.0, 3.25]]


def test_pai_alignment_on_a_hand_made_job(tmp_path):
    """Only iterations every worker recorded are kept; a duplicated row is read once."""
    pytest.importorskip("pandas")
    path = tmp_path / "job.csv"
    path.write_text(",worker,gpu,time,batch_time_norm\n0,0,25,1,10\n1,1,25,1,20\n2,0,25,11,11\n"
                    "3,1,25,11,21\n4,1,25,11,21\n5,0,25,21,12\n")
    steps, times = _script().pai_matrix(path)
    assert steps.tolist() == [1, 11] and times.tolist() == [[10.0, 20.0], [11.0, 21.0]]


@pytest.mark.skipif(not (RAW / "alibaba-pai-2020-minibatch").is_dir(), reason=f"upstream files not at {RAW}")
def test_committed_files_are_the_derivation_of_the_upstream_files():
    pytest.importorskip("pyarrow")
    assert _script().main(["--raw", str(RAW), "--check"]) == 0
