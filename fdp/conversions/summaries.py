"""One-number summaries of a trade-off function, proven or rounded to the safe side.

Two questions, never to be confused (their names say which):

* ``f.gdp_mu()``: the smallest μ with f ≥ G_μ,
  "the curve f is μ-GDP". ``f.pure_epsilon()``: the smallest ε with f ≥ f_{ε,0}.
  Both are properties of a curve; the answer is the upper end of a certified
  bracket (``gdp_mu_bounds``, ``pure_epsilon_bounds``), inf when nothing finite is
  proven.
* ``fdp.gdp_mu_for_eps_delta(eps, delta)``: the LARGEST μ
  whose μ-GDP implies (ε, δ)-DP -- a conversion of a target, in the other direction.

The derivation: docs/derivations/summaries.md.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from scipy.special import expit, ndtri

from fdp import _validate
from fdp._constants import EPS_CAP, UNIT_ROUNDOFF
from fdp._lazy import LazyModule
from fdp._numerics import ArrayFn, bisect_monotone
from fdp._types import ArrayLike, FloatArray
from fdp.families.eps_delta import EpsDelta
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.families.laplace import Laplace
from fdp.families.piecewise import PiecewiseLinear
from fdp.tradeoff import TradeOff

engine = LazyModule("fdp.engine")   # certified_singular; the engine loads on first use

#: A requirement: the least parameter proven at points x with lower values y and
#: gains 1 − y (vectorised; see ``_req_mu``).
Requirement = Callable[[FloatArray, FloatArray, FloatArray], FloatArray]

# logit(α) grid of the sandwich; α = 0 and α = 1 are added as exact ends.
_GRID_U = np.linspace(-690.0, 36.7, 2001)
# Supporting lines tried on every cell (a certified profile is needed).
_END_EPS = np.array([0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 700.0])


def _round_up(x: float) -> float:
    return float(np.nextafter(np.nextafter(x, np.inf), np.inf)) if np.isfinite(x) else x


def _round_down(x: float) -> float:
    return float(np.nextafter(np.nextafter(x, -np.inf), -np.inf)) if np.isfinite(x) else x


def _z_upper(alpha: ArrayLike) -> FloatArray:
    """Φ⁻¹(1 − α) without forming 1 − α for small α."""
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(a < 0.5, -ndtri(a), ndtri(1.0 - a))


def exact_piecewise_linear(f: TradeOff) -> PiecewiseLinear | None:
    if isinstance(f, PiecewiseLinear):
        return f
    if f.is_exact:
        pair = f._pair()
        if pair is not None:
            return pair
    return None


# ----------------------------------------------------------------------
# Requirements at one point: the least parameter for which the target g_θ lies
# below a lower value y (gain 1 − y) of f at α = x. Vectorised.
# ----------------------------------------------------------------------
def _ndtri_y(y: FloatArray, gain: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y < 0.5, ndtri(np.clip(y, 0.0, 1.0)), -ndtri(np.clip(gain, 0.0, 1.0)))


def _req_mu(x: FloatArray, y: FloatArray, gain: FloatArray) -> FloatArray:
    """Least μ with G_μ(x) ≤ y: Φ⁻¹(1 − x) − Φ⁻¹(y) (−inf if none needed, inf if none works)."""
    with np.errstate(invalid="ignore"):
        r = _z_upper(x) - _ndtri_y(y, gain)
    r = np.where(np.isnan(r), np.where((gain <= 0.0) | (x >= 1.0), -np.inf, np.inf), r)
    r = np.where(x >= 1.0, np.where(y >= 0.0, -np.inf, np.inf), r)
    r = np.where((x <= 0.0), np.where(gain <= 0.0, -np.inf, np.inf), r)
    return np.where((y <= 0.0) & (x < 1.0), np.inf, r)


def _vertex_mu_slack(a: FloatArray, b: FloatArray, g: FloatArray) -> FloatArray:
    """How far a computed vertex requirement Φ⁻¹(1 − α_i) − Φ⁻¹(β_i) can be from the real
    one (docs/derivations/summaries.md)."""
    r = (a.size + 8) * UNIT_ROUNDOFF
    za = _z_upper(a)
    zb = _ndtri_y(b, g)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        phi_a = np.exp(-0.5 * za * za) / np.sqrt(2.0 * np.pi)
        phi_b = np.exp(-0.5 * zb * zb) / np.sqrt(2.0 * np.pi)
        slack = (r * np.minimum(a, 1.0) / phi_a + r * np.minimum(b, g) / phi_b
                 + 4.0 * UNIT_ROUNDOFF * (np.abs(za) + np.abs(zb)))
    live = (a > 0.0) & (a < 1.0) & (b > 0.0) & (g > 0.0)
    return np.where(live, np.where(np.isfinite(slack), slack, np.inf), 0.0)


def _req_eps(x: FloatArray, y: FloatArray, gain: FloatArray) -> FloatArray:
    """Least ε ≥ 0 with f_{ε,0}(x) = max{0, 1 − e^ε x, e^{−ε}(1 − x)} ≤ y."""
    with np.errstate(divide="ignore", invalid="ignore"):
        steep = np.where(gain <= 0.0, -np.inf,
                         np.where(x <= 0.0, np.inf, np.log(gain) - np.log(x)))
        flat = np.where(x >= 1.0, -np.inf,
                        np.where(y <= 0.0, np.inf, np.log1p(-x) - np.log(y)))
    return np.where(y < 0.0, np.inf, np.maximum(steep, flat))


class _Sandwich:
    """Certified piecewise-linear lower bounds of a convex f on the cells of a grid."""

    def __init__(self, f: TradeOff, alphas: FloatArray) -> None:
        self.f = f
        a = alphas
        self.a = a
        self.y = np.asarray(f._beta(a), dtype=float)
        self.certified = f._has_certified_delta()

    def _lines(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Candidate lower-bound lines per cell: arrays (x0, y0, g0, e) of shape (cells, k)."""
        a, y = self.a, self.y
        m = a.size - 1                      # cells 0..m−1
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            sl = -np.diff(y) / np.diff(a)   # e ≥ 0 (minus the slope) of each chord
        x0s: list[FloatArray] = []
        y0s: list[FloatArray] = []
        es: list[FloatArray] = []
        # secant of the previous chord, extended to the right
        x0s.append(np.concatenate([[np.nan], a[1:m]]))
        y0s.append(np.concatenate([[np.nan], y[1:m]]))
        es.append(np.concatenate([[np.nan], sl[:m - 1]]))
        # secant of the next chord, extended to the left
        x0s.append(np.concatenate([a[1:m], [np.nan]]))
        y0s.append(np.concatenate([y[1:m], [np.nan]]))
        es.append(np.concatenate([sl[1:], [np.nan]]))
        # monotone: f ≥ f(a_{i+1}) on the cell
        x0s.append(a[1:])
        y0s.append(y[1:])
        es.append(np.zeros(m))
        g0s = [1.0 - yy for yy in y0s]
        if self.certified:
            with np.errstate(divide="ignore", invalid="ignore"):
                eps_cell = np.log(sl)
            eps_cell = np.where(np.isfinite(eps_cell), eps_cell, np.nan)
            fixed = np.concatenate([_END_EPS, -_END_EPS])
            c_fixed = np.asarray(self.f._delta(fixed), dtype=float)
            for j, extra in enumerate((None, *fixed)):
                if extra is None:
                    ee = eps_cell
                    ok = np.isfinite(ee)
                    c = np.full(m, np.nan)
                    if ok.any():
                        c[ok] = self.f._delta(ee[ok])
                else:
                    # every cell: where evaluated values are rounding noise (a closed
                    # form widened by its rounding, near α = 0 or 1) these lines, with
                    # their gain δ + e^ε α formed without cancellation, still prove
                    ee = np.full(m, extra)
                    c = np.full(m, c_fixed[j - 1])
                x0s.append(np.zeros(m))
                y0s.append(1.0 - c)
                g0s.append(c)
                with np.errstate(over="ignore"):
                    es.append(np.exp(ee))
        return (np.stack(x0s, 1), np.stack(y0s, 1), np.stack(g0s, 1), np.stack(es, 1))

    def cell_requirements(self, req: Requirement) -> FloatArray:
        """Per cell, the least parameter proven by one line or by the max of two lines."""
        x0, y0, g0, e = self._lines()
        lo, hi = self.a[:-1, None], self.a[1:, None]

        def value(x: FloatArray) -> tuple[FloatArray, FloatArray]:
            d = x - x0
            with np.errstate(invalid="ignore", over="ignore"):
                t = e * d
                return y0 - t, g0 + t

        def at(x: FloatArray) -> FloatArray:
            yv, gv = value(x)
            r = req(np.broadcast_to(x, yv.shape), yv, gv)
            return np.where(np.isnan(yv) | np.isnan(gv), np.inf, r)

        r_lo, r_hi = at(lo), at(hi)
        single = np.maximum(r_lo, r_hi)
        best = np.min(single, axis=1)
        # max of the two secants (columns 0 and 1): check at their crossing point too
        with np.errstate(divide="ignore", invalid="ignore"):
            w = ((y0[:, 0] - y0[:, 1] + e[:, 0] * x0[:, 0] - e[:, 1] * x0[:, 1])
                 / (e[:, 0] - e[:, 1]))
        w = np.where(np.isfinite(w), np.clip(w, lo[:, 0], hi[:, 0]), lo[:, 0])
        yv, gv = value(w[:, None])
        top = np.argmax(np.where(np.isnan(yv[:, :2]), -np.inf, yv[:, :2]), axis=1)
        rows = np.arange(w.size)
        r_w = req(w, yv[rows, top], gv[rows, top])
        pair = np.maximum(np.maximum(_pair_end(r_lo), _pair_end(r_hi)), r_w)
        pair = np.where(np.isnan(yv[:, 0]) | np.isnan(yv[:, 1]), np.inf, pair)
        return np.minimum(best, pair)


