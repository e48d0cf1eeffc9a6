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
from .papers.cli_gen import add_command, arg_type, num_arg, print_result, trace_arg
from .papers.cluster_scenario import SCHEMES
from .papers.registry import PAPERS
from .papers.selective_reduce.algorithms import BASE_RULES
from .papers.selective_reduce.progress import PROGRESS_MODELS
from .papers.selective_reduce.scenario import CDF_SOURCES
from .workloads.traces import TRACE_HELP

#: Same file as ``simlib.pipeline.claims.DEFAULT_LEDGER``: the committed ledger, fixed
#: relative to the repository, not to the current directory.
DEFAULT_LEDGER = paths.COMMITTED_LEDGER


class _SimulationProgress:
    """While a single run simulates, print "simulated t of T s" on stderr every second.

    The run's simulated clock is read from the running ``Cluster`` (found on the
    main thread's stack: a frame whose ``self`` has ``sim.now`` and ``duration``),
    so the simulation code needs no hook.  Disabled: a no-op context manager.
    """

    def __init__(self, duration_s: float, enabled: bool, interval_s: float = 1.0):
        import threading

        self.duration_s, self.enabled, self.interval_s = duration_s, enabled, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._main = threading.main_thread().ident
        self._start = 0.0

    def _clock(self):
        frame = sys._current_frames().get(self._main)
        while frame is not None:
            obj = frame.f_locals.get("self")
            sim = getattr(obj, "sim", None)
            if sim is not None and hasattr(sim, "now") and hasattr(obj, "duration"):
                return float(sim.now)
            frame = frame.f_back
        return None

    def _loop(self):
        import time

        while not self._stop.wait(self.interval_s):
            now = self._clock()
            if now is None:
                continue
            elapsed = time.monotonic() - self._start
            frac = min(now / self.duration_s, 1.0) if self.duration_s else 1.0
            text = f"simulated {now:.6g} of {self.duration_s:.6g} s ({frac:.1%}), {elapsed:.0f} s elapsed"
            if frac > 0:
                text += f", about {elapsed / frac * (1 - frac):.0f} s left"
            sys.stderr.write("\r\x1b[K" + text + "  (Ctrl-C stops)")
            sys.stderr.flush()

    def __enter__(self):
        import time

        if self.enabled:
            self._start = time.monotonic()
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self._stop.set()
            self._thread.join()
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
        return False


# --- subcommands --------------------------------------------------------------

def _cmd_claims(subparsers) -> None:
    p = subparsers.add_parser(
        "claims", help="summarize the claims ledger",
        description="Print the summary of a claims ledger (paper claim vs. reproduced value): the "
                    "committed one by default, or that of one run (--run) or file (--ledger).")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--ledger", type=Path, default=None, metavar="PATH",
                       help="claims ledger CSV (default: the committed data/results/claims.csv)")
    which.add_argument("--run", type=Path, default=None, metavar="DIR",
                       help="a run folder printed by a notebook run, e.g. build/runs/11_sr_fig5-7_traces/<hash>")

    def handler(args, parser) -> int:
        try:
            from simlib.pipeline.claims import summarize_ledger  # lazy: keeps --help independent of it
        except ImportError as exc:
            print(f"{parser.prog}: error: claims ledger support unavailable ({exc})",
                  file=sys.stderr)
            return 1

        if args.run is not None:
            ledger = args.run / "results" / "claims.csv"
            if not ledger.is_file():
                parser.error(f"argument --run: {str(args.run)!r} has no ledger {str(ledger)!r} "
                             "(expected a run folder build/runs/<notebook>/<hash>)")
        elif args.ledger is not None:
            ledger = args.ledger
            if not ledger.is_file():
                parser.error(f"argument --ledger: no such file {str(ledger)!r}")
        else:
            ledger = DEFAULT_LEDGER
        print(summarize_ledger(ledger))
        return 0

    p.set_defaults(handler=handler, subparser=p)


def _cmd_run(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="simulate one training run (seed 000 §IV) and print its metrics",
        description="Simulate n workers training for --duration seconds under one synchronization "
                    "scheme (seed 000 §IV-A) and print the system metrics.")
    p.add_argument("--scheme", choices=list(SCHEMES), default="selective")
    p.add_argument("--n", type=num_arg("--n", int, lo=2, hi=100_000), default=200, help="workers (default 200)")
    p.add_argument("--trace", type=trace_arg, default="transformer",
                   help=f"{TRACE_HELP} (default transformer)")
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
    p.add_argument("--cdf", choices=CDF_SOURCES, default="warm")
    p.add_argument("--progress-model", choices=[m for m in PROGRESS_MODELS if m != "oracle"], default="paper")
    p.add_argument("--base-rule", choices=BASE_RULES, default="text")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress line on stderr (shown by default when stderr is a terminal)")

    def handler(args, parser) -> int:
        import numpy as np

        from simlib.papers.cluster_scenario import Scenario, run_trial

        if args.p * args.n < 0.5:
            parser.error(f"argument --p: p * n must be at least 0.5 (a group of >= 1 worker), got {args.p} * {args.n}")
        params = dict(scheme=args.scheme, n=args.n, trace=args.trace, duration_s=args.duration, p=args.p,
                      eta=args.eta, theta=args.theta, dt_s=args.dt, c=args.c, lam=args.lam,
                      alpha_s=args.alpha, model_mb=args.model_mb, bw_error=args.bw_error, cdf=args.cdf,
                      progress_model=args.progress_model, base_rule=args.base_rule)
        Scenario.from_params(params)
        show_progress = not args.no_progress and sys.stderr.isatty()
        try:
            with _SimulationProgress(args.duration, enabled=show_progress):
                out = run_trial(params, np.random.SeedSequence(args.seed))
        except KeyboardInterrupt:
            print(f"{parser.prog}: interrupted (Ctrl-C); no result", file=sys.stderr)
            return 130
        if out.get("total_sync") == 0:
            print(f"{parser.prog}: warning: no synchronization completed within --duration {args.duration:g} s "
                  f"({out.get('total_iteration', 0)} iterations computed, but no sync of the "
                  f"{args.model_mb:g} MB model finished before the end), so avg_sync_time_s and "
                  "avg_sync_scale are undefined (null); increase --duration or decrease --model-mb",
                  file=sys.stderr)
        print_result(out, params, args.seed, args.json)
        return 0

    p.set_defaults(handler=handler, subparser=p)


def _cmd_version(subparsers) -> None:
    p = subparsers.add_parser("version", help="print the simlib version",
                              description="Print the simlib version.")

    def handler(args, parser) -> int:
        print(f"simlib {__version__}")
        return 0

    p.set_defaults(handler=handler, subparser=p)


def _generated(command) -> Callable:
    return lambda subparsers: add_command(subparsers, command)


#: The commands, in ``--help`` order: each paper's generated ones come from its contract
#: (:data:`simlib.papers.registry.PAPERS`); ``run`` is still hand-written.
COMMANDS: list[Callable] = [_cmd_run, *(_generated(c) for p in PAPERS for c in p.commands), _cmd_claims,
                            _cmd_version]


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
    except KeyboardInterrupt:  # also while imports load or compile the kernels, before a run starts
        print(f"{sub.prog}: interrupted (Ctrl-C); no result", file=sys.stderr)
        return 130
    return 0  # pragma: no cover - sub.error() does not return
