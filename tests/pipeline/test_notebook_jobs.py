"""Notebooks run at once (``--jobs``, decision S37): chains, schedule, ledger order, estimate.

Most tests replace the per-notebook execution with a fake (threads, no kernel); the last one runs two
throw-away notebooks through the real per-notebook processes and proves that they overlap.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simlib.papers.claim import observation
from simlib.pipeline import claims, timing
from simlib.pipeline import notebooks as runner

# --- chains and the schedule model ---------------------------------------------------------------------


def test_chains_are_the_registrys_paper_groups_in_the_order_given():
    names = ["00_a", "10_b", "20_c", "11_d", "30_e", "40_f", "48_g", "90_h", "93_i", "50_j"]
    assert runner.notebook_chains(names) == {
        "000": ["00_a", "10_b", "11_d"], "002": ["20_c"], "003": ["30_e"], "004": ["40_f", "48_g"],
        "beyond": ["90_h", "93_i"], "digit 5": ["50_j"]}


def test_a_paper_that_splits_its_notebooks_gives_a_chain_per_set():
    # 004's BSP notebooks (40, 41, 47) and SSP notebooks (43-46, 48), each set in the order given; an unknown
    # 4x stem stays in the paper's group
    bsp = ["40_selmcast_sec2_fig1_random_selection", "41_selmcast_bsp_fig4-6", "47_selmcast_paper_profile"]
    ssp = ["43_selmcast_ssp_fig7_case_study", "44_selmcast_ssp_fig8-10", "45_selmcast_ssp_fig11-13",
           "46_selmcast_ssp_time_to_accuracy", "48_selmcast_ssp_profile"]
    names = [ssp[4], bsp[0], ssp[0], "49_x", bsp[2], ssp[1], bsp[1], ssp[2], ssp[3]]
    assert runner.notebook_chains(names) == {"004 SSP": [ssp[4], ssp[0], ssp[1], ssp[2], ssp[3]],
                                             "004 BSP": [bsp[0], bsp[2], bsp[1]], "004": ["49_x"]}


def test_one_at_a_time_the_makespan_is_the_sum():
    chains = {"a": ["x", "y"], "b": ["z"]}
    seconds = {"x": 10.0, "y": 20.0, "z": 7.0}
    assert timing.makespan(chains, seconds, {"x": 1.0, "y": 1.8, "z": 2.0}, jobs=1, cores=2) == pytest.approx(37.0)


def test_two_at_a_time_the_cores_are_shared_in_proportion():
    # x and y each keep 2 cores busy alone: together each gets one. x (work 20 CPU-s) ends at t = 20, having
    # done 20 of y's 40; y then runs alone at 2 cores: 10 s more.  All work / cores = 60 / 2 = 30 s.
    par = {"x": 2.0, "y": 2.0}
    assert timing.makespan({"a": ["x"], "b": ["y"]}, {"x": 10.0, "y": 20.0}, par, jobs=2, cores=2) == pytest.approx(30)
    # one core each: no sharing, the longer one decides
    par = {"x": 1.0, "y": 1.0}
    assert timing.makespan({"a": ["x"], "b": ["y"]}, {"x": 10.0, "y": 20.0}, par, jobs=2, cores=2) == pytest.approx(20)


def test_fewer_sweep_workers_cap_the_busy_cores():
    # x was recorded keeping 2 cores busy for 10 s (20 CPU-s); with one worker it does them on one core
    assert timing.makespan({"a": ["x"]}, {"x": 10.0}, {"x": 2.0}, jobs=1, cores=2, cap=1) == pytest.approx(20)
    # two such notebooks at once with one worker each: 2 cores, 20 s; with 2 workers each they share: 20 s too
    par = {"x": 2.0, "y": 2.0}
    two = ({"a": ["x"], "b": ["y"]}, {"x": 10.0, "y": 10.0}, par)
    assert timing.makespan(*two, jobs=2, cores=2, cap=1) == pytest.approx(20)
    assert timing.makespan(*two, jobs=2, cores=2) == pytest.approx(20)


def test_the_chain_with_the_most_work_left_starts_first():
    # A: a1 4 s; B: b1 3 s then b2 3 s; C: c1 5 s; one core each, 2 cores, 2 at once.  Work left: B 6, C 5, A 4,
    # so B and C start; at t = 3 (b1 done) A (4) beats B's b2 (3); at t = 5 (c1 done) b2 starts; a1 ends at 7,
    # b2 at 8.  In the order given (A and B first) c1 would start at 4 and end at 9.
    chains = {"A": ["a1"], "B": ["b1", "b2"], "C": ["c1"]}
    seconds = {"a1": 4.0, "b1": 3.0, "b2": 3.0, "c1": 5.0}
    one = dict.fromkeys(seconds, 1.0)
    assert timing.chain_order(chains, seconds) == ["B", "C", "A"]
    assert timing.chain_order({"A": ["a1"], "Z": ["z"]}, {"a1": 1.0, "z": 1.0}) == ["A", "Z"]   # ties: given order
    assert timing.makespan(chains, seconds, one, jobs=2, cores=2) == pytest.approx(8.0)


@given(st.lists(st.tuples(st.integers(0, 3), st.floats(0, 500), st.floats(0.1, 4)), min_size=1, max_size=12),
       st.integers(1, 4), st.sampled_from([1.0, 2.0, 3.5]))
def test_the_makespan_lies_between_the_bounds_any_schedule_has(members, jobs, cores):
    """Below: no chain runs faster than alone, no schedule does more than ``cores`` CPU-seconds a second.
    Above: members running together each finish a share of their time alone at least as fast as one alone
    (the shares add up to 1 or more), so never longer than one after another."""
    chains, seconds, par = {}, {}, {}
    for i, (chain, wall, p) in enumerate(members):
        chains.setdefault(f"c{chain}", []).append(f"n{i}")
        seconds[f"n{i}"], par[f"n{i}"] = wall, p
    alone = {n: seconds[n] * par[n] / min(par[n], cores) for n in seconds}     # above `cores`: slower alone
    span = timing.makespan(chains, seconds, par, jobs=jobs, cores=cores)
    work = sum(seconds[n] * par[n] for n in seconds)
    lower = max(max(sum(seconds[n] for n in ms) for ms in chains.values()), work / cores)
    assert lower * (1 - 1e-9) - 1e-9 <= span <= sum(alone.values()) * (1 + 1e-9) + 1e-9
    if jobs == 1:
        assert span == pytest.approx(sum(alone.values()))


# --- the runner, with a fake per-notebook execution ----------------------------------------------------------

NAMES = ("10_a", "11_b", "20_c", "21_d", "40_e")
#: recorded CPU seconds (wall 100 s each): the 002 chain (20_c, 21_d) has the most work, then 004, then 000.
TIMES = """notebook,profile,wall_s,cpu_s,ok
10_a,full,100.0,50.0,True
11_b,full,100.0,50.0,True
20_c,full,100.0,100.0,True
21_d,full,100.0,100.0,True
40_e,full,100.0,150.0,True
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A tmp root with notebooks ``NAMES`` and their recorded times; the fake execution records when each
    notebook starts and ends, and records two ledger rows (publishing runs), with a pause between them."""
    root = tmp_path / "repo"
    (root / "notebooks").mkdir(parents=True)
    for name in NAMES:
        (root / "notebooks" / f"{name}.py").write_text("")
    (root / "data" / "results").mkdir(parents=True)
    runner.committed_times_path(root).write_text(TIMES)
    state = SimpleNamespace(events=[], lock=threading.Lock(), running=0, most=0, rendezvous=None, fail=set(),
                            delay={}, compile=set())

    def fake(source, parameters, *, root, publish, build_dir, **_):
        name = source.stem
        with state.lock:
            state.events.append(("start", name))
            state.running += 1
            state.most = max(state.most, state.running)
            first_two = len([e for e in state.events if e[0] == "start"]) <= 2
        ledger = runner._committed_ledger(root)
        if publish:
            claims.record(observation("p", f"{name} fig", "first", "1"), ledger, notebook=name, profile="full")
        if state.rendezvous is not None and first_two:
            state.rendezvous.wait(timeout=20)      # BrokenBarrierError unless a second notebook runs meanwhile
        if name in state.compile:                       # a kernel of its own, saved into the kernels' cache
            Path(_kernel_file(root, "nb", name) + ".1.nbc").write_bytes(b"code")
        time.sleep(state.delay.get(name, 0.05))
        if publish:
            claims.record(observation("p", f"{name} fig", "second", "2"), ledger, notebook=name, profile="full")
        with state.lock:
            state.events.append(("end", name))
            state.running -= 1
        ok = name not in state.fail
        out_dir = None if publish else runner.run_dir_for(root, name, parameters)
        return runner.NotebookResult(name, source, Path(build_dir) / "executed" / f"{name}.ipynb", ok, 1.0,
                                     "" if ok else "boom", dict(parameters), publish, out_dir, cpu_seconds=1.5,
                                     computed=1, cached=0)

    monkeypatch.setattr(runner, "run_notebook", fake)
    monkeypatch.setattr(runner, "_run_in_process", fake)
    monkeypatch.setattr(runner, "ensure_kernel", lambda *a, **k: None)
    monkeypatch.setattr(runner, "cache_is_empty", lambda *a, **k: False)
    monkeypatch.setattr(runner.warm, "is_warm", lambda: True)
    lines = []

    def run(jobs, warm=False, probe=False, **kw):
        state.events.clear()
        return runner.run_notebooks(runner.discover(root / "notebooks"), root=root, build_dir=tmp_path / "build",
                                    options=runner.ExecOptions(jobs=jobs, warm=warm, pace_probe=probe),
                                    echo=lines.append, **kw)

    return SimpleNamespace(root=root, state=state, run=run, lines=lines, ledger=runner._committed_ledger(root))


def _order(events, kind):
    return [name for k, name in events if k == kind]


def test_two_at_a_time_chains_keep_their_order_and_overlap(repo):
    repo.state.rendezvous = threading.Barrier(2)
    repo.state.delay = {"20_c": 3.0}     # while it runs, the other slot works through 40_e, 10_a, 11_b: 21_d waits
    results = repo.run(2)
    events = repo.state.events
    assert [r.name for r in results] == list(NAMES) and all(r.ok for r in results)
    assert repo.state.most == 2                       # never more than 2 at once, and 2 at once (the barrier)
    for first, then in (("10_a", "11_b"), ("20_c", "21_d")):
        assert events.index(("end", first)) < events.index(("start", then))
    # most work left first: 002 (200 CPU-s), then 004 (150); 000 (100) when a slot frees
    assert set(_order(events, "start")[:2]) == {"20_c", "40_e"}
    assert _order(events, "start")[2:] == ["10_a", "11_b", "21_d"]
    assert set(_order(events, "start")) == set(NAMES)
    times = timing.read_times(runner.committed_times_path(repo.root))
    assert set(times) == set(NAMES) and all(t.cpu_s == 1.5 for t in times.values())


def test_one_at_a_time_runs_in_the_order_given(repo):
    repo.run(1)
    assert repo.state.events == [(k, n) for n in NAMES for k in ("start", "end")]


def test_the_ledger_comes_out_as_a_run_one_at_a_time_writes_it(repo):
    repo.run(1, new_ledger=True)
    sequential = repo.ledger.read_bytes()
    assert [n for _, n in claims.row_owners(repo.ledger)] == [n for n in NAMES for _ in range(2)]
    repo.state.rendezvous = threading.Barrier(2)      # the first two interleave their rows ...
    repo.run(2, new_ledger=True)
    assert repo.ledger.read_bytes() == sequential     # ... and the runner puts them back in order


def test_rows_there_before_a_partial_run_keep_their_place(repo):
    claims.record(observation("p", "kept", "x", "0"), repo.ledger, notebook="99_old", profile="full")
    claims.record(observation("p", "40_e fig", "first", "old"), repo.ledger, notebook="40_e", profile="full")
    repo.state.rendezvous = threading.Barrier(2)
    repo.run(2)
    keys = [k for k, _ in claims.row_owners(repo.ledger)]
    assert keys[:2] == [("p", "kept", "x", "default"), ("p", "40_e fig", "first", "default")]
    assert keys[2:] == [k for n in NAMES for k in [("p", f"{n} fig", c, "default") for c in ("first", "second")]
                        if k != ("p", "40_e fig", "first", "default")]


def test_fail_fast_starts_no_other_notebook(repo):
    repo.state.fail, repo.state.delay = {"20_c"}, {"40_e": 1.0}
    results = repo.run(2, fail_fast=True)
    started = _order(repo.state.events, "start")
    assert sorted(started) == ["20_c", "40_e"]        # 40_e was running: it finishes; nothing else starts
    assert [r.name for r in results] == ["20_c", "40_e"] and [r.ok for r in results] == [False, True]


def test_without_a_warm_kernel_cache_it_runs_one_at_a_time_and_says_why(repo, monkeypatch):
    monkeypatch.setattr(runner.warm, "is_warm", lambda: False)
    repo.run(2)
    assert repo.state.most == 1
    assert repo.state.events == [(k, n) for n in NAMES for k in ("start", "end")]
    assert any("not warm" in line and "one notebook at a time" in line for line in repo.lines)


def test_the_estimate_names_the_schedule(repo, monkeypatch):
    monkeypatch.setattr(runner, "_cores", lambda: 2)
    repo.run(2)
    # walls 100 s each; parallelism 0.5, 0.5, 1, 1, 1.5 (CPU / wall).  Hand schedule on 2 cores: 20_c (1 core)
    # and 40_e (1.5 cores) share (2.5 > 2: x0.8): 20_c at 0.8, 40_e at 1.2 cores.  20_c's 100 CPU-s end at
    # t = 125; 40_e has done 150 of 150?  1.2 * 125 = 150: both end at 125.  Then 21_d (100 CPU-s at 1) and
    # 10_a (50 at 0.5) run together (1.5 cores): both end at t = 225; 11_b alone: 100 s more -> 325 s = 5m25s.
    [line] = [x for x in repo.lines if x.startswith("up to 2 notebooks at once")]
    assert "estimated 5m25s" in line and "one at a time 8m20s" in line


def test_times_recorded_two_at_once_give_a_range_for_one_at_a_time(repo, monkeypatch):
    monkeypatch.setattr(runner, "_cores", lambda: 2)
    committed = runner.committed_times_path(repo.root)
    rows = TIMES.splitlines()
    committed.write_text("\n".join([rows[0] + ",computed,cached,cold_wall_s,probe_s,cold_probe_s,jobs"]
                                   + [r + ",,,,,,2" for r in rows[1:]]) + "\n")
    repo.run(2)
    # Recorded two at once on 2 cores (CPU / wall 0.5, 0.5, 1, 1, 1.5): alone each may reach twice its ratio, at
    # most 2 cores -- 1, 1, 2, 2, 2 -- so 100 s x ratio / alone: 50 + 50 + 50 + 50 + 75 = 275 s = 4m35s at least,
    # the recorded 500 s = 8m20s at most; the schedule two at once is the one of the recorded ratios (5m25s).
    [line] = [x for x in repo.lines if x.startswith("up to 2 notebooks at once")]
    assert "estimated 5m25s" in line
    assert "one at a time 4m35s to 8m20s: the times were recorded with up to 2 notebooks at once" in line
    committed.write_text("\n".join([rows[0] + ",computed,cached,cold_wall_s,probe_s,cold_probe_s,jobs"]
                                   + [r + ",,,,,,2" for r in rows[1:]]) + "\n")
    repo.lines.clear()
    repo.run(1)
    assert any(x.startswith("these times were recorded with up to 2 notebooks at once: one at a time this run may "
                            "take as little as 4m35s") for x in repo.lines)


@pytest.mark.parametrize("jobs", [0, -1, 65, True, 1.5, "2"])
def test_bad_jobs_are_rejected_naming_the_parameter_and_its_range(jobs):
    with pytest.raises(ValueError, match=r"jobs must be an integer from 1 to 64"):
        runner.ExecOptions(jobs=jobs)


@pytest.mark.parametrize("text", ["0", "65", "two"])
def test_the_command_line_rejects_bad_jobs(text, capsys):
    with pytest.raises(SystemExit):
        runner.main(["--jobs", text, "--list"])
    err = capsys.readouterr().err
    assert "--jobs" in err and ("[1, 64]" in err or "integer" in err)


# --- the warm-up beside the notebooks (decision S38) ------------------------------------------------------------


@pytest.fixture
def warming(repo, monkeypatch):
    """``repo`` with a cold kernel cache and a fake warm-up on 2 cores: ``cluster-selective`` and ``ssp`` start,
    ``ssp`` is compiled after 0.2 s, ``cluster-selective`` (and ``cluster``) only once 40_e has ended (``until``;
    or after 20 s); notebook 40_e names ``ssp``, 21_d names ``cluster``, the others nothing.  The probe returns
    2.0 s."""
    monkeypatch.setattr(runner, "_cores", lambda: 2)
    monkeypatch.setattr(runner.warm, "is_warm", lambda: False)
    monkeypatch.setattr(runner.warm, "NOTEBOOK_FAMILIES", {"40": ("ssp",), "21": ("cluster",)})
    ctl = SimpleNamespace(ok=True, until=("end", "40_e"), compiles=False)

    def note(event):
        with repo.state.lock:
            repo.state.events.append((event, "-"))

    def fake_warm(names=None, *, echo=print, on_change=None, compiled_log=None, **_):
        assert names is None and on_change is not None and compiled_log is not None
        ctl.log = compiled_log
        on_change(frozenset(), frozenset({"cluster-selective", "ssp"}))
        time.sleep(0.2)
        on_change(frozenset({"ssp"}), frozenset({"cluster-selective"}))
        deadline = time.time() + 20
        if ctl.compiles:           # cluster-selective saves a kernel while 40_e runs, as a family does (its log line)
            while ("start", "40_e") not in repo.state.events and time.time() < deadline:
                time.sleep(0.02)
            stem = _kernel_file(repo.root, "cs", "turns")
            with open(compiled_log, "a") as f:
                f.write(stem + "\n")
            Path(stem + ".1.nbc").write_bytes(b"code")
        while ctl.until not in repo.state.events and time.time() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        note("warm-end")
        done = {"ssp", "cluster-selective", "cluster"} if ctl.ok else {"ssp"}
        on_change(frozenset(done), frozenset())
        families = [{"family": f, "compiled": 1, "compile_cpu_s": 1.0, "runs": 1, "cpu_s": 1.0, "wall_s": 1.0,
                     "errors": []} for f in sorted(done)]
        return runner.warm.WarmReport(False, 1.0, families + ([] if ctl.ok else [{"family": "x", "failed": "boom"}]))

    def fake_probe(echo=print):
        note("probe")
        return 2.0

    monkeypatch.setattr(runner.warm, "warm", fake_warm)
    monkeypatch.setattr(runner, "run_probe", fake_probe)
    return ctl


def _kernel_file(root, module, function) -> str:
    """The cache stem numba would give ``module.function`` (line 1) in the kernels' cache of ``root``."""
    folder = runner.warm.cache_root(Path(root) / "simlib") / module / "__pycache__"
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / f"{module}.{function}-1.py311")


