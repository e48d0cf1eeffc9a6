"""Benchmark: the mnist1d learning task (decision RP9) — accuracy against the published
baselines, its calibration, and the cost of one replay at notebooks 90's and 46's settings.

1. *Accuracy.*  One worker trains each model (softmax, the replay's MLP, the reference
   small CNN ``"cnn"``) with plain minibatch SGD (batch 32) for ``--steps`` steps; the
   test accuracy of the last 10 evaluations (every 500 steps) is printed beside the
   published MNIST-1D accuracies (mnist1d README; Greydanus 2020: logistic regression
   32 %, MLP 68 %, CNN 94 %); then the dataset's reference MLP and CNN trained as its
   reference script trains them (Adam; :func:`reference_mlp`, :func:`reference_cnn`).
2. *Calibration.*  Lock-step schedules (:mod:`simlib.training.calibration`) at
   n = 8 and n = 200: synchronous all-reduce (every worker averages every
   iteration), a partial reduce (random groups of 2 at n = 8, of 60 at n = 200,
   every iteration) and local SGD with 4 and 16 local steps between averages
   (stale replicas); for each target of the ladder, the rounds (local
   iterations per worker) and updates (syncs) to the target; ``data`` iid
   (RP5) and sharded (RP11); ``--seeds`` replay seeds (min–max shown).
3. *Speed.*  Per-replay CPU time (median of ``--repeats``) and throughput (local SGD steps
   per CPU second) of the n = 200 schedules of notebook 90 (transformer, 100 s, each scheme)
   and of the n = 50 SSP schedules of notebook 46 (LSTM, 60 s, evaluated every 0.25 s): the MLP
   in float64 and float32, the CNN in float32.
4. *Cost of the time-to-accuracy notebooks* (decision RP16).  ``--cost-trials`` trials of every
   setting of notebooks 90, 46 and 92's replays at their caps, run three ways in the same run
   (to the cap; early stop; early stop and a half-cap first stage), times the notebooks' trial
   counts: the full-profile CPU each would add, and the share of runs that reached 45 %.
5. *Does synchronization matter more with the CNN?* (decision RP22; ``--sync``).  Lock-step
   schedules, the same for both models, in one run: local steps per worker to each model's
   target for one worker, for n = 200 averaging every step (i.i.d. and sharded data) and
   for local SGD with 4 and 16 steps between averages (sharded), and the replay's CPU
   seconds per 1,000 local steps.  Then a pilot of notebook 90's largest setting (n = 200,
   transformer trace, one trial, the 4000 s cap, early stop) with each model: each scheme's time
   to the model's targets, the paired ratios (bounds where a run is censored, RP17) and the CPU
   seconds of each trial (simulation and replay).  ``--only-cnn``: parts 1, 3 and 5 and the
   reference CNN.

    python benchmarks/bench_learning_task.py [--steps 20000] [--seeds 3] [--repeats 3] [--skip-speed]
                                             [--cost-trials 1] [--only-cost] [--sync] [--only-cnn]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simlib.training.calibration import lockstep_log, updates_to_targets  # noqa: E402
from simlib.training.learning import MNIST1D_REFERENCE, load_problem  # noqa: E402
from simlib.training.replay import Numerics, replay, time_to_accuracy  # noqa: E402

TASK = dict(model="mlp-relu", lr=0.5, batch_size=32, numerics=Numerics(dtype="float32"))
#: The CNN with the replay's plain SGD (batch 32); lr 0.2: the largest of part 1's whose curve climbs steadily (RP22).
CNN_TASK = dict(TASK, model="cnn", lr=0.2)
#: Targets of part 5, the last one each model's target: the MLP's ladder top (RP9) and the CNN's (RP22).
SYNC_TARGETS = {"mlp-relu": (0.35, 0.40, 0.45), "cnn": (0.70, 0.80, 0.85)}


#: Step sizes of the CNN tried with plain SGD in part 1 (the first: the CNN task's).
CNN_LRS = [0.2, 0.05, 0.1, 0.5]


def accuracy(steps: int) -> None:
    prob = load_problem("mnist1d")
    log = lockstep_log(1, steps)
    rungs = (0.45, 0.6, 0.7, 0.8, 0.85)
    print(f"1. accuracy after {steps} SGD steps (one worker, batch 32), last 10 evaluations every 500 steps; steps "
          f"to {', '.join(f'{a:.0%}' for a in rungs)} (evaluated every 100 steps):")
    for model, lr, ref in (("softmax", 0.1, "logistic regression"), ("mlp-relu", TASK["lr"], "MLP"),
                           *(("cnn", lr, "CNN") for lr in CNN_LRS)):
        t = time.process_time()
        curve = replay(log, prob, model=model, lr=lr, batch_size=32, eval_every_s=100.0, seed=0).curve
        acc = curve.test_acc[curve.time_s % 500 == 0]
        to = ["never" if np.isnan(x := time_to_accuracy(curve, a)) else f"{x:.0f}" for a in rungs]
        print(f"   {model:9s} lr {lr:g}: test accuracy {acc.iloc[-10:].min():.3f}–{acc.iloc[-10:].max():.3f} "
              f"(best {acc.max():.3f}); published {ref}: {MNIST1D_REFERENCE[ref]:.2f}; steps to the rungs "
              f"{' / '.join(to)} [{time.process_time() - t:.1f} s CPU]", flush=True)


def _adam(params: list, grads, test_acc, X, y, steps: int, lr: float = 1e-2, batch: int = 100,
          eval_every: int = 250) -> list:
    """The reference script's optimizer loop (mnist1d ``notebooks/train.py``): Adam (beta 0.9, 0.999, eps 1e-8)
    at ``lr`` on minibatches of ``batch`` taken in order through ``X``, ``y``; ``grads(params, xb, yb)`` returns
    one gradient per array of ``params`` (updated in place); the test accuracy every ``eval_every`` steps."""
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    accs = []
    for step in range(1, steps + 1):
        b = ((step - 1) * batch) % len(X)
        for i, gr in enumerate(grads(params, X[b:b + batch], y[b:b + batch])):
            m[i] = 0.9 * m[i] + 0.1 * gr
            v[i] = 0.999 * v[i] + 0.001 * gr * gr
            params[i] -= lr * (m[i] / (1 - 0.9 ** step)) / (np.sqrt(v[i] / (1 - 0.999 ** step)) + 1e-8)
        if step % eval_every == 0:
            accs.append(test_acc(params))
    return accs


def _reference_inputs():
    """(label, X_train, X_test) on the raw signals and on our standardized ones (no bias column)."""
    from simlib.training.learning import mnist1d_arrays

    d, raw = load_problem("mnist1d"), mnist1d_arrays()
    return d, (("raw signals", raw["x"], raw["x_test"]), ("standardized", d.X_train[:, :-1], d.X_test[:, :-1]))


def reference_mlp(steps: int = 8000, seed: int = 0) -> None:
    """The mnist1d reference MLP, in numpy, trained as the dataset's reference script trains it (mnist1d
    ``notebooks/models.py`` MLPBase and ``notebooks/train.py``: 40 -> 100 -> 100 -> 10 with ReLU and a residual
    second layer, h + relu(W2 h); Adam, lr 1e-2, batch 100 taken in order through the training set, default
    PyTorch-style uniform initialization), on the raw signals and on our standardized ones; beside it
    the replay's task (one hidden layer of 32, plain SGD: part 1).  Checks that our data and split give the
    published MLP accuracy (68 %), so the gap of the replay's MLP is its size and optimizer."""
    d, inputs = _reference_inputs()
    rng = np.random.default_rng(seed)

    def layer(i, o):
        k = 1 / np.sqrt(i)
        return [rng.uniform(-k, k, (i, o)), rng.uniform(-k, k, o)]

    def forward(P, X):
        h1 = np.maximum(X @ P[0] + P[1], 0)
        a2 = h1 @ P[2] + P[3]
        h2 = h1 + np.maximum(a2, 0)
        return h1, a2, h2, h2 @ P[4] + P[5]

    def grads(P, xb, yb):
        h1, a2, h2, z = forward(P, xb)
        g = np.exp(z - z.max(1, keepdims=True))
        g /= g.sum(1, keepdims=True)
        g[np.arange(len(yb)), yb] -= 1
        g /= len(yb)
        dh2 = g @ P[4].T
        da2 = dh2 * (a2 > 0)
        dh1 = (dh2 + da2 @ P[2].T) * (h1 > 0)
        return [xb.T @ dh1, dh1.sum(0), h1.T @ da2, da2.sum(0), h2.T @ g, g.sum(0)]

    for label, X, Xt in inputs:
        t = time.process_time()
        P = layer(40, 100) + layer(100, 100) + layer(100, 10)
        accs = _adam(P, grads, lambda P: float((forward(P, Xt)[3].argmax(1) == d.y_test).mean()), X, d.y_train,
                     steps)
        print(f"   reference MLP (2x100, Adam 1e-2, batch 100, {steps} steps), {label}: test accuracy at the end "
              f"{accs[-1]:.3f}, best {max(accs):.3f}; published MLP {MNIST1D_REFERENCE['MLP']:.2f} "
              f"[{time.process_time() - t:.1f} s CPU]", flush=True)


