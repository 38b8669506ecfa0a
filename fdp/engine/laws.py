"""Exact privacy-loss laws: Q- and P-masses of L = log(dQ/dP) on intervals.

For a trade-off function f = T(P, Q) with a known pair, ``interval_masses(f, edges)``
returns, for the intervals

    (−∞, e_0), [e_0, e_1), …, [e_{K−1}, e_K), [e_K, +∞)     (finite losses only),

the Q-mass κ and the P-mass π of L in each, plus the atoms Q(L = +∞) and
P(L = −∞). Each interval's conditional mean of e^L under P is κ/π, so it sits
inside the interval: this is all the discretisers need. ``loss_range(f)`` gives
an interval of losses outside which the law has negligible mass (< 1e-25) under
both P and Q, or none at all. Both return ``None`` when f has no exact law here; the engine then
falls back to f's privacy profile δ(ε) (``fdp.engine.discretise``).

Laws (P, Q) and L under Q:
- Gaussian G_μ: P = N(0,1), Q = N(μ,1); L ~ N(μ²/2, μ²) under Q, N(−μ²/2, μ²) under P.
- Laplace L_μ: P = Lap(0,1), Q = Lap(μ,1); L = |x| − |x − μ|: atoms ±μ
  (Q-masses 1/2 and e^{−μ}/2), and L = 2x − μ for x ∈ (0, μ) (DRS Appendix A).
- Finite pairs (f_{ε,δ}, randomized response, ``from_pair``): their atoms.
- PoissonAdd(f, p) = T(P, (1−p)P + pQ): L' = log(1 − p + p e^L) is increasing in
  L, so its intervals pull back to intervals of L; κ' = (1 − p)π + pκ, π' = π
  (MATH.md §7; subsampled Gaussian exactly).
- Inverse T(Q, P): L ↦ −L with the roles of P and Q swapped (remove direction).
- WithoutReplacement C_p(f) for symmetric f (DRS Thm 4.2): the add-direction law
  on L > 0, its mirror image (P and Q swapped) on L < 0, and an atom at L = 0 of
  P- and Q-mass 1 − Q_add(L > 0) − P_add(L > 0) (the segment of slope −1).
"""

from __future__ import annotations

from functools import singledispatch

import numpy as np
from scipy.special import ndtr, ndtri

from fdp.engine.lattice import p_masses
from fdp.families.finite_pair import FinitePair
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.families.laplace import Laplace
from fdp.operations.envelope import Envelope
from fdp.operations.inverse import Inverse
from fdp.operations.subsample import PoissonAdd, WithoutReplacement

Z_TAIL = 10.5  # standard-normal tail beyond 10.5 is below 5e-26


def normal_cells(z: np.ndarray) -> np.ndarray:
    """Standard-normal masses of (−∞, z_0), [z_0, z_1), …, [z_{K−1}, ∞) for sorted z.

    One tail probability c_i = Φ(−|z_i|) per edge, differenced on the side of 0
    where it is small, so both tails keep full relative precision.
    """
    z = np.asarray(z, dtype=float)
    c = ndtr(-np.abs(z))
    neg = z <= 0
    out = np.empty(z.size + 1)
    out[0] = c[0] if neg[0] else 1.0 - c[0]
    out[-1] = c[-1] if not neg[-1] else 1.0 - c[-1]
    a, b = c[:-1], c[1:]
    both_neg, both_pos = neg[:-1] & neg[1:], ~neg[:-1] & ~neg[1:]
    out[1:-1] = np.where(both_neg, b - a, np.where(both_pos, a - b, 1.0 - a - b))
    return np.maximum(out, 0.0)


def isf_normal(tail: float) -> float:
    """z with P(Z > z) = tail."""
    return -float(ndtri(tail)) if tail < 0.5 else 0.0


def _intervals(edges):
    """Left and right ends of the K + 2 intervals around the edges."""
    e = np.asarray(edges, dtype=float)
    left = np.concatenate([[-np.inf], e])
    right = np.concatenate([e, [np.inf]])
    return left, right


