"""The SSP event loop compiled without numba's reference counts (issue 48): it leaks nothing, and the loops that
replace numba's ``min``/``max`` there give numba's values."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numba import njit

from simlib.papers.selmcast.ssp_kernel import _extreme


@njit(cache=False)
def _numba_min_max(a):
    return a.min(), a.max(), _extreme(a, False), _extreme(a, True)


FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, np.nan, np.inf]))


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 12), elements=FLOATS))
def test_the_loops_give_numbas_min_and_max_of_floats_bit_for_bit(a):
    lo, hi, least, most = _numba_min_max(a)
    assert np.float64(least).tobytes() == np.float64(lo).tobytes()        # NaN payloads and the sign of 0 too
    assert np.float64(most).tobytes() == np.float64(hi).tobytes()


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.int64, st.integers(1, 12), elements=st.integers(-2**63, 2**63 - 1)))
def test_the_loops_give_numbas_min_and_max_of_integers(a):
    lo, hi, least, most = _numba_min_max(a)
    assert (least, most) == (lo, hi) == (a.min(), a.max())


_SETUP = """
import numpy as np
from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate
def run(kw):
    sc = SSPScenario(**{"n": 12, "trace": "lstm", "duration_s": 20.0, **kw})
    for seed in range(3):
        simulate(sc, np.random.SeedSequence(seed), engine="compiled")
"""
_CASES = [{"scheme": "selmcast"}, {"scheme": "selmcast", "sharing": "priority"}, {"scheme": "orpheus"},
          {"scheme": "selmcast", "ssp": None}, {"scheme": "selmcast", "layer": "L7", "duration_s": 5.0}]


def test_compiled_ssp_runs_free_every_array_they_allocate(nrt_alive):
    """Nothing compiled without reference counts may keep one: a leaked count (an array returned into the event
    loop by a function that counts) leaves arrays or their meminfos alive (the mutation "recompute c's planes at
    each event through ``c_planes``, which returns its argument" leaves 2-28 alive here)."""
    assert nrt_alive(_SETUP, _CASES) == [[0, 0]] * len(_CASES)
