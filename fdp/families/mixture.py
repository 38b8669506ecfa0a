"""Mixture-of-Gaussians pairs, and mixtures of pairs with the component revealed.

Derivation: docs/derivations/families.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import logsumexp, ndtr

from fdp import _validate
from fdp._constants import EPS_SEARCH, NORMAL_TAIL_MASS, TINY
from fdp._constants import UNIT_ROUNDOFF as _U
from fdp._numerics import maximise_unimodal
from fdp._numerics import search_grid as _search_grid
from fdp._types import ArrayLike
from fdp.families._rounding import ArrayPair, one_minus, widen
from fdp.families.gaussian import (
    _GH_W,
    _GH_X,
    _beta_bracket,
    gdp_log_delta_upper,
    isf_normal,
    normal_cells,
)
from fdp.law import Masses, MixtureLaw, PrivacyLossLaw, bin_atoms
from fdp.status import Status, status_of
from fdp.tradeoff import Bracketed, TradeOff, remark

#: Tolerance on |Σ pⱼ − 1| (probabilities are then divided by their sum).
PROB_SUM_TOL = 1e-9
_NEWTON_ITERS = 200
#: Smallest ratio of two positive sensitivities (beyond it μⱼ/max μ underflows).
SPAN = 1e-250


def _as_vector(name: str, value: ArrayLike) -> np.ndarray:
    arr = _validate.reals(name, value, low=0.0)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d sequence, got shape {arr.shape}")
    return arr


@dataclass(frozen=True)
class MixtureOfGaussians(Bracketed):
    """T(N(0, σ²), Σⱼ pⱼ N(cⱼ, σ²)): the Gaussian mechanism with random sensitivity.

    ``sigma``: σ > 0, the standard deviation of the Gaussian noise; ``sensitivities``: cⱼ ≥ 0
    (finite), the possible shifts of the mean; ``probs``: pⱼ ∈ [0, 1] with Σⱼ pⱼ = 1 (within 1e-9;
    they are divided by their sum).

    β(α) = Σⱼ pⱼ Φ(Φ⁻¹(1 − α) − cⱼ/σ) (Choquette-Choo, Ganesh, Steinke & Thakurta
    2024, §4; the loss and the profile: docs/derivations/families.md). ONE order of the
    pair (``directions``); zero-probability components are dropped, equal sensitivities
    merged, components sorted (``repr`` shows the canonical form).

    Examples
    --------
    >>> f = MixtureOfGaussians(1.0, [0.0, 1.0], [0.9, 0.1])   # = 0.1 G_1 + 0.9 Id
    """

    sigma: float
    sensitivities: tuple
    probs: tuple

    def __post_init__(self) -> None:
        sigma = _validate.real("sigma", self.sigma, low=0.0, low_open=True)
        c = _as_vector("sensitivities", self.sensitivities)
        p = _validate.reals("probs", self.probs, low=0.0, high=1.0)
        if p.ndim != 1 or p.size != c.size:
            raise ValueError(f"probs must have one entry per sensitivity "
                             f"(length {c.size}), got shape {p.shape}")
        total = float(np.sum(p))
        if abs(total - 1.0) > PROB_SUM_TOL:
            raise ValueError(f"probs must sum to 1 (within {PROB_SUM_TOL:g}), got {total!r}")
        if abs(total - 1.0) > 1e-14:   # a sum already 1 to rounding is kept (idempotent)
            p = p / total
        live = p > 0
        cs, inv = np.unique(c[live], return_inverse=True)
        ps = np.minimum(np.bincount(inv, weights=p[live], minlength=cs.size), 1.0)
        pos = cs[cs > 0]
        if pos.size and pos.min() / pos.max() < SPAN:
            raise ValueError(f"sensitivities: the positive ones must lie within a factor "
                             f"1/{SPAN:g} of each other (the loss is solved in units of the "
                             f"largest), got {pos.min()!r} and {pos.max()!r}")
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "sensitivities", tuple(float(x) for x in cs))
        object.__setattr__(self, "probs", tuple(float(x) for x in ps))

    # -- the law in units of σ
    @property
    def mus(self) -> np.ndarray:
        """μⱼ = cⱼ/σ (means of Q's components, P = N(0, 1))."""
        with np.errstate(over="ignore"):     # cⱼ/σ beyond the doubles: +inf (an atom)
            return np.asarray(self.sensitivities) / self.sigma

    @property
    def weights(self) -> np.ndarray:
        return np.asarray(self.probs)

    @property
    def trivial(self) -> bool:
        """True when every μⱼ is 0 (then the pair is T(P, P) = Id)."""
        return not np.any(self.mus > 0)

    @property
    def floor(self) -> float:
        """inf L = log Σ_{μⱼ = 0} pⱼ (−inf when no component has μⱼ = 0)."""
        p0 = float(self.weights[self.mus == 0].sum())
        return float(np.log(p0)) if p0 > 0 else -np.inf

    @property
    def symmetric(self) -> bool:
        return self.trivial or len(self.probs) == 1

    @property
    def directions(self) -> str:
        """"one" unless the pair is symmetric: T(N(0,σ²), Σⱼ pⱼ N(cⱼ,σ²)) is the add
        direction only; compose, then symmetrise (DRS Thm 4.2)."""
        return "both" if self.symmetric else "one"

    def loss(self, x: ArrayLike) -> np.ndarray:
        """L(x) = log Σⱼ pⱼ exp(μⱼ(x − μⱼ/2)), vectorised.

        Each exponent is formed as μⱼ·(x − μⱼ/2), never with μⱼ² (which overflows
        for μⱼ ≳ 1.3e154 while the product stays a double or a signed infinity);
        a component with μⱼ = 0 contributes log pⱼ at every x, ±inf included.
        """
        x = np.asarray(x, dtype=float)
        mu, lp = self.mus, np.log(self.weights)
        with np.errstate(invalid="ignore", over="ignore"):
            terms = lp[:, None] + mu[:, None] * (x.ravel()[None, :] - mu[:, None] / 2.0)
        terms = np.where((mu == 0)[:, None], lp[:, None], terms)
        # an infinite μⱼ (cⱼ/σ beyond the doubles) puts its Q-mass beyond every finite x
        terms = np.where(np.isnan(terms), -np.inf, terms)
        with np.errstate(divide="ignore"):
            return logsumexp(terms, axis=0).reshape(x.shape)

    def _live_part(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        """The components with 0 < μⱼ < ∞, in the scaled variable u = K·x.

        Returns (μⱼ, aⱼ, bⱼ, log pⱼ, K) over the finite live components.

        Derivation: docs/derivations/families.md.
        """
        mu = self.mus
        live = (mu > 0) & np.isfinite(mu)
        mu = mu[live]
        k = min(float(mu.max()), 1.0) if mu.size else 1.0
        return mu, mu / k, k * mu / 2.0, np.log(self.weights[live]), k

    @property
    def _infinite_mass(self) -> float:
        """Σ pⱼ over components with cⱼ/σ = inf (their Q-mass lies beyond every x)."""
        return float(self.weights[np.isinf(self.mus)].sum())

    def x_at_loss(self, loss: ArrayLike) -> np.ndarray:
        """The threshold x with L(x) = l, rounded so that L(x) ≤ l as computed.

        −inf for l ≤ inf L = log p₀, +inf for l = +inf (see ``_scaled_root``).
        """
        u = self._scaled_root(loss)
        with np.errstate(over="ignore"):
            return u / self._live_part()[4]

    def _scaled_root(self, loss: ArrayLike) -> np.ndarray:
        """u = K·x with L(x) = l (K as in ``_live_part``), rounded down (L(x) ≤ l as computed).

        +inf when l > log p₀ but no component has a finite positive μⱼ (then L is
        log p₀ at every finite x).
        """
        lvals = np.asarray(loss, dtype=float)
        shape = lvals.shape
        lvals = lvals.ravel()
        out = np.empty(lvals.size)
        if self.trivial:
            out[:] = np.where(lvals >= 0.0, np.inf, -np.inf)
            return out.reshape(shape)
        floor = self.floor
        low = lvals <= floor
        top = lvals == np.inf
        out[low] = -np.inf
        out[top] = np.inf
        live = ~(low | top)
        if live.any():
            u, t = self._solve(lvals[live], floor)
            _, a, b, lp, _ = self._live_part()
            # outward rounding: step down until M(u) ≤ t as computed (a few ulps at most)
            for _ in range(8):
                high = self._scaled_loss(u, a, b, lp) > t
                if not high.any():
                    break
                u = np.where(high, np.nextafter(u, -np.inf) - 4e-16 * np.abs(u), u)
            out[live] = u
        return out.reshape(shape)

    @staticmethod
    def _scaled_loss(u: np.ndarray, a: np.ndarray, b: np.ndarray, lp: np.ndarray) -> np.ndarray:
        """M(u) = log Σⱼ pⱼ e^{aⱼ(u − bⱼ)} over the finite live components."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            terms = lp[None, :] + a[None, :] * (u[:, None] - b[None, :])
            terms = np.where(np.isnan(terms), np.inf, terms)
            return logsumexp(terms, axis=1)

    @staticmethod
    def _budget(lvals: np.ndarray, floor: float) -> np.ndarray:
        """t = log(e^l − p₀) = l + log(1 − e^{log p₀ − l}): the live components' share."""
        if floor == -np.inf:
            return lvals.copy()
        with np.errstate(divide="ignore"):
            return lvals + np.log(-np.expm1(floor - lvals))

    def _solve(self, lvals: np.ndarray, floor: float) -> ArrayPair:
        """(u, t): the root u of M(u) = t (``_scaled_loss``), t = log(e^l − p₀).

        Derivation: docs/derivations/families.md.
        """
        _, a, b, lp, _ = self._live_part()
        t = self._budget(lvals, floor)
        if a.size == 0:
            return np.full(lvals.size, np.inf), t
        with np.errstate(over="ignore", invalid="ignore"):
            u = np.min(b[None, :] + (t[:, None] - lp[None, :]) / a[None, :], axis=1)
        u = np.where(np.isnan(u), np.inf, u)
        todo = np.isfinite(u)
        for _ in range(_NEWTON_ITERS):
            idx = np.flatnonzero(todo)
            if idx.size == 0:
                break
            with np.errstate(over="ignore", invalid="ignore", under="ignore"):
                terms = lp[None, :] + a[None, :] * (u[idx, None] - b[None, :])
                m = logsumexp(terms, axis=1)
                w = np.exp(terms - m[:, None])
                slope = np.where(np.isnan(w), 0.0, w) @ a
                step = np.maximum(m - t[idx], 0.0) / np.maximum(slope, 1e-300)
            step = np.where(np.isfinite(step), step, 0.0)
            u[idx] = u[idx] - step
            todo[idx[step <= 2e-16 * np.maximum(1.0, np.abs(u[idx]))]] = False
        return u, t

    def _profile_losses(self, lvals: np.ndarray) -> np.ndarray:
        """Losses ℓⱼ, one per finite live component, with p₀ + Σⱼ pⱼ e^{ℓⱼ} ≤ e^ε.

        Derivation: docs/derivations/families.md.
        """
        floor = self.floor
        _, a, b, lp, _ = self._live_part()
        u, t = self._solve(lvals, floor)
        with np.errstate(over="ignore", invalid="ignore"):
            ell = a[None, :] * (u[:, None] - b[None, :])
        m = self._scaled_loss(u, a, b, lp)
        with np.errstate(invalid="ignore"):
            shift = np.maximum(m - t, 0.0)
            ell = ell - shift[:, None]
        bad = ~np.isfinite(shift) | np.isnan(ell).any(axis=1)
        if bad.any():
            fallback = t[:, None] - lp[None, :] - np.log(a.size)
            ell[bad] = fallback[bad]
        return ell

    # -- the trade-off function
    def _bracket(self, alpha: np.ndarray) -> ArrayPair:
        """β(α) = Σⱼ pⱼ G_{μⱼ}(α), bracketed.

        Derivation: docs/derivations/families.md.
        """
        a = np.asarray(alpha, dtype=float)
        om_lo, om_hi = one_minus(a)
        lo, hi = np.zeros(a.shape), np.zeros(a.shape)
        for mu, p in zip(self.mus, self.weights):
            if mu == 0.0:
                b_lo, b_hi = om_lo, om_hi
            else:
                b_lo = _beta_bracket(float(np.nextafter(mu, np.inf)), a)[0]
                b_hi = _beta_bracket(float(np.nextafter(mu, 0.0)), a)[1]
            with np.errstate(under="ignore"):
                lo, hi = lo + p * b_lo, hi + p * b_hi
        n = len(self.probs)
        rel, tiny = self._weight_rtol + (n + 1.0) * _U, n * TINY
        lo = widen(lo, rel, tiny, low=0.0)[0]
        hi = widen(hi, rel, tiny, low=0.0)[1]
        lo, hi = np.minimum(lo, om_lo), np.minimum(hi, om_hi)
        # α = 0: β = 1 exactly; α = 1: β = 0 exactly
        lo = np.where(a <= 0.0, 1.0, np.where(a >= 1.0, 0.0, lo))
        hi = np.where(a <= 0.0, 1.0, np.where(a >= 1.0, 0.0, hi))
        return lo, hi

    @property
    def _weight_rtol(self) -> float:
        """Relative distance of the stored pⱼ from pⱼ/Σp (the probabilities they stand for):
        u for their normalisation plus |Σp − 1| (a sum within 1e-14 of 1 is kept as given)."""
        return _U + abs(math.fsum(self.probs) - 1.0)

    @property
    def _certified_delta(self) -> bool:             # type: ignore[override]
        """δ = 0 at ε ≥ 0 is proven when every shift is 0 (the pair is Id)."""
        return self.trivial

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        """δ(ε) ≤ Σⱼ pⱼ δ_{G_{μⱼ}}(ℓⱼ) + p_∞ with ℓⱼ from ``_profile_losses``.

        Equality for ℓⱼ = μⱼ x_ε − μⱼ²/2 (docs/derivations/families.md); ``_profile_losses``
        rounds to the safe side. Below inf L, δ(ε) = 1 − e^ε; at ε = +inf,
        δ = p_∞ (the Q-mass of components with cⱼ/σ beyond the doubles).
        """
        e = np.asarray(eps, dtype=float)
        flat = e.ravel()
        out = -np.expm1(np.minimum(flat, 0.0))            # ε ≤ inf L: 1 − e^ε
        if self.trivial:
            return out.reshape(e.shape)
        p_inf = self._infinite_mass
        live = (flat > self.floor) & (flat < np.inf)
        out = np.where(flat == np.inf, p_inf, out)
        if live.any():
            ell = self._profile_losses(flat[live])
            mu, _, _, lp, _ = self._live_part()
            acc = np.full(ell.shape[0], p_inf)
            for j, (mj, lpj) in enumerate(zip(mu, lp)):
                with np.errstate(under="ignore"):
                    acc += np.exp(lpj + gdp_log_delta_upper(float(mj), ell[:, j]))
            # the weights' rounding (``_weight_rtol``), each term's product and the sum
            acc = widen(acc, self._weight_rtol + len(self.probs) * _U, low=TINY)[1]
            out[live] = np.minimum(acc, 1.0)     # δ > 0 at finite ε above inf L
        return out.reshape(e.shape)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        """Certified lower bound on δ(ε): δ(ε) ≥ 1 − β(α) − e^ε α for every α (DRS Prop
        2.12), taken at the double α = Φ̄(x_ε) nearest the optimal test (x_ε the computed
        threshold; also at the smallest double where it underflows) with the upper end
        of β(α) (``_bracket``) and e^ε α rounded up (exp 2u,
        the product u, a margin to 8u); the two subtractions err by u each of numbers ≤
        1 + e^ε α. An absolute bound: below about 1e-16 of δ it may give 0, never above δ.
        """
        e = np.asarray(eps, dtype=float)
        flat = e.ravel()
        a0 = ndtr(-self.x_at_loss(flat))
        lo = np.zeros(flat.shape)
        for alpha in (a0, np.maximum(a0, TINY)):      # α = Φ̄(x_ε) may underflow to 0
            with np.errstate(over="ignore", invalid="ignore"):
                ea = np.exp(flat) * alpha * (1.0 + 8.0 * _U)
                val = (1.0 - self._bracket(alpha)[1]) - ea
                val = np.nextafter(val - 4.0 * _U * (1.0 + ea), -np.inf)
            lo = np.maximum(lo, np.where(np.isnan(val), 0.0, val))
        return np.minimum(np.clip(lo, 0.0, 1.0), self._delta(flat)).reshape(e.shape)

    def _inverse(self) -> TradeOff:
        return super()._inverse()           # the generic Inverse (profile by reflection)

    def gdp_mu(self) -> float:
        """max μⱼ = max cⱼ/σ, rounded up: f ≥ G_{max μ} because every G_{μⱼ} ≥ G_{max μ},
        and no smaller μ works: as α → 0, 1 − f(α) ≥ p_max Φ̄(z − max μ) (z = Φ̄⁻¹(α)) while
        1 − G_{μ'}(α) = Φ̄(z − μ') is smaller by a factor e^{−(max μ − μ')z + O(1)}."""
        if self.trivial:
            return 0.0
        c, s = max(self.sensitivities), self.sigma
        mu = c / s
        if not np.isfinite(mu):
            return float("inf")
        if Fraction(mu) * Fraction(s) < Fraction(c):
            mu = float(np.nextafter(mu, np.inf))
        return mu

    def pure_epsilon(self) -> float:
        """The likelihood ratio is unbounded unless every shift is 0."""
        return 0.0 if self.trivial else float("inf")

    def advantage(self) -> float:
        return float(self._delta(np.array([0.0]))[0])

    def law(self) -> MixtureOfGaussiansLaw:
        """The privacy-loss law L(X) = log Σⱼ pⱼ e^{μⱼX − μⱼ²/2}, X ~ N(0, 1) under P."""
        return MixtureOfGaussiansLaw(self)

    def __repr__(self) -> str:
        text = (f"MixtureOfGaussians(sigma={self.sigma!r}, sensitivities={self.sensitivities!r}, "
                f"probs={self.probs!r})")
        return text + remark(self)

    def latex(self) -> str:
        parts = " + ".join(f"{p:g}\\,N({c:g},{self.sigma:g}^2)"
                           for c, p in zip(self.sensitivities, self.probs))
        return rf"T\big(N(0,{self.sigma:g}^2),\ {parts}\big)"


@dataclass(frozen=True)
class RevealedMixture(TradeOff):
    """The pair (Σᵢ wᵢ Pᵢ ⊗ e_i, Σᵢ wᵢ Qᵢ ⊗ e_i): member i with probability wᵢ, index published.

    ``weights``: wᵢ ≥ 0 summing to 1 (within 1e-9; divided by their sum); ``members``: fᵢ, one per
    weight.

    δ(ε) = Σᵢ wᵢ δᵢ(ε) (DRS Prop 2.12): a mechanism fᵢ-DP on the i-th of events of the
    same law under both neighbours is f-DP (joint convexity of hockey-stick divergences).
    """

    weights: tuple
    members: tuple

    def __post_init__(self) -> None:
        w = _validate.reals("weights", self.weights, low=0.0, high=1.0)
        members = tuple(self.members)
        if w.ndim != 1 or w.size != len(members) or w.size == 0:
            raise ValueError(f"weights must have one entry per member ({len(members)}), "
                             f"got shape {w.shape}")
        if not all(isinstance(m, TradeOff) for m in members):
            raise TypeError("members must be TradeOff objects")
        total = float(w.sum())
        if abs(total - 1.0) > PROB_SUM_TOL:
            raise ValueError(f"weights must sum to 1 (within {PROB_SUM_TOL:g}), got {total!r}")
        w = w / total
        keep = w > 0
        object.__setattr__(self, "weights", tuple(float(x) for x in w[keep]))
        object.__setattr__(self, "members", tuple(m for m, k in zip(members, keep) if k))

    @property
    def symmetric(self) -> bool:
        return all(m.symmetric for m in self.members)

    @property
    def directions(self) -> str:
        """"one" unless every member is symmetric (as the repr says)."""
        return "both" if self.symmetric else "one"

    @property
    def status(self) -> Status:
        return status_of(*self.members)

    def _inverse(self) -> TradeOff:
        return RevealedMixture(self.weights, tuple(m.inverse() for m in self.members))

    def _gaussian_component(self) -> tuple[float, float] | None:
        """(μ, Σ wᵢ pᵢ over the members with μᵢ = μ) when every member with weight is
        G_{μᵢ}, a subsampled G_{μᵢ} (rate pᵢ) or Id, and μ = max μᵢ (engine hook; see
        ``TradeOff``); (0.0, 1.0) when all are Id.

        Derivation: docs/derivations/families.md.
        """
        comps = []
        for w, m in zip(self.weights, self.members):
            if w == 0.0:
                continue
            comp = m._gaussian_component()
            if comp is None:
                return None
            comps.append((comp[0], float(w) * comp[1]))
        mu = max(c[0] for c in comps)
        if mu == 0.0:
            return 0.0, 1.0
        return mu, sum(weight for m, weight in comps if m == mu)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """ε* = max over the members of their ε*: the index is published, so the privacy
        loss of the mixture is the loss of the member drawn (every weight is positive)."""
        ends = [tuple(float(x) for x in m._pure_epsilon_bounds()) for m in self.members]
        return max(e[0] for e in ends), max(e[1] for e in ends)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=float)
        out = np.zeros(e.shape)
        for w, m in zip(self.weights, self.members):
            out = out + w * m._delta(e)
        return np.minimum(out, 1.0)

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        flat = a.ravel()
        grid = _search_grid(-EPS_SEARCH, EPS_SEARCH)
        d_grid = self._delta(grid)
        y_grid = np.exp(grid)
        out = np.empty(flat.size)
        for s in range(0, flat.size, 1024):
            part = flat[s:s + 1024]
            vals = 1.0 - d_grid[None, :] - y_grid[None, :] * part[:, None]

            def row(x: np.ndarray, part: np.ndarray = part) -> np.ndarray:
                return 1.0 - self._delta(x) - np.exp(x) * part
            out[s:s + 1024] = maximise_unimodal(row, grid, vals)
        # α = 0: sup_ε (1 − δ(ε)) = 1 − (Q-mass at L = +inf), read at ε = EPS_SEARCH.
        # 1 − δ − e^ε α: three roundings of numbers ≤ 1, so lowered by 4u (as in envelope)
        out = np.clip(out - 4.0 * _U, 0.0, 1.0 - flat)
        return out.reshape(a.shape)

    def law(self) -> MixtureLaw | None:
        """The w-mixture of the members' laws (None if a member has none)."""
        laws = tuple(m.law() for m in self.members)
        if any(m is None for m in laws):
            return None
        return MixtureLaw(self.weights, laws)

    def __repr__(self) -> str:
        inner = ", ".join(f"{w:.6g}: {repr(m).split('  # ')[0]}"
                          for w, m in zip(self.weights, self.members))
        text = f"RevealedMixture({{{inner}}})"
        return text + remark(self)


@dataclass(frozen=True)
class MixtureOfGaussiansLaw(PrivacyLossLaw):
    """The privacy-loss law of a ``MixtureOfGaussians`` pair.

    Derivation: docs/derivations/families.md.

    Examples
    --------
    >>> import fdp
    >>> law = fdp.MixtureOfGaussians(1.0, [0.0, 1.0], [0.5, 0.5]).law()
    >>> kappa, pi, _, _ = law.interval_masses([0.0])
    >>> print(f"{kappa.sum():.4f} {pi.sum():.4f}")
    1.0000 1.0000
    """

    f: MixtureOfGaussians

    def interval_masses(self, edges: ArrayLike) -> Masses:
        f = self.f
        if f.trivial:
            kappa, pi = bin_atoms(edges, np.zeros(1), np.ones(1), np.ones(1))
            return kappa, pi, 0.0, 0.0
        x = f.x_at_loss(np.asarray(edges, dtype=float))
        pi = normal_cells(x)
        kappa = np.zeros(pi.size)
        finite = np.isfinite(f.mus)
        for mu, p in zip(f.mus[finite], f.weights[finite]):
            with np.errstate(invalid="ignore"):
                kappa += p * normal_cells(x - mu)
        return kappa, pi, f._infinite_mass, 0.0

    def loss_range(self) -> tuple[float, float]:
        f = self.f
        if f.trivial:
            return 0.0, 0.0
        finite = np.isfinite(f.mus)
        if not finite.any():            # only Id and perfectly distinguishable parts
            return f.floor if f.floor > -np.inf else 0.0, 0.0
        mu, p = f.mus[finite], f.weights[finite]
        z = np.array([isf_normal(NORMAL_TAIL_MASS / (mu.size * pj)) for pj in p])
        x_lo, x_hi = float(np.min(mu - z)), float(np.max(mu + z))
        lo, hi = f.loss(np.array([x_lo, x_hi]))
        return float(max(lo, f.floor)), float(hi)

    def loss_moments(self, under: str = "Q") -> tuple[float, float] | None:
        """Mean and variance of L under Q = Σⱼ pⱼ N(μⱼ, 1) (Gauss–Hermite per component)."""
        f = self.f
        if under != "Q":
            return None
        if f.trivial:
            return 0.0, 0.0
        if not np.all(np.isfinite(f.mus)):
            return None                 # an atom at L = +inf: no finite moments
        x = np.concatenate([_GH_X + mu for mu in f.mus])
        w = np.concatenate([p * _GH_W for p in f.weights])
        vals = f.loss(x)
        m = float(w @ vals)
        if not np.isfinite(m):
            return None                 # μⱼ²/2 beyond the doubles
        v = float(w @ (vals - m) ** 2)
        return (m, v) if np.isfinite(v) else None
