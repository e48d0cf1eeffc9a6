"""Keep numba's on-disk cache honest across files.

numba caches a compiled function (``@njit(cache=True)``) with the modification
stamp of the file that defines it, and reuses the cache while that file is
unchanged.  A compiled function that calls compiled functions (or reads
constants) of *another* module has that code frozen into its cache entry, so
editing only the other module (say Algorithm 2 in ``ssp_selection.py``, called
from the SSP event loop in ``ssp_kernel.py``) would keep running the old code.

:func:`depend_on` adds the stamps of the other modules' files to the stamp the
cache entries of the given functions are saved and checked with, so an edit of
any of those files makes the entries stale and numba compiles afresh.  It
relies on numba's cache internals (the ``_source_stamp`` of the function's
cache file, numba as pinned in requirements.txt); where they are missing it
does nothing, and caching behaves as numba's default.

:func:`announce_compilation` says, once, when a block of code has to compile
(a cold or stale cache: the first call of a command compiles for 16-43 s).
"""
from __future__ import annotations

import contextlib
import os
import sys
from types import ModuleType

__all__ = ["depend_on", "dispatchers_of", "announce_compilation", "COMPILING_MESSAGE"]

#: Printed (to stderr) when a command has to compile numba code before it can run.
COMPILING_MESSAGE = "[simlib] compiling the simulator's kernels once, ~30 s; later runs reuse the cache"


def _stamp(module: ModuleType) -> tuple:
    st = os.stat(module.__file__)
    return module.__name__, st.st_mtime, st.st_size


def depend_on(dispatchers, *modules: ModuleType) -> None:
    """Make the cached code of ``dispatchers`` (numba ``@njit`` functions) stale
    whenever the source file of any of ``modules`` changes.

    Call it at import time, right after the functions are defined (before their
    first call loads the cache), with every module whose compiled code they
    inline or call, directly or through the listed modules' own calls.
    """
    stamps = tuple(_stamp(m) for m in modules)
    for d in dispatchers:
        cache_file = getattr(getattr(d, "_cache", None), "_cache_file", None)
        if cache_file is not None and hasattr(cache_file, "_source_stamp"):
            cache_file._source_stamp = (cache_file._source_stamp, stamps)


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
