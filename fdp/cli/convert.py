"""``fdp convert``: μ-GDP ↔ (ε, δ) by Dong, Roth & Su (2022), Corollary 2.13.

    fdp convert (two of --mu, --epsilon, --delta)
"""

from __future__ import annotations

import argparse
import math

from fdp.commandline import Parser, UsageError, positive, unit
from fdp.conversions import gdp_delta, gdp_epsilon, gdp_mu_for_eps_delta


def _cmd_convert(args: argparse.Namespace) -> int:
    given = {k: v for k, v in (("mu", args.mu), ("epsilon", args.epsilon),
                                ("delta", args.delta)) if v is not None}
    if len(given) != 2:
        raise UsageError("give exactly two of --mu, --epsilon, --delta")
    if "mu" in given:
        positive("--mu", given["mu"])
    if "epsilon" in given and not (math.isfinite(given["epsilon"]) and given["epsilon"] >= 0):
        raise UsageError(f"--epsilon must be a finite number >= 0, got {given['epsilon']!r}")
    if "delta" in given:
        unit("--delta", given["delta"], open_high=True)
    if "epsilon" not in given:
        e = gdp_epsilon(given["mu"], given["delta"])
        print(f"mu = {given['mu']:g}-GDP  =>  (epsilon, delta) = ({e:.6g}, {given['delta']:g})")
    elif "delta" not in given:
        d = gdp_delta(given["mu"], given["epsilon"])
        print(f"mu = {given['mu']:g}-GDP  =>  (epsilon, delta) = ({given['epsilon']:g}, {d:.6g})")
    else:
        m = gdp_mu_for_eps_delta(given["epsilon"], given["delta"])
        print(f"(epsilon, delta) = ({given['epsilon']:g}, {given['delta']:g}) holds for every "
              f"mu-GDP mechanism with mu <= {m:.6g}")
    return 0


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare ``fdp convert`` and its arguments on the sub-parsers ``sub``."""
    p = sub.add_parser("convert", help="mu-GDP <-> (epsilon, delta): give two of three")
    p.add_argument("--mu", type=float, help="GDP parameter mu > 0")
    p.add_argument("--epsilon", "--eps", type=float, help="epsilon >= 0")
    p.add_argument("--delta", type=float, help="delta in (0, 1)")
    p.set_defaults(func=_cmd_convert)
