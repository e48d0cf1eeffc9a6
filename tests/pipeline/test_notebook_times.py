"""The notebook runner records and estimates run times (no notebook is executed here).

``run_notebook`` is replaced by a fake that returns a result with a chosen wall
time, as the real one would (publishing or not, run folder under ``root``);
the real execution path is covered by tests/pipeline/test_notebooks.py.
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from simlib.pipeline import notebooks as runner
from simlib.pipeline import timing

COMMITTED = """notebook,profile,wall_s,cpu_s,ok
09_gone,full,5.0,5.0,True
10_a,full,100.0,150.0,True
11_b,full,40.0,70.0,True
12_c,full,7.0,7.0,True
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A tmp root with notebooks 10_a, 11_b, 12_c, a committed times file, and a fake executor.

    ``repo.times[name] = (wall_s, ok)`` and ``repo.trials[name] = (computed, cached)`` set what the
    fake reports.
    """
    root = tmp_path / "repo"
    (root / "notebooks").mkdir(parents=True)
    for name in ("10_a", "11_b", "12_c"):
        (root / "notebooks" / f"{name}.py").write_text("")
    (root / "data" / "results").mkdir(parents=True)
    runner.committed_times_path(root).write_text(COMMITTED)
    times, trials = {}, {}

    def fake_run_notebook(source, parameters, *, root, publish, build_dir, **_):
        wall, ok = times.get(source.stem, (1.0, True))
        out_dir = None if publish else runner.run_dir_for(root, source.stem, parameters)
        output = (Path(build_dir) / "executed" if publish else out_dir) / f"{source.stem}.ipynb"
        return runner.NotebookResult(source.stem, source, output, ok, wall, "" if ok else "boom",
                                     dict(parameters), publish, out_dir, cpu_seconds=2 * wall,
                                     computed=trials.get(source.stem, (3, 0))[0],
                                     cached=trials.get(source.stem, (3, 0))[1])

    monkeypatch.setattr(runner, "run_notebook", fake_run_notebook)
    monkeypatch.setattr(runner, "ensure_kernel", lambda *a, **k: None)
    monkeypatch.setattr(runner, "cache_is_empty", lambda *a, **k: False)   # a warm run unless a test says cold

    build = tmp_path / "build"
    return SimpleNamespace(
        root=root, build=build, times=times, trials=trials, committed=runner.committed_times_path(root),
        run=lambda only=None, **kw: runner.run_notebooks(runner.discover(root / "notebooks", only=only),
                                                         root=root, build_dir=build, **kw))


def test_partial_publishing_run_updates_only_its_row_and_prints_the_estimate(repo):
    repo.times["11_b"] = (42.04, True)
    lines = []
    [res] = repo.run(only="11_", profile="full", echo=lines.append)
    assert res.publish
    # the file is rewritten in the current layout (computed / cached trials, cold time; S28; the run's
    # notebooks at once); the other rows keep their values, unknown in the old layout
    assert repo.committed.read_text().splitlines() == [
        ",".join(timing.NOTEBOOK_COLUMNS), "09_gone,full,5.0,5.0,True,,,,,,", "10_a,full,100.0,150.0,True,,,,,,",
        "11_b,full,42.0,84.1,True,3,0,,,,1", "12_c,full,7.0,7.0,True,,,,,,"]
    assert lines[1] == "1 notebook, estimated 40s (recorded times in data/results/notebook_times.csv)"
    assert lines[2] == "[1/1] 11_b (est. 40s)"
    assert lines[-1].splitlines() == ["notebook  estimated  measured",
                          "11_b            40s       42s",
                          "total           40s       42s"]
    assert not (repo.root / "build").exists()  # a publishing run makes no run folder


def test_full_run_with_a_fresh_ledger_drops_rows_of_removed_notebooks(repo):
    (repo.root / "notebooks" / "13_new.py").write_text("")
    lines = []
    results = repo.run(profile="full", new_ledger=True, echo=lines.append)
    assert [r.name for r in results] == ["10_a", "11_b", "12_c", "13_new"]
    assert lines[1] == ("4 notebooks, estimated 2m27s (recorded times in data/results/notebook_times.csv); "
                        "no estimate for 1 of 4 notebooks (new: 13_new)")
    assert "[4/4] 13_new (no estimate)" in lines
    # after each notebook the rest is estimated at the pace so far, shrunk towards 1 by the prior
    # (S28): 10_a took 1 s of its 100 s -> (1 + 120) / (100 + 120) = 0.55, times 47 s
    assert "    remaining ≈ 26s for 2 notebooks (pace so far 0.55× the recorded times), " \
           "plus 1 without an estimate" in lines
    assert not any("remaining" in line for line in lines[lines.index("[4/4] 13_new (no estimate)"):])
    assert lines[-1].splitlines()[-1] == "total (estimate for 3 of 4)      2m27s        4s"
    assert list(timing.read_times(repo.committed)) == ["10_a", "11_b", "12_c", "13_new"]


def test_failed_notebook_is_recorded_and_then_has_no_estimate(repo):
    repo.times["12_c"] = (3.0, False)
    repo.run(only="12_", profile="full", echo=None)
    assert timing.read_times(repo.committed)["12_c"] == timing.Timing("12_c", 3.0, False, "full", 6.0, 3, 0, jobs=1)
    lines = []
    repo.run(only="12_", profile="full", echo=lines.append)
    assert lines[1] == ("1 notebook (recorded times in data/results/notebook_times.csv); "
                        "no estimate for 1 of 1 notebook (failed last time: 12_c)")


@pytest.mark.parametrize("profile, extra", [("quick", {}), ("quick", {"trials": 2}), ("full", {"trials": 2})])
def test_non_publishing_run_never_touches_the_committed_times(repo, profile, extra):
    committed = repo.committed.read_bytes()
    repo.times["10_a"] = (12.0, True)
    [res] = repo.run(only="10_", profile=profile, extra=extra, echo=None)
    assert not res.publish
    assert repo.committed.read_bytes() == committed
    # the run folder records this run's time
    in_run = timing.read_times(res.out_dir / "results" / "notebook_times.csv")
    assert in_run == {"10_a": timing.Timing("10_a", 12.0, True, profile, 24.0, 3, 0, jobs=1)}
    # only a plain quick run feeds the quick-profile estimate
    quick = repo.build / runner.QUICK_TIMES_FILE
    assert quick.exists() == (profile == "quick" and not extra)


def test_quick_runs_are_estimated_from_earlier_quick_runs(repo):
    lines = []
    repo.run(only="1", profile="quick", echo=lines.append)
    quick = repo.build / runner.QUICK_TIMES_FILE
    assert lines[1] == f"3 notebooks; no estimate yet (no recorded times in {quick})"
    repo.times["11_b"] = (20.0, True)
    lines.clear()
    repo.run(only="1", profile="quick", echo=lines.append)
    assert lines[1] == f"3 notebooks, estimated 3s (recorded times in {quick})"
    assert "[2/3] 11_b (est. 1s)" in lines
    assert timing.read_times(quick)["11_b"].wall_s == 20.0


def test_unreadable_times_file_is_reported_and_replaced(repo):
    repo.committed.write_text("something else\n1\n")
    lines = []
    repo.run(only="10_", profile="full", echo=lines.append)
    assert lines[1].startswith("ignoring the recorded times: times file") and "columns" in lines[1]
    assert lines[2].startswith("1 notebook; no estimate yet")
    assert list(timing.read_times(repo.committed)) == ["10_a"]


def test_the_progress_line_counts_time_since_the_last_report(tmp_path):
    """While the first trial runs (numba compiling: minutes on a fresh clone, issue 34) the sweep writes no
    new report; the line's elapsed time still grows and says why no estimate is given yet."""
    import json
    import os

    f = tmp_path / "progress.json"
    f.write_text(json.dumps({"desc": "sweep", "done": 0, "total": 4, "initial": 0, "elapsed_s": 0.0}))
    mtime = f.stat().st_mtime
    monitor = runner.ProgressMonitor("[1/1]", f, print, tty=False)
    line = monitor.status(now=mtime + 100.0)
    assert line.startswith("[1/1] sweep: 0/4 trials, 1m40s elapsed (no trial finished yet: the first includes")
    f.write_text(json.dumps({"desc": "sweep", "done": 2, "total": 4, "initial": 0, "elapsed_s": 60.0}))
    os.utime(f, (mtime, mtime))
    assert monitor.status(now=mtime + 30.0) == "[1/1] sweep: 2/4 trials, 1m30s elapsed, about 1m00s left"


