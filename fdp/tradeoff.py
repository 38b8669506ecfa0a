"""The base class of every trade-off function.

A trade-off function f = T(P, Q) maps a type I error α of a test between P and Q
to the smallest type II error β the test can reach (Dong, Roth & Su 2022, Def 2.1).
f is a trade-off function iff it is convex, continuous, non-increasing and
f(α) ≤ 1 − α (DRS Prop 2.2).

The abstract surface is one method, ``_beta`` (β at a validated float array of α).
A family may also answer ``_delta`` (its privacy profile δ(ε) for every real ε),
``_inverse`` and ``_pair`` (an exact finite pair of distributions) when it knows
them in closed form. Everything else -- inversion, symmetrisation, (ε, δ)
conversion, group privacy, subsampling, composition -- is written once here in
terms of that surface, and overridden only where a closed form exists.

Numeric results (the composition engine) also override ``_upper`` and
``_delta_lower``: their value ``f(α)`` is a certified lower bound (the safe
side), ``bounds(α)`` gives both sides.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

import numpy as np

from fdp import _validate

if TYPE_CHECKING:  # pragma: no cover
    from fdp.families.finite_pair import FinitePair

from fdp._constants import DELTA_RESOLUTION
from fdp._constants import TINY as _TINY
from fdp._numerics import _log, conjugate_delta, epsilon_for_delta

ONE_DIRECTION_REMARK = "  # one direction only, not a guarantee"


def remark(f: TradeOff) -> str:
    """The remark a repr ends with: ``ONE_DIRECTION_REMARK`` for one-direction f."""
    return ONE_DIRECTION_REMARK if f.directions == "one" else ""


def math_repr(f: TradeOff) -> str:
    """repr(f) without its one-direction remark (for reprs that contain f)."""
    text, tail = repr(f), remark(f)
    return text[:-len(tail)] if tail and text.endswith(tail) else text


class TradeOff(abc.ABC):
    """A trade-off function α ↦ β (DRS 2022, Definition 2.1).

    Call it on a float (returns a float) or on an array (returns an ndarray).
    ``f ≥ g`` pointwise means f is *more* private. Subclasses are immutable
    value objects (frozen dataclasses) whose ``repr`` reads like the math.
    """

    __slots__ = ()

    # ------------------------------------------------------------------
    # The abstract surface
    # ------------------------------------------------------------------
    @abc.abstractmethod
    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        """β at α, for a float array already checked to lie in [0, 1]."""

    @property
    def symmetric(self) -> bool:
        """True when f = f⁻¹ is known (then ``inverse()`` returns ``self``)."""
        return False

    @property
    def directions(self) -> str:
        """"both" when f-DP is claimed for both orders of every neighbouring pair;
        "one" for one direction of add/remove neighbouring only (``PoissonAdd``, its
        inverse, and what is built from one of them alone): not a guarantee by itself
        (symmetrise it, DRS Thm 4.2; Bu et al. 2020)."""
        return "both"

    def _pair(self) -> FinitePair | None:
        """An exact finite pair (P, Q) with T(P, Q) = f, if one is known."""
        return None

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        """Upper side of a certified bracket; equal to ``_beta`` for exact f."""
        return self._beta(alpha)

    # ------------------------------------------------------------------
    # Evaluation
    # ------------------------------------------------------------------
    def __call__(self, alpha):
        """β = f(α); a float for a float, an ndarray for an array."""
        a = _validate.alpha(alpha)
        return _validate.like_input(alpha, self._beta(a))

    def bounds(self, alpha, width=None):
        """(lower, upper) β at α: equal for closed forms, a certified bracket otherwise.

        ``width``: the largest acceptable ``upper − lower``; numeric results refine
        (recomposing at a smaller tol) until it is met, other objects meet it or raise
        a ValueError saying what limits it.
        """
        a = _validate.alpha(alpha)
        lo, hi = self._beta(a), self._upper(a)
        _meet_width(self, width, lo, hi, "beta(alpha)")
        return _validate.like_input(alpha, lo), _validate.like_input(alpha, hi)

    def delta_bounds(self, eps, width=None):
        """(lower, upper) δ at ε: equal for closed forms, a certified bracket otherwise."""
        e = _validate.reals("eps", eps, allow_inf=True)
        lo, hi = self._delta_lower(e), self._delta(e)
        _meet_width(self, width, lo, hi, "delta(eps)")
        return _validate.like_input(eps, lo), _validate.like_input(eps, hi)

    @property
    def is_exact(self) -> bool:
        """True when the function is known exactly (no numeric bracket)."""
        return True

    # ------------------------------------------------------------------
    # Inversion and symmetrisation
    # ------------------------------------------------------------------
    def inverse(self) -> TradeOff:
        """f⁻¹(α) = inf{t ∈ [0,1] : f(t) ≤ α}; T(Q, P) = T(P, Q)⁻¹ (DRS Lemma A.2)."""
        if self.symmetric:
            return self
        return self._inverse()

    def _inverse(self) -> TradeOff:
        from fdp.operations.inverse import Inverse
        return Inverse(self)

    def symmetrize(self, one_sided: bool = False) -> TradeOff:
        """Symmetrise f.

        ``one_sided=False``: max{f, f⁻¹}, valid when f-DP holds for *both* orders of
        every neighbouring pair (DRS Prop 2.4).
        ``one_sided=True``: min{f, f⁻¹}** (lower convex envelope), valid when the
        bound is known for one order only, as for add/remove neighbours and
        Poisson subsampling (DRS Thm 4.2; Bu et al. 2020).
        """
        one_sided = _validate.flag("one_sided", one_sided)
        if self.symmetric:
            return self
        from fdp.operations.envelope import envelope, strongest
        inv = self.inverse()
        return envelope(self, inv) if one_sided else strongest(self, inv)

    # ------------------------------------------------------------------
    # Comparisons and summaries
    # ------------------------------------------------------------------
    def dominates(self, other: TradeOff, *, tol: float = 0.0) -> bool:
        """True only when it is PROVEN that f(α) ≥ g(α) − tol for every α ∈ [0, 1].

        One meaning: ``tol`` is an absolute allowance on β (default 0, a strict
        comparison); False means "not proven", which includes "false". The proof
        (``fdp.conversions.summaries.prove_dominates``) uses, in order: closed-form
        rules of the families (G_a ≥ G_b ⇔ a ≤ b, …); for a piecewise-linear g, the
        dual f ≥ line ⇔ δ_f(ε) ≤ c (DRS Prop 2.12) on each of g's supporting lines
        1 − c − e^ε α, when f's privacy profile is certified; otherwise a
        piecewise-linear lower bound ℓ ≤ f from convexity (secant extensions between
        evaluated points, supporting lines from a certified profile) with g below ℓ
        at ℓ's vertices (g is convex, hence below its chords). Certified sides are
        used throughout (lower β of f, upper β and lower δ of g). Values are
        compared as computed in floating point.

        Parameters
        ----------
        other : TradeOff
            g, the curve f should lie above.
        tol : float, optional
            Absolute allowance on β in [0, 1] (default 0: strict).

        Returns
        -------
        bool
            True only when f ≥ g − tol is proven on [0, 1].
        """
        if not isinstance(other, TradeOff):
            raise TypeError(f"other must be a TradeOff, got {type(other).__name__}")
        tol = _validate.real("tol", tol, low=0.0, high=1.0)
        from fdp.conversions.summaries import prove_dominates
        return prove_dominates(self, other, tol)

    def advantage(self) -> float:
        """max_α (1 − α − f(α)) = δ(0): the total-variation distance of the pair."""
        return float(self._delta(np.array([0.0]))[0])

    # ------------------------------------------------------------------
    # (ε, δ) conversion (DRS §2.4, primal-dual)
    # ------------------------------------------------------------------
    def delta(self, eps):
        """δ(ε) = 1 + f*(−e^ε) = sup_α (1 − f(α) − e^ε α) (DRS Prop 2.12).

        Defined for every real ε (negative ε describes the other order of the pair);
        ε = +inf gives 1 − f(0). For a numeric f this is a certified upper bound.
        """
        e = _validate.reals("eps", eps, allow_inf=True)
        return _validate.like_input(eps, self._delta(e))

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        """Privacy profile by maximising the concave α ↦ 1 − f(α) − e^ε α."""
        return conjugate_delta(self._beta, eps)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        """Lower side of a certified δ(ε) bracket; equal to ``_delta`` for exact f."""
        return self._delta(eps)

    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        """Upper log δ(ε) (−inf where δ = 0 is proven), the hook ε(δ) is solved with.

        Default: the log of ``_delta``. When ``_delta`` is the generic maximisation
        over evaluated β (``conjugate_delta``), 1 − β(α) is known only to the absolute
        resolution of doubles near 1, so δ is raised to at least ``DELTA_RESOLUTION``:
        ε(δ) for δ below it (δ = 0 included) is then inf, the safe answer, instead of
        a number read off rounded values. Other uncertified ``_delta`` overrides: a
        computed 0 counts as the smallest positive double (an underflow is not a
        proof of δ = 0). Families whose δ(ε) underflows while still
        positive (the Gaussian beyond ε ≈ 38 μ) override this with a log-space closed
        form, so that ε(δ) stays right for δ down to 1e-300 and δ = 0 gives inf.
        """
        d = self._delta(eps)
        if type(self)._delta is TradeOff._delta:
            d = np.maximum(d, DELTA_RESOLUTION)
        elif not self._has_certified_delta():
            # a computed 0 may be an underflow: δ = 0 is believed only where certified
            d = np.where(np.isposinf(eps), d, np.maximum(d, _TINY))
        return _log(d)

    def _log_delta_lower(self, eps: np.ndarray) -> np.ndarray:
        """log of the lower side of the δ bracket (no resolution floor: a lower side)."""
        if (type(self)._delta_lower is TradeOff._delta_lower
                and type(self)._delta is not TradeOff._delta):
            return self._log_delta(eps)
        return _log(self._delta_lower(eps))

    # True when ``_delta`` is a closed form or a certified upper bound (never a
    # numerical maximisation that may fall short of the supremum). Numeric results
    # (``is_exact`` False) are certified by contract.
    _certified_delta = False

    def _has_certified_delta(self) -> bool:
        return self._certified_delta or not self.is_exact

    def epsilon(self, delta):
        """Smallest ε ≥ 0 with δ(ε) ≤ delta (inf if none); certified upper for numeric f.

        Solved in log space (``_log_delta``), so δ = 0 gives inf unless δ(ε) = 0 is
        proven at a finite ε (pure DP), and δ down to 1e-300 keeps full precision.
        """
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        return _validate.like_input(delta, epsilon_for_delta(self._delta, d,
                                                             log_delta_fn=self._log_delta))

    def epsilon_bounds(self, delta, width=None):
        """(lower, upper) ε at the given δ: equal for exact f, a bracket for numeric f.

        ``width`` as in ``bounds``.
        """
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        lo = epsilon_for_delta(self._delta_lower, d, log_delta_fn=self._log_delta_lower)
        hi = epsilon_for_delta(self._delta, d, log_delta_fn=self._log_delta)
        _meet_width(self, width, lo, hi, "epsilon(delta)")
        return _validate.like_input(delta, lo), _validate.like_input(delta, hi)

    # --- summaries: two different questions, two names each ----------------
    def _gdp_mu_bounds(self) -> tuple[float, float]:
        """(lo, hi) with lo ≤ μ* ≤ hi, μ* = inf{μ : f ≥ G_μ} (inf if none).

        Generic certified default: ``fdp.conversions.summaries.gdp_mu_bounds``.
        Families with a closed form override it (Gaussian: (μ, μ)).
        """
        from fdp.conversions.summaries import gdp_mu_bounds
        return gdp_mu_bounds(self)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """(lo, hi) with lo ≤ ε* ≤ hi, ε* = inf{ε : f ≥ f_{ε,0}} (inf if none)."""
        from fdp.conversions.summaries import pure_epsilon_bounds
        return pure_epsilon_bounds(self)

    def gdp_mu(self) -> float:
        """The smallest μ with f ≥ G_μ: "this f is μ-GDP" (inf if no μ is proven).

        A property of the curve f, rounded to the safe side (the upper end of
        ``gdp_mu_bounds()``). Not to be confused with the module function
        ``fdp.gdp_mu(eps, delta)`` (alias ``fdp.gdp_mu_for_eps_delta``), which goes
        the other way: the largest μ whose μ-GDP implies a given (ε, δ)-DP.
        Alias: ``smallest_gdp_mu()``.

        Returns
        -------
        float
            The certified upper end of the bracket on μ* = inf{μ : f ≥ G_μ} (DRS Def 2.7).
        """
        return float(self._gdp_mu_bounds()[1])

    def smallest_gdp_mu(self) -> float:
        """Alias of ``gdp_mu()``: the smallest μ with f ≥ G_μ (safe side)."""
        return self.gdp_mu()

    def gdp_mu_bounds(self) -> tuple[float, float]:
        """(lower, upper) bracket on the smallest μ with f ≥ G_μ."""
        lo, hi = self._gdp_mu_bounds()
        return float(lo), float(hi)

    # ------------------------------------------------------------------
    # Attack-risk read-outs (certified brackets; fdp.conversions.risk)
    # ------------------------------------------------------------------
    def tpr_at_fpr(self, fpr):
        """Best membership test's TPR at FPR α: 1 − min{f(α), f⁻¹(α)}, a certified ``Bracket``.

        The worst ordered pair is used, so asymmetric (one-directional) curves are
        read in both orders (DRS 2022 §2.1). See ``fdp.conversions.risk.tpr_at_fpr``.
        """
        from fdp.conversions.risk import tpr_at_fpr
        return tpr_at_fpr(self, fpr)

    def advantage_bounds(self):
        """Certified bracket of the advantage δ(0) = max_α (1 − α − f(α))."""
        from fdp.conversions.risk import advantage_bounds
        return advantage_bounds(self)

    def bayes_risk(self, prior: float = 0.5):
        """Smallest Bayes risk min_α [(1 − π)α + π f(α)] of a membership attacker with prior π."""
        from fdp.conversions.risk import bayes_risk
        return bayes_risk(self, prior)

    def attack_success(self, prior: float = 0.5):
        """Largest success probability 1 − Bayes risk of a membership attacker with prior π."""
        from fdp.conversions.risk import attack_success
        return attack_success(self, prior)

    def reconstruction_bound(self, kappa: float):
        """Reconstruction success ≤ 1 − f(κ) for a baseline success κ (Hayes et al. 2023)."""
        from fdp.conversions.risk import reconstruction_bound
        return reconstruction_bound(self, kappa)

    def gdp_mu_bracket(self):
        """Certified [μ_lo, μ_hi] of the smallest μ with f ≥ G_μ, with the fit gap (``GdpFit``).

        ``summary()`` says in words when a μ-GDP summary misleads (e.g. DP-SGD, whose
        μ* = √T·s/σ is set in the far tail α ≈ q^T, far from the bulk of the curve).
        """
        from fdp.conversions.risk import gdp_mu_bracket
        return gdp_mu_bracket(self)

    def pure_epsilon(self) -> float:
        """The smallest ε with f ≥ f_{ε,0} (pure ε-DP), inf if none is proven.

        Safe side: the upper end of ``pure_epsilon_bounds()``.

        Returns
        -------
        float
            The certified upper end of the bracket on ε* = inf{ε : f ≥ f_{ε,0}} (DRS eq. 2.4).
        """
        return float(self._pure_epsilon_bounds()[1])

    def pure_epsilon_bounds(self) -> tuple[float, float]:
        """(lower, upper) bracket on the smallest ε with f ≥ f_{ε,0}."""
        lo, hi = self._pure_epsilon_bounds()
        return float(lo), float(hi)

    # ------------------------------------------------------------------
    # Operations
    # ------------------------------------------------------------------
    def group(self, k: int) -> TradeOff:
        """Group privacy for groups of size k: 1 − (1 − f)^{∘k} (DRS Thm 2.14)."""
        k = _validate.positive_int("k", k)
        if k == 1:
            return self
        return self._group(k)

    def _group(self, k: int) -> TradeOff:
        from fdp.operations.group import Group
        return Group(self, k)

    def subsample(self, p: float, scheme: str = "poisson", direction: str = "both") -> TradeOff:
        """Privacy amplification by subsampling (DRS §4.2; Bu et al. 2020; ZDW Thm 11).

        scheme="poisson", direction="both": min{f_p, f_p⁻¹}**, f_p = p f + (1 − p) Id,
            the one-step guarantee under add/remove neighbours.
        scheme="poisson", direction="add": f_p alone, T(M(S), M(S ∪ {x})). This is
            ONE direction only, not a guarantee: compose the add directions and
            symmetrise once with ``symmetrize(one_sided=True)``.
        direction="remove": f_p⁻¹, the other direction.
        scheme="without_replacement": C_p(f) = min{f_p, f_p⁻¹}** (DRS Thm 4.2),
            replace-one neighbours, p = m/n.
        """
        from fdp.operations.subsample import subsample
        return subsample(self, p, scheme=scheme, direction=direction)

    def __matmul__(self, other: TradeOff) -> TradeOff:
        """f ⊗ g (DRS Def 3.1)."""
        if not isinstance(other, TradeOff):
            return NotImplemented
        from fdp.operations.compose import compose
        return compose(self, other)

    def __pow__(self, n: int) -> TradeOff:
        """n-fold composition f ⊗ … ⊗ f (n = 0 gives Id)."""
        from fdp.operations.compose import power
        return power(self, n)

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"

    def latex(self) -> str:
        """A LaTeX name of the function (without dollar signs)."""
        return r"\mathrm{" + type(self).__name__ + "}"

    # --- pickling (helper hygiene) ---
    def __setstate__(self, state) -> None:
        """Restore a pickled value object, whose own ``__setattr__`` refuses writes.

        ``state`` is ``__dict__`` or ``(__dict__, slots)``, as pickle gives it.
        """
        d, slots = state if isinstance(state, tuple) else (state, None)
        for k, v in {**(d or {}), **(slots or {})}.items():
            object.__setattr__(self, k, v)


def _meet_width(f: TradeOff, width, lo, hi, what: str) -> None:
    """Raise unless every bracket [lo, hi] is at most ``width`` wide (None: no demand).

    Exact objects meet any width (their two sides agree up to rounding); other generic
    objects cannot refine, so a wider bracket is an error naming the width reached.
    """
    if width is None:
        return
    w = _validate.real("width", width, low=0.0, low_open=True)
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    same = lo == hi                                   # also inf == inf
    with np.errstate(invalid="ignore"):
        gap = np.where(same, 0.0, hi - lo)
    widest = float(np.max(gap)) if gap.size else 0.0
    if not f.is_exact and widest > w:
        raise ValueError(f"width={w:g} cannot be met for {what}: this {type(f).__name__} "
                         f"gives a certified bracket {widest:.3g} wide and cannot refine it; "
                         "compose it numerically with a smaller tol")


def count_factors(fs) -> list[tuple[TradeOff, int]]:
    """Equal factors grouped with their multiplicities, in order of first appearance.

    The package's one grouping of a product f_1 ⊗ … ⊗ f_n into distinct factors:
    equal (``==`` and hash) trade-off objects are counted together, unhashable ones
    (user functions holding arrays) each stand alone, keyed by identity.

    Parameters
    ----------
    fs : iterable of TradeOff
        The factors, repeated as often as they occur.

    Returns
    -------
    list of (TradeOff, int)
        Each distinct factor once, with its count.
    """
    counts: dict = {}
    for f in fs:
        try:
            key: tuple = ("h", f)
            hash(f)
        except TypeError:
            key = ("id", id(f))
        if key in counts:
            counts[key][1] += 1
        else:
            counts[key] = [f, 1]
    return [(f, n) for f, n in counts.values()]
