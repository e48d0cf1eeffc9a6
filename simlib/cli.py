"""Command-line interface: ``python -m simlib <command> ...``.

Each subcommand is one ``_cmd_<name>(subparsers)`` function that registers its
parser and sets ``handler``; add it to ``COMMANDS`` and it appears in
``--help``.  Handlers receive ``(args, parser)`` and return an exit status.

Errors in the command line exit with status 2 and a message naming the flag:
argparse does this for ``choices``/``type``; use :func:`arg_type` to turn a
``simlib.validate`` check into an argparse type, and any ``ValueError`` a
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

#: Same file as ``simlib.claims.DEFAULT_LEDGER``: fixed relative to the
#: repository, not to the current directory.
DEFAULT_LEDGER = Path(__file__).resolve().parent.parent / "data" / "results" / "claims.csv"


def arg_type(check: Callable[[str], object], metavar: str = "value") -> Callable[[str], object]:
    """Wrap ``check(text) -> value`` so its ``ValueError`` becomes an argparse error.

    Example: ``type=arg_type(lambda s: check_int("workers", int(s), lo=1))``
    gives ``error: argument --workers: workers must be an integer in [1, inf], got 0``.
    """
    def convert(text: str):
        try:
            return check(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc) or f"invalid {metavar}: {text!r}") from None

    convert.__name__ = metavar
    return convert


# --- subcommands --------------------------------------------------------------

def _cmd_claims(subparsers) -> None:
    p = subparsers.add_parser(
        "claims", help="summarize the claims ledger",
        description="Print the summary of the claims ledger (paper claim vs. reproduced value).")
    p.add_argument("--ledger", type=Path, default=DEFAULT_LEDGER, metavar="PATH",
                   help="claims ledger CSV (default: data/results/claims.csv in the repository)")

    def handler(args, parser) -> int:
        try:
            from .claims import summarize_ledger  # lazy: keeps --help independent of it
        except ImportError as exc:
            print(f"{parser.prog}: error: claims ledger support unavailable ({exc})",
                  file=sys.stderr)
            return 1

        print(summarize_ledger(args.ledger))
        return 0

    p.set_defaults(handler=handler, subparser=p)


def _cmd_version(subparsers) -> None:
    p = subparsers.add_parser("version", help="print the simlib version",
                              description="Print the simlib version.")

    def handler(args, parser) -> int:
        print(f"simlib {__version__}")
        return 0

    p.set_defaults(handler=handler, subparser=p)


COMMANDS: list[Callable] = [_cmd_claims, _cmd_version]


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