REFERENCE_QUICK = """notebook,profile,wall_s,cpu_s,ok,computed,cached,cold_wall_s
10_a,quick,30.0,40.0,True,,,30.0
11_b,quick,8.0,9.0,True,,,8.0
"""


def test_a_fresh_clone_quick_run_is_estimated_from_the_shipped_reference(repo):
    """Issue 45/48: no quick run recorded yet (a fresh clone): the committed reference times give the
    estimate before the first notebook; a notebook the reference lacks is named."""
    ref = runner.reference_times_path("quick", repo.root)
    ref.parent.mkdir(parents=True)
    ref.write_text(REFERENCE_QUICK)
    lines = []
    repo.run(only="1", profile="quick", echo=lines.append, cold=True)
    assert lines[1] == ("3 notebooks, estimated 38s (recorded times in data/measurements/reference_times_quick.csv); "
                        "no estimate for 1 of 3 notebooks (new: 12_c)")
    assert lines[2].startswith("the trial cache is empty, so every trial is computed")
    assert "[1/3] 10_a (est. 30s)" in lines
    # the cold run records its times as cold ones, with the fake's trial counts
    quick = timing.read_times(repo.build / runner.QUICK_TIMES_FILE)
    assert quick["10_a"] == timing.Timing("10_a", 1.0, True, "quick", 2.0, 3, 0, 1.0, jobs=1)


