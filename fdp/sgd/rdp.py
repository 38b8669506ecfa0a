"""The ε of DP-SGD by the Rényi accountant, beside the certified one.

The Rényi accountant (Abadi et al. 2016; Mironov, Talwar & Zhang 2019) composes the
RDP of the Poisson-subsampled Gaussian over the steps and converts to (ε, δ) at the
best order. It is valid (an upper bound on ε) but not tight; the f-DP accountant
``fdp.dpsgd`` is. ``dpsgd_rdp_epsilon`` is the one name for this question: the
formulas it composes are ``fdp.classical.rdp.rdp_subsampled_gaussian`` and
``fdp.classical.rdp.rdp_to_epsilon``; it takes the parameter names of ``dpsgd`` and
its ``sensitivity`` convention (the subsampled Gaussian's RDP depends on σ/s only).
"""

from __future__ import annotations

from fdp import _validate
from fdp._types import ArrayLike
from fdp.classical.rdp import (
    DEFAULT_ORDERS,
    Conversion,
    RDPEpsilon,
    rdp_subsampled_gaussian,
    rdp_to_epsilon,
)
from fdp.sgd.certified import resolve_sensitivity


def dpsgd_rdp_epsilon(noise_multiplier: float, sample_rate: float, steps: float,
                      delta: float, *, sensitivity: float | None = None,
                      orders: ArrayLike | None = None,
                      conversion: Conversion = "improved") -> RDPEpsilon:
    """ε of Poisson-sampled DP-SGD (add/remove neighbours) by the Rényi accountant.

    ρ(λ) = T · log A_λ / (λ − 1), the RDP of the Poisson-subsampled Gaussian with noise
    multiplier σ/s and rate q (Mironov, Talwar & Zhang 2019, §3.3), composed over T
    steps, then ε = min over the orders of the conversion at ``delta``:

    * ``"improved"`` (default): ε = ρ(λ) + log(1 − 1/λ) − (log δ + log λ)/(λ − 1)
      (Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020, Prop 12), never
      larger than Mironov's at any order;
    * ``"mironov"``: ε = ρ(λ) + log(1/δ)/(λ − 1) (Mironov 2017, Prop 3), the moments
      accountant of Abadi et al. (2016). Bu et al. (2020) report this conversion on the
      orders ``fdp.classical.BU_ORDERS``; pass both to reproduce their numbers.

    Every ρ and ε is rounded up, so the result is a proven upper bound on ε.

    Parameters
    ----------
    noise_multiplier, sample_rate, steps, delta, sensitivity
        As in ``fdp.dpsgd`` (Poisson, s default 1), δ ∈ (0, 1); fractional T is allowed
        (RDP is linear in T; Bu et al. count epochs · n / batch).
    orders : array_like, optional
        Rényi orders λ > 1 (default ``fdp.classical.DEFAULT_ORDERS``: steps of 0.05
        up to 6, 0.5 up to 64, then geometric up to 1024).
    conversion : {"improved", "mironov"}, optional
        The RDP → (ε, δ) conversion. Returns ``(epsilon, order)``: the upper ε and the
        order that attains it.

    Examples
    --------
    >>> from fdp.sgd import dpsgd_rdp_epsilon
    >>> r = dpsgd_rdp_epsilon(1.1, 0.01, 100, 1e-5)
    >>> print(f"{r.epsilon:.4f} at order {r.order:g}")
    0.9610 at order 10.5

    Bu et al. (2020)'s moments accountant, MNIST, σ = 1.3, 15 epochs:

    >>> from fdp.classical import BU_ORDERS
    >>> r = dpsgd_rdp_epsilon(1.3, 256 / 60000, 15 * 60000 / 256, 1e-5,
    ...                       orders=BU_ORDERS, conversion="mironov")
    >>> print(f"{r.epsilon:.4f}")
    1.1912
    """
    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    q = _validate.probability("sample_rate", sample_rate)
    t = _validate.real("steps", steps, low=0.0)
    if conversion not in ("improved", "mironov"):
        raise ValueError(f"conversion must be 'improved' or 'mironov', got {conversion!r}")
    s = resolve_sensitivity(sensitivity, "add_remove")
    o = DEFAULT_ORDERS if orders is None else orders
    rdp = rdp_subsampled_gaussian(o, q, sigma / s, t)
    return rdp_to_epsilon(o, rdp, delta, conversion)


__all__ = ["RDPEpsilon", "dpsgd_rdp_epsilon"]
