"""pyproject.toml declares every third-party module simlib imports, pinned as requirements.txt pins it.

Every ``import`` in ``simlib/`` (module level or inside a function) is read with ``ast``; its top-level
module is mapped to the distributions that provide it in this environment
(``importlib.metadata.packages_distributions``) and one of them must be declared directly: in
``[project] dependencies``, or, for the notebook runner and the website, in the ``notebooks`` extra.
A module that only a transitive dependency brings in (platformdirs came with Jupyter) fails here.
The slow end-to-end check, a wheel installed into a fresh venv, is in tests/test_packaging.py.
"""
import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

# files that may import what an extra declares (the rest: [project] dependencies only)
EXTRA_OF_FILE = {"simlib/pipeline/notebooks.py": "notebooks", "simlib/pipeline/site.py": "notebooks",
                 "simlib/pipeline/check.py": "notebooks",    # check compares executed notebooks
                 "simlib/pipeline/kernel.py": "notebooks"}   # the runner's Jupyter kernel (S41)
# not on PyPI: Debian's python3-simgrid, linked into the venv by `make venv`; optional (tests skip)
SYSTEM_MODULES = {"simgrid"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(requirements: list[str]) -> dict[str, str]:
    pins = {}
    for line in requirements:
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.+-]*)", line.strip())
        assert m, f"not an exact pin name==version: {line!r}"
        pins[_canonical(m[1])] = m[2]
    return pins


def declared(extra: str | None = None) -> dict[str, str]:
    """{canonical distribution name: pinned version} of [project] dependencies (plus ``extra``'s)."""
    pins = _pins(PYPROJECT["dependencies"])
    if extra:
        pins |= _pins(PYPROJECT["optional-dependencies"][extra])
    return pins


def imported_modules() -> dict[str, set[str]]:
    """{file relative to the repository: top-level modules its absolute imports name}."""
    found = {}
    for path in sorted((ROOT / "simlib").rglob("*.py")):
        mods = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                mods |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                mods.add(node.module.split(".")[0])
        found[path.relative_to(ROOT).as_posix()] = mods
    return found


def test_every_third_party_import_is_a_declared_dependency():
    providers = packages_distributions()
    missing = []
    for file, mods in imported_modules().items():
        allowed = declared(EXTRA_OF_FILE.get(file))
        for mod in sorted(mods - set(sys.stdlib_module_names) - {"simlib", "__future__"} - SYSTEM_MODULES):
            dists = {_canonical(d) for d in providers.get(mod, [])}
            if not dists & allowed.keys():
                missing.append(f"{file}: import {mod} (provided by {sorted(dists) or 'nothing installed'})")
    assert not missing, "imported but not declared in pyproject.toml:\n" + "\n".join(missing)


def test_the_walk_finds_the_imports_it_must_judge():
    """Guards the walker itself: function-level imports count (mnist1d is imported inside a function)."""
    mods = imported_modules()
    assert "mnist1d" in mods["simlib/training/learning.py"]
    assert "platformdirs" in mods["simlib/core/paths.py"]
    assert "papermill" in mods["simlib/pipeline/notebooks.py"]


def test_pyproject_pins_equal_requirements_txt():
    lines = [ln.split("#")[0].strip() for ln in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()]
    requirements = _pins([ln for ln in lines if ln])
    pyproject = declared("notebooks") | _pins(PYPROJECT["optional-dependencies"]["test"])
    differ = {name: (pin, requirements.get(name)) for name, pin in pyproject.items() if requirements.get(name) != pin}
    assert not differ, f"pyproject.toml pin vs requirements.txt pin: {differ}"
