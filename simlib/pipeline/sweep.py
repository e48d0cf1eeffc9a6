"""Run a grid of (setting x trial) simulations into a tidy pandas DataFrame.

A *setting* is a dict of parameters (one point of the grid) or a scenario object
(a :class:`~simlib.papers.contract.ScenarioBase` instance, built and checked once by
the caller; its flat parameters are ``scenario.to_params()``); a *trial* is one
independent repetition of a setting with its own random numbers.  The user
supplies a module-level function::

    fn(params: dict | scenario, rng_seed: numpy.random.SeedSequence) -> dict[str, scalar]

which receives each setting as given (a dict's copy, or the scenario object itself: the
paper trials accept both, ``Scenario.of``).  A setting's columns in the frame are its flat
parameters, or the dict a caller names it by (``run_sweep(..., columns=...)``: a scenario
built from a dict keeps that dict's columns).

and :func:`run_sweep` calls it once per (setting, trial), serially, in a local
process pool or on a dask.distributed cluster, optionally caching every
finished trial on disk so that an interrupted sweep resumes where it stopped.

Seeds (see docs/decisions/sweeps.md): by default trial ``t`` of *every*
setting receives ``SeedSequence(seed, spawn_key=(t,))`` -- common random
numbers, so schemes compared on the same trial see the same random draws
(bandwidths, compute times).  ``paired=False`` additionally mixes a stable
sha256 hash of the setting into the entropy, giving every setting its own,
independent stream.

The result never depends on the executor, the number of workers or the order in
which trials complete: rows are sorted by (setting index, trial).
"""
from __future__ import annotations

import dataclasses
import hashlib
import inspect
import itertools
import json
import os
import pickle
import queue
import sys
import warnings
import weakref
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from simlib.core.jitcache import announce_compilation
from simlib.core.modclosure import imports_of as _imports_of
from simlib.core.modclosure import module_closure as _closure
from simlib.pipeline.numerics import numerics_identity
from simlib.core.validate import check_choice, check_int
from simlib.papers.contract import ParamError, ScenarioBase
from simlib.papers.trial import Trial
from simlib.pipeline.atomic import atomic_write_bytes

__all__ = [
    "expand_grid",
    "Executor",
    "ProcessPool",
    "run_sweep",
    "code_fingerprint",
    "module_closure",
    "module_fingerprint",
    "trial_seed",
    "setting_hash",
    "unique_settings",
]

EXECUTORS = ("serial", "processes", "dask")
#: Column holding the trial index in the result of :func:`run_sweep`.
TRIAL_COLUMN = "trial"
#: Environment variable consulted for the dask scheduler address.
DASK_ENV = "DASK_SCHEDULER_ADDRESS"
#: Version of the cache file layout, part of every cache key.  2: each file stores a
#: checksum of its contents (decision S14); format-1 files are never looked up again.
_CACHE_FORMAT = 2
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------
def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool (True or False), got {value!r}")
    return bool(value)


def _to_jsonable(obj):
    """``json.dumps`` hook: numpy scalars/arrays become plain Python values."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"value {obj!r} of type {type(obj).__name__} is not JSON-serializable")


def _canonical_json(obj, name: str) -> str:
    """Canonical JSON (sorted keys, no whitespace, NaN/inf rejected) of ``obj``."""
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=True, allow_nan=False, default=_to_jsonable)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be JSON-serializable with finite numbers "
                         f"(str, int, float, bool, None, lists, dicts): {exc}") from None


# --------------------------------------------------------------------------
# grid, seeds, fingerprint
# --------------------------------------------------------------------------
def expand_grid(**axes: Iterable) -> list[dict]:
    """Cartesian product of the named axes, as a list of setting dicts.

    ``expand_grid(scheme=["allreduce", "partial"], n=[4, 8])`` gives
    ``[{"scheme": "allreduce", "n": 4}, {"scheme": "allreduce", "n": 8},
    {"scheme": "partial", "n": 4}, {"scheme": "partial", "n": 8}]``: the order
    is stable, the first axis varies slowest (like :func:`itertools.product`)
    and the keys appear in the order the axes were given.  Every axis must be a
    non-empty list/tuple/range/1-D array of values (a bare string or scalar is
    rejected, wrap it in a list).
    """
    if not axes:
        raise ValueError("expand_grid needs at least one axis, e.g. expand_grid(n=[4, 8])")
    values = []
    for name, axis in axes.items():
        if isinstance(axis, (str, bytes, Mapping)) or not isinstance(axis, (Sequence, range, np.ndarray)):
            raise ValueError(f"axis {name} must be a list/tuple/range/array of values, "
                             f"got {type(axis).__name__} {axis!r}; wrap a single value in a list")
        items = [v.item() if isinstance(v, np.generic) else v for v in axis]
        if not items:
            raise ValueError(f"axis {name} must have at least 1 value, got 0")
        values.append(items)
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def unique_settings(*groups: Iterable[Mapping]) -> list[dict]:
    """Concatenate lists of settings, keeping the first of settings that are equal.

    Sweeps built from several ``expand_grid`` calls often share a point (the
    default of every axis); :func:`run_sweep` rejects duplicates, so run each
    once.  Settings are equal when they have the same keys and values (key
    order does not matter).  Order of first appearance is kept.
    """
    out, seen = [], set()
    for group in groups:
        if isinstance(group, Mapping):
            raise ValueError("unique_settings takes lists of settings, got a single dict; wrap it in a list")
        for s in group:
            if not isinstance(s, Mapping):
                raise ValueError(f"settings must be dicts, got {type(s).__name__}")
            key = _canonical_json(dict(s), "setting")
            if key not in seen:
                seen.add(key)
                out.append(dict(s))
    return out


def setting_hash(params: Mapping) -> int:
    """Stable 64-bit hash of a setting: first 8 bytes of sha256 of its canonical JSON.

    Unlike Python's ``hash()`` this is the same in every process and session.
    """
    if not isinstance(params, Mapping):
        raise ValueError(f"params must be a dict, got {type(params).__name__}")
    digest = hashlib.sha256(_canonical_json(dict(params), "params").encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big")


def trial_seed(seed: int, trial: int, params: Mapping | None = None,
               paired: bool = True) -> np.random.SeedSequence:
    """The SeedSequence :func:`run_sweep` passes to ``fn`` for one (setting, trial).

    ``paired=True`` (common random numbers): ``SeedSequence(seed, spawn_key=(trial,))``,
    the same for every setting.  ``paired=False``:
    ``SeedSequence([seed, setting_hash(params)], spawn_key=(trial,))``.
    """
    seed = check_int("seed", seed, lo=0)
    trial = check_int("trial", trial, lo=0)
    paired = _check_bool("paired", paired)
    if paired:
        return np.random.SeedSequence(seed, spawn_key=(trial,))
    if params is None:
        raise ValueError("params must be given when paired is False")
    return np.random.SeedSequence([seed, setting_hash(params)], spawn_key=(trial,))


def _hash_files(root: Path, files) -> str:
    """sha256 (hex) over ``files`` (paths below ``root``), sorted by relative path; each file
    contributes its relative POSIX path and its bytes (length-prefixed), so renames count too."""
    h = hashlib.sha256()
    for rel, path in sorted((p.relative_to(root).as_posix(), p) for p in files):
        data = path.read_bytes()
        rel_b = rel.encode("utf-8")
        h.update(len(rel_b).to_bytes(8, "big") + rel_b)
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def code_fingerprint(root=None) -> str:
    """sha256 (hex) over every ``*.py`` file below ``root`` (default: the simlib package)."""
    if root is None:
        root = _PACKAGE_DIR
    if not isinstance(root, (str, os.PathLike)):
        raise ValueError(f"root must be None, a str or os.PathLike, got {root!r}")
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"root must be an existing directory, got {str(root)!r}")
    return _hash_files(root, [p for p in root.rglob("*.py") if p.is_file()])


def module_closure(module: str, root=None) -> list[Path]:
    """Source files of ``module`` and of every module of the package at ``root`` (default
    simlib) it imports, transitively (static analysis of import statements;
    :func:`simlib.core.modclosure.module_closure`)."""
    return _closure(module, Path(root) if root is not None else _PACKAGE_DIR)


def module_fingerprint(module: str, root=None) -> str:
    """sha256 (hex) of the code ``module`` runs: its :func:`module_closure`."""
    root = Path(root) if root is not None else _PACKAGE_DIR
    return _hash_files(root, module_closure(module, root))


def _fn_identity(fn) -> str:
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if not module or not qualname or "<lambda>" in qualname or "<locals>" in qualname:
        raise ValueError("fn must be a named module-level function when cache_dir is given "
                         f"(needed for a stable cache key), got {fn!r}")
    return f"{module}:{qualname}"


def cache_folder(fn) -> str:
    """Folder name for ``fn``'s trial cache: ``module.qualname`` (a named module-level function)."""
    return _fn_identity(fn).replace(":", ".")


