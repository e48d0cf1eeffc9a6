"""The Makefile registers the `simlib` kernel for the checkout it runs in: again after the checkout
moved or was copied (the kernelspec's PYTHONPATH names the checkout), not on every call."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KERNEL_JSON = "v/share/jupyter/kernels/simlib/kernel.json"

#: Stands in for the venv's python: logs its arguments; `-m ipykernel install` writes the kernelspec.
FAKE_PYTHON = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/../calls.log"
case "$*" in *"ipykernel install"*)
  d="$(dirname "$0")/../share/jupyter/kernels/simlib"; mkdir -p "$d"; echo '{}' > "$d/kernel.json";; esac
"""


def _checkout(folder: Path) -> Path:
    folder.mkdir()
    shutil.copy(ROOT / "Makefile", folder)
    (folder / "requirements.txt").write_text("")
    python = folder / "v" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    stamp = folder / "v" / ".installed"        # installed (in the past) after requirements.txt: no pip run
    stamp.touch()
    now = os.path.getmtime(stamp)
    os.utime(folder / "requirements.txt", (now - 100,) * 2)
    for path in (python, stamp):
        os.utime(path, (now - 50,) * 2)
    return folder


def _registrations(folder: Path) -> list[str]:
    log = folder / "v" / "calls.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [line.split("--env PYTHONPATH ")[1] for line in lines if "ipykernel install" in line]


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
def test_kernel_is_registered_again_when_the_checkout_moves(tmp_path):
    a = _checkout(tmp_path / "a")
    make = ["make", "-s", "VENV=v", KERNEL_JSON]
    subprocess.run(make, cwd=a, check=True)
    subprocess.run(make, cwd=a, check=True)                       # same place: nothing to do
    assert _registrations(a) == [str(a)]
    b = tmp_path / "b"
    shutil.copytree(a, b, symlinks=True)                           # copy (mtimes kept) ...
    shutil.rmtree(a)                                               # ... and the original gone: moved
    subprocess.run(make, cwd=b, check=True)
    assert _registrations(b) == [str(a), str(b)]
    assert (b / "v" / ".kernel-checkout").read_text().strip() == str(b)
    subprocess.run(make, cwd=b, check=True)
    assert _registrations(b) == [str(a), str(b)]


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
@pytest.mark.parametrize("profile, locked", [("full", True), ("quick", False)])
def test_a_full_reproduction_writes_requirements_lock_from_pip_freeze(tmp_path, profile, locked):
    a = _checkout(tmp_path / "a")
    subprocess.run(["make", "-s", "VENV=v", f"PROFILE={profile}", "reproduce"], cwd=a, check=True,
                   env={**os.environ, "MAKEFLAGS": ""})
    calls = (a / "v" / "calls.log").read_text().splitlines()
    assert any(c.startswith("-m simlib.pipeline.notebooks --profile " + profile) for c in calls)
    assert ("-m pip freeze --disable-pip-version-check --exclude-editable" in calls) == locked
    assert any("n.LOCK_PREFIX + n.numerics_identity()" in c for c in calls) == locked     # S43: the kernels too
    assert (a / "requirements.lock").is_file() == locked
    if locked:
        assert (a / "requirements.lock").read_text().startswith("# pip freeze of the environment of the last full")


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
def test_test_fast_runs_pytest_without_the_slow_tiers_and_with_the_fast_profile(tmp_path):
    a = _checkout(tmp_path / "a")
    for target in ("test", "test-fast"):
        subprocess.run(["make", "-s", "VENV=v", target], cwd=a, check=True, env={**os.environ, "MAKEFLAGS": ""})
    runs = [c for c in (a / "v" / "calls.log").read_text().splitlines() if c.startswith("-m pytest")]
    flags = "-m pytest -n 2 --longest-first"        # the longest work first across the workers (tests/conftest.py)
    assert runs == [flags, flags + " -m not notebooks and not simgrid and not slow --hypothesis-profile fast"]


PROPERTY = """from hypothesis import given, settings, strategies as st

@settings(max_examples=300, database=None)
@given(st.integers())
def test_many(x):
    with open("examples.txt", "a") as f:
        f.write("x")
"""


