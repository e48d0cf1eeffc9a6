"""The incremental flow-network engine's state, grouped for its compiled kernels (decision N9).

:class:`simlib.core.network.FlowNetwork` owns flat numpy arrays; the kernels of
:mod:`simlib.core.incremental` and :mod:`simlib.core.levels` take them bundled
by meaning into the ``NamedTuple``\\ s below.  numba passes a tuple of arrays
by reference to its arrays, so a kernel mutates them in place; a scalar that a
kernel changes lives in a 1-element array (``Counters.nol``).  The bundles hold
the network's own arrays (the network rebuilds them whenever it reallocates an
array), never state of their own.

From Python the bundles are passed as *plain* tuples in the field order below:
numba's dispatcher fingerprints and unboxes a NamedTuple about twice as slowly
as a plain tuple (measured on numba 0.68.1: 4.9 vs 2.4 us per call for
:class:`Flows`, 2.0 us for its 12 arrays as separate arguments), which mattered
for a network driven event by event.  Each kernel that Python calls re-wraps
its arguments (``fl = Flows(*fl)``, :func:`as_state`), free in compiled code and
a no-op for a bundle that is a NamedTuple already; inside, fields are read by name.
The kernels Python calls at every event take a :class:`Handle` instead, the whole
:class:`State` behind one pointer (see the end of this module).

Every array is 1-D and C-contiguous; "per slot" arrays are indexed by flow
slot, "per link" arrays by link id.  Units: bits, bits/s, seconds.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, typeof, types
from numba.experimental import structref

__all__ = ["Flows", "Links", "Adjacency", "Projections", "Scratch", "Counters", "Config", "State", "Output", "as_state",
           "DTYPES", "Handle", "make_handle"]


class Flows(NamedTuple):
    """The flow table (per slot, except ``fidx``)."""
    fstart: np.ndarray   # int64: flow s crosses links fidx[fstart[s]:fend[s]] ...
    fend: np.ndarray     # int64
    fidx: np.ndarray     # int64 (link entries; -1 marks a link dropped from the flow)
    alive: np.ndarray    # bool
    volume: np.ndarray   # bits
    remaining: np.ndarray  # bits left as of tupd (flow-level mode)
    rate: np.ndarray     # bits/s (levels mode: only for flows without a bottleneck)
    tupd: np.ndarray     # s: when remaining (flow-level) / an infinite rate (levels) was set
    prio: np.ndarray     # int64 priority class (all 0 with sharing="maxmin")
    bl: np.ndarray       # int64 bottleneck link (-1: none)
    tag: np.ndarray      # levels mode: finish tag (remaining bits for a flow without bottleneck)
    has_cb: np.ndarray   # bool: the flow has an on_done callback


class Links(NamedTuple):
    """Per link."""
    cap: np.ndarray      # capacity, bits/s
    load: np.ndarray     # sum of the rates crossing it, bits/s
    lam: np.ndarray      # level: the rate of the flows bottlenecked on it, bits/s
    nb: np.ndarray       # int64: how many flows are bottlenecked on it
    vt: np.ndarray       # levels mode: virtual time (bits served per bottleneck flow) as of tv
    tv: np.ndarray       # s
    mz: np.ndarray       # levels mode: smallest finish tag of its group
    mt: np.ndarray       # ... minus the completion tolerance (N6)
    gdirty: np.ndarray   # bool: mz / mt to be recomputed


class Adjacency(NamedTuple):
    """Link -> flow slots: link l's entries are positions loff[l]:loff[l] + lcnt[l]."""
    loff: np.ndarray     # int64 per link: start of its block
    lcnt: np.ndarray     # int64 per link: entries used
    lcap: np.ndarray     # int64 per link: block size
    ladj: np.ndarray     # int64 per entry: the slot
    lpart: np.ndarray    # int64 per entry: the flow's other link (unicast), -1 only link, -2 read fidx
    lbl: np.ndarray      # int64 per entry: copy of the flow's bottleneck (levels mode)


class Projections(NamedTuple):
    """Flow-level mode: projected times per slot, with per-block minima (incremental.BLOCK_SHIFT)."""
    tz: np.ndarray       # s: last bit
    tt: np.ndarray       # s: entry into the completion tolerance (N6)
    bz: np.ndarray       # per block: min tz
    bt: np.ndarray       # per block: min tt
    bdirty: np.ndarray   # bool per block: minima to be recomputed


