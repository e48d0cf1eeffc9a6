"""A run's timeline as Chrome trace-event JSON, viewable in Perfetto (ui.perfetto.dev) and chrome://tracing.

The timeline is one more consumer of a run's schedule log (scenario -> engine -> log -> metrics and,
here, -> trace events); it never changes the engine.  A command's trial hands its log over with
:func:`simlib.runtime.capture.offer` (a no-op unless a caller is inside ``capture()``), naming the function
that turns it into events: :func:`schedule_events` for the cluster's :class:`~simlib.runtime.log.ScheduleLog`
(seeds 000/002 and ``train``); 004's SSP log has its own (``simlib.papers.selmcast.ssp_timeline``).

Layout (times in microseconds of *simulated* time, the format's unit; ``ts = 1e6 * seconds``):

* process :data:`PID_WORKERS`, one thread per worker (``tid = w``, named ``worker w``): complete events
  ``X`` ``compute``, ``wait`` and, nested inside a wait, ``held`` / ``held (wasted)`` (000's wait and
  replace, decision E5's rule).  They never overlap on one thread.
* process :data:`PID_SYNCS`: every synchronization twice -- an async slice (``b``/``e``, ``id`` = its
  index in the log, so overlapping syncs need not nest) and a complete slice on a lane thread (lanes are
  assigned so slices on one lane never overlap) that the flow arrows (``s`` on each member's thread at
  its ready time, ``f`` on the lane at the launch, ``id`` = the sync's index) point to.
* :func:`write_trace` adds the metadata (scenario, seed, commit, window) under ``otherData`` and as the
  args of one global instant event ``run`` at the window's start.

Windows: ``window = (start_s, end_s)`` keeps only what overlaps it, slices clipped to it, so a 10,000-worker
run stays viewable (:func:`parse_window`).  :func:`validate_trace` checks the format's rules.
"""
from __future__ import annotations

import bisect
import json
import math
import subprocess
from pathlib import Path
from typing import Callable, Iterable

from simlib.runtime.capture import Captured, capture, offer
from simlib.runtime.log import ScheduleLog

__all__ = ["US", "PID_WORKERS", "PID_SYNCS", "PID_NETWORK", "PID_FLOWS", "PID_LINK_RATES", "PID_FLOW_SLICES",
           "Captured", "capture", "offer",
           "parse_window", "check_window", "clip", "complete", "async_pair", "meta_names", "counter_steps",
           "schedule_events", "trace_document", "write_trace", "write_captured", "record_timeline", "validate_trace",
           "git_commit"]

#: Microseconds per second: trace-event ``ts``/``dur`` are microseconds (of simulated time here).
US = 1e6
PID_WORKERS, PID_SYNCS, PID_NETWORK, PID_FLOWS = 1, 2, 3, 4
#: The watched network's processes (:mod:`simlib.runtime.link_rates`): links' rates, flows' lifetimes.
PID_LINK_RATES, PID_FLOW_SLICES = 5, 6


# --- windows ------------------------------------------------------------------------------------------
def check_window(window, duration_s: float | None = None, name: str = "timeline_window") -> tuple[float, float]:
    """``window`` as ``(start_s, end_s)`` with ``0 <= start_s < end_s`` (and ``start_s`` below the run's
    ``duration_s`` when given); ``ValueError`` naming ``name`` and the allowed range otherwise."""
    try:
        a, b = (float(x) for x in window)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be START:END in seconds of simulated time, got {window!r}") from None
    top = math.inf if duration_s is None else float(duration_s)
    if not (math.isfinite(a) and a >= 0 and b > a and a < top):
        raise ValueError(f"{name} must be START:END seconds with 0 <= START < END and START < {top:g} "
                         f"(the run's duration), got {a:g}:{b:g}")
    return a, b


