"""Factors given by finitely many atoms that bound them: the engine's hook for laws it
cannot read from a ``TradeOff`` (``Prebuilt``, composed by ``composition.compose``).
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fdp.engine.connect_dots import spread
from fdp.engine.contraction import contract_masses
from fdp.engine.discretise import discretise
from fdp.engine.lattice import Lattice
from fdp.tradeoff import TradeOff

#: Atoms below the LOSS_TAIL quantile of the Q-mass (and above 1 − LOSS_TAIL) fall into
#: the two end cells of the gridded range, which the discretisers move to the safe side.
LOSS_TAIL = 1e-30


@dataclass(frozen=True, eq=False)
class Atoms:
    """A finite pair by its atoms: finite losses l_j (any order) with Q- and P-masses
    (q_j = e^{l_j} p_j up to rounding), the Q-mass ``q_inf`` at +∞, the P-mass
    ``p_neginf`` at −∞ and the ℓ1 error ``slack`` of the masses (added to the δ-slack).

    Examples
    --------
    >>> import numpy as np
    >>> from fdp.engine import Atoms
    >>> a = Atoms(np.array([-1.0, 1.0]), np.array([0.25, 0.75]), np.array([0.75, 0.25]))
    >>> a.losses.tolist(), a.q_inf
    ([-1.0, 1.0], 0.0)
    """

    losses: np.ndarray
    q: np.ndarray
    p: np.ndarray
    q_inf: float = 0.0
    p_neginf: float = 0.0
    slack: float = 0.0


Sides = tuple[Atoms, Atoms]


@dataclass(frozen=True, eq=False)
class Prebuilt:
    """A composition factor bounded by its caller: ``add`` = T(P, Q) and ``remove`` = T(Q, P),
    each as (pessimistic, optimistic) ``Atoms``, or ``add`` a symmetric ``TradeOff`` the
    engine discretises itself (``remove`` None).

    ``variance`` (of the loss under Q, positive, finite) sets the grid step
    (``grid.variance_step``): the engine cannot read a law from atoms. ``ValueError`` for a
    missing ``remove`` with atoms, a ``remove`` with a TradeOff that is not symmetric, or a
    bad variance.

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine import Prebuilt
    >>> type(Prebuilt(fdp.Gaussian(1.0), None, 1.0).add).__name__
    'Gaussian'
    """

    add: Sides | TradeOff
    remove: Sides | None
    variance: float

    def __post_init__(self) -> None:
        if isinstance(self.add, TradeOff):
            if self.remove is not None or not self.add.symmetric:
                raise ValueError("a TradeOff factor of Prebuilt must be symmetric "
                                 "(f⁻¹ = f), with remove=None")
        elif self.remove is None:
            raise ValueError("Prebuilt atoms need both directions (add and remove)")
        if not (math.isfinite(self.variance) and self.variance > 0.0):
            raise ValueError(f"variance must be positive and finite, got {self.variance!r}")

    def lattices(self, step: float) -> tuple[tuple[Lattice, Lattice], tuple[Lattice, Lattice]]:
        """((add_p, add_o), (rem_p, rem_o)) on the lattice ΔZ, Δ = ``step``."""
        if isinstance(self.add, TradeOff):
            both = discretise(self.add, step)
            return both, both
        assert self.remove is not None
        return _sides(self.add, step), _sides(self.remove, step)


def _sides(sides: Sides, step: float) -> tuple[Lattice, Lattice]:
    pess, opt = sides
    kappa, pi, kmin = _cells(pess.losses, pess.q, pess.p, step)
    lp = _with_slack(spread(kappa, pi, pess.q_inf, kmin, step, pess.p_neginf), pess.slack)
    kappa, pi, kmin = _cells(opt.losses, opt.q, opt.p, step)
    lo = _with_slack(contract_masses(kappa, pi, opt.q_inf, kmin, step), opt.slack)
    return lp, lo


def _cells(loss: np.ndarray, qmass: np.ndarray, pmass: np.ndarray,
           step: float) -> tuple[np.ndarray, np.ndarray, int]:
    """(kappa, pi, kmin) of atoms (loss, Q-mass, P-mass) for the discretisers: cells of
    the lattice ΔZ between the LOSS_TAIL quantiles of Q, below/above in the ends."""
    order = np.argsort(loss)
    loss, qmass, pmass = loss[order], qmass[order], pmass[order]
    cq = np.cumsum(qmass)
    total = cq[-1]
    lo_i = int(np.searchsorted(cq, LOSS_TAIL * total, side="right"))
    hi_i = int(np.searchsorted(cq, total - LOSS_TAIL * total, side="left"))
    lo_i = min(lo_i, loss.size - 1)
    hi_i = min(max(hi_i, lo_i), loss.size - 1)
    kmin = math.floor(loss[lo_i] / step) - 1
    kmax = max(math.floor(loss[hi_i] / step) + 2, kmin + 2)
    K = kmax - kmin
    c = np.floor(loss / step).astype(np.int64) - kmin + 1
    c = np.clip(c, 0, K + 1)
    kappa = np.bincount(c, weights=qmass, minlength=K + 2)
    pi = np.bincount(c, weights=pmass, minlength=K + 2)
    return kappa, pi, kmin


def _with_slack(lat: Lattice, slack: float) -> Lattice:
    return Lattice(lat.step, lat.k0, lat.q, lat.q_inf, lat.slack + slack, lat.side)


__all__ = ["Atoms", "Prebuilt"]
