"""`make bench` (benchmarks/run_benchmarks.py) and benchmarks/bench_notebooks.py, on tiny scripts and hand-made times."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from simlib.pipeline import timing

ROOT = Path(__file__).resolve().parents[1]


def _script(name: str):
    """benchmarks/<name>.py loaded as a module (the scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


bench = _script("run_benchmarks")
reports = _script("bench_notebooks")


@pytest.fixture
def bench_dir(tmp_path):
    d = tmp_path / "benchmarks"
    d.mkdir()
    (d / "bench_a.py").write_text("print('A ran')\n")
    (d / "bench_b.py").write_text("import sys\nprint('B ran')\nsys.exit(3)\n")
    (d / "helper.py").write_text("raise SystemExit('not a benchmark')\n")
    return d


def test_discover_and_only(bench_dir):
    assert [p.name for p in bench.discover(bench_dir)] == ["bench_a.py", "bench_b.py"]
    assert [p.name for p in bench.discover(bench_dir, "_b")] == ["bench_b.py"]
    assert [p.name for p in bench.discover(bench_dir, "bench_a*")] == ["bench_a.py"]
    assert bench.discover(bench_dir, "zzz") == []


def test_plan_lists_the_scripts_with_their_estimates(bench_dir, tmp_path):
    scripts = bench.discover(bench_dir)
    est, text = bench.plan(scripts, {}, "t.csv")
    assert text.splitlines() == ["2 benchmark scripts; no estimate yet (no recorded times in t.csv):",
                                 "  bench_a.py  -", "  bench_b.py  -"]
    times = tmp_path / "t.csv"
    times.write_text("script,wall_s,ok\nbench_a.py,75.0,True\nbench_gone.py,9.0,True\n")
    est, text = bench.plan(scripts, timing.read_times(times, bench.BENCH_COLUMNS), "t.csv")
    assert est.total_s == 75.0
    assert text.splitlines() == [
        "2 benchmark scripts, estimated 1m15s (recorded times in t.csv); no estimate for 1 of 2 benchmark "
        "scripts (new: bench_b.py):", "  bench_a.py  est. 1m15s", "  bench_b.py  -"]


def test_the_times_file_keeps_script_wall_time_and_status():
    assert timing.format_times([timing.Timing("bench_x.py", 3.25, True)], bench.BENCH_COLUMNS) == (
        "script,wall_s,ok\nbench_x.py,3.2,True\n")


def test_run_records_times_and_prints_a_summary(bench_dir, tmp_path, capfd):
    times = tmp_path / "build" / "bench_times.csv"
    assert bench.main(["--bench-dir", str(bench_dir), "--times-file", str(times)]) == 1
    out, err = capfd.readouterr()
    assert "2 benchmark scripts; no estimate yet" in out
    assert "[1/2] bench_a.py (no estimate)\nA ran\n" in out
    assert "B ran\n[2/2] bench_b.py FAILED (exit status 3)" in out
    summary = out.rstrip().splitlines()[-4:]
    assert summary[0].split() == ["script", "estimated", "measured"]
    assert summary[1].split()[0] == "bench_a.py" and summary[2].split()[-1] == "FAILED"
    assert summary[3].startswith("total (estimate for 0 of 2)")
    assert "1 of 2 script(s) failed: bench_b.py" in err
    recorded = timing.read_times(times, bench.BENCH_COLUMNS)
    assert [(r.name, r.ok) for r in recorded.values()] == [("bench_a.py", True), ("bench_b.py", False)]
    assert all(0 <= r.wall_s < 60 for r in recorded.values())
    # the next run is estimated from the recorded time of bench_a (bench_b failed: no estimate)
    (bench_dir / "bench_b.py").write_text("pass\n")
    assert bench.main(["--bench-dir", str(bench_dir), "--times-file", str(times)]) == 0
    out = capfd.readouterr().out
    a = timing.format_duration(recorded["bench_a.py"].wall_s)
    assert out.splitlines()[0] == (f"2 benchmark scripts, estimated {a} (recorded times in {times}); "
                                   "no estimate for 1 of 2 benchmark scripts (failed last time: bench_b.py):")
    assert f"[1/2] bench_a.py (est. {a})" in out


def test_fail_fast_and_list_run_nothing_more(bench_dir, tmp_path, capfd):
    (bench_dir / "bench_0_fails.py").write_text("raise SystemExit(1)\n")
    times = tmp_path / "t.csv"
    assert bench.main(["--bench-dir", str(bench_dir), "--times-file", str(times), "-x"]) == 1
    assert "A ran" not in capfd.readouterr().out
    assert list(timing.read_times(times, bench.BENCH_COLUMNS)) == ["bench_0_fails.py"]
    assert bench.main(["--bench-dir", str(bench_dir), "--times-file", str(times), "--list"]) == 0
    out = capfd.readouterr().out
    assert "A ran" not in out and out.startswith("3 benchmark scripts (recorded times in")


def test_bad_arguments(bench_dir, tmp_path, capsys):
    for argv, flag in ((["--bench-dir", str(tmp_path / "nope")], "--bench-dir"),
                       (["--bench-dir", str(bench_dir), "--times-file", str(tmp_path)], "--times-file")):
        with pytest.raises(SystemExit) as exc:
            bench.main(argv)
        assert exc.value.code == 2
        assert f"argument {flag}" in capsys.readouterr().err
    assert bench.main(["--bench-dir", str(bench_dir), "--only", "zzz"]) == 1
    assert "no bench_*.py matching 'zzz'" in capsys.readouterr().err


RECORDED = """notebook,profile,wall_s,cpu_s,ok
10_a,full,400.0,700.0,True
11_b,full,350.0,360.0,True
"""


def test_notebook_times_report_against_the_target(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(RECORDED)
    recorded = timing.read_times(path)
    text = reports.notebook_times_report(recorded, ["10_a", "11_b"], source="t.csv")
    lines = text.splitlines()
    assert lines[0] == "notebook times of the last full reproduction (t.csv):"
    assert lines[2].split() == ["10_a", "full", "6m40s", "11m40s", "1.75"]
    assert lines[4].split() == ["total", "12m30s", "17m40s", "1.41"]
    assert lines[5] == ("total 12m30s for 2 notebooks against the 15m00s target of issue 9: "
                        "within the target by 2m30s (83% of the target)")
    over = reports.notebook_times_report(recorded, ["10_a", "11_b", "12_new"], target_s=600)
    assert "total at least 12m30s for 2 notebooks against the 10m00s target of issue 9: over the target by " \
           "2m30s (125% of the target)" in over
    assert "no recorded time for 1 notebook(s) (new since): 12_new" in over
    assert "recorded but no longer in notebooks/: 11_b" in reports.notebook_times_report(recorded, ["10_a"])
    assert reports.notebook_times_report({}, source="t.csv").startswith("no recorded notebook times (t.csv)")
    with pytest.raises(ValueError, match="target_s must be"):
        reports.notebook_times_report(recorded, target_s=0)


def _times(**walls):
    return {name: timing.Timing(name, wall, True, "full") for name, wall in walls.items()}


def test_reference_report_scales_the_last_run_by_the_machine_factor():
    # reference: 300 s when the target was set, 750 s today (factor 2.5); the last run, 1,500 s
    # today, is 600 s on the machine of then: within a 900 s target, over a 500 s one
    then = _times(a=100.0, b=200.0)
    ref = _times(a=250.0, b=500.0)
    last = _times(a=500.0, b=700.0, c=300.0)
    text = reports.reference_report(last, ref, then, target_s=900)
    lines = text.splitlines()
    assert lines[1].split() == ["notebook", "last", "reference", "last", "/", "reference"]
    assert lines[2].split() == ["a", "8m20s", "4m10s", "2.00"]
    assert lines[4].split() == ["c", "5m00s", "-", "-"]
    assert lines[5].split() == ["total", "25m00s", "12m30s", "2.00"]
    assert lines[6] == ("machine factor: the reference took 12m30s that day and 5m00s when the target was set "
                        "(2.50x); the last reproduction, 25m00s, is 10m00s on the machine of then: within the "
                        "15m00s target (67% of it)")
    assert "over the 8m20s target (120% of it)" in reports.reference_report(last, ref, then, target_s=500)
    # the same run on an unchanged machine is judged by the clock alone
    assert "is 25m00s on the machine of then: over" in reports.reference_report(last, then, then)
    failed = {**ref, "b": timing.Timing("b", 10.0, False, "full")}
    with pytest.raises(ValueError, match="the reference run is not a complete reproduction: b failed"):
        reports.reference_report(last, failed, then)
    with pytest.raises(ValueError, match="the last reproduction has no recorded notebook times"):
        reports.reference_report({}, ref, then)


def _bench_notebooks():
    return _script("bench_notebooks")


def test_bench_notebooks_reads_the_recorded_times_without_running(tmp_path, capsys, monkeypatch):
    script = _bench_notebooks()
    monkeypatch.setattr(script.notebooks, "run_notebooks", lambda *a, **k: pytest.fail("must not run"))
    path = tmp_path / "t.csv"
    path.write_text(RECORDED)
    assert script.main(["--times-file", str(path)]) == 0
    assert "total at least 12m30s for 2 notebooks" in capsys.readouterr().out  # the repo has more notebooks
    for argv, message in ((["--times-file", str(path), "--only", "1"], "--only and --workers apply only with --run"),
                          (["--target-min", "0"], "argument --target-min"),
                          (["--times-file", str(tmp_path)], "argument --times-file"),
                          (["--run", "--only", "zzz"], "no notebook matches 'zzz'")):
        with pytest.raises(SystemExit) as exc:
            script.main(argv)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


def test_bench_notebooks_reference_flags(tmp_path, capsys, monkeypatch):
    script = _bench_notebooks()
    monkeypatch.setattr(script.notebooks, "run_notebooks", lambda *a, **k: pytest.fail("must not run"))
    last, ref, then = tmp_path / "last.csv", tmp_path / "ref.csv", tmp_path / "then.csv"
    last.write_text(RECORDED)                                    # 750 s
    ref.write_text(RECORDED.replace("400.0", "1100.0"))          # 1,450 s
    then.write_text(RECORDED.replace("400.0", "225.0"))          # 575 s
    argv = ["--times-file", str(last), "--reference", str(ref), "--reference-then", str(then)]
    assert script.main(argv) == 0
    assert ("(2.52x); the last reproduction, 12m30s, is 4m57s on the machine of then: within the 15m00s target"
            in capsys.readouterr().out)
    bad = tmp_path / "bad.csv"
    bad.write_text(RECORDED.replace("11_b,full,350.0,360.0,True", "11_b,full,350.0,360.0,False"))
    for extra, message in ((["--reference", str(ref)], "--reference and --reference-then go together"),
                           (["--reference", str(tmp_path / "no.csv"), "--reference-then", str(then)],
                            "argument --reference: no such file"),
                           (["--reference", str(bad), "--reference-then", str(then)],
                            "the reference run is not a complete reproduction: 11_b failed")):
        with pytest.raises(SystemExit) as exc:
            script.main(["--times-file", str(last)] + extra)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        script.main(["--run", "--reference", str(ref), "--reference-then", str(then)])
    assert exc.value.code == 2


def test_ssp_census_counts_what_the_cache_computes_and_equal_rows():
    census = _script("census_ssp_trials")
    import pandas as pd
    base = dict(trace="lstm", scheme="selmcast", sharing="maxmin", n=50, duration_s=600.0)
    a = pd.DataFrame([{**base, "p": 0.3, "trial": t, "avg_scale": 0.5 + t} for t in (0, 1)])
    # gamma 0 and period 0.1 are the defaults: the same trials as a's, read from the cache; trial 2 is new
    b = pd.DataFrame([{**base, "gamma": 0.0, "period_s": 0.1, "trial": t, "avg_scale": 0.5 + t} for t in (0, 1, 2)])
    # Orpheus runs max-min under either sharing (one key); an empty k is k removed, not k = 4
    c = pd.DataFrame([{**base, "scheme": "orpheus", "k": 4, "trial": 0, "avg_scale": 0.3},
                      {**base, "scheme": "orpheus", "sharing": "priority", "k": 4, "trial": 0, "avg_scale": 0.3},
                      {**base, "k": float("nan"), "trial": 0, "avg_scale": 0.5}])
    table, computed = census.census([("a", a), ("b", b), ("c", c)], start=2)
    assert table.to_dict("list") == {"sweep": ["a", "b", "c"], "rows": [2, 3, 3], "computed": [2, 1, 2],
                                     "extension": [0, 1, 0]}
    assert [json.loads(k)["k"] for k in computed["c"]] == [4, None]
    classes = census.equal_rows([("a", a), ("b", b), ("c", c)])
    # c's k removed has a's (and b's) trial-0 metrics: one class of two keys, one trial; Orpheus's two
    # spellings are one key, so no class
    assert list(classes.values()) == [1]
    (keys,) = classes
    assert sorted(json.loads(k)["k"] is None for k in keys) == [False, True]


def test_ab_extract_names_the_folder_by_commit_so_head_moves(tmp_path, monkeypatch):
    import subprocess

    ab = _script("ab_revision")
    monkeypatch.setattr(ab, "ROOT", tmp_path)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    (tmp_path / "simlib").mkdir()
    for text in ("first", "second"):
        (tmp_path / "simlib" / "x.py").write_text(text)
        subprocess.run(git + ["add", "simlib"], check=True)
        subprocess.run(git + ["commit", "-qm", text], check=True)
        sha = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
        dest = ab.extract("HEAD")
        # a later HEAD is a new folder with its own files, not the first extraction found again by name
        assert dest == tmp_path / "build" / f"ab_{sha[:12]}"
        assert (dest / "simlib" / "x.py").read_text() == text


perf_numba = _script("perf_numba")


def test_perf_numba_names_numba_code_at_its_runtime_address(tmp_path, monkeypatch):
    """benchmarks/perf_numba.py's perf map: a cached numba function and the compiled callee it keeps as a
    function get lines whose ranges hold their runtime entry points (read from numba's cache file)."""
    (tmp_path / "pmod.py").write_text(
        "from numba import njit\n"
        "@njit(cache=True, inline='never')\n"
        "def callee(x):\n"
        "    s = 0.0\n"
        "    for v in x:\n"
        "        s += v * v\n"
        "    return s\n"
        "@njit(cache=True)\n"
        "def top(x):\n"
        "    return callee(x) + 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import numpy as np
    pmod = importlib.import_module("pmod")
    assert pmod.top(np.arange(3.0)) == 6.0
    out = tmp_path / "perf.map"
    import weakref
    gone = type("Gone", (), {})()
    dead = weakref.proxy(gone)          # a dead proxy among the objects scanned: isinstance() would raise
    del gone
    assert perf_numba.write_perf_map(str(out)) >= 2 and dead is not None
    lines = [ln.split(" ", 2) for ln in out.read_text().splitlines()]
    spans = {name: (int(a, 16), int(a, 16) + int(s, 16)) for a, s, name in lines}
    cres = next(iter(pmod.top.overloads.values()))
    entry = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    wrapper = cres.library.get_pointer_to_function(cres.fndesc.llvm_cpython_wrapper_name)
    assert spans["pmod.top"][0] == entry and spans["cpython.pmod.top"][0] == wrapper     # not both at offset 0
    assert "pmod.callee" in spans and spans["pmod.callee"] != spans["pmod.top"]
    assert perf_numba.short_name("_ZN6simlib4core7sharing11share_ratesB3v92B40c8tJTIeF") == \
        "simlib.core.sharing.share_rates"
    assert perf_numba.short_name("not mangled") == "not mangled"
