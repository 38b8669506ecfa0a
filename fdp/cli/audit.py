"""``fdp audit``: a one-run privacy audit of a claimed curve, verdict on one screen.

    fdp audit (--scores FILE | --counts M,R,V)
              (--mu MU | --epsilon E [--claim-delta D] | --noise-multiplier S --sample-rate Q
               --steps T) [--significance T] [--delta D] [--family one_sided|two_sided]

Scores FILE is JSON ``{"in": [...], "out": [...]}`` or CSV with a header naming a
``score`` column and an ``in`` column (1 for an included canary, 0 otherwise). The
claim is G_μ (``--mu``), (ε, δ)-DP (``--epsilon``, ``--claim-delta``) or the certified
curve of a Poisson DP-SGD run (``--noise-multiplier``, ``--sample-rate``, ``--steps``:
``fdp.dpsgd``, add/remove neighbours), audited through its certified lower side. See
``fdp.audit.one_run`` for the tests (Steinke, Nasr & Jagielski 2023; Mahloujifar,
Melis & Chaudhuri 2024).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path

import numpy as np

from fdp import EpsDelta, Gaussian, dpsgd
from fdp.audit import one_run
from fdp.cli._checks import whole_number
from fdp.commandline import Parser, UsageError, positive, unit
from fdp.tradeoff import TradeOff


def _read_scores(path: str) -> tuple[np.ndarray, np.ndarray]:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"--scores: no such file {path!r}")
    text = p.read_text()
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--scores: {path!r} is not valid JSON ({exc.msg})") from None
        if not isinstance(data, dict) or "in" not in data or "out" not in data:
            raise UsageError('--scores: the JSON must be an object {"in": [...], "out": [...]}')
        try:
            return np.asarray(data["in"], dtype=float), np.asarray(data["out"], dtype=float)
        except (TypeError, ValueError):
            raise UsageError("--scores: the JSON lists must hold numbers") from None
    rows = list(csv.DictReader(text.splitlines()))
    if not rows or "score" not in rows[0] or "in" not in rows[0]:
        raise UsageError("--scores: the CSV needs a header with 'score' and 'in' columns")
    try:
        score = np.array([float(r["score"]) for r in rows])
        member = np.array([int(r["in"]) for r in rows])
    except (TypeError, ValueError):
        raise UsageError("--scores: 'score' must be numbers and 'in' must be 0 or 1") from None
    if not np.isin(member, (0, 1)).all():
        raise UsageError("--scores: 'in' must be 0 or 1")
    return score[member == 1], score[member == 0]


def _read_counts(text: str) -> tuple[int, int, int]:
    try:
        m, r, v = (int(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"--counts must be three integers M,R,V, got {text!r}") from None
    if not 0 <= v <= r <= m or m < 1:
        raise UsageError(f"--counts needs 0 <= V <= R <= M and M >= 1, got {text!r}")
    return m, r, v


def _cmd_audit(args: argparse.Namespace) -> int:
    if (args.scores is None) == (args.counts is None):
        raise UsageError("give exactly one of --scores FILE and --counts M,R,V")
    dpsgd_flags = (args.noise_multiplier, args.sample_rate, args.steps)
    given = [args.mu is not None, args.epsilon is not None,
             any(x is not None for x in dpsgd_flags)]
    if sum(given) != 1:
        raise UsageError("give the claim as exactly one of --mu, --epsilon, or a DP-SGD run "
                         "(--noise-multiplier, --sample-rate, --steps)")
    unit("--significance", args.significance, open_high=True)
    unit("--delta", args.delta, open_low=False)
    claim: TradeOff
    if args.mu is not None:
        claim = Gaussian(positive("--mu", args.mu))
    elif given[2]:
        if any(x is None for x in dpsgd_flags):
            raise UsageError("a DP-SGD claim needs all of --noise-multiplier, --sample-rate "
                             "and --steps")
        claim = dpsgd(positive("--noise-multiplier", args.noise_multiplier),
                      unit("--sample-rate", args.sample_rate, open_low=False),
                      args.steps)
    else:
        if not (math.isfinite(args.epsilon) and args.epsilon >= 0):
            raise UsageError(f"--epsilon must be a finite number >= 0, got {args.epsilon!r}")
        unit("--claim-delta", args.claim_delta, open_low=False, open_high=True)
        claim = EpsDelta(args.epsilon, args.claim_delta)
    if args.counts is not None:
        res = one_run(claim, counts=_read_counts(args.counts),
                      significance=args.significance, delta=args.delta)
    else:
        x_in, x_out = _read_scores(args.scores)
        res = one_run(claim, x_in, x_out, significance=args.significance, delta=args.delta,
                      family=args.family)
    verdict = "REFUTED" if res.refuted else "not refuted"
    print(f"claim {res.claim}: {verdict} at significance {res.significance:g} "
          f"(p-value {res.p_value:.4g})")
    print(f"  empirical lower bounds: epsilon >= {res.epsilon_lower_bound:.6g} at delta = "
          f"{res.delta:g}; mu >= {res.mu_lower_bound:.6g}")
    print(f"  m = {res.m} canaries, best guess set r = {res.best_r}, v = {res.best_v}; "
          f"{res.n_tests} guess set(s), Bonferroni ({res.correction})")
    print(f"  assumes: {res.assumption}")
    return 0


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare ``fdp audit`` and its arguments on the sub-parsers ``sub``."""
    p = sub.add_parser("audit", help="one-run privacy audit of a claimed curve")
    p.add_argument("--scores", help="JSON {'in': [...], 'out': [...]} or CSV (score,in)")
    p.add_argument("--counts", help="M,R,V: canaries, guesses, correct guesses")
    p.add_argument("--mu", type=float, help="claim: mu-GDP, mu > 0")
    p.add_argument("--epsilon", "--eps", type=float, help="claim: (epsilon, claim-delta)-DP")
    p.add_argument("--noise-multiplier", "--sigma", type=float, metavar="S",
                   help="claim: the certified curve of Poisson DP-SGD with noise multiplier S "
                   "(with --sample-rate and --steps)")
    p.add_argument("--sample-rate", type=float, metavar="Q", help="DP-SGD claim: rate q")
    p.add_argument("--steps", type=whole_number, metavar="T", help="DP-SGD claim: steps")
    p.add_argument("--claim-delta", type=float, default=0.0,
                   help="delta of an (epsilon, delta) claim, in [0, 1) (default 0)")
    p.add_argument("--significance", type=float, default=0.05,
                   help="family-wise level in (0, 1) (default 0.05)")
    p.add_argument("--delta", type=float, default=1e-6,
                   help="delta of the reported epsilon lower bound (default 1e-6)")
    p.add_argument("--family", choices=("one_sided", "two_sided"), default="one_sided",
                   help="guess sets tried from scores (default one_sided)")
    p.set_defaults(func=_cmd_audit)


__all__ = ["add_parser"]
