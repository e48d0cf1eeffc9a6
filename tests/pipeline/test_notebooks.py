"""Execute every notebook with the quick profile via simlib.pipeline.notebooks.

Marked ``notebooks`` (select with ``-m notebooks``, deselect with
``-m "not notebooks"``); runs by default.  One test per notebook so
pytest-xdist can spread them over workers.

Each notebook runs inside a scratch copy of the repository (``sandbox``), with
that copy as working directory and first on the kernel's ``sys.path``.  A quick
run must leave the sandbox's committed results untouched (it writes to
``build/runs/<notebook>/<hash>/``) and must record its claims, with finite
values, in that run's ledger.
"""
from __future__ import annotations

import glob
import hashlib
import json
import math
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

from simlib.pipeline import paths, timing
from simlib.pipeline import notebooks as run_notebooks
from simlib.pipeline.claims import load_ledger

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = run_notebooks.discover()

pytestmark = pytest.mark.notebooks

# Not copied into the sandbox: VCS data, environments, build outputs, caches.
_SANDBOX_IGNORE = {".git", ".venv", "build", "__pycache__", ".pytest_cache", ".hypothesis",
                   ".cache", ".ipynb_checkpoints", "dask-worker-space"}


def make_sandbox(dest: Path, numba_pool: Path | None = None) -> Path:
    """Copy the repository (sources, notebooks, inputs) to ``dest`` and return it.

    With ``numba_pool``, the copy starts with numba's compiled-kernel cache from that pool
    (else from the checkout's own ``__pycache__``): see :func:`seed_numba_cache`.
    """
    def ignore(directory, names):
        skip = {n for n in names if n in _SANDBOX_IGNORE or n.endswith(".egg-info")}
        if Path(directory).resolve() == ROOT / "data":
            skip.add("cache")
        return skip

    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    if numba_pool is not None:
        seed_numba_cache(dest, numba_pool)
    return dest


# numba keeps its on-disk cache (``__pycache__/<module>.<function>-<line>.py311.nbi`` with its
# ``.<k>.nbc`` data files) beside each source file, so a fresh sandbox compiles every kernel its
# notebook calls again: notebook 00's quick run took 41 s in a fresh copy against 12 s with a warm
# cache, on every one of 19 sandboxes.  The sandboxes of a test session therefore share one pool:
# each starts with the pool's cache (else the checkout's) and after its run adds what it compiled.
# One function's index and data files are always copied as one set (the index names its data files
# by number, so files of two different caches must never mix); a set enters the pool by one rename
# of a complete directory.  The copies keep the sources' modification times (copy2), which is what
# numba checks a cache entry against, so a stale entry is still recompiled, never reused.
_NUMBA_INDEX = "*.nbi"


def _numba_sets(root: Path):
    """``(relative __pycache__ dir, index name, [index, data files])`` for every cached function under ``root/simlib``."""
    for index in sorted((root / "simlib").rglob(f"__pycache__/{_NUMBA_INDEX}")):
        stem = index.name[:-len(".nbi")]
        data = sorted(index.parent.glob(f"{glob.escape(stem)}.*.nbc"))
        yield index.parent.relative_to(root), index.name, [index, *data]


def _pool_entry(pool: Path, rel: Path, name: str) -> Path | None:
    """The newest complete set of one function in the pool, or None."""
    entries = sorted((pool / rel / name).glob("set-*")) if (pool / rel / name).is_dir() else []
    return entries[-1] if entries else None


def seed_numba_cache(sandbox: Path, pool: Path) -> None:
    """Give ``sandbox`` the pool's cached kernels, and the checkout's for functions the pool lacks."""
    seen = set()
    if pool.is_dir():
        for entry_dir in sorted(pool.rglob("set-*")):
            rel, name = entry_dir.parent.parent.relative_to(pool), entry_dir.parent.name
            if (rel, name) in seen:
                continue
            seen.add((rel, name))
            entry = _pool_entry(pool, rel, name)
            (sandbox / rel).mkdir(parents=True, exist_ok=True)
            for f in entry.iterdir():
                shutil.copy2(f, sandbox / rel / f.name)
    for rel, name, files in _numba_sets(ROOT):
        if (rel, name) in seen:
            continue
        (sandbox / rel).mkdir(parents=True, exist_ok=True)
        try:
            for f in files:   # index first: a data file it does not list is ignored, a missing one recompiled
                shutil.copy2(f, sandbox / rel / f.name)
        except FileNotFoundError:   # the checkout's cache changed under us (another test compiling)
            continue


def numba_index_times(root: Path) -> dict:
    """``{index file: st_mtime_ns}`` of every cached function under ``root/simlib``."""
    return {files[0]: files[0].stat().st_mtime_ns for _, _, files in _numba_sets(root)}


