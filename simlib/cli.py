"""Command-line interface: ``python -m simlib <command> ...``.

Each subcommand is one ``_cmd_<name>(subparsers)`` function that registers its
parser and sets ``handler``; add it to ``COMMANDS`` and it appears in
``--help``.  Handlers receive ``(args, parser)`` and return an exit status.

Errors in the command line exit with status 2 and a message naming the flag:
argparse does this for ``choices``/``type``; use :func:`arg_type` to turn a
``simlib.core.validate`` check into an argparse type, and any ``ValueError`` a
handler raises while checking its arguments is reported through
``parser.error`` as well.  Heavy modules are imported inside the handlers so
``--help`` stays fast and works while modules are still being written.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from . import __version__
from .core import paths
from .core.validate import arg_type, num_arg

#: Same file as ``simlib.pipeline.claims.DEFAULT_LEDGER``: fixed relative to the
#: repository, not to the current directory.
DEFAULT_LEDGER = paths.RESULTS / "claims.csv"


# --- subcommands --------------------------------------------------------------

def _cmd_claims(subparsers) -> None:
    p = subparsers.add_parser(
        "claims", help="summarize the claims ledger",
        description="Print the summary of the claims ledger (paper claim vs. reproduced value).")
    p.add_argument("--ledger", type=Path, default=DEFAULT_LEDGER, metavar="PATH",
                   help="claims ledger CSV (default: data/results/claims.csv in the repository)")

    def handler(args, parser) -> int:
        try:
            from simlib.pipeline.claims import summarize_ledger  # lazy: keeps --help independent of it
        except ImportError as exc:
            print(f"{parser.prog}: error: claims ledger support unavailable ({exc})",
                  file=sys.stderr)
            return 1

        print(summarize_ledger(args.ledger))
        return 0

    p.set_defaults(handler=handler, subparser=p)


def _cmd_run(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="simulate one training run (seed 000 §IV) and print its metrics",
        description="Simulate n workers training for --duration seconds under one synchronization "
                    "scheme (seed 000 §IV-A) and print the system metrics.")
    p.add_argument("--scheme", choices=("allreduce", "partial", "selective"), default="selective")
    p.add_argument("--n", type=num_arg("--n", int, lo=2, hi=100_000), default=200, help="workers (default 200)")
    p.add_argument("--trace", default="transformer",
                   help="compute-time trace: cnn, transformer, lstm or a CSV path (default transformer)")
    p.add_argument("--seed", type=num_arg("--seed", int, lo=0), default=0)
    p.add_argument("--duration", type=num_arg("--duration", lo=0.0, lo_open=True), default=100.0,
                   help="training time in seconds (default 100)")
    p.add_argument("--p", type=num_arg("--p", lo=0.0, hi=1.0, lo_open=True), default=0.3,
                   help="minimum group size as a fraction of n (default 0.3)")
    p.add_argument("--eta", type=num_arg("--eta", lo=0.0, hi=1.0, hi_open=True), default=0.3)
    p.add_argument("--theta", type=num_arg("--theta", lo=0.0), default=1.0)
    p.add_argument("--dt", type=num_arg("--dt", lo=0.0, lo_open=True), default=0.1,
                   help="controller waiting slot Δt in seconds (default 0.1)")
    p.add_argument("--c", type=num_arg("--c", int, lo=1), default=None,
                   help="full all-reduce every c syncs (default: never)")
    p.add_argument("--lam", type=num_arg("--lam", lo=0.0, hi=1.0), default=0.05,
                   help="bandwidth skew: u ~ U[lam, 1] (default 0.05)")
    p.add_argument("--alpha", type=num_arg("--alpha", lo=0.0), default=0.001,
                   help="one-way latency in seconds (default 0.001)")
    p.add_argument("--model-mb", type=num_arg("--model-mb", lo=0.0), default=500.0)
    p.add_argument("--bw-error", type=num_arg("--bw-error", lo=0.0), default=0.0,
                   help="bandwidth estimation error scale e (default 0)")
    p.add_argument("--cdf", choices=("warm", "cold"), default="warm")
    p.add_argument("--progress-model", choices=("paper", "conditional"), default="paper")
    p.add_argument("--base-rule", choices=("text", "pseudocode"), default="text")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    def handler(args, parser) -> int:
        import json

        import numpy as np

        from simlib.papers.selective_reduce.scenario import Scenario, run_trial
        from simlib.workloads.traces import TRACE_NAMES

        if args.trace not in TRACE_NAMES and not Path(args.trace).is_file():
            parser.error(f"argument --trace: must be one of {list(TRACE_NAMES)} or an existing CSV file, "
                         f"got {args.trace!r}")
        if args.p * args.n < 0.5:
            parser.error(f"argument --p: p * n must be at least 0.5 (a group of >= 1 worker), got {args.p} * {args.n}")
        params = dict(scheme=args.scheme, n=args.n, trace=args.trace, duration_s=args.duration, p=args.p,
                      eta=args.eta, theta=args.theta, dt_s=args.dt, c=args.c, lam=args.lam,
                      alpha_s=args.alpha, model_mb=args.model_mb, bw_error=args.bw_error, cdf=args.cdf,
                      progress_model=args.progress_model, base_rule=args.base_rule)
        Scenario.from_params(params)
        out = run_trial(params, np.random.SeedSequence(args.seed))
        if args.json:
            print(json.dumps({**out, "params": params, "seed": args.seed}, sort_keys=True))
        else:
            for k, v in out.items():
                print(f"{k:28s} {v}")
        return 0

    p.set_defaults(handler=handler, subparser=p)


def _inf_or_int(flag: str):
    """argparse type: an integer >= 0, or "inf" (returned as None: requirement removed)."""
    def check(text: str):
        if text.strip().lower() in ("inf", "infinity", "none"):
            return None
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{flag} must be an integer in [0, inf] or 'inf', got {text!r}") from None
        from .core.validate import check_int
        return check_int(flag, value, lo=0)

    return arg_type(check, flag)


def _cmd_selmcast_ssp(subparsers) -> None:
    p = subparsers.add_parser(
        "selmcast-ssp", help="simulate one SSP training run with SelMcast or Orpheus (seed 004 §IV-C)",
        description="Simulate n workers training under SSP for --duration seconds; every ready worker "
                    "multicasts its model to receivers chosen by SelMcast (Algorithm 2) or Orpheus "
                    "(seed 004 §III-C, §IV-C).  Prints NPU utilization, multicast scale, rounds, "
                    "preemptions and the selection time per call.")
    p.add_argument("--scheme", choices=("selmcast", "orpheus"), default="selmcast")
    p.add_argument("--n", type=num_arg("--n", int, lo=2, hi=10_000), default=50, help="workers (default 50)")
    p.add_argument("--trace", default="lstm",
                   help="compute-time trace: lstm, transformer, cnn or a CSV path (default lstm)")
    p.add_argument("--layer", choices=("L3", "L7"), default="L3")
    p.add_argument("--ssp", type=_inf_or_int("--ssp"), default=4, help="SSP threshold, or inf (default 4)")
    p.add_argument("--k", type=_inf_or_int("--k"), default=4,
                   help="deliver to every worker at least once per k + 1 rounds; inf removes it (default 4)")
    p.add_argument("--eta", type=num_arg("--eta", lo=0.0, hi=1.0), default=0.75)
    p.add_argument("--p", type=num_arg("--p", lo=0.0, hi=1.0, lo_open=True, hi_open=True), default=0.3,
                   help="minimum receivers as a fraction of n (ceil(p n); default 0.3)")
    p.add_argument("--model-mb", type=num_arg("--model-mb", lo=0.0, lo_open=True), default=200.0)
    p.add_argument("--bbar", type=num_arg("--bbar", lo=0.0, lo_open=True), default=40.0,
                   help="mean egress bandwidth in Gbps (default 40)")
    p.add_argument("--lam", type=num_arg("--lam", lo=0.0, hi=1.0, hi_open=True), default=0.5)
    p.add_argument("--mu", type=num_arg("--mu", lo=0.0, lo_open=True), default=1.0)
    p.add_argument("--gamma", type=num_arg("--gamma", lo=0.0, hi=1.0), default=0.0,
                   help="bandwidth variability of Fig. 13 (default 0)")
    p.add_argument("--period", type=num_arg("--period", lo=0.0, lo_open=True), default=0.1,
                   help="Delta_T in seconds between bandwidth updates (default 0.1)")
    p.add_argument("--duration", type=num_arg("--duration", lo=0.0, lo_open=True), default=600.0,
                   help="training time in seconds (default 600)")
    p.add_argument("--seed", type=num_arg("--seed", int, lo=0), default=0)
    p.add_argument("--tau-estimate", choices=("trace", "oracle", "zero"), default="trace")
    p.add_argument("--task-order", choices=("pseudocode", "text"), default="pseudocode")
    p.add_argument("--line32", choices=("y", "x"), default="y")
    p.add_argument("--pareto-deadline", choices=("own", "all"), default="own")
    p.add_argument("--sharing", choices=("auto", "priority", "maxmin"), default="auto")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    def handler(args, parser) -> int:
        import json
        import time

        import numpy as np

        from simlib.papers.selmcast.ssp_metrics import ssp_metrics
        from simlib.papers.selmcast.ssp_scenario import SSPScenario, p_count, simulate
        from simlib.workloads.traces import TRACE_NAMES

        if args.trace not in TRACE_NAMES and not Path(args.trace).is_file():
            parser.error(f"argument --trace: must be one of {list(TRACE_NAMES)} or an existing CSV file, "
                         f"got {args.trace!r}")
        try:
            p_count(args.p, args.n)
        except ValueError as exc:
            parser.error(f"argument --p: {exc}")
        params = dict(scheme=args.scheme, n=args.n, trace=args.trace, layer=args.layer, ssp=args.ssp,
                      k=args.k, eta=args.eta, p=args.p, model_mb=args.model_mb, bbar_gbps=args.bbar,
                      lam=args.lam, mu=args.mu, gamma=args.gamma, period_s=args.period,
                      duration_s=args.duration, tau_estimate=args.tau_estimate, task_order=args.task_order,
                      line32=args.line32, pareto_deadline=args.pareto_deadline, sharing=args.sharing)
        sc = SSPScenario.from_params(params)
        t0 = time.perf_counter()
        log = simulate(sc, np.random.SeedSequence(args.seed))
        wall = time.perf_counter() - t0
        out = ssp_metrics(log)
        out["selection_us_per_call"] = 1e6 * log.selection_s / max(log.selections, 1)
        out["wall_s"] = wall
        if args.json:
            print(json.dumps({**out, "params": params, "seed": args.seed}, sort_keys=True))
        else:
            for k, v in out.items():
                print(f"{k:28s} {v}")
        return 0

    p.set_defaults(handler=handler, subparser=p)


def _cmd_version(subparsers) -> None:
    p = subparsers.add_parser("version", help="print the simlib version",
                              description="Print the simlib version.")

    def handler(args, parser) -> int:
        print(f"simlib {__version__}")
        return 0

    p.set_defaults(handler=handler, subparser=p)


COMMANDS: list[Callable] = [_cmd_run, _cmd_selmcast_ssp, _cmd_claims, _cmd_version]


# --- entry point --------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m simlib",
        description="simlib: flow-level simulator for partial model synchronization.")
    parser.add_argument("--version", action="version", version=f"simlib {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for register in COMMANDS:
        register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    sub = args.subparser
    try:
        return int(args.handler(args, sub) or 0)
    except ValueError as exc:
        sub.error(str(exc))  # exits with status 2
    except OSError as exc:
        print(f"{sub.prog}: error: {exc}", file=sys.stderr)
        return 1
    return 0  # pragma: no cover - sub.error() does not return
