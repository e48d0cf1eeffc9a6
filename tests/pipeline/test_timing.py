"""The notebook runner's times files and the estimates made from them (simlib.pipeline.timing)."""
from __future__ import annotations

import functools
import math

import pytest

from simlib.pipeline import timing
from simlib.pipeline.timing import Timing

HAND_MADE = """notebook,profile,wall_s,cpu_s,ok
10_a,full,100.0,150.0,True
11_b,full,40.4,,True
12_c,full,30.0,31.0,False
13_d,quick,5.0,5.0,True
"""


@pytest.fixture
def hand_made(tmp_path):
    path = tmp_path / "times.csv"
    path.write_text(HAND_MADE)
    return path


def test_estimate_sums_the_recorded_times_and_names_the_rest(hand_made):
    recorded = timing.read_times(hand_made)
    assert recorded["11_b"] == Timing("11_b", 40.4, True, "full", None)
    est = timing.estimate(["10_a", "11_b", "12_c", "13_d", "14_e"], recorded, profile="full")
    assert est.total_s == pytest.approx(140.4)
    assert est.per_name == {"10_a": 100.0, "11_b": 40.4, "12_c": None, "13_d": None, "14_e": None}
    assert (est.n_known, est.new, est.failed) == (2, ("13_d", "14_e"), ("12_c",))
    assert est.line("notebook", "times.csv") == (
        "5 notebooks, estimated 2m20s (recorded times in times.csv); no estimate for 3 of 5 notebooks "
        "(new: 13_d, 14_e; failed last time: 12_c)")
    # the quick profile counts only the quick row; without a profile every successful row counts
    quick = timing.estimate(["10_a", "13_d"], recorded, profile="quick")
    assert (quick.total_s, quick.new) == (5.0, ("10_a",))
    assert timing.estimate(["10_a", "13_d"], recorded).total_s == 105.0


def test_estimate_lines_when_all_or_nothing_is_known(hand_made):
    recorded = timing.read_times(hand_made)
    assert timing.estimate(["10_a"], recorded, "full").line() == "1 notebook, estimated 1m40s (recorded times)"
    assert timing.estimate(["x", "y"], {}).line("benchmark script", "b.csv") == (
        "2 benchmark scripts; no estimate yet (no recorded times in b.csv)")
    many = timing.estimate([f"n{i}" for i in range(9)] + ["10_a"], recorded, "full")
    assert many.line().endswith("no estimate for 9 of 10 notebooks (new: n0, n1, n2, n3, n4, n5, ... (+3 more))")


def test_remaining_time_is_scaled_by_the_pace_of_the_finished_runs():
    """Without the prior (prior_s=0) the pace is the finished runs' measured over recorded total."""
    est = timing.Estimate({"a": 100.0, "b": 50.0, "c": 200.0, "d": None, "e": 20.0})
    r = functools.partial(est.remaining, prior_s=0)
    # a took 170 s against 100 recorded: 1.7x; b, c and e are left (270 s recorded) -> 459 s
    assert r({"a": 170.0}) == pytest.approx((459.0, 1.7))
    assert est.remaining_line({"a": 170.0}, prior_s=0) == (
        "remaining ≈ 7m39s for 3 notebooks (pace so far 1.70× the recorded times), plus 1 without an estimate")
    # b failed (None): it is done but says nothing about the pace; d (no estimate) adds nothing to it;
    # c and e are left (220 s)
    assert r({"a": 170.0, "b": None, "d": 9.0}) == pytest.approx((374.0, 1.7))
    # a and b both count: (170 + 40) / 150 = 1.4, times 220 s
    assert r({"a": 170.0, "b": 40.0}) == pytest.approx((308.0, 1.4))
    # (170 + 40 + 1) / 350 = 0.603, times e's 20 s
    assert est.remaining_line({"a": 170.0, "b": 40.0, "c": 1.0, "d": 1.0}, "script", prior_s=0) == (
        "remaining ≈ 12s for 1 script (pace so far 0.60× the recorded times)")
    assert r({}) is None                                  # nothing finished yet
    assert r({"d": 5.0}) is None                          # nothing with an estimate finished
    assert r({n: 1.0 for n in "abce"}) is None            # nothing with an estimate left
    assert timing.Estimate({"z": 0.0, "y": 5.0}).remaining({"z": 3.0}, prior_s=0) is None   # no pace from 0 s
    assert est.remaining_line({}) is None


