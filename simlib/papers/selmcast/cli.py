"""Command-line entry point of one paper: ``python -m simlib selmcast-bsp ...`` (see :mod:`simlib.cli`)."""
from __future__ import annotations

from simlib.core.validate import num_arg

__all__ = ["register"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "selmcast-bsp", help="one BSP round of seed 004 (SelMcast, Orpheus or the optimum) on a big switch",
        description="Select multicast receivers for one peer-to-peer BSP round (seed 004 §III-B, §IV-B), "
                    "execute the plan with per-flow max-min sharing and print the normalized completion "
                    "time (by the optimal t*), the multicast scale, the selection time and the solver status.")
    p.add_argument("--n", type=num_arg("--n", int, lo=2, hi=5000), default=200, help="workers (default 200)")
    p.add_argument("--p", type=num_arg("--p", lo=0.0, lo_open=True), default=0.3,
                   help="minimum receivers: a fraction of n in (0, 1) or a count in [1, n - 1] (default 0.3)")
    p.add_argument("--layer", choices=("L3", "L7"), default="L3", help="multicast layer (default L3)")
    p.add_argument("--lam", type=num_arg("--lam", lo=0.0, hi=1.0, hi_open=True), default=0.5,
                   help="bandwidth variation λ in [0, 1) (default 0.5)")
    p.add_argument("--mu", default="1", metavar="MU",
                   help="ingress/egress bandwidth ratio μ > 0, or 1/p (default 1)")
    p.add_argument("--scheme", choices=("selmcast", "orpheus", "optimal", "milp"), default="selmcast",
                   help="optimal: exact max-flow optimum; milp: HiGHS on model (12) (default selmcast)")
    p.add_argument("--seed", type=num_arg("--seed", int, lo=0), default=0)
    p.add_argument("--time-limit", type=num_arg("--time-limit", lo=0.0, lo_open=True), default=60.0,
                   help="MILP time limit per stage in seconds (default 60)")
    p.add_argument("--shared-x", action="store_true",
                   help="a worker's ingress and egress share the same random x (decision B2)")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    def handler(args, parser) -> int:
        import json

        from simlib.papers.selmcast.experiments import bsp_round_summary

        if args.p < 1:
            p_frac = args.p
        elif float(args.p).is_integer() and args.p <= args.n - 1:
            p_frac = args.p / args.n
        else:
            parser.error(f"argument --p: --p must be a fraction in (0, 1) or an integer count in "
                         f"[1, n - 1] = [1, {args.n - 1}], got {args.p:g}")
        if args.mu.strip() == "1/p":
            mu = "1/p"
        else:
            try:
                mu = float(args.mu)
            except ValueError:
                mu = float("nan")
            if not mu > 0 or mu == float("inf"):
                parser.error(f"argument --mu: --mu must be a real number in (0, inf) or '1/p', got {args.mu!r}")
        if round(p_frac * args.n) < 1:
            parser.error(f"argument --p: p * n must round to at least 1 receiver, got {args.p} * {args.n}")
        params = dict(n=args.n, p_frac=p_frac, layer=args.layer, lam=args.lam, mu=mu, shared_x=args.shared_x)
        out = bsp_round_summary(params, args.seed, args.scheme, time_limit_s=args.time_limit)
        if args.json:
            print(json.dumps({**out, "params": params, "seed": args.seed}, sort_keys=True))
        else:
            for k, v in out.items():
                print(f"{k:22s} {v}")
        return 0

    p.set_defaults(handler=handler, subparser=p)
