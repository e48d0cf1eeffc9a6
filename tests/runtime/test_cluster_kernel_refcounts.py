"""The compiled cluster loop and the flow network's helpers compiled without numba's reference counts (issue 48,
``_nrt=False``: they allocate nothing and return no array) leak nothing: every array and meminfo a compiled run
allocates is freed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_RUNS = """
import gc, json, numpy as np
from numba.core.runtime import rtsys
from simlib.papers.cluster_scenario import Scenario, simulate
def alive():
    s = rtsys.get_allocation_stats()
    return [s.alloc - s.free, s.mi_alloc - s.mi_free]
out = []
for kw in ({"scheme": "allreduce"}, {"scheme": "partial", "p": 0.5}, {"scheme": "selective"}, {"scheme": "eager"},
           {"scheme": "adpsgd"}, {"scheme": "ps-bsp"}, {"scheme": "ps-asp"}, {"scheme": "ps-backup"}):
    sc = Scenario(**{"n": 12, "duration_s": 30.0, **kw})
    for seed in range(2):
        log = simulate(sc, np.random.SeedSequence(seed), engine="compiled")
    del log
    gc.collect()
    out.append(alive())
print(json.dumps(out))
"""


def test_compiled_cluster_runs_free_every_array_they_allocate():
    """A count that a function compiled without them failed to balance would leave arrays or meminfos alive."""
    env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", _RUNS], env=env, capture_output=True, text=True, check=True)
    assert json.loads(res.stdout.strip().splitlines()[-1]) == [[0, 0]] * 8
