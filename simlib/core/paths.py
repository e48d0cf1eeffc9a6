"""Where simlib reads and writes, independent of the current working directory.

Notebooks run from the repository root under ``make reproduce`` but from
``notebooks/`` when opened interactively; building paths from here makes both
use the same folders.  Where the *current run* writes (the committed folders or
a run folder of its own) is :mod:`simlib.pipeline.paths`.

**Checkout or installed package** (decision S15).  simlib runs from a source
checkout when the folder above the package holds ``pyproject.toml`` and
``notebooks/`` (:func:`is_checkout`).  What it writes -- the per-trial sweep
cache, run folders, derived data -- then goes inside the checkout (all
git-ignored): ``data/cache/``, ``build/runs/``, ``build/cache/``.  An installed
package (``pip install .``) never writes into its own folder (site-packages):
everything goes under ``$SIMLIB_HOME`` if it is set, else under the user's
cache and data folders (``platformdirs.user_cache_dir("simlib")`` /
``user_data_dir("simlib")``, e.g. ``~/.cache/simlib`` and
``~/.local/share/simlib`` on Linux), and :func:`announce_locations` says so once.
``$SIMLIB_HOME`` is honoured in a checkout too (an explicit setting wins).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping, NamedTuple

#: The package folder (``.../simlib``) and the folder above it (the repository root in a checkout).
PACKAGE_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = PACKAGE_DIR.parent
#: Environment variable naming the folder an installed package writes to.
HOME_ENV = "SIMLIB_HOME"


def is_checkout(package_dir: Path = PACKAGE_DIR) -> bool:
    """True when ``package_dir`` sits in a source checkout: its parent holds ``pyproject.toml`` and
    ``notebooks/`` (an installed package's parent is site-packages, which holds neither)."""
    root = Path(package_dir).parent
    return (root / "pyproject.toml").is_file() and (root / "notebooks").is_dir()


class Locations(NamedTuple):
    """The folders simlib writes to: ``cache`` (per-trial sweep cache), ``runs`` (run folders
    ``<runs>/<notebook or script>/<parameter hash>``), ``build_cache`` (derived data such as the
    generated mnist1d set), ``numba_cache`` (compiled kernels; None: numba's default, the
    ``__pycache__`` next to the sources) and ``source`` (why: ``"checkout"``, ``"SIMLIB_HOME"`` or
    ``"user folders"``)."""

    cache: Path
    runs: Path
    build_cache: Path
    numba_cache: Path | None
    source: str


def locations(checkout: bool | None = None, environ: Mapping[str, str] | None = None,
              repo_root: Path = REPO_ROOT) -> Locations:
    """The :class:`Locations` for a checkout at ``repo_root`` (``checkout=True``) or an installed
    package (``False``; default: :func:`is_checkout`), reading ``SIMLIB_HOME`` from ``environ``
    (default ``os.environ``).  Absolute paths; creates nothing."""
    environ = os.environ if environ is None else environ
    checkout = is_checkout(Path(repo_root) / "simlib") if checkout is None else checkout
    home = environ.get(HOME_ENV)
    if home:
        home = Path(home).expanduser().resolve()
        return Locations(home / "cache" / "trials", home / "runs", home / "cache" / "data",
                         None if checkout else home / "cache" / "numba", HOME_ENV)
    if checkout:
        root = Path(repo_root)
        return Locations(root / "data" / "cache", root / "build" / "runs", root / "build" / "cache", None,
                         "checkout")
    import platformdirs

    cache_root = Path(platformdirs.user_cache_dir("simlib")).resolve()
    data_root = Path(platformdirs.user_data_dir("simlib")).resolve()
    return Locations(cache_root / "trials", data_root / "runs", cache_root / "data", cache_root / "numba",
                     "user folders")


_LOCATIONS = locations()
#: Per-trial sweep cache; keyed by setting, seed and code, so it is shared by every run.
CACHE = _LOCATIONS.cache
#: Committed outputs (in a checkout), written only by a publishing run (full-profile ``make reproduce``).
COMMITTED_FIGURES = REPO_ROOT / "figures"
COMMITTED_RESULTS = REPO_ROOT / "data" / "results"
COMMITTED_LEDGER = COMMITTED_RESULTS / "claims.csv"
#: Run folders of every other run: ``RUNS / <notebook> / <parameter hash>``.
RUNS = _LOCATIONS.runs
#: Derived data that is slow to rebuild but never downloaded, e.g. the generated mnist1d set.
BUILD_CACHE = _LOCATIONS.build_cache

_announced: list[bool] = []


def announce_locations(stream=None) -> None:
    """Once per process, for a package outside a checkout (or with ``SIMLIB_HOME`` set): one line to
    ``stream`` (default stderr) saying where the trial cache and the run folders are."""
    if _LOCATIONS.source == "checkout" or _announced:
        return
    _announced.append(True)
    why = f"${HOME_ENV}" if _LOCATIONS.source == HOME_ENV else f"not a source checkout; set ${HOME_ENV} to move them"
    print(f"[simlib] trial cache in {CACHE}, run folders in {RUNS} ({why})", file=stream or sys.stderr)


#: numba's environment variable for its on-disk cache of compiled functions.
NUMBA_CACHE_ENV = "NUMBA_CACHE_DIR"


def configure_numba_cache(environ=None) -> None:
    """Outside a checkout, point numba's cache of compiled kernels at :attr:`Locations.numba_cache`
    (unless ``NUMBA_CACHE_DIR`` is already set), so an installed package does not write compiled code
    into site-packages.  Sets the environment variable (``environ``, default ``os.environ``), which
    numba reads when it is imported and worker processes inherit; called by ``import simlib``."""
    environ = os.environ if environ is None else environ
    if _LOCATIONS.numba_cache is None or environ.get(NUMBA_CACHE_ENV):
        return
    environ[NUMBA_CACHE_ENV] = str(_LOCATIONS.numba_cache)
    numba = sys.modules.get("numba")
    if numba is not None and environ is os.environ:   # imported before simlib: numba read the variable already
        numba.config.CACHE_DIR = str(_LOCATIONS.numba_cache)