def reference_cnn(steps: int = 8000, seed: int = 0) -> None:
    """The mnist1d reference small CNN (:class:`~simlib.training.learning.CNN`, ConvBase: 5210 parameters, the
    replay's own model code) trained as the reference script trains it (Adam, lr 1e-2, batch 100 in order, 8000
    steps, PyTorch-default initialization; mnist1d ``notebooks/train.py``), on the raw signals and on our
    standardized ones; accuracy at 1000, 6000 and ``steps`` steps beside the published 94 %."""
    from simlib.training.learning import CNN

    d, inputs = _reference_inputs()
    for label, X, Xt in inputs:
        t = time.process_time()
        mdl = CNN(41, 10)
        one = np.ones((len(X), 1))
        Xb, Xtb = np.hstack([X, one]), np.hstack([Xt, np.ones((len(Xt), 1))])
        P = [mdl.init(np.random.default_rng(seed))]
        accs = _adam(P, lambda P, xb, yb: [mdl._grad(P[0][None], xb[None], yb[None])[0]],
                     lambda P: float((mdl._logits(P[0][None], Xtb[None])[0].argmax(1) == d.y_test).mean()),
                     Xb, d.y_train, steps)
        at = ", ".join(f"{k} steps {accs[k // 250 - 1]:.3f}" for k in (1000, 6000) if k < steps)
        print(f"   reference CNN (ConvBase, Adam 1e-2, batch 100), {label}: test accuracy {at}, {steps} steps "
              f"{accs[-1]:.3f} (best {max(accs):.3f}); published CNN {MNIST1D_REFERENCE['CNN']:.2f} "
              f"[{time.process_time() - t:.1f} s CPU]", flush=True)


