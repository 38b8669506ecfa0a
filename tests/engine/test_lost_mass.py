"""Loss mass beyond the discretisation window is sent to +inf, never lost (issue 31.1).

The upper tail of a subsampled Gaussian with large μ = s/σ has Q-mass where the
P-masses underflow; the law of sampling without replacement must keep those cells.
"""

import math

import numpy as np
import pytest
from scipy.stats import binom, norm

import fdp
from fdp.engine.connect_dots import grid_range


def _wr_delta(mu, q, eps):
    """δ of C_q(G_μ) at ε ≥ 0: q δ_{G_μ}(log(1 + (e^ε − 1)/q)) (DRS Thm 4.2), by scipy."""
    e = math.log1p(math.expm1(eps) / q)
    return q * (norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2))


@pytest.mark.parametrize("mu", [1.0, 50.0, 200.0])
def test_without_replacement_law_keeps_all_mass(mu):
    law = fdp.Gaussian(mu).subsample(0.1, sampling="without_replacement").law()
    kmin, kmax = grid_range(law.loss_range(), 1e-2)
    kappa, pi, q_inf, p_neginf = law.interval_masses(np.arange(kmin, kmax + 1) * 1e-2)
    assert abs(math.fsum(kappa) + q_inf - 1.0) < 1e-14
    assert abs(math.fsum(pi) + p_neginf - 1.0) < 1e-14
    if mu >= 50.0:      # the whole sampled mass lies above the window's top
        assert kappa[-1] > 0.0999


def test_without_replacement_step_against_closed_form():
    f = fdp.dpsgd(0.04, 0.1, 1, sampling="without_replacement", neighbouring="replace_one")
    truth = _wr_delta(50.0, 0.1, 1.0)                   # 0.1 up to 1e-300
    lo, hi = f.delta_bounds(1.0)
    assert lo <= truth <= hi and hi < truth + 1e-9
    closed = fdp.Gaussian(50).subsample(0.1, sampling="without_replacement").delta(1.0)
    assert abs(closed - truth) < 1e-12
    e_lo, e_hi = f.epsilon_bounds(1e-6)
    assert e_lo >= 999.0      # the truth is ≈ 1460: far from the old (0, 0)
    # composition: δ of the two-fold product of pairs with q = 0.1 blatant mass
    lo2, hi2 = (f ** 2).delta_bounds(1.0)
    assert lo2 <= 0.19 <= hi2 and hi2 - lo2 < 1e-6


def test_with_replacement_step_against_enumeration():
    # b = 10 draws from n = 100: K ~ Bin(10, 1/100) copies of the record; with μ = 200
    # every k ≥ 1 is blatantly non-private, so δ(ε) = η = P(K ≥ 1) for moderate ε
    f = fdp.dpsgd(0.01, 0.1, 1, sampling="with_replacement", neighbouring="replace_one",
                  dataset_size=100)
    eta = float(binom.sf(0, 10, 0.01))
    lo, hi = f.delta_bounds(1.0)
    assert lo <= eta <= hi and hi - lo < 1e-9
    assert f.epsilon_bounds(1e-6)[0] > 100.0


class _Leaky:
    """G_1 whose law forgets the Q- and P-mass of its top cell (a buggy law)."""

    def __init__(self):
        self.g = fdp.Gaussian(1.0)

    def _lattices(self):
        return None

    def law(self):
        inner = self.g.law()

        class Law:
            def interval_masses(self, edges):
                k, p, qi, pn = inner.interval_masses(edges)
                k, p = k.copy(), p.copy()
                k[-2:] = 0.0
                p[-2:] = 0.0
                return k, p, qi, pn

            def loss_range(self):
                return -2.0, 2.0          # the grid's top edge is 2.02

            def atoms(self):
                return np.zeros(0), np.zeros(0)
        return Law()


def test_unplaced_mass_goes_to_plus_infinity():
    from fdp.engine.discretise import _both
    pess, opt = _both(_Leaky(), 0.01)
    lost_q = float(norm.sf(2.01 - 0.5))      # the two cells above L = 2.01, L ~ N(1/2, 1) under Q
    assert pess.q_inf >= lost_q * (1 - 1e-12)
    assert opt.q_inf == 0.0
    # the pessimistic δ is at least the true δ of G_1 everywhere
    eps = np.array([0.0, 1.0, 3.0])
    assert np.all(pess.delta_raw(eps) >= fdp.Gaussian(1.0).delta(eps) * (1 - 1e-9))
