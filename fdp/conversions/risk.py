"""Certified attack-risk read-outs of a trade-off function.

The derivation: docs/derivations/attack-risk.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike
from fdp.bracket import Bracket
from fdp.conversions._readout import (
    _one_minus_upper,
    _orders,
    _pair_note,
    _round_down,
    _round_up,
    _tradeoff,
    one_direction,
)
from fdp.conversions.gdp_fit import GdpFit, gdp_fit, gdp_shortfall
from fdp.tradeoff import TradeOff

__all__ = ["Bracket", "GdpFit", "advantage_bounds", "attack_success", "bayes_risk",
           "gdp_fit", "gdp_shortfall", "one_direction", "reconstruction_bound",
           "risk_lines", "tpr_at_fpr"]

def tpr_at_fpr(f: TradeOff, fpr: ArrayLike) -> Bracket:
    """Best true-positive rate of a membership test at false-positive rate ``fpr``.

    TPR(α) = 1 − min{f(α), f⁻¹(α)} (DRS 2022, §2.1 and Lemma A.2: the worst ordered
    pair), as a ``Bracket`` with fpr ≤ lo ≤ hi ≤ 1 (shaped like ``fpr``); ``safe`` is
    ``hi``. Derivation: docs/derivations/attack-risk.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions import tpr_at_fpr
    >>> print(f"{tpr_at_fpr(fdp.EpsDelta(1.0), 0.01).hi:.4f}")
    0.0272
    """
    f = _tradeoff(f)
    a = _validate.reals("fpr", fpr, low=0.0, high=1.0)
    flat = np.atleast_1d(a).ravel()
    lo = np.zeros(flat.shape)
    hi = np.zeros(flat.shape)
    for g in _orders(f):
        lo = np.maximum(lo, _round_down(1.0 - g._upper(flat)))
        hi = np.maximum(hi, _one_minus_upper(g, flat))
    lo = np.maximum(lo, flat)             # f ≤ 1 − α: power is at least α
    # where the upper side falls to the floor α itself (1 − f(α) − α below the resolution
    # of α), the truth may still exceed α: round that side outward by one ulp
    hi = np.where((hi <= lo) & (flat > 0.0), np.minimum(np.nextafter(lo, np.inf), 1.0),
                  np.maximum(hi, lo))
    lo_a, hi_a = lo.reshape(np.shape(a)), hi.reshape(np.shape(a))
    return Bracket(_validate.like_input(fpr, lo_a), _validate.like_input(fpr, hi_a), f.status, "hi",
                   _pair_note(f))


def advantage_bounds(f: TradeOff) -> Bracket:
    """Advantage max_α (1 − α − f(α)) = δ_f(0), the total-variation distance of the pair
    (DRS 2022, §2.1), as a bracket (``f.advantage()`` is its upper side, ``safe``); the
    same for f and f⁻¹.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions import advantage_bounds
    >>> print(f"{advantage_bounds(fdp.EpsDelta(1.0)).hi:.4f}")
    0.4621
    """
    f = _tradeoff(f)
    zero = np.zeros(1)
    hi = float(_round_up(f._delta(zero))[0])
    lo = float(_round_down(f._delta_lower(zero))[0])
    return Bracket(min(lo, hi), hi, f.status, "hi", "total-variation distance (both orders)")


def _risk_one(g: TradeOff, prior: float, eps: np.ndarray) -> tuple[float, float]:
    """Bracket for R_g(π) = min_α [(1 − π)α + π g(α)] = π (1 − δ_g(ε)), e^ε = (1 − π)/π."""
    r_lo = prior * (1.0 - g._delta(eps)[0])
    r_hi = prior * (1.0 - g._delta_lower(eps)[0])
    return float(_round_down(r_lo, prior)), float(_round_up(r_hi, prior))


def bayes_risk(f: TradeOff, prior: float = 0.5) -> Bracket:
    """Smallest Bayes error of a membership attacker with prior ``prior`` on "in".

    R(π) = min_α [(1 − π)α + π f(α)] = π (1 − δ_f(ε)), e^ε = (1 − π)/π (DRS 2022,
    Prop 2.12), on the worst ordered pair (Kaissis, Hayes, Ziller & Rueckert 2023);
    R ≤ min{π, 1 − π}. ``safe`` is ``lo`` (the least error the attacker must make).
    Derivation: docs/derivations/attack-risk.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions import bayes_risk
    >>> print(f"{bayes_risk(fdp.EpsDelta(1.0), 0.5).lo:.4f}")
    0.2689
    """
    f = _tradeoff(f)
    p = _validate.probability("prior", prior)
    if p in (0.0, 1.0):
        return Bracket(0.0, 0.0, f.status, "lo", "prior 0 or 1: the attacker already knows")
    eps = np.array([np.log1p(-p) - np.log(p)])
    sides = [_risk_one(g, p, eps) for g in _orders(f)]
    lo = min(s[0] for s in sides)
    hi = min(min(s[1] for s in sides), min(p, 1.0 - p))
    return Bracket(lo, max(lo, hi), f.status, "lo", _pair_note(f))


def attack_success(f: TradeOff, prior: float = 0.5) -> Bracket:
    """Best success probability 1 − R(π) of a membership attacker with prior π
    (see ``bayes_risk``); ``safe`` is ``hi``. Without the output: max{π, 1 − π}.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions import attack_success
    >>> print(f"{attack_success(fdp.EpsDelta(1.0)).hi:.4f}")
    0.7311
    """
    r = bayes_risk(f, prior)
    lo = float(np.nextafter(1.0 - r.hi, 0.0)) if r.hi > 0.0 else 1.0
    hi = float(min(np.nextafter(1.0 - r.lo, 2.0), 1.0))
    return Bracket(lo, hi, f.status, "hi", r.note)


def reconstruction_bound(f: TradeOff, kappa: float) -> Bracket:
    """Reconstruction robustness: success ≤ 1 − f(κ) for baseline success κ.

    Kaissis, Hayes, Ziller & Rueckert 2023; Hayes, Mahloujifar & Balle 2023 (NeurIPS),
    read on the worst ordered pair like ``tpr_at_fpr``; ``safe`` is ``hi``; κ ≤ lo.
    Derivation: docs/derivations/attack-risk.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions import reconstruction_bound
    >>> print(f"{reconstruction_bound(fdp.EpsDelta(1.0), 0.01).hi:.4f}")
    0.0272
    """
    f = _tradeoff(f)
    k = _validate.probability("kappa", kappa)
    b = tpr_at_fpr(f, k)
    note = "reconstruction success bound 1 − f(κ)" + (f"; {b.note}" if b.note else "")
    return Bracket(b.lo, b.hi, f.status, "hi", note)


def risk_lines(f: TradeOff, fprs: Sequence[float] = (1e-3, 1e-2, 0.1), prior: float = 0.5,
               kappas: Sequence[float] = (1e-6, 1e-3)) -> list[str]:
    """Human-readable read-outs (TPR at FPRs, advantage, Bayes success, reconstruction,
    GDP summary) for a report or the command line, one line each, at the given FPRs,
    prior and baseline reconstruction successes.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions import risk_lines
    >>> risk_lines(fdp.Gaussian(1.0))[0].startswith("attacker TPR at FPR 0.001")
    True
    """
    f = _tradeoff(f)
    lines: list[str] = []
    d = one_direction(f)
    if d is not None:
        lines.append(f"note: f describes one direction ({d}) only; read on both orders")
    t = tpr_at_fpr(f, np.asarray(fprs, dtype=float))
    for fpr, lo, hi in zip(fprs, np.atleast_1d(t.lo), np.atleast_1d(t.hi)):
        lines.append(f"attacker TPR at FPR {fpr:g}: ≤ {hi:.6g}  (bracket [{lo:.6g}, {hi:.6g}])")
    adv = advantage_bounds(f)
    lines.append(f"advantage (TPR − FPR, max): ≤ {adv.hi:.6g}  "
                 f"(bracket [{adv.lo:.6g}, {adv.hi:.6g}])")
    s = attack_success(f, prior)
    lines.append(f"membership success, prior {prior:g}: ≤ {s.hi:.6g}  "
                 f"(bracket [{s.lo:.6g}, {s.hi:.6g}]; baseline {max(prior, 1 - prior):g})")
    for k in kappas:
        r = reconstruction_bound(f, k)
        lines.append(f"reconstruction success, baseline {k:g}: ≤ {r.hi:.6g}")
    lines.append("GDP: " + gdp_fit(f).summary())
    return lines