def _bin_atoms(edges, L, p, q):
    """Masses of point atoms (finite L) in the K + 2 intervals."""
    idx = np.searchsorted(np.asarray(edges, dtype=float), L, side="right")
    n = len(edges) + 1
    return np.bincount(idx, weights=q, minlength=n), np.bincount(idx, weights=p, minlength=n)


# ----------------------------------------------------------------------
# interval_masses(f, edges) -> (kappa, pi, q_inf, p_neginf) or None
# ----------------------------------------------------------------------
@singledispatch
def interval_masses(f, edges):
    pair = f._pair() if hasattr(f, "_pair") else None
    if pair is not None:
        return _pair_masses(pair, edges)
    return None


@interval_masses.register
def _(f: FinitePair, edges):
    return _pair_masses(f, edges)


def _pair_masses(pair, edges):
    L, p, q = pair.log_ratio, pair.p, pair.q
    fin = np.isfinite(L)
    kappa, pi = _bin_atoms(edges, L[fin], p[fin], q[fin])
    q_inf = float(q[L == np.inf].sum())
    p_neginf = float(p[L == -np.inf].sum())
    return kappa, pi, q_inf, p_neginf


@interval_masses.register
def _(f: Identity, edges):
    kappa, pi = _bin_atoms(edges, np.zeros(1), np.ones(1), np.ones(1))
    return kappa, pi, 0.0, 0.0


@interval_masses.register
def _(f: Gaussian, edges):
    mu = f.mu
    if mu == 0.0:
        return interval_masses(Identity(), edges)
    # L ≤ e ⇔ x ≤ e/μ ∓ μ/2 (Q: x ∼ N(μ, 1) shifted; P: N(0, 1)); written without μ²,
    # which overflows for μ > 1e154, and without inf − inf at infinite edges
    e = np.asarray(edges, dtype=float)
    with np.errstate(over="ignore"):
        z = e / mu
    kappa = normal_cells(z - mu / 2.0)
    pi = normal_cells(z + mu / 2.0)
    return kappa, pi, 0.0, 0.0


@interval_masses.register
def _(f: Laplace, edges):
    mu = f.mu
    if mu == 0.0:
        return interval_masses(Identity(), edges)
    left, right = _intervals(edges)
    # continuous part: L = 2x − μ for x ∈ (0, μ)
    xa = np.clip((left + mu) / 2.0, 0.0, mu)
    xb = np.clip((right + mu) / 2.0, 0.0, mu)
    d = xb - xa
    # Q-mass ½(e^{xb−μ} − e^{xa−μ}), written without e^{d} (d can exceed 709)
    with np.errstate(under="ignore"):
        kappa = -0.5 * np.exp(xb - mu) * np.expm1(-d)
        pi = -0.5 * np.exp(-xa) * np.expm1(-d)
    k_atoms, p_atoms = _bin_atoms(edges, np.array([mu, -mu]),
                                  np.array([0.5 * np.exp(-mu), 0.5]),
                                  np.array([0.5, 0.5 * np.exp(-mu)]))
    return kappa + k_atoms, pi + p_atoms, 0.0, 0.0


@interval_masses.register
def _(f: PoissonAdd, edges):
    p = f.p
    if p == 0.0:
        return interval_masses(Identity(), edges)
    if p == 1.0:
        return interval_masses(f.of, edges)
    e = np.asarray(edges, dtype=float)
    floor = np.log1p(-p)  # smallest loss of the mixture
    pulled = np.full(e.shape, -np.inf)
    big = e > 1.0
    # l = log((e^{l'} − 1 + p)/p); for large l' as l' + log1p((p − 1)e^{−l'}) − log p
    pulled[big] = e[big] + np.log1p((p - 1.0) * np.exp(-e[big])) - np.log(p)
    mid = (e > floor) & ~big
    pulled[mid] = np.log(np.expm1(e[mid]) + p) - np.log(p)
    inner = interval_masses(f.of, pulled)
    if inner is None:
        return None
    kappa, pi, q_inf, p_neginf = inner
    kappa = (1.0 - p) * pi + p * kappa
    if p_neginf > 0.0:  # inner atom L = −inf maps to the finite loss log(1 − p)
        k2, p2 = _bin_atoms(e, np.array([floor]), np.array([p_neginf]),
                            np.array([(1.0 - p) * p_neginf]))
        kappa, pi = kappa + k2, pi + p2
    return kappa, pi, p * q_inf, 0.0