def _pair_end(r: FloatArray) -> FloatArray:
    """At a cell end the max of the two secants is at least either: the smaller need."""
    return np.minimum(r[:, 0], r[:, 1])


_GRID_A = np.linspace(0.0, 1.0, 2001)


def _grid(u: FloatArray) -> FloatArray:
    """logit-spaced points (the tails) and uniform points (the middle), plus 0 and 1."""
    return np.unique(np.concatenate([[0.0, 1.0], expit(u), _GRID_A]))


def _sandwich_bounds(f: TradeOff, req: Requirement, rounds: int = 6,
                     split: int = 8) -> tuple[float, float]:
    """(lo, hi) of sup over α of the requirement, hi proven by the sandwich."""
    a = _grid(_GRID_U)
    for r in range(rounds + 1):
        sw = _Sandwich(f, a)
        cells = sw.cell_requirements(req)
        lower = _pointwise_lower(f, a, req)
        hi = float(np.max(cells))
        if (not np.isfinite(lower) or hi - lower <= 1e-9 * max(1.0, abs(hi))
                or r == rounds):
            break
        hot = np.flatnonzero(cells > lower + 1e-10 * max(1.0, abs(hi)))
        if hot.size == 0 or hot.size * split > 50_000:
            break
        t = np.linspace(0.0, 1.0, split + 1)[1:-1]
        new = (a[hot, None] + (a[hot + 1, None] - a[hot, None]) * t[None, :]).ravel()
        a = np.unique(np.concatenate([a, new]))
    # ``lower`` (a value the truth is near) steered the refinement; the margin is for
    # the bracket only
    return max(_below_rounding(lower), 0.0), max(hi, 0.0)


