"""From Rényi DP and zero-concentrated DP to a trade-off function, certified.

A mechanism is (λ, r)-RDP (Mironov 2017) when D_λ(M(S) ‖ M(S')) ≤ r for neighbours
S, S', with D_λ(P ‖ Q) = log E_Q[(dP/dQ)^λ] / (λ − 1), λ > 1 (λ = ∞: the max log-ratio).
Convention: the neighbouring relation is symmetric (replace-one, or add/remove with
both the added and the removed order covered, as every RDP accountant states its
bounds, e.g. Mironov, Talwar & Zhang 2019 for the subsampled Gaussian), so the bound
holds for D_λ(P ‖ Q) AND D_λ(Q ‖ P), P = M(S), Q = M(S'). ``one_sided=True`` assumes
only the first order and then bounds T(P, Q) alone.

The conversion (Balle et al. 2020, "Hypothesis testing interpretations and Rényi DP",
Thm 5 and §4; Zhu, Dong & Wang 2022, App. F.1; Asoodeh et al. 2021). A test φ with
errors (α, β) is a post-processing of the pair into Bernoulli outputs: it rejects with
probability α under P and 1 − β under Q. By data processing every order bounds that
two-point divergence:

    (A)  α^λ (1−β)^{1−λ} + (1−α)^λ β^{1−λ} ≤ e^{(λ−1) r}       [D_λ(P ‖ Q)]
    (B)  (1−β)^λ α^{1−λ} + β^λ (1−α)^{1−λ} ≤ e^{(λ−1) r}       [D_λ(Q ‖ P)]
    λ = ∞:  β ≥ (1−α) e^{−r}  (A),   β ≥ 1 − α e^{r}  (B).

For fixed α each left side is convex in β with its minimum 1 at β = 1 − α, so the
admissible β in [0, 1 − α] form an interval [β_λ(α), 1 − α]. Hence

    f(α) = max over the given orders (and both orders of the pair) of β_λ(α),

the smallest β no constraint rules out. The admissible set is convex (joint convexity
of the Hellinger-type integral), symmetric under α ↔ β when (B) is included, and
contains the diagonal β = 1 − α, so f is a trade-off function; Riess et al. (2026)
prove it is the best conversion using the RDP curve alone. No other order adds
anything: a Bernoulli pair obeying the bound at λ_i obeys D_λ ≤ r_i for λ ≤ λ_i by
the monotonicity of D_λ in λ.

zCDP (Bun & Steinke 2016, Def 1.1): D_λ ≤ ξ + ρλ for every λ ∈ (1, ∞), a continuum.
Any finite set of orders gives a LOWER bound on f (fewer constraints). An UPPER bound
comes from covering (1, ∞) by intervals: for λ ∈ [a, b], D_λ ≤ D_b, so the single
constraint D_b ≤ ξ + ρa implies all of them; (1, λ_0] is covered by D_{λ_0} ≤ ξ + ρ,
[λ_M, ∞) by D_∞ ≤ ξ + ρλ_M. Those stronger constraints admit fewer tests, so their
β_λ bound f from above. The grid of orders is refined twice around the best order
for each α, so the bracket is narrow where it matters.

Certification. Every β_λ(α) is bracketed by bisection on the bit patterns of the
doubles in [0, 1 − α] (exact to one ulp), evaluating the constraint in log space,
log Σ = logaddexp(λ log α + (1−λ) log1p(−β), λ log1p(−α) + (1−λ) log β) for (A),
with a rounding margin 32u·(Σ|terms| + |log Σ| + |(λ−1) r|): the lower end moves
only where the constraint is violated beyond the margin, the upper end only where it
holds beyond it. So ``f(α)`` is a certified lower bound and ``bounds(α)`` a
certified bracket. Near λ = 1 the log form cancels; a second form,
Σ − 1 = w₁ expm1((λ−1)ℓ₁) + w₂ expm1((λ−1)ℓ₂), keeps the precision there.

δ(ε) = sup_α (1 − f(α) − e^ε α). Upper: from the bracket on a fixed α grid with
convexity (``_delta_from_grid``), capped by the classical conversion of each
order (Balle et al. 2020, Thm 21) nor, with an order ∞, above δ of f_{r∞,0}; for
symmetric f, δ(−ε) = 1 − e^{−ε} + e^{−ε} δ(ε). On ε ∈ [−40, 40] the upper side is
the lower convex hull in e^ε of those bounds on a 0.01 grid: still above the true
(convex) δ, and convex itself, so the engine's profile route composes it without
losing mass (the interpolation may sit up to ~1e-4 in ε above the classical
cap between grid points). Lower: 1 − U_i − e^ε α_i at the grid points.

Composition. Mechanisms known through RDP compose best in RDP space (add the curves,
or the ρ of zCDP) and convert once: ``from_zcdp(ρ₁ + ρ₂)`` is tighter than
``from_zcdp(ρ₁) @ from_zcdp(ρ₂)`` (ε(1e-5) = 7.077 against 7.365–7.371 for
ρ = 0.5 twice), and far cheaper: the latter goes through the numeric engine's
profile route, which evaluates the curve at thousands of α (minutes for zCDP).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from fdp import _validate
from fdp.tradeoff import TradeOff

_U = 2.0 ** -53
_REL = 32.0 * _U


# ----------------------------------------------------------------------
# One constraint: the smallest admissible β, bracketed
# ----------------------------------------------------------------------
def _bisect_bits(test, lo: np.ndarray, hi: np.ndarray, iters: int = 70):
    """Bisection on the bit patterns of non-negative doubles: ``test(x)`` True moves
    the lower end to x, False the upper end. Ends only move to tested points, so an
    invariant proved for the ends by ``test`` holds whatever ``test`` does; 64
    steps reach adjacent doubles."""
    a = np.ascontiguousarray(lo, dtype=np.float64).view(np.int64).copy()
    b = np.ascontiguousarray(hi, dtype=np.float64).view(np.int64).copy()
    for _ in range(iters):
        gap = b - a
        live = gap > 1
        if not live.any():
            break
        m = a + gap // 2
        t = test(m.view(np.float64))
        a = np.where(live & t, m, a)
        b = np.where(live & ~t, m, b)
    return a.view(np.float64), b.view(np.float64)


def _constraint_roots(alpha, lam, r, reverse, side, iters=70, start=None):
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
        a, lm, cc, rev = alpha[todo], lam[todo], c[todo], reverse[todo]
        la, l1a = np.log(a), np.log1p(-a)

        sm = lm - 1.0
        with np.errstate(over="ignore"):
            ec = np.expm1(cc)                  # inf: the near form is not used

        def verdicts(beta):
            """(certainly violated, certainly admissible) at β, from two forms.

            Log form: log Σ = logaddexp(...) against c = (λ − 1) r (no overflow).
            Near form, accurate as λ → 1: Σ − 1 = w₁ expm1(sℓ₁) + w₂ expm1(sℓ₂),
            s = λ − 1, ℓ the two log-ratios, against expm1(c). Each verdict holds
            beyond its own rounding margin; either form may decide.
            """
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

        if side == 0:
            def test(beta):
                return verdicts(beta)[0]
        else:
            def test(beta):
                return ~verdicts(beta)[1]
        lo[todo], hi[todo] = _bisect_bits(test, lo[todo], hi[todo], iters)
    return lo, hi


def _max_root(a, lam, r, rev, side, floor=None):
    """Row-wise max over constraints of the certified side of β_λ(α).

    ``a`` has shape (n,), ``lam`` and ``r`` shape (n, K) (or broadcastable).
    Pruned: 24 bisection steps for every constraint, then full precision only for
    those whose bracket can still reach the row maximum (or exceed ``floor``).
    """
    lam = np.broadcast_to(np.asarray(lam, dtype=float), (a.size, np.shape(lam)[-1]))
    r = np.broadcast_to(np.asarray(r, dtype=float), lam.shape)
    if lam.shape[1] == 0:
        return np.zeros(a.size)
    aa = np.broadcast_to(a[:, None], lam.shape).ravel()
    revs = np.full(aa.shape, rev)
    lo, hi = _constraint_roots(aa, lam.ravel(), r.ravel(), revs, side, iters=24)
    lo2, hi2 = lo.reshape(lam.shape), hi.reshape(lam.shape)
    # certified end and the other (rough) end of each bracket
    sure, rough = (lo2, hi2) if side == 0 else (hi2, lo2)
    best = sure.max(axis=1) if side == 0 else rough.max(axis=1)
    if floor is not None:
        best = np.maximum(best, floor)
    cand = (np.maximum(lo2, hi2) >= best[:, None]).ravel() & (hi - lo > 0)
    if cand.any():
        l3, h3 = _constraint_roots(aa[cand], lam.ravel()[cand], r.ravel()[cand], revs[cand],
                                   side, start=(lo[cand], hi[cand]))
        lo[cand], hi[cand] = l3, h3
    return (lo if side == 0 else hi).reshape(lam.shape).max(axis=1)


def _curve_bracket(alpha, lam, r, one_sided):
    """Bracket of f(α) = max over the constraints (λ_i, r_i) of β_λ(α), α ∈ (0, 1)."""
    a = np.asarray(alpha, dtype=float).ravel()
    lower = np.zeros(a.size)
    upper = np.zeros(a.size)
    for rev in ((False,) if one_sided else (False, True)):
        lower = np.maximum(lower, _max_root(a, lam, r, rev, 0))
    for rev in ((False,) if one_sided else (False, True)):
        upper = np.maximum(upper, _max_root(a, lam, r, rev, 1, floor=lower))
    return lower, upper


def _ends(alpha, lower, upper, r_min, one_sided):
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


def _delta_from_grid(grid, low, up, eps):
    """Certified (upper, lower) δ(ε) = sup_α (1 − f(α) − e^ε α) from L_i ≤ f(α_i) ≤ U_i.

    Upper: on [α_i, α_{i+1}) f ≥ L_{i+1} (f non-increasing) and, by convexity,
    f(α) ≥ L_i + (α − α_i)(L_i − U_{i−1})/(α_i − α_{i−1}) (the chord slope from the
    left is at most the slope on the right). The objective 1 − h − e^ε α for
    h = max of these two lines is concave piecewise linear on the cell, so its
    maximum is at α_i or at the crossing of the two lines. Lower: the grid values
    1 − U_i − e^ε α_i are attained by admissible tests.
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

    @property
    def symmetric(self) -> bool:
        return not self.one_sided

    @property
    def is_exact(self) -> bool:
        return False

    def _beta(self, alpha):
        return self._bracket(alpha)[0]

    def _upper(self, alpha):
        return self._bracket(alpha)[1]

    def _grid_values(self):
        return _grid_cache(self)

    def _delta(self, eps):
        """Certified upper δ(ε). On [−40, 40] the lower convex hull (in x = e^ε) of the
        best available bounds on a fixed ε grid, interpolated linearly in x: the true
        δ is convex in x and below those bounds at the grid points, so it is below
        their hull, and the result is itself convex (as the engine's profile route
        needs). Outside, the bounds directly."""
        e = np.asarray(eps, dtype=float)
        out = self._reflect(e, self._delta_upper_plain, np.minimum)
        inside = (e >= _HULL_EPS[0]) & (e <= _HULL_EPS[-1])
        if inside.any():
            xs, hs = _hull_cache(self)
            x = np.exp(e[inside])
            out = out.copy() if out.ndim else np.array(out)
            v = np.interp(x, xs, hs)
            out[inside] = np.where(v > 0.0, np.minimum(v * (1.0 + 8 * _U) + 1e-300, 1.0), 0.0)
        return out

    def _delta_lower(self, eps):
        low, up = self._grid_values()
        return self._reflect(eps, lambda e: _delta_from_grid(_DELTA_GRID, low, up, e)[1],
                             np.maximum)

    def _reflect(self, eps, fn, pick):
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

    def _delta_upper_plain(self, eps):
        low, up = self._grid_values()
        out = _delta_from_grid(_DELTA_GRID, low, up, eps)[0]
        if not self.one_sided:
            # also never worse than the classical conversion of each order
            out = np.minimum(out, _classical_delta(self._classical_orders(), eps))
            lam, r = self._classical_orders()
            if np.isinf(lam).any():
                out = np.minimum(out, _pure_delta(float(r[np.isinf(lam)][0]), eps))
        return out


