"""Numeric constants of the package, each with its derivation or source.

Every threshold that changes an answer lives here, so that a reader can check it
once. Module-specific constants that are pure implementation choices (grid sizes
that only trade time for accuracy and are paid for in a certified slack) may stay
with their code, but must say so there.
"""

from __future__ import annotations

import math

import numpy as np

#: Search range of ε for conjugate evaluations: e^{709} is the largest finite
#: double exponential (e^{709.78} overflows), so no supporting line with a larger
#: slope can change a float result of 1 − β(α) − e^ε α.
EPS_SEARCH = 709.0

#: Absolute resolution of a δ computed from evaluated β values: 1 − β(α) near
#: β = 1 carries the rounding of β (an ulp of 1 is 2^-52 ≈ 2.2e-16, and the
#: subtraction doubles it), so smaller δ are not resolved from β alone.
DELTA_RESOLUTION = 2.0 ** -51

#: The smallest positive double (subnormal), 4.9e-324.
TINY = float(np.nextafter(0.0, 1.0))

#: Search range of logit(α) for golden-section searches over α ∈ (0, 1):
#: expit(−745) ≈ 5e-324 is the smallest positive double, and expit(40) rounds to
#: 1 − 4e-18 < 1 − ulp/2, i.e. to 1.0: no double α lies outside the range.
LOGIT_SEARCH = (-745.0, 40.0)

#: The golden-section ratio (√5 − 1)/2 (Kiefer 1953).
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0

#: Largest ε the search for ε(δ) tries before answering inf (the safe answer):
#: 2^40 ≈ 1.1e12, far beyond any ε a trade-off function of this package reaches
#: at a δ that is a positive double.
EPS_CAP = 2.0 ** 40

# --- engine ---
# Constants of the certified numeric engine (fdp.engine). Every one of them only
# decides WHERE a certified bound is taken or how wide it is: whatever is cut, moved
# or rounded is paid for on the safe side (Doroshenko et al. 2022 for the
# discretisation; Koskela et al. 2020 and Gopi et al. 2021 for FFT accounting).

#: Losses the engine handles in linear space (Y = e^L under P): e^700 ≈ 1.0e304 is
#: finite (doubles overflow above e^709.78) and e^{−700} ≈ 9.9e-305 is a normal
#: double (the smallest is 2.2e-308), so a P-mass or a likelihood ratio formed for a
#: loss in [−EXP_SAFE, EXP_SAFE] neither overflows nor underflows; beyond it only
#: Q-masses and differences of losses are used.
EXP_SAFE = 700.0

#: Losses one discretised factor grids: [−LOSS_WINDOW, LOSS_WINDOW]. Mass beyond goes
#: to +∞ (pessimistic) or to the window's edge (optimistic); an answer at ε below
#: LOSS_WINDOW − 40 moves by at most e^{−40} ≈ 4e-18 relative (the Q-mass beyond the
#: edge is weighted by 1 − e^{ε−l} ≥ 1 − e^{−40}).
LOSS_WINDOW = 1000.0

#: Masses below this are flushed to 0 after every transform (subnormal doubles,
#: below 2.2e-308, make every FFT many times slower); 1e-280 leaves a factor 1e28
#: above the subnormal range for products of two masses, and the flushed ℓ1 mass is
#: added to the slack.
FLUSH_BELOW = 1e-280

#: A crop raised to a transform's own round-off level removes at most this much
#: mass (it is paid into the slack): 1e-13 is ~450 ulps of 1, the order of the FFT
#: round-off γ = 4(log₂ m + 2)u of a 2^25-point transform (u = 2^-53).
NOISE_CROP_CAP = 1e-13

#: Tail Q-mass cropped (to the safe side) after each composition step, or bounded by
#: Chernoff when it wraps around the cyclic window: 1e-22 is a millionth of the
#: smallest FFT round-off slack of a composed lattice (~1e-16 per transform), so it
#: never shows in a bracket, while it keeps windows ~15–20 sd wide.
TAU = 1e-22

#: Tail mass cut in the tilted recomposition: 1e-25, below the per-step tails the
#: discretisation itself does not grid (law tails of ~1e-25 per step), so the
#: tilted bracket is limited by those and not by this cut.
TAU_TILT = 1e-25

