"""Calibrating noise to a privacy target, always on the safe side.

A *target* is one of (exactly one must be given):

======================  ======================================================
``target=f``            the mechanism must be f-DP: its guarantee g satisfies g ≥ f
``mu=μ``                μ-GDP: g ≥ G_μ
``epsilon=ε, delta=δ``  (ε, δ)-DP: δ_g(ε) ≤ δ (DRS Prop 2.12; g-DP ⇒ (ε, δ_g(ε))-DP)
``advantage=a``         max_α (1 − α − g(α)) = δ_g(0) ≤ a (membership-inference advantage)
``tpr_at_fpr=(t, a)``   every attack with FPR ≤ a has TPR ≤ t: g(a) ≥ 1 − t
======================  ======================================================

(the last two are the attack-risk targets of riskcal, Kulynych et al. 2024).
An ``fdp.EpsDelta(ε, δ)`` given as ``target=`` is treated as (ε, δ).

The parts: ``targets`` (what a target is and how a guarantee is judged against it),
``search`` (the bracketing search on the noise and its result), ``noise`` (the public
``calibrate`` and ``calibrate_dpsgd``).

Certified side. Every check uses the side of a numeric guarantee that is safe: the
certified upper δ and the certified lower curve. (ε, δ) and advantage targets are
compared on a certified upper log δ (for the Gaussian it covers the evaluation error
of the closed form, ``fdp.conversions.gdp.LOG_DELTA_ALLOWANCE``) with two ulps of
rounding allowance (``DELTA_EVAL_RTOL``). μ and curve targets are decided by PROOF
(``TradeOff.dominates``: closed-form rules, the dual check on the supporting lines of
a piecewise-linear target, or the convexity sandwich of
``fdp.conversions.summaries``); a guarantee whose certified GDP bound
(``gdp_mu_bounds``) is ≤ μ meets a μ target at once.

Numeric guarantees and curve targets. The certified lower side of a numeric g puts
the truncated tail of the privacy-loss law, a mass δ_g(+∞) (about 1e-12 at the
engine's default accuracy), at infinite loss; then g(0) < 1 and no such g lies above
G_μ or any curve with f(0) = 1. A numeric g is therefore judged against
f ⊗ f_{0,η} (``TailDelta``: (1 − η) f(α/(1 − η)), privacy profile η + (1 − η) δ_f)
with η = ``max_tail`` (default ``MAX_TAIL`` = 1e-9); the least proven η is reported
as ``tail_delta`` (``tail_allowance``). When only that accuracy stands in the way
(η tiny but above max_tail, and not shrinking with more noise), the search stops
with a ValueError saying so instead of growing the noise (and the engine's grid)
without end.

Search. ``search_noise`` finds the smallest noise whose guarantee passes, for a
guarantee that improves with the noise. It starts from a guess, expands the bracket
by doubling/halving until one end passes and the other fails (no fixed bracket, so it
cannot fail the way opacus #775 did), then bisects (``fdp.tradeoff.bisect_monotone``)
until (hi − lo) ≤ rtol·hi and returns ``hi``, the end that *passes* (never the
midpoint: no overshoot as in opacus #346). The result reports ``lower`` (a noise
that was not certified) and the relative ``tolerance`` (hi − lo)/hi.
"""

from fdp.calibration.noise import PerStepEpsilon, calibrate, calibrate_dpsgd, epsilon_per_step
from fdp.calibration.search import Calibration, search_noise
from fdp.calibration.targets import (
                                     DELTA_EVAL_RTOL,
                                     MAX_TAIL,
                                     TailDelta,
                                     Target,
                                     dominates,
                                     min_gap,
                                     tail_allowance,
                                     tail_mass,
)

__all__ = ["DELTA_EVAL_RTOL", "MAX_TAIL", "Calibration", "PerStepEpsilon", "TailDelta", "Target",
           "calibrate", "calibrate_dpsgd", "dominates", "epsilon_per_step", "min_gap",
           "search_noise", "tail_allowance", "tail_mass"]
