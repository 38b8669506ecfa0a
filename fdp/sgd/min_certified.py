"""The Rényi bound of Poisson DP-SGD, the second certified upper bound ``fdp.dpsgd``
reports beside the f-DP engine's (``fdp.operations.min_certified.MinCertified``).

For Poisson sampling at rate q with add/remove neighbours, one step with noise
multiplier σ and sensitivity s has ρ(λ) = log A_λ/(λ − 1) at σ/s (Mironov, Talwar &
Zhang 2019, §3.3, who show A_λ ≥ B_λ: the remove direction is no larger than the add
direction), a proven upper bound at every order (``fdp.classical.rdp``: exact
integer-order sums and fractional-order series with their remainders, rounding
included); a run with n_g steps at each (σ_g, q_g) has ρ(λ) ≤ Σ_g n_g ρ_g(λ)
(Mironov 2017, Prop 1).

The curve bounds both directions of the run, hence the δ(ε) of its one-sided
symmetrisation (what ``fdp.dpsgd`` reads), but not the Rényi divergence of that
symmetrised curve's own pair: a composition of ``fdp.dpsgd`` results does not add it
(``MinCertified.renyi_composes``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp._types import ArrayLike
from fdp.classical.rdp import rdp_subsampled_gaussian
from fdp.operations.rdp_bound import RDPBound

#: Rényi orders used for DP-SGD: close to 1 (huge T), then every integer to 64, then
#: geometric integers to 4096 (tiny δ).
DPSGD_ORDERS = np.unique(np.concatenate([
    1.0 + np.geomspace(1e-4, 0.75, 24),
    np.arange(2.0, 65.0),
    np.round(np.geomspace(72.0, 4096.0, 24)),
]))
DPSGD_ORDERS.setflags(write=False)

#: The Rényi bound is attached when the run has at most this many distinct (σ, q).
MAX_RDP_GROUPS = 16

RDP_SOURCE = ("RDP of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang 2019), "
              "converted by Canonne, Kamath & Steinke 2020, Prop 12")

_U = 2.0 ** -53


def poisson_gaussian_rdp(counts: dict[tuple[float, float], int], sensitivity: float = 1.0,
                         orders: ArrayLike = DPSGD_ORDERS) -> RDPBound:
    """Σ over the groups of n · ρ_{σ/s, q}(λ) for ``counts`` {(σ, q): n}, rounded up.

    ``sensitivity`` s > 0 (1 for add/remove); ``orders`` λ > 1 (default ``DPSGD_ORDERS``).

    Examples
    --------
    >>> from fdp.sgd.min_certified import poisson_gaussian_rdp
    >>> b = poisson_gaussian_rdp({(1.0, 0.01): 1000})
    >>> eps, order = b.epsilon(1e-5)
    >>> print(f"{eps[0]:.3f} at order {order[0]:g}")
    2.108 at order 8
    """
    o = np.asarray(orders, dtype=float)
    total = np.zeros(o.shape)
    for (sigma, q), n in counts.items():
        total = total + rdp_subsampled_gaussian(o, q, sigma / sensitivity, n)
    total = total * (1.0 + 4.0 * _U * len(counts))      # the sum rounded up
    return RDPBound(tuple(float(x) for x in o), tuple(float(x) for x in total), RDP_SOURCE)


@dataclass(frozen=True)
class PoissonGaussianRDP:
    """The recipe of ``poisson_gaussian_rdp(counts, sensitivity)``: what ``fdp.dpsgd``
    attaches to its result, so that the Rényi curve is computed only when a read needs
    it (``fdp.operations.min_certified.MinCertified``). Compared by value; pickles.

    ``counts`` holds the run's groups (σ, q, n): n steps at noise multiplier σ and rate q.

    Examples
    --------
    >>> from fdp.sgd.min_certified import PoissonGaussianRDP, poisson_gaussian_rdp
    >>> PoissonGaussianRDP(((1.0, 0.01, 1000),)).bound() == poisson_gaussian_rdp(
    ...     {(1.0, 0.01): 1000})
    True
    """

    counts: tuple[tuple[float, float, int], ...]
    sensitivity: float = 1.0

    def bound(self) -> RDPBound:
        """The certified Rényi curve, ``poisson_gaussian_rdp``.

        Returns
        -------
        RDPBound
        """
        return poisson_gaussian_rdp({(s, q): n for s, q, n in self.counts}, self.sensitivity)


__all__ = ["DPSGD_ORDERS", "MAX_RDP_GROUPS", "RDP_SOURCE", "PoissonGaussianRDP",
           "poisson_gaussian_rdp"]
