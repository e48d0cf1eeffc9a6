"""The warm-up (simlib.pipeline.warm, decision S33): the settings a family runs, the stamp that makes a second
warm-up a no-op, the runner leaving compiling notebooks out of its pace, `make reproduce`/`make test` warming
first, and (slow) that the families compile everything a representative trial of each engine needs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from simlib.papers.contract import ScenarioBase, param
from simlib.papers.trial import trial_of
from simlib.pipeline import notebooks as runner
from simlib.pipeline import warm

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------------------ settings()
@dataclass(frozen=True)
class Toy(ScenarioBase):
    """scheme in {a, b}; knob in {x, y, z}, read by scheme b only; n >= 2 and, with knob z, n >= 5."""
    scheme: str = param("a", choices=("a", "b"), help="scheme")
    knob: str = param("x", choices=("x", "y", "z"), help="knob (scheme b only)")
    n: int = param(3, lo=2, help="size")

    def check(self):
        if self.knob == "z" and self.n < 5:
            from simlib.papers.contract import ParamError
            raise ParamError("knob", "knob z needs n >= 5")


def _toy_key(sc: Toy) -> dict:
    d = sc.to_params()
    if sc.scheme == "a":
        d["knob"] = "x"               # a ignores the knob: its runs are one run
    return d


@trial_of(Toy, key=_toy_key, example={"scheme": "a", "n": 3})
def toy_trial(sc, seed):
    return {}


TOY = f"{__name__}:toy_trial"


def test_a_probe_runs_the_example_then_every_choice_once_per_cross_value():
    # cross scheme: (a), (b); knob one at a time with each scheme: a-x, a-y -> same run as a; b-x, b-y; z refused (n 3)
    got = [(s["scheme"], s.get("knob", "x")) for s in warm.settings(warm.Probe(TOY, cross=("scheme",)))]
    assert got == [("a", "x"), ("b", "x"), ("b", "y")]
    # without cross: the example, scheme b (knob x), knob y with the example's scheme a = the example's run
    assert [(s["scheme"], s.get("knob", "x")) for s in warm.settings(warm.Probe(TOY))] == [("a", "x"), ("b", "x")]
    # where keeps scheme b only; extra adds n = 6 with knob z, which the check now admits
    got = warm.settings(warm.Probe(TOY, cross=("scheme",), where=(("scheme", ("b",)),),
                                   extra=((("scheme", "b"), ("knob", "z"), ("n", 6)),)))
    assert got == [{"scheme": "b", "n": 3}, {"scheme": "b", "n": 3, "knob": "y"}, {"scheme": "b", "n": 6, "knob": "z"}]
    assert warm.settings(warm.Probe(TOY, vary=False)) == [{"scheme": "a", "n": 3}]
    with pytest.raises(ValueError, match="cross must name choice parameters"):
        warm.settings(warm.Probe(TOY, cross=("n",)))


def test_every_family_has_runs_and_the_cluster_families_cover_every_scheme_once():
    from simlib.papers.cluster_scenario import SCHEME_NAMES

    assert len({f.name for f in warm.FAMILIES}) == len(warm.FAMILIES)
    assert all(warm.settings(p) for f in warm.FAMILIES for p in f.probes)
    schemes = [s["scheme"] for name in ("cluster-selective", "cluster") for p in warm.family(name).probes
               if p.trial.endswith("cluster_scenario:run_trial") for s in warm.settings(p)]
    assert set(schemes) == set(SCHEME_NAMES)
    with pytest.raises(ValueError, match="family must be one of"):
        warm.family("nope")


# ------------------------------------------------------------------------------------------ the stamp
@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty numba cache folder ($NUMBA_CACHE_DIR) and a stamp in tmp_path."""
    folder = tmp_path / "numba"
    folder.mkdir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    monkeypatch.setattr(warm, "stamp_path", lambda: tmp_path / "warm.json")
    return folder


