"""The GDP summary of a curve, certified, and how well it fits (Dong, Roth & Su 2022).

μ* = the smallest μ with f ≥ G_μ, G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (DRS 2022, Def 2.7),
as a certified bracket, and the fit gap sup_α (f(α) − G_{μ*}(α)) (derivation:
docs/derivations/attack-risk.md, "GDP summary"). ``mu_bounds`` is the one computation
of μ*'s bracket: ``f.gdp_mu_bounds()``, ``f.gdp_mu()`` (its upper end) and ``f.gdp_fit()``
all read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import expit, logit, ndtr, ndtri, ndtri_exp

from fdp import _validate
from fdp._numerics import ArrayFn, maximise_unimodal
from fdp._types import FloatArray
from fdp.conversions._readout import _REL, _U, _one_minus_upper, _orders, _tradeoff
from fdp.conversions.summaries import _GRID_U, _round_up, _z_upper, gdp_mu_of
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.families.laplace import Laplace
from fdp.operations.envelope import Envelope, Strongest
from fdp.operations.inverse import Inverse
from fdp.operations.subsample import PoissonAdd, PoissonRemove
from fdp.status import Status
from fdp.tradeoff import TradeOff


@dataclass(frozen=True)
class GdpFit:
    """μ* = smallest μ with f ≥ G_μ (certified bracket) and the fit gap.

    mu_lo, mu_hi : lo ≤ μ* ≤ hi (inf, inf when no finite μ works).
    gap_lo, gap_hi : bracket for sup_α (f(α) − G_{μ*}(α)) ≥ 0 (nan if μ* = inf).
    gap_at : α where the lower gap bound is attained.
    bulk_mu : the largest pointwise Φ⁻¹(1 − α) − Φ⁻¹(f(α)) found on α ∈ [1e-300,
        1 − 1e-12], from f's upper side (a certified lower bound on μ*): the μ a GDP
        curve needs where doubles resolve f. Well below mu_lo means μ* is set in the
        far tail, α < 1e-300.
    binding_at : the α where that pointwise value is largest.
    ``summary()`` states it in words.

    Examples
    --------
    >>> import fdp
    >>> fit = fdp.Laplace(1.0).gdp_fit()
    >>> print(f"{fit.mu_hi:.4f}", fit.far_tail)
    1.0301 False
    """

    mu_lo: float
    mu_hi: float
    gap_lo: float
    gap_hi: float
    gap_at: float
    bulk_mu: float
    binding_at: float

    @property
    def far_tail(self) -> bool:
        """True when no α ≥ 1e-300 needs a μ within 0.1 % of μ*: μ* is set at α < 1e-300."""
        return bool(self.bulk_mu < self.mu_lo * (1.0 - 1e-3))

    def summary(self) -> str:
        """The read-out in words."""
        if not np.isfinite(self.mu_lo):
            return ("no finite μ: f(0) < 1 or f reaches 0 before α = 1, which no G_μ does "
                    "(e.g. δ > 0): no μ-GDP summary applies, read the curve")
        if not np.isfinite(self.mu_hi):
            return (f"no finite upper bound on μ* could be certified (μ* ≥ {self.mu_lo:.6g}; "
                    "f may reach 0 before α = 1, or its far tail is out of reach): "
                    "no μ-GDP summary applies, read the curve")
        text = f"smallest μ with f ≥ G_μ: μ* ∈ [{self.mu_lo:.6g}, {self.mu_hi:.6g}]"
        if self.far_tail:
            text += (f"; it is set in the far tail (α < 1e-300): where doubles resolve the "
                     f"curve, the largest μ it needs is {self.bulk_mu:.4g} (at α = "
                     f"{self.binding_at:.3g})")
        else:
            text += f"; the curve comes closest to G_μ* near α = {self.binding_at:.3g}"
        if self.gap_hi < 1e-3:
            return text + (f". G_μ* fits the curve: f − G_μ* ≤ {self.gap_hi:.2g} everywhere, "
                           "the μ summary is faithful.")
        text += (f". Elsewhere the curve lies up to {self.gap_lo:.3g} (≤ {self.gap_hi:.3g}) "
                 f"above G_μ* in β (at α = {self.gap_at:.3g})")
        if self.gap_lo > 0.05:
            text += ": the μ summary overstates the attacker there, read the curve"
        return text + "."


def mu_bounds(f: TradeOff) -> tuple[float, float]:
    """(lo, hi) around μ* = inf{μ : f ≥ G_μ}: the one computation behind ``f.gdp_mu_bounds()``,
    ``f.gdp_mu()`` and ``f.gdp_fit()``. Upper side, first that applies: a closed form (G_μ; a
    subsampled G_μ, whose far tail makes μ* = μ exactly, see ``fdp.engine.summaries``);
    the object's certified hook ``_gdp_mu_bounds`` (when finite); the exact vertex formula of a
    piecewise-linear f; the members of an envelope (G_μ convex: every member ≥ G_μ
    ⇒ the envelope is) or of a max (one member suffices); else the log-space
    sandwich ``_mu_upper_sandwich`` (inf when it cannot be certified). Lower side: the
    largest pointwise value Φ⁻¹(1 − α) − Φ⁻¹(f(α)) found (``_pointwise_max``)."""
    if f._upper(np.zeros(1))[0] < 1.0 - 4 * _U:
        return np.inf, np.inf          # G_μ(0) = 1 > f(0) (f's upper side): no finite μ
    fam = f._gaussian_component()     # G_μ, a subsampled G_μ: μ* = μ exactly
    if fam is not None:
        return fam[0], fam[0]
    hook = getattr(f, "_gdp_mu_bounds", None)
    lo_h, hi_h = (float(v) for v in hook()) if hook is not None else (0.0, np.inf)
    if lo_h == np.inf:
        return np.inf, np.inf          # the hook proved that no finite μ exists
    if np.isfinite(hi_h):
        hi = hi_h
    elif f._exact_vertices():
        hi = gdp_mu_of(f)
    elif isinstance(f, Inverse):
        hi = mu_bounds(f.of)[1]          # f⁻¹ ≥ G_μ ⇔ f ≥ G_μ (G_μ symmetric)
    elif isinstance(f, Envelope):
        hi = max(mu_bounds(m)[1] for m in f.members)
    elif isinstance(f, Strongest):
        hi = min(mu_bounds(m)[1] for m in f.members)
    else:
        hi = max(_mu_upper_sandwich(g) for g in _orders(f))
    # both lower sides are certified: keep the larger
    lo = max(lo_h, _pointwise_max(f, _GRID_U)[0])
    return min(lo, hi), hi


def _loss_bound(g: TradeOff) -> float | None:
    """A finite ε with δ_g(ε) = 0 known from g's structure (the privacy loss of T(P, Q)
    is ≤ ε Q-a.s.), or None: Laplace L_μ: μ; Id: 0; the remove direction of Poisson
    subsampling: −log(1 − p); the add direction p f + (1 − p) Id:
    log(1 − p + p e^{ε_f}) (ZDW 2022, Thm 11)."""
    if isinstance(g, Identity):
        return 0.0
    if isinstance(g, Laplace):
        return float(g.mu)
    if isinstance(g, PoissonRemove):
        p = g.p
        return None if p >= 1.0 else float(-np.log1p(-p))
    if isinstance(g, PoissonAdd):
        inner = _loss_bound(g.of)
        return None if inner is None else float(np.log1p(g.p * np.expm1(inner)))
    return None


def _mu_upper_sandwich(g: TradeOff, rounds: int = 6, split: int = 8) -> float:
    """Certified μ with g ≥ G_μ on α ∈ [0, 1/2] (inf if none is found).

    In log space, with T(α) ≥ 1 − g(α) from ``_one_minus_upper`` and
    1 − G_μ(α) = Φ(μ + Φ⁻¹(α)): on a cell [a_i, a_{i+1}] both are monotone, so
    μ_i = Φ⁻¹(T(a_{i+1})) − Φ⁻¹(a_i) suffices there. Below a_0 = expit(−690) ≈ 1e-300:
    if g's privacy loss is bounded by ε_m (``_loss_bound``), 1 − g(α) ≤ e^{ε_m} α, and
    Φ(μ + Φ⁻¹(α))/α grows as α falls (Φ is log-concave), so
    log Φ(μ + Φ⁻¹(a_0)) ≥ ε_m + log a_0 covers [0, a_0]. Without a structural bound
    nothing is certified there (a computed δ_g(ε) = 0 may be an underflow) and the
    result is inf, the trivially safe value.
    Applied to f and f⁻¹ (the graph of f on α ≥ 1/2 is that of f⁻¹ on α ≤ f(1/2),
    and f ≥ G_μ ⇔ f⁻¹ ≥ G_μ), it covers [0, 1].
    """
    eps_m = _loss_bound(g)
    if eps_m is None:
        return np.inf
    u0 = float(_GRID_U[0])
    log_a0 = u0 - np.log1p(np.exp(u0))
    z0 = float(ndtri_exp(np.array([log_a0]))[0])
    tail = float(ndtri_exp(np.array([eps_m + log_a0]))[0]) - z0 if eps_m + log_a0 < 0 else np.inf
    u = np.linspace(u0, 0.0, 2001)
    left, right = u[:-1], u[1:]
    bound = tail
    for r in range(rounds + 1):
        t_up = _one_minus_upper(g, expit(right))
        with np.errstate(divide="ignore"):
            cell = ndtri(t_up) - ndtri(expit(left))
        cell = np.where(t_up >= 1.0, np.inf, cell)
        point = ndtri(t_up) - ndtri(expit(right))        # ≈ value, to aim the refinement
        best = float(np.max(point, initial=0.0))
        bound = max(tail, float(np.max(cell)))
        hot = cell > best + 1e-9 * max(1.0, best)
        if r == rounds or not hot.any() or hot.sum() * split > 20_000:
            break
        t = np.linspace(0.0, 1.0, split + 1)
        sub = left[hot, None] + (right[hot] - left[hot])[:, None] * t[None, :]
        cold = float(np.max(np.where(hot, -np.inf, cell), initial=tail))
        tail = max(tail, cold)            # settled cells keep their (valid) bound
        left, right = sub[:, :-1].ravel(), sub[:, 1:].ravel()
    return _round_up(max(bound, 0.0) * (1.0 + _REL))


def _pointwise_max(f: TradeOff, u: np.ndarray) -> tuple[float, float]:
    """(max_α lower pointwise μ(α), a grid α near the maximiser) over α = expit(u):
    the grid, then golden section between the best point's neighbours (any α gives a
    valid lower bound, so the search only has to find a good one)."""
    values, ok = _pointwise_mu(f._upper, expit(u))
    if not ok.any():
        return 0.0, float("nan")
    j = int(np.argmax(values))

    def row(x: FloatArray) -> FloatArray:
        return _pointwise_mu(f._upper, expit(x))[0]

    best = float(maximise_unimodal(row, u, values[None, :])[0])
    return max(best, 0.0), float(expit(u[j]))


def _pointwise_mu(upper_beta: ArrayFn,
                  a: FloatArray) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Certified lower bounds Φ⁻¹(1 − α) − Φ⁻¹(f(α)) ≤ μ* at each α (−inf where
    f(α) is not resolved, f > 1 − 1e-9 or f = 0), with the rounding of ndtri
    near 1 allowed for: |dΦ⁻¹/dβ| = 1/φ(z)."""
    b = upper_beta(a)
    ok = (b > 0.0) & (b <= 1.0 - 1e-9) & (a > 0.0) & (a < 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        zb = ndtri(b)
        # b carries a rounding error of a few ulps of itself: |dΦ⁻¹| ≤ 4u·b/φ(z)
        slack = 4.0 * _U * b / np.maximum(np.exp(-0.5 * zb * zb) / np.sqrt(2 * np.pi), 1e-320)
        mu = _z_upper(a) - zb - slack
        mu = mu - _REL * np.abs(mu)
    ok &= np.isfinite(mu)
    return np.where(ok, mu, -np.inf), ok


def gdp_fit(f: TradeOff) -> GdpFit:
    """Certified bracket for μ* = min{μ : f ≥ G_μ} and how well G_{μ*} fits f.

    μ*: ``mu_bounds``. Fit gap: sup_α (f(α) − G_{μ*}(α)) ≥ 0, bracketed from the grid:
    below by max_i (f_lo(α_i) − G_{μ_lo}(α_i)), above by
    max_i (f_up(α_i) − G_{μ_hi}(α_{i+1})) (both functions are non-increasing). Also the
    bulk μ: the largest pointwise value where doubles resolve f.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions import gdp_fit
    >>> fit = gdp_fit(fdp.Laplace(1.0))
    >>> print(f"{fit.mu_lo:.4f} {fit.mu_hi:.4f}")
    1.0301 1.0301
    """
    f = _tradeoff(f)
    if isinstance(f, Gaussian):           # f = G_μ: μ* = μ and no gap, in closed form
        mu = float(f.mu)
        return GdpFit(mu, mu, 0.0, 0.0, 0.0, mu, 0.5)
    mu_lo, mu_hi = mu_bounds(f)
    # the grid of gdp_mu's sandwich, α ∈ [1e-300, 1 − 1e-12], then both ends
    inner = expit(_GRID_U)
    a = np.concatenate([[0.0], inner, [1.0]])
    lo_b, up_b = f._beta(a), f._upper(a)
    z = _z_upper(a)
    bulk, binding = _pointwise_max(f, _GRID_U)
    if not np.isfinite(mu_hi):
        return GdpFit(mu_lo, mu_hi, float("nan"), float("nan"), float("nan"), bulk, binding)
    g_lo_mu = ndtr(z - mu_lo)           # G_{μ_lo} ≥ G_{μ*}
    g_hi_mu = ndtr(z - mu_hi)           # G_{μ_hi} ≤ G_{μ*}
    diff = lo_b - g_lo_mu
    j = int(np.argmax(diff))
    gap_lo = max(float(diff[j]) - 2 * _U, 0.0)
    gap_hi = min(_gap_upper(f, a, up_b, g_hi_mu, mu_hi, gap_lo) + 2 * _U, 1.0)
    return GdpFit(mu_lo, mu_hi, gap_lo, max(gap_hi, gap_lo), float(a[j]), bulk, binding)


@dataclass(frozen=True)
class GdpRangeFit:
    """μ fitted to f over a range of false-positive rates: an approximation.

    mu = max over α ∈ [fpr_low, fpr_high] of Φ⁻¹(1 − α) − Φ⁻¹(f(α)), the least μ with
    f ≥ G_μ on that range only. Outside it f may lie below G_μ, so "f is μ-GDP" does
    not follow: ``status`` is ``Status.APPROXIMATION``; the guarantee is ``gdp_fit``.
    ``binding_at``: the α where the fit binds.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions.gdp_fit import gdp_fit_range
    >>> gdp_fit_range(fdp.Gaussian(0.7), 0.01, 0.5)
    GdpRangeFit(mu=0.7, FPR in [0.01, 0.5], approximation: f ≥ G_mu on that range only)
    """

    mu: float
    fpr_low: float
    fpr_high: float
    binding_at: float

    @property
    def status(self) -> Status:
        """Always ``Status.APPROXIMATION`` (not a guarantee outside the range)."""
        return Status.APPROXIMATION

    def __repr__(self) -> str:
        return (f"GdpRangeFit(mu={self.mu:.6g}, FPR in [{self.fpr_low:g}, {self.fpr_high:g}], "
                "approximation: f ≥ G_mu on that range only)")


def gdp_fit_range(f: TradeOff, fpr_low: float, fpr_high: float) -> GdpRangeFit:
    """The least μ with f(α) ≥ G_μ(α) for α in [fpr_low, fpr_high] (an approximation).

    The maximum of the pointwise μ of ``GdpRangeFit`` over 0 < fpr_low < fpr_high < 1, on
    a logit grid refined by golden section, read from f's certified lower curve: the μ
    summary practitioners quote for the part of the curve an auditor can test (e.g.
    FPR ∈ [1e-3, 0.5]); no guarantee. Over the whole of (0, 1) use ``gdp_fit``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions.gdp_fit import gdp_fit_range
    >>> print(f"{gdp_fit_range(fdp.Laplace(1.0), 0.01, 0.05).mu:.4f}")
    0.5460
    """
    f = _tradeoff(f)
    lo = _validate.real("fpr_low", fpr_low, low=0.0, high=1.0, low_open=True, high_open=True)
    hi = _validate.real("fpr_high", fpr_high, low=0.0, high=1.0, low_open=True,
                        high_open=True)
    if hi <= lo:
        raise ValueError(f"fpr_high must exceed fpr_low = {lo!r}, got {hi!r}")
    if isinstance(f, Gaussian):
        return GdpRangeFit(float(f.mu), lo, hi, lo)
    u = np.linspace(float(logit(lo)), float(logit(hi)), 401)
    values, ok = _pointwise_mu(f._beta, expit(u))
    if not ok.any():
        return GdpRangeFit(float("inf"), lo, hi, lo)
    j = int(np.argmax(values))

    def row(x: FloatArray) -> FloatArray:
        return _pointwise_mu(f._beta, expit(np.clip(x, u[0], u[-1])))[0]

    best = float(maximise_unimodal(row, u, values[None, :])[0])
    return GdpRangeFit(max(best, float(values[j]), 0.0), lo, hi, float(expit(u[j])))


def _gap_upper(f: TradeOff, a: FloatArray, up_b: FloatArray, g_hi: FloatArray, mu_hi: float,
               target: float, rounds: int = 8, split: int = 16) -> float:
    """max over cells [a_i, a_{i+1}] of f_up(a_i) − G_{μ_hi}(a_{i+1}) ≥ sup (f − G_{μ*}),
    refining the cells whose bound exceeds ``target`` (a lower bound of the sup)
    ``split`` ways, ``rounds`` times; the maximum is a valid bound at every stage."""
    left, right, f_left, g_right = a[:-1], a[1:], up_b[:-1], g_hi[1:]
    bound = float(np.max(f_left - g_right))
    for _ in range(rounds):
        cell = f_left - g_right
        bound = float(np.max(cell))
        hot = cell > target + 1e-9
        if not hot.any() or hot.sum() * split > 50_000:
            break
        t = np.linspace(0.0, 1.0, split + 1)
        # split in logit(α) where both ends are inside (0, 1), linearly otherwise
        lo, hi = left[hot], right[hot]
        sub = lo[:, None] + (hi - lo)[:, None] * t[None, :]
        inside = (lo > 0.0) & (hi < 1.0)
        if inside.any():
            ul = np.log(lo[inside]) - np.log1p(-lo[inside])
            uh = np.log(hi[inside]) - np.log1p(-hi[inside])
            sub[inside] = expit(ul[:, None] + (uh - ul)[:, None] * t[None, :])
            sub[inside, 0], sub[inside, -1] = lo[inside], hi[inside]
        left, right = sub[:, :-1].ravel(), sub[:, 1:].ravel()
        f_left = f._upper(left)
        g_right = ndtr(_z_upper(right) - mu_hi)
    return max(bound, float(np.max(f_left - g_right)))


def gdp_shortfall(f: TradeOff, mu: float) -> tuple[float, float]:
    """Certified lower bound on sup_α (G_μ(α) − f(α)) and the α attaining it.

    Positive ⇒ f is NOT μ-GDP (proven from f's upper side: G_μ(α) − f_up(α) > 0 at
    that α, with rounding allowed for; 0 when no violation is found on the grid). Use it
    to test a μ reported by a fit (e.g. a "μ with regret" from another tool).

    Examples
    --------
    >>> import fdp
    >>> from fdp.conversions import gdp_shortfall
    >>> short, at = gdp_shortfall(fdp.Laplace(1.0), 0.5)
    >>> bool(short > 0.0)
    True
    """
    f = _tradeoff(f)
    m = _validate.real("mu", mu, low=0.0)
    a = expit(_GRID_U)
    diff = ndtr(_z_upper(a) - m) - f._upper(a) - 4 * _U
    j = int(np.argmax(diff))
    return max(float(diff[j]), 0.0), float(a[j])
