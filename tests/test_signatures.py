"""No function in simlib/ takes more than 12 parameters (issue 22): a longer list is grouped into a
small frozen dataclass or a NamedTuple bundle of arrays (docs/architecture.md).  Every kind of
parameter counts (positional-only, positional, keyword-only, *args, **kwargs), except a method's
``self``/``cls``."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "simlib"
MAX_PARAMS = 12
MODULES = sorted(PKG.rglob("*.py"))


def n_params(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, method: bool = False) -> int:
    """Positional-only + positional + keyword-only parameters, plus one each for *args and **kwargs;
    a ``method`` (defined in a class body, not a staticmethod) without its ``self``/``cls``, which
    no caller writes."""
    a = fn.args
    n = (len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
         + (a.vararg is not None) + (a.kwarg is not None))
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in getattr(fn, "decorator_list", ()))
    return n - 1 if method and not static and (a.posonlyargs or a.args) else n


def long_signatures(source: str, limit: int = MAX_PARAMS) -> list[tuple[str, int, int]]:
    """(qualified name, line, parameter count) of every function or lambda in `source` over `limit`."""
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                count = n_params(child, method=isinstance(node, ast.ClassDef))
                if count > limit:
                    found.append((name, child.lineno, count))
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                if isinstance(child, ast.Lambda) and n_params(child) > limit:
                    found.append((f"{prefix}<lambda>", child.lineno, n_params(child)))
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


@pytest.mark.parametrize("path", MODULES, ids=[p.relative_to(PKG).as_posix() for p in MODULES])
def test_no_function_takes_more_than_12_parameters(path):
    long = long_signatures(path.read_text())
    assert not long, (f"{path.relative_to(PKG.parent)}: functions over {MAX_PARAMS} parameters: "
                      + ", ".join(f"{name} (line {line}: {n})" for name, line, n in long))


def test_the_count_includes_every_kind_of_parameter():
    # 2 positional-only + 3 positional + *args + 4 keyword-only + **kwargs = 11: one more of any kind is 12,
    # two more is 13
    base = "def f(a, b, /, c, d, e, *args, f, g, h, i, **kw): pass\n"
    assert long_signatures(base, limit=10) == [("f", 1, 11)]
    assert long_signatures(base, limit=11) == []
    # a method's self is not counted (no caller writes it); a staticmethod's first parameter and a
    # nested function's are
    nested = ("class C:\n"
              "    def m(self, a, b, c, d, e, f, g, h, i, j, k, l): pass\n"
              "    def big(self, a, b, c, d, e, f, g, h, i, j, k, l, m): pass\n"
              "    @staticmethod\n"
              "    def s(a, b, c, d, e, f, g, h, i, j, k, l, m): pass\n"
              "    def g(self):\n"
              "        def inner(a, b, c, d, e, f, g, h, i, j, k, l, *, m): pass\n")
    assert long_signatures(nested) == [("C.big", 3, 13), ("C.s", 5, 13), ("C.g.inner", 7, 13)]
