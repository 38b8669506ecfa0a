"""Privacy-loss laws: the one description of a trade-off function's dominating pair.

For f = T(P, Q) the privacy loss is L = log(dQ/dP), a random variable with values in
[−∞, +∞]. Its law under P determines f (Neyman–Pearson: the optimal tests reject for
large L; Dong, Roth & Su 2022, §2 and Prop B.4), and its law under Q is the tilt
dQ = e^L dP. A ``PrivacyLossLaw`` answers everything the package reads from a pair:

* ``interval_masses(edges)``: for the intervals (−∞, e_0), [e_0, e_1), …, [e_K, +∞) of
  FINITE losses, the Q-masses κ and P-masses π, plus the atoms Q(L = +∞) and
  P(L = −∞). Each cell's conditional mean of e^L under P is κ/π and lies inside the
  cell: this is all the composition engine's discretisers need (Koskela, Jälkö &
  Honkela 2020; Gopi, Lee & Wutschitz 2021; Doroshenko et al. 2022).
* ``loss_range()``: an interval outside which L has negligible mass under P and Q.
* ``atoms()``: the point masses of the finite loss (locations, Q-masses).
* ``moment(k, c, absolute, under)``, ``cumulants(under)``, ``functionals()``: the moments
  behind the CLT (DRS Thm 3.4) and the Edgeworth expansion (Zheng, Dong, Long & Su
  2020); ``moment_method`` says whether they are a closed form, an exact sum, or
  (``None``) only a numerical approximation.
* ``log_mgf(t, under)`` where known, and ``renyi(orders)``: D_α(Q ‖ P) =
  log E_Q e^{(α−1)L} / (α − 1) (Mironov 2017, Def 3).

``TradeOff.law()`` returns the law of a trade-off function, or ``None`` for functions
known only through β or δ. A new family implements ``law()`` in its own file and gets
the engine, the CLT, Edgeworth and RDP from this interface.

This module holds the base class and the laws built from other laws (finite atoms,
the swapped pair of f⁻¹, Poisson subsampling, sampling without replacement, mixtures
and the two-direction envelope). It imports only numpy and scipy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import logsumexp

__all__ = ["AtomsLaw", "EnvelopeLaw", "MixtureLaw", "PrivacyLossLaw", "SubsampledLaw",
           "SwappedLaw", "WithoutReplacementLaw", "atoms_of", "bin_atoms", "interval_masses_of",
           "intervals", "loss_moments_of", "loss_range_of", "mirrored_moment", "p_masses",
           "split_delta"]

#: (κ, π, Q(L = +∞), P(L = −∞)) as returned by ``interval_masses``.
Masses = tuple[np.ndarray, np.ndarray, float, float]

#: Cells of the generic moment fallback (``PrivacyLossLaw.moment``).
MOMENT_CELLS = 20000


def p_masses(q: np.ndarray, L: np.ndarray) -> np.ndarray:
    """P-masses q·e^{−L} of Q-masses q at losses L, formed as e^{log q − L}.

    Never overflows: a Q-mass at a very negative loss is correspondingly tiny, so
    the product is at most about 1 however large e^{−L} alone would be.

    Parameters
    ----------
    q : array_like
        Q-masses (non-negative).
    L : array_like
        Losses log(dQ/dP) at the same points (broadcast with ``q``).

    Returns
    -------
    ndarray
        The P-masses, 0 where ``q`` is 0.

    Examples
    --------
    >>> from fdp.law import p_masses
    >>> print(p_masses([0.5, 0.25], [0.0, 1000.0]))
    [0.5 0. ]
    """
    q = np.asarray(q, dtype=float)
    out = np.zeros(np.broadcast(q, L).shape)
    live = np.broadcast_to(q > 0, out.shape)
    with np.errstate(under="ignore", over="ignore"):
        out[live] = np.exp(np.log(np.broadcast_to(q, out.shape)[live])
                           - np.broadcast_to(L, out.shape)[live])
    return out


def intervals(edges) -> tuple[np.ndarray, np.ndarray]:
    """Left and right ends of the K + 2 intervals around sorted ``edges``.

    Parameters
    ----------
    edges : array_like
        Sorted finite edges e_0 < … < e_K.

    Returns
    -------
    (ndarray, ndarray)
        ``(left, right)``: (−∞, e_0, …, e_K) and (e_0, …, e_K, +∞).

    Examples
    --------
    >>> from fdp.law import intervals
    >>> left, right = intervals([0.0, 1.0])
    >>> print(left, right)
    [-inf   0.   1.] [ 0.  1. inf]
    """
    e = np.asarray(edges, dtype=float)
    left = np.concatenate([[-np.inf], e])
    right = np.concatenate([e, [np.inf]])
    return left, right


def bin_atoms(edges, L, p, q) -> tuple[np.ndarray, np.ndarray]:
    """Q- and P-masses of point atoms (finite losses ``L``) in the K + 2 intervals.

    Parameters
    ----------
    edges : array_like
        Sorted edges; an atom at an edge belongs to the interval that starts there.
    L, p, q : array_like
        Atom locations, P-masses and Q-masses.

    Returns
    -------
    (ndarray, ndarray)
        ``(kappa, pi)``, each of length K + 2.

    Examples
    --------
    >>> from fdp.law import bin_atoms
    >>> kappa, pi = bin_atoms([0.0], [-1.0, 0.0], [0.7, 0.3], [0.3, 0.7])
    >>> print(kappa, pi)
    [0.3 0.7] [0.7 0.3]
    """
    idx = np.searchsorted(np.asarray(edges, dtype=float), L, side="right")
    n = len(edges) + 1
    return np.bincount(idx, weights=q, minlength=n), np.bincount(idx, weights=p, minlength=n)


def split_delta(p_neginf: float, q_inf: float, *, rtol: float, atol: float) -> float | None:
    """The δ of a pair that factors as g ⊗ f_{0,δ}, or ``None`` when it does not.

    A pair with P(L = −∞) = Q(L = +∞) = δ is the product of the pair conditioned on
    finite losses with the pair of f_{0,δ}: f = g ⊗ f_{0,δ}, g(x) = f((1 − δ)x)/(1 − δ)
    (DRS §3.3, the (ε, δ) central limit theorem treats f_{ε,δ} this way). The two
    masses count as equal when |a − b| ≤ atol + rtol·max(a, b); δ is then the larger
    one (the safe side).

    Parameters
    ----------
    p_neginf : float
        P(L = −∞).
    q_inf : float
        Q(L = +∞).
    rtol, atol : float
        Relative and absolute tolerance of the equality test.

    Returns
    -------
    float or None
        δ = max(a, b) (0.0 when both are 0), or ``None`` when the masses differ.

    Examples
    --------
    >>> from fdp.law import split_delta
    >>> split_delta(0.01, 0.01, rtol=1e-15, atol=0.0)
    0.01
    >>> split_delta(0.01, 0.02, rtol=1e-15, atol=0.0) is None
    True
    """
    a, b = float(p_neginf), float(q_inf)
    if abs(a - b) > atol + rtol * max(a, b):
        return None
    return max(a, b)


# ----------------------------------------------------------------------
# The base class
# ----------------------------------------------------------------------
class PrivacyLossLaw:
    """The law of the privacy loss L = log(dQ/dP) of a pair (P, Q) under P and Q.

    Subclasses implement ``interval_masses`` and ``loss_range``; the rest has
    generic defaults: no atoms, no moment hint, moments by the midpoint rule over
    ``MOMENT_CELLS`` interval masses (``moment_method = None``: an approximation),
    and no log-MGF. Laws are plain immutable data (frozen dataclasses) and pickle.

    A new family subclasses it in its own file, as ``GaussianLaw`` does in
    ``fdp.families.gaussian``, and returns an instance from ``TradeOff.law()``.

    Parameters
    ----------
    None (subclasses declare their own fields).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import PrivacyLossLaw
    >>> class Coin(PrivacyLossLaw):      # L = ±1, P(L = 1) = 1/(1 + e), Q(L = 1) = e/(1 + e)
    ...     def interval_masses(self, edges):
    ...         from fdp.law import bin_atoms
    ...         p = np.array([1.0, np.e]) / (1.0 + np.e)
    ...         kappa, pi = bin_atoms(edges, np.array([1.0, -1.0]), p, p[::-1])
    ...         return kappa, pi, 0.0, 0.0
    ...     def loss_range(self):
    ...         return -1.0, 1.0
    >>> print(f"{Coin().moment(1, under='Q'):.4f}")
    0.4621
    """

    @property
    def moment_method(self) -> str | None:
        """"closed form" or "exact sum" when ``moment`` is exact up to rounding; None
        when it is only the generic numerical approximation."""
        return None

    def interval_masses(self, edges) -> Masses | None:
        """(κ, π, Q(L = +∞), P(L = −∞)) on the intervals around ``edges``.

        Parameters
        ----------
        edges : array_like
            Sorted finite edges e_0 < … < e_K.

        Returns
        -------
        tuple or None
            κ and π of length K + 2 and the two infinite-loss atoms; ``None`` when
            the law is not one pair (``EnvelopeLaw``).
        """
        raise NotImplementedError

    def loss_range(self) -> tuple[float, float] | None:
        """(lo, hi) with negligible mass of L outside under P and Q, or None."""
        raise NotImplementedError

    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        """(locations, Q-masses) of the point masses of the finite loss."""
        return np.zeros(0), np.zeros(0)

    def loss_moments(self, under: str = "Q") -> tuple[float, float] | None:
        """(mean, variance) of L under ``under`` when cheaply known (sizes grids), or None."""
        return None

    def subsampled_loss_range(self, p: float) -> tuple[float, float] | None:
        """A sharper ``loss_range`` of the Poisson-subsampled law (0 < p < 1), or None
        to use the image of this law's range (``SubsampledLaw``)."""
        return None

    def subsampled_loss_moments(self, p: float, under: str) -> tuple[float, float] | None:
        """(mean, variance) of the Poisson-subsampled loss (0 < p < 1), or None."""
        return None

    def singular_masses(self) -> tuple[float, float]:
        """(P(L = −∞), Q(L = +∞))."""
        got = self.interval_masses(np.zeros(1))
        if got is None:
            raise ValueError("this law is not one pair: it has no singular masses")
        return float(got[3]), float(got[2])

    def without_delta(self, delta: float) -> PrivacyLossLaw:
        """The law conditioned on finite losses after splitting off f_{0,δ}."""
        if delta == 0.0:
            return self
        raise NotImplementedError(f"{type(self).__name__} cannot condition on finite losses")

    def moment(self, k: int, c: float = 0.0, absolute: bool = False,
               under: str = "P") -> float:
        """E[(L − c)^k] (or E|L − c|^k) under P or Q.

        The generic version sums the cells of ``interval_masses`` on a uniform grid of
        ``MOMENT_CELLS`` cells over ``loss_range()``, each at its conditional location
        log(κ/π): an approximation (``moment_method`` is None).
        """
        rng = self.loss_range()
        got = None if rng is None else self.interval_masses(
            np.linspace(rng[0], rng[1], MOMENT_CELLS + 1) if rng[1] > rng[0]
            else np.array([rng[0]]))
        if got is None:
            raise ValueError(f"{type(self).__name__} has no moments")
        kappa, pi, q_inf, p_neginf = got
        if q_inf > 0.0 or p_neginf > 0.0:
            raise ValueError("L has atoms at ±inf: split off the δ part first")
        live = (kappa > 0) & (pi > 0)
        loc = np.log(kappa[live]) - np.log(pi[live])
        w = (pi if under == "P" else kappa)[live]
        v = loc - c
        vals = np.abs(v) ** k if absolute else v ** k
        return float(np.sum(w * vals))

    def cumulants(self, under: str) -> tuple[float, float, float, float]:
        """(mean, variance, κ3, κ4) of L under ``under`` ∈ {"P", "Q"}, from central
        moments (no cancellation of raw moments)."""
        mean = self.moment(1, under=under)
        var = self.moment(2, mean, under=under)
        c3 = self.moment(3, mean, under=under)
        c4 = self.moment(4, mean, under=under)
        return mean, var, c3, c4 - 3.0 * var * var

    def functionals(self) -> tuple[float, float, float, float]:
        """(kl, κ2, κ3, κ̄3) = (−E_P L, E_P L², E_P|L|³, E_P|L − E_P L|³) (DRS §3.2)."""
        mean = self.moment(1)
        return (0.0 - mean + 0.0, self.moment(2), self.moment(3, absolute=True),
                self.moment(3, mean, absolute=True))

    def log_mgf(self, t: float, under: str = "Q") -> float | None:
        """log E[e^{tL}] under ``under``, or None where no closed form or exact sum is known."""
        return None

    def renyi(self, orders) -> np.ndarray | None:
        """D_α(Q ‖ P) = log E_Q e^{(α−1)L}/(α − 1) at each order α > 1 (Mironov 2017),
        or None when ``log_mgf`` is not known."""
        o = np.asarray(orders, dtype=float).ravel()
        vals = [self.log_mgf(float(a) - 1.0, under="Q") for a in o]
        if any(v is None for v in vals):
            return None
        out = np.array(vals, dtype=float) / (o - 1.0)
        return np.maximum(out, 0.0)   # D_α ≥ 0; round-off only below