def test_times_are_written_sorted_rounded_to_tenths_and_deterministic(tmp_path):
    rows = [Timing("b", 12.34, True, "full", 20.04), Timing("a", 0.04, False, "full", None)]
    expected = ("notebook,profile,wall_s,cpu_s,ok,computed,cached,cold_wall_s,probe_s,cold_probe_s,jobs\n"
                "a,full,0.0,,False,,,,,,\nb,full,12.3,20.0,True,,,,,,\n")
    assert timing.format_times(rows) == expected
    path = timing.update_times(tmp_path / "sub" / "t.csv", rows)
    assert path.read_text() == expected
    # a re-run within the rounding leaves the file byte-identical
    timing.update_times(path, [Timing("b", 12.31, True, "full", 19.98)])
    assert path.read_text() == expected
    assert timing.read_times(path)["b"] == Timing("b", 12.3, True, "full", 20.0)


def test_another_layout_keeps_its_own_columns(tmp_path):
    """A caller's own layout (make bench keeps name, wall_s, ok): the fields it leaves out are not
    written and read back as unknown (no profile, no CPU time)."""
    layout = ("job", "wall_s", "ok")
    assert timing.format_times([Timing("x", 3.25, True, "full", 9.0)], layout) == "job,wall_s,ok\nx,3.2,True\n"
    path = timing.update_times(tmp_path / "t.csv", [Timing("x", 3.25, True, "full", 9.0)], layout)
    assert timing.read_times(path, layout) == {"x": Timing("x", 3.2, True, "", None)}
    with pytest.raises(ValueError, match=r"columns \['job', 'wall_s', 'ok'\] instead of \['notebook', "):
        timing.read_times(path)


@pytest.mark.parametrize("columns", [
    ("a", "b"), (), ("wall_s", "ok"), ("name", "ok"), ("name", "ok", "wall_s"), ("name", "wall_s", "ok", "extra"),
    ("two words", "wall_s", "ok"),
])
def test_a_layout_is_a_name_column_then_timing_fields_in_order(tmp_path, columns):
    with pytest.raises(ValueError, match=r"columns must be a name column followed by some of \['profile', "):
        timing.read_times(tmp_path / "x.csv", columns)


def test_update_replaces_its_rows_and_keeps_the_others(hand_made):
    before = [line + ",,,,,," for line in hand_made.read_text().splitlines()]  # the old layout, rewritten in the new
    timing.update_times(hand_made, [Timing("11_b", 42.0, True, "full", 43.0, jobs=2),
                                    Timing("11_z", 1.0, True, "full")])
    after = hand_made.read_text().splitlines()
    assert after == [",".join(timing.NOTEBOOK_COLUMNS), before[1], "11_b,full,42.0,43.0,True,,,,,,2",
                     "11_z,full,1.0,,True,,,,,,", *before[3:]]
    # keep: which other rows stay (a full run drops the rows of notebooks that no longer exist)
    timing.update_times(hand_made, [Timing("12_c", 9.0, True, "full")], keep={"10_a"}.__contains__)
    assert list(timing.read_times(hand_made)) == ["10_a", "12_c"]