def test_the_stamp_matches_until_a_cache_file_changes_and_a_current_one_runs_nothing(cache, monkeypatch):
    assert not warm.is_warm()                                   # no stamp
    warm.stamp_path().write_text(json.dumps({"fingerprint": warm.fingerprint()}))
    assert warm.is_warm()

    def no_process(*a, **k):
        raise AssertionError("a current stamp starts no family")

    monkeypatch.setattr(subprocess, "Popen", no_process)
    lines = []
    report = warm.warm(echo=lines.append)
    assert report.skipped and report.families == [] and "already compiled" in lines[0]
    (cache / "kernels.f-1.py311.1.nbc").write_bytes(b"x")       # something compiled since
    assert not warm.is_warm()
    with pytest.raises(AssertionError, match="starts no family"):
        warm.warm(echo=lines.append)


class _FakeFamilyProcess:
    """Stands for a warm-up subprocess (``subprocess.Popen``): finishes on its third poll, writing an empty
    result; records ``("start", family)`` and ``("end", family)`` in :attr:`events`."""
    events: list = []

    def __init__(self, cmd, **kwargs):
        self.family, self.out = cmd[cmd.index("--family") + 1], Path(cmd[cmd.index("--result") + 1])
        self.polls, self.returncode = 0, None
        self.events.append(("start", self.family))

    def poll(self):
        self.polls += 1
        if self.polls >= 3 and self.returncode is None:
            self.out.write_text(json.dumps({"family": self.family, "runs": 1, "compiled": 0, "compile_cpu_s": 0.0,
                                            "cpu_s": 0.0, "wall_s": 0.0, "errors": []}))
            self.returncode = 0
            self.events.append(("end", self.family))
        return self.returncode


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_a_family_starts_only_after_the_families_it_shares_kernels_with(cache, monkeypatch, jobs):
    """b and d share kernels with a and b: they wait for them to finish while the free process takes the
    next family that need not wait (c); a cycle (x after y after x) is broken rather than waited on."""
    fams = (warm.Family("a", "", ()), warm.Family("b", "", (), after=("a",)), warm.Family("c", "", ()),
            warm.Family("d", "", (), after=("b", "a")), warm.Family("x", "", (), after=("y",)),
            warm.Family("y", "", (), after=("x",)))
    monkeypatch.setattr(warm, "FAMILIES", fams)
    monkeypatch.setattr(subprocess, "Popen", _FakeFamilyProcess)
    events = _FakeFamilyProcess.events = []
    report = warm.warm(force=True, jobs=jobs, echo=lambda line: None)
    assert report.ok and sorted(r["family"] for r in report.families) == list("abcdxy")
    at = {e: i for i, e in enumerate(events)}
    assert at[("start", "b")] > at[("end", "a")] and at[("start", "d")] > at[("end", "b")]
    started = [f for kind, f in events if kind == "start"]
    assert started[:min(jobs, 2)] == ["a", "c"][:min(jobs, 2)]      # c does not wait behind b
    # a family whose partner is not being warmed (--only) does not wait for it
    events.clear()
    warm.warm(["b"], jobs=jobs, echo=lambda line: None)
    assert events == [("start", "b"), ("end", "b")]


def test_the_families_wait_only_for_families_that_exist_and_never_for_each_other_in_a_circle():
    names = [f.name for f in warm.FAMILIES]
    for f in warm.FAMILIES:
        assert set(f.after) <= set(names) - {f.name}
        assert all(names.index(a) < names.index(f.name) for a in f.after)     # so no cycle


def test_compiled_files_see_new_and_rewritten_cache_files(cache):
    a = cache / "sub" / "m.f-3.py311.nbi"
    a.parent.mkdir()
    a.write_bytes(b"1")
    before = warm.compiled_files()
    assert {Path(p).name for p, *_ in before} == {"m.f-3.py311.nbi"}
    (cache / "sub" / "m.f-3.py311.1.nbc").write_bytes(b"22")
    a.write_bytes(b"333")                                       # the index rewritten with one more entry
    assert {Path(p).name for p, *_ in warm.compiled_files() - before} == {"m.f-3.py311.nbi", "m.f-3.py311.1.nbc"}


