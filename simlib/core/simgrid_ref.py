"""SimGrid as an independent reference for flow-level max-min bandwidth sharing.

This module drives SimGrid's Python bindings (developed against Debian's
3.32) to compute flow completion times on a *big-switch star*: ``n`` hosts,
host ``i`` has an *up* link (host -> switch, capacity ``up_bps[i]``) and a
*down* link (switch -> host, capacity ``down_bps[i]``).  A unicast flow
``s -> d`` crosses ``up[s]`` then ``down[d]``; an L3 multicast flow
``s -> {d1..dk}`` crosses ``up[s]`` once and every ``down[di]``, all at one
common rate.  It is meant for cross-check tests and benchmarks of simlib's
own solver and shares no code with it.

Units at the API: bits, bits/s, seconds.  SimGrid works in bytes and
bytes/s: volumes and capacities are divided by 8, then rescaled by one
common power of two (times are invariant; see "Scaling" below).

Public API (plain values in, numpy arrays out)
----------------------------------------------
``simgrid_available() -> bool``
    True when ``import simgrid`` works (checked once, in a child interpreter).
``unicast_completion_times(up_bps, down_bps, flows) -> ndarray``
    ``flows``: sequence of ``(src, dst, volume_bits, start_time_s)``, src != dst.
``multicast_completion_times(up_bps, down_bps, flows, method="ptask") -> ndarray``
    ``flows``: sequence of ``(src, [dst, ...], volume_bits, start_time_s)``;
    destinations distinct and != src.  ``method="route"``: see below.
``run_benchmark(up_bps, down_bps, flows) -> (ndarray, float)``
    Unicast; also returns the wall-clock seconds of ``Engine.run()`` measured
    inside the child process (platform construction, interpreter start-up and
    I/O excluded).

All return absolute completion times in seconds, in input order, and
accept ``timeout=`` (seconds, for the child process).
Zero-volume flows complete at their start time without involving SimGrid.
Errors in the child (including a failing ``import simgrid``) raise
``RuntimeError`` (``ImportError`` when the module is missing).

Process model
-------------
SimGrid's Engine is a per-process singleton, so every call runs one
simulation in a fresh ``sys.executable`` subprocess.  The child gets this
package's root and the parent's ``sys.path`` through ``PYTHONPATH`` (so it
imports the very same ``simgrid`` and ``simlib``), reads its input as JSON on
stdin and writes its result as JSON to a temporary file; its stdout/stderr
are captured (SimGrid prints a "contexts/factory" INFO line at import time,
before any ``--log`` option can apply).  ``simgrid`` is never imported in the
calling process.

Platform
--------
Root zone ``NetZone.create_star_zone``; host ``i`` with links ``up_i`` and
``down_i`` (``create_link``, SHARED policy, zero latency);
``add_route(host_i, None, ..., [up_i])`` and ``add_route(None, host_i, ...,
[down_i])``.  Host speeds are irrelevant (nothing is computed).

SimGrid configuration
---------------------
Common to all runs::

    --cfg=maxmin/precision:1e-9     (default 1e-5)
    --cfg=surf/precision:1e-15      (default 1e-9; seconds)
    --log=root.thresh:critical      (silence SimGrid)
    --log=root.app:stdout

Unicast, and multicast with ``method="route"`` (CM02 max-min)::

    --cfg=network/model:CM02        plain max-min, bandwidth/latency factors 1
    --cfg=network/crosstraffic:0    no reverse (ACK) traffic
    --cfg=network/TCP-gamma:0       no TCP-window rate bound
    --cfg=network/weight-S:0        defensive; no RTT-based weights (already
                                    inactive with zero latency)
    --cfg=network/optim:Full        same results as the default Lazy mode
                                    (to 1e-14) but ~2x faster on the
                                    benchmark below (16 s vs 35 s)

Each flow is one ``Comm.sendto_async(src_host, dst_host, bytes)`` issued by
a single driver actor that ``sleep_until``\\ s through the distinct start
times, so each comm starts exactly at its start time (no mailbox rendezvous);
completion times are ``Comm.finish_time`` after ``Comm.wait_all``.  One
driver instead of one actor per flow matters: the Python bindings force
thread contexts, and 10,000 per-flow actors (blocking ``Comm.sendto``) took
6 s to create plus 31 s to run, versus 16 s for the single driver.

Multicast with ``method="ptask"`` (the default)::

    --cfg=host/model:ptask_L07      parallel tasks (network/model must stay
                                    at its default under ptask_L07)
    --cfg=host/solver:bmf           the default solver, fairbottleneck, is
                                    wrong here: up to 60 % error on random
                                    multicast instances; "maxmin" is refused
                                    by ptask_L07
    --cfg=bmf/max-iterations:100000 (default 1000: BMF gave up with "Unable
                                    to find a BMF allocation" on ~1 in 20
                                    random 10-host / 40-multicast instances)

Each multicast is one communication-only ptask (``this_actor.exec_init(hosts,
flops=[0..], bytes).start().wait()``), started by its own actor at its start
time; the completion time is ``Engine.clock`` when ``wait`` returns.

What ptask_L07 does with a communication-only ptask (checked)
------------------------------------------------------------------------
Reading ``ptask_L07.cpp`` and testing on 3.32: a ptask is ONE variable of the
linear system (its progress, cost 1 task), so it does progress at one rate
for the whole task, limited by its most loaded link -- but a link's load is
the SUM of ``bytes[i][j]`` over all pairs whose route crosses it.  With the
obvious matrix ``bytes[src][d] = V`` for every receiver, ``up[src]`` lies on
all k routes and is charged ``k*V``: the task gets
``min(up/(k V), min_d down_d/V)`` tasks/s, i.e. k lock-stepped unicast
copies, NOT an L3 multicast.  Measured: V = 1e9 bytes, all links 1e9 B/s,
k = 3 -> 3.0 s instead of 1.0 s (with bmf and with fairbottleneck).

This module therefore gives every multicast an extra *relay* host that has
no links at all (a star-zone host without ``add_route`` gets empty up and
down routes, so ``relay -> d`` crosses only ``down[d]``)::

    hosts = [src, d1, ..., dk, relay]
    bytes[src][d1]   = V        # up[src] + down[d1]
    bytes[relay][di] = V        # down[di], i = 2..k

Every link of the multicast now has coefficient V, the byte rate on each of
them is ``V * x``, and BMF (which equalises the per-resource consumption
``A[r][i] * x_i`` of the tasks bottlenecked on ``r``) reduces to max-min
fairness of multicast byte rates: the intended model.  A single-receiver
multicast needs no relay and is exactly a unicast.

BMF in 3.32 compares capacities, consumptions and shares with *absolute*
tolerances; with capacities around 1e9 B/s it aborted ("Unable to find a
BMF allocation") on most random instances although its allocation was right.
ptask runs are therefore normalised so that the largest capacity lies in
(0.5, 1] (power-of-two scaling of capacities and volumes, times unchanged).

``method="route"`` is an independent second encoding that needs no ptask:
each multicast is a single CM02 comm to a virtual host that has no up route
and the down route ``[down_d1, ..., down_dk]``, so the comm's route is
``up[src], down[d1..dk]`` (each once) and plain max-min applies.  Both
methods agree to ~1e-13 and match an exact progressive-filling solver.
Cost: BMF solves dense systems and iterates, so ptask runs grow quickly
and erratically (50 hosts, 100-150 multicasts of <= 8 receivers: 1-7 s; 200
multicasts: BMF gave up after 455 s, even with 100,000 iterations) whereas
"route" took 0.5 s on the latter.  Use "ptask" for small cross-checks and
"route" beyond ~100 concurrent multicasts.

Precision (measured against an exact event-driven progressive-filling
solver, random instances with staggered starts)
-------------------------------------------------------------------------
``surf/precision`` is SimGrid's time tolerance (seconds, absolute) and is
the knob that matters: with the default 1e-9, flows of 80-8,000 bits at
1-20 Gbit/s (durations ~1e-8..1e-5 s) were off by up to 9e-4 relative, and
flows lasting ~1e-10..1e-7 s by up to 20 %; with 1e-12 the latter were
still off by 4e-5.  ``maxmin/precision`` made no measurable difference
(1e-5, 1e-9 and 1e-12 gave identical results once BMF runs are normalised);
1e-9 is kept as a safe middle.  With 1e-9 / 1e-15 the worst relative error
was ~2e-13 (CM02; that is the integer-byte rounding, see below) and ~2e-15
(ptask) for flow durations from ~1e-10 s to ~1e5 s and capacities spread
over 1e6..1e11 bit/s; the 200-host / 10,000-flow benchmark instance matched
to 1.9e-13.

Scaling (integer byte counts)
-----------------------------
``Comm.sendto_async`` takes an *integer* number of bytes.  For CM02 runs one
power-of-two factor ``K`` is applied: a volume ``V`` bits becomes
``round(V / 8 * K)`` SimGrid bytes and a capacity ``C`` becomes
``C / 8 * K`` B/s.  ``K`` makes the smallest positive volume >= 2**40 bytes
(rounding error <= 5e-13) while keeping the largest <= 2**62; only
instances whose volumes span more than ~2**22 lose accuracy on their
smallest flows.  ptask byte amounts are floats and are not rounded.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

__all__ = [
    "simgrid_available",
    "unicast_completion_times",
    "multicast_completion_times",
    "run_benchmark",
]

_COMMON_FLAGS = [
    "--cfg=maxmin/precision:1e-9",
    "--cfg=surf/precision:1e-15",
    "--log=root.thresh:critical",
    "--log=root.app:stdout",
]
_CM02_FLAGS = [
    "--cfg=network/model:CM02",
    "--cfg=network/crosstraffic:0",
    "--cfg=network/TCP-gamma:0",
    "--cfg=network/weight-S:0",
    "--cfg=network/optim:Full",
] + _COMMON_FLAGS
_PTASK_FLAGS = [
    "--cfg=host/model:ptask_L07",
    "--cfg=host/solver:bmf",
    "--cfg=bmf/max-iterations:100000",
] + _COMMON_FLAGS

_MIN_SCALED_BYTES = 2.0**40
_MAX_SCALED_BYTES = 2.0**62
_HOST_SPEED = 1e9  # flop/s; irrelevant (nothing is computed), must be > 0

_CHILD_BOOT = (
    "import sys\n"
    "from simlib.core.simgrid_ref import _child_main\n"
    "sys.exit(_child_main())\n"
)


# --------------------------------------------------------------------------
# availability
# --------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def simgrid_available() -> bool:
    """True when SimGrid's Python bindings can be imported (checked once, in a
    child interpreter with this process's ``sys.path``)."""
    try:
        if importlib.util.find_spec("simgrid") is None:
            return False
    except (ImportError, ValueError):
        return False
    try:
        proc = subprocess.run(
            [sys.executable, "-c", "import simgrid"],
            env=_child_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


# --------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------
def unicast_completion_times(up_bps, down_bps, flows, *, timeout: float | None = None) -> np.ndarray:
    """Completion time (absolute seconds) of each unicast flow, in input order.

    ``flows``: sequence of ``(src, dst, volume_bits, start_time_s)``, src != dst.
    """
    times = _run_unicast(up_bps, down_bps, flows, timeout)[0]
    return times


def run_benchmark(up_bps, down_bps, flows, *, timeout: float | None = None, cpu: bool = False):
    """Unicast run returning ``(completion_times, engine_seconds)``;
    ``engine_seconds`` is the wall-clock time spent in SimGrid's
    ``Engine.run()`` (measured in the child process).  With ``cpu=True``
    also the child's CPU seconds in ``Engine.run()`` (a third element)."""
    times, wall, cpu_s = _run_unicast(up_bps, down_bps, flows, timeout)
    return (times, wall, cpu_s) if cpu else (times, wall)


def multicast_completion_times(
    up_bps, down_bps, flows, *, method: str = "ptask", timeout: float | None = None
) -> np.ndarray:
    """Completion time (absolute seconds) of each L3 multicast flow, in input order.

    ``flows``: sequence of ``(src, [dst, ...], volume_bits, start_time_s)``;
    the destinations are distinct and exclude ``src``.  Each multicast
    crosses ``up[src]`` once and every ``down[d]``, at one common rate.

    ``method``: ``"ptask"`` (default; ptask_L07 + BMF, one parallel task per
    multicast) or ``"route"`` (CM02 max-min, one communication per multicast
    towards a virtual host whose route is ``up[src], down[d1], ..., down[dk]``).
    Both give the same answer; "route" is much faster and robust on large
    instances, see the module docstring.
    """
    if method not in ("ptask", "route"):
        raise ValueError(f"method must be 'ptask' or 'route', got {method!r}")
    up, down = _check_capacities(up_bps, down_bps)
    n = len(up)
    srcs, dst_lists, vols, starts = [], [], [], []
    for k, f in enumerate(flows):
        try:
            s, ds, v, t = f
        except (TypeError, ValueError):
            raise ValueError(f"flow {k}: expected (src, [dst, ...], volume_bits, start_time_s), got {f!r}") from None
        s = _check_host(s, n, k, "src")
        if isinstance(ds, (str, bytes)) or not hasattr(ds, "__iter__"):
            raise ValueError(f"flow {k}: destinations must be a sequence of host indices, got {ds!r}")
        ds = [_check_host(d, n, k, "dst") for d in ds]
        if not ds:
            raise ValueError(f"flow {k}: empty destination list")
        if len(set(ds)) != len(ds):
            raise ValueError(f"flow {k}: duplicate destinations {ds}")
        if s in ds:
            raise ValueError(f"flow {k}: src {s} is also a destination")
        srcs.append(s)
        dst_lists.append(ds)
        vols.append(_check_volume(v, k))
        starts.append(_check_start(t, k))
    kind = "ptask" if method == "ptask" else "comm"
    times = _simulate(kind, up, down, srcs, dst_lists, vols, starts, timeout)[0]
    return times


# --------------------------------------------------------------------------
# parent-side helpers
# --------------------------------------------------------------------------
def _run_unicast(up_bps, down_bps, flows, timeout):
    up, down = _check_capacities(up_bps, down_bps)
    n = len(up)
    srcs, dsts, vols, starts = [], [], [], []
    for k, f in enumerate(flows):
        try:
            s, d, v, t = f
        except (TypeError, ValueError):
            raise ValueError(f"flow {k}: expected (src, dst, volume_bits, start_time_s), got {f!r}") from None
        s = _check_host(s, n, k, "src")
        d = _check_host(d, n, k, "dst")
        if s == d:
            raise ValueError(f"flow {k}: src == dst == {s}")
        srcs.append(s)
        dsts.append([d])
        vols.append(_check_volume(v, k))
        starts.append(_check_start(t, k))
    return _simulate("comm", up, down, srcs, dsts, vols, starts, timeout)


def _check_capacities(up_bps, down_bps):
    up = np.asarray(up_bps, dtype=float).reshape(-1)
    down = np.asarray(down_bps, dtype=float).reshape(-1)
    if up.shape != down.shape:
        raise ValueError(f"up_bps and down_bps differ in length ({up.size} vs {down.size})")
    if up.size < 2:
        raise ValueError("need at least 2 hosts")
    for name, a in (("up_bps", up), ("down_bps", down)):
        if not np.all(np.isfinite(a)) or np.any(a <= 0):
            raise ValueError(f"{name} must be finite and > 0")
    return up, down


def _check_host(h, n, k, what):
    if isinstance(h, (bool, np.bool_)) or not isinstance(h, (int, np.integer)):
        raise ValueError(f"flow {k}: {what} must be an integer host index, got {h!r}")
    h = int(h)
    if not 0 <= h < n:
        raise ValueError(f"flow {k}: {what} {h} out of range [0, {n})")
    return h


def _check_volume(v, k):
    v = float(v)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"flow {k}: volume must be finite and >= 0, got {v!r}")
    return v


