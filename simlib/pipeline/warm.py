"""Compile the numba kernels the notebooks use, before they run: ``python -m simlib.pipeline.warm``
(``make warm``, which ``make reproduce`` and ``make test`` run first; decision S33).

A fresh checkout has no compiled kernels: numba compiles each ``@njit(cache=True)`` function on its
first call, per argument types (a *specialization*), and caches it on disk (``__pycache__`` next to
the sources, or ``$NUMBA_CACHE_DIR``).  Left to the notebooks, that compilation happens inside the
first notebooks' sweeps, often in one process while the other cores wait, and it inflates the runner's
running estimate and the first trials' timings.  The warm-up compiles everything up front instead:

* A :class:`Family` is one engine's kernels (the shared-cluster loop, SelMcast SSP, BSP, FMReduce,
  the training replay, ...), reached through the registered sweep trials
  (:class:`~simlib.papers.trial.Trial`): each trial is run at its small ``example`` setting and at
  variants of it that take every other code path its choice parameters select (each choice one at
  a time, combined with every value of the family's ``cross`` parameters, e.g. every scheme);
  settings that stand for the same run (the trial's ``cache_params``) run once.  The runs' results
  are thrown away; only numba's cache (and data sets a trial generates, e.g. mnist1d) remain.
* Each family runs in a process of its own (numba compiles in one thread), at most ``jobs`` at
  once (default: every core), largest first (the order of :data:`FAMILIES`), so the cores share the
  work instead of one notebook compiling while the other cores wait; a family that shares kernels with
  others (:attr:`Family.after`) starts when they have finished, so no kernel is compiled twice at once
  (decision S34).  Progress goes to stdout, one line per
  family: specializations compiled, CPU seconds spent compiling (or loading from the cache).
* Idempotent: a stamp (``warm.json`` in :data:`simlib.core.paths.BUILD_CACHE`) records a fingerprint
  of the numba and Python versions, the cache folder, every ``simlib`` source file and every cache file
  (name, size, modification time).  While it matches, the warm-up only says so (a few milliseconds
  plus the imports); any change (an edited source, ``make clean``, a kernel compiled since) runs the
  families again, which then load what is cached and compile the rest.

The notebooks run no faster or slower for it and compute the same values: the kernels are the same
compiled code, loaded from the cache instead of compiled in the first sweep.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from simlib.core import paths

__all__ = ["Probe", "Family", "FAMILIES", "family", "settings", "run_family", "cluster_run", "flow_network_run",
           "cut_short_run", "warm", "WarmReport", "cache_stem", "compiled_outside", "NOTEBOOK_FAMILIES",
           "notebook_families", "fingerprint", "stamp_path", "is_warm", "cache_root", "compiled_files",
           "cached_signatures", "main"]


@dataclass(frozen=True)
class Probe:
    """A sweep trial run at its example setting and variants of it (module docstring).

    ``trial``: ``"module:name"`` of the trial function.  ``vary``: vary each choice parameter of the
    trial's setting class one at a time.  ``cross``: choice parameters every variant is combined with
    (each of their values).  ``where``: ``((parameter, allowed values), ...)`` keeps only the settings
    whose parameters are among the allowed values.  ``extra``: more settings, as overrides of the
    example.  ``example``: the base setting when the trial has none of its own (a plain function)."""

    trial: str
    vary: bool = True
    cross: tuple = ()
    where: tuple = ()
    extra: tuple = ()
    example: tuple | None = None


@dataclass(frozen=True)
class Family:
    """One engine's kernels: ``name``, what it covers (``about``), and the :class:`Probe` s that compile them.
    ``after``: the families whose kernels it shares; the warm-up starts it only when they have finished, so it
    loads those kernels from the cache instead of compiling them a second time beside them."""

    name: str
    about: str
    probes: tuple
    after: tuple = ()


_SCHEME = ("scheme",)
_CLUSTER = "simlib.papers.cluster_scenario:run_trial"
#: A recorded trace (notebook 92): its arrays are read-only, which numba compiles apart from writable ones.
_RECORDED = ("trace", "pai-job1")


def cluster_run(params: dict, seed) -> dict:
    """A shared-cluster run (:func:`simlib.papers.cluster_scenario.build_cluster` of the scenario ``params``)
    on event loop ``engine`` (``"python"``: the reference loop and its flow network, as a timeline capture
    runs it; ``"auto"``), with ``reference_pass`` (bool) selective reduce's reference pass on every round
    (``controller.incremental = False``), which the fast pass otherwise leaves to its rare unsure rounds.
    Returns ``{}``."""
    from simlib.papers.cluster_scenario import Scenario, build_cluster

    params = dict(params)
    engine, reference = params.pop("engine"), params.pop("reference_pass", False)
    cluster = build_cluster(Scenario.of(params), seed)
    if reference:
        cluster.controller.incremental = False
    cluster.run(engine)
    return {}


def flow_network_run(params: dict, seed) -> dict:
    """A stand-alone :class:`~simlib.core.network.FlowNetwork` (``params``: ``sharing``, ``engine``, ``steps``):
    12 links of 1-2 bit/s, four 3-link flows of 0.5-2 bits added every 0.3 s for ``steps`` steps (now and
    then a link dropped from a flow, a capacity changed, a flow's remaining volume read and the flow removed),
    then run until idle -- enough flows that the incremental engine re-solves a part (``solve_incremental``), as the
    Python event loops' networks do (the SSP and FMReduce references, collectives).  Returns ``{}``."""
    import numpy as np

    from simlib.core.network import FlowNetwork

    rng = np.random.default_rng(seed)
    net = FlowNetwork(rng.uniform(1.0, 2.0, 12), sharing=params["sharing"], engine=params["engine"])
    for step in range(params["steps"]):
        flows = [net.add_flow(rng.choice(12, size=3, replace=False), float(rng.uniform(0.5, 2.0)),
                              priority=int(rng.integers(0, 3))) for _ in range(4)]
        net.next_completion_time()
        if step % 3 == 1:          # what the Python loops also do: outages, cancelled flows, capacity changes
            net.drop_link(flows[0], flows[0].links[0])
            net.set_capacity(int(rng.integers(12)), float(rng.uniform(1.0, 2.0)))
        net.advance_to(net.now + 0.3)
        if step % 3 == 2:
            float(flows[1].remaining)
            net.remove_flow(flows[1])
    net.run_until_idle()
    return {}

def cut_short_run(params: dict, seed) -> dict:
    """RP25's cut-short test (:func:`simlib.training.replay.certainly_wrong`) on a few logits of ``params``'s
    ``dtype`` ("float32": the CNN search's numerics, which the other probes do not replay; "float64"), drawn
    from ``seed``.  Returns ``{}``."""
    import numpy as np

    from simlib.training.replay import certainly_wrong

    rng = np.random.default_rng(seed)
    certainly_wrong(rng.normal(size=(4, 10)).astype(params["dtype"]), rng.integers(0, 10, size=4), 1e-3)
    return {}


#: Every kernel family the notebooks use, in the order the warm-up starts them: the shared-cluster families
#: first (the largest: they compile the cluster loop and the core network kernels that the training replay
#: then finds cached), the small stand-alone network last.  Compile CPU seconds per family on a cold cache:
#: benchmarks/bench_cold_compile.py, docs/speed.md.
FAMILIES = (
    Family("cluster-selective", "the shared-cluster loop with selective reduce (000's controller kernels)",
           (Probe(_CLUSTER, cross=_SCHEME, where=(("scheme", ("selective",)),),
                  extra=((("scheme", "selective"), _RECORDED),)),
            Probe("simlib.pipeline.warm:cluster_run", vary=False,
                  example=(("scheme", "selective"), ("n", 6), ("duration_s", 5.0), ("engine", "python")),
                  extra=tuple((("engine", e), ("reference_pass", True), *t) for e in ("python", "auto")
                              for t in ((), (_RECORDED,), (("cdf", "cold"),)))))),
    Family("cluster", "the shared-cluster loop: all reduce, partial reduce, Eager-Reduce, AD-PSGD, PS",
           (Probe(_CLUSTER, cross=_SCHEME, where=(("scheme", ("allreduce", "partial", "eager", "adpsgd", "ps-bsp",
                                                             "ps-asp", "ps-hete", "ps-backup")),),
                  extra=((_RECORDED,),)),
            Probe("simlib.pipeline.warm:cluster_run", vary=False,
                  example=(("scheme", "partial"), ("n", 6), ("duration_s", 5.0), ("engine", "python")),
                  extra=tuple((("scheme", s),) for s in ("allreduce", "eager", "adpsgd", "ps-bsp", "ps-asp",
                                                         "ps-hete", "ps-backup"))),
            Probe("simlib.papers.partial_reduce.experiments.mixing:trial", vary=False),
            Probe("simlib.papers.selective_reduce.experiments.ring_check:trial", vary=False)),
           after=("cluster-selective",)),
    Family("ssp", "SelMcast / Orpheus SSP (004 §IV), with and without training",
           (Probe("simlib.papers.selmcast.ssp_scenario:run_trial", cross=("scheme",),
                  extra=((("scheme", "selmcast"), _RECORDED), (("scheme", "orpheus"), _RECORDED))),
            Probe("simlib.training.selmcast_ssp_tta:trial", vary=False))),
    Family("training", "the training replay (002's nine systems, time to accuracy, task search)",
           (Probe("simlib.training.nine_systems:trial"),
            Probe("simlib.training.nine_systems:per_update_trial", vary=False),
            Probe("simlib.training.nine_systems:staleness_trial", vary=False),
            Probe("simlib.training.task_search:search_trial", vary=False),
            Probe("simlib.pipeline.warm:cut_short_run", vary=False, example=(("dtype", "float32"),),
                  extra=((("dtype", "float64"),),)),
            Probe("simlib.training.time_to_accuracy:trial", vary=False,
                  extra=tuple((("scheme", s),) for s in ("allreduce", "partial", "selective")))),
           # not after `cluster`: on cluster-selective's cache the two compile disjoint kernels (cluster only the
           # stand-alone network's _k_solve_incremental, training only its learning/replay ones; 2026-12-01, warm13),
           # so they run at once at cluster-selective's end
           after=("cluster-selective", "ssp")),
    Family("fmreduce", "003's FMReduce system loop and LP split",
           (Probe("simlib.papers.fmreduce.scenario:run_trial", extra=((_RECORDED,),)),)),
    Family("bsp", "004's BSP selection (SelMcast, Orpheus, the MILP) and Fig. 1's random selection",
           (Probe("simlib.papers.selmcast.experiments:bsp_trial"),
            Probe("simlib.papers.selmcast.experiments:milp_trial", vary=False),
            Probe("simlib.papers.selmcast.experiments:random_selection_trial", vary=False))),
    Family("network", "the stand-alone flow network (simlib.core.network) the Python event loops use",
           (Probe("simlib.pipeline.warm:flow_network_run", vary=False,
                  example=(("sharing", "maxmin"), ("engine", "incremental"), ("steps", 12)),
                  extra=tuple((("sharing", s), ("engine", e)) for s in ("maxmin", "priority")
                              for e in ("incremental", "full"))),),
           # bsp too: warmed together from an empty cache, bsp compiled 104 specializations against 133 alone
           # (2026-11-30, docs/speed.md), so they share kernels; bsp ends long before cluster-selective anyway.
           # cluster too: its Python loops' flow network compiles _k_solve_incremental for the same types
           # (2026-12-01, warm13: each compiles it on cluster-selective's cache; they started together)
           after=("cluster-selective", "bsp", "cluster")),
)


#: The kernel families each notebook's runs use, by the notebook's number (its file name's first two characters),
#: for the notebooks that may start while the warm-up still compiles other families (the notebook runner's
#: ``--warm``, decision S38): such a notebook starts once these families are compiled, and must then compile
#: nothing (it only reads numba's cache index of a kernel the warm-up may extend meanwhile; two processes
#: *saving* one index at once can lose or misdirect its entries, S34).  Named here: 004's and 003's notebooks,
#: whose families (``ssp``, ``fmreduce``) wait for no other, so the warm-up compiles them in its first minutes
#: beside ``cluster-selective``, and 40, 41, 47, which also need ``network`` (so they start near the warm-up's
#: end); the shared-cluster notebooks would gain only seconds.  A notebook not named
#: waits for the whole warm-up.  Checked against the trials each notebook sweeps (tests/pipeline/test_warm.py)
#: and, on an empty cache, by the quick profile of these notebooks after warming only their families
#: (``benchmarks/bench_cold_compile.py --notebook-families``: nothing compiled).
NOTEBOOK_FAMILIES = {
    "30": ("fmreduce",),
    "43": ("ssp",), "44": ("ssp",), "45": ("ssp",), "46": ("ssp",), "48": ("ssp",),
    # the quick profile of 40, 41 and 47 on a cache of `bsp` alone compiled the stand-alone flow network's
    # `_k_propagate` (2026-11-30), which `cluster-selective` or `network` compiles: they wait for `network`
    "40": ("bsp", "network"), "41": ("bsp", "network"), "47": ("bsp", "network"),
}


def notebook_families(stem: str) -> tuple | None:
    """The families notebook ``stem`` (e.g. ``"40_selmcast_sec2_fig1_random_selection"``) needs compiled before it
    starts (:data:`NOTEBOOK_FAMILIES`), or None: every family (a notebook that names none)."""
    return NOTEBOOK_FAMILIES.get(stem[:2])


def family(name: str) -> Family:
    """The :data:`FAMILIES` entry ``name``; ValueError listing the known ones otherwise."""
    for f in FAMILIES:
        if f.name == name:
            return f
    raise ValueError(f"family must be one of {[f.name for f in FAMILIES]}, got {name!r}")


def _resolve(path: str):
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def settings(probe: Probe) -> list[dict]:
    """The settings ``probe`` runs, in order: its example, the ``cross`` combinations, each choice
    parameter's values one at a time (with every ``cross`` combination), the ``extra`` settings;
    those ``where`` excludes, those the setting class refuses (a :class:`ParamError`) and repeats of
    one run (same ``cache_params``) left out."""
    from simlib.papers.contract import ParamError, specs

    trial = _resolve(probe.trial)
    base = dict(probe.example or ()) or dict(trial.example or {})
    setting_cls = getattr(trial, "setting", None)
    choices = {n: s.choices for n, s in specs(setting_cls).items() if s.choices} if setting_cls else {}
    unknown = [c for c in probe.cross if c not in choices]
    if unknown:
        raise ValueError(f"cross must name choice parameters of {probe.trial}, got {unknown}")
    combos = [dict(zip(probe.cross, values)) for values in itertools.product(*(choices[c] for c in probe.cross))]
    candidates = [base] + [{**base, **c} for c in combos]
    if probe.vary:
        for name, values in choices.items():
            if name not in probe.cross:
                candidates += [{**base, **c, name: v} for v in values for c in (combos or [{}])]
    candidates += [{**base, **dict(e)} for e in probe.extra]
    allowed = dict(probe.where)
    out, seen = [], set()
    for s in candidates:
        if any(s.get(k, base.get(k)) not in v for k, v in allowed.items()):
            continue
        try:
            key = trial.cache_params(s) if hasattr(trial, "cache_params") else s
        except (ParamError, ValueError):
            continue
        key = json.dumps(key, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


class _CompileMeter:
    """Within the block: ``cpu_s``, the process CPU seconds spent holding numba's compiler lock
    (compiling, or loading from the on-disk cache), and ``compiled``, the specializations numba
    compiled (cache misses: its ``numba:compile`` event).  With ``log`` (a path), each compiled
    specialization of a cached kernel appends a line to it: its cache files' path stem (:func:`cache_stem`),
    before numba saves them."""

    def __init__(self, log: Path | None = None):
        self.cpu_s, self.compiled, self._depth, self._t0 = 0.0, 0, 0, 0.0
        self._log = log

    def __enter__(self):
        from numba.core import event

        meter = self

        class _Lock(event.Listener):
            def on_start(self, ev):
                if meter._depth == 0:
                    meter._t0 = time.process_time()
                meter._depth += 1

            def on_end(self, ev):
                meter._depth -= 1
                if meter._depth == 0:
                    meter.cpu_s += time.process_time() - meter._t0

        class _Compile(event.Listener):
            def on_start(self, ev):
                meter.compiled += 1
                stem = _dispatcher_stem(ev.data["dispatcher"]) if meter._log is not None else None
                if stem is not None:
                    with open(meter._log, "a", encoding="utf-8") as f:     # one write per line: the families append
                        f.write(stem + "\n")                              # to one log at once

            def on_end(self, ev):
                pass

        self._ctx = [event.install_listener("numba:compiler_lock", _Lock()),
                     event.install_listener("numba:compile", _Compile())]
        for c in self._ctx:
            c.__enter__()
        return self

    def __exit__(self, *exc):
        for c in reversed(self._ctx):
            c.__exit__(*exc)
        return False


def _dispatcher_stem(dispatcher) -> str | None:
    """The path of ``dispatcher``'s cache files without their ``.nbi`` / ``.<k>.nbc`` suffix (numba's cache of an
    ``@njit(cache=True)`` function: ``<cache folder>/<module>.<qualname>-<line>.py311``), or None (not cached)."""
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
    return index[:-len(".nbi")] if isinstance(index, str) and index.endswith(".nbi") else None


def cache_stem(path: str) -> str:
    """The stem of numba cache file ``path`` (an index ``<stem>.nbi`` or a data file ``<stem>.<k>.nbc``): the
    files of one kernel share it."""
    if path.endswith(".nbi"):
        return path[:-len(".nbi")]
    return path.rsplit(".", 2)[0] if path.endswith(".nbc") else path


def compiled_outside(new_files, log: Path | str | None) -> int:
    """How many of the cache files ``new_files`` (``{(path, size, mtime_ns)}``, e.g. a difference of two
    :func:`compiled_files`) are data files (``.nbc``, one per specialization) of kernels the warm-up's families did
    not compile: those whose stem is not a line of the warm-up's ``log`` (:func:`warm`'s ``compiled_log``; none
    when it is None or missing).  What a notebook run beside the warm-up compiled itself (decision S38): both
    save into one cache, and the files do not say which process wrote them.  A kernel both compiled counts as
    the warm-up's."""
    try:
        theirs = set(Path(log).read_text(encoding="utf-8").splitlines()) if log is not None else set()
    except OSError:
        theirs = set()
    return sum(p.endswith(".nbc") and cache_stem(p) not in theirs for p, *_ in new_files)


def run_family(name: str, log: Path | None = None) -> dict:
    """Run family ``name``'s probes in this process; return ``{"family", "runs", "compiled", "compile_cpu_s",
    "cpu_s", "wall_s", "errors"}`` (``compiled``: specializations compiled here, i.e. not found in the
    cache; ``compile_cpu_s``: CPU seconds holding numba's compiler lock; ``errors``: ``"trial setting:
    error"`` for runs that raised -- the others still run).  ``log``: a file each compiled kernel's cache stem is
    appended to (:class:`_CompileMeter`)."""
    import numpy as np

    fam = family(name)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    runs, errors = 0, []
    with _CompileMeter(log) as meter:
        for probe in fam.probes:
            trial = _resolve(probe.trial)
            for s in settings(probe):
                try:
                    trial(dict(s), np.random.SeedSequence(0))
                except Exception as exc:  # a warm-up run that fails leaves its kernels to the notebooks
                    errors.append(f"{probe.trial} {s}: {type(exc).__name__}: {exc}")
                runs += 1
    return {"family": name, "runs": runs, "compiled": meter.compiled, "compile_cpu_s": round(meter.cpu_s, 2),
            "cpu_s": round(time.process_time() - cpu0, 2), "wall_s": round(time.perf_counter() - wall0, 2),
            "errors": errors}


# ---------------------------------------------------------------------------------------- the cache and the stamp

def cache_root(package_dir: Path | str = paths.PACKAGE_DIR) -> Path:
    """Where numba keeps the compiled kernels of the ``simlib`` package in ``package_dir`` (default this
    one): ``$NUMBA_CACHE_DIR`` when set, else the package folder (the ``__pycache__`` folders next to the
    sources)."""
    env = os.environ.get(paths.NUMBA_CACHE_ENV)
    return Path(env) if env else Path(package_dir)


def compiled_files(root: Path | None = None) -> set[tuple[str, int, int]]:
    """``{(path, size, mtime_ns)}`` of numba's cache files under ``root`` (default :func:`cache_root`):
    index (``.nbi``) and data (``.nbc``, one per compiled specialization) files.  Comparing two calls
    tells what was compiled in between (new or rewritten files)."""
    root = cache_root() if root is None else Path(root)
    out = set()
    if not root.is_dir():
        return out
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith((".nbi", ".nbc")):
                p = os.path.join(dirpath, f)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                out.add((p, st.st_size, st.st_mtime_ns))
    return out


def cached_signatures(root: Path | None = None) -> dict[str, list[str]]:
    """``{function: [signature, ...]}`` of every specialization in numba's cache under ``root`` (default
    :func:`cache_root`), read from its index files (``<module>.<function>-<line>``; stale entries included).
    Imports numba and the modules whose types the signatures name."""
    import pickle

    import numba  # noqa: F401  (the index pickles numba types)

    root = cache_root() if root is None else Path(root)
    out = {}
    for p in sorted(root.rglob("*.nbi")):
        with open(p, "rb") as f:
            pickle.load(f)                      # numba's version
            _, overloads = pickle.loads(f.read())
        name = p.name.split(".py")[0]
        out.setdefault(name, []).extend(str(key[0]) for key in overloads)
    return out


def stamp_path() -> Path:
    """The warm-up's stamp: ``warm.json`` in :data:`simlib.core.paths.BUILD_CACHE` (``build/cache/`` in a
    checkout; removed by ``make clean`` with the ``__pycache__`` folders)."""
    return Path(paths.BUILD_CACHE) / "warm.json"


def fingerprint() -> str:
    """A hash of what decides whether the cached kernels are complete: numba's and Python's versions,
    the interpreter, the cache folder, :data:`FAMILIES`, and (path, size, modification time) of every
    ``simlib`` source file and every cache file."""
    from importlib.metadata import version

    h = hashlib.sha256()
    h.update(repr((version("numba"), sys.version, sys.executable, str(cache_root()), FAMILIES)).encode())
    sources = sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in paths.PACKAGE_DIR.rglob("*.py"))
    h.update(repr(sources).encode())
    h.update(repr(sorted(compiled_files())).encode())
    return h.hexdigest()


def is_warm() -> bool:
    """True when the stamp of the last complete warm-up matches :func:`fingerprint` (nothing to compile)."""
    try:
        stamp = json.loads(stamp_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(stamp, dict) and stamp.get("fingerprint") == fingerprint()


@dataclass
class WarmReport:
    """What :func:`warm` did: ``skipped`` (the stamp matched: nothing ran), ``wall_s`` (its wall
    seconds, the stamp check included), ``families`` (each family's :func:`run_family` result, or
    ``{"family", "failed": message}``)."""

    skipped: bool
    wall_s: float
    families: list = field(default_factory=list)

    @property
    def compiled(self) -> int:
        return sum(f.get("compiled", 0) for f in self.families)

    @property
    def compile_cpu_s(self) -> float:
        return sum(f.get("compile_cpu_s", 0.0) for f in self.families)

    @property
    def ok(self) -> bool:
        return all("failed" not in f and not f.get("errors") for f in self.families)


def _child_env() -> dict:
    env = dict(os.environ)
    root = str(paths.PACKAGE_DIR.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):   # one core per family
        env.setdefault(var, "1")
    return env


def _line(r: dict) -> str:
    if "failed" in r:
        return f"{r['family']}: FAILED ({r['failed']})"
    text = (f"{r['family']}: {r['compiled']} specialization(s) compiled, {r['compile_cpu_s']:.1f} s CPU compiling "
            f"or loading ({r['runs']} runs, {r['wall_s']:.1f} s)")
    return text + (f"; {len(r['errors'])} run(s) failed: {r['errors'][0]}" if r["errors"] else "")


def next_family(pending: list, running) -> Family | None:
    """The first of the families ``pending`` (in :data:`FAMILIES` order) none of whose :attr:`Family.after`
    families is pending or ``running`` (their names): those have finished, or are not being warmed; None
    if each pending family waits for one."""
    busy = {f.name for f in pending} | set(running)
    return next((fam for fam in pending if not busy & set(fam.after)), None)


def warm(names=None, *, jobs: int | None = None, force: bool = False, echo=print, on_change=None,
         compiled_log: Path | None = None) -> WarmReport:
    """Compile the kernels of families ``names`` (default: all of :data:`FAMILIES`) into numba's cache, each
    family in a subprocess, at most ``jobs`` at once (default: the machine's cores), largest first; ``echo``
    gets one line per family and a summary.  Unless ``force``, nothing runs while :func:`is_warm` (all
    families only).  Writes the stamp after a run of all families without failures.  ``on_change(compiled,
    running)`` (optional; called from this thread) hears, after each change and once the families to start have
    started, the names of the families finished without a failure (``compiled``) and of those running, as
    frozensets: the notebook runner starts a notebook beside the warm-up once its families are compiled and a
    core is free (decision S38).  ``compiled_log`` (optional): a file the families append the cache stem of each
    kernel they compile to (:func:`compiled_outside` reads it)."""
    t0 = time.perf_counter()
    chosen = [family(n) for n in names] if names else list(FAMILIES)
    jobs = (os.cpu_count() or 1) if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    if not names and not force and is_warm():
        report = WarmReport(True, time.perf_counter() - t0)
        echo(f"[warm] kernels already compiled (stamp {stamp_path().name} current; checked in {report.wall_s:.2f} s)")
        return report
    echo(f"[warm] compiling the kernels of {len(chosen)} families in {min(jobs, len(chosen))} process(es), "
         f"largest first, each after the families it shares kernels with (cache: {cache_root()})")
    pending, running, results = list(chosen), {}, []
    compiled, told = set(), None
    with tempfile.TemporaryDirectory(prefix="simlib-warm-") as tmp:
        while pending or running:
            while pending and len(running) < jobs:
                fam = next_family(pending, [f.name for f, *_ in running.values()])
                if fam is None and running:
                    break                           # its families are running: wait for them
                fam = fam or pending[0]             # (a cycle of families after each other: break it)
                pending.remove(fam)
                out = Path(tmp) / f"{fam.name}.json"
                log = open(Path(tmp) / f"{fam.name}.log", "w+b")
                proc = subprocess.Popen([sys.executable, "-m", "simlib.pipeline.warm", "--family", fam.name,
                                         "--result", str(out),
                                         *(("--log", str(compiled_log)) if compiled_log is not None else ())],
                                        stdout=log, stderr=subprocess.STDOUT,
                                        env=_child_env())
                running[proc] = (fam, out, log)
            state = (frozenset(compiled), frozenset(f.name for f, *_ in running.values()))
            if on_change is not None and state != told:
                on_change(*state)
                told = state
            time.sleep(0.1)
            for proc in [p for p in running if p.poll() is not None]:
                fam, out, log = running.pop(proc)
                try:
                    r = json.loads(out.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    log.seek(0)
                    tail = log.read().decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
                    r = {"family": fam.name, "failed": f"exit status {proc.returncode}: {tail[0]}"}
                log.close()
                results.append(r)
                if "failed" not in r and not r.get("errors"):
                    compiled.add(fam.name)
                echo(f"[warm] [{len(results)}/{len(chosen)}] {_line(r)}")
    if on_change is not None and (frozenset(compiled), frozenset()) != told:
        on_change(frozenset(compiled), frozenset())
    report = WarmReport(False, time.perf_counter() - t0, results)
    echo(f"[warm] done in {report.wall_s:.1f} s: {report.compiled} specialization(s) compiled, "
         f"{report.compile_cpu_s:.1f} s CPU compiling or loading")
    if report.ok and not names:
        path = stamp_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"fingerprint": fingerprint(), "wall_s": round(report.wall_s, 1),
                                    "families": results}, indent=1), encoding="utf-8")
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m simlib.pipeline.warm",
        description="Compile every numba kernel the notebooks use into numba's on-disk cache, one process per "
                    "kernel family, largest first (decision S33).  Nothing to do when the cache is current.")
    ap.add_argument("--jobs", type=int, default=None, metavar="N",
                    help="families compiled at once (default: the machine's cores)")
    ap.add_argument("--only", action="append", metavar="FAMILY", choices=[f.name for f in FAMILIES],
                    help="compile only this family (repeatable; writes no stamp)")
    ap.add_argument("--force", action="store_true", help="run the families even when the stamp is current")
    ap.add_argument("--strict", action="store_true", help="exit 1 if a family or one of its runs failed")
    ap.add_argument("--list", action="store_true", help="list the families and the number of runs of each")
    ap.add_argument("--family", help=argparse.SUPPRESS)       # the worker: run one family here
    ap.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--log", type=Path, help=argparse.SUPPRESS)        # the worker: append compiled kernels' stems
    args = ap.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        ap.error(f"argument --jobs: must be an integer >= 1, got {args.jobs}")
    if args.family:
        r = run_family(args.family, args.log)
        text = json.dumps(r)
        if args.result:
            args.result.write_text(text, encoding="utf-8")
        else:
            print(text)
        return 0
    if args.list:
        for f in FAMILIES:
            print(f"{f.name}: {sum(len(settings(p)) for p in f.probes)} runs -- {f.about}")
        return 0
    report = warm(args.only, jobs=args.jobs, force=args.force)
    if not report.ok:
        print("[warm] some kernels were not compiled up front; the notebooks compile them when they need them",
              file=sys.stderr)
    return 1 if args.strict and not report.ok else 0


if __name__ == "__main__":
    sys.exit(main())
