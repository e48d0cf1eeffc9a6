"""Tests for simlib.pipeline.sweep: grid expansion, seeds, executors, cache/resume, summaries."""
from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import time
import uuid
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simlib.pipeline import sweep
from simlib.papers.analysis import summarize
from simlib.papers.trial import Together, trial_keyed_by
from simlib.pipeline.sweep import (Executor, ProcessPool, code_fingerprint, expand_grid, module_closure,
                                   module_fingerprint, run_sweep, setting_hash, trial_seed)

LOG_ENV = "SIMLIB_TEST_SWEEP_LOG"     # directory: one file per fn call
FAIL_ENV = "SIMLIB_TEST_SWEEP_FAIL"   # "x:trial:kind" -> that call raises


# ---------------------------------------------------------------- trial functions
# (module level so that worker processes can unpickle them)
def noisy_fn(params, rng_seed):
    """Metrics depend on the rng; a random-but-deterministic sleep shuffles completion order."""
    rng = np.random.default_rng(rng_seed)
    time.sleep(0.015 * rng.random())
    return {"y": params["x"] * rng.normal(), "draw": int(rng.integers(1_000_000)),
            "small": bool(rng.random() < 0.5)}


def draw_fn(params, rng_seed):
    return {"u": float(np.random.default_rng(rng_seed).random())}


def logged_fn(params, rng_seed):
    """Records each call as a file (shared across processes) and optionally fails."""
    trial = rng_seed.spawn_key[0]
    log = os.environ.get(LOG_ENV)
    if log:
        Path(log, f"{params['x']}-{trial}-{uuid.uuid4().hex}").touch()
    fail = os.environ.get(FAIL_ENV)
    if fail:
        fx, ft, kind = fail.split(":")
        if (params["x"], trial) == (int(fx), int(ft)):
            raise KeyboardInterrupt if kind == "interrupt" else RuntimeError("injected failure")
    rng = np.random.default_rng(rng_seed)
    return {"y": params["x"] + rng.normal(), "n": int(rng.integers(100))}


def exotic_fn(params, rng_seed):
    """Values that must survive a JSON round trip bit for bit."""
    return {"third": 0.1 + 0.2, "subnormal": 5e-324, "negzero": -0.0, "nan": float("nan"),
            "inf": float("inf"), "ninf": -math.inf, "big": 2**62 + 1, "np_int": np.int64(7),
            "np_float": np.float32(0.1), "flag": np.bool_(True), "label": "é", "none": None,
            "u": float(np.random.default_rng(rng_seed).random())}


def _fill_scale(params):
    return {"scale": 1, **params}


@trial_keyed_by(_fill_scale)
def defaulted_fn(params, rng_seed):
    """logged_fn with an optional parameter ``scale`` (default 1) that its cache_params fills in."""
    out = logged_fn({"x": params["x"]}, rng_seed)
    return {**out, "y": out["y"] * params.get("scale", 1)}


def clashing_fn(params, rng_seed):
    return {"x": 1.0}


def pid_fn(params, rng_seed):
    """The worker's process id beside a draw; setting ``{"x": 9}``'s trial 0 sleeps ``SLEEP_S`` first
    (an interrupt must not wait for it)."""
    if params["x"] == 9 and rng_seed.spawn_key[0] == 0:
        time.sleep(SLEEP_S)
    return {"pid": os.getpid(), "u": float(np.random.default_rng(rng_seed).random())}


SLEEP_S = 120.0


def calls(log_dir: Path) -> list[tuple[int, int]]:
    return sorted(tuple(int(v) for v in p.name.split("-")[:2]) for p in log_dir.iterdir())


def assert_same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)


@pytest.fixture
def log_dir(tmp_path, monkeypatch):
    d = tmp_path / "calls"
    d.mkdir()
    monkeypatch.setenv(LOG_ENV, str(d))
    monkeypatch.delenv(FAIL_ENV, raising=False)
    return d


GRID = expand_grid(x=[1, 2, 3])


# ---------------------------------------------------------------- grid
def test_expand_grid_product_in_stable_order():
    g = expand_grid(scheme=["allreduce", "partial"], n=(4, 8), p=np.array([0.5]))
    assert g == [{"scheme": "allreduce", "n": 4, "p": 0.5}, {"scheme": "allreduce", "n": 8, "p": 0.5},
                 {"scheme": "partial", "n": 4, "p": 0.5}, {"scheme": "partial", "n": 8, "p": 0.5}]
    assert [list(s) for s in g] == [["scheme", "n", "p"]] * 4
    assert type(g[0]["p"]) is float  # numpy scalars become plain Python values
    assert expand_grid(n=range(3)) == [{"n": 0}, {"n": 1}, {"n": 2}]


@pytest.mark.parametrize("axes, match", [
    ({}, "at least one axis"),
    ({"n": 3}, "axis n"),
    ({"scheme": "partial"}, "axis scheme"),
    ({"n": []}, "axis n must have at least 1"),
])
def test_expand_grid_validation(axes, match):
    with pytest.raises(ValueError, match=match):
        expand_grid(**axes)


# ---------------------------------------------------------------- seeds
def test_paired_seeds_are_common_random_numbers():
    df = run_sweep(draw_fn, GRID, 4, seed=5, executor="serial", progress=False)
    table = df.pivot(index="trial", columns="x", values="u")
    for x in (2, 3):  # same trial -> same draw in every setting
        assert (table[x] == table[1]).all()
    assert table[1].nunique() == 4  # different trials -> different draws
    expected = [np.random.default_rng(np.random.SeedSequence(5, spawn_key=(t,))).random() for t in range(4)]
    assert list(table[1]) == expected


