"""simlib: a flow-level discrete-event simulator for partial model synchronization.

Units everywhere: time in seconds (s), data volume in bits, rates and
capacities in bits per second (bit/s).  Papers quote MB and Gbps; the helpers
``units.MB`` (= 8e6 bits, decimal megabytes) and ``units.Gbps`` (= 1e9 bit/s)
convert at the boundary, and parameters given in other units say so in their
name (``model_mb``, ``duration_s``, ``bandwidth_gbps``).

The objects a researcher needs are importable from here (``simlib.Scenario``,
``simlib.run_sweep``, ...; see :data:`__all__`): the shared ones listed here, each
paper's its ``Paper.exports``.  They are imported on first use (PEP 562 module
``__getattr__``), so ``import simlib`` stays fast and a script pays only for the
parts it touches.

Each paper's scenario (a frozen dataclass: every parameter declared once with
its default, range and unit; ``Scenario.describe()`` lists them) and its trial
function ``trial(params: scenario | dict, seed) -> dict`` (one run, flat metrics, times in
seconds; it names its scenario class, ``@trial_of``, so a sweep builds each dict setting once):

* 000 selective reduce / 002 partial reduce -- :class:`Scenario`,
  :func:`simulate` (-> schedule log), :func:`run_trial` (-> ``avg_sync_time_s``,
  ``avg_sync_scale``, ``total_sync``, ``total_iteration``, ``wasted_wait_s_per_worker``, ...);
* 003 FMReduce -- :class:`FMReduceScenario`, :func:`fmreduce_trial`;
* 004 SelMcast -- :class:`BSPScenario`, :func:`bsp_trial` (one BSP round, every
  scheme); :class:`SSPScenario`, :func:`ssp_trial` (one SSP run);
* :data:`PAPERS`, :data:`SCHEMES` -- each paper's contract, each scheme's label,
  colour and marker.

Sweeps: :func:`expand_grid` (a grid of settings), :func:`run_sweep` (settings x
trials -> a tidy DataFrame; serial, processes or Dask, chosen by an :class:`Executor`; a
:class:`ProcessPool` keeps the local processes for the next sweep;
optional per-trial cache; a trial of your own declared ``@trial_of(YourScenario)`` gets each dict
setting built once, before anything runs), :func:`run_scenarios` (a grid of :class:`Scenario` runs, cached in the
user's cache and written as CSV to a run folder, see :mod:`simlib.core.paths`).
The claims ledger: :func:`load_ledger`, :func:`summarize_ledger`.
A notebook's run: ``run = simlib.start(Spec, globals(), notebook="30_fmreduce_fig2")`` checks
its parameters once and returns a :class:`Run` (its notebook, profile, seed, trials, folders;
``run.sweep``, ``run.save_figure``, ``run.record``).
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: Public name -> (module, attribute) of the shared objects; each paper's own (its scenarios and trials)
#: are its ``Paper.exports`` (:func:`simlib.papers.registry.exports`).  Resolved on first access (see
#: :func:`__getattr__`).
_EXPORTS = {
    # any run's timeline (Chrome trace-event JSON for Perfetto / chrome://tracing)
    "record_timeline": ("simlib.runtime.timeline", "record_timeline"),
    # every paper's contract and scheme
    "PAPERS": ("simlib.papers.registry", "PAPERS"),
    "SCHEMES": ("simlib.papers.registry", "SCHEMES"),
    # sweeps
    "expand_grid": ("simlib.pipeline.sweep", "expand_grid"),
    "run_sweep": ("simlib.pipeline.sweep", "run_sweep"),
    "Executor": ("simlib.pipeline.sweep", "Executor"),
    "ProcessPool": ("simlib.pipeline.sweep", "ProcessPool"),
    "run_scenarios": ("simlib.pipeline.runs", "run_scenarios"),
    "trial_of": ("simlib.papers.trial", "trial_of"),
    # a notebook's run: parameters checked once, folders, sweeps, figures and ledger rows
    "start": ("simlib.pipeline.run", "start"),
    "Run": ("simlib.pipeline.run", "Run"),
    # the claims ledger
    "load_ledger": ("simlib.pipeline.claims", "load_ledger"),
    "summarize_ledger": ("simlib.pipeline.claims", "summarize_ledger"),
}

# An installed package keeps numba's compiled kernels in the user's cache, not in site-packages
# (decision S15); must run before any simlib module imports numba.
importlib.import_module("simlib.core.paths").configure_numba_cache()


def _exports() -> dict[str, tuple[str, str]]:
    """Every public name -> (module, attribute): the papers' (:func:`simlib.papers.registry.exports`,
    which imports the papers' contracts) after the shared :data:`_EXPORTS`."""
    papers = importlib.import_module("simlib.papers.registry").exports()
    clash = {n for n in set(papers) & set(_EXPORTS) if papers[n] != _EXPORTS[n]}
    if clash:
        raise ValueError(f"a paper exports a shared name: {sorted(clash)}")
    return {**_EXPORTS, **papers}


def __getattr__(name: str):
    """Import ``simlib.<name>`` from its module on first access (PEP 562) and keep it; ``__all__``
    (``"__version__"`` and every exported name) is built on first access too, so ``import simlib``
    does not import the papers."""
    if name == "__all__":
        value = ["__version__", *_exports()]
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name][0]), _EXPORTS[name][1])
    elif name.startswith("__") or name not in (exported := _exports()):
        raise AttributeError(f"module 'simlib' has no attribute {name!r}")
    else:
        value = getattr(importlib.import_module(exported[name][0]), exported[name][1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_exports()))
