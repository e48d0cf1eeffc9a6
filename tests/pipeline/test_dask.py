"""Dask without surprises: the address is honoured in every profile, an unreachable scheduler fails
in seconds naming it, and a node that lacks simlib (or runs other code or packages) is named before
any trial is sent."""
import logging
import os
import platform
import sys
from pathlib import Path

import pandas as pd
import pytest

from simlib.pipeline import paths, runs, sweep
from simlib.pipeline.sweep import Executor, check_dask_nodes, node_identity, node_problems, run_sweep

distributed = pytest.importorskip("distributed")

UNREACHABLE = "tcp://127.0.0.1:1"      # port 1: nothing listens there


def double_fn(params, rng_seed):
    return {"y": 2 * params["x"], "u": float(rng_seed.generate_state(1)[0])}


@pytest.fixture
def quick_timeout(monkeypatch):
    monkeypatch.setattr(sweep, "DASK_CONNECT_TIMEOUT_S", 1.0)


@pytest.fixture
def tmp_run(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "CACHE", tmp_path / "cache")
    return tmp_path


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as c:
        yield c


def test_unreachable_scheduler_is_named_before_anything_is_written(quick_timeout, tmp_path):
    with pytest.raises(ValueError, match=r"cannot reach the Dask scheduler at 'tcp://127\.0\.0\.1:1'.* 1 s"):
        run_sweep(double_fn, [{"x": 1}], 1, executor=Executor("dask", dask_address=UNREACHABLE), progress=False,
                  cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_the_address_is_honoured_in_every_profile(profile, quick_timeout, tmp_run):
    with pytest.raises(ValueError, match="127.0.0.1:1"):
        runs.run_notebook_sweep(double_fn, [{"x": 1}], trials=1, seed=0, name="t", profile=profile,
                                executor=Executor("dask", dask_address=UNREACHABLE), results_dir=tmp_run / "run" / "results")
    assert not (tmp_run / "run").exists() and not (tmp_run / "cache").exists()


def test_the_sweep_does_not_read_the_address_from_the_environment(quick_timeout, tmp_run, monkeypatch):
    """S32: the executor is an argument; the environment variable is only the runner's command-line
    default, so a sweep given no address runs here even with it set."""
    monkeypatch.setenv(sweep.DASK_ENV, UNREACHABLE)
    df = runs.run_notebook_sweep(double_fn, [{"x": 1}], trials=1, seed=0, name="t", profile="quick",
                                 results_dir=tmp_run / "run" / "results")
    assert df["y"].tolist() == [2]


def test_quick_profile_runs_on_the_cluster_and_gets_the_serial_result(cluster, tmp_run, monkeypatch):
    settings = [{"x": 1}, {"x": 3}]
    serial = run_sweep(double_fn, settings, 2, seed=5, executor="serial", progress=False)
    seen = []
    real = sweep._iter_dask
    monkeypatch.setattr(sweep, "_iter_dask", lambda *a: seen.append(1) or real(*a))
    df = runs.run_notebook_sweep(double_fn, settings, trials=2, seed=5, name="t", profile="quick",
                                 executor=Executor("dask", dask_address=cluster.scheduler_address), results_dir=tmp_run / "run" / "results")
    assert seen, "the quick profile did not use the Dask cluster"
    pd.testing.assert_frame_equal(df, serial)


def test_every_node_matching_passes(cluster):
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        check_dask_nodes(client)          # same process: the same simlib, Python and packages


@pytest.mark.slow      # a dask worker process (2.5 CPU-s, 5 s wall, 2026-11-29); in-process: test_every_node_matching_passes
def test_a_worker_process_is_probed_across_the_process_boundary():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as procs:
        df = run_sweep(double_fn, [{"x": 2}], 1, executor=Executor("dask", dask_address=procs.scheduler_address),
                       progress=False)
    assert df["y"].tolist() == [4]


def test_a_node_without_simlib_is_named(cluster):
    # the probe each node evaluates, as on a node where simlib is not installed
    missing = "__import__('importlib').import_module('simlib_not_installed_here')"
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        worker = next(iter(client.scheduler_info()["workers"]))
        with pytest.raises(ValueError) as err:
            check_dask_nodes(client, probe=missing)
    text = str(err.value)
    assert "scheduler: cannot run simlib (ModuleNotFoundError" in text
    assert f"worker {worker}: cannot run simlib (ModuleNotFoundError" in text
    assert "the same simlib" in text


def test_a_scheduler_without_workers_is_refused(quick_timeout):
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as empty:
        with pytest.raises(ValueError, match="has no worker after 1 s"):
            run_sweep(double_fn, [{"x": 1}], 1, executor=Executor("dask", dask_address=empty.scheduler_address),
                      progress=False)


def test_node_problems_names_what_differs():
    here = {"simlib": "0.1.0", "simlib code": "abc", "python": "3.11.7", "numpy": "2.4.6"}
    assert node_problems(here, {"scheduler": dict(here), "worker a": dict(here)}) == []
    problems = node_problems(here, {"scheduler": dict(here, **{"simlib code": "def"}),
                                    "worker a": dict(here, numpy="2.3.0"),
                                    "worker b": ModuleNotFoundError("No module named 'simlib'")})
    assert problems == ["scheduler: simlib code def (here abc)",
                        "worker a: numpy 2.3.0 (here 2.4.6)",
                        "worker b: cannot run simlib (ModuleNotFoundError: No module named 'simlib')"]


def test_node_identity_names_simlib_python_the_packages_and_the_numerics():
    ident = node_identity()
    assert set(ident) == {"simlib", "simlib code", "python", *sweep.NODE_PACKAGES, "numerics"}
    assert ident["simlib code"] == sweep.code_fingerprint()[:12]
    assert ident["numerics"] == sweep.numerics_identity()
    # a node whose BLAS dispatched to another kernel is named, though its packages match (S43)
    other = dict(ident, numerics=ident["numerics"].replace("blas ", "blas other-core "))
    assert node_problems(ident, {"worker a": other}) == [f"worker a: numerics {other['numerics']} "
                                                         f"(here {ident['numerics']})"]


@pytest.mark.skipif(platform.machine() != "x86_64", reason="OpenBLAS's x86-64 core names")
def test_numerics_identity_follows_the_blas_core_and_numpys_dispatch():
    """S43: the identity reads what the process dispatched to, so the knobs that align two machines show in it."""
    import json
    import subprocess

    from numpy._core._multiarray_umath import __cpu_dispatch__

    code = "import json; from simlib.pipeline.sweep import numerics_identity as f; print(json.dumps(f()))"
    env = dict(os.environ, OPENBLAS_CORETYPE="Sandybridge", NPY_DISABLE_CPU_FEATURES=" ".join(__cpu_dispatch__))
    env.pop("NPY_ENABLE_CPU_FEATURES", None)
    env["PYTHONPATH"] = str(Path(sweep.__file__).resolve().parents[2])
    forced = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                       check=True).stdout)
    assert forced == "blas openblas Sandybridge; numpy baseline"


def test_the_notebook_runner_refuses_an_unreachable_scheduler_before_any_notebook(quick_timeout, tmp_path,
                                                                                   monkeypatch, capsys):
    from simlib.pipeline import notebooks

    monkeypatch.setenv(sweep.DASK_ENV, UNREACHABLE)
    monkeypatch.setattr(notebooks, "run_notebooks", lambda *a, **k: pytest.fail("a notebook ran"))
    with pytest.raises(SystemExit) as stop:
        notebooks.main(["--profile", "quick", "--only", "11_", "--build-dir", str(tmp_path / "build")])
    assert stop.value.code == 2
    assert "DASK_SCHEDULER_ADDRESS" in capsys.readouterr().err
    assert not (tmp_path / "build").exists()
