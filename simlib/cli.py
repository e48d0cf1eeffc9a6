"""Command-line interface: ``python -m simlib <command> ...``.

Each paper's commands are generated from its contract
(:data:`simlib.papers.registry.PAPERS`, :mod:`simlib.papers.cli_gen`); the
others are one ``_cmd_<name>(subparsers)`` function that registers its
parser and sets ``handler``; add it to ``COMMANDS`` and it appears in
``--help``.  Handlers receive ``(args, parser)`` and return an exit status.
A generated command is a :class:`Generated` entry (name and help known without building it), so
:func:`main` builds only the parser of the command asked for and ``--help`` imports neither the
training stack nor the other commands' profiles.

Errors in the command line exit with status 2 and a message naming the flag:
argparse does this for ``choices``/``type``; use
:func:`simlib.papers.cli_gen.arg_type` to turn a
``simlib.core.validate`` check into an argparse type, and any ``ValueError`` a
handler raises while checking its arguments is reported through
``parser.error`` as well.  Heavy modules are imported inside the handlers so
``--help`` stays fast and works while modules are still being written.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Callable

from . import __version__
from .core import paths
from .papers.cli_gen import add_command
from .papers.registry import PAPERS
from .training import train_help

#: Same file as ``simlib.pipeline.claims.DEFAULT_LEDGER``: the committed ledger, fixed
#: relative to the repository, not to the current directory.
DEFAULT_LEDGER = paths.COMMITTED_LEDGER


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
    p.add_argument("--paper", default=None, choices=sorted(x.id for x in PAPERS),
                   help="print this paper's reproduction table instead: every claim's verdict at each setting it "
                        "was judged at (default, profile, a reading) and its status (Markdown)")

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
            if not ledger.is_file() and not paths.is_checkout():
                print(_no_committed_ledger())
                return 0
        if args.paper is not None:
            from simlib.pipeline.claims import load_ledger, markdown_table, reproduction_table, verdict_counts

            df = load_ledger(ledger)
            table = reproduction_table(df, args.paper)
            if not len(table):
                print(f"no claims of paper {args.paper} in {ledger}")
                return 0
            counts = verdict_counts(df)
            print("\n".join(f"{r.setting}: {r.holds} hold, {r.fails} fail, {r.undecided} undecided, {r.fitted} fitted"
                            for r in counts[counts["paper"] == args.paper].itertuples(index=False)) + "\n")
            print(markdown_table(table))
            return 0
        try:
            summary = summarize_ledger(ledger)
        except ValueError as exc:        # not a ledger: name the flag that gave it, not the reader's argument
            given = "--run" if args.run is not None else "--ledger" if args.ledger is not None else None
            if given is None:
                raise
            parser.error(f"argument {given}: {str(exc).removeprefix('ledger_path ')}")
        print(summary)
        return 0

    p.set_defaults(handler=handler, subparser=p)


def _no_committed_ledger() -> str:
    """What ``claims`` says in an installed package: there is no committed ledger, and where the
    user's own runs' ledgers are (the five most recent)."""
    ledgers = sorted(paths.RUNS.glob("*/*/results/claims.csv"), key=lambda f: f.stat().st_mtime, reverse=True)
    lines = ["an installed simlib package has no committed claims ledger: it lives in the source repository "
             "(data/results/claims.csv, written by a full `make reproduce`).",
             f"Your own runs' ledgers are in {paths.RUNS}/<notebook or script>/<hash>/results/claims.csv; "
             "summarize one with --run <run folder> or --ledger <file>."]
    if ledgers:
        lines.append("most recent: " + ", ".join(str(f.parents[1]) for f in ledgers[:5]))
    return "\n".join(lines)


def _cmd_version(subparsers) -> None:
    p = subparsers.add_parser("version", help="print the simlib version",
                              description="Print the simlib version.")

    def handler(args, parser) -> int:
        print(f"simlib {__version__}")
        return 0

    p.set_defaults(handler=handler, subparser=p)


class Generated:
    """A command generated from a :class:`~simlib.papers.contract.Command` (:func:`add_command`), with
    its ``name`` and one-line ``help`` known before it is built: :func:`build_parser` lists it under
    that help and builds its parser (its flags, its profiles' help) only when it is asked for.
    ``command`` is the ``Command`` or a function returning it (imported when needed)."""

    def __init__(self, name: str, help: str, command):
        self.name, self.help, self._command = name, help, command

    def command(self):
        """The ``Command`` (imported now, if it was given as a function)."""
        return self._command() if callable(self._command) else self._command

    def __call__(self, subparsers) -> None:
        add_command(subparsers, self.command())

    def stub(self, subparsers) -> None:
        """Only its line in the top-level help."""
        subparsers.add_parser(self.name, help=self.help)


def _train_command():
    from .training.train_command import TRAIN_COMMAND   # the training stack: only for `train` itself

    return TRAIN_COMMAND


#: The commands, in ``--help`` order: each paper's generated ones come from its contract
#: (:data:`simlib.papers.registry.PAPERS`; a command two papers share, ``run``, once), then ``train``
#: (generated from :class:`simlib.training.train_command.TrainScenario`).
COMMANDS: list[Callable] = [*(Generated(c.name, c.help, c) for c in dict.fromkeys(c for p in PAPERS
                                                                                   for c in p.commands)),
                            Generated("train", train_help.HELP, _train_command), _cmd_claims, _cmd_version]


# --- entry point --------------------------------------------------------------

PROG = "python -m simlib"


def requested(argv) -> str | None:
    """The command ``argv`` asks for: its first word that is not an option (the top-level parser's
    options, ``-h`` and ``--version``, take no value); None if it has none."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command built (``argv`` None), or, for the arguments ``argv``,
    only the command they ask for (:func:`requested`), each other :class:`Generated` command listed
    by its name and help only (the top-level ``--help`` prints the same)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="simlib: flow-level simulator for partial model synchronization.")
    parser.add_argument("--version", action="version", version=f"simlib {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    wanted = None if argv is None else requested(argv)
    for register in COMMANDS:
        if argv is not None and isinstance(register, Generated) and register.name != wanted:
            register.stub(subparsers)
        else:
            register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print(_interrupted(PROG), file=sys.stderr)
        return 130
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    sub = args.subparser
    interrupted = _interrupted(sub.prog)
    with ctrl_c_guard(interrupted) as ctrl_c:
        try:
            return int(args.handler(args, sub) or 0)
        except KeyboardInterrupt:  # also while imports load or compile the kernels, before a run starts
            pass
        except (ValueError, OSError) as exc:
            if not ctrl_c.is_set():
                if isinstance(exc, OSError):
                    print(f"{sub.prog}: error: {exc}", file=sys.stderr)
                    return 1
                sub.error(str(exc))  # exits with status 2
        except Exception:
            if not ctrl_c.is_set():
                raise
            # An error raised after Ctrl-C is its consequence (numba's cache save after an interrupted compile).
    print(interrupted, file=sys.stderr)
    return 130


def _interrupted(prog: str) -> str:
    return f"{prog}: interrupted (Ctrl-C); no result"


#: Seconds a command has, after Ctrl-C, to unwind on its own before :func:`ctrl_c_guard` ends the process.
CTRL_C_GRACE_S = 3.0


@contextlib.contextmanager
def ctrl_c_guard(message: str, grace_s: float = CTRL_C_GRACE_S):
    """Make Ctrl-C (SIGINT) end a command even where Python swallows the ``KeyboardInterrupt``.

    The interrupt is raised as usual, so ``finally`` blocks and atomic writes clean up; but a
    ``KeyboardInterrupt`` raised inside a C callback (llvmlite's object-cache hook while numba
    compiles a kernel, or a ``__del__``) is discarded with an "Exception ignored" traceback, and the
    run would go on.  So the first Ctrl-C also starts a timer: if the guarded block is still running
    ``grace_s`` seconds later, the timer prints ``message`` to stderr and exits the process with
    status 130; and such lost interrupts print nothing (``sys.unraisablehook``).
    Yields an ``Event`` set on the first Ctrl-C.  Outside the main thread (where Python has no
    signal handlers) it only yields the event.
    """
    pressed = threading.Event()
    timer = threading.Timer(grace_s, _exit_now, args=(message,))
    timer.daemon = True

    def on_sigint(signum, frame):
        if not pressed.is_set():
            pressed.set()
            timer.start()
        raise KeyboardInterrupt

    def on_unraisable(unraisable):
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous_hook(unraisable)
        # else: the interrupt was lost in a callback or __del__; the timer ends the process, quietly

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)  # None: the old handler is not Python's
    except ValueError:  # not the main thread
        previous = None
    previous_hook, sys.unraisablehook = sys.unraisablehook, on_unraisable
    try:
        yield pressed
    finally:
        timer.cancel()                                   # a no-op if it never started
        sys.unraisablehook = previous_hook
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _exit_now(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
    os._exit(130)
