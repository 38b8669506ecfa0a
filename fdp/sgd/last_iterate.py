"""Last-iterate (hidden-state) privacy of noisy gradient descent by shifted interpolation.

Most models release only the final iterate X_t. For contractive updates its privacy
converges in t instead of growing like √t (Bok, Su & Altschuler, "Shifted
Interpolation for Differential Privacy", ICML 2024, arXiv 2403.00278; BSA below).

The algorithms
--------------
NoisyGD, NoisyCGD and NoisySGD iterate

    X_{k+1} = Π_K( φ_k(X_k) + η Z_k ),   φ_k(x) = x − η ∇F_{B_k}(x),   Z_k ~ N(0, σ² I),

from a data-independent X_0, with F_B = (1/b) Σ_{i∈B} f_i the mean loss of the batch B_k
(the whole data set for NoisyGD, the k mod l-th of l fixed disjoint batches for
NoisyCGD, b records drawn uniformly without replacement for NoisySGD), each f_i
L-Lipschitz (or its gradient clipped to norm L), convex and M-smooth, Π_K the projection
onto a convex set of diameter D (D = ∞: no projection). Neighbouring data sets differ in
one record (replace-one), so φ_k and φ'_k differ by at most η s, s = 2L/b, and only in
steps whose batch holds that record. If every f_i is also m-strongly convex and
η ≤ 2/M, every φ_k is c-Lipschitz with c = max{|1 − ηm|, |1 − ηM|} ≤ 1 (BSA §2).
In units of the noise ησ the per-step sensitivity is a = s/σ and the diameter D/(ησ).

Shifted interpolation (BSA §3)
------------------------------
Fix a start τ. An auxiliary process starts at X̃_τ = X_τ, follows the update of S
and is pushed at step k towards X'_{k+1} by a shift of length u_k (in noise units), so
that its distance to X' obeys d_{k+1} ≤ c d_k + a e_k − u_k with e_k = 1 when step k
sees the differing record, 0 ≤ u_k ≤ c d_k + a e_k (a shift cannot anticipate a later
gradient difference); ending at d_t = 0 makes X̃_t = X'_t. Each step is then a
Gaussian mechanism with shift u_k, and composition (DRS Cor 3.3) gives
T(X_t, X'_t) ≥ G_μ with μ² = Σ_k u_k². The smallest Σ u_k² subject to the linear
constraint Σ_k c^{t−1−k} u_k = c^{t−τ} d_τ + a Σ_k c^{t−1−k} e_k is, by Cauchy–Schwarz,

    μ_τ² = (c^ν d_τ + a Σ_{k=τ}^{t−1} c^{t−1−k} e_k)² / W₂(ν),   ν = t − τ,

with W₂(ν) = Σ_{j<ν} c^{2j}, attained at u_k ∝ c^{t−1−k}, provided these shifts
respect 0 ≤ u_k ≤ c d_k + a e_k. They do when e_k = 1 at every step (NoisyGD) and
when e_k = 0 (the deterministic half of NoisySGD below): the partial sums of
u_k c^{k'-1-k} stay below c^{m} d_τ + a W₁(m) because
c^{2(ν−m)} W₂(m) ≤ W₂(ν) and W₁(ν) c^{ν−m} W₂(m) ≤ W₁(m) W₂(ν) (m ≤ ν). For cyclic
batches (e_k = 1 once per epoch) they do not, and the causal minimum is BSA's
NoisyCGD formula (``cyclic_mu``). Here d_τ ≤ D/(ησ) (the
projection) and d_τ ≤ a Σ_{k<τ} c^{τ−1−k} e_k (the processes start together), and
d_0 = 0. Every τ gives a valid bound; the guarantee is the best one.

* NoisyGD (e_k = 1): with W₁(ν) = Σ_{j<ν} c^j, τ = 0 gives BSA's exact strongly convex
  result μ_t = a √(W₁(t)²/W₂(t)) = a √((1+c)/(1−c) · (1−c^t)/(1+c^t)); c = 1 and a
  diameter give μ_ν = (D/(ησ√ν) + a√ν) for ν < t, BSA's convex bound (their
  μ* = √(3a'/η + a'²⌈1/(a'η)⌉)/σ with D = 1, a' = s, is this value at ν = ⌈D/(ηs)⌉
  after D²/(η²ν) ≤ Ds/η), and μ_t = a√t (plain composition) for τ = 0.
* NoisyCGD (e_k = 1 once per epoch, at the record's batch position j): BSA's closed
  form (``cyclic_mu``); it is the minimum with the causal constraints at the worst
  position j = l − 1 for l ≥ 2 (it agrees with the quadratic program solved directly),
  and for l = 1 the NoisyGD value above, which is smaller. With a diameter, starts
  τ > 0 are tried by a dynamic programme over runs of differences (``_runs_min``).
* NoisySGD (e_k ~ Bernoulli(p), p = b/n, unknown to the analysis): split each step's
  noise into two independent halves; one carries the deterministic shifts (with
  d_{k+1} ≤ c d_k − u_k, the record's gradient being absorbed by the other half every
  time it is sampled), the other is a subsampled Gaussian step of sensitivity a√2.
  Hence (the form of BSA's NoisySGD bound, §4, with the deterministic shifts spread
  over the ν steps as above, whence 1/√W₂(ν))

      T(X_t, X'_t) ≥ G(√2 c^ν d_τ / √W₂(ν)) ⊗ C_p(G(√2 a))^{⊗ν},  ν = t − τ,

  with d_τ = min{D/(ησ), a W₁(τ)}; τ = 0 is plain DP-SGD composition C_p(G(a))^{⊗t}
  (no split needed). Each is composed by the engine with certified brackets
  (``fdp.dpsgd``), and the guarantee is their pointwise maximum (``fdp.strongest``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp._constants import UNIT_ROUNDOFF
from fdp.bracket import Bracket
from fdp.families.gaussian import Gaussian
from fdp.operations.envelope import strongest
from fdp.sgd.certified import dpsgd
from fdp.sgd.clt import dpsgd_clt_mu
from fdp.status import require_guarantee
from fdp.tradeoff import Delegating, TradeOff, math_repr

# Relative round-off of the μ formulas below (a few dozen correctly rounded operations,
# expm1/log1p within 1 ulp): μ is raised by this much to its safe side.
_MU_ROUNDING = 256.0 * UNIT_ROUNDOFF
# Horizons evaluated exactly when there are more steps than this: all ν up to it, a
# geometric grid beyond and the continuous minimiser (each horizon is a valid bound).
_DENSE_HORIZONS = 1 << 16


# ----------------------------------------------------------------------------
# Problem constants
# ----------------------------------------------------------------------------
def contraction(step_size: float, smoothness: float, strong_convexity: float = 0.0) -> float:
    """Contraction factor c = max{|1 − ηm|, |1 − ηM|} of the gradient step x ↦ x − η∇f.

    For f m-strongly convex and M-smooth and 0 < η ≤ 2/M the step is c-Lipschitz
    (BSA 2024, §2; Polyak 1987); c < 1 iff m > 0 and η < 2/M.

    Parameters
    ----------
    step_size : float
        η ∈ (0, 2/M].
    smoothness : float
        M > 0.
    strong_convexity : float
        m ∈ [0, M] (0: convex).

    Returns
    -------
    float
        c ∈ [0, 1].

    Examples
    --------
    >>> from fdp.sgd.last_iterate import contraction
    >>> contraction(0.1, smoothness=2.0, strong_convexity=0.5)
    0.95
    """
    return 1.0 - _gap(step_size, smoothness, strong_convexity)


def _gap(step_size: float, smoothness: float, strong_convexity: float) -> float:
    """1 − c, computed without cancellation."""
    M = _validate.real("smoothness", smoothness, low=0.0, low_open=True)
    m = _validate.real("strong_convexity", strong_convexity, low=0.0, high=M)
    eta = _validate.real("step_size", step_size, low=0.0, high=2.0 / M, low_open=True)
    # 1 − |1 − x| = min(x, 2 − x)
    return max(0.0, min(eta * m, 2.0 - eta * m, eta * M, 2.0 - eta * M))


def _w1(gap: float, nu: np.ndarray) -> np.ndarray:
    """W₁(ν) = Σ_{j<ν} c^j = (1 − c^ν)/(1 − c) (ν when c = 1), c = 1 − gap; also the
    geometric sums in c^l (pass 1 − c^l)."""
    if gap == 0.0:
        return nu.astype(float)
    if gap >= 1.0:
        return np.where(nu > 0, 1.0, 0.0)
    return -np.expm1(nu * math.log1p(-gap)) / gap


def _w2(gap: float, nu: np.ndarray) -> np.ndarray:
    """W₂(ν) = Σ_{j<ν} c^{2j} = (1 − c^{2ν})/(1 − c²)."""
    if gap == 0.0:
        return nu.astype(float)
    if gap >= 1.0:
        return np.where(nu > 0, 1.0, 0.0)
    return -np.expm1(2.0 * nu * math.log1p(-gap)) / (gap * (2.0 - gap))


def _cpow(gap: float, nu: np.ndarray) -> np.ndarray:
    """c^ν."""
    if gap >= 1.0:
        return np.where(nu == 0, 1.0, 0.0)
    return np.exp(nu * math.log1p(-gap))


def _horizons(steps: int, extra: tuple[float, ...] = ()) -> np.ndarray:
    """Horizons ν ∈ [1, steps] to try: all when few, else a dense head, a geometric
    grid and the neighbours of the given continuous minimisers."""
    if steps <= _DENSE_HORIZONS:
        return np.arange(1, steps + 1, dtype=float)
    cand = [np.arange(1, _DENSE_HORIZONS + 1, dtype=float),
            np.unique(np.round(np.geomspace(_DENSE_HORIZONS, steps, 4096))),
            np.array([float(steps)])]
    for x in extra:
        if np.isfinite(x):
            cand.append(np.clip([math.floor(x), math.ceil(x)], 1, steps).astype(float))
    return np.unique(np.concatenate(cand))


def _round_up(mu: float) -> float:
    return math.nextafter(mu * (1.0 + _MU_ROUNDING), math.inf) if mu > 0.0 else 0.0


# ----------------------------------------------------------------------------
# Result objects
# ----------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class LastIterateGaussian(Gaussian):
    """G_μ, the last-iterate guarantee of a noisy gradient method (exact closed form).

    A ``Gaussian`` (every closed form of G_μ applies) that also states the algorithm
    and the assumptions it was derived under.

    Parameters
    ----------
    mu : float
        μ ≥ 0.
    assumptions : str
        The algorithm and its assumptions (shown in the repr).
    plain_mu : float
        μ of plain composition (every iterate released) for the same run (inf when
        not given).

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_gd
    >>> f = noisy_gd(4.0, 1.0, 50, 1000, 0.1, smoothness=1.0, strong_convexity=0.5)
    >>> f.status.value, f.mu < f.plain_mu
    ('exact', True)
    """

    assumptions: str = ""
    plain_mu: float = math.inf

    def __repr__(self) -> str:
        return f"LastIterateGaussian(mu={self.mu!r}; {self.assumptions})"

    def latex(self) -> str:
        return Gaussian(self.mu).latex()


@dataclass(frozen=True, eq=False, repr=False)
class LastIterate(Delegating):
    """A certified last-iterate guarantee: the curve ``of`` with its assumptions.

    Every read-out is the curve's (a certified bracket from the engine); only the repr
    adds the algorithm and the horizons it was built from.

    Parameters
    ----------
    of : TradeOff
        The certified curve (max over horizons, ``fdp.strongest``).
    assumptions : str
        The algorithm and its assumptions.
    horizons : tuple of int
        The unrolling horizons ν = t − τ composed (t: plain composition).
    plain : TradeOff
        Plain composition of the same run (every iterate released).

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_sgd
    >>> f = noisy_sgd(2.0, 100, 10_000, 500, 0.5, smoothness=1.0,
    ...               strong_convexity=0.1, candidates=1, tol=1e-2)
    >>> f.status.value, len(f.horizons)
    ('certified', 2)
    """

    assumptions: str
    horizons: tuple[int, ...]
    plain: TradeOff

    def __repr__(self) -> str:
        return (f"LastIterate({self.assumptions}; horizons={list(self.horizons)}) = "
                f"{math_repr(self.of)}")

    def _delta_members(self) -> tuple[TradeOff, ...] | None:
        return self.of._delta_members()



# ----------------------------------------------------------------------------
# Closed forms
# ----------------------------------------------------------------------------
def strongly_convex_mu(mu: float, contraction_factor: float, steps: int) -> float:
    """μ_t = μ √((1+c)/(1−c) · (1−c^t)/(1+c^t)): NoisyGD's exact last-iterate GDP μ.

    BSA 2024 (NoisyGD, strongly convex and smooth): t steps of a c-contractive update
    with per-step GDP parameter μ release a last iterate that is exactly μ_t-GDP
    (the unconstrained worst case attains it). Equals μ at t = 1, increases in t to
    μ √((1+c)/(1−c)), and is μ√t at c = 1 (plain composition).

    Parameters
    ----------
    mu : float
        μ ≥ 0, the GDP parameter of one step (2L/(nσ) for NoisyGD).
    contraction_factor : float
        c ∈ [0, 1].
    steps : int
        t ≥ 0.

    Returns
    -------
    float
        μ_t, rounded up.

    Examples
    --------
    >>> from fdp.sgd.last_iterate import strongly_convex_mu
    >>> print(f"{strongly_convex_mu(0.1, 0.99, 1000):.4f}")
    1.4106
    """
    a = _validate.real("mu", mu, low=0.0)
    c = _validate.real("contraction_factor", contraction_factor, low=0.0, high=1.0)
    t = _validate.positive_int("steps", steps, low=0)
    if t == 0 or a == 0.0:
        return 0.0
    nu = np.array([float(t)])
    gap = 1.0 - c
    return _round_up(float(a * _w1(gap, nu)[0] / math.sqrt(_w2(gap, nu)[0])))


def _gd_mu(a: float, gap: float, steps: int, diameter_units: float) -> float:
    """min over horizons ν of √((c^ν d_{t−ν} + a W₁(ν))² / W₂(ν)) (module docstring)."""
    if steps == 0 or a == 0.0:
        return 0.0
    nu0 = diameter_units / a if gap == 0.0 else math.inf
    nu = _horizons(steps, (nu0,))
    tau = steps - nu
    start = np.minimum(diameter_units, a * _w1(gap, tau))
    start = np.where(tau == 0, 0.0, start)
    with np.errstate(over="ignore", invalid="ignore"):
        mu = (_cpow(gap, nu) * start + a * _w1(gap, nu)) / np.sqrt(_w2(gap, nu))
    mu = np.where(np.isfinite(mu), mu, np.inf)
    return _round_up(float(np.min(mu)))


def _assumptions(kind: str, **kw: object) -> str:
    parts = [kind] + [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                      for k, v in kw.items()]
    return ", ".join(parts)


def noisy_gd(noise: float, lipschitz: float, dataset_size: int, steps: int,
             step_size: float, *, smoothness: float, strong_convexity: float = 0.0,
             diameter: float = math.inf) -> LastIterateGaussian:
    """Last-iterate GDP of NoisyGD (full batch), by shifted interpolation (BSA 2024).

    X_{k+1} = Π_K(X_k − η(∇F_S(X_k) + Z_k)), Z_k ~ N(0, σ²I), F_S the mean of n
    L-Lipschitz, M-smooth, m-strongly convex (m ≥ 0) losses, K of diameter D,
    replace-one neighbours. With a = 2L/(nσ) (one step is a-GDP), c the contraction
    (``contraction``), W₁(ν) = Σ_{j<ν} c^j, W₂(ν) = Σ_{j<ν} c^{2j}:

        μ_t = min{ a W₁(t)/√W₂(t),  min_{1≤ν<t} (c^ν min{D/(ησ), a W₁(t−ν)} + a W₁(ν))/√W₂(ν) }.

    For m > 0 and D = ∞ this is BSA's exact a √((1+c)/(1−c) · (1−c^t)/(1+c^t)); for
    m = 0 and finite D it is the minimum over ν of (D/(ησ√ν) + a√ν), constant for
    t ≥ ⌈D/(ηs)⌉ (BSA's t*, μ*); it never exceeds plain composition a√t.

    Parameters
    ----------
    noise : float
        σ > 0: standard deviation of the noise added to the gradient.
    lipschitz : float
        L > 0 (or the clipping norm).
    dataset_size : int
        n ≥ 1.
    steps : int
        t ≥ 0.
    step_size : float
        η ∈ (0, 2/M].
    smoothness : float
        M > 0.
    strong_convexity : float
        m ∈ [0, M].
    diameter : float
        D > 0 of the constraint set (inf: unconstrained).

    Returns
    -------
    LastIterateGaussian
        G_{μ_t}, status exact; ``plain_mu`` = a√t.

    Raises
    ------
    ValueError
        For a parameter outside its range (named in the message).

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_gd
    >>> f = noisy_gd(8.0, 0.25, 1, 10_000, 0.1, smoothness=1.0, diameter=1.0)
    >>> print(f"{f.mu:.4f} {f.plain_mu:.2f}")
    0.5590 6.25
    """
    sigma = _validate.real("noise", noise, low=0.0, low_open=True)
    L = _validate.real("lipschitz", lipschitz, low=0.0, low_open=True)
    n = _validate.positive_int("dataset_size", dataset_size)
    t = _validate.positive_int("steps", steps, low=0)
    gap = _gap(step_size, smoothness, strong_convexity)
    D = _validate.real("diameter", diameter, low=0.0, low_open=True, allow_inf=True)
    a = 2.0 * L / (n * sigma)
    mu = _gd_mu(a, gap, t, D / (float(step_size) * sigma))
    text = _assumptions("NoisyGD last iterate", sigma=sigma, L=L, n=n, steps=t,
                        eta=float(step_size), M=float(smoothness), m=float(strong_convexity),
                        c=1.0 - gap, D=D, neighbouring="replace_one")
    return LastIterateGaussian(mu, text, _round_up(a * math.sqrt(t)))


def _sgd_gaussian_part(a: float, gap: float, steps: int, diameter_units: float,
                       nu: np.ndarray) -> np.ndarray:
    """μ of the deterministic half, √2 c^ν d_τ / √W₂(ν), d_τ = min{D/(ησ), a W₁(t − ν)}."""
    start = np.minimum(diameter_units, a * _w1(gap, steps - nu))
    with np.errstate(over="ignore", invalid="ignore"):
        mu = math.sqrt(2.0) * _cpow(gap, nu) * start / np.sqrt(_w2(gap, nu))
    return np.where(np.isfinite(mu), mu, np.inf)


def noisy_sgd(noise_multiplier: float, batch_size: int, dataset_size: int, steps: int,
              step_size: float, *, smoothness: float, strong_convexity: float = 0.0,
              diameter: float = math.inf, clipping_norm: float = 1.0,
              candidates: int = 3, tol: float | None = None) -> LastIterate:
    """Certified last-iterate trade-off function of NoisySGD (BSA 2024, NoisySGD).

    Batches of b records drawn uniformly without replacement (p = b/n), replace-one
    neighbours, each step X ← Π_K(X − η(mean clipped gradient + N(0, (σL/b)² I))) with
    L-Lipschitz, M-smooth, m-strongly convex (m ≥ 0) losses (so clipping at L is
    inactive and each batch step is c-contractive, ``contraction``), K of diameter D.
    With a = 2/σ (one step is C_p(G_a)-DP) and ν = t − τ unrolled steps, the
    module docstring derives

        f_ν = G(√2 c^ν min{D b/(ησL), a W₁(τ)} / √W₂(ν)) ⊗ C_p(G(√2 a))^{⊗ν},

    and f_t = C_p(G_a)^{⊗t} (plain composition, ``fdp.dpsgd``); the guarantee is
    max_ν f_ν. The horizons composed are the ``candidates`` best by the CLT score
    μ_G(ν)² + ν μ_CLT(1)² (``fdp.dpsgd_clt_mu``; a choice, not a claim), each by the
    engine with a certified bracket; the result is their pointwise maximum with t.

    Parameters
    ----------
    noise_multiplier : float
        σ > 0: the noise on the clipped gradient sum has standard deviation σL.
    batch_size : int
        b ∈ [1, n].
    dataset_size : int
        n ≥ 1.
    steps : int
        t ≥ 1.
    step_size : float
        η ∈ (0, 2/M].
    smoothness : float
        M > 0.
    strong_convexity : float
        m ∈ [0, M].
    diameter : float
        D > 0 (inf: unconstrained).
    clipping_norm : float
        L > 0 (the Lipschitz constant).
    candidates : int
        Horizons ν < t to compose (≥ 0; 0 gives plain composition).
    tol : float, optional
        Accuracy of each composition (as ``fdp.dpsgd``).

    Returns
    -------
    LastIterate
        Status certified; ``plain`` is plain composition; ``horizons`` the ν used.

    Raises
    ------
    ValueError
        For a parameter outside its range (named in the message).

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_sgd
    >>> f = noisy_sgd(2.0, 100, 10_000, 2_000, 0.5, smoothness=1.0,
    ...               strong_convexity=0.1, candidates=1, tol=1e-2)
    >>> f.status.value, bool(f.epsilon(1e-5) < f.plain.epsilon(1e-5))
    ('certified', True)
    """

    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    n = _validate.positive_int("dataset_size", dataset_size)
    b = _validate.positive_int("batch_size", batch_size)
    if b > n:
        raise ValueError(f"batch_size must lie in [1, dataset_size = {n}], got {b}")
    t = _validate.positive_int("steps", steps)
    gap = _gap(step_size, smoothness, strong_convexity)
    D = _validate.real("diameter", diameter, low=0.0, low_open=True, allow_inf=True)
    L = _validate.real("clipping_norm", clipping_norm, low=0.0, low_open=True)
    k = _validate.positive_int("candidates", candidates, low=0)
    q = b / n
    a = 2.0 / sigma
    units = D * b / (float(step_size) * sigma * L)
    plain = dpsgd(sigma, q, t, sampling="without_replacement",
                  neighbouring="replace_one", tol=tol)
    chosen: list[int] = []
    if t > 1 and k > 0:
        nu = _horizons(t - 1, (units / a,) if gap == 0.0 else ())
        score = (_sgd_gaussian_part(a, gap, t, units, nu) ** 2
                 + nu * dpsgd_clt_mu(sigma / math.sqrt(2.0), q, 1.0,
                                     sampling="without_replacement") ** 2)
        plain_score = dpsgd_clt_mu(sigma, q, float(t), sampling="without_replacement") ** 2
        order = np.argsort(score, kind="stable")
        chosen = [int(nu[i]) for i in order[:k] if score[i] < plain_score]
    curves: list[TradeOff] = [plain]
    for v in chosen:
        mu_g = _round_up(float(_sgd_gaussian_part(a, gap, t, units,
                                                  np.array([float(v)]))[0]))
        curves.append(Gaussian(mu_g) @ dpsgd(sigma / math.sqrt(2.0), q, v,
                                             sampling="without_replacement",
                                             neighbouring="replace_one", tol=tol))
    text = _assumptions("NoisySGD last iterate", sigma=sigma, b=b, n=n, steps=t,
                        eta=float(step_size), M=float(smoothness),
                        m=float(strong_convexity), c=1.0 - gap, D=D, L=L,
                        sampling="without_replacement", neighbouring="replace_one")
    best = strongest(*curves) if len(curves) > 1 else plain
    return LastIterate(best, text, tuple(chosen) + (t,), plain)


# ----------------------------------------------------------------------------
# Comparison with plain composition
# ----------------------------------------------------------------------------
@dataclass(frozen=True)
class LastIterateComparison:
    """Last iterate against plain composition (every iterate released), one run.

    Attributes
    ----------
    delta : float
        The δ at which ε is read.
    epsilon_last, epsilon_plain : Bracket
        Certified ε(δ) brackets (lower, upper); the upper end is the guarantee.
    mu_last, mu_plain : Bracket
        Smallest μ with f ≥ G_μ (bracket; equal ends for Gaussian results).
    assumptions : str
        The run.

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_gd, compare_last_iterate
    >>> r = compare_last_iterate(noisy_gd(8.0, 0.25, 1, 1000, 0.1, smoothness=10.0,
    ...                                   diameter=1.0), 1e-5)
    >>> print(f"{r.mu_last.hi:.3f} {r.mu_plain.hi:.3f}")
    0.559 1.976
    """

    delta: float
    epsilon_last: Bracket
    epsilon_plain: Bracket
    mu_last: Bracket
    mu_plain: Bracket
    assumptions: str

    def __str__(self) -> str:
        return (f"{self.assumptions}\n"
                f"  last iterate : mu <= {self.mu_last.hi:.6g}, "
                f"epsilon({self.delta:g}) <= {self.epsilon_last.hi:.6g}\n"
                f"  composition  : mu <= {self.mu_plain.hi:.6g}, "
                f"epsilon({self.delta:g}) <= {self.epsilon_plain.hi:.6g}")


def compare_last_iterate(result: LastIterateGaussian | LastIterate,
                         delta: float = 1e-5) -> LastIterateComparison:
    """ε(δ) and μ of a last-iterate guarantee next to plain composition of the same run.

    Parameters
    ----------
    result : LastIterateGaussian or LastIterate
        From ``noisy_gd`` or ``noisy_sgd``.
    delta : float
        δ ∈ (0, 1).

    Returns
    -------
    LastIterateComparison

    Raises
    ------
    ValueError
        For δ outside (0, 1).
    TypeError
        When ``result`` is not a last-iterate result.

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_gd, compare_last_iterate
    >>> f = noisy_gd(4.0, 1.0, 50, 1000, 0.1, smoothness=1.0, strong_convexity=0.5)
    >>> r = compare_last_iterate(f, 1e-5)
    >>> bool(r.epsilon_last.hi < r.epsilon_plain.hi)
    True
    """

    d = _validate.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    if isinstance(result, LastIterateGaussian):
        last: TradeOff = Gaussian(result.mu)
        plain: TradeOff = Gaussian(result.plain_mu)
    elif isinstance(result, LastIterate):
        last, plain = result.of, result.plain
    else:
        raise TypeError("result must come from noisy_gd or noisy_sgd, got "
                        f"{type(result).__name__}")
    require_guarantee(last, "compare_last_iterate")
    return LastIterateComparison(d, last.epsilon_bounds(d), plain.epsilon_bounds(d),
                                 last.gdp_mu_bounds(), plain.gdp_mu_bounds(),
                                 result.assumptions)


# ----------------------------------------------------------------------------
# Cyclic batches
# ----------------------------------------------------------------------------
def cyclic_mu(mu: float, contraction_factor: float, batches: int, epochs: int) -> float:
    """Last-iterate GDP μ of unconstrained NoisyCGD (BSA 2024, NoisyCGD, strongly convex).

    l fixed batches visited in order for E epochs; the differing record is in one batch,
    so its gradient enters once per epoch with per-step GDP parameter μ. With
    C = c^l, for l ≥ 2

        μ_E = μ √(1 + c^{2l−2} (1 − c²)/(1 − c^l)² · (1 − C^{E−1})/(1 + C^{E−1})),

    the shift-allocation minimum of the module docstring with the causal constraints (a
    shift cannot precede the gradient difference it compensates) at the worst batch
    position, the last of the epoch (the last difference, one step before release, is
    paid in full: μ_E ≥ μ). For l = 1 (full batches) it is NoisyGD's
    μ √((1+c)/(1−c) · (1−c^E)/(1+c^E)); at c = 1, μ √(1 + (E−1)/l).

    Parameters
    ----------
    mu : float
        μ ≥ 0, the GDP parameter of one batch step (2L/(bσ)).
    contraction_factor : float
        c ∈ [0, 1].
    batches : int
        l ≥ 1.
    epochs : int
        E ≥ 0.

    Returns
    -------
    float
        μ_E, rounded up.

    Examples
    --------
    >>> from fdp.sgd.last_iterate import cyclic_mu
    >>> print(f"{cyclic_mu(0.2, 0.99, 20, 500):.4f}")
    0.2375
    """
    a = _validate.real("mu", mu, low=0.0)
    c = _validate.real("contraction_factor", contraction_factor, low=0.0, high=1.0)
    nb = _validate.positive_int("batches", batches)
    E = _validate.positive_int("epochs", epochs, low=0)
    if E == 0 or a == 0.0:
        return 0.0
    gap = 1.0 - c
    if nb == 1:
        nu = np.array([float(E)])
        return _round_up(float(a * _w1(gap, nu)[0] / math.sqrt(_w2(gap, nu)[0])))
    if E == 1 or gap >= 1.0:
        return _round_up(a)
    if gap == 0.0:
        extra = (E - 1) / nb
    else:
        lc = math.log1p(-gap)
        gap_l = -math.expm1(nb * lc)
        # (1 − C^{E−1})/(1 + C^{E−1}) = tanh(−(E−1) l log c / 2)
        extra = (math.exp((2 * nb - 2) * lc) * gap * (2.0 - gap) / (gap_l * gap_l)
                 * math.tanh(-0.5 * (E - 1) * nb * lc))
    return _round_up(a * math.sqrt(1.0 + extra))


def _run_prefix(T: np.ndarray, sizes: np.ndarray, gap: float) -> np.ndarray:
    """P[k] = Σ_{p<k} s_p c^{T_k − 1 − T_p} for k = 0..len(T)−1 (T[-1] the end), by the
    recurrence P[k] = P[k−1] c^{T_k−T_{k−1}} + s_{k−1} c^{T_k−T_{k−1}−1}; with equally
    spaced differences (spacing l) it is s c^{l−1} Σ_{q<k} c^{ql} up to the last one."""
    n = len(T) - 1
    P = np.zeros(n + 1)
    g = np.diff(T)
    if n > 1 and np.all(g[:-1] == g[0]) and np.all(sizes[1:n] == sizes[0]):
        ks = np.arange(0, n, dtype=float)
        gap_l = 1.0 if gap >= 1.0 else -math.expm1(g[0] * math.log1p(-gap)) if gap else 0.0
        P[:n] = sizes[0] * _cpow(gap, np.array([g[0] - 1.0]))[0] * _w1(gap_l, ks)
        P[n] = (P[n - 1] * _cpow(gap, np.array([g[-1]]))[0]
                + sizes[n - 1] * _cpow(gap, np.array([g[-1] - 1.0]))[0])
        return P
    for k in range(1, n + 1):
        P[k] = (P[k - 1] * _cpow(gap, np.array([g[k - 1]]))[0]
                + sizes[k - 1] * _cpow(gap, np.array([g[k - 1] - 1.0]))[0])
    return P


def _runs_min(times: list[float], sizes: list[float], t: int, gap: float) -> float:
    """Causal minimum of Σ u_k² for gradient differences ``sizes`` (noise units, after
    contraction) arriving at steps ``times`` (increasing, < t), ending at distance 0.

    Between zeros of the distance the optimum compensates a run of consecutive
    differences i..j with shifts ∝ c^{z−1−k}, z the start of the next run (or t), at
    cost S²/W₂(z − t_i), S = Σ_p s_p c^{z−1−t_p}; the run is feasible iff the distance
    stays ≥ 0 before each of its later differences m:
    P_m = Σ_{p<m} s_p c^{t_m−1−t_p} ≥ (S/W₂(z − t_i)) c^{z−t_m} W₂(t_m − t_i).
    A dynamic programme over runs, feasible runs only (a single difference is always
    feasible), gives the minimum over these schedules; every one is a valid bound.
    """
    n = len(times)
    if n == 0:
        return 0.0
    if times[-1] >= t or np.any(np.diff(times) <= 0):
        raise ValueError("times must be increasing steps below t")
    T = np.append(np.asarray(times, dtype=float), float(t))
    sz = np.asarray(sizes, dtype=float)
    best = np.full(n + 1, np.inf)
    best[n] = 0.0
    for i in range(n - 1, -1, -1):
        P = _run_prefix(T[i:], sz[i:], gap)      # P[k]: differences i..i+k−1 at T[i+k]
        L = T[i + 1:] - T[i]                     # run i..j ends at z = T[j+1]
        w2 = _w2(gap, L)
        S = P[1:]
        R = np.full(len(S), np.inf)              # R[k] for the difference i+k, k ≥ 1
        if len(S) > 1:
            R[1:] = P[1:-1] * _cpow(gap, T[i + 1:n] - T[i]) / w2[:-1]
        lim = np.minimum.accumulate(R)
        ok = S / w2 * _cpow(gap, L) <= lim       # strict: rejecting only loosens
        best[i] = np.min(np.where(ok, S * S / w2, np.inf) + best[i + 1:])
    return math.sqrt(float(best[0]))


# Unrolling windows tried for constrained NoisyCGD: the last k differences of the
# record, k on a geometric grid up to this many and next to D/(ησa), where
# (D/(ησ) + a k)²/(k l) is least (each start is a valid bound; the minimum is taken).
_CYCLIC_MAX_WINDOW = 256


def _cyclic_constrained_mu(a: float, gap: float, batches: int, epochs: int,
                           diameter_units: float) -> float:
    """min{τ = 0 bound (``cyclic_mu``), max over the record's batch position j of the
    best start τ}: τ at the k-th last difference of the record (k on the grid of
    ``_CYCLIC_MAX_WINDOW``), start distance d_τ = min{D/(ησ), a Σ_{h<τ} c^{τ−1−h}} entering
    as a difference c d_τ at step τ, then the causal minimum (``_runs_min``)."""
    t = batches * epochs
    c = 1.0 - gap
    whole = cyclic_mu(a, c, batches, epochs)
    if not math.isfinite(diameter_units) or t == 0 or a == 0.0:
        return whole
    worst = 0.0
    top = min(epochs, _CYCLIC_MAX_WINDOW)
    ks = set(np.unique(np.round(np.geomspace(1, top, 10))).astype(int).tolist())
    k0 = diameter_units / a
    ks |= {k for k in (math.floor(k0), math.ceil(k0)) if 1 <= k <= top}
    gap_l = 1.0 if gap >= 1.0 else (-math.expm1(batches * math.log1p(-gap)) if gap else 0.0)
    for j in range(batches):
        hits = list(range(j, t, batches))
        best_j = math.inf
        for k in sorted(ks):
            m = len(hits) - k                    # differences before τ = hits[-k]
            if m == 0:
                continue
            sensitivity = a * float(_cpow(gap, np.array([batches - 1.0]))[0]
                                    * _w1(gap_l, np.array([float(m)]))[0])
            d = min(diameter_units, sensitivity)
            after = [float(h) for h in hits[-k:]]
            times, sizes = after, [c * d + a] + [a] * (k - 1)
            best_j = min(best_j, _runs_min(times, sizes, t, gap))
        worst = max(worst, best_j)
        if worst >= whole:
            return whole
    return _round_up(min(worst, whole))


def noisy_cgd(noise: float, lipschitz: float, dataset_size: int, batches: int,
              epochs: int, step_size: float, *, smoothness: float,
              strong_convexity: float = 0.0, diameter: float = math.inf
              ) -> LastIterateGaussian:
    """Last-iterate GDP of cyclic NoisyCGD (BSA 2024, NoisyCGD).

    The n records are cut into l fixed disjoint batches of b = n/l, visited in the same
    order for E epochs (t = lE steps), each step X ← X − η(∇F_{B}(X) + Z), Z ~ N(0, σ²I),
    with L-Lipschitz, M-smooth, m-strongly convex (m ≥ 0) losses, η ≤ 2/M,
    replace-one neighbours. One batch step is a-GDP with a = 2L/(bσ);
    μ = ``cyclic_mu(a, c, l, E)``, c from ``contraction``. On a set of diameter D
    (projected steps) the smaller of that and, for every batch position of the record,
    the best of the starts τ at its k-th last gradient difference (k on a grid up to
    256 and next to D/(ησa)), each the causal shift-allocation minimum with start
    distance min{D/(ησ), a Σ_{h<τ} c^{τ−1−h}} (module docstring); BSA's constrained
    bound √(3s/(ηl) + s² + s²⌈1/(sη)⌉/l)/σ (D = 1, s = 2L/b) is never smaller.

    Parameters
    ----------
    noise, lipschitz, step_size, smoothness, strong_convexity, diameter
        As in ``noisy_gd``.
    dataset_size : int
        n ≥ 1, a multiple of ``batches``.
    batches : int
        l ≥ 1 batches per epoch.
    epochs : int
        E ≥ 0.

    Returns
    -------
    LastIterateGaussian
        Status exact; ``plain_mu`` = a√E (the record is used once per epoch).

    Raises
    ------
    ValueError
        For a parameter outside its range, or n not a multiple of l.

    Examples
    --------
    >>> from fdp.sgd.last_iterate import noisy_cgd
    >>> g = noisy_cgd(3.0, 0.25, 10, 10, 5000, 0.02, smoothness=50.0, diameter=1.0)
    >>> print(f"{g.mu:.4f} {g.plain_mu:.2f}")
    1.0672 11.79
    >>> f = noisy_cgd(1.0, 0.1, 100, 10, 100, 0.1, smoothness=1.0, strong_convexity=0.1)
    >>> print(f"{f.mu:.4f} {f.plain_mu:.4f}")
    0.0336 0.2000
    """
    sigma = _validate.real("noise", noise, low=0.0, low_open=True)
    L = _validate.real("lipschitz", lipschitz, low=0.0, low_open=True)
    n = _validate.positive_int("dataset_size", dataset_size)
    nb = _validate.positive_int("batches", batches)
    E = _validate.positive_int("epochs", epochs, low=0)
    if n % nb:
        raise ValueError(f"dataset_size must be a multiple of batches ({nb}), got {n}")
    gap = _gap(step_size, smoothness, strong_convexity)
    D = _validate.real("diameter", diameter, low=0.0, low_open=True, allow_inf=True)
    a = 2.0 * L * nb / (n * sigma)
    text = _assumptions("NoisyCGD last iterate", sigma=sigma, L=L, n=n, batches=nb,
                        epochs=E, eta=float(step_size), M=float(smoothness),
                        m=float(strong_convexity), c=1.0 - gap, D=D,
                        neighbouring="replace_one")
    mu = _cyclic_constrained_mu(a, gap, nb, E, D / (float(step_size) * sigma))
    return LastIterateGaussian(mu, text, _round_up(a * math.sqrt(E)))
