"""``gc_paused``: the collector is off inside the block and back as it was afterwards, also after an error."""
import gc

import pytest

from simlib.core.gc_pause import gc_paused


def test_the_collector_is_off_inside_and_restored_after():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restored_after_an_error():
    with pytest.raises(RuntimeError):
        with gc_paused():
            raise RuntimeError("inside")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
