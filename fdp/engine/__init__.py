"""The certified numeric composition engine.

Pipeline (read top to bottom): ``discretise`` each factor on the loss lattice
ΔZ twice, pessimistically and optimistically → ``convolve`` (FFT; n-fold by
raising the transform to the n-th power; distinct factors by a balanced tree) →
read back β(α), δ(ε), ε(δ) from the two lattices (``Numeric``).

Why the bracket is certified
----------------------------
Write a pair (P, Q) through its likelihood ratio Y = dQ/dP = e^L under P. Its
privacy profile is δ(ε) = E_P[(Y − e^ε)₊] + Q(L = +∞) (the hockey-stick divergence;
Balle, Barthe & Gaboardi 2018), and
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

Truncations and crops keep the Q-mass: the pessimistic side moves a cut low
tail up and a cut high tail to +∞ (δ only grows); the optimistic side moves a
cut high tail down keeping its Q-mass (δ only shrinks) and a cut low tail up,
paying its mass (≤ τ) into the slack. The optimistic contraction's few
rounded-down leftovers lose Q-mass ℓ; it is given back by moving P-mass up one
cell at grid points below every leftover, which raises E(Y − t)₊ by at most ℓ
for t below them and not at all above, where the rounding lowered it by exactly
ℓ: still Y_opt ≤_icx Y (``contraction.compensate``). What finds no grid mass
below it (a point-like part at the bottom of a law) is given back in place: Q-mass
ρ_c ≤ ℓ_c at the leftover's own grid point (in all at most what compensation
left) raises δ by at most ρ_c below that point, where the rounding lowered it by
ℓ_c. So both sides keep mass
1 ± 1e-12 after any number of compositions (10⁹ tested). Atoms of a law that
sit on grid points (Laplace's ±μ after snapping Δ) are placed exactly on both
sides instead of being contracted with their cell.

The inverse pair T(Q, P) is the reflection of a lattice (losses −l, Q-masses
q e^{−l}). Reflecting a factor's pessimistic lattice gives exactly the
connect-the-dots lattice of f⁻¹. An optimistic lattice that lost Q-mass in its
rounding does not reflect to an optimistic one (its reflection exceeds the
inverse by up to (P − 1) + e^ε(1 − Q), which ``lattice.reflect`` charges as
slack), so the optimistic side of f⁻¹ is discretised from f⁻¹ directly
(``pipeline.inverse_parts``). The remove direction of DP-SGD and
``Numeric.inverse`` recompose those per-step lattices. For the add/remove
compositions themselves (``composition.compose_add_remove``) both reflections
are used instead wherever what they add to a group of n factors — n times the
slack certified from long double sums (``lattice.tail_sum_bounds``), n times the
+∞ atom of the P-mass the law leaves beyond its grid — is at most
``REFLECT_SLACK_CAP`` (one transform's round-off): f⁻¹ is then not discretised
at all.
Long powers keep the direct discretisation, where n times the slack would
outgrow the power's own round-off. Envelopes
min{f_i}** (δ = max δ_i) are discretised from their members' lattices
(``from_lattices.max_of_lattices``): chords of max δ_i at grid points above it for
the pessimistic side; for the optimistic side chords where one member leads on
a whole cell, the leading member's own line where the lead changes, then the
greatest convex minorant — every piece lies below max δ_i.

Floating point is counted on the safe side: every FFT product carries an a
posteriori ℓ1 bound on its round-off (per-coefficient transform error γ‖x‖₁,
propagated through the n-th power and Parseval), and every cyclic (wrapped)
n-fold power a Chernoff bound on the mass that wrapped around. For huge n the
FFT bound nγ(|X| + γ)^{n−1} would dominate, so the few live frequencies near
|X| = 1 are computed directly in centred form, log X = log F + log1p(−D/F) with
D = Σ q_k (1 − e^{−iθ_k}) summed term by term to relative accuracy, whose error
no longer grows like n·u (``fdp.engine.direct_band``). The read-back sums are
blocked (≈ √n terms per recursion) with a relative bound ``suffix_error`` that
is added as well. Their sum is the lattice's δ-slack η: the pessimistic side
answers δ + η (f − η), the optimistic side δ − η (f + η). Slacks compose
additively.

δ far below η (1e-10 after 10⁴ steps): ``Numeric.epsilon_bounds`` recomposes
the factors exponentially tilted towards that δ (q̃ = q e^{θl − Λ(θ)}; tilting
commutes with convolution), whose ℓ1 error η̃ is relative to the tilted law, so
the untilted δ(ε) errs by at most e^{C − θε} η̃, a Chernoff-sized multiple of η̃
(``fdp.engine.tilted``). Brackets are then certified down to δ ≈ 1e-25 per
step, where the discretisation's own cut-off tails (at +∞) take over; below
that a ValueError says so.

Losses beyond the range of doubles (e^L overflows above L ≈ 709): the
discretisers use Y = e^L only for losses up to ``EXP_SAFE`` = 700; above
it they work with Q-masses alone (the pessimistic split needs only log κ − log π;
the optimistic side moves each cell's Q-mass down to its lower grid point, which
lowers every term q (1 − e^{ε−l})₊). Each factor grids the losses in
[−LOSS_WINDOW, LOSS_WINDOW] (1000): Q-mass above goes to +∞ (pessimistic) or down
to the edge keeping its Q-mass (optimistic), mass below up to the edge or to −∞.
A step that nearly reveals the record (tiny noise) thus becomes an atom at +∞ —
δ(ε) ≈ 1 − (1 − q)^T, ε = ∞ below it — instead of a grid over its whole range.
The read-back never forms e^ε for a loss: δ(ε) = q_inf + Σ q (1 − e^{ε−l})₊, and
β curves of envelopes use supporting lines with ε ≤ EXP_SAFE only (dropping the
steeper lines lowers the lower side; the upper side gives its last line δ(+∞)).
Every array is checked against ``lattice.MAX_POINTS`` before it is allocated; the
error names tol.

Grid and accuracy (none of this changes what is certified, only how wide)
-------------------------------------------------------------------------
Every argument above holds for any step Δ, so the step may be chosen by the
question and the budget instead of by tol alone. Three regimes:

* An explicit tol is taken as asked: Δ = STEP_SCALE·sqrt(tol·V/N)/max(1, V)^{1/4}
  (``grid.choose_step``), MemoryError over ``lattice.MAX_POINTS``. tol = DEFAULT_TOL
  (1e-4, ``compose_numeric``'s default) is also coarsened to fit ``grid.GRID_POINTS``
  (huge T stays within memory and time; the bracket is wider, e.g. 4e-4·ε at
  T = 10⁷).
* The question-sized default (``fdp.dpsgd`` without tol): the question is ε(δ) to
  within ``QUESTION_REL_WIDTH``·max(ε, 0.01) = 1e-3·max(ε, 0.01), not a uniformly fine
  law. The discretisation moves the composed law's variance by a relative
  N·Δ²/V ∝ tol, so the ε bracket is about proportional to tol; measured over the
  DP-SGD benchmark grid (q ∈ {256/60000, 0.01, 0.1}, σ ∈ {0.6 … 2},
  T ∈ {10³ … 10⁷}, δ = 1e-5) it is 1.4e-5 … 5.1e-4 relative at tol = 1e-3, so the
  grid is built for ``QUESTION_TOL`` = 1e-3 (Δ √10 coarser than at 1e-4, a third of
  the points and memory), coarsened to the budget like DEFAULT_TOL. The
  prediction is then checked, not trusted: ``Numeric.epsilon_bounds`` reads the
  plain bracket, asks for the tilted recomposition near the round-off floor only
  where the plain bracket misses the target, and where the bracket still misses it
  recomposes at the smaller tol the same model asks for (``readback.refine``,
  tol × 0.7·target/width), keeping the certified bracket in hand if the budget
  forbids it. The brackets' contents are certified in every case; only the width
  is predicted. β brackets at this default are those of tol = 1e-3: at most
  tol/3 (3.3e-4) for losses without off-grid atoms, like any explicit tol.
* ``width=`` on ``bounds``, ``delta_bounds`` and ``epsilon_bounds`` recomposes the
  kept factors (``source``) at a smaller tol (``Numeric.refined``) until the
  bracket is that narrow; every recomposition is certified on its own, so the
  brackets are intersected. Likewise the tilted recomposition is an extra
  certified bracket, intersected with the plain one: it is skipped when the plain
  bracket already meets the width asked (by default: always done for lattices up
  to ``readback.TILT_CHEAP`` points, else when wider than 1e-3·max(1, ε)).

The direct band (``direct_band.direct_band``) reads sin(πr/m) and sin(2πr/m) from
tables indexed by the exact integer residue r = j(k − k̄) mod m; each table entry is
one sine of an argument reduced to [0, π/2]-sized ranges, i.e. the same operation
the per-term formula performs, so the per-term relative error and the bound
(size + 10)·u·Σ q|term| are unchanged. Hot loops use ``lattice._dot`` (no BLAS
threads); its recursive sum satisfies the same size·u bound as a BLAS dot. Independent
compositions (both sides; for add/remove both directions,
``composition.compose_add_remove``) and the ε read-back of large lattices run on two
threads when a core is idle — 1-minute load average below cores − 1 + ½, the half
being this process's own share (``pipeline._idle_core``) — with identical results;
serial on a busy machine, where a second thread only competes with the first. From
``pipeline.SPLIT_FACTORS`` (64) distinct factors on, each side is the product of two
halves' trees (the factors at even and at most odd positions, ``pipeline.halves``);
for add/remove on more than one core and enough work
(``composition.PROCESS_MIN_POINTS``, where the work pays for starting it) the second half
(discretised, both directions composed) runs in a worker process (``worker``: a
fresh interpreter, not ``multiprocessing``, which would re-run the caller's script),
because the per-factor discretisation holds the GIL; unlike the threads the
worker is used on a busy machine too (it adds a core's work, not contention). The
tree is the same with or without the worker, so the results are identical; if the
worker cannot run, this process computes its half. The read-back's suffix
recursions run in numpy (no ``scipy.signal``, which would add ≈ 47 MB of imported
modules to every process).

Modules, one job each, bottom to top: ``lattice`` (the data type and its
read-back), ``direct_band`` and ``convolution`` (composition of lattices, the one
convolution tree), ``connect_dots`` / ``contraction`` (the two sides of the
discretisation of a law), ``from_profile`` (functions known only through β or δ),
``from_lattices`` (regridding, envelopes), ``discretise`` (the entry point), ``grid``
(the step, and the check of a question-sized one), ``pipeline`` (discretise, power,
combine), ``tilted`` (small δ), ``summaries`` (GDP μ and pure ε), ``readback`` (ε(δ),
envelope curves, refinement), ``numeric`` (the result type), ``composition``
(``compose_lattices``, both directions on both cores), ``entry`` (``compose``, the
entry every client uses), ``prebuilt`` (factors given as bounding atoms), ``worker``
(a share of a computation in another process).
Numeric constants with their derivations are in ``fdp._constants``. The engine
imports nothing above ``fdp.tradeoff``: what it needs to know about an object it asks
the object
(``f.law()`` and the hooks of ``TradeOff``: ``_lattices``, ``_delta_members``,
``_gaussian_component``, ``_exact_vertices``).

Public: the one entry ``compose(factors, tol, directions=, grid=, label=, progress=)``
(``entry``; ``compose_numeric(factors, tol)`` is its one-direction form), its result
``Numeric``, and the hook for factors a client bounds itself, ``Prebuilt`` /
``Atoms`` (``prebuilt``; random allocation's block laws), ``compose_prefixes``
(``prefixes``: many prefixes of one schedule on one grid, for ``fdp.sgd.trajectory``),
with the certified convolution ``convolve`` of ``Lattice`` arrays, the side names and ``MAX_POINTS``
such a client builds them with. DP-SGD lives in ``fdp.sgd`` and composes through
``compose``; ``Numeric.refined`` recomposes through the same ``compose_lattices``.
"""

from fdp.engine.convolution import convolve
from fdp.engine.entry import compose, compose_numeric
from fdp.engine.grid import DEFAULT_TOL, QUESTION_TOL
from fdp.engine.lattice import MAX_POINTS, OPTIMISTIC, PESSIMISTIC, GridBudgetExceeded, Lattice
from fdp.engine.numeric import Numeric
from fdp.engine.prebuilt import Atoms, Prebuilt
from fdp.engine.prefixes import compose_prefixes
from fdp.engine.summaries import certified_singular

__all__ = ["DEFAULT_TOL", "MAX_POINTS", "OPTIMISTIC", "PESSIMISTIC", "QUESTION_TOL", "Atoms",
           "GridBudgetExceeded",
           "Lattice", "Numeric", "Prebuilt", "certified_singular", "compose",
           "compose_numeric", "compose_prefixes", "convolve"]
