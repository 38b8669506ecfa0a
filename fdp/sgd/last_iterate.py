"""Last-iterate (hidden-state) privacy of noisy gradient descent by shifted interpolation.

Most models release only the final iterate X_t; for contractive updates its privacy
converges in t instead of growing like √t (Bok, Su & Altschuler, "Shifted Interpolation
for Differential Privacy", ICML 2024, arXiv 2403.00278; BSA). The derivation (the
algorithms, the shift allocation, NoisyGD, NoisyCGD and NoisySGD) is
docs/derivations/last-iterate.md. Here: ``noisy_gd``, ``noisy_sgd`` and
``compare_last_iterate``; ``noisy_cgd`` and ``cyclic_mu`` are in ``fdp.sgd.cyclic``, the
closed forms and result types in ``fdp.sgd.shifted_interpolation`` (all re-exported).

Arguments throughout: ``noise`` σ > 0 (the standard deviation of the noise added to
the gradient), ``lipschitz`` L > 0 (or the clipping norm), ``dataset_size`` n ≥ 1,
``steps`` t, ``step_size`` η ∈ (0, 2/M], ``smoothness`` M > 0, ``strong_convexity``
m ∈ [0, M] and ``diameter`` D > 0 of the constraint set (inf: unconstrained).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp.bracket import Bracket
from fdp.families.gaussian import Gaussian
from fdp.operations.envelope import strongest
from fdp.sgd.certified import dpsgd
from fdp.sgd.clt import dpsgd_clt_mu
from fdp.sgd.cyclic import cyclic_mu, noisy_cgd
from fdp.sgd.shifted_interpolation import (
    LastIterate,
    LastIterateGaussian,
    _assumptions,
    _cpow,
    _gap,
    _gd_mu,
    _horizons,
    _round_up,
    _w1,
    _w2,
    contraction,
    strongly_convex_mu,
)
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff


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
    t ≥ ⌈D/(ηs)⌉ (BSA's t*, μ*); it never exceeds plain composition a√t
    (``plain_mu``). Arguments as in the module docstring (t ≥ 0).

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
    derivation (docs/derivations/last-iterate.md) gives

        f_ν = G(√2 c^ν min{D b/(ησL), a W₁(τ)} / √W₂(ν)) ⊗ C_p(G(√2 a))^{⊗ν},

    and f_t = C_p(G_a)^{⊗t} (plain composition, ``fdp.dpsgd``); the guarantee is
    max_ν f_ν. The horizons composed are the ``candidates`` best by the CLT score
    μ_G(ν)² + ν μ_CLT(1)² (``fdp.dpsgd_clt_mu``; a choice, not a claim), each by the
    engine with a certified bracket; the result is their pointwise maximum with t.

    Parameters
    ----------
    noise_multiplier, batch_size, clipping_norm
        σ > 0 (noise std σL on the clipped gradient sum), b ∈ [1, n], L > 0.
    dataset_size, steps, step_size, smoothness, strong_convexity, diameter
        As in the module docstring (t ≥ 1).
    candidates : int
        Horizons ν < t to compose (≥ 0; 0 gives plain composition).
    tol : float, optional
        As in ``fdp.dpsgd``, for each composition.

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

    ``epsilon_last``, ``epsilon_plain``: certified ε(``delta``) brackets (the upper end
    is the guarantee); ``mu_last``, ``mu_plain``: the smallest μ with f ≥ G_μ (brackets);
    ``assumptions``: the run.

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

    ``result`` comes from ``noisy_gd``, ``noisy_cgd`` or ``noisy_sgd``; δ ∈ (0, 1).

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


__all__ = ["LastIterate", "LastIterateComparison", "LastIterateGaussian", "compare_last_iterate",
           "contraction", "cyclic_mu", "noisy_cgd", "noisy_gd", "noisy_sgd", "strongly_convex_mu"]