class Scratch(NamedTuple):
    """Solver work space; the bool and int8 arrays are all False/0 between calls."""
    is_open: np.ndarray  # bool per link
    queued: np.ndarray   # bool per link
    mark: np.ndarray     # bool per link
    resid: np.ndarray    # float per link
    sold: np.ndarray     # float per link
    snew: np.ndarray     # float per link
    smax: np.ndarray     # float per link
    lamn: np.ndarray     # float per link
    lstate: np.ndarray   # int8 per link (levels.propagate)
    in_s: np.ndarray     # bool per slot
    nrate: np.ndarray    # float per slot
    nbl: np.ndarray      # int64 per slot


class Counters(NamedTuple):
    """Counters the kernels update."""
    stats: np.ndarray    # int64[8]: FlowNetwork.solver_stats
    nol: np.ndarray      # int64[1]: levels mode, alive flows without links


class Config(NamedTuple):
    """Fixed for one call."""
    priority_mode: bool  # sharing="priority"
    levels: bool         # levels mode (sharing="maxmin", N9 fifth round)
    scan_max: int        # maxmin.SCAN_MAX_LINKS
    limits: tuple        # network.INC_LIMITS (3 floats)
    lv_max_pops: int     # link solves before a propagation gives up


class State(NamedTuple):
    """Everything the solvers read and write."""
    flows: Flows
    links: Links
    adj: Adjacency
    proj: Projections
    scratch: Scratch
    counters: Counters


class Output(NamedTuple):
    """What :func:`simlib.core.incremental.run_completions` reports, filled from position 0."""
    slot: np.ndarray     # int64: completed slots, in completion order
    time: np.ndarray     # s: their completion times
    ns: np.ndarray       # int64: flows re-solved per rate update
    opened: np.ndarray   # int64 per link: links of the last batch (out: first n_open)


@njit(cache=True, inline="always")
def as_state(st):
    """``st`` (a :class:`State`, or plain tuples in its field order) as a :class:`State` of NamedTuples."""
    return State(Flows(*st[0]), Links(*st[1]), Adjacency(*st[2]), Projections(*st[3]), Scratch(*st[4]),
                 Counters(*st[5]))


# ------------------------------------------------------------------ a handle for Python callers
# numba types and unboxes every array of a tuple argument on every call from Python (~0.18 us per
# array on numba 0.68.1, so ~5 us for the 29 arrays of lv.next_time's bundles), while a StructRef
# crosses the boundary as one pointer (~2 us whatever it holds).  A network stepped one event at a
# time from Python makes about four such calls per event, so it keeps its State in a Handle, built
# once per change of its arrays, and calls its kernels through the one-line adapters of
# simlib.core.network that read ``h.state``.

#: dtype of every array of :class:`State`, field by field (all 1-D, C-contiguous).
DTYPES = {
    Flows: dict(fstart=np.int64, fend=np.int64, fidx=np.int64, alive=np.bool_, volume=np.float64,
                remaining=np.float64, rate=np.float64, tupd=np.float64, prio=np.int64, bl=np.int64,
                tag=np.float64, has_cb=np.bool_),
    Links: dict(cap=np.float64, load=np.float64, lam=np.float64, nb=np.int64, vt=np.float64, tv=np.float64,
                mz=np.float64, mt=np.float64, gdirty=np.bool_),
    Adjacency: dict(loff=np.int64, lcnt=np.int64, lcap=np.int64, ladj=np.int64, lpart=np.int64, lbl=np.int64),
    Projections: dict(tz=np.float64, tt=np.float64, bz=np.float64, bt=np.float64, bdirty=np.bool_),
    Scratch: dict(is_open=np.bool_, queued=np.bool_, mark=np.bool_, resid=np.float64, sold=np.float64,
                  snew=np.float64, smax=np.float64, lamn=np.float64, lstate=np.int8, in_s=np.bool_,
                  nrate=np.float64, nbl=np.int64),
    Counters: dict(stats=np.int64, nol=np.int64),
}


@structref.register
class HandleType(types.StructRef):
    """numba type of :class:`Handle`: one member, ``state`` (a :class:`State` of NamedTuples)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Handle(structref.StructRefProxy):
    """A :class:`State` behind one pointer, for kernels called from Python (see above);
    build it with :func:`make_handle`."""


structref.define_boxing(HandleType, Handle)

_STATE_TYPE = typeof(State(*(bundle(**{f: np.zeros(1, dt) for f, dt in DTYPES[bundle].items()})
                              for bundle in (Flows, Links, Adjacency, Projections, Scratch, Counters))))
_HANDLE_TYPE = HandleType([("state", _STATE_TYPE)])


@njit(cache=True)
def _new_handle(st):
    h = structref.new(_HANDLE_TYPE)
    h.state = as_state(st)
    return h


def make_handle(st) -> Handle:
    """A :class:`Handle` on the arrays of ``st`` (a :class:`State`, or plain tuples in its field
    order, with the :data:`DTYPES`); the kernels change those arrays in place."""
    return _new_handle(st)
