"""A privacy filter: spend privacy until a budget is used up, then refuse.

``Accountant(budget=...)`` keeps the guarantees of the mechanisms run so far. Each
``spend(f)`` forms the composition of everything spent with f (``fdp.compose``: closed
forms where they exist -- Gaussians, finite pairs, (ε, δ) -- otherwise the numeric
engine with its certified bracket) and checks it against the budget on the certified
side (see ``fdp.calibration`` for the checks). A spend is also accepted when the
certified GDP bounds of all spends satisfy Σ μ_i² ≤ μ_B² (μ_B the largest μ whose G_μ
meets the budget): ⊗ G_{μ_i} = G_√Σμ_i² (DRS Cor 3.3) lies below the composition, so
this is a second sufficient condition, and it keeps a negligible spend negligible
when the numeric ⊗-check cannot resolve it. If the budget would break, it raises
``BudgetExceeded`` -- whose message says what was over and by how much (certified
sides) -- and *nothing changes*; otherwise the spend is recorded. Once the budget is
exhausted every further spend is refused: the data can no longer be accessed.

The derivation: docs/derivations/accountant.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import cast

import numpy as np

from fdp import _validate
from fdp.calibration import Target, search_noise
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.operations.compose import compose
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff

_GAUSS_RTOL = 1e-12


class BudgetExceeded(Exception):
    """A spend would break the budget; the accountant was left unchanged.

    Parameters
    ----------
    message : str
        What was over the budget and by how much (certified sides).
    requested : TradeOff, optional
        The refused spend.
    would_spend : TradeOff, optional
        The composition it would have produced (None in adaptive mode or if not formed).
    budget : str, optional
        The budget, in words.

    Examples
    --------
    >>> import fdp
    >>> acct = fdp.Accountant(mu=1.0)
    >>> try:
    ...     acct.spend(fdp.Gaussian(2.0))
    ... except fdp.BudgetExceeded as exc:
    ...     print(exc.requested)
    Gaussian(mu=2.0)
    """

    def __init__(self, message: str, *, requested: TradeOff | None = None,
                 would_spend: TradeOff | None = None, budget: str | None = None) -> None:
        super().__init__(message)
        self.requested = requested
        self.would_spend = would_spend
        self.budget = budget


def gdp_bound(f: TradeOff) -> float:
    """Smallest μ with f ≥ G_μ, certified and rounded up (inf if none is proven).

    ``f.gdp_mu()``: the upper end of ``f.gdp_mu_bounds()`` (closed forms exact,
    piecewise-linear f at their vertices, other f by the convexity sandwich of
    ``fdp.conversions.summaries``, numeric results from their bracket).

    Examples
    --------
    >>> import fdp
    >>> from fdp.accountant import gdp_bound
    >>> gdp_bound(fdp.Gaussian(0.7)), gdp_bound(fdp.EpsDelta(1.0, 1e-5))
    (0.7, inf)
    """
    if isinstance(f, Gaussian):
        return f.mu
    return float(f.gdp_mu())


class Accountant:
    """A privacy filter with a budget; see docs/derivations/accountant.md for the guarantee.

    Parameters
    ----------
    budget : TradeOff or (float, float), optional
        The budget as a trade-off function (``fdp.EpsDelta(ε, δ)`` means (ε, δ)-DP)
        or an (ε, δ) pair. Exactly one of ``budget``, ``mu``, ``epsilon`` with
        ``delta``, ``advantage``, ``tpr_at_fpr`` is given.
    mu : float, optional
        A μ-GDP budget.
    epsilon, delta : float, optional
        An (ε, δ)-DP budget.
    advantage : float, optional
        A bound on the membership-inference advantage.
    tpr_at_fpr : (float, float), optional
        (tpr, fpr): every attack with FPR ≤ fpr has TPR ≤ tpr.
    adaptive : bool
        True: the fully adaptive filter of Smith & Thakurta (2022) on the GDP bounds
        of the spends (see docs/derivations/accountant.md).
    tol : float, optional
        Engine grid accuracy of numeric compositions (as in ``fdp.compose``).
    slack : float
        Absolute allowance on compared δ or β values, in [0, 1e-6] (default 1e-12).

    Raises
    ------
    ValueError
        If no budget or more than one is given, or a number is out of range.
    TypeError
        If ``budget`` is neither a TradeOff nor a pair.

    Examples
    --------
    >>> import fdp
    >>> acct = fdp.Accountant(mu=1.0)
    >>> acct.spend(fdp.Gaussian(0.6))
    Gaussian(mu=0.6)
    >>> acct.can_spend(fdp.Gaussian(0.8)), acct.can_spend(fdp.Gaussian(0.9))
    (True, False)
    >>> print(f"{acct.remaining():.4f}")
    0.8000
    """

    def __init__(self, budget: TradeOff | Target | tuple[float, float] | None = None, *,
                 mu: float | None = None, epsilon: float | None = None,
                 delta: float | None = None, advantage: float | None = None,
                 tpr_at_fpr: tuple[float, float] | None = None, adaptive: bool = False,
                 tol: float | None = None, slack: float = 1e-12) -> None:
        if isinstance(budget, tuple):
            if len(budget) != 2 or epsilon is not None or delta is not None:
                raise ValueError("budget=(epsilon, delta) must be a pair, given alone")
            epsilon, delta = budget[0], budget[1]
            budget = None
        elif budget is not None and not isinstance(budget, (TradeOff, Target)):
            raise TypeError("budget must be a TradeOff or an (epsilon, delta) pair, got "
                            f"{type(budget).__name__}; use mu= for a GDP budget")
        self._target = Target.make(budget, mu=mu, epsilon=epsilon, delta=delta,
                                   advantage=advantage, tpr_at_fpr=tpr_at_fpr)
        if not isinstance(adaptive, bool):
            raise TypeError("adaptive must be True or False")
        self._adaptive = adaptive
        self._tol = None if tol is None else _validate.real("tol", tol, low=0.0, low_open=True)
        self._slack = _validate.real("slack", slack, low=0.0, high=1e-6)
        self._spends: list[TradeOff] = []
        self._spent: TradeOff = Identity()
        self._mu2 = 0.0                 # Σ μ_i² of Gaussian (or GDP-bounded) spends
        self._budget_mu: float | None = None
        self._mu_cache: dict = {}

    # ------------------------------------------------------------------
    @property
    def budget(self) -> Target:
        return self._target

    @property
    def spent(self) -> TradeOff:
        """The guarantee of everything spent so far (Identity before any spend).

        Default mode: the ⊗-composition. adaptive=True: G_μ with μ² = Σ μ_f².
        """
        return self._spent

    @property
    def spends(self) -> tuple:
        return tuple(self._spends)

    @property
    def notes(self) -> tuple[str, ...]:
        """What a reader of ``spent`` should know about how it was formed (may be empty).

        Several spends that are each a one-sided symmetrisation min{f_i, f_i⁻¹}** (a
        DP-SGD run under Poisson sampling, for instance) compose to a curve below
        min{F, F⁻¹}** with F = ⊗ f_i: each of the composed curves lies below both f_i and
        f_i⁻¹, so their composition lies below F and F⁻¹ and, being convex, below
        min{F, F⁻¹}** (DRS 2022, Prop 2.12 and Thm 3.2). When the spends are parts of one
        run, one ``fdp.dpsgd`` over all their steps symmetrises once and is tighter
        (Zhu, Dong & Wang 2022, Thm 11).

        Examples
        --------
        >>> import fdp
        >>> a = fdp.Accountant(mu=2.0)
        >>> a.notes
        ()
        """
        symmetrised = [f for f in self._spends if getattr(f, "envelope", False)]
        if len(symmetrised) < 2:
            return ()
        return (f"{len(symmetrised)} spends are each symmetrised (min{{f, f^-1}}**, e.g. "
                "DP-SGD under Poisson sampling): their composition is looser than "
                "symmetrising the composition once; if they are parts of one run, one "
                "fdp.dpsgd over all their steps is the tighter guarantee",)

    @property
    def fully_adaptive(self) -> bool:
        """True when the record is valid even for adaptively chosen guarantees."""
        return self._adaptive or all(isinstance(f, Gaussian) for f in self._spends)

    def _gaussian_path(self) -> bool:
        return self._adaptive or all(isinstance(f, Gaussian) for f in self._spends)

    def budget_mu(self) -> float:
        """μ_B: the largest μ whose G_μ meets the budget (cached)."""
        if self._budget_mu is None:
            try:
                self._budget_mu = self._target.gdp_mu()
            except ValueError:      # no Gaussian meets the budget (bounded-loss curve)
                self._budget_mu = 0.0
        return self._budget_mu

    # ------------------------------------------------------------------
    def _candidate(self, f: TradeOff) -> tuple[bool, TradeOff | None, float]:
        """(accepted?, new spent, new Σμ²) without changing anything."""
        if not isinstance(f, TradeOff):
            raise TypeError(f"spend takes a TradeOff, got {type(f).__name__}")
        require_guarantee(f, "Accountant.spend")
        if self._adaptive or (isinstance(f, Gaussian) and self._gaussian_path()):
            mu_f = self._gdp_bound(f) if self._adaptive else cast(Gaussian, f).mu
            if not np.isfinite(mu_f):
                return False, None, math.inf
            mu2 = self._mu2 + mu_f * mu_f
            ok = math.sqrt(mu2) <= self.budget_mu() * (1.0 + _GAUSS_RTOL)
            return ok, Gaussian(math.sqrt(mu2)), mu2
        new = compose(*self._spends, f, tol=self._tol)
        if self._target.met_by(new, self._slack):
            return True, new, self._mu2
        # Second sufficient condition: every spend is μ_i-GDP (certified), the ⊗ of the
        # G_{μ_i} is G_√Σμ_i² (DRS Cor 3.3), and that meets the budget. It keeps a
        # negligible spend negligible when the numeric ⊗-check cannot resolve it.
        mu2 = self._gdp_sum2([*self._spends, f])
        ok = math.sqrt(mu2) <= self.budget_mu() * (1.0 + _GAUSS_RTOL)
        return ok, new, self._mu2

    def _gdp_sum2(self, spends: Iterable[TradeOff]) -> float:
        total = 0.0
        for g in spends:
            m = self._gdp_bound(g)
            if not np.isfinite(m):
                return math.inf
            total += m * m
        return total

    def _gdp_bound(self, f: TradeOff) -> float:
        try:
            if f not in self._mu_cache:
                self._mu_cache[f] = gdp_bound(f)
            return self._mu_cache[f]
        except TypeError:   # unhashable
            return gdp_bound(f)

    def can_spend(self, f: TradeOff) -> bool:
        """Would ``spend(f)`` succeed? (Nothing is recorded.)"""
        return self._candidate(f)[0]

    def spend(self, f: TradeOff) -> TradeOff:
        """Record a mechanism with guarantee f, or raise ``BudgetExceeded`` (no change).

        Returns the new ``spent``.
        """
        ok, new, mu2 = self._candidate(f)
        if not ok or new is None:       # (an accepted spend always has its new ``spent``)
            raise BudgetExceeded(
                f"spending {f!r} would exceed the budget {self._target.describe()} "
                f"(already spent: {len(self._spends)} mechanism(s)): "
                f"{self._refusal_detail(f, new, mu2)}; nothing was recorded",
                requested=f, would_spend=new, budget=self._target.describe())
        self._spends.append(f)
        self._spent = new
        self._mu2 = mu2
        return new

    def _refusal_detail(self, f: TradeOff, new: TradeOff | None, mu2: float) -> str:
        """What was over, and by how much (certified sides)."""
        mu_b = self.budget_mu()
        if new is None or isinstance(new, Gaussian):
            mu_new = math.sqrt(mu2) if np.isfinite(mu2) else math.inf
            if not np.isfinite(mu_new):
                return (f"no finite GDP bound is certified for {f!r}, which adaptive mode "
                        "needs (f(0) < 1, or not proven)")
            text = (f"the spends together would be {mu_new:.6g}-GDP, over μ = {mu_b:.6g} "
                    f"(the largest μ whose GDP meets the budget) by {mu_new - mu_b:.3g}")
            if self._target.kind != "mu":
                text += f"; as a curve {self._target.shortfall(Gaussian(mu_new))}"
            return text
        return f"the composition would miss the budget: {self._target.shortfall(new)}"

    def remaining(self) -> float:
        """The largest μ such that ``spend(fdp.Gaussian(μ))`` would still succeed.

        Gaussian path (all spends Gaussian, or adaptive=True): √(μ_B² − Σμ_i²), exact up
        to the 1e-12 tolerance above. Otherwise the larger of √(μ_B² − Σμ_i²) with the
        spends' certified GDP bounds μ_i and a bracket-and-bisect search over μ on the
        ⊗-composition (relative width 1e-6, the end that passes); 0.0 if nothing fits.
        """
        if self._gaussian_path():
            rest = self.budget_mu() ** 2 - self._mu2
            return float(math.sqrt(rest)) if rest > 0 else 0.0
        rest = self.budget_mu() ** 2 - self._gdp_sum2(self._spends)
        by_gdp = float(math.sqrt(rest)) if rest > 0 else 0.0
        return max(by_gdp, self._remaining_by_search())

    def _remaining_by_search(self) -> float:
        spends = list(self._spends)

        def make(sigma: float) -> TradeOff:
            return compose(*spends, Gaussian(1.0 / sigma), tol=self._tol)

        if not self._target.met_by(compose(*spends, tol=self._tol), self._slack):
            return 0.0
        try:
            res = search_noise(make, self._target, rtol=1e-6, guess=1.0, max_noise=1e9,
                               min_noise=1e-9)
        except ValueError:
            return 0.0
        return 1.0 / res.noise

    def __repr__(self) -> str:
        text = (f"Accountant(budget={self._target.describe()!r}, spends={len(self._spends)}, "
                f"adaptive={self._adaptive})")
        return text + "".join(f"  # note: {n}" for n in self.notes)


__all__ = ["Accountant", "BudgetExceeded", "gdp_bound"]