def test_unpaired_seeds_differ_per_setting_and_are_stable():
    df = run_sweep(draw_fn, GRID, 3, seed=5, executor="serial", progress=False, paired=False)
    table = df.pivot(index="trial", columns="x", values="u")
    assert table.stack().nunique() == 9
    again = run_sweep(draw_fn, GRID, 3, seed=5, executor="serial", progress=False, paired=False)
    assert_same(df, again)
    ss = trial_seed(5, 2, {"x": 3}, paired=False)
    assert table.loc[2, 3] == np.random.default_rng(ss).random()
    paired = run_sweep(draw_fn, GRID, 3, seed=5, executor="serial", progress=False)
    assert not np.isin(df["u"], paired["u"]).any()


def test_setting_hash_is_sha256_of_canonical_json():
    expected = int.from_bytes(hashlib.sha256(b'{"a":1,"b":"z"}').digest()[:8], "big")
    assert setting_hash({"b": "z", "a": 1}) == expected == setting_hash({"a": 1, "b": "z"})
    assert setting_hash({"a": np.int64(1), "b": "z"}) == expected
    assert setting_hash({"a": 1.0, "b": "z"}) != expected  # 1.0 and 1 are different settings


# ---------------------------------------------------------------- executors
def test_result_layout_and_row_order():
    settings = [{"scheme": "partial", "n": 4}, {"scheme": "allreduce", "n": 2, "extra": "k"}]
    df = run_sweep(draw_fn, settings, 2, executor="serial", progress=False)
    assert list(df.columns) == ["scheme", "n", "extra", "trial", "u"]
    assert list(df["scheme"]) == ["partial", "partial", "allreduce", "allreduce"]
    assert list(df["trial"]) == [0, 1, 0, 1]
    assert df["extra"].isna().tolist() == [True, True, False, False]


def test_serial_equals_processes_despite_shuffled_completion():
    settings = expand_grid(x=[1.0, 2.5, -3.0], scheme=["allreduce", "partial"])
    serial = run_sweep(noisy_fn, settings, 4, seed=11, executor="serial", progress=False)
    procs = run_sweep(noisy_fn, settings, 4, seed=11, executor=Executor("processes", workers=2), progress=False)
    assert_same(serial, procs)
    assert len(serial) == 24 and serial["draw"].dtype == np.int64 and serial["small"].dtype == bool
    other = run_sweep(noisy_fn, settings, 4, seed=12, executor="serial", progress=False)
    assert not serial["y"].equals(other["y"])  # the seed matters


# ---------------------------------------------------------------- a pool that outlives one sweep (S34)
def alive(pid: int) -> bool:
    """The process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_pool_serves_many_sweeps_with_the_same_workers_and_the_serial_results():
    settings = expand_grid(x=[1.0, 2.5, -3.0], scheme=["allreduce", "partial"])
    serial = run_sweep(noisy_fn, settings, 4, seed=11, executor="serial", progress=False)
    with ProcessPool(2) as pool:
        assert pool.pids() == []                                 # nothing starts before a sweep
        first = run_sweep(noisy_fn, settings, 4, seed=11, executor=Executor("processes", pool=pool), progress=False)
        workers = pool.pids()
        seen = set()
        for seed in (11, 11, 12):
            df = run_sweep(pid_fn, GRID, 3, seed=seed, executor=Executor("processes", pool=pool), progress=False)
            seen |= set(df["pid"])
            assert_same(df.drop(columns="pid"),
                        run_sweep(pid_fn, GRID, 3, seed=seed, executor="serial", progress=False).drop(columns="pid"))
        assert len(workers) == 2 and pool.pids() == workers and seen <= set(workers) and pool.starts == 1
    assert_same(serial, first)
    assert pool.pids() == [] and not any(alive(pid) for pid in workers)     # the with block closed it
    # without a pool every sweep starts processes of its own
    a = run_sweep(pid_fn, GRID, 2, executor=Executor("processes", workers=2), progress=False)
    b = run_sweep(pid_fn, GRID, 2, executor=Executor("processes", workers=2), progress=False)
    assert set(a["pid"]).isdisjoint(b["pid"]) and not any(alive(pid) for pid in set(a["pid"]) | set(b["pid"]))


def test_a_pool_restarts_its_workers_when_the_environment_changed(log_dir, monkeypatch):
    """A forked worker keeps the environment it started with: the pool starts new workers for a sweep
    after a change, so the trial sees it (here: the variable that makes logged_fn fail)."""
    with ProcessPool(2) as pool:
        run_sweep(logged_fn, GRID, 2, executor=Executor("processes", pool=pool), progress=False)
        before = pool.pids()
        monkeypatch.setenv(FAIL_ENV, "2:1:error")
        with pytest.raises(RuntimeError, match="injected"):
            run_sweep(logged_fn, GRID, 2, executor=Executor("processes", pool=pool), progress=False)
        assert pool.starts == 2 and not any(alive(pid) for pid in before)


def _fail_then_resume(executor, cache, log_dir, monkeypatch):
    """Trial 1 of x = 2 (GRID, 3 trials) raises in a sweep on ``executor``; then the sweep runs again.
    Returns the error's info, the (x, trial) cached by the failed sweep and the resumed frame; the
    log then holds the resumed sweep's calls only."""
    monkeypatch.setenv(FAIL_ENV, "2:1:error")
    with pytest.raises(RuntimeError, match="injected") as info:
        run_sweep(logged_fn, GRID, 3, executor=executor, progress=False, cache_dir=cache)
    cached = {(json.loads(p.read_text())["params"]["x"], json.loads(p.read_text())["trial"])
              for p in cache.glob("*.json")}
    assert (2, 1) not in cached and len(cached) < 9
    for p in log_dir.iterdir():
        p.unlink()
    monkeypatch.delenv(FAIL_ENV)
    return info, cached, run_sweep(logged_fn, GRID, 3, executor=executor, progress=False, cache_dir=cache)