def mirrored_moment(law: PrivacyLossLaw, k: int, c: float, absolute: bool) -> float:
    """E_Q[(L − c)^k] of a symmetric pair from its P-moments: L under Q has the law
    of −L under P when T(P, Q) = T(Q, P) and the pair is a reflection of itself.

    Parameters
    ----------
    law : PrivacyLossLaw
        A law of a symmetric pair, with P-moments.
    k : int
        The order.
    c : float
        The centre.
    absolute : bool
        E|L − c|^k instead of E(L − c)^k.

    Returns
    -------
    float
        The Q-moment.

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import mirrored_moment
    >>> print(f"{mirrored_moment(fdp.Gaussian(1.0).law(), 1, 0.0, False):.4f}")
    0.5000
    """
    return (1.0 if absolute or k % 2 == 0 else -1.0) * law.moment(k, -c, absolute, "P")


# ----------------------------------------------------------------------
# Finite laws
# ----------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class AtomsLaw(PrivacyLossLaw):
    """A finite law: losses ``L`` (±inf allowed) with P-masses ``p`` and Q-masses ``q``.

    Moments are exact sums (DRS §2: T(P, Q) of finite pairs is piecewise linear);
    the log-MGF is a log-sum-exp over the atoms.

    Parameters
    ----------
    L, p, q : ndarray
        Losses log(q/p), P-masses and Q-masses.
    method : str
        What ``moment_method`` reports ("exact sum"; "closed form" for Id).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import AtomsLaw
    >>> law = AtomsLaw(np.array([1.0, -1.0]), np.array([0.25, 0.75]),
    ...                np.array([0.75, 0.25]))
    >>> print(f"{law.moment(1, under='Q'):.4f}")
    0.5000
    """

    L: np.ndarray
    p: np.ndarray
    q: np.ndarray
    method: str = "exact sum"

    @property
    def moment_method(self) -> str:
        return self.method

    def interval_masses(self, edges) -> Masses:
        L, p, q = self.L, self.p, self.q
        fin = np.isfinite(L)
        kappa, pi = bin_atoms(edges, L[fin], p[fin], q[fin])
        q_inf = float(q[L == np.inf].sum())
        p_neginf = float(p[L == -np.inf].sum())
        return kappa, pi, q_inf, p_neginf

    def loss_range(self) -> tuple[float, float]:
        L = self.L[np.isfinite(self.L)]
        if L.size == 0:
            return 0.0, 0.0
        return float(L.min()), float(L.max())

    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        fin = np.isfinite(self.L)
        return self.L[fin], self.q[fin]

    def singular_masses(self) -> tuple[float, float]:
        return float(self.p[np.isneginf(self.L)].sum()), float(self.q[np.isposinf(self.L)].sum())

    def without_delta(self, delta: float) -> AtomsLaw:
        keep = 1.0 - delta
        if keep <= 0.0:
            return AtomsLaw(np.zeros(1), np.ones(1), np.ones(1), self.method)
        fin = np.isfinite(self.L)
        if delta == 0.0 and fin.all():
            return self
        return AtomsLaw(self.L[fin], self.p[fin] / keep, self.q[fin] / keep, self.method)

    def moment(self, k: int, c: float = 0.0, absolute: bool = False,
               under: str = "P") -> float:
        w = self.p if under == "P" else self.q
        v = self.L - c
        vals = np.abs(v) ** k if absolute else v ** k
        return float(np.sum(w * vals))

    def log_mgf(self, t: float, under: str = "Q") -> float:
        w = self.p if under == "P" else self.q
        live = w > 0
        with np.errstate(invalid="ignore", over="ignore"):
            x = t * self.L[live]
        x = np.where(np.isnan(x), 0.0, x)   # 0 · ±inf at t = 0
        return float(logsumexp(x, b=w[live]))


