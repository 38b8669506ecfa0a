"""Closed forms in mpmath shared by several tests (independent of fdp's code)."""

from __future__ import annotations

import mpmath as mp


def laplace_beta(mu: float, a: float) -> mp.mpf:
    """T(Lap(0, 1), Lap(μ, 1))(α) (DRS 2022, Sec. 2.1), at mpmath's working precision."""
    mu, a = mp.mpf(mu), mp.mpf(a)
    if a < mp.e ** -mu / 2:
        return 1 - mp.e ** mu * a
    if a <= mp.mpf(1) / 2:
        return mp.e ** -mu / (4 * a)
    return mp.e ** -mu * (1 - a)