@pytest.mark.parametrize("own", [False, True])
def test_beside_the_warm_up_a_notebook_counts_only_the_kernels_it_compiled_itself(repo, warming, own):
    """While 40_e runs beside it, the warm-up saves a kernel into the one cache: not 40_e's (it stays in the pace);
    a kernel 40_e compiles itself is said.  (Notebook 43 of the 3c514a5 reproduction was said to have compiled 53
    specializations: all cluster-selective's, network's and training's, saved while it ran.)"""
    warming.compiles = True
    if own:
        repo.state.compile = {"40_e"}
    repo.run(1, warm=True)
    line = next(x for x in repo.lines if x.startswith("[1/5] 40_e ok in"))
    if own:
        assert line.endswith("(compiled 1 kernel specialization(s) while it ran: not counted in the pace)")
    else:
        assert "compiled" not in line
    assert Path(warming.log).name.startswith("simlib-warm-compiled-") and not Path(warming.log).exists()


def _before(events, name, mark="warm-end"):
    return events.index(("start", name)) < events.index((mark, "-"))


def test_beside_the_warm_up_only_a_notebook_whose_families_are_compiled_starts(repo, warming):
    results = repo.run(1, warm=True, probe=True)
    events = repo.state.events
    assert [r.name for r in results] == list(NAMES) and all(r.ok for r in results)
    assert [n for n in NAMES if _before(events, n)] == ["40_e"]      # 21_d's cluster is not compiled before the end
    # then one at a time, in the order given; never two notebooks at once (one core is the warm-up's)
    after = [e for e in events[events.index(("warm-end", "-")):] if e[0] in ("start", "end")]
    assert after == [(k, n) for n in NAMES if n != "40_e" for k in ("start", "end")]
    assert repo.state.most == 1
    # the probe runs after the warm-up; 40_e's time waits for it and is recorded with it, as the others'
    assert events.index(("warm-end", "-")) < events.index(("probe", "-")) < events.index(("start", "10_a"))
    times = timing.read_times(runner.committed_times_path(repo.root))
    assert set(times) == set(NAMES) and all(t.probe_s == 2.0 for t in times.values())
    # 40_e shared the machine with the warm-up's compiling process: recorded as 2 at once; the rest ran alone
    assert times["40_e"].jobs == 2 and all(times[n].jobs == 1 for n in NAMES if n != "40_e")
    assert any("start once their kernel families are compiled" in line and "40 after ssp" in line
               for line in repo.lines)