# Where pointwise needs are read, and their rounding margin (docs/derivations/summaries.md).
_RESOLVED = 1e-6
_NEED_MARGIN = 1e-6


def _pointwise_lower(f: TradeOff, a: FloatArray, req: Requirement) -> float:
    """sup_α req(α, f(α)) over the resolved points of the upper curve, up to rounding
    (``_below_rounding`` makes it a certified lower end)."""
    a = np.asarray(a, dtype=float)
    up = np.asarray(f._upper(a), dtype=float)
    gain = 1.0 - up
    ok = (up >= _RESOLVED) & (gain >= _RESOLVED)
    if not ok.any():
        return -np.inf
    return float(np.max(req(a[ok], up[ok], gain[ok])))


def _below_rounding(need: float) -> float:
    """A need read from rounded values, lowered by ``_NEED_MARGIN``: a certified lower end."""
    if not np.isfinite(need):
        return need
    return need - _NEED_MARGIN * max(1.0, abs(need))


def gdp_mu_bounds(f: TradeOff) -> tuple[float, float]:
    """(lo, hi) with lo ≤ μ* = inf{μ : f ≥ G_μ} ≤ hi (the generic ``_gdp_mu_bounds``).

    Piecewise-linear f: exact at the vertices; an exact law with mass at L = ±∞: inf
    (``fdp.engine.summaries.certified_singular``); other f: the sandwich.
    Derivation: docs/derivations/summaries.md.
    """
    pl = exact_piecewise_linear(f)
    if pl is not None:
        a, b, g = pl.alphas, pl.betas, pl.gains
        mu = _req_mu(a, b, g)
        slack = _vertex_mu_slack(a, b, g)
        return (max(_round_down(float(np.max(mu - slack))), 0.0),
                max(_round_up(float(np.max(mu + slack))), 0.0))
    if engine.certified_singular(f):
        return np.inf, np.inf
    lo, hi = _sandwich_bounds(f, _req_mu)
    return _round_down(lo), _round_up(hi)