@interval_masses.register
def _(f: Inverse, edges):
    e = np.asarray(edges, dtype=float)
    inner = interval_masses(f.of, -e[::-1])
    if inner is None:
        return None
    kappa, pi, q_inf, p_neginf = inner
    return pi[::-1].copy(), kappa[::-1].copy(), p_neginf, q_inf


@interval_masses.register
def _(f: WithoutReplacement, edges):
    if not f.of.symmetric:
        return None
    add = PoissonAdd(f.of, f.p)
    e = np.asarray(edges, dtype=float)
    pos = np.unique(np.concatenate([[0.0], np.abs(e)]))
    got = interval_masses(add, pos)
    if got is None:
        return None
    k_add, p_add, q_inf_add, _ = got
    # intervals of `pos` above 0: indices 1..len(pos) (the last is the open tail)
    k_pos, p_pos = k_add[1:], p_add[1:]
    middle = 1.0 - (k_pos.sum() + q_inf_add) - p_pos.sum()
    # build atoms at each positive interval's conditional location, mirrored too
    with np.errstate(divide="ignore", invalid="ignore"):
        loc = np.log(k_pos) - np.log(p_pos)
    live = (k_pos > 0) & (p_pos > 0)
    loc, kk, pp = loc[live], k_pos[live], p_pos[live]
    # Binning the conditional-mean atom of an interval of `pos` is exact because every
    # interval of `pos` lies inside one interval of `edges` or its mirror.
    L = np.concatenate([loc, -loc, [0.0]])
    Q = np.concatenate([kk, pp, [max(middle, 0.0)]])
    P = np.concatenate([pp, kk, [max(middle, 0.0)]])
    kappa, pi = _bin_atoms(e, L, P, Q)
    return kappa, pi, q_inf_add, q_inf_add


# ----------------------------------------------------------------------
# loss_range(f) -> (lo, hi) or None
# ----------------------------------------------------------------------
@singledispatch
def loss_range(f):
    pair = f._pair() if hasattr(f, "_pair") else None
    if pair is not None:
        return _pair_range(pair)
    return None


def _pair_range(pair):
    L = pair.log_ratio[np.isfinite(pair.log_ratio)]
    if L.size == 0:
        return 0.0, 0.0
    return float(L.min()), float(L.max())


@loss_range.register
def _(f: FinitePair):
    return _pair_range(f)


@loss_range.register
def _(f: Identity):
    return 0.0, 0.0


@loss_range.register
def _(f: Gaussian):
    # the bulk of L under Q (around μ²/2) and under P (around −μ²/2): the P side is
    # what the reflected lattice of the inverse pair (remove direction) lives on
    mu = f.mu
    return -mu * mu / 2.0 - Z_TAIL * mu, mu * mu / 2.0 + Z_TAIL * mu


@loss_range.register
def _(f: Laplace):
    return -f.mu, f.mu


@loss_range.register
def _(f: PoissonAdd):
    if isinstance(f.of, Gaussian) and 0.0 < f.p < 1.0 and f.of.mu > 0.0:
        # Q(L > l) = (1 − p)Φ̄(x) + pΦ̄(x − μ) at the x with L(x) = l: cut where the
        # larger term is 5e-26, as for the plain Gaussian
        # (an inclusion component of mass below 1e-25 in all is left out: the grid's
        # top tail goes to the safe side anyway). Exponents as μ(x − μ/2): finite or
        # ±inf, never inf − inf, however large μ is.
        mu, p = f.of.mu, f.p
        x_hi = float(isf_normal(5e-26))
        if 5e-26 / p < 0.5:
            x_hi = max(x_hi, mu + float(isf_normal(5e-26 / p)))
        hi = float(np.logaddexp(np.log1p(-p), np.log(p) + mu * (x_hi - mu / 2.0)))
        return float(np.log1p(-p)), hi
    inner = loss_range(f.of)
    if inner is None or interval_masses(f.of, np.zeros(1)) is None:
        return None
    p = f.p
    if p == 0.0:
        return 0.0, 0.0
    lo, hi = inner

    def push(x):
        return float(np.logaddexp(np.log1p(-p), np.log(p) + x)) if p < 1.0 else x
    return push(lo), push(hi)


