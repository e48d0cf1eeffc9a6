"""The SSP loop's max-min solves alone: ``share_rates`` on the flow table against ``share_big_switch`` on bit sets.

Decision N18's micro-benchmark.  A 10-minute n = 50 run (notebooks 44-45's defaults, L3, max-min; SelMcast and
Orpheus) is simulated once; its multicast log gives the flows at every event -- a multicast's flow starts over
its sender's ingress and its receivers' egresses, loses an egress at each drop and ends at its finish -- and
the capacities (gamma = 0: the run's fixed ingress and egress bandwidths).  That sequence is replayed in a
compiled loop, one solve after each event's changes, as ``ssp_kernel.run_loop`` does:

* ``table``: each changed row rewritten in the flow table (``set_links``, as before N18), then ``share_rates``;
* ``bits``: the same, plus the row's bit sets (``set_receivers``), then ``share_big_switch``;
* ``none``: the rows only, no solve (what both pay anyway).

The two solvers' rates are first compared at every solve (bit for bit); then the three replays are timed in
turn (order rotating), process CPU, medians of ``--repeats``.

    python benchmarks/ab_share_big_switch.py [--repeats 7] [--seed 0]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simlib.core.sharing import (flow_table, set_links, set_receivers, share_big_switch,  # noqa: E402
                                 share_rates)
from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate  # noqa: E402

START, DROP, END, SOLVE = 0, 1, 2, 3


def events(log, n: int):
    """The run's flow changes as (kind, slot, row of the pool) arrays, a SOLVE after each instant's changes,
    and the pool of rows (int8 (rows, n)): a start sets its sender's row and activates it, a drop sets the
    row without the dropped receiver, an end deactivates it."""
    t = log.table
    ev = []
    for mc in range(t.sender.size):
        ev.append((t.start[mc], 1, mc, -1))
        if np.isfinite(t.finish[mc]):
            ev.append((t.finish[mc], 0, mc, -1))
    for d in range(t.drop_mc.size):
        ev.append((t.drop_t[d], 2, int(t.drop_mc[d]), int(t.drop_j[d])))
    ev.sort(key=lambda e: (e[0], e[1]))                 # an instant: ends, then starts, then drops
    x = np.zeros((n, n), np.int8)
    kind, slot, prow, pool = [], [], [], []
    for a, (time_s, k, mc, j) in enumerate(ev):
        s = int(t.sender[mc])
        if k == 0:
            kind.append(END), slot.append(s), prow.append(-1)
        else:
            if k == 1:
                x[s] = 0
                x[s, t.recv[t.r0[mc]:t.r0[mc] + t.nr[mc]]] = 1
            else:
                x[s, j] = 0
            pool.append(x[s].copy())
            kind.append(START if k == 1 else DROP), slot.append(s), prow.append(len(pool) - 1)
        if a + 1 == len(ev) or ev[a + 1][0] != time_s:
            kind.append(SOLVE), slot.append(-1), prow.append(-1)
    return (np.array(kind, np.int64), np.array(slot, np.int64), np.array(prow, np.int64),
            np.array(pool, np.int8).reshape(-1, n))


@njit(cache=True)
def _set_row(n, row, s, table, buf, rows, cols, bits):
    """Slot s crosses its ingress and the egresses of ``row``'s receivers (``ssp_kernel._l3_links``);
    with ``bits`` also as bit sets."""
    buf[0] = s
    k = 1
    for j in range(n):
        if row[j] == 1:
            buf[k] = n + j
            k += 1
    set_links(table, s, buf, k)
    if bits:
        b = 0
        for q in range(1, k):
            b |= 1 << (buf[q] - n)
        set_receivers(rows, cols, s, b)


@njit(cache=True)
def replay(caps, kind, slot, prow, pool, mode, out):
    """The event sequence with a solve at each SOLVE: ``mode`` 0 ``share_rates`` on the table, 1
    ``share_big_switch`` on bit sets, 2 none; the rates of solve k into ``out[k]`` (if ``out`` has rows)."""
    n = pool.shape[1]
    table = flow_table(n, n, 2 * n)
    buf = np.empty(n + 1, np.int64)
    rows = np.zeros(n, np.int64)
    cols = np.zeros(n, np.int64)
    active = np.zeros(n, np.bool_)
    rates = np.zeros(n)
    prio = np.zeros(n, np.int64)
    nsolve = 0
    total = 0.0
    for e in range(kind.shape[0]):
        k = kind[e]
        if k == START or k == DROP:
            _set_row(n, pool[prow[e]], slot[e], table, buf, rows, cols, mode == 1)
            active[slot[e]] = True
        elif k == END:
            active[slot[e]] = False
        else:
            if mode == 0:
                share_rates(caps, table, active, prio, rates)
            elif mode == 1:
                share_big_switch(caps, rows, cols, active, rates, table)
            if out.shape[0] > nsolve:
                out[nsolve, :] = rates
            nsolve += 1
            total += rates[0]
    return total


CASES = {"sm": ("selmcast", {}), "om": ("orpheus", {})}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--duration", type=float, default=600.0)
    args = ap.parse_args(argv)
    for case, (scheme, kw) in CASES.items():
        sc = SSPScenario(scheme=scheme, sharing="maxmin", n=50, duration_s=args.duration, **kw)
        log = simulate(sc, args.seed)
        n = log.n
        caps = np.concatenate([log.ingress, log.egress]).astype(float)
        kind, slot, prow, pool = events(log, n)
        nsolve = int((kind == SOLVE).sum())
        got = {m: np.zeros((nsolve, n)) for m in (0, 1)}
        for m in (0, 1):
            replay(caps, kind, slot, prow, pool, m, got[m])
        same = sum(got[0][k].tobytes() == got[1][k].tobytes() for k in range(nsolve))
        none = np.zeros((0, n))
        cpu = {m: [] for m in (0, 1, 2)}
        load0 = os.getloadavg()[0]
        for rep in range(args.repeats):
            order = (0, 1, 2) if rep % 2 == 0 else (2, 1, 0)
            for m in order:
                c0 = time.process_time()
                replay(caps, kind, slot, prow, pool, m, none)
                cpu[m].append(time.process_time() - c0)
        med = {m: statistics.median(v) for m, v in cpu.items()}
        per = {m: (med[m] - med[2]) / nsolve * 1e6 for m in (0, 1)}
        print(f"{scheme} max-min, seed {args.seed}, {args.duration:.0f} s n = {n}: {nsolve} solves, "
              f"{same} of {nsolve} bit for bit equal; load {load0:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
        print(f"  replay CPU, medians of {args.repeats}: table + share_rates {med[0]:.4f} s, bits + share_big_switch "
              f"{med[1]:.4f} s, rows only {med[2]:.4f} s; per solve beyond the rows {per[0]:.2f} -> {per[1]:.2f} us "
              f"({per[0] / per[1]:.2f}x); whole replay {med[0] / med[1]:.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
