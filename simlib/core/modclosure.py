"""Which source files a module runs: the in-package import closure, by static analysis.

Used by :mod:`simlib.core.jitcache` (the files whose compiled code a numba cache entry
freezes) and by :mod:`simlib.pipeline.sweep` (the code a sweep's trial runs, for its
result cache).  Imports are read from the source with :mod:`ast` (also those inside
functions), so nothing is imported to find them.  A file's imports are parsed once per
process and version of the file (its size and modification time): every kernel module
asks for its closure when it is imported, and the closures overlap.
"""
from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

__all__ = ["module_file", "imports_of", "module_closure"]


def module_file(name: str, root: Path) -> Path | None:
    """The source file of module ``name`` (dotted, first part = ``root``'s name), if it exists."""
    parts = name.split(".")
    if parts[0] != root.name:
        return None
    base = root.joinpath(*parts[1:])
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _statements(tree: ast.AST):
    """Every statement of ``tree``, nested ones included (bodies of functions, classes,
    branches, loops, handlers and match cases).  Expressions are not entered: an import is
    a statement and cannot sit inside one, and skipping them is most of the work saved."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                yield child
                todo.append(child)


def imports_of(path: Path, module: str, root: Path) -> set[str]:
    """Dotted names of the ``root`` package's modules that ``path`` (module ``module``)
    imports anywhere (also inside functions), with the packages they sit in."""
    st = os.stat(path)
    return set(_imports_of(str(path), module, str(root), st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=4096)
def _imports_of(path: str, module: str, root: str, mtime_ns: int, size: int) -> frozenset[str]:
    """:func:`imports_of` of one version of the file (``mtime_ns``, ``size``: the cache key)."""
    path, root = Path(path), Path(root)
    is_pkg = path.name == "__init__.py"
    package = module if is_pkg else module.rpartition(".")[0]
    found = set()
    for node in _statements(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)  # submodules imported by name
    out = set()
    for name in found:
        parts = name.split(".")
        for k in range(1, len(parts) + 1):   # a module import runs its packages' __init__ too
            prefix = ".".join(parts[:k])
            if module_file(prefix, root) is not None:
                out.add(prefix)
    return frozenset(out)


def module_closure(module: str, root: Path) -> list[Path]:
    """Source files of ``module`` and of every module of the package at ``root`` it
    imports, transitively (sorted)."""
    root = Path(root)
    todo, seen = [module], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = module_file(name, root)
        if path is not None:
            todo.extend(imports_of(path, name, root) - seen)
    return sorted({p for p in (module_file(n, root) for n in seen) if p is not None})
