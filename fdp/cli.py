"""The ``fdp`` command line.

    fdp repro [NAME ...] [--out DIR] [--list] [--fast]
        reproduce paper figures and tables, print the check table (exit 1 on a FAIL)
    fdp dpsgd --noise-multiplier S (--sample-rate Q --steps T | --epochs E
              --dataset-size N --batch-size B) [--delta D] [--plot FILE]
        certified ε bracket of DP-SGD, the CLT μ and ε (with a warning when the CLT
        under-reports), the RDP ε and attack-risk read-outs
    fdp convert (two of --mu, --epsilon, --delta)
        μ-GDP ↔ (ε, δ) by DRS Cor 2.13
    fdp plot SPEC [SPEC ...] --out FILE
        draw trade-off functions, e.g. ``gaussian:1 epsdelta:1,1e-5 laplace:1^4``

Bad input (unknown names, out-of-range numbers, unwritable paths) gives one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line input: reported as one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage block) and exit status 2."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


# ----------------------------------------------------------------------
# Argument checks with the flag's name in the message
# ----------------------------------------------------------------------
def _positive(flag: str, x: float) -> float:
    if not (math.isfinite(x) and x > 0):
        raise UsageError(f"{flag} must be a finite number > 0, got {x!r}")
    return x


def _unit(flag: str, x: float, *, open_low=True, open_high=False) -> float:
    lo_ok = x > 0 if open_low else x >= 0
    hi_ok = x < 1 if open_high else x <= 1
    if not (math.isfinite(x) and lo_ok and hi_ok):
        rng = ("(0" if open_low else "[0") + ", " + ("1)" if open_high else "1]")
        raise UsageError(f"{flag} must lie in {rng}, got {x!r}")
    return x


def _count(flag: str, k: int) -> int:
    if k < 1:
        raise UsageError(f"{flag} must be an integer >= 1, got {k}")
    return k


def _writable_file(flag: str, path: str) -> Path:
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise UsageError(f"{flag} {path!r} is a directory, expected a file name")
    if not parent.is_dir():
        raise UsageError(f"{flag} {path!r}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{flag} {path!r}: directory {str(parent)!r} is not writable")
    return p


# ----------------------------------------------------------------------
# fdp repro
# ----------------------------------------------------------------------
def _cmd_repro(args) -> int:
    from fdp import repro
    if args.list:
        width = max(map(len, repro.SCRIPTS))
        for name in repro.SCRIPTS:
            mod = repro.load(name)
            print(f"{name:<{width}}  {mod.TITLE}  [{mod.SOURCE}]")
        return 0
    try:
        names = repro.resolve(args.names)
        repro.prepare_out_dir(args.out)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(str(exc)) from None
    results = repro.run(names, args.out, fast=args.fast, progress=not args.quiet)
    print(repro.format_table(results))
    failed = [r.name for r in results if not r.passed]
    if failed:
        print(f"fdp repro: FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"figures written to {args.out}", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------
# fdp dpsgd
# ----------------------------------------------------------------------
def _dpsgd_schedule(args) -> tuple[float, int, str]:
    """(sample rate, steps, description) from either flag set."""
    by_rate = args.sample_rate is not None or args.steps is not None
    by_epochs = any(v is not None for v in (args.epochs, args.dataset_size, args.batch_size))
    if by_rate and by_epochs:
        raise UsageError("give either --sample-rate and --steps, or --epochs, "
                         "--dataset-size and --batch-size, not both")
    if by_epochs:
        if None in (args.epochs, args.dataset_size, args.batch_size):
            raise UsageError("--epochs needs --dataset-size and --batch-size")
        epochs = _positive("--epochs", args.epochs)
        n = _count("--dataset-size", args.dataset_size)
        b = _count("--batch-size", args.batch_size)
        if b > n:
            raise UsageError(f"--batch-size ({b}) must not exceed --dataset-size ({n})")
        steps = math.ceil(epochs * n / b - 1e-9)
        return b / n, steps, f"{epochs:g} epochs of {n} records, batch {b}"
    if args.sample_rate is None or args.steps is None:
        raise UsageError("give --sample-rate and --steps (or --epochs, --dataset-size "
                         "and --batch-size)")
    q = _unit("--sample-rate", args.sample_rate)
    steps = _count("--steps", args.steps)
    return q, steps, ""


def _cmd_dpsgd(args) -> int:
    sigma = _positive("--noise-multiplier", args.noise_multiplier)
    q, steps, schedule = _dpsgd_schedule(args)
    delta = _unit("--delta", args.delta, open_high=True)
    fpr = _unit("--fpr", args.fpr, open_low=False, open_high=True)
    if args.tol is not None:
        _positive("--tol", args.tol)
    plot_path = _writable_file("--plot", args.plot) if args.plot else None
    neighbouring = "add_remove" if args.sampling == "poisson" else "replace_one"

    import numpy as np

    import fdp
    print(f"DP-SGD: noise multiplier {sigma:g}, sample rate {q:.6g}, {steps} steps"
          + (f" ({schedule})" if schedule else "") + f", delta {delta:g}")
    relation = {"add_remove": "add/remove", "replace_one": "replace-one"}[neighbouring]
    print(f"        sampling {args.sampling}, neighbouring {relation}")
    print("computing the certified bracket ...", file=sys.stderr, flush=True)
    cert = fdp.dpsgd(sigma, q, steps, sampling=args.sampling, neighbouring=neighbouring,
                     tol=args.tol)
    lo, hi = cert.epsilon_bounds(delta)
    print(f"certified f-DP (numeric accountant):  epsilon in [{lo:.4f}, {hi:.4f}]"
          "   (guarantee: the true epsilon is in this bracket)")

    mu = fdp.dpsgd_clt_mu(sigma, q, steps, sampling=args.sampling)
    eps_clt = fdp.gdp_epsilon(mu, delta)
    source = "Bu et al." if args.sampling == "poisson" else "Dong-Roth-Su"
    print(f"CLT ({source}):  mu = {mu:.4f}, epsilon = {eps_clt:.4f}"
          "   (approximation, NOT a bound)")
    if eps_clt < lo:
        print(f"WARNING: the CLT under-reports epsilon: {eps_clt:.4f} is below the "
              f"certified lower end {lo:.4f} (by at least {100 * (lo - eps_clt) / lo:.1f}%); "
              "report the certified bracket", file=sys.stderr)
        print(f"  -> CLT under-reports epsilon ({eps_clt:.4f} < {lo:.4f})")
    elif eps_clt <= hi:
        print("  -> the CLT epsilon lies inside the certified bracket here")
    else:
        print("  -> the CLT epsilon is above the certified bracket here (over-reports)")

    rdp_eps = None
    if args.sampling == "poisson":
        from fdp.classical import moments_accountant_epsilon
        rdp = moments_accountant_epsilon(sigma, q, steps, delta, conversion="improved",
                                         orders=None)
        rdp_eps = rdp.epsilon
        print(f"RDP accountant (Mironov-Talwar-Zhang, improved conversion):  "
              f"epsilon = {rdp.epsilon:.4f} at order {rdp.order:g}   (valid, not tight)")
    else:
        print("RDP accountant: not available for sampling without replacement")

    # Attack risk from the certified LOWER curve: upper bounds on any attack.
    adv = cert.advantage()
    tpr = 1.0 - float(cert(fpr))
    print("membership-inference risk (certified upper bounds, from the lower curve f):")
    print(f"  advantage  max(TPR - FPR)           <= {adv:.4f}")
    print(f"  TPR at FPR = {100 * fpr:g}%  (1 - f({fpr:g}))  <= {tpr:.4f}")
    print(f"  CLT reading of the same:  advantage {fdp.Gaussian(mu).advantage():.4f}, "
          f"TPR {1 - fdp.Gaussian(mu)(fpr):.4f}   (approximation)")

    if plot_path is not None:
        from fdp.plotting import dpsgd_comparison, dpsgd_profile, new_figure, save
        fig, axes = new_figure(1, 2, size=5.0)
        dpsgd_comparison(cert, mu, rdp_eps, delta, ax=axes[0, 0],
                         title=rf"DP-SGD $\sigma={sigma:g}$, $q={q:.4g}$, $T={steps}$")
        dpsgd_profile(cert, mu, eps=np.linspace(0.0, max(2.0 * hi, 1.0), 121), ax=axes[0, 1],
                      delta=delta,
                      title=r"privacy profile $\delta(\varepsilon)$")
        save(fig, plot_path)
        print(f"trade-off plot written to {plot_path}")
    return 0


# ----------------------------------------------------------------------
# fdp convert
# ----------------------------------------------------------------------
def _cmd_convert(args) -> int:
    import fdp
    given = {k: v for k, v in (("mu", args.mu), ("epsilon", args.epsilon),
                                ("delta", args.delta)) if v is not None}
    if len(given) != 2:
        raise UsageError("give exactly two of --mu, --epsilon, --delta")
    if "mu" in given:
        _positive("--mu", given["mu"])
    if "epsilon" in given and not (math.isfinite(given["epsilon"]) and given["epsilon"] >= 0):
        raise UsageError(f"--epsilon must be a finite number >= 0, got {given['epsilon']!r}")
    if "delta" in given:
        _unit("--delta", given["delta"], open_high=True)
    if "epsilon" not in given:
        e = fdp.gdp_epsilon(given["mu"], given["delta"])
        print(f"mu = {given['mu']:g}-GDP  =>  (epsilon, delta) = ({e:.6g}, {given['delta']:g})")
    elif "delta" not in given:
        d = fdp.gdp_delta(given["mu"], given["epsilon"])
        print(f"mu = {given['mu']:g}-GDP  =>  (epsilon, delta) = ({given['epsilon']:g}, {d:.6g})")
    else:
        m = fdp.gdp_mu(given["epsilon"], given["delta"])
        print(f"(epsilon, delta) = ({given['epsilon']:g}, {given['delta']:g}) holds for every "
              f"mu-GDP mechanism with mu <= {m:.6g}")
    return 0


# ----------------------------------------------------------------------
# fdp plot
# ----------------------------------------------------------------------
_FAMILIES = {
    "gaussian": ("Gaussian", 1), "gdp": ("Gaussian", 1),
    "epsdelta": ("EpsDelta", 2), "dp": ("EpsDelta", 2),
    "laplace": ("Laplace", 1),
    "rr": ("RandomizedResponse", 2), "randomized_response": ("RandomizedResponse", 2),
    "identity": ("Identity", 0),
}


def parse_spec(spec: str):
    """``family:a[,b][^n]`` → a TradeOff, e.g. ``gaussian:1``, ``epsdelta:1,1e-5^10``."""
    import fdp
    text, power = spec, 1
    for sep in ("^", "**"):
        if sep in text:
            text, _, p = text.partition(sep)
            try:
                power = int(p)
            except ValueError:
                raise UsageError(f"bad composition power in {spec!r}: {p!r}") from None
            if power < 1:
                raise UsageError(f"composition power in {spec!r} must be >= 1")
            break
    name, _, rest = text.partition(":")
    key = name.strip().lower()
    if key not in _FAMILIES:
        raise UsageError(f"unknown family {name!r} in {spec!r}; known: "
                         f"{', '.join(sorted(_FAMILIES))}")
    cls_name, max_args = _FAMILIES[key]
    raw = [r for r in rest.split(",") if r.strip()] if rest else []
    if len(raw) > max_args or (max_args and not raw):
        raise UsageError(f"{spec!r}: {key} takes {'1' if max_args == 1 else '1 or 2'} "
                         f"argument(s)" if max_args else f"{spec!r}: identity takes none")
    try:
        vals = [float(r) for r in raw]
    except ValueError:
        raise UsageError(f"{spec!r}: parameters must be numbers") from None
    if cls_name == "RandomizedResponse" and len(vals) == 2:
        if not vals[1].is_integer():
            raise UsageError(f"{spec!r}: k must be an integer")
        vals[1] = int(vals[1])
    f = getattr(fdp, cls_name)(*vals)
    return f ** power if power > 1 else f


def _cmd_plot(args) -> int:
    out = _writable_file("--out", args.out)
    fs = [parse_spec(s) for s in args.specs]
    if args.labels is not None and len(args.labels) != len(fs):
        raise UsageError(f"--labels needs one label per curve ({len(fs)}), "
                         f"got {len(args.labels)}")
    import fdp
    from fdp.plotting import new_figure, save
    fig, axes = new_figure(1, 1, size=5.0)
    fdp.plot(*fs, labels=args.labels, ax=axes[0, 0], title=args.title)
    save(fig, out)
    print(f"plot written to {out}")
    return 0


# ----------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fdp", description="f-differential privacy and Gaussian DP: "
                     "reproductions, DP-SGD accounting, conversions and plots.")
    from fdp import __version__
    parser.add_argument("--version", action="version", version=f"fdp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("repro", help="reproduce paper figures and tables with checks")
    p.add_argument("names", nargs="*", metavar="NAME", help="reproductions to run "
                   "(default: all; see --list)")
    p.add_argument("--out", default="figures", metavar="DIR",
                   help="output directory (default: figures)")
    p.add_argument("--list", action="store_true", help="list the reproductions and exit")
    p.add_argument("--fast", action="store_true",
                   help="coarser numeric engine (wider certified brackets), for tests")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_cmd_repro)

    p = sub.add_parser("dpsgd", help="privacy of DP-SGD: certified, CLT, RDP, attack risk")
    p.add_argument("--noise-multiplier", "--sigma", type=float, required=True, metavar="S")
    p.add_argument("--sample-rate", type=float, metavar="Q")
    p.add_argument("--steps", type=int, metavar="T")
    p.add_argument("--epochs", type=float, metavar="E")
    p.add_argument("--dataset-size", type=int, metavar="N")
    p.add_argument("--batch-size", type=int, metavar="B")
    p.add_argument("--delta", type=float, default=1e-5, metavar="D",
                   help="target delta (default 1e-5)")
    p.add_argument("--sampling", choices=("poisson", "without_replacement"),
                   default="poisson", help="poisson (add/remove neighbours, default) or "
                   "without_replacement (replace-one)")
    p.add_argument("--fpr", type=float, default=0.01, help="false-positive rate for the "
                   "TPR read-out (default 0.01)")
    p.add_argument("--tol", type=float, default=None, help="engine accuracy (default: "
                   "the engine's)")
    p.add_argument("--plot", metavar="FILE", help="save the trade-off plot (PNG, PDF, SVG)")
    p.set_defaults(func=_cmd_dpsgd)

    p = sub.add_parser("convert", help="mu-GDP <-> (epsilon, delta): give two of three")
    p.add_argument("--mu", type=float)
    p.add_argument("--epsilon", "--eps", type=float)
    p.add_argument("--delta", type=float)
    p.set_defaults(func=_cmd_convert)

    p = sub.add_parser("plot", help="plot trade-off functions given as specs")
    p.add_argument("specs", nargs="+", metavar="SPEC", help="family:params[^n], families: "
                   "gaussian:MU, epsdelta:EPS[,DELTA], laplace:MU, rr:EPS[,K], identity; "
                   "^n composes n times")
    p.add_argument("--out", required=True, metavar="FILE")
    p.add_argument("--labels", nargs="+")
    p.add_argument("--title")
    p.set_defaults(func=_cmd_plot)
    return parser


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failed checks, 2 bad input)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        return args.func(args)
    except UsageError as exc:
        print(f"fdp: error: {str(exc).removeprefix('fdp: ')}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, OSError, ArithmeticError) as exc:
        print(f"fdp: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("fdp: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
