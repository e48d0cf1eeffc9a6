"""The Python API: the objects ``simlib`` exports, imported lazily, and the README's example run
exactly as written there."""
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import simlib

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def readme_example() -> str:
    """The first ```python block of the README's section "Using simlib from Python"."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Using simlib from Python", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's 'Using simlib from Python' section has no python block"
    return match.group(1)


@pytest.mark.parametrize("name", [n for n in simlib.__all__ if n != "__version__"])
def test_every_exported_name_is_the_object_of_its_module(name):
    module, attribute = simlib._exports()[name]
    assert getattr(simlib, name) is getattr(importlib.import_module(module), attribute)


def test_exports_cover_each_papers_scenario_and_the_runners():
    scenarios = {sc for p in simlib.PAPERS for sc in p.scenarios}
    exported = {getattr(simlib, n) for n in simlib.__all__ if isinstance(getattr(simlib, n), type)}
    assert scenarios <= exported, scenarios - exported
    assert {"run_sweep", "run_scenarios", "expand_grid", "load_ledger"} <= set(simlib.__all__)
    assert set(simlib.__all__) <= set(dir(simlib))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing"):
        simlib.no_such_thing  # noqa: B018


def test_import_simlib_loads_no_heavy_module():
    code = ("import sys, simlib\n"
            "heavy = [m for m in ('numpy', 'pandas', 'numba', 'simlib.pipeline', 'simlib.papers') if m in sys.modules]\n"
            "print(heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert out.strip() == "[]"


@pytest.mark.slow      # a fresh interpreter runs the example's trials: 4.2 CPU-s in the fast tier (2026-11-29)
def test_readme_example_runs_as_written(tmp_path):
    """The README's example, verbatim, from a folder outside the repository with the Agg backend:
    it plots selective vs partial reduce and writes its CSV to the run folder it announces."""
    script = tmp_path / "readme_example.py"
    script.write_text(readme_example(), encoding="utf-8")
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", "SIMLIB_HOME": str(home)}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    png = tmp_path / "sr_vs_pr.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = home / "runs" / "readme_example" / "defaults" / "results" / "sr_vs_pr.csv"
    df = pd.read_csv(csv)
    assert len(df) == 2 * 3 * 2                                    # schemes x n values x trials
    assert set(df["scheme"]) == {"partial", "selective"} and set(df["n"]) == {20, 40, 60}
    assert "partial" in proc.stdout and "selective" in proc.stdout   # the printed table
    assert str(csv.parents[1]) in proc.stdout + proc.stderr           # says where it wrote
    # trials cached under SIMLIB_HOME, one folder per trial function
    assert list((home / "cache" / "trials" / "simlib.papers.cluster_scenario.run_trial").glob("*.json"))
