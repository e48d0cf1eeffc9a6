"""A notebook's run, explicitly: :func:`start` checks the parameters once and returns a :class:`Run`.

::

    run = simlib.start(Fig2Notebook, globals(), notebook="30_fmreduce_fig2")
    df = run.sweep(fmreduce_trial, settings, name="30_fm_fig2")       # cached, CSV in run.results
    run.save_figure(fig, "fm_fig02_rounds")                            # in run.figures
    run.record(fm_claims.fig2(df, ...))                                # ledger row with run's provenance

A :class:`Run` knows what is being run -- the notebook, the profile, seed, trials and
workers, the parameters passed to it and the values it uses -- and where it writes
(:class:`~simlib.pipeline.paths.RunContext`: the committed folders for a publishing run, a
run folder of its own otherwise).  Nothing is read from ambient state: the notebook
runner (:mod:`simlib.pipeline.notebooks`) passes its facts -- the notebook's file stem,
whether the run publishes, the run folder and the progress file -- as one papermill
parameter, ``simlib_run`` (decision S21); without it (JupyterLab, papermill by hand) the
run does not publish and writes to ``build/runs/<notebook>/<parameter hash>/``.

**Passed parameters** (decision S22): under the notebook runner, the names it lists in
``simlib_run["passed"]`` (the user's ``-p`` parameters, whatever their value) and the common
parameters that differ from their defaults.  Without the runner a parameter counts as passed
when its value differs from the spec's full-profile default (which the parameters cell repeats:
a test keeps them equal), compared after the spec's own conversion, so ``"[10, 20]"`` equals
``[10, 20]`` and a NaN equals a NaN.  Only passed parameters escape the quick profile's values
and name the run folder; the ledger's ``parameters`` column holds them and the profile.

**Injected names** (decision S22): papermill only warns about a ``-p`` name the parameters cell does not
assign and runs the notebook anyway, so :func:`start` reads the cell papermill injected -- the last entry
of the kernel's input history ``In`` (in the ``namespace`` it is given) that starts with papermill's
``# Parameters`` line -- and refuses any name it assigns that is neither a field of the spec, a
:data:`COMMON` parameter nor :data:`RUNNER_PARAMETER`.
"""
from __future__ import annotations

import ast
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from simlib.core.validate import check_choice, check_int
from simlib.papers.contract import MISSING, ParamError, check_param, defaults, specs
from simlib.pipeline import paths

__all__ = ["PROFILES", "COMMON", "COMMON_DEFAULTS", "RUNNER_PARAMETER", "RUNNER_KEYS", "Run", "TimedSweeps", "start",
           "passed_parameters", "check_notebook_common"]

#: Fidelity profiles: "full" (paper fidelity) or "quick" (smoke-size runs for tests).
PROFILES = ("full", "quick")
#: Parameters every notebook has besides its spec's, with the defaults every parameters cell gives
#: them: fidelity profile, sweep processes (None: all cores), root seed.
COMMON_DEFAULTS = {"profile": "full", "workers": None, "seed": 0}
COMMON = tuple(COMMON_DEFAULTS)
#: The papermill parameter through which the notebook runner passes its facts about the run
#: (:data:`RUNNER_KEYS`); never part of a parameters cell.
RUNNER_PARAMETER = "simlib_run"
#: The keys of ``simlib_run``: the notebook's file stem, whether the run publishes, its run folder,
#: its progress file, the names of the parameters the user passed (``-p``; decision S22) and the
#: Dask scheduler its sweeps run on (None: this machine; decision S32).
RUNNER_KEYS = ("notebook", "publish", "out_dir", "progress_file", "passed", "dask_address")
#: First line of the cell papermill injects after a notebook's ``parameters`` cell.
INJECTED_MARK = "# Parameters"


