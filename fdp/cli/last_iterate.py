"""``fdp last-iterate``: last-iterate GDP of NoisyGD and cyclic NoisyCGD by shifted
interpolation (Bok, Su & Altschuler 2024).

    fdp last-iterate --noise S --lipschitz L --dataset-size N --steps T --step-size ETA
                     --smoothness M [--strong-convexity m] [--diameter D] [--delta DELTA]
    fdp last-iterate ... --batches l --epochs E      (cyclic NoisyCGD)

Only the final iterate is released: with a contractive update (m > 0) or a bounded
constraint set (D < inf) its privacy converges in T
(``fdp.sgd.last_iterate.noisy_gd``); composition (every iterate released) is printed
beside it.
"""

from __future__ import annotations

import argparse
import math

from fdp.commandline import Parser, UsageError, unit
from fdp.sgd.last_iterate import compare_last_iterate, noisy_cgd, noisy_gd

_FLAGS = {"noise": "--noise", "lipschitz": "--lipschitz", "dataset_size": "--dataset-size",
          "steps": "--steps", "step_size": "--step-size", "smoothness": "--smoothness",
          "strong_convexity": "--strong-convexity", "diameter": "--diameter",
          "batches": "--batches", "epochs": "--epochs"}


def _cmd_last_iterate(args: argparse.Namespace) -> int:
    unit("--delta", args.delta, open_high=True)
    cyclic = args.batches is not None
    if cyclic and (args.epochs is None or args.steps is not None):
        raise UsageError("--batches needs --epochs and takes no --steps")
    if not cyclic and (args.steps is None or args.epochs is not None):
        raise UsageError("give --steps (full batches), or --batches and --epochs")
    try:
        if cyclic:
            f = noisy_cgd(args.noise, args.lipschitz, args.dataset_size, args.batches,
                          args.epochs, args.step_size, smoothness=args.smoothness,
                          strong_convexity=args.strong_convexity, diameter=args.diameter)
        else:
            f = noisy_gd(args.noise, args.lipschitz, args.dataset_size, args.steps,
                         args.step_size, smoothness=args.smoothness,
                         strong_convexity=args.strong_convexity, diameter=args.diameter)
    except ValueError as exc:
        text = str(exc)
        name = text.split()[0]
        raise UsageError(text.replace(name, _FLAGS.get(name, name), 1)) from None
    r = compare_last_iterate(f, args.delta)
    kind = "NoisyCGD (cyclic batches)" if cyclic else "NoisyGD"
    print(f"{kind}, last iterate only (Bok, Su & Altschuler 2024), replace-one neighbours")
    print(f"assumptions: {f.assumptions}")
    print(f"last iterate: mu = {f.mu:.6g} (exact GDP), epsilon = {r.epsilon_last.hi:.6g} "
          f"at delta = {args.delta:g}")
    print(f"composition:  mu = {f.plain_mu:.6g}, epsilon = {r.epsilon_plain.hi:.6g} "
          f"(every iterate released)")
    return 0


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare ``fdp last-iterate`` and its arguments on the sub-parsers ``sub``."""
    p = sub.add_parser("last-iterate", help="last-iterate GDP of NoisyGD / NoisyCGD "
                       "(shifted interpolation, Bok, Su & Altschuler 2024)")
    p.add_argument("--noise", "--sigma", type=float, required=True,
                   help="standard deviation of the noise added to the gradient (> 0)")
    p.add_argument("--lipschitz", type=float, required=True,
                   help="Lipschitz constant (or clipping norm) of each loss (> 0)")
    p.add_argument("--dataset-size", type=int, required=True, help="n >= 1")
    p.add_argument("--steps", type=int, help="T >= 0 (full batches)")
    p.add_argument("--batches", type=int, help="l >= 1 fixed batches per epoch, visited "
                   "in order (NoisyCGD; needs --epochs)")
    p.add_argument("--epochs", type=int, help="E >= 0 epochs (with --batches)")
    p.add_argument("--step-size", type=float, required=True, help="eta in (0, 2/M]")
    p.add_argument("--smoothness", type=float, required=True, help="M > 0")
    p.add_argument("--strong-convexity", type=float, default=0.0,
                   help="m in [0, M] (default 0: convex)")
    p.add_argument("--diameter", type=float, default=math.inf,
                   help="diameter D > 0 of the constraint set (default inf)")
    p.add_argument("--delta", type=float, default=1e-5,
                   help="delta in (0, 1) (default 1e-5)")
    p.set_defaults(func=_cmd_last_iterate)