@loss_range.register
def _(f: Inverse):
    inner = loss_range(f.of)
    if inner is None:
        return None
    return -inner[1], -inner[0]


@loss_range.register
def _(f: WithoutReplacement):
    if not f.of.symmetric:
        return None
    inner = loss_range(PoissonAdd(f.of, f.p))
    if inner is None:
        return None
    r = max(abs(inner[0]), abs(inner[1]))
    return -r, r


@loss_range.register
def _(f: Envelope):
    ranges = [loss_range(m) for m in f.members]
    if any(r is None for r in ranges):
        return None
    return min(r[0] for r in ranges), max(r[1] for r in ranges)


# ----------------------------------------------------------------------
# loss_moments(f) -> (mean, variance) of L under Q, or None (used to size the grid)
# ----------------------------------------------------------------------
_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(96)
_GH_W = _GH_W / _GH_W.sum()


@singledispatch
def loss_moments(f):
    return None


@loss_moments.register
def _(f: Gaussian):
    return f.mu * f.mu / 2.0, f.mu * f.mu


def _subsampled_gaussian_loss(f):
    """L(x) = log(1 − p + p e^{μx − μ²/2}) at the Gauss–Hermite nodes, or None."""
    if not (isinstance(f.of, Gaussian) and 0.0 < f.p < 1.0 and f.of.mu > 0.0):
        return None
    mu, p = f.of.mu, f.p

    def loss(x):
        with np.errstate(over="ignore"):
            return np.logaddexp(np.log1p(-p), np.log(p) + mu * (x - mu / 2.0))
    return loss


def _mean_var(values, weights):
    if not np.all(np.isfinite(values)):
        return np.inf, np.inf          # a law beyond doubles: the grid is sized by its window
    m = float(weights @ values)
    return m, float(weights @ (values - m) ** 2)


@loss_moments.register
def _(f: PoissonAdd):
    loss = _subsampled_gaussian_loss(f)
    if loss is None:
        return None
    # under Q = (1 − p)N(0, 1) + pN(μ, 1) (96-point Gauss–Hermite; L is smooth)
    x = np.concatenate([_GH_X, _GH_X + f.of.mu])
    w = np.concatenate([(1.0 - f.p) * _GH_W, f.p * _GH_W])
    return _mean_var(loss(x), w)


@loss_moments.register
def _(f: Inverse):
    if isinstance(f.of, Gaussian):
        return loss_moments(f.of)
    if not isinstance(f.of, PoissonAdd):
        return None
    loss = _subsampled_gaussian_loss(f.of)
    if loss is None:
        return None
    # the inverse pair's loss is −L, under its Q = the original P = N(0, 1)
    m, v = _mean_var(loss(_GH_X), _GH_W)
    return -m, v


# ----------------------------------------------------------------------
# atoms(f) -> (locations, Q-masses) of point masses of the finite loss
# ----------------------------------------------------------------------
@singledispatch
def atoms(f):
    pair = f._pair() if hasattr(f, "_pair") else None
    if pair is not None:
        return atoms(pair)
    return np.zeros(0), np.zeros(0)


@atoms.register
def _(f: FinitePair):
    fin = np.isfinite(f.log_ratio)
    return f.log_ratio[fin], f.q[fin]


@atoms.register
def _(f: Laplace):
    return np.array([f.mu, -f.mu]), np.array([0.5, 0.5 * np.exp(-f.mu)])


@atoms.register
def _(f: PoissonAdd):
    L, q = atoms(f.of)
    p = f.p
    if p in (0.0, 1.0):
        return L, q
    return np.logaddexp(np.log1p(-p), np.log(p) + L), p * q + (1 - p) * p_masses(q, L)


@atoms.register
def _(f: Inverse):
    L, q = atoms(f.of)
    return -L, p_masses(q, L)

import fdp.engine.laws_bounded_range  # noqa: E402  (registers the bounded-range law)
import fdp.engine.laws_discrete  # noqa: E402  (registers the discrete Gaussian law)
import fdp.engine.laws_mixture  # noqa: E402,F401  (registers the mixture-of-Gaussians laws)