def test_a_cold_full_run_uses_cold_times_and_a_warm_one_the_last_times(repo):
    """The committed times of 10_a came from a run that read its trials from the cache (4 s); its cold
    time is the reference's; 11_b has a cold time of its own; 12_c has none anywhere."""
    repo.committed.write_text("notebook,profile,wall_s,cpu_s,ok,computed,cached,cold_wall_s\n"
                              "10_a,full,4.0,4.0,True,0,60,\n11_b,full,40.0,70.0,True,20,0,45.0\n"
                              "12_c,full,7.0,7.0,True,5,0,\n")
    ref = runner.reference_times_path("full", repo.root)
    ref.parent.mkdir(parents=True)
    ref.write_text("notebook,profile,wall_s,cpu_s,ok,computed,cached,cold_wall_s\n10_a,full,37.0,60.0,True,,,37.0\n")
    lines = []
    repo.run(only="1", profile="full", echo=lines.append, cold=True)
    assert lines[1] == ("3 notebooks, estimated 1m22s (recorded times in data/results/notebook_times.csv and "
                        "data/measurements/reference_times_full.csv); no estimate for 1 of 3 notebooks "
                        "(no time from an empty trial cache: 12_c)")
    lines.clear()
    repo.trials["10_a"] = (0, 60)
    repo.run(only="1", profile="full", echo=lines.append, cold=False)
    # the cold run just recorded 1 s for each (the fake's time); a warm run uses the last times
    assert lines[1] == "3 notebooks, estimated 3s (recorded times in data/results/notebook_times.csv and " \
                       "data/measurements/reference_times_full.csv)"
    assert timing.read_times(repo.committed)["10_a"] == timing.Timing("10_a", 1.0, True, "full", 2.0, 0, 60, 1.0, jobs=1)


def test_the_cache_is_empty_until_a_trial_is_stored(tmp_path):
    cache = tmp_path / "cache"
    assert runner.cache_is_empty(cache)
    (cache / "simlib.x.trial").mkdir(parents=True)
    assert runner.cache_is_empty(cache)
    (cache / "simlib.x.trial" / "abc.json").write_text("{}")
    assert not runner.cache_is_empty(cache)