# ----------------------------------------------------------------------
# Laws built from other laws
# ----------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SwappedLaw(PrivacyLossLaw):
    """The law of T(Q, P) = T(P, Q)⁻¹ (DRS Lemma A.2): L ↦ −L with P and Q exchanged.

    Parameters
    ----------
    inner : PrivacyLossLaw
        The law of the pair (P, Q).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import AtomsLaw, SwappedLaw
    >>> law = SwappedLaw(AtomsLaw(np.array([1.0, -1.0]), np.array([0.25, 0.75]),
    ...                           np.array([0.75, 0.25])))
    >>> print(law.loss_range())
    (-1.0, 1.0)
    """

    inner: PrivacyLossLaw

    def interval_masses(self, edges) -> Masses | None:
        e = np.asarray(edges, dtype=float)
        got = self.inner.interval_masses(-e[::-1])
        if got is None:
            return None
        kappa, pi, q_inf, p_neginf = got
        return pi[::-1].copy(), kappa[::-1].copy(), p_neginf, q_inf

    def loss_range(self) -> tuple[float, float] | None:
        got = self.inner.loss_range()
        if got is None:
            return None
        return -got[1], -got[0]

    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        L, q = self.inner.atoms()
        return -L, p_masses(q, L)

    def loss_moments(self, under: str = "Q") -> tuple[float, float] | None:
        got = self.inner.loss_moments("P" if under == "Q" else "Q")
        if got is None:
            return None
        return -got[0], got[1]

    def log_mgf(self, t: float, under: str = "Q") -> float | None:
        return self.inner.log_mgf(-t, "P" if under == "Q" else "Q")


