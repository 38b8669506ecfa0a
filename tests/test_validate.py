"""Bad input: ValueError naming the parameter and its range; never NaN, never clipping."""

from __future__ import annotations

import numpy as np
import pytest

import fdp


@pytest.mark.parametrize("make, match", [
    (lambda: fdp.Gaussian(-1), "mu"),
    (lambda: fdp.Gaussian(np.inf), "mu"),
    (lambda: fdp.Gaussian(np.nan), "mu"),
    (lambda: fdp.Laplace(-0.1), "mu"),
    (lambda: fdp.EpsDelta(-1), "eps"),
    (lambda: fdp.EpsDelta(1, 1.5), "delta"),
    (lambda: fdp.EpsDelta(1, -0.1), "delta"),
    (lambda: fdp.RandomizedResponse(1, 1), "k"),
    (lambda: fdp.RandomizedResponse(1, 2.5), "k"),
    (lambda: fdp.Gaussian(1)(1.5), "alpha"),
    (lambda: fdp.Gaussian(1)(np.array([0.2, np.nan])), "alpha"),
    (lambda: fdp.Gaussian(1)(-1e-9), "alpha"),
    (lambda: fdp.Gaussian(1).group(0), "k"),
    (lambda: fdp.Gaussian(1).group(1.5), "k"),
    (lambda: fdp.Gaussian(1).subsample(1.2), "p"),
    (lambda: fdp.Gaussian(1).subsample(-0.1), "p"),
    (lambda: fdp.Gaussian(1).subsample(0.1, sampling="bogus"), "sampling"),
    (lambda: fdp.Gaussian(1).subsample(0.1, direction="sideways"), "direction"),
    (lambda: fdp.Laplace(1) ** -1, "non-negative integer"),
    (lambda: fdp.Laplace(1) ** 1.5, "non-negative integer"),
    (lambda: fdp.from_points([0.1, 1.2], [0.5, 0.2]), "alpha"),
    (lambda: fdp.from_points([0.1, 0.2], [0.5, -0.2]), "beta"),
    (lambda: fdp.from_points([0.1], [0.5, 0.2]), "same length"),
    (lambda: fdp.from_pair([0.5, 0.6], [0.5, 0.5]), "p_probs"),
    (lambda: fdp.Gaussian(1).epsilon(1.5), "delta"),
    (lambda: fdp.Gaussian(1).delta(np.nan), "eps"),
    (lambda: fdp.gdp_epsilon(-1, 1e-5), "mu"),
    (lambda: fdp.gdp_mu_for_eps_delta(1.0, 2.0), "delta"),
    (lambda: fdp.compose(), "at least one"),
    (lambda: fdp.tightest_eps_delta(fdp.Gaussian(1)), "exactly one"),
])
def test_bad_input_raises_value_error_naming_the_parameter(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_type_errors():
    with pytest.raises(TypeError):
        fdp.Gaussian("1")
    with pytest.raises(TypeError):
        fdp.Gaussian(True)
    with pytest.raises(TypeError):
        fdp.compose(fdp.Gaussian(1), 3)


def test_value_objects_are_immutable():
    g = fdp.Gaussian(1.0)
    with pytest.raises(AttributeError):
        g.mu = 2.0
    p = fdp.from_points([0.2], [0.3])
    with pytest.raises(AttributeError):
        p.alphas = None
    with pytest.raises(ValueError):
        p.alphas[0] = 0.5  # read-only array
