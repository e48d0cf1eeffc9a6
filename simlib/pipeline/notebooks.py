"""Execute the project notebooks with papermill: ``python -m simlib.pipeline.notebooks``.

Every ``notebooks/[0-9]*.py`` (jupytext percent format, sorted by name) is
paired with ``notebooks/NAME.ipynb`` (jupytext formats ``ipynb,py:percent``).
For each notebook the runner

1. synchronizes the pair (``jupytext --sync``: the more recently modified file
   gives the inputs, outputs stay in the ``.ipynb``); an unpaired source is
   converted to ``BUILD/notebooks/NAME.ipynb`` instead;
2. executes the ``.ipynb`` with papermill on the ``simlib`` kernel, with the
   working directory set to the **repository root** (``root``) and that root
   first on the kernel's ``PYTHONPATH`` (see ``_kernel_for_root``);
3. tells the notebook's :class:`~simlib.pipeline.run.Run` which notebook runs and where it
   writes, as one papermill parameter ``simlib_run`` (``notebook``, ``publish``, ``out_dir``,
   ``progress_file``, ``passed``: the names of the ``-p`` parameters, which the quick profile
   keeps whatever their value, and ``dask_address``: where its sweeps run; decisions S21, S22, S32):

   * **publishing run** -- ``profile`` full and no ``-p`` parameters
     (``--workers`` changes no result): figures go to ``figures/``, CSVs and
     the ledger to ``data/results/``, wall-clock measurements to
     ``data/measurements/`` (decision S26), and the executed notebook -- scrubbed of
     timestamps, timings, absolute and temporary paths, host names, process ids
     and memory addresses (:func:`scrub`), without
     papermill's injected-parameters cell -- replaces ``notebooks/NAME.ipynb``
     (a copy stays in ``BUILD/executed/``).  This is ``make reproduce``.
   * **any other run** -- everything, the executed notebook included, goes to
     ``build/runs/NAME/<parameter hash>/`` under the root, and the runner says so.

Parameters: ``profile`` (``--profile``, default ``full``) is passed to every
notebook, ``workers`` only when ``--workers`` is given, and ``-p KEY VALUE``
adds more (``VALUE`` in YAML: ``5``, ``0.5``, ``"[40, 80]"``, ``cnn``).
Every passed key must be declared in the notebook's parameters cell
(papermill itself would only warn about unknown ones); the notebook then
validates the values in its own second cell (``simlib.start``).
Before it starts, the runner prints how many notebooks it runs and the
estimated total time, from the times recorded by earlier runs
(:mod:`simlib.pipeline.timing`); then, per notebook, its estimate
(``[3/18] 12_sr_fig8-10_parameters (est. 1m40s)``), and while a sweep runs how
many trials of how many are done and an estimate of the time left; at the end a
table of estimated and measured times.

Recorded times (wall and CPU seconds, profile, ok, sweep trials computed and
cached, the last time from an empty trial cache, decision S28; the machine-pace probe
of the run, decision S35): a publishing run
updates its notebooks' rows of ``data/results/notebook_times.csv`` (committed; the
estimate of full-profile runs); a quick-profile run with no ``-p`` parameters
updates ``BUILD/notebook_times_quick.csv`` (the estimate of quick runs); every
non-publishing run also writes its notebook's row to
``build/runs/NAME/<hash>/results/notebook_times.csv``.  What the estimate's file
lacks comes from ``data/measurements/reference_times_<profile>.csv`` (committed,
measured from an empty trial cache); a run that starts with an empty trial cache
is estimated from times measured so only.  The command line first runs the machine-pace probe
(:mod:`simlib.pipeline.pace`, ``--no-probe`` skips it): each recorded time that has a probe of its
own is scaled by this run's probe over it.

``--jobs N`` (``ExecOptions(jobs=N)``) runs up to N notebooks at once, each in a process of its own: each
chain's notebooks (:func:`notebook_chains`: a paper's, or a set its contract declares) one after another in
their order, different chains beside each other, the chain with the most work left first; it needs a warm numba
cache (``make warm``), else it runs one at a time and says so (decision S37).  ``--warm``
(``ExecOptions(warm=True)``, what ``make reproduce`` passes) first runs the warm-up (:mod:`simlib.pipeline.warm`)
unless its stamp is current, in a thread beside the notebooks: a notebook whose kernel families it has compiled
(:data:`simlib.pipeline.warm.NOTEBOOK_FAMILIES`) starts on a core it leaves idle, the others after it (decision
S38).

The exit status is non-zero if any notebook failed; the failures are listed.

Usage from Python (the notebook tests do this)::

    results = run_notebooks(profile="quick", root=scratch_copy_of_repo, build_dir=tmp_path)
    assert all(r.ok for r in results)
"""
from __future__ import annotations

import argparse
import ast
import concurrent.futures
import contextlib
import dataclasses
import fnmatch
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from simlib.pipeline import paths, timing, warm
from simlib.pipeline.atomic import atomic_write_bytes
from simlib.pipeline.run import RUNNER_PARAMETER
from simlib.pipeline.timing import read_trials_log, trials_log
from simlib.core.paths import REPO_ROOT as ROOT
from simlib.core.validate import check_real

NOTEBOOK_DIR = ROOT / "notebooks"
DEFAULT_BUILD_DIR = ROOT / "build"
KERNEL_NAME = "simlib"
PROFILES = ("full", "quick")
NOTEBOOK_GLOB = "[0-9]*.py"
#: Recorded times: of publishing runs under ``<root>/data/results/``, of quick runs in the build folder.
TIMES_FILE = "notebook_times.csv"
QUICK_TIMES_FILE = "notebook_times_quick.csv"


@dataclass(frozen=True)
class ExecOptions:
    """How papermill executes each notebook: the Jupyter kernel (``kernel_name``), whether the
    cells' output streams to this terminal (``log_output``), papermill's progress bar
    (``progress_bar``), the per-cell timeout in seconds (``cell_timeout``, > 0; None: none) and the
    Dask scheduler the notebooks' sweeps run on (``dask_address``, e.g. ``'tcp://host:8786'``; None:
    this machine; S32); ``pace_probe``: run the machine-pace probe before the first notebook (S35, the
    command line's default); ``jobs``: how many notebooks run at once (1 to :data:`MAX_JOBS`; above 1, each
    in a process of its own, each chain's notebooks in their order: :func:`notebook_chains`, decision S37);
    ``warm``: compile the numba kernels first (:func:`simlib.pipeline.warm.warm`, a no-op on a warm cache) in a
    thread beside the notebooks, starting on a core it leaves idle each notebook whose kernel families it has
    compiled (:func:`simlib.pipeline.warm.notebook_families`), the others after it (decision S38)."""
    kernel_name: str = KERNEL_NAME
    log_output: bool = False
    progress_bar: bool = False
    cell_timeout: float | None = None
    dask_address: str | None = None
    pace_probe: bool = False
    jobs: int = 1
    warm: bool = False

    def __post_init__(self):
        if not isinstance(self.kernel_name, str) or not self.kernel_name:
            raise ValueError(f"kernel_name must be a non-empty str, got {self.kernel_name!r}")
        if self.cell_timeout is not None:
            check_real("cell_timeout", self.cell_timeout, 0.0, lo_open=True)
        if self.dask_address is not None and (not isinstance(self.dask_address, str) or not self.dask_address):
            raise ValueError(f"dask_address must be None or a scheduler address (e.g. 'tcp://host:8786'), "
                             f"got {self.dask_address!r}")
        if not isinstance(self.pace_probe, bool):
            raise ValueError(f"pace_probe must be True or False, got {self.pace_probe!r}")
        if not isinstance(self.warm, bool):
            raise ValueError(f"warm must be True or False, got {self.warm!r}")
        check_jobs(self.jobs)


#: The most notebooks :class:`ExecOptions` lets run at once (each starts a kernel and its own sweep pool).
MAX_JOBS = 64


