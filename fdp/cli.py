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

Bad input (unknown names, out-of-range numbers, unwritable paths, a computation too
large for memory) gives one line on stderr and exit status 2, never a traceback; every
argument is checked before anything is computed.
"""

from __future__ import annotations

import argparse
import math
import os
import re
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
    # os.access can say yes where writing fails (pseudo-filesystems, read-only mounts
    # seen by root): open the file the way savefig will, and remove it if it was new.
    existed = p.exists()
    try:
        with open(p, "ab"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag} {path!r} cannot be written: {exc.strerror or exc}") from None
    if not existed:
        p.unlink(missing_ok=True)
    return p


def _tol(flag: str, x):
    """The engine accuracy: a number in (0, 1] (the engine's own range), or None."""
    if x is not None and not (math.isfinite(x) and 0.0 < x <= 1.0):
        raise UsageError(f"{flag} must lie in (0, 1], got {x!r}")
    return x


def _bound(x: float, trivial: float, why: str) -> str:
    """A certified upper bound as text; a bound that could not be computed (NaN) is
    replaced by the trivially safe value, with the reason, never printed as 'nan'."""
    if math.isnan(x):
        return f"{trivial:g}   (trivial bound: {why})"
    return f"{x:.4f}"


# ----------------------------------------------------------------------
# fdp repro
# ----------------------------------------------------------------------
def _cmd_repro(args) -> int:
    from fdp import repro
    try:
        names = repro.resolve(args.names)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.list:
        width = max(map(len, names))
        for name in names:
            mod = repro.load(name)
            print(f"{name:<{width}}  {mod.TITLE}  [{mod.SOURCE}]")
        return 0
    csv_path = _writable_file("--csv", args.csv) if args.csv else None
    try:
        repro.prepare_out_dir(args.out)
    except OSError as exc:
        raise UsageError(str(exc)) from None
    results = repro.run(names, args.out, fast=args.fast, progress=not args.quiet)
    print(repro.format_table(results, wide=args.wide))
    if csv_path is not None:
        repro.write_csv(results, csv_path)
        print(f"check table written to {csv_path}", file=sys.stderr)
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


#: Default sensitivity of the clipped gradient sum, in clipping norms, per neighbouring
#: relation: adding or removing one example moves the sum by at most one clipping norm C;
#: replacing one example removes one clipped gradient and adds another, so the sum can
#: move by up to 2C (the per-step mechanism is then G_{2/σ}; Dong, Roth & Su 2022, §5
#: analyse NoisySGD with the sensitivity as a parameter).
DEFAULT_SENSITIVITY = {"add_remove": 1.0, "replace_one": 2.0}


def _sampler_options(args) -> dict:
    """The extra keywords of the fixed-memory samplers (checked before computing)."""
    if args.sampling == "truncated_poisson":
        if args.dataset_size is None or args.batch_cap is None:
            raise UsageError("--sampling truncated_poisson needs --dataset-size and "
                             "--batch-cap (with --epochs and --batch-size)")
        n = _count("--dataset-size", args.dataset_size)
        cap = _count("--batch-cap", args.batch_cap)
        if cap > n:
            raise UsageError(f"--batch-cap ({cap}) must not exceed --dataset-size ({n})")
        return {"dataset_size": n, "batch_cap": cap}
    if args.batch_cap is not None:
        raise UsageError("--batch-cap is used only with --sampling truncated_poisson")
    if args.sampling == "with_replacement":
        if args.dataset_size is None:
            raise UsageError("--sampling with_replacement needs --dataset-size (with "
                             "--epochs and --batch-size)")
        return {"dataset_size": _count("--dataset-size", args.dataset_size)}
    return {}


def _print_clt(sampling: str, mu: float, delta: float, lo: float, hi: float) -> None:
    """The CLT μ and ε beside the certified bracket, with the under-report warning."""
    import fdp
    eps_clt = fdp.gdp_epsilon(mu, delta)
    source = "Bu et al." if sampling == "poisson" else "Dong-Roth-Su"
    print(f"CLT ({source}):  mu = {mu:.4f}, epsilon = {eps_clt:.4f}"
          "   (approximation, NOT a bound)")
    if lo > 0 and eps_clt < lo:
        print(f"WARNING: the CLT under-reports epsilon: {eps_clt:.4f} is below the "
              f"certified lower end {lo:.4f} (by at least {100 * (lo - eps_clt) / lo:.1f}%); "
              "report the certified bracket", file=sys.stderr)
        print(f"  -> CLT under-reports epsilon ({eps_clt:.4f} < {lo:.4f})")
    elif eps_clt <= hi:
        print("  -> the CLT epsilon lies inside the certified bracket here")
    elif eps_clt > hi:
        print("  -> the CLT epsilon is above the certified bracket here (over-reports)")


def _cmd_compare_samplers(args) -> int:
    """``fdp dpsgd ... --compare-samplers``: one configuration, every batch sampler."""
    sigma = _positive("--noise-multiplier", args.noise_multiplier)
    if None in (args.epochs, args.dataset_size, args.batch_size) or \
            args.sample_rate is not None or args.steps is not None:
        raise UsageError("--compare-samplers needs --epochs, --dataset-size and "
                         "--batch-size (not --sample-rate/--steps)")
    epochs = _positive("--epochs", args.epochs)
    if epochs != int(epochs):
        raise UsageError(f"--compare-samplers needs a whole number of --epochs "
                         f"(random allocation and shuffling are per epoch), got {epochs:g}")
    n = _count("--dataset-size", args.dataset_size)
    b = _count("--batch-size", args.batch_size)
    if b > n:
        raise UsageError(f"--batch-size ({b}) must not exceed --dataset-size ({n})")
    delta = _unit("--delta", args.delta, open_high=True)
    fpr = _unit("--fpr", args.fpr, open_low=False, open_high=True)
    tol = _tol("--tol", args.tol)
    if args.sensitivity is not None or args.sampling != "poisson":
        raise UsageError("--compare-samplers accounts every sampler with its own "
                         "neighbouring relation; drop --sampling and --sensitivity")
    plot_path = _writable_file("--plot", args.plot) if args.plot else None
    from fdp.sgd.report import compare_samplers, format_table
    if sys.stderr.isatty():
        print("computing certified brackets for every sampler ...", file=sys.stderr, flush=True)
    rows = compare_samplers(n, b, int(epochs), sigma, delta, fpr=fpr, tol=tol, plot=plot_path)
    print(f"DP-SGD sampler comparison: {n} records, batch {b}, {int(epochs)} epochs, "
          f"noise multiplier {sigma:g}, delta {delta:g}")
    print(format_table(rows, delta, fpr))
    if plot_path is not None:
        print(f"trade-off curves written to {plot_path} (shuffle LOWER curve dashed)")
    return 0


def _cmd_allocation_or_shuffle(args) -> int:
    """``--sampling random_allocation`` (certified) or ``--sampling shuffle`` (a LOWER
    bound only, next to the no-amplification guarantee)."""
    sigma = _positive("--noise-multiplier", args.noise_multiplier)
    q, steps, schedule = _dpsgd_schedule(args)
    delta = _unit("--delta", args.delta, open_high=True)
    fpr = _unit("--fpr", args.fpr, open_low=False, open_high=True)
    tol = _tol("--tol", args.tol)
    if args.sensitivity is not None and args.sensitivity != 1.0:
        raise UsageError(f"--sampling {args.sampling} is accounted for add/remove neighbours "
                         "with sensitivity 1; drop --sensitivity")
    t = round(1.0 / q) if q > 0 else 0
    if t < 1 or abs(t * q - 1.0) > 1e-9:
        raise UsageError(f"--sampling {args.sampling} needs one of t steps per epoch: a sample "
                         f"rate 1/t (batch size dividing the dataset size), got {q:.6g}")
    if args.sampling == "shuffle" and steps < t:
        raise UsageError(f"--sampling shuffle needs at least one full epoch ({t} steps)")
    plot_path = _writable_file("--plot", args.plot) if args.plot else None
    import fdp
    from fdp.sgd import allocation
    from fdp.sgd import shuffle as shuffle_lower
    head = (f"DP-SGD: noise multiplier {sigma:g}, {t} steps per epoch, {steps} steps"
            + (f" ({schedule})" if schedule else "") + f", delta {delta:g}")
    print(head)
    print(f"        sampling {args.sampling}, neighbouring relation: add/remove one example")
    if args.sampling == "random_allocation":
        f = allocation.from_dpsgd(sigma, q, steps, tol=tol)
        lo, hi = (float(v) for v in f.epsilon_bounds(delta))
        print(f"        each example in exactly one step of every epoch; "
              f"{-(-steps // t)} epoch(s) accounted (a partial epoch counts whole)")
        print(f"certified f-DP (numeric accountant):  epsilon in [{lo:.4f}, {hi:.4f}]"
              "   (guarantee: the true epsilon is in this bracket)")
        print(f"membership-inference risk: TPR at FPR = {100 * fpr:g}% <= "
              f"{1.0 - float(f(fpr)):.4f}   (certified upper bound)")
    else:
        low = shuffle_lower.from_dpsgd(sigma, q, steps, tol=tol)
        f = low
        epochs_up = -(-steps // t)
        full = fdp.Gaussian(math.sqrt(epochs_up) / sigma)
        e_lo = float(low.epsilon_lower(delta))
        print("shuffling: NO privacy guarantee with amplification is known (Chua et al. 2024).")
        print(f"LOWER bound (NOT a guarantee): epsilon >= {e_lo:.4f}   (a certified attack "
              f"instance: shuffled training leaks at least this much)")
        print(f"guarantee without amplification (each example once per epoch, "
              f"{epochs_up} epoch(s)): epsilon <= {float(full.epsilon(delta)):.4f}")
        print(f"membership-inference risk: TPR at FPR = {100 * fpr:g}% >= "
              f"{1.0 - float(low(fpr)):.4f} (lower bound) and <= {1.0 - float(full(fpr)):.4f}")
    if plot_path is not None:
        from fdp.sgd.report import plot_samplers
        plot_samplers({args.sampling + (" LOWER curve" if args.sampling == "shuffle"
                                        else ""): f}, plot_path, title=head)
        print(f"trade-off plot written to {plot_path}")
    return 0


def _cmd_dpsgd(args) -> int:
    # Every argument is checked before anything is computed.
    if args.compare_samplers:
        return _cmd_compare_samplers(args)
    if args.sampling in ("random_allocation", "shuffle"):
        return _cmd_allocation_or_shuffle(args)
    sigma = _positive("--noise-multiplier", args.noise_multiplier)
    q, steps, schedule = _dpsgd_schedule(args)
    delta = _unit("--delta", args.delta, open_high=True)
    fpr = _unit("--fpr", args.fpr, open_low=False, open_high=True)
    tol = _tol("--tol", args.tol)
    neighbouring = "add_remove" if args.sampling in ("poisson", "truncated_poisson") \
        else "replace_one"
    extra = _sampler_options(args)
    width = None if args.width is None else _positive("--width", args.width)
    sens = DEFAULT_SENSITIVITY[neighbouring] if args.sensitivity is None else \
        _positive("--sensitivity", args.sensitivity)
    plot_path = _writable_file("--plot", args.plot) if args.plot else None

    import numpy as np

    import fdp
    relation = {"add_remove": "add/remove one example",
                "replace_one": "replace one example"}[neighbouring]
    if sys.stderr.isatty():     # a note for people; logs and pipes get only results
        print("computing the certified bracket ...", file=sys.stderr, flush=True)
    cert = fdp.dpsgd(sigma, q, steps, sampling=args.sampling, neighbouring=neighbouring,
                     tol=tol, sensitivity=sens, **extra)
    lo, hi = (float(v) for v in (cert.epsilon_bounds(delta) if width is None
                                 else cert.epsilon_bounds(delta, width=width)))
    print(f"DP-SGD: noise multiplier {sigma:g}, sample rate {q:.6g}, {steps} steps"
          + (f" ({schedule})" if schedule else "") + f", delta {delta:g}")
    print(f"        sampling {args.sampling}, neighbouring relation: {relation}")
    print(f"        sensitivity of the clipped gradient sum: {sens:g} x clipping norm"
          + ("   (default for this relation)" if args.sensitivity is None else ""))
    lo_txt = "0.0000" if math.isnan(lo) else f"{lo:.4f}"
    hi_txt = "inf" if math.isnan(hi) else f"{hi:.4f}"
    print(f"certified f-DP (numeric accountant):  epsilon in [{lo_txt}, {hi_txt}]"
          "   (guarantee: the true epsilon is in this bracket)")

    if args.sampling in ("poisson", "without_replacement"):
        mu = fdp.dpsgd_clt_mu(sigma, q, steps, sampling=args.sampling, sensitivity=sens)
        _print_clt(args.sampling, mu, delta, lo, hi)
    else:
        mu = float("nan")
        print(f"CLT: no limit theorem is implemented for sampling={args.sampling}; the "
              "certified bracket above is the answer")

    rdp_eps = None
    if args.sampling == "poisson":
        from fdp.classical import moments_accountant_epsilon
        # The subsampled Gaussian's RDP depends on sensitivity/σ only.
        rdp = moments_accountant_epsilon(sigma / sens, q, steps, delta, conversion="improved",
                                         orders=None)
        rdp_eps = rdp.epsilon
        print(f"RDP accountant (Mironov-Talwar-Zhang, improved conversion):  "
              f"epsilon = {rdp.epsilon:.4f} at order {rdp.order:g}   (valid, not tight)")
    else:
        print(f"RDP accountant: not available for sampling={args.sampling}")

    # Attack risk: certified brackets from both sides of the curve (fdp.conversions.risk).
    from fdp.conversions.risk import risk_lines
    print("attack risk (certified; '≤ x' is the safe side, [lo, hi] the bracket):")
    try:
        lines = risk_lines(cert, fprs=(fpr, 1e-3), prior=0.5, kappas=(1e-6,))
    except (ArithmeticError, ValueError, TypeError, AttributeError) as exc:
        why = f"the certified curve could not be evaluated here ({type(exc).__name__})"
        lines = [f"attacker TPR at FPR {fpr:g}: <= {_bound(float('nan'), 1.0, why)}",
                 f"advantage (TPR − FPR, max): <= {_bound(float('nan'), 1.0, why)}"]
    for line in lines:
        print("  " + ("<= 1   (trivial bound: a bound came out undefined)"
                      if "nan" in line.lower() else line))
    if not math.isnan(mu):
        print(f"  CLT reading of the same:  advantage {fdp.Gaussian(mu).advantage():.4f}, "
              f"TPR {1 - fdp.Gaussian(mu)(fpr):.4f}   (approximation)")

    if plot_path is not None:
        from fdp.plotting import dpsgd_comparison, dpsgd_profile, new_figure, save
        fig, axes = new_figure(1, 2, size=5.0)
        clt_mu = None if math.isnan(mu) else mu
        dpsgd_comparison(cert, clt_mu, rdp_eps, delta, ax=axes[0, 0],
                         title=rf"DP-SGD $\sigma={sigma:g}$, $q={q:.4g}$, $T={steps}$")
        top = hi if math.isfinite(hi) else (lo if math.isfinite(lo) and lo > 0 else 1.0)
        dpsgd_profile(cert, clt_mu, eps=np.linspace(0.0, max(2.0 * top, 1.0), 121),
                      ax=axes[0, 1], delta=delta,
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


def _parse_spec(spec: str):
    """``family:a[,b][^n]`` → (the factor, n)."""
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
    return getattr(fdp, cls_name)(*vals), power


def parse_spec(spec: str):
    """``family:a[,b][^n]`` → a TradeOff, e.g. ``gaussian:1``, ``epsdelta:1,1e-5^10``."""
    f, power = _parse_spec(spec)
    return f ** power if power > 1 else f


def spec_label(spec: str) -> str:
    """The legend label of a spec: the factor's formula with its composition power,
    e.g. ``$L_{1}^{\\otimes 10}$`` for ``laplace:1^10`` (the composed object's own name
    describes its representation, not the spec)."""
    from fdp.plotting import latex_label
    f, power = _parse_spec(spec)
    label = latex_label(f)
    if power == 1:
        return label
    if label.startswith("$") and label.endswith("$"):
        return f"${{{label[1:-1]}}}^{{\\otimes {power}}}$"
    return f"{label}^{power}"


def _cmd_plot(args) -> int:
    out = _writable_file("--out", args.out)
    for spec in args.specs:          # check every spec before composing any
        _parse_spec(spec)
    if args.labels is not None and len(args.labels) != len(args.specs):
        raise UsageError(f"--labels needs one label per curve ({len(args.specs)}), "
                         f"got {len(args.labels)}")
    labels = args.labels if args.labels is not None else [spec_label(s) for s in args.specs]
    fs = [parse_spec(s) for s in args.specs]
    import fdp
    from fdp.plotting import new_figure, save
    from fdp.plotting._style import MAX_INSIDE_ENTRIES
    # A crowded legend goes beside the axes: make the figure wider for it.
    wide = len(fs) + 1 > MAX_INSIDE_ENTRIES or any(len(lb) > 32 for lb in labels)
    fig, axes = new_figure(1, 1, figsize=(6.9, 5.0) if wide else (5.0, 5.0))
    fdp.plot(*fs, labels=labels, ax=axes[0, 0], title=args.title)
    save(fig, out)
    print(f"plot written to {out}")
    return 0


# ----------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fdp", description="f-differential privacy and Gaussian DP: "
                     "reproductions, DP-SGD accounting, conversions and plots.")
    from fdp import __version__
    parser.add_argument("--version", action="version", version=f"fdp {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("repro", help="reproduce paper figures and tables with checks")
    p.add_argument("names", nargs="*", metavar="NAME", help="reproductions to run "
                   "(default: all; see --list)")
    p.add_argument("--out", default="figures", metavar="DIR",
                   help="output directory (default: figures)")
    p.add_argument("--list", action="store_true", help="list the reproductions (the NAMEs "
                   "given, or all) and exit")
    p.add_argument("--fast", action="store_true",
                   help="coarser numeric engine (wider certified brackets), for tests")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--wide", action="store_true", help="print the check table with full, "
                   "unabbreviated rows (wider than 100 columns)")
    p.add_argument("--csv", metavar="FILE", help="also write the full check table as CSV")
    p.set_defaults(func=_cmd_repro)

    p = sub.add_parser("dpsgd", help="privacy of DP-SGD: certified, CLT, RDP, attack risk")
    p.add_argument("--noise-multiplier", "--sigma", type=float, required=True, metavar="S",
                   help="noise multiplier sigma: Gaussian noise of standard deviation "
                   "sigma x clipping norm is added to the clipped gradient sum")
    p.add_argument("--sample-rate", type=float, metavar="Q",
                   help="probability q that an example is in a batch, in [0, 1]")
    p.add_argument("--steps", type=int, metavar="T", help="number of DP-SGD steps")
    p.add_argument("--epochs", type=float, metavar="E",
                   help="epochs (with --dataset-size and --batch-size, instead of "
                   "--sample-rate and --steps; steps = ceil(E * N / B))")
    p.add_argument("--dataset-size", type=int, metavar="N", help="number of training examples")
    p.add_argument("--batch-size", type=int, metavar="B", help="expected batch size")
    p.add_argument("--delta", type=float, default=1e-5, metavar="D",
                   help="target delta, in (0, 1) (default 1e-5)")
    p.add_argument("--sampling", choices=("poisson", "without_replacement",
                                          "truncated_poisson", "with_replacement",
                                          "random_allocation", "shuffle"),
                   default="poisson", help="poisson (add/remove neighbours, default), "
                   "without_replacement (replace-one neighbours), truncated_poisson "
                   "(Poisson batches capped at --batch-cap; add/remove), with_replacement "
                   "(fixed batch drawn with replacement; replace-one), random_allocation (each "
                   "example in one step per epoch; certified) or shuffle (a LOWER bound only)")
    p.add_argument("--sensitivity", type=float, metavar="C", default=None,
                   help="largest change of the clipped gradient sum between neighbouring "
                   "datasets, in units of the clipping norm; default 1 for add/remove, 2 "
                   "for replace-one (replacing an example can move the sum by twice the "
                   "norm)")
    p.add_argument("--fpr", type=float, default=0.01, metavar="A",
                   help="false-positive rate for the TPR read-out, in [0, 1) (default 0.01)")
    p.add_argument("--tol", type=float, default=None, metavar="TOL",
                   help="engine accuracy in (0, 1]: smaller is tighter and slower "
                   "(default: the engine's)")
    p.add_argument("--batch-cap", type=int, default=None, metavar="B",
                   help="largest batch kept by --sampling truncated_poisson (1..dataset size)")
    p.add_argument("--width", type=float, default=None, metavar="W",
                   help="refine (recomposing at a smaller tol) until the certified epsilon "
                   "bracket is at most W wide, or say what limits it")
    p.add_argument("--plot", metavar="FILE", help="save the trade-off plot (PNG, PDF, SVG)")
    p.add_argument("--compare-samplers", action="store_true",
                   help="account the run (--epochs, --dataset-size, --batch-size) under "
                   "Poisson, without replacement, random allocation, truncated Poisson and "
                   "shuffling (a LOWER bound only) and print one row each")
    p.set_defaults(func=_cmd_dpsgd)

    p = sub.add_parser("convert", help="mu-GDP <-> (epsilon, delta): give two of three")
    p.add_argument("--mu", type=float, help="GDP parameter mu > 0")
    p.add_argument("--epsilon", "--eps", type=float, help="epsilon >= 0")
    p.add_argument("--delta", type=float, help="delta in (0, 1)")
    p.set_defaults(func=_cmd_convert)

    p = sub.add_parser("plot", help="plot trade-off functions given as specs")
    p.add_argument("specs", nargs="+", metavar="SPEC", help="family:params[^n], families: "
                   "gaussian:MU, epsdelta:EPS[,DELTA], laplace:MU, rr:EPS[,K], identity; "
                   "^n composes n times")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="image file to write (PNG, PDF, SVG)")
    p.add_argument("--labels", nargs="+", metavar="LABEL",
                   help="one legend label per SPEC (default: the formulas)")
    p.add_argument("--title", help="title of the plot")
    p.set_defaults(func=_cmd_plot)
    return parser


#: A number with a leading minus sign, e.g. -1e-5, -.5, -inf (argparse would take
#: "-1e-5" for an option).
_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$",
                              re.IGNORECASE)


