"""One-number summaries of a trade-off function, rounded to the safe side.

gdp_mu:  smallest μ with f ≥ G_μ.
pure_epsilon: smallest ε with f ≥ f_{ε,0}.
tightest_eps_delta: fix ε or δ, report the other from f's privacy profile.
For numeric (bracketed) f the certified lower side of f is used throughout.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, ndtri

from fdp import _validate
from fdp.families.piecewise import PiecewiseLinear
from fdp.tradeoff import TradeOff

# logit(α) grid up to α = 1 − 1e-12: closer to 1, doubles space α by 1.1e-16 and the
# cells of the sandwich below cannot be made narrow.
_GRID_U = np.linspace(-690.0, 27.6, 4001)


def _z_upper(alpha):
    """Φ⁻¹(1 − α) without forming 1 − α for small α."""
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))


def _round_up(x: float) -> float:
    return float(np.nextafter(np.nextafter(x, np.inf), np.inf)) if np.isfinite(x) else x


def gdp_mu_of(f: TradeOff) -> float:
    """Smallest μ with f ≥ G_μ.

    Piecewise-linear f (points, finite pairs): exact, because a convex G_μ lies below
    a piecewise-linear f iff it does at f's vertices: μ = max_i Φ⁻¹(1−α_i) − Φ⁻¹(β_i).
    Other f: on a grid α_0 < α_1 < … (logit-spaced, refined where it binds),
    G_μ(α_i) ≤ f(α_{i+1}) for all i implies G_μ ≤ f on [α_0, 1] since both are
    non-increasing; the smallest such μ is returned (≥ the true value on [α_0, 1]).
    See ``_sandwich_mu`` for α_0.
    """
    pair = f._pair()
    if pair is not None:
        f = pair
    if isinstance(f, PiecewiseLinear):
        a, b = f.alphas, f.betas
        if b[0] < 1.0 or np.any((b == 0.0) & (a < 1.0)):
            return np.inf
        inner = (a > 0) & (a < 1)
        with np.errstate(divide="ignore"):
            mu = np.max(_z_upper(a[inner]) - ndtri(b[inner]), initial=0.0)
        return _round_up(max(mu, 0.0))
    return _round_up(_sandwich_mu(f))


def _sandwich_mu(f: TradeOff, rounds: int = 10, split: int = 16) -> float:
    """Certified μ by the monotone sandwich, refined where the sandwich may bind.

    On a cell [a_i, a_{i+1}] the bound μ_i = Φ⁻¹(1 − a_i) − Φ⁻¹(f(a_{i+1})) is valid.
    Cells whose bound exceeds the best pointwise value max_j Φ⁻¹(1 − a_j) − Φ⁻¹(f(a_j))
    (a lower estimate of the truth) are split ``split`` ways, ``rounds`` times; the
    maximum over cells stays a valid upper bound throughout and tightens.

    Cells where f(a_{i+1}) > 1 − 1e-9 are left out: there 1 − f is below the
    resolution of a double near 1 and Φ⁻¹(f) is noise. The certificate therefore
    covers α_0 ≤ α ≤ 1 − 1e-12 with f(α_0) = 1 − 1e-9 (for G_μ-like f, α_0 ≈ 1e-10
    or less): outside, doubles cannot resolve the comparison.
    """
    u_lo, u_hi = _GRID_U[:-1], _GRID_U[1:]
    best_point = 0.0
    bound = np.inf
    for r in range(rounds + 1):
        a_lo, a_hi = expit(u_lo), expit(u_hi)
        b_hi = f._beta(a_hi)
        if np.any(b_hi <= 0.0):
            return np.inf
        resolved = b_hi <= 1.0 - 1e-9
        with np.errstate(divide="ignore"):
            cell = np.where(resolved, _z_upper(a_lo) - ndtri(b_hi), -np.inf)
            point = np.where(resolved, _z_upper(a_hi) - ndtri(b_hi), -np.inf)
        best_point = max(best_point, float(np.max(point)))
        bound = float(np.max(cell))
        if r == rounds or bound - best_point <= 1e-12 * max(1.0, bound):
            break
        hot = cell > best_point + 1e-10 * max(1.0, bound)
        if not hot.any() or hot.sum() * split > 100_000:
            break  # the current bound is valid; refining further would cost too much
        # Split the cells that may still bind; the others are settled below best_point.
        t = np.linspace(0.0, 1.0, split + 1)
        sub = u_lo[hot, None] + (u_hi[hot, None] - u_lo[hot, None]) * t[None, :]
        u_lo, u_hi = sub[:, :-1].ravel(), sub[:, 1:].ravel()
    return max(bound, 0.0)


def pure_epsilon_of(f: TradeOff) -> float:
    """Smallest ε with f ≥ f_{ε,0} = max{0, 1 − e^ε α, e^{−ε}(1 − α)} (inf if none).

    This is a pointwise statement about f (as in the R package fdp). For an
    asymmetric f it can exceed ``tightest_eps_delta(f, delta=0)``, which reads f as
    a guarantee for every ordered neighbouring pair and so needs only δ_f.
    Piecewise-linear f: exact, ε = max(log max_i (1 − β_i)/α_i, −log min_i β_i/(1 − α_i)).
    Other f: f ≥ f_{ε,0} ⇔ δ_f(ε) = 0 and δ_f(−ε) ≤ 1 − e^{−ε} (DRS Prop 2.12), found
    by bisection on ε with a bracket that doubles up to 2^12 (inf beyond).
    """
    pair = f._pair()
    if pair is not None:
        f = pair
    if isinstance(f, PiecewiseLinear):
        a, b, g = f.alphas, f.betas, f.gains
        if b[0] < 1.0:
            return np.inf
        pos, below1 = a > 0, a < 1
        with np.errstate(divide="ignore"):
            steep = np.log(np.max(g[pos] / a[pos]))
            flat = -np.log(np.min(b[below1] / (1.0 - a[below1])))
        return _round_up(max(steep, flat, 0.0))

    def holds(e: float) -> bool:
        ee = np.array([e, -e])
        d = f._delta(ee)
        return bool(d[0] <= 0.0 and d[1] <= -np.expm1(-e) + 1e-15)

    if holds(0.0):
        return 0.0
    hi = 1.0
    while not holds(hi):
        hi *= 2.0
        if hi > 4096:
            return np.inf
    lo = hi / 2.0 if hi > 1.0 else 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if holds(mid):
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-15 * hi:
            break
    return float(hi)


def tightest_eps_delta(f: TradeOff, eps=None, delta=None, *, digits: int | None = None):
    """Fix one of ε, δ and return the tightest (ε, δ) pair that f implies.

    eps given: (eps, δ_f(eps)); delta given: (ε_f(delta), delta). For numeric f the
    certified upper side is used. f-DP bounds T(M(S), M(S')) for every ordered pair
    of neighbours, so (ε, δ_f(ε))-DP follows from δ_f alone (DRS Prop 2.12), also
    for asymmetric f; ``pure_epsilon`` instead asks f ≥ f_{ε,0} pointwise. ``digits``: round the computed number UP to that
    many significant digits (the safe side), e.g. for a report.
    """
    if (eps is None) == (delta is None):
        raise ValueError("give exactly one of eps and delta")
    if eps is not None:
        e = _validate.real("eps", eps, allow_inf=True)
        return e, _ceil_sig(float(f.delta(e)), digits)
    d = _validate.probability("delta", delta)
    return _ceil_sig(float(f.epsilon(d)), digits), d


def _ceil_sig(x: float, digits: int | None) -> float:
    if digits is None or not np.isfinite(x) or x == 0.0:
        return x
    digits = _validate.positive_int("digits", digits)
    scale = 10.0 ** (digits - 1 - int(np.floor(np.log10(abs(x)))))
    up = np.ceil(x * scale) / scale
    return float(up if up >= x else np.nextafter(up, np.inf))