def test_an_unreadable_times_file_is_refused_on_read_and_replaced_on_update(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("paper,figure\nx,y\n")
    with pytest.raises(ValueError, match=r"t.csv.*columns \['paper', 'figure'\] instead of"):
        timing.read_times(path)
    timing.update_times(path, [Timing("a", 1.0, True, "full")])
    assert list(timing.read_times(path)) == ["a"]


@pytest.mark.parametrize("row, message", [
    ("a,full,x,,True", "line 2: could not convert"),
    ("a,full,-1.0,,True", "line 2: wall_s must be in [0.0, inf), got -1.0"),
    ("a,full,nan,,True", "line 2: wall_s must be"),
    ("a,full,1.0,-2,True", "line 2: cpu_s must be"),
    ("a,full,1.0,,yes", "line 2: ok must be True or False, got 'yes'"),
    ("a,full,1.0,,True\na,full,2.0,,True", "line 3: notebook 'a' appears twice"),
    (",full,1.0,,True", "line 2: name must be a non-empty"),
])
def test_malformed_rows_are_reported_with_file_and_line(tmp_path, row, message):
    path = tmp_path / "t.csv"
    path.write_text("notebook,profile,wall_s,cpu_s,ok\n" + row + "\n")
    with pytest.raises(ValueError, match="t.csv") as exc:
        timing.read_times(path)
    assert message in str(exc.value)


@pytest.mark.parametrize("kwargs, message", [
    (dict(name="", wall_s=1.0, ok=True), "name must be"),
    (dict(name="a", wall_s=math.inf, ok=True), "wall_s must be"),
    (dict(name="a", wall_s=True, ok=True), "wall_s must be"),
    (dict(name="a", wall_s=1.0, ok=1), "ok must be True or False"),
    (dict(name="a", wall_s=1.0, ok=True, cpu_s=-0.5), "cpu_s must be"),
    (dict(name="a", wall_s=1.0, ok=True, jobs=0), "jobs must be None or an integer >= 1"),
    (dict(name="a", wall_s=1.0, ok=True, jobs=2.0), "jobs must be None or an integer >= 1"),
])
def test_bad_timing_values_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Timing(**kwargs)


def test_bad_arguments_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="is not a file"):
        timing.read_times(tmp_path)
    with pytest.raises(ValueError, match="names must be non-empty strs"):
        timing.estimate(["a", 3], {})
    with pytest.raises(ValueError, match="distinct names"):
        timing.format_times([Timing("a", 1.0, True), Timing("a", 2.0, True)])


@pytest.mark.parametrize("seconds, text", [
    (0.4, "0s"), (42, "42s"), (59.6, "1m00s"), (100, "1m40s"), (900, "15m00s"), (3725, "1h02m"),
])
def test_format_duration(seconds, text):
    assert timing.format_duration(seconds) == text


def test_timing_table_totals_and_marks_failures():
    table = timing.timing_table([("10_a", 100.0, 95.0, True), ("11_long_name", None, 30.0, False)])
    assert table.splitlines() == [
        "notebook" + " " * 21 + "estimated  measured",
        "10_a" + " " * 29 + "1m40s     1m35s",
        "11_long_name" + " " * 25 + "-       30s  FAILED",
        "total (estimate for 1 of 2)      1m40s     2m05s",
    ]
    assert timing.timing_table([("b.py", 2.0, 3.0, True)], "script").splitlines()[-1] == (
        "total" + " " * 10 + "2s" + " " * 8 + "3s")


# --- issue 47: cold vs warm times, the running pace (decision S28) --------------------------------

#: A synthetic reproduction: a 3.2 s first notebook, then 21 notebooks recorded at 1800 s in all.
SYNTHETIC = {"00_first": 3.2, **{f"{10 + i}_nb": t for i, t in enumerate(
    [4, 25, 37, 40, 20, 17, 200, 15, 36, 80, 83, 42, 5, 62, 66, 224, 322, 73, 323, 37, 89])}}


def test_synthetic_reproduction_is_recorded_at_1800_s_after_the_first_notebook():
    assert sum(SYNTHETIC.values()) - SYNTHETIC["00_first"] == pytest.approx(1800.0)