def _join_negative_values(argv: list[str]) -> list[str]:
    """``--delta -1e-5`` → ``--delta=-1e-5``, so that the value reaches the range check
    (and its message) instead of being misread as an option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if (a.startswith("--") and "=" not in a and i + 1 < len(argv)
                and _NEGATIVE_NUMBER.match(argv[i + 1])):
            out.append(f"{a}={argv[i + 1]}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failed checks, 2 bad input
    or a computation that cannot be done)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser()
    argv = _join_negative_values(list(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        code = args.func(args)
        sys.stdout.flush()      # a closed pipe shows here, where it is handled below
        return code
    except UsageError as exc:
        _error(str(exc).removeprefix("fdp: "))
        return EXIT_USAGE
    except MemoryError as exc:
        _error(f"too large to compute: {_one_line(exc) or 'out of memory'}")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``fdp repro --list | head -1``): not an error of ours.
        # Point stdout at devnull so that the interpreter's final flush stays quiet.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except (ValueError, TypeError, OSError, ArithmeticError) as exc:
        _error(_one_line(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _error("interrupted", prefix="fdp: ")
        return 130
    except Exception as exc:  # a bug of ours: still one line, the traceback on request
        if os.environ.get("FDP_DEBUG"):
            raise
        _error(f"internal error ({type(exc).__name__}: {_one_line(exc)}); please report "
               "it (FDP_DEBUG=1 shows the traceback)")
        return EXIT_USAGE


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _error(message: str, prefix: str = "fdp: error: ") -> None:
    try:
        print(f"{prefix}{message}", file=sys.stderr)
    except (BrokenPipeError, OSError):
        pass


if __name__ == "__main__":
    sys.exit(main())