#: Grid step Δ = STEP_SCALE · sqrt(tol · V / N) / max(1, V)^{1/4} (V the variance of
#: the composed loss, N the number of factors): the discretisation changes each
#: step's loss variance by O(Δ²) (a mean-preserving spread onto a grid of step Δ
#: adds at most Δ²/4), so the composed law moves by a relative N·Δ²/V ≈ 1.7·tol.
#: The factor 1.3 is a calibration (any value is certified; it only sets the width):
#: it makes the β bracket about tol/3 wide on Gaussian and DP-SGD compositions.
STEP_SCALE = 1.3

#: Largest grid step: 0.05 in loss, i.e. neighbouring grid points differ by
#: e^{0.05} − 1 ≈ 5% in likelihood ratio, so one cell's connect-the-dots error in
#: δ(ε) is at most Δ/4 ≈ 1.3% of the local slope (δ is convex in e^ε with slope in
#: [−1, 0]) even for a single factor.
MAX_STEP = 0.05

#: The plain read-back of a composed lattice answers ε(δ) for δ ≥ 10 × its certified
#: slack η (below, δ − η would be within 10% of δ and the bracket loses its meaning);
#: between PLAIN_READBACK_FLOOR·η and TILT_READBACK_FLOOR·η a tilted recomposition
#: (Chernoff tilt; Gopi et al. 2021, Sec. 5) is intersected with it, and below the
#: plain floor the tilted one answers alone.
PLAIN_READBACK_FLOOR = 10.0

#: See PLAIN_READBACK_FLOOR: above 1000·η the plain bracket's relative error η/δ is
#: at most 1e-3, the default relative width asked, so tilting cannot help.
TILT_READBACK_FLOOR = 1000.0

#: Envelope lattices: a change of the leading member that moves a chord by more than
#: this is followed exactly (the member's own line); smaller ones (round-off-sized
#: ties, ~450 ulps of 1) are paid into the slack.
ENVELOPE_SWITCH = 1e-13

#: Privacy-profile-only functions: the gridded loss range carries all but this Q-mass
#: (read off δ and the tangent points); 1e-20 is far below any δ a composition
#: certifies (the plain floor is ≥ 1e-16 per transform) and outside mass still goes
#: to the safe side.
PROFILE_TAIL = 1e-20

#: ε scanned for the loss range of a profile-only function: [−20, 40] in steps of 0.1.
#: Below −20 the chord from (0, 1) takes over (Q-mass ≤ e^{−20} ≈ 2e-9 lies there and
#: goes to the safe side); a function whose δ has not reached its limit δ(+∞) by
#: ε = 40 has its range end there, and the rest goes to L = +∞ (pessimistic side).
PROFILE_SCAN = (-20.0, 40.0, 601)

#: The largest logit whose expit is below 1 in double precision, rounded down:
#: logit(1 − 2^-53) = 53·log 2 = 36.737, so expit(36.7) = 1 − 2.2e-16 is still < 1
#: while expit(36.8) rounds to 1.0. A grid of logit(α) ending here reaches the
#: largest α < 1 that a double can hold (LOGIT_SEARCH ends at 40, past it, for
#: searches that need an end point evaluating to α = 1).
LOGIT_BELOW_ONE = 36.7

#: Tail mass an n-fold power may leave out of its window (cut or wrapped, and paid
#: into the slack): τ_n = min(max(TAU, POWER_TAU_PER_STEP·n), POWER_TAU_CAP). The
#: power's own round-off slack is at least ~n·1e-14 (n transforms' worth of
#: γ ≈ 1e-14), so 1e-17·n is a thousandth of it and never shows; the cap keeps the
#: cut far below any δ read off the result (the plain floor is ≥ 1e-10 at n ≥ 10⁴).
POWER_TAU_PER_STEP = 1e-17
POWER_TAU_CAP = 1e-12

#: P-mass that is negligible in a per-step lattice: 1e-30 is below every δ the engine
#: certifies per step (law tails are gridded down to ~1e-25) by a factor 1e5. A cell
#: whose Q-mass is flushed keeps its P-mass unless it is below this; a reflected
#: lattice whose +∞ atom exceeds it is discretised from the inverse's own law instead.
NEGLIGIBLE_P_MASS = 1e-30