def _pure_delta(eps0, eps):
    """δ(ε) of f_{ε₀,0} = max{0, 1 − e^ε, (e^{ε₀} − e^ε)/(1 + e^{ε₀})}, rounded up; it
    bounds the curve's δ when D_∞ ≤ ε₀ in both orders (then f ≥ f_{ε₀,0})."""
    e = np.asarray(eps, dtype=float)
    with np.errstate(over="ignore"):
        a = -np.expm1(np.minimum(e, 709.0))
        b = -np.expm1(np.minimum(e, 709.0) - eps0) / (1.0 + np.exp(-eps0))
    out = np.maximum(0.0, np.maximum(a, b)) * (1.0 + 16 * _U) + 1e-300 * (e < eps0)
    return np.where(e >= eps0, 0.0, np.minimum(out, 1.0))


def _classical_delta(orders_and_rdp, eps):
    """min over orders of δ = exp((λ − 1)(r − ε + log(1 − 1/λ)) − log λ), the (ε, δ)
    conversion of (λ, r)-RDP (Balle et al. 2020, Thm 21), for ε ≥ 0 (1 elsewhere).
    Each order's δ is a valid bound on δ(ε) of the symmetric pair; rounded up."""
    lam, r = orders_and_rdp
    e = np.asarray(eps, dtype=float)
    flat = e.ravel()
    out = np.ones(flat.shape)
    live = np.isfinite(lam) & np.isfinite(r)
    lam, r = lam[live], r[live]
    ok = (flat >= 0.0) & np.isfinite(flat)
    if lam.size and ok.any():
        for s in range(0, lam.size, 256):
            lm, rr = lam[None, s:s + 256], r[None, s:s + 256]
            with np.errstate(over="ignore", invalid="ignore"):
                logd = (lm - 1.0) * (rr - flat[ok, None] + np.log1p(-1.0 / lm)) - np.log(lm)
                logd = logd + _REL * (np.abs(logd) + (lm - 1.0) * (rr + flat[ok, None]) + 1.0)
            out[ok] = np.minimum(out[ok], np.exp(np.minimum(logd.min(axis=1), 0.0)))
    return out.reshape(e.shape)


