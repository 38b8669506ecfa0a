"""Every mechanism takes the same ``rng`` values (fdp._types.Seed), the exact samplers too."""

import numpy as np
import pytest

from fdp.mechanisms import DiscreteGaussianMechanism, DiscreteLaplaceMechanism
from fdp.mechanisms.exact import RandomBits


@pytest.mark.parametrize("mech", [DiscreteLaplaceMechanism(sensitivity=1, scale=2),
                                  DiscreteGaussianMechanism(sensitivity=1, sigma=2.0)])
def test_exact_samplers_take_a_seed_sequence(mech):
    # a SeedSequence draws what the Generator built from it draws
    a = mech.sample(0, 20, rng=np.random.SeedSequence(7))
    b = mech.sample(0, 20, rng=np.random.default_rng(np.random.SeedSequence(7)))
    assert a.shape == (20,) and np.array_equal(a, b)


def test_random_bits_still_refuses_other_sources():
    with pytest.raises(TypeError, match="rng must be None"):
        RandomBits("seed")