def test_a_trial_error_names_its_setting_and_the_pool_stays_usable(tmp_path, log_dir, monkeypatch):
    reference = run_sweep(logged_fn, GRID, 3, executor="serial", progress=False)
    with ProcessPool(2) as pool:
        info, cached, resumed = _fail_then_resume(Executor("processes", pool=pool), tmp_path / "cache", log_dir,
                                                  monkeypatch)
        assert any(note == 'run_sweep: raised by the trial of settings[1], trial 1: {"x":2}'
                   for note in info.value.__notes__)
        assert any("rerun to resume" in note for note in info.value.__notes__)
        assert sorted(calls(log_dir)) == sorted(set(reference.set_index(["x", "trial"]).index) - cached)
        assert_same(reference, resumed)
    with pytest.raises(RuntimeError, match="injected") as info:              # the serial executor names it too
        monkeypatch.setenv(FAIL_ENV, "3:0:error")
        run_sweep(logged_fn, GRID, 3, executor="serial", progress=False)
    assert 'run_sweep: raised by the trial of settings[2], trial 0: {"x":3}' in info.value.__notes__


def test_an_interrupt_stops_the_running_trials_and_the_sweep_resumes(tmp_path):
    """A KeyboardInterrupt in the sweep's process (here from the progress callback, as Ctrl-C or a
    kernel interrupt would arrive) terminates the workers, including one in a trial of SLEEP_S seconds,
    keeps the finished trials cached, and the next sweep of the pool starts new workers and computes
    only the rest."""
    settings = expand_grid(x=[9, 1, 2])
    reference = run_sweep(pid_fn, settings[1:], 3, executor="serial", progress=False)
    cache = tmp_path / "cache"

    def interrupt(done, total, initial):
        if done >= 3:
            raise KeyboardInterrupt

    with ProcessPool(2) as pool:
        t0 = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run_sweep(pid_fn, settings, 3, executor=Executor("processes", pool=pool), progress=False,
                      cache_dir=cache, progress_callback=interrupt)
        assert time.monotonic() - t0 < SLEEP_S                  # it did not wait for the sleeping trial
        stored = {(json.loads(p.read_text())["params"]["x"], json.loads(p.read_text())["trial"])
                  for p in cache.glob("*.json")}
        assert len(stored) == 3 and (9, 0) not in stored and pool.pids() == []
        assert list(cache.glob(".*")) == []                     # no partial cache file
        resumed = run_sweep(pid_fn, settings[1:], 3, executor=Executor("processes", pool=pool), progress=False,
                            cache_dir=cache)
        assert pool.starts == 2
    assert_same(reference.drop(columns="pid"), resumed.drop(columns="pid"))


def test_workers_leave_when_the_process_that_started_them_dies(tmp_path):
    """A notebook kernel killed (not shut down) closes no pool: its idle workers notice and exit."""
    import subprocess
    import sys

    out = tmp_path / "pids.json"
    script = ("import json, os, sys\n"
              "from simlib.pipeline.sweep import Executor, ProcessPool, expand_grid, run_sweep\n"
              "from tests.pipeline.test_sweep import pid_fn\n"
              "pool = ProcessPool(2)\n"
              "df = run_sweep(pid_fn, expand_grid(x=[1, 2, 3]), 2, executor=Executor('processes', pool=pool), "
              "progress=False)\n"
              f"open({str(out)!r}, 'w').write(json.dumps(pool.pids()))\n"
              "os._exit(0)\n")
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, "-c", script], check=True, cwd=root, env=env)
    pids = json.loads(out.read_text())
    assert len(pids) == 2
    deadline = time.monotonic() + 30 * sweep.PARENT_CHECK_S
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in pids)


def test_a_function_of_main_runs_in_a_pool_of_its_own_sweep():
    """Workers started before a notebook cell defined a trial would not find it (``__main__``)."""
    def cell_fn(params, rng_seed):
        return {}

    cell_fn.__module__ = "__main__"
    assert not sweep._importable(cell_fn) and sweep._importable(pid_fn) and sweep._importable(defaulted_fn)


