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

Every object has a ``status`` (``fdp.status``): exact, certified, lower bound or
approximation, derived by one rule (the weakest input wins); two-sided read-outs
return a ``fdp.bracket.Bracket`` that carries it.

This module sits low in the package: at import time it imports only ``fdp._*``,
``fdp.status`` and ``fdp.bracket``. The methods whose general implementations live in
higher layers (inverse, symmetrize, group, subsample, ``@``, ``**``, dominance,
summaries and attack-risk read-outs) import them locally, inside the method: the
edge is visible where it is used, and the architecture test allows exactly this
form (a local import in a ``TradeOff`` method) and no other upward import.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fdp import _validate
from fdp._constants import DELTA_RESOLUTION, SYMMETRY_TOL
from fdp._constants import TINY as _TINY
from fdp._numerics import _log, alpha_grid, conjugate_delta, epsilon_for_delta
from fdp._types import ArrayLike, FloatOrArray
from fdp.bracket import Bracket
from fdp.status import NotAGuarantee, Status, require_guarantee

if TYPE_CHECKING:  # pragma: no cover
    from fdp.conversions.gdp_fit import GdpFit
    from fdp.law import PrivacyLossLaw
    from fdp.report import PrivacyReport

ONE_DIRECTION_REMARK = "  # one direction only, not a guarantee"