@dataclass(frozen=True, eq=False)
class SubsampledLaw(PrivacyLossLaw):
    """The law of T(P, (1 − p)P + pQ), the add direction of Poisson subsampling.

    L' = log(1 − p + p e^L) is increasing in L, so intervals of L' pull back to
    intervals of L, with κ' = (1 − p)π + pκ and π' = π (Zhu, Dong & Wang 2022,
    Thm 11; Koskela et al. 2020 for the subsampled Gaussian). An atom P(L = −∞) maps
    to the finite loss log(1 − p).

    Parameters
    ----------
    inner : PrivacyLossLaw
        The law of (P, Q).
    p : float
        The sampling probability in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import AtomsLaw, SubsampledLaw
    >>> inner = AtomsLaw(np.array([1.0, -1.0]), np.array([0.25, 0.75]),
    ...                  np.array([0.75, 0.25]))
    >>> lo, hi = SubsampledLaw(inner, 0.5).loss_range()
    >>> print(f"{lo:.4f} {hi:.4f}")
    -0.3799 0.6201
    """

    inner: PrivacyLossLaw
    p: float

    def interval_masses(self, edges) -> Masses | None:
        p = self.p
        if p == 0.0:
            return AtomsLaw(np.zeros(1), np.ones(1), np.ones(1)).interval_masses(edges)
        if p == 1.0:
            return self.inner.interval_masses(edges)
        e = np.asarray(edges, dtype=float)
        floor = np.log1p(-p)  # smallest loss of the mixture
        pulled = np.full(e.shape, -np.inf)
        big = e > 1.0
        # l = log((e^{l'} − 1 + p)/p); for large l' as l' + log1p((p − 1)e^{−l'}) − log p
        pulled[big] = e[big] + np.log1p((p - 1.0) * np.exp(-e[big])) - np.log(p)
        mid = (e > floor) & ~big
        pulled[mid] = np.log(np.expm1(e[mid]) + p) - np.log(p)
        got = self.inner.interval_masses(pulled)
        if got is None:
            return None
        kappa, pi, q_inf, p_neginf = got
        kappa = (1.0 - p) * pi + p * kappa
        if p_neginf > 0.0:  # inner atom L = −inf maps to the finite loss log(1 − p)
            k2, p2 = bin_atoms(e, np.array([floor]), np.array([p_neginf]),
                               np.array([(1.0 - p) * p_neginf]))
            kappa, pi = kappa + k2, pi + p2
        return kappa, pi, p * q_inf, 0.0

    def loss_range(self) -> tuple[float, float] | None:
        p = self.p
        if 0.0 < p < 1.0:
            special = self.inner.subsampled_loss_range(p)
            if special is not None:
                return special
        inner = self.inner.loss_range()
        if inner is None or self.inner.interval_masses(np.zeros(1)) is None:
            return None
        if p == 0.0:
            return 0.0, 0.0
        lo, hi = inner

        def push(x):
            return float(np.logaddexp(np.log1p(-p), np.log(p) + x)) if p < 1.0 else x
        return push(lo), push(hi)

    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        L, q = self.inner.atoms()
        p = self.p
        if p in (0.0, 1.0):
            return L, q
        return np.logaddexp(np.log1p(-p), np.log(p) + L), p * q + (1 - p) * p_masses(q, L)

    def loss_moments(self, under: str = "Q") -> tuple[float, float] | None:
        if not 0.0 < self.p < 1.0:
            return None
        return self.inner.subsampled_loss_moments(self.p, under)