def test_a_compile_heavy_first_notebook_does_not_multiply_the_rest():
    """Issue 47: the first notebook, recorded at 3.2 s, spent a minute compiling kernels; the old pace
    (measured / recorded = 19×) announced hours for a run of half an hour."""
    est = timing.Estimate(dict(SYNTHETIC))
    remaining, pace = est.remaining({"00_first": 60.0})
    assert 1800.0 <= remaining <= 1.5 * 1800.0
    assert pace == pytest.approx((60.0 + timing.PACE_PRIOR_S) / (3.2 + timing.PACE_PRIOR_S))
    # the knob: without the prior the same finished notebook extrapolates to more than 9 hours
    assert est.remaining({"00_first": 60.0}, prior_s=0)[0] > 18 * 1800.0


def test_the_pace_follows_a_uniformly_slower_machine_once_minutes_have_run():
    """A machine 1.6× slower than the recorded one, plus a minute of compiling in the first notebook:
    after the notebooks recorded at half the total the pace is within 10 % of 1.6, and the
    remaining estimate within 10 % of the truth."""
    est = timing.Estimate(dict(SYNTHETIC))
    names, done, elapsed_est = list(SYNTHETIC), {}, 0.0
    for name in names:
        done[name] = 1.6 * SYNTHETIC[name] + (57.0 if name == "00_first" else 0.0)
        elapsed_est += SYNTHETIC[name]
        if elapsed_est >= sum(SYNTHETIC.values()) / 2:
            break
    remaining, pace = est.remaining(done)
    truth = 1.6 * sum(v for n, v in SYNTHETIC.items() if n not in done)
    assert pace == pytest.approx(1.6, rel=0.10)
    assert remaining == pytest.approx(truth, rel=0.10)


def test_a_faster_machine_is_followed_too():
    est = timing.Estimate({"a": 600.0, "b": 600.0, "c": 600.0})
    remaining, pace = est.remaining({"a": 300.0, "b": 300.0})
    assert pace == pytest.approx((600 + 120) / (1200 + 120))       # 0.545: near the measured 0.5
    assert remaining == pytest.approx(600 * pace)


COLD_WARM = """notebook,profile,wall_s,cpu_s,ok,computed,cached,cold_wall_s
41_x,full,7.1,6.9,True,0,380,72.3
91_y,full,4.2,4.0,True,0,60,37.4
92_z,full,78.4,146.8,True,120,0,
"""


def test_a_cold_run_is_estimated_from_cold_times_only(tmp_path):
    """The last runs of 41_x and 91_y read their trials from the cache (7.1 s, 4.2 s); a run from an
    empty trial cache takes their cold times; 92_z was never timed from an empty cache."""
    path = tmp_path / "t.csv"
    path.write_text(COLD_WARM)
    recorded = timing.read_times(path)
    assert recorded["91_y"] == Timing("91_y", 4.2, True, "full", 4.0, 0, 60, 37.4)
    warm = timing.estimate(list(recorded), recorded, "full")
    cold = timing.estimate(list(recorded), recorded, "full", cold=True)
    assert warm.total_s == pytest.approx(7.1 + 4.2 + 78.4)
    assert cold.per_name == {"41_x": 72.3, "91_y": 37.4, "92_z": None}
    assert cold.not_cold == ("92_z",) and cold.new == ()
    assert cold.line() == ("3 notebooks, estimated 1m50s (recorded times); no estimate for 1 of 3 notebooks "
                           "(no time from an empty trial cache: 92_z)")
    with pytest.raises(ValueError, match="cold must be True or False"):
        timing.estimate(["41_x"], recorded, cold="yes")