def check_jobs(jobs, name: str = "jobs") -> int:
    """``jobs`` if it is an integer from 1 to :data:`MAX_JOBS` (notebooks run at once); else a ValueError
    naming ``name`` and the range."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"{name} must be an integer from 1 to {MAX_JOBS} (notebooks run at once), got {jobs!r}")
    return jobs


def notebook_chains(names) -> dict[str, list[str]]:
    """``{chain: [notebook stems, in the order given]}``: the notebooks that must run one after another
    (decision S37).  A chain is a paper's notebooks -- the registry's group whose first digits
    (:func:`simlib.papers.registry.notebook_groups`) include the stem's first character -- or, where the paper
    splits them (:func:`simlib.papers.registry.notebook_chains`: 004's BSP notebooks 40, 41, 47 and its SSP
    notebooks 43-46, 48), one of its sets; a stem starting with another character is a chain with the others
    that start with it.  Notebooks of one chain read the trials an earlier one cached and the tables an
    earlier one committed (notebooks 11-14 read 16's search, 22 reads 23's, 41 reads 47's: as in a run one at
    a time, the table of the last publishing run); different chains share no ledger row and read no file
    another chain writes."""
    from simlib.papers.registry import notebook_chains as declared, notebook_groups

    group = {digit: key for key, _, digits in notebook_groups() for digit in digits}
    split = declared()
    chains: dict[str, list[str]] = {}
    for name in names:
        key = split.get(name) or group.get(name[:1], f"digit {name[:1]}")
        chains.setdefault(key, []).append(name)
    return chains


@dataclass
class NotebookResult:
    name: str
    source: Path
    output: Path
    ok: bool
    seconds: float
    error: str = ""
    parameters: dict = field(default_factory=dict)
    #: True: wrote the committed results; False: wrote to ``out_dir``.
    publish: bool = False
    out_dir: Path | None = None
    #: CPU seconds of the runner and the child processes it waited for (kernel, sweep workers);
    #: None where the platform does not report children's CPU time.
    cpu_seconds: float | None = None
    #: Sweep trials computed / read from the trial cache (None: unknown, e.g. the notebook failed
    #: before its sweeps reported; :func:`simlib.pipeline.timing.read_trials_log`).
    computed: int | None = None
    cached: int | None = None


def discover(notebook_dir: Path | str = NOTEBOOK_DIR, only: str | list[str] | None = None) -> list[Path]:
    """Return the notebook sources ``[0-9]*.py`` in ``notebook_dir``, sorted by name.

    ``only`` filters by name: a glob (``"01_*"``) matched against the file name
    and its stem; else the names that start with it (``"10_"`` selects
    ``10_...`` but not ``12_sr_fig8-10_...``), or, if none does, the names
    containing it.  A list of patterns (a repeated ``--only``) selects the
    notebooks any of them selects.
    """
    if isinstance(only, (list, tuple)):
        chosen = {p for pattern in only for p in discover(notebook_dir, pattern)}
        return sorted(chosen)
    paths = sorted(p for p in Path(notebook_dir).glob(NOTEBOOK_GLOB) if p.is_file())
    if only:
        if any(c in only for c in "*?["):
            return [p for p in paths if fnmatch.fnmatch(p.name, only) or fnmatch.fnmatch(p.stem, only)]
        prefixed = [p for p in paths if p.name.startswith(only)]
        paths = prefixed or [p for p in paths if only in p.name]
    return paths


def parse_value(text: str):
    """Interpret a ``-p KEY VALUE`` string as YAML (``5``, ``0.5``, ``[40, 80]``, ``true``,
    ``null``), else as a Python literal (``None``, ``1e6``), else keep the string."""
    import yaml

    lowered = text.strip().lower()
    if lowered == "none":
        return None
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        value = text
    if isinstance(value, str):
        try:
            literal = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return value
        return literal
    return value


PAIRED_FORMATS = "ipynb,py:percent"
KERNELSPEC = {"name": KERNEL_NAME, "display_name": "Python (simlib)", "language": "python"}


def convert(source: Path, build_dir: Path) -> Path:
    """Convert a jupytext percent-format ``.py`` notebook to ``build_dir/notebooks/NAME.ipynb``."""
    import jupytext

    nb = jupytext.read(source, fmt="py:percent")
    # Execution uses kernel_name explicitly; keep the metadata consistent too.
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    target = build_dir / "notebooks" / f"{source.stem}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, target, fmt="ipynb")
    return target


def is_paired(source: Path) -> bool:
    """Whether the ``.py`` source declares the ``ipynb,py:percent`` pairing in its header."""
    import jupytext

    formats = jupytext.read(source, fmt="py:percent").metadata.get("jupytext", {}).get("formats", "")
    return "ipynb" in formats.split(",")


def sync_pair(source: Path) -> Path:
    """``jupytext --sync`` the paired ``source`` (``.py``) and its ``.ipynb``; return the ``.ipynb``.

    The most recently modified file gives the inputs, outputs are kept from the
    ``.ipynb``, and files whose content would not change are not rewritten.
    A missing ``.ipynb`` is created.
    """
    from jupytext.cli import jupytext as jupytext_cli

    status = jupytext_cli(["--sync", "--quiet", str(source)])
    if status:
        raise RuntimeError(f"jupytext --sync {source} failed (status {status}); see the message above")
    return source.with_suffix(".ipynb")


def prepare(source: Path, build_dir: Path) -> Path:
    """The ``.ipynb`` papermill executes: the synchronized pair, or a converted copy if unpaired."""
    return sync_pair(source) if is_paired(source) else convert(source, build_dir)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
#: IPython's file name for a cell's code, ``/tmp/ipykernel_<pid>/<hash>.py`` (in warnings and tracebacks).
_KERNEL_CELL = re.compile(r"(?:[A-Za-z]:)?[\\/][^\s'\"]*?ipykernel_\d+[\\/]\d+\.py")
#: Timestamps: ISO 8601 date and time (``2026-11-29T00:50:03.123+00:00``, ``2026-11-29 00:50:03``).
_TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b")
#: A path under the temporary folder once that folder became ``<tmp>``: its names are random.
_TEMP_PATH = re.compile(r"<tmp>/[^\s'\"]+")
#: A process id named as such: ``pid 1234``, ``pid=1234``, ``PID: 1234``, ``process 1234``.
_PID = re.compile(r"\b(pid|PID|process)([ =:]+)\d+\b")


def scrub_text(text: str, replacements) -> str:
    """``text`` without what differs between two executions of the same notebook (decision S26):
    each ``(prefix, short)`` of ``replacements`` (longest first: the repository, the Python
    installation, the temporary folder, the home folder, the host name) replaced, a path under the
    temporary folder cut to ``<tmp>/...`` (its names are random), then IPython's
    cell file names (``/tmp/ipykernel_<pid>/<hash>.py`` -> ``<cell>``), memory addresses
    (`` at 0x7f...``), timestamps (-> ``<timestamp>``) and named process ids (``pid 123`` ->
    ``pid <pid>``) removed."""
    text = _KERNEL_CELL.sub("<cell>", text)
    for prefix, short in replacements:
        if short == "<host>":    # a name, not a path: whole words only
            text = re.sub(rf"(?<![\w.-]){re.escape(prefix)}(?![\w-])", short, text)
        elif prefix:    # the prefix as a whole path: "/tmp" in "/tmp/x" or "/tmp:", never in "/tmpfoo"
            text = text.replace(prefix + os.sep, short + "/")
            text = re.sub(rf"{re.escape(prefix)}(?![\w.-])", lambda _: short, text)
    text = _TEMP_PATH.sub("<tmp>/...", text)          # names under the temporary folder are random
    text = _ADDRESS.sub("", text)
    text = _TIMESTAMP.sub("<timestamp>", text)
    return _PID.sub(lambda m: f"{m.group(1)}{m.group(2)}<pid>", text)


def scrub_replacements(root: Path) -> list[tuple[str, str]]:
    """The ``(prefix, short)`` pairs :func:`scrub_text` replaces, longest prefix first: ``root`` ->
    ``.``, the Python installation -> ``<python>``, the temporary folder -> ``<tmp>``, the home
    folder -> ``~``, the host name -> ``<host>`` (whole words only, if it has 2 or more characters)."""
    import socket

    pairs = {(str(root), "."), (sys.prefix, "<python>"), (sys.base_prefix, "<python>"),
             (tempfile.gettempdir(), "<tmp>"), (str(Path.home()), "~")}
    host = socket.gethostname()
    if len(host) >= 2:
        pairs.add((host, "<host>"))
    return sorted((p for p in pairs if p[0] and p[0] != os.sep), key=lambda p: -len(p[0]))


def scrub(nb, root: Path):
    """Make an executed notebook deterministic, in place; returns it.

    Drops papermill's and the execution timing metadata (start/end times,
    durations), gives papermill's injected-parameters cell (in a run folder's copy) a fixed id
    instead of its random one, merges a cell's consecutive outputs of one stream into one (where
    a kernel's flushes split a cell's printed text depends on timing; nbconvert's
    ``CoalesceStreamsPreprocessor``), and cleans every text output and traceback with :func:`scrub_text`
    (the absolute ``root`` becomes ``.``, the Python installation ``<python>``, the temporary
    folder ``<tmp>`` (a path in it ``<tmp>/...``), the home folder ``~``, the host name
    ``<host>``; IPython's cell file names, memory addresses, timestamps and process ids go).
    """
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    nb.metadata.pop("papermill", None)
    nb.metadata.pop("widgets", None)
    CoalesceStreamsPreprocessor().preprocess(nb, {})
    replacements = scrub_replacements(Path(root))

    def clean(text: str) -> str:
        return scrub_text(text, replacements)

    for cell in nb.cells:
        cell.metadata.pop("papermill", None)
        cell.metadata.pop("execution", None)
        if "injected-parameters" in cell.metadata.get("tags", []) and "id" in cell:
            cell["id"] = "injected-parameters"          # papermill draws a random id for the cell it adds
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = clean(out["text"] if isinstance(out["text"], str) else "".join(out["text"]))
            for mime, value in out.get("data", {}).items():
                if mime.startswith("text/") and isinstance(value, (str, list)):
                    out["data"][mime] = clean(value if isinstance(value, str) else "".join(value))
            if out.get("output_type") == "error":
                out["traceback"] = [clean(line) for line in out.get("traceback", [])]
    return nb


def publish_notebook(executed: Path, source: Path, root: Path) -> Path:
    """Write the scrubbed ``executed`` notebook over ``source``'s paired ``.ipynb``, then re-sync.

    papermill's injected-parameters cell is dropped (a publishing run passes
    only the defaults), so the ``.ipynb``'s inputs stay those of the ``.py``.
    """
    import nbformat

    nb = scrub(nbformat.read(str(executed), as_version=4), root)
    nb.cells = [c for c in nb.cells if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    import jupytext

    target = source.with_suffix(".ipynb")
    text = jupytext.writes(nb, fmt="ipynb")
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    sync_pair(source)
    return target


def kernel_available(kernel_name: str = KERNEL_NAME) -> bool:
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(kernel_name)
    except NoSuchKernel:
        return False
    return True


def ensure_kernel(kernel_name: str = KERNEL_NAME) -> None:
    """Make sure the Jupyter kernel exists; register it in this venv if it does not.

    ``make venv`` normally registers it (with PYTHONPATH pointing at the repo);
    this fallback only helps when the tests are run in a venv set up by hand.
    """
    if kernel_available(kernel_name):
        return
    if sys.prefix == sys.base_prefix:
        raise RuntimeError(
            f"Jupyter kernel {kernel_name!r} is not installed; run `make venv` "
            f"(or `python -m ipykernel install --sys-prefix --name {kernel_name}` in the venv)")
    import subprocess

    print(f"run_notebooks: registering missing Jupyter kernel {kernel_name!r} in {sys.prefix}",
          file=sys.stderr)
    subprocess.run(
        [sys.executable, "-m", "ipykernel", "install", "--sys-prefix", "--name", kernel_name,
         "--display-name", "Python (simlib)", "--env", "PYTHONPATH", str(ROOT)],
        check=True, stdout=subprocess.DEVNULL,
    )


def declared_parameters(ipynb: Path) -> set[str] | None:
    """Names assigned in the notebook's ``parameters`` cell (None if it has none).

    Parsed with :mod:`ast` rather than papermill's line-based inspector, which
    gives up on lines such as ``workers = None  # ... (None = all cores)``.
    """
    import nbformat

    nb = nbformat.read(str(ipynb), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            names: set[str] = set()
            for node in ast.walk(ast.parse(cell.source)):
                targets = (node.targets if isinstance(node, ast.Assign)
                           else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                           else [])
                for target in targets:
                    for sub in ast.walk(target):
                        if isinstance(sub, ast.Name):
                            names.add(sub.id)
            return names
    return None


def _fast_exit_argv(argv: list) -> list:
    """A kernelspec's ``argv`` with ``-m ipykernel_launcher`` replaced by ``-m simlib.pipeline.kernel``: the same
    kernel, which ends without the interpreter's teardown (0.4-0.5 s of wall per notebook; decision S41).  Any other
    command (a kernelspec of another launcher) is kept as it is."""
    from simlib.pipeline.kernel import IPYKERNEL_MODULE, MODULE

    argv = list(argv)
    for i in range(len(argv) - 1):
        if argv[i] == "-m" and argv[i + 1] == IPYKERNEL_MODULE:
            argv[i + 1] = MODULE
            break
    return argv


@contextlib.contextmanager
def _kernel_for_root(kernel_name: str, root: Path, build_dir: Path):
    """Expose, for the duration, a copy of kernelspec ``kernel_name`` that imports from ``root``.

    The registered kernelspec sets ``PYTHONPATH`` to the repository it was
    installed from (for interactive use), and ``PYTHONPATH`` precedes the
    working directory on ``sys.path``.  So that ``root`` -- the repository, or
    the scratch copy the tests use -- provides ``simlib``, the run uses a copy
    of the spec under ``build_dir/jupyter`` with ``PYTHONPATH`` starting with
    ``root``, found first through ``JUPYTER_PATH``; the copy starts the kernel
    through :mod:`simlib.pipeline.kernel` (:func:`_fast_exit_argv`, decision S41).
    """
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(kernel_name).to_dict()
    spec["argv"] = _fast_exit_argv(spec.get("argv") or [])
    outer = os.environ.get("PYTHONPATH", "")
    kernel_env = dict(spec.get("env") or {})
    parts = [str(root)] + [p for p in outer.split(os.pathsep) if p and p != str(root)]
    kernel_env["PYTHONPATH"] = os.pathsep.join(parts)
    spec["env"] = kernel_env
    jupyter_dir = build_dir / "jupyter"
    spec_dir = jupyter_dir / "kernels" / kernel_name
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec_file, text = spec_dir / "kernel.json", json.dumps(spec, indent=1)
    if not spec_file.is_file() or spec_file.read_text(encoding="utf-8") != text:   # notebooks run at once
        atomic_write_bytes(spec_file, text.encode("utf-8"))                          # may read it meanwhile

    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(jupyter_dir.resolve()), old) if p)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("JUPYTER_PATH", None)
        else:
            os.environ["JUPYTER_PATH"] = old


def _quiet_kernel_manager(socket_dir: str):
    """A kernel manager class for papermill that keeps a successful run silent.

    * IPC transport (Unix sockets in ``socket_dir``) instead of TCP on
      localhost, so ipykernel has no unencrypted-TCP warning to print;
    * no SIGINT at shutdown: jupyter_client interrupts a kernel before asking
      it to shut down, which makes ipykernel log "KeyboardInterrupt caught in
      kernel" after every notebook.
    """
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class QuietKernelManager(AsyncKernelManager):
        @default("transport")
        def _transport_default(self):
            return "ipc" if os.name == "posix" else "tcp"

        @default("ip")
        def _ip_default(self):
            return os.path.join(socket_dir, "kernel") if self.transport == "ipc" else "127.0.0.1"

        async def _async_interrupt_kernel(self):
            if self.shutting_down:
                return
            await super()._async_interrupt_kernel()

    return QuietKernelManager


def _undeclared(ipynb: Path, parameters: dict) -> list[str] | None:
    declared = declared_parameters(ipynb)
    if declared is None:
        return None
    return sorted(k for k in parameters if k not in declared)


_fmt_seconds = timing.format_duration


def _cpu_seconds() -> float | None:
    """User + system CPU seconds of this process and its waited-for children (None off POSIX)."""
    if os.name != "posix":
        return None
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class ProgressMonitor:
    """Print a notebook's sweep progress (from its progress file) while it runs.

    On a terminal one status line is rewritten every ``interval_s``; otherwise
    a line is printed every ``log_interval_s``.  The estimate of the time left
    extrapolates the rate of the trials computed in this run (cached trials
    excluded).
    """

    def __init__(self, label: str, progress_file: Path, echo, *, tty: bool,
                 interval_s: float = 2.0, log_interval_s: float = 30.0):
        self.label, self.file, self.echo, self.tty = label, progress_file, echo, tty
        self.interval_s = interval_s if tty else log_interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._shown = False

    def status(self, now: float | None = None) -> str | None:
        """The status line; ``now`` (``time.time()``) counts the time since the file's last report into
        the elapsed time, which the sweep writes only as trials finish (the first may compile for minutes)."""
        try:
            rec = json.loads(self.file.read_text(encoding="utf-8"))
            since = max(0.0, (time.time() if now is None else now) - self.file.stat().st_mtime)
        except (OSError, ValueError):
            return None
        done, total, initial = rec["done"], rec["total"], rec["initial"]
        text = f"{self.label} {rec['desc']}: {done}/{total} trials"
        if initial:
            text += f" ({initial} cached)"
        computed, elapsed = done - initial, rec["elapsed_s"]
        if done >= total:
            return text + f" done in {_fmt_seconds(elapsed)}; finishing the notebook"
        text += f", {_fmt_seconds(elapsed + since)} elapsed"
        if computed > 0:
            text += f", about {_fmt_seconds(elapsed / computed * (total - done))} left"
        else:
            text += " (no trial finished yet: the first includes compiling the kernels on a fresh checkout)"
        return text

    def _loop(self):
        while not self._stop.wait(self.interval_s):
            text = self.status()
            if text:
                if self.tty:
                    sys.stderr.write("\r\x1b[K" + text)
                    sys.stderr.flush()
                    self._shown = True
                else:
                    self.echo(text)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        if self._shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def is_publishing(profile: str, extra: dict | None) -> bool:
    """A run writes the committed results iff it is full-profile with the notebooks' defaults."""
    return profile == "full" and not extra


