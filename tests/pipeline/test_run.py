"""simlib.start and the Run: passed parameters named by the runner, else by comparison with the
full profile's defaults (decision S22), the runner's facts as one papermill parameter (S21), and
the run's own sweep, figures and ledger rows carrying its provenance."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pandas as pd
import pytest

import simlib
from simlib.papers.claim import Claim
from simlib.papers.contract import ParamSpec, ScenarioBase, param, param_list
from simlib.pipeline import paths
from simlib.pipeline.claims import load_ledger
from simlib.pipeline.run import RUNNER_PARAMETER, _same, passed_parameters


@dataclass(frozen=True)
class Probe(ScenarioBase):
    cap_s: float = param(math.inf, lo=0.0, hi=math.inf, unit="s", help="a cap (inf: none)", quick=5.0)
    n: int = param(10, lo=1, help="workers", quick=2)
    xs: tuple = param_list([1, 2], item=ParamSpec(kind="int", lo=1, help="a value"), quick=[7])
    trials: int = param(3, lo=1, help="trials", quick=1)


def cell(**given) -> dict:
    """The namespace after the parameters cell (the spec's defaults) and papermill's injected cell."""
    return {"profile": "full", "workers": None, "seed": 0, "cap_s": math.inf, "n": 10, "xs": [1, 2], "trials": 3,
            **given}


def test_a_parameter_counts_as_passed_when_it_differs_from_the_full_default():
    assert passed_parameters(Probe, cell()) == {}
    # the same values, written otherwise: text lists, papermill's float('inf'), workers None
    assert passed_parameters(Probe, cell(xs="[1, 2]", cap_s=float("inf"))) == {}
    got = passed_parameters(Probe, cell(profile="quick", workers=2, xs="[3]", n=11, seed=4))
    assert got == {"profile": "quick", "workers": 2, "xs": "[3]", "n": 11, "seed": 4}
    # a value the spec refuses counts as passed (start then rejects it by name)
    assert set(passed_parameters(Probe, cell(n=0, cap_s=math.nan))) == {"n", "cap_s"}


def test_nan_equals_nan_in_the_comparison():
    assert _same(math.nan, math.nan) and _same([1.0, math.nan], (1.0, math.nan))
    assert not _same(math.nan, 1.0) and not _same([1, 2], [1, 3]) and _same(math.inf, float("inf"))


def test_a_list_that_is_a_prefix_of_the_default_is_passed():
    """[1] against the default [1, 2]: zip alone would call them equal and the quick value would win."""
    assert not _same([1, 2], [1, 2, 3]) and not _same([1, 2, 3], [1, 2])
    assert passed_parameters(Probe, cell(xs=[1])) == {"xs": [1]}
    run = simlib.start(Probe, cell(profile="quick", xs="[1]"), notebook="05_probe")
    assert run.values["xs"] == [1]


def test_a_name_papermill_injected_that_the_notebook_does_not_declare_is_refused():
    """`papermill -p bogus 1` (the runner refuses it itself; papermill by hand only warns)."""
    history = ["import simlib", 'profile = "full"\nn = 10', '# Parameters\nprofile = "quick"\nbogus = 1\n']
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['bogus'\] .*parameters are \['profile'"):
        simlib.start(Probe, cell(profile="quick", bogus=1, In=history), notebook="05_probe")
    # declared, common and the runner's names pass; the last injected cell is the one read
    history[-1] = '# Parameters\nprofile = "quick"\nn = 4\nseed = 2\nsimlib_run = {"passed": ["n"]}\n'
    run = simlib.start(Probe, cell(profile="quick", n=4, seed=2, In=history,
                                   **{RUNNER_PARAMETER: {"passed": ["n"]}}), notebook="05_probe")
    assert run.values["n"] == 4


def test_quick_profile_replaces_only_what_was_not_passed():
    ns = cell(profile="quick")
    run = simlib.start(Probe, ns, notebook="05_probe")
    assert (run.values["cap_s"], run.values["n"], run.values["xs"], run.trials) == (5.0, 2, [7], 1)
    assert ns["cap_s"] == 5.0 and ns["xs"] == [7]                      # the cells read plain names
    run = simlib.start(Probe, cell(profile="quick", n=4, xs="[3, 4]"), notebook="05_probe")
    assert (run.values["n"], run.values["xs"], run.values["cap_s"]) == (4, [3, 4], 5.0)
    # without the runner, the full default given explicitly is not "passed": the quick value wins (S22)
    run = simlib.start(Probe, cell(profile="quick", n=10, cap_s=float("inf")), notebook="05_probe")
    assert (run.values["n"], run.values["cap_s"]) == (2, 5.0)
    with pytest.raises(ValueError, match=r"cap_s must be .*got nan"):
        simlib.start(Probe, cell(profile="quick", cap_s=float("nan")), notebook="05_probe")


def test_the_runners_passed_names_count_whatever_their_value():
    """`--profile quick -p n 10 -p cap_s inf` (both the full defaults): the runner names them in
    simlib_run["passed"], so the quick profile keeps them, they name the run folder and fill the
    ledger's parameters column; without simlib_run the comparison with the defaults holds (S22)."""
    ns = cell(profile="quick", n=10, cap_s=float("inf"))
    old_rule = simlib.start(Probe, dict(ns), notebook="05_probe")
    assert (old_rule.values["n"], old_rule.values["cap_s"], dict(old_rule.passed)) == (2, 5.0, {"profile": "quick"})
    facts = {"notebook": "05_probe", "publish": False, "passed": ["cap_s", "n"]}
    run = simlib.start(Probe, {**ns, RUNNER_PARAMETER: facts}, notebook="05_probe")
    assert (run.values["n"], run.values["cap_s"], run.values["xs"], run.trials) == (10, math.inf, [7], 1)
    assert run.passed == {"profile": "quick", "n": 10, "cap_s": math.inf}
    assert run.ledger_parameters() == {"profile": "quick", "n": 10, "cap_s": "inf"}
    assert run.folders.out_dir == paths.RUNS / "05_probe" / paths.parameter_hash({"profile": "quick", "n": 10,
                                                                                  "cap_s": math.inf})
    assert run.folders.out_dir != old_rule.folders.out_dir
    # the names are the runner's word: a value other than the default that it does not name is not passed
    run = simlib.start(Probe, cell(profile="quick", n=4, **{RUNNER_PARAMETER: {**facts, "passed": []}}),
                       notebook="05_probe")
    assert run.values["n"] == 2 and run.passed == {"profile": "quick"}
    # a publishing run passes nothing: its rows read {"profile": "full"} as before
    run = simlib.start(Probe, cell(workers=2, **{RUNNER_PARAMETER: {"notebook": "05_probe", "publish": True,
                                                                    "passed": []}}), notebook="05_probe")
    assert run.passed == {"workers": 2} and run.ledger_parameters() == {"profile": "full"}


@pytest.mark.parametrize("named, match", [
    ("n", r"simlib_run\['passed'\] must be a list of parameter names .*got 'n'"),
    ([1], r"simlib_run\['passed'\] must be a list of parameter names .*got \[1\]"),
    (["n", "bogus"], r"simlib_run\['passed'\] names \['bogus'\], which the notebook does not assign"),
])
def test_the_runners_passed_names_are_checked(named, match):
    with pytest.raises(ValueError, match=match):
        simlib.start(Probe, cell(**{RUNNER_PARAMETER: {"notebook": "05_probe", "passed": named}}), notebook="05_probe")


def test_folders_come_from_the_runners_facts_else_from_the_passed_parameters(tmp_path):
    run = simlib.start(Probe, cell(profile="quick", workers=2), notebook="05_probe")
    assert not run.publish and run.progress_file is None
    assert run.folders.out_dir == paths.RUNS / "05_probe" / paths.parameter_hash({"profile": "quick"})
    facts = {"notebook": "05_copy", "publish": False, "out_dir": str(tmp_path), "progress_file": str(tmp_path / "p")}
    run = simlib.start(Probe, cell(**{RUNNER_PARAMETER: facts}), notebook="05_probe")
    assert (run.notebook, run.folders.out_dir, run.progress_file) == ("05_copy", tmp_path, tmp_path / "p")
    run = simlib.start(Probe, cell(**{RUNNER_PARAMETER: {"notebook": "05_probe", "publish": True}}),
                       notebook="05_probe")
    assert run.publish and run.ledger == paths.COMMITTED_LEDGER and run.folders.figures == paths.COMMITTED_FIGURES
    with pytest.raises(ValueError, match=r"simlib_run has unknown key\(s\) \['bogus'\] \(allowed: \['notebook', "):
        simlib.start(Probe, cell(**{RUNNER_PARAMETER: {"bogus": 1}}), notebook="05_probe")
    with pytest.raises(ValueError, match="notebook must be a non-empty str"):
        simlib.start(Probe, cell(), notebook="")


def in_folder(tmp_path, **given):
    facts = {"notebook": "05_probe", "publish": False, "out_dir": str(tmp_path / "run"),
             "progress_file": str(tmp_path / "progress.json")}
    return simlib.start(Probe, cell(**given, **{RUNNER_PARAMETER: facts}), notebook="05_probe")


def test_record_writes_the_runs_provenance_to_its_ledger(tmp_path):
    run = in_folder(tmp_path, profile="quick", workers=3, cap_s=float("inf"), n=12)
    run.record(Claim("P", "F", "c", "1", "1", direction=True))
    row = load_ledger(tmp_path / "run" / "results" / "claims.csv").iloc[0]
    assert (row["notebook"], row["profile"], row["trials"]) == ("05_probe", "quick", "1")
    assert json.loads(row["parameters"]) == {"profile": "quick", "n": 12}     # workers changes no result
    run.record(Claim("P", "F", "d", "1", "1", direction=True), trials=9)
    assert load_ledger(run.ledger).set_index("claim").loc["d", "trials"] == "9"


def double(params, rng_seed):
    return {"y": 2 * params["x"]}


def test_sweep_writes_its_csv_and_reports_progress_to_the_runners_file(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "CACHE", tmp_path / "cache")
    run = in_folder(tmp_path, profile="quick")
    df = run.sweep(double, [{"x": 1}, {"x": 2}], name="t", trials=2)
    assert df["y"].tolist() == [2, 2, 4, 4]
    pd.testing.assert_frame_equal(pd.read_csv(run.csv("t")), df, check_dtype=False)
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert (progress["desc"], progress["done"], progress["total"]) == ("t", 4, 4)


def test_the_runners_dask_address_reaches_the_sweep_as_an_argument(tmp_path, monkeypatch):
    """S32: the scheduler comes from simlib_run (the runner's), not from the environment."""
    from simlib.pipeline import runs

    seen = []
    monkeypatch.setattr(runs, "run_sweep", lambda *a, executor, **k: seen.append(executor) or pd.DataFrame())
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://ignored:1")
    in_folder(tmp_path, profile="quick").sweep(double, [{"x": 1}], name="t")
    facts = {"notebook": "05_probe", "out_dir": str(tmp_path / "run"), "dask_address": "tcp://h:8786"}
    simlib.start(Probe, cell(**{RUNNER_PARAMETER: facts}), notebook="05_probe").sweep(double, [{"x": 1}], name="t")
    assert [(e.kind, e.dask_address) for e in seen] == [("serial", None), ("dask", "tcp://h:8786")]
    with pytest.raises(ValueError, match=r"simlib_run\['dask_address'\] must be None or a scheduler address"):
        simlib.start(Probe, cell(**{RUNNER_PARAMETER: {"dask_address": 8786}}), notebook="05_probe")


def test_a_runs_sweeps_share_its_worker_processes_until_it_closes(tmp_path, monkeypatch):
    """S34: the full profile's sweeps run on the Run's pool, started by the first and reused by the next
    (the same worker pids), with the serial executor's values; close() stops the workers."""
    import os

    from tests.pipeline.test_sweep import alive, pid_fn

    monkeypatch.setattr(paths, "CACHE", tmp_path / "cache")
    run = in_folder(tmp_path, workers=2)
    assert run.profile == "full" and run.pool.workers == 2 and run.pool.pids() == []
    first = run.sweep(pid_fn, [{"x": 1}, {"x": 2}], name="a", trials=3)
    workers = run.pool.pids()
    second = run.sweep(pid_fn, [{"x": 3}, {"x": 4}], name="b", trials=3)
    assert len(workers) == 2 and run.pool.pids() == workers and run.pool.starts == 1
    assert set(first["pid"]) | set(second["pid"]) <= set(workers) and os.getpid() not in workers
    serial = run.sweep(pid_fn, [{"x": 5}, {"x": 6}], name="c", trials=3, executor="serial")
    assert first["u"].tolist() == serial["u"].tolist() and set(serial["pid"]) == {os.getpid()}
    run.close()
    assert run.pool.pids() == [] and not any(alive(pid) for pid in workers)


def test_save_figure_goes_to_the_runs_folder_and_never_to_the_committed_one_by_accident(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simlib.pipeline import plotting

    fig, _ = plt.subplots()
    png, pdf = in_folder(tmp_path).save_figure(fig, "f")
    assert png == tmp_path / "run" / "figures" / "f.png" and pdf.is_file()
    with pytest.raises(ValueError, match="committed figures/ folder"):
        plotting.save_figure(fig, "f", paths.COMMITTED_FIGURES)
    plt.close(fig)


# --- issue 47: wall-clock measurements apart from the results (decision S26) ----------------------

def timed(params, rng_seed):
    return {"y": 2 * params["x"], "time_ms": 0.5 + params["x"]}


def test_measured_columns_go_to_the_measurements_folder_not_the_results(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "CACHE", tmp_path / "cache")
    run = in_folder(tmp_path, profile="quick")
    df = run.sweep(timed, [{"x": 1}, {"x": 2}], name="t", trials=2, measured=("time_ms", "other_ms"))
    assert list(df.columns) == ["x", "trial", "y", "time_ms"]        # the notebook keeps every column
    results = pd.read_csv(run.csv("t"))
    assert list(results.columns) == ["x", "trial", "y"]
    measured = pd.read_csv(tmp_path / "run" / "measurements" / "t.csv")
    assert list(measured.columns) == ["x", "trial", "time_ms"]       # the row key and the measurement
    assert measured["time_ms"].tolist() == [1.5, 1.5, 2.5, 2.5]
    # the same sweep without the declaration keeps the old single CSV
    run.sweep(timed, [{"x": 1}], name="u", trials=1)
    assert "time_ms" in pd.read_csv(run.csv("u")).columns
    # the runner's trials log counts computed and cached trials
    from simlib.pipeline import timing
    assert timing.read_trials_log(tmp_path / "progress.json") == (4, 1)   # t: 4 computed; u: its 1 cached


def test_split_measurements_refuses_what_is_not_a_metric():
    from simlib.pipeline.runs import split_measurements

    df = pd.DataFrame({"x": [1], "trial": [0], "y": [2.0]})
    assert split_measurements(df, ())[1] is None and split_measurements(df, ["absent"])[1] is None
    with pytest.raises(ValueError, match="setting columns"):
        split_measurements(df, ["x"])
    with pytest.raises(ValueError, match="list of column names"):
        split_measurements(df, "y")
    with pytest.raises(ValueError, match="'trial' column"):
        split_measurements(pd.DataFrame({"x": [1], "y": [2.0]}), ["y"])


def test_timing_claims_are_kept_in_full_apart_and_cited_in_the_ledger(tmp_path):
    run = in_folder(tmp_path, profile="quick")
    claims = [Claim("P", "F", "fast", "tens of ms", "SelMcast 1.7 ms", direction=True, note="below 100 ms"),
              Claim("P", "F", "result", "1.3×", "1.31×", direction=True)]
    cited = run.measured_claims(claims, "p_timing", lambda c: c.claim == "fast")
    run.record(cited)
    ledger = load_ledger(run.ledger).set_index("claim")
    assert ledger.loc["result", "our_value"] == "1.31×"                       # results untouched
    assert ledger.loc["fast", "our_value"].startswith("machine-dependent, see ")
    assert ledger.loc["fast", "our_value"].endswith("measurements/p_timing.csv")
    assert "the verdict depends on the machine" in ledger.loc["fast", "note"]
    assert ledger.loc["fast", "note"].startswith("below 100 ms; ")
    assert bool(ledger.loc["fast", "holds"])                                  # the verdict stays
    full = load_ledger(tmp_path / "run" / "measurements" / "p_timing.csv").set_index("claim")
    assert list(full.index) == ["fast"] and full.loc["fast", "our_value"] == "SelMcast 1.7 ms"
    assert [c.claim for c in cited] == ["fast", "result"]                     # order kept


def test_measurement_figures_go_to_the_measurements_folder(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simlib.pipeline import plotting

    fig, _ = plt.subplots()
    png, _pdf = in_folder(tmp_path).save_figure(fig, "t", measurement=True)
    assert png == tmp_path / "run" / "measurements" / "figures" / "t.png"
    with pytest.raises(ValueError, match="data/measurements/"):
        plotting.save_figure(fig, "t", paths.COMMITTED_MEASUREMENTS / "figures")
    plt.close(fig)


def test_a_publishing_run_writes_measurements_to_the_committed_folder():
    published = paths.RunContext(True, paths.REPO_ROOT, "41_x")
    assert published.measurements == paths.COMMITTED_MEASUREMENTS == paths.REPO_ROOT / "data" / "measurements"
    assert paths.RunContext(False, paths.RUNS / "41_x" / "h", "41_x").measurements == paths.RUNS / "41_x" / "h" / "measurements"


def test_timed_sweeps_keep_each_sweeps_wall_time_apart_from_its_results(tmp_path, monkeypatch, capsys):
    """Notebooks 92/93's timed sweeps (S26): each sweep's CSV is ``<prefix>_<name>`` in the results with its
    own trial count; one measurements file ``<prefix>_times`` holds every sweep's runs and wall time."""
    from simlib.pipeline.run import TimedSweeps

    monkeypatch.setattr(paths, "CACHE", tmp_path / "cache")
    run = in_folder(tmp_path, profile="quick")
    timed = TimedSweeps(run, "95_probe")
    a = timed("doubled", double, [{"x": 1}, {"x": 2}], 3, "a")
    b = timed("doubled once", double, [{"x": 5}], 1, "b")
    assert (len(a), len(b)) == (6, 1)
    pd.testing.assert_frame_equal(pd.read_csv(run.csv("95_probe_a")), a, check_dtype=False)
    assert timed.save() is None
    times = pd.read_csv(tmp_path / "run" / "measurements" / "95_probe_times.csv")
    assert times["sweep"].tolist() == ["doubled", "doubled once"] and times["runs"].tolist() == [6, 1]
    assert list(times.columns) == ["sweep", "runs", "wall_s"] and (times["wall_s"] >= 0).all()
    assert not (tmp_path / "run" / "results" / "95_probe_times.csv").exists()
    out = capsys.readouterr().out
    assert "doubled: 6 runs\ndoubled once: 1 runs\n" in out and "95_probe_times.csv" in out
