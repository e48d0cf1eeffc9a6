"""Seed 000 §II-D, Fig. 3: the motivating example, run through the real cluster.

Five workers w1..w5 finish their current iteration at 1, 2, 3, 3 and 13 s; their
bandwidths are 1, 5, 1, 5 and ``w5_bandwidth`` (the paper only says w5 has at
least 1) units/s; the model has 5 units; α ≈ 0 and a group's sync takes
2v / min b (the paper's simplification of Eq. 2, ``sync_model="eq2_example"``).
Only this one iteration is simulated (afterwards workers never become ready
again), as in the figure.

Schedules: all reduce, partial reduce (p = 2), the paper's two hand-made
schedules (progress-aware: wait until 3 s and launch {w1..w4}; bandwidth-aware:
at 3 s launch {w1, w3} and {w2, w4}), and selective reduce itself (Alg. 3 with
an oracle progress model, i.e. the controller knows when w3, w4, w5 will be
ready, as the paper's discussion assumes).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simlib.runtime.cluster import Cluster, ScriptedComputeTimes
from simlib.papers.selective_reduce.controller import SelectiveReduceController
from simlib.papers.selective_reduce.progress import OracleProgress
from simlib.papers.selective_reduce.scenario import SelectiveReduceParams
from simlib.runtime.baselines import AllReduceController, PartialReduceController
from simlib.runtime.controller import ControllerBase
from simlib.runtime.metrics import sync_metrics, wasted_wait
from simlib.papers.contract import ScenarioBase, param, param_of

__all__ = ["READY_TIMES", "BANDWIDTHS", "MODEL_UNITS", "ScriptedController", "Fig3Example", "Fig3Notebook",
           "run_schedules", "SCHEDULES"]

READY_TIMES = (1.0, 2.0, 3.0, 3.0, 13.0)
BANDWIDTHS = (1.0, 5.0, 1.0, 5.0)  # w5's is a parameter
MODEL_UNITS = 5.0
SCHEDULES = ("all reduce", "partial reduce (p=2)", "progress-aware (paper)",
             "bandwidth-aware (paper)", "selective reduce")
#: The paper's reported (avg CT, avg scale) per schedule; selective reduce has no paper value.
PAPER_VALUES = {"all reduce": (10, 5), "partial reduce (p=2)": (10, 2),
                "progress-aware (paper)": (10, 4), "bandwidth-aware (paper)": (6, 2)}


class ScriptedController(ControllerBase):
    """Launch fixed groups at fixed times (0-based worker ids); for hand-made schedules."""

    def __init__(self, plan: list[tuple[float, list[list[int]]]]):
        self.plan = plan

    def attach(self, cluster) -> None:
        super().attach(cluster)
        for t, groups in self.plan:
            for g in groups:
                cluster.sim.schedule_at(t, self._launch_when_ready, g)

    def _launch_when_ready(self, group) -> None:
        # defer by one zero-delay hop so that ready events at this same instant run first
        self.cluster.sim.schedule(0.0, self.cluster.launch, group)

    def on_ready(self, w: int, compute_time: float) -> None:
        pass


def _cluster(controller, w5_bandwidth):
    bw = list(BANDWIDTHS) + [w5_bandwidth]
    return Cluster.big_switch(bw, ScriptedComputeTimes([[t] for t in READY_TIMES]), controller,
                              model_bits=MODEL_UNITS, alpha=0.0, duration=100.0, sync_model="eq2_example")


@dataclass(frozen=True)
class Fig3Example(ScenarioBase):
    """The example's knobs, each declared once (selective reduce's re-use
    :class:`~simlib.papers.selective_reduce.scenario.SelectiveReduceParams`'); §II-D's values."""

    p: int = param(2, lo=1, hi=len(READY_TIMES), stated="000 §II-D",
                   help="minimum group size (of the example's 5 workers)")
    eta: float = param_of(SelectiveReduceParams, "eta")
    theta: float = param_of(SelectiveReduceParams, "theta")
    dt: float = param_of(SelectiveReduceParams, "dt_s", default=1.0, flag=None, help="controller waiting slot Δt")
    w5_bandwidth: float = param(5.0, lo=1.0, unit="units/s", help="w5's bandwidth (the paper only says w5 >= 1)")
    base_rule: str = param_of(SelectiveReduceParams, "base_rule")


@dataclass(frozen=True)
class Fig3Notebook(ScenarioBase):
    """Notebook 10's parameters (its parameters cell assigns these defaults; a test checks it)."""

    p: int = param_of(Fig3Example, "p")
    eta: float = param_of(Fig3Example, "eta")
    theta: float = param_of(Fig3Example, "theta")
    dt: float = param_of(Fig3Example, "dt")
    w5_bandwidth: float = param_of(Fig3Example, "w5_bandwidth")