_HULL_EPS = np.linspace(-40.0, 40.0, 8001)


@lru_cache(maxsize=32)
def _hull_cache(curve):
    from fdp.families.piecewise import lower_convex_hull
    d = curve._reflect(_HULL_EPS, curve._delta_upper_plain, np.minimum)
    xs, hs = lower_convex_hull(np.exp(_HULL_EPS), d)
    for arr in (xs, hs):
        arr.setflags(write=False)
    return xs, hs


@lru_cache(maxsize=32)
def _grid_cache(curve):
    low, up = curve._bracket(_DELTA_GRID)
    for arr in (low, up):
        arr.setflags(write=False)
    return low, up


# ----------------------------------------------------------------------
# Public: a finite RDP curve
# ----------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class RDPCurve(_RenyiCurve):
    """f(α) = max over the orders λ_i of the smallest β the two-point Rényi
    inequalities (A), (B) admit (Balle et al. 2020, Thm 5; module docstring)."""

    orders: tuple
    rdp: tuple
    one_sided: bool = False

    def __eq__(self, other):
        return (type(other) is type(self) and self.orders == other.orders
                and self.rdp == other.rdp and self.one_sided == other.one_sided)

    def __hash__(self):
        return hash((type(self).__name__, self.orders, self.rdp, self.one_sided))

    def __repr__(self):
        kind = ", one_sided=True" if self.one_sided else ""
        return f"from_rdp({len(self.orders)} orders{kind})"

    def latex(self) -> str:
        return rf"f_{{\mathrm{{RDP}},{len(self.orders)}}}"

    def _classical_orders(self):
        return np.array(self.orders), np.array(self.rdp)

    def _bracket(self, alpha):
        a = np.asarray(alpha, dtype=float)
        flat = a.ravel()
        lam, r = np.array(self.orders), np.array(self.rdp)
        inner = (flat > 0.0) & (flat < 1.0)
        lo = np.zeros(flat.shape)
        hi = np.zeros(flat.shape)
        if inner.any():
            lo[inner], hi[inner] = _curve_bracket(flat[inner], lam, r, self.one_sided)
        lo, hi = _ends(flat, lo, hi, float(r.min()), self.one_sided)
        return lo.reshape(a.shape), hi.reshape(a.shape)


