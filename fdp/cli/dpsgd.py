"""``fdp dpsgd``: certified, CLT, RDP and attack-risk read-outs of DP-SGD.

    fdp dpsgd --noise-multiplier S (--sample-rate Q --steps T | --epochs E
              --dataset-size N --batch-size B) [--delta D] [--sensitivity C] [--plot FILE]
              [--trajectory [POINTS]] [--json FILE]
    fdp dpsgd --noise-multiplier S --epochs E --dataset-size N --batch-size B
              --compare-samplers [--delta D] [--plot FILE]

Every argument is checked before anything is computed.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from fdp.cli._checks import image_file, whole_number
from fdp.commandline import UsageError, count, positive, unit, writable_file
from fdp.conversions import gdp_epsilon
from fdp.conversions.risk import risk_lines
from fdp.families.gaussian import Gaussian
from fdp.plotting import dpsgd_comparison, dpsgd_profile, new_figure, save
from fdp.report.claim import DEFAULT_FPR
from fdp.sgd import certified
from fdp.sgd import clt as sgd_clt
from fdp.sgd import shuffle as shuffle_lower
from fdp.sgd.certified import DEFAULT_SENSITIVITY
from fdp.sgd.rdp import dpsgd_rdp_epsilon
from fdp.sgd.report import compare_samplers, format_table, plot_samplers
from fdp.sgd.schedule import from_epochs
from fdp.sgd.trajectory import trajectory
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff


def _tol(flag: str, x: float | None) -> float | None:
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
# fdp dpsgd
# ----------------------------------------------------------------------
def _dpsgd_schedule(args: argparse.Namespace) -> tuple[float, int, str]:
    """(sample rate, steps, description) from either flag set."""
    by_rate = args.sample_rate is not None or args.steps is not None
    by_epochs = any(v is not None for v in (args.epochs, args.dataset_size, args.batch_size))
    if by_rate and by_epochs:
        raise UsageError("give either --sample-rate and --steps, or --epochs, "
                         "--dataset-size and --batch-size, not both")
    if by_epochs:
        if None in (args.epochs, args.dataset_size, args.batch_size):
            raise UsageError("--epochs needs --dataset-size and --batch-size")
        epochs = positive("--epochs", args.epochs)
        n = count("--dataset-size", args.dataset_size)
        b = count("--batch-size", args.batch_size)
        if b > n:
            raise UsageError(f"--batch-size ({b}) must not exceed --dataset-size ({n})")
        q, steps = from_epochs(b, n, epochs)        # the Python API's own conversion
        return q, steps, f"{epochs:g} epochs of {n} records, batch {b}"
    if args.sample_rate is None or args.steps is None:
        raise UsageError("give --sample-rate and --steps (or --epochs, --dataset-size "
                         "and --batch-size)")
    q = unit("--sample-rate", args.sample_rate)
    steps = count("--steps", args.steps)
    return q, steps, ""


def _sampler_options(args: argparse.Namespace) -> dict[str, Any]:
    """The extra keywords of the fixed-memory samplers (checked before computing)."""
    if args.sampling == "truncated_poisson":
        if args.dataset_size is None or args.batch_cap is None:
            raise UsageError("--sampling truncated_poisson needs --dataset-size and "
                             "--batch-cap (with --epochs and --batch-size)")
        n = count("--dataset-size", args.dataset_size)
        cap = count("--batch-cap", args.batch_cap)
        if cap > n:
            raise UsageError(f"--batch-cap ({cap}) must not exceed --dataset-size ({n})")
        return {"dataset_size": n, "batch_cap": cap}
    if args.batch_cap is not None:
        raise UsageError("--batch-cap is used only with --sampling truncated_poisson")
    if args.sampling == "with_replacement":
        if args.dataset_size is None:
            raise UsageError("--sampling with_replacement needs --dataset-size (with "
                             "--epochs and --batch-size)")
        return {"dataset_size": count("--dataset-size", args.dataset_size)}
    return {}


def _print_clt(sampling: str, mu: float, delta: float, lo: float, hi: float) -> None:
    """The CLT μ and ε beside the certified bracket, with the under-report warning."""
    eps_clt = gdp_epsilon(mu, delta)
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


def _write_report(f: TradeOff, path: Path, delta: float, fpr: float) -> None:
    """``f.report(...)`` as JSON at ``path`` (the queries of the printed read-outs)."""
    report = f.report(delta=delta, fpr=sorted({*DEFAULT_FPR, fpr}))
    path.write_text(report.to_json() + "\n", encoding="utf-8")
    print(f"privacy report written to {path} (check it with: fdp verify {path})")


def _cmd_compare_samplers(args: argparse.Namespace) -> int:
    """``fdp dpsgd ... --compare-samplers``: one configuration, every batch sampler."""
    sigma = positive("--noise-multiplier", args.noise_multiplier)
    if None in (args.epochs, args.dataset_size, args.batch_size) or \
            args.sample_rate is not None or args.steps is not None:
        raise UsageError("--compare-samplers needs --epochs, --dataset-size and "
                         "--batch-size (not --sample-rate/--steps)")
    epochs = positive("--epochs", args.epochs)
    if epochs != int(epochs):
        raise UsageError(f"--compare-samplers needs a whole number of --epochs "
                         f"(random allocation and shuffling are per epoch), got {epochs:g}")
    n = count("--dataset-size", args.dataset_size)
    b = count("--batch-size", args.batch_size)
    if b > n:
        raise UsageError(f"--batch-size ({b}) must not exceed --dataset-size ({n})")
    delta = unit("--delta", args.delta, open_high=True)
    fpr = unit("--fpr", args.fpr, open_low=False, open_high=True)
    tol = _tol("--tol", args.tol)
    if args.sensitivity is not None or args.sampling != "poisson":
        raise UsageError("--compare-samplers accounts every sampler with its own "
                         "neighbouring relation; drop --sampling and --sensitivity")
    plot_path = image_file("--plot", args.plot) if args.plot else None
    if args.json:
        raise UsageError("--json writes the report of one run; drop --compare-samplers")
    if sys.stderr.isatty():
        print("computing certified brackets for every sampler ...", file=sys.stderr, flush=True)
    rows = compare_samplers(n, b, int(epochs), sigma, delta, fpr=fpr, tol=tol, plot=plot_path)
    print(f"DP-SGD sampler comparison: {n} records, batch {b}, {int(epochs)} epochs, "
          f"noise multiplier {sigma:g}, delta {delta:g}")
    print(format_table(rows, delta, fpr))
    if plot_path is not None:
        print(f"trade-off curves written to {plot_path} (shuffle LOWER curve dashed)")
    return 0


def _cmd_allocation_or_shuffle(args: argparse.Namespace) -> int:
    """``--sampling random_allocation`` (certified) or ``--sampling shuffle`` (a LOWER
    bound only, next to the no-amplification guarantee)."""
    sigma = positive("--noise-multiplier", args.noise_multiplier)
    q, steps, schedule = _dpsgd_schedule(args)
    delta = unit("--delta", args.delta, open_high=True)
    fpr = unit("--fpr", args.fpr, open_low=False, open_high=True)
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
    plot_path = image_file("--plot", args.plot) if args.plot else None
    if args.json and args.sampling == "shuffle":
        raise UsageError("--json writes a certified claim; --sampling shuffle has a LOWER "
                         "bound only")
    json_path = writable_file("--json", args.json) if args.json else None
    head = (f"DP-SGD: noise multiplier {sigma:g}, {t} steps per epoch, {steps} steps"
            + (f" ({schedule})" if schedule else "") + f", delta {delta:g}")
    print(head)
    print(f"        sampling {args.sampling}, neighbouring relation: add/remove one example")
    f: TradeOff
    if args.sampling == "random_allocation":
        # the same computation as fdp.random_allocation(σ, t, 1, ⌈T/t⌉), through dpsgd
        f = certified.dpsgd(sigma, q, steps, sampling="random_allocation", tol=tol)
        require_guarantee(f, "the certified line")
        lo, hi = (float(v) for v in f.epsilon_bounds(delta))
        print(f"        each example in exactly one step of every epoch; "
              f"{-(-steps // t)} epoch(s) accounted (a partial epoch counts whole)")
        print(f"certified f-DP (numeric accountant):  epsilon in [{lo:.4f}, {hi:.4f}]"
              "   (guarantee: the true epsilon is in this bracket)")
        print(f"membership-inference risk: TPR at FPR = {100 * fpr:g}% <= "
              f"{1.0 - float(f(fpr)):.4f}   (certified upper bound)")
        if json_path is not None:
            _write_report(f, json_path, delta, fpr)
    else:
        low = shuffle_lower.from_dpsgd(sigma, q, steps, tol=tol)
        f = low
        epochs_up = -(-steps // t)
        full = Gaussian(math.sqrt(epochs_up) / sigma)
        e_lo = float(low.epsilon_lower(delta))
        print("shuffling: NO privacy guarantee with amplification is known (Chua et al. 2024).")
        print(f"LOWER bound (NOT a guarantee): epsilon >= {e_lo:.4f}   (a certified attack "
              f"instance: shuffled training leaks at least this much)")
        print(f"guarantee without amplification (each example once per epoch, "
              f"{epochs_up} epoch(s)): epsilon <= {float(full.epsilon(delta)):.4f}")
        print(f"membership-inference risk: TPR at FPR = {100 * fpr:g}% >= "
              f"{1.0 - float(low(fpr)):.4f} (lower bound) and <= {1.0 - float(full(fpr)):.4f}")
    if plot_path is not None:
        plot_samplers({args.sampling + (" LOWER curve" if args.sampling == "shuffle"
                                        else ""): f}, plot_path, title=head)
        print(f"trade-off plot written to {plot_path}")
    return 0


def _cmd_dpsgd(args: argparse.Namespace) -> int:
    # Every argument is checked before anything is computed.
    if args.trajectory is not None and (args.compare_samplers or args.sampling in (
            "random_allocation", "shuffle")):
        raise UsageError("--trajectory composes the per-step samplers (poisson, "
                         "without_replacement, truncated_poisson, with_replacement); drop "
                         "--compare-samplers and --sampling random_allocation/shuffle")
    if args.compare_samplers:
        return _cmd_compare_samplers(args)
    if args.sampling in ("random_allocation", "shuffle"):
        return _cmd_allocation_or_shuffle(args)
    sigma = positive("--noise-multiplier", args.noise_multiplier)
    q, steps, schedule = _dpsgd_schedule(args)
    delta = unit("--delta", args.delta, open_high=True)
    fpr = unit("--fpr", args.fpr, open_low=False, open_high=True)
    tol = _tol("--tol", args.tol)
    neighbouring = "add_remove" if args.sampling in ("poisson", "truncated_poisson") \
        else "replace_one"
    extra = _sampler_options(args)
    width = None if args.width is None else positive("--width", args.width)
    sens = DEFAULT_SENSITIVITY[neighbouring] if args.sensitivity is None else \
        positive("--sensitivity", args.sensitivity)
    plot_path = image_file("--plot", args.plot) if args.plot else None
    json_path = writable_file("--json", args.json) if args.json else None
    points = None if args.trajectory is None else count("--trajectory", args.trajectory)

    relation = {"add_remove": "add/remove one example",
                "replace_one": "replace one example"}[neighbouring]
    if sys.stderr.isatty():     # a note for people; logs and pipes get only results
        print("computing the certified bracket ...", file=sys.stderr, flush=True)
    cert = certified.dpsgd(sigma, q, steps, sampling=args.sampling, neighbouring=neighbouring,
                     tol=tol, sensitivity=sens, **extra)
    require_guarantee(cert, "the certified line")
    bracket = (cert.epsilon_bounds(delta) if width is None
               else cert.epsilon_bounds(delta, width=width))
    lo, hi = (float(v) for v in bracket)
    print(f"DP-SGD: noise multiplier {sigma:g}, sample rate {q:.6g}, {steps} steps"
          + (f" ({schedule})" if schedule else "") + f", delta {delta:g}")
    print(f"        sampling {args.sampling}, neighbouring relation: {relation}")
    print(f"        sensitivity of the clipped gradient sum: {sens:g} x clipping norm"
          + ("   (default for this relation)" if args.sensitivity is None else ""))
    lo_txt = "0.0000" if math.isnan(lo) else f"{lo:.4f}"
    hi_txt = "inf" if math.isnan(hi) else f"{hi:.4f}"
    print(f"certified f-DP (numeric accountant):  epsilon in [{lo_txt}, {hi_txt}]"
          "   (guarantee: the true epsilon is in this bracket)")
    if getattr(bracket, "note", ""):
        # which certified bound set the upper end (f-DP engine or RDP), and why a
        # lower end is 0
        print(f"        ({bracket.note})")
    traj = None
    if points is not None:
        traj = trajectory(sigma, q, steps, delta, points=points, sampling=args.sampling,
                          neighbouring=neighbouring, tol=tol, sensitivity=sens, **extra)
        print(f"certified epsilon over training (delta {delta:g}, {len(traj)} points, "
              "one discretisation; fdp.sgd.trajectory):")
        print(f"  {'steps':>10}  {'epsilon low':>12}  {'epsilon high':>12}")
        for t, e_lo, e_hi in zip(traj.steps, traj.lower, traj.upper):
            print(f"  {t:>10d}  {e_lo:>12.4f}  {e_hi:>12.4f}")

    if args.sampling in ("poisson", "without_replacement"):
        mu = sgd_clt.dpsgd_clt_mu(sigma, q, steps, sampling=args.sampling, sensitivity=sens)
        if math.isfinite(mu):
            _print_clt(args.sampling, mu, delta, lo, hi)
        else:
            # e^{1/σ²} overflows for σ below ≈ 0.038: the CLT has nothing to say there
            print("CLT: mu = inf (e^(1/sigma^2) overflows at this noise level; "
                  "approximation, NOT a bound)")
            mu = float("nan")
    else:
        mu = float("nan")
        print(f"CLT: no limit theorem is implemented for sampling={args.sampling}; the "
              "certified bracket above is the answer")

    rdp_eps = None
    if args.sampling == "poisson":
        rdp = dpsgd_rdp_epsilon(sigma, q, steps, delta, sensitivity=sens)
        rdp_eps = rdp.epsilon
        print(f"RDP accountant (Mironov-Talwar-Zhang, improved conversion):  "
              f"epsilon = {rdp.epsilon:.4f} at order {rdp.order:g}   (valid, not tight; "
              "fdp.sgd.dpsgd_rdp_epsilon's default orders; the certified line above "
              "takes the smaller of the engine and a certified RDP bound on a finer grid)")
    else:
        print(f"RDP accountant: not available for sampling={args.sampling}")

    # Attack risk: certified brackets from both sides of the curve (fdp.conversions.risk).
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
        print(f"  CLT reading of the same:  advantage {Gaussian(mu).advantage():.4f}, "
              f"TPR {1 - Gaussian(mu)(fpr):.4f}   (approximation)")

    if json_path is not None:
        _write_report(cert, json_path, delta, fpr)
    if plot_path is not None:
        fig, axes = new_figure(1, 2 if traj is None else 3, size=5.0)
        clt_mu = None if math.isnan(mu) else mu
        dpsgd_comparison(cert, clt_mu, rdp_eps, delta, ax=axes[0, 0],
                         title=rf"DP-SGD $\sigma={sigma:g}$, $q={q:.4g}$, $T={steps}$")
        top = hi if math.isfinite(hi) else (lo if math.isfinite(lo) and lo > 0 else 1.0)
        dpsgd_profile(cert, clt_mu, eps=np.linspace(0.0, max(2.0 * top, 1.0), 121),
                      ax=axes[0, 1], delta=delta,
                      title=r"privacy profile $\delta(\varepsilon)$")
        if traj is not None:
            traj.plot(ax=axes[0, 2], title=r"certified $\varepsilon$ over training")
        save(fig, plot_path)
        print(f"trade-off plot written to {plot_path}")
    return 0


def add_parser(sub: Any) -> None:
    """Declare ``fdp dpsgd`` and its arguments on the sub-parsers ``sub``."""
    p = sub.add_parser("dpsgd", help="privacy of DP-SGD: certified, CLT, RDP, attack risk")
    p.add_argument("--noise-multiplier", "--sigma", type=float, required=True, metavar="S",
                   help="noise multiplier sigma: Gaussian noise of standard deviation "
                   "sigma x clipping norm is added to the clipped gradient sum")
    p.add_argument("--sample-rate", type=float, metavar="Q",
                   help="probability q that an example is in a batch, in [0, 1]")
    p.add_argument("--steps", type=whole_number, metavar="T", help="number of DP-SGD steps")
    p.add_argument("--epochs", type=float, metavar="E",
                   help="epochs (with --dataset-size and --batch-size, instead of "
                   "--sample-rate and --steps; steps = ceil(E * N / B))")
    p.add_argument("--dataset-size", type=whole_number, metavar="N",
                   help="number of training examples")
    p.add_argument("--batch-size", type=whole_number, metavar="B", help="expected batch size")
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
    p.add_argument("--batch-cap", type=whole_number, default=None, metavar="B",
                   help="largest batch kept by --sampling truncated_poisson (1..dataset size)")
    p.add_argument("--width", type=float, default=None, metavar="W",
                   help="refine (recomposing at a smaller tol) until the certified epsilon "
                   "bracket is at most W wide, or say what limits it")
    p.add_argument("--trajectory", type=whole_number, nargs="?", const=100, default=None,
                   metavar="POINTS", help="also print the certified epsilon bracket after "
                   "POINTS evenly spaced step counts up to the run's length (default 100), "
                   "from one discretisation (fdp.sgd.trajectory); with --plot, a third panel")
    p.add_argument("--plot", metavar="FILE", help="save the trade-off plot (PNG, PDF, SVG, "
                   "or another format matplotlib writes, by the file suffix)")
    p.add_argument("--json", metavar="FILE",
                   help="write the run's privacy report (fdp.PrivacyReport, JSON) to FILE: "
                   "the epsilon bracket at --delta, TPR at FPR 0.001, 0.01, 0.1 and --fpr, "
                   "and the inputs that `fdp verify FILE` recomputes it from")
    p.add_argument("--compare-samplers", action="store_true",
                   help="account the run (--epochs, --dataset-size, --batch-size) under "
                   "Poisson, without replacement, random allocation, truncated Poisson and "
                   "shuffling (a LOWER bound only) and print one row each")
    p.set_defaults(func=_cmd_dpsgd)
