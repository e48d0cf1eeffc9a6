"""Command lines generated from a contract (simlib.papers.cli_gen): flags, help texts, errors."""
import argparse
import dataclasses
import json
import re

import pytest

from simlib.papers.cli_gen import add_command, flag_of
from simlib.papers.contract import Command, ParamError, ParamSpec, ScenarioBase, param, param_list, specs


@dataclasses.dataclass(frozen=True)
class Toy(ScenarioBase):
    n: int = param(60, lo=2, hi=10_000, help="workers")
    p: int = param(50, lo=1, hi=10_000, help="participants per round, at most --n")
    duration_s: float = param(600.0, lo=0.0, lo_open=True, unit="s", help="period (100% of it)", flag="--duration")
    split: str = param("lp", choices=("even", "lp"), help="how the model is split")
    k: int = param(4, lo=0, none_means="inf", help="rounds without delivery")
    shared_x: bool = param(False, help="one x per worker")
    sizes: tuple = param_list([1, 2], item=ParamSpec(kind="int", help="a size", lo=1))

    def check(self):
        CHECKS.append(self)
        if self.p > self.n:
            raise ParamError("p", f"p must be in [1, n = {self.n}], got {self.p}")


CHECKS = []     # every Toy whose check() ran


@dataclasses.dataclass(frozen=True)
class Opts(ScenarioBase):
    scheme: str = param("a", choices=("a", "b"), help="which scheme")


def trial(sc, seed, scheme="a"):
    assert isinstance(sc, Toy), f"the command hands down its scenario, got {sc!r}"
    return {"sum": sc.n + sc.p, "k_is_none": sc.k is None, "scheme": scheme,
            "seed_entropy": seed.entropy, "nan": float("nan"), "same_scenario": sc is CHECKS[-1]}


def parser():
    ap = argparse.ArgumentParser(prog="simlib")
    sub = ap.add_subparsers(dest="command")
    add_command(sub, Command("toy", Toy, trial, help="a toy", options=Opts))
    return ap, sub


def run(argv, capsys):
    ap, _ = parser()
    args = ap.parse_args(argv)
    status = args.handler(args, args.subparser)
    return status, capsys.readouterr().out


def test_flags_default_to_the_field_name_or_the_declared_flag():
    s = specs(Toy)
    assert flag_of("n", s["n"]) == "--n" and flag_of("duration_s", s["duration_s"]) == "--duration"
    assert flag_of("shared_x", s["shared_x"]) == "--shared-x"


def test_help_lists_unit_range_and_default_of_every_flag(capsys):
    ap, _ = parser()
    with pytest.raises(SystemExit):
        ap.parse_args(["toy", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--n N workers — [2, 10000], default 60" in text
    assert "--duration DURATION_S period (100% of it) — (0, inf) s, default 600" in text
    assert "--split {even,lp} how the model is split — default lp" in text
    assert "--k K rounds without delivery — [0, inf) or inf, default 4" in text
    assert "--shared-x, --no-shared-x" in text
    assert "--seed" in text and "--json" in text and "--scheme {a,b}" in text


def test_values_reach_the_trial_converted(capsys):
    status, out = run(["toy", "--n", "7", "--p", "3", "--k", "inf", "--sizes", "3", "4", "--shared-x",
                       "--scheme", "b", "--seed", "5", "--json"], capsys)
    d = json.loads(out)
    assert status == 0 and d["sum"] == 10 and d["k_is_none"] and d["scheme"] == "b" and d["seed_entropy"] == 5
    assert d["params"] == dict(n=7, p=3, duration_s=600.0, split="lp", k=None, shared_x=True, sizes=[3, 4])
    assert d["nan"] is None


def test_the_command_builds_its_scenario_once_and_hands_it_to_the_trial(capsys):
    CHECKS.clear()
    status, out = run(["toy", "--n", "7", "--p", "3", "--json"], capsys)
    assert status == 0 and json.loads(out)["same_scenario"]
    assert len(CHECKS) == 1 and (CHECKS[0].n, CHECKS[0].p) == (7, 3)


@pytest.mark.parametrize("argv, message", [
    (["--n", "1"], r"argument --n: n must be an integer in \[2, 10000\], got 1"),
    (["--n", "x"], r"argument --n: n must be an integer in \[2, 10000\], got 'x'"),
    (["--duration", "0"], r"argument --duration: duration_s must be in \(0.0, inf\)"),
    (["--split", "LP"], "argument --split: split must be one of"),
    (["--k", "-1"], r"argument --k: k must be in \[0, inf\) or inf, got -1"),
    (["--sizes", "0"], r"argument --sizes: sizes must be an integer in \[1, inf\)"),
    (["--n", "10", "--p", "11"], r"argument --p: p must be in \[1, n = 10\], got 11"),   # the cross-field rule
    (["--scheme", "c"], "argument --scheme"),
])
def test_bad_values_exit_2_naming_the_flag(argv, message, capsys):
    ap, _ = parser()
    with pytest.raises(SystemExit) as exc:
        args = ap.parse_args(["toy", *argv])
        args.handler(args, args.subparser)
    assert exc.value.code == 2
    assert re.search(message, capsys.readouterr().err)


def test_the_progress_line_reads_the_clock_it_is_given(capsys):
    """SimulationProgress prints the simulated time its clock callback returns (no stack walking)."""
    import threading

    from simlib.papers.cli_gen import SimulationProgress

    read = threading.Event()

    def clock():
        read.set()
        return 2.5

    with SimulationProgress(10.0, clock, enabled=True, interval_s=0.01):
        assert read.wait(30)
    assert "simulated 2.5 of 10 s (25.0%)" in capsys.readouterr().err
    with SimulationProgress(10.0, lambda: 1 / 0, enabled=False, interval_s=0.01):
        pass                                          # disabled: the clock is never read