#: Largest addition to δ a group (f_i, n_i) may take from the reflections that give its
#: inverse pair (the remove direction) in ``pipeline.inverse_parts(reflect_both=True)``:
#: n_i times the reflected optimistic lattice's certified slack, and n_i times the
#: reflected pessimistic lattice's +∞ atom, each at most this. 1e-13 is the level of
#: one FFT transform's round-off (``NOISE_CROP_CAP``). Gaussian-like factors reflect
#: with a slack of 4e-15–1e-14, so groups of up to ≈ 16 steps qualify: 1000 distinct
#: Poisson-subsampled Gaussians add 6e-12 in all, a third of their composition's own
#: round-off (2e-11). Powers of many steps do not: their round-off grows like the
#: number of transforms, not like n (T = 10⁹: 7e-9 in all), while the reflection's
#: slack would grow like n (3.4e-6 at T = 10⁹, raising the read-back floor over
#: δ = 1e-5). Laws with point masses off the grid (where the contraction rounds Q-mass
#: down) exceed it too and are discretised directly.
REFLECT_SLACK_CAP = 1e-13

#: Tilted tails below this (per side) are cut into the slack of the tilted
#: recomposition: 1e-18 relative to the tilted mass 1 is ~10⁻² of the FFT round-off
#: of one transform (γ ≈ 1e-15 for 2^20 points), so the cut does not widen the bracket.
TILT_CROP = 1e-18

#: Largest exponential tilt, in units of the grid step: θΔ ≤ 30. Neighbouring atoms
#: of a tilted lattice then differ in weight by a factor e^{30} ≈ 1.1e13, so the
#: tilted measure already sits on the top few atoms of every factor and a larger θ
#: changes nothing the read-back can use (Chernoff; Gopi, Lee & Wutschitz 2021).
TILT_THETA_STEPS = 30.0

# --- core ---

#: Tolerance of the package's one numerical symmetry test (``fdp.tradeoff.is_symmetric``),
#: with one meaning: f counts as symmetric when max_α |f(α) − f⁻¹(α)| ≤ SYMMETRY_TOL
#: over the evaluation grid (an absolute allowance on β). 1e-9 lies far above the
#: rounding of closed forms and of the bisection inverse (≈ 1e-15) and far below any
#: asymmetry that changes an answer at the precision fdp reports.
SYMMETRY_TOL = 1e-9

# --- law ---

#: Upper-tail mass below which the Gaussian-based laws cut their loss range
#: (``loss_range``): 5e-26. What lies beyond is kept by the engine in its tail cells
#: on the safe side; the cut only sizes the grid.
NORMAL_TAIL_MASS = 5e-26

#: z with Φ(−z) < NORMAL_TAIL_MASS: Φ(−10.5) = 4.32e-26 (Φ̄⁻¹(5e-26) = 10.486).
NORMAL_TAIL_Z = 10.5

#: The discrete Gaussian N_Z(0, σ²) cut at ±10.6σ: each tail is at most
#: Φ(−10.6) · (1 + O(1/σ)) = 1.49e-26 · (1 + O(1/σ)) (Canonne, Kamath & Steinke 2020,
#: Prop 19 compares N_Z with N), so both together stay below 1e-25.
DISCRETE_NORMAL_TAIL_Z = 10.6

#: Cells of the logit-uniform chord grid of the quadrature route of the CLT
#: functionals (used when a function has no law with exact moments). Its error is
#: estimated from the change between N and N/2 cells and reported as ``accuracy``.
NUMERIC_CELLS = 8000

#: Singular masses P(L = −∞), Q(L = +∞) that differ by at most this (plus 1e-6
#: relative) are one δ in the CLT functionals: the masses of functions known only
#: through β are read off β(0) and the zero of β by bisection, which resolves them
#: to about 1e-16 absolute; 1e-9 leaves room for the rounding of β near its ends.
SINGULAR_TOL = 1e-9

# --- top ---
#: The package version; ``fdp.__version__`` and ``fdp --version`` read it here. It must
#: equal ``[project] version`` in pyproject.toml (a packaging test compares them).
VERSION = "0.1.0"

# --- closed-form brackets ---
# A closed form evaluated in doubles is a number near the real value, not the value. Each
# family widens its read-outs by a bound on the rounding error of its formula
# (``fdp.families._rounding``): the documented accuracy of the special functions used,
# taken with a margin, plus the unit roundoff of every arithmetic step, multiplied by
# the condition number of the step (computed per point).