def run_dir_for(root: Path, notebook: str, parameters: dict) -> Path:
    """``<root>/build/runs/<notebook>/<parameter hash>``: the folder of a non-publishing run."""
    return paths.run_dir(notebook, parameters, runs=Path(root) / "build" / "runs")


def check_build_dir(build_dir: Path | str, root: Path | str = ROOT, *, name: str = "build_dir") -> Path:
    """``build_dir`` as a Path if the runner may use it as its build folder, else a ValueError
    naming ``name`` and why: it (or a parent) is a file, the nearest existing folder is not
    writable, or it is the repository ``root`` or inside a committed folder of ``root``
    (``figures/``, ``data/results/``, ``data/measurements/``, ``notebooks/``).  Writes nothing."""
    path = Path(build_dir)
    resolved, root = path.resolve(), Path(root).resolve()
    if resolved == root:
        raise ValueError(f"{name} must not be the repository root {root}, got {str(path)!r}")
    for committed in (paths.COMMITTED_FIGURES, paths.COMMITTED_RESULTS, paths.COMMITTED_MEASUREMENTS, NOTEBOOK_DIR):
        rel = committed.relative_to(paths.REPO_ROOT)
        if resolved.is_relative_to(root / rel):
            raise ValueError(f"{name} must not be inside the committed folder {rel.as_posix()}/ "
                             f"(only `make reproduce` writes there), got {str(path)!r}")
    existing = resolved
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        why = "it is a file" if existing == resolved else f"{existing} is a file"
        raise ValueError(f"{name} must be a directory, got {str(path)!r}: {why}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{name} must be writable, got {str(path)!r} ({existing} is not writable)")
    return path