def parse_window(text: str, name: str = "timeline_window") -> tuple[float, float]:
    """``"START:END"`` (seconds of simulated time, ``END`` may be ``inf``) as ``(start_s, end_s)``;
    ``ValueError`` naming ``name`` otherwise."""
    parts = str(text).split(":")
    if len(parts) != 2:
        raise ValueError(f"{name} must be START:END in seconds of simulated time (e.g. 10:20), got {text!r}")
    try:
        return check_window((float(parts[0]), float(parts[1])), name=name)
    except ValueError as exc:
        if "must be START:END seconds with" in str(exc):
            raise
        raise ValueError(f"{name} must be START:END in seconds of simulated time (e.g. 10:20), got {text!r}") \
            from None


def clip(start_s: float, end_s: float, window) -> tuple[float, float] | None:
    """``[start_s, end_s]`` (s) cut to ``window`` (``None``: everything); ``None`` when they do not
    overlap (a zero-length interval counts when it lies inside the window)."""
    if window is None:
        return start_s, end_s
    a, b = max(start_s, window[0]), min(end_s, window[1])
    return (a, b) if a < b or (a == b and start_s == end_s) else None


# --- event builders -----------------------------------------------------------------------------------
def complete(name: str, pid: int, tid: int, start_s: float, end_s: float, cat: str, args=None) -> dict:
    """A complete event ``X`` from ``start_s`` to ``end_s`` (s of simulated time) on thread (pid, tid)."""
    ev = {"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid, "ts": start_s * US,
          "dur": max(end_s - start_s, 0.0) * US}
    if args:
        ev["args"] = args
    return ev


def async_pair(name: str, pid: int, ident, start_s: float, end_s: float, cat: str, args=None) -> list[dict]:
    """An async slice: ``b`` at ``start_s`` and ``e`` at ``end_s`` (s), keyed by ``(cat, ident)``."""
    b = {"ph": "b", "name": name, "cat": cat, "pid": pid, "tid": 0, "id": str(ident), "ts": start_s * US}
    if args:
        b["args"] = args
    return [b, {"ph": "e", "name": name, "cat": cat, "pid": pid, "tid": 0, "id": str(ident), "ts": end_s * US}]


def meta_names(pid: int, process: str, threads: dict[int, str] | None = None) -> list[dict]:
    """``M`` metadata naming process ``pid`` and its threads (``{tid: name}``), with sort indices."""
    out = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": 0, "args": {"name": process}},
           {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "ts": 0, "args": {"sort_index": pid}}]
    for tid, name in (threads or {}).items():
        out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "ts": 0, "args": {"name": name}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid, "ts": 0,
                    "args": {"sort_index": tid}})
    return out


def counter_steps(name: str, pid: int, changes: Iterable[tuple[float, float]], key: str, window) -> list[dict]:
    """Counter events ``C`` (a step plot) of a series given as ``(time_s, value)`` changes in time order:
    inside ``window`` only, with the value holding at the window's start first."""
    out, before = [], None
    for t, v in changes:
        if window is not None and t < window[0]:
            before = v
            continue
        if window is not None and t > window[1]:
            break
        out.append({"ph": "C", "name": name, "pid": pid, "tid": 0, "ts": t * US, "args": {key: v}})
    if window is not None and before is not None and (not out or out[0]["ts"] > window[0] * US):
        out.insert(0, {"ph": "C", "name": name, "pid": pid, "tid": 0, "ts": window[0] * US, "args": {key: before}})
    return out


def _lanes(intervals: list[tuple[float, float]]) -> list[int]:
    """A lane per interval (given in start order) such that intervals on one lane do not overlap
    (greedy: the lowest lane free at the start)."""
    free_at: list[float] = []
    out = []
    for a, b in intervals:
        lane = next((i for i, t in enumerate(free_at) if t <= a), len(free_at))
        if lane == len(free_at):
            free_at.append(b)
        else:
            free_at[lane] = b
        out.append(lane)
    return out


# --- the cluster's schedule log ------------------------------------------------------------------------
def _last_at_or_before(times: list[float], t: float) -> float:
    """The last of the sorted ``times`` (s) at or before ``t`` (``-inf``: none)."""
    k = bisect.bisect_right(times, t)
    return times[k - 1] if k else -math.inf


