"""The GDP μ of a truncated-Poisson step is decided in the far tail, where 1 − f ≈ 1e-19.

A truncated-Poisson step is a revealed mixture: with probability 1 − τ the Poisson step
C_q(G_1), with probability τ (the capped batch) C_p(G_2). Rounded values of the mixture's
curve were once read as 1.0 there, and the generic sandwich then "proved" μ = 0.46 for one
step (T = 100 steps: 4.62) although the Poisson member alone has μ* = 1 (T = 100: 10).
"""

from __future__ import annotations

import math

import mpmath as mp

import fdp
from fdp.conversions.summaries import gdp_mu_bounds as generic_gdp_mu_bounds
from fdp.families.mixture import RevealedMixture

TAU = 5.57267e-19
Q, P_CAP = 0.01, 0.009903762460947986


def _step() -> RevealedMixture:
    return RevealedMixture((1.0 - TAU, TAU),
                           (fdp.Gaussian(1.0).subsample(Q, direction="add"),
                            fdp.Gaussian(2.0).subsample(P_CAP, direction="add")))


def test_the_mixture_is_not_half_gdp_in_mpmath():
    """Independent: test member 1 alone at α_1 = α/(1 − τ), with C_q(G_1) = q G_1 + (1 − q) Id
    (DRS Thm 4.2's add direction): 1 − β ≥ (1 − τ)(q Φ̄(z_1 − 1) + (1 − q) α_1), z_1 = Φ̄⁻¹(α_1),
    which at α = Φ̄(15) exceeds 1 − G_0.5(α) = Φ̄(Φ̄⁻¹(α) − 0.5): no μ ≤ 0.5 holds (the one-step
    claim was 0.46). All in complements, never numbers near 1."""
    mp.mp.dps = 50
    tau = mp.mpf(TAU)
    alpha = mp.ncdf(-15)
    a1 = alpha / (1 - tau)
    z1 = mp.findroot(lambda z: mp.ncdf(-z) - a1, 15)
    gain = (1 - tau) * (Q * mp.ncdf(1 - z1) + (1 - mp.mpf(Q)) * a1)
    assert gain > mp.ncdf(-(15 - mp.mpf("0.5"))) * 10     # ten times over, not by rounding


def test_generic_sandwich_never_claims_below_the_poisson_member():
    lo, hi = generic_gdp_mu_bounds(_step())
    assert hi >= 0.5 and lo <= 2.0          # μ* = 2 (the capped member's tail)


def test_mixture_mu_is_the_largest_member_mu_exactly():
    assert tuple(_step().gdp_mu_bounds()) == (2.0, 2.0)
    # every member Id: Id itself
    assert RevealedMixture((0.5, 0.5), (fdp.Identity(), fdp.Identity()))._gaussian_component() \
        == (0.0, 1.0)


def test_truncated_poisson_dpsgd_mu_is_at_least_the_poisson_runs():
    f = fdp.dpsgd(1.0, Q, 100, sampling="truncated_poisson", dataset_size=10_000, batch_cap=200)
    poisson = fdp.dpsgd(1.0, Q, 100)
    lo, hi = f.gdp_mu_bounds()
    assert poisson.gdp_mu_bounds().lo <= hi
    assert lo <= 2.0 * math.sqrt(100) <= hi and hi - lo < 1e-9
