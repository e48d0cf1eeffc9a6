"""The simulated cross-cloud training system of seed 003 (§2, Figure 1).

n workers train; a worker that finishes an iteration scatters its model blocks
to the reducers, each reducer j reduces block j of the round's p participants
and broadcasts it back, and a participant starts its next iteration when it
holds every reduced block (scatter => reduce => broadcast).  The four design
choices of §3 are parameters of :func:`simulate`:

* ``reducers``: ``"all"`` (FMReduce: every worker reduces a block) or
  ``"participants"`` (original partial reduce: only the round's p);
* ``mode``: ``"blocking"`` — the leader (worker 0) groups the first p ready
  workers (workers ready at one instant in id order, FM3), splits the model
  for them and they scatter; ``"nonblocking"`` — a
  ready worker scatters at once with the predefined split and the leader
  announces a round when it holds blocks from p workers (§2 problem 2;
  blocks in at one instant in id order, FM3);
* ``split``: ``"even"`` (x_j = v/m) or ``"lp"`` (LP (2), :mod:`.split`);
* ``sharing``: ``"fs"`` (per-flow max-min) or ``"fcfs"`` (strict priority by
  flow arrival), :mod:`.mesh_links`.

Gaps of the paper are documented in docs/decisions/fmreduce.md (FMn):
control messages (ready signals, the leader's announcement, the split) take
no time (FM3); a worker whose blocks reached the leader after a round was
full stays queued, its blocks cached, and joins the next round first (FM1);
the blocking split is solved per round for its participants, the
non-blocking one once for all n (FM2, FM6); reduce takes ``reduce_s_per_mb``
seconds per MB of input blocks, default 0 (FM5), one round at a time per
reducer.

One fast engine runs this model, the compiled event loop of
:mod:`.system_kernel` (decision FM12); :func:`.reference.simulate_reference`
runs it again on the generic flow engine, slowly and obviously, and the tests
check the two agree on every round (decision FM14).

Units: bits, bits/s, seconds.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from simlib.runtime.kernel_driver import DrawBuffer, drive
from simlib.papers.fmreduce import system_kernel as K
from simlib.papers.fmreduce.mesh_links import _BUSY
from simlib.papers.fmreduce.split import even_split, lp_split

__all__ = ["Round", "RoundLog", "RunResult", "simulate", "summarize_rounds", "PHASES"]

#: Per-participant phases of one iteration (they sum to its length): compute;
#: ready -> round announced ("form"); announced -> the last reducer holds every
#: block ("scatter"); -> the participant holds every reduced block ("broadcast",
#: includes reduce time).
PHASES = ("compute", "form", "scatter", "broadcast")


@dataclass
class Round:
    """One partial reduce: participants (in selection order), reducers and the split."""

    index: int
    parts: np.ndarray
    reducers: np.ndarray
    x: np.ndarray
    announce: float
    start: np.ndarray            # compute start of each participant's iteration (s)
    ready: np.ndarray            # compute end (s)
    all_in: dict = field(default_factory=dict)   # reducer -> time it held every block
    n_bcast: int = 0
    done: np.ndarray | None = None
    n_done: int = 0
    finish: float = np.inf


@dataclass(frozen=True)
class RunResult:
    """What one run measured; times in seconds, per completed round unless named otherwise."""

    rounds: int                  # rounds whose every participant finished within the period
    iterations: int              # participant-iterations in those rounds (rounds * p)
    duration_s: float
    phase_means_s: dict          # PHASES -> mean over participant-iterations of completed rounds
    mean_round_time_s: float     # announcement -> last participant done
    rounds_log: Sequence         # every announced Round (completed or not), in announce order


def simulate(b: np.ndarray, p: int, *, model_bits: float, duration_s: float,
             compute_time, reducers: str = "all", mode: str = "nonblocking",
             split: str = "lp", sharing: str = "fcfs", reduce_s_per_mb: float = 0.0,
             lp_solver: str = "breakpoint") -> RunResult:
    """Run the system for ``duration_s`` seconds; all workers start computing at 0.

    ``b``: n x n bandwidths (bits/s, off-diagonal > 0); ``compute_time``: the
    next iteration's compute time of worker i (s), as a callable ``i -> s`` or a
    source with ``next(i)`` (:class:`~simlib.runtime.cluster.ComputeTimes`); a
    source with ``take(i, k)`` hands the compiled engine its draws in bulk.
    Worker i's k-th time must depend on i and k only (per-worker streams, as
    ComputeTimes and ScriptedComputeTimes): the compiled engine draws ahead.
    :class:`.scenario.Scenario` builds the inputs from the paper's settings and checks them, once
    (p in [1, n], the choices, reducers="participants" => blocking): this engine does not check them
    again (it checks only the mesh ``b`` and ``compute_time``, which are not scenario
    parameters).
    """
    b = _check_mesh(b)
    draw = getattr(compute_time, "next", compute_time)
    if not callable(draw):
        raise ValueError("compute_time must be a callable worker -> seconds or have a next(worker) method, "
                         f"got {compute_time!r}")
    return _simulate_compiled(b, p, float(model_bits), float(duration_s), compute_time, reducers, mode,
                              split, sharing, float(reduce_s_per_mb), lp_solver)


def _predefined_split(v, b, mode, split, lp_solver):
    """FM2: the non-blocking split, solved once for all n workers (static bandwidths); None if blocking."""
    if mode != "nonblocking":
        return None
    return lp_split(v, b, solver=lp_solver) if split == "lp" else even_split(v, b.shape[0])


def _simulate_compiled(b, p, v, duration_s, compute_time, reducers, mode, split, sharing,
                       reduce_s_per_mb, lp_solver) -> RunResult:
    """:func:`simulate` on :func:`.system_kernel.run_loop`, served by :func:`simlib.runtime.kernel_driver.drive`
    (it grows the draws, the heap and the round log when the loop asks; FM12)."""
    n = b.shape[0]
    m = n if reducers == "all" else p
    predefined = _predefined_split(v, b, mode, split, lp_solver)
    cfg = K.Config(n=n, p=p, everyone=reducers == "all", blocking=mode == "blocking",
                   split=K.SPLIT_EVEN if split == "even" else K.SPLIT_BREAKPOINT if lp_solver == "breakpoint"
                   else K.SPLIT_PYTHON, fcfs=sharing == "fcfs", model_bits=v, duration_s=duration_s,
                   reduce_s_per_mb=reduce_s_per_mb, b=b, xpre=predefined if predefined is not None else np.zeros(n))
    source = compute_time if hasattr(compute_time, "next") else SimpleNamespace(next=compute_time)
    draws = DrawBuffer(source, n, minimum=16)       # draws.draws[w, u]: worker w's u-th compute time (s)
    st = K.new_state(n)
    heap = {"events": np.zeros((n + 1, K.H_COLS))}  # header row + the n first events
    log = K.new_log(16, n, p, m)
    K.push_first_computes(draws.draws, st.used, heap["events"])

    def solve_split():                              # NEED_SPLIT: round st.pending's split by HiGHS
        r = st.pending[0]
        log["x"][r] = lp_split(v, b, log["parts"][r], log["red"][r], solver=lp_solver)

    def link_busy():
        raise RuntimeError(_BUSY)

    def no_split():                                 # raise lp_split's own error for this round
        r = st.n_rounds[0] - 1
        lp_split(v, b, log["parts"][r], log["red"][r], solver=lp_solver)
        raise RuntimeError("the compiled LP (2) split failed where lp_split did not")

    drive(lambda: K.run_loop(cfg, st, K.Log(**log), heap["events"], draws.draws), draws=draws,
          columns=[(heap, lambda: st.need_heap[0], 1), (log, lambda: st.need_rounds[0], 1)],
          handlers={K.NEED_SPLIT: solve_split, K.LINK_BUSY: link_busy, K.NO_SPLIT: no_split})
    nr = int(st.n_rounds[0])
    cols = {key: arr[:nr] for key, arr in log.items()}
    rounds_log = RoundLog(cols, n if reducers == "all" else None, predefined)
    ok = cols["finish"] <= duration_s
    with np.errstate(invalid="ignore"):                # rows of unfinished rounds may be all NaN
        scatter_end = np.nanmax(cols["allin"][ok], axis=1) if ok.any() else np.zeros(0)
    return _summary(cols["announce"][ok], cols["finish"][ok], cols["start"][ok], cols["ready"][ok],
                    cols["done"][ok], scatter_end, p, duration_s, rounds_log)


class RoundLog(Sequence):
    """The compiled engine's round log: columns, read as :class:`Round` records on first use
    (``all_in`` lists the reducers in id order; the reference engine in the order they were ready)."""

    def __init__(self, cols: dict, n_all: int | None, predefined: np.ndarray | None):
        self._cols, self._n_all, self._predefined = cols, n_all, predefined
        self._rounds: list[Round] | None = None

    def __len__(self) -> int:
        return self._cols["finish"].shape[0]

    def __getitem__(self, i):
        if self._rounds is None:
            self._rounds = self._build()
        return self._rounds[i]

    def _build(self) -> list[Round]:
        c = self._cols
        everyone = np.arange(self._n_all) if self._n_all is not None else None
        rounds = []
        for r in range(len(self)):
            allin = c["allin"][r]
            held = np.flatnonzero(~np.isnan(allin))
            rounds.append(Round(
                r, c["parts"][r].copy(), everyone if everyone is not None else c["red"][r].copy(),
                self._predefined if self._predefined is not None else c["x"][r].copy(),
                float(c["announce"][r]), c["start"][r].copy(), c["ready"][r].copy(),
                all_in=dict(zip(held.tolist(), allin[held].tolist())), n_bcast=int(c["n_bcast"][r]),
                done=c["done"][r].copy(), n_done=int(c["n_done"][r]), finish=float(c["finish"][r])))
        return rounds


def _check_mesh(b) -> np.ndarray:
    """The bandwidth matrix as floats: square, n >= 2, finite off-diagonal entries > 0 (an invariant of
    every mesh :func:`.bandwidth.fmreduce_bandwidths` draws; the scenario's knobs are checked by
    :class:`.scenario.Scenario`, once)."""
    b = np.asarray(b, dtype=float)
    if b.ndim != 2 or b.shape[0] != b.shape[1] or b.shape[0] < 2:
        raise ValueError(f"b must be a square n x n bandwidth matrix with n >= 2, got shape {b.shape}")
    off = b[~np.eye(b.shape[0], dtype=bool)]
    if not (np.isfinite(off).all() and (off > 0).all()):
        raise ValueError("b must have finite off-diagonal bandwidths > 0 bits/s")
    return b


def summarize_rounds(rounds: list[Round], p: int, duration_s: float) -> RunResult:
    """Metrics of a run from its round log: rounds finished by ``duration_s`` and their phase means."""
    done = [r for r in rounds if r.finish <= duration_s]
    if not done:
        return _summary(np.zeros(0), np.zeros(0), np.zeros((0, p)), np.zeros((0, p)), np.zeros((0, p)),
                        np.zeros(0), p, duration_s, rounds)
    return _summary(np.array([r.announce for r in done], dtype=float), np.array([r.finish for r in done], dtype=float),
                    np.array([r.start for r in done]), np.array([r.ready for r in done]),
                    np.array([r.done for r in done]),
                    np.array([max(r.all_in.values()) for r in done], dtype=float), p, duration_s, rounds)


def _summary(announce, finish, start, ready, done, scatter_end, p, duration_s, rounds_log) -> RunResult:
    """RunResult from the completed rounds' columns: announce, finish and the time the last reducer
    held every block (k,), and each participant's start, ready and done times (k, p); seconds."""
    k = announce.size
    if k == 0:
        phases = {ph: float("nan") for ph in PHASES}
        return RunResult(0, 0, duration_s, phases, float("nan"), rounds_log)
    start, ready, fin = start.ravel(), ready.ravel(), done.ravel()
    ann, scat = np.repeat(announce, p), np.repeat(scatter_end, p)
    phases = {"compute": float(np.mean(ready - start)), "form": float(np.mean(ann - ready)),
              "scatter": float(np.mean(scat - ann)), "broadcast": float(np.mean(fin - scat))}
    return RunResult(k, k * p, duration_s, phases, float(np.mean(finish - announce)), rounds_log)
