"""Last-iterate privacy of cyclic NoisyCGD (Bok, Su & Altschuler, ICML 2024, "BSA").

The shift allocation with causal constraints (docs/derivations/last-iterate.md):
``cyclic_mu`` (unconstrained, BSA's closed form) and ``noisy_cgd`` (with a diameter,
by a dynamic programme over runs of gradient differences).
"""

from __future__ import annotations

import math

import numpy as np

from fdp import _validate
from fdp.sgd.shifted_interpolation import (
    LastIterateGaussian,
    _assumptions,
    _cpow,
    _gap,
    _round_up,
    _w1,
    _w2,
)


# ----------------------------------------------------------------------------
# Cyclic batches
# ----------------------------------------------------------------------------
def cyclic_mu(mu: float, contraction_factor: float, batches: int, epochs: int) -> float:
    """Last-iterate GDP μ of unconstrained NoisyCGD (BSA 2024, NoisyCGD, strongly convex).

    l fixed batches in order for E epochs; the record's gradient enters once per epoch
    with per-step GDP parameter μ. With C = c^l, for l ≥ 2

        μ_E = μ √(1 + c^{2l−2} (1 − c²)/(1 − c^l)² · (1 − C^{E−1})/(1 + C^{E−1})),

    the shift-allocation minimum of docs/derivations/last-iterate.md with the causal constraints (a
    shift cannot precede the gradient difference it compensates) at the worst batch
    position, the last of the epoch (the last difference, one step before release, is
    paid in full: μ_E ≥ μ). For l = 1 (full batches) it is NoisyGD's
    μ √((1+c)/(1−c) · (1−c^E)/(1+c^E)); at c = 1, μ √(1 + (E−1)/l).

    μ ≥ 0 is one batch step's GDP parameter (2L/(bσ)), c ∈ [0, 1], l ≥ 1, E ≥ 0; μ_E is
    rounded up.

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
    distance min{D/(ησ), a Σ_{h<τ} c^{τ−1−h}} (docs/derivations/last-iterate.md); BSA's constrained
    bound √(3s/(ηl) + s² + s²⌈1/(sη)⌉/l)/σ (D = 1, s = 2L/b) is never smaller.

    Arguments as in ``fdp.sgd.last_iterate``'s module docstring, n a multiple of the
    l ≥ 1 ``batches``, E ≥ 0 ``epochs``. Returns a ``LastIterateGaussian`` (exact) with
    ``plain_mu`` = a√E (the record is used once per epoch).

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