def from_rdp(orders, rdp, *, one_sided: bool = False) -> TradeOff:
    """The optimal trade-off function implied by Rényi DP at the given orders.

    Parameters
    ----------
    orders : array_like
        Rényi orders λ_i > 1 (``inf`` allowed: D_∞ ≤ r is pure r-DP).
    rdp : array_like
        The bounds r_i = ρ(λ_i) ≥ 0, one per order, non-decreasing in λ (the Rényi
        divergence is non-decreasing in its order); ``inf`` means no information.
    one_sided : bool
        False (default): the bound holds for D_λ(P ‖ Q) and D_λ(Q ‖ P) (the usual
        RDP definition over a symmetric neighbouring relation); the result is
        symmetric. True: only D_λ(P ‖ Q) ≤ r; the result bounds T(P, Q) alone.

    Returns
    -------
    TradeOff
        f(α) = max_i β_{λ_i}(α), the smallest type II error the two-point
        inequalities (A), (B) of the module docstring admit (Balle et al. 2020,
        Thm 5; Zhu, Dong & Wang 2022, App. F.1). ``f(α)`` is a certified lower
        bound; ``bounds(α)`` a certified bracket (relative width ≲ 1e-9: the
        rounding margins); ``delta(ε)`` a certified upper bound.

    Examples
    --------
    >>> import fdp, numpy as np
    >>> lam = np.array([2.0, 4.0, 8.0])
    >>> f = fdp.from_rdp(lam, lam / 2.0)      # the Gaussian curve λμ²/2, μ = 1
    >>> bool(f(0.1) <= fdp.Gaussian(1.0)(0.1))
    True
    """
    one_sided = _validate.flag("one_sided", one_sided)
    o = _validate.reals("orders", orders, low=-np.inf, allow_inf=True).ravel()
    r = _validate.reals("rdp", rdp, low=0.0, allow_inf=True).ravel()
    if o.size == 0:
        raise ValueError("orders must contain at least one order > 1")
    if (o <= 1.0).any():
        raise ValueError(f"orders must lie in (1, inf], got {_validate.number(o[o <= 1.0][0])}")
    if (o == -np.inf).any():
        raise ValueError("orders must lie in (1, inf], got -inf")
    if r.shape != o.shape:
        raise ValueError(f"rdp must have one value per order ({o.size}), got {r.size}")
    order = np.argsort(o, kind="stable")
    o, r = o[order], r[order]
    if o.size > 1 and (np.diff(o) == 0).any():
        raise ValueError("orders must be distinct")
    if (np.diff(r) < 0).any():
        i = int(np.flatnonzero(np.diff(r) < 0)[0])
        raise ValueError(
            "rdp must be non-decreasing in the order (Rényi divergences are), got "
            f"rdp={_validate.number(r[i])} at order {_validate.number(o[i])} and "
            f"rdp={_validate.number(r[i + 1])} at order {_validate.number(o[i + 1])}")
    return RDPCurve(tuple(o.tolist()), tuple(r.tolist()), one_sided)