@dataclass(frozen=True, eq=False)
class WithoutReplacementLaw(PrivacyLossLaw):
    """The law of C_p(f) for symmetric f (DRS Thm 4.2), from the add-direction law.

    The add-direction law on L > 0, its mirror image (P and Q swapped) on L < 0, and
    an atom at L = 0 of P- and Q-mass 1 − Q_add(L > 0) − P_add(L > 0) (the segment
    of slope −1 of the symmetrised envelope).

    Parameters
    ----------
    add : PrivacyLossLaw
        The law of T(P, (1 − p)P + pQ) (a ``SubsampledLaw`` of a symmetric pair).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import AtomsLaw, SubsampledLaw, WithoutReplacementLaw
    >>> inner = AtomsLaw(np.array([1.0, -1.0]), np.array([0.25, 0.75]),
    ...                  np.array([0.75, 0.25]))
    >>> law = WithoutReplacementLaw(SubsampledLaw(inner, 0.5))
    >>> kappa, pi, q_inf, p_neginf = law.interval_masses(np.array([-0.1, 0.1]))
    >>> print(f"{kappa.sum():.4f} {pi.sum():.4f}")
    1.0000 1.0000
    """

    add: PrivacyLossLaw

    def interval_masses(self, edges) -> Masses | None:
        e = np.asarray(edges, dtype=float)
        pos = np.unique(np.concatenate([[0.0], np.abs(e)]))
        got = self.add.interval_masses(pos)
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
        kappa, pi = bin_atoms(e, L, P, Q)
        return kappa, pi, q_inf_add, q_inf_add

    def loss_range(self) -> tuple[float, float] | None:
        inner = self.add.loss_range()
        if inner is None:
            return None
        r = max(abs(inner[0]), abs(inner[1]))
        return -r, r