def _check_start(t, k):
    t = float(t)
    if not math.isfinite(t) or t < 0:
        raise ValueError(f"flow {k}: start time must be finite and >= 0, got {t!r}")
    return t


def _scale_exponent(vols_bytes) -> int:
    """Power-of-two exponent e such that volumes * 2**e fit the integer range
    (see module docstring, "Scaling")."""
    pos = [v for v in vols_bytes if v > 0]
    if not pos:
        return 0
    lo, hi = min(pos), max(pos)
    e = max(0, math.ceil(math.log2(_MIN_SCALED_BYTES / lo)))
    e_max = math.floor(math.log2(_MAX_SCALED_BYTES / hi))
    return min(e, e_max)


def _child_env():
    env = dict(os.environ)
    # the repository root holds the simlib package
    roots = [str(Path(__file__).resolve().parents[2])] + [p for p in sys.path if p]
    seen, uniq = set(), []
    for p in roots:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    env["PYTHONPATH"] = os.pathsep.join(uniq)
    return env


def _simulate(kind, up, down, srcs, dst_lists, vols, starts, timeout):
    """Run one SimGrid simulation in a child process.  Returns
    ``(completion_times, engine_seconds, engine_cpu_seconds)``."""
    nflows = len(srcs)
    times = np.full(nflows, np.nan)
    live = [k for k in range(nflows) if vols[k] > 0]
    for k in range(nflows):
        if vols[k] <= 0:
            times[k] = starts[k]
    if not live:
        return times, 0.0, 0.0

    if kind == "comm":
        # integer byte counts: one power-of-two scale for volumes and capacities
        e = _scale_exponent([vols[k] / 8.0 for k in live])
        cap_scale = math.ldexp(1.0 / 8.0, e)
        sizes = [max(1, int(round(math.ldexp(vols[k] / 8.0, e)))) for k in live]
        flags = _CM02_FLAGS
    else:
        # ptask byte amounts are floats: scale bits and bit/s by one power of
        # two so that the largest capacity is in (0.5, 1] (BMF's tolerances
        # are absolute, see module docstring); the /8 would cancel anyway
        e = -math.ceil(math.log2(max(np.max(up), np.max(down))))
        cap_scale = math.ldexp(1.0, e)
        sizes = [math.ldexp(vols[k], e) for k in live]
        flags = _PTASK_FLAGS
    payload = {
        "kind": kind,
        "flags": flags,
        "up": [float(c) * cap_scale for c in up],
        "down": [float(c) * cap_scale for c in down],
        "src": [srcs[k] for k in live],
        "dst": [dst_lists[k] for k in live],
        "size": sizes,
        "start": [starts[k] for k in live],
    }
    with tempfile.TemporaryDirectory(prefix="simgrid_ref_") as tmp:
        out_path = os.path.join(tmp, "result.json")
        payload["out"] = out_path
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _CHILD_BOOT],
                input=json.dumps(payload).encode(),
                capture_output=True,
                env=_child_env(),
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"SimGrid child process timed out after {timeout} s") from exc
        result = None
        if os.path.exists(out_path):
            with open(out_path) as fh:
                result = json.load(fh)
    if proc.returncode != 0 or result is None:
        err = proc.stderr.decode(errors="replace")
        if "No module named 'simgrid'" in err:
            raise ImportError("SimGrid's Python bindings (module 'simgrid') are not importable")
        lines = [ln for ln in err.strip().splitlines() if not ln.lstrip().startswith("->")]
        tail = "\n".join(lines[:8] + ["..."] + lines[-8:] if len(lines) > 17 else lines)
        raise RuntimeError(f"SimGrid child process failed (exit code {proc.returncode}):\n{tail}")
    fin = np.asarray(result["finish"], dtype=float)
    if fin.shape != (len(live),) or not np.all(np.isfinite(fin)):
        raise RuntimeError("SimGrid child process returned incomplete results")
    times[live] = fin
    return times, float(result["engine_seconds"]), float(result.get("engine_cpu_seconds", math.nan))


