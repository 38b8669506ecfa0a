"""The ``fdp`` command line.

    fdp repro [NAME ...] [--out DIR] [--list] [--fast]
        reproduce paper figures and tables, print the check table (exit 1 on a FAIL)
    fdp dpsgd --noise-multiplier S (--sample-rate Q --steps T | --epochs E
              --dataset-size N --batch-size B) [--delta D] [--sensitivity C] [--plot FILE]
        certified ε bracket of DP-SGD, the CLT μ and ε (with a warning when the CLT
        under-reports), the RDP ε and attack-risk read-outs; ``--sampling
        random_allocation`` is certified too, ``--sampling shuffle`` prints a LOWER
        bound only (no guarantee with amplification is known) and the once-per-epoch
        guarantee
    fdp dpsgd --noise-multiplier S --epochs E --dataset-size N --batch-size B
              --compare-samplers [--delta D] [--plot FILE]
        one row per batch sampler (Poisson, without replacement, random allocation,
        truncated Poisson, shuffle LOWER bound): ε, μ and attack-TPR brackets
    fdp convert (two of --mu, --epsilon, --delta)
        μ-GDP ↔ (ε, δ) by DRS Cor 2.13
    fdp plot SPEC [SPEC ...] --out FILE
        draw trade-off functions, e.g. ``gaussian:1 epsdelta:1,1e-5 laplace:1^4``
    fdp audit (--scores FILE | --counts M,R,V) (--mu MU | --epsilon E [--claim-delta D])
        one-run privacy audit of a claimed curve: refuted or not, p-value, ε and μ
        lower bounds
    fdp tree --noise-multiplier S --steps T [T ...] [--single-epoch] [--sensitivity C]
             [--delta D]
        exact GDP μ and ε of DP-FTRL tree aggregation (replace-with-special-record)
    fdp last-iterate --noise S --lipschitz L --dataset-size N (--steps T | --batches l
                     --epochs E) --step-size ETA --smoothness M [--strong-convexity m]
                     [--diameter D] [--delta D]
        last-iterate privacy of noisy (cyclic) gradient descent by shifted interpolation
    fdp verify FILE [--rtol R]
        recompute a privacy report (``fdp dpsgd ... --json FILE``, ``PrivacyReport``)
        from its recorded inputs; exit 1 naming the first field that does not match

Bad input (unknown names, out-of-range numbers, unwritable paths, a computation too
large for memory) gives one line on stderr and exit status 2, never a traceback; every
argument is checked before anything is computed.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from fdp._constants import VERSION as __version__
from fdp.cli import audit, convert, dpsgd, last_iterate, plot, tree, verify
from fdp.cli.dpsgd import DEFAULT_SENSITIVITY
from fdp.cli.plot import parse_spec, spec_label
from fdp.commandline import EXIT_USAGE, Parser, UsageError, join_negative_values, run_command
from fdp.repro import command as repro_command

#: Kept under its earlier private name (the argument rewriting now lives in fdp.commandline).
_join_negative_values = join_negative_values


def build_parser() -> argparse.ArgumentParser:
    """The ``fdp`` argument parser with its commands.

    Examples
    --------
    >>> from fdp.cli import build_parser
    >>> build_parser().parse_args(["convert", "--mu", "1", "--delta", "1e-5"]).mu
    1.0
    """
    parser = Parser(prog="fdp", description="f-differential privacy and Gaussian DP: "
                    "reproductions, DP-SGD accounting, conversions and plots.")
    parser.add_argument("--version", action="version", version=f"fdp {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("repro", help="reproduce paper figures and tables with checks")
    repro_command.add_arguments(p)
    dpsgd.add_parser(sub)
    convert.add_parser(sub)
    plot.add_parser(sub)
    audit.add_parser(sub)
    tree.add_parser(sub)
    last_iterate.add_parser(sub)
    verify.add_parser(sub)
    return parser


def _dispatch(args: argparse.Namespace) -> int | None:
    if not getattr(args, "command", None):
        return None             # no command: the help text, exit status 2
    return args.func(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failed checks, 2 bad input
    or a computation that cannot be done).

    Examples
    --------
    >>> from fdp.cli import main
    >>> main(["convert", "--mu", "1", "--delta", "1e-5"])
    mu = 1-GDP  =>  (epsilon, delta) = (4.37718, 1e-05)
    0
    """
    return run_command(build_parser(), argv, _dispatch)


__all__ = ["DEFAULT_SENSITIVITY", "EXIT_USAGE", "UsageError", "build_parser", "main",
           "parse_spec", "spec_label"]