def test_dask_local_cluster_matches_serial(monkeypatch):
    distributed = pytest.importorskip("distributed")
    settings = expand_grid(x=[1.0, 2.5, -3.0], scheme=["allreduce", "partial"])
    serial = run_sweep(noisy_fn, settings, 3, seed=11, executor="serial", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as client:
        via_client = run_sweep(noisy_fn, settings, 3, seed=11, executor=Executor("dask", client=client),
                               progress=False)
        monkeypatch.setenv(sweep.DASK_ENV, cluster.scheduler_address)
        via_env = run_sweep(noisy_fn, settings, 3, seed=11, executor="dask", progress=False)
    assert_same(serial, via_client)
    assert_same(serial, via_env)


def test_dask_without_address_says_how_to_configure(monkeypatch):
    monkeypatch.delenv(sweep.DASK_ENV, raising=False)
    with pytest.raises(ValueError, match="DASK_SCHEDULER_ADDRESS"):
        run_sweep(draw_fn, GRID, 1, executor="dask", progress=False)


# ---------------------------------------------------------------- cache and resume
def test_cache_round_trips_values_exactly(tmp_path):
    fresh = run_sweep(exotic_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    cached = run_sweep(exotic_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    uncached = run_sweep(exotic_fn, GRID, 2, executor="serial", progress=False)
    assert len(list(tmp_path.glob("*.json"))) == 6
    for df in (cached, uncached):
        assert_same(fresh, df)
    row = cached.iloc[0]
    assert row["third"] == 0.1 + 0.2 and row["subnormal"] == 5e-324
    assert np.signbit(row["negzero"]) and math.isnan(row["nan"])
    assert row["inf"] == math.inf and row["ninf"] == -math.inf
    assert row["big"] == 2**62 + 1 and cached["big"].dtype == np.int64
    assert row["np_float"] == float(np.float32(0.1)) and row["label"] == "é"
    assert row["none"] is None and cached["flag"].dtype == bool


def test_cache_file_is_json_with_key_material(tmp_path):
    run_sweep(draw_fn, [{"x": 1}], 1, seed=3, executor="serial", progress=False, cache_dir=tmp_path)
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text())
    assert record["params"] == {"x": 1} and record["trial"] == 0 and record["seed"] == 3
    assert record["fn"].endswith(":draw_fn") and record["paired"] is True
    assert list(tmp_path.glob(".*tmp")) == []  # no temp files left behind


def test_trial_cache_params_compute_one_trial_once_within_and_across_sweeps(tmp_path, log_dir):
    """Settings that name the same trial ({"x": 1} and {"x": 1, "scale": 1}) are computed once, in one
    sweep and in a later one sharing the cache folder; the rows equal an uncached run's."""
    spelled = [{"x": 1}, {"x": 1, "scale": 1}, {"x": 1, "scale": 2}]
    reference = run_sweep(defaulted_fn, spelled, 2, executor="serial", progress=False)
    for p in log_dir.iterdir():
        p.unlink()
    got = run_sweep(defaulted_fn, spelled, 2, executor="serial", progress=False, cache_dir=tmp_path)
    assert_same(reference, got)
    assert calls(log_dir) == [(1, 0), (1, 0), (1, 1), (1, 1)]     # (x=1, scale=1) and (x=1, scale=2), 2 trials
    assert got.y.iloc[0] == got.y.iloc[2] and got.y.iloc[4] == 2 * got.y.iloc[0]
    for p in log_dir.iterdir():
        p.unlink()
    other = run_sweep(defaulted_fn, [{"scale": 1, "x": 1}], 2, executor=Executor("processes", workers=2),
                      progress=False, cache_dir=tmp_path)
    assert calls(log_dir) == [] and list(other.y) == list(got.y.iloc[:2])
    # unpaired seeds depend on how a setting is spelled, so the canonical key is not used there
    run_sweep(defaulted_fn, spelled[:2], 1, executor="serial", progress=False, cache_dir=tmp_path, paired=False)
    assert calls(log_dir) == [(1, 0), (1, 0)]


def test_a_trial_stands_where_its_function_did():
    """A Trial pickles by its module-level name (process pools) and keeps its function's name, so its
    cache folder and key material are those of the plain function it wraps."""
    import pickle

    from simlib.papers.cluster_scenario import run_trial

    assert pickle.loads(pickle.dumps(run_trial)) is run_trial
    assert pickle.loads(pickle.dumps(defaulted_fn)) is defaulted_fn
    assert sweep.cache_folder(run_trial) == "simlib.papers.cluster_scenario.run_trial"
    assert sweep._fn_identity(defaulted_fn) == sweep._fn_identity(defaulted_fn.fn) == f"{__name__}:defaulted_fn"
    assert defaulted_fn({"x": 2, "scale": 3}, np.random.SeedSequence(1, spawn_key=(0,))) == \
        defaulted_fn.fn({"x": 2, "scale": 3}, np.random.SeedSequence(1, spawn_key=(0,)))


def test_resume_after_exception_serial(tmp_path, log_dir, monkeypatch):
    reference = run_sweep(logged_fn, GRID, 3, executor="serial", progress=False)
    for p in log_dir.iterdir():
        p.unlink()
    cache = tmp_path / "cache"
    monkeypatch.setenv(FAIL_ENV, "2:1:error")  # the 5th trial in sweep order fails
    with pytest.raises(RuntimeError, match="injected") as info:
        run_sweep(logged_fn, GRID, 3, executor="serial", progress=False, cache_dir=cache)
    assert any("rerun to resume" in note for note in info.value.__notes__)
    assert calls(log_dir) == [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1)]
    assert len(list(cache.glob("*.json"))) == 4
    for p in log_dir.iterdir():
        p.unlink()
    monkeypatch.delenv(FAIL_ENV)
    resumed = run_sweep(logged_fn, GRID, 3, executor="serial", progress=False, cache_dir=cache)
    assert calls(log_dir) == [(2, 1), (2, 2), (3, 0), (3, 1), (3, 2)]
    assert_same(reference, resumed)


def test_a_failed_cache_write_stops_the_sweep_and_leaves_no_partial_file(tmp_path, log_dir, monkeypatch):
    """The third cache file cannot be renamed into place (disk full): the sweep raises the OSError
    with its note, the two stored entries stay valid, no temporary file is left, and a rerun computes
    only the trials not stored."""
    import os

    reference = run_sweep(logged_fn, GRID, 2, executor="serial", progress=False)
    for p in log_dir.iterdir():
        p.unlink()
    cache = tmp_path / "cache"
    real_replace, renamed = os.replace, []

    def replace(src, dst):
        if Path(dst).parent == cache and len(renamed) == 2:
            raise OSError("disk full")
        renamed.append(dst)
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="disk full") as info:
        run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=cache)
    monkeypatch.setattr(os, "replace", real_replace)
    assert any("stopped after 3 of 6 trials" in note for note in info.value.__notes__)
    assert sorted(p.name for p in cache.iterdir()) == sorted(Path(p).name for p in renamed)
    for p in log_dir.iterdir():
        p.unlink()
    resumed = run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=cache)
    assert calls(log_dir) == [(2, 0), (2, 1), (3, 0), (3, 1)]
    assert_same(reference, resumed)