# --------------------------------------------------------------------------
# child side (runs in the subprocess; the only place that imports simgrid)
# --------------------------------------------------------------------------
def _child_main() -> int:
    payload = json.loads(sys.stdin.buffer.read())
    import simgrid  # noqa: F401  (ImportError here -> non-zero exit, reported by the parent)

    if payload["kind"] == "comm":
        finish, engine_seconds, cpu = _child_comm(payload)
    else:
        finish, engine_seconds, cpu = _child_ptask(payload)
    with open(payload["out"], "w") as fh:
        json.dump({"finish": finish, "engine_seconds": engine_seconds, "engine_cpu_seconds": cpu}, fh)
    return 0


def _child_platform(payload):
    """Star zone: host i with links up_i (route to everyone) and down_i (route
    from everyone).  Returns (engine, zone, hosts, down_links); the zone is
    not sealed yet so that callers can add virtual hosts."""
    from simgrid import Engine, LinkInRoute, NetZone

    engine = Engine(["simgrid_ref"] + list(payload["flags"]))
    zone = NetZone.create_star_zone("switch")
    hosts, downs = [], []
    for i, (cu, cd) in enumerate(zip(payload["up"], payload["down"])):
        host = zone.create_host(f"h{i}", _HOST_SPEED).seal()
        up = zone.create_link(f"up{i}", cu).set_latency(0).seal()
        down = zone.create_link(f"down{i}", cd).set_latency(0).seal()
        zone.add_route(host.netpoint, None, None, None, [LinkInRoute(up)], False)
        zone.add_route(None, host.netpoint, None, None, [LinkInRoute(down)], False)
        hosts.append(host)
        downs.append(down)
    return engine, zone, hosts, downs