def test_bad_jobs_are_refused_before_anything_runs(cache):
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
            warm.warm(jobs=bad, force=True, echo=None)


# ------------------------------------------------------------------------------------------ the runner's pace
@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A tmp root with notebooks 10_a (recorded 100 s), 11_b (40 s), 12_c (7 s) and a fake executor; a notebook
    named in ``compiles`` writes a numba data file into the root's simlib/__pycache__ as it runs."""
    root = tmp_path / "repo"
    (root / "notebooks").mkdir(parents=True)
    for name in ("10_a", "11_b", "12_c"):
        (root / "notebooks" / f"{name}.py").write_text("")
    (root / "data" / "results").mkdir(parents=True)
    runner.committed_times_path(root).write_text("notebook,profile,wall_s,cpu_s,ok\n10_a,full,100.0,1.0,True\n"
                                                 "11_b,full,40.0,1.0,True\n12_c,full,7.0,1.0,True\n")
    walls, compiles = {"10_a": 500.0, "11_b": 40.0, "12_c": 7.0}, set()

    def fake_run_notebook(source, parameters, *, root, publish, build_dir, **_):
        if source.stem in compiles:
            d = Path(root) / "simlib" / "x" / "__pycache__"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"k.f-1.py311.{source.stem}.nbc").write_bytes(b"code")
        out = Path(build_dir) / "executed" / f"{source.stem}.ipynb"
        return runner.NotebookResult(source.stem, source, out, True, walls[source.stem], "", dict(parameters),
                                     publish, None, cpu_seconds=1.0, computed=1, cached=0)

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(runner, "run_notebook", fake_run_notebook)
    monkeypatch.setattr(runner, "ensure_kernel", lambda *a, **k: None)
    monkeypatch.setattr(runner, "cache_is_empty", lambda *a, **k: False)
    monkeypatch.setattr(runner.timing, "update_times", lambda path, *a, **k: path)   # record nothing
    return SimpleNamespace(compiles=compiles, run=lambda: runner.run_notebooks(
        runner.discover(root / "notebooks"), root=root, build_dir=tmp_path / "build", profile="full",
        echo=(lines := []).append) and lines)


def test_a_notebook_that_compiles_is_left_out_of_the_running_pace(repo):
    # 10_a took 500 s of its recorded 100 s; counted, the pace would be (500 + 120) / (100 + 120) = 2.82
    lines = repo.run()
    assert "    remaining ≈ 2m12s for 2 notebooks (pace so far 2.82× the recorded times)" in lines
    repo.compiles.add("10_a")
    lines = repo.run()
    assert any(line.startswith("[1/3] 10_a ok in 8m20s") and line.endswith(
        "(compiled 1 kernel specialization(s): not counted in the pace)") for line in lines)
    # after 10_a nothing counts yet: no running estimate; after 11_b (40 s of 40 s) the pace is 1.00
    after_a = lines[next(i for i, x in enumerate(lines) if x.startswith("[1/3] 10_a ok")) + 1]
    assert not after_a.startswith("    remaining")
    assert "    remaining ≈ 7s for 1 notebook (pace so far 1.00× the recorded times)" in lines


# ------------------------------------------------------------------------------------------ make
FAKE_PYTHON = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/../calls.log"
case "$*" in *"ipykernel install"*)
  d="$(dirname "$0")/../share/jupyter/kernels/simlib"; mkdir -p "$d"; echo '{}' > "$d/kernel.json";; esac
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
@pytest.mark.parametrize("target, then", [("reproduce", "-m simlib.pipeline.notebooks"), ("test", "-m pytest"),
                                          ("warm", None)])
