"""Random allocation refuses a composition over the engine's grid limit before
composing (a ValueError naming epochs and the limit), and answers k = t exactly."""

from __future__ import annotations

import math

import pytest

import fdp
import fdp.engine.composition as composition
from fdp.sgd import random_allocation


def _no_composition(*args, **kwargs):
    raise AssertionError("composed before refusing")


@pytest.mark.parametrize("steps, selected, epochs", [(10, 1, 10 ** 9), (100, 100, 10 ** 6)])
def test_too_many_epochs_is_refused_before_composing(monkeypatch, steps, selected, epochs):
    monkeypatch.setattr(composition, "combine_directions", _no_composition)
    with pytest.raises(ValueError) as err:
        random_allocation(1.0, steps, selected=selected, epochs=epochs, tol=1e-2)
    text = str(err.value)
    assert f"epochs={epochs}" in text and "33,554,432" in text and "at most about" in text
    fit = int(text.split("at most about ")[1].split(" ")[0].replace(",", ""))
    assert 1 <= fit < epochs


def test_every_step_selected_brackets_the_full_batch_gaussian():
    # k = t: the record is in every step, so one epoch is G_{sqrt(t)/σ} (DRS Cor 3.3)
    f = random_allocation(1.0, 100, selected=100)
    lo, hi = f.epsilon_bounds(1e-5)
    exact = fdp.Gaussian(math.sqrt(100.0)).epsilon(1e-5)
    assert lo <= exact <= hi and hi - lo < 1e-3 * exact
