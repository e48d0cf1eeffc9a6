"""Keep numba's on-disk cache honest across files.

numba caches a compiled function (``@njit(cache=True)``) with the modification
stamp of the file that defines it, and reuses the cache while that file is
unchanged.  A compiled function that calls compiled functions (or reads
constants) of *another* module has that code frozen into its cache entry, so
editing only the other module (say Algorithm 2 in ``ssp_selection.py``, called
from the SSP event loop in ``ssp_kernel.py``) would keep running the old code.

:func:`depend_on` adds the stamps of the other modules' files to the stamp the
cache entries of the given functions are saved and checked with, so an edit of
any of those files makes the entries stale and numba compiles afresh.
:func:`track` computes those files: a kernel module ends with
``jitcache.track(globals())``, and its compiled functions depend on every module
of its package that it imports, transitively (:mod:`simlib.core.modclosure`) --
a superset of the code numba can freeze into them, so none is missed.  It
relies on numba's cache internals (the ``_source_stamp`` of the function's
cache file, numba as pinned in requirements.txt); where they are missing it
does nothing, and caching behaves as numba's default.

:func:`announce_compilation` says, once, when a block of code has to compile
(a cold or stale cache: the first call of a command compiles for 16-43 s); :class:`CompileTimer`
measures how long a block spent compiling or loading compiled code, so timings can leave it out.
"""
from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from types import ModuleType

from simlib.core.modclosure import module_closure

__all__ = ["track", "dependencies", "depend_on", "dispatchers_of", "announce_compilation", "COMPILING_MESSAGE",
           "CompileTimer"]

#: Printed (to stderr) when a command has to compile numba code before it can run.
COMPILING_MESSAGE = ("[simlib] compiling the simulator's kernels once: 20 s on an idle machine, up to 4 min on a "
                     "busy one; later runs reuse the cache")


def _stamp(source: ModuleType | Path) -> tuple:
    path = Path(source.__file__ if isinstance(source, ModuleType) else source)
    st = os.stat(path)
    return path.name, st.st_mtime, st.st_size


def depend_on(dispatchers, *sources: ModuleType | Path) -> None:
    """Make the cached code of ``dispatchers`` (numba ``@njit`` functions) stale
    whenever any of the source files ``sources`` (modules or paths) changes.

    Call it at import time, right after the functions are defined (before their
    first call loads the cache), with every module whose compiled code they
    inline or call, directly or through the listed modules' own calls
    (:func:`track` computes them).
    """
    stamps = tuple(_stamp(m) for m in sources)
    for d in dispatchers:
        cache_file = getattr(getattr(d, "_cache", None), "_cache_file", None)
        if cache_file is not None and hasattr(cache_file, "_source_stamp"):
            cache_file._source_stamp = (cache_file._source_stamp, stamps)


def dependencies(namespace: dict) -> list[Path]:
    """The source files, other than its own, of the in-package import closure of the module
    whose ``globals()`` is ``namespace`` (its package: the top-level package it is in)."""
    name, own = namespace["__name__"], Path(namespace["__file__"]).resolve()
    depth = name.count(".") - (0 if own.name == "__init__.py" else 1)
    root = own.parents[depth]
    return [p for p in module_closure(name, root) if p.resolve() != own]


def track(namespace: dict) -> None:
    """Make the numba-compiled functions of the module whose ``globals()`` is ``namespace``
    stale whenever a module it imports (transitively, within its package) changes:
    :func:`depend_on` with :func:`dependencies`.  Call it as the module's last statement."""
    depend_on(dispatchers_of(namespace), *dependencies(namespace))


def dispatchers_of(namespace: dict) -> list:
    """The numba-compiled functions defined in the module whose ``globals()`` is ``namespace``."""
    name = namespace["__name__"]
    return [v for v in list(namespace.values())
            if hasattr(v, "_cache") and getattr(getattr(v, "py_func", None), "__module__", None) == name]


@contextlib.contextmanager
def announce_compilation(stream=None, message: str = COMPILING_MESSAGE):
    """Within the block, print ``message`` once to ``stream`` (default stderr) as soon as numba starts
    compiling a function, i.e. when one was not found in the on-disk cache (numba's
    ``"numba:compile"`` event fires only on a cache miss); nothing when every kernel the block
    calls comes from the cache.  Imports numba."""
    from numba.core import event

    class _FirstCompile(event.Listener):
        said = False

        def on_start(self, ev):
            if not self.said:
                self.said = True
                out = stream or sys.stderr
                print(message, file=out)
                out.flush()

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", _FirstCompile()):
        yield


class CompileTimer:
    """``with CompileTimer() as ct: ...``; then ``ct.seconds``: the wall-clock seconds the block spent holding
    numba's compiler lock, i.e. compiling functions and loading them from the on-disk cache (numba takes
    the lock for both, and broadcasts ``"numba:compiler_lock"`` at every acquisition; nested acquisitions
    count once).  Calls of functions already compiled in the process do not take it.  Timers may be
    nested; ``seconds`` grows while the block runs.  Imports numba."""

    def __init__(self):
        self.seconds = 0.0
        self._depth = 0
        self._t0 = 0.0
        self._ctx = None

    def _start(self):
        if self._depth == 0:
            self._t0 = time.perf_counter()
        self._depth += 1

    def _end(self):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._t0

    def __enter__(self):
        from numba.core import event

        timer = self

        class _Lock(event.Listener):
            def on_start(self, ev):
                timer._start()

            def on_end(self, ev):
                timer._end()

        self._ctx = event.install_listener("numba:compiler_lock", _Lock())
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        return False
