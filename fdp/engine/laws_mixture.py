"""Privacy-loss laws of mixture-of-Gaussians pairs and revealed mixtures, for the engine.

MixtureOfGaussians (``fdp.families.mixture``): P = N(0, 1), Q = Σⱼ pⱼ N(μⱼ, 1),
L(x) = log Σⱼ pⱼ e^{μⱼx − μⱼ²/2} is strictly increasing in x (μⱼ ≥ 0, not all 0).
A loss interval [e_i, e_{i+1}) is therefore the x-interval [x_i, x_{i+1}) with
x_i = L⁻¹(e_i) (monotone Newton solve, ``MixtureOfGaussians.x_at_loss``; −∞ below
inf L = log p₀), and

    π_i = Φ(x_{i+1}) − Φ(x_i),      κ_i = Σⱼ pⱼ (Φ(x_{i+1} − μⱼ) − Φ(x_i − μⱼ)),

each difference taken on the side of 0 where it keeps relative precision
(``laws.normal_cells``), as for the Gaussian and PoissonAdd laws (the latter is
the case μ = (0, μ), p = (1 − q, q)). Whatever rounding the x_i carry, the masses
are those of a partition of the real line, so they sum to the law, and each cell's
conditional location log(κ/π) lies between L(x_i) and L(x_{i+1}). There are no
atoms and no infinite losses. The inverse pair T(Q, P) is handled by the engine's
reflection (``laws`` registers ``Inverse``).

Range: Q(X > x) ≤ Σⱼ pⱼ Φ̄(x − μⱼ), so above x_hi = maxⱼ (μⱼ + Φ̄⁻¹(τ/(J pⱼ))) the
Q-mass is below τ = 5e-26, and below x_lo = minⱼ (μⱼ − Φ̄⁻¹(τ/(J pⱼ))) likewise.

RevealedMixture(w, f): κ = Σᵢ wᵢ κᵢ, π = Σᵢ wᵢ πᵢ, atoms and infinite-loss masses
likewise (the law of a mixture is the mixture of the laws); the range is the
union of the members' ranges.
"""

from __future__ import annotations

import numpy as np

from fdp.engine.laws import (
    atoms,
    interval_masses,
    isf_normal,
    loss_moments,
    loss_range,
    normal_cells,
)
from fdp.families.identity import Identity
from fdp.families.mixture import MixtureOfGaussians, RevealedMixture

TAIL_MASS = 5e-26


@interval_masses.register
def _(f: MixtureOfGaussians, edges):
    if f.trivial:
        return interval_masses(Identity(), edges)
    x = f.x_at_loss(np.asarray(edges, dtype=float))
    pi = normal_cells(x)
    kappa = np.zeros(pi.size)
    for mu, p in zip(f.mus, f.weights):
        with np.errstate(invalid="ignore"):
            kappa += p * normal_cells(x - mu)
    return kappa, pi, 0.0, 0.0


def _x_range(f: MixtureOfGaussians):
    mu, p = f.mus, f.weights
    z = np.array([isf_normal(TAIL_MASS / (mu.size * pj)) for pj in p])
    return float(np.min(mu - z)), float(np.max(mu + z))


@loss_range.register
def _(f: MixtureOfGaussians):
    if f.trivial:
        return 0.0, 0.0
    x_lo, x_hi = _x_range(f)
    lo, hi = f.loss(np.array([x_lo, x_hi]))
    return float(max(lo, f.floor)), float(hi)


_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(96)
_GH_W = _GH_W / _GH_W.sum()


@loss_moments.register
def _(f: MixtureOfGaussians):
    """Mean and variance of L under Q = Σⱼ pⱼ N(μⱼ, 1) (Gauss–Hermite per component)."""
    if f.trivial:
        return 0.0, 0.0
    x = np.concatenate([_GH_X + mu for mu in f.mus])
    w = np.concatenate([p * _GH_W for p in f.weights])
    vals = f.loss(x)
    m = float(w @ vals)
    return m, float(w @ (vals - m) ** 2)


@interval_masses.register
def _(f: RevealedMixture, edges):
    total = None
    for w, m in zip(f.weights, f.members):
        got = interval_masses(m, edges)
        if got is None:
            return None
        k, p, qi, pn = got
        part = (w * np.asarray(k), w * np.asarray(p), w * qi, w * pn)
        total = part if total is None else tuple(a + b for a, b in zip(total, part))
    return total


@loss_range.register
def _(f: RevealedMixture):
    ranges = [loss_range(m) for m in f.members]
    if any(r is None for r in ranges):
        return None
    return min(r[0] for r in ranges), max(r[1] for r in ranges)


@atoms.register
def _(f: RevealedMixture):
    locs, masses = [], []
    for w, m in zip(f.weights, f.members):
        L, q = atoms(m)
        locs.append(np.asarray(L, dtype=float))
        masses.append(w * np.asarray(q, dtype=float))
    return np.concatenate(locs), np.concatenate(masses)