def _sweep_fingerprint(fn) -> str:
    """The code a trial of ``fn`` runs: for a function in simlib, its module's
    :func:`module_fingerprint` (so editing another paper's code keeps this sweep's cache);
    for a function elsewhere, its module's (or notebook cell's) source plus the simlib
    modules that module imports."""
    module_name = getattr(fn, "__module__", "") or ""
    if module_name.split(".")[0] == _PACKAGE_DIR.name:
        return module_fingerprint(module_name)
    module = sys.modules.get(module_name)
    src_file = getattr(module, "__file__", None) if module is not None else None
    h = hashlib.sha256()
    if src_file and Path(src_file).suffix == ".py" and Path(src_file).is_file():
        path = Path(src_file).resolve()
        h.update(b"module:" + path.read_bytes())
        deps = _imports_of(path, "__outside__", _PACKAGE_DIR)
    else:
        try:  # e.g. a function defined in a notebook cell (IPython keeps its source)
            src = inspect.getsource(fn)
        except (OSError, TypeError):
            raise ValueError("cannot fingerprint the source code of fn (its module has no .py file "
                             "and inspect.getsource fails); define fn in a .py module or pass "
                             "cache_dir=None") from None
        h.update(b"source:" + src.encode("utf-8"))
        deps = None
    if deps is None:   # a notebook cell: its imports are elsewhere, so cover all of simlib
        h.update(code_fingerprint().encode("ascii"))
    else:
        for name in sorted(deps):
            h.update(module_fingerprint(name).encode("ascii"))
    return h.hexdigest()


# --------------------------------------------------------------------------
# running one trial (executed in workers: must stay module-level/picklable)
# --------------------------------------------------------------------------
#: Metric values :func:`_clean_metrics` keeps unchanged without its (abstract-class) checks: exact types only.
_PLAIN_METRIC_TYPES = frozenset((float, int, bool, str, type(None)))


def _clean_metrics(out) -> dict:
    """Validate fn's return value and convert numpy scalars to plain Python scalars."""
    if not isinstance(out, Mapping):
        raise ValueError(f"fn must return a dict of metric name -> scalar, got {type(out).__name__}")
    clean = {}
    for key, value in out.items():
        if not isinstance(key, str) or not key:
            raise ValueError(f"fn must return non-empty str metric names, got key {key!r}")
        if type(value) in _PLAIN_METRIC_TYPES:   # already plain: the checks below would keep it as it is
            clean[key] = value
            continue
        if isinstance(value, np.generic):
            value = value.item()
        if value is not None and not isinstance(value, (bool, Integral, Real, str)):
            raise ValueError(f"metric {key} must be a scalar (int, float, bool, str or None), "
                             f"got {type(value).__name__}")
        if isinstance(value, Integral) and not isinstance(value, bool):
            value = int(value)
        elif isinstance(value, Real) and not isinstance(value, (bool, Integral)):
            value = float(value)
        clean[key] = value
    return clean


@dataclasses.dataclass(frozen=True)
class _Group:
    """The settings of one task that runs them together at one seed (``fn.together.run``, decision S39)."""
    settings: tuple