def _fake_probe(monkeypatch, probe_s):
    from simlib.pipeline import pace

    def measure(*a, **k):
        if probe_s is None:
            raise RuntimeError("no kernels")
        return pace.ProbeResult(probe_s, {"x": probe_s}, {"x": {}})
    monkeypatch.setattr(pace, "measure", measure)


def test_the_probe_scales_the_estimate_and_is_recorded_with_the_times(repo, monkeypatch):
    """S35: 10_a recorded 100 s with a 2 s probe, 11_b 40 s with none; today's probe 2.6 s: 130 + 40 s."""
    repo.committed.write_text(",".join(timing.NOTEBOOK_COLUMNS) + "\n"
                              "10_a,full,100.0,150.0,True,,,100.0,2.00,2.00\n11_b,full,40.0,70.0,True,,,,,\n")
    _fake_probe(monkeypatch, 2.6)
    lines = []
    repo.run(only=["10_", "11_"], profile="full", echo=lines.append, options=runner.ExecOptions(pace_probe=True), cold=True)
    assert lines[0] == "machine-pace probe 2.60 CPU-s (x 2.60)"
    assert lines[2] == ("2 notebooks, estimated 2m10s (recorded times in data/results/notebook_times.csv; machine "
                        "pace 1.30× the recorded runs', probe 2.60 s vs 2.00 s); no estimate for 1 of 2 notebooks "
                        "(no time from an empty trial cache: 11_b)")
    assert "[1/2] 10_a (est. 2m10s)" in lines
    rows = timing.read_times(repo.committed)
    assert rows["10_a"] == timing.Timing("10_a", 1.0, True, "full", 2.0, 3, 0, 1.0, 2.6, 2.6, 1)
    # a warm run records its probe and keeps the cold time's own
    _fake_probe(monkeypatch, 3.0)
    repo.run(only="10_", profile="full", echo=None, options=runner.ExecOptions(pace_probe=True), cold=False)
    assert timing.read_times(repo.committed)["10_a"] == timing.Timing("10_a", 1.0, True, "full", 2.0, 3, 0, 1.0,
                                                                       3.0, 2.6, 1)


def test_without_a_recorded_probe_or_when_the_probe_fails_the_estimate_is_as_before(repo, monkeypatch):
    _fake_probe(monkeypatch, 2.6)          # the committed times have no probe: nothing to compare with
    lines = []
    repo.run(only="11_", profile="full", echo=lines.append, options=runner.ExecOptions(pace_probe=True))
    assert lines[2] == "1 notebook, estimated 40s (recorded times in data/results/notebook_times.csv)"
    repo.committed.write_text(",".join(timing.NOTEBOOK_COLUMNS) + "\n11_b,full,40.0,70.0,True,,,,2.00,\n")
    _fake_probe(monkeypatch, None)
    lines.clear()
    repo.run(only="11_", profile="full", echo=lines.append, options=runner.ExecOptions(pace_probe=True))
    assert lines[0] == ("machine-pace probe failed (RuntimeError: no kernels); estimating from the recorded times")
    assert lines[2] == "1 notebook, estimated 40s (recorded times in data/results/notebook_times.csv)"
    assert timing.read_times(repo.committed)["11_b"].probe_s is None


def test_a_reference_cold_time_comes_with_its_probe(repo, monkeypatch):
    """The committed row of 10_a has no cold time; the reference's (37 s, probe 2 s) fills it, probe included."""
    ref = runner.reference_times_path("full", repo.root)
    ref.parent.mkdir(parents=True)
    ref.write_text(",".join(timing.NOTEBOOK_COLUMNS) + "\n10_a,full,37.0,60.0,True,,,37.0,2.00,2.00\n")
    _fake_probe(monkeypatch, 3.0)
    lines = []
    repo.run(only="10_", profile="full", echo=lines.append, options=runner.ExecOptions(pace_probe=True), cold=True)
    assert "[1/1] 10_a (est. 56s)" in lines        # 37 * 3 / 2 = 55.5, shown rounded
