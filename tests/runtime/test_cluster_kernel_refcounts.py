"""The compiled cluster loop and the flow network's helpers compiled without numba's reference counts (issue 48,
``_nrt=False``: they allocate nothing and return no array) leak nothing: every array and meminfo a compiled run
allocates is freed."""
from __future__ import annotations

_SETUP = """
import numpy as np
from simlib.papers.cluster_scenario import Scenario, simulate
def run(kw):
    sc = Scenario(**{"n": 12, "duration_s": 30.0, **kw})
    for seed in range(2):
        simulate(sc, np.random.SeedSequence(seed), engine="compiled")
"""
_CASES = [{"scheme": "allreduce"}, {"scheme": "partial", "p": 0.5}, {"scheme": "selective"}, {"scheme": "eager"},
          {"scheme": "adpsgd"}, {"scheme": "ps-bsp"}, {"scheme": "ps-asp"}, {"scheme": "ps-backup"}]


def test_compiled_cluster_runs_free_every_array_they_allocate(nrt_alive):
    """A count that a function compiled without them failed to balance would leave arrays or meminfos alive."""
    assert nrt_alive(_SETUP, _CASES) == [[0, 0]] * len(_CASES)
