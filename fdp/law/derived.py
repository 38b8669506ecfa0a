"""Laws built from other laws: the swapped pair of f⁻¹ (DRS Lemma A.2), Poisson
subsampling (Zhu, Dong & Wang 2022), sampling without replacement (DRS Thm 4.2),
mixtures with the member revealed, and the two-direction envelope."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from fdp._types import ArrayLike
from fdp.law.base import AtomsLaw, Masses, PrivacyLossLaw, bin_atoms, p_masses


# -- Laws built from other laws
@dataclass(frozen=True, eq=False)
class SwappedLaw(PrivacyLossLaw):
    """The law of T(Q, P) = T(P, Q)⁻¹ (DRS Lemma A.2): L ↦ −L with P and Q exchanged.

    ``inner``: the law of the pair (P, Q).

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

    def interval_masses(self, edges: ArrayLike) -> Masses | None:
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

    ``inner``: the law of (P, Q); ``p``: the sampling probability in [0, 1].

    L' = log(1 − p + p e^L) is increasing in L, so intervals of L' pull back to
    intervals of L, with κ' = (1 − p)π + pκ and π' = π (Zhu, Dong & Wang 2022,
    Thm 11; Koskela et al. 2020 for the subsampled Gaussian). An atom P(L = −∞) maps
    to the finite loss log(1 − p).

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

    def interval_masses(self, edges: ArrayLike) -> Masses | None:
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
        with np.errstate(divide="ignore"):    # an edge rounding onto the floor pulls to −inf
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

        def push(x: float) -> float:
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

    ``add``: the law of T(P, (1 − p)P + pQ) (a ``SubsampledLaw`` of a symmetric pair).

    The add-direction law on L > 0, its mirror image (P and Q swapped) on L < 0, and
    an atom at L = 0 of P- and Q-mass 1 − Q_add(L > 0) − P_add(L > 0) (the segment
    of slope −1 of the symmetrised envelope).

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

    def interval_masses(self, edges: ArrayLike) -> Masses | None:
        e = np.asarray(edges, dtype=float)
        pos = np.unique(np.concatenate([[0.0], np.abs(e)]))
        got = self.add.interval_masses(pos)
        if got is None:
            return None
        k_add, p_add, q_inf_add, _ = got
        # intervals of `pos` above 0: [pos_i, pos_{i+1}), the last the open tail
        k_pos, p_pos = k_add[1:], p_add[1:]
        middle = 1.0 - (k_pos.sum() + q_inf_add) - p_pos.sum()
        # each cell binned through one point inside it (docs/derivations/laws.md)
        left = pos
        right = np.append(pos[1:], np.inf)
        top = np.nextafter(right, -np.inf)          # the largest double inside the cell
        inside = np.where(np.isinf(right), left + 1.0 + np.abs(left), 0.5 * (left + right))
        live = (k_pos > 0) & (p_pos > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            loc = np.log(k_pos) - np.log(p_pos)
        loc = np.where(live, np.clip(loc, left, top), np.clip(inside, left, top))
        some = (k_pos > 0) | (p_pos > 0)
        loc, kk, pp = loc[some], k_pos[some], p_pos[some]
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

    ``weights``: mixture weights (summing to 1); ``members``: the members' laws.

    The loss of the revealed mixture is the member's loss, so κ = Σᵢ wᵢκᵢ,
    π = Σᵢ wᵢπᵢ, atoms likewise; the range is the union of the members' ranges.

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
    members: tuple[PrivacyLossLaw, ...]

    def interval_masses(self, edges: ArrayLike) -> Masses | None:
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

    ``members``: the members' laws (None for a member without a law).

    Not one pair: ``interval_masses`` is None (the engine discretises each member
    and takes the envelope of the results); ``loss_range`` is the union of the
    members' ranges.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.law import AtomsLaw, EnvelopeLaw, SwappedLaw
    >>> a = AtomsLaw(np.array([2.0, -1.0]), np.array([0.25, 0.75]), np.array([0.75, 0.25]))
    >>> print(EnvelopeLaw((a, SwappedLaw(a))).loss_range())
    (-2.0, 2.0)
    """

    members: tuple[PrivacyLossLaw | None, ...] = field(default=())

    def interval_masses(self, edges: ArrayLike) -> None:
        return None

    def loss_range(self) -> tuple[float, float] | None:
        return _union_range(self.members)


def _union_range(laws: Sequence[PrivacyLossLaw | None]) -> tuple[float, float] | None:
    present = [m for m in laws if m is not None]
    if len(present) < len(laws):
        return None
    ranges = [r for m in present if (r := m.loss_range()) is not None]
    if len(ranges) < len(present):
        return None
    return min(r[0] for r in ranges), max(r[1] for r in ranges)