@dataclass(frozen=True, eq=False)
class MixtureLaw(PrivacyLossLaw):
    """The w-mixture of laws: the pair (Σ wᵢPᵢ, Σ wᵢQᵢ) with the member revealed.

    The loss of the revealed mixture is the member's loss, so κ = Σᵢ wᵢκᵢ,
    π = Σᵢ wᵢπᵢ, atoms likewise; the range is the union of the members' ranges.

    Parameters
    ----------
    weights : tuple of float
        Mixture weights (summing to 1).
    members : tuple of PrivacyLossLaw
        The members' laws.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import AtomsLaw, MixtureLaw
    >>> a = AtomsLaw(np.zeros(1), np.ones(1), np.ones(1))
    >>> b = AtomsLaw(np.array([1.0, -1.0]), np.array([0.25, 0.75]), np.array([0.75, 0.25]))
    >>> print(MixtureLaw((0.5, 0.5), (a, b)).loss_range())
    (-1.0, 1.0)
    """

    weights: tuple
    members: tuple

    def interval_masses(self, edges) -> Masses | None:
        total = None
        for w, m in zip(self.weights, self.members):
            got = m.interval_masses(edges)
            if got is None:
                return None
            k, p, qi, pn = got
            part = (w * np.asarray(k), w * np.asarray(p), w * qi, w * pn)
            total = part if total is None else tuple(a + b for a, b in zip(total, part))
        return total

    def loss_range(self) -> tuple[float, float] | None:
        return _union_range(self.members)

    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        locs, masses = [], []
        for w, m in zip(self.weights, self.members):
            L, q = m.atoms()
            locs.append(np.asarray(L, dtype=float))
            masses.append(w * np.asarray(q, dtype=float))
        return np.concatenate(locs), np.concatenate(masses)


