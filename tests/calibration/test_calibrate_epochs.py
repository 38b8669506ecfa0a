"""calibrate_dpsgd in the form training code states a run (batch size, dataset size,
epochs; issue 34), and the US spelling neighboring= named, not a bare TypeError."""

import math

import pytest

import fdp


@pytest.mark.slow
def test_epochs_form_is_the_rate_and_steps_form():
    B, N, E = 100, 10000, 0.25
    q, T = B / N, math.ceil(E * N / B)                      # 0.01, 25 (by hand)
    a = fdp.calibrate_dpsgd(batch_size=B, dataset_size=N, epochs=E, epsilon=2.0,
                            delta=1e-5, rtol=0.05, tol=1e-2)
    b = fdp.calibrate_dpsgd(sample_rate=q, steps=T, epsilon=2.0, delta=1e-5, rtol=0.05,
                            tol=1e-2)
    assert float(a) == float(b)
    assert fdp.dpsgd(float(a), q, T, tol=1e-2).epsilon(1e-5) <= 2.0


@pytest.mark.slow
def test_a_fraction_of_an_epoch_rounds_the_steps_up():
    # 0.015 epochs of 100 from 10000 is 1.5 steps: 2 are accounted (the safe side)
    a = fdp.calibrate_dpsgd(batch_size=100, dataset_size=10000, epochs=0.015, mu=1.0,
                            rtol=0.05, tol=1e-2)
    b = fdp.calibrate_dpsgd(sample_rate=0.01, steps=2, mu=1.0, rtol=0.05, tol=1e-2)
    assert float(a) == float(b)


@pytest.mark.parametrize("kwargs,match", [
    (dict(sample_rate=0.01, batch_size=10, dataset_size=100, epochs=1),
     "either sample_rate and steps, or batch_size"),
    (dict(batch_size=10, epochs=1), "needs batch_size=, dataset_size= and epochs="),
    (dict(sample_rate=0.01), "needs sample_rate and steps"),
    (dict(sample_rate=0.01, steps=10, neighboring="add_remove"),
     "did you mean neighbouring="),
])
def test_schedule_and_spelling_errors_say_what_to_pass(kwargs, match):
    with pytest.raises(TypeError, match=match):
        fdp.calibrate_dpsgd(epsilon=1.0, delta=1e-5, **kwargs)


def test_bad_epoch_numbers_name_the_parameter():
    with pytest.raises(ValueError, match="batch_size must lie in"):
        fdp.calibrate_dpsgd(batch_size=200, dataset_size=100, epochs=1, epsilon=1.0,
                            delta=1e-5)
    with pytest.raises(ValueError, match="epochs"):
        fdp.calibrate_dpsgd(batch_size=10, dataset_size=100, epochs=0, epsilon=1.0,
                            delta=1e-5)