def _run_trial(fn, params, seed_seq: np.random.SeedSequence) -> dict | list[dict]:
    """``fn`` on a copy of a dict setting, or on a scenario setting itself (frozen: nothing to copy); for a
    :class:`_Group`, ``fn.together.run`` on its settings (copied alike): one metrics dict per setting."""
    def given(p):
        return p if isinstance(p, ScenarioBase) else dict(p)

    if isinstance(params, _Group):
        outs = fn.together.run([given(p) for p in params.settings], seed_seq)
        if not isinstance(outs, Sequence) or len(outs) != len(params.settings):
            raise ValueError(f"{fn!r}'s together.run must return one metrics dict per setting "
                             f"({len(params.settings)}), got {type(outs).__name__}")
        return [_clean_metrics(o) for o in outs]
    return _clean_metrics(fn(given(params), seed_seq))


def _together(fn, tasks, keys, paired: bool) -> list:
    """``tasks`` with those of one trial index whose settings ``fn.together.key`` gives one str bundled into one
    task ``((task indices), (_Group(settings), seed))`` in the order of their first task (decision S39); as
    given unless ``fn`` is a :class:`~simlib.papers.trial.Trial` with a ``together`` rule and trials are paired
    (only then do the settings of one trial index have one seed)."""
    rule = getattr(fn, "together", None) if isinstance(fn, Trial) else None
    if rule is None or not paired:
        return tasks
    bundles: dict = {}
    for k, (params, ss) in tasks:
        share = rule.key(params)
        bundles.setdefault(k if share is None else (keys[k][1], share), []).append((k, params, ss))
    out = []
    for members in bundles.values():
        if len(members) == 1:
            k, params, ss = members[0]
            out.append((k, (params, ss)))
        else:
            out.append((tuple(m[0] for m in members), (_Group(tuple(m[1] for m in members)), members[0][2])))
    return out


# --------------------------------------------------------------------------
# cache
# --------------------------------------------------------------------------
def _key_params(fn, setting, canon_json: str, paired: bool) -> str:
    """The setting as the cache key sees it: ``fn.cache_params(setting)`` when ``fn`` is a
    :class:`~simlib.papers.trial.Trial` and trials are paired (every default filled in, so two settings
    that spell one trial differently -- ``{"p": 0.3}`` and ``{}`` with default p = 0.3, or the scenario
    object -- share one cached result; their seeds are equal because paired seeds ignore the setting),
    else the setting's flat parameters ``canon_json`` (a dict as given, a scenario's ``to_params()``:
    a scenario and its equal dict share one entry)."""
    if not isinstance(fn, Trial) or not paired:
        return canon_json
    given = setting if isinstance(setting, ScenarioBase) else dict(setting)
    return _canonical_json(fn.cache_params(given), "fn.cache_params(setting)")


def _cache_material(fn_id, params_json, trial, seed, paired, fingerprint) -> dict:
    return {"format": _CACHE_FORMAT, "fn": fn_id, "params": json.loads(params_json),
            "trial": trial, "seed": seed, "paired": paired, "code": fingerprint}


def _cache_key(material: dict) -> str:
    return hashlib.sha256(_canonical_json(material, "cache key").encode("ascii")).hexdigest()


def _checksum(material: dict, metrics: dict) -> str:
    """sha256 (hex) of the canonical JSON of a cache entry's key material and metrics
    (sorted keys, NaN/inf as the JSON extensions, which the cache stores)."""
    payload = json.dumps({"key": material, "metrics": metrics}, sort_keys=True, separators=(",", ":"),
                         ensure_ascii=True, allow_nan=True)
    return hashlib.sha256(payload.encode("ascii")).hexdigest()