def test_make_warms_the_kernels_before_the_tests_and_beside_the_notebooks(tmp_path, target, then):
    shutil.copy(ROOT / "Makefile", tmp_path)
    (tmp_path / "requirements.txt").write_text("")
    python = tmp_path / "v" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    stamp = tmp_path / "v" / ".installed"
    stamp.touch()
    os.utime(tmp_path / "requirements.txt", (stamp.stat().st_mtime - 100,) * 2)
    subprocess.run(["make", "-s", "VENV=v", "PROFILE=quick", target], cwd=tmp_path, check=True,
                   env={**os.environ, "MAKEFLAGS": ""})
    calls = (tmp_path / "v" / "calls.log").read_text().splitlines()
    warms = [i for i, c in enumerate(calls) if c == "-m simlib.pipeline.warm"]
    if target == "reproduce":      # the runner warms, beside its first notebooks (S38)
        assert warms == [] and [c for c in calls if c.startswith(then) and " --warm " in f"{c} "]
        return
    assert len(warms) == 1
    if then:
        assert warms[0] < next(i for i, c in enumerate(calls) if c.startswith(then))


# ------------------------------------------------------------------------------------------ coverage (slow)
#: Prints ``{module.function: [signature, ...]}`` of every simlib kernel with a specialization in this process
#: (compiled here or loaded from numba's cache), after the code before it ran; memory addresses left out.
SIGNATURES = textwrap.dedent("""
    def _used_signatures():
        import gc, re
        from numba.core.dispatcher import Dispatcher
        out = {}
        for d in gc.get_objects():
            if isinstance(d, Dispatcher) and d.signatures and d.py_func.__module__.startswith("simlib."):
                key = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
                out.setdefault(key, set()).update(re.sub(r" at 0x[0-9a-f]+", "", str(s)) for s in d.signatures)
        return {k: sorted(v) for k, v in out.items()}
""")

#: Every family's runs (as the warm-up's workers run them, with whatever numba's cache holds), in one process.
FAMILY_RUNS = SIGNATURES + textwrap.dedent("""
    import json
    from simlib.pipeline.warm import FAMILIES, run_family
    errors = [e for f in FAMILIES for e in run_family(f.name)["errors"]]
    print(json.dumps({"errors": errors, "signatures": _used_signatures()}))
""")

REPRESENTATIVE = SIGNATURES + textwrap.dedent("""
    import json, sys
    import numpy as np
    from simlib.papers.contract import MISSING, specs
    from simlib.pipeline.warm import _CompileMeter, _resolve

    def quick(trial, **over):
        return {**{n: s.quick for n, s in specs(trial.setting).items() if s.quick is not MISSING}, **over}

    cluster = _resolve("simlib.papers.cluster_scenario:run_trial")
    runs = [(cluster, quick(cluster, scheme=s)) for s in ("allreduce", "partial", "selective", "eager", "adpsgd",
                                                          "ps-bsp", "ps-asp", "ps-hete", "ps-backup")]
    for path in ("simlib.papers.selmcast.ssp_scenario:run_trial", "simlib.papers.fmreduce.scenario:run_trial",
                 "simlib.papers.selmcast.experiments:bsp_trial", "simlib.training.nine_systems:trial",
                 "simlib.training.time_to_accuracy:trial"):
        t = _resolve(path)
        runs.append((t, quick(t)))
    ssp = _resolve("simlib.papers.selmcast.ssp_scenario:run_trial")
    runs.append((ssp, quick(ssp, scheme="orpheus")))
    from simlib.training.replay import certainly_wrong      # the CNN search's cut-short test (float32, RP25)
    runs.append((lambda s, seed: certainly_wrong(np.ones((2, 10), np.float32), np.zeros(2, int), 1e-3), None))
    with _CompileMeter() as m:
        for t, s in runs:
            t(s, np.random.SeedSequence(7))
    print(json.dumps({"compiled": m.compiled, "runs": len(runs), "signatures": _used_signatures()}))
""")


