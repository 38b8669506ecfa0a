"""The comparison, summary and attack-risk methods of every trade-off function.

``TradeOff`` inherits them from ``ReadoutMethods``, kept in a module of their own
so that ``fdp.tradeoff`` stays one job (the abstract surface, evaluation and the
(ε, δ) conversion). Each method reaches its implementation in ``fdp.conversions``
through the registry of ``fdp._dispatch``; families with a closed form override
the private hooks (``_gdp_mu_bounds``, ``_pure_epsilon_bounds``).
"""

from __future__ import annotations

from typing import Any

from fdp import _validate
from fdp._dispatch import implementation


class ReadoutMethods:
    """Mixin of ``TradeOff``: dominance, GDP and pure-ε summaries, attack-risk read-outs."""

    __slots__ = ()

    def dominates(self, other: Any, *, tol: float = 0.0) -> bool:
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
        if not isinstance(other, ReadoutMethods):
            raise TypeError(f"other must be a TradeOff, got {type(other).__name__}")
        tol = _validate.real("tol", tol, low=0.0, high=1.0)
        return implementation("dominates")(self, other, tol)

    def _gdp_mu_bounds(self) -> tuple[float, float]:
        """(lo, hi) with lo ≤ μ* ≤ hi, μ* = inf{μ : f ≥ G_μ} (inf if none).

        Generic certified default: ``fdp.conversions.summaries.gdp_mu_bounds``.
        Families with a closed form override it (Gaussian: (μ, μ)).
        """
        return implementation("gdp_mu_bounds")(self)

    def _pure_epsilon_bounds(self) -> tuple[float, float]:
        """(lo, hi) with lo ≤ ε* ≤ hi, ε* = inf{ε : f ≥ f_{ε,0}} (inf if none)."""
        return implementation("pure_epsilon_bounds")(self)

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
        """Alias of ``gdp_mu()``: the smallest μ with f ≥ G_μ (safe side).

        Returns
        -------
        float
            As ``gdp_mu()``.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.5).smallest_gdp_mu()
        1.5
        """
        return self.gdp_mu()

    def gdp_mu_bounds(self) -> tuple[float, float]:
        """(lower, upper) bracket on the smallest μ with f ≥ G_μ.

        Returns
        -------
        (float, float)
            lo ≤ μ* = inf{μ : f ≥ G_μ} ≤ hi (inf when no finite μ is proven).

        Examples
        --------
        >>> import fdp
        >>> lo, hi = fdp.Laplace(1.0).gdp_mu_bounds()
        >>> print(f"{lo:.4f} {hi:.4f}")
        1.0301 1.0301
        """
        lo, hi = self._gdp_mu_bounds()
        return float(lo), float(hi)

    def tpr_at_fpr(self, fpr):
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
        return implementation("tpr_at_fpr")(self, fpr)

    def advantage_bounds(self):
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
        return implementation("advantage_bounds")(self)

    def bayes_risk(self, prior: float = 0.5):
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
        return implementation("bayes_risk")(self, prior)

    def attack_success(self, prior: float = 0.5):
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
        return implementation("attack_success")(self, prior)

    def reconstruction_bound(self, kappa: float):
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
        return implementation("reconstruction_bound")(self, kappa)

    def gdp_mu_bracket(self):
        """Certified [μ_lo, μ_hi] of the smallest μ with f ≥ G_μ, with the fit gap (``GdpFit``).

        ``summary()`` says in words when a μ-GDP summary misleads (e.g. DP-SGD, whose
        μ* = √T·s/σ is set in the far tail α ≈ q^T, far from the bulk of the curve).

        Returns
        -------
        GdpFit
            The μ bracket, the fit gap and where it is attained.

        Examples
        --------
        >>> import fdp
        >>> fit = fdp.Gaussian(1.0).gdp_mu_bracket()
        >>> fit.mu_lo, fit.mu_hi, fit.gap_hi
        (1.0, 1.0, 0.0)
        """
        return implementation("gdp_mu_bracket")(self)

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
        """(lower, upper) bracket on the smallest ε with f ≥ f_{ε,0}.

        Returns
        -------
        (float, float)
            lo ≤ ε* ≤ hi (inf when no finite ε is proven).

        Examples
        --------
        >>> import fdp
        >>> fdp.EpsDelta(1.0).pure_epsilon_bounds()
        (1.0, 1.0)
        """
        lo, hi = self._pure_epsilon_bounds()
        return float(lo), float(hi)
