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

Every check uses the certified side of a guarantee (upper δ, lower curve); a numeric
guarantee meets a μ or curve target f in the form f ⊗ f_{0,η}, η ≤ ``max_tail``
(``TailDelta``). Derivation: docs/derivations/calibration.md.
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
