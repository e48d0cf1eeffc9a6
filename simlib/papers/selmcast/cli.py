"""Seed 004's hand-written command ``python -m simlib selmcast-ssp ...`` (see :mod:`simlib.cli`; ``selmcast-bsp``
is generated from :class:`.bsp_scenario.BSPScenario`, :mod:`.paper`)."""
from __future__ import annotations

from simlib.core.validate import check_int
from simlib.papers.cli_gen import arg_type, num_arg, print_result, trace_arg
from simlib.workloads.traces import TRACE_HELP

__all__ = ["register_ssp"]


def _inf_or_int(flag: str):
    """argparse type: an integer >= 0, or "inf" (returned as None: requirement removed)."""
    def check(text: str):
        if text.strip().lower() in ("inf", "infinity", "none"):
            return None
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{flag} must be an integer in [0, inf] or 'inf', got {text!r}") from None

        return check_int(flag, value, lo=0)

    return arg_type(check, flag)


def register_ssp(subparsers) -> None:
    p = subparsers.add_parser(
        "selmcast-ssp", help="simulate one SSP training run with SelMcast or Orpheus (seed 004 §IV-C)",
        description="Simulate n workers training under SSP for --duration seconds; every ready worker "
                    "multicasts its model to receivers chosen by SelMcast (Algorithm 2) or Orpheus "
                    "(seed 004 §III-C, §IV-C).  Prints NPU utilization, multicast scale, rounds, "
                    "preemptions and the wall time (with --engine flow also the selection time per call).")
    p.add_argument("--scheme", choices=("selmcast", "orpheus"), default="selmcast")
    p.add_argument("--n", type=num_arg("--n", int, lo=2, hi=10_000), default=50, help="workers (default 50)")
    p.add_argument("--trace", type=trace_arg, default="lstm",
                   help=f"{TRACE_HELP} (default lstm)")
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
    p.add_argument("--engine", choices=("compiled", "flow"), default="compiled",
                   help="compiled event loop (default) or the slower FlowNetwork reference; same run "
                        "(decision SM68)")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    def handler(args, parser) -> int:
        import math
        import time

        import numpy as np

        from simlib.papers.selmcast.ssp_metrics import ssp_metrics
        from simlib.papers.selmcast.ssp_scenario import SSPScenario, p_count, simulate

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
        log = simulate(sc, np.random.SeedSequence(args.seed), engine=args.engine)
        wall = time.perf_counter() - t0
        out = ssp_metrics(log)
        timed = not math.isnan(log.selection_s)          # only the reference engine times selections
        out["selection_us_per_call"] = 1e6 * log.selection_s / max(log.selections, 1) if timed else None
        out["wall_s"] = wall
        print_result(out, params, args.seed, args.json)
        return 0

    p.set_defaults(handler=handler, subparser=p)
