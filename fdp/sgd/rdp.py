"""Rényi-DP (moments accountant) numbers of DP-SGD, beside the certified ones.

The Rényi accountant (Abadi et al. 2016; Mironov, Talwar & Zhang 2019) composes the
RDP of the Poisson-subsampled Gaussian over the steps and converts to (ε, δ) at the
best order. It is valid (an upper bound on ε) but not tight; the f-DP accountant
``fdp.sgd.dpsgd`` is. The formulas live in ``fdp.classical.rdp``; this module is
their DP-SGD face, with the same parameter names as ``dpsgd`` and the same
``sensitivity`` convention (the subsampled Gaussian's RDP depends on σ/s only).
"""

from __future__ import annotations

from fdp import _validate
from fdp.classical.rdp import RDPEpsilon, moments_accountant_epsilon
from fdp.sgd.certified import resolve_sensitivity


def dpsgd_rdp_epsilon(noise_multiplier, sample_rate, steps, delta, *,
                      sensitivity: float | None = None, orders=None,
                      conversion: str = "improved") -> RDPEpsilon:
    """ε of Poisson-sampled DP-SGD (add/remove neighbours) by the Rényi accountant.

    The RDP of the Poisson-subsampled Gaussian with noise multiplier σ/s (Mironov,
    Talwar & Zhang 2019, §3.3) is composed over ``steps`` and converted at ``delta``
    (``conversion="improved"``: Balle et al. 2020, Thm 21; ``"mironov"``: Mironov
    2017, Prop 3, as the original moments accountant and Bu et al. 2020).

    Parameters
    ----------
    noise_multiplier : float
        σ > 0: the noise on the clipped gradient sum has standard deviation σ·C.
    sample_rate : float
        Poisson rate q ∈ [0, 1].
    steps : int
        Number of steps T ≥ 0.
    delta : float
        Target δ in (0, 1).
    sensitivity : float, optional
        s > 0, the largest change of the clipped gradient sum between neighbours in
        units of the clipping norm (default 1, add/remove).
    orders : array_like, optional
        Rényi orders λ > 1 (default: the grid of Bu et al. 2020).
    conversion : str
        "improved" (default) or "mironov".

    Returns
    -------
    RDPEpsilon
        ``(epsilon, order)``: an upper bound on ε and the order that attains it.

    Raises
    ------
    ValueError
        If a parameter is out of range.

    Examples
    --------
    >>> from fdp.sgd.rdp import dpsgd_rdp_epsilon
    >>> r = dpsgd_rdp_epsilon(1.1, 256 / 60000, 1000, 1e-5)
    >>> print(f"{r.epsilon:.3f}")
    0.875
    """
    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    s = resolve_sensitivity(sensitivity, "add_remove")
    return moments_accountant_epsilon(sigma / s, sample_rate, steps, delta,
                                      conversion=conversion, orders=orders)


__all__ = ["RDPEpsilon", "dpsgd_rdp_epsilon", "moments_accountant_epsilon"]
