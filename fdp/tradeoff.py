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

This module sits low in the package: it imports only ``fdp._*``. The methods
whose general implementations live higher up (inverse, symmetrize, group,
subsample, ``@``, ``**`` in ``fdp._operation_methods``; dominance, summaries and
attack-risk read-outs in ``fdp._readout_methods``) reach ``fdp.operations`` and
``fdp.conversions`` through the registry of ``fdp._dispatch``.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

import numpy as np

from fdp import _validate
from fdp._constants import DELTA_RESOLUTION, SYMMETRY_TOL
from fdp._constants import TINY as _TINY
from fdp._engine_hooks import EngineHooks
from fdp._numerics import _log, alpha_grid, conjugate_delta, epsilon_for_delta
from fdp._operation_methods import OperationMethods
from fdp._readout_methods import ReadoutMethods

if TYPE_CHECKING:  # pragma: no cover
    from fdp.law import PrivacyLossLaw

ONE_DIRECTION_REMARK = "  # one direction only, not a guarantee"


def remark(f: TradeOff) -> str:
    """The remark a repr ends with: ``ONE_DIRECTION_REMARK`` for one-direction f."""
    return ONE_DIRECTION_REMARK if f.directions == "one" else ""


def math_repr(f: TradeOff) -> str:
    """repr(f) without its one-direction remark (for reprs that contain f)."""
    text, tail = repr(f), remark(f)
    return text[:-len(tail)] if tail and text.endswith(tail) else text


class TradeOff(OperationMethods, ReadoutMethods, EngineHooks, abc.ABC):
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
    def __call__(self, alpha):
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

    def bounds(self, alpha, width=None):
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
        >>> lo, hi = fdp.Gaussian(1.0).bounds(0.05)
        >>> lo == hi
        True
        """
        a = _validate.alpha(alpha)
        lo, hi = self._beta(a), self._upper(a)
        _meet_width(self, width, lo, hi, "beta(alpha)")
        return _validate.like_input(alpha, lo), _validate.like_input(alpha, hi)

    def delta_bounds(self, eps, width=None):
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
        _meet_width(self, width, lo, hi, "delta(eps)")
        return _validate.like_input(eps, lo), _validate.like_input(eps, hi)

    @property
    def is_exact(self) -> bool:
        """True when the function is known exactly (no numeric bracket).

        Returns
        -------
        bool
            False for numeric results of the composition engine.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).is_exact
        True
        """
        return True

    # ------------------------------------------------------------------
    # Inversion, symmetrisation, group privacy, subsampling, composition:
    # see ``fdp._operation_methods.OperationMethods``
    # ------------------------------------------------------------------

    # ------------------------------------------------------------------
    # Comparisons and summaries: see ``fdp._readout_methods.ReadoutMethods``
    # ------------------------------------------------------------------

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
    def delta(self, eps):
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

    def epsilon(self, delta):
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
        return _validate.like_input(delta, epsilon_for_delta(self._delta, d,
                                                             log_delta_fn=self._log_delta))

    def epsilon_bounds(self, delta, width=None):
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
        >>> lo == hi
        True
        """
        d = _validate.reals("delta", delta, low=0.0, high=1.0)
        lo = epsilon_for_delta(self._delta_lower, d, log_delta_fn=self._log_delta_lower)
        hi = epsilon_for_delta(self._delta, d, log_delta_fn=self._log_delta)
        _meet_width(self, width, lo, hi, "epsilon(delta)")
        return _validate.like_input(delta, lo), _validate.like_input(delta, hi)




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
