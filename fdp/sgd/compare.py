"""Certified, CLT and Rényi accounting of one DP-SGD run, side by side.

``compare_accountants`` answers "what ε does this run have at δ?" with the certified
f-DP accountant ``dpsgd`` (a bracket containing the true ε), the CLT limit
``dpsgd_clt_mu`` (an approximation that can under-report ε) and the Rényi accountant
``dpsgd_rdp_epsilon`` (valid but loose, Poisson sampling only), under the same
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

    The other fields are the run (``noise_multiplier`` … ``sensitivity``) and the CLT
    ``clt_mu``.

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

    The parameters are ``fdp.dpsgd``'s (T ≥ 1; "poisson" or "without_replacement", the
    Rényi column NaN for the latter; ``sensitivity`` used by all three), with the target
    δ ∈ (0, 1).

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
