"""Command-line entry point of one paper: ``python -m simlib fmreduce ...`` (see :mod:`simlib.cli`)."""
from __future__ import annotations

from simlib.papers.cli_gen import num_arg, print_result, trace_arg

__all__ = ["register"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "fmreduce", help="simulate one FMReduce run (seed 003 §3) and print its metrics",
        description="Simulate n workers in different clouds doing partial reduce over a full mesh of "
                    "WAN links for --duration seconds (seed 003 §3) and print the rounds completed and "
                    "the per-phase times.")
    p.add_argument("--n", type=num_arg("--n", int, lo=2, hi=10_000), default=60, help="workers (default 60)")
    p.add_argument("--p", type=num_arg("--p", int, lo=1, hi=10_000), default=50,
                   help="participants per round, 1 <= p <= n (default 50)")
    p.add_argument("--reducers", choices=("all", "participants"), default="all",
                   help="all: FMReduce; participants: original partial reduce (blocking only)")
    p.add_argument("--mode", choices=("blocking", "nonblocking"), default="nonblocking")
    p.add_argument("--split", choices=("even", "lp"), default="lp")
    p.add_argument("--sharing", choices=("fs", "fcfs"), default="fcfs")
    p.add_argument("--duration", type=num_arg("--duration", lo=0.0, lo_open=True), default=600.0,
                   help="period in which rounds are counted, seconds (default 600)")
    p.add_argument("--model-mb", type=num_arg("--model-mb", lo=0.0, lo_open=True), default=200.0)
    p.add_argument("--trace", type=trace_arg, default="transformer",
                   help="compute-time trace: cnn, transformer, lstm or a CSV path (default transformer)")
    p.add_argument("--compute-mean", type=num_arg("--compute-mean", lo=0.0, lo_open=True), default=1.0,
                   help="mean compute time per iteration in seconds (default 1)")
    p.add_argument("--reduce-s-per-mb", type=num_arg("--reduce-s-per-mb", lo=0.0), default=0.0,
                   help="reduce time per MB of input blocks, seconds (default 0)")
    p.add_argument("--lp-solver", choices=("breakpoint", "highs"), default="breakpoint")
    p.add_argument("--seed", type=num_arg("--seed", int, lo=0), default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")

    def handler(args, parser) -> int:
        import numpy as np

        from simlib.papers.fmreduce.scenario import Scenario, run_trial

        if args.p > args.n:
            parser.error(f"argument --p: must be in [1, --n = {args.n}], got {args.p}")
        if args.reducers == "participants" and args.mode != "blocking":
            parser.error("argument --mode: must be blocking with --reducers participants "
                         f"(the original partial reduce is blocking only), got {args.mode}")
        params = dict(n=args.n, p=args.p, reducers=args.reducers, mode=args.mode, split=args.split,
                      sharing=args.sharing, duration_s=args.duration, model_mb=args.model_mb,
                      trace=args.trace, compute_mean_s=args.compute_mean,
                      reduce_s_per_mb=args.reduce_s_per_mb, lp_solver=args.lp_solver)
        Scenario.from_params(params)
        out = run_trial(params, np.random.SeedSequence(args.seed))
        print_result(out, params, args.seed, args.json)
        return 0

    p.set_defaults(handler=handler, subparser=p)