class _RunnerParameterFilter(logging.Filter):
    """papermill warns about each parameter a parameters cell does not assign; the runner's own
    ``simlib_run`` (decision S21) is one on purpose, so its warning is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != f"Passed unknown parameter: {RUNNER_PARAMETER}"


_PAPERMILL_FILTER = _RunnerParameterFilter()


def run_notebook(
    source: Path,
    parameters: dict,
    *,
    build_dir: Path = DEFAULT_BUILD_DIR,
    options: ExecOptions = ExecOptions(),
    root: Path | str = ROOT,
    publish: bool | None = None,
    echo=None,
    label: str = "",
    dask_address: str | None = None,
    progress_tty: bool | None = None,
) -> NotebookResult:
    """Synchronize and execute one notebook; never raises for notebook errors.

    ``options``: how papermill executes it (:class:`ExecOptions`: kernel, output, timeout).
    ``root`` is the working directory of the kernel (default: this repository).
    The notebook tests point it at a scratch copy of the repository.
    ``publish`` (default: :func:`is_publishing` of the parameters) chooses
    between writing the committed results and the run folder
    :func:`run_dir_for`; the run folder exists only if the notebook wrote to it or
    succeeded (a run rejected by its parameter check leaves none; its executed copy
    stays under ``build_dir/executed/``).  ``echo`` receives progress lines while sweeps run.
    ``dask_address``: the Dask scheduler the notebook's sweeps run on (None: this machine; S32).
    ``progress_tty``: rewrite one progress line on the terminal (True) or print a line every 30 s
    (False; notebooks running at once do so); None: whether stderr is a terminal.
    """
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    source = Path(source)
    build_dir = Path(build_dir)
    root = Path(root).resolve()
    if publish is None:
        publish = is_publishing(parameters.get("profile", "full"),
                                {k: v for k, v in parameters.items() if k not in ("profile", "workers")})
    out_dir = None if publish else run_dir_for(root, source.stem, parameters)
    # papermill writes into build_dir; a non-publishing run's executed copy moves into its run
    # folder at the end if the run succeeded or wrote an output there (the folder is created on
    # the notebook's first write), so a run rejected by its parameter check leaves no run folder.
    final = None if publish else out_dir / f"{source.stem}.ipynb"
    staged = f"{source.stem}.ipynb" if publish else f"{source.stem}-{out_dir.name}.ipynb"
    output = build_dir / "executed" / staged
    output.parent.mkdir(parents=True, exist_ok=True)
    output.unlink(missing_ok=True)  # never leave a stale copy from an earlier run
    if final is not None:
        final.unlink(missing_ok=True)
    progress_file = build_dir / "progress" / f"{source.stem}.json"
    progress_file.parent.mkdir(parents=True, exist_ok=True)
    progress_file.unlink(missing_ok=True)
    trials_log(progress_file).unlink(missing_ok=True)
    logging.getLogger("papermill").addFilter(_PAPERMILL_FILTER)    # idempotent
    # what the notebook's Run needs from the runner, as one papermill parameter (decision S21); "passed"
    # names the user's parameters, so one equal to the full default still counts as passed (S22)
    facts = {"notebook": source.stem, "publish": publish, "out_dir": None if publish else str(out_dir),
             "progress_file": str(progress_file.resolve()),
             "passed": [] if publish else sorted(k for k in parameters if k not in ("profile", "workers")),
             "dask_address": dask_address}
    start, cpu_start = time.perf_counter(), _cpu_seconds()

    def result(ok: bool, error: str = "") -> NotebookResult:
        nonlocal output
        cpu = None if cpu_start is None else max(0.0, _cpu_seconds() - cpu_start)
        if final is not None and output.exists() and (ok or out_dir.is_dir()):
            final.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(output, final)
            output = final
        counts = read_trials_log(progress_file) or ((0, 0) if ok else (None, None))   # ok, no log: no sweep
        return NotebookResult(source.stem, source, output, ok, time.perf_counter() - start,
                              error, dict(parameters), publish, out_dir, cpu, *counts)

    try:
        ipynb = prepare(source, build_dir)
        unknown = _undeclared(ipynb, parameters)
        if unknown is None:
            return result(False, "no parameters cell (a code cell tagged 'parameters'; in the "
                                 "percent format: # %% tags=[\"parameters\"])")
        if unknown:
            return result(False, "parameter(s) not declared in the notebook's parameters "
                                 f"cell: {', '.join(unknown)}")
        engine_kwargs = {}
        if options.cell_timeout is not None:
            engine_kwargs["execution_timeout"] = options.cell_timeout
        monitor = (ProgressMonitor(label or source.stem, progress_file, echo,
                                   tty=sys.stderr.isatty() if progress_tty is None else progress_tty)
                   if echo else contextlib.nullcontext())
        with tempfile.TemporaryDirectory(prefix="simlib-kernel-") as sockets, \
                _kernel_for_root(options.kernel_name, root, build_dir), monitor:
            pm.execute_notebook(
                str(ipynb), str(output),
                parameters={**parameters, RUNNER_PARAMETER: facts},
                kernel_name=options.kernel_name,
                cwd=str(root),
                log_output=options.log_output,
                progress_bar=options.progress_bar,
                kernel_manager_class=_quiet_kernel_manager(sockets),
                **engine_kwargs,
            )
    except PapermillExecutionError as exc:
        return result(False, f"{exc.ename}: {exc.evalue} (In [{exc.exec_count}])")
    except Exception as exc:  # kernel death, timeouts, conversion errors, ...
        return result(False, f"{type(exc).__name__}: {exc}")
    try:
        import nbformat

        nb = scrub(nbformat.read(str(output), as_version=4), root)
        nbformat.write(nb, str(output))
        if publish and is_paired(source):
            publish_notebook(output, source, root)
    except Exception as exc:
        return result(False, f"{type(exc).__name__} while saving the executed notebook: {exc}")
    return result(True)


def committed_times_path(root: Path | str = ROOT) -> Path:
    """``<root>/data/results/notebook_times.csv``: the times of the last publishing run of each notebook."""
    return Path(root).resolve() / paths.COMMITTED_RESULTS.relative_to(paths.REPO_ROOT) / TIMES_FILE


#: Committed reference times per profile, measured from an empty trial cache (decision S28).
REFERENCE_TIMES_FILE = "reference_times_{profile}.csv"


def reference_times_path(profile: str, root: Path | str = ROOT) -> Path:
    """``<root>/data/measurements/reference_times_<profile>.csv``: the ``profile``'s committed reference
    times, measured from an empty trial cache (so every row has a ``cold_wall_s``), which give a
    fresh clone an estimate before its first notebook (decision S28; data/measurements/README.md)."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {list(PROFILES)}, got {profile!r}")
    folder = paths.COMMITTED_MEASUREMENTS.relative_to(paths.REPO_ROOT)
    return Path(root).resolve() / folder / REFERENCE_TIMES_FILE.format(profile=profile)


def estimate_times_path(profile: str, root: Path | str = ROOT,
                        build_dir: Path | str = DEFAULT_BUILD_DIR) -> Path:
    """The times file a ``profile`` run is estimated from: the committed one (full) or the quick one."""
    return committed_times_path(root) if profile == "full" else Path(build_dir) / QUICK_TIMES_FILE


def recorded_times(profile: str, root: Path | str = ROOT,
                   build_dir: Path | str = DEFAULT_BUILD_DIR) -> tuple[dict, str, str]:
    """``(recorded, source, unreadable)``: the times a ``profile`` run is estimated from, where they
    come from (for the estimate line) and why a file was ignored ("" if none was).

    The profile's own times file (:func:`estimate_times_path`: the committed one for full,
    ``build/notebook_times_quick.csv`` for quick) gives each notebook's row; the committed
    :func:`reference_times_path` adds the notebooks it lacks and the cold time (``cold_wall_s``)
    of a row that has none, so a fresh clone has an estimate before its first notebook.
    """
    files = [estimate_times_path(profile, root, build_dir), reference_times_path(profile, root)]
    tables, used, problems = [], [], []
    for path in files:
        try:
            rows = timing.read_times(path)
        except ValueError as exc:
            problems.append(str(exc))
            rows = {}
        if rows:
            used.append(_show(path, root))
        tables.append(rows)
    recorded = dict(tables[0])
    for name, ref in tables[1].items():
        own = recorded.get(name)
        if own is None:
            recorded[name] = ref
        elif own.cold_wall_s is None and ref.cold_wall_s is not None and own.profile == ref.profile:
            recorded[name] = dataclasses.replace(own, cold_wall_s=ref.cold_wall_s, cold_probe_s=ref.cold_probe_s)
    return recorded, " and ".join(used) or _show(files[0], root), "; ".join(problems)