@dataclass(frozen=True)
class Run:
    """One execution of a notebook: what runs (``notebook``, ``profile``, ``seed``, ``trials``,
    ``workers``, ``passed`` parameters, ``values`` used) and where it writes (``folders``).

    ``values`` are the checked values of :data:`COMMON` and every field of the spec, after the
    quick profile (lists as lists); ``passed`` the ones passed to the run (:func:`passed_parameters`:
    the runner's ``-p`` names, else those that differ from the full-profile defaults); both
    read-only mappings.  ``trials`` is the spec's ``trials`` (1 if it has none): the default of
    :meth:`sweep` and the ledger's ``trials`` column.  ``dask_address``: the Dask scheduler its
    sweeps run on (the runner's, decision S32; None: this machine, by the profile).  ``pool``: the
    local worker processes its sweeps share (a :class:`~simlib.pipeline.sweep.ProcessPool` of
    ``workers`` processes, started by the first sweep that runs on local processes and kept for the
    next, decision S34; :meth:`close`, the Run's garbage collection or the kernel's exit stops them;
    None: each sweep starts its own).
    """

    notebook: str
    profile: str
    seed: int
    trials: int
    workers: int | None
    passed: Mapping[str, Any]
    values: Mapping[str, Any]
    folders: paths.RunContext
    progress_file: Path | None = None
    spec: Any = field(default=None, compare=False)
    dask_address: str | None = None
    pool: Any = field(default=None, compare=False, repr=False)

    @property
    def publish(self) -> bool:
        """True: this run writes the committed ``figures/``, ``data/results/`` and ledger."""
        return self.folders.publish

    @property
    def figures(self) -> Path:
        """This run's figures folder (created on first use for a run folder)."""
        return self._ready(self.folders.figures)

    @property
    def results(self) -> Path:
        """This run's results folder (created on first use for a run folder)."""
        return self._ready(self.folders.results)

    @property
    def ledger(self) -> Path:
        """This run's claims ledger (``<results>/claims.csv``)."""
        return self.folders.ledger

    @property
    def measurements(self) -> Path:
        """This run's wall-clock measurements folder (decision S26: ``data/measurements/`` for a
        publishing run, ``<run folder>/measurements`` otherwise; created on first use)."""
        folder = self._ready(self.folders.measurements)
        folder.mkdir(parents=True, exist_ok=True)      # data/measurements/ may not exist yet
        return folder

    def measurement_file(self, name: str) -> str:
        """How a ledger row or a printed line names the measurement file ``<measurements>/<name>.csv``:
        its path relative to the repository (the committed one, or the run folder's)."""
        path = self.folders.measurements / f"{name}.csv"
        return path.relative_to(paths.REPO_ROOT).as_posix() if path.is_relative_to(paths.REPO_ROOT) else str(path)

    def save_measurements(self, df, name: str) -> Path:
        """Write the frame ``df`` of wall-clock measurements (run times, solver times) to
        ``<measurements>/<name>.csv``, apart from the results (decision S26); returns the path."""
        path = self.measurements / f"{name}.csv"
        df.to_csv(path, index=False)
        return path

    def csv(self, name: str) -> Path:
        """``<results>/<name>.csv`` (the folder exists)."""
        return self.results / f"{name}.csv"

    def _ready(self, folder: Path) -> Path:
        if not self.publish:
            paths.announce(self.folders)
            folder.mkdir(parents=True, exist_ok=True)
        return folder

    def ledger_parameters(self) -> dict:
        """The ledger's ``parameters`` column: the profile and every passed parameter that changes a
        result, non-finite floats as text (``{"profile": "full"}`` = the notebook's defaults)."""
        kept = {"profile": self.profile, **self.passed}
        return {k: paths.finite_json(v) for k, v in kept.items() if k not in paths.RESULT_NEUTRAL_PARAMETERS}

    def sweep(self, trial, settings, *, name: str, trials: int | None = None, seed: int | None = None,
              desc: str | None = None, executor: str | None = None, measured=()):
        """:func:`~simlib.pipeline.runs.run_notebook_sweep` of ``trial`` over ``settings`` with this
        run's profile, workers, progress file and results folder (CSV ``<results>/<name>.csv``);
        ``trials``/``seed`` default to the run's; the ``measured`` columns (wall-clock times) go to
        ``<measurements>/<name>.csv`` instead of the results CSV.  Returns the tidy frame (all columns)."""
        from simlib.pipeline.runs import run_notebook_sweep, write_measurements

        df = run_notebook_sweep(trial, settings, trials=self.trials if trials is None else trials,
                                seed=self.seed if seed is None else seed, name=name, results_dir=self.results,
                                profile=self.profile, workers=self.workers, desc=desc,
                                executor=self._executor(executor), progress_file=self.progress_file)
        if measured:
            write_measurements(df, measured, name=name, results_dir=self.results,
                               measurements_dir=self.folders.measurements)
        return df

    def scenarios(self, settings: list[dict], *, name: str, trials: int | None = None, seed: int | None = None,
                  desc: str | None = None, executor: str | None = None):
        """:func:`~simlib.pipeline.runs.run_scenarios` (000/002's simulated training runs, each
        setting's scenario built, so checked, once, before any runs) as :meth:`sweep`."""
        from simlib.pipeline.runs import run_scenarios

        return run_scenarios(settings, trials=self.trials if trials is None else trials,
                             seed=self.seed if seed is None else seed, name=name, results_dir=self.results,
                             profile=self.profile, workers=self.workers, desc=desc,
                             executor=self._executor(executor), progress_file=self.progress_file)

    def close(self) -> None:
        """Stop the worker processes of this run's sweeps (:attr:`pool`; a later sweep starts them again)."""
        if self.pool is not None:
            self.pool.close()

    def _executor(self, executor):
        """``executor`` as given, except: when the runner gave this run a scheduler address and the
        executor is unset or ``"dask"``, the Dask cluster at that address (S32); when it is local
        processes (``"processes"``, or unset at the full profile), this run's :attr:`pool`'s (S34)."""
        from simlib.pipeline.sweep import Executor

        if self.dask_address and executor in (None, "dask"):
            return Executor("dask", dask_address=self.dask_address)
        local = executor == "processes" or (executor is None and self.profile == "full")
        if local and self.pool is not None:
            return Executor("processes", workers=self.workers, pool=self.pool)
        return executor

    def save_figure(self, fig, name: str, *, measurement: bool = False, **kwargs):
        """:func:`~simlib.pipeline.plotting.save_figure` into this run's figures folder, or, for a figure
        of wall-clock measurements (``measurement=True``, decision S26), into ``<measurements>/figures``."""
        from simlib.pipeline import plotting

        folder = self.measurements / "figures" if measurement else self.figures
        return plotting.save_figure(fig, name, folder, publish=self.publish, **kwargs)

    def record(self, claims, *, trials: int | None = None):
        """:func:`~simlib.pipeline.claims.record` into this run's ledger, with this run's provenance
        (notebook, profile, ``trials`` -- default the run's --, passed parameters)."""
        from simlib.pipeline import claims as ledger

        if not self.publish:
            paths.announce(self.folders)
        return ledger.record(claims, self.ledger, notebook=self.notebook, profile=self.profile,
                             trials=self.trials if trials is None else trials,
                             parameters=self.ledger_parameters())

    def measured_claims(self, claims, name: str, which, *, trials: int | None = None) -> list:
        """``claims`` with those that judge wall-clock times (``which(claim)`` true) made citable
        (decision S26): their full rows, measured values included, go to the measurement ledger
        ``<measurements>/<name>.csv`` (with this run's provenance), and they come back in place with
        the measured text replaced by a pointer to that file
        (:func:`~simlib.pipeline.claims.cite_measurements`); pass the list to :meth:`record`."""
        from simlib.pipeline import claims as ledger

        claims = list(claims)
        timed = [c for c in claims if which(c)]
        if not timed:
            return claims
        ledger.record(timed, self.measurements / f"{name}.csv", notebook=self.notebook, profile=self.profile,
                      trials=self.trials if trials is None else trials, parameters=self.ledger_parameters())
        cited = iter(ledger.cite_measurements(timed, self.measurement_file(name)))
        return [next(cited) if which(c) else c for c in claims]