# ----------------------------------------------------------------------
# Public: zCDP, a continuum of orders
# ----------------------------------------------------------------------
_COARSE_RATIO = 1.25
_LAM_MIN = 1e-8        # smallest λ − 1 on the grid; (1, 1 + 1e-8] is one interval


@dataclass(frozen=True)
class ZCDP(_RenyiCurve):
    """(ξ, ρ)-zCDP: D_λ ≤ ξ + ρλ for all λ > 1 (Bun & Steinke 2016, Def 1.1),
    converted with the sup over the continuum of orders, bracketed (module docstring)."""

    rho: float
    xi: float = 0.0
    one_sided: bool = False

    def __repr__(self):
        kind = ", one_sided=True" if self.one_sided else ""
        return f"from_zcdp(rho={self.rho!r}, xi={self.xi!r}{kind})"

    def latex(self) -> str:
        return rf"f_{{\mathrm{{zCDP}},{self.rho:g},{self.xi:g}}}"

    def _classical_orders(self):
        lam = 1.0 + np.geomspace(1e-4, max(1e4, 100.0 / self.rho), 1000)
        return lam, self.xi + self.rho * lam

    def _bracket(self, alpha):
        a = np.asarray(alpha, dtype=float)
        flat = a.ravel()
        inner = (flat > 0.0) & (flat < 1.0)
        lo = np.zeros(flat.shape)
        hi = np.zeros(flat.shape)
        if inner.any():
            lo[inner], hi[inner] = _zcdp_inner(flat[inner], self.rho, self.xi, self.one_sided)
        # α = 0: (A) gives β ≥ e^{−r} for every order; the weakest at λ → 1: r = ξ + ρ
        lo, hi = _ends(flat, lo, hi, self.xi + self.rho, self.one_sided)
        # the Gaussian mechanism G_√(2ρ) is (ξ, ρ)-zCDP, so the optimal conversion is
        # below its curve (a cap that matters where the covering saturates, ρ ≳ 1e20)
        from fdp.conversions.gdp import gdp_beta
        with np.errstate(over="ignore"):
            cap = gdp_beta(float(np.sqrt(2.0 * self.rho)), flat) * (1.0 + 1e-12) + 1e-300
        hi = np.maximum(np.minimum(hi, cap), lo)
        return lo.reshape(a.shape), hi.reshape(a.shape)