def _held_intervals(log: ScheduleLog) -> dict[tuple[int, int], tuple[float, float, bool]]:
    """``{(worker, sync index): (t0, t1, wasted)}``: worker ``w`` held from its first logged hold after its
    previous launch (``t0``) to the launch ``t1`` of sync ``j``; wasted when no member of ``j`` became ready
    after ``t0`` (decision E5; the same rule as ``metrics.wasted_wait``, written again from the log)."""
    holds: dict[int, list[float]] = {}
    for t, w in log.holds:
        holds.setdefault(w, []).append(t)
    for times in holds.values():
        times.sort()
    last = [-math.inf] * log.n
    out = {}
    for j, s in enumerate(log.syncs):
        ready = [_last_at_or_before(log.compute_end[m], s.launch) for m in s.members]
        for w in s.members:
            times = holds.get(w, ())
            k = bisect.bisect_right(times, last[w])
            t0 = times[k] if k < len(times) and times[k] <= s.launch else None
            if t0 is not None:
                out[w, j] = (t0, s.launch, not max(ready) > t0)
            last[w] = s.launch
    return out


def _waited_syncs(log: ScheduleLog) -> list[list[tuple[float, int]]]:
    """Per worker, ``(launch, sync index)`` of the syncs it took part in other than mid-computation (AD-PSGD's
    ``computing`` members), in launch order."""
    out: list[list[tuple[float, int]]] = [[] for _ in range(log.n)]
    for j, s in enumerate(log.syncs):
        for w in s.members:
            if not (s.computing and w in s.computing):
                out[w].append((s.launch, j))
    for mine in out:
        mine.sort()
    return out


def _worker_events(log: ScheduleLog, w: int, mine: list, held: dict, window) -> tuple[list[dict], list]:
    """Worker ``w``'s ``compute`` and ``wait`` slices (the cluster's state machine: compute, ready, wait
    for a group, sync, compute again; runtime/cluster.py) and its held slices nested in the waits; also
    ``(ready time, sync index)`` of every sync it waited for (the flow arrows' tails); ``mine`` is its
    :func:`_waited_syncs` list."""
    dur = log.duration
    ev, arrows, start, i = [], [], 0.0, 0
    ends = log.compute_end[w]

    def add(name, a, b, args=None):
        c = clip(a, b, window)
        if c is not None:
            ev.append(complete(name, PID_WORKERS, w, c[0], c[1], "worker", args))

    for k, e in enumerate(ends):
        add("compute", start, e, {"iteration": k + 1})
        while i < len(mine) and mine[i][0] < e:          # launched while w computed: not a wait
            i += 1
        start = e
        nxt = ends[k + 1] if k + 1 < len(ends) else math.inf
        if i < len(mine):
            launch, j = mine[i]
            fin = log.syncs[j].finish
            if launch <= nxt and (fin is None or fin <= nxt):
                add("wait", e, launch, {"sync": j})
                if (w, j) in held:
                    t0, t1, wasted = held[w, j]
                    add("held (wasted)" if wasted else "held", max(t0, e), t1, {"sync": j})
                arrows.append((e, j))
                start = dur if fin is None else fin
                i += 1
    if start < dur and (not ends or start > ends[-1] or not mine):
        add("compute (running at the end)", start, dur)
    elif start < dur:
        add("wait", start, dur)                              # ready, no group launched before the end
    return ev, arrows