@dataclass(frozen=True, eq=False)
class EnvelopeLaw(PrivacyLossLaw):
    """The members of min{f_1, …, f_m}** (the two-direction envelope, DRS Thm 4.2).

    Not one pair: ``interval_masses`` is None (the engine discretises each member
    and takes the envelope of the results); ``loss_range`` is the union of the
    members' ranges.

    Parameters
    ----------
    members : tuple of PrivacyLossLaw or None
        The members' laws (None for a member without a law).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import AtomsLaw, EnvelopeLaw, SwappedLaw
    >>> a = AtomsLaw(np.array([2.0, -1.0]), np.array([0.25, 0.75]), np.array([0.75, 0.25]))
    >>> print(EnvelopeLaw((a, SwappedLaw(a))).loss_range())
    (-2.0, 2.0)
    """

    members: tuple = field(default=())

    def interval_masses(self, edges) -> None:
        return None

    def loss_range(self) -> tuple[float, float] | None:
        return _union_range(self.members)


def _union_range(laws) -> tuple[float, float] | None:
    if any(m is None for m in laws):
        return None
    ranges = [m.loss_range() for m in laws]
    if any(r is None for r in ranges):
        return None
    return min(r[0] for r in ranges), max(r[1] for r in ranges)


# ----------------------------------------------------------------------
# Readers: the law of a trade-off function, through its ``law()`` method
# ----------------------------------------------------------------------
def interval_masses_of(f, edges) -> Masses | None:
    """``f.law().interval_masses(edges)``, or None when f has no law.

    Parameters
    ----------
    f : TradeOff
        Any object with a ``law()`` method.
    edges : array_like
        Sorted finite edges.

    Returns
    -------
    tuple or None
        (κ, π, Q(L = +∞), P(L = −∞)).

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import interval_masses_of
    >>> kappa, pi, q_inf, p_neginf = interval_masses_of(fdp.Gaussian(1.0), [0.0])
    >>> print(f"{kappa.sum():.4f} {pi[0]:.4f}")
    1.0000 0.6915
    """
    law = f.law()
    return None if law is None else law.interval_masses(edges)


def loss_range_of(f) -> tuple[float, float] | None:
    """``f.law().loss_range()``, or None when f has no law.

    Parameters
    ----------
    f : TradeOff
        Any object with a ``law()`` method.

    Returns
    -------
    tuple or None
        (lo, hi).

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import loss_range_of
    >>> print(loss_range_of(fdp.Laplace(1.0)))
    (-1.0, 1.0)
    """
    law = f.law()
    return None if law is None else law.loss_range()


def atoms_of(f) -> tuple[np.ndarray, np.ndarray]:
    """``f.law().atoms()``; no atoms when f has no law.

    Parameters
    ----------
    f : TradeOff
        Any object with a ``law()`` method.

    Returns
    -------
    (ndarray, ndarray)
        Locations and Q-masses of the finite point masses.

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import atoms_of
    >>> L, q = atoms_of(fdp.Laplace(1.0))
    >>> print(L)
    [ 1. -1.]
    """
    law = f.law()
    return (np.zeros(0), np.zeros(0)) if law is None else law.atoms()


def loss_moments_of(f) -> tuple[float, float] | None:
    """``f.law().loss_moments("Q")``, or None.

    Parameters
    ----------
    f : TradeOff
        Any object with a ``law()`` method.

    Returns
    -------
    tuple or None
        (mean, variance) of L under Q when cheaply known.

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import loss_moments_of
    >>> print(loss_moments_of(fdp.Gaussian(2.0)))
    (2.0, 4.0)
    """
    law = f.law()
    return None if law is None else law.loss_moments("Q")
