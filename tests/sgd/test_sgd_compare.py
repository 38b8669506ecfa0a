"""fdp.sgd as the one home of DP-SGD accounting: the Rényi face and the side-by-side table.

Independent truths: the Rényi ε of DP-SGD is the subsampled Gaussian's RDP of
``fdp.classical.rdp`` at noise multiplier σ/s (it depends on σ/s only; Mironov, Talwar &
Zhang 2019), converted by ``rdp_to_epsilon``; a certified bracket contains the true ε, and
the Rényi conversion is an upper bound on it, so the certified lower end never exceeds
the Rényi ε.
"""

from __future__ import annotations

import math

import pytest

from fdp.classical.rdp import DEFAULT_ORDERS, rdp_subsampled_gaussian, rdp_to_epsilon
from fdp.sgd import compare_accountants, compare_dpsgd_clt, dpsgd_rdp_epsilon


@pytest.mark.parametrize("sens", [None, 1.0, 2.0])
def test_rdp_face_is_the_subsampled_gaussian_at_sigma_over_s(sens):
    r = dpsgd_rdp_epsilon(1.1, 0.01, 500, 1e-5, sensitivity=sens)
    s = 1.0 if sens is None else sens
    rho = rdp_subsampled_gaussian(DEFAULT_ORDERS, 0.01, 1.1 / s, 500)
    assert r == rdp_to_epsilon(DEFAULT_ORDERS, rho, 1e-5, conversion="improved")


def test_rdp_face_refuses_bad_input():
    with pytest.raises(ValueError, match="noise_multiplier"):
        dpsgd_rdp_epsilon(0.0, 0.01, 10, 1e-5)
    with pytest.raises(ValueError, match="sensitivity"):
        dpsgd_rdp_epsilon(1.0, 0.01, 10, 1e-5, sensitivity=-1.0)


def test_side_by_side_agrees_with_its_parts():
    c = compare_accountants(1.0, 0.02, 50, 1e-5, tol=1e-2)
    clt = compare_dpsgd_clt(1.0, 0.02, 50, 1e-5, tol=1e-2)
    assert (c.epsilon_lower, c.epsilon_upper) == (clt.epsilon_lower, clt.epsilon_upper)
    assert c.clt_epsilon == clt.clt_epsilon
    assert c.rdp_epsilon == dpsgd_rdp_epsilon(1.0, 0.02, 50, 1e-5).epsilon
    assert c.epsilon_lower <= c.epsilon_upper <= c.rdp_epsilon
    assert "certified eps in" in str(c)


def test_side_by_side_without_replacement_has_no_renyi_column():
    c = compare_accountants(2.0, 0.02, 20, 1e-5, sampling="without_replacement", tol=1e-2)
    assert math.isnan(c.rdp_epsilon) and math.isnan(c.rdp_order)
    assert c.sensitivity == 2.0 and "n/a" in str(c)
