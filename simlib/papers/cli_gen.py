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
from pathlib import Path
from typing import Callable

from simlib.core.jitcache import CompileTimer, announce_compilation
from simlib.core.validate import check_int, check_real
from simlib.runtime.capture import capture
from simlib.runtime.timeline import check_window, parse_window, write_captured
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
    _add_run_flags(p, command)

    def handler(args, parser) -> int:
        import numpy as np

        params = params_from_args(args, command.scenario, command.exclude)
        params = _with_profile(params, args.profile, command, flags, parser)
        window = _timeline_window(args, params, command, parser)
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
        with announce_compilation(), CompileTimer() as compiled, capture() as captured:   # first run compiles (16-43 s)
            out = command.trial(scenario, np.random.SeedSequence(args.seed), **options)
        used = scenario.used_params()           # e.g. train's default target, resolved
        if args.timeline is not None:
            _write_timeline(args, captured, window, command, {k: used.get(k, v) for k, v in params.items()})
        print_result(with_speed(out, params, command.simulated, time.perf_counter() - start, compiled.seconds),
                     {k: used.get(k, v) for k, v in params.items()}, args.seed, args.json)
        return 0

    p.set_defaults(handler=handler, subparser=p)
    return p


# --- flags every generated command has: --profile, --timeline, --timeline-window ---------------------
def _add_run_flags(p: argparse.ArgumentParser, command: Command) -> None:
    """``--profile {default,paper}`` (:mod:`simlib.papers.profiles`; its help lists what ``paper`` sets and
    the decision behind each value), ``--timeline PATH`` and ``--timeline-window START:END``
    (:mod:`simlib.runtime.timeline`)."""
    from .profiles import PROFILE_NAMES, help_text

    p.add_argument("--profile", choices=PROFILE_NAMES, default="default", help=help_text(command.scenario)
                   .replace("%", "%%"))
    where = "" if command.timeline else (f" (not available for {command.name}: its trial logs no schedule yet; "
                                         "the command refuses it before running)")
    p.add_argument("--timeline", default=None, metavar="PATH",
                   help="write the run's timeline as Chrome trace-event JSON (open it in ui.perfetto.dev or "
                        "chrome://tracing; times in microseconds of simulated time)" + where)
    p.add_argument("--timeline-window", type=arg_type(lambda t: parse_window(t, "--timeline-window"), "window"),
                   default=None, metavar="START:END",
                   help="only the part of the timeline between START and END (s of simulated time, 0 <= START < "
                        "END, START below the run's duration; END may be inf) — default the whole run")


def _with_profile(params: dict, profile: str, command: Command, flags: dict, parser) -> dict:
    """``params`` at ``--profile`` (:func:`simlib.papers.profiles.profile_values`; what it sets and why on
    stderr); a flag given a value other than its default and other than the profile's is refused by name
    (the two disagree)."""
    from .profiles import profile_values

    values, note = profile_values(command.scenario, params, profile)
    if profile != "default":
        print(f"--profile {profile}: {note}", file=sys.stderr)
    declared = defaults(command.scenario)
    for name, value in values.items():
        if name in params and params[name] != declared.get(name) and params[name] != value:
            parser.error(f"argument {flags.get(name, name)}: --profile {profile} sets {name} = {value!r}, "
                         f"got {params[name]!r}; leave the flag out or use --profile default")
    return {**params, **{k: v for k, v in values.items() if k in params}}


def _timeline_window(args, params: dict, command: Command, parser):
    """The checked ``--timeline-window`` (None: the whole run), refusing the timeline flags before the run
    where the command cannot write one, a window without ``--timeline``, a window starting at or after
    the run's duration, or a ``--timeline`` file in a folder that does not exist."""
    if args.timeline_window is not None and args.timeline is None:
        parser.error("argument --timeline-window: needs --timeline PATH")
    if args.timeline is None:
        return None
    if not command.timeline:
        parser.error(f"argument --timeline: {command.name} does not log a schedule the timeline can show yet")
    folder = Path(args.timeline).expanduser().resolve().parent
    if not folder.is_dir():
        parser.error(f"argument --timeline: folder {str(folder)!r} does not exist")
    if args.timeline_window is None:
        return None
    duration = params.get(command.simulated)
    try:
        return check_window(args.timeline_window, duration, "--timeline-window")
    except ValueError as exc:
        parser.error(f"argument --timeline-window: {exc}")


def _write_timeline(args, captured, window, command: Command, params: dict) -> None:
    """Write the captured run's timeline to ``--timeline`` (its path on stderr; a line saying why not when
    the run offered no log, e.g. ``selmcast-bsp --scheme milp`` whose solver found no plan to execute)."""
    if not captured.found:
        print(f"timeline: {args.timeline} not written: this run executed no schedule to show", file=sys.stderr)
        return
    doc = write_captured(captured, args.timeline, scenario={**params, "profile": args.profile}, seed=args.seed,
                         command=f"python -m simlib {command.name}", window=window)
    print(f"timeline: {args.timeline} ({len(doc['traceEvents'])} events; open it in https://ui.perfetto.dev or "
          "chrome://tracing)", file=sys.stderr)