def _same(a, b) -> bool:
    """Equal values, a NaN equal to a NaN (also inside lists/tuples)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def passed_parameters(spec_cls, namespace: Mapping, named=None) -> dict:
    """The parameters passed to the run, as given in ``namespace``.

    ``named`` (the runner's ``simlib_run["passed"]``: the names the user passed with ``-p``) are
    passed whatever their value -- one equal to the full-profile default too --, and so is a
    parameter of :data:`COMMON_DEFAULTS` that differs from its default (``profile`` and
    ``workers`` come from the runner's own options).  Without ``named`` (JupyterLab, papermill
    by hand) a parameter is passed when its value differs from the full-profile default
    (:data:`COMMON_DEFAULTS` and the spec's declared defaults): a declared value is compared
    after :func:`~simlib.papers.contract.check_param`'s conversion (``"[10, 20]"`` and
    ``[10, 20]`` are the same list, ``5`` and ``5.0`` the same real); a value the check refuses
    counts as passed (the spec then rejects it by name).  NaN equals NaN.
    """
    out = {}
    for name, default in COMMON_DEFAULTS.items():
        if name in namespace and not _same(namespace[name], default):
            out[name] = namespace[name]
    if named is not None:
        unset = [name for name in named if name not in namespace]
        if unset:
            raise ValueError(f"{RUNNER_PARAMETER}['passed'] names {unset}, which the notebook does not assign")
        return {**out, **{name: namespace[name] for name in named}}
    full = defaults(spec_cls)
    for name, spec in specs(spec_cls).items():
        if name not in namespace:
            continue
        try:
            value = check_param(name, namespace[name], spec)
        except (ParamError, ValueError, TypeError):
            out[name] = namespace[name]
            continue
        if not _same(value, full[name]):
            out[name] = namespace[name]
    return out


def check_notebook_common(profile, workers, seed=0, trials=1):
    """Validate the parameters every notebook shares; returns ``(profile, workers, seed, trials)``.

    ``profile`` in {"full", "quick"}; ``workers`` None or an integer >= 1;
    ``seed`` an integer >= 0; ``trials`` an integer >= 1.
    """
    check_choice("profile", profile, PROFILES)
    if workers is not None:
        workers = check_int("workers", workers, 1)
    return profile, workers, check_int("seed", seed, 0), check_int("trials", trials, 1)


def _runner_facts(namespace: Mapping) -> dict:
    facts = namespace.get(RUNNER_PARAMETER) or {}
    if not isinstance(facts, Mapping):
        raise ValueError(f"{RUNNER_PARAMETER} must be a dict (set by the notebook runner), got {facts!r}")
    unknown = sorted(set(facts) - set(RUNNER_KEYS))
    if unknown:
        raise ValueError(f"{RUNNER_PARAMETER} has unknown key(s) {unknown} (allowed: {list(RUNNER_KEYS)})")
    named = facts.get("passed")
    if named is not None and (not isinstance(named, (list, tuple))
                              or not all(isinstance(name, str) and name.isidentifier() for name in named)):
        raise ValueError(f"{RUNNER_PARAMETER}['passed'] must be a list of parameter names (the ones the user "
                         f"passed with -p), got {named!r}")
    address = facts.get("dask_address")
    if address is not None and (not isinstance(address, str) or not address):
        raise ValueError(f"{RUNNER_PARAMETER}['dask_address'] must be None or a scheduler address "
                         f"(e.g. 'tcp://host:8786'), got {address!r}")
    return dict(facts)


def injected_names(namespace: Mapping) -> list[str]:
    """The names assigned by papermill's injected cell: the last entry of the IPython input history
    ``namespace["In"]`` that starts with :data:`INJECTED_MARK` (``[]`` without one: no IPython, or
    nothing injected)."""
    history = namespace.get("In")
    if not isinstance(history, (list, tuple)):
        return []
    for source in reversed(history):
        if isinstance(source, str) and source.lstrip().startswith(INJECTED_MARK):
            try:
                tree = ast.parse(source)
            except SyntaxError:
                return []
            return [target.id for node in tree.body if isinstance(node, ast.Assign)
                    for target in node.targets if isinstance(target, ast.Name)]
    return []


def check_injected(spec_cls, namespace: Mapping) -> None:
    """``ValueError`` naming every parameter papermill injected (:func:`injected_names`) that the
    notebook does not declare (``spec_cls``'s fields, :data:`COMMON`, :data:`RUNNER_PARAMETER`)."""
    allowed = [*COMMON, *specs(spec_cls)]
    unknown = [name for name in injected_names(namespace) if name not in allowed and name != RUNNER_PARAMETER]
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} passed to the notebook (papermill -p); "
                         f"its parameters are {allowed}")