def schedule_events(log: ScheduleLog, window=None) -> list[dict]:
    """The trace events of a cluster run's :class:`~simlib.runtime.log.ScheduleLog` (see the module
    docstring for the layout), inside ``window`` (``(start_s, end_s)`` or None: the whole run)."""
    held = _held_intervals(log)
    ev = meta_names(PID_WORKERS, "workers", {w: f"worker {w}" for w in range(log.n)})
    arrows, waited = [], _waited_syncs(log)
    for w in range(log.n):
        wev, warrows = _worker_events(log, w, waited[w], held, window)
        ev += wev
        arrows += [(t, j, w) for t, j in warrows]
    spans = [(s.launch, log.duration if s.finish is None else s.finish) for s in log.syncs]
    lanes = _lanes(spans)
    ev += meta_names(PID_SYNCS, "synchronizations", {k: f"lane {k}" for k in sorted(set(lanes))})
    shown = set()
    for j, (s, (a, b), lane) in enumerate(zip(log.syncs, spans, lanes)):
        c = clip(a, b, window)
        if c is None:
            continue
        shown.add(j)
        args = {"sync": j, "kind": s.kind, "members": list(s.members), "iterations": list(s.iterations),
                "finished": s.finish is not None}
        if s.weights is not None:
            args["weights"] = list(s.weights)
        ev += async_pair(s.kind, PID_SYNCS, j, c[0], c[1], "sync", args)
        ev.append(complete(f"{s.kind} sync {j}", PID_SYNCS, lane, c[0], c[1], "collective", {"sync": j}))
    for t, j, w in arrows:
        launch = log.syncs[j].launch
        if j in shown and clip(t, t, window) is not None and clip(launch, launch, window) is not None:
            ev.append({"ph": "s", "name": "ready", "cat": "member", "pid": PID_WORKERS, "tid": w, "ts": t * US,
                       "id": f"{j}.{w}"})
            ev.append({"ph": "f", "bp": "e", "name": "ready", "cat": "member", "pid": PID_SYNCS,
                       "tid": lanes[j], "ts": launch * US, "id": f"{j}.{w}"})
    return ev


# --- the file -----------------------------------------------------------------------------------------
def git_commit(repo: Path | None = None) -> str:
    """The checkout's ``git rev-parse --short=12 HEAD`` (``"unknown"`` outside a git checkout)."""
    repo = repo or Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "unknown"


def trace_document(events: list[dict], *, scenario: dict, seed: int, command: str, window=None,
                   commit: str | None = None) -> dict:
    """The JSON object chrome://tracing and Perfetto load: ``traceEvents`` (``events`` after a global
    instant ``run`` carrying the metadata) and ``otherData`` (command, scenario, seed, commit, window in s,
    the time unit)."""
    meta = {"command": command, "scenario": json.dumps(scenario, sort_keys=True, default=str), "seed": seed,
            "commit": commit or git_commit(), "time_unit": "microseconds of simulated time",
            "window_s": "whole run" if window is None else f"{window[0]:g}:{window[1]:g}"}
    start = 0.0 if window is None else window[0] * US
    run = {"ph": "i", "s": "g", "name": "run", "cat": "metadata", "pid": PID_WORKERS, "tid": 0, "ts": start,
           "args": meta}
    return {"traceEvents": [run, *events], "displayTimeUnit": "ms", "otherData": meta}


def write_trace(path, doc: dict) -> Path:
    """Write ``doc`` (:func:`trace_document`) to ``path`` as JSON after :func:`validate_trace`
    (``ValueError`` listing the first problems: nothing is written then); returns the path."""
    problems = validate_trace(doc)
    if problems:
        raise ValueError("timeline: the trace breaks the trace-event format: " + "; ".join(problems[:5]))
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, allow_nan=False, separators=(",", ":")))
    tmp.replace(path)
    return path


def write_captured(captured: Captured, path, *, scenario: dict, seed: int, command: str, window=None) -> dict:
    """Write the run ``captured`` holds to ``path`` (:func:`trace_document`, :func:`write_trace`); returns
    the document.  ``ValueError`` when the run offered no log."""
    if not captured.found:
        raise ValueError(f"timeline: {command}'s run offered no schedule log (only runs that call "
                         "simlib.runtime.timeline.offer can be shown)")
    doc = trace_document(captured.events(window), scenario=scenario, seed=seed, command=command,
                         window=window)
    write_trace(path, doc)
    return doc


def record_timeline(run: Callable, path, *, scenario: dict, seed: int, window=None, command: str = "python API"):
    """The API's ``--timeline``: call ``run()`` (e.g. ``lambda: simlib.run_trial(sc, seed)``) and write the
    timeline of the run it made to ``path``, restricted to ``window`` (``(start_s, end_s)``, checked before
    the run against ``scenario["duration_s"]`` when given); ``scenario`` (flat parameters) and ``seed`` go
    into the metadata.  Returns what ``run()`` returned."""
    if window is not None:
        window = check_window(window, scenario.get("duration_s"), "window")
    if not Path(path).expanduser().resolve().parent.is_dir():
        raise ValueError(f"path: folder {str(Path(path).expanduser().resolve().parent)!r} does not exist")
    with capture() as captured:
        out = run()
    write_captured(captured, path, scenario=scenario, seed=seed, command=command, window=window)
    return out


