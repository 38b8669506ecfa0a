"""The privacy-loss law base class, finite laws, and the helpers every law uses.

See the package docstring of ``fdp.law`` for the interface and its sources.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from fdp._types import ArrayLike

Masses = tuple[np.ndarray, np.ndarray, float, float]

#: Cells of the generic moment fallback (``PrivacyLossLaw.moment``).
MOMENT_CELLS = 20000


def p_masses(q: np.ndarray, L: np.ndarray) -> np.ndarray:
    """P-masses q·e^{−L} of Q-masses q at losses L (broadcast), formed as e^{log q − L}: never
    overflows, 0 where q is 0.

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


def intervals(edges: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``(left, right)`` = (−∞, e_0, …, e_K), (e_0, …, e_K, +∞): the K + 2 intervals around
    sorted finite ``edges`` e_0 < … < e_K.

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


def bin_atoms(edges: ArrayLike, L: ArrayLike, p: ArrayLike,
              q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``(kappa, pi)``, each of length K + 2: Q- and P-masses of point atoms at finite losses
    ``L`` with P-masses ``p`` and Q-masses ``q`` in the intervals around sorted ``edges``
    (an atom at an edge belongs to the interval that starts there).

    Examples
    --------
    >>> from fdp.law import bin_atoms
    >>> kappa, pi = bin_atoms([0.0], [-1.0, 0.0], [0.7, 0.3], [0.3, 0.7])
    >>> print(kappa, pi)
    [0.3 0.7] [0.7 0.3]
    """
    e = np.asarray(edges, dtype=float)
    idx = np.searchsorted(e, L, side="right")
    n = len(e) + 1
    return np.bincount(idx, weights=q, minlength=n), np.bincount(idx, weights=p, minlength=n)


def split_delta(p_neginf: float, q_inf: float, *, rtol: float, atol: float) -> float | None:
    """The δ of a pair that factors as g ⊗ f_{0,δ}, or ``None`` when it does not.

    A pair with P(L = −∞) = Q(L = +∞) = δ is g ⊗ f_{0,δ}, g(x) = f((1 − δ)x)/(1 − δ)
    (DRS §3.3). The masses count as equal when |a − b| ≤ atol + rtol·max(a, b); δ is then
    the larger one (the safe side; 0.0 when both are 0).

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


# -- The base class
class PrivacyLossLaw:
    """The law of the privacy loss L = log(dQ/dP) of a pair (P, Q) under P and Q.

    Subclasses implement ``interval_masses`` and ``loss_range``; the defaults are no atoms,
    moments by the midpoint rule over ``MOMENT_CELLS`` cells (``moment_method = None``: an
    approximation) and no log-MGF. A new family subclasses it in its own file (as
    ``GaussianLaw`` in ``fdp.families.gaussian``) and returns it from ``TradeOff.law()``.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import PrivacyLossLaw, bin_atoms
    >>> class Coin(PrivacyLossLaw):      # L = ±1, P(L = 1) = 1/(1 + e), Q(L = 1) = e/(1 + e)
    ...     def interval_masses(self, edges):
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

    def interval_masses(self, edges: ArrayLike) -> Masses | None:
        """(κ, π, Q(L = +∞), P(L = −∞)) on the K + 2 intervals around sorted finite ``edges``
        e_0 < … < e_K (``intervals``); ``None`` when the law is not one pair (``EnvelopeLaw``)."""
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

    #: True when ``renyi`` returns proven upper bounds on D_α (rounding included), so
    #: that a Rényi accountant may compose it (``fdp.operations.rdp_bound``); the
    #: default ``renyi`` below is a computed value, not a bound.
    renyi_is_upper_bound = False

    def renyi(self, orders: ArrayLike) -> np.ndarray | None:
        """D_α(Q ‖ P) = log E_Q e^{(α−1)L}/(α − 1) at each order α > 1 (Mironov 2017),
        or None when ``log_mgf`` is not known."""
        o = np.asarray(orders, dtype=float).ravel()
        vals = [self.log_mgf(float(a) - 1.0, under="Q") for a in o]
        if any(v is None for v in vals):
            return None
        out = np.array(vals, dtype=float) / (o - 1.0)
        return np.maximum(out, 0.0)   # D_α ≥ 0; round-off only below


def mirrored_moment(law: PrivacyLossLaw, k: int, c: float, absolute: bool) -> float:
    """E_Q[(L − c)^k] (or E_Q|L − c|^k with ``absolute``) of a symmetric pair from its
    P-moments: L under Q has the law of −L under P when T(P, Q) = T(Q, P).

    Examples
    --------
    >>> import fdp
    >>> from fdp.law import mirrored_moment
    >>> print(f"{mirrored_moment(fdp.Gaussian(1.0).law(), 1, 0.0, False):.4f}")
    0.5000
    """
    return (1.0 if absolute or k % 2 == 0 else -1.0) * law.moment(k, -c, absolute, "P")


# -- Finite laws
@dataclass(frozen=True, eq=False)
class AtomsLaw(PrivacyLossLaw):
    """A finite law: losses ``L`` (±inf allowed) with P-masses ``p`` and Q-masses ``q``.

    ``L, p, q``: losses log(q/p), P-masses and Q-masses; ``method``: what ``moment_method`` reports
    ("exact sum"; "closed form" for Id).

    Moments are exact sums (DRS §2: T(P, Q) of finite pairs is piecewise linear);
    the log-MGF is a log-sum-exp over the atoms.

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

    def interval_masses(self, edges: ArrayLike) -> Masses:
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