def remark(f: TradeOff) -> str:
    """The remark a repr ends with: the status of a non-guarantee (``# lower bound, not a
    guarantee``, ``# approximation, not a guarantee``), else ``ONE_DIRECTION_REMARK`` for
    one-direction f, else nothing (exact and certified objects need no remark)."""
    if not f.status.is_guarantee:
        return f"  # {f.status.value}, not a guarantee"
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

    Parameters
    ----------
    (none) : the base class is abstract; families take their own parameters
        (``fdp.Gaussian(mu)``, ``fdp.EpsDelta(eps, delta)``, ...).

    Returns
    -------
    TradeOff
        Instances of a subclass.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.Gaussian(1.0)
    >>> isinstance(f, fdp.TradeOff), f @ f
    (True, Gaussian(mu=1.4142135623730951))
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
        """True when f = f⁻¹ is known (then ``inverse()`` returns ``self``).

        Returns
        -------
        bool
            A property of the object's construction, not a numerical test
            (``fdp.tradeoff.is_symmetric`` tests numerically).

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).symmetric
        True
        """
        return False

    @property
    def directions(self) -> str:
        """"both" when f-DP is claimed for both orders of every neighbouring pair;
        "one" for one direction of add/remove neighbouring only (``PoissonAdd``, its
        inverse, and what is built from one of them alone): not a guarantee by itself
        (symmetrise it, DRS Thm 4.2; Bu et al. 2020)."""
        return "both"

    def _pair(self) -> Any:
        """An exact finite pair (P, Q) with T(P, Q) = f (a ``FinitePair``), if one is known."""
        return None

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        """Upper side of a certified bracket; equal to ``_beta`` for exact f."""
        return self._beta(alpha)

    def _composition_kind(self) -> str | None:
        """The kind the composition rule table (``fdp.operations.compose.RULES``) keys on.

        None (the default): decided by ``_pair()`` -- "pair" for an exact finite pair,
        "numeric" otherwise. A family with a closed-form composition rule names its
        kind ("gaussian", "eps_delta"); "neutral" marks a function equal to Id.
        """
        return None

    # ------------------------------------------------------------------
    # Evaluation
    # ------------------------------------------------------------------
    def __call__(self, alpha: ArrayLike) -> FloatOrArray:
        """β = f(α); a float for a float, an ndarray for an array.

        Parameters
        ----------
        alpha : float or array_like
            Type I error(s) in [0, 1].

        Returns
        -------
        float or ndarray
            f(α); for a numeric result the certified lower side (the safe side).

        Raises
        ------
        ValueError
            For α outside [0, 1] or not a number.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0)(0.05):.4f}")
        0.7405
        """
        a = _validate.alpha(alpha)
        return _validate.like_input(alpha, self._beta(a))

    def bounds(self, alpha: ArrayLike, width: float | None = None) -> Bracket:
        """(lower, upper) β at α: equal for closed forms, a certified bracket otherwise.

        Parameters
        ----------
        alpha : float or array_like
            Type I error(s) in [0, 1].
        width : float, optional
            The largest acceptable ``upper − lower``; numeric results refine (recomposing
            at a smaller tol) until it is met, other objects meet it or raise.

        Returns
        -------
        (lower, upper)
            Floats for a float α, arrays otherwise.

        Raises
        ------
        ValueError
            For α outside [0, 1], or a ``width`` this object cannot reach.

        Examples
        --------
        >>> import fdp
        >>> lo, hi = fdp.Gaussian(1.0).bounds(0.05)    # the closed form's proven rounding
        >>> bool(0.0 < hi - lo < 1e-12 * hi)
        True
        """
        a = _validate.alpha(alpha)
        lo, hi = self._beta(a), self._upper(a)
        meet_width(self, width, lo, hi, "beta(alpha)")
        return Bracket(_validate.like_input(alpha, lo), _validate.like_input(alpha, hi),
                       self.status, safe_side="lo")

    def delta_bounds(self, eps: ArrayLike, width: float | None = None) -> Bracket:
        """(lower, upper) δ at ε: equal for closed forms, a certified bracket otherwise.

        Parameters
        ----------
        eps : float or array_like
            Real ε (±inf allowed).
        width : float, optional
            As in ``bounds``.

        Returns
        -------
        (lower, upper)
            Floats for a float ε, arrays otherwise.

        Raises
        ------
        ValueError
            For a non-real ε or an unreachable ``width``.

        Examples
        --------
        >>> import fdp
        >>> lo, hi = fdp.EpsDelta(1.0, 1e-5).delta_bounds(1.0)
        >>> print(f"{lo:.1e} {hi:.1e}")
        1.0e-05 1.0e-05
        """
        e = _validate.reals("eps", eps, allow_inf=True)
        lo, hi = self._delta_lower(e), self._delta(e)
        meet_width(self, width, lo, hi, "delta(eps)")
        return Bracket(_validate.like_input(eps, lo), _validate.like_input(eps, hi),
                       self.status)

    @property
    def status(self) -> Status:
        """What the object may be used for: exact, certified, lower bound or approximation.

        Closed forms are ``Status.EXACT`` (this default); numeric results are
        ``Status.CERTIFIED``; derived objects take the weakest status of their inputs
        and of the operation that built them (``fdp.status``, the one rule). Only exact
        and certified objects can be spent, calibrated on or used as a proof.

        Returns
        -------
        Status
            One of ``Status.EXACT``, ``CERTIFIED``, ``LOWER_BOUND``, ``APPROXIMATION``.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).status
        <Status.EXACT: 'exact'>
        >>> (fdp.Laplace(1.0) @ fdp.Gaussian(1.0)).status
        <Status.CERTIFIED: 'certified'>
        >>> (fdp.edgeworth([fdp.Laplace(1.0)] * 3) @ fdp.Gaussian(1.0)).status
        <Status.APPROXIMATION: 'approximation'>
        """
        return Status.EXACT

    @property
    def is_exact(self) -> bool:
        """True when ``status`` is ``Status.EXACT`` (a closed form, no numeric bracket).

        Returns
        -------
        bool
            ``self.status is Status.EXACT``.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).is_exact
        True
        """
        return self.status is Status.EXACT

    def advantage(self) -> float:
        """max_α (1 − α − f(α)) = δ(0): the total-variation distance of the pair.

        Returns
        -------
        float
            The advantage (a certified upper value for numeric f).

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).advantage():.4f}")
        0.3829
        """
        return float(self._delta(np.array([0.0]))[0])

    # ------------------------------------------------------------------
    # (ε, δ) conversion (DRS §2.4, primal-dual)
    # ------------------------------------------------------------------
    def delta(self, eps: ArrayLike) -> FloatOrArray:
        """δ(ε) = 1 + f*(−e^ε) = sup_α (1 − f(α) − e^ε α) (DRS Prop 2.12).

        Defined for every real ε (negative ε describes the other order of the pair);
        ε = +inf gives 1 − f(0). For a numeric f this is a certified upper bound.

        Parameters
        ----------
        eps : float or array_like
            Real ε (±inf allowed).

        Returns
        -------
        float or ndarray
            δ(ε).

        Raises
        ------
        ValueError
            For a non-real ε.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).delta(1.0):.4f}")
        0.1269
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

    def epsilon(self, delta: ArrayLike) -> FloatOrArray:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta (inf if none); certified upper for numeric f.

        Solved in log space (``_log_delta``), so δ = 0 gives inf unless δ(ε) = 0 is
        proven at a finite ε (pure DP), and δ down to 1e-300 keeps full precision.

        Parameters
        ----------
        delta : float or array_like
            Target δ in [0, 1].

        Returns
        -------
        float or ndarray
            ε(δ), rounded to the safe side.

        Raises
        ------
        ValueError
            For δ outside [0, 1].

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).epsilon(1e-5):.4f}")
        4.3772
        """
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        return _validate.like_input(delta, self._epsilon_upper(d))

    def epsilon_bounds(self, delta: ArrayLike, width: float | None = None) -> Bracket:
        """(lower, upper) ε at the given δ: equal for exact f, a bracket for numeric f.

        Parameters
        ----------
        delta : float or array_like
            Target δ in [0, 1].
        width : float, optional
            As in ``bounds``.

        Returns
        -------
        (lower, upper)
            Floats for a float δ, arrays otherwise.

        Raises
        ------
        ValueError
            For δ outside [0, 1] or an unreachable ``width``.

        Examples
        --------
        >>> import fdp
        >>> lo, hi = fdp.Gaussian(1.0).epsilon_bounds(1e-5)
        >>> bool(0.0 <= hi - lo < 1e-10)
        True
        """
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        lo, hi = self._epsilon_range(d)
        meet_width(self, width, lo, hi, "epsilon(delta)")
        return Bracket(_validate.like_input(delta, lo), _validate.like_input(delta, hi),
                       self.status)

    def _epsilon_range(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) ε(δ) at validated δ ∈ [0, 1], the hook ``epsilon_bounds`` and
        ``epsilon`` answer from. A family with a closed form for ε(δ) overrides it.

        Default: bisection on the two sides of the δ bracket (``epsilon_for_delta``):
        the lower end is the largest ε verified to fail on ``_delta_lower``, the upper
        end the smallest verified to pass on ``_delta``.
        """
        lo = epsilon_for_delta(self._delta_lower, d, log_delta_fn=self._log_delta_lower,
                               lower=True)
        return lo, epsilon_for_delta(self._delta, d, log_delta_fn=self._log_delta)

    def _epsilon_upper(self, d: np.ndarray) -> np.ndarray:
        """The upper end of ``_epsilon_range`` alone (what ``epsilon`` returns): the
        generic bisection skips the lower end; an overridden range answers it."""
        if type(self)._epsilon_range is not TradeOff._epsilon_range:
            return self._epsilon_range(d)[1]
        return epsilon_for_delta(self._delta, d, log_delta_fn=self._log_delta)

    # ------------------------------------------------------------------
    # Inversion, symmetrisation, group privacy, subsampling, composition
    # ------------------------------------------------------------------


    def inverse(self) -> TradeOff:
        """f⁻¹(α) = inf{t ∈ [0,1] : f(t) ≤ α}; T(Q, P) = T(P, Q)⁻¹ (DRS Lemma A.2).

        Returns
        -------
        TradeOff
            ``self`` for symmetric f, a closed form where one is known, otherwise the
            generic inverse (``fdp.operations.inverse.Inverse``).

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).inverse()
        Gaussian(mu=1.0)
        >>> f = fdp.Gaussian(1.0).subsample(0.5, direction="add")
        >>> print(f"{f.inverse()(f(0.2)):.4f}")
        0.2000
        """
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

        Parameters
        ----------
        one_sided : bool, optional
            Which construction (default False).

        Returns
        -------
        TradeOff
            A symmetric trade-off function (``self`` when f is already symmetric).

        Raises
        ------
        TypeError
            When ``one_sided`` is not a bool.
        ValueError
            For ``one_sided=False`` on a one-directional object (``directions ==
            "one"``, e.g. ``subsample(p, direction="add")``): max{f, f⁻¹} would not be
            a guarantee there.

        Examples
        --------
        >>> import fdp
        >>> f = fdp.Gaussian(1.0).subsample(0.5, direction="add")
        >>> s = f.symmetrize(one_sided=True)
        >>> print(f"{s(0.2):.4f} {s.inverse()(0.2):.4f}")
        0.6185 0.6185
        """
        one_sided = _validate.flag("one_sided", one_sided)
        if self.symmetric:
            return self
        if not one_sided and getattr(self, "directions", "both") == "one":
            raise ValueError(
                f"{self!r} holds for one order of the neighbouring pair only, so "
                "max{f, f^-1} (symmetrize()) is not a guarantee; use "
                "symmetrize(one_sided=True), min{f, f^-1}** (DRS Thm 4.2; Bu et al. 2020)")
        inv = self.inverse()
        from fdp.operations.envelope import envelope, strongest
        return (envelope if one_sided else strongest)(self, inv)

    def group(self, k: int) -> TradeOff:
        """Group privacy for groups of size k: 1 − (1 − f)^{∘k} (DRS Thm 2.14).

        Parameters
        ----------
        k : int
            Group size, at least 1.

        Returns
        -------
        TradeOff
            A closed form where the family has one (G_μ → G_{kμ}), a certified bracket
            otherwise.

        Raises
        ------
        ValueError
            For k < 1 or not an integer.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).group(3)
        Gaussian(mu=3.0)
        """
        k = _validate.positive_int("k", k)
        if k == 1:
            return self
        return self._group(k)

    def _group(self, k: int) -> TradeOff:
        from fdp.operations.group import group
        return group(self, k)

    def subsample(self, p: float, sampling: str = "poisson",
                  direction: str = "both") -> TradeOff:
        """Privacy amplification by subsampling (DRS §4.2; Bu et al. 2020; ZDW Thm 11).

        - ``sampling="poisson", direction="both"``: min{f_p, f_p⁻¹}**, f_p = p f +
          (1 − p) Id, the one-step guarantee under add/remove neighbours.
        - ``sampling="poisson", direction="add"``: f_p alone, T(M(S), M(S ∪ {x})).
          This is ONE direction only, not a guarantee: compose the add directions
          and symmetrise once with ``symmetrize(one_sided=True)``.
        - ``direction="remove"``: f_p⁻¹, the other direction.
        - ``sampling="without_replacement"``: C_p(f) = min{f_p, f_p⁻¹}** (DRS Thm
          4.2), replace-one neighbours, p = m/n.

        Parameters
        ----------
        p : float
            Sampling rate in [0, 1].
        sampling : {"poisson", "without_replacement"}, optional
            The sampler (default "poisson"); the same name as in ``fdp.dpsgd``.
        direction : {"both", "add", "remove"}, optional
            Which order of the neighbouring pair (Poisson only; default "both").

        Returns
        -------
        TradeOff
            The subsampled trade-off function.

        Raises
        ------
        ValueError
            For p outside [0, 1], or an unknown sampler or direction.

        Examples
        --------
        >>> import fdp
        >>> f = fdp.Gaussian(1.0).subsample(0.1, sampling="poisson")
        >>> print(f"{float(f(0.1)):.4f}")
        0.8711
        """
        from fdp.operations.subsample import subsample
        return subsample(self, p, sampling, direction)

    def __matmul__(self, other: TradeOff) -> TradeOff:
        """f ⊗ g (DRS Def 3.1): ``fdp.compose(f, g)``.

        Parameters
        ----------
        other : TradeOff
            g.

        Returns
        -------
        TradeOff
            The composition (closed form where a rule exists, else a certified bracket).

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(3.0) @ fdp.Gaussian(4.0)
        Gaussian(mu=5.0)
        """
        if not isinstance(other, TradeOff):
            return NotImplemented
        from fdp.operations.compose import compose
        return compose(self, other)

    def __pow__(self, n: int) -> TradeOff:
        """n-fold composition f ⊗ … ⊗ f (n = 0 gives Id).

        Parameters
        ----------
        n : int
            A non-negative integer.

        Returns
        -------
        TradeOff
            f^{⊗n}.

        Raises
        ------
        ValueError
            For a negative or non-integral n.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0) ** 4
        Gaussian(mu=2.0)
        """
        from fdp.operations.compose import power
        return power(self, n)

    # ------------------------------------------------------------------
    # Comparisons, summaries, attack-risk read-outs
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

        Raises
        ------
        NotAGuarantee
            When f is not exact or certified (a lower bound or an approximation proves
            nothing about the truth), or g is an approximation. g may be a lower bound:
            f ≥ g ≥ the truth of g.
        """
        if not isinstance(other, TradeOff):
            raise TypeError(f"other must be a TradeOff, got {type(other).__name__}")
        tol = _validate.real("tol", tol, low=0.0, high=1.0)
        require_guarantee(self, "dominates (as a proof)")
        if other.status is Status.APPROXIMATION:
            raise NotAGuarantee(f"dominates (as a proof) refuses {type(other).__name__}(...): "
                                "its status is 'approximation', so nothing can be proven "
                                "against it")
        from fdp.conversions.summaries import prove_dominates
        return prove_dominates(self, other, tol)

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
        ``fdp.gdp_mu_for_eps_delta(eps, delta)``, which goes the other way: the
        largest μ whose μ-GDP implies a given (ε, δ)-DP.

        Returns
        -------
        float
            The certified upper end of the bracket on μ* = inf{μ : f ≥ G_μ} (DRS Def 2.7).
        """
        return float(self.gdp_mu_bounds().hi)

    def gdp_mu_bounds(self) -> Bracket:
        """(lower, upper) bracket on the smallest μ with f ≥ G_μ.

        Returns
        -------
        Bracket
            lo ≤ μ* = inf{μ : f ≥ G_μ} ≤ hi (inf when no finite μ is proven).

        Examples
        --------
        >>> import fdp
        >>> lo, hi = fdp.Laplace(1.0).gdp_mu_bounds()
        >>> print(f"{lo:.4f} {hi:.4f}")
        1.0301 1.0301
        """
        from fdp.conversions.gdp_fit import mu_bounds
        lo, hi = mu_bounds(self)
        return Bracket(float(lo), float(hi), self.status)

    def tpr_at_fpr(self, fpr: Any) -> Bracket:
        """Best membership test's TPR at FPR α: 1 − min{f(α), f⁻¹(α)}, a certified ``Bracket``.

        The worst ordered pair is used, so asymmetric (one-directional) curves are
        read in both orders (DRS 2022 §2.1). See ``fdp.conversions.risk.tpr_at_fpr``.

        Parameters
        ----------
        fpr : float or array_like
            False-positive rate(s) α in [0, 1].

        Returns
        -------
        Bracket
            lo ≤ TPR ≤ hi; ``safe`` is ``hi``.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).tpr_at_fpr(0.05).hi:.4f}")
        0.2595
        """
        from fdp.conversions.risk import tpr_at_fpr
        return tpr_at_fpr(self, fpr)

    def advantage_bounds(self) -> Bracket:
        """Certified bracket of the advantage δ(0) = max_α (1 − α − f(α)).

        Returns
        -------
        Bracket
            lo ≤ advantage ≤ hi.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).advantage_bounds().hi:.4f}")
        0.3829
        """
        from fdp.conversions.risk import advantage_bounds
        return advantage_bounds(self)

    def bayes_risk(self, prior: float = 0.5) -> Bracket:
        """Smallest Bayes risk min_α [(1 − π)α + π f(α)] of a membership attacker with prior π.

        Parameters
        ----------
        prior : float, optional
            π ∈ [0, 1], the attacker's prior on "the record is in" (default 0.5).

        Returns
        -------
        Bracket
            lo ≤ risk ≤ hi; ``safe`` is ``lo``.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).bayes_risk(0.5).lo:.4f}")
        0.3085
        """
        from fdp.conversions.risk import bayes_risk
        return bayes_risk(self, prior)

    def attack_success(self, prior: float = 0.5) -> Bracket:
        """Largest success probability 1 − Bayes risk of a membership attacker with prior π.

        Parameters
        ----------
        prior : float, optional
            π ∈ [0, 1] (default 0.5).

        Returns
        -------
        Bracket
            lo ≤ success ≤ hi; ``safe`` is ``hi``.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).attack_success().hi:.4f}")
        0.6915
        """
        from fdp.conversions.risk import attack_success
        return attack_success(self, prior)

    def reconstruction_bound(self, kappa: float) -> Bracket:
        """Reconstruction success ≤ 1 − f(κ) for a baseline success κ (Hayes et al. 2023).

        Parameters
        ----------
        kappa : float
            The attacker's baseline success κ ∈ [0, 1] without the output.

        Returns
        -------
        Bracket
            lo ≤ bound ≤ hi; ``safe`` is ``hi``.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).reconstruction_bound(0.01).hi:.4f}")
        0.0924
        """
        from fdp.conversions.risk import reconstruction_bound
        return reconstruction_bound(self, kappa)

    def gdp_fit(self) -> GdpFit:
        """How well the smallest G_μ below f fits f: μ's bracket (``gdp_mu_bounds()``), the gap.

        ``summary()`` says in words when a μ-GDP summary misleads (e.g. DP-SGD, whose
        μ* = √T·s/σ is set in the far tail α ≈ q^T, far from the bulk of the curve).

        Returns
        -------
        GdpFit
            The μ bracket, the fit gap and where it is attained.

        Examples
        --------
        >>> import fdp
        >>> fit = fdp.Gaussian(1.0).gdp_fit()
        >>> fit.mu_lo, fit.mu_hi, fit.gap_hi
        (1.0, 1.0, 0.0)
        """
        from fdp.conversions.gdp_fit import gdp_fit
        return gdp_fit(self)

    def report(self, delta: Any = 1e-5, fpr: Any = (0.001, 0.01, 0.1), prior: float = 0.5,
               epsilon: Any = (1.0, 8.0), unit: str | None = None) -> PrivacyReport:
        """The privacy claim of this guarantee as a ``PrivacyReport`` (JSON, Markdown, text,
        ``verify``): ε at each δ, δ at each ε, TPR at each FPR, Bayes risk at ``prior``,
        the μ summary; a ``fdp.dpsgd`` result also records its run's inputs.

        Parameters
        ----------
        delta, epsilon, fpr : float or sequence of float
            The queries (δ, FPR in [0, 1], ε ≥ 0).
        prior : float
            The attacker's prior π ∈ [0, 1] for the Bayes risk.
        unit : str, optional
            The unit of privacy of a curve that is not a DP-SGD run (default "one record").

        Returns
        -------
        PrivacyReport
            See ``fdp.report.make_report``; refused (``NotAGuarantee``) for a lower bound
            or an approximation.

        Examples
        --------
        >>> import fdp
        >>> print(fdp.Gaussian(1.0).report(delta=1e-5).epsilon[0].upper)
        4.377178...
        """
        from fdp.report import make_report
        return make_report(self, delta, fpr, prior, epsilon, unit)

    def pure_epsilon(self) -> float:
        """The smallest ε with f ≥ f_{ε,0} (pure ε-DP), inf if none is proven.

        Safe side: the upper end of ``pure_epsilon_bounds()``.

        Returns
        -------
        float
            The certified upper end of the bracket on ε* = inf{ε : f ≥ f_{ε,0}} (DRS eq. 2.4).
        """
        return float(self._pure_epsilon_bounds()[1])

    def pure_epsilon_bounds(self) -> Bracket:
        """(lower, upper) bracket on the smallest ε with f ≥ f_{ε,0}.

        Returns
        -------
        Bracket
            lo ≤ ε* ≤ hi (inf when no finite ε is proven).

        Examples
        --------
        >>> import fdp
        >>> fdp.EpsDelta(1.0).pure_epsilon_bounds()
        Bracket(lo=1.0, hi=1.0)
        """
        lo, hi = self._pure_epsilon_bounds()
        return Bracket(float(lo), float(hi), self.status)

    # ------------------------------------------------------------------
    # What the numeric engine may ask any trade-off function. The engine sits below
    # the families and operations, so it asks the object instead of testing classes;
    # every default means "unknown", which is always safe (the engine then falls
    # back to the object's law or privacy profile).
    # ------------------------------------------------------------------

    def _lattices(self) -> tuple[tuple, tuple] | None:
        """(pessimistic, optimistic) lattices of a numeric result (one per direction), or
        None: the numeric engine then discretises f from its law or its profile."""
        return None

    def _delta_members(self) -> tuple[Any, ...] | None:
        """Members f_i with δ_f = max_i δ_i exactly, i.e. f = min{f_1, …, f_m}** (DRS
        2022, Prop 2.12), or None; the engine then discretises each member."""
        return None

    def _gaussian_component(self) -> tuple[float, float] | None:
        """(μ, w) when f ≥ G_μ and the Q-side law of f's pair contains N(μ, 1) with
        weight w > 0 (G_μ; a subsampled G_μ with rate w; Id gives (0.0, 1.0)), else None.
        Certifies the exact GDP μ of compositions (DRS 2022, Cor 3.3 and Sec. 5)."""
        return None

    def _exact_vertices(self) -> bool:
        """True when f is piecewise linear with known vertices (a finite pair), so that
        its summaries are exact vertex formulas."""
        return self._pair() is not None

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"

    # --- law (helper law) ---
    def law(self) -> PrivacyLossLaw | None:
        """The privacy-loss law of f's dominating pair (``fdp.law``), or None.

        The law of L = log(dQ/dP) for a pair (P, Q) with T(P, Q) = f: interval masses
        under P and Q, atoms at ±∞, moments, log-MGF. This default answers through an
        exact finite pair (``_pair``) when one is known and None otherwise (f known
        only through β or δ). Families override it; it is what the composition
        engine, the CLT, Edgeworth and RDP read.

        Returns
        -------
        PrivacyLossLaw or None
            The law, or None.

        Examples
        --------
        >>> import fdp
        >>> print(fdp.Gaussian(1.0).law())
        GaussianLaw(mu=1.0)
        >>> fdp.from_function(lambda a: 1.0 - a).law() is None
        True
        """
        pair = self._pair()
        return None if pair is None else pair.law()

    def latex(self) -> str:
        """A LaTeX name of the function (without dollar signs).

        Returns
        -------
        str
            The name, e.g. ``G_{1}`` for a Gaussian.

        Examples
        --------
        >>> import fdp
        >>> isinstance(fdp.Gaussian(1.0).latex(), str)
        True
        """
        return r"\mathrm{" + type(self).__name__ + "}"

    # --- pickling ---
    def __setstate__(self, state: object) -> None:
        """Restore a pickled value object, whose own ``__setattr__`` refuses writes.

        ``state`` is ``__dict__`` or ``(__dict__, slots)``, as pickle gives it.
        """
        d, slots = state if isinstance(state, tuple) else (state, None)
        for k, v in {**(d or {}), **(slots or {})}.items():
            object.__setattr__(self, k, v)


