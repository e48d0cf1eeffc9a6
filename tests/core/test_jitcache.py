"""numba's cache and cross-module compiled code: an edit of a module whose compiled
functions are frozen into another module's cache entries must reach the callers."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

MAIN = textwrap.dedent("""
    from numba import njit
    from simlib.core import jitcache
    from . import dep
    from .dep import f

    @njit(cache=True)
    def marked():
        return f()

    @njit(cache=True)
    def unmarked():
        return f()

    jitcache.depend_on([marked], dep)
""")


def _dep(value: int) -> str:
    return f"from numba import njit\n\n@njit(cache=True)\ndef f():\n    return {value}\n"


def _run(tmp_path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", "import pkg.main as m; print(m.marked(), m.unmarked())"],
                         env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_an_edit_of_a_dependency_recompiles_the_marked_callers(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "main.py").write_text(MAIN)
    (pkg / "dep.py").write_text(_dep(1))
    assert _run(tmp_path) == ["1", "1"]
    assert list((pkg / "__pycache__").glob("main.marked-*.nbi"))    # both callers are cached now
    (pkg / "dep.py").write_text(_dep(2))
    later = (pkg / "dep.py").stat().st_mtime + 10
    os.utime(pkg / "dep.py", (later, later))
    marked, unmarked = _run(tmp_path)
    assert marked == "2"
    # numba's own rule (the hazard depend_on removes): the caller's file did not change,
    # so its cache entry, with the old f compiled in, is still used
    assert unmarked == "1"