def test_a_warm_run_keeps_the_last_cold_time_and_a_cold_run_replaces_it(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(COLD_WARM)
    timing.update_times(path, [Timing("91_y", 3.9, True, "full", 3.8, 0, 60)])            # warm: no cold time
    assert timing.read_times(path)["91_y"] == Timing("91_y", 3.9, True, "full", 3.8, 0, 60, 37.4)
    timing.update_times(path, [Timing("91_y", 41.0, True, "full", 70.0, 60, 0, 41.0)])    # cold
    assert timing.read_times(path)["91_y"].cold_wall_s == 41.0


@pytest.mark.parametrize("field, value", [("computed", -1), ("cached", 1.5), ("computed", True),
                                          ("cold_wall_s", -2.0), ("cold_wall_s", float("nan"))])
def test_trial_counts_and_cold_time_are_checked(field, value):
    with pytest.raises(ValueError, match=field):
        Timing("x", 1.0, True, **{field: value})


def test_the_trials_log_sums_computed_and_cached_trials(tmp_path):
    progress = tmp_path / "41_x.json"
    assert timing.read_trials_log(progress) is None                   # no sweep reported
    log = timing.trials_log(progress)
    log.write_text('{"name": "a", "total": 40, "cached": 10}\n{"name": "b", "total": 5, "cached": 5}\n')
    assert timing.read_trials_log(progress) == (30, 15)
    log.write_text('{"name": "a", "total": 40}\n')
    assert timing.read_trials_log(progress) is None                   # malformed: unknown, not zero


def test_the_running_estimate_on_a_recorded_fresh_clone():
    """Replay a recorded reproduction: 9d325e9's fresh clone (benchmarks/reference/, numba compiling in
    notebook 00, a loaded machine) notebook by notebook against b0cbf45's cold-cache times.  After the
    first notebook the damped pace estimates the 38 minutes left within 10 %; the undamped one said
    more than 2 hours.  The announced total, from cold times, is within 30 % of the measured one."""
    from pathlib import Path

    ref_dir = Path(__file__).resolve().parents[2] / "benchmarks" / "reference"
    ref = timing.read_times(ref_dir / "b0cbf45_2026-11-27_cold-cache.csv")
    fresh = timing.read_times(ref_dir / "9d325e9_2026-11-27_fresh-clone.csv")
    names = [n for n in sorted(fresh) if n in ref]
    est = timing.Estimate({n: ref[n].wall_s for n in names})
    measured = sum(fresh[n].wall_s for n in names)
    assert est.total_s == pytest.approx(measured, rel=0.30)
    first = {names[0]: fresh[names[0]].wall_s}
    truth = measured - fresh[names[0]].wall_s
    assert est.remaining(first)[0] == pytest.approx(truth, rel=0.10)
    assert est.remaining(first, prior_s=0)[0] > 3 * truth


# ------------------------------------------------------------------------- the machine-pace probe (S35)

PROBED = """notebook,profile,wall_s,cpu_s,ok,computed,cached,cold_wall_s,probe_s,cold_probe_s
a,full,100.0,,True,,,90.0,2.00,2.50
b,full,50.0,,True,,,,4.00,
c,full,30.0,,True,,,30.0,,
"""


def test_each_recorded_time_is_scaled_by_todays_probe_over_its_own(tmp_path):
    """Today's probe 3 s: a (recorded with a 2 s probe) 100 -> 150 s, b (4 s) 50 -> 37.5 s, c (no probe)
    stays 30 s; the machine pace over the scaled ones is 187.5 / 150 = 1.25, i.e. a probe of 2.4 s."""
    path = tmp_path / "t.csv"
    path.write_text(PROBED)
    recorded = timing.read_times(path)
    assert recorded["a"] == Timing("a", 100.0, True, "full", None, None, None, 90.0, 2.0, 2.5)
    est = timing.estimate(["a", "b", "c"], recorded, "full", probe_s=3.0)
    assert est.per_name == {"a": 150.0, "b": 37.5, "c": 30.0}
    assert (est.probe_pace, est.unprobed) == (1.25, ("c",))
    assert est.line() == ("3 notebooks, estimated 3m38s (recorded times; machine pace 1.25× the recorded runs', "
                          "probe 3.00 s vs 2.40 s; 1 recorded without a probe, kept as recorded)")
    # a cold run scales each cold time by the probe of the run that measured it: a 90 * 3 / 2.5 = 108 s
    cold = timing.estimate(["a", "b", "c"], recorded, "full", cold=True, probe_s=3.0)
    assert cold.per_name == {"a": 108.0, "b": None, "c": 30.0}
    assert cold.probe_pace == pytest.approx(108.0 / 90.0)
    # without today's probe (or without any recorded one): the recorded times, as before S35
    assert timing.estimate(["a", "b", "c"], recorded, "full").per_name == {"a": 100.0, "b": 50.0, "c": 30.0}
    plain = timing.estimate(["c"], recorded, "full", probe_s=3.0)
    assert (plain.per_name, plain.probe_pace, plain.line()) == ({"c": 30.0}, None,
                                                                "1 notebook, estimated 30s (recorded times)")


def test_the_running_estimate_shrinks_towards_the_probe_ratio():
    """Recorded 100 + 200 + 300 s with a 2 s probe; today's probe 2.6 s (1.3×): announced 780 s. After a
    took 160 s: pace = (160 + 120) / (130 + 120) = 1.12 against the scaled 650 s left, 728 s; without the
    probe (160 + 120) / (100 + 120) = 1.27 × 500 = 636 s.  On a machine truly 1.6× slower (800 s left),
    the probe's start is the closer one."""
    rows = {n: Timing(n, s, True, "full", probe_s=2.0) for n, s in (("a", 100.0), ("b", 200.0), ("c", 300.0))}
    est = timing.estimate(["a", "b", "c"], rows, "full", probe_s=2.6)
    assert est.total_s == pytest.approx(780.0)
    remaining, pace = est.remaining({"a": 160.0})
    assert (remaining, pace) == (pytest.approx(728.0), pytest.approx(1.12))
    assert timing.estimate(["a", "b", "c"], rows, "full").remaining({"a": 160.0})[0] == pytest.approx(280 / 220 * 500)
    assert est.remaining_line({"a": 160.0}) == (
        "remaining ≈ 12m08s for 2 notebooks (pace so far 1.12× the probe-scaled estimates)")
    # the knob: with a prior that outweighs any measurement the pace is the probe's 1.3× the recorded
    # times (not 1×): 1.3 × 500 = 650 s
    assert est.remaining({"a": 160.0}, prior_s=1e12)[0] == pytest.approx(650.0)


@pytest.mark.parametrize("value", [0.0, -1.0, math.inf, True, "2"])
def test_a_probe_time_is_a_positive_number_of_seconds(value):
    with pytest.raises(ValueError, match="probe_s must be (in|a real number in|a finite real number in) \\(0.0, inf\\)"):
        Timing("a", 1.0, True, probe_s=value)
    with pytest.raises(ValueError, match="probe_s must be (in|a real number in|a finite real number in) \\(0.0, inf\\)"):
        timing.estimate(["a"], {}, probe_s=value)


def test_times_files_of_the_layout_before_the_probe_are_read(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("notebook,profile,wall_s,cpu_s,ok,computed,cached,cold_wall_s\nx,full,3.0,,True,1,0,3.0\n")
    assert timing.read_times(path) == {"x": Timing("x", 3.0, True, "full", None, 1, 0, 3.0)}
    # a warm re-run without a cold time keeps the old cold time with its own probe
    timing.update_times(path, [Timing("x", 1.0, True, "full", probe_s=2.0)])
    timing.update_times(path, [Timing("x", 9.0, True, "full", cold_wall_s=9.0, probe_s=2.0, cold_probe_s=2.0)])
    timing.update_times(path, [Timing("x", 1.0, True, "full", probe_s=3.0)])
    assert timing.read_times(path)["x"] == Timing("x", 1.0, True, "full", cold_wall_s=9.0, probe_s=3.0,
                                                   cold_probe_s=2.0)


def test_times_files_of_the_layout_before_jobs_are_read(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(",".join(timing.NOTEBOOK_COLUMNS[:10]) + "\nx,full,3.0,6.0,True,1,0,3.0,1.05,1.05\n")
    assert timing.read_times(path) == {"x": Timing("x", 3.0, True, "full", 6.0, 1, 0, 3.0, 1.05, 1.05, None)}
    timing.update_times(path, [Timing("y", 2.0, True, "full", 2.0, jobs=2)])
    assert path.read_text().splitlines()[1:] == ["x,full,3.0,6.0,True,1,0,3.0,1.05,1.05,",
                                                 "y,full,2.0,2.0,True,,,,,,2"]