@dataclass(frozen=True, eq=False)
class Delegating(TradeOff):
    """A trade-off object that is the curve ``of`` with something added (a weaker stated
    status, the assumptions it holds under): every hook of the curve is ``of``'s, so a
    subclass adds only what it changes (its status, its repr).

    Parameters
    ----------
    of : TradeOff
        The curve.

    Examples
    --------
    >>> import fdp
    >>> from fdp.tradeoff import Delegating
    >>> Delegating(fdp.Gaussian(1.0))(0.05) == fdp.Gaussian(1.0)(0.05)
    True
    """

    of: TradeOff

    @property
    def status(self) -> Status:
        return self.of.status

    @property
    def symmetric(self) -> bool:
        return self.of.symmetric

    @property
    def directions(self) -> str:
        return self.of.directions

    def latex(self) -> str:
        return self.of.latex()

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        return self.of._beta(alpha)

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        return self.of._upper(alpha)

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return self.of._delta(eps)

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return self.of._delta_lower(eps)

    def _log_delta(self, eps: np.ndarray) -> np.ndarray:
        return self.of._log_delta(eps)

    def _log_delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return self.of._log_delta_lower(eps)

    def _has_certified_delta(self) -> bool:
        return self.of._has_certified_delta()

    def law(self) -> Any:
        return self.of.law()


