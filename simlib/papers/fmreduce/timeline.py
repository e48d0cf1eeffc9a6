"""Seed 003's run (FMReduce or the original partial reduce) as trace events (:mod:`simlib.runtime.timeline`):
the compiled engine's round log, nothing it does not log.

* process ``workers``: per worker (``tid = w``), per iteration that took part in an announced round, its
  four phases as complete slices named as :data:`.system.PHASES` (args ``round``): ``compute`` (start ->
  ready), ``form`` (ready -> the round's announcement; in non-blocking mode its blocks are already on the
  way), ``scatter`` (announcement -> the last reducer holds every block) and ``broadcast`` (-> the worker
  holds every reduced block; includes the reduce time).  They tile the iteration; what follows a worker's
  last announced round is one slice ``in no announced round by the end`` (computing, or ready and queued).
  Everything is cut at the run's end.
* process ``rounds``: each announced round as an async slice (``id`` = its index; args participants,
  finished) from its announcement to its last participant's done (the run's end if later).

The FMReduce engine is compiled and logs no flows, so this timeline has no link rates (decision S31,
docs/decisions/sweeps.md).
Summing the slices of the rounds finished by the end gives back what ``python -m simlib fmreduce``
prints: rounds, and the phase means (the tests check it).
"""
from __future__ import annotations

import math

from simlib.runtime.timeline import PID_SYNCS, PID_WORKERS, async_pair, clip, complete, meta_names

__all__ = ["fmreduce_events"]


def _time(t, end: float) -> float:
    """``t`` (s) as a finite time no later than ``end`` (NaN/inf: not reached: ``end``)."""
    t = float(t)
    return end if not math.isfinite(t) else min(t, end)


def fmreduce_events(run: dict, window=None) -> list[dict]:
    """The trace events of an FMReduce run (module docstring) inside ``window`` (``(start_s, end_s)`` or
    None); ``run`` is what :func:`.scenario.run_trial` offered: ``{"result": RunResult, "n": workers}``."""
    res, n = run["result"], int(run["n"])
    end = float(res.duration_s)
    ev = meta_names(PID_WORKERS, "workers", {w: f"worker {w}" for w in range(n)})
    last = [0.0] * n
    ev += meta_names(PID_SYNCS, "rounds")
    for r in res.rounds_log:
        finished = r.finish <= end
        held = [t for t in r.all_in.values() if math.isfinite(t)]
        scatter_end = max(held) if held and len(r.all_in) == len(r.reducers) else math.inf
        for k, w in enumerate(r.parts.tolist()):
            marks = [r.start[k], r.ready[k], r.announce, scatter_end, r.done[k]]
            marks = [_time(t, end) for t in marks]
            for i in range(1, 5):                      # a later mark not reached: the earlier ones are kept
                marks[i] = max(marks[i], marks[i - 1])
            for name, a, b in zip(("compute", "form", "scatter", "broadcast"), marks, marks[1:]):
                if (c := clip(a, b, window)) is not None and (b > a or name == "compute"):
                    ev.append(complete(name, PID_WORKERS, w, c[0], c[1], "worker", {"round": r.index}))
            last[w] = max(last[w], marks[-1])
        c = clip(_time(r.announce, end), _time(r.finish, end), window)
        if c is not None:
            ev += async_pair(f"round {r.index}", PID_SYNCS, r.index, c[0], c[1], "round",
                             {"round": r.index, "participants": r.parts.tolist(), "finished": bool(finished)})
    for w in range(n):
        if last[w] < end and (c := clip(last[w], end, window)) is not None:
            ev.append(complete("in no announced round by the end", PID_WORKERS, w, c[0], c[1], "worker"))
    return ev
