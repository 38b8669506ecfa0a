"""``fdp tree``: the exact guarantee of DP-FTRL tree aggregation (Kairouz et al. 2021).

    fdp tree --noise-multiplier S --steps T [T ...] [--single-epoch] [--sensitivity C]
             [--delta D]

One tree over T steps is G_μ with μ = C √⌈log2(T + 1)⌉ / S under the
replace-with-special-record relation; several trees compose (μ² adds their depths), or,
with ``--single-epoch`` (each record used at most once across all trees), take the
deepest (``fdp.sgd.matrix_factorization.tree_aggregation``).
"""

from __future__ import annotations

import argparse

from fdp.commandline import Parser, UsageError, positive, unit
from fdp.sgd.matrix_factorization import tree_aggregation, tree_depth


def _cmd_tree(args: argparse.Namespace) -> int:
    positive("--noise-multiplier", args.noise_multiplier)
    positive("--sensitivity", args.sensitivity)
    unit("--delta", args.delta, open_high=True)
    for t in args.steps:
        if t < 0:
            raise UsageError(f"--steps must be integers >= 0, got {t}")
    f = tree_aggregation(args.noise_multiplier, args.steps, sensitivity=args.sensitivity,
                         single_epoch=args.single_epoch)
    depths = [tree_depth(t) for t in args.steps]
    use = ("each record used at most once across all trees (deepest tree counts)"
           if args.single_epoch else "a record may be used once in every tree (depths add)")
    print("DP-FTRL tree aggregation (Kairouz et al. 2021), neighbouring relation: replace "
          "one record with a special (zero-gradient) record")
    print(f"trees: {len(depths)}, steps {' '.join(map(str, args.steps))}, depths "
          f"{' '.join(map(str, depths))}; {use}")
    print(f"mu = {f.mu:.6g} (exact GDP: G_mu = T(N(0,1), N(mu,1)))")
    print(f"epsilon = {f.epsilon(args.delta):.6g} at delta = {args.delta:g}")
    return 0


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare ``fdp tree`` and its arguments on the sub-parsers ``sub``."""
    p = sub.add_parser("tree", help="exact GDP of DP-FTRL tree aggregation "
                       "(replace-with-special-record neighbours)")
    p.add_argument("--noise-multiplier", "--sigma", type=float, required=True,
                   help="noise standard deviation per tree node, in clipping norms (> 0)")
    p.add_argument("--steps", type=int, nargs="+", required=True,
                   help="steps per tree (one number, or one per restarted tree)")
    p.add_argument("--single-epoch", action="store_true",
                   help="each record is used at most once across all trees")
    p.add_argument("--sensitivity", type=float, default=1.0,
                   help="sensitivity of one step's clipped sum, in clipping norms "
                        "(default 1)")
    p.add_argument("--delta", type=float, default=1e-5, help="delta in (0, 1) "
                   "(default 1e-5)")
    p.set_defaults(func=_cmd_tree)
