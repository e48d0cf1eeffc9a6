"""Execute every notebook with the quick profile via simlib.pipeline.notebooks.

Marked ``notebooks`` (select with ``-m notebooks``, deselect with
``-m "not notebooks"``); runs by default.  One test per notebook so
pytest-xdist can spread them over workers.

Each notebook runs inside a scratch copy of the repository (``sandbox``), with
that copy as working directory and first on the kernel's ``sys.path``: its
quick-profile figures, results, cache and claims ledger land in the copy, so
``make test`` never overwrites the real ``figures/`` or ``data/results/`` and
parallel notebooks never share a ledger.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from simlib.pipeline import notebooks as run_notebooks

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = run_notebooks.discover()

pytestmark = pytest.mark.notebooks

# Not copied into the sandbox: VCS data, environments, build outputs, caches.
_SANDBOX_IGNORE = {".git", ".venv", "build", "__pycache__", ".pytest_cache", ".hypothesis",
                   ".cache", ".ipynb_checkpoints", "dask-worker-space"}


def make_sandbox(dest: Path) -> Path:
    """Copy the repository (sources, notebooks, inputs) to ``dest`` and return it."""
    def ignore(directory, names):
        skip = {n for n in names if n in _SANDBOX_IGNORE or n.endswith(".egg-info")}
        if Path(directory).resolve() == ROOT / "data":
            skip.add("cache")
        return skip

    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    return dest


@pytest.fixture
def sandbox(tmp_path):
    return make_sandbox(tmp_path / "repo")


@pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks/[0-9]*.py yet")
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_quick(notebook, sandbox, tmp_path):
    # workers=1 keeps the quick runs from oversubscribing the CI cores when
    # pytest-xdist already runs notebooks side by side.
    [result] = run_notebooks.run_notebooks([sandbox / "notebooks" / notebook.name],
                                           profile="quick", workers=1, root=sandbox,
                                           build_dir=tmp_path / "build", echo=None)
    assert result.ok, f"{notebook.name} failed: {result.error}\n(executed copy: {result.output})"
    executed = json.loads(result.output.read_text())
    injected = [c for c in executed["cells"]
                if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
    assert injected, "papermill did not inject the parameters (missing parameters cell tag?)"
    assert "profile = \"quick\"" in "".join(injected[0]["source"])


def test_discover_finds_only_numbered_sources(tmp_path):
    for name in ("00_a.py", "10_b.py", "helper.py", "01_c.ipynb", "README.md"):
        (tmp_path / name).write_text("")
    found = [p.name for p in run_notebooks.discover(tmp_path)]
    assert found == ["00_a.py", "10_b.py"]
    assert [p.name for p in run_notebooks.discover(tmp_path, only="10_*")] == ["10_b.py"]
    assert [p.name for p in run_notebooks.discover(tmp_path, only="_a")] == ["00_a.py"]


@pytest.mark.parametrize("text, value", [
    ("3", 3), ("0.5", 0.5), ("1e6", 1e6), ("true", True), ("False", False),
    ("null", None), ("[1, 2]", [1, 2]), ("'x'", "x"), ("hello", "hello"),
])
def test_parse_value(text, value):
    assert run_notebooks.parse_value(text) == value


def test_cli_rejects_bad_options(capsys):
    for argv in (["--profile", "nope"], ["--workers", "0"], ["-p", "bad key", "1"],
                 ["-p", "profile", "quick"]):
        with pytest.raises(SystemExit) as exc:
            run_notebooks.main(argv)
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--profile" in err and "--workers" in err and "-p/--parameter" in err


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
    assert (tmp_path / "build" / "notebooks" / "00_probe.ipynb").is_file()
    assert (tmp_path / "build" / "executed" / "00_probe.ipynb").is_file()

    # An invalid value is rejected by the notebook's own validation cell.
    [bad] = run_notebooks.run_notebooks([nb], profile="quick", extra={"n": 0}, root=sandbox,
                                        build_dir=tmp_path / "build", echo=None)
    assert not bad.ok
    assert "ValueError" in bad.error and "n must be" in bad.error
    assert bad.output.is_file()  # the executed copy (with the traceback) is kept


def test_sandbox_leaves_out_environment_and_outputs(sandbox):
    assert (sandbox / "simlib" / "__init__.py").is_file()
    assert (sandbox / "notebooks").is_dir()
    for name in (".git", ".venv", "build"):
        assert not (sandbox / name).exists()
    assert not (sandbox / "data" / "cache").exists()
