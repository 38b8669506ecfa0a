"""From Rényi DP and zero-concentrated DP to a trade-off function, certified.

The derivation: docs/derivations/renyi-conversion.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, FloatArray
from fdp.conversions.gdp import gdp_beta
from fdp.conversions.renyi_bounds import (
    _constraint_roots,
    _curve_bracket,
    _ends,
    _max_root,
    _RenyiCurve,
)
from fdp.families.identity import Identity


@dataclass(frozen=True, eq=False)
class RDPCurve(_RenyiCurve):
    """f(α) = max over the orders λ_i of the smallest β the two-point Rényi
    inequalities (A), (B) admit (Balle et al. 2020, Thm 5; docs/derivations/renyi-conversion.md)."""

    orders: tuple[float, ...]
    rdp: tuple[float, ...]
    one_sided: bool = False

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and self.orders == other.orders
                and self.rdp == other.rdp and self.one_sided == other.one_sided)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.orders, self.rdp, self.one_sided))

    def __repr__(self) -> str:
        kind = ", one_sided=True" if self.one_sided else ""
        return f"from_rdp({len(self.orders)} orders{kind})"

    def latex(self) -> str:
        return rf"f_{{\mathrm{{RDP}},{len(self.orders)}}}"

    def _classical_orders(self) -> tuple[FloatArray, FloatArray]:
        return np.array(self.orders), np.array(self.rdp)

    def _bracket(self, alpha: FloatArray) -> tuple[FloatArray, FloatArray]:
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


def from_rdp(orders: ArrayLike, rdp: ArrayLike, *, one_sided: bool = False) -> RDPCurve:
    """The optimal trade-off function implied by Rényi DP at the given orders.

    f(α) = max_i β_{λ_i}(α), the smallest type II error the two-point Rényi inequalities
    admit (Balle et al. 2020, Thm 5; Zhu, Dong & Wang 2022, App. F.1), for orders
    λ_i > 1 (``inf``: pure DP) and bounds r_i non-decreasing in λ (``inf``: no
    information). ``one_sided=False`` (default): the bounds hold for D_λ(P ‖ Q) and
    D_λ(Q ‖ P), and the result is symmetric; True: only D_λ(P ‖ Q), and the result
    bounds T(P, Q) alone. ``f(α)`` is a certified lower bound, ``bounds(α)`` a certified
    bracket (relative width ≲ 1e-9), ``delta(ε)`` a certified upper bound. Mechanisms'
    RDP curves add under composition, ``@`` is the tensor product of the curves: they
    differ. Derivation: docs/derivations/renyi-conversion.md.

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


_COARSE_RATIO = 1.25
_LAM_MIN = 1e-8        # smallest λ − 1 on the grid; (1, 1 + 1e-8] is one interval
# (span, points) of the two refinements around each α's best order: they only choose
# where the orders are dense (the covering of (1, ∞), and so the certification,
# never depend on them)
_REFINE = ((4, 48), (3, 24))
_ROUGH_ITERS = 40      # bisection steps of the roots that place them (fewer: worse)


@dataclass(frozen=True)
class ZCDP(_RenyiCurve):
    """(ξ, ρ)-zCDP: D_λ ≤ ξ + ρλ for all λ > 1 (Bun & Steinke 2016, Def 1.1),
    converted with the sup over the continuum of orders, bracketed
    (docs/derivations/renyi-conversion.md)."""

    rho: float
    xi: float = 0.0
    one_sided: bool = False

    def __repr__(self) -> str:
        kind = ", one_sided=True" if self.one_sided else ""
        return f"from_zcdp(rho={self.rho!r}, xi={self.xi!r}{kind})"

    def latex(self) -> str:
        return rf"f_{{\mathrm{{zCDP}},{self.rho:g},{self.xi:g}}}"

    def _classical_orders(self) -> tuple[FloatArray, FloatArray]:
        lam = 1.0 + np.geomspace(1e-4, max(1e4, 100.0 / self.rho), 1000)
        return lam, self.xi + self.rho * lam

    def _rdp_of(self, lam: FloatArray) -> FloatArray:
        """D_λ ≤ ξ + ρλ at every order λ > 1."""
        return self.xi + self.rho * lam

    def _bracket(self, alpha: FloatArray) -> tuple[FloatArray, FloatArray]:
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
        with np.errstate(over="ignore"):
            cap = gdp_beta(float(np.sqrt(2.0 * self.rho)), flat) * (1.0 + 1e-12) + 1e-300
        hi = np.maximum(np.minimum(hi, cap), lo)
        return lo.reshape(a.shape), hi.reshape(a.shape)


