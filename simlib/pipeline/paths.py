"""Where the current run writes its outputs (the static locations are :mod:`simlib.core.paths`,
re-exported here).

**Run context.**  The committed results -- ``figures/``, ``data/results/`` and
the claims ledger -- change only through a full-profile ``make reproduce``:
its runner (:mod:`simlib.pipeline.notebooks`) sets ``SIMLIB_PUBLISH=1`` in the
kernel's environment.  Every other run (quick profile, custom parameters,
papermill by hand, a notebook opened in JupyterLab, a script) writes to a run
folder of its own, ``build/runs/<notebook>/<parameter hash>/`` (the runner
names it in ``SIMLIB_RUN_DIR``; otherwise it is derived from the parameters
papermill injected).  :data:`FIGURES` and :data:`RESULTS` are looked up
through the run context each time they are read, so notebook code written as
``save_figure(fig, name, figures_dir=paths.FIGURES)`` or
``paths.RESULTS / "x.csv"`` needs nothing else.
"""
from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from simlib.core.paths import (CACHE, COMMITTED_FIGURES, COMMITTED_LEDGER, COMMITTED_RESULTS, REPO_ROOT,  # noqa: F401
                               RUNS, announce_locations)

#: "1": this run writes the committed results (set only by the notebook runner).
PUBLISH_ENV = "SIMLIB_PUBLISH"
#: Run folder chosen by the notebook runner for a non-publishing run.
RUN_DIR_ENV = "SIMLIB_RUN_DIR"
#: Notebook name (file stem) set by the notebook runner.
NOTEBOOK_ENV = "SIMLIB_NOTEBOOK"
#: JSON file the sweeps report their progress to (set by the notebook runner).
PROGRESS_ENV = "SIMLIB_PROGRESS_FILE"

#: Parameters that do not change any result (they are left out of the run folder's hash).
RESULT_NEUTRAL_PARAMETERS = frozenset({"workers"})
#: First line of the cell papermill injects after a notebook's ``parameters`` cell.
_INJECTED_MARK = "# Parameters"
_PARAMETERS_CELL = re.compile(r'^# %% .*tags=\["parameters"\].*?\n(.*?)(?=^# %%|\Z)', re.M | re.S)


@dataclass(frozen=True)
class RunContext:
    """Where this run writes: the committed folders (``publish``) or ``out_dir``."""

    publish: bool
    out_dir: Path
    notebook: str
    #: Parameters passed to this run (papermill-injected), as given.
    parameters: dict = field(default_factory=dict)

    @property
    def figures(self) -> Path:
        return COMMITTED_FIGURES if self.publish else self.out_dir / "figures"

    @property
    def results(self) -> Path:
        return COMMITTED_RESULTS if self.publish else self.out_dir / "results"

    @property
    def ledger(self) -> Path:
        return self.results / "claims.csv"


def parameter_hash(parameters: dict) -> str:
    """Run-folder name for ``parameters``: ``"defaults"`` if none change a result, else 10 hex digits."""
    kept = {k: v for k, v in parameters.items() if k not in RESULT_NEUTRAL_PARAMETERS}
    if not kept:
        return "defaults"
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _history() -> list[str]:
    """Source of the cells this IPython kernel executed (empty outside IPython)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return []
    shell = ipython.get_ipython()
    if shell is None:
        return []
    return [c for c in shell.user_ns.get("In", []) if isinstance(c, str)]


class _ReadFloatCalls(ast.NodeTransformer):
    """``float('inf')``, ``float('-inf')``, ``float('nan')`` (how papermill writes non-finite floats) as constants."""

    def visit_Call(self, node: ast.Call):
        if (isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            try:
                return ast.copy_location(ast.Constant(float(node.args[0].value)), node)
            except ValueError:
                pass
        return self.generic_visit(node)


def _assignments(source: str) -> dict:
    """``name = <value>`` assignments of a cell: every assigned name counts as passed.

    A value is read as a literal, with papermill's ``float('inf')``/``float('nan')`` read as
    those floats; any other expression (``papermill -r name <expr>``) is kept as its source
    text, so the run still counts the parameter as passed and gets a run folder of its own.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(_ReadFloatCalls().visit(node.value))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                out[node.targets[0].id] = ast.unparse(node.value)
    return out


