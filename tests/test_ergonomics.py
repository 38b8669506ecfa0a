"""Ergonomics: the US spelling gets a hint, a numeric ε(δ) says the range it checks,
and an observed point above β = 1 − α is refused instead of dropped silently."""

from __future__ import annotations

import numpy as np
import pytest

import fdp
from fdp._validate import british_spelling
from fdp.families.piecewise import POINTS_TOL


def test_neighboring_gets_a_hint_before_anything_runs(monkeypatch):
    with pytest.raises(TypeError, match=r"did you mean neighbouring=\?"):
        fdp.dpsgd(1.1, 0.01, 10, neighboring="add_remove")

    @british_spelling
    def g(neighbouring="add_remove"):
        raise AssertionError("ran")
    with pytest.raises(TypeError, match=r"^g\(\) got an unexpected keyword argument"):
        g(neighboring="replace_one")
    with pytest.raises(AssertionError, match="ran"):
        g(neighbouring="replace_one")             # the British spelling is passed on


@pytest.mark.parametrize("delta", [-1.0, 0.0, 1.0, 2.0, [0.5, 0.0]])
def test_numeric_epsilon_names_the_range_it_checks(delta):
    f = fdp.dpsgd(1.1, 0.01, 10)
    with pytest.raises(ValueError, match=r"open interval \(0, 1\)") as exc:
        f.epsilon(delta)
    assert "[0, 1]" not in str(exc.value)


def test_closed_forms_keep_the_closed_interval():
    assert fdp.Laplace(1.0).epsilon(1.0) == 0.0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fdp.Laplace(1.0).epsilon(-1.0)


def test_a_point_above_the_diagonal_is_refused():
    with pytest.raises(ValueError) as exc:
        fdp.from_points([0.5], [0.9])
    msg = str(exc.value)
    assert msg.startswith("beta must lie in [0, 1 - alpha]") and "beta=0.9" in msg
    with pytest.raises(ValueError, match="point 1"):
        fdp.from_points([0.1, 0.7, 0.2], [0.5, 0.31, 0.9])


def test_rounding_above_the_diagonal_is_accepted_and_not_used():
    a = np.array([0.2, 0.5])
    f = fdp.from_points(a, [0.6, 0.5 + 0.5 * POINTS_TOL])
    g = fdp.from_points([0.2], [0.6])
    grid = np.linspace(0.0, 1.0, 101)
    assert np.array_equal(f(grid), g(grid))
    with pytest.raises(ValueError, match="beta"):
        fdp.from_points(a, [0.6, 0.5 + 2.0 * POINTS_TOL])


def test_audit_hull_still_forms_from_upper_confidence_points():
    rng = np.random.default_rng(1)
    est = fdp.audit.estimate(rng.normal(0, 1, 2000), rng.normal(1, 1, 2000))
    assert est is not None


def test_plotting_subsampling_defaults_to_what_subsample_defaults_to():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    f = fdp.Gaussian(1.0)
    for kwargs, curve in [({}, f.subsample(0.3)),
                          ({"sampling": "without_replacement"},
                           f.subsample(0.3, sampling="without_replacement"))]:
        fig, ax = plt.subplots()
        fdp.plotting.subsampling(f, ps=(0.3,), ax=ax, **kwargs)
        x, y = ax.get_lines()[0].get_data()
        np.testing.assert_allclose(y, curve(np.asarray(x)), rtol=0, atol=1e-12)
        plt.close(fig)
    with pytest.raises(TypeError):
        fdp.plotting.subsampling(f, scheme="poisson")


def test_dpsgd_takes_the_epochs_form_of_the_cli_and_opacus():
    from fdp.sgd.schedule import from_epochs
    # 60 epochs of 256 from 60000: q = 256/60000, T = ⌈60·60000/256⌉ = 14063
    assert from_epochs(256, 60000, 60) == (256 / 60000, 14063)
    assert from_epochs(100, 1000, 0.25) == (0.1, 3)                # ⌈2.5⌉
    assert from_epochs(100, 1000, 3) == (0.1, 30)                  # whole: no extra step
    a = fdp.dpsgd(1.1, batch_size=100, dataset_size=1000, epochs=3)
    b = fdp.dpsgd(1.1, 0.1, 30)
    assert tuple(a.epsilon_bounds(1e-5)) == tuple(b.epsilon_bounds(1e-5))
    with pytest.raises(TypeError, match="not both"):
        fdp.dpsgd(1.1, 0.1, 30, epochs=3)
    with pytest.raises(TypeError, match="dataset_size="):
        fdp.dpsgd(1.1, batch_size=100, epochs=3)
    with pytest.raises(ValueError, match="batch_size"):
        fdp.dpsgd(1.1, batch_size=2000, dataset_size=1000, epochs=1)
    with pytest.raises(ValueError, match="epochs"):
        fdp.dpsgd(1.1, batch_size=100, dataset_size=1000, epochs=0)