def _zcdp_inner(a: FloatArray, rho: float, xi: float,
                one_sided: bool) -> tuple[FloatArray, FloatArray]:
    top = float(np.clip(2000.0 / rho, 100.0, 1e12))
    count = int(np.ceil(np.log(top / _LAM_MIN) / np.log(_COARSE_RATIO))) + 1
    coarse = 1.0 + np.geomspace(_LAM_MIN, top, count)
    dirs = (False,) if one_sided else (False, True)
    lower = np.zeros(a.size)
    grids: list[FloatArray] = []
    for rev in dirs:
        grid = np.broadcast_to(coarse, (a.size, coarse.size))
        roots = _rough_roots(a, grid, rho, xi, rev)
        for span, pts in _REFINE:
            grid, roots = _refine(a, grid, roots, rho, xi, rev, span, pts)
        # every root so far is a certified lower end: their maximum is a floor
        lower = np.maximum(lower, roots.max(axis=1))
        lower = np.maximum(lower, _max_root(a, grid, xi + rho * grid, rev, 0, floor=lower))
        grids.append(grid)
    upper = np.zeros(a.size)
    for rev, grid in zip(dirs, grids):
        upper = np.maximum(upper, _max_root(a, *_covering(grid, rho, xi), rev, 1, floor=lower))
    return lower, upper


def _covering(grid: FloatArray, rho: float, xi: float) -> tuple[FloatArray, FloatArray]:
    """Orders and bounds whose joint validity implies D_λ ≤ ξ + ρλ for every λ > 1
    (docs/derivations/renyi-conversion.md, zCDP)."""
    w = np.diff(grid, axis=1)
    m = rho * w * w / 4.0
    m_pt = np.maximum(np.concatenate([m[:, :1], m], axis=1), np.concatenate([m, m[:, -1:]], axis=1))
    with np.errstate(invalid="ignore"):
        r_pt = xi + rho * grid - m_pt / (grid - 1.0)
    n = grid.shape[0]
    lam = np.concatenate([grid[:, :1], grid, np.full((n, 1), np.inf)], axis=1)
    r = np.concatenate([np.full((n, 1), xi + rho), r_pt, xi + rho * grid[:, -1:]], axis=1)
    return lam, r


def _rough_roots(a: FloatArray, grid: FloatArray, rho: float, xi: float,
                 rev: bool) -> FloatArray:
    """Certified lower ends of β_λ(α) at every order of ``grid`` (rows: α), after
    ``_ROUGH_ITERS`` bisection steps."""
    aa = np.broadcast_to(a[:, None], grid.shape).ravel()
    lo, _ = _constraint_roots(aa, grid.ravel(), (xi + rho * grid).ravel(),
                              np.full(aa.shape, rev), 0, iters=_ROUGH_ITERS)
    return lo.reshape(grid.shape)


def _refine(a: FloatArray, grid: FloatArray, roots: FloatArray, rho: float, xi: float,
            rev: bool, span: int, pts: int) -> tuple[FloatArray, FloatArray]:
    """Add ``pts`` orders (geometric in λ − 1) between the ``span``-th neighbours of
    each row's best order (by ``roots``, the rough roots at ``grid``); returns the
    merged grid and its rough roots (only the new orders are solved)."""
    j = np.argmax(roots, axis=1)
    rows = np.arange(a.size)
    left = grid[rows, np.maximum(j - span, 0)] - 1.0
    right = grid[rows, np.minimum(j + span, grid.shape[1] - 1)] - 1.0
    t = np.linspace(0.0, 1.0, pts + 2)[1:-1]
    fine = 1.0 + np.exp(np.log(left)[:, None] + t[None, :] * np.log(right / left)[:, None])
    both = np.concatenate([grid, fine], axis=1)
    order = np.argsort(both, axis=1, kind="stable")
    vals = np.concatenate([roots, _rough_roots(a, fine, rho, xi, rev)], axis=1)
    return (np.take_along_axis(both, order, axis=1), np.take_along_axis(vals, order, axis=1))


def from_zcdp(rho: float, xi: float = 0.0, *,
              one_sided: bool = False) -> Identity | RDPCurve | ZCDP:
    """The optimal trade-off function implied by (ξ, ρ)-zCDP, certified.

    D_λ ≤ ξ + ρλ for every order λ > 1 (Bun & Steinke 2016, Def 1.1): the supremum over
    all λ of ``from_rdp``'s conversion; ``f(α)`` a certified lower bound, ``bounds(α)`` a
    certified bracket (the continuum covered by intervals); ``one_sided`` as in
    ``from_rdp``. ρ = 0 is pure ξ-DP (exact); ρ = ξ = 0 is ``Identity``.
    Derivation: docs/derivations/renyi-conversion.md.

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
            return Identity()
        return from_rdp([np.inf], [x], one_sided=one_sided)
    return ZCDP(r, x, one_sided)