def cache_is_empty(cache: Path | str | None = None) -> bool:
    """True if the trial cache (default :data:`simlib.core.paths.CACHE`) holds no trial file: a run
    starting now computes every trial (a *cold* run; its times are the estimate's ``cold_wall_s``)."""
    cache = Path(paths.CACHE if cache is None else cache)
    return not cache.is_dir() or next((p for p in cache.rglob("*.json") if p.is_file()), None) is None


def record_time(res: NotebookResult, profile: str, *, extra: dict | None = None,
                root: Path | str = ROOT, build_dir: Path | str = DEFAULT_BUILD_DIR,
                keep=None, cold: bool = False, probe_s: float | None = None, jobs: int | None = None) -> list[Path]:
    """Record ``res``'s wall and CPU time and its computed / cached trials where its run belongs;
    return the files written.  ``jobs``: the most notebooks the run had at once (None: unknown).

    ``cold``: the run started from an empty trial cache, so a successful notebook's wall time is
    also its ``cold_wall_s`` (a row recorded without one keeps the file's earlier cold time).
    ``probe_s``: the run's machine-pace probe (CPU seconds; None: none ran), recorded as the row's
    ``probe_s`` and, with a cold time, its ``cold_probe_s`` (decision S35).
    A publishing run updates its row of :func:`committed_times_path` (``keep``:
    which other rows stay, default all); any other run writes its run folder's
    ``results/notebook_times.csv`` (unless it failed before creating that folder),
    and a quick run without extra parameters also updates the quick-profile times
    file in ``build_dir``.
    """
    cold_now = cold and res.ok
    row = timing.Timing(res.name, res.seconds, res.ok, profile, res.cpu_seconds, res.computed, res.cached,
                        res.seconds if cold_now else None, probe_s, probe_s if cold_now else None, jobs)
    if res.publish:
        return [timing.update_times(committed_times_path(root), [row], keep=keep)]
    written = []
    if res.out_dir is not None and (res.ok or Path(res.out_dir).is_dir()):  # none if failed before any output
        written.append(timing.update_times(Path(res.out_dir) / "results" / TIMES_FILE, [row]))
    if profile == "quick" and not extra:
        written.append(timing.update_times(Path(build_dir) / QUICK_TIMES_FILE, [row]))
    return written


def fresh_ledger(root: Path | str = ROOT) -> Path:
    """Remove the committed claims ledger under ``root`` so a full run rebuilds it; return its path.

    Claims a notebook no longer records (renamed or removed) then do not linger.
    """
    ledger = _committed_ledger(root)
    ledger.unlink(missing_ok=True)
    return ledger