def meet_width(f: TradeOff, width: float | None, lo: ArrayLike, hi: ArrayLike,
               what: str) -> None:
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


def count_factors(fs: Iterable[TradeOff]) -> list[tuple[TradeOff, int]]:
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


def as_factors(fs: tuple, name: str) -> tuple[TradeOff, ...]:
    """The trade-off functions a collection-taking function was given, as a tuple.

    The package's one reading of "several trade-off functions": ``name(f, g, h)`` and
    ``name([f, g, h])`` (a list or tuple as the only argument) mean the same.

    Parameters
    ----------
    fs : tuple
        The positional arguments as received (``*fs``).
    name : str
        The calling function's name, for error messages.

    Returns
    -------
    tuple of TradeOff
        The functions, in order.

    Raises
    ------
    ValueError
        When no function is given.
    TypeError
        When an item is not a TradeOff.

    Examples
    --------
    >>> import fdp
    >>> from fdp.tradeoff import as_factors
    >>> g = fdp.Gaussian(1.0)
    >>> as_factors((g, g), "compose") == as_factors(([g, g],), "compose")
    True
    """
    if len(fs) == 1 and isinstance(fs[0], (list, tuple)):
        fs = tuple(fs[0])
    if not fs:
        raise ValueError(f"{name} needs at least one trade-off function")
    for f in fs:
        if not isinstance(f, TradeOff):
            raise TypeError(f"{name} takes TradeOff objects, got {type(f).__name__}")
    return tuple(fs)