def sync_matters(seeds: int, n: int = 200, rounds: int = 1500, one_rounds: int = 5000, models=("mlp-relu", "cnn"),
                 cases=None) -> None:
    """Part 5 (RP22): local steps per worker to each model's target, one worker against n = 200 replicas that
    average every step (i.i.d. and sharded minibatches) and local SGD (4 or 16 steps between averages,
    sharded); the same lock-step schedules for both models, in one run; CPU s per 1,000 local steps.
    ``models``: which of the two; ``cases``: indices of the five schedules (default all)."""
    prob = load_problem("mnist1d")
    print(f"\n5. does synchronization matter? rounds (local steps per worker) to the target, min–max over {seeds} "
          "seeds; CPU s per 1,000 local steps", flush=True)
    all_cases = [("1 worker", 1, {}, "iid", one_rounds), (f"n={n} all-reduce", n, {}, "iid", rounds),
                 (f"n={n} all-reduce", n, {}, "sharded", rounds),
                 (f"n={n} local SGD H=4", n, {"period": 4}, "sharded", rounds),
                 (f"n={n} local SGD H=16", n, {"period": 16}, "sharded", rounds)]
    cases = all_cases if cases is None else [all_cases[i] for i in cases]
    for task in (t for t in (TASK, CNN_TASK) if t["model"] in models):
        targets = SYNC_TARGETS[task["model"]]
        for name, workers, kw, data, cap in cases:
            got, cpu, steps = [], 0.0, 0
            for s in range(seeds):
                log = lockstep_log(workers, cap, seed=s, **kw)
                t = time.process_time()
                df = updates_to_targets(log, prob, targets=targets, seed=s, data=data, stop_acc=max(targets), **task)
                cpu += time.process_time() - t
                r = df["rounds"].to_numpy()
                got.append(r)
                steps += workers * int(np.nanmax(r) if not np.isnan(r).any() else cap)
            cells = []
            for j, a in enumerate(targets):
                x = np.array([g[j] for g in got])
                cells.append(f"{a:.0%}: " + ("never" if np.isnan(x).all() else f">{np.nanmin(x):.0f}"
                                            if np.isnan(x).any() else f"{x.min():.0f}–{x.max():.0f}"))
            print(f"   {task['model']:8s} lr {task['lr']:g} {name:22s} {data:7s} {', '.join(cells)} (cap {cap}) "
                  f"[{cpu:.1f} s CPU, {1000 * cpu / steps:.3f} s per 1,000 local steps]", flush=True)