def publish_numba_cache(sandbox: Path, pool: Path, before: dict) -> None:
    """Add to the pool every function whose cache in ``sandbox`` is new or changed since ``before``
    (:func:`numba_index_times` right after the sandbox was seeded)."""
    for rel, name, files in _numba_sets(sandbox):
        if before.get(files[0]) == files[0].stat().st_mtime_ns:
            continue
        target = pool / rel / name
        target.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=target, prefix=".tmp-"))
        for f in files:
            shutil.copy2(f, tmp / f.name)
        os.rename(tmp, target / f"set-{time.time_ns():020d}-{os.getpid()}")


@pytest.fixture(scope="session")
def numba_pool(tmp_path_factory):
    """One directory for the whole session, shared by pytest-xdist's workers."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "numba-pool"


@pytest.fixture
def sandbox(tmp_path, numba_pool):
    box = make_sandbox(tmp_path / "repo", numba_pool)
    before = numba_index_times(box)
    yield box
    publish_numba_cache(box, numba_pool, before)


def committed_state(root: Path, *, with_times: bool = True) -> dict:
    """sha256 of every file a publishing run may write: figures/, data/results/, notebooks/*.ipynb/.py.

    ``with_times=False`` leaves out the recorded run times (data/results/notebook_times.csv), the
    one committed file that differs between two publishing runs.
    """
    files = [*root.glob("figures/*"), *root.glob("data/results/*"), *root.glob("notebooks/*.ipynb"),
             *root.glob("notebooks/*.py")]
    if not with_times:
        files = [f for f in files if f != run_notebooks.committed_times_path(root)]
    return {str(f.relative_to(root)): hashlib.sha256(f.read_bytes()).hexdigest() for f in files if f.is_file()}


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf", re.IGNORECASE)


def numbers_in(text: str) -> list[float]:
    return [float(m) for m in _NUMBER.findall(text)]


# A quick run took 23-352 s per notebook (-n 0, numba compiling afresh in each sandbox, load 7-9 on
# 2 cores); the suite-wide timeout in pyproject.toml (600 s) is for the other tests.
@pytest.mark.timeout(1800)
@pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks/[0-9]*.py yet")
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_quick(notebook, sandbox, tmp_path):
    before = committed_state(sandbox)
    # workers=1 keeps the quick runs from oversubscribing the CI cores when
    # pytest-xdist already runs notebooks side by side.
    [result] = run_notebooks.run_notebooks([sandbox / "notebooks" / notebook.name],
                                           profile="quick", workers=1, root=sandbox,
                                           build_dir=tmp_path / "build", echo=None)
    assert result.ok, f"{notebook.name} failed: {result.error}\n(executed copy: {result.output})"
    assert not result.publish
    assert result.out_dir == sandbox / "build" / "runs" / notebook.stem / paths.parameter_hash(
        {"profile": "quick"})
    assert result.output == result.out_dir / f"{notebook.stem}.ipynb"
    executed = json.loads(result.output.read_text())
    injected = [c for c in executed["cells"]
                if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
    assert injected, "papermill did not inject the parameters (missing parameters cell tag?)"
    assert "profile = \"quick\"" in "".join(injected[0]["source"])
    # nothing committed changed: everything went to the run folder
    assert committed_state(sandbox) == before
    # its claims were recorded, in the run's ledger, each with a finite measured value
    ledger = load_ledger(result.out_dir / "results" / "claims.csv")
    assert len(ledger) > 0, "the notebook recorded no claim"
    assert set(ledger["profile"]) == {"quick"}
    assert all(json.loads(p) == {"profile": "quick"} for p in ledger["parameters"])
    for row in ledger.itertuples(index=False):
        values = numbers_in(row.our_value)
        if "n/a" in row.our_value and "censored" in str(row.note):
            continue              # every pair censored: no number is the honest value (decision RP17)
        if row.our_value.startswith("machine-dependent, see "):        # a timing claim (decision S26)
            cited = sandbox / row.our_value.split(", see ", 1)[1]
            full = load_ledger(cited).set_index(["figure", "claim"]).loc[(row.figure, row.claim)]
            values = numbers_in(full["our_value"])
            assert str(cited).startswith(str(result.out_dir)) and "depends on the machine" in row.note
        assert values and all(math.isfinite(v) for v in values), (
            f"{row.figure}: {row.claim}: our_value {row.our_value!r} has no finite number")
        if row.kind == "claim":      # decided, or undecided with the interval that leaves it open (S24)
            assert (bool(row.undecided and row.interval) if row.holds is pd.NA else row.holds in (True, False))
    assert any((result.out_dir / "figures").glob("*.png"))
    if notebook.stem.startswith(("44_", "45_")):      # SM75 as amended: their grids at the SSP profile too
        assert {"default", "priority", "profile"} <= set(ledger["setting"])
        assert any((result.out_dir / "figures").glob("selmcast_ssp_fig*_profile.png"))


@pytest.mark.timeout(1800)
def test_at_ssp_profile_off_runs_no_profile_grid(sandbox, tmp_path):
    """Notebook 44 with ``at_ssp_profile`` false (SM75 as amended): no profile sweep, no ``profile`` row, no
    profile figure; the default and priority rows are still recorded (with it on, the quick run of
    test_notebook_runs_quick records profile rows and figures)."""
    [result] = run_notebooks.run_notebooks([sandbox / "notebooks" / "44_selmcast_ssp_fig8-10.py"], profile="quick",
                                           workers=1, extra={"at_ssp_profile": False}, root=sandbox,
                                           build_dir=tmp_path / "build", echo=None)
    assert result.ok, result.error
    ledger = load_ledger(result.out_dir / "results" / "claims.csv")
    assert set(ledger["setting"]) == {"default", "priority"}
    assert not any((result.out_dir / "figures").glob("*_profile.png"))
    assert not any((result.out_dir / "results").glob("*_profile.csv"))


def test_discover_finds_only_numbered_sources(tmp_path):
    for name in ("00_a.py", "10_b.py", "helper.py", "01_c.ipynb", "README.md"):
        (tmp_path / name).write_text("")
    found = [p.name for p in run_notebooks.discover(tmp_path)]
    assert found == ["00_a.py", "10_b.py"]
    assert [p.name for p in run_notebooks.discover(tmp_path, only="10_*")] == ["10_b.py"]
    assert [p.name for p in run_notebooks.discover(tmp_path, only="_a")] == ["00_a.py"]
    (tmp_path / "12_fig8-10_x.py").write_text("")
    # a number prefix selects that notebook only, not another whose name contains it
    assert [p.name for p in run_notebooks.discover(tmp_path, only="10_")] == ["10_b.py"]
    assert [p.name for p in run_notebooks.discover(tmp_path, only="8-10")] == ["12_fig8-10_x.py"]


def test_a_repeated_only_runs_every_notebook_any_pattern_selects(tmp_path, capsys):
    """`--only 10_ --only 12_` kept only the last pattern."""
    for name in ("00_a.py", "10_b.py", "12_fig8-10_x.py"):
        (tmp_path / name).write_text("")
    assert [p.name for p in run_notebooks.discover(tmp_path, only=["12_", "10_", "10_*"])] == ["10_b.py",
                                                                                             "12_fig8-10_x.py"]
    assert run_notebooks.main(["--notebook-dir", str(tmp_path), "--only", "12_", "--only", "00_", "--list"]) == 0
    assert [line.rsplit("/", 1)[-1] for line in capsys.readouterr().out.split()] == ["00_a.py", "12_fig8-10_x.py"]
    assert run_notebooks.main(["--notebook-dir", str(tmp_path), "--only", "7_", "--only", "9_"]) == 1
    assert "no notebooks matching '7_' or '9_'" in capsys.readouterr().err


@pytest.mark.parametrize("text, value", [
    ("3", 3), ("0.5", 0.5), ("1e6", 1e6), ("true", True), ("False", False),
    ("null", None), ("None", None), ("[1, 2]", [1, 2]), ("[40, 80]", [40, 80]), ("[cnn, lstm]", ["cnn", "lstm"]),
    ("'x'", "x"), ("hello", "hello"),
])
def test_parse_value(text, value):
    assert run_notebooks.parse_value(text) == value


def test_cli_rejects_bad_options_before_touching_anything(capsys, monkeypatch):
    """`make reproduce PROFILE=fast` / `WORKERS=0`: rejected before the ledger is removed."""
    touched = []
    monkeypatch.setattr(run_notebooks, "fresh_ledger", lambda *a, **k: touched.append(a))
    monkeypatch.setattr(run_notebooks, "run_notebook", lambda *a, **k: touched.append(a))
    for argv in (["--profile", "fast", "--fresh-ledger"], ["--workers", "0", "--fresh-ledger"],
                 ["--workers", "x"], ["-p", "bad key", "1"], ["-p", "profile", "quick"],
                 ["--profile", "quick", "--fresh-ledger"], ["-p", "trials", "5", "--fresh-ledger"],
                 ["--fresh-ledger", "--only", "11_"]):
        with pytest.raises(SystemExit) as exc:
            run_notebooks.main(argv)
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--profile" in err and "--workers" in err and "-p/--parameter" in err and "--fresh-ledger" in err
    assert touched == []


def _bad_build_dirs(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder")
    locked = tmp_path / "locked"
    locked.mkdir()
    return [(a_file, "is a file"), (a_file / "sub", "is a file"), (locked / "build", "not writable"),
            (ROOT / "data" / "results" / "build", "data/results/"), (ROOT / "figures", "figures/"),
            (ROOT, "repository root")], locked


def test_cli_rejects_a_bad_build_dir_before_touching_anything(tmp_path, capsys, monkeypatch):
    """A --build-dir that is a file, not writable or inside the committed results: exit 2 naming the flag."""
    touched = []
    for name in ("fresh_ledger", "ensure_kernel", "run_notebook", "record_time"):
        monkeypatch.setattr(run_notebooks, name, lambda *a, _n=name, **k: touched.append(_n))
    cases, locked = _bad_build_dirs(tmp_path)
    real_access = run_notebooks.os.access     # tests run as root here, where chmod cannot deny access
    monkeypatch.setattr(run_notebooks.os, "access",
                        lambda p, mode, **k: Path(p) != locked and real_access(p, mode, **k))
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for build_dir, why in cases:
        for extra in ([], ["--fresh-ledger"]):
            with pytest.raises(SystemExit) as exc:
                run_notebooks.main(["--build-dir", str(build_dir), *extra])
            assert exc.value.code == 2
            err = capsys.readouterr().err
            assert "--build-dir" in err and why in err and "Traceback" not in err, err
    assert touched == []
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert not (ROOT / "data" / "results" / "build").exists()


def test_run_notebooks_rejects_a_bad_build_dir(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    with pytest.raises(ValueError, match="build_dir must be a directory"):
        run_notebooks.run_notebooks([], build_dir=a_file, echo=None)
    with pytest.raises(ValueError, match="build_dir must not be inside the committed folder data/results/"):
        run_notebooks.run_notebooks([], root=tmp_path, build_dir=tmp_path / "data" / "results" / "b", echo=None)
    # a fresh folder under a writable one is fine (created later, on first write)
    assert run_notebooks.check_build_dir(tmp_path / "new" / "build", tmp_path) == tmp_path / "new" / "build"


def test_cli_flags_reach_papermill_through_the_exec_options(tmp_path, monkeypatch):
    nb = tmp_path / "00_tiny.py"
    nb.write_text('# %% tags=["parameters"]\nprofile = "full"\n')
    with pytest.raises(ValueError, match="cell_timeout"):
        run_notebooks.ExecOptions(cell_timeout=0)
    with pytest.raises(ValueError, match="options must be an ExecOptions"):
        run_notebooks.run_notebooks([], options={"cell_timeout": 5}, echo=None)
    seen = []
    monkeypatch.setattr(run_notebooks, "ensure_kernel", lambda name: seen.append(name))
    monkeypatch.setattr(run_notebooks, "run_notebooks", lambda nbs, **kw: seen.append(kw["options"]) or [])
    run_notebooks.main(["--notebook-dir", str(tmp_path), "--profile", "quick", "--timeout", "7.5", "--log-output"])
    assert seen == [run_notebooks.ExecOptions(log_output=True, cell_timeout=7.5, pace_probe=True)]


def test_the_command_line_runs_the_machine_pace_probe_unless_told_not_to(tmp_path, monkeypatch):
    """S35: the command line's runs probe the machine's pace first; --no-probe skips it."""
    nb = tmp_path / "00_tiny.py"
    nb.write_text('# %% tags=["parameters"]\nprofile = "full"\n')
    with pytest.raises(ValueError, match="pace_probe must be True or False"):
        run_notebooks.ExecOptions(pace_probe="yes")
    seen = []
    monkeypatch.setattr(run_notebooks, "run_notebooks", lambda nbs, **kw: seen.append(kw["options"].pace_probe) or [])
    run_notebooks.main(["--notebook-dir", str(tmp_path), "--profile", "quick"])
    run_notebooks.main(["--notebook-dir", str(tmp_path), "--profile", "quick", "--no-probe"])
    assert seen == [True, False]


def test_the_dask_address_goes_from_the_command_line_to_each_notebooks_run(tmp_path, monkeypatch):
    """S32: the runner's command line reads DASK_SCHEDULER_ADDRESS (its default) and passes it on as an
    argument, down to the notebook's simlib_run; nothing below reads the environment."""
    import contextlib

    import papermill

    from simlib.pipeline import sweep

    class Client:
        def scheduler_info(self):
            return {"workers": {"w": {}}}

    nb = tmp_path / "00_tiny.py"
    nb.write_text('# %% tags=["parameters"]\nprofile = "full"\n')
    seen = []
    monkeypatch.setenv(sweep.DASK_ENV, "tcp://h:8786")
    monkeypatch.setattr(sweep, "connect_dask", lambda address: contextlib.nullcontext(Client()))
    monkeypatch.setattr(run_notebooks, "run_notebooks", lambda nbs, **kw: seen.append(kw["options"].dask_address) or [])
    run_notebooks.main(["--notebook-dir", str(tmp_path), "--profile", "quick"])
    monkeypatch.delenv(sweep.DASK_ENV)
    run_notebooks.main(["--notebook-dir", str(tmp_path), "--profile", "quick"])
    assert seen == ["tcp://h:8786", None]

    monkeypatch.setattr(papermill, "execute_notebook",
                        lambda src, out, *, parameters, **k: seen.append(parameters) or shutil.copy(src, out))
    monkeypatch.setattr(run_notebooks, "_kernel_for_root", lambda *a: contextlib.nullcontext())
    res = run_notebooks.run_notebook(nb, {"profile": "quick"}, build_dir=tmp_path / "build", root=tmp_path,
                                     dask_address="tcp://h:8786")
    assert res.ok, res.error
    assert seen[-1]["simlib_run"]["dask_address"] == "tcp://h:8786"


def test_the_runner_module_imports_no_simulator():
    """Each notebook of a run with --jobs has a runner process of its own (``--run-job``): importing the runner
    must not import numba or the simulator (0.3-0.45 CPU-s per notebook), only its command line's argparse
    types need them."""
    import subprocess
    import sys

    script = ("import sys; import simlib.pipeline.notebooks; "
              "print(sorted(m for m in ('numba', 'pandas', 'simlib.runtime.cluster', 'simlib.papers.cli_gen') "
              "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                         cwd=str(ROOT)).stdout.strip()
    assert out == "[]"


def test_a_runs_kernelspec_starts_the_kernel_through_the_fast_exit_launcher():
    """ipykernel's launcher, and only it, is replaced (decision S41); the rest of the command stays."""
    argv = ["/venv/bin/python", "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    assert run_notebooks._fast_exit_argv(argv) == [
        "/venv/bin/python", "-Xfrozen_modules=off", "-m", "simlib.pipeline.kernel", "-f", "{connection_file}"]
    assert argv[3] == "ipykernel_launcher"                        # a copy: the spec read stays as it was
    other = ["/venv/bin/python", "-m", "my_launcher", "-f", "{connection_file}", "ipykernel_launcher"]
    assert run_notebooks._fast_exit_argv(other) == other


@pytest.mark.parametrize("code, status", [(None, 0), (0, 0), (3, 3), ("a message", 1)])
def test_the_kernel_exits_with_its_status_after_every_other_exit_handler(code, status, tmp_path):
    """The kernel's application (here a stand-in) registers an exit handler and exits with ``code``: the handler
    still runs and writes its file, and the process ends with the status the interpreter gives ``code``."""
    import subprocess
    import sys

    mark = tmp_path / "handler.txt"
    script = f"""
import atexit, sys
from pathlib import Path
import ipykernel.kernelapp as app
def stand_in():
    atexit.register(lambda: Path({str(mark)!r}).write_text("ran"))
    sys.exit({code!r})
app.launch_new_instance = stand_in
from simlib.pipeline import kernel
kernel.main()
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=str(ROOT))
    assert r.returncode == status, r.stderr
    assert mark.read_text() == "ran"
    assert ("a message" in r.stderr) == (code == "a message")


def test_undeclared_parameter_fails_the_notebook(tmp_path):
    """papermill only warns about unknown parameters; the runner makes it an error."""
    nb = tmp_path / "00_tiny.py"
    nb.write_text('# %% tags=["parameters"]\nprofile = "full"\n\n# %%\nx = 1\n')
    [result] = run_notebooks.run_notebooks([nb], profile="quick", extra={"typo": 1},
                                           build_dir=tmp_path / "build", echo=None)
    assert not result.ok
    assert "typo" in result.error


def test_pipeline_executes_in_root_with_its_simlib(sandbox, tmp_path):
    """A throw-away notebook checks the kernel, cwd, `import simlib` and parameter injection."""
    nb = tmp_path / "00_probe.py"
    nb.write_text(
        "# ---\n# jupyter:\n#   kernelspec:\n#     name: simlib\n#     display_name: Python (simlib)\n"
        "#     language: python\n# ---\n\n"
        '# %% tags=["parameters"]\nprofile = "full"\nworkers = None\nn = 1\n\n'
        "# %%\nfrom simlib.core.validate import check_choice, check_int\n"
        'check_choice("profile", profile, ["full", "quick"])\n'
        'n = check_int("n", n, lo=1)\n\n'
        "# %%\nimport os, pathlib, simlib\n"
        f"assert pathlib.Path.cwd() == pathlib.Path({str(sandbox)!r}), os.getcwd()\n"
        "assert pathlib.Path(simlib.__file__).parent == "
        f"pathlib.Path({str(sandbox / 'simlib')!r}), simlib.__file__\n"
        'assert (profile, workers, n) == ("quick", 1, 3)\n'
    )
    [ok] = run_notebooks.run_notebooks([nb], profile="quick", workers=1, extra={"n": 3},
                                       root=sandbox, build_dir=tmp_path / "build", echo=None)
    assert ok.ok, ok.error
    assert (tmp_path / "build" / "notebooks" / "00_probe.ipynb").is_file()  # unpaired: converted copy
    assert ok.output == sandbox / "build" / "runs" / "00_probe" / paths.parameter_hash(
        {"profile": "quick", "n": 3}) / "00_probe.ipynb"
    assert ok.output.is_file()

    # An invalid value is rejected by the notebook's own validation cell.
    [bad] = run_notebooks.run_notebooks([nb], profile="quick", extra={"n": 0}, root=sandbox,
                                        build_dir=tmp_path / "build", echo=None)
    assert not bad.ok
    assert "ValueError" in bad.error and "n must be" in bad.error
    assert bad.output.is_file()  # the executed copy (with the traceback) is kept
    assert not bad.out_dir.exists()  # ... in the build folder: a rejected parameter leaves no run folder
    assert not (sandbox / "build" / "runs" / "00_probe" / bad.out_dir.name).exists()
    assert bad.output.parent == tmp_path / "build" / "executed"


def test_save_figure_as_a_cells_last_expression_leaves_no_output(sandbox, tmp_path):
    nb = tmp_path / "00_fig.py"
    nb.write_text('# %% tags=["parameters"]\nprofile = "full"\n\n'
                  "# %%\nimport dataclasses\nimport matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
                  "import simlib\nfrom simlib.papers.contract import ScenarioBase\n"
                  "@dataclasses.dataclass(frozen=True)\nclass NoParams(ScenarioBase):\n    pass\n"
                  "run = simlib.start(NoParams, globals(), notebook='00_fig')\nfig, ax = plt.subplots()\n"
                  "run.save_figure(fig, 'probe')\n")
    [res] = run_notebooks.run_notebooks([nb], profile="quick", root=sandbox, build_dir=tmp_path / "build",
                                        echo=None)
    assert res.ok, res.error
    assert (res.out_dir / "figures" / "probe.png").is_file()
    [cell] = [c for c in json.loads(res.output.read_text())["cells"] if "run.save_figure(" in "".join(c["source"])]
    assert [o for o in cell["outputs"] if o["output_type"] == "execute_result"] == []
    assert "PosixPath" not in json.dumps(cell["outputs"])


def test_a_failure_after_the_first_output_keeps_the_run_folder(sandbox, tmp_path):
    """The run folder appears with the notebook's first write; the executed copy then joins it."""
    nb = tmp_path / "00_late.py"
    nb.write_text('# %% tags=["parameters"]\nprofile = "full"\nn = 1\n\n'
                  "# %%\nimport dataclasses, simlib\nfrom simlib.papers.contract import ScenarioBase, param\n"
                  "@dataclasses.dataclass(frozen=True)\nclass N(ScenarioBase):\n"
                  "    n: int = param(1, lo=1, help='n')\n"
                  "run = simlib.start(N, globals(), notebook='00_late')\n"
                  "(run.results / 'partial.txt').write_text('x')\n"
                  "raise RuntimeError('after the first output')\n")
    [res] = run_notebooks.run_notebooks([nb], profile="quick", extra={"n": 2}, root=sandbox,
                                        build_dir=tmp_path / "build", echo=None)
    assert not res.ok and "after the first output" in res.error
    assert res.output == res.out_dir / "00_late.ipynb" and res.output.is_file()
    assert (res.out_dir / "results" / "partial.txt").is_file()
    assert (res.out_dir / "results" / run_notebooks.TIMES_FILE).is_file()


def test_sandbox_leaves_out_environment_and_outputs(sandbox):
    assert (sandbox / "simlib" / "__init__.py").is_file()
    assert (sandbox / "notebooks").is_dir()
    for name in (".git", ".venv", "build"):
        assert not (sandbox / name).exists()
    assert not (sandbox / "data" / "cache").exists()


PROBE = """# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python (simlib)
#     language: python
#     name: simlib
# ---

# %% [markdown]
# # Probe

# %% tags=["parameters"]
profile = "full"
workers = None
seed = 0
trials = 3
values = [1, 2]

# %%
from dataclasses import dataclass

from simlib.papers.contract import ParamSpec, ScenarioBase, param, param_list
import simlib


@dataclass(frozen=True)
class Probe(ScenarioBase):
    trials: int = param(3, lo=1, quick=1, help="trials")
    values: tuple = param_list([1, 2], item=ParamSpec(kind="int", lo=1, help="a value"), quick=[7])


run = simlib.start(Probe, globals(), notebook="05_probe")

# %%
import matplotlib.pyplot as plt
import pandas as pd

from simlib.pipeline import paths

fig, ax = plt.subplots()
ax.plot(values, values)
run.save_figure(fig, "probe_fig")
pd.DataFrame({"v": values}).to_csv(run.csv("probe"), index=False)
from simlib.papers.claim import Claim
run.record(Claim(paper="P", figure="F", claim="sum of values", paper_value="3", our_value=str(sum(values)),
                 direction=sum(values) == 3, cause="" if sum(values) == 3 else "unexplained: probe"))
print(object(), paths.REPO_ROOT / "x", trials, values)
"""


def write_probe(sandbox: Path) -> Path:
    source = sandbox / "notebooks" / "05_probe.py"
    source.write_text(PROBE)
    run_notebooks.sync_pair(source)
    return source


def test_publishing_run_writes_committed_results_deterministically(sandbox, tmp_path):
    source = write_probe(sandbox)
    py_before = source.read_text()
    ledger = sandbox / "data" / "results" / "claims.csv"
    [first] = run_notebooks.run_notebooks([source], profile="full", root=sandbox,
                                          build_dir=tmp_path / "b1", echo=None)
    assert first.ok and first.publish, first.error
    assert (sandbox / "figures" / "probe_fig.png").is_file()
    assert (sandbox / "data" / "results" / "probe.csv").is_file()
    row = load_ledger(ledger).set_index("claim").loc["sum of values"]
    assert (row["profile"], row["trials"], row["parameters"]) == ("full", "3", '{"profile": "full"}')
    ipynb = source.with_suffix(".ipynb")
    text = ipynb.read_text()
    nb = json.loads(text)
    # executed, with outputs; no injected-parameters cell; nothing run-specific
    assert any(c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")
    assert not any("injected-parameters" in c.get("metadata", {}).get("tags", []) for c in nb["cells"])
    assert "papermill" not in text and "start_time" not in text and '"execution"' not in text
    assert str(sandbox) not in text and " at 0x" not in text
    assert source.read_text() == py_before  # the pair stays in sync without touching the source
    # its time is recorded in the committed times file, next to the other notebooks' rows
    times = run_notebooks.committed_times_path(sandbox)
    recorded = timing.read_times(times)
    assert recorded["05_probe"].ok and recorded["05_probe"].profile == "full"
    assert abs(recorded["05_probe"].wall_s - first.seconds) <= 0.05
    assert not (first.output.parent / "results").exists()  # no run folder for a publishing run
    # a second run gives byte-identical committed files (the recorded times aside)
    state = committed_state(sandbox, with_times=False)
    [second] = run_notebooks.run_notebooks([source], profile="full", root=sandbox,
                                           build_dir=tmp_path / "b2", echo=None)
    assert second.ok, second.error
    assert committed_state(sandbox, with_times=False) == state
    assert set(timing.read_times(times)) == set(recorded)


def test_custom_parameters_go_to_a_run_folder(sandbox, tmp_path):
    """`-p values "[4, 5]"` (text, as papermill passes it) with the full profile: not committed."""
    source = write_probe(sandbox)
    before = committed_state(sandbox)
    [res] = run_notebooks.run_notebooks([source], profile="full", extra={"values": "[4, 5]"}, root=sandbox,
                                        build_dir=tmp_path / "b", echo=None)
    assert res.ok and not res.publish, res.error
    assert committed_state(sandbox) == before
    assert pd.read_csv(res.out_dir / "results" / "probe.csv")["v"].tolist() == [4, 5]
    row = load_ledger(res.out_dir / "results" / "claims.csv").iloc[0]
    assert json.loads(row["parameters"]) == {"profile": "full", "values": "[4, 5]"}
    assert (res.out_dir / "figures" / "probe_fig.png").is_file()
    [row] = timing.read_times(res.out_dir / "results" / "notebook_times.csv").values()
    assert (row.name, row.profile, row.ok) == ("05_probe", "full", True)


def test_quick_profile_keeps_parameters_the_user_passed(sandbox, tmp_path):
    """`--profile quick -p values "[2, 3]" -p trials 3`: both kept, trials although 3 is its full
    default (the runner names the passed parameters, decision S22)."""
    source = write_probe(sandbox)
    [res] = run_notebooks.run_notebooks([source], profile="quick", extra={"values": [2, 3], "trials": 3},
                                        root=sandbox, build_dir=tmp_path / "b", echo=None)
    assert res.ok, res.error
    assert pd.read_csv(res.out_dir / "results" / "probe.csv")["v"].tolist() == [2, 3]  # not [7]
    row = load_ledger(res.out_dir / "results" / "claims.csv").iloc[0]
    assert row["trials"] == "3"                                                      # not the quick 1
    assert json.loads(row["parameters"]) == {"profile": "quick", "values": [2, 3], "trials": 3}


@pytest.mark.parametrize("value, message", [
    (40, r"values must be a list such as \[1, 2\]"),
    ("[1, 0]", r"values\[1\] must be an integer in \[1, inf\), got 0"),
])
def test_bad_list_parameter_fails_with_a_clear_error(sandbox, tmp_path, value, message):
    source = write_probe(sandbox)
    [res] = run_notebooks.run_notebooks([source], profile="quick", extra={"values": value}, root=sandbox,
                                        build_dir=tmp_path / "b", echo=None)
    assert not res.ok
    # ParamError is the contract's ValueError naming the parameter
    assert res.error.startswith("ParamError") and re.search(message, res.error), res.error


def test_papermill_by_hand_writes_a_run_folder(sandbox, tmp_path):
    """papermill on the committed .ipynb, outside the runner: the run context comes from the
    injected parameters and the notebook's parameters cell."""
    import papermill as pm

    source = write_probe(sandbox)
    before = committed_state(sandbox)
    out = tmp_path / "out.ipynb"
    with run_notebooks._kernel_for_root("simlib", sandbox, tmp_path / "k"):
        pm.execute_notebook(str(source.with_suffix(".ipynb")), str(out), parameters={"trials": 5},
                            kernel_name="simlib", cwd=str(sandbox), progress_bar=False)
    assert committed_state(sandbox) == before
    run = sandbox / "build" / "runs" / "05_probe" / paths.parameter_hash({"trials": 5})
    assert (run / "results" / "probe.csv").is_file() and (run / "figures" / "probe_fig.png").is_file()
    assert "build/runs/05_probe/" in out.read_text()  # the notebook says where its outputs went


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_ipynb_is_paired_and_in_sync(notebook):
    import jupytext

    ipynb = notebook.with_suffix(".ipynb")
    assert ipynb.is_file(), f"{ipynb.name} missing: run `jupytext --sync {notebook}`"
    py_nb, ipy_nb = jupytext.read(notebook), jupytext.read(ipynb)
    assert ipy_nb.metadata["jupytext"]["formats"] == "ipynb,py:percent"
    assert ipy_nb.metadata["kernelspec"]["name"] == "simlib"
    assert [c.source for c in ipy_nb.cells] == [c.source for c in py_nb.cells]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_papermill_reads_every_parameter_without_warnings(notebook, caplog):
    """papermill's parameter inspector ("Unable to parse line ...") must understand each line."""
    import nbformat
    from papermill.translators import PythonTranslator

    nb = nbformat.read(str(notebook.with_suffix(".ipynb")), as_version=4)
    [cell] = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    with caplog.at_level("WARNING"):
        names = [p.name for p in PythonTranslator.inspect(cell)]
    assert not caplog.records, [r.getMessage() for r in caplog.records]
    assert names[:2] == ["profile", "workers"]
    assert set(names) == run_notebooks.declared_parameters(notebook.with_suffix(".ipynb"))


def test_scrub_removes_run_specific_content(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook(metadata={"papermill": {"start_time": "2026"}})
    cell = nbformat.v4.new_code_cell("x", metadata={"papermill": {"duration": 1.0},
                                                     "execution": {"iopub.status.busy": "2026"}})
    cell.outputs = [nbformat.v4.new_output("stream", name="stderr",
                                           text=f"{tmp_path}/simlib/x.py:3: Warning at 0x7f12ab\n"),
                    nbformat.v4.new_output("execute_result", data={"text/plain": "<object at 0xdeadbeef>"},
                                           execution_count=1)]
    nb.cells = [cell]
    out = run_notebooks.scrub(nb, tmp_path)
    assert "papermill" not in out.metadata
    assert out.cells[0].metadata == {}
    assert out.cells[0].outputs[0]["text"] == "./simlib/x.py:3: Warning\n"
    assert out.cells[0].outputs[1]["data"]["text/plain"] == "<object>"


def test_papermill_by_hand_with_an_undeclared_parameter_fails(tmp_path):
    """`papermill nb.ipynb out.ipynb -p bogus 1` without the runner: papermill only warns, so
    simlib.start must refuse the name (it ran with rc 0 and wrote the default run folder).  The
    kernel imports this checkout's simlib (the runner's kernelspec copy); start writes nothing."""
    import nbformat
    import papermill

    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('profile = "quick"\nworkers = None\nseed = 0\nn = 10')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_code_cell(
        "from dataclasses import dataclass\nimport simlib\nfrom simlib.papers.contract import ScenarioBase, param\n"
        "@dataclass(frozen=True)\nclass Spec(ScenarioBase):\n    n: int = param(10, lo=1, help='n')"),
        params, nbformat.v4.new_code_cell('run = simlib.start(Spec, globals(), notebook="00_probe")\nreached = 1')]
    nb.metadata["kernelspec"] = {"name": run_notebooks.KERNEL_NAME, "language": "python", "display_name": "simlib"}
    nb.metadata["language_info"] = {"name": "python"}
    source = tmp_path / "00_probe.ipynb"
    nbformat.write(nb, source)
    run = dict(kernel_name=run_notebooks.KERNEL_NAME, cwd=str(tmp_path), progress_bar=False)
    with run_notebooks._kernel_for_root(run_notebooks.KERNEL_NAME, paths.REPO_ROOT, tmp_path / "build"):
        with pytest.raises(papermill.PapermillExecutionError, match=r"unknown parameter\(s\) \['bogus'\]"):
            papermill.execute_notebook(str(source), str(tmp_path / "out.ipynb"), parameters={"bogus": 1, "n": 3}, **run)
        ok = papermill.execute_notebook(str(source), str(tmp_path / "ok.ipynb"), parameters={"n": 3}, **run)
    assert "reached = 1" in ok.cells[-1].source and not any(o.get("ename") for o in ok.cells[-1].outputs)
