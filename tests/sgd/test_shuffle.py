"""fdp.sgd.shuffle: a labelled LOWER curve, never a guarantee."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fdp
from fdp.sgd.shuffle import NOT_A_GUARANTEE, ShuffleLower, shuffle_lower
from tests.sgd.test_allocation import _exact_t2


def test_marked_everywhere_as_not_a_guarantee():
    low = shuffle_lower(2.0, 10)
    assert isinstance(low, ShuffleLower) and low.status is fdp.Status.LOWER_BOUND
    text = repr(low)
    assert text.endswith("# lower bound, not a guarantee")
    assert "lower" in low.latex().lower()
    assert "LOWER" in (ShuffleLower.__doc__ or "") and "LOWER" in shuffle_lower.__doc__


def test_operations_give_lower_bounds_and_guarantee_readouts_are_refused():
    """The status rule: anything built from a lower bound is at most a lower bound
    (operations are monotone); the read-outs that would state a guarantee refuse."""
    low = shuffle_lower(2.0, 10)
    for g in (low @ fdp.Gaussian(1.0), fdp.Gaussian(1.0) @ low, low ** 2, low.group(2),
              low.subsample(0.5), fdp.compose(low, fdp.Laplace(1.0))):
        assert g.status is fdp.Status.LOWER_BOUND
        assert repr(g).endswith("# lower bound, not a guarantee")
    for op in (lambda: low.pure_epsilon(), lambda: low.epsilon(1e-5),
               lambda: low.delta(1.0), lambda: low.gdp_mu()):
        with pytest.raises(fdp.NotAGuarantee, match="LOWER bound"):
            op()
    assert "not a privacy guarantee" in NOT_A_GUARANTEE
    # the composed lower curve lies above the composed exact instance's lower side
    a = np.linspace(0.0, 1.0, 51)
    assert np.all((low @ fdp.Gaussian(1.0))(a) >= (low.instance @ fdp.Gaussian(1.0))(a) - 1e-9)


@pytest.mark.slow
def test_lower_side_of_the_exact_instance_t2():
    """t = 2: every reading is on the leaky side of the exact instance (mpmath)."""
    sigma = 1.0
    low = shuffle_lower(sigma, 2)
    for eps in (0.0, 0.5, 1.5):
        truth = max(_exact_t2(sigma, eps))
        assert float(low.delta_lower(eps)) <= truth
        assert float(low.delta_lower(eps)) >= truth * (1 - 1e-3)


def test_tf_privacy_reference_below_once_per_epoch():
    """n = 10⁴, batch 64 (156 batches), 5 epochs, σ = 1, δ = 1e-6: the lower bound
    stays below the no-amplification value 12.595 (TF Privacy), and so does the
    whole curve (f_lower ≥ G_{√5})."""
    low = shuffle_lower(1.0, 10_000 // 64, epochs=5)
    lo, hi = low.epsilon_bounds(1e-6)
    assert math.isinf(hi)
    full = fdp.Gaussian(math.sqrt(5.0))
    assert 0.0 < lo <= 12.595 and lo <= full.epsilon(1e-6)
    a = np.linspace(0.0, 1.0, 201)
    assert np.all(low(a) >= full(a) - 1e-9)


def test_mu_lower_is_below_the_full_batch_mu():
    low = shuffle_lower(2.0, 3)
    mu = low.mu_lower()
    assert 0.0 < mu <= 1.0 / 2.0 + 1e-12          # f_instance ≥ G_{1/σ}
    with pytest.raises(fdp.NotAGuarantee, match="LOWER bound"):
        low.gdp_mu()


@pytest.mark.parametrize("adaptive", [False, True])
def test_accountant_refuses_to_spend_it(adaptive):
    acc = fdp.Accountant(mu=5.0, adaptive=adaptive)
    with pytest.raises(fdp.NotAGuarantee, match="lower bound"):
        acc.spend(shuffle_lower(2.0, 10))
    assert len(acc.spends) == 0


def test_dpsgd_wiring_helpers():
    from fdp.sgd import allocation
    from fdp.sgd import shuffle as sl
    f = allocation.from_dpsgd(2.0, 0.1, 25)            # 10 steps per epoch, 3 epochs (up)
    g = allocation.random_allocation(2.0, 10, 1, 3)
    assert f.epsilon_bounds(1e-5) == g.epsilon_bounds(1e-5)
    low = sl.from_dpsgd(2.0, 0.1, 25)                   # 2 full epochs (down)
    assert "epochs=2" in repr(low) and low.status is fdp.Status.LOWER_BOUND
    with pytest.raises(ValueError, match="sample_rate"):
        allocation.from_dpsgd(2.0, 0.3, 10)
    with pytest.raises(ValueError, match="one epoch"):
        sl.from_dpsgd(2.0, 0.1, 5)