def nb90_pilot(trials: int = 1) -> None:
    """Part 5, second half: notebook 90's largest setting (n = 200, transformer trace, cap ``TTA_CAP_S``, early
    stop and staging as the notebook runs them) with each model at its target: time to target per scheme,
    the ratios all-reduce / selective and partial / selective, CPU s per trial (seeds 1..``trials``)."""
    from simlib.papers.beyond_notebooks import TTA_CAP_S
    from simlib.papers.censoring import fmt_bound, ratio_bounds
    from simlib.training import time_to_accuracy as tta

    print(f"\n   notebook 90 pilot: n = 200, transformer, cap {TTA_CAP_S:g} s, early stop; {trials} trial(s)",
          flush=True)
    for task in (TASK, CNN_TASK):
        targets = SYNC_TARGETS[task["model"]]
        for k in range(1, trials + 1):
            times = {}
            for scheme in ("allreduce", "partial", "selective"):
                t = time.process_time()
                out, curve = tta.trial_and_curve(dict(
                    scheme=scheme, n=200, trace="transformer", duration_s=TTA_CAP_S, target_acc=targets[-1],
                    train_lr=task["lr"], train_batch=task["batch_size"], train_model=task["model"],
                    train_problem="mnist1d", train_data="sharded", train_early_stop=True), np.random.SeedSequence(k))
                cpu = time.process_time() - t
                times[scheme] = [time_to_accuracy(curve, a) for a in targets]
                reached = [f"{a:.0%} " + (f"> {TTA_CAP_S:.0f} s (censored)" if np.isnan(x) else f"{x:.0f} s")
                           for a, x in zip(targets, times[scheme])]
                print(f"   {task['model']:8s} lr {task['lr']:g} seed {k} {scheme:9s}: time to {', '.join(reached)}; "
                      f"accuracy {out['final_acc']:.3f} where the replay ended ({out['replay_end_s']:.0f} s) "
                      f"[{cpu:.1f} s CPU]",
                      flush=True)
            for other in ("allreduce", "partial"):         # a censored run gives a bound (RP17)
                lo, hi = ratio_bounds(times[other], TTA_CAP_S, times["selective"], TTA_CAP_S)
                ratios = ", ".join(f"{a:.0%} {fmt_bound(x, y, strict=True)}" for a, x, y in zip(targets, lo, hi))
                print(f"   {task['model']:8s} seed {k}: {other} / selective: {ratios}", flush=True)


