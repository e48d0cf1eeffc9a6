"""`pip install .` gives a working package: every subpackage and the built-in traces."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_pip_install_ships_every_module_and_the_traces(tmp_path):
    src, target = tmp_path / "src", tmp_path / "site"
    # build from a copy, so the build leaves nothing in the repository
    shutil.copytree(ROOT / "simlib", src / "simlib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", src)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                    "--target", str(target), str(src)], check=True, cwd=tmp_path)
    source = sorted(p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
                    for p in (ROOT / "simlib").rglob("*.py"))
    modules = [m.removesuffix(".__init__") for m in source if not m.endswith("__main__")]
    code = ("import importlib, simlib\n"
            f"assert simlib.__file__.startswith({str(target)!r}), simlib.__file__\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            "from simlib.workloads.traces import TRACE_NAMES, load_trace\n"
            "assert all(load_trace(t).mean > 0 for t in TRACE_NAMES)\n")
    # run outside the repository so the in-tree package cannot be imported instead
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path,
                   env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"})
