"""Certified one-number summaries of numeric results: GDP μ and pure ε brackets.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import log_ndtr, logsumexp

from fdp._numerics import bisect_monotone
from fdp._types import ArrayLike, FloatArray
from fdp.engine.discretise import discretise
from fdp.engine.lattice import GridBudgetExceeded, Lattice, reflect, tables_held_for
from fdp.engine.pipeline import Part
from fdp.tradeoff import TradeOff

if TYPE_CHECKING:
    from fdp.engine.numeric import Numeric

_U = np.finfo(float).eps / 2.0
_LOG_MU = (-40.0, 20.0)                       # μ searched in [e^−40, e^20]
_LAMBDAS = np.logspace(-4.0, 6.0, 81)          # Chernoff orders tried (any λ > 0 is valid)
_Dirs = list[list[Part]]                       # per direction, its discretised groups
_LogUp = Callable[[FloatArray], FloatArray]     # ε ↦ log of a certified upper δ(ε)


# -- Access to the factors of a Numeric (its plain ``Recipe`` data) --
def _recipes(num: Numeric) -> list[tuple[tuple[tuple[TradeOff, int], ...], bool]] | None:
    """[(groups, reflected)] per direction of ``num``, or None if the factors are not kept."""
    src = getattr(num, "source", None)
    if isinstance(src, tuple) and src and all(hasattr(r, "groups") for r in src):
        return [(tuple(r.groups), bool(getattr(r, "reflected", False))) for r in src]
    return None


def _direction_parts(num: Numeric) -> _Dirs | None:
    """Per direction, the uncropped per-step lattices [(pess, opt, n)], or None."""
    if _recipes(num) is None:
        return None
    return [r.parts() for r in num.source]


def _flip(parts: list[Part]) -> list[Part]:
    """The parts of the inverse pair (slack-free per-step lattices reflect exactly)."""
    return [(reflect(lp), reflect(lo), n) for lp, lo, n in parts]


def _checked_directions(num: Numeric, dirs: _Dirs | None) -> _Dirs | None:
    """Directions whose δ must all vanish / stay below δ_μ, as lattice parts.
    Derivation: docs/derivations/engine.md."""
    if dirs is None or any(lat.slack != 0.0 for parts in dirs for p in parts for lat in p[:2]):
        return None
    if len(num.pess) == 1 and not _symmetric_factors(num):
        return [dirs[0], _flip(dirs[0])]
    return dirs


def _symmetric_factors(num: Numeric) -> bool:
    """Every factor is symmetric (f_i = f_i⁻¹), so is their composition:
    (⊗ f_i)⁻¹ = ⊗ f_i⁻¹ (DRS Prop 3.2), and f⁻¹ needs no separate check."""
    recipes = _recipes(num)
    return recipes is not None and all(f.symmetric for groups, _ in recipes for f, _n in groups)


# -- Closed forms for the factors --
def certified_singular(f: TradeOff) -> bool:
    """True when f's exact law has Q(L = +∞) > 0 or P(L = −∞) > 0.
    Derivation: docs/derivations/engine.md.

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine import certified_singular
    >>> certified_singular(fdp.EpsDelta(1.0, 1e-5)), certified_singular(fdp.Laplace(1.0))
    (True, False)
    """
    if not f.is_exact:
        return False
    law = f.law()
    if law is None:
        return False
    try:
        p_neginf, q_inf = law.singular_masses()
    except (ValueError, NotImplementedError, ArithmeticError):
        return False
    return p_neginf > 0.0 or q_inf > 0.0


def _factor_singular(num: Numeric) -> bool:
    """Some factor of ``num`` is ``certified_singular``: μ* = ε* = ∞ for ``num``."""
    recipes = _recipes(num)
    return recipes is not None and any(
        certified_singular(f) for groups, _ in recipes for f, _n in groups)


def _factor_mu_hi(f: TradeOff, step: float) -> float:
    """A certified μ with f ≥ G_μ: closed form, the factor's own certified bracket,
    or its lattices on the grid ``step`` when its loss is bounded (inf if none)."""
    fam = f._gaussian_component()
    if fam is not None:
        return fam[0]
    best = _hook(f, "_gdp_mu_bounds")
    if not math.isfinite(best) and f._exact_vertices():
        best = float(f.gdp_mu())        # exact at the vertices (conversions.summaries)
    if not math.isfinite(best):
        best = _single_factor_mu(f, step)
    return best


def _hook(f: TradeOff, name: str, end: int = 1) -> float:
    """The upper (``end`` = 1) or lower (``end`` = 0) end of f's own certified bracket
    ``name`` (inf, or 0 for the lower end, if it has none)."""
    none = math.inf if end else 0.0
    hook = getattr(f, name, None)
    if hook is None:
        return none
    try:
        return float(hook()[end])
    except (ValueError, ArithmeticError, NotImplementedError):
        return none


def _factor_pure_upper(num: Numeric) -> float:
    """Σ n_i ε_i over the factors (f_i ≥ f_{ε_i,0} composes to f_{Σ n_i ε_i, 0}, DRS
    Prop 3.2/KOV); ε_i from the factor's certified bracket or exact vertex formula."""
    recipes = _recipes(num)
    if recipes is None:
        return math.inf
    worst = 0.0
    for groups, _ in recipes:           # f⁻¹ ≥ f_{ε,0} ⇔ f ≥ f_{ε,0}
        terms: list[tuple[int, float]] = []
        for f, n in groups:
            e = _hook(f, "_pure_epsilon_bounds")
            if not math.isfinite(e) and f._exact_vertices():
                e = float(f.pure_epsilon())
            if not math.isfinite(e):
                return math.inf
            terms.append((n, e))
        worst = max(worst, _directed_sum(terms, up=True))
    return worst


