"""simlib's layers import only downward: core <- runtime <- workloads <- papers <- training <- pipeline <- cli;
and no paper package imports another (only the shared modules at the top of simlib/papers/)."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "simlib"
ORDER = {"core": 0, "runtime": 1, "workloads": 2, "papers": 3, "training": 4, "pipeline": 5,
         "cli": 6, "__main__": 6, "__init__": 7}   # simlib/__init__.py re-exports from every layer


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def package_of(path: Path, module: str) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def import_target(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` statement in ``package`` imports from (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported_modules(path: Path, module: str) -> set[str]:
    package = package_of(path, module)
    out = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = import_target(node, package)
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


#: Modules at the top of simlib/papers/ that every paper may use (the 000/002 cluster run is shared).
SHARED_PAPER_MODULES = {"cluster_scenario", "cluster_command", "contract", "cli_gen", "claim", "analysis", "censoring",
                        "predicates", "scheme", "registry", "beyond_notebooks", "trial", "strength", "paired_strength",
                        "profiles", "cluster_profile"}


def paper_of(module: str) -> str | None:
    """The paper package ``module`` belongs to (``simlib.papers.fmreduce.split`` -> ``fmreduce``), else None."""
    parts = module.split(".")
    if len(parts) < 3 or parts[:2] != ["simlib", "papers"] or parts[2] in SHARED_PAPER_MODULES:
        return None
    return parts[2]


def other_papers_imported(path: Path, module: str) -> list[str]:
    own = paper_of(module)
    return sorted(m for m in imported_modules(path, module) if own and paper_of(m) not in (None, own))


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PKG.parent).with_suffix("").parts).removesuffix(".__init__")


PAPER_MODULES = [p for p in MODULES if paper_of(module_name(p))]


@pytest.mark.parametrize("path", PAPER_MODULES, ids=[p.relative_to(PKG).as_posix() for p in PAPER_MODULES])
def test_no_paper_imports_another(path):
    module = module_name(path)
    found = other_papers_imported(path, module)
    assert not found, f"{module} imports another paper's package: {found}"


def test_the_check_sees_one_paper_importing_another(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from simlib.papers.selmcast.bsp import selmcast_bsp\n"
                   "from simlib.papers import contract, cluster_scenario\n"
                   "from ..selective_reduce import algorithms\n")
    assert other_papers_imported(bad, "simlib.papers.fmreduce.bad") == [
        "simlib.papers.selective_reduce", "simlib.papers.selective_reduce.algorithms",
        "simlib.papers.selmcast.bsp"]
    assert other_papers_imported(bad, "simlib.papers.registry") == []      # a shared module may
    assert len(PAPER_MODULES) > 30


def import_graph(paths: list[Path]) -> dict[str, set[str]]:
    """module -> the modules of ``paths`` it imports (at the top or inside a function: both count)."""
    modules = {module_name(p): p for p in paths}
    return {m: {t for t in imported_modules(p, m) if t in modules and t != m} for m, p in modules.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of ``graph``: its strongly connected components of two or more modules (Tarjan), sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_no_two_modules_import_each_other():
    """No circle of imports inside simlib, not even one broken by an import inside a function (review 5
    §2.1: ``bsp_scenario`` ⇄ ``experiments``, ``nine_systems`` ⇄ ``statistical_evidence``)."""
    cycles = import_cycles(import_graph(MODULES))
    assert not cycles, f"modules that import each other (directly or around a circle): {cycles}"


def test_the_check_sees_a_circle_also_through_a_function_level_import(tmp_path):
    files = {"a": "from simlib.papers.x.b import f\n",
             "b": "def f():\n    from .c import g\n    return g\n",
             "c": "import simlib.papers.x.a\n",
             "d": "from simlib.papers.x.a import h\nfrom simlib.papers.x.b import f\n"}
    modules = {}
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text)
        modules[f"simlib.papers.x.{name}"] = tmp_path / f"{name}.py"
    graph = {m: {t for t in imported_modules(p, m) if t in modules} for m, p in modules.items()}
    assert import_cycles(graph) == [["simlib.papers.x.a", "simlib.papers.x.b", "simlib.papers.x.c"]]
    graph["simlib.papers.x.b"] = set()      # without the import inside f: no circle
    assert import_cycles(graph) == []


def owner_of(module: str) -> str:
    """Who may use ``module``'s private names: its paper package (``simlib.papers.fmreduce``), the shared
    modules of ``simlib/papers/`` (``simlib.papers``), else its layer (``simlib.core``)."""
    paper = paper_of(module)
    return f"simlib.papers.{paper}" if paper else ".".join(module.split(".")[:2])


def private_names_imported(path: Path, module: str) -> list[str]:
    """``module.name`` of every private name (``_x``, not ``__x__``) ``path`` imports from a module with
    another owner (:func:`owner_of`)."""
    out = []
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.ImportFrom):
            target = import_target(node, package_of(path, module))
            out += [f"{target}.{a.name}" for a in node.names
                    if a.name.startswith("_") and not a.name.endswith("__") and target.startswith("simlib")
                    and owner_of(target) != owner_of(module)]
    return sorted(out)


@pytest.mark.parametrize("path", MODULES, ids=[p.relative_to(PKG).as_posix() for p in MODULES])
def test_private_names_stay_with_their_owner(path):
    """A leading underscore means private to the name's paper package (or to the shared paper modules, or to
    its layer), not to its module (review 5 §1: private names imported across modules): importing one from
    another owner is an error; inside the owner it is the package's own business."""
    module = module_name(path)
    found = private_names_imported(path, module)
    assert not found, f"{module} imports private names of another owner: {found}"


def test_the_check_sees_a_private_name_taken_from_another_owner(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from simlib.papers.cluster_scenario import Scenario, _trace\n"
                   "from .mesh_links import _BUSY\n"
                   "from simlib.core.maxmin import _allocate\n"
                   "from simlib.papers.selmcast.ssp_selection import __all__\n")
    assert private_names_imported(bad, "simlib.training.bad") == ["simlib.core.maxmin._allocate",
                                                                  "simlib.papers.cluster_scenario._trace"]
    assert private_names_imported(bad, "simlib.papers.fmreduce.bad") == ["simlib.core.maxmin._allocate",
                                                                         "simlib.papers.cluster_scenario._trace"]
    assert private_names_imported(bad, "simlib.core.bad") == ["simlib.papers.cluster_scenario._trace"]
