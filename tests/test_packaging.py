"""`pip install .` gives a working package: every subpackage and the built-in traces; and the
installed package runs the README's Python example from another folder without writing into its
own folder (decision S15)."""
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_api import readme_example

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """``pip install --no-deps --target <site> <copy of the package>``; returns ``<site>``."""
    tmp = tmp_path_factory.mktemp("install")
    src, target = tmp / "src", tmp / "site"
    # build from a copy, so the build leaves nothing in the repository
    shutil.copytree(ROOT / "simlib", src / "simlib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", src)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                    "--target", str(target), str(src)], check=True, cwd=tmp)
    return target


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


@pytest.mark.slow
def test_installed_package_runs_the_readme_example_without_writing_into_site_packages(installed, tmp_path):
    """Cold numba cache (the installed copy has its own): about a minute on 2 busy cores."""
    script = tmp_path / "work" / "example.py"
    script.parent.mkdir()
    script.write_text(readme_example(), encoding="utf-8")
    before = _snapshot(installed)
    env = {"PYTHONPATH": str(installed), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(tmp_path / "mpl")}
    proc = subprocess.run([sys.executable, str(script)], cwd=script.parent, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _snapshot(installed) == before                       # nothing written into the package folder
    runs = tmp_path / "xdg-data" / "simlib" / "runs"
    assert (runs / "example" / "defaults" / "results" / "sr_vs_pr.csv").is_file()
    assert list((tmp_path / "xdg-cache" / "simlib" / "trials" / "simlib.papers.cluster_scenario.run_trial").glob("*.json"))
    assert list((tmp_path / "xdg-cache" / "simlib" / "numba").rglob("*.nbi"))   # compiled kernels cached there
    assert str(runs) in proc.stderr and str(runs / "example" / "defaults") in proc.stdout   # says where, absolute
    assert (script.parent / "sr_vs_pr.png").is_file()
    claims = subprocess.run([sys.executable, "-m", "simlib", "claims"], cwd=script.parent, env=env,
                            capture_output=True, text=True, check=True).stdout
    assert "no committed claims ledger" in claims and str(runs) in claims