def passed_parameters() -> dict:
    """The parameters papermill injected into this kernel (``{}`` if none, or outside a notebook).

    Read from the last executed cell that starts with papermill's ``# Parameters`` line.
    """
    for source in reversed(_history()):
        if source.lstrip().startswith(_INJECTED_MARK):
            return _assignments(source)
    return {}


def finite_json(value):
    """``value`` with every non-finite float written as text (``"inf"``, ``"-inf"``, ``"nan"``), for
    strict JSON such as the ledger's parameters column; lists, tuples and dicts are walked."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    return value


def _notebook_name() -> str:
    """This notebook's file stem: from the runner, JupyterLab's session, or its parameters cell."""
    if os.environ.get(NOTEBOOK_ENV):
        return os.environ[NOTEBOOK_ENV]
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        session = shell.user_ns.get("__session__")
        if isinstance(session, str) and session:
            return Path(session).stem
        executed = {c.strip() for c in _history()}
        for source in sorted((REPO_ROOT / "notebooks").glob("[0-9]*.py")):
            match = _PARAMETERS_CELL.search(source.read_text(encoding="utf-8"))
            if match and match.group(1).strip() in executed:
                return source.stem
        return "notebook"
    script = Path(sys.argv[0]).stem if sys.argv and sys.argv[0] else ""
    return script if script and not script.startswith("-") else "python"   # `python -c`: argv[0] == "-c"


def run_context() -> RunContext:
    """The current run's :class:`RunContext` (see the module docstring for the rules)."""
    parameters = passed_parameters()
    notebook = _notebook_name()
    if os.environ.get(PUBLISH_ENV) == "1":
        return RunContext(True, REPO_ROOT, notebook, parameters)
    if os.environ.get(RUN_DIR_ENV):
        return RunContext(False, Path(os.environ[RUN_DIR_ENV]), notebook, parameters)
    return RunContext(False, RUNS / notebook / parameter_hash(parameters), notebook, parameters)


_announced: set[Path] = set()


def announce(context: RunContext | None = None) -> None:
    """Say once per run folder where a non-publishing run writes (nothing for a publishing run):
    relative to the repository root inside a checkout, else the absolute path (and, once per
    process, where the trial cache is: :func:`simlib.core.paths.announce_locations`)."""
    context = context or run_context()
    if context.publish or context.out_dir in _announced:
        return
    _announced.add(context.out_dir)
    announce_locations()
    where = context.out_dir.resolve()
    if where.is_relative_to(REPO_ROOT):
        where = where.relative_to(REPO_ROOT)
    print(f"[simlib] outputs of this run (figures/, results/, results/claims.csv) go to {where}/; "
          "the committed results change only through a full-profile `make reproduce`.")


#: Facts about the running notebook that the claims ledger records (profile, trials, seed).
_run_facts: dict = {}


def note_run(**facts) -> None:
    """Remember ``profile``/``trials``/``seed`` of this run for the ledger rows (last value wins)."""
    _run_facts.update({k: v for k, v in facts.items() if v is not None})


def run_facts() -> dict:
    return dict(_run_facts)


def __getattr__(name: str):
    # FIGURES and RESULTS follow the run context (module-level __getattr__, PEP 562).  A run
    # folder is created on first use, so `paths.RESULTS / "x.csv"` can be written at once, as
    # the committed folders always exist.
    if name in ("FIGURES", "RESULTS"):
        context = run_context()
        folder = context.figures if name == "FIGURES" else context.results
        if not context.publish:
            announce(context)
            folder.mkdir(parents=True, exist_ok=True)
        return folder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
