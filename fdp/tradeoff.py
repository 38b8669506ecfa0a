"""The base class of every trade-off function.

f = T(P, Q) maps a type I error α to the smallest type II error β of a test between
P and Q; f is a trade-off function iff it is convex, continuous, non-increasing and
f(α) ≤ 1 − α (Dong, Roth & Su 2022, Def 2.1 and Prop 2.2).

A family implements ``_beta`` and, where known in closed form, ``_delta``, ``_inverse``,
``_pair`` and ``law()``; numeric results also ``_upper`` and ``_delta_lower``. The rest is
written once here; methods implemented higher up import them in the method body, the
one upward edge (docs/architecture.md).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fdp import _validate
from fdp._constants import DELTA_RESOLUTION
from fdp._constants import TINY as _TINY
from fdp._hooks import EngineHooks
from fdp._numerics import _log, conjugate_delta, epsilon_for_delta
from fdp._numerics import is_symmetric as is_symmetric
from fdp._types import ArrayLike, FloatOrArray
from fdp._validate import count_factors as count_factors
from fdp._validate import meet_width
from fdp.bracket import Bracket
from fdp.status import ONE_DIRECTION_REMARK as ONE_DIRECTION_REMARK
from fdp.status import NotAGuarantee, Status, require_guarantee
from fdp.status import math_repr as math_repr
from fdp.status import remark as remark

if TYPE_CHECKING:  # pragma: no cover
    from fdp.conversions.gdp_fit import GdpFit
    from fdp.law import PrivacyLossLaw
    from fdp.report import PrivacyReport


class TradeOff(EngineHooks, abc.ABC):
    """A trade-off function α ↦ β (DRS 2022, Definition 2.1).

    Call it on a float (a float) or an array (an ndarray); ``f ≥ g`` pointwise means f is
    more private. Subclasses are frozen dataclasses whose ``repr`` reads like the math.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.Gaussian(1.0)
    >>> isinstance(f, fdp.TradeOff), f @ f
    (True, Gaussian(mu=1.4142135623730951))
    """

    __slots__ = ()

    @abc.abstractmethod
    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        """β at α, for a float array already checked to lie in [0, 1]."""

    @property
    def symmetric(self) -> bool:
        """True when f = f⁻¹ is known by construction (``is_symmetric`` tests numerically)."""
        return False

    @property
    def directions(self) -> str:
        """"both", or "one" for one direction of add/remove neighbouring only
        (``PoissonAdd``): not a guarantee until symmetrised (DRS Thm 4.2)."""
        return "both"

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        """Upper side of a certified bracket; equal to ``_beta`` for exact f."""
        return self._beta(alpha)

    def __call__(self, alpha: ArrayLike) -> FloatOrArray:
        """β = f(α) for α in [0, 1]; for a numeric result the certified lower side.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0)(0.05):.4f}")
        0.7405
        """
        a = _validate.alpha(alpha)
        return _validate.like_input(alpha, self._beta(a))

    def bounds(self, alpha: ArrayLike, width: float | None = None) -> Bracket:
        """(lower, upper) β at α: equal up to proven rounding for closed forms, else certified.

        ``width``: the largest acceptable ``upper − lower``; numeric results refine
        (recomposing at a smaller tol), other objects meet it or raise ``ValueError``.

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
        """(lower, upper) δ at real ε (±inf ok); ``width`` as in ``bounds``; see ``delta``."""
        e = _validate.reals("eps", eps, allow_inf=True)
        lo, hi = self._delta_lower(e), self._delta(e)
        meet_width(self, width, lo, hi, "delta(eps)")
        return Bracket(_validate.like_input(eps, lo), _validate.like_input(eps, hi),
                       self.status)

    @property
    def status(self) -> Status:
        """What the object may be used for (``fdp.status``): closed forms are exact (this
        default), numeric results certified, derived objects the weakest of their inputs and
        operation; only exact and certified objects can be spent or used as a proof.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).status
        <Status.EXACT: 'exact'>
        >>> (fdp.Laplace(1.0) @ fdp.Gaussian(1.0)).status
        <Status.CERTIFIED: 'certified'>
        """
        return Status.EXACT

    @property
    def is_exact(self) -> bool:
        """``status is Status.EXACT``."""
        return self.status is Status.EXACT

    def advantage(self) -> float:
        """max_α (1 − α − f(α)) = δ(0), the total variation of the pair (certified upper).

        Examples
        --------
        >>> import fdp
        >>> g = fdp.Gaussian(1.0)
        >>> print(f"{g.advantage():.4f} {g.advantage_bounds().hi:.4f}")
        0.3829 0.3829
        """
        return float(self._delta(np.array([0.0]))[0])

    def delta(self, eps: ArrayLike) -> FloatOrArray:
        """δ(ε) = 1 + f*(−e^ε) = sup_α (1 − f(α) − e^ε α) (DRS Prop 2.12).

        For every real ε (negative ε: the other order of the pair; +inf gives 1 − f(0));
        a certified upper bound for numeric f.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).delta(1.0):.4f}")
        0.1269
        >>> lo, hi = fdp.EpsDelta(1.0, 1e-5).delta_bounds(1.0)
        >>> print(f"{lo:.1e} {hi:.1e}")
        1.0e-05 1.0e-05
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

        Derivation: docs/derivations/core.md.
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

    # ``_delta`` is a closed form or certified upper bound (numeric results: by contract)
    _certified_delta = False

    def _has_certified_delta(self) -> bool:
        return self._certified_delta or not self.is_exact

    def epsilon(self, delta: ArrayLike) -> FloatOrArray:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta (inf if none); certified upper for numeric f.

        Solved in log space: δ = 0 gives inf unless pure DP is proven, and δ down to 1e-300
        keeps full precision.

        Examples
        --------
        >>> import fdp
        >>> print(f"{fdp.Gaussian(1.0).epsilon(1e-5):.4f}")
        4.3772
        >>> lo, hi = fdp.Gaussian(1.0).epsilon_bounds(1e-5)
        >>> bool(0.0 <= hi - lo < 1e-10)
        True
        """
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        return _validate.like_input(delta, self._epsilon_upper(d))

    def epsilon_bounds(self, delta: ArrayLike, width: float | None = None) -> Bracket:
        """(lower, upper) ε at δ ∈ [0, 1]; ``width`` as in ``bounds``; example in ``epsilon``."""
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        lo, hi = self._epsilon_range(d)
        meet_width(self, width, lo, hi, "epsilon(delta)")
        return Bracket(_validate.like_input(delta, lo), _validate.like_input(delta, hi),
                       self.status)

    def _epsilon_range(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) ε(δ) for ``epsilon_bounds``: by default the largest ε verified to fail
        on ``_delta_lower``, the smallest verified to pass on ``_delta``; closed forms override."""
        lo = epsilon_for_delta(self._delta_lower, d, log_delta_fn=self._log_delta_lower,
                               lower=True)
        return lo, epsilon_for_delta(self._delta, d, log_delta_fn=self._log_delta)

    def _epsilon_upper(self, d: np.ndarray) -> np.ndarray:
        """The upper end of ``_epsilon_range`` alone (what ``epsilon`` returns)."""
        if type(self)._epsilon_range is not TradeOff._epsilon_range:
            return self._epsilon_range(d)[1]
        return epsilon_for_delta(self._delta, d, log_delta_fn=self._log_delta)

    def inverse(self) -> TradeOff:
        """f⁻¹(α) = inf{t ∈ [0,1] : f(t) ≤ α}; T(Q, P) = T(P, Q)⁻¹ (DRS Lemma A.2).

        ``self`` if symmetric, else a closed form or ``fdp.operations.inverse.Inverse``.

        Examples
        --------
        >>> import fdp
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
        """max{f, f⁻¹} (DRS Prop 2.4), or with ``one_sided=True`` min{f, f⁻¹}** (DRS Thm 4.2;
        Bu et al. 2020).

        The first needs f to bound both orders of every neighbouring pair, the second one
        order (add/remove); ``ValueError`` for ``one_sided=False`` on a one-direction object.

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
        """Group privacy for groups of size k ≥ 1: 1 − (1 − f)^{∘k} (DRS Thm 2.14).

        A closed form where the family has one (G_μ → G_{kμ}), else a certified bracket.

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
        """Privacy amplification by subsampling at rate p ∈ [0, 1] (DRS §4.2; Bu et al. 2020).

        ``sampling="poisson"``: ``direction="both"`` gives min{f_p, f_p⁻¹}**, f_p = p f +
        (1 − p) Id (add/remove); ``"add"`` gives f_p alone, one direction only (compose the
        add directions, then ``symmetrize(one_sided=True)`` once); ``"remove"`` gives f_p⁻¹.
        ``sampling="without_replacement"``: C_p(f) = min{f_p, f_p⁻¹}** (DRS Thm 4.2),
        replace-one, p = m/n.

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
        """f ⊗ g (DRS Def 3.1), as ``fdp.compose(f, g)``.

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
        """n-fold composition f ⊗ … ⊗ f for an integer n ≥ 0 (n = 0 gives Id).

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0) ** 4
        Gaussian(mu=2.0)
        """
        from fdp.operations.compose import power
        return power(self, n)

    def dominates(self, other: TradeOff, *, tol: float = 0.0) -> bool:
        """True only when f(α) ≥ g(α) − tol (absolute, default 0) is PROVEN on [0, 1].

        The proof: ``fdp.conversions.summaries.prove_dominates``. ``NotAGuarantee`` when f is
        not exact or certified, or g is an approximation (g may be a lower bound).

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).dominates(fdp.Gaussian(2.0))
        True
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
        """(lo, hi) around μ* = inf{μ : f ≥ G_μ}; closed forms override it."""
        from fdp.conversions.summaries import gdp_mu_bounds
        return gdp_mu_bounds(self)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """(lo, hi) with lo ≤ ε* ≤ hi, ε* = inf{ε : f ≥ f_{ε,0}} (inf if none)."""
        from fdp.conversions.summaries import pure_epsilon_bounds
        return pure_epsilon_bounds(self)

    def gdp_mu(self) -> float:
        """The smallest μ with f ≥ G_μ (DRS Def 2.7): the upper end of ``gdp_mu_bounds()``
        (``fdp.gdp_mu_for_eps_delta`` goes the other way).

        Examples
        --------
        >>> import fdp
        >>> lo, hi = fdp.Laplace(1.0).gdp_mu_bounds()
        >>> print(f"{lo:.4f} {hi:.4f} {fdp.Laplace(1.0).gdp_mu():.4f}")
        1.0301 1.0301 1.0301
        """
        return float(self.gdp_mu_bounds().hi)

    def gdp_mu_bounds(self) -> Bracket:
        """``Bracket`` lo ≤ μ* = inf{μ : f ≥ G_μ} ≤ hi (inf when none is proven); see ``gdp_mu``."""
        from fdp.conversions.gdp_fit import mu_bounds
        lo, hi = mu_bounds(self)
        return Bracket(float(lo), float(hi), self.status)

    def tpr_at_fpr(self, fpr: Any) -> Bracket:
        """The best test's TPR at FPR α, a ``Bracket``: ``fdp.conversions.risk.tpr_at_fpr``."""
        from fdp.conversions.risk import tpr_at_fpr
        return tpr_at_fpr(self, fpr)

    def advantage_bounds(self) -> Bracket:
        """``Bracket`` of δ(0) = max_α (1 − α − f(α)): ``fdp.conversions.risk.advantage_bounds``."""
        from fdp.conversions.risk import advantage_bounds
        return advantage_bounds(self)

    def bayes_risk(self, prior: float = 0.5) -> Bracket:
        """Smallest Bayes risk at prior π, a ``Bracket``: ``fdp.conversions.risk.bayes_risk``."""
        from fdp.conversions.risk import bayes_risk
        return bayes_risk(self, prior)

    def attack_success(self, prior: float = 0.5) -> Bracket:
        """1 − ``bayes_risk(prior)``, a ``Bracket``: as ``fdp.conversions.risk.attack_success``."""
        from fdp.conversions.risk import attack_success
        return attack_success(self, prior)

    def reconstruction_bound(self, kappa: float) -> Bracket:
        """Reconstruction success ≤ 1 − f(κ), a ``Bracket``: ``fdp.conversions.risk``."""
        from fdp.conversions.risk import reconstruction_bound
        return reconstruction_bound(self, kappa)

    def gdp_fit(self) -> GdpFit:
        """How well the smallest G_μ below f fits f: as ``fdp.conversions.gdp_fit.gdp_fit``."""
        from fdp.conversions.gdp_fit import gdp_fit
        return gdp_fit(self)

    def report(self, delta: Any = 1e-5, fpr: Any = (0.001, 0.01, 0.1), prior: float = 0.5,
               epsilon: Any = (1.0, 8.0), unit: str | None = None) -> PrivacyReport:
        """This guarantee's privacy claim as a ``PrivacyReport``: ``fdp.report.make_report``
        (its parameters; ``NotAGuarantee`` for a lower bound or an approximation).

        Examples
        --------
        >>> import fdp
        >>> print(fdp.Gaussian(1.0).report(delta=1e-5).epsilon[0].upper)
        4.377178...
        """
        from fdp.report import make_report
        return make_report(self, delta, fpr, prior, epsilon, unit)

    def pure_epsilon(self) -> float:
        """The smallest ε with f ≥ f_{ε,0} (DRS eq. 2.4), inf if none; see ``pure_epsilon_bounds``.

        Examples
        --------
        >>> import fdp
        >>> fdp.EpsDelta(1.0).pure_epsilon(), fdp.EpsDelta(1.0).pure_epsilon_bounds()
        (1.0, Bracket(lo=1.0, hi=1.0))
        """
        return float(self._pure_epsilon_bounds()[1])

    def pure_epsilon_bounds(self) -> Bracket:
        """``Bracket`` lo ≤ ε* = inf{ε : f ≥ f_{ε,0}} ≤ hi; see ``pure_epsilon``."""
        lo, hi = self._pure_epsilon_bounds()
        return Bracket(float(lo), float(hi), self.status)

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"

    def law(self) -> PrivacyLossLaw | None:
        """The privacy-loss law of f's dominating pair (``fdp.law``), or None.

        L = log(dQ/dP) for (P, Q) with T(P, Q) = f, read by the engine, the CLT, Edgeworth and
        RDP; by default through ``_pair()``.

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
        """A LaTeX name without dollar signs, e.g. ``G_{1}``."""
        return r"\mathrm{" + type(self).__name__ + "}"


class Bracketed(TradeOff):
    """A curve computed as a certified bracket ``_bracket(α) -> (lo, hi)``: β is lo
    (the safe side) and ``_upper`` is hi."""

    __slots__ = ()

    @abc.abstractmethod
    def _bracket(self, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) β at a validated array of α."""

    def _beta(self, alpha: np.ndarray) -> np.ndarray:
        return self._bracket(alpha)[0]

    def _upper(self, alpha: np.ndarray) -> np.ndarray:
        return self._bracket(alpha)[1]


class ProfileBracketed(TradeOff):
    """A closed-form profile as a certified bracket ``_delta_bracket(ε) -> (lo, hi)``."""

    __slots__ = ()
    _certified_delta = True

    @abc.abstractmethod
    def _delta_bracket(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) δ at a validated array of ε."""

    def _delta(self, eps: np.ndarray) -> np.ndarray:
        return self._delta_bracket(eps)[1]

    def _delta_lower(self, eps: np.ndarray) -> np.ndarray:
        return self._delta_bracket(eps)[0]


@dataclass(frozen=True, eq=False)
class Delegating(TradeOff):
    """The curve ``of`` with something added (a stated status, assumptions); hooks are ``of``'s.

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


def as_factors(fs: tuple, name: str) -> tuple[TradeOff, ...]:
    """The trade-off functions of ``name(f, g, h)`` or ``name([f, g, h])``, as a tuple.

    ``ValueError`` when none is given, ``TypeError`` for an item that is not a TradeOff.

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