def _zcdp_inner(a, rho, xi, one_sided):
    top = float(np.clip(2000.0 / rho, 100.0, 1e12))
    count = int(np.ceil(np.log(top / _LAM_MIN) / np.log(_COARSE_RATIO))) + 1
    coarse = 1.0 + np.geomspace(_LAM_MIN, top, count)
    dirs = (False,) if one_sided else (False, True)
    lower = np.zeros(a.size)
    grids = []
    for rev in dirs:
        grid = np.broadcast_to(coarse, (a.size, coarse.size))
        for span, pts in ((4, 48), (3, 24)):
            grid = _refine(a, grid, rho, xi, rev, span, pts)
        lower = np.maximum(lower, _max_root(a, grid, xi + rho * grid, rev, 0))
        grids.append(grid)
    upper = np.zeros(a.size)
    for rev, grid in zip(dirs, grids):
        upper = np.maximum(upper, _max_root(a, *_covering(grid, rho, xi), rev, 1, floor=lower))
    return lower, upper


def _covering(grid, rho, xi):
    """Orders and bounds whose joint validity implies D_λ ≤ ξ + ρλ for every λ > 1.

    K(λ) = (λ − 1) D_λ is convex (a log-moment generating function), so on a cell
    [a, b] it lies below its chord; R(λ) = (λ − 1)(ξ + ρλ) exceeds its own chord by
    at most ρ(b − a)²/4. Hence K(a) ≤ R(a) − m and K(b) ≤ R(b) − m with
    m = ρ(b − a)²/4 give K ≤ R on [a, b]. (1, λ_0] is covered by D_λ ≤ D_{λ_0} ≤ ξ + ρ,
    [λ_M, ∞) by D_∞ ≤ ξ + ρλ_M.
    """
    w = np.diff(grid, axis=1)
    m = rho * w * w / 4.0
    m_pt = np.maximum(np.concatenate([m[:, :1], m], axis=1), np.concatenate([m, m[:, -1:]], axis=1))
    with np.errstate(invalid="ignore"):
        r_pt = xi + rho * grid - m_pt / (grid - 1.0)
    n = grid.shape[0]
    lam = np.concatenate([grid[:, :1], grid, np.full((n, 1), np.inf)], axis=1)
    r = np.concatenate([np.full((n, 1), xi + rho), r_pt, xi + rho * grid[:, -1:]], axis=1)
    return lam, r