def is_symmetric(f: TradeOff, tol: float = SYMMETRY_TOL) -> bool:
    """True when f = f⁻¹: known (``f.symmetric``) or checked numerically.

    The package's one symmetry test, with one meaning of ``tol``: an absolute
    allowance on β, f counts as symmetric when |f(α) − f⁻¹(α)| ≤ tol at every α of
    ``fdp._numerics.alpha_grid(401)`` (uniform points plus log-spaced tails).
    Symmetry matters because f = T(P, Q) then also bounds the other order T(Q, P)
    = f⁻¹ (DRS 2022, Lemma A.2 and Prop 2.4).

    Parameters
    ----------
    f : TradeOff
        The function to test.
    tol : float, optional
        Absolute allowance on β (default ``fdp._constants.SYMMETRY_TOL`` = 1e-9).

    Returns
    -------
    bool
        True when f is symmetric within ``tol``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.tradeoff import is_symmetric
    >>> add = fdp.Gaussian(1.0).subsample(0.5, direction="add")
    >>> is_symmetric(fdp.Gaussian(1.0)), is_symmetric(add)
    (True, False)
    """
    if f.symmetric:
        return True
    tol = _validate.real("tol", tol, low=0.0)
    a = alpha_grid(401)
    return bool(np.max(np.abs(f(a) - f.inverse()(a))) <= tol)