_NEEDS = {"X": ("name", "pid", "tid", "ts", "dur"), "b": ("name", "pid", "id", "ts"), "e": ("pid", "id", "ts"),
          "s": ("name", "pid", "tid", "id", "ts"), "f": ("name", "pid", "tid", "id", "ts"),
          "C": ("name", "pid", "ts", "args"), "i": ("name", "pid", "ts"), "M": ("name", "pid", "args")}


def validate_trace(doc) -> list[str]:
    """The trace-event format's rules ``doc`` breaks (``[]``: none): a ``traceEvents`` list; every event a
    known ``ph`` with its required fields (``name``/``pid``/``tid``/``ts``, ``dur`` >= 0 for ``X``, ``id``
    for async and flow events) and finite numbers; complete events nest properly on each (pid, tid);
    every async ``b`` has one ``e`` with the same (pid, cat, id) not before it; every flow ``s`` has an
    ``f`` with the same id and vice versa, the ``f`` not before the ``s``; counter args are numbers."""
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["the document must be an object with a traceEvents list"]
    problems, threads, opened, flows = [], {}, {}, {}
    for k, ev in enumerate(doc["traceEvents"]):
        ph = ev.get("ph") if isinstance(ev, dict) else None
        if ph not in _NEEDS:
            problems.append(f"event {k}: unknown ph {ph!r}")
            continue
        missing = [f for f in _NEEDS[ph] if f not in ev]
        if missing:
            problems.append(f"event {k} ({ph}): missing {missing}")
            continue
        nums = [ev[f] for f in ("ts", "dur") if f in ev] + (list(ev["args"].values()) if ph == "C" else [])
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in nums):
            problems.append(f"event {k} ({ph}): ts/dur/counter values must be finite numbers")
            continue
        if ph == "X":
            if ev["dur"] < 0:
                problems.append(f"event {k}: X with dur {ev['dur']} < 0")
            threads.setdefault((ev["pid"], ev["tid"]), []).append((ev["ts"], ev["ts"] + ev["dur"], k))
        elif ph in "be":
            key = (ev["pid"], ev.get("cat"), str(ev["id"]))
            if ph == "b":
                opened.setdefault(key, []).append(ev["ts"])
            elif not opened.get(key):
                problems.append(f"event {k}: async end without a begin (id {ev['id']})")
            elif opened[key].pop() > ev["ts"]:
                problems.append(f"event {k}: async end before its begin (id {ev['id']})")
        elif ph in "sf":
            flows.setdefault(str(ev["id"]), {})[ph] = ev["ts"]
    problems += [f"async begin without an end (pid {p}, cat {c}, id {i})" for (p, c, i), ts in opened.items() if ts]
    for ident, ends in flows.items():
        if set(ends) != {"s", "f"}:
            problems.append(f"flow id {ident}: needs one s and one f, has {sorted(ends)}")
        elif ends["f"] < ends["s"]:
            problems.append(f"flow id {ident}: f before s")
    for (pid, tid), spans in threads.items():
        problems += _nesting(pid, tid, spans)
    return problems


def _nesting(pid, tid, spans: list[tuple[float, float, int]]) -> list[str]:
    """Complete events on one thread must nest: each starts after the enclosing one starts and ends no
    later than it ends (a tolerance of 1e-6 us for float rounding)."""
    out, stack = [], []
    for a, b, k in sorted(spans, key=lambda s: (s[0], -s[1])):
        while stack and stack[-1][1] <= a + 1e-6:
            stack.pop()
        if stack and b > stack[-1][1] + 1e-6:
            out.append(f"event {k} on (pid {pid}, tid {tid}) overlaps event {stack[-1][2]} without nesting")
        stack.append((a, b, k))
    return out
