"""The Rényi-to-trade-off conversion's numerics (see ``fdp.conversions.from_rdp``).

For each order λ the two-point Rényi inequalities (A), (B) of Balle et al. (2020,
Thm 5) admit a smallest β at a given α; ``_constraint_roots`` brackets it by
bisection on the bit patterns of doubles with the rounding of every constraint
evaluation allowed for, and ``_RenyiCurve`` (the base of ``RDPCurve`` and ``ZCDP``)
turns the bracket into a certified trade-off function with a certified privacy
profile. The derivation is docs/derivations/renyi-conversion.md.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from fdp._constants import TINY
from fdp._numerics import ArrayFn, bisect_monotone
from fdp._types import ArrayLike, FloatArray
from fdp.conversions.renyi_law import upper_law
from fdp.families.piecewise import lower_convex_hull
from fdp.law import AtomsLaw
from fdp.status import Status
from fdp.tradeoff import TradeOff

BoolArray = npt.NDArray[np.bool_]
#: The verdicts of a set of constraints at β: (certainly violated, certainly admissible).
Verdicts = Callable[[FloatArray], tuple[BoolArray, BoolArray]]

_U = 2.0 ** -53
_REL = 32.0 * _U


# ----------------------------------------------------------------------
# One constraint: the smallest admissible β, bracketed
# ----------------------------------------------------------------------
def _bisect_bits(test: Callable[[FloatArray], ArrayLike], lo: FloatArray, hi: FloatArray,
                 iters: int = 70) -> tuple[FloatArray, FloatArray]:
    """Bisection on the bit patterns of non-negative doubles (``bisect_monotone`` with
    ``bits=True``): ``test(x)`` True moves the lower end to x, False the upper end.
    Ends only move to tested points, so an invariant proved for the ends by ``test``
    holds whatever ``test`` does; 64 steps reach adjacent doubles."""
    return bisect_monotone(lambda x: ~np.asarray(test(x), dtype=bool), lo, hi,
                           rtol=0.0, atol=0.0, max_iter=iters, bits=True)


def _verdict_fn(a: FloatArray, lm: FloatArray, cc: FloatArray, rev: BoolArray) -> Verdicts:
    """The (certainly violated, certainly admissible) verdicts at β of the constraints
    (α, λ, c = (λ − 1) r, reverse) with finite λ > 1 (see ``_constraint_roots``)."""
    la, l1a = np.log(a), np.log1p(-a)

    sm = lm - 1.0
    with np.errstate(over="ignore"):
        ec = np.expm1(cc)                  # inf: the near form is not used

    def verdicts(beta: FloatArray) -> tuple[BoolArray, BoolArray]:
        """(certainly violated, certainly admissible) at β, from the log form and the
        near form (accurate as λ → 1) of docs/derivations/renyi-conversion.md,
        "Certification"; either may decide."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            lb, l1b = np.log(beta), np.log1p(-beta)
            x1 = np.where(rev, l1b, la)
            x2 = np.where(rev, la, l1b)
            y1 = np.where(rev, lb, l1a)
            y2 = np.where(rev, l1a, lb)
            u1, u2, v1, v2 = lm * x1, (1.0 - lm) * x2, lm * y1, (1.0 - lm) * y2
            s1, s2 = u1 + u2, v1 + v2
            e1 = np.where(np.isfinite(s1), np.abs(u1) + np.abs(u2), 0.0)
            e2 = np.where(np.isfinite(s2), np.abs(v1) + np.abs(v2), 0.0)
            g = np.logaddexp(s1, s2)
            d = g - cc
            m = _REL * (e1 + e2 + np.where(np.isfinite(g), np.abs(g), 0.0)
                        + np.abs(cc)) + 1e-300
            bad, good = d > m, d < -m
            # near form: (A) w = (α, 1 − α), ℓ = (la − l1b, l1a − lb); (B) w = (1 − β, β),
            # ℓ = (l1b − la, lb − l1a)
            w1 = np.where(rev, 1.0 - beta, a)
            w2 = np.where(rev, beta, 1.0 - a)
            k1 = np.where(rev, l1b - la, la - l1b)
            k2 = np.where(rev, lb - l1a, l1a - lb)
            t1, t2 = w1 * np.expm1(sm * k1), w2 * np.expm1(sm * k2)
            near = t1 + t2
            err1 = (np.abs(t1) + w1) * sm * (np.abs(la) + np.abs(l1b) + np.abs(k1))
            err2 = (np.abs(t2) + w2) * sm * (np.abs(l1a) + np.abs(lb) + np.abs(k2))
            err = _REL * (np.abs(t1) + np.abs(t2) + err1 + err2 + np.abs(ec)) + 1e-300
            dn = near - ec
            usable = np.isfinite(ec)
            bad = bad | usable & (np.isposinf(near) | np.isfinite(err) & (dn > err))
            good = good | usable & np.isfinite(err) & (dn < -err)
            return bad, good
    return verdicts