def _factor_pure_lower(num: Numeric) -> float:
    """Σ n_i ε_i,lo over a direction whose factors are all symmetric.
    Derivation: docs/derivations/engine.md."""
    recipes = _recipes(num)
    if recipes is None:
        return 0.0
    best = 0.0
    for groups, _ in recipes:
        if all(f.symmetric for f, _n in groups):
            best = max(best, _directed_sum([(n, _hook(f, "_pure_epsilon_bounds", 0))
                                            for f, n in groups], up=False))
    return best


def _directed_sum(terms: list[tuple[int, float]], *, up: bool) -> float:
    """Σ n_i x_i over (n_i, x_i), exactly, rounded once towards +∞ (up) or −∞.
    Derivation: docs/derivations/engine.md."""
    if any(not math.isfinite(x) for _, x in terms):
        return math.inf if any(x == math.inf for _, x in terms) else -math.inf
    exact = sum((Fraction(n) * Fraction(x) for n, x in terms), Fraction(0))
    out = float(exact)
    if up and Fraction(out) < exact:
        out = math.nextafter(out, math.inf)
    elif not up and Fraction(out) > exact:
        out = math.nextafter(out, -math.inf)
    return out


def _round_up(x: float) -> float:
    if not math.isfinite(x):
        return x
    return float(np.nextafter(np.nextafter(x * (1.0 + 4.0 * _U), np.inf), np.inf))


def _round_down(x: float) -> float:
    if not math.isfinite(x) or x <= 0.0:
        return max(x, 0.0)
    return float(np.nextafter(np.nextafter(x * (1.0 - 4.0 * _U), 0.0), 0.0))


