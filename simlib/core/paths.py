"""Repository locations, independent of the current working directory.

Notebooks run from the repository root under ``make reproduce`` but from
``notebooks/`` when opened interactively; building paths from here makes both
use the same folders.  Where the *current run* writes (the committed folders or
a run folder of its own) is :mod:`simlib.pipeline.paths`.
"""
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Per-trial sweep cache (git-ignored); keyed by setting, seed and code, so it is shared by every run.
CACHE = REPO_ROOT / "data" / "cache"
#: Committed outputs, written only by a publishing run (full-profile ``make reproduce``).
COMMITTED_FIGURES = REPO_ROOT / "figures"
COMMITTED_RESULTS = REPO_ROOT / "data" / "results"
COMMITTED_LEDGER = COMMITTED_RESULTS / "claims.csv"
#: Run folders of every other run: ``RUNS / <notebook> / <parameter hash>``.
RUNS = REPO_ROOT / "build" / "runs"
#: Derived data that is slow to rebuild but never downloaded (git-ignored), e.g. the generated mnist1d set.
BUILD_CACHE = REPO_ROOT / "build" / "cache"