def test_after_the_probe_two_at_once_the_schedule_is_estimated_again_at_its_pace(repo, warming):
    """The probe (2.0 s) comes after the warm-up; the recorded times have no probe of their own, so the pace is
    unchanged and the schedule's estimate printed after it is the one printed before it (the first line's sum,
    250 s of notebooks one at a time, is not the two-at-once estimate)."""
    repo.run(2, warm=True, probe=True)
    schedule = [i for i, line in enumerate(repo.lines) if "up to 2 notebooks at once on 2 cores: estimated" in line]
    probe_line = next(i for i, line in enumerate(repo.lines) if line.startswith("    5 notebooks, estimated"))
    assert len(schedule) == 2 and schedule[0] < probe_line < schedule[1] == probe_line + 1
    assert repo.lines[schedule[1]].strip() == repo.lines[schedule[0]].strip()


def test_a_notebook_still_running_at_the_warm_ups_end_takes_no_slot(repo, warming):
    """It ran on the core the warm-up leaves idle, so the first notebook in the order given starts beside it
    (in a process of its own); after that, one at a time again."""
    warming.until = ("start", "40_e")
    repo.state.delay = {"40_e": 1.5}
    results = repo.run(1, warm=True)
    events = repo.state.events
    assert all(r.ok for r in results) and [n for n in NAMES if _before(events, n)] == ["40_e"]
    assert events.index(("start", "10_a")) < events.index(("end", "40_e"))
    assert repo.state.most == 2
    rest = [e for e in events if e[0] in ("start", "end") and e[1] not in ("40_e", "10_a")]
    assert rest == [(k, n) for n in ("11_b", "20_c", "21_d") for k in ("start", "end")]
    assert events.index(("end", "10_a")) < events.index(("start", "11_b"))