# -- The GDP privacy profile with certified rounding, and its inverse in μ --
def log_delta_gdp(mu: ArrayLike, eps: ArrayLike, side: int) -> FloatArray:
    """log δ_μ(ε) bounded from below (side = −1) or above (side = +1), vectorised.
    Derivation: docs/derivations/engine.md."""
    mu = np.asarray(mu, dtype=float)
    eps = np.asarray(eps, dtype=float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
        x = eps / mu
        a = log_ndtr(-x + 0.5 * mu)
        b = eps + log_ndtr(-x - 0.5 * mu)
        m = 1e-12 * (1.0 + np.abs(a) + np.abs(b))
        d = np.minimum(b - a, 0.0)
        r = np.exp(d)
        one_minus = -np.expm1(d)
        spread = r * np.expm1(m) + 4.0 * _U
        if side < 0:
            inner = one_minus - spread
            out = np.where(inner > 0, a - m + np.log(np.where(inner > 0, inner, 1.0)), -np.inf)
        else:
            inner = np.minimum(one_minus + spread, 1.0)
            out = np.minimum(a + m + np.log(inner), 0.0)
    ok = np.isfinite(a) & np.isfinite(b) & (mu > 0)
    if side < 0:
        return np.where(ok, out, -np.inf)
    return np.where(ok | (mu <= 0), np.where(mu > 0, out, -np.inf), 0.0)


def mu_needed(eps: ArrayLike, log_d: ArrayLike, side: int) -> FloatArray:
    """Per entry, the μ at which δ_μ(ε) reaches e^{log_d}, bracketed to the safe side.
    Derivation: docs/derivations/engine.md."""
    eps = np.asarray(eps, dtype=float)
    log_d = np.broadcast_to(np.asarray(log_d, dtype=float), eps.shape)
    lo = np.full(eps.shape, _LOG_MU[0])
    hi = np.full(eps.shape, _LOG_MU[1])
    check = -1 if side > 0 else +1

    def good(t: FloatArray) -> np.ndarray:      # "μ = e^t reaches the target" (certified side)
        return log_delta_gdp(np.exp(t), eps, check) >= log_d

    # the package's one bisection, to 60 / 2^52 in log μ (μ to ~1e-14 relative); the
    # ends are checked below, so no assumption on good(lo), good(hi) is needed
    lo, hi = bisect_monotone(good, lo, hi, rtol=0.0, atol=(_LOG_MU[1] - _LOG_MU[0]) / 2.0 ** 52)
    if side > 0:
        out = np.where(good(hi), np.exp(hi), np.inf)
        out = np.where(good(np.full(eps.shape, _LOG_MU[0])), 0.0 + np.exp(_LOG_MU[0]), out)
        return np.where(log_d == -np.inf, 0.0, out)
    out = np.where(good(lo), 0.0, np.exp(lo))
    return np.where(log_d == -np.inf, 0.0, out)


# -- Lattice helpers --
def _live(lat: Lattice) -> tuple[FloatArray, FloatArray]:
    live = lat.q > 0
    return lat.losses[live], lat.q[live]


def _support(parts: list[Part], side: int) -> tuple[float, bool]:
    """(Σ n max supp, any +∞ atom) of the exact composition of parts[side]."""
    top, inf_atom = 0.0, False
    for p in parts:
        lat, n = p[0] if side == 0 else p[1], p[2]
        L, _ = _live(lat)
        inf_atom |= lat.q_inf > 0
        if L.size == 0:
            return -math.inf, inf_atom
        top += n * float(L[-1])
    return top, inf_atom


def _log_mgf(parts: list[Part], lambdas: FloatArray) -> FloatArray:
    """Λ(λ) = Σ n log Σ q e^{λl} of the pessimistic factors (finite atoms), per λ."""
    tot = np.zeros(lambdas.size)
    for lp, _, n in parts:
        L, q = _live(lp)
        rows = max(1, 2_000_000 // max(L.size, 1))      # bounded work arrays
        for s in range(0, lambdas.size, rows):
            lam = lambdas[s:s + rows]
            tot[s:s + rows] += n * logsumexp(lam[:, None] * L[None, :], b=q[None, :], axis=1)
    return tot


def _chernoff(parts: list[Part]) -> _LogUp:
    """ε ↦ log of min_λ κ(λ) e^{Λ(λ) − λε}: an upper bound on δ of the exact composition
    of the pessimistic factors (finite atoms only), with a rounding margin."""
    lam = _LAMBDAS
    big = _log_mgf(parts, lam)
    log_kappa = lam * np.log(lam) - (1.0 + lam) * np.log1p(lam)
    base = big + log_kappa + 1e-9 * (1.0 + np.abs(big))   # logsumexp and products' rounding

    def log_delta(eps: FloatArray) -> FloatArray:
        vals = base[None, :] - lam[None, :] * np.asarray(eps, dtype=float)[:, None]
        return np.minimum(np.min(vals, axis=1), 0.0)
    return log_delta


# -- Pure ε --
def _recipe_unbounded(num: Numeric) -> bool:
    """True if some factor's loss is unbounded above (a Gaussian with μ > 0 inside):
    then the composed loss is unbounded and ε* = ∞ (the other factors' supports are
    non-empty, so the sum's support is unbounded too)."""
    recipes = _recipes(num)
    if recipes is None:
        return False
    for groups, _ in recipes:
        for f, _n in groups:
            fam = f._gaussian_component()
            if fam is not None and fam[0] > 0.0:
                return True
    return False


def pure_epsilon_bounds(num: Numeric) -> tuple[float, float]:
    """(lo, hi) around ε*, the smallest ε with f ≥ f_{ε,0} (docs/derivations/engine.md)."""
    if _recipe_unbounded(num) or _factor_singular(num):
        return math.inf, math.inf
    own = _direction_parts(num)
    if _genuine_infinity(own):
        return math.inf, math.inf
    # the factors' sums are rounded outwards exactly (``_directed_sum``); the lattice
    # supports and the grid read are float sums of grid losses, rounded outwards here
    lo = max(_round_down(_generic_pure_lower(num)), _factor_pure_lower(num))
    factor_hi = _factor_pure_upper(num)
    dirs = _checked_directions(num, own)
    if dirs is None:
        return min(lo, factor_hi), factor_hi
    hi, lo_s = 0.0, 0.0
    for parts in dirs:
        top, inf_atom = _support(parts, 0)
        hi = math.inf if inf_atom else max(hi, top)
        top_o, inf_o = _support(parts, 1)
        lo_s = math.inf if inf_o else max(lo_s, top_o)
    hi = min(_round_up(hi), factor_hi)
    return min(max(lo, _round_down(lo_s)), hi), hi


def _generic_pure_lower(num: Numeric) -> float:
    """ε* ≥ any ε with certified-lower δ(ε) > 0 (read from the composed lattices)."""
    grid = _eps_grid(num)
    d = num._delta_lower(grid)
    pos = np.flatnonzero(d > 0)
    return float(grid[pos[-1]]) if pos.size else 0.0


def _eps_grid(num: Numeric, points: int = 4001) -> FloatArray:
    top = max((lat.k0 + lat.q.size) * lat.step for lat in num.pess + num.opt)
    return np.linspace(0.0, max(top, 0.0) + num.step, points)


# -- GDP μ --
def _genuine_infinity(dirs: _Dirs | None) -> bool:
    """A slack-free optimistic factor lattice with a +∞ atom: the composition has Q-mass
    |Q|ⁿ − Fⁿ > 0 at L = +∞, so δ_f(ε) ≥ that for every ε (f(0) < 1): ε* = μ* = ∞."""
    if dirs is None:
        return False
    return any(p[1].slack == 0.0 and p[1].q_inf > 0 for parts in dirs for p in parts)


def gdp_mu_bounds(num: Numeric) -> tuple[float, float]:
    """(lo, hi) with lo ≤ μ* ≤ hi, μ* the smallest μ with f ≥ G_μ (docs/derivations/engine.md)."""
    if _factor_singular(num):
        return math.inf, math.inf
    hi = _factor_mu_upper(num)
    lo = _family_mu_lower(num)
    if 0.0 < lo and hi <= lo * (1.0 + 1e-12):
        return _round_down(lo), _round_up(hi)      # closed form: nothing to discretise
    dirs = _direction_parts(num)
    if _genuine_infinity(dirs):
        return math.inf, math.inf
    hi = min(hi, _lattice_mu_upper(num, dirs))
    lo = max(lo, _bulk_mu_lower(num))
    lo = min(lo, hi)          # both certified: a crossing could only be rounding
    return _round_down(lo), _round_up(hi)


def _factor_mu_upper(num: Numeric) -> float:
    recipes = _recipes(num)
    if recipes is None:
        return math.inf
    worst = 0.0
    for groups, _ in recipes:           # f⁻¹ ≥ G_μ ⇔ f ≥ G_μ: reflection changes nothing
        total = 0.0
        for f, n in groups:
            m = _factor_mu_hi(f, num.step)
            if not math.isfinite(m):
                return math.inf
            total += n * m * m
        worst = max(worst, math.sqrt(total))
    return worst


def _family_mu_lower(num: Numeric) -> float:
    """μ_T = √(Σ n μ_i²) when every factor of some direction is a (subsampled) Gaussian."""
    recipes = _recipes(num)
    if recipes is None:
        return 0.0
    best = 0.0
    for groups, _ in recipes:
        fams = [(fam[0], n) for f, n in groups if (fam := f._gaussian_component()) is not None]
        if len(fams) == len(groups):                  # every factor is of the family
            best = max(best, math.sqrt(sum(n * mu ** 2 for mu, n in fams)))
    return best


def _bulk_mu_lower(num: Numeric) -> float:
    """max over a grid of the μ that the certified-lower δ(ε) (and δ of f⁻¹) forces."""
    grid = _eps_grid(num)
    logs = []
    with np.errstate(divide="ignore"):
        logs.append(np.log(num._delta_lower(grid)))
        if len(num.pess) == 1:
            # δ_{f⁻¹}(ε) = e^ε (δ_f(−ε) − (1 − e^{−ε})), from below with δ_f from below
            inv = np.exp(grid) * (num._delta_lower(-grid) + np.expm1(-grid))
            inv = inv - 8.0 * _U * np.exp(grid)            # the subtraction's rounding
            logs.append(np.log(np.where(inv > 0, inv, 0.0)))
    best = 0.0
    for lg in logs:
        mus = mu_needed(grid, lg, -1)
        best = max(best, float(np.max(mus)))
    return best


def _lattice_mu_upper(num: Numeric, dirs: _Dirs | None) -> float:
    dirs = _checked_directions(num, dirs)
    if dirs is None:
        return math.inf
    with tables_held_for(num.pess):       # the cell search reads δ several times
        return _directions_mu_upper(
            [(parts, _plain_upper(num, j)) for j, parts in enumerate(dirs)], _bulk_top(num))


def _directions_mu_upper(dirs: list[tuple[list[Part], _LogUp]], bulk: float) -> float:
    """Certified μ from bounded-support directions [(parts, plain log-upper δ)]."""
    worst = 0.0
    for parts, plain in dirs:
        top, inf_atom = _support(parts, 0)
        if inf_atom or not math.isfinite(top):
            return math.inf                    # unbounded tail: route 1 only
        if top <= 0.0:
            continue                           # δ(ε) = 0 for ε ≥ 0: no constraint
        chern = _chernoff(parts)

        def log_upper(eps: FloatArray, plain: _LogUp = plain, chern: _LogUp = chern) -> FloatArray:
            return np.minimum(plain(eps), chern(eps))
        worst = max(worst, _sandwich(log_upper, top, bulk))
        if not math.isfinite(worst):
            return worst
    return worst


def _bulk_top(num: Numeric) -> float:
    return max((lat.k0 + lat.q.size) * lat.step for lat in num.pess)


def _plain_upper(num: Numeric, j: int) -> _LogUp:
    """ε ↦ log of the composed lattices' certified upper δ for direction j (ε ≥ 0)."""
    def log_upper(eps: FloatArray) -> FloatArray:
        eps = np.asarray(eps, dtype=float)
        with np.errstate(divide="ignore", over="ignore"):
            if len(num.pess) > 1:
                lat = num.pess[j]
                d = lat.delta_raw(eps) + lat.slack + lat.readback
                return np.log(np.minimum(d, 1.0))
            if j == 0:
                return np.log(num._delta(eps))
            # f⁻¹: e^ε (δ_f(−ε) + expm1(−ε)), from above with δ_f from above
            val = np.exp(eps) * (num._delta(-eps) + np.expm1(-eps)) + 8.0 * _U * np.exp(eps)
            return np.log(np.clip(val, 0.0, 1.0))
    return log_upper


def _lattice_upper(lat: Lattice) -> _LogUp:
    """ε ↦ log of a slack-free lattice's own δ, rounded up (its read-back bound)."""
    def log_upper(eps: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore"):
            d = lat.delta_raw(np.asarray(eps, dtype=float)) + lat.readback
            return np.log(np.minimum(d, 1.0))
    return log_upper


def _single_factor_mu(f: TradeOff, step: float) -> float:
    """Certified μ for one bounded-loss factor from its own lattices (inf otherwise)."""
    try:
        lp, lo = discretise(f, step)
    except (ValueError, GridBudgetExceeded, ArithmeticError):
        return math.inf
    if lp.slack != 0.0 or lp.q_inf > 0:
        return math.inf
    rp = reflect(lp)
    parts, flipped = [(lp, lo, 1)], [(rp, reflect(lo), 1)]
    bulk = (lp.k0 + lp.q.size) * step
    with tables_held_for((lp, rp)):
        return _directions_mu_upper(
            [(parts, _lattice_upper(lp)), (flipped, _lattice_upper(rp))],
            max(bulk, -rp.k0 * step))


def _sandwich(log_upper: _LogUp, top: float, bulk: float, rounds: int = 6, split: int = 8) -> float:
    """Smallest μ certified by cells [ε_i, ε_{i+1}] covering [0, top]: U(ε_i) ≤ δ_μ(ε_{i+1}).
    Derivation: docs/derivations/engine.md."""
    edges = np.unique(np.concatenate([np.linspace(0.0, top, 1001),
                                      np.linspace(0.0, min(bulk, top), 1001)]))
    lo_e, hi_e = edges[:-1], edges[1:]
    lu = log_upper(lo_e)
    cell = mu_needed(hi_e, lu, +1)
    best = float(np.max(mu_needed(lo_e, lu, +1)))   # a value the truth is near (not a bound)
    for _ in range(rounds):
        bound = float(np.max(cell))
        if not math.isfinite(bound) or bound - best <= 1e-9 * max(bound, 1e-300):
            break
        hot = cell > best
        if hot.sum() * split > 20_000:
            break
        t = np.linspace(0.0, 1.0, split + 1)
        sub = lo_e[hot, None] + (hi_e[hot, None] - lo_e[hot, None]) * t[None, :]
        new_lo, new_hi = sub[:, :-1].ravel(), sub[:, 1:].ravel()
        lu = log_upper(new_lo)
        new_cell = mu_needed(new_hi, lu, +1)
        best = max(best, float(np.max(mu_needed(new_lo, lu, +1))))
        lo_e = np.concatenate([lo_e[~hot], new_lo])
        hi_e = np.concatenate([hi_e[~hot], new_hi])
        cell = np.concatenate([cell[~hot], new_cell])
    return float(np.max(cell))


__all__ = ["certified_singular", "gdp_mu_bounds", "log_delta_gdp", "mu_needed",
           "pure_epsilon_bounds"]