def _load_cached(path: Path, material: dict):
    """Metrics stored in ``path``, or None if absent; warns and returns None if unusable
    (not JSON, wrong shape, other key material, or a checksum that does not match: S4, S14)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        record = json.loads(text)
        if not isinstance(record, dict) or not isinstance(record.get("metrics"), dict):
            raise ValueError("no metrics object")
        stored = {k: v for k, v in record.items() if k not in ("metrics", "checksum")}
        if _canonical_json(stored, "cache record") != _canonical_json(material, "cache key"):
            raise ValueError("key material does not match")
        if "checksum" not in record:
            raise ValueError("no checksum")
        if record["checksum"] != _checksum(stored, record["metrics"]):
            raise ValueError("checksum does not match the contents (edited?)")
        return _clean_metrics(record["metrics"])
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        warnings.warn(f"ignoring corrupt sweep cache file {path} ({exc}); recomputing",
                      RuntimeWarning, stacklevel=3)
        return None


def _store_cached(path: Path, material: dict, metrics: dict) -> None:
    record = dict(material)
    record["metrics"] = metrics  # insertion order kept: columns come out the same
    record["checksum"] = _checksum(material, metrics)
    data = json.dumps(record, allow_nan=True, separators=(",", ":")).encode("utf-8")
    atomic_write_bytes(path, data)


# --------------------------------------------------------------------------
# executors: each yields (task index, metrics) in completion order
# --------------------------------------------------------------------------
def _iter_serial(fn, tasks, failed):
    with announce_compilation():     # in this process: say so when the first trials compile numba kernels
        for idx, (params, ss) in tasks:
            try:
                out = _run_trial(fn, params, ss)
            except Exception as exc:
                failed(exc, idx)
                raise
            yield idx, out


#: Seconds between a pool worker's checks that the process that started it is still alive.
PARENT_CHECK_S = 1.0


def _pool_worker_init(parent_pid: int) -> None:
    """Run once in every worker of a :class:`ProcessPool`: ignore SIGINT (a Ctrl-C reaches the sweep's
    process, which stops the workers itself; an idle worker would otherwise die with a traceback) and
    exit when the process that started it is gone (a notebook kernel killed rather than shut down
    leaves no idle workers behind)."""
    import signal
    import threading
    import time

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent_pid:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="simlib-parent-watch", daemon=True).start()


def _environment() -> tuple:
    """What a worker inherits when it starts and would not see change later: the environment
    variables, ``sys.path`` and the working folder."""
    return tuple(sorted(os.environ.items())), tuple(sys.path), os.getcwd()


def _stop_executor(box: list, kill: bool) -> None:
    """Shut down the executor held in ``box[0]`` (if any) and empty the box; ``kill``: terminate
    its workers first (trials still running are abandoned)."""
    ex = box[0]
    box[:] = [None, None]
    if ex is None:
        return
    if kill:
        for proc in list((getattr(ex, "_processes", None) or {}).values()):
            if proc.is_alive():
                proc.terminate()
    ex.shutdown(wait=True, cancel_futures=True)


class ProcessPool:
    """Local worker processes that serve many sweeps (decision S34).

    A sweep on ``Executor("processes")`` alone starts its own processes and stops them when it ends;
    each new worker then pays again for what the previous sweep's workers had already done (0.6-0.9 s
    of CPU per worker for the notebooks' engines, ``benchmarks/bench_sweep_pool.py``: the fork, then the
    trial's first call loads its compiled numba kernels from the disk cache).  A ``ProcessPool`` passed as ``Executor("processes", pool=pool)`` keeps its ``workers``
    processes (default ``os.cpu_count()``) between sweeps: the first sweep that runs a trial starts
    them, later sweeps reuse them with whatever they have loaded, and :meth:`close` (or leaving a
    ``with`` block, or the pool's garbage collection, or the interpreter's exit) stops them.  A
    notebook's :class:`~simlib.pipeline.run.Run` owns one for all its sweeps.

    Results do not depend on it: a trial's values depend only on its setting and seed (a worker of a
    one-sweep pool already runs many trials in turn); what a worker keeps between trials is bounded
    (compiled kernels, the traces it read, at most 128 MiB of bandwidth draws,
    :mod:`simlib.workloads.bandwidth`), so the workers are not recycled.  The workers start anew --
    the next sweep pays the start again -- when the environment variables, ``sys.path`` or the
    working folder of this process changed since they started (a forked worker would not see the
    change), after a sweep stopped by an error or an interrupt while trials were still running (those
    are terminated: nothing computes for a sweep that is over; finished trials are cached), and when
    a worker died.  A trial function of ``__main__`` (defined in a notebook cell) runs in a pool of
    its own sweep, as without a ``ProcessPool``: workers started before the cell would not know it.
    """

    def __init__(self, workers: int | None = None):
        if workers is not None:
            workers = check_int("workers", workers, lo=1)
        self.workers = workers or os.cpu_count() or 1
        self.starts = 0                   # how many times workers were started
        self._box = [None, None]          # the ProcessPoolExecutor, the _environment() it started in
        self._finalizer = weakref.finalize(self, _stop_executor, self._box, False)

    def __repr__(self) -> str:
        return f"ProcessPool(workers={self.workers}, {'running' if self._box[0] is not None else 'idle'})"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def pids(self) -> list[int]:
        """Process ids of the running workers, sorted (``[]`` before the first sweep and after :meth:`close`)."""
        ex = self._box[0]
        return sorted((getattr(ex, "_processes", None) or {}) if ex is not None else ())

    def close(self) -> None:
        """Stop the workers (they finish no trial: none runs between sweeps) and wait for them; a later
        sweep starts them again."""
        _stop_executor(self._box, kill=False)

    def executor(self):
        """The :class:`concurrent.futures.ProcessPoolExecutor` a sweep submits to: the running one, or a
        new one if none runs, a worker died, or the environment changed since it started."""
        from concurrent.futures import ProcessPoolExecutor

        env = _environment()
        ex, started_in = self._box
        if ex is not None and (started_in != env or getattr(ex, "_broken", False)):
            _stop_executor(self._box, kill=False)
            ex = None
        if ex is None:
            ex = ProcessPoolExecutor(max_workers=self.workers, initializer=_pool_worker_init,
                                     initargs=(os.getpid(),))
            self._box[:] = [ex, env]
            self.starts += 1
        return ex

    def abandon(self) -> None:
        """Terminate the workers and their running trials (a sweep stopped by an error or an interrupt)."""
        _stop_executor(self._box, kill=True)


def _importable(fn) -> bool:
    """True when worker processes find ``fn`` by importing its module (not ``__main__``, e.g. a notebook cell)."""
    module = getattr(fn, "__module__", None)
    return bool(module) and module != "__main__" and getattr(sys.modules.get(module), "__spec__", None) is not None


def _iter_processes(fn, tasks, workers, pool, failed):
    """Run ``tasks`` in ``pool`` (a :class:`ProcessPool`; None, or ``fn`` defined in ``__main__``: a pool
    of ``min(workers, tasks)`` processes for this sweep alone).  Stopped early (an error, an interrupt,
    the consumer gone), the trials not started are cancelled and, if some still run, the workers are
    terminated."""
    own = pool is None or not _importable(fn)
    if own:
        pool = ProcessPool(min(pool.workers if pool is not None else workers, len(tasks)))
    futures, complete = {}, False
    # Each future reports itself to this queue as it finishes, so collecting N results costs O(N); a loop on
    # concurrent.futures.wait(pending, FIRST_COMPLETED) re-registers on every pending future per call, O(N^2):
    # 8,000 trials of 4 ms took 15-17 s of this process's CPU that way, 1.2 s this way (docs/speed.md).
    finished = queue.SimpleQueue()
    try:
        ex = pool.executor()
        for idx, (params, ss) in tasks:
            fut = ex.submit(_run_trial, fn, params, ss)
            futures[fut] = idx
            fut.add_done_callback(finished.put)
        left = len(futures)
        while left:
            done = [finished.get()]          # blocks until one finishes (a Ctrl-C interrupts it)
            while True:                      # and whatever else finished meanwhile
                try:
                    done.append(finished.get_nowait())
                except queue.Empty:
                    break
            left -= len(done)
            # successes first, so finished work is cached before an error propagates
            for fut in sorted(done, key=lambda f: f.exception() is not None):
                try:
                    out = fut.result()
                except Exception as exc:
                    failed(exc, futures[fut])
                    raise
                yield futures[fut], out
        complete = True
    finally:
        if not complete:
            for fut in futures:
                fut.cancel()
            if not all(fut.done() for fut in futures):
                pool.abandon()
        if own:
            pool.close()


#: Added to a worker's "No module named 'simlib'" error: what the cluster needs.
DASK_IMPORT_HINT = ("the Dask scheduler and workers cannot import simlib: install the same simlib on every "
                    "node (pip install -e /path/to/the/repository) or set PYTHONPATH to the repository "
                    "there; see notebooks/README.md, 'On your own Dask cluster'")
#: Seconds to wait for the Dask scheduler (connect and handshake) and for its first worker.
DASK_CONNECT_TIMEOUT_S = 10.0
#: Packages whose versions every Dask node must share with the client: they shape the numbers.
NODE_PACKAGES = ("numpy", "scipy", "pandas", "numba")
#: Evaluated on every node (a builtin ships without simlib, so a node lacking it reports the ImportError).
_NODE_PROBE = "__import__('importlib').import_module('simlib.pipeline.sweep').node_identity()"


def _explain_worker_error(exc: BaseException) -> BaseException:
    """Add :data:`DASK_IMPORT_HINT` to an exception about the missing simlib module; return it."""
    if isinstance(exc, ImportError) and "simlib" in str(exc) and hasattr(exc, "add_note"):
        exc.add_note(DASK_IMPORT_HINT)
    return exc


def node_identity() -> dict:
    """What a Dask node runs: ``simlib`` (its version), ``simlib code`` (the first 12 hex digits of
    :func:`code_fingerprint`), ``python``, the versions of :data:`NODE_PACKAGES` (None if absent) and
    ``numerics`` (:func:`numerics_identity`)."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    import simlib

    out = {"simlib": simlib.__version__, "simlib code": code_fingerprint()[:12], "python": platform.python_version()}
    for pkg in NODE_PACKAGES:
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    out["numerics"] = numerics_identity()
    return out


