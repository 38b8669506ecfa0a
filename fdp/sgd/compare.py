"""Certified, CLT and Rényi accounting of one DP-SGD run, side by side.

Three accountants answer "what ε does this training run have at δ?":

* the certified f-DP accountant ``dpsgd`` (a bracket that contains the true ε);
* the CLT limit ``dpsgd_clt_mu`` (Bu, Dong, Long & Su 2020; Dong, Roth & Su 2022,
  §5), an approximation that can under-report ε;
* the Rényi accountant ``dpsgd_rdp_epsilon`` (Mironov, Talwar & Zhang 2019), a
  valid but loose upper bound (Poisson sampling only; improved conversion on its
  default orders).

``compare_accountants`` computes all three for the same run, under the same
neighbouring relation and sensitivity, so the table reads straight across.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fdp.sgd.clt import NEIGHBOURING, compare_dpsgd_clt
from fdp.sgd.rdp import dpsgd_rdp_epsilon


@dataclass(frozen=True)
class AccountantComparison:
    """ε of one DP-SGD run by the three accountants (NaN where one does not apply).

    ``epsilon_lower``/``epsilon_upper`` is the certified bracket (a guarantee);
    ``clt_epsilon`` an approximation (NOT a bound); ``rdp_epsilon`` a valid upper
    bound (Poisson sampling only), attained at Rényi order ``rdp_order``.

    Parameters
    ----------
    noise_multiplier, sample_rate, steps, delta, sampling, sensitivity
        The run and the assumptions it was accounted under.
    epsilon_lower, epsilon_upper : float
        The certified ε bracket.
    clt_mu, clt_epsilon : float
        The CLT μ and ε (approximation).
    rdp_epsilon, rdp_order : float
        The Rényi ε and its order (NaN unless Poisson sampling).

    Examples
    --------
    >>> from fdp.sgd import compare_accountants
    >>> c = compare_accountants(1.0, 0.01, 10, 1e-5, tol=1e-2)
    >>> print(f"{c.epsilon_upper:.3f}")
    0.380
    """

    noise_multiplier: float
    sample_rate: float
    steps: int
    delta: float
    sampling: str
    sensitivity: float
    epsilon_lower: float
    epsilon_upper: float
    clt_mu: float
    clt_epsilon: float
    rdp_epsilon: float
    rdp_order: float

    def __str__(self) -> str:
        rdp = ("n/a" if math.isnan(self.rdp_epsilon)
               else f"{self.rdp_epsilon:.4f} (order {self.rdp_order:g})")
        return (f"DP-SGD sigma={self.noise_multiplier:g}, q={self.sample_rate:.6g}, "
                f"T={self.steps}, delta={self.delta:g}, {self.sampling}: certified eps in "
                f"[{self.epsilon_lower:.4f}, {self.epsilon_upper:.4f}]; CLT eps "
                f"{self.clt_epsilon:.4f} (approximation); RDP eps {rdp}")


def compare_accountants(noise_multiplier: float, sample_rate: float, steps: int,
                        delta: float = 1e-5, *,
                        sampling: str = "poisson", sensitivity: float | None = None,
                        tol: float | None = None) -> AccountantComparison:
    """ε of a DP-SGD run by the certified, the CLT and the Rényi accountant.

    Parameters
    ----------
    noise_multiplier : float
        σ > 0: noise standard deviation σ·C on the clipped gradient sum.
    sample_rate : float
        q ∈ [0, 1].
    steps : int
        Number of steps T ≥ 1.
    delta : float
        Target δ in (0, 1).
    sampling : str
        "poisson" (add/remove neighbours) or "without_replacement" (replace-one); the
        Rényi column is computed for "poisson" only (NaN otherwise).
    sensitivity : float, optional
        Sensitivity of the clipped gradient sum in clipping norms (default 1 for
        add/remove, 2 for replace-one), used by all three accountants.
    tol : float, optional
        Engine grid accuracy of the certified accountant (as in ``dpsgd``).

    Examples
    --------
    >>> from fdp.sgd import compare_accountants
    >>> c = compare_accountants(1.0, 0.01, 10, 1e-5, tol=1e-2)
    >>> bool(c.epsilon_lower <= c.epsilon_upper <= c.rdp_epsilon)
    True
    """
    clt = compare_dpsgd_clt(noise_multiplier, sample_rate, steps, delta, sampling=sampling,
                            tol=tol, sensitivity=sensitivity)
    rdp_eps = rdp_order = math.nan
    if NEIGHBOURING[sampling] == "add_remove":
        r = dpsgd_rdp_epsilon(noise_multiplier, sample_rate, clt.steps, clt.delta,
                              sensitivity=clt.sensitivity)
        rdp_eps, rdp_order = float(r.epsilon), float(r.order)
    return AccountantComparison(clt.noise_multiplier, clt.sample_rate, clt.steps, clt.delta,
                                sampling, clt.sensitivity, clt.epsilon_lower,
                                clt.epsilon_upper, clt.clt_mu, clt.clt_epsilon, rdp_eps,
                                rdp_order)