def run_notebooks(
    notebooks: list[Path] | None = None,
    *,
    profile: str = "full",
    workers: int | None = None,
    extra: dict | None = None,
    only: str | None = None,
    build_dir: Path | str = DEFAULT_BUILD_DIR,
    options: ExecOptions = ExecOptions(),
    fail_fast: bool = False,
    root: Path | str = ROOT,
    echo=print,
    new_ledger: bool = False,
    cold: bool | None = None,
) -> list[NotebookResult]:
    """Run ``notebooks`` (default: all discovered, filtered by ``only``) and return the results.

    ``options`` say how papermill executes each notebook (:class:`ExecOptions`).
    Everything is validated before anything is written.  ``new_ledger=True``
    (only for a publishing run) removes the committed ledger first, and the
    committed times file then keeps only the rows of ``notebooks``.  Each
    notebook's time is recorded as soon as it finishes (:func:`record_time`).  ``cold`` (default:
    :func:`cache_is_empty` when the run starts) says the run computes every trial: it is estimated
    from, and records, the times of runs from an empty trial cache (decision S28).  ``options.dask_address``
    (a scheduler address, or None: this machine) is where every notebook's sweeps run (S32; the
    command line's default is ``$DASK_SCHEDULER_ADDRESS``).  ``options.pace_probe`` (the command line's default)
    first runs the machine-pace probe (:func:`run_probe`): the estimate scales each recorded time that has
    a probe by this one over it, and each notebook's time is recorded with it (decision S35).

    ``options.jobs`` above 1 runs that many notebooks at once, each in a process of its own, on a warm numba
    cache only (else one at a time, said so): the chains of :func:`notebook_chains` (each paper's notebooks, or
    the sets its contract declares) keep their order, a free slot starts the next notebook of the chain with the
    most work left (recorded CPU seconds), and each notebook's sweeps still get ``workers`` processes.  The
    results come back in the order of ``notebooks``; a publishing run's ledger is put in the order a run one at
    a time gives, the times are recorded as each notebook finishes, and ``fail_fast`` starts no other notebook
    after a failure (those running finish).  The estimate adds the makespan of that schedule
    (:func:`simlib.pipeline.timing.makespan`; decision S37).

    ``options.warm`` compiles the numba kernels first unless the warm-up's stamp is current (:class:`_WarmUp`,
    decision S38): while the warm-up runs, a notebook whose kernel families it has compiled
    (:func:`simlib.pipeline.warm.notebook_families`) starts, in a process of its own, on a core the warm-up leaves
    idle (the chain with the most work left first, each chain in its order), the others wait for its end; then
    ``options.jobs`` applies (one at a time: in the order given).  A publishing run's ledger is put in the order
    a run one at a time gives, as with ``jobs`` above 1; the machine-pace probe (which loads kernels of three
    families) runs when the warm-up has ended, and the times of the notebooks finished before it are recorded
    then, with it.
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {list(PROFILES)}, got {profile!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if not isinstance(options, ExecOptions):
        raise ValueError(f"options must be an ExecOptions, got {options!r}")
    extra = dict(extra or {})
    for key in extra:
        if not isinstance(key, str) or not key.isidentifier() or key in ("profile", "workers"):
            raise ValueError(f"extra must map parameter names (identifiers other than profile and "
                             f"workers) to values, got key {key!r}")
    build_dir = check_build_dir(build_dir, root)
    publish = is_publishing(profile, extra)
    if new_ledger and not publish:
        raise ValueError("new_ledger applies only to a publishing run (profile 'full', no extra parameters)")
    if notebooks is None:
        notebooks = discover(only=only)
    parameters = {"profile": profile}
    if workers is not None:
        parameters["workers"] = workers
    parameters.update(extra)
    if notebooks:
        ensure_kernel(options.kernel_name)
    names = [Path(nb).stem for nb in notebooks]
    recorded, times_source, unreadable = recorded_times(profile, root, build_dir)
    cold = cache_is_empty() if cold is None else cold
    warming_up = options.warm and bool(notebooks) and not warm.is_warm()     # a warm-up beside the notebooks (S38)
    if options.warm and notebooks and not warming_up:
        warm.warm(echo=echo or (lambda text: None))        # says that the kernels are compiled
    # before the probe, which may load kernels; with a warm-up running, the probe waits for its end
    jobs = options.jobs if warming_up else _usable_jobs(options.jobs, len(notebooks), echo)
    probe_pending = warming_up and options.pace_probe
    probe_s = run_probe(echo) if options.pace_probe and notebooks and not probe_pending else None
    est = timing.estimate(names, recorded, profile=profile, cold=cold, probe_s=probe_s)
    if echo and notebooks:
        if publish:
            echo("publishing run (profile full, default parameters): writes figures/, data/results/ "
                 "and the executed notebooks/*.ipynb")
        else:
            echo(f"run with {parameters}: outputs go to build/runs/<notebook>/"
                 f"{paths.parameter_hash(parameters)}/ (the committed results are not touched)")
        if unreadable:
            echo(f"ignoring the recorded times: {unreadable}")
        echo(est.line("notebook", times_source))
        if cold:
            echo("the trial cache is empty, so every trial is computed: estimated from the times of runs "
                 "that started from an empty trial cache")
    if new_ledger and notebooks:
        fresh_ledger(root)

    keep = set(names).__contains__ if new_ledger else None
    kernels = warm.cache_root(Path(root) / "simlib")
    chain_of = _chain_keys(names)
    work, parallelism = _work(est, recorded, names)
    if echo and jobs > 1:
        echo(_schedule_line(est, recorded, names, chain_of, parallelism, jobs, workers))
    elif echo and notebooks:
        least, most, at_once = _alone_range(est, recorded, names, _cores())
        if at_once > 1 and most - least >= 0.5:
            echo(f"these times were recorded with up to {at_once} notebooks at once: one at a time this run may "
                 f"take as little as {_fmt_seconds(least)} (alone, a notebook's sweeps may use up to {_cores()} cores)")
    if echo and warming_up:
        echo(_warm_plan_line(names, probe_pending))
    warmup = _WarmUp.start(echo) if warming_up else None
    at_once = jobs > 1 or warmup is not None       # notebooks may run out of the order given
    ledger = _committed_ledger(root) if publish and at_once else None
    owners = _LedgerOwners(ledger, names, chain_of)
    queue: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        queue.setdefault(chain_of[name], []).append(i)
    results: dict[int, NotebookResult] = {}
    paced, cpu_paced = {}, {}
    running: dict = {}       # future -> (index, label, compiled files before it started, started beside the warm-up)
    stop, t_run = False, time.perf_counter()
    deferred = []            # results whose times wait for the probe (run when the warm-up has ended)
    pool = (concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, _cores())) if at_once else None)
    try:
        while True:
            warming = warmup is not None and warmup.running()
            if warmup is not None and not warming and not warmup.settled:      # the warm-up has just ended
                warmup.settled = True
                jobs = warmup.usable_jobs(options.jobs, echo)
                if probe_pending:
                    probe_pending, probe_s = False, run_probe(echo)
                    est = timing.estimate(names, recorded, profile=profile, cold=cold, probe_s=probe_s)
                    work, parallelism = _work(est, recorded, names)
                    if echo:
                        echo(f"    {est.line('notebook', times_source)}")
                        if jobs > 1:     # the whole run's schedule again, at the probe's pace (the line above sums)
                            echo(f"    {_schedule_line(est, recorded, names, chain_of, parallelism, jobs, workers)}")
                for res, at in deferred:
                    _record(res, profile, extra=extra, root=root, build_dir=build_dir, keep=keep, cold=cold,
                            probe_s=probe_s, jobs=at)
                deferred = []
            busy = {chain_of[names[i]] for i, *_ in running.values()}
            free = {k: [names[i] for i in q] for k, q in queue.items() if q and k not in busy
                    and (not warming or warmup.ready(names[q[0]]))}
            # one at a time: the order given; at once (or beside the warm-up): the chain with the most work left
            # first (S37); beside the warm-up, only on the cores it leaves idle (S38)
            order = (timing.chain_order(free, work) if jobs > 1 or warming else sorted(free, key=lambda k: queue[k][0]))
            # a notebook started beside the warm-up finishes on the warm-up's core: after it, it takes no slot
            slots = (min(jobs, warmup.idle_cores()) - len(running) if warming
                     else jobs - sum(not beside for *_, beside in running.values()))
            for k in [] if stop else order[:max(0, slots)]:
                i = queue[k].pop(0)
                label = f"[{len(results) + len(running) + 1}/{len(notebooks)}] {names[i]}"
                if echo:
                    guess = est.per_name.get(names[i])
                    echo(f"{label} ({'no estimate' if guess is None else f'est. {_fmt_seconds(guess)}'})")
                before = warm.compiled_files(kernels)
                args = (Path(notebooks[i]), parameters)
                kwargs = dict(build_dir=Path(build_dir), options=options, root=root, publish=publish, echo=echo,
                              label=label, dask_address=options.dask_address)
                if pool is None or (jobs == 1 and not warming and not running):    # (its CPU count: no other child)
                    future = concurrent.futures.Future()
                    future.set_result(run_notebook(*args, **kwargs))
                else:     # beside the warm-up at a lower priority: the warm-up is what the other notebooks wait for
                    future = pool.submit(_run_in_process, *args, nice=BESIDE_WARM_UP_NICE if warming else 0, **kwargs)
                running[future] = (i, label, before, warming)
            if not running:
                if warmup is not None and not warmup.settled:
                    warmup.wait(0.5)        # nothing can start before the warm-up compiles more, or ends
                    continue
                break
            done, _ = concurrent.futures.wait(running, timeout=0.5 if warming else None,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: running[f][0]):
                i, label, before, beside = running.pop(future)
                res, name = future.result(), names[i]
                # with notebooks at once, a kernel compiled by any of them while this one ran counts (S33, S37);
                # the warm-up's own kernels do not (S38): beside it, only those no family compiled
                compiled = warm.compiled_outside(warm.compiled_files(kernels) - before,
                                                 warmup.log if beside else None)
                paced[name] = res.seconds if res.ok and not compiled else None   # compiling is not the pace (S33)
                cpu_paced[name] = res.cpu_seconds if res.ok and not compiled else None
                # the most notebooks at once while it ran: one beside the warm-up shared the machine with it (S38)
                at = max(min(jobs, len(names)), 2 if beside else 1)
                if probe_pending:
                    deferred.append((res, at))
                else:
                    _record(res, profile, extra=extra, root=root, build_dir=build_dir, keep=keep, cold=cold,
                            probe_s=probe_s, jobs=at)
                clash = owners.finished(name)
                if echo:
                    status = "ok" if res.ok else "FAILED"
                    where = f" -> {_show(res.output, root)}" if res.output.exists() else ""
                    why = (f" (compiled {compiled} kernel specialization(s){' while it ran' if at_once else ''}: "
                           "not counted in the pace)" if compiled else "")
                    echo(f"{label} {status} in {_fmt_seconds(res.seconds)}{where}{why}")
                    if not res.ok:
                        echo(f"    {res.error}")
                    if clash:
                        echo(f"    {clash}")
                results[i] = res
                if fail_fast and not res.ok:
                    stop = True
                left_over = [names[j] for j in range(len(names)) if j not in results]
                if echo and left_over and not stop:
                    left = (est.remaining_line(paced) if jobs == 1 else
                            _remaining_at_once(est, cpu_paced, left_over, chain_of, work, parallelism,
                                               (jobs, workers)))
                    if left:
                        echo(f"    {left}")
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
        if warmup is not None:
            warmup.log.unlink(missing_ok=True)
    if ledger is not None:
        owners.sort()
    results = [results[i] for i in sorted(results)]
    if echo and results:
        echo("")
        echo(timing.timing_table([(r.name, est.per_name.get(r.name), r.seconds, r.ok) for r in results]))
        if at_once:
            beside = " and the warm-up beside the first ones" if warmup is not None else ""
            echo(f"the run took {_fmt_seconds(time.perf_counter() - t_run)} with up to {jobs} notebooks at once"
                 f"{beside} (the table's total adds up each notebook's own time)")
    return results


def _record(res: NotebookResult, profile: str, **kwargs) -> None:
    """:func:`record_time` of ``res``, a failure to write said on stderr (the run goes on)."""
    try:
        record_time(res, profile, **kwargs)
    except (OSError, ValueError) as exc:
        print(f"run_notebooks: could not record the time of {res.name}: {exc}", file=sys.stderr)


class _WarmUp:
    """The warm-up (:func:`simlib.pipeline.warm.warm`, all families, each in a process of its own) in a thread of
    the notebook runner, so that notebooks start beside it once their kernel families are compiled (decision
    S38)."""

    def __init__(self, echo):
        self.echo = echo or (lambda text: None)
        # the cache stems of the kernels the families compile (warm's compiled_log), removed when the run ends
        fd, name = tempfile.mkstemp(prefix="simlib-warm-compiled-", suffix=".txt")
        os.close(fd)
        self.log = Path(name)
        self.compiled, self.families = frozenset(), frozenset()      # finished without a failure; running
        self.report, self.error, self.settled = None, "", False
        self._lock, self._changed, self._ended = threading.Lock(), threading.Event(), threading.Event()

    @classmethod
    def start(cls, echo) -> "_WarmUp":
        self = cls(echo)
        threading.Thread(target=self._run, name="simlib-warm-up", daemon=True).start()
        return self

    def _run(self):
        try:
            self.report = warm.warm(echo=self.echo, on_change=self._change, compiled_log=self.log)
        except Exception as exc:  # the notebooks then compile what they need, one at a time
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self._ended.set()
            self._changed.set()

    def _change(self, compiled, running):
        with self._lock:
            self.compiled, self.families = compiled, running
        self._changed.set()

    def running(self) -> bool:
        return not self._ended.is_set()

    def wait(self, timeout: float) -> None:
        """Until the warm-up's state changes (a family started or finished, or it ended), at most ``timeout`` s."""
        self._changed.wait(timeout)
        self._changed.clear()

    def ready(self, name: str) -> bool:
        """Whether notebook ``name`` may start now: every family it names (:func:`warm.notebook_families`) is
        compiled; a notebook that names none waits for the whole warm-up."""
        families = warm.notebook_families(name)
        with self._lock:
            return families is not None and set(families) <= self.compiled

    def idle_cores(self) -> int:
        """The machine's cores less the warm-up's running families (each compiles on one core)."""
        with self._lock:
            return max(0, _cores() - len(self.families))

    def usable_jobs(self, jobs: int, echo) -> int:
        """After the warm-up: ``jobs``, or 1 (said) if it failed, since the notebooks then compile (S37)."""
        ok = self.report is not None and self.report.ok
        if jobs > 1 and not ok:
            if echo:
                why = self.error or "some kernels were not compiled"
                echo(f"the warm-up did not complete ({why}): running the other notebooks one at a time, so that no "
                     "two processes compile one kernel at once")
            return 1
        return jobs


def _warm_plan_line(names, probe_pending: bool) -> str:
    """What starts beside the warm-up (S38): the notebooks that name their kernel families, and when the probe runs."""
    families = {n: warm.notebook_families(n) for n in names}
    early = [n for n in names if families[n] is not None]
    by = {}
    for n in early:
        by.setdefault(", ".join(families[n]), []).append(n[:2])
    named = "; ".join(f"{' '.join(ns)} after {fams}" for fams, ns in by.items())
    text = (f"compiling the kernels (the warm-up) beside the notebooks: {len(early)} of the {len(names)} notebooks "
            f"start once their kernel families are compiled and their chain's earlier notebooks have run, on a core "
            f"the warm-up leaves idle"
            f"{f' ({named})' if named else ''}; the others after the warm-up (decision S38)")
    if probe_pending:
        text += "; the machine-pace probe runs after the warm-up, and rescales the estimate"
    return text