def test_beside_the_warm_up_the_ledger_comes_out_in_the_order_given(repo, warming, monkeypatch):
    monkeypatch.setattr(runner.warm, "is_warm", lambda: True)
    repo.run(1, new_ledger=True)
    sequential = repo.ledger.read_bytes()
    monkeypatch.setattr(runner.warm, "is_warm", lambda: False)
    repo.run(1, warm=True, new_ledger=True)
    assert _before(repo.state.events, "40_e")            # 40_e recorded its rows first ...
    assert repo.ledger.read_bytes() == sequential        # ... and the runner put them back in order


def test_two_at_once_beside_the_warm_up_one_then_two(repo, warming):
    repo.state.delay = {"20_c": 1.0}
    results = repo.run(2, warm=True)
    events = repo.state.events
    assert all(r.ok for r in results) and [n for n in NAMES if _before(events, n)] == ["40_e"]
    assert repo.state.most == 2
    for first, then in (("10_a", "11_b"), ("20_c", "21_d")):
        assert events.index(("end", first)) < events.index(("start", then))


def test_after_a_failed_warm_up_the_rest_runs_one_at_a_time_and_says_why(repo, warming):
    warming.ok = False
    repo.run(2, warm=True)
    assert repo.state.most == 1
    assert any("did not complete" in line and "one at a time" in line for line in repo.lines)


