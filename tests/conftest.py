"""Test-wide Hypothesis settings.

No per-example deadline anywhere (the machine is shared and numba compiles on
first use). Under CI (``CI`` set) examples are derandomized so a red CI run is
reproducible; locally they stay random to keep exploring.

Profile ``fast`` (``pytest --hypothesis-profile fast``, what ``make test-fast``
selects) runs at most ``FAST_MAX_EXAMPLES`` examples per property, also for the
tests whose own ``@settings`` ask for more: a quick pass while developing, not a
replacement for the full run (``make test``), which keeps every test's own count.

``--longest-first`` (what ``make test`` passes with ``-n 2``) hands the longest work out first, so the
pytest-xdist workers finish together: see :func:`longest_first` and :func:`pytest_xdist_make_scheduler`.
"""
import json
import os
from pathlib import Path

import pytest
from hypothesis import settings

#: Examples per Hypothesis test under the ``fast`` profile (an upper bound: a test asking fewer keeps its own).
FAST_MAX_EXAMPLES = 10

_CI = bool(os.environ.get("CI"))
settings.register_profile("local", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.register_profile("fast", deadline=None, derandomize=_CI, max_examples=FAST_MAX_EXAMPLES)
settings.load_profile("ci" if _CI else "local")


def capped(test_settings: settings, limit: int) -> settings:
    """`test_settings` with `max_examples` lowered to at most `limit` (other fields kept)."""
    if test_settings.max_examples <= limit:
        return test_settings
    return settings(test_settings, max_examples=limit)


# ------------------------------------------------------------------------ longest first under pytest-xdist
#: Measured seconds: ``{node id: s}`` for a test of 1 s or more that may run apart from its module, and
#: ``{module path: s}`` for the rest of a module (``pytest --write-durations`` writes it; tests/README.md).
DURATIONS = Path(__file__).with_name("durations.json")
#: Seconds assumed per test of a module the table does not list.
UNLISTED_S = 0.1
_MODULE_FIXTURE = "module_fixture"     # a user property: the test shares a module- or class-scoped fixture
_MEASURED: dict = {}


def pytest_addoption(parser):
    parser.addoption("--longest-first", action="store_true",
                     help="with -n: hand out the work longest first (tests/durations.json), a module at a time "
                          "except its long tests, which go alone (tests/conftest.py)")
    parser.addoption("--write-durations", action="store_true",
                     help=f"replace tests/{DURATIONS.name} with this run's times (what --longest-first reads; "
                          "run the whole suite)")


def read_durations(path: Path = DURATIONS) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def unit_of(nodeid: str, durations: dict) -> str:
    """The unit of work ``nodeid`` goes out in: alone if ``durations`` lists it, else with its module (so a
    module's fixtures are set up once, on one worker)."""
    return nodeid if nodeid in durations else nodeid.split("::")[0]


def longest_first(nodeids, durations: dict) -> list:
    """``nodeids`` grouped in units (:func:`unit_of`), the longest unit first (the greedy longest-processing-time
    rule: each worker takes the next unit as it runs dry, so the long ones start early and the short ones fill
    the ends); a unit's seconds from ``durations`` (a module not listed: :data:`UNLISTED_S` per test).  Units of
    equal length keep the collection order, and the tests of a unit keep theirs."""
    units = {}
    for n in nodeids:
        units.setdefault(unit_of(n, durations), []).append(n)
    seconds = {u: durations.get(u, UNLISTED_S * len(ns)) for u, ns in units.items()}
    return [n for u in sorted(units, key=lambda u: -seconds[u]) for n in units[u]]


@pytest.hookimpl(optionalhook=True)       # a hook of pytest-xdist: no error when it is not loaded
def pytest_xdist_make_scheduler(config, log):
    """``--longest-first``: pytest-xdist's scope scheduling with the units of :func:`unit_of`, in the order
    the workers collected them (:func:`pytest_collection_modifyitems` puts them longest first)."""
    if not config.getoption("longest_first"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    durations = read_durations()

    class LongestFirst(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return unit_of(nodeid, durations)

    config.option.loadscopereorder = False     # keep the collected order (longest first), not units by size
    return LongestFirst(config, log)


def _shares_a_module_fixture(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(d and d[-1].scope in ("module", "class", "package")
                                    for d in info.name2fixturedefs.values())


def pytest_runtest_logreport(report):
    """Add up each test's seconds (setup, call, teardown) for ``--write-durations`` (under pytest-xdist the
    controller receives every worker's reports)."""
    seconds, _ = _MEASURED.get(report.nodeid, (0.0, False))
    _MEASURED[report.nodeid] = (seconds + report.duration, bool(dict(report.user_properties).get(_MODULE_FIXTURE)))


def measured_durations(measured: dict) -> dict:
    """``{node id: (seconds, shares a module fixture)}`` as :data:`DURATIONS` keeps it: a test of 1 s or more
    that shares no module fixture under its node id, every other test's seconds added to its module's;
    entries of 1 s or more, longest first."""
    out = {}
    for nodeid, (seconds, shared) in measured.items():
        key = nodeid if seconds >= 1.0 and not shared else nodeid.split("::")[0]
        out[key] = out.get(key, 0.0) + seconds
    return {k: round(v, 1) for k, v in sorted(out.items(), key=lambda kv: -kv[1]) if v >= 1.0}


def pytest_sessionfinish(session):
    if session.config.getoption("write_durations", False) and not hasattr(session.config, "workerinput"):
        DURATIONS.write_text(json.dumps(measured_durations(_MEASURED), indent=0) + "\n", encoding="utf-8")


def pytest_collection_modifyitems(config, items):
    """``--longest-first``: the items longest first (:func:`longest_first`); ``--write-durations``: mark the tests
    that share a module fixture, so their time counts with their module's.  Under the ``fast`` profile, cap
    each Hypothesis test's own ``max_examples`` (Hypothesis reads the settings stored on the wrapped test when
    it runs, so an explicit ``@settings`` would win)."""
    if config.getoption("longest_first", False):
        rank = {n: r for r, n in enumerate(longest_first([i.nodeid for i in items], read_durations()))}
        items.sort(key=lambda i: rank[i.nodeid])
    if config.getoption("write_durations", False):
        for item in items:
            if _shares_a_module_fixture(item):
                item.user_properties.append((_MODULE_FIXTURE, True))
    if settings.get_current_profile_name() != "fast":
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and getattr(test, "is_hypothesis_test", False):
            test._hypothesis_internal_use_settings = capped(own, FAST_MAX_EXAMPLES)


# what a subprocess run under NUMBA_NRT_STATS prints: per case, the arrays and meminfos still alive after it
_NRT_ALIVE = """
import gc, json
from numba.core.runtime import rtsys
{setup}
out = []
for kw in {cases!r}:
    run(kw)
    gc.collect()
    s = rtsys.get_allocation_stats()
    out.append([s.alloc - s.free, s.mi_alloc - s.mi_free])
print(json.dumps(out))
"""


@pytest.fixture
def nrt_alive():
    """``nrt_alive(setup, cases)``: in a fresh process with numba's allocation statistics on, ``setup`` (source
    defining ``run(kw)``) then ``run(kw)`` for each dict of ``cases``; returns per case ``[arrays, meminfos]``
    still alive after it (the leak tests of code compiled without reference counts: all zero when balanced)."""
    import subprocess
    import sys

    def alive(setup: str, cases: list) -> list:
        env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=str(Path(__file__).resolve().parents[1]))
        code = _NRT_ALIVE.format(setup=setup, cases=cases)
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return json.loads(res.stdout.strip().splitlines()[-1])
    return alive