def node_problems(here: dict, nodes: Mapping[str, Any]) -> list[str]:
    """One line per Dask node (``{name: node_identity() or the exception it raised}``) that cannot
    run this sweep as this process would: it cannot import simlib, or it differs from ``here``
    (this process's :func:`node_identity`) in any entry.  Empty: every node matches."""
    out = []
    for name, ident in nodes.items():
        if isinstance(ident, BaseException):
            out.append(f"{name}: cannot run simlib ({type(ident).__name__}: {ident})")
            continue
        diff = [f"{k} {ident.get(k)} (here {v})" for k, v in here.items() if ident.get(k) != v]
        if diff:
            out.append(f"{name}: " + ", ".join(diff))
    return out


def _run_in_thread(fn, *args):
    """``fn(*args)`` in a fresh thread (asyncio.run refuses to run inside a running loop, e.g. Jupyter's)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


def connect_dask(address: str, timeout_s: float | None = None):
    """A ``distributed.Client`` for the scheduler at ``address``, checked before any trial is sent.

    ValueError naming the address when the scheduler cannot be reached (or does not speak Dask)
    within ``timeout_s`` seconds (default :data:`DASK_CONNECT_TIMEOUT_S`), when no worker joins
    within that time, or when the scheduler or a worker cannot import simlib or runs another
    simlib code or another version of Python or of :data:`NODE_PACKAGES` (:func:`check_dask_nodes`).
    """
    import asyncio

    from distributed import Client
    from distributed.comm import connect

    timeout_s = DASK_CONNECT_TIMEOUT_S if timeout_s is None else timeout_s
    where = f"the Dask scheduler at {address!r} ({DASK_ENV} or dask_address)"

    async def handshake():   # no Client yet: a failed Client would complain again when collected
        comm = await connect(address, timeout=timeout_s)
        await comm.close()

    try:
        _run_in_thread(asyncio.run, handshake())
        client = Client(address, timeout=timeout_s, set_as_default=False)
    except Exception as exc:
        raise ValueError(f"cannot reach {where} within {timeout_s:g} s: {type(exc).__name__}: {exc}; start "
                         f"the scheduler, correct the address, or unset {DASK_ENV} to run locally") from None
    try:
        try:
            client.wait_for_workers(1, timeout=timeout_s)
        except Exception:
            raise ValueError(f"{where} has no worker after {timeout_s:g} s; start one with "
                             f"`dask worker {address}`") from None
        check_dask_nodes(client)
    except BaseException:
        client.close()
        raise
    return client


def check_dask_nodes(client, probe: str = _NODE_PROBE) -> None:
    """ValueError naming every node of ``client``'s cluster (the scheduler and each worker) that
    cannot import simlib or differs from this process in simlib's version or code, Python,
    :data:`NODE_PACKAGES` or its numerical kernels (:func:`numerics_identity`, S43) (:func:`node_problems`);
    ``probe`` is the expression each node evaluates."""
    here = node_identity()
    nodes = {}
    try:
        nodes["scheduler"] = client.run_on_scheduler(eval, probe)
    except Exception as exc:
        nodes["scheduler"] = exc
    for worker, ident in client.run(eval, probe, on_error="return").items():
        nodes[f"worker {worker}"] = ident
    problems = node_problems(here, nodes)
    if problems:
        raise ValueError(f"the Dask cluster at {client.scheduler.address} cannot run this sweep as this process "
                         "would (every node needs the same simlib, the same Python packages and the same numerical "
                         "kernels -- OPENBLAS_CORETYPE and NPY_DISABLE_CPU_FEATURES align the last, decision S43; "
                         "see notebooks/README.md, 'On your own Dask cluster'):\n  " + "\n  ".join(problems))


def _iter_dask(fn, tasks, client, failed):
    from distributed import as_completed

    futures = {}
    for idx, (params, ss) in tasks:
        futures[client.submit(_run_trial, fn, params, ss, pure=False)] = idx
    try:
        for fut in as_completed(list(futures), loop=client.loop):
            try:
                result = fut.result()
            except Exception as exc:
                failed(exc, futures[fut])
                raise _explain_worker_error(exc)
            yield futures[fut], result
    finally:
        unfinished = [f for f in futures if not f.done()]
        if unfinished:
            client.cancel(unfinished)


# --------------------------------------------------------------------------
# public runner
# --------------------------------------------------------------------------
def _validate_settings(settings, columns=None) -> tuple[list, list[dict], list[str], list[dict]]:
    """``(settings as fn receives them, their flat parameter dicts, their canonical JSON, their columns)``:
    a dict setting is copied; a scenario setting stays itself, flat as its ``to_params()``; the columns
    are ``columns[i]`` when given (checked against the flat parameters), else the flat parameters.
    Duplicates are judged by the columns (the frame must tell its rows apart)."""
    if isinstance(settings, Mapping) or not isinstance(settings, Sequence) or isinstance(settings, str):
        raise ValueError("settings must be a non-empty list of dicts or scenarios (e.g. from expand_grid), "
                         f"got {type(settings).__name__}")
    if len(settings) == 0:
        raise ValueError("settings must be a non-empty list of dicts or scenarios, got an empty list")
    if columns is not None and (isinstance(columns, (Mapping, str)) or not isinstance(columns, Sequence)
                                or len(columns) != len(settings)):
        raise ValueError(f"columns must be None or a list of one dict per setting ({len(settings)}), "
                         f"got {type(columns).__name__}" + (f" of {len(columns)}" if isinstance(columns, Sequence)
                                                           else ""))
    out, flat, canons, labels, seen = [], [], [], [], {}
    for i, s in enumerate(settings):
        if isinstance(s, ScenarioBase):
            s, given = s.to_params(), s
        elif isinstance(s, Mapping):
            given = dict(s)
        else:
            raise ValueError(f"settings[{i}] must be a dict or a scenario (ScenarioBase), got {type(s).__name__}")
        label = dict(s) if columns is None else _columns_of(i, columns[i], s)
        for k in itertools.chain(s, label):
            if not isinstance(k, str) or not k:
                raise ValueError(f"settings[{i}] keys must be non-empty str, got {k!r}")
        if TRIAL_COLUMN in s:         # the columns are some of these
            raise ValueError(f"settings[{i}] must not use the reserved key {TRIAL_COLUMN!r}")
        canon = _canonical_json(dict(s), f"settings[{i}]")
        shown = canon if columns is None else _canonical_json(label, f"columns[{i}]")
        if shown in seen:
            raise ValueError(f"settings[{i}] duplicates settings[{seen[shown]}]: {shown}")
        seen[shown] = i
        out.append(given)
        flat.append(dict(s))
        canons.append(canon)
        labels.append(label)
    return out, flat, canons, labels


def _built_settings(fn, settings, columns):
    """``(settings, columns)`` as :func:`run_sweep` runs them: for a :class:`~simlib.papers.trial.Trial`
    that takes a setting class, every dict setting built into one (and so checked) here, once, before
    anything runs, named in the frame by the dict as given (``columns``, unless the caller names them);
    for any other ``fn``, as given.  A setting that fails its checks stops the sweep, naming its index
    and the parameter."""
    cls = fn.setting if isinstance(fn, Trial) else None
    if cls is None or isinstance(settings, (Mapping, str)) or not isinstance(settings, Sequence):
        return settings, columns            # _validate_settings explains a malformed list
    built = []
    for i, s in enumerate(settings):
        if not isinstance(s, (cls, Mapping)):
            raise ValueError(f"settings[{i}] must be a dict or a {cls.__name__} ({fn.__qualname__} runs "
                             f"{cls.__name__} settings), got {type(s).__name__}")
        try:
            built.append(fn.build(s))
        except ParamError as exc:
            raise ParamError(exc.name, f"settings[{i}]: {exc}") from None
    if columns is None:
        columns = [dict(s) if isinstance(s, Mapping) else s.to_params() for s in settings]
    return built, columns


def _columns_of(i: int, label, flat: Mapping) -> dict:
    """``columns[i]`` as a dict, checked to name setting ``i``: each of its keys is a parameter of the
    setting with an equal value (``10`` and ``10.0``, a tuple and a list count as equal)."""
    if not isinstance(label, Mapping):
        raise ValueError(f"columns[{i}] must be a dict, got {type(label).__name__}")
    label = dict(label)
    for k, v in label.items():
        if k not in flat:
            raise ValueError(f"columns[{i}] names {k!r}, which is not a parameter of settings[{i}] "
                             f"(its parameters: {sorted(flat)})")
        if json.loads(_canonical_json([v], f"columns[{i}]")) != json.loads(_canonical_json([flat[k]], "setting")):
            raise ValueError(f"columns[{i}] gives {k} = {v!r}, but settings[{i}] has {k} = {flat[k]!r}")
    return label


@dataclasses.dataclass(frozen=True)
class Executor:
    """Where :func:`run_sweep`'s trials run (checked when built).

    kind
        ``"serial"`` (in this process), ``"processes"``
        (:class:`concurrent.futures.ProcessPoolExecutor`) or ``"dask"``
        (dask.distributed).
    workers
        Pool size for ``"processes"`` (default ``os.cpu_count()``).  Validated
        whenever given but ignored by ``"serial"`` (one worker) and ``"dask"``
        (the cluster decides), so notebooks can switch executors without touching it.
    dask_address
        Scheduler address for ``"dask"``; defaults to the environment variable
        ``DASK_SCHEDULER_ADDRESS``.  Alternatively pass ``client``.  Before any
        trial runs (and before the cache is read), the scheduler must answer within
        :data:`DASK_CONNECT_TIMEOUT_S` seconds and every node (scheduler and
        workers) must run the same simlib code, Python and :data:`NODE_PACKAGES` as
        this process (:func:`connect_dask`); else a ValueError names the address or
        the nodes that differ.
    client
        An existing ``distributed.Client`` to use with ``"dask"``.
    pool
        A :class:`ProcessPool` whose workers run the trials of ``"processes"`` and stay for the next
        sweep given the same pool (decision S34); None: the sweep starts ``workers`` processes of its
        own and stops them when it ends.  ``workers``, if given, must equal the pool's.

    ``run_sweep(..., executor="serial")`` is short for ``executor=Executor("serial")``.
    """
    kind: str = "processes"
    workers: int | None = None
    dask_address: str | None = None
    client: Any = None
    pool: ProcessPool | None = None

    def __post_init__(self):
        check_choice("executor", self.kind, EXECUTORS)
        if self.workers is not None:
            check_int("workers", self.workers, lo=1)
        if self.kind == "dask":
            if self.client is not None and self.dask_address is not None:
                raise ValueError("pass either client or dask_address for executor='dask', not both")
            if self.dask_address is not None and not isinstance(self.dask_address, str):
                raise ValueError(f"dask_address must be a str, got {self.dask_address!r}")
        elif self.client is not None or self.dask_address is not None:
            raise ValueError(f"client and dask_address only apply to executor='dask', got executor={self.kind!r}")
        if self.pool is not None:
            if self.kind != "processes":
                raise ValueError(f"pool only applies to executor='processes', got executor={self.kind!r}")
            if not isinstance(self.pool, ProcessPool):
                raise ValueError(f"pool must be a ProcessPool, got {type(self.pool).__name__}")
            if self.workers is not None and self.workers != self.pool.workers:
                raise ValueError(f"workers ({self.workers}) must equal the pool's ({self.pool.workers}) or be None")


def run_sweep(
    fn: Callable[[dict, np.random.SeedSequence], Mapping[str, Any]],
    settings: Sequence[Mapping[str, Any]],
    trials: int,
    seed: int = 0,
    executor: str | Executor = "processes",
    cache_dir=None,
    progress: bool = True,
    desc: str | None = None,
    *,
    paired: bool = True,
    progress_callback: Callable[[int, int, int], None] | None = None,
    columns: Sequence[Mapping[str, Any]] | None = None,
) -> pd.DataFrame:
    """Run ``fn`` for every (setting, trial) and return a tidy DataFrame.

    Parameters
    ----------
    fn
        ``fn(params, rng_seed) -> {metric: scalar}``; a module-level (picklable)
        function.  ``params`` is a copy of one dict setting, or a scenario setting
        itself (not rebuilt: its trial uses it as it is); ``rng_seed`` is the
        trial's :class:`numpy.random.SeedSequence` (see :func:`trial_seed`).
        Metric values must be int, float, bool, str or None (numpy scalars are
        converted).  ``fn`` must be deterministic given its arguments.
    settings
        Non-empty list of parameter dicts (JSON-serializable values, no
        duplicates, key ``"trial"`` reserved), e.g. from :func:`expand_grid`, or
        of scenario objects (:class:`~simlib.papers.contract.ScenarioBase`
        instances, built and so checked once by the caller): ``fn`` receives the
        scenario itself, and its flat parameters ``scenario.to_params()`` are its
        columns (unless ``columns`` names them), its hash (``paired=False``) and its
        cache key, so a scenario and the equal dict share one cache entry.
    trials
        Number of trials per setting (>= 1); trial indices are ``0..trials-1``.
    seed
        Root seed (int >= 0).
    executor
        Where the trials run: an :class:`Executor` (its kind, pool size, Dask
        scheduler or client), or the name of its kind for its defaults:
        ``"serial"``, ``"processes"`` (every core) or ``"dask"`` (the scheduler at
        ``DASK_SCHEDULER_ADDRESS``).
    cache_dir
        Directory for the per-trial JSON cache (created if needed), or None for
        no cache.  Cached trials are loaded instead of recomputed; the key
        covers fn's name, the setting, trial, seed, ``paired`` and the code
        fingerprint (:func:`code_fingerprint` plus fn's module source).  If ``fn``
        is a :class:`~simlib.papers.trial.Trial` (``@trial_keyed_by(cache_params)``:
        ``cache_params(setting) -> dict`` is the full parameter set the setting
        stands for), paired trials are keyed by ``fn.cache_params(setting)``, so
        settings of this or another sweep (same ``cache_dir``) that name the same
        trial are computed once.
    progress
        Show a tqdm progress bar over trials (cached trials count as done).
    desc
        Label of the progress bar.
    paired
        True (default): common random numbers across settings; False: each
        setting gets its own stream (setting hash mixed into the seed).  Paired,
        a :class:`~simlib.papers.trial.Trial` with a ``together`` rule runs the
        trials of one index whose settings share its key in one task (decision
        S39): the same rows, cache entries and progress counts.
    progress_callback
        Called as ``progress_callback(done, total, initial)`` before the first
        trial runs and after each one finishes (``initial`` = trials loaded
        from the cache); independent of ``progress``.
    columns
        None (default): each setting's columns are its flat parameters.  Else one
        dict per setting, its columns in the frame instead (e.g. the dict a caller
        built a scenario setting from: the frame then has that dict's keys and
        values, as if the dict were the setting).  Each key must be a parameter of
        its setting with an equal value; duplicates are judged by these columns.
        The trial, the cache key and the ``paired=False`` hash still see the
        setting itself.

    Returns
    -------
    pandas.DataFrame
        One row per (setting, trial), sorted by (setting index, trial).  Columns:
        the setting keys (first-appearance order), ``trial``, then the metrics
        (first-appearance order).  Identical for every executor, worker count
        and completion order.
    """
    if not callable(fn):
        raise ValueError(f"fn must be a callable fn(params, rng_seed) -> dict, got {fn!r}")
    settings, columns = _built_settings(fn, settings, columns)
    settings, flat, canon, labels = _validate_settings(settings, columns)
    trials = check_int("trials", trials, lo=1)
    seed = check_int("seed", seed, lo=0)
    if not isinstance(executor, Executor):
        if not isinstance(executor, str):
            raise ValueError(f"executor must be an Executor or one of {list(EXECUTORS)}, got {executor!r}")
        executor = Executor(executor)
    progress = _check_bool("progress", progress)
    paired = _check_bool("paired", paired)
    if progress_callback is not None and not callable(progress_callback):
        raise ValueError(f"progress_callback must be None or callable, got {progress_callback!r}")
    if desc is not None and not isinstance(desc, str):
        raise ValueError(f"desc must be None or a str, got {desc!r}")
    workers, client, dask_address = executor.workers, executor.client, executor.dask_address
    if executor.kind == "processes":
        workers = workers or os.cpu_count() or 1
        try:
            pickle.dumps(fn)
        except Exception as exc:
            raise ValueError("fn must be picklable (a module-level function) for "
                             f"executor='processes': {exc}") from None
    if executor.kind == "dask" and client is None:
        if dask_address is None:
            dask_address = os.environ.get(DASK_ENV) or None
        if dask_address is None:
            raise ValueError("executor='dask' needs a scheduler: pass Executor('dask', dask_address=...), set the "
                             f"environment variable {DASK_ENV}, or pass Executor('dask', client=<distributed.Client>)")
    if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
        raise ValueError(f"cache_dir must be None, a str or os.PathLike, got {cache_dir!r}")
    own_client = None
    if executor.kind == "dask":   # before anything is read or written: an unusable cluster fails at once
        if client is None:
            client = own_client = connect_dask(dask_address)
        else:
            check_dask_nodes(client)
    try:
        return _run_sweep(_Sweep(fn=fn, settings=settings, flat=flat, canon=canon, labels=labels, trials=trials,
                                 seed=seed, paired=paired, cache_dir=cache_dir, executor=executor.kind,
                                 workers=workers, client=client, pool=executor.pool, progress=progress, desc=desc,
                                 progress_callback=progress_callback))
    finally:
        if own_client is not None:
            own_client.close()


@dataclasses.dataclass(frozen=True)
class _Sweep:
    """A validated :func:`run_sweep` call (``settings`` as ``fn`` receives them, ``flat`` their parameter
    dicts (the ``paired=False`` hash's part), ``canon`` their canonical JSON (the cache key's part),
    ``labels`` their columns in the frame)."""
    fn: Callable
    settings: list
    flat: list
    canon: list
    labels: list
    trials: int
    seed: int
    paired: bool
    cache_dir: Any
    executor: str
    workers: int | None
    client: Any
    pool: ProcessPool | None
    progress: bool
    desc: str | None
    progress_callback: Callable | None


def _run_sweep(sw: _Sweep) -> pd.DataFrame:
    fn, settings, flat, canon = sw.fn, sw.settings, sw.flat, sw.canon
    trials, seed, paired = sw.trials, sw.seed, sw.paired
    cache_dir, progress_callback = sw.cache_dir, sw.progress_callback
    if cache_dir is not None:
        cache_dir = Path(cache_dir)
        cache_dir.mkdir(parents=True, exist_ok=True)
        fn_id = _fn_identity(fn)
        fingerprint = _sweep_fingerprint(fn)

    # enumerate all (setting, trial) tasks in output order
    keys = [(i, t) for i in range(len(settings)) for t in range(trials)]
    results: list[dict | None] = [None] * len(keys)
    materials: list[dict | None] = [None] * len(keys)
    tasks = []
    twins: dict[int, list[int]] = {}     # task -> later tasks with the same cache key (computed once)
    first_of: dict[str, int] = {}
    if cache_dir is not None:
        key_params = [_key_params(fn, settings[i], canon[i], paired) for i in range(len(settings))]
    for k, (i, t) in enumerate(keys):
        if cache_dir is not None:
            materials[k] = _cache_material(fn_id, key_params[i], t, seed, paired, fingerprint)
            ck = _cache_key(materials[k])
            if ck in first_of:
                twins[first_of[ck]].append(k)
                continue
            first_of[ck] = k
            twins[k] = []
            results[k] = _load_cached(cache_dir / f"{ck}.json", materials[k])
        if results[k] is None:
            tasks.append((k, (settings[i], trial_seed(seed, t, flat[i], paired))))
    for k, later in twins.items():
        for k2 in later:
            results[k2] = results[k]
    tasks = _together(fn, tasks, keys, paired)       # S39: a task may run several settings' trials at one seed

    from tqdm import tqdm  # plain text bar: readable in executed notebooks, no ipywidgets needed

    initial = sum(r is not None for r in results)        # loaded from the cache
    bar = tqdm(total=len(keys), initial=initial, desc=sw.desc, disable=not sw.progress, unit="trial")
    done = initial
    if progress_callback is not None:
        progress_callback(done, len(keys), initial)

    def failed(exc: BaseException, k) -> None:    # name the trial that raised (or the trials run together)
        if isinstance(k, tuple):
            t = keys[k[0]][1]
            exc.add_note(f"run_sweep: raised by trial {t} of settings {[keys[j][0] for j in k]}, run together "
                         f"(S39): " + "; ".join(canon[keys[j][0]] for j in k))
            return
        i, t = keys[k]
        exc.add_note(f"run_sweep: raised by the trial of settings[{i}], trial {t}: {canon[i]}")

    try:
        if tasks:
            if sw.executor == "serial":
                stream = _iter_serial(fn, tasks, failed)
            elif sw.executor == "processes":
                stream = _iter_processes(fn, tasks, sw.workers, sw.pool, failed)
            else:
                stream = _iter_dask(fn, tasks, sw.client, failed)
            try:
                for task, out in stream:
                    finished = 0
                    for k, metrics in (zip(task, out) if isinstance(task, tuple) else ((task, out),)):
                        results[k] = metrics
                        finished += 1
                        if cache_dir is not None:
                            path = cache_dir / f"{_cache_key(materials[k])}.json"
                            _store_cached(path, materials[k], metrics)
                            for k2 in twins[k]:
                                results[k2] = metrics
                            finished += len(twins[k])
                    bar.update(finished)
                    done += finished
                    if progress_callback is not None:
                        progress_callback(done, len(keys), initial)
            except Exception as exc:
                if hasattr(exc, "add_note"):  # Python >= 3.11
                    n_done = sum(r is not None for r in results)
                    exc.add_note(f"run_sweep: stopped after {n_done} of {len(keys)} trials finished"
                                 + (" (they are cached; rerun to resume)" if cache_dir is not None else ""))
                raise
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
    finally:
        bar.close()

    return _assemble(sw.labels, keys, results)


def _assemble(settings: list[dict], keys, results) -> pd.DataFrame:
    setting_cols: list[str] = []
    for s in settings:
        setting_cols.extend(c for c in s if c not in setting_cols)
    metric_cols: list[str] = []
    for k, metrics in enumerate(results):
        for c in metrics:
            if c in setting_cols or c == TRIAL_COLUMN:
                i, t = keys[k]
                raise ValueError(f"fn returned metric {c!r} for settings[{i}], trial {t}, which clashes "
                                 f"with a setting key or the reserved column {TRIAL_COLUMN!r}")
            if c not in metric_cols:
                metric_cols.append(c)
    rows = []
    for (i, t), metrics in zip(keys, results):
        row = dict(settings[i])
        row[TRIAL_COLUMN] = t
        row.update(metrics)
        rows.append(row)
    return pd.DataFrame.from_records(rows, columns=setting_cols + [TRIAL_COLUMN] + metric_cols)