class TimedSweeps:
    """Sweeps of one :class:`Run` whose wall times are measurements (decision S26): call it as
    ``timed(label, trial, settings, n_trials, name)`` for :meth:`Run.sweep` of ``trial`` over ``settings``
    (CSV ``<prefix>_<name>``, progress text ``label``, ``n_trials`` trials), then :meth:`save` writes every
    sweep's runs and wall time (s, 0.1 s) to the measurements ``<prefix>_times`` and prints them."""

    def __init__(self, run: Run, prefix: str):
        self.run, self.prefix = run, prefix
        self.times: dict[str, tuple[int, float]] = {}     # label -> (runs, wall s)

    def __call__(self, label: str, trial, settings, n_trials: int, name: str):
        t0 = time.perf_counter()
        df = self.run.sweep(trial, settings, name=f"{self.prefix}_{name}", trials=n_trials, desc=label)
        self.times[label] = (len(df), time.perf_counter() - t0)
        return df

    def save(self) -> None:
        """Write the measurements ``<prefix>_times`` (columns sweep, runs, wall_s), print each sweep's runs
        and where its wall times are (nothing returned: a notebook cell may end with it)."""
        import pandas as pd

        name = f"{self.prefix}_times"
        self.run.save_measurements(pd.DataFrame([{"sweep": label, "runs": rows, "wall_s": round(secs, 1)}
                                                 for label, (rows, secs) in self.times.items()]), name)
        for label, (rows, _) in self.times.items():
            print(f"{label}: {rows} runs")
        print(f"(their wall times: {self.run.measurement_file(name)})")


