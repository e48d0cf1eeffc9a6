"""A static picture of a timeline file (:mod:`simlib.runtime.timeline`), drawn with matplotlib.

This is *our* rendering of the trace-event JSON, for places a trace viewer cannot go (the README, a
machine without network: Perfetto's UI is a web page, and headless Chromium does not load
``chrome://tracing``).  It draws only what the file holds, read back from the file:

* one row per worker (process ``workers``): its complete slices as bars coloured by name, a slice
  nested in another (e.g. ``held`` inside ``wait``) drawn thinner on top of it;
* one row per lane of the async slices (synchronizations, rounds, multicasts, flows), greedily packed;
* the counter tracks (links' rates, NICs' counts) as step plots, the ``max_counters`` with the largest
  peak.

Usage: ``python -m simlib.runtime.timeline_plot t.json out.png [--title TEXT]``.  Units: the ruler is in
seconds of simulated time (the file's microseconds / 1e6).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from simlib.runtime.timeline import PID_WORKERS as _PID_WORKERS, US, _lanes

__all__ = ["plot_trace", "main"]

#: Bar colours by slice name (Okabe-Ito); other names cycle through the rest.
COLORS = {"compute": "#0072B2", "wait": "#BBBBBB", "held": "#E69F00", "held (wasted)": "#D55E00",
          "form": "#BBBBBB", "scatter": "#009E73", "broadcast": "#CC79A7", "receive": "#009E73",
          "wait for the round's end": "#BBBBBB"}
_CYCLE = ("#56B4E9", "#F0E442", "#999933", "#882255", "#44AA99", "#117733")


def _color(name: str, extra: dict) -> str:
    if name in COLORS:
        return COLORS[name]
    if name.startswith("compute"):
        return COLORS["compute"]
    return extra.setdefault(name, _CYCLE[len(extra) % len(_CYCLE)])


def plot_trace(doc: dict, *, max_counters: int = 6, max_workers: int = 24, title: str | None = None):
    """A matplotlib Figure of the trace ``doc`` (the JSON object a timeline file holds): workers' slices,
    async lanes, counters (module docstring); at most ``max_workers`` worker rows (the lowest ids).
    Returns the figure."""
    import matplotlib
    import matplotlib.patches
    import matplotlib.pyplot as plt

    ev = doc["traceEvents"]
    names = {(e["pid"], e.get("tid", 0)): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    xs = sorted([e for e in ev if e["ph"] == "X" and e["pid"] == _PID_WORKERS], key=lambda e: (e["ts"], -e["dur"]))
    tids = sorted({e["tid"] for e in xs})[:max_workers]
    begins = {}
    spans = []
    for e in sorted((e for e in ev if e["ph"] in "be"), key=lambda e: e["ts"]):
        key = (e["pid"], e.get("cat"), str(e["id"]))
        if e["ph"] == "b":
            begins[key] = e
        elif key in begins:
            b = begins.pop(key)
            spans.append((b["ts"] / US, e["ts"] / US, b["name"], procs.get(b["pid"], str(b["pid"]))))
    counters = {}
    for e in ev:
        if e["ph"] == "C":
            (v,) = e["args"].values()
            counters.setdefault((e["name"], next(iter(e["args"]))), []).append((e["ts"] / US, v))
    top = sorted(counters, key=lambda k: -max(v for _, v in counters[k]))[:max_counters]
    groups = sorted({s[3] for s in spans})
    heights = [max(len(tids), 1) * 0.32 + 0.6] + [1.6] * len(groups) + ([2.2] if top else [])
    fig, axes = plt.subplots(len(heights), 1, figsize=(11, sum(heights) + 0.8), sharex=True,
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    axes = axes[:, 0]
    extra: dict = {}
    ax = axes[0]
    depth: dict = {}
    for e in xs:
        if e["tid"] not in tids:
            continue
        a, d, row = e["ts"] / US, e["dur"] / US, tids.index(e["tid"])
        stack = depth.setdefault(row, [])
        while stack and stack[-1] <= a + 1e-12:
            stack.pop()
        h = 0.8 * 0.55 ** len(stack)
        ax.broken_barh([(a, d)], (row - h / 2, h), facecolors=_color(e["name"], extra), edgecolor="none",
                       label=e["name"])
        stack.append(a + d)
    ax.set_yticks(range(len(tids)), [names.get((_PID_WORKERS, t), f"worker {t}") for t in tids], fontsize=7)
    ax.invert_yaxis()
    handles, labels = ax.get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    seen["blank: in a sync / round"] = matplotlib.patches.Patch(facecolor="white", edgecolor="#888888")
    ax.legend(seen.values(), seen.keys(), fontsize=7, ncol=min(len(seen), 6), loc="upper center",
              bbox_to_anchor=(0.5, 1.0 + 0.9 / heights[0]), frameon=False)
    ax.set_ylabel(procs.get(_PID_WORKERS, "workers"), fontsize=8)
    for ax, g in zip(axes[1:], groups):
        mine = sorted((s for s in spans if s[3] == g), key=lambda s: s[0])
        lanes = _lanes([(a, b) for a, b, _, _ in mine])
        for (a, b, name, _), k in zip(mine, lanes):
            ax.broken_barh([(a, max(b - a, 0))], (k - 0.4, 0.8), facecolors=_color(name.split(" ")[0], extra),
                           edgecolor="white", linewidth=0.3)
        ax.set_ylim(max(lanes, default=0) + 0.6, -0.6)
        ax.set_yticks([])
        ax.set_ylabel(f"{g}\n({len(mine)})", fontsize=8)
    if top:
        ax = axes[-1]
        for k, (name, unit) in enumerate(top):      # alternate dashes: equal series stay visible
            steps = sorted(counters[name, unit])
            ax.step([t for t, _ in steps], [v for _, v in steps], where="post", label=name, linewidth=1,
                    linestyle=("-", (0, (4, 3)))[k % 2])
        ax.set_ylabel(f"counters\n({top[0][1]})", fontsize=8)
        ax.legend(fontsize=7, ncol=3, loc="upper right", frameon=False)
    axes[-1].set_xlabel("simulated time (s)")
    meta = doc.get("otherData", {})
    fig.suptitle(title or f"our rendering of a timeline file ({meta.get('command', '?')}, seed {meta.get('seed', '?')}); "
                 "not a trace viewer's screenshot", fontsize=9)
    fig.tight_layout()
    return fig


def main(argv=None) -> int:
    """``python -m simlib.runtime.timeline_plot TRACE.json OUT.png [--title T]``: draw and save."""
    p = argparse.ArgumentParser(prog="python -m simlib.runtime.timeline_plot", description=__doc__.split("\n")[0])
    p.add_argument("trace", type=Path, help="a timeline file (--timeline's output)")
    p.add_argument("out", type=Path, help="the picture to write (.png, .svg, .pdf)")
    p.add_argument("--title", default=None, help="the figure's title (default: says it is our rendering)")
    p.add_argument("--max-counters", type=int, default=6, help="counter tracks drawn (largest peaks), default 6")
    args = p.parse_args(argv)
    if not args.trace.is_file():
        p.error(f"argument trace: no such file {str(args.trace)!r}")
    if not args.out.resolve().parent.is_dir():
        p.error(f"argument out: folder {str(args.out.resolve().parent)!r} does not exist")
    if args.max_counters < 0:
        p.error(f"argument --max-counters: must be >= 0, got {args.max_counters}")
    import matplotlib

    matplotlib.use("Agg")                       # a file, no window
    fig = plot_trace(json.loads(args.trace.read_text()), max_counters=args.max_counters, title=args.title)
    fig.savefig(args.out, dpi=130)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
