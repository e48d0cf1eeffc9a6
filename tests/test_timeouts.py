"""A hanging test fails (pytest-timeout, configured in pyproject.toml) instead of stalling the suite.

A mutation that makes a completion tolerance too tight turns the simulator's event loop into
an endless loop of zero-length steps; before the per-test timeout the suite then hung forever.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HANGING = '''
def test_busy_loop_never_ends():
    t = 0.0
    while True:          # an event loop stuck at one time, in pure Python
        t += 0.0


def test_fine():
    assert True
'''


def test_a_hanging_test_fails_with_a_timeout_under_xdist(tmp_path):
    (tmp_path / "test_hang.py").write_text(HANGING)
    # the project's pytest configuration with only its per-test timeout shortened to 2 s ...
    config, found = re.subn(r"(?m)^timeout = [0-9.]+$", "timeout = 2", (ROOT / "pyproject.toml").read_text())
    assert found == 1, "pyproject.toml's [tool.pytest.ini_options] sets no per-test timeout"
    (tmp_path / "pyproject.toml").write_text(config)
    # ... run as `make test` runs it (pytest-xdist, two workers)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-q", "test_hang.py"]
    # without a working timeout the child would never end: the outer limit turns that into a failure
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "Timeout (>2.0s) from pytest-timeout" in out, out
    assert "crashed" not in out, out  # the signal method fails the test; the worker survives