def _usable_jobs(jobs: int, n_notebooks: int, echo) -> int:
    """``jobs``, or 1 (said through ``echo``) while numba's kernel cache is not warm: two notebooks' processes
    could then compile one kernel at once, and numba saves its cache index without a lock (S33, S37)."""
    if jobs > 1 and n_notebooks > 1 and not warm.is_warm():
        if echo:
            echo("numba's kernel cache is not warm (run `make warm`, i.e. python -m simlib.pipeline.warm): running "
                 "one notebook at a time, so that no two processes compile one kernel at once")
        return 1
    return jobs


def _chain_keys(names) -> dict[str, str]:
    """``{name: its chain}`` (:func:`notebook_chains`)."""
    return {name: key for key, members in notebook_chains(list(dict.fromkeys(names))).items() for name in members}


def _work(est: timing.Estimate, recorded: dict, names) -> tuple[dict, dict]:
    """``(work, parallelism)`` per name: the estimate's wall seconds times the recorded CPU over wall seconds
    (the busy cores), in CPU seconds; parallelism None (and work the wall seconds) where the record has no CPU
    time, work None where there is no estimate."""
    work, parallelism = {}, {}
    for name in names:
        rec, seconds = recorded.get(name), est.per_name.get(name)
        ratio = None
        if rec is not None and rec.cpu_s is not None and rec.wall_s > 0:
            ratio = rec.cpu_s / rec.wall_s
        parallelism[name] = ratio
        work[name] = None if seconds is None else seconds * (ratio if ratio is not None else 1.0)
    return work, parallelism


def _alone_range(est: timing.Estimate, recorded: dict, names, cores: float) -> tuple[float, float, int]:
    """``(least, most, jobs)``: wall seconds of the notebooks with an estimate run one at a time, and the most
    notebooks at once of the runs that recorded their times.  ``most`` is the sum of the estimates; a notebook
    recorded with ``jobs`` > 1 at once had about ``cores / jobs`` of the machine, so alone its CPU / wall ratio
    could reach its recorded ratio times ``jobs`` (at most ``cores``): ``least`` counts each at that ratio."""
    least = most = 0.0
    most_jobs = 1
    for name in names:
        seconds, rec = est.per_name.get(name), recorded.get(name)
        if seconds is None:
            continue
        most += seconds
        if rec is None or rec.jobs is None or rec.jobs <= 1 or rec.cpu_s is None or rec.wall_s <= 0:
            least += seconds
            continue
        most_jobs = max(most_jobs, rec.jobs)
        ratio = rec.cpu_s / rec.wall_s
        least += seconds * ratio / max(ratio, min(cores, ratio * rec.jobs))
    return least, most, most_jobs


def _alone_text(est: timing.Estimate, recorded: dict, names, cores: float) -> str:
    """``"one at a time 20m39s to 40m27s: ..."`` (a range when the times were recorded with several notebooks
    at once, see :func:`_alone_range`), else ``"one at a time 40m27s"``."""
    least, most, jobs = _alone_range(est, recorded, names, cores)
    if jobs <= 1 or most - least < 0.5:
        return f"one at a time {_fmt_seconds(most)}"
    return (f"one at a time {_fmt_seconds(least)} to {_fmt_seconds(most)}: the times were recorded with up to "
            f"{jobs} notebooks at once, and alone a notebook's sweeps may use up to {cores:g} cores")


def _cores() -> int:
    return os.cpu_count() or 1


def _schedule_line(est: timing.Estimate, recorded: dict, names, chain_of: dict, parallelism: dict, jobs: int,
                   workers: int | None) -> str:
    """The estimate with ``jobs`` notebooks at once: the makespan of :func:`simlib.pipeline.timing.makespan` over
    the notebooks with an estimate, each at most ``workers`` cores busy when given (S37)."""
    known = [n for n in names if est.per_name.get(n) is not None]
    if not known:
        return f"up to {jobs} notebooks at once (no estimate of the schedule: no recorded times)"
    chains = {}
    for n in known:
        chains.setdefault(chain_of[n], []).append(n)
    span = timing.makespan(chains, est.per_name, parallelism, jobs=jobs, cores=_cores(), cap=workers)
    part = "" if len(known) == len(names) else f" of the {len(known)} notebooks with an estimate"
    return (f"up to {jobs} notebooks at once on {_cores()} cores: estimated {_fmt_seconds(span)}{part} (a schedule "
            f"of these estimates, each notebook at its recorded CPU / wall ratio; "
            f"{_alone_text(est, recorded, known, _cores())})")


def _remaining_at_once(est: timing.Estimate, cpu_paced: dict, left_over, chain_of: dict, work: dict,
                       parallelism: dict, slots: tuple, prior_s: float = timing.PACE_PRIOR_S) -> str | None:
    """The remaining-time line with notebooks at once (S37): the schedule of the notebooks not finished (the
    running ones counted whole, so an upper bound) times the pace of the finished ones' CPU seconds over their
    estimated work (CPU seconds, unlike wall seconds, do not stretch when notebooks share the cores), shrunk
    towards the estimates as :meth:`simlib.pipeline.timing.Estimate.remaining` does.  ``slots``: (notebooks at
    once, the sweeps' workers or None)."""
    jobs, workers = slots
    done = [n for n, cpu in cpu_paced.items() if cpu is not None and work.get(n) is not None]
    chains = {}
    for n in left_over:
        if est.per_name.get(n) is not None:
            chains.setdefault(chain_of[n], []).append(n)
    if not done or not chains:
        return None
    pace = (sum(cpu_paced[n] for n in done) + prior_s) / (sum(work[n] for n in done) + prior_s)
    span = timing.makespan(chains, est.per_name, parallelism, jobs=jobs, cores=_cores(), cap=workers)
    known = sum(len(c) for c in chains.values())
    return est.remaining_text(pace * span, known, len(left_over) - known,
                              f"the running ones counted whole; CPU pace so far {pace:.2f}×",
                              at_once=f" up to {jobs} at once")


def _committed_ledger(root) -> Path:
    return Path(root).resolve() / paths.COMMITTED_LEDGER.relative_to(paths.REPO_ROOT)


class _LedgerOwners:
    """Which notebook first recorded each row of the committed ledger, so that after notebooks ran at once
    its rows can be put in the order a run one at a time gives (decision S37): the rows that were there
    before the run where they were, then the others by the position, in the run, of the notebook that
    first recorded them (each notebook's rows in the order it recorded them).  ``ledger`` None: nothing
    to do (a run one at a time, or a run that writes its own run folders' ledgers)."""

    def __init__(self, ledger: Path | None, names, chain_of: dict):
        self.ledger, self.chain_of = ledger, chain_of
        self.rank = {name: i for i, name in reversed(list(enumerate(names)))}
        self.before = set()
        if ledger is not None:
            from simlib.pipeline.claims import row_owners

            self.before = {key for key, _ in row_owners(ledger)}
        self.owner: dict = {}

    def finished(self, name: str) -> str:
        """Note the rows ``name`` recorded first; returns a warning if it recorded a row first recorded in
        this run by a notebook of another chain (whose final value then depends on which ran last), else ""."""
        if self.ledger is None:
            return ""
        from simlib.pipeline.claims import row_owners

        clashes = []
        for key, notebook in row_owners(self.ledger):
            if notebook != name or key in self.before:
                continue
            first = self.owner.setdefault(key, name)
            if self.chain_of.get(first) != self.chain_of.get(name):
                clashes.append(f"{key} (first recorded by {first})")
        if not clashes:
            return ""
        return (f"WARNING: {name} recorded ledger row(s) a notebook of another chain recorded too, so their value "
                f"depends on which ran last (decision S37): {'; '.join(clashes[:3])}"
                + (f" (+{len(clashes) - 3} more)" if len(clashes) > 3 else ""))

    def sort(self) -> None:
        from simlib.pipeline.claims import sort_rows

        last = len(self.rank)
        sort_rows(self.ledger, lambda key: (0, 0) if key in self.before
                  else (1, self.rank.get(self.owner.get(key), last)))


#: How much lower (``nice`` increment) the priority of a notebook started beside the warm-up is (decision S38):
#: on a busy machine, or with sweep workers on every core, the warm-up's last long family -- which every
#: other notebook waits for -- keeps its core.
BESIDE_WARM_UP_NICE = 10


def _run_in_process(source: Path, parameters: dict, nice: int = 0, **kwargs) -> NotebookResult:
    """:func:`run_notebook` in a process of its own (``python -m simlib.pipeline.notebooks --run-job``), so that
    notebooks running at once share no working directory, environment or CPU-time count; the progress goes
    to this terminal line by line.  ``nice``: added to the process's niceness (POSIX; its kernel and sweep
    workers inherit it).  Never raises for the notebook's errors, as :func:`run_notebook`."""
    import pickle
    import subprocess

    quiet = kwargs.pop("echo", None) is None
    with tempfile.TemporaryDirectory(prefix="simlib-job-") as tmp:
        job, out = Path(tmp) / "job.pickle", Path(tmp) / "result.pickle"
        job.write_bytes(pickle.dumps((source, parameters, kwargs, quiet, nice)))
        here = str(Path(__file__).resolve().parents[2])       # this simlib, as the runner imported it
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        status = subprocess.run([sys.executable, "-m", "simlib.pipeline.notebooks", "--run-job", str(job), str(out)],
                                env=env).returncode
        if out.is_file():
            return NotebookResult(**pickle.loads(out.read_bytes()))
    build = Path(kwargs["build_dir"])
    return NotebookResult(source.stem, source, build / "executed" / f"{source.stem}.ipynb", False, 0.0,
                          f"the notebook's runner process exited with status {status} before reporting",
                          dict(parameters), bool(kwargs.get("publish")), None)


