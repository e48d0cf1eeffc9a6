"""Repository locations, independent of the current working directory.

Notebooks run from the repository root under ``make reproduce`` but from
``notebooks/`` when opened interactively; building paths from here makes
both write to the same ``figures/`` and ``data/`` folders.
"""
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
FIGURES = REPO_ROOT / "figures"
RESULTS = REPO_ROOT / "data" / "results"
CACHE = REPO_ROOT / "data" / "cache"
