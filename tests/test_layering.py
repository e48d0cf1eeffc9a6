"""simlib's layers import only downward: core <- runtime <- workloads <- papers <- training <- pipeline <- cli."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "simlib"
ORDER = {"core": 0, "runtime": 1, "workloads": 2, "papers": 3, "training": 4, "pipeline": 5,
         "cli": 6, "__main__": 6, "__init__": 0}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported_modules(path: Path, module: str) -> set[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.add(target)
            for a in node.names:   # `from simlib.x import y` may import the module simlib.x.y
                sub = PKG.parent.joinpath(*target.split("."), a.name)
                if sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file():
                    out.add(f"{target}.{a.name}")
    return {m for m in out if m == "simlib" or m.startswith("simlib.")}


MODULES = sorted(PKG.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[p.relative_to(PKG).as_posix() for p in MODULES])
def test_imports_go_only_downward(path):
    rel = path.relative_to(PKG.parent).with_suffix("")
    module = ".".join(rel.parts).removesuffix(".__init__")
    own = ORDER[layer_of(module)]
    upward = sorted(m for m in imported_modules(path, module)
                    if m != "simlib" and ORDER[layer_of(m)] > own)
    assert not upward, f"{module} (layer {layer_of(module)}) imports from higher layers: {upward}"


def test_the_check_sees_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from simlib.pipeline.sweep import run_sweep\n")
    assert ORDER[layer_of(next(iter(imported_modules(bad, "simlib.core.bad"))))] > ORDER["core"]