def _job_main(job: str, out: str) -> int:
    """The process of :func:`_run_in_process`: run the pickled job, pickle its :class:`NotebookResult`."""
    import pickle

    source, parameters, kwargs, quiet, nice = pickle.loads(Path(job).read_bytes())
    if nice and hasattr(os, "nice"):
        os.nice(nice)                   # before the kernel and the sweep workers start: they inherit it
    if kwargs["options"].log_output:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    echo = None if quiet else (lambda text: print(text, flush=True))
    res = run_notebook(source, parameters, echo=echo, progress_tty=False, **kwargs)
    Path(out).write_bytes(pickle.dumps(dataclasses.asdict(res)))    # a dict: this module runs as __main__
    return 0


def run_probe(echo=print) -> float | None:
    """The machine-pace probe's CPU seconds (:func:`simlib.pipeline.pace.measure`), said through ``echo``;
    None, with the reason, if it failed (the run goes on with the recorded times as they are)."""
    from simlib.pipeline import pace

    try:
        result = pace.measure()
    except Exception as exc:  # the probe only informs the estimate; a run must not stop for it
        if echo:
            echo(f"machine-pace probe failed ({type(exc).__name__}: {exc}); estimating from the recorded times")
        return None
    if echo:
        echo(f"machine-pace {result.line()}")
    return result.probe_s


def _show(path: Path, root) -> str:
    path, root = Path(path).resolve(), Path(root).resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def build_parser() -> argparse.ArgumentParser:
    # here, not at the top: cli_gen imports the simulator (numba, the cluster), which a notebook's own process
    # (``--run-job``, one per notebook with --jobs) does not need
    from simlib.papers.cli_gen import num_arg

    ap = argparse.ArgumentParser(
        prog="python -m simlib.pipeline.notebooks",
        description="Synchronize notebooks/[0-9]*.py with their .ipynb (jupytext) and execute them "
                    "with papermill (kernel 'simlib', cwd = repository root).  A full-profile run "
                    "with default parameters writes the committed results (figures/, data/results/, "
                    "notebooks/*.ipynb); any other run writes to build/runs/<notebook>/<hash>/.  Before it "
                    "starts it prints the estimated total time from the recorded times of earlier runs "
                    "(data/results/notebook_times.csv, or build/notebook_times_quick.csv for --profile quick).")
    ap.add_argument("--profile", choices=PROFILES, default="full",
                    help="fidelity profile passed to every notebook as `profile` (default: full)")
    ap.add_argument("--workers", type=num_arg("--workers", int, lo=1), metavar="N",
                    help="passed to every notebook as `workers` (default: notebook default)")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                    metavar=("KEY", "VALUE"),
                    help="extra notebook parameter (repeatable); VALUE is read as YAML (5, 0.5, "
                         "'[40, 80]', true, null) or a Python literal, else kept as a string")
    ap.add_argument("--only", metavar="PATTERN", action="append",
                    help="run only notebooks whose file name matches the glob or contains "
                         "the substring (repeat it to run the notebooks any pattern selects)")
    ap.add_argument("--notebook-dir", type=Path, default=NOTEBOOK_DIR, metavar="DIR",
                    help="where to look for [0-9]*.py notebooks (default: notebooks/)")
    ap.add_argument("--build-dir", type=Path, default=DEFAULT_BUILD_DIR, metavar="DIR",
                    help="where notebooks/ (converted) and executed/ go (default: build/); a writable "
                         "folder (created if missing), not the repository root nor inside figures/, "
                         "data/results/ or notebooks/")
    ap.add_argument("--log-output", action="store_true",
                    help="stream the notebooks' cell output to this terminal")
    ap.add_argument("--timeout", type=num_arg("--timeout", lo=0.0, lo_open=True), metavar="SECONDS",
                    help="per-cell execution timeout (default: none)")
    ap.add_argument("--fresh-ledger", action="store_true",
                    help="start a new committed claims ledger (publishing run of every notebook only; "
                         "`make reproduce` passes it)")
    ap.add_argument("-j", "--jobs", type=num_arg("--jobs", int, lo=1, hi=MAX_JOBS), default=1, metavar="N",
                    help=f"run up to N notebooks at once (1 to {MAX_JOBS}; default 1), each chain's notebooks (a "
                         "paper's, or a set of them) in their order, the chain with the most work left first; each "
                         "notebook's sweeps still use --workers processes (decision S37)")
    ap.add_argument("--warm", action="store_true",
                    help="compile the numba kernels first (python -m simlib.pipeline.warm; nothing to do when its "
                         "stamp is current), starting beside it the notebooks whose kernel families it has compiled "
                         "(`make reproduce` passes it; decision S38)")
    ap.add_argument("-x", "--fail-fast", action="store_true",
                    help="stop after the first failing notebook (with --jobs, start no other; those running finish)")
    ap.add_argument("--no-probe", action="store_true",
                    help="skip the machine-pace probe (~15 CPU-s at the start: scales the estimate by the machine's "
                         "pace against the recorded runs', and is recorded with the times; decision S35)")
    ap.add_argument("--list", action="store_true", help="list the selected notebooks and exit")
    return ap


def _skip_iri_format_checks() -> None:
    """For this command's process only: make ``import rfc3987_syntax`` fail, so jsonschema (imported by
    nbformat, papermill and jupytext) leaves out its "iri" format checks.  The package comes with
    JupyterLab's dependencies and builds 38 parsers when imported: about 1 CPU-s in each of a run's
    processes (the runner and one per notebook with ``--jobs``), and notebooks' schemas use no "iri" format."""
    sys.modules.setdefault("rfc3987_syntax", None)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _skip_iri_format_checks()
    if argv[:1] == ["--run-job"] and len(argv) == 3:       # one notebook of a run with --jobs (_run_in_process)
        return _job_main(argv[1], argv[2])
    ap = build_parser()
    args = ap.parse_args(argv)
    extra = {}
    for key, value in args.parameter:
        if not key.isidentifier():
            ap.error(f"argument -p/--parameter: KEY must be a Python identifier, got {key!r}")
        if key in ("profile", "workers"):
            ap.error(f"argument -p/--parameter: use --{key} instead of -p {key}")
        extra[key] = parse_value(value)

    if args.fresh_ledger and not is_publishing(args.profile, extra):
        ap.error("argument --fresh-ledger: only for a publishing run (--profile full, no -p)")
    if args.fresh_ledger and args.only:
        ap.error("argument --fresh-ledger: not with --only (a partial run updates its own rows)")
    try:
        check_build_dir(args.build_dir, name="--build-dir")
    except ValueError as exc:
        ap.error(str(exc))
    if args.log_output:
        # papermill reports cell output through its logger at INFO level.
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    notebooks = discover(args.notebook_dir, only=args.only)
    if args.list:
        for nb in notebooks:
            print(nb.relative_to(ROOT) if nb.is_relative_to(ROOT) else nb)
        return 0
    if not notebooks:
        where = f" matching {' or '.join(map(repr, args.only))}" if args.only else ""
        print(f"run_notebooks: no notebooks{where} in {args.notebook_dir}", file=sys.stderr)
        return 1 if args.only else 0
    from simlib.pipeline.sweep import DASK_ENV, connect_dask   # here: numpy, pandas

    address = os.environ.get(DASK_ENV) or None   # the command line's default (docs/reproducing.md), passed on
    if address:   # every sweep would go there (any profile): check it once, before any notebook runs
        try:
            with connect_dask(address) as client:
                n_workers = len(client.scheduler_info()["workers"])
        except ValueError as exc:
            ap.error(f"environment variable {DASK_ENV}: {exc}")
        print(f"run_notebooks: sweeps run on the Dask cluster at {address} ({n_workers} worker(s), each with "
              "this simlib and the same Python packages)")

    results = run_notebooks(
        notebooks, profile=args.profile, workers=args.workers, extra=extra,
        build_dir=args.build_dir, options=ExecOptions(log_output=args.log_output, cell_timeout=args.timeout,
                                                        dask_address=address, pace_probe=not args.no_probe,
                                                        jobs=args.jobs, warm=args.warm),
        fail_fast=args.fail_fast, new_ledger=args.fresh_ledger,
    )
    failed = [r for r in results if not r.ok]
    print(f"\n{len(results) - len(failed)}/{len(results)} notebook(s) succeeded "
          f"(profile={args.profile}).")
    if failed:
        print("Failed notebooks:", file=sys.stderr)
        for r in failed:
            print(f"  {r.source.name}: {r.error}", file=sys.stderr)
            if r.output.exists():
                print(f"    executed copy: {r.output}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