#: The unit roundoff of doubles, u = 2^-53: a correctly rounded operation (+, −, ×, ÷,
#: √) errs by at most u relative (IEEE 754). numpy's exp, log, expm1, log1p (glibc) err
#: by less than one ulp, i.e. at most 2u relative; each such call is charged 2u.
UNIT_ROUNDOFF = 2.0 ** -53

#: Relative error of ``scipy.special.ndtri`` (cephes ``ndtri``, a rational approximation in
#: three ranges): its documentation gives a measured peak of 7.2e-16 on [0.125, 1] and
#: 4.6e-16 on [3e-308, 0.135]; taken with a margin of about 3: 2e-15.
NDTRI_RTOL = 2e-15

#: Base relative error of ``scipy.special.ndtr`` and ``log_ndtr`` (cephes ``ndtr`` through
#: ``erf``/``erfc``): cephes documents a measured peak of 3.4e-14 for ndtr on [−13, 0]
#: and 5.7e-14 for erfc on [0, 26.6], most of which is the argument term below (at
#: w = −13 it is 2.5u·169 = 4.7e-14); the polynomial part is a few ulps. 2e-14 covers
#: it with a margin of about 10 over the residual.
NDTR_RTOL = 2e-14

#: The argument term of ndtr(w) = erfc(−w/√2)/2 for w < 0: x = w·√½ is rounded (u, and
#: √½ itself u/2) and erfc forms exp(−x·x) from a rounded x² (u), so the relative error
#: grows like (2·1.5u + u)·x² = 2u·w²; charged 3u·w² (measured against mpmath: at most
#: 1.75u·(1 + w²) over w ∈ [−37.5, 0]).
NDTR_W2_RTOL = 3.0 * UNIT_ROUNDOFF

#: Relative error of ``scipy.special.erfcx`` (the Faddeeva package, S. G. Johnson:
#: piecewise Chebyshev fits for x < 50 and a continued fraction beyond, designed to
#: near machine precision; measured against mpmath at most 5.2e-16 on [0.5, 60]):
#: charged 2e-15 (a margin of about 4).
ERFCX_RTOL = 2e-15

#: Relative error of ``scipy.special.erf`` (cephes: documented peak 3.7e-16 on [0, 1];
#: above 1 it is 1 − erfc, whose error is below u + 5.7e-14·erfc(x) ≤ 1e-14·erf(x)):
#: charged 2e-14.
ERF_RTOL = 2e-14

#: Relative quadrature error of the 32-point Gauss–Legendre rule in the small-μ form of
#: the Gaussian δ (``fdp.families.gaussian``): the integrand s ↦ 2φ(x − s)(1 − xM(x + s))
#: on [0, μ/2] (μ < 0.05, x = ε/μ, ε ≤ 4) is analytic on discs of radius 1/x around the
#: interval, where it changes by at most a factor e^{2}; the rule's error is at most
#: (h x)^{64} e^{2} / C(64, 32)² ≈ 2^{64}·7.4·3e-37 ≈ 4e-17 of the integral (h x = ε/2 ≤ 2;
#: Cauchy's estimate in the Gauss–Legendre remainder). Charged 1e-16; the rule's nodes
#: and weights (numpy ``leggauss``, exact to a few ulps) add GL_RULE_RTOL.
GL_TRUNCATION_RTOL = 1e-16
GL_RULE_RTOL = 1e-14

#: Safety factor on every first-order error bound: the bounds are linear in the step
#: errors (products of (1 + θ) factors dropped at second order); 1 + 1/64 covers the
#: dropped terms while the total is below 1/64.
ERROR_SAFETY = 1.0 + 1.0 / 64.0

#: Where a result carries two certified upper bounds (the f-DP engine's and a Rényi
#: curve's, ``fdp.operations.min_certified``), the Rényi curve is computed and consulted
#: only at points where the engine's bracket is wider than this, relative to its upper
#: end: the Rényi bound is ≥ the truth ≥ the engine's lower end, so elsewhere it could
#: lower the upper end by at most hi − lo ≤ 1e-3·hi.
RDP_CONSULT_RTOL = 1e-3
