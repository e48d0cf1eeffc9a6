"""The order pytest-xdist hands tests out under `make test` (`--longest-first`, tests/conftest.py): the longest
work first, a module at a time except its long tests, so that a module's fixtures are set up on one worker."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parents[1]


def test_the_longest_unit_goes_first_and_a_module_goes_as_one_unless_its_test_is_listed():
    ids = ["a.py::t1", "a.py::t2", "b.py::t1", "b.py::t2", "c.py::t", "d.py::t1", "d.py::t2"]
    # listed: a.py::t2 alone (5 s), b.py as a module (4 s), c.py::t (10 s); d.py unlisted: 2 x 0.1 s; a.py's
    # rest (t1) is a unit of its own module, unlisted: 0.1 s, collected before d.py
    durations = {"c.py::t": 10.0, "a.py::t2": 5.0, "b.py": 4.0}
    assert [conftest.unit_of(n, durations) for n in ids] == ["a.py", "a.py::t2", "b.py", "b.py", "c.py::t", "d.py",
                                                             "d.py"]
    assert conftest.longest_first(ids, durations) == ["c.py::t", "a.py::t2", "b.py::t1", "b.py::t2", "d.py::t1",
                                                      "d.py::t2", "a.py::t1"]
    # nothing measured: whole modules, by their number of tests, ties in collection order
    assert conftest.longest_first(ids, {}) == ["a.py::t1", "a.py::t2", "b.py::t1", "b.py::t2", "d.py::t1", "d.py::t2",
                                               "c.py::t"]


def test_measured_durations_keep_long_tests_apart_unless_they_share_a_module_fixture():
    measured = {"a.py::long": (12.34, False), "a.py::short": (0.4, False), "a.py::other": (0.7, False),
                "b.py::long": (30.0, True), "b.py::t": (0.2, True), "c.py::t": (0.3, False)}
    assert conftest.measured_durations(measured) == {"b.py": 30.2, "a.py::long": 12.3, "a.py": 1.1}


MODULE = """import os, pytest

@pytest.fixture(autouse=True)
def log(request):
    with open("order.txt", "a") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"] + " " + request.node.nodeid + "\\n")

@pytest.fixture(scope="module")
def shared():
    with open("setups.txt", "a") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")

@pytest.mark.parametrize("i", range(6))
def test_uses(shared, i):
    pass

@pytest.mark.parametrize("i", range(6))
def test_alone(i):
    pass
"""


@pytest.mark.slow      # a nested `pytest -n 2` run (2.3 CPU-s, 2026-11-29); the ordering functions are tested above
def test_under_two_workers_a_module_fixture_is_set_up_once_and_the_longest_test_starts_first(tmp_path):
    """The scheduler takes the conftest's units: test_mod.py's module fixture once (the module minus the listed
    test is one unit), and the listed test, the longest unit, is the first test a worker runs."""
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path)
    (tmp_path / "test_mod.py").write_text(MODULE)
    (tmp_path / "durations.json").write_text(json.dumps({"test_mod.py::test_alone[4]": 50.0}))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--longest-first",
                    "test_mod.py"], cwd=tmp_path, check=True, capture_output=True, env=env)
    assert len((tmp_path / "setups.txt").read_text().split()) == 1
    order = [line.split() for line in (tmp_path / "order.txt").read_text().splitlines()]
    firsts = {w: n for w, n in reversed(order)}
    assert "test_mod.py::test_alone[4]" in firsts.values() and len(order) == 12