def _child_comm(payload):
    """CM02 max-min: one Comm per flow, all started by one driver actor."""
    import time

    from simgrid import Actor, Comm, Engine, LinkInRoute, this_actor

    engine, zone, hosts, downs = _child_platform(payload)
    src, dst, size, start = payload["src"], payload["dst"], payload["size"], payload["start"]
    targets = []
    for k, ds in enumerate(dst):
        if len(ds) == 1:
            targets.append(hosts[ds[0]])
        else:
            # multicast as one comm: a virtual host without up route whose
            # route from everyone is [down_d1, ..., down_dk], so that
            # src -> group crosses up[src], down[d1], ..., down[dk] once each
            group = zone.create_host(f"group{k}", _HOST_SPEED).seal()
            zone.add_route(None, group.netpoint, None, None, [LinkInRoute(downs[d]) for d in ds], False)
            targets.append(group)
    zone.seal()

    order = sorted(range(len(src)), key=lambda k: start[k])
    comms = [None] * len(src)
    finish = [None] * len(src)

    def driver():
        i = 0
        while i < len(order):
            t = start[order[i]]
            if t > Engine.clock:
                this_actor.sleep_until(t)
            while i < len(order) and start[order[i]] == t:
                k = order[i]
                comms[k] = Comm.sendto_async(hosts[src[k]], targets[k], size[k])
                i += 1
        Comm.wait_all(comms)
        for k, c in enumerate(comms):
            finish[k] = c.finish_time

    Actor.create("driver", hosts[0], driver)
    t0, c0 = time.perf_counter(), time.process_time()
    engine.run()
    engine_seconds = time.perf_counter() - t0
    return finish, engine_seconds, time.process_time() - c0