def calibration(seeds: int) -> None:
    prob = load_problem("mnist1d")
    print(f"2. calibration (lr {TASK['lr']}, batch {TASK['batch_size']}, {TASK['model']}); "
          f"rounds = local iterations per worker, updates = syncs; min–max over {seeds} seeds", flush=True)
    rows = []
    for n, rounds, p in ((8, 600, 2), (200, 300, 60)):
        for scheme, kw in (("all-reduce", {}), (f"partial P={p}", {"group_size": p}),
                           ("local SGD H=4", {"period": 4}), ("local SGD H=16", {"period": 16})):
            for data in ("iid", "sharded"):
                t = time.process_time()
                for s in range(seeds):
                    df = updates_to_targets(lockstep_log(n, rounds, seed=s, **kw), prob, seed=s, data=data, **TASK)
                    rows += [dict(n=n, scheme=scheme, data=data, seed=s, **r) for r in df.to_dict("records")]
                print(f"   n={n:3d} {scheme:15s} {data:7s} [{time.process_time() - t:.1f} s CPU]", flush=True)
    tab = pd.DataFrame(rows)

    def rng(x):
        x = x.to_numpy()
        if np.isnan(x).any():
            return "never" if np.isnan(x).all() else f">{np.nanmin(x):.0f}"
        return f"{x.min():.0f}" if x.min() == x.max() else f"{x.min():.0f}–{x.max():.0f}"

    for what in ("rounds", "updates"):
        out = tab.groupby(["data", "n", "scheme", "target"], sort=False)[what].agg(rng).unstack("target")
        out.columns = [f"{a:.0%}" for a in out.columns]
        print(f"\n   {what} to target\n" + out.to_string())


def speed(repeats: int) -> None:
    from simlib.papers.cluster_scenario import Scenario, simulate
    from simlib.papers.selmcast.ssp_replay import multicast_schedule_log
    from simlib.papers.selmcast.ssp_scenario import SSPScenario, simulate as ssp_simulate

    prob = load_problem("mnist1d")
    print("\n3. replay CPU time, median of", repeats, "; throughput = local SGD steps per CPU second", flush=True)
    cases = [(f"nb 90 {s} n=200 100 s", simulate(Scenario(scheme=s, n=200, duration_s=100.0), 0), 1.0)
             for s in ("allreduce", "partial", "selective")]
    cases += [(f"nb 46 {s} n=50 60 s", multicast_schedule_log(ssp_simulate(
        SSPScenario(scheme=s, n=50, trace="lstm", duration_s=60.0), 0)), 0.25) for s in ("selmcast", "orpheus")]
    for name, log, ev in cases:
        steps = sum(map(len, log.compute_end))
        configs = (("mlp-relu", TASK["lr"], "float64"), ("mlp-relu", TASK["lr"], "float32"),
                   ("cnn", CNN_TASK["lr"], "float32"))
        times = {c: [] for c in configs}
        for _ in range(repeats):                # interleaved: load hits every configuration alike
            for model, lr, dtype in configs:
                t = time.process_time()
                replay(log, prob, model=model, lr=lr, eval_every_s=ev, data="sharded", numerics=Numerics(dtype=dtype))
                times[(model, lr, dtype)].append(time.process_time() - t)
        for (model, lr, dtype), ts in times.items():
            med = statistics.median(ts)
            print(f"   {name:30s} {model:8s} {dtype}: {med:5.2f} s, {steps / med:7.0f} steps/CPU-s, "
                  f"{1000 * med / steps:.3f} s per 1,000 steps ({steps} local steps, {len(log.syncs)} syncs)",
                  flush=True)


#: The time-to-accuracy sweeps of the full profile (decision RP16): (label, trial, settings of one trial,
#: trials per setting in the notebook).
def _tta_sweeps():
    from simlib.papers.beyond_notebooks import SSP_REAL_TTA_CAP_S, SSP_TTA_CAP_S, TTA_CAP_S
    from simlib.training import selmcast_ssp_tta, time_to_accuracy as tta

    task = dict(target_acc=0.45, train_lr=0.5, train_batch=32, train_model="mlp-relu", train_problem="mnist1d",
                train_data="sharded", train_early_stop=True)
    nb90 = [dict(task, scheme=s, n=n, trace=t, duration_s=TTA_CAP_S) for t in ("transformer", "cnn")
            for n in (40, 80, 120, 160, 200) for s in ("allreduce", "partial", "selective")]
    nb46 = [dict(task, scheme=s, n=50, trace=t, duration_s=SSP_TTA_CAP_S, train_eval_every_s=0.25)
            for t in ("lstm", "transformer", "cnn") for s in ("selmcast", "orpheus")]
    nb92 = [dict(task, scheme=s, n=200, trace=t, duration_s=TTA_CAP_S) for t in ("transformer", "pai-job4",
                                                                                  "bytedance-ar")
            for s in ("partial", "selective")]
    nb92s = [dict(task, scheme=s, n=50, trace=t, duration_s=SSP_REAL_TTA_CAP_S) for t in ("transformer", "pai-job4",
                                                                                       "bytedance-ar")
             for s in ("selmcast", "orpheus")]
    return [("notebook 90", tta.trial, nb90, 20), ("notebook 46", selmcast_ssp_tta.trial, nb46, 10),
            ("notebook 92 SR vs PR replay", tta.trial, nb92, 3),
            ("notebook 92 SelMcast vs Orpheus replay", selmcast_ssp_tta.trial, nb92s, 2)]


