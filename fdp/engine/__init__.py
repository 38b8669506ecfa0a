"""The certified numeric composition engine (issue 3).

Pipeline (read top to bottom): ``discretise`` each factor on the loss lattice
ΔZ twice, pessimistically and optimistically → ``convolve`` (FFT; n-fold by
raising the transform to the n-th power; distinct factors by a balanced tree) →
read back β(α), δ(ε), ε(δ) from the two lattices (``Numeric``).

Why the bracket is certified
----------------------------
Write a pair (P, Q) through its likelihood ratio Y = dQ/dP = e^L under P. Its
privacy profile is δ(ε) = E_P[(Y − e^ε)₊] + Q(L = +∞) (MATH.md §3), and
f(α) = sup_ε (1 − δ(ε) − e^ε α) (lossless duality, DRS Prop 2.12). So

  (a) δ_A ≤ δ_B at every ε ⇔ f_A ≥ f_B at every α; a bound on δ is a bound on f.
  (b) δ is an increasing convex functional of the law of Y: if Y_A ≤_icx Y_B
      (increasing convex order) then δ_A ≤ δ_B at every ε.
  (c) Composition multiplies independent likelihood ratios (adds losses), and
      the increasing convex order is preserved by independent products of
      non-negative variables (condition on one factor; φ(y·z) is increasing and
      convex in y for z ≥ 0). Equivalently, in loss space, δ_{A⊗B}(ε) =
      E_{Q_B}[δ_A(ε − L_B)] + …, which is monotone in each factor for
      non-negative measures.

The pessimistic discretisation is a mean-preserving spread of Y onto the grid
("connect the dots", Doroshenko et al. 2022, arXiv 2207.04380): Y ≤_cx Y_pess, so
δ ≤ δ_pess for one factor, and by (c) for any composition; by (a) f_lo ≤ f. The
optimistic discretisation is a mean-preserving contraction followed by a few
decreases (rounding leftovers down, dropping the far low tail): Y_opt ≤_icx Y,
so f_hi ≥ f. Truncations go to the safe side (pessimistic: to +∞ or up to the
grid; optimistic: to −∞ or down to the grid). Because both discretisations
keep the Q-mass E_P[Y] exactly up to the recorded losses, neither side drifts
like n·Δ: each changes the variance of a step's loss by O(Δ²), and the bracket
width is governed by N·Δ²/V, the relative change of the composed law.

Floating point is counted on the safe side: every FFT product carries an a
posteriori ℓ1 bound on its round-off (per-coefficient transform error γ‖x‖₁,
propagated through the n-th power and Parseval), and every cyclic (wrapped)
n-fold power a Chernoff bound on the mass that wrapped around. Their sum is the
lattice's δ-slack η: the pessimistic side answers δ + η (f − η), the optimistic
side δ − η (f + η). Slacks compose additively. Masses are pinned at the zero
frequency, so the pessimistic mass stays 1 to rounding after any number of
compositions (10⁹ included); the optimistic side is a sub-probability by design
(the few leftovers it rounds down lose Q-mass, ~1e-10 after 10⁹ steps). δ below
about 10η is refused with a clear error (``Numeric.delta_floor``).

Public: ``compose_numeric(factors, tol)``, ``dpsgd(...)``, ``Numeric``.
"""

from fdp.engine.dpsgd import dpsgd
from fdp.engine.numeric import DEFAULT_TOL, Numeric, compose_numeric

__all__ = ["DEFAULT_TOL", "Numeric", "compose_numeric", "dpsgd"]
