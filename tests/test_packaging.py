"""`pip install .` gives a working package: every subpackage and the built-in traces, nothing left in
the repository's build/ (the run folders' home); and the wheel, installed with its declared
dependencies into a fresh venv, runs `import simlib`, the README's Python example and `python -m
simlib train` from another folder without writing into its own folder (decision S15)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_api import readme_example

ROOT = Path(__file__).resolve().parents[1]

# `pip wheel` of a copy of the sources, `pip install` of the wheel and an interpreter importing every module:
# 11.4 CPU-s in the fast tier (measured 2026-11-29, tests/README.md), so the whole module is `slow`.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """``pip wheel --no-deps`` of a copy of the package's sources; returns (the copy, the wheel)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    # build from a copy, so the build leaves nothing in the repository
    shutil.copytree(ROOT / "simlib", src / "simlib", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "setup.cfg", "LICENSE"):
        shutil.copy(ROOT / name, src)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check",
                    "--wheel-dir", str(tmp / "dist"), str(src)], check=True, cwd=tmp)
    (wheel,) = (tmp / "dist").glob("simlib-*.whl")
    return src, wheel


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> Path:
    """``pip install --no-deps --target <site> <the wheel>``; returns ``<site>``."""
    target = tmp_path_factory.mktemp("install") / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                    "--target", str(target), str(built[1])], check=True)
    return target


def test_building_leaves_nothing_in_build(built):
    """setup.cfg moves setuptools' build folder (build/lib, build/bdist.*) out of build/, where the run
    folders live."""
    src = built[0]
    assert not (src / "build").exists(), sorted(p.name for p in (src / "build").iterdir())
    assert (src / ".setuptools-build").is_dir()


def test_the_wheel_carries_the_licence(built):
    import zipfile

    names = zipfile.ZipFile(built[1]).namelist()
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: BSD-3-Clause" in zipfile.ZipFile(built[1]).read(meta).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names[-5:]
    # the ByteDance traces ship with their Apache-2.0 licence, beside them and in the wheel's metadata
    ours = (ROOT / "simlib" / "workloads" / "trace_data" / "LICENSE-bytedance").read_bytes()
    assert ours == (ROOT / "data" / "traces" / "LICENSE-bytedance").read_bytes()      # the copy is unchanged
    assert zipfile.ZipFile(built[1]).read("simlib/workloads/trace_data/LICENSE-bytedance") == ours
    assert any(n.endswith("licenses/simlib/workloads/trace_data/LICENSE-bytedance") for n in names), names[-5:]


def test_pip_install_ships_every_module_and_the_traces(installed, tmp_path):
    source = sorted(p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
                    for p in (ROOT / "simlib").rglob("*.py"))
    modules = [m.removesuffix(".__init__") for m in source if not m.endswith("__main__")]
    code = ("import importlib, simlib\n"
            f"assert simlib.__file__.startswith({str(installed)!r}), simlib.__file__\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            "from simlib.workloads.traces import TRACE_NAMES, load_trace\n"
            "assert all(load_trace(t).mean > 0 for t in TRACE_NAMES)\n")
    # run outside the repository so the in-tree package cannot be imported instead
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path,
                   env={"PYTHONPATH": str(installed), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def fresh_venv(built, tmp_path_factory) -> Path:
    """A new venv of the base interpreter (nothing of the checkout's venv) with the wheel and the
    dependencies it declares, resolved by pip as `make venv` resolves requirements.txt; returns its python."""
    venv = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}    # make test puts the checkout there
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(built[1])],
                   check=True, timeout=900, env=env)
    return python


def test_wheel_in_a_fresh_venv_runs_the_readme_example_and_train(fresh_venv, tmp_path):
    """Only the declared dependencies are there: a missing one fails the import, the example or `train`.
    Cold numba cache (the installed copy has its own): one to two minutes on 2 busy cores, plus
    about 25 s for pip (warm cache)."""
    python = str(fresh_venv)
    # a clean environment (no PYTHONPATH: the checkout's simlib must not be the one imported)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(tmp_path / "mpl")}
    where = subprocess.run([python, "-c", "import simlib, os; print(os.path.dirname(simlib.__file__))"],
                           cwd=tmp_path, env=env, capture_output=True, text=True)
    assert where.returncode == 0, where.stderr[-3000:]
    site = Path(where.stdout.strip())
    assert site.parent.name == "site-packages" and site.is_relative_to(fresh_venv.parents[1])
    check = subprocess.run([python, "-m", "pip", "check"], env=env, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    script = tmp_path / "work" / "example.py"
    script.parent.mkdir()
    script.write_text(readme_example(), encoding="utf-8")
    before = _snapshot(site)
    proc = subprocess.run([python, str(script)], cwd=script.parent, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs = tmp_path / "xdg-data" / "simlib" / "runs"
    assert (runs / "example" / "defaults" / "results" / "sr_vs_pr.csv").is_file()
    assert list((tmp_path / "xdg-cache" / "simlib" / "trials" / "simlib.papers.cluster_scenario.run_trial").glob("*.json"))
    assert list((tmp_path / "xdg-cache" / "simlib" / "numba").rglob("*.nbi"))   # compiled kernels cached there
    assert str(runs) in proc.stderr and str(runs / "example" / "defaults") in proc.stdout   # says where, absolute
    assert (script.parent / "sr_vs_pr.png").is_file()
    # train: the simulation, then the replay through SGD on MNIST-1D (the mnist1d package)
    train = subprocess.run([python, "-m", "simlib", "train", "--duration", "20", "--json"], cwd=script.parent,
                           env=env, capture_output=True, text=True, timeout=900)
    assert train.returncode == 0, train.stderr[-3000:]
    result = json.loads(train.stdout)
    assert result["params"]["problem"] == "mnist1d" and 0 < result["final_acc"] <= 1
    claims = subprocess.run([python, "-m", "simlib", "claims"], cwd=script.parent, env=env,
                            capture_output=True, text=True, check=True).stdout
    assert "no committed claims ledger" in claims and str(runs) in claims
    assert _snapshot(site) == before                       # nothing written into the package folder