def _last_json(code: str, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _not_covered(used: dict, covered: dict) -> dict:
    """The specializations in ``used`` that ``covered`` lacks (both ``{function: [signature, ...]}``)."""
    return {f: sorted(set(s) - set(covered.get(f, ()))) for f, s in used.items() if set(s) - set(covered.get(f, ()))}


def test_the_signature_comparison_sees_a_missing_specialization():
    """The shortcut below compares specializations per kernel: one the families lack is reported, by kernel."""
    covered = {"simlib.a.f": ["(int64,)", "(float64,)"], "simlib.b.g": ["(int64,)"]}
    assert _not_covered({"simlib.a.f": ["(int64,)"], "simlib.b.g": ["(int64,)"]}, covered) == {}
    assert _not_covered({"simlib.a.f": ["(int64,)", "(int32,)"], "simlib.c.h": ["()"]}, covered) == {
        "simlib.a.f": ["(int32,)"], "simlib.c.h": ["()"]}


@pytest.mark.slow
def test_after_the_warm_up_a_representative_trial_of_each_engine_compiles_nothing(tmp_path):
    """Every family into an empty cache, then, in a fresh process, one quick-profile trial of each engine
    (other sizes and durations than the warm-up's examples): numba finds every specialization in the cache.

    Shortcut first (make test has just run the warm-up into the checkout's cache, so this takes seconds instead
    of the warm-up's minutes of compiling again): every family's runs in one process with the checkout's cache,
    recording each kernel's specializations; then the representative trials in a fresh process with that cache
    must compile nothing and use no specialization the families did not.  That implies the claim: the families'
    runs are deterministic, so from an empty cache they compile (and, cache=True, store) at least these
    specializations, and the trials would load every one of them.  A kernel without cache=True compiles in the
    fresh process, so it fails the shortcut too.  Only when the shortcut does not hold (a cache compiled by
    something else, or a real gap) does the test decide the slow way, as before: the warm-up with --strict into
    an empty cache (minutes on 2 cores) and the trials against that cache alone."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_CACHE_DIR", None)
    families = _last_json(FAMILY_RUNS, env)
    trials = _last_json(REPRESENTATIVE, env)
    if (not families["errors"] and (trials["compiled"], trials["runs"]) == (0, 16)
            and not _not_covered(trials["signatures"], families["signatures"])):
        return
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONPATH": str(ROOT)}
    stamp = warm.stamp_path()
    saved = stamp.read_bytes() if stamp.is_file() else None
    try:
        subprocess.run([sys.executable, "-m", "simlib.pipeline.warm", "--force", "--strict"], env=env, check=True,
                       cwd=ROOT, capture_output=True)
    finally:
        if saved is None:
            stamp.unlink(missing_ok=True)
        else:
            stamp.write_bytes(saved)
    trials = _last_json(REPRESENTATIVE, env)
    assert (trials["compiled"], trials["runs"]) == (0, 16)


# ------------------------------------------------------------------------------- the notebooks' families (S38)
def _swept_trials(source: Path) -> list:
    """``"module:function"`` of each trial notebook ``source`` sweeps -- the first argument of a ``.sweep(`` call,
    the second of ``run_until_decided(`` -- resolved through its imports; ``"?name"`` where it cannot be."""
    import ast

    tree = ast.parse(source.read_text(encoding="utf-8"))
    names = {}                      # local name -> "module:function", or "module" for a module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}:{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name] = a.name

    def resolve(expr) -> str:
        if isinstance(expr, ast.Name):
            return names.get(expr.id, f"?{expr.id}")
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            base = names.get(expr.value.id, "")      # a module: "pkg.mod", or "pkg:mod" imported from its package
            return f"{base.replace(':', '.')}:{expr.attr}" if base else f"?{expr.value.id}.{expr.attr}"
        return f"?{ast.dump(expr)[:40]}"

    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr == "sweep" and node.args:
            out.append(resolve(node.args[0]))
        elif isinstance(node.func, ast.Name) and node.func.id == "run_until_decided" and len(node.args) > 1:
            out.append(resolve(node.args[1]))
    return out


def test_swept_trials_are_read_through_the_notebooks_imports(tmp_path):
    nb = tmp_path / "x.py"
    nb.write_text("from a.b import t as u\nfrom c import mod\nimport d.e as f\nrun.sweep(u, s)\nrun.sweep(mod.g, s)\n"
                  "run_until_decided(run, f.h, s)\nrun.sweep(v, s)\n")
    assert _swept_trials(nb) == ["a.b:t", "c.mod:g", "d.e:h", "?v"]


def test_each_notebook_that_names_its_kernel_families_sweeps_only_their_trials():
    """The notebooks that may start beside the warm-up (warm.NOTEBOOK_FAMILIES: each key one notebook) sweep only
    trials their named families probe, so they load kernels the warm-up has compiled and compile none beside it
    (two processes saving one kernel's cache index at once can lose or misdirect its entries, S34).  The full
    check -- the quick profile of these notebooks on a cache with only their families compiles nothing -- is
    benchmarks/bench_cold_compile.py --notebook-families (minutes)."""
    sources = sorted((ROOT / "notebooks").glob("[0-9]*.py"))
    named = {key: [p for p in sources if p.stem[:2] == key] for key in warm.NOTEBOOK_FAMILIES}
    assert all(len(found) == 1 for found in named.values()), named
    for key, families in warm.NOTEBOOK_FAMILIES.items():
        probed = {p.trial for name in families for p in warm.family(name).probes}
        swept = _swept_trials(named[key][0])
        assert swept and set(swept) <= probed, (named[key][0].name, sorted(set(swept) - probed))


# ------------------------------------------------------------------------------------------ whose kernels (S38)
STEMS = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    import kern
    from simlib.pipeline import warm
    log = Path(sys.argv[2])
    with warm._CompileMeter(log) as m:
        kern.f(1)
        kern.f(1.5)
        kern.g(2)
    kern.h(3)                       # compiled outside the meter: not the warm-up's
    print(json.dumps({"compiled": m.compiled}))
""")


def test_the_warm_up_logs_the_cache_files_of_what_it_compiled_and_only_those(tmp_path):
    """A family's meter appends the cache stem of each kernel it compiles (numba's ``<module>.<function>-<line>``
    files); :func:`warm.compiled_outside` then counts only the data files of kernels the log does not name: here
    ``h``, compiled by the same process but outside the meter, as a notebook beside the warm-up would."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kern.py").write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def f(x):
            return x + 1

        @njit(cache=True)
        def g(x):
            return f(x) * 2

        @njit(cache=True)
        def h(x):
            return x - 1
    """))
    cache, log = tmp_path / "numba", tmp_path / "compiled.txt"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    before = warm.compiled_files(cache)
    assert _last_json(STEMS.replace("sys.argv[1]", repr(str(src))).replace("sys.argv[2]", repr(str(log))),
                      env) == {"compiled": 3}                # f for int and float, g (its f(int) is found)
    new = warm.compiled_files(cache) - before
    py = f"py{sys.version_info.major}{sys.version_info.minor}"
    data = sorted(Path(p).name for p, *_ in new if p.endswith(".nbc"))
    assert data == [f"kern.f-4.{py}.1.nbc", f"kern.f-4.{py}.2.nbc", f"kern.g-8.{py}.1.nbc", f"kern.h-12.{py}.1.nbc"]
    stems = {Path(p).name.split(".")[1]: warm.cache_stem(p) for p, *_ in new if p.endswith(".nbc")}
    assert sorted(log.read_text().splitlines()) == sorted([stems["f-4"], stems["f-4"], stems["g-8"]])
    assert warm.compiled_outside(new, log) == 1                                   # h's one data file
    assert warm.compiled_outside(new, tmp_path / "missing.txt") == len(data) == 4   # no log: every one counts
    assert warm.compiled_outside(new, None) == 4


def test_a_cache_files_stem_is_shared_by_its_index_and_its_data_files():
    assert warm.cache_stem("/c/m.f-3.py311.nbi") == warm.cache_stem("/c/m.f-3.py311.12.nbc") == "/c/m.f-3.py311"
