"""Convert and execute the project notebooks (jupytext -> papermill).

Every ``notebooks/[0-9]*.py`` (jupytext percent format, sorted by name) is

1. converted with jupytext's Python API to ``BUILD/notebooks/NAME.ipynb``;
2. executed with papermill on the ``simlib`` Jupyter kernel, with the working
   directory set to the **repository root** (so relative paths such as
   ``figures/`` and ``data/results/`` resolve there) and that root first on
   the kernel's ``PYTHONPATH`` (so ``import simlib`` finds the in-tree
   package; see ``_kernel_for_root``); the executed notebook, outputs
   included, is written to ``BUILD/executed/NAME.ipynb`` -- also when it fails.

Parameters: ``profile`` (``--profile``, default ``full``) is passed to every
notebook, ``workers`` only when ``--workers`` is given, and ``-p KEY VALUE``
adds more.  Every passed key must be declared in the notebook's parameters
cell (papermill itself would only warn about unknown ones); the notebook then
validates the values in its own second cell with ``simlib.core.validate``.

The exit status is non-zero if any notebook failed; the failures are listed.

Usage from Python (the notebook tests do this)::

    results = run_notebooks(profile="quick", root=scratch_copy_of_repo, build_dir=tmp_path)
    assert all(r.ok for r in results)
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import fnmatch
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from simlib.core.paths import REPO_ROOT as ROOT
from simlib.core.validate import num_arg

NOTEBOOK_DIR = ROOT / "notebooks"
DEFAULT_BUILD_DIR = ROOT / "build"
KERNEL_NAME = "simlib"
PROFILES = ("full", "quick")
NOTEBOOK_GLOB = "[0-9]*.py"


@dataclass
class NotebookResult:
    name: str
    source: Path
    output: Path
    ok: bool
    seconds: float
    error: str = ""
    parameters: dict = field(default_factory=dict)


def discover(notebook_dir: Path | str = NOTEBOOK_DIR, only: str | None = None) -> list[Path]:
    """Return the notebook sources ``[0-9]*.py`` in ``notebook_dir``, sorted by name.

    ``only`` filters by name: a glob (``"01_*"``) matched against the file name
    and its stem, or else a plain substring of the file name.
    """
    paths = sorted(p for p in Path(notebook_dir).glob(NOTEBOOK_GLOB) if p.is_file())
    if only:
        def keep(p: Path) -> bool:
            if any(c in only for c in "*?["):
                return fnmatch.fnmatch(p.name, only) or fnmatch.fnmatch(p.stem, only)
            return only in p.name
        paths = [p for p in paths if keep(p)]
    return paths


def parse_value(text: str):
    """Interpret a ``-p KEY VALUE`` string: Python literal / true / false / null, else str."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def convert(source: Path, build_dir: Path) -> Path:
    """Convert a jupytext percent-format ``.py`` notebook to ``build_dir/notebooks/NAME.ipynb``."""
    import jupytext

    nb = jupytext.read(source, fmt="py:percent")
    # Execution uses kernel_name explicitly; keep the metadata consistent too.
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": "Python (simlib)",
                                 "language": "python"}
    target = build_dir / "notebooks" / f"{source.stem}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, target, fmt="ipynb")
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


@contextlib.contextmanager
def _kernel_for_root(kernel_name: str, root: Path, build_dir: Path):
    """Expose, for the duration, a copy of kernelspec ``kernel_name`` that imports from ``root``.

    The registered kernelspec sets ``PYTHONPATH`` to the repository it was
    installed from (for interactive use), and ``PYTHONPATH`` precedes the
    working directory on ``sys.path``.  So that ``root`` -- the repository, or
    the scratch copy the tests use -- provides ``simlib``, the run uses a copy
    of the spec under ``build_dir/jupyter`` with ``PYTHONPATH`` starting with
    ``root``, found first through ``JUPYTER_PATH``.
    """
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(kernel_name).to_dict()
    outer = os.environ.get("PYTHONPATH", "")
    env = dict(spec.get("env") or {})
    parts = [str(root)] + [p for p in outer.split(os.pathsep) if p and p != str(root)]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    spec["env"] = env
    jupyter_dir = build_dir / "jupyter"
    spec_dir = jupyter_dir / "kernels" / kernel_name
    spec_dir.mkdir(parents=True, exist_ok=True)
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1))

    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(jupyter_dir.resolve()), old) if p)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("JUPYTER_PATH", None)
        else:
            os.environ["JUPYTER_PATH"] = old


def _undeclared(ipynb: Path, parameters: dict) -> list[str] | None:
    declared = declared_parameters(ipynb)
    if declared is None:
        return None
    return sorted(k for k in parameters if k not in declared)