def _refine(a, grid, rho, xi, rev, span, pts):
    """Add ``pts`` orders (geometric in λ − 1) between the ``span``-th neighbours of
    each row's best order."""
    aa = np.broadcast_to(a[:, None], grid.shape).ravel()
    lo, _ = _constraint_roots(aa, grid.ravel(), (xi + rho * grid).ravel(),
                              np.full(aa.shape, rev), 0, iters=40)
    j = np.argmax(lo.reshape(grid.shape), axis=1)
    rows = np.arange(a.size)
    left = grid[rows, np.maximum(j - span, 0)] - 1.0
    right = grid[rows, np.minimum(j + span, grid.shape[1] - 1)] - 1.0
    t = np.linspace(0.0, 1.0, pts + 2)[1:-1]
    fine = 1.0 + np.exp(np.log(left)[:, None] + t[None, :] * np.log(right / left)[:, None])
    return np.sort(np.concatenate([grid, fine], axis=1), axis=1)


def from_zcdp(rho, xi=0.0, *, one_sided: bool = False) -> TradeOff:
    """The optimal trade-off function implied by (ξ, ρ)-zCDP, certified.

    Parameters
    ----------
    rho : float
        ρ ≥ 0: D_λ ≤ ξ + ρλ for every order λ > 1 (Bun & Steinke 2016, Def 1.1).
    xi : float
        ξ ≥ 0 (default 0).
    one_sided : bool
        As in ``from_rdp``: False (default) assumes both orders of the pair.

    Returns
    -------
    TradeOff
        The supremum over all λ > 1 of the RDP conversion of ``from_rdp``. ``f(α)``
        is a certified lower bound (a finite set of orders), ``bounds(α)`` a
        certified bracket (the continuum covered by intervals, module docstring).
        ρ = 0 is pure ξ-DP (exact); ρ = ξ = 0 is ``Identity``.

    Examples
    --------
    >>> import fdp
    >>> round(fdp.from_zcdp(0.5)(0.1), 4)     # riskcal prints 0.517 (see the tests)
    0.5163
    """
    r = _validate.real("rho", rho, low=0.0)
    x = _validate.real("xi", xi, low=0.0)
    one_sided = _validate.flag("one_sided", one_sided)
    if r == 0.0:
        if x == 0.0:
            from fdp.families.identity import Identity
            return Identity()
        return from_rdp([np.inf], [x], one_sided=one_sided)
    return ZCDP(r, x, one_sided)