def _constraint_roots(alpha: FloatArray, lam: FloatArray, r: FloatArray, reverse: BoolArray,
                      side: int, iters: int = 70,
                      start: tuple[FloatArray, FloatArray] | None = None
                      ) -> tuple[FloatArray, FloatArray]:
    """Bisection bracket (a, b) of β_λ(α) = min{β ∈ [0, 1−α] : (A) or (B) holds}.

    Flat arrays: α ∈ (0, 1), λ ∈ (1, ∞], r ∈ [−∞, ∞], ``reverse`` selects (B).
    side=0: ``a`` is a certified LOWER bound (moved only where the constraint is
    violated beyond the rounding margin); side=1: ``b`` is a certified UPPER bound
    (moved only where it holds beyond the margin). ``start`` resumes from (a, b).
    """
    alpha, lam, r = (np.asarray(x, dtype=float) for x in (alpha, lam, r))
    reverse = np.asarray(reverse, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        c = (lam - 1.0) * r
    vacuous = np.isinf(r) & (r > 0) | np.isinf(c) & (c > 0) & np.isfinite(lam)
    if start is None:
        lo = np.zeros(alpha.shape)
        hi = np.where(vacuous, 0.0, np.nextafter(1.0 - alpha, 2.0))   # root ≤ 1 − α
    else:
        lo, hi = (np.array(x, dtype=float) for x in start)
    # λ = ∞: closed forms, rounded outward
    inf_order = np.isinf(lam) & ~vacuous
    if inf_order.any() and start is None:
        a, rr, rev = alpha[inf_order], r[inf_order], reverse[inf_order]
        with np.errstate(over="ignore"):
            l1a = np.log1p(-a)
            fwd = np.exp(l1a - rr)                          # (1 − α) e^{−r}
            t = a * np.exp(rr)                              # α e^{r}
        # exp of an argument with absolute error u·|arg| has that relative error
        e_f = 8 * _U * (1.0 + np.abs(l1a) + rr)
        e_t = 8 * _U * (1.0 + rr)
        bwd_lo = np.maximum(0.0, 1.0 - t * (1.0 + e_t) - 2 * _U)
        bwd_hi = np.maximum(0.0, 1.0 - t * (1.0 - e_t) + 2 * _U)
        lo[inf_order] = np.where(rev, bwd_lo, fwd * (1.0 - e_f))
        hi[inf_order] = np.minimum(hi[inf_order], np.where(rev, bwd_hi, fwd * (1.0 + e_f)))
    todo = ~vacuous & ~inf_order
    if todo.any():
        verdicts = _verdict_fn(alpha[todo], lam[todo], c[todo], reverse[todo])

        if side == 0:
            def test(beta: FloatArray) -> BoolArray:
                return verdicts(beta)[0]
        else:
            def test(beta: FloatArray) -> BoolArray:
                return ~verdicts(beta)[1]
        lo[todo], hi[todo] = _bisect_bits(test, lo[todo], hi[todo], iters)
    return lo, hi


def _max_root(a: FloatArray, lam: ArrayLike, r: ArrayLike, rev: bool, side: int,
              floor: ArrayLike | None = None) -> FloatArray:
    """Row-wise max over constraints of the certified side of β_λ(α).

    ``a`` has shape (n,), ``lam`` and ``r`` shape (n, K) (or broadcastable).
    Pruned: 24 bisection steps for every constraint, then full precision only for
    those whose bracket can still reach the row maximum. With a ``floor`` (a certified
    LOWER bound of the row maximum) ``_max_root_above`` bisects only the constraints
    whose root may lie above it (the admissible β form an interval ending at 1 − α).
    """
    lam_b = np.broadcast_to(np.asarray(lam, dtype=float), (a.size, np.shape(lam)[-1]))
    r_b = np.broadcast_to(np.asarray(r, dtype=float), lam_b.shape)
    if lam_b.shape[1] == 0:
        return np.zeros(a.size)
    if floor is not None:
        return _max_root_above(a, lam_b, r_b, rev, side, np.asarray(floor, dtype=float))
    aa = np.broadcast_to(a[:, None], lam_b.shape).ravel()
    revs = np.full(aa.shape, rev)
    lo, hi = _constraint_roots(aa, lam_b.ravel(), r_b.ravel(), revs, side, iters=24)
    lo2, hi2 = lo.reshape(lam_b.shape), hi.reshape(lam_b.shape)
    # certified end and the other (rough) end of each bracket
    sure, rough = (lo2, hi2) if side == 0 else (hi2, lo2)
    best = sure.max(axis=1) if side == 0 else rough.max(axis=1)
    if floor is not None:
        best = np.maximum(best, floor)
    cand = (np.maximum(lo2, hi2) >= best[:, None]).ravel() & (hi - lo > 0)
    if cand.any():
        l3, h3 = _constraint_roots(aa[cand], lam_b.ravel()[cand], r_b.ravel()[cand], revs[cand],
                                   side, start=(lo[cand], hi[cand]))
        lo[cand], hi[cand] = l3, h3
    return (lo if side == 0 else hi).reshape(lam_b.shape).max(axis=1)


def _max_root_above(a: FloatArray, lam: FloatArray, r: FloatArray, rev: bool, side: int,
                    floor: FloatArray) -> FloatArray:
    """``_max_root`` given a certified lower bound ``floor`` of the row maximum."""
    aa = np.broadcast_to(a[:, None], lam.shape).ravel()
    fl = np.broadcast_to(floor[:, None], lam.shape).ravel()
    lamf, rf = lam.ravel(), r.ravel()
    revs = np.full(aa.shape, rev)
    need = _probe(aa, lamf, rf, revs, side, fl)
    out = fl.copy()
    if need.any():
        lo, hi = _constraint_roots(aa[need], lamf[need], rf[need], revs[need], side)
        out[need] = np.maximum(fl[need], lo if side == 0 else hi)
    return out.reshape(lam.shape).max(axis=1)


def _probe(alpha: FloatArray, lam: FloatArray, r: FloatArray, reverse: BoolArray, side: int,
           beta: FloatArray) -> BoolArray:
    """Constraints whose root may lie above β (side 1: not certainly admissible at β)
    or certainly does (side 0: certainly violated at β). λ = ∞ and vacuous
    constraints (closed forms) are always kept."""
    with np.errstate(over="ignore", invalid="ignore"):
        c = (lam - 1.0) * r
    finite = np.isfinite(lam) & np.isfinite(c) & (beta > 0.0) & (beta < 1.0 - alpha)
    need = ~finite
    if finite.any():
        bad, good = _verdict_fn(alpha[finite], lam[finite], c[finite],
                                reverse[finite])(beta[finite])
        need[finite] = bad if side == 0 else ~good
    return need


def _curve_bracket(alpha: FloatArray, lam: FloatArray, r: FloatArray,
                   one_sided: bool) -> tuple[FloatArray, FloatArray]:
    """Bracket of f(α) = max over the constraints (λ_i, r_i) of β_λ(α), α ∈ (0, 1)."""
    a = np.asarray(alpha, dtype=float).ravel()
    lower = np.zeros(a.size)
    upper = np.zeros(a.size)
    for rev in ((False,) if one_sided else (False, True)):
        lower = np.maximum(lower, _max_root(a, lam, r, rev, 0))
    for rev in ((False,) if one_sided else (False, True)):
        upper = np.maximum(upper, _max_root(a, lam, r, rev, 1, floor=lower))
    return lower, upper


def _ends(alpha: FloatArray, lower: FloatArray, upper: FloatArray, r_min: float,
          one_sided: bool) -> tuple[FloatArray, FloatArray]:
    """Fill in α = 0 and α = 1 (closed forms) and cap by 1 − α."""
    a = np.asarray(alpha, dtype=float).ravel()
    lo, hi = lower.copy(), upper.copy()
    one = a == 1.0
    lo[one], hi[one] = 0.0, 0.0
    zero = a == 0.0
    if zero.any():
        if not np.isfinite(r_min):
            v_lo, v_hi = 0.0, 0.0                     # no information at all
        elif not one_sided:
            v_lo, v_hi = 1.0, 1.0                     # (B) at α = 0 forces β = 1
        else:
            v = np.exp(-r_min)                        # (A) at α = 0: β ≥ e^{−r}
            e_v = 8 * _U * (1.0 + r_min)
            v_lo, v_hi = v * (1.0 - e_v), min(1.0, v * (1.0 + e_v))
        lo[zero], hi[zero] = v_lo, v_hi
    mid = ~one & ~zero
    lo[mid] = np.minimum(lo[mid], np.nextafter(1.0 - a[mid], 0.0))
    hi[mid] = np.maximum(np.minimum(hi[mid], np.nextafter(1.0 - a[mid], 2.0)), lo[mid])
    return lo, hi


# ----------------------------------------------------------------------
# δ(ε) from a bracketed convex curve on a grid
# ----------------------------------------------------------------------
_DELTA_GRID = np.unique(np.concatenate([
    [0.0, 1.0], np.logspace(-300, -20, 60), np.logspace(-20, -3, 120),
    np.linspace(0.0, 1.0, 241)[1:-1],
    1.0 - np.logspace(-15, -3, 40)]))
_DELTA_GRID.setflags(write=False)


def _delta_from_grid(grid: FloatArray, low: FloatArray, up: FloatArray,
                     eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Certified (upper, lower) δ(ε) = sup_α (1 − f(α) − e^ε α) from L_i ≤ f(α_i) ≤ U_i.

    Upper: on [α_i, α_{i+1}) f ≥ max{L_{i+1}, L_i + (α − α_i)(L_i − U_{i−1})/(α_i − α_{i−1})}
    (monotone, convex), so the maximum is at α_i or at the crossing of the two lines.
    Lower: the grid values 1 − U_i − e^ε α_i are attained by admissible tests.
    """
    e = np.asarray(eps, dtype=float).ravel()
    y = np.exp(np.minimum(e, 709.0))[:, None]
    x = grid[None, :]
    with np.errstate(invalid="ignore", over="ignore"):
        lower = np.max(1.0 - up[None, :] - np.where(x == 0.0, 0.0, y * x), axis=1)
        # cell [α_i, α_{i+1}), i = 0..N-2
        a_i, a_n = grid[:-1], grid[1:]
        l_i, l_n = low[:-1], low[1:]
        at_left = 1.0 - l_i[None, :] - np.where(a_i == 0.0, 0.0, y * a_i[None, :])
        # chord slope (non-positive where it helps), from the previous cell
        s = np.full(a_i.shape, -np.inf)
        s[1:] = (l_i[1:] - up[:-2]) / (a_i[1:] - grid[:-2])
        s = np.minimum(s, 0.0)
        # crossing of L_i + s (α − α_i) with L_{i+1}
        cross = np.where(s < 0.0, a_i + (l_n - l_i) / s, a_i)
        cross = np.clip(np.where(np.isnan(cross), a_i, cross), a_i, a_n)
        at_cross = 1.0 - l_n[None, :] - y * cross[None, :]
        slack = 4 * _U * (1.0 + y * a_n[None, :] + np.abs(s)[None, :] * a_n[None, :])
        upper = np.max(np.maximum(at_left, at_cross + np.where(np.isfinite(slack), slack, 0.0)),
                       axis=1)
    upper = np.where(np.isposinf(e), 1.0 - low[0], upper)
    lower = np.where(np.isposinf(e), 1.0 - up[0], lower)
    upper = np.where(np.isneginf(e), 1.0, upper)
    lower = np.where(np.isneginf(e), 1.0, lower)
    shape = np.shape(eps)
    return (np.clip(upper, 0.0, 1.0).reshape(shape), np.clip(lower, 0.0, 1.0).reshape(shape))


class _RenyiCurve(TradeOff):
    """Shared surface: ``_bracket(α)`` gives (lower, upper); everything else follows."""

    __slots__ = ()
    one_sided: bool                  # a field of each subclass

    @property
    def symmetric(self) -> bool:
        return not self.one_sided

    @property
    def status(self) -> Status:
        return Status.CERTIFIED

    #: the RDP bound at every real order, when known in closed form (zCDP)
    _rdp_of: ArrayFn | None = None

    @abc.abstractmethod
    def _bracket(self, alpha: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(certified lower, certified upper) f at each α."""

    @abc.abstractmethod
    def _classical_orders(self) -> tuple[FloatArray, FloatArray]:
        """Orders λ and RDP bounds for the closed (λ, r) → (ε, δ) conversion."""

    def _beta(self, alpha: FloatArray) -> FloatArray:
        return self._bracket(alpha)[0]

    def _upper(self, alpha: FloatArray) -> FloatArray:
        return self._bracket(alpha)[1]

    def _grid_values(self) -> tuple[FloatArray, FloatArray]:
        return _grid_cache(self)

    def _upper_law(self) -> AtomsLaw:
        """The law of a finite pair whose trade-off function is ≥ f: the lower convex
        hull of the certified upper values on the δ grid
        (``fdp.conversions.renyi_law``). The engine reads the optimistic side of a
        composition from it (``fdp.engine.from_profile``)."""
        return _law_cache(self)

    def _delta(self, eps: FloatArray) -> FloatArray:
        """Certified upper δ(ε): on [−40, 40] the lower convex hull in e^ε of the best
        bounds on a fixed ε grid (docs/derivations/renyi-conversion.md); outside, the
        bounds directly."""
        e = np.asarray(eps, dtype=float)
        out = self._reflect(e, self._delta_upper_plain, np.minimum)
        inside = (e >= _HULL_EPS[0]) & (e <= _HULL_EPS[-1])
        if inside.any():
            xs, hs = _hull_cache(self)
            x = np.exp(e[inside])
            out = out.copy() if out.ndim else np.array(out)
            v = np.interp(x, xs, hs)
            # 0 only where the hull is 0 at both ends of the cell (a proof of δ = 0);
            # an interpolation that underflows keeps a positive value
            live = (v > 0.0) | (np.interp(x, xs, (hs > 0.0).astype(float)) > 0.0)
            out[inside] = np.where(live, np.minimum(v * (1.0 + 8 * _U) + 1e-300, 1.0), 0.0)
        if not self.one_sided:
            # between the grid's ε the chord lies above the true δ; the closed RDP → (ε, δ)
            # conversion at the query ε itself is another certified upper bound (its
            # minimum over orders gives ε ≤ ρ + 2√(ρ log(1/δ)) for ρ-zCDP), and the
            # minimum of two upper bounds is one (the engine convexifies what it reads)
            def closed(x: FloatArray) -> FloatArray:
                return _classical_delta(self._classical_orders(), x, self._rdp_of)
            out = np.minimum(out, self._reflect(e, closed, np.minimum))
        return out

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        low, up = self._grid_values()
        return self._reflect(eps, lambda e: _delta_from_grid(_DELTA_GRID, low, up, e)[1],
                             np.maximum)

    def _reflect(self, eps: ArrayLike, fn: ArrayFn, pick: np.ufunc) -> FloatArray:
        """Symmetric f: δ(−ε) = 1 − e^{−ε} + e^{−ε} δ(ε) (the graph is symmetric about
        the diagonal), monotone in δ(ε), so it carries upper and lower bounds over;
        ``pick`` keeps the better of that and the direct bound at −ε."""
        e = np.asarray(eps, dtype=float)
        direct = fn(e)
        if self.one_sided or not (e < 0).any():
            return direct
        pos = fn(np.abs(e))
        with np.errstate(over="ignore", under="ignore"):
            w = np.exp(-np.minimum(np.abs(e), 745.0))
        neg = np.minimum(-np.expm1(-np.abs(e)) + w * pos, 1.0)
        return np.where(e < 0, pick(neg, direct), direct)

    def _delta_upper_plain(self, eps: FloatArray) -> FloatArray:
        low, up = self._grid_values()
        out = _delta_from_grid(_DELTA_GRID, low, up, eps)[0]
        if not self.one_sided:
            # also never worse than the classical conversion of each order
            out = np.minimum(out, _classical_delta(self._classical_orders(), eps, self._rdp_of))
            lam, r = self._classical_orders()
            if np.isinf(lam).any():
                out = np.minimum(out, _pure_delta(float(r[np.isinf(lam)][0]), eps))
        return out


def _pure_delta(eps0: float, eps: ArrayLike) -> FloatArray:
    """δ(ε) of f_{ε₀,0} = max{0, 1 − e^ε, (e^{ε₀} − e^ε)/(1 + e^{ε₀})}, rounded up; it
    bounds the curve's δ when D_∞ ≤ ε₀ in both orders (then f ≥ f_{ε₀,0})."""
    e = np.asarray(eps, dtype=float)
    with np.errstate(over="ignore"):
        a = -np.expm1(np.minimum(e, 709.0))
        b = -np.expm1(np.minimum(e, 709.0) - eps0) / (1.0 + np.exp(-eps0))
    out = np.maximum(0.0, np.maximum(a, b)) * (1.0 + 16 * _U) + 1e-300 * (e < eps0)
    return np.where(e >= eps0, 0.0, np.minimum(out, 1.0))


def _classical_log_delta(lam: FloatArray, r: FloatArray, eps: FloatArray) -> FloatArray:
    """log δ = (λ − 1)(r − ε + log(1 − 1/λ)) − log λ per (ε, order), rounded up
    (Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020, Prop 12)."""
    with np.errstate(over="ignore", invalid="ignore"):
        logd = (lam - 1.0) * (r - eps + np.log1p(-1.0 / lam)) - np.log(lam)
        logd = logd + _REL * (np.abs(logd) + (lam - 1.0) * (r + eps) + 1.0)
    return np.where(np.isnan(logd), np.inf, logd)


def _classical_delta(orders_and_rdp: tuple[FloatArray, FloatArray], eps: ArrayLike,
                     rdp_of: ArrayFn | None = None) -> FloatArray:
    """min over orders of ``_classical_log_delta``'s δ, for ε ≥ 0 (1 elsewhere); rounded
    up. ``rdp_of`` (the RDP bound at every real order, zCDP): the best grid order of each
    ε is refined on 257 orders between its neighbours (each a valid bound)."""
    lam, r = orders_and_rdp
    e = np.asarray(eps, dtype=float)
    flat = e.ravel()
    out = np.ones(flat.shape)
    live = np.isfinite(lam) & np.isfinite(r)
    lam, r = lam[live], r[live]
    ok = (flat >= 0.0) & np.isfinite(flat)
    if lam.size and ok.any():
        x = flat[ok]
        best = np.full(x.size, np.inf)
        arg = np.zeros(x.size, dtype=np.int64)
        for s in range(0, lam.size, 256):
            logd = _classical_log_delta(lam[None, s:s + 256], r[None, s:s + 256], x[:, None])
            i = np.argmin(logd, axis=1)
            v = logd[np.arange(x.size), i]
            better = v < best
            best = np.where(better, v, best)
            arg = np.where(better, i + s, arg)
        if rdp_of is not None:
            lo = lam[np.maximum(arg - 1, 0)]
            hi = lam[np.minimum(arg + 1, lam.size - 1)]
            fine = lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, 257)[None, :]
            refined = _classical_log_delta(fine, rdp_of(fine), x[:, None]).min(axis=1)
            best = np.minimum(best, refined)
        # an underflow is not a proof of δ = 0: the bound is positive, so keep the
        # smallest positive double
        out[ok] = np.maximum(np.exp(np.minimum(best, 0.0)), TINY)
    return out.reshape(e.shape)


_HULL_EPS = np.linspace(-40.0, 40.0, 8001)


@lru_cache(maxsize=32)
def _hull_cache(curve: _RenyiCurve) -> tuple[FloatArray, FloatArray]:
    d = curve._reflect(_HULL_EPS, curve._delta_upper_plain, np.minimum)
    xs, hs = lower_convex_hull(np.exp(_HULL_EPS), d)
    for arr in (xs, hs):
        arr.setflags(write=False)
    return xs, hs


@lru_cache(maxsize=32)
def _law_cache(curve: _RenyiCurve) -> AtomsLaw:
    return upper_law(_DELTA_GRID, curve._grid_values()[1])


@lru_cache(maxsize=32)
def _grid_cache(curve: _RenyiCurve) -> tuple[FloatArray, FloatArray]:
    low, up = curve._bracket(_DELTA_GRID)
    for arr in (low, up):
        arr.setflags(write=False)
    return low, up
