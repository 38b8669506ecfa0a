"""The central limit theorem for trade-off functions, with its Berry–Esseen band.

The derivation: docs/derivations/limits.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from fdp import _validate
from fdp._numerics import alpha_grid as _alpha_grid
from fdp._numerics import golden_max
from fdp._types import ArrayLike, FloatOrArray
from fdp.conversions.gdp import gdp_beta
from fdp.families import EpsDelta, Gaussian, Identity, from_points
from fdp.limits.functionals import Functionals, functionals
from fdp.operations.weaken import weaken
from fdp.operations.with_delta import with_delta
from fdp.status import Status
from fdp.tradeoff import TradeOff, count_factors

#: The Berry–Esseen constant used by DRS Thm 3.4.
BERRY_ESSEEN_CONSTANT = 0.56


@dataclass(frozen=True)
class BerryEsseenLower(TradeOff):
    """The lower side of the DRS Thm 3.4 band, convexified: h** with
    h(α) = max(0, G_μ(max(α, γ) + γ) − γ) (see docs/derivations/limits.md).

    Parameters
    ----------
    mu : float
        μ ≥ 0 of the CLT.
    gamma : float
        γ ∈ [0, 1/2), the Berry–Esseen error term.

    Examples
    --------
    >>> from fdp.limits import BerryEsseenLower
    >>> print(f"{BerryEsseenLower(1.0, 0.1)(0.3):.4f}")
    0.1261
    """

    mu: float
    gamma: float
    _tangent: float = field(init=False, repr=False, compare=False)
    _slope: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        mu = _validate.real("mu", self.mu, low=0.0)
        gamma = _validate.real("gamma", self.gamma, low=0.0, high=0.5, high_open=True)
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "gamma", gamma)
        c = self._curve(np.array([gamma]))[0]
        if gamma == 0.0 or c <= 0.0:
            object.__setattr__(self, "_tangent", 0.0)
            object.__setattr__(self, "_slope", 0.0)
            return
        # Tangent from (0, c) to the convex curve on [γ, α0], α0 where it reaches 0:
        # the chord slope (φ(α) − c)/α is unimodal there: its derivative is −ψ/α²
        # with ψ = φ − c − αφ' decreasing.
        alpha0 = 1.0 - gamma
        lo, hi = gamma, alpha0

        def neg_slope(a: np.ndarray) -> np.ndarray:
            return -(self._curve(a) - c) / a

        t = float(golden_max(neg_slope, np.array([lo]), np.array([hi]))[0])
        s = float((self._curve(np.array([t]))[0] - c) / t)
        # _beta takes min(line, curve): h is itself a lower bound, so search error
        # can cost convexity at rounding level but never validity.
        object.__setattr__(self, "_tangent", t)
        object.__setattr__(self, "_slope", s)

    def _curve(self, alpha: np.ndarray) -> np.ndarray:
        """φ(α) = max(0, G_μ(min(max(α, γ) + γ, 1)) − γ)."""
        g = self.gamma
        x = np.minimum(np.maximum(alpha, g) + g, 1.0)
        return np.maximum(0.0, gdp_beta(self.mu, x) - g)

    @property
    def symmetric(self) -> bool:
        return False

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        if self._tangent == 0.0:
            return self._curve(alpha)
        c = self._curve(np.array([self.gamma]))[0]
        line = np.maximum(0.0, c + self._slope * alpha)
        return np.where(alpha < self._tangent, np.minimum(line, self._curve(alpha)),
                        self._curve(alpha))

    def latex(self) -> str:
        return rf"\mathrm{{BE}}^-_{{{self.mu:g},{self.gamma:g}}}"


def berry_esseen_upper(mu: float, gamma: float, points: int = 4001) -> TradeOff:
    """The upper side of the DRS Thm 3.4 band as a piecewise-linear trade-off function:
    the lower convex hull of samples of u (docs/derivations/limits.md); ≥ u** ≥ f.

    Parameters
    ----------
    mu : float
        μ ≥ 0 of the CLT.
    gamma : float
        γ ∈ [0, 1/2), the Berry–Esseen error term.
    points : int
        Number of evenly spaced samples of u (a logit grid is added).

    Returns
    -------
    TradeOff
        A piecewise-linear trade-off function above the composition.

    Examples
    --------
    >>> from fdp.limits import berry_esseen_upper
    >>> print(f"{berry_esseen_upper(1.0, 0.1)(0.3):.4f}")
    0.5371
    """
    a = np.unique(np.concatenate([np.linspace(0.0, 1.0, points), _alpha_grid(501)]))
    u = 1.0 - a
    inside = (a >= gamma) & (a <= 1.0 - gamma)
    u = np.where(inside, np.minimum(u, gdp_beta(mu, np.clip(a - gamma, 0.0, 1.0)) + gamma), u)
    right = a > 1.0 - gamma
    if right.any() and 1.0 - 2.0 * gamma >= 0.0:
        cap = gdp_beta(mu, np.array([1.0 - 2.0 * gamma]))[0] + gamma
        u = np.where(right, np.minimum(u, cap), u)
    return from_points(a, np.clip(u, 0.0, 1.0))


@dataclass(frozen=True)
class CLTResult:
    """The CLT approximation of a composition and its Berry–Esseen band.

    ``approx`` = G_μ ⊗ f_{0,δ} is an APPROXIMATION, not a privacy guarantee.
    ``lower`` ≤ truth ≤ ``upper`` is guaranteed by DRS Thm 3.4 (exact functionals,
    ``accuracy == 0``); ``vacuous`` is True when γ ≥ 1/2 and the band is trivial.

    Parameters
    ----------
    mu, gamma, delta : float
        μ and γ of DRS Thm 3.4 and the δ split off exactly.
    approx, lower, upper : TradeOff
        The approximation and the band.
    n : int
        Number of factors.
    vacuous : bool
        True when γ ≥ 1/2.
    accuracy : float
        Largest error of the functionals (0 when exact).
    functionals : tuple of Functionals
        The functionals of the distinct factors.

    Examples
    --------
    >>> import fdp
    >>> r = fdp.clt([fdp.EpsDelta(0.5)] * 10)
    >>> bool(r.lower(0.3) <= (fdp.EpsDelta(0.5) ** 10)(0.3) <= r.upper(0.3))
    True
    """

    mu: float
    gamma: float
    delta: float
    approx: TradeOff
    lower: TradeOff
    upper: TradeOff
    n: int
    vacuous: bool
    accuracy: float
    functionals: tuple[Functionals, ...] = field(repr=False)

    def __repr__(self) -> str:
        band = "vacuous (gamma >= 1/2)" if self.vacuous else f"gamma={self.gamma:.4g}"
        return (f"CLTResult(mu={self.mu:.6g}, {band}, delta={self.delta:.3g}, n={self.n}; "
                "approximation, not a bound: the guarantee is the [lower, upper] band)")

    def epsilon(self, delta: ArrayLike) -> FloatOrArray:
        """ε(δ) of the CLT approximation (NOT a bound; see ``epsilon_band``)."""
        return self.approx.epsilon(delta)

    def epsilon_band(self, delta: ArrayLike) -> tuple[FloatOrArray, FloatOrArray]:
        """(ε of ``upper``, ε of ``lower``): the ε the Berry–Esseen band allows at δ."""
        return self.upper.epsilon(delta), self.lower.epsilon(delta)


def _as_list(fs: TradeOff | Iterable[TradeOff],
             more: Iterable[TradeOff] = ()) -> list[TradeOff]:
    """The trade-off functions of ``clt(fs)``: one, a collection, or several positional."""
    if isinstance(fs, TradeOff):
        fs = [fs]
    try:
        items = list(fs)
    except TypeError:
        raise TypeError(f"fs must be a TradeOff or an iterable of them, got "
                        f"{type(fs).__name__}") from None
    items += list(more)
    if not items:
        raise ValueError("fs must contain at least one trade-off function (got an empty list)")
    for i, f in enumerate(items):
        if not isinstance(f, TradeOff):
            raise TypeError(f"fs[{i}] must be a TradeOff, got {type(f).__name__}")
    return items


_grouped = count_factors


def is_symmetric(f: TradeOff, atol: float = 1e-9, *, tol: float | None = None) -> bool:
    """True if f is known symmetric, or f and f⁻¹ agree within ``atol`` on a grid.

    Parameters
    ----------
    f : TradeOff
        The trade-off function.
    atol : float
        Largest allowed |f(α) − f⁻¹(α)| on 401 points of [0, 1].
    tol : float, optional
        Earlier name of ``atol`` (``tol`` elsewhere means the engine's grid accuracy).

    Examples
    --------
    >>> import fdp
    >>> from fdp.limits import is_symmetric
    >>> is_symmetric(fdp.Gaussian(1.0)), is_symmetric(fdp.EpsDelta(1.0, 0.1))
    (True, True)
    """
    if tol is not None:
        atol = tol
    if f.symmetric:
        return True
    a = _alpha_grid(401)
    return bool(np.max(np.abs(f(a) - f.inverse()(a))) <= atol)


def _prepare(items: list[TradeOff], symmetrize: str | None,
             need_symmetric: bool) -> list[tuple[TradeOff, int]]:
    out = []
    for f, n in _grouped(items):
        if need_symmetric and not is_symmetric(f):
            if symmetrize is None:
                raise ValueError(
                    f"the Berry-Esseen CLT (DRS Thm 3.4) needs symmetric trade-off functions, "
                    f"but {f!r} is not symmetric (f != f^-1). Pass one_sided=False "
                    "(max{f, f^-1}: valid if the bound holds for both orders of each "
                    "neighbour pair) or one_sided=True (min{f, f^-1}**: valid when "
                    "only one order is known, e.g. add/remove neighbours).")
            if symmetrize == "two_sided":
                f = f.symmetrize()
            elif symmetrize == "one_sided":
                f = f.symmetrize(one_sided=True)
        out.append((f, n))
    return out


def _symmetrisation(one_sided: bool | None) -> str | None:
    """The symmetrisation asked for by ``one_sided``: None, "two_sided" or "one_sided"."""
    if one_sided is None:
        return None
    if not isinstance(one_sided, (bool, np.bool_)):
        raise TypeError(f"one_sided must be True, False or None, got {one_sided!r}")
    return "one_sided" if one_sided else "two_sided"


def clt(fs: TradeOff | Iterable[TradeOff], *more: TradeOff,
        one_sided: bool | None = None) -> CLTResult:
    """CLT approximation G_μ (⊗ f_{0,δ}) of f_1 ⊗ … ⊗ f_n and its Berry–Esseen band.

    Dong, Roth & Su (2022), Theorems 3.4 and 3.5 and the (ε, δ) CLT of §3.2; the
    formulas: docs/derivations/limits.md. The approximation is NOT a privacy bound;
    the band [``lower``, ``upper``] is guaranteed when the functionals are exact.

    Parameters
    ----------
    fs : TradeOff or iterable of TradeOff
        f_1, …, f_n (equal ones are counted, so ``[f] * 1000`` is cheap); more
        functions may follow as positional arguments, ``clt(f, g)`` = ``clt([f, g])``.
    one_sided : bool, optional
        How to symmetrise an asymmetric f_i (the theorem needs symmetric ones), as in
        ``TradeOff.symmetrize(one_sided=...)``: False gives max{f, f⁻¹} (the bound
        holds for both orders of each neighbour pair), True gives min{f, f⁻¹}** (one
        order only, e.g. add/remove neighbours). None (default): an asymmetric input
        raises ValueError.

    Returns
    -------
    CLTResult
        ``mu``, ``gamma``, ``delta``, ``approx`` (G_μ ⊗ f_{0,δ}) and the band
        ``lower`` ≤ truth ≤ ``upper``.

    Raises
    ------
    ValueError
        If ``fs`` is empty, or an f_i is asymmetric and no symmetrisation is given.
    TypeError
        If an item is not a TradeOff.

    Examples
    --------
    Ten f_{0.5,0} (Dong, Roth & Su 2022, §3.2):

    >>> import fdp
    >>> r = fdp.clt([fdp.EpsDelta(0.5)] * 10)
    >>> print(f"{r.mu:.3f} {r.gamma:.3f}")
    1.598 0.194
    """
    symmetrize = _symmetrisation(one_sided)
    items = _as_list(fs, more)
    prepared = _prepare(items, symmetrize, need_symmetric=True)
    funcs = [(functionals(f), n) for f, n in prepared]
    n_total = sum(n for _, n in prepared)
    kl = sum(n * fn.kl for fn, n in funcs)
    k2 = sum(n * fn.kappa2 for fn, n in funcs)
    kl_sq = sum(n * fn.kl ** 2 for fn, n in funcs)
    k3b = sum(n * fn.kappa3_bar for fn, n in funcs)
    log_keep = sum(n * np.log1p(-fn.delta) if fn.delta < 1.0 else -np.inf for fn, n in funcs)
    delta = float(-np.expm1(log_keep)) + 0.0  # + 0.0: no −0.0
    accuracy = max(fn.accuracy for fn, _ in funcs)
    var = k2 - kl_sq
    if var <= 1e-300 * max(1.0, k2):
        mu, gamma = 0.0, 0.0
    else:
        mu = float(2.0 * kl / np.sqrt(var))
        gamma = float(BERRY_ESSEEN_CONSTANT * k3b / var ** 1.5)
    if delta >= 1.0:
        zero = EpsDelta(0.0, 1.0)
        return CLTResult(mu, gamma, 1.0, zero, zero, zero, n_total, False, accuracy,
                         tuple(fn for fn, _ in funcs))
    approx = weaken(with_delta(Gaussian(mu), delta), Status.APPROXIMATION,
                    "CLT, DRS 2022 Thm 3.5")
    vacuous = gamma >= 0.5
    lower: TradeOff
    upper: TradeOff
    if vacuous:
        lower, upper = EpsDelta(0.0, 1.0), with_delta(Identity(), delta)
    else:
        lower = with_delta(BerryEsseenLower(mu, gamma), delta)
        if accuracy > 0.0:   # the band of DRS Thm 3.4 holds for exact functionals only
            lower = weaken(lower, Status.APPROXIMATION, "Berry-Esseen band from numerically "
                           f"integrated functionals (error {accuracy:.1e})")
        upper = weaken(with_delta(berry_esseen_upper(mu, gamma), delta), Status.LOWER_BOUND,
                       "upper side of the Berry-Esseen band, DRS 2022 Thm 3.4")
    return CLTResult(mu, gamma, delta, approx, lower, upper, n_total, vacuous, accuracy,
                     tuple(fn for fn, _ in funcs))