def test_resume_after_keyboard_interrupt(tmp_path, log_dir, monkeypatch):
    reference = run_sweep(logged_fn, GRID, 2, executor="serial", progress=False)
    monkeypatch.setenv(FAIL_ENV, "3:0:interrupt")
    with pytest.raises(KeyboardInterrupt):
        run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    monkeypatch.delenv(FAIL_ENV)
    for p in log_dir.iterdir():
        p.unlink()
    resumed = run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    assert calls(log_dir) == [(3, 0), (3, 1)]
    assert_same(reference, resumed)


def test_resume_after_exception_processes(tmp_path, log_dir, monkeypatch):
    reference = run_sweep(logged_fn, GRID, 3, executor="serial", progress=False)
    _, cached, resumed = _fail_then_resume(Executor("processes", workers=2), tmp_path / "cache", log_dir, monkeypatch)
    recomputed = calls(log_dir)
    assert len(recomputed) == 9 - len(cached)
    assert set(recomputed).isdisjoint(cached)
    assert_same(reference, resumed)


def test_corrupt_cache_files_are_recomputed(tmp_path, log_dir):
    first = run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    text = files[0].read_text()
    files[0].write_text(text[: len(text) // 2])          # truncated write
    files[1].write_text("[]")                             # valid JSON, wrong shape
    record = json.loads(files[2].read_text())
    record["trial"] = 99                                  # key material mismatch
    files[2].write_text(json.dumps(record))
    for p in log_dir.iterdir():
        p.unlink()
    with pytest.warns(RuntimeWarning, match="corrupt sweep cache"):
        again = run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    assert len(calls(log_dir)) == 3
    assert_same(first, again)
    json.loads(files[0].read_text())  # rewritten, valid again


def _cache_file_of(cache: Path, x: int) -> Path:
    return next(p for p in cache.glob("*.json") if json.loads(p.read_text())["params"] == {"x": x})


def test_edited_but_valid_cache_file_is_recomputed_and_named(tmp_path, log_dir):
    cache = tmp_path / "cache"
    first = run_sweep(logged_fn, GRID, 1, executor="serial", progress=False, cache_dir=cache)
    edited = _cache_file_of(cache, 2)
    record = json.loads(edited.read_text())
    record["metrics"]["y"] += 1.0              # still valid JSON, same key material: only the checksum tells
    edited.write_text(json.dumps(record))
    for p in log_dir.iterdir():
        p.unlink()
    with pytest.warns(RuntimeWarning) as caught:
        again = run_sweep(logged_fn, GRID, 1, executor="serial", progress=False, cache_dir=cache)
    messages = [str(w.message) for w in caught if "sweep cache" in str(w.message)]
    assert len(messages) == 1 and str(edited) in messages[0] and "checksum" in messages[0]
    assert calls(log_dir) == [(2, 0)]          # the edited trial recomputed, the intact ones reused
    assert_same(first, again)                  # the edited value is never returned
    for p in log_dir.iterdir():
        p.unlink()
    with warnings.catch_warnings():            # rewritten intact: reused, no warning
        warnings.simplefilter("error")
        third = run_sweep(logged_fn, GRID, 1, executor="serial", progress=False, cache_dir=cache)
    assert calls(log_dir) == []
    assert_same(first, third)


def test_cache_entry_without_checksum_is_recomputed(tmp_path, log_dir):
    """S14: an entry written before checksums existed is not trusted."""
    first = run_sweep(logged_fn, GRID, 1, executor="serial", progress=False, cache_dir=tmp_path)
    old = _cache_file_of(tmp_path, 3)
    record = json.loads(old.read_text())
    del record["checksum"]
    old.write_text(json.dumps(record))
    for p in log_dir.iterdir():
        p.unlink()
    with pytest.warns(RuntimeWarning, match="no checksum"):
        again = run_sweep(logged_fn, GRID, 1, executor="serial", progress=False, cache_dir=tmp_path)
    assert calls(log_dir) == [(3, 0)]
    assert_same(first, again)


def test_code_fingerprint_tracks_py_bytes(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_bytes(b"x = 1\n")
    (pkg / "sub" / "b.py").write_bytes(b"y = 2\n")
    base = code_fingerprint(pkg)
    assert len(base) == 64 and base == code_fingerprint(str(pkg))
    (pkg / "notes.txt").write_text("ignored")
    assert code_fingerprint(pkg) == base
    (pkg / "sub" / "b.py").write_bytes(b"y = 3\n")
    changed = code_fingerprint(pkg)
    assert changed != base
    (pkg / "sub" / "b.py").write_bytes(b"y = 2\n")
    assert code_fingerprint(pkg) == base
    (pkg / "sub" / "b.py").rename(pkg / "c.py")
    assert code_fingerprint(pkg) != base
    assert len(code_fingerprint()) == 64  # the real simlib package


def test_module_fingerprint_covers_exactly_the_imported_code(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n\ndef f():\n    from pkg import lazy\n    return b.y\n")
    (pkg / "sub" / "b.py").write_text("from ..leaf import z\ny = 2\n")
    (pkg / "leaf.py").write_text("z = 1\n")
    (pkg / "lazy.py").write_text("w = 1\n")
    (pkg / "unrelated.py").write_text("import pkg.a\n")
    names = {p.relative_to(pkg).as_posix() for p in module_closure("pkg.a", pkg)}
    assert names == {"__init__.py", "a.py", "sub/__init__.py", "sub/b.py", "leaf.py", "lazy.py"}
    base = module_fingerprint("pkg.a", pkg)
    (pkg / "unrelated.py").write_text("import pkg.a\nx = 3\n")
    assert module_fingerprint("pkg.a", pkg) == base      # code a trial never runs
    (pkg / "leaf.py").write_text("z = 2\n")
    assert module_fingerprint("pkg.a", pkg) != base      # transitively imported
    (pkg / "leaf.py").write_text("z = 1\n")
    (pkg / "lazy.py").write_text("w = 2\n")
    assert module_fingerprint("pkg.a", pkg) != base      # imported inside a function


def test_a_000_trial_fingerprint_ignores_other_papers_and_the_pipeline():
    files = {p.as_posix() for p in module_closure("simlib.papers.cluster_scenario")}
    assert any(f.endswith("papers/selective_reduce/algorithms.py") for f in files)
    assert any(f.endswith("runtime/cluster.py") for f in files)
    assert not any("/pipeline/" in f or "/selmcast/" in f or "/fmreduce/" in f for f in files)


def test_code_change_invalidates_cache(tmp_path, log_dir, monkeypatch):
    run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    assert len(calls(log_dir)) == 6
    run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    assert len(calls(log_dir)) == 6  # all served from cache
    monkeypatch.setattr(sweep, "module_fingerprint", lambda name, root=None: "0" * 64)
    run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path)
    assert len(calls(log_dir)) == 12  # new fingerprint: nothing reused
    run_sweep(logged_fn, GRID, 2, seed=1, executor="serial", progress=False, cache_dir=tmp_path)
    run_sweep(logged_fn, GRID, 2, executor="serial", progress=False, cache_dir=tmp_path, paired=False)
    assert len(calls(log_dir)) == 24  # seed and pairing are part of the key


def test_progress_bar_counts_cached_trials(tmp_path, capsys):
    run_sweep(draw_fn, GRID[:1], 2, executor="serial", progress=False, cache_dir=tmp_path)
    run_sweep(draw_fn, GRID, 2, executor="serial", progress=True, cache_dir=tmp_path, desc="demo")
    err = capsys.readouterr().err
    assert "demo" in err and "2/6" in err and "6/6" in err and "0/6" not in err


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("kwargs, match", [
    ({"trials": 0}, "trials"),
    ({"trials": 1.5}, "trials"),
    ({"seed": -1}, "seed"),
    ({"executor": "gpu"}, "executor"),
    ({"executor": 3}, "executor"),
    ({"progress": "yes"}, "progress"),
    ({"paired": 1}, "paired"),
    ({"desc": 3}, "desc"),
    ({"cache_dir": 5}, "cache_dir"),
    ({"settings": []}, "settings"),
    ({"settings": {"x": 1}}, "settings"),
    ({"settings": [{"x": 1}, 3]}, r"settings\[1\]"),
    ({"settings": [{"x": 1}, {"x": 1}]}, r"settings\[1\] duplicates settings\[0\]"),
    ({"settings": [{"trial": 1}]}, "reserved"),
    ({"settings": [{"x": float("nan")}]}, r"settings\[0\]"),
    ({"settings": [{"x": object()}]}, r"settings\[0\]"),
    ({"fn": 42}, "fn"),
    ({"fn": lambda p, s: {}, "executor": Executor("processes", workers=1)}, "picklable"),
    ({"fn": lambda p, s: {}, "executor": "serial", "cache_dir": "unused"}, "module-level"),
])
def test_run_sweep_validation(kwargs, match, tmp_path):
    args = {"fn": draw_fn, "settings": GRID, "trials": 1, "executor": "serial", "progress": False}
    args.update(kwargs)
    if args.get("cache_dir") == "unused":
        args["cache_dir"] = tmp_path
    with pytest.raises(ValueError, match=match):
        run_sweep(**args)


@pytest.mark.parametrize("kwargs, match", [
    ({"workers": 0}, "workers"),
    ({"kind": "serial", "workers": 0}, "workers"),
    ({"kind": "serial", "workers": 1.5}, "workers"),
    ({"kind": "gpu"}, "executor"),
    ({"client": object()}, "client and dask_address only apply to executor='dask'"),
    ({"kind": "dask", "client": object(), "dask_address": "tcp://h:1"}, "either client or dask_address"),
    ({"kind": "dask", "dask_address": 8786}, "dask_address must be a str"),
    ({"kind": "serial", "pool": ProcessPool(1)}, "pool only applies to executor='processes'"),
    ({"pool": object()}, "pool must be a ProcessPool"),
    ({"workers": 3, "pool": ProcessPool(2)}, r"workers \(3\) must equal the pool's \(2\)"),
])
def test_executor_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Executor(**kwargs)


def test_metric_errors_are_reported():
    with pytest.raises(ValueError, match="clashes"):
        run_sweep(clashing_fn, GRID, 1, executor="serial", progress=False)
    with pytest.raises(ValueError, match="metric"):
        run_sweep(lambda p, s: {"v": [1, 2]}, GRID, 1, executor="serial", progress=False)
    with pytest.raises(ValueError, match="dict"):
        run_sweep(lambda p, s: 3.0, GRID, 1, executor="serial", progress=False)


def test_metrics_come_back_as_plain_python_scalars():
    """numpy scalars and subclasses of the number types become plain int / float / bool; plain values stay
    the very same objects (nothing converted twice)."""
    import enum
    from simlib.pipeline.sweep import _clean_metrics

    class Half(float):
        pass

    class Two(enum.IntEnum):
        TWO = 2

    out = _clean_metrics({"f32": np.float32(0.5), "i64": np.int64(7), "b_": np.bool_(True), "b": False,
                          "i": 3, "f": 2.25, "s": "x", "none": None, "sub": Half(1.5), "enum": Two.TWO})
    assert out == {"f32": 0.5, "i64": 7, "b_": True, "b": False, "i": 3, "f": 2.25, "s": "x", "none": None,
                   "sub": 1.5, "enum": 2}
    assert [type(v) for v in out.values()] == [float, int, bool, bool, int, float, str, type(None), float, int]
    big = 10 ** 30
    assert _clean_metrics({"big": big})["big"] is big


# ---------------------------------------------------------------- summarize
def test_summarize_min_median_max_long_format():
    df = pd.DataFrame({"scheme": ["b", "b", "b", "a", "a"], "n": [1] * 5, "trial": [0, 1, 2, 0, 1],
                       "t": [3.0, 1.0, 2.0, 10.0, np.nan], "k": [1, 2, 4, 5, 5]})
    out = summarize(df, ["scheme", "n"], ["t", "k"])
    assert list(out.columns) == ["scheme", "n", "metric", "min", "median", "max", "count"]
    assert out[["scheme", "metric"]].values.tolist() == [["b", "t"], ["b", "k"], ["a", "t"], ["a", "k"]]
    assert out.iloc[0][["min", "median", "max"]].tolist() == [1.0, 2.0, 3.0]
    assert out.iloc[1][["min", "median", "max"]].tolist() == [1, 2, 4]
    assert out.iloc[2][["min", "median", "max"]].tolist() == [10.0, 10.0, 10.0]
    assert out["count"].tolist() == [3, 3, 1, 2]  # non-missing values
    single = summarize(df, "scheme", "t")
    assert single["metric"].tolist() == ["t", "t"]


@pytest.mark.parametrize("by, metrics, match", [
    ("nope", "t", "by"), ("scheme", "nope", "metrics"), ("scheme", "scheme", "grouping"),
    ("n", "scheme", "numeric"), ([], "t", "by"), ("count", "t", "summary column"),
])
def test_summarize_validation(by, metrics, match):
    df = pd.DataFrame({"scheme": ["a"], "n": [1], "t": [1.0], "count": [1]})
    with pytest.raises(ValueError, match=match):
        summarize(df, by, metrics)


def test_unique_settings_keeps_first_of_equal_settings():
    from simlib.pipeline.sweep import expand_grid, unique_settings

    a = expand_grid(scheme=["partial", "selective"], p=[0.1, 0.3], eta=[0.3])
    b = expand_grid(scheme=["selective"], p=[0.3], eta=[0.0, 0.3])     # shares (selective, 0.3, 0.3)
    c = [{"eta": 0.3, "p": 0.3, "scheme": "selective"}]                # same setting, other key order
    out = unique_settings(a, b, c)
    assert out == a + [{"scheme": "selective", "p": 0.3, "eta": 0.0}]
    assert unique_settings([{"n": 1}, {"n": 1.0}]) == [{"n": 1}, {"n": 1.0}]  # 1 and 1.0 differ (as in run_sweep)
    with pytest.raises(ValueError, match="single dict"):
        unique_settings({"n": 1})
    with pytest.raises(ValueError, match="dicts"):
        unique_settings([1])


def test_progress_callback_counts_cached_and_computed(tmp_path):
    from simlib.pipeline.sweep import run_sweep

    seen = []
    settings = [{"x": 1}, {"x": 2}]
    run_sweep(draw_fn, settings, trials=2, executor="serial", cache_dir=tmp_path, progress=False,
              progress_callback=lambda *a: seen.append(a))
    assert seen == [(0, 4, 0), (1, 4, 0), (2, 4, 0), (3, 4, 0), (4, 4, 0)]
    seen.clear()
    run_sweep(draw_fn, settings + [{"x": 3}], trials=2, executor="serial", cache_dir=tmp_path, progress=False,
              progress_callback=lambda *a: seen.append(a))
    assert seen == [(4, 6, 4), (5, 6, 4), (6, 6, 4)]
    with pytest.raises(ValueError, match="progress_callback"):
        run_sweep(draw_fn, settings, trials=1, executor="serial", progress=False, progress_callback=3)


def test_missing_simlib_on_dask_workers_says_how_to_fix():
    exc = sweep._explain_worker_error(ModuleNotFoundError("No module named 'simlib'"))
    assert any("pip install -e" in note for note in exc.__notes__)
    other = sweep._explain_worker_error(ModuleNotFoundError("No module named 'numpy'"))
    assert not getattr(other, "__notes__", None)


def test_scenario_trials_name_their_full_parameters():
    """004's default point spelled as Fig. 8's and Fig. 11's sweeps spell it is one trial; another p is not;
    the same for 000/002's Scenario (n given or left at its default)."""
    from simlib.papers.cluster_scenario import Scenario, run_trial as cluster_trial
    from simlib.papers.selmcast.ssp_scenario import run_trial as ssp_trial

    fig8 = {"trace": "lstm", "scheme": "selmcast", "p": 0.3, "ssp": 4, "k": 4, "n": 50, "duration_s": 600.0,
            "eta": 0.75}
    fig11 = {"trace": "lstm", "scheme": "selmcast", "eta": 0.75, "n": 50, "duration_s": 600.0}
    assert ssp_trial.cache_params(fig8) == ssp_trial.cache_params(fig11)
    assert ssp_trial.cache_params({**fig8, "p": 0.35}) != ssp_trial.cache_params(fig11)
    n0 = Scenario().n
    assert cluster_trial.cache_params({"scheme": "selective"}) == \
        cluster_trial.cache_params({"scheme": "selective", "n": n0})
    assert cluster_trial.cache_params({"scheme": "selective", "n": n0 + 1}) != \
        cluster_trial.cache_params({"scheme": "selective"})


# ---------------------------------------------------------------- settings run together (S39)
GROUPS_ENV = "SIMLIB_TEST_SWEEP_GROUPS"     # directory: one file per together.run call


def _alone(params, rng_seed):
    """What each setting's trial returns (logged_fn on its x: logged and failing as that)."""
    return logged_fn({"x": params["x"]}, rng_seed)


def _share_of(params):
    """Settings with the same ``g`` share their work at one seed; a setting without ``g`` runs alone."""
    return None if "g" not in params else f"g{params['g']}"


def _run_shared(settings, rng_seed):
    log = os.environ.get(GROUPS_ENV)
    if log:
        Path(log, f"{'+'.join(str(s['x']) for s in settings)}-{rng_seed.spawn_key[0]}-{uuid.uuid4().hex}").touch()
    return [_alone(s, rng_seed) for s in settings]


@trial_keyed_by(dict, together=Together(_share_of, _run_shared))
def shared_fn(params, rng_seed):
    return _alone(params, rng_seed)


def alone_fn(params, rng_seed):
    return _alone(params, rng_seed)


#: x = 1 and 2 share (g = 0), x = 3 is alone in its group, x = 4 has none.
SHARED_GRID = [{"x": 1, "g": 0}, {"x": 2, "g": 0}, {"x": 3, "g": 1}, {"x": 4}]


def _groups(d: Path) -> list[tuple[str, int]]:
    return sorted((p.name.split("-")[0], int(p.name.split("-")[1])) for p in d.iterdir())


@pytest.fixture
def groups_dir(tmp_path, monkeypatch):
    d = tmp_path / "groups"
    d.mkdir()
    monkeypatch.setenv(GROUPS_ENV, str(d))
    return d


@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_settings_sharing_a_key_run_together_per_trial_with_their_own_outputs(executor, log_dir, groups_dir):
    """S39: per trial index, the settings whose key is equal (x = 1, 2) run in one task; a setting alone in
    its key (x = 3) or without one (x = 4) runs as a trial; every setting's trial runs once and the frame
    is the one of a plain trial function; the progress counts trials."""
    reference = run_sweep(alone_fn, SHARED_GRID, 3, executor="serial", progress=False)
    for p in log_dir.iterdir():
        p.unlink()
    seen = []
    ex = Executor("processes", workers=2) if executor == "processes" else "serial"
    got = run_sweep(shared_fn, SHARED_GRID, 3, executor=ex, progress=False,
                    progress_callback=lambda done, total, initial: seen.append((done, total)))
    assert _groups(groups_dir) == [("1+2", 0), ("1+2", 1), ("1+2", 2)]
    assert calls(log_dir) == sorted((x, t) for x in (1, 2, 3, 4) for t in range(3))
    assert_same(reference, got)
    assert seen[0] == (0, 12) and seen[-1] == (12, 12) and len(seen) == 1 + 3 + 2 * 3


def test_unpaired_trials_never_run_together(log_dir, groups_dir):
    """With ``paired=False`` the settings of one trial index have different seeds: each runs alone."""
    reference = run_sweep(alone_fn, SHARED_GRID, 2, executor="serial", progress=False, paired=False)
    got = run_sweep(shared_fn, SHARED_GRID, 2, executor="serial", progress=False, paired=False)
    assert _groups(groups_dir) == []
    assert_same(reference, got)


def test_a_failed_group_names_its_trials_and_the_sweep_resumes_what_is_missing(tmp_path, log_dir, groups_dir,
                                                                            monkeypatch):
    """x = 2's trial 1 raises inside its group's task: the note names both settings run together; the rerun
    computes the failed group and what was not reached, and a group with one member cached runs the other
    alone.  Every frame equals the plain function's."""
    reference = run_sweep(alone_fn, SHARED_GRID, 2, executor="serial", progress=False)
    cache = tmp_path / "cache"
    monkeypatch.setenv(FAIL_ENV, "2:1:error")
    with pytest.raises(RuntimeError, match="injected") as info:
        run_sweep(shared_fn, SHARED_GRID, 2, executor="serial", progress=False, cache_dir=cache)
    assert any(n.startswith("run_sweep: raised by trial 1 of settings [0, 1], run together (S39): ")
               for n in info.value.__notes__)
    assert len(list(cache.glob("*.json"))) == 2             # the group of trial 0 (serial: in task order)
    monkeypatch.delenv(FAIL_ENV)
    for d in (log_dir, groups_dir):
        for p in d.iterdir():
            p.unlink()
    resumed = run_sweep(shared_fn, SHARED_GRID, 2, executor="serial", progress=False, cache_dir=cache)
    assert _groups(groups_dir) == [("1+2", 1)]
    assert calls(log_dir) == [(1, 1), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1)]
    assert_same(reference, resumed)
    one = next(p for p in cache.glob("*.json") if (json.loads(p.read_text())["params"]["x"],
                                                   json.loads(p.read_text())["trial"]) == (2, 0))
    one.unlink()
    for d in (log_dir, groups_dir):
        for p in d.iterdir():
            p.unlink()
    again = run_sweep(shared_fn, SHARED_GRID, 2, executor="serial", progress=False, cache_dir=cache)
    assert _groups(groups_dir) == [] and calls(log_dir) == [(2, 0)]
    assert_same(reference, again)
