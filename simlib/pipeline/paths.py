"""Where a run writes: folder rules from explicit inputs (the static locations are
:mod:`simlib.core.paths`, re-exported here).

The committed results -- ``figures/``, ``data/results/`` and the claims ledger -- and the
committed wall-clock measurements (``data/measurements/``, decision S26) change
only through a full-profile ``make reproduce``: its runner (:mod:`simlib.pipeline.notebooks`)
tells the notebook's :class:`~simlib.pipeline.run.Run` that it publishes.  Every other run
(quick profile, custom parameters, papermill by hand, a notebook opened in JupyterLab, a
script) writes to a run folder of its own, ``build/runs/<notebook>/<parameter hash>/``
(:func:`run_dir`; the runner names it; a script's sweep that names no folder writes to
``build/runs/<script>/defaults/``, :func:`script_context`).  Nothing here reads the
environment, IPython or the notebooks: the caller says which notebook runs, with which
parameters.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

from simlib.core.paths import (CACHE, COMMITTED_FIGURES, COMMITTED_LEDGER, COMMITTED_RESULTS, REPO_ROOT,  # noqa: F401
                               RUNS, announce_locations)

#: Committed wall-clock measurements (solver and selection times, sweep run times, their figures),
#: kept apart from the results so that a re-run's ``git diff`` of results shows only changed
#: results (decision S26); written, like the results, only by a publishing run.  Declared here,
#: not in :mod:`simlib.core.paths`: the training trials import that module, so editing it would
#: invalidate their cached trials (the sweep cache fingerprints a trial's import closure).
COMMITTED_MEASUREMENTS = REPO_ROOT / "data" / "measurements"

#: Parameters that do not change any result (they are left out of the run folder's hash).
RESULT_NEUTRAL_PARAMETERS = frozenset({"workers"})


@dataclass(frozen=True)
class RunContext:
    """Where this run writes: the committed folders (``publish``) or ``out_dir``."""

    publish: bool
    out_dir: Path
    notebook: str

    @property
    def figures(self) -> Path:
        return COMMITTED_FIGURES if self.publish else self.out_dir / "figures"

    @property
    def results(self) -> Path:
        return COMMITTED_RESULTS if self.publish else self.out_dir / "results"

    @property
    def ledger(self) -> Path:
        return self.results / "claims.csv"

    @property
    def measurements(self) -> Path:
        """Wall-clock measurements (decision S26): ``data/measurements/`` or ``<out_dir>/measurements``."""
        return COMMITTED_MEASUREMENTS if self.publish else self.out_dir / "measurements"


def parameter_hash(parameters: dict) -> str:
    """Run-folder name for ``parameters``: ``"defaults"`` if none change a result, else 10 hex digits."""
    kept = {k: v for k, v in parameters.items() if k not in RESULT_NEUTRAL_PARAMETERS}
    if not kept:
        return "defaults"
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


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


def run_dir(notebook: str, parameters: dict, runs: Path = RUNS) -> Path:
    """``<runs>/<notebook>/<parameter hash>``: the folder of a run that does not publish."""
    return Path(runs) / notebook / parameter_hash(parameters)


def script_name(argv: list[str]) -> str:
    """A script's run-folder name: the stem of ``argv[0]`` (``"python"`` for ``python -c``, an
    interactive session or an empty ``argv``)."""
    script = Path(argv[0]).stem if argv and argv[0] else ""
    return script if script and not script.startswith("-") else "python"


def script_context(argv: list[str]) -> RunContext:
    """Where a script's sweep writes when it names no folder: ``<runs>/<script>/defaults/``."""
    name = script_name(argv)
    return RunContext(False, run_dir(name, {}), name)


_announced: set[Path] = set()


def announce(context: RunContext) -> None:
    """Say once per run folder where a non-publishing run writes (nothing for a publishing run):
    relative to the repository root inside a checkout, else the absolute path (and, once per
    process, where the trial cache is: :func:`simlib.core.paths.announce_locations`)."""
    if context.publish or context.out_dir in _announced:
        return
    _announced.add(context.out_dir)
    announce_locations()
    where = context.out_dir.resolve()
    if where.is_relative_to(REPO_ROOT):
        where = where.relative_to(REPO_ROOT)
    print(f"[simlib] outputs of this run (figures/, results/, results/claims.csv) go to {where}/; "
          "the committed results change only through a full-profile `make reproduce`.")
