"""Composition f ⊗ g = T(P × P', Q × Q') (DRS Def 3.1, MATH.md §4): the rule table.

Every composition goes through ``compose``. Factors are first flattened and equal
factors counted; ``_classify`` gives each its kind (building an exact pair at most
once), and the table ``_RULES`` maps each kind to its reducer:

    Identity, f_{0,0}   neutral, dropped                         (DRS Prop 3.2)
    Gaussian            G_a ⊗ G_b = G_√(a²+b²), closed           (DRS Cor 3.3)
    EpsDelta^n          binomial form of f_{ε,δ}^{⊗n}, exact    (KOV Thm 3.3)
    exact finite pair   product pair, equal losses merged, exact (DRS Def 3.1);
                        past MAX_ATOMS atoms (TooManyAtoms) to the engine
    g ⊗ f_{0,δ}         (1−δ) g(α/(1−δ)), closed                  (MATH.md §4)
    anything else       the numeric engine, certified bracket     (fdp.engine)

The δ part of a pair (equal masses at losses ±inf) is split off exactly, so that
for example G_μ ⊗ f_{ε,δ} runs G_μ ⊗ f_{ε,0} through the engine and adds δ exactly.

Closed forms stay closed; the numeric engine is the fallback, used only when two
kinds with no common closed form meet (for example Gaussian with Laplace).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from fdp import _validate
from fdp.families.eps_delta import EpsDelta
from fdp.families.finite_pair import FinitePair, TooManyAtoms
from fdp.families.finite_pair import power as pair_power
from fdp.families.finite_pair import product as pair_product
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.law import split_delta
from fdp.operations.with_delta import WithDelta
from fdp.tradeoff import TradeOff, count_factors


def eps_delta_power(f: EpsDelta, n: int) -> FinitePair:
    """f_{ε,δ}^{⊗n} exactly (MATH.md §4, equivalent to KOV Thm 3.3).

    f_{ε,δ} = f_{ε,0} ⊗ f_{0,δ}. The n-fold f_{ε,0} is the pair of Binomial(n, q) and
    Binomial(n, 1 − q) counts of the loss +ε, q = 1/(1 + e^ε): loss (2j − n)ε with
    P-mass Bin(j; n, q), Q-mass Bin(j; n, 1 − q). The δ part composes to
    f_{0, 1 − (1 − δ)^n}, an atom of loss +inf (Q-mass δ_n) and one of −inf (P-mass δ_n).
    The binomial masses come from ``log_binom_pmf`` (log space, any ε).
    """
    eps, delta = f.eps, float(f.delta)
    j = np.arange(n + 1)
    log_q = -np.logaddexp(0.0, eps)             # q = 1/(1 + e^ε), 1 − q = e^ε/(1 + e^ε)
    log_1mq = -np.logaddexp(0.0, -eps)
    p_mass = np.exp(log_binom_pmf(j, n, log_q, log_1mq))
    q_mass = p_mass[::-1].copy()                # Bin(j; n, 1 − q) = Bin(n − j; n, q)
    L = (2.0 * j - n) * eps
    d_n = -np.expm1(n * np.log1p(-delta)) if delta < 1.0 else 1.0
    keep = 1.0 - d_n
    return FinitePair.from_atoms(
        np.concatenate([[np.inf], L, [-np.inf]]),
        np.concatenate([[0.0], keep * p_mass, [d_n]]),
        np.concatenate([[d_n], keep * q_mass, [0.0]]))


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """log n! − [(n + ½) log n − n + ½ log 2π] (Loader 2000), accurate for every n ≥ 1."""
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        small = gammaln(n + 1.0) - (n + 0.5) * np.log(n) + n - 0.5 * np.log(2.0 * np.pi)
        n2 = n * n
        series = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * n2)) / n2) / n2) / n2) / n
    return np.where(n > 15.0, series, small)


def _bd0(x: np.ndarray, log_m: np.ndarray) -> np.ndarray:
    """x log(x/m) + m − x ≥ 0 without cancellation near x = m (Loader 2000), m = e^{log_m}."""
    x = np.asarray(x, dtype=float)
    m = np.exp(log_m)
    near = np.abs(x - m) < 0.1 * (x + m)
    with np.errstate(divide="ignore", invalid="ignore"):
        far = x * (np.log(x) - log_m) + m - x
        v = (x - m) / (x + m)
        s = (x - m) * v
        ej = 2.0 * x * v
        v2 = v * v
        for i in range(1, 40):
            ej = ej * v2
            s = s + ej / (2 * i + 1)
    return np.where(near, s, far)


def log_binom_pmf(j: np.ndarray, n: int, log_p: float, log_1mp: float) -> np.ndarray:
    """log Bin(j; n, p) with p = e^{log_p}, 1 − p = e^{log_1mp}, to full relative precision
    of the mass (Loader 2000, "Fast and accurate computation of binomial probabilities":
    Stirling remainders and a deviance term bd0 that does not cancel near the mode);
    tails far below the smallest double stay finite logarithms."""
    j = np.asarray(j, dtype=float)
    k = n - j
    inner = (j > 0) & (k > 0)
    jj, kk = np.where(inner, j, 1.0), np.where(inner, k, 1.0)
    lc = (_stirlerr(n) - _stirlerr(jj) - _stirlerr(kk)
          - _bd0(jj, np.log(n) + log_p) - _bd0(kk, np.log(n) + log_1mp))
    lf = np.log(2.0 * np.pi) + np.log(jj) + np.log(kk) - np.log(n)
    return np.where(inner, lc - 0.5 * lf, np.where(j == 0, n * log_1mp, n * log_p))


# ----------------------------------------------------------------------
# The rule table. ``_classify`` gives each factor its kind and the object its
# reducer needs (for "pair": the exact pair, built once); ``_RULES`` maps a kind to
# the reducer of [(payload, count), ...] -> one TradeOff, in the order applied.
# ----------------------------------------------------------------------
def _gaussians(items):
    return Gaussian(float(np.sqrt(sum(n * g.mu ** 2 for g, n in items))))


def _pairs(items):
    parts = [eps_delta_power(f, n) if isinstance(f, EpsDelta) else pair_power(f, n)
             for f, n in items]
    parts.sort(key=lambda pr: pr.p.size)
    out = parts[0]
    for part in parts[1:]:
        out = pair_product(out, part)
    return out


_RULES = {"gaussian": _gaussians, "pair": _pairs}


def _classify(f: TradeOff) -> tuple[str, object]:
    """(kind, payload): "neutral", "gaussian", "pair" (EpsDelta or its exact pair), "numeric"."""
    if isinstance(f, Identity):
        return "neutral", None
    if isinstance(f, Gaussian):
        return "gaussian", f
    if isinstance(f, EpsDelta):
        if f.eps == 0.0 and f.delta == 0.0:
            return "neutral", None            # f_{0,0} = Id
        return "pair", f                      # the binomial form needs no pair
    pair = f._pair()
    if pair is None:
        return "numeric", f
    if np.array_equal(pair.p, pair.q):
        return "neutral", None                # P = Q: T(P, P) = Id
    return "pair", pair


def compose(*fs: TradeOff, tol: float | None = None) -> TradeOff:
    """f_1 ⊗ f_2 ⊗ … (DRS Def 3.1); adaptive composition of f_i-DP mechanisms is ⊗f_i-DP.

    Closed forms are kept (see the module table); anything else is composed by
    the numeric engine and returned with a certified bracket. ``tol`` (default
    ``fdp.engine.DEFAULT_TOL`` = 1e-4) sets the engine's grid accuracy; it is a
    target, not a guarantee: ε brackets typically come out 3–10 × tol wide, and the
    bracket itself (``bounds``, ``epsilon_bounds``) is what is certified. Unused for
    closed forms.
    """
    if len(fs) == 1 and isinstance(fs[0], (list, tuple)):
        fs = tuple(fs[0])
    if not fs:
        raise ValueError("compose needs at least one trade-off function")
    for f in fs:
        if not isinstance(f, TradeOff):
            raise TypeError(f"compose takes TradeOff objects, got {type(f).__name__}")
        if getattr(f, "is_guarantee", True) is False:      # e.g. the shuffle LOWER curve
            raise TypeError(f"cannot compose {f!r}: it is a LOWER bound, not a guarantee")
    if tol is not None:
        _validate.real("tol", tol, low=0.0, low_open=True)
    return _compose_counted(count_factors(fs), tol)


def _compose_counted(items, tol):
    by_kind: dict[str, list] = {}
    for f, n in items:
        kind, payload = _classify(f)
        by_kind.setdefault(kind, []).append((f, payload, n))
    by_kind.pop("neutral", None)
    reduced: list[tuple[TradeOff, int]] = []
    for kind, reducer in _RULES.items():
        group = by_kind.pop(kind, [])
        if not group:
            continue
        try:
            reduced.append((reducer([(payload, n) for _, payload, n in group]), 1))
        except TooManyAtoms:
            reduced.extend((f, n) for f, _, n in group)   # too large for the exact route
    reduced.extend((f, n) for f, _, n in by_kind.pop("numeric", []))
    if not reduced:
        return Identity()
    if len(reduced) == 1 and reduced[0][1] == 1:
        return reduced[0][0]
    reduced, delta = _split_delta(reduced)
    if delta > 0.0:
        return WithDelta(_compose_counted(reduced, tol), delta)
    from fdp.engine import compose_numeric
    return compose_numeric(reduced, tol)


def _split_delta(items):
    """Write an exact pair as pair₀ ⊗ f_{0,δ} when its +inf Q-mass equals its −inf
    P-mass (δ): pair₀ keeps the finite atoms scaled by 1/(1 − δ). Exact, since the
    product of pair₀ with the pair of f_{0,δ} gives back every atom."""
    out, delta = [], 0.0
    for f, n in items:
        if n == 1 and isinstance(f, FinitePair):
            law = f.law()
            up = split_delta(*law.singular_masses(), rtol=1e-15, atol=1e-300)
            if up is not None and 0.0 < up < 1.0:
                g = law.without_delta(up)
                f = FinitePair.from_atoms(g.L, g.p, g.q)
                delta = up + delta - up * delta  # 1 − (1 − δ)(1 − up)
                if np.allclose(f.log_ratio, 0.0):
                    continue  # the pair was f_{0,δ} itself
        out.append((f, n))
    return out, delta


def power(f: TradeOff, n: int) -> TradeOff:
    """f^{⊗n}; n = 0 gives Id. Negative or non-integer n is refused."""
    if isinstance(n, bool) or (not isinstance(n, (int, np.integer)) and not (
            isinstance(n, float) and n.is_integer())):
        raise ValueError(f"power n must be a non-negative integer, got {n!r}")
    n = int(n)
    if n < 0:
        raise ValueError(f"power n must be a non-negative integer, got {n}")
    if n == 0:
        return Identity()
    return _compose_counted([(f, n)], None)
