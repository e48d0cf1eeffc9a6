"""Pausing Python's cyclic garbage collector around a block that allocates many objects (issue 48)."""
from __future__ import annotations

import gc
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector inside the block (restored on exit, also on an error; left off if it
    was off).

    A block that makes ~10^4-10^6 objects (a BSP round's flow handles, an SSP run's delivery records) triggers
    full collections over the whole process heap meanwhile: a third of a notebook 47 trial's CPU, half of a
    notebook 46 schedule log's (docs/speed.md).  Nothing such a block creates needs collecting before it ends;
    values are unaffected (the collector frees memory only).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