@pytest.mark.parametrize("profile, examples", [(None, 300), ("fast", 10)])
def test_the_fast_profile_caps_a_tests_own_max_examples(tmp_path, profile, examples):
    """`--hypothesis-profile fast` (what `make test-fast` passes) runs at most 10 examples, also for a test
    whose own @settings ask for 300; without it the test's own count stands."""
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path)
    (tmp_path / "test_property.py").write_text(PROPERTY)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "test_property.py"]
    subprocess.run(cmd + (["--hypothesis-profile", profile] if profile else []), cwd=tmp_path, check=True,
                   capture_output=True, env={k: v for k, v in os.environ.items() if k != "CI"})
    assert len((tmp_path / "examples.txt").read_text()) == examples


#: Stands in for a new venv's python while `make venv` installs: logs its arguments; fails (status 1) on the
#: call whose arguments contain the text in ../fail, if that file exists.
INSTALLING_PYTHON = FAKE_PYTHON + """f="$(dirname "$0")/../fail"
if [ -f "$f" ]; then case "$*" in *"$(cat "$f")"*) exit 1;; esac; fi
"""


def _stale(folder: Path, requirements: str) -> Path:
    """A checkout whose venv exists (a python) but was never installed: no stamp."""
    folder.mkdir()
    shutil.copy(ROOT / "Makefile", folder)
    (folder / "requirements.txt").write_text(requirements)
    python = folder / "v" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(INSTALLING_PYTHON)
    python.chmod(0o755)
    return folder


def _make_venv(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", "VENV=v", "venv"], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "MAKEFLAGS": ""})


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
def test_make_venv_installs_the_pinned_pip_first_then_the_rest_uncompiled_then_compiles_on_every_core(tmp_path):
    """Decision S42: the pip that requirements.txt pins, then requirements.txt with --no-compile, then one
    compileall of site-packages with a worker per core; only then the stamp and the kernel."""
    a = _stale(tmp_path / "a", "# tools\npip==26.3  # the installer\nnumpy==2.4.6\n")
    assert _make_venv(a).returncode == 0
    calls = (a / "v" / "calls.log").read_text().splitlines()
    assert calls[0] == "-m pip install --disable-pip-version-check -q pip==26.3"
    assert calls[1] == "-m pip install --disable-pip-version-check -q --no-compile -r requirements.txt"
    assert calls[2].startswith("-c import compileall") and "get_path('purelib')" in calls[2]
    assert "workers=0" in calls[2] and "sys.exit(not " in calls[2]
    assert (a / "v" / ".installed").is_file() and "ipykernel install" in calls[3]
    n = len(calls)
    assert _make_venv(a).returncode == 0                      # installed: no pip run again
    assert not [c for c in (a / "v" / "calls.log").read_text().splitlines()[n:] if "pip install" in c]


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
def test_without_a_pip_pin_the_venvs_own_pip_installs(tmp_path):
    a = _stale(tmp_path / "a", "numpy==2.4.6\npipdeptree==2.0  # not pip itself\n")
    assert _make_venv(a).returncode == 0
    calls = (a / "v" / "calls.log").read_text().splitlines()
    assert calls[0] == "-m pip install --disable-pip-version-check -q --no-compile -r requirements.txt"


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
@pytest.mark.parametrize("failing", ["pip==26.3", "--no-compile", "compileall"])
def test_a_failed_install_step_stops_make_and_leaves_the_venv_uninstalled(tmp_path, failing):
    a = _stale(tmp_path / "a", "pip==26.3\nnumpy==2.4.6\n")
    (a / "v" / "fail").write_text(failing)
    done = _make_venv(a)
    assert done.returncode != 0 and ".installed" in done.stderr
    assert not (a / "v" / ".installed").exists()
    assert not [c for c in (a / "v" / "calls.log").read_text().splitlines() if "ipykernel install" in c]
    (a / "v" / "fail").unlink()                               # the next make installs again, all three steps
    assert _make_venv(a).returncode == 0 and (a / "v" / ".installed").is_file()