def pure_epsilon_bounds(f: TradeOff) -> tuple[float, float]:
    """(lo, hi) with lo ≤ ε* = inf{ε : f ≥ f_{ε,0}} ≤ hi (the generic ``_pure_epsilon_bounds``).

    A pointwise statement about f (for asymmetric f it can exceed
    ``tightest_eps_delta(f, delta=0)``). Piecewise-linear f: exact at the vertices; an
    exact law with mass at L = ±∞: inf; an envelope: the max of its members' ε*; a
    certified privacy profile: bisection on δ_f(ε) = 0 and δ_f(−ε) ≤ 1 − e^{−ε}; other
    f: the sandwich. Derivation: docs/derivations/summaries.md.
    """
    pl = exact_piecewise_linear(f)
    if pl is not None:
        a, b, g = pl.alphas, pl.betas, pl.gains
        eps = max(float(np.max(_req_eps(a, b, g))), 0.0)
        return _round_down(eps), _round_up(eps)
    if engine.certified_singular(f):
        return np.inf, np.inf
    members = f._delta_members()
    if members:
        brackets = [m._pure_epsilon_bounds() for m in members]
        return (max(float(lo) for lo, _ in brackets), max(float(hi) for _, hi in brackets))
    if f._has_certified_delta():
        sym = bool(f.symmetric)
        return (_profile_pure_eps(f._delta_lower, upper=False, symmetric=sym),
                _profile_pure_eps(f._delta, upper=True, symmetric=sym))
    lo, hi = _sandwich_bounds(f, _req_eps)
    return _round_down(lo), _round_up(hi)


def _profile_pure_eps(delta_fn: ArrayFn, *, upper: bool, symmetric: bool = False) -> float:
    """Bisect ε on "δ(ε) = 0 and δ(−ε) ≤ 1 − e^{−ε}" (the second dropped for symmetric f;
    docs/derivations/summaries.md)."""
    def holds(eps: ArrayLike) -> npt.NDArray[np.bool_]:
        e = np.atleast_1d(np.asarray(eps, dtype=float))
        d_pos = delta_fn(e)
        if symmetric:
            return d_pos <= 0.0
        d_neg = delta_fn(-e)
        return (d_pos <= 0.0) & (d_neg <= -np.expm1(-e))

    if holds(0.0)[0]:
        return 0.0
    hi = 1.0
    while not holds(hi)[0]:
        hi *= 2.0
        if hi > EPS_CAP:
            # not pure DP up to the cap: inf is the upper side; the lower side is the
            # last ε checked (a lower bound may not claim more than was checked)
            return np.inf if upper else float(hi / 2.0)
    lo_end, hi_end = bisect_monotone(holds, 0.0, hi)
    return float(hi_end) if upper else float(lo_end)


def prove_dominates(f: TradeOff, g: TradeOff, tol: float = 0.0) -> bool:
    """True only when f(α) ≥ g(α) − tol is proven for every α (see ``TradeOff.dominates``)."""
    if isinstance(f, Identity):
        return True                          # Id ≥ every trade-off function
    same_family = type(f) is type(g)
    if same_family and isinstance(f, (Gaussian, Laplace)) and isinstance(g, (Gaussian, Laplace)):
        return f.mu <= g.mu
    if type(f) is EpsDelta and type(g) is EpsDelta:
        return f.eps <= g.eps and f.delta <= g.delta
    if _bounded_loss_refutes(f, g):
        return False
    # g = h ⊗ f_{0,d} lies below h (composition only weakens), so f ≥ h proves f ≥ g.
    base = getattr(g, "base", None)
    if isinstance(base, TradeOff) and hasattr(g, "d") and prove_dominates(f, base, tol):
        return True
    # One-number certificates, when f has them (closed forms; numeric results from
    # their bracket): f ≥ G_{μ_f} ≥ G_μ, and f ≥ f_{ε_f,0} ≥ f_{ε,0}.
    if isinstance(g, Gaussian) and f._gdp_mu_bounds()[1] <= g.mu:
        return True
    if type(g) is EpsDelta and float(g.delta) == 0.0 and f._pure_epsilon_bounds()[1] <= g.eps:
        return True
    if f._has_certified_delta():
        lines = _supporting_lines(g)
        if lines is not None:
            eps, c = lines
            bound = c + tol
            with np.errstate(divide="ignore"):
                log_bound = np.log(np.maximum(bound, 0.0))
            # linear and log forms: an underflowed δ_f (> 0 in logs) never meets c = 0
            return bool(np.all((f._delta(eps) <= bound) & (f._log_delta(eps) <= log_bound)))
    req = _req_dominated_by(g, tol)
    _, hi = _sandwich_bounds(f, req, rounds=3)
    return hi <= 0.0