def run_schedules(p: int = 2, eta: float = 0.3, theta: float = 1.0, dt: float = 1.0,
                  w5_bandwidth: float = 5.0, base_rule: str = "text") -> tuple[pd.DataFrame, dict]:
    """Run every schedule of :class:`Fig3Example` (its knobs); returns (summary frame,
    {schedule: ScheduleLog}).

    The frame has one row per schedule: ``avg_ct_s`` and ``avg_scale`` over the
    syncs of this iteration, the groups as launched (1-based names) and the
    paper's values where it gives them.
    """
    ex = Fig3Example(p=p, eta=eta, theta=theta, dt=dt, w5_bandwidth=w5_bandwidth, base_rule=base_rule)
    w5_bandwidth = ex.w5_bandwidth
    controllers = {
        "all reduce": AllReduceController(),
        "partial reduce (p=2)": PartialReduceController(2),
        "progress-aware (paper)": ScriptedController([(3.0, [[0, 1, 2, 3]])]),
        "bandwidth-aware (paper)": ScriptedController([(3.0, [[0, 2], [1, 3]])]),
    }
    bw = np.array(list(BANDWIDTHS) + [w5_bandwidth])
    controllers["selective reduce"] = SelectiveReduceController(
        ex.p, ex.eta, ex.theta, ex.dt, MODEL_UNITS, progress=OracleProgress(),
        bandwidth_estimate=lambda ids: bw[np.asarray(ids, dtype=np.int64)], alpha=0.0, base_rule=ex.base_rule)
    rows, logs = [], {}
    for name, ctrl in controllers.items():
        log = _cluster(ctrl, w5_bandwidth).run()
        m = sync_metrics(log)
        paper = PAPER_VALUES.get(name, (None, None))
        rows.append({
            "schedule": name,
            "avg_ct_s": m["avg_sync_time_s"],
            "avg_scale": m["avg_sync_scale"],
            "groups": "; ".join("{" + ",".join(f"w{w + 1}" for w in s.members) + f"}}@{s.launch:g}s"
                                for s in log.syncs),
            "paper_avg_ct_s": paper[0],
            "paper_avg_scale": paper[1],
            "wasted_wait_s": float(wasted_wait(log).sum()),
        })
        logs[name] = log
    return pd.DataFrame(rows), logs


#: Colours of :func:`gantt`'s bars, and what each means (:func:`gantt_key`).
GANTT_COLORS = {"compute": "#bbbbbb", "wait": "#f2c57c", "sync": "#4c72b0"}
GANTT_MEANING = {"compute": "computing", "wait": "ready, waiting in the queue", "sync": "synchronizing"}


def gantt_key() -> list:
    """Legend handles for :func:`gantt`'s colours (one per state, plus the faded 'never synchronized')."""
    from matplotlib.patches import Patch

    return [Patch(color=GANTT_COLORS[k], label=GANTT_MEANING[k]) for k in GANTT_COLORS] + \
        [Patch(color=GANTT_COLORS["wait"], alpha=0.4, label="ready, not synchronized in the window")]


def gantt(ax, log, title: str) -> None:
    """Per-worker timeline: compute, wait in queue, sync (s); colours :data:`GANTT_COLORS`."""
    colors = GANTT_COLORS
    ready = [c[0] if c else np.nan for c in log.compute_end]
    for w in range(log.n):
        ax.broken_barh([(0, ready[w])], (w - 0.35, 0.7), color=colors["compute"])
        syncs = [s for s in log.syncs if w in s.members]
        if syncs:
            s = syncs[0]
            ax.broken_barh([(ready[w], s.launch - ready[w])], (w - 0.35, 0.7), color=colors["wait"])
            ax.broken_barh([(s.launch, s.finish - s.launch)], (w - 0.35, 0.7), color=colors["sync"])
        else:
            ax.broken_barh([(ready[w], 25 - ready[w])], (w - 0.35, 0.7), color=colors["wait"], alpha=0.4)
    ax.set_yticks(range(log.n), [f"w{w + 1}" for w in range(log.n)])
    ax.invert_yaxis()
    ax.set_xlim(0, 25)
    ax.set_title(title, fontsize="medium")