def cost(trials: int) -> None:
    """Full-profile CPU of the time-to-accuracy notebooks, estimated from ``trials`` trials of every setting
    (seeds 1..trials) x the notebook's trial count; before (one run to the cap, no early stop) and after
    (early stop and a half-cap first stage, RP16) in the same run; share of runs that reached 45 %."""
    import warnings

    from simlib.workloads.traces import TraceWrapWarning

    warnings.filterwarnings("ignore", category=TraceWrapWarning)    # ByteDance's short traces wrap (T7)
    warnings.filterwarnings("ignore", category=RuntimeWarning)      # empty merges of SSP deliveries
    print(f"\n4. full-profile CPU of the time-to-accuracy sweeps (RP16), from {trials} trial(s) of every setting "
          "x the notebook's trials; same run", flush=True)
    for label, fn, settings, n_trials in _tta_sweeps():
        rows = {}
        for mode, extra in (("before: run to the cap", dict(train_early_stop=False)),
                            ("early stop only", dict(train_first_stage=1.0)),
                            ("early stop + half-cap first stage", dict(train_first_stage=0.5))):
            cpu, reached, runs = 0.0, {}, 0
            for s in settings:
                for k in range(1, trials + 1):
                    t = time.process_time()
                    out = fn({**s, **extra}, np.random.SeedSequence(k))
                    cpu += time.process_time() - t
                    reached.setdefault(s["scheme"], []).append(not np.isnan(out["time_to_target_s"]))
                    runs += 1
            rows[mode] = cpu / trials * n_trials
            share = ", ".join(f"{sc} {np.mean(v):.0%}" for sc, v in reached.items())
            print(f"   {label:40s} {mode:34s}: {cpu / runs:5.2f} s per run -> {rows[mode]:6.0f} s CPU for the "
                  f"notebook ({len(settings)} settings x {n_trials} trials); reached 45 %: {share}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--cost-trials", type=int, default=1,
                    help="trials per setting for the full-profile cost estimate (0: skip it)")
    ap.add_argument("--only-cost", action="store_true", help="print only the cost estimate (part 4)")
    ap.add_argument("--lr", type=float, default=TASK["lr"], help="step size of the mlp-relu task")
    ap.add_argument("--cnn-lr", type=float, nargs="+", default=CNN_LRS,
                    help="step sizes of the CNN in part 1; the first is the CNN task's (parts 3 and 5)")
    ap.add_argument("--cnn-targets", type=float, nargs="+", default=SYNC_TARGETS["cnn"],
                    help="the CNN's targets in part 5, easy to hard (the last: the notebook-90 pilot's)")
    ap.add_argument("--sync", action="store_true", help="also run part 5 (does synchronization matter more?)")
    ap.add_argument("--only-cnn", action="store_true",
                    help="only what compares the CNN with the MLP: parts 1 and 3, the reference CNN and part 5")
    args = ap.parse_args(argv)
    TASK["lr"] = args.lr
    CNN_LRS[:] = args.cnn_lr
    CNN_TASK["lr"] = args.cnn_lr[0]
    SYNC_TARGETS["cnn"] = tuple(args.cnn_targets)
    if args.only_cnn:
        accuracy(args.steps)
        reference_cnn()
        speed(args.repeats)
        sync_matters(args.seeds)
        nb90_pilot()
        return 0
    if not args.only_cost:
        accuracy(args.steps)
        reference_mlp()
        reference_cnn()
        calibration(args.seeds)
        if not args.skip_speed:
            speed(args.repeats)
        if args.sync:
            sync_matters(args.seeds)
            nb90_pilot()
    if args.cost_trials:
        cost(args.cost_trials)
    return 0


if __name__ == "__main__":
    sys.exit(main())