def start(spec_cls, namespace: dict, *, notebook: str, update: bool = True) -> Run:
    """Check a notebook's parameters against ``spec_cls`` once and return its :class:`Run`.

    ``namespace`` is the notebook's ``globals()`` after its parameters cell (and papermill's
    injected one): it must assign every field of ``spec_cls``.  ``notebook`` is the notebook's
    file stem (the runner's ``simlib_run["notebook"]``, the file actually executed, wins).  In
    the quick profile a field declared with a ``quick`` value gets it unless it was passed
    (:func:`passed_parameters`: the runner's ``simlib_run["passed"]`` names, else the values
    that differ from the full-profile defaults).  List parameters may be YAML/JSON text (``papermill -p
    p_values "[10, 20]"``).  A value outside its range is a ``ValueError`` naming it; the
    spec's ``check()`` adds the cross-field rules; a name papermill injected that the notebook does
    not declare is a ``ValueError`` naming it (:func:`check_injected`).  With ``update`` the resolved values are
    written back into ``namespace``, so later cells keep reading plain names.
    """
    if not isinstance(notebook, str) or not notebook:
        raise ValueError(f"notebook must be a non-empty str (the notebook's file stem), got {notebook!r}")
    declared = specs(spec_cls)
    check_injected(spec_cls, namespace)
    profile = check_choice("profile", namespace.get("profile", "full"), PROFILES)
    missing = [name for name in declared if name not in namespace]
    if missing:
        raise ValueError(f"the parameters cell must assign {missing} (declared by {spec_cls.__name__})")
    facts = _runner_facts(namespace)
    passed = passed_parameters(spec_cls, namespace, facts.get("passed"))
    quick = profile == "quick"
    spec = spec_cls(**{name: s.quick if quick and s.quick is not MISSING and name not in passed else namespace[name]
                       for name, s in declared.items()})
    out = spec.to_params()
    profile, workers, seed, trials = check_notebook_common(profile, namespace.get("workers"),
                                                           namespace.get("seed", 0), out.get("trials", 1))
    values = {"profile": profile, "workers": workers, "seed": seed, **out}
    notebook = facts.get("notebook") or notebook
    if facts.get("publish"):
        folders = paths.RunContext(True, paths.REPO_ROOT, notebook)
    elif facts.get("out_dir"):
        folders = paths.RunContext(False, Path(facts["out_dir"]), notebook)
    else:
        folders = paths.RunContext(False, paths.run_dir(notebook, passed), notebook)
    progress = Path(facts["progress_file"]) if facts.get("progress_file") else None
    if update:
        namespace.update(values)
    from simlib.pipeline.sweep import ProcessPool     # no processes until a sweep runs on them

    return Run(notebook, profile, seed, trials, workers, MappingProxyType(passed), MappingProxyType(values), folders,
               progress, spec, facts.get("dask_address"), ProcessPool(workers))