_REFUTE_EPS = np.array([0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 700.0])


def _bounded_loss_refutes(f: TradeOff, g: TradeOff) -> bool:
    """f ≥ g is false where δ_g(ε) = 0 exactly but log δ_f(ε) > −inf (f ≥ g needs
    δ_f ≤ δ_g; docs/derivations/summaries.md)."""
    if not (g.is_exact and g._has_certified_delta() and f.is_exact and f._has_certified_delta()):
        return False
    dg = g._delta(_REFUTE_EPS)
    if not np.any(dg == 0.0):
        return False
    return bool(np.any((dg == 0.0) & (f._log_delta(_REFUTE_EPS) > -np.inf)))


def _supporting_lines(g: TradeOff) -> tuple[FloatArray, FloatArray] | None:
    """(ε_j, c_j) with g = max{0, max_j (1 − c_j − e^{ε_j} α)} for a piecewise-linear g.

    Then f ≥ g ⇔ δ_f(ε_j) ≤ c_j for every j (DRS Prop 2.12). None when g is not
    piecewise linear or has a flat piece above 0 (docs/derivations/summaries.md).
    """
    if isinstance(g, Identity):
        return np.array([0.0]), np.array([0.0])
    if type(g) is EpsDelta:
        e, d = g.eps, float(g.delta)
        return np.array([e, -e]), np.array([d, -np.expm1(-e) + np.exp(-e) * d])
    pl = exact_piecewise_linear(g)
    if pl is None:
        return None
    a, b, gain = pl.alphas, pl.betas, pl.gains
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slope = -np.diff(b) / np.diff(a)
    if not np.all(np.isfinite(slope)):
        return None          # a segment steeper than doubles hold: use the sandwich
    steep = slope > 0
    if np.any(~steep & (b[:-1] > 0)):
        return None
    with np.errstate(divide="ignore"):
        eps = np.log(slope[steep])
    c = gain[:-1][steep] - np.exp(eps) * a[:-1][steep]
    return eps, c


def _req_dominated_by(g: TradeOff, tol: float) -> Requirement:
    """A requirement ≤ 0 iff g's upper value at x is ≤ y + tol (proof of f ≥ g − tol)."""
    def req(x: FloatArray, y: FloatArray, gain: FloatArray) -> FloatArray:
        gx = np.asarray(g._upper(np.clip(np.asarray(x, dtype=float), 0.0, 1.0)), dtype=float)
        return np.where(gx <= y + tol, 0.0, np.inf)
    return req


def gdp_mu_of(f: TradeOff) -> float:
    """Smallest μ with f ≥ G_μ, safe side: the upper end of f's own bracket hook."""
    return float(f._gdp_mu_bounds()[1])


def pure_epsilon_of(f: TradeOff) -> float:
    """Smallest ε with f ≥ f_{ε,0}, safe side: the upper end of f's own bracket hook."""
    return float(f._pure_epsilon_bounds()[1])


def tightest_eps_delta(f: TradeOff, eps: float | None = None, delta: float | None = None, *,
                       digits: int | None = None) -> tuple[float, float]:
    """Fix one of ε, δ and return the tightest (ε, δ) pair that f implies.

    eps given: (eps, δ_f(eps)); delta given: (ε_f(delta), delta) (exactly one). For
    numeric f the certified upper side is used. (ε, δ_f(ε))-DP follows from δ_f alone
    (DRS Prop 2.12), also for asymmetric f. ``digits``: round the computed number UP to
    that many significant digits (the safe side), e.g. for a report.

    Examples
    --------
    >>> import fdp
    >>> fdp.tightest_eps_delta(fdp.Gaussian(1.0), delta=1e-5, digits=3)
    (4.38, 1e-05)
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
    # in exact decimal arithmetic (a float power of ten overflows for subnormal x or
    # many digits), then to the nearest double, moved up if that fell below
    exact = decimal.Decimal(x)
    with decimal.localcontext() as ctx:
        ctx.prec = digits + 30
        quantum = decimal.Decimal(1).scaleb(exact.adjusted() - (digits - 1))
        up = float(exact.quantize(quantum, rounding=decimal.ROUND_CEILING))
    return up if up >= x else float(np.nextafter(up, np.inf))