def _child_ptask(payload):
    """ptask_L07 + BMF: one parallel task (comm only) per flow, one actor each."""
    import time

    from simgrid import Actor, Engine, this_actor

    engine, zone, hosts, _ = _child_platform(payload)
    src, dst, size, start = payload["src"], payload["dst"], payload["size"], payload["start"]
    relay = None
    if any(len(ds) > 1 for ds in dst):
        # no add_route: the star zone gives it empty up/down routes, so
        # relay -> d crosses down[d] only
        relay = zone.create_host("relay", _HOST_SPEED).seal()
    zone.seal()
    finish = [None] * len(src)

    def make_actor(k):
        ds = dst[k]
        if len(ds) == 1:
            task_hosts = [hosts[src[k]], hosts[ds[0]]]
            nbytes = [0.0, float(size[k]), 0.0, 0.0]
        else:
            task_hosts = [hosts[src[k]]] + [hosts[d] for d in ds] + [relay]
            m = len(task_hosts)
            nbytes = [0.0] * (m * m)
            nbytes[0 * m + 1] = float(size[k])  # src -> d1: up[src] + down[d1]
            for j in range(2, m - 1):
                nbytes[(m - 1) * m + j] = float(size[k])  # relay -> dj: down[dj]
        flops = [0.0] * len(task_hosts)

        def run():
            if start[k] > Engine.clock:
                this_actor.sleep_until(start[k])
            this_actor.exec_init(task_hosts, flops, nbytes).start().wait()
            finish[k] = Engine.clock

        return run

    for k in range(len(src)):
        Actor.create(f"mc{k}", hosts[src[k]], make_actor(k))
    t0, c0 = time.perf_counter(), time.process_time()
    engine.run()
    engine_seconds = time.perf_counter() - t0
    return finish, engine_seconds, time.process_time() - c0
