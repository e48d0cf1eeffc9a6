"""Command lines generated from a paper's contract, and the argparse helpers every command uses.

:func:`add_command` turns a :class:`~simlib.papers.contract.Command` (a
scenario class declared with :func:`~simlib.papers.contract.param` plus its
trial function) into a ``python -m simlib <name>`` subcommand: one flag per
declared field (``--`` + the name with ``_`` -> ``-``, or the spec's
``flag``), its type, choices, ``none_means`` word (``--k inf``) and a help text
with the unit, the range and the default, all read from the spec; bools are
``--x/--no-x``; ``--seed`` and ``--json`` are common.  A value out of its range
exits with status 2 naming the flag (argparse), and so does a cross-field rule
of the scenario's ``check()`` (the :class:`~simlib.papers.contract.ParamError`'s
field is mapped back to its flag).

:func:`arg_type`, :func:`num_arg` and :func:`print_result` are the helpers of
hand-written commands (they lived in ``core/validate.py`` before);
:class:`SimulationProgress` shows a long run's simulated clock on stderr.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Callable

from simlib.core.jitcache import CompileTimer, announce_compilation
from simlib.core.validate import check_int, check_real
from simlib.workloads.traces import check_trace_file

from .contract import Command, ParamError, ParamSpec, check_param, defaults, specs

__all__ = ["arg_type", "num_arg", "trace_arg", "print_result", "with_speed", "SimulationProgress", "flag_of",
           "add_arguments",
           "add_command", "params_from_args"]


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


def num_arg(flag: str, kind=float, **bounds):
    """argparse type: parse ``kind`` and range-check it, naming ``flag`` in errors."""
    def check(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise ValueError(f"{flag} must be {'an integer' if kind is int else 'a number'}, got {text!r}") from None
        return check_int(flag, value, **bounds) if kind is int else check_real(flag, value, **bounds)

    return arg_type(check, flag)


#: argparse ``type`` of a ``--trace`` flag: :func:`simlib.workloads.traces.check_trace_file` (a known name
#: or CSV path whose file loads; any error fails as ``argument --trace: ...``).
trace_arg = arg_type(lambda text: check_trace_file("trace", text), "trace")


def _json_value(v):
    """NaN as ``null``, ±inf as the text ``"inf"``/``"-inf"`` (what the flags accept): JSON has neither."""
    if isinstance(v, float) and not math.isfinite(v):
        return None if v != v else ("inf" if v > 0 else "-inf")
    return v


def with_speed(out: dict, params: dict, simulated: str, wall_s: float, compile_s: float = 0.0) -> dict:
    """``out`` plus ``compile_s`` (wall-clock seconds numba spent compiling or loading kernels from its
    cache during the command, :class:`~simlib.core.jitcache.CompileTimer`), ``wall_s`` (wall-clock
    seconds of the run without them: the trial's own measurement if it reports one, which leaves its
    compilation out itself, else ``wall_s - compile_s``) and ``sim_s_per_wall_s`` (simulated seconds
    per wall-clock second of that run; the simulated time is the parameter named ``simulated``, else
    the metric of that name)."""
    wall = out["wall_s"] if "wall_s" in out else max(wall_s - compile_s, 0.0)
    sim = params[simulated] if simulated in params else out[simulated]
    return {**out, "compile_s": compile_s, "wall_s": wall, "sim_s_per_wall_s": sim / wall if wall > 0 else math.inf}


def print_result(out: dict, params: dict, seed: int, as_json: bool) -> None:
    """Print a command's result: one JSON object (``out`` plus ``params`` and ``seed``; NaN
    becomes ``null`` and an infinite value the text ``"inf"``, so the output is valid JSON) or one
    ``name value`` line per metric."""
    out = {k: _json_value(v) for k, v in out.items()}
    if as_json:
        params = {k: _json_value(v) for k, v in params.items()}
        print(json.dumps({**out, "params": params, "seed": seed}, sort_keys=True, allow_nan=False))
    else:
        width = max(map(len, out), default=0) + 2
        for k, v in out.items():
            print(f"{k:{width}s} {'null' if v is None else v}")


class SimulationProgress:
    """While a single run simulates, print "simulated t of T s" on stderr every second.

    ``clock() -> float`` returns the run's simulated time (s), e.g. ``lambda: cluster.sim.now``; it is
    called from a background thread, so it must only read.  Disabled: a no-op context manager.
    """

    def __init__(self, duration_s: float, clock: Callable[[], float], enabled: bool, interval_s: float = 1.0):
        import threading

        self.duration_s, self.clock, self.enabled, self.interval_s = duration_s, clock, enabled, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._start = 0.0

    def _loop(self):
        while not self._stop.wait(self.interval_s):
            now = float(self.clock())
            elapsed = time.monotonic() - self._start
            frac = min(now / self.duration_s, 1.0) if self.duration_s else 1.0
            text = f"simulated {now:.6g} of {self.duration_s:.6g} s ({frac:.1%}), {elapsed:.0f} s elapsed"
            if frac > 0:
                text += f", about {elapsed / frac * (1 - frac):.0f} s left"
            sys.stderr.write("\r\x1b[K" + text + "  (Ctrl-C stops)")
            sys.stderr.flush()

    def __enter__(self):
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


# --- generated from a contract ------------------------------------------------
def flag_of(name: str, spec: ParamSpec) -> str:
    """The command-line flag of parameter ``name``: ``spec.flag`` or ``--`` + name with ``_`` -> ``-``."""
    return spec.flag or "--" + name.replace("_", "-")


def _parse_text(name: str, text: str, spec: ParamSpec):
    """One command-line word as a value of ``spec`` (before its range check)."""
    if spec.none_means is not None and text.strip().lower() in (spec.none_means.lower(), "none"):
        return None
    if text.strip() in spec.words:
        return text.strip()
    if spec.kind == "int":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{name} must be an integer in {spec.range_text()}, got {text!r}") from None
    if spec.kind == "float":
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{name} must be a number in {spec.range_text()}, got {text!r}") from None
    return text


def _default_text(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return " ".join(map(_default_text, value))
    return str(value)


def _help(spec: ParamSpec, default) -> str:
    """``help — range unit, default value (paper: where | chosen: decision)`` (the range is left out where
    argparse lists the choices; the source only where the declaration gives one)."""
    unit = f" {spec.unit}" if spec.unit else ""
    shown = spec.none_means if default is None else _default_text(default)
    listed = spec.choices is not None and spec.none_means is None
    where = f"{spec.unit}, " if listed and spec.unit else "" if listed else f"{spec.range_text()}{unit}, "
    source = f" ({spec.source})" if spec.source else ""
    return f"{spec.help} — {where}default {shown}{source}".replace("%", "%%")


def add_arguments(parser: argparse.ArgumentParser, cls, exclude=()) -> dict[str, str]:
    """One flag per declared parameter of dataclass ``cls`` (its groups' included; but ``exclude``);
    returns ``{parameter name: flag}``."""
    default = defaults(cls)
    flags = {}
    for name, spec in specs(cls).items():
        if name in exclude:
            continue
        flag = flags[name] = flag_of(name, spec)
        kw = dict(dest=name, default=default[name], help=_help(spec, default[name]))
        if spec.kind == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, **kw)
            continue
        item = spec.item if spec.kind == "list" else spec
        convert = arg_type(lambda text, n=name, s=item: check_param(n, _parse_text(n, text, s), s), name)
        if spec.kind == "list":
            kw["nargs"] = "+"
        if item.choices is not None and item.none_means is None:
            kw["choices"] = item.choices
        parser.add_argument(flag, type=convert, metavar=None if "choices" in kw else name.upper(), **kw)
    return flags


def params_from_args(args: argparse.Namespace, cls, exclude=()) -> dict:
    """The declared fields' values from parsed ``args`` (lists as lists), but ``exclude``."""
    return {name: list(v) if isinstance(v := getattr(args, name), (list, tuple)) else v
            for name in specs(cls) if name not in exclude}


def add_command(subparsers, command: Command) -> argparse.ArgumentParser:
    """Register ``command`` as a subcommand; its handler builds the scenario once (each flag was
    range-checked as argparse read it; a cross-field rule of the scenario's ``check()`` exits with
    status 2 naming the flag; so does a flag the chosen scheme does not read, when the scenario class
    has ``ignored_by_scheme(params)``), runs ``command.trial(scenario, seed, **options)`` with ``--seed`` (the
    scenario object itself: nothing downstream rebuilds it) and prints the metrics (``--json``: one
    JSON object with the parameters and the seed)."""
    p = subparsers.add_parser(command.name, help=command.help, description=command.description or command.help)
    flags = add_arguments(p, command.scenario, command.exclude)
    if command.options is not None:
        flags.update(add_arguments(p, command.options))
    p.add_argument("--seed", type=num_arg("--seed", int, lo=0), default=0,
                   help="root seed of the run's random draws — [0, inf), default 0")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (metrics, params, seed); compile_s: seconds numba spent compiling "
                        "or loading kernels, left out of wall_s and sim_s_per_wall_s")

    def handler(args, parser) -> int:
        import numpy as np

        params = params_from_args(args, command.scenario, command.exclude)
        ignored = getattr(command.scenario, "ignored_by_scheme", None)
        ignored = ignored(params) if ignored is not None else {}
        if ignored:         # one rule for every option the chosen scheme does not read
            which = ", ".join(f"{flags[name]} (read by {', '.join(schemes)})" for name, schemes in ignored.items())
            parser.error(f"argument --scheme: scheme {params['scheme']!r} ignores {which}; leave them out or "
                         "choose a scheme that reads them")
        try:
            scenario = command.scenario.from_params(params)
            options = {} if command.options is None else \
                command.options.from_params(params_from_args(args, command.options)).to_params()
        except ParamError as exc:
            parser.error(f"argument {flags.get(exc.name, exc.name)}: {exc}")
        start = time.perf_counter()
        with announce_compilation(), CompileTimer() as compiled:   # the first run compiles its kernels (16-43 s)
            out = command.trial(scenario, np.random.SeedSequence(args.seed), **options)
        used = scenario.used_params()           # e.g. train's default target, resolved
        print_result(with_speed(out, params, command.simulated, time.perf_counter() - start, compiled.seconds),
                     {k: used.get(k, v) for k, v in params.items()}, args.seed, args.json)
        return 0

    p.set_defaults(handler=handler, subparser=p)
    return p