def run_notebook(
    source: Path,
    parameters: dict,
    *,
    build_dir: Path = DEFAULT_BUILD_DIR,
    kernel_name: str = KERNEL_NAME,
    log_output: bool = False,
    progress_bar: bool = False,
    cell_timeout: float | None = None,
    root: Path | str = ROOT,
) -> NotebookResult:
    """Convert and execute one notebook; never raises for notebook errors.

    ``root`` is the working directory of the kernel (default: this repository).
    The notebook tests point it at a scratch copy of the repository so that
    quick runs never overwrite the real ``figures/`` and ``data/results/``.
    """
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    source = Path(source)
    build_dir = Path(build_dir)
    root = Path(root).resolve()
    output = build_dir / "executed" / f"{source.stem}.ipynb"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.unlink(missing_ok=True)  # never leave a stale copy from an earlier run
    start = time.perf_counter()

    def result(ok: bool, error: str = "") -> NotebookResult:
        return NotebookResult(source.stem, source, output, ok, time.perf_counter() - start,
                              error, dict(parameters))

    try:
        ipynb = convert(source, build_dir)
        unknown = _undeclared(ipynb, parameters)
        if unknown is None:
            return result(False, "no parameters cell (a code cell tagged 'parameters'; in the "
                                 "percent format: # %% tags=[\"parameters\"])")
        if unknown:
            return result(False, "parameter(s) not declared in the notebook's parameters "
                                 f"cell: {', '.join(unknown)}")
        engine_kwargs = {}
        if cell_timeout is not None:
            engine_kwargs["execution_timeout"] = cell_timeout
        with _kernel_for_root(kernel_name, root, build_dir):
            pm.execute_notebook(
                str(ipynb), str(output),
                parameters=parameters,
                kernel_name=kernel_name,
                cwd=str(root),
                log_output=log_output,
                progress_bar=progress_bar,
                **engine_kwargs,
            )
    except PapermillExecutionError as exc:
        return result(False, f"{exc.ename}: {exc.evalue} (In [{exc.exec_count}])")
    except Exception as exc:  # kernel death, timeouts, conversion errors, ...
        return result(False, f"{type(exc).__name__}: {exc}")
    return result(True)


def run_notebooks(
    notebooks: list[Path] | None = None,
    *,
    profile: str = "full",
    workers: int | None = None,
    extra: dict | None = None,
    only: str | None = None,
    build_dir: Path | str = DEFAULT_BUILD_DIR,
    kernel_name: str = KERNEL_NAME,
    log_output: bool = False,
    progress_bar: bool = False,
    cell_timeout: float | None = None,
    fail_fast: bool = False,
    root: Path | str = ROOT,
    echo=print,
) -> list[NotebookResult]:
    """Run ``notebooks`` (default: all discovered, filtered by ``only``) and return the results."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {list(PROFILES)}, got {profile!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if notebooks is None:
        notebooks = discover(only=only)
    parameters = {"profile": profile}
    if workers is not None:
        parameters["workers"] = workers
    parameters.update(extra or {})
    if notebooks:
        ensure_kernel(kernel_name)

    results = []
    for nb in notebooks:
        if echo:
            echo(f"[run] {Path(nb).name} {parameters}")
        res = run_notebook(Path(nb), parameters, build_dir=Path(build_dir),
                           kernel_name=kernel_name, log_output=log_output,
                           progress_bar=progress_bar, cell_timeout=cell_timeout, root=root)
        if echo:
            status = "ok" if res.ok else "FAILED"
            where = f" -> {res.output}" if res.output.exists() else ""
            echo(f"[{status}] {res.name} in {res.seconds:.1f} s{where}")
            if not res.ok:
                echo(f"    {res.error}")
        results.append(res)
        if fail_fast and not res.ok:
            break
    return results


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        description="Convert notebooks/[0-9]*.py with jupytext and execute them with "
                    "papermill (kernel 'simlib', cwd = repository root).")
    ap.add_argument("--profile", choices=PROFILES, default="full",
                    help="fidelity profile passed to every notebook as `profile` (default: full)")
    ap.add_argument("--workers", type=num_arg("--workers", int, lo=1), metavar="N",
                    help="passed to every notebook as `workers` (default: notebook default)")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                    metavar=("KEY", "VALUE"),
                    help="extra notebook parameter (repeatable); VALUE is parsed as a Python "
                         "literal, true/false/null, or else kept as a string")
    ap.add_argument("--only", metavar="PATTERN",
                    help="run only notebooks whose file name matches the glob or contains "
                         "the substring")
    ap.add_argument("--notebook-dir", type=Path, default=NOTEBOOK_DIR, metavar="DIR",
                    help="where to look for [0-9]*.py notebooks (default: notebooks/)")
    ap.add_argument("--build-dir", type=Path, default=DEFAULT_BUILD_DIR, metavar="DIR",
                    help="where notebooks/ (converted) and executed/ go (default: build/)")
    ap.add_argument("--log-output", action="store_true",
                    help="stream the notebooks' cell output to this terminal")
    ap.add_argument("--timeout", type=num_arg("--timeout", lo=0.0, lo_open=True), metavar="SECONDS",
                    help="per-cell execution timeout (default: none)")
    ap.add_argument("-x", "--fail-fast", action="store_true",
                    help="stop after the first failing notebook")
    ap.add_argument("--list", action="store_true", help="list the selected notebooks and exit")
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    extra = {}
    for key, value in args.parameter:
        if not key.isidentifier():
            ap.error(f"argument -p/--parameter: KEY must be a Python identifier, got {key!r}")
        if key in ("profile", "workers"):
            ap.error(f"argument -p/--parameter: use --{key} instead of -p {key}")
        extra[key] = parse_value(value)

    if args.log_output:
        # papermill reports cell output through its logger at INFO level.
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    notebooks = discover(args.notebook_dir, only=args.only)
    if args.list:
        for nb in notebooks:
            print(nb.relative_to(ROOT) if nb.is_relative_to(ROOT) else nb)
        return 0
    if not notebooks:
        where = f" matching {args.only!r}" if args.only else ""
        print(f"run_notebooks: no notebooks{where} in {args.notebook_dir}", file=sys.stderr)
        return 1 if args.only else 0

    results = run_notebooks(
        notebooks, profile=args.profile, workers=args.workers, extra=extra,
        build_dir=args.build_dir, log_output=args.log_output,
        progress_bar=sys.stderr.isatty() and not args.log_output,
        cell_timeout=args.timeout, fail_fast=args.fail_fast,
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