def test_a_warm_cache_runs_no_warm_up_and_says_so(repo, monkeypatch):
    monkeypatch.setattr(runner.warm, "is_warm", lambda: True)
    monkeypatch.setattr(runner.warm, "fingerprint", lambda: "x")
    calls = []
    monkeypatch.setattr(runner.warm, "warm", lambda *a, **k: calls.append(k))
    repo.run(1, warm=True)
    assert len(calls) == 1 and "on_change" not in calls[0]       # the no-op that prints "already compiled"
    assert repo.state.events == [(k, n) for n in NAMES for k in ("start", "end")]


# --- real notebooks in processes of their own ------------------------------------------------------------------

RENDEZVOUS = """# %% tags=["parameters"]
profile = "full"

# %%
import pathlib, time
here, there = pathlib.Path({here!r}), pathlib.Path({there!r})
here.write_text("started")
deadline = time.time() + 90
while not there.exists():       # the other notebook runs meanwhile, or this one fails
    assert time.time() < deadline, "the other notebook did not start while this one ran"
    time.sleep(0.1)
"""


@pytest.mark.notebooks
def test_two_real_notebooks_of_different_papers_run_at_once(tmp_path, monkeypatch):
    flags = tmp_path / "flags"
    flags.mkdir()
    folder = tmp_path / "nbs"
    folder.mkdir()
    for name, other in (("10_x", "20_y"), ("20_y", "10_x")):
        (folder / f"{name}.py").write_text(RENDEZVOUS.format(here=str(flags / name), there=str(flags / other)))
    monkeypatch.setattr(runner.warm, "is_warm", lambda: True)
    lines = []
    results = runner.run_notebooks(runner.discover(folder), profile="quick", root=tmp_path,
                                   build_dir=tmp_path / "build", options=runner.ExecOptions(jobs=2),
                                   echo=lines.append)
    assert [r.name for r in results] == ["10_x", "20_y"]
    assert all(r.ok for r in results), [r.error for r in results]
    assert all(r.output.is_file() and r.cpu_seconds is not None for r in results)
    assert any(line.startswith("[2/2]") for line in lines)


def test_a_run_of_one_notebook_records_it_as_run_alone(repo, tmp_path):
    one = [repo.root / "notebooks" / "20_c.py"]
    runner.run_notebooks(one, root=repo.root, build_dir=tmp_path / "build", options=runner.ExecOptions(jobs=2),
                         echo=None)
    times = timing.read_times(runner.committed_times_path(repo.root))
    assert times["20_c"].jobs == 1                     # --jobs 2, but nothing ran beside it
    repo.run(2)
    assert timing.read_times(runner.committed_times_path(repo.root))["20_c"].jobs == 2
